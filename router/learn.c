/* learn: the contract is in learn.h. */
#include "router/learn.h"

#include <string.h>

void ln_init(ln_table *t, enum ln_mode mode)
{
    memset(t, 0, sizeof *t);
    t->mode = mode;
    for (int i = 0; i < LN_SLOTS; i++)
        t->lane[i].peer = -1;
}

int ln_class(uint64_t bytes)
{
    return 63 - __builtin_clzll(bytes | 1);
}

static unsigned slot_of(int peer, int cls)
{
    uint32_t key = ((uint32_t)peer << 6) ^ (uint32_t)cls;
    return (key * 2654435761u) >> 26; /* the top 6 bits: LN_SLOTS = 64 */
}

_Static_assert(LN_SLOTS == 64, "slot_of keeps the top log2(LN_SLOTS) bits");

ln_lane *ln_lane_of(ln_table *t, int peer, int cls, int prior)
{
    ln_lane *l = &t->lane[slot_of(peer, cls)];
    if (l->peer == peer && l->cls == cls)
        return l;
    memset(l, 0, sizeof *l);
    l->peer = peer;
    l->cls = cls;
    l->path = (uint8_t)(prior != 0);
    l->phase = LN_KEEP;
    l->keep = LN_KEEP_MIN;
    l->left = LN_KEEP_MIN;
    return l;
}

/* The LN_EPOCH intervals of a phase, shortest first, in a. */
static void sorted(const uint32_t iv[LN_EPOCH], uint32_t a[LN_EPOCH])
{
    memcpy(a, iv, sizeof(uint32_t) * LN_EPOCH);
    for (int i = 1; i < LN_EPOCH; i++)
        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) {
            uint32_t x = a[j];
            a[j] = a[j - 1];
            a[j - 1] = x;
        }
}

static uint32_t median_of_sorted(const uint32_t a[LN_EPOCH])
{
    return (uint32_t)(((uint64_t)a[LN_EPOCH / 2 - 1] + a[LN_EPOCH / 2]) / 2);
}

/* Whether TRY (sorted intervals `try`) was faster than the BASE before it
 * by more than either phase's spread: all but its longest interval
 * shorter than all but BASE's shortest. */
static int steadily_faster(const ln_lane *l, const uint32_t try[LN_EPOCH])
{
    return try[LN_EPOCH - 2] < l->base_low;
}

/* Ends a TRY: the other path becomes the lane's when it was clearly
 * faster than the BASE before it (learn.h). */
static void decide(ln_table *t, ln_lane *l)
{
    uint32_t try[LN_EPOCH];
    sorted(l->iv, try);
    double m = median_of_sorted(try);
    t->trials++;
    if (m < (1.0 - LN_MARGIN) * l->base_median ||
        (m < (1.0 - LN_MARGIN_STEADY) * l->base_median &&
         steadily_faster(l, try))) {
        l->path = (uint8_t)!l->path;
        l->keep = LN_KEEP_MIN;
        t->switches++;
    } else if (l->keep < LN_KEEP_MAX) {
        l->keep *= 2;
    }
    l->phase = LN_KEEP;
    l->left = l->keep - 1; /* this send is the KEEP's first */
}

/* Charges the interval since the previous call to that call's phase. */
static void charge(ln_lane *l, uint64_t now_ns)
{
    if (l->last_ns && l->phase != LN_KEEP && l->n < LN_EPOCH) {
        uint64_t d = now_ns > l->last_ns ? now_ns - l->last_ns : 0;
        l->iv[l->n++] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
    }
    l->last_ns = now_ns;
}

int ln_pick(ln_table *t, ln_lane *l, uint64_t now_ns)
{
    if (t->mode == LN_ALTERNATE) {
        int p = l->path;
        l->path = (uint8_t)!p;
        return p;
    }
    charge(l, now_ns);
    switch ((enum ln_phase)l->phase) {
    case LN_KEEP:
        if (l->left > 0) {
            l->left--;
        } else {
            l->phase = LN_BASE;
            l->n = 0;
        }
        break;
    case LN_BASE:
        if (l->n == LN_EPOCH) {
            uint32_t a[LN_EPOCH];
            sorted(l->iv, a);
            l->base_median = median_of_sorted(a);
            l->base_low = a[1];
            l->phase = LN_TRY;
            l->n = 0;
        }
        break;
    case LN_TRY:
        if (l->n == LN_EPOCH)
            decide(t, l);
        break;
    }
    return l->phase == LN_TRY ? !l->path : l->path;
}
