#include "router/paths.h"

enum pa_verdict { PA_NEITHER, PA_SAYS_A, PA_SAYS_B };

static enum pa_verdict verdict(double a, double b)
{
    if (!(a > 0) || !(b > 0))
        return PA_NEITHER;
    if (b < (1 - PA_MARGIN) * a)
        return PA_SAYS_B;
    if (a < (1 - PA_MARGIN) * b)
        return PA_SAYS_A;
    return PA_NEITHER;
}

pa_choice pa_crossover(const pa_table *t, enum pa_path a, enum pa_path b,
                       uint64_t dflt)
{
    pa_choice keep = {dflt, PA_DEFAULT};
    int last_a = -1, first_b = -1;
    for (int i = 0; i < t->nsizes; i++) {
        enum pa_verdict v = verdict(t->cost[i][a], t->cost[i][b]);
        if (v == PA_SAYS_A) {
            if (first_b >= 0)
                return keep; /* crosses back */
            last_a = i;
        } else if (v == PA_SAYS_B && first_b < 0) {
            first_b = i;
        }
    }
    if (last_a < 0 && first_b < 0)
        return keep;
    uint64_t lo = last_a >= 0 ? t->size[last_a] + 1 : 0;
    uint64_t hi = first_b >= 0 ? t->size[first_b] : UINT64_MAX;
    pa_choice c = {dflt < lo ? lo : dflt > hi ? hi : dflt, PA_MEASURED};
    return c;
}

pa_choice pa_wait_from(const uint64_t *sizes, const int *waits, int n,
                       uint64_t dflt)
{
    pa_choice c = {dflt, PA_DEFAULT};
    for (int i = n - 1; i >= 0 && waits[i] != 0; i--)
        if (waits[i] > 0)
            c = (pa_choice){sizes[i], PA_MEASURED};
        else
            break; /* not probed: nothing below it is known to wait */
    return c;
}

pa_choice pa_piece(const uint64_t *sizes, const int *waits, int n)
{
    pa_choice c = {0, PA_DEFAULT};
    for (int i = 0; i < n && waits[i] == 0; i++)
        c = (pa_choice){sizes[i], PA_MEASURED};
    return c;
}

pa_choice pa_alone_nb_max(pa_choice blocking, uint64_t nb_dflt)
{
    if (blocking.from < nb_dflt)
        return blocking;
    return (pa_choice){nb_dflt, PA_DEFAULT};
}

double pa_cost(uint64_t *times, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && times[j] < times[j - 1]; j--) {
            uint64_t t = times[j];
            times[j] = times[j - 1];
            times[j - 1] = t;
        }
    if (n < 2 || (double)times[1] > (1 + PA_AGREE) * (double)times[0])
        return 0;
    return (double)times[0];
}

const char *pa_source_name(enum pa_source s)
{
    static const char *const names[] = {
        [PA_DEFAULT] = "default", [PA_MEASURED] = "measured", [PA_SET] = "set"};
    return s >= PA_DEFAULT && s <= PA_SET ? names[s] : "?";
}
