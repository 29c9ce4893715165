#include "shim/base/grow.h"
#include "shim/base/fail.h"
#include <stdlib.h>

void *omni_grow(void *array, int n, int *cap, size_t size, int first,
                const char *what)
{
    if (n < *cap)
        return array;
    int c = *cap ? *cap * 2 : first;
    void *grown = realloc(array, size * (size_t)c);
    if (!grown)
        omni_out_of_memory(what);
    *cap = c;
    return grown;
}
