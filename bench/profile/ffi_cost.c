/* ffi_cost: what a call costs when it is forwarded through a libffi
 * closure, against a direct call: the figure behind not using libffi
 * (docs/design/decisions.md, No libffi).
 *
 * Usage: ffi_cost [-n calls per batch] [-b batches] [-v way]
 *
 * The call has MPI_Send's shape (a pointer and five ints) and lands in a
 * function that the compiler cannot inline.  Three ways to reach it:
 *   direct       through a function pointer, as a wrapper reaches PMPI_Send
 *                through the PLT
 *   closure      a libffi closure whose handler unpacks the arguments and
 *                calls the target itself: the trampoline alone, what a
 *                closure that gives a user-data-less callback its own state
 *                costs
 *   forward      a libffi closure whose handler passes the call on with
 *                ffi_call: the generic forwarder for any signature that a
 *                wrapper layer built on libffi would use
 * Each figure is the fastest batch's nanoseconds per call (the fastest,
 * because other load on the machine only ever adds time).  -v runs one way
 * only (direct, closure or forward) and prints nothing: for instruction
 * counts, two runs under valgrind --tool=callgrind with different -n give
 * the instructions per call from the difference of their totals.  Plain C, no MPI;
 * built and run by `make ffi-cost`, never by `make test`.
 */
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*send_fn)(const void *, int, int, int, int, int);

static volatile long sink;

__attribute__((noinline)) static int target(const void *buf, int count,
                                            int type, int dest, int tag,
                                            int comm)
{
    sink += (long)buf + count + type + dest + tag + comm;
    return 0;
}

static ffi_cif cif;
static ffi_type *arg_types[6];

/* closure: the handler calls the target with the unpacked arguments. */
static void unpack_handler(ffi_cif *c, void *ret, void **args, void *data)
{
    (void)c;
    send_fn fn = (send_fn)data;
    *(ffi_arg *)ret = (ffi_arg)fn(*(const void **)args[0], *(int *)args[1],
                                  *(int *)args[2], *(int *)args[3],
                                  *(int *)args[4], *(int *)args[5]);
}

/* forward: the handler passes the call on with ffi_call. */
static void forward_handler(ffi_cif *c, void *ret, void **args, void *data)
{
    ffi_call(c, FFI_FN(data), ret, args);
}

static send_fn make_closure(void (*handler)(ffi_cif *, void *, void **,
                                            void *))
{
    void *code;
    ffi_closure *cl = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (!cl || ffi_prep_closure_loc(cl, &cif, handler, (void *)target,
                                    code) != FFI_OK) {
        fprintf(stderr, "ffi_cost: cannot make a libffi closure\n");
        exit(1);
    }
    return (send_fn)code;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The fastest of `batches` batches of n calls through fn, ns per call. */
static double best_ns(send_fn volatile *fn, long n, int batches)
{
    static char buf[8];
    double best = 1e30;
    for (int b = 0; b < batches; b++) {
        double t0 = now();
        for (long i = 0; i < n; i++)
            (*fn)(buf, 1, 2, 3, (int)i, 5);
        double ns = (now() - t0) / (double)n * 1e9;
        if (ns < best)
            best = ns;
    }
    return best;
}

int main(int argc, char **argv)
{
    long n = 10000000;
    int batches = 11, opt;
    const char *only = NULL;
    while ((opt = getopt(argc, argv, "n:b:v:")) != -1) {
        if (opt == 'n')
            n = atol(optarg);
        else if (opt == 'b')
            batches = atoi(optarg);
        else if (opt == 'v')
            only = optarg;
        else
            n = 0;
    }
    if (n < 1 || batches < 1 ||
        (only && strcmp(only, "direct") && strcmp(only, "closure") &&
         strcmp(only, "forward"))) {
        fprintf(stderr, "ffi_cost: usage: ffi_cost [-n calls per batch] "
                        "[-b batches] [-v direct|closure|forward]\n");
        return 2;
    }
    arg_types[0] = &ffi_type_pointer;
    for (int i = 1; i < 6; i++)
        arg_types[i] = &ffi_type_sint;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 6, &ffi_type_sint, arg_types) !=
        FFI_OK) {
        fprintf(stderr, "ffi_cost: ffi_prep_cif failed\n");
        return 1;
    }
    send_fn volatile direct = target;
    send_fn volatile closure = make_closure(unpack_handler);
    send_fn volatile forward = make_closure(forward_handler);
    if (only) {
        best_ns(only[0] == 'd'   ? &direct
                : only[0] == 'c' ? &closure
                                 : &forward,
                n, batches);
        return 0;
    }
    double d = best_ns(&direct, n, batches);
    double c = best_ns(&closure, n, batches);
    double f = best_ns(&forward, n, batches);
    printf("direct call:                          %6.2f ns\n", d);
    printf("libffi closure (trampoline only):     %6.2f ns  (%.1fx)\n", c,
           c / d);
    printf("libffi closure forwarding (ffi_call): %6.2f ns  (%.1fx)\n", f,
           f / d);
    return 0;
}
