/* derived_datatypes: derived datatypes on both sides, matched by type
 * signature, with counts computed for the receiver's datatype.
 *
 * MPI 4.1 §3.3 and §5.1.11: a send and a receive match when the sequences
 * of basic types (type signatures) agree, whatever their layouts (type
 * maps); the data lands at the receive type's displacements and nothing
 * outside them is written.  §5.1.11: MPI_Get_count with the receive type
 * gives the number of whole receive-type items, or MPI_UNDEFINED when the
 * message is not a whole number of them; MPI_Get_elements gives the number
 * of basic elements received.
 *
 * Pairs exercised, each small and large (> 4 KB, up to ~100 KB):
 *   vector of ints      -> contiguous ints
 *   contiguous ints     -> vector of ints (gaps must stay untouched)
 *   indexed ints        -> vector of ints
 *   struct with padding -> a struct of another layout, same signature
 *   partial messages: fewer items than the receive count, and a count that
 *   is not a whole number of receive items (MPI_UNDEFINED, elements exact).
 *
 * The ranks run in pairs (testlib.h), all pairs at once: the leader (the
 * lower rank) of each pair sends, its partner receives.
 */
#include "testlib.h"

#include <stddef.h>

#define POISON (-7777)

static int peer; /* this rank's partner; the lower rank of a pair sends */

struct a_rec {
    char c;
    double d;
    int i[3];
};
/* The same signature (char, double, 3 ints) laid out differently. */
struct b_rec {
    int i[3];
    double d;
    char c;
    char spare[5];
};

static MPI_Datatype a_type(void)
{
    int bl[3] = {1, 1, 3};
    MPI_Aint disp[3] = {offsetof(struct a_rec, c), offsetof(struct a_rec, d),
                        offsetof(struct a_rec, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, r;
    CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &t));
    CHECK_MPI(MPI_Type_create_resized(t, 0, sizeof(struct a_rec), &r));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_commit(&r));
    return r;
}

static MPI_Datatype b_type(void)
{
    int bl[3] = {1, 1, 3};
    MPI_Aint disp[3] = {offsetof(struct b_rec, c), offsetof(struct b_rec, d),
                        offsetof(struct b_rec, i)};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t, r;
    CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &t));
    CHECK_MPI(MPI_Type_create_resized(t, 0, sizeof(struct b_rec), &r));
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_commit(&r));
    return r;
}

static int val(int k, int round) { return k * 31 + round * 1000003 + 7; }

static void check_counts(const MPI_Status *st, MPI_Datatype t, int count,
                         int elements, const char *what)
{
    int c = -5, e = -5;
    CHECK_MPI(MPI_Get_count(st, t, &c));
    CHECK_MPI(MPI_Get_elements(st, t, &e));
    CHECK(c == count && e == elements,
          "%s: MPI_Get_count with the receive type must be %d and "
          "MPI_Get_elements %d, got %d and %d",
          what, count, elements, c, e);
}

/* vector(n blocks of 2, stride 3) of ints -> 2n contiguous ints */
static void vec_to_contig(int me, int n, int round)
{
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(n, 2, 3, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    if (me < peer) {
        int *src = tl_malloc(sizeof(int) * 3 * (size_t)n);
        for (int b = 0; b < n; b++)
            for (int j = 0; j < 3; j++)
                src[3 * b + j] = j < 2 ? val(2 * b + j, round) : POISON;
        CHECK_MPI(MPI_Send(src, 1, vec, peer, round, MPI_COMM_WORLD));
        free(src);
    } else {
        int *dst = tl_malloc(sizeof(int) * (2 * (size_t)n + 1));
        MPI_Status st;
        dst[2 * n] = POISON;
        CHECK_MPI(MPI_Recv(dst, 2 * n + 1, MPI_INT, peer, round, MPI_COMM_WORLD,
                        &st));
        for (int k = 0; k < 2 * n; k++)
            CHECK(dst[k] == val(k, round),
                  "vector -> contiguous (%d blocks): int %d must be %d, got "
                  "%d",
                  n, k, val(k, round), dst[k]);
        CHECK(dst[2 * n] == POISON,
              "vector -> contiguous: the int after the message was written");
        check_counts(&st, MPI_INT, 2 * n, 2 * n, "vector -> contiguous");
        free(dst);
    }
    CHECK_MPI(MPI_Type_free(&vec));
}

/* contiguous ints -> vector: the stride gaps must not be written */
static void contig_to_vec(int me, int n, int round)
{
    MPI_Datatype vec;
    CHECK_MPI(MPI_Type_vector(n, 2, 3, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    if (me < peer) {
        int *src = tl_malloc(sizeof(int) * 2 * (size_t)n);
        for (int k = 0; k < 2 * n; k++)
            src[k] = val(k, round);
        CHECK_MPI(MPI_Send(src, 2 * n, MPI_INT, peer, round, MPI_COMM_WORLD));
        free(src);
    } else {
        int *dst = tl_malloc(sizeof(int) * 3 * (size_t)n);
        MPI_Status st;
        for (int k = 0; k < 3 * n; k++)
            dst[k] = POISON;
        CHECK_MPI(MPI_Recv(dst, 1, vec, peer, round, MPI_COMM_WORLD, &st));
        for (int b = 0; b < n; b++)
            for (int j = 0; j < 3; j++) {
                int expect = j < 2 ? val(2 * b + j, round) : POISON;
                CHECK(dst[3 * b + j] == expect,
                      "contiguous -> vector (%d blocks): slot %d must be "
                      "%d%s, got %d",
                      n, 3 * b + j, expect, j < 2 ? "" : " (a gap)",
                      dst[3 * b + j]);
            }
        check_counts(&st, vec, 1, 2 * n, "contiguous -> vector");
        free(dst);
    }
    CHECK_MPI(MPI_Type_free(&vec));
}

/* indexed (blocks of 1,2,3,... ints at growing offsets) -> vector */
static void indexed_to_vec(int me, int nblocks, int round)
{
    int *bl = tl_malloc(sizeof(int) * (size_t)nblocks);
    int *disp = tl_malloc(sizeof(int) * (size_t)nblocks);
    int total = 0, span = 0;
    for (int b = 0; b < nblocks; b++) {
        bl[b] = 1 + b % 4;
        disp[b] = span + 1;
        span = disp[b] + bl[b];
        total += bl[b];
    }
    /* The receive side: a vector of 1-int blocks with stride 2. */
    MPI_Datatype idx, vec;
    CHECK_MPI(MPI_Type_indexed(nblocks, bl, disp, MPI_INT, &idx));
    CHECK_MPI(MPI_Type_commit(&idx));
    CHECK_MPI(MPI_Type_vector(total, 1, 2, MPI_INT, &vec));
    CHECK_MPI(MPI_Type_commit(&vec));
    if (me < peer) {
        int *src = tl_malloc(sizeof(int) * (size_t)span);
        for (int k = 0; k < span; k++)
            src[k] = POISON;
        for (int b = 0, k = 0; b < nblocks; b++)
            for (int j = 0; j < bl[b]; j++)
                src[disp[b] + j] = val(k++, round);
        CHECK_MPI(MPI_Send(src, 1, idx, peer, round, MPI_COMM_WORLD));
        free(src);
    } else {
        int *dst = tl_malloc(sizeof(int) * 2 * (size_t)total);
        MPI_Status st;
        for (int k = 0; k < 2 * total; k++)
            dst[k] = POISON;
        CHECK_MPI(MPI_Recv(dst, 1, vec, peer, round, MPI_COMM_WORLD, &st));
        for (int k = 0; k < total; k++) {
            CHECK(dst[2 * k] == val(k, round),
                  "indexed -> vector (%d ints): int %d must be %d, got %d",
                  total, k, val(k, round), dst[2 * k]);
            CHECK(dst[2 * k + 1] == POISON,
                  "indexed -> vector: gap after int %d was written", k);
        }
        check_counts(&st, vec, 1, total, "indexed -> vector");
        check_counts(&st, MPI_INT, total, total, "indexed -> vector (ints)");
        free(dst);
    }
    CHECK_MPI(MPI_Type_free(&idx));
    CHECK_MPI(MPI_Type_free(&vec));
    free(bl);
    free(disp);
}

/* struct a_rec[n] -> struct b_rec[recv_n]; padding must stay untouched */
static void struct_to_struct(int me, int n, int recv_n, int round)
{
    MPI_Datatype at = a_type(), bt = b_type();
    if (me < peer) {
        struct a_rec *src = tl_malloc(sizeof *src * (size_t)n);
        memset(src, 0xEE, sizeof *src * (size_t)n);
        for (int k = 0; k < n; k++) {
            src[k].c = (char)('A' + (k + round) % 26);
            src[k].d = k * 0.5 + round;
            for (int j = 0; j < 3; j++)
                src[k].i[j] = val(3 * k + j, round);
        }
        CHECK_MPI(MPI_Send(src, n, at, peer, round, MPI_COMM_WORLD));
        free(src);
    } else {
        struct b_rec *dst = tl_malloc(sizeof *dst * (size_t)recv_n);
        memset(dst, 0x5A, sizeof *dst * (size_t)recv_n);
        MPI_Status st;
        CHECK_MPI(MPI_Recv(dst, recv_n, bt, peer, round, MPI_COMM_WORLD, &st));
        for (int k = 0; k < n; k++) {
            CHECK(dst[k].c == (char)('A' + (k + round) % 26) &&
                      dst[k].d == k * 0.5 + round,
                  "struct -> struct (%d records): record %d has c=%d d=%g, "
                  "expected c=%d d=%g",
                  n, k, dst[k].c, dst[k].d, 'A' + (k + round) % 26,
                  k * 0.5 + round);
            for (int j = 0; j < 3; j++)
                CHECK(dst[k].i[j] == val(3 * k + j, round),
                      "struct -> struct: record %d i[%d] must be %d, got %d",
                      k, j, val(3 * k + j, round), dst[k].i[j]);
            CHECK_FILLED(dst[k].spare, sizeof dst[k].spare, 0x5A,
                         "struct -> struct: bytes outside the type map of "
                         "record %d",
                         k);
        }
        for (int k = n; k < recv_n; k++)
            CHECK_FILLED(&dst[k], sizeof dst[k], 0x5A,
                         "struct -> struct: record %d beyond the %d received",
                         k, n);
        check_counts(&st, bt, n, 5 * n, "struct -> struct");
        free(dst);
    }
    CHECK_MPI(MPI_Type_free(&at));
    CHECK_MPI(MPI_Type_free(&bt));
}

/* Messages that are not a whole number of receive items. */
static void partial(int me, int round)
{
    MPI_Datatype pair, at = a_type(), bt = b_type();
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
    CHECK_MPI(MPI_Type_commit(&pair));
    if (me < peer) {
        int ints[7];
        for (int k = 0; k < 7; k++)
            ints[k] = val(k, round);
        CHECK_MPI(MPI_Send(ints, 7, MPI_INT, peer, round, MPI_COMM_WORLD));
        /* One record plus a char and a double of the next: 7 elements. */
        struct a_rec recs[2];
        memset(recs, 0, sizeof recs);
        recs[0].c = 'x';
        recs[0].d = 1.25;
        recs[0].i[0] = 1;
        recs[0].i[1] = 2;
        recs[0].i[2] = 3;
        recs[1].c = 'y';
        recs[1].d = 2.5;
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {offsetof(struct a_rec, c),
                            offsetof(struct a_rec, d)};
        MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, tail, msg;
        CHECK_MPI(MPI_Type_create_struct(2, bl, disp, types, &tail));
        MPI_Aint tdisp[2] = {0, sizeof(struct a_rec)};
        MPI_Datatype ttypes[2] = {at, tail};
        int tbl[2] = {1, 1};
        CHECK_MPI(MPI_Type_create_struct(2, tbl, tdisp, ttypes, &msg));
        CHECK_MPI(MPI_Type_commit(&msg));
        CHECK_MPI(MPI_Send(recs, 1, msg, peer, round + 1, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Type_free(&msg));
        CHECK_MPI(MPI_Type_free(&tail));
    } else {
        int ints[20];
        MPI_Status st;
        for (int k = 0; k < 20; k++)
            ints[k] = POISON;
        CHECK_MPI(MPI_Recv(ints, 10, pair, peer, round, MPI_COMM_WORLD, &st));
        for (int k = 0; k < 7; k++)
            CHECK(ints[k] == val(k, round),
                  "7 ints into pairs: int %d must be %d, got %d", k,
                  val(k, round), ints[k]);
        CHECK(ints[7] == POISON,
              "7 ints into pairs: the 8th int must not be written");
        check_counts(&st, pair, MPI_UNDEFINED, 7,
                     "7 ints received as pairs of ints");
        check_counts(&st, MPI_INT, 7, 7, "7 ints (as MPI_INT)");

        struct b_rec recs[3];
        memset(recs, 0, sizeof recs);
        CHECK_MPI(MPI_Recv(recs, 3, bt, peer, round + 1, MPI_COMM_WORLD, &st));
        CHECK(recs[0].c == 'x' && recs[0].d == 1.25 && recs[0].i[0] == 1 &&
                  recs[0].i[1] == 2 && recs[0].i[2] == 3 &&
                  recs[1].c == 'y' && recs[1].d == 2.5 && recs[1].i[0] == 0,
              "record and a half: wrong contents (c=%d d=%g i=%d,%d,%d; "
              "c=%d d=%g i=%d)",
              recs[0].c, recs[0].d, recs[0].i[0], recs[0].i[1], recs[0].i[2],
              recs[1].c, recs[1].d, recs[1].i[0]);
        check_counts(&st, bt, MPI_UNDEFINED, 7,
                     "one record and a char and a double of the next");
    }
    CHECK_MPI(MPI_Type_free(&pair));
    CHECK_MPI(MPI_Type_free(&at));
    CHECK_MPI(MPI_Type_free(&bt));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank();
    peer = tl_partner();
    if (peer == MPI_PROC_NULL) /* sits out */
        return tl_finalize();
    int round = 0;
    static const int blocks[] = {1, 5, 700, 12000};
    for (int s = 0; s < 4; s++) {
        vec_to_contig(me, blocks[s], round++);
        contig_to_vec(me, blocks[s], round++);
    }
    static const int nidx[] = {3, 40, 2000};
    for (int s = 0; s < 3; s++)
        indexed_to_vec(me, nidx[s], round++);
    static const int nrec[] = {1, 4, 300, 4000};
    for (int s = 0; s < 4; s++) {
        struct_to_struct(me, nrec[s], nrec[s], round++);
        struct_to_struct(me, nrec[s], nrec[s] + 3, round++);
    }
    partial(me, round);
    round += 2;
    return tl_finalize();
}
