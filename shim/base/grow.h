/* grow: the arrays Omnibus appends to without bound (lists of ranks,
 * ledgers, request sets), doubled when full.
 *
 * Contract.  omni_grow() returns an array with room for element n: the
 * same one when n < *cap, else one of twice the capacity (`first` when
 * it had none), the first n elements kept, *cap updated.  It never
 * returns NULL: when memory runs out it ends the job, naming `what`
 * (fail.h).  The caller owns the array and frees it.
 */
#ifndef OMNIBUS_GROW_H
#define OMNIBUS_GROW_H

#include <stddef.h>

void *omni_grow(void *array, int n, int *cap, size_t size, int first,
                const char *what);

#endif
