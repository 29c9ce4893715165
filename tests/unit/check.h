/* check.h: the unit-test harness for the MPI-free modules (config/, router/).
 *
 * A test file defines functions `static void test_<behaviour>(void)` and lists
 * them in main() with RUN(test_<behaviour>).  CHECK(cond, fmt, ...) records a
 * failure with a message that says what was promised and what happened; a
 * test passes when it ran at least one CHECK and none failed (a test that
 * asserts nothing is reported as a failure, never as a pass).  CHECK_MAIN_END
 * prints "N passed, N failed" and returns the exit status.
 */
#ifndef CHECK_H
#define CHECK_H
#include <stdio.h>

static int check_failed_in_test, check_asserts_in_test;
static int check_passed, check_failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        check_asserts_in_test++;                                               \
        if (!(cond)) {                                                         \
            check_failed_in_test++;                                            \
            fprintf(stderr, "    %s:%d: ", __FILE__, __LINE__);                \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

#define RUN(fn)                                                                \
    do {                                                                       \
        check_failed_in_test = 0;                                              \
        check_asserts_in_test = 0;                                             \
        fn();                                                                  \
        if (check_asserts_in_test == 0) {                                      \
            check_failed++;                                                    \
            printf("FAIL %s: asserted nothing\n", #fn);                        \
        } else if (check_failed_in_test) {                                     \
            check_failed++;                                                    \
            printf("FAIL %s\n", #fn);                                          \
        } else {                                                               \
            check_passed++;                                                    \
            printf("PASS %s\n", #fn);                                          \
        }                                                                      \
    } while (0)

#define CHECK_MAIN_END()                                                       \
    do {                                                                       \
        printf("%d passed, %d failed\n", check_passed, check_failed);          \
        return check_failed ? 1 : 0;                                           \
    } while (0)

#endif
