/* small_collectives: MPI_Allreduce, MPI_Reduce, MPI_Scan, MPI_Exscan,
 * MPI_Reduce_scatter(_block), MPI_Bcast, MPI_Gather, MPI_Scatter,
 * MPI_Allgather, MPI_Allgatherv, MPI_Alltoall and MPI_Barrier give what
 * MPI defines, whichever path runs them (Omnibus's own messages for small
 * ones, MPICH's nonblocking form for the rest), on communicators of every
 * size, and their traffic never meets the program's.
 *
 * MPI 4.1 §6.9.6 (MPI_Allreduce: every member gets the reduction of all
 * members' data), §6.9.1 (MPI_Reduce: the root gets it), §6.11 (MPI_Scan,
 * MPI_Exscan: member i gets the reduction of members 0..i, or 0..i-1),
 * §6.10 (MPI_Reduce_scatter(_block): member i gets block i of it),
 * §6.4 (MPI_Bcast: every member gets the root's data, each in its own
 * datatype of the same type signature), §6.5-6.8 (MPI_Gather, MPI_Scatter,
 * MPI_Allgather(v), MPI_Alltoall: each member's piece in its place), §6.3
 * (MPI_Barrier: no member leaves before every member has entered), §6.12
 * (collectives and point-to-point traffic on one communicator do not
 * interfere; a blocking collective and a nonblocking one in flight on one
 * communicator both complete).
 */
#include "testlib.h"
#include <string.h>

#define BIG 5000 /* ints: above any threshold, so MPICH's path */

/* Member r's k-th int: small, distinct, with bits that differ by rank. */
static int value_of(int r, int k)
{
    return (r * 7 + k * 3) % 23 + 1 + (k % 5 == 0 ? r : 0);
}

static int logical(MPI_Op op)
{
    return op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
}

/* Member r's k-th input to op: 0 to 2 for the logical operations, 1 to 3
 * for MPI_PROD (so that no product overflows an int), else value_of. */
static int input_of(MPI_Op op, int r, int k)
{
    return logical(op) ? value_of(r, k) % 3
         : op == MPI_PROD ? value_of(r, k) % 3 + 1 : value_of(r, k);
}

static long long reduce_int(MPI_Op op, int size, int k)
{
    long long acc = input_of(op, 0, k);
    if (logical(op) && size > 1) /* one member's value is its own result */
        acc = acc != 0;
    for (int r = 1; r < size; r++) {
        long long v = input_of(op, r, k);
        if (op == MPI_SUM) acc += v;
        else if (op == MPI_PROD) acc *= v;
        else if (op == MPI_MAX) acc = v > acc ? v : acc;
        else if (op == MPI_MIN) acc = v < acc ? v : acc;
        else if (op == MPI_BAND) acc &= v;
        else if (op == MPI_BOR) acc |= v;
        else if (op == MPI_BXOR) acc ^= v;
        else if (op == MPI_LAND) acc = acc && v;
        else if (op == MPI_LOR) acc = acc || v;
        else if (op == MPI_LXOR) acc = !acc != !v;
    }
    return acc;
}

static const char *op_name(MPI_Op op)
{
    return op == MPI_SUM ? "MPI_SUM" : op == MPI_PROD ? "MPI_PROD"
         : op == MPI_MAX ? "MPI_MAX" : op == MPI_MIN ? "MPI_MIN"
         : op == MPI_BAND ? "MPI_BAND" : op == MPI_BOR ? "MPI_BOR"
         : op == MPI_BXOR ? "MPI_BXOR" : op == MPI_LAND ? "MPI_LAND"
         : op == MPI_LOR ? "MPI_LOR" : "MPI_LXOR";
}

/* Integer reductions of 1, 3 and 40 elements, as MPI_INT and as
 * MPI_INT64_T. */
static void allreduce_integer_ops(MPI_Comm comm, const char *where)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND,
                                 MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    static const int counts[] = {1, 3, 40};
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            int n = counts[c];
            int in[40], out[40];
            int64_t in64[40], out64[40];
            for (int k = 0; k < n; k++) {
                in[k] = input_of(ops[o], me, k);
                in64[k] = in[k];
                out[k] = out64[k] = -99;
            }
            CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, ops[o], comm));
            CHECK_MPI(MPI_Allreduce(in64, out64, n, MPI_INT64_T, ops[o], comm));
            for (int k = 0; k < n; k++) {
                long long want = reduce_int(ops[o], size, k);
                CHECK(out[k] == (int)want && out64[k] == want,
                      "MPI_Allreduce(%s) of %d elements on %s must give every "
                      "member the reduction of all %d members' data: element "
                      "%d should be %lld, got %d (MPI_INT) and %lld "
                      "(MPI_INT64_T)",
                      op_name(ops[o]), n, where, size, k, want, out[k],
                      (long long)out64[k]);
            }
        }
}

/* Sums of doubles that are exact in binary, so order cannot matter. */
static void allreduce_double_sum_in_place(MPI_Comm comm, const char *where)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    double x[4];
    for (int k = 0; k < 4; k++)
        x[k] = 0.5 * (me + 1) + k;
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, x, 4, MPI_DOUBLE, MPI_SUM, comm));
    for (int k = 0; k < 4; k++) {
        double want = 0.25 * size * (size + 1) + (double)k * size;
        CHECK(x[k] == want,
              "MPI_Allreduce(MPI_IN_PLACE, MPI_DOUBLE, MPI_SUM) on %s must "
              "leave the sum of all members' data in place: element %d "
              "should be %g, got %g",
              where, k, want, x[k]);
    }
    float f = (float)me, fmax = -1;
    CHECK_MPI(MPI_Allreduce(&f, &fmax, 1, MPI_FLOAT, MPI_MAX, comm));
    CHECK(fmax == (float)(size - 1),
          "MPI_Allreduce(MPI_FLOAT, MPI_MAX) on %s should be %d, got %g",
          where, size - 1, (double)fmax);
}

static void allreduce_maxloc(MPI_Comm comm, const char *where)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int in[2] = {me % 2 ? 10 : me, me}, out[2] = {-1, -1};
    CHECK_MPI(MPI_Allreduce(in, out, 1, MPI_2INT, MPI_MAXLOC, comm));
    /* the largest value, 10 if some member is odd, at its lowest index */
    int want = size > 1 ? 10 : 0, at = size > 1 ? 1 : 0;
    CHECK(out[0] == want && out[1] == at,
          "MPI_Allreduce(MPI_2INT, MPI_MAXLOC) on %s must give the largest "
          "value at the lowest member holding it: (%d, %d), got (%d, %d)",
          where, want, at, out[0], out[1]);
}

static void allreduce_zero_count(MPI_Comm comm, const char *where)
{
    int in = 5, out = 7;
    CHECK_MPI(MPI_Allreduce(&in, &out, 0, MPI_INT, MPI_SUM, comm));
    CHECK(out == 7,
          "MPI_Allreduce of 0 elements on %s must leave the receive buffer "
          "alone, found %d instead of 7", where, out);
}

/* Above the threshold and with a user-defined operation: MPICH's path. */
static void add_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void allreduce_large_and_user_op(MPI_Comm comm, const char *where)
{
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int *in = tl_malloc(sizeof(int) * BIG), *out = tl_malloc(sizeof(int) * BIG);
    for (int k = 0; k < BIG; k++)
        in[k] = value_of(me, k);
    CHECK_MPI(MPI_Allreduce(in, out, BIG, MPI_INT, MPI_SUM, comm));
    for (int k = 0; k < BIG; k++)
        CHECK(out[k] == (int)reduce_int(MPI_SUM, size, k),
              "MPI_Allreduce of %d ints (above the threshold) on %s: element "
              "%d should be %lld, got %d", BIG, where, k,
              reduce_int(MPI_SUM, size, k), out[k]);
    free(in);
    free(out);
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(add_op, 1, &op));
    int one = 1, got = 0, want = size;
    CHECK_MPI(MPI_Allreduce(&one, &got, 1, MPI_INT, op, comm));
    CHECK(got == want,
          "MPI_Allreduce with a user-defined operation on %s should give "
          "%d, got %d", where, want, got);
    CHECK_MPI(MPI_Op_free(&op));
}

/* MPI_Scan gives member i the reduction of members 0..i's data, in place
 * too; MPI_Exscan that of members 0..i-1 (member 0's result is undefined
 * and not looked at).  Integer operations of 1, 3 and 40 elements. */
static void scan_integer_ops(MPI_Comm comm, const char *where)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND,
                                 MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    static const int counts[] = {1, 3, 40};
    int me;
    MPI_Comm_rank(comm, &me);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            int n = counts[c];
            int in[40], out[40], inplace[40];
            int64_t in64[40], ex64[40];
            for (int k = 0; k < n; k++) {
                in[k] = inplace[k] = input_of(ops[o], me, k);
                in64[k] = in[k];
                out[k] = -99;
                ex64[k] = -99;
            }
            CHECK_MPI(MPI_Scan(in, out, n, MPI_INT, ops[o], comm));
            CHECK_MPI(MPI_Scan(MPI_IN_PLACE, inplace, n, MPI_INT, ops[o], comm));
            CHECK_MPI(MPI_Exscan(in64, ex64, n, MPI_INT64_T, ops[o], comm));
            for (int k = 0; k < n; k++) {
                long long want = reduce_int(ops[o], me + 1, k);
                CHECK(out[k] == (int)want && inplace[k] == (int)want,
                      "MPI_Scan(%s) of %d elements on %s must give member %d "
                      "the reduction of members 0..%d: element %d should be "
                      "%lld, got %d (and %d in place)", op_name(ops[o]), n,
                      where, me, me, k, want, out[k], inplace[k]);
                if (me == 0)
                    continue;
                want = reduce_int(ops[o], me, k);
                CHECK(ex64[k] == want,
                      "MPI_Exscan(%s) of %d elements on %s must give member "
                      "%d the reduction of members 0..%d: element %d should "
                      "be %lld, got %lld", op_name(ops[o]), n, where, me,
                      me - 1, k, want, (long long)ex64[k]);
            }
        }
}

/* MAXLOC pairs and an exact double sum (floating point goes to MPICH's
 * path), and MPI_Exscan in place. */
static void scan_pairs_doubles_in_place(MPI_Comm comm, const char *where)
{
    int me;
    MPI_Comm_rank(comm, &me);
    int in[2] = {me % 2 ? 10 : me, me}, out[2] = {-1, -1};
    CHECK_MPI(MPI_Scan(in, out, 1, MPI_2INT, MPI_MAXLOC, comm));
    int want = me >= 1 ? 10 : 0, at = me >= 1 ? 1 : 0;
    CHECK(out[0] == want && out[1] == at,
          "MPI_Scan(MPI_2INT, MPI_MAXLOC) on %s must give member %d the "
          "largest value of members 0..%d at its lowest holder: (%d, %d), "
          "got (%d, %d)", where, me, me, want, at, out[0], out[1]);
    double d = 0.5 * (me + 1), dsum = -1;
    CHECK_MPI(MPI_Scan(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, comm));
    CHECK(dsum == 0.25 * (me + 1) * (me + 2),
          "MPI_Scan(MPI_DOUBLE, MPI_SUM) on %s should give member %d %g, got "
          "%g", where, me, 0.25 * (me + 1) * (me + 2), dsum);
    long x = me + 1;
    CHECK_MPI(MPI_Exscan(MPI_IN_PLACE, &x, 1, MPI_LONG, MPI_SUM, comm));
    CHECK(me == 0 || x == (long)me * (me + 1) / 2,
          "MPI_Exscan(MPI_IN_PLACE, MPI_LONG, MPI_SUM) on %s should give "
          "member %d %ld, got %ld", where, me, (long)me * (me + 1) / 2, x);
}

/* MPI_Reduce_scatter_block gives member i block i of the reduction of
 * every member's data (§6.10.1): blocks of 1 and 3 ints, in place too,
 * then doubles (MPICH's path for floating point) and 300-int blocks
 * (above the threshold). */
static void reduce_scatter_block_everyone(MPI_Comm comm, const char *where)
{
    static const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_BXOR, MPI_LAND};
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int *in = tl_malloc(sizeof(int) * 300 * (size_t)size);
    int *out = tl_malloc(sizeof(int) * 300 * (size_t)size);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (int n = 1; n <= 300; n = n == 1 ? 3 : n == 3 ? 300 : 301)
            for (int in_place = 0; in_place < 2; in_place++) {
                for (int k = 0; k < n * size; k++) {
                    in[k] = input_of(ops[o], me, k);
                    out[k] = in_place ? in[k] : -99;
                }
                CHECK_MPI(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in,
                                                out, n, MPI_INT, ops[o], comm));
                for (int k = 0; k < n; k++) {
                    long long want = reduce_int(ops[o], size, me * n + k);
                    CHECK(out[k] == (int)want,
                          "MPI_Reduce_scatter_block(%s) of %d-int blocks%s "
                          "on %s must give member %d block %d of the "
                          "reduction: its int %d should be %lld, got %d",
                          op_name(ops[o]), n, in_place ? " (MPI_IN_PLACE)" : "",
                          where, me, me, k, want, out[k]);
                }
            }
    double d[64], dr = -1;
    for (int j = 0; j < size && j < 64; j++)
        d[j] = 0.5 * (me + j);
    if (size <= 64) {
        CHECK_MPI(MPI_Reduce_scatter_block(d, &dr, 1, MPI_DOUBLE, MPI_SUM, comm));
        double want = 0.5 * (size * (size - 1) / 2 + size * me);
        CHECK(dr == want,
              "MPI_Reduce_scatter_block(MPI_DOUBLE, MPI_SUM) on %s should give "
              "member %d %g, got %g", where, me, want, dr);
    }
    free(in);
    free(out);
}

/* MPI_Reduce_scatter gives member i its recvcounts[i] elements of the
 * reduction, in member order (§6.10.2): member j's block is j % 3 ints
 * (member 0's empty), in the int form, the large-count form, in place, and
 * with a NULL receive buffer on the members whose block is empty (a buffer
 * of no elements is never touched). */
static void reduce_scatter_everyone(MPI_Comm comm, const char *where)
{
    static const char *form[] = {"MPI_Reduce_scatter", "MPI_Reduce_scatter_c",
                                 "MPI_Reduce_scatter (MPI_IN_PLACE)",
                                 "MPI_Reduce_scatter (NULL where empty)"};
    int me, size;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int *counts = tl_malloc(sizeof(int) * (size_t)size);
    MPI_Count *counts_c = tl_malloc(sizeof(MPI_Count) * (size_t)size);
    int *in = tl_malloc(sizeof(int) * 3 * (size_t)size);
    int *out = tl_malloc(sizeof(int) * 3 * (size_t)size);
    int total = 0, first = 0;
    for (int j = 0; j < size; j++) {
        counts[j] = j % 3;
        counts_c[j] = counts[j];
        if (j < me)
            first += counts[j];
        total += counts[j];
    }
    for (int f = 0; f < 4; f++) {
        for (int k = 0; k < total; k++) {
            in[k] = input_of(MPI_SUM, me, k);
            out[k] = f == 2 ? in[k] : -99;
        }
        if (f == 0)
            CHECK_MPI(MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm));
        else if (f == 1) {
#if MPI_VERSION >= 4
            CHECK_MPI(MPI_Reduce_scatter_c(in, out, counts_c, MPI_INT, MPI_SUM, comm));
#else
            continue; /* MPI-4.0's large-count form: not in this MPI */
#endif
        }
        else if (f == 2)
            CHECK_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT,
                                      MPI_SUM, comm));
        else
            CHECK_MPI(MPI_Reduce_scatter(in, counts[me] ? out : NULL, counts,
                                      MPI_INT, MPI_SUM, comm));
        for (int k = 0; k < counts[me]; k++) {
            long long want = reduce_int(MPI_SUM, size, first + k);
            CHECK(out[k] == (int)want,
                  "%s on %s must give member %d its %d elements of the sum, "
                  "from element %d on: its int %d should be %lld, got %d",
                  form[f], where, me, counts[me], first, k, want, out[k]);
        }
    }
    free(counts), free(counts_c), free(in), free(out);
}

static void allreduce_on(MPI_Comm comm, const char *where)
{
    scan_integer_ops(comm, where);
    scan_pairs_doubles_in_place(comm, where);
    reduce_scatter_block_everyone(comm, where);
    reduce_scatter_everyone(comm, where);
    allreduce_integer_ops(comm, where);
    allreduce_double_sum_in_place(comm, where);
    allreduce_maxloc(comm, where);
    allreduce_zero_count(comm, where);
    allreduce_large_and_user_op(comm, where);
}

/* From every root: 5 ints as MPI_INT at the root, as two of a 3-int
 * contiguous type on odd members and through a strided vector type on
 * even ones (equal type signatures, different datatypes: MPI-4.1 §6.1),
 * then 20000 ints (above any threshold, MPICH's path). */
static void bcast_from_every_root(void)
{
    int me = tl_rank(), size = tl_size();
    MPI_Datatype three, strided;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &three));
    CHECK_MPI(MPI_Type_commit(&three));
    CHECK_MPI(MPI_Type_vector(6, 1, 2, MPI_INT, &strided));
    CHECK_MPI(MPI_Type_commit(&strided));
    int *big = tl_malloc(sizeof(int) * 20000);
    for (int root = 0; root < size; root++) {
        int buf[12];
        for (int k = 0; k < 12; k++)
            buf[k] = me == root ? 100 * root + k : -1;
        if (me == root)
            CHECK_MPI(MPI_Bcast(buf, 6, MPI_INT, root, MPI_COMM_WORLD));
        else if (me % 2)
            CHECK_MPI(MPI_Bcast(buf, 2, three, root, MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Bcast(buf, 1, strided, root, MPI_COMM_WORLD));
        for (int k = 0; k < 6; k++) {
            int at = me != root && me % 2 == 0 ? 2 * k : k;
            CHECK(buf[at] == 100 * root + k,
                  "MPI_Bcast from root %d must give every member the root's "
                  "data in its own datatype: element %d should be %d, got %d",
                  root, k, 100 * root + k, buf[at]);
            if (me != root && me % 2 == 0)
                CHECK(buf[2 * k + 1] == -1,
                      "MPI_Bcast through a strided type must leave the gaps "
                      "alone: int %d is %d, not -1", 2 * k + 1, buf[2 * k + 1]);
        }
        for (int k = 0; k < 20000; k++)
            big[k] = me == root ? root + k : -1;
        CHECK_MPI(MPI_Bcast(big, 20000, MPI_INT, root, MPI_COMM_WORLD));
        for (int k = 0; k < 20000; k++)
            CHECK(big[k] == root + k,
                  "MPI_Bcast of 20000 ints (above the threshold) from root "
                  "%d: element %d should be %d, got %d", root, k, root + k,
                  big[k]);
    }
    free(big);
    CHECK_MPI(MPI_Type_free(&three));
    CHECK_MPI(MPI_Type_free(&strided));
}

/* To every root, with and without MPI_IN_PLACE there; non-roots pass no
 * receive buffer (MPI: significant only at the root). */
static void reduce_to_every_root(void)
{
    int me = tl_rank(), size = tl_size();
    for (int root = 0; root < size; root++) {
        int in[5], out[5] = {-1, -1, -1, -1, -1};
        double d = me + 0.5, dsum = -1;
        for (int k = 0; k < 5; k++)
            in[k] = value_of(me, k);
        int *rbuf = me == root ? out : NULL;
        CHECK_MPI(MPI_Reduce(in, rbuf, 5, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
        if (me == root) {
            CHECK_MPI(MPI_Reduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, root,
                              MPI_COMM_WORLD));
            dsum = d;
        } else {
            CHECK_MPI(MPI_Reduce(&d, NULL, 1, MPI_DOUBLE, MPI_SUM, root,
                              MPI_COMM_WORLD));
        }
        if (me != root)
            continue;
        for (int k = 0; k < 5; k++)
            CHECK(out[k] == (int)reduce_int(MPI_MAX, size, k),
                  "MPI_Reduce(MPI_MAX) to root %d: element %d should be "
                  "%lld, got %d", root, k, reduce_int(MPI_MAX, size, k),
                  out[k]);
        double want = 0.5 * size * size;
        CHECK(dsum == want,
              "MPI_Reduce(MPI_IN_PLACE, MPI_SUM) at root %d should leave "
              "%g, got %g", root, want, dsum);
    }
}

/* Member r's piece k of a gather or scatter rooted at root. */
static int piece_value(int root, int r, int k)
{
    return 1000 * root + 10 * r + k;
}

/* To every root: 3 ints from each member as MPI_INT, received at the root
 * as one 3-int contiguous type per member, with and without MPI_IN_PLACE
 * there; non-roots pass no receive buffer (MPI: significant only at the
 * root). */
static void gather_to_every_root(void)
{
    int me = tl_rank(), size = tl_size();
    MPI_Datatype three;
    CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &three));
    CHECK_MPI(MPI_Type_commit(&three));
    int *all = tl_malloc(sizeof(int) * 3 * (size_t)size);
    for (int root = 0; root < size; root++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int mine[3];
            for (int k = 0; k < 3; k++)
                mine[k] = piece_value(root, me, k);
            for (int i = 0; i < 3 * size; i++)
                all[i] = -1;
            if (me != root)
                CHECK_MPI(MPI_Gather(mine, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL,
                                  root, MPI_COMM_WORLD));
            else if (in_place) {
                memcpy(all + 3 * me, mine, sizeof mine);
                CHECK_MPI(MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1,
                                  three, root, MPI_COMM_WORLD));
            } else
                CHECK_MPI(MPI_Gather(mine, 3, MPI_INT, all, 1, three, root,
                                  MPI_COMM_WORLD));
            for (int i = 0; me == root && i < 3 * size; i++)
                CHECK(all[i] == piece_value(root, i / 3, i % 3),
                      "MPI_Gather to root %d%s must put member %d's piece in "
                      "its place: int %d should be %d, got %d", root,
                      in_place ? " (MPI_IN_PLACE)" : "", i / 3, i,
                      piece_value(root, i / 3, i % 3), all[i]);
        }
    free(all);
    CHECK_MPI(MPI_Type_free(&three));
}

/* From every root: 2 ints to each member, with and without MPI_IN_PLACE
 * at the root. */
static void scatter_from_every_root(void)
{
    int me = tl_rank(), size = tl_size();
    int *all = tl_malloc(sizeof(int) * 2 * (size_t)size);
    for (int root = 0; root < size; root++)
        for (int in_place = 0; in_place < 2; in_place++) {
            int mine[2] = {-1, -1};
            for (int i = 0; i < 2 * size; i++)
                all[i] = piece_value(root, i / 2, i % 2);
            if (me != root)
                CHECK_MPI(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, mine, 2, MPI_INT,
                                   root, MPI_COMM_WORLD));
            else
                CHECK_MPI(MPI_Scatter(all, 2, MPI_INT,
                                   in_place ? MPI_IN_PLACE : (void *)mine, 2,
                                   MPI_INT, root, MPI_COMM_WORLD));
            if (me == root && in_place)
                continue;
            for (int k = 0; k < 2; k++)
                CHECK(mine[k] == piece_value(root, me, k),
                      "MPI_Scatter from root %d must give member %d its own "
                      "piece: int %d should be %d, got %d", root, me, k,
                      piece_value(root, me, k), mine[k]);
        }
    free(all);
}

/* 2 doubles from each member to every member, with and without
 * MPI_IN_PLACE, received as one 2-double contiguous type per member; then
 * 4000 ints from each (above any threshold: MPICH's path). */
static void allgather_everyone(void)
{
    int me = tl_rank(), size = tl_size();
    MPI_Datatype two;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &two));
    CHECK_MPI(MPI_Type_commit(&two));
    double *all = tl_malloc(sizeof(double) * 2 * (size_t)size);
    for (int in_place = 0; in_place < 2; in_place++) {
        double mine[2] = {me + 0.25, me + 0.5};
        for (int i = 0; i < 2 * size; i++)
            all[i] = -1;
        if (in_place) {
            memcpy(all + 2 * me, mine, sizeof mine);
            CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1,
                                 two, MPI_COMM_WORLD));
        } else {
            CHECK_MPI(MPI_Allgather(mine, 2, MPI_DOUBLE, all, 1, two,
                                 MPI_COMM_WORLD));
        }
        for (int i = 0; i < 2 * size; i++) {
            double want = i / 2 + (i % 2 ? 0.5 : 0.25);
            CHECK(all[i] == want,
                  "MPI_Allgather%s must give every member every piece in "
                  "rank order: double %d should be %g, got %g",
                  in_place ? " (MPI_IN_PLACE)" : "", i, want, all[i]);
        }
    }
    free(all);
    CHECK_MPI(MPI_Type_free(&two));
    int *big = tl_malloc(sizeof(int) * 4000 * (size_t)size), mine[4000];
    for (int k = 0; k < 4000; k++)
        mine[k] = me * 4000 + k;
    CHECK_MPI(MPI_Allgather(mine, 4000, MPI_INT, big, 4000, MPI_INT,
                         MPI_COMM_WORLD));
    for (int i = 0; i < 4000 * size; i++)
        CHECK(big[i] == i, "MPI_Allgather of 4000 ints per member (above the "
                           "threshold): int %d should be %d, got %d",
              i, i, big[i]);
    free(big);
}

/* MPI_Allgatherv: member j sends j % 3 + 1 ints (member 0 none when
 * `first_empty`), placed at displacements that leave a gap of one int
 * after each piece, in the int form, the large-count form and in place;
 * then pieces of 2000 ints (above the threshold: MPICH's path).  The gaps
 * must stay untouched. */
static int vcount(int j, int first_empty)
{
    return first_empty && j == 0 ? 0 : j % 3 + 1;
}

static void allgatherv_everyone(void)
{
    int me = tl_rank(), size = tl_size();
    int *counts = tl_malloc(sizeof(int) * (size_t)size);
    int *displs = tl_malloc(sizeof(int) * (size_t)size);
    MPI_Count *counts_c = tl_malloc(sizeof(MPI_Count) * (size_t)size);
    MPI_Aint *displs_c = tl_malloc(sizeof(MPI_Aint) * (size_t)size);
    int *all = tl_malloc(sizeof(int) * 5 * (size_t)size);
    static const char *form[] = {"MPI_Allgatherv", "MPI_Allgatherv_c",
                                 "MPI_Allgatherv (MPI_IN_PLACE)"};
    for (int f = 0; f < 3; f++)
        for (int first_empty = 0; first_empty < 2; first_empty++) {
            int total = 0;
            for (int j = 0; j < size; j++) {
                counts[j] = vcount(j, first_empty);
                counts_c[j] = counts[j];
                displs[j] = total;
                displs_c[j] = total;
                total += counts[j] + 1;
            }
            int mine[3];
            for (int k = 0; k < counts[me]; k++)
                mine[k] = 100 * me + k;
            for (int i = 0; i < total; i++)
                all[i] = -1;
            if (f == 0)
                CHECK_MPI(MPI_Allgatherv(mine, counts[me], MPI_INT, all, counts,
                                      displs, MPI_INT, MPI_COMM_WORLD));
            else if (f == 1) {
#if MPI_VERSION >= 4
                CHECK_MPI(MPI_Allgatherv_c(mine, counts_c[me], MPI_INT, all,
                                        counts_c, displs_c, MPI_INT,
                                        MPI_COMM_WORLD));
#else
                continue; /* MPI-4.0's large-count form: not in this MPI */
#endif
            }
            else {
                memcpy(all + displs[me], mine, sizeof(int) * (size_t)counts[me]);
                CHECK_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all,
                                      counts, displs, MPI_INT, MPI_COMM_WORLD));
            }
            for (int j = 0; j < size; j++)
                for (int k = 0; k <= counts[j]; k++) {
                    int want = k < counts[j] ? 100 * j + k : -1;
                    CHECK(all[displs[j] + k] == want,
                          "%s must place member %d's piece of %d ints at its "
                          "displacement %d and leave the gap after it: int "
                          "%d of it should be %d, got %d", form[f], j,
                          counts[j], displs[j], k, want, all[displs[j] + k]);
                }
        }
    free(all);
    int *big = tl_malloc(sizeof(int) * 2000 * (size_t)size), piece[2000];
    for (int j = 0; j < size; j++) {
        counts[j] = 2000;
        displs[j] = 2000 * (size - 1 - j);
    }
    for (int k = 0; k < 2000; k++)
        piece[k] = me * 2000 + k;
    CHECK_MPI(MPI_Allgatherv(piece, 2000, MPI_INT, big, counts, displs, MPI_INT,
                          MPI_COMM_WORLD));
    for (int j = 0; j < size; j++)
        for (int k = 0; k < 2000; k += 199)
            CHECK(big[displs[j] + k] == j * 2000 + k,
                  "MPI_Allgatherv of 2000 ints per member (above the "
                  "threshold), in reverse order: member %d's int %d should "
                  "be %d, got %d", j, k, j * 2000 + k, big[displs[j] + k]);
    free(big);
    free(counts), free(displs), free(counts_c), free(displs_c);
}

/* Member i's piece for member j: 2 ints sent as MPI_INT, received as one
 * 2-int contiguous type; then the same with MPI_IN_PLACE on every member
 * (MPICH's path). */
static void alltoall_everyone(void)
{
    int me = tl_rank(), size = tl_size();
    MPI_Datatype two;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &two));
    CHECK_MPI(MPI_Type_commit(&two));
    int *out = tl_malloc(sizeof(int) * 2 * (size_t)size);
    int *in = tl_malloc(sizeof(int) * 2 * (size_t)size);
    for (int in_place = 0; in_place < 2; in_place++) {
        for (int j = 0; j < size; j++)
            for (int k = 0; k < 2; k++) {
                out[2 * j + k] = 100 * me + 10 * j + k;
                in[2 * j + k] = in_place ? out[2 * j + k] : -1;
            }
        if (in_place)
            CHECK_MPI(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in, 1, two,
                                MPI_COMM_WORLD));
        else
            CHECK_MPI(MPI_Alltoall(out, 2, MPI_INT, in, 1, two, MPI_COMM_WORLD));
        for (int i = 0; i < 2 * size; i++) {
            int want = 100 * (i / 2) + 10 * me + i % 2;
            CHECK(in[i] == want,
                  "MPI_Alltoall%s must give member %d the piece each member "
                  "meant for it: int %d should be %d, got %d",
                  in_place ? " (MPI_IN_PLACE)" : "", me, i, want, in[i]);
        }
    }
    free(out);
    free(in);
    CHECK_MPI(MPI_Type_free(&two));
}

/* Member r enters r * 20 ms late; nobody may leave before the last
 * entered.  All ranks run on one machine, so CLOCK_MONOTONIC is one
 * clock (tl_now). */
static void barrier_waits_for_every_member(void)
{
    int size = tl_size();
    tl_sleep(0.02 * tl_rank());
    double entered = tl_now();
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    double left = tl_now();
    double *in = tl_malloc(sizeof(double) * (size_t)size);
    double *out = tl_malloc(sizeof(double) * (size_t)size);
    CHECK_MPI(MPI_Allgather(&entered, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE,
                         MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allgather(&left, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE,
                         MPI_COMM_WORLD));
    double last_in = in[0], first_out = out[0];
    for (int r = 1; r < size; r++) {
        last_in = in[r] > last_in ? in[r] : last_in;
        first_out = out[r] < first_out ? out[r] : first_out;
    }
    CHECK(first_out >= last_in,
          "no member may leave MPI_Barrier before every member entered it: "
          "one left %.6f s before the last entered", last_in - first_out);
    free(in);
    free(out);
}

/* A wildcard receive posted before the collectives, and a probe after
 * them, see only the one message the program sends. */
static void collective_traffic_invisible_to_wildcards(void)
{
    int me = tl_rank(), got = -1, flag = 1, x = me, sum = 0;
    MPI_Request req;
    MPI_Status st;
    CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Test(&req, &flag, &st));
    CHECK(!flag, "an MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) posted before "
                 "MPI_Allreduce and MPI_Barrier must not match their traffic; "
                 "it completed with source %d, tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
    CHECK(!flag, "MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG) after collectives "
                 "must find no message; it found one from %d, tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* every member has looked */
    int token = 1000 + me;
    CHECK_MPI(MPI_Send(&token, 1, MPI_INT, tl_right(1), 77, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, &st));
    CHECK(got == 1000 + tl_left(1) && st.MPI_SOURCE == tl_left(1) &&
              st.MPI_TAG == 77,
          "the wildcard receive must take the program's own message (%d "
          "from %d, tag 77), got %d from %d, tag %d",
          1000 + tl_left(1), tl_left(1), got, st.MPI_SOURCE, st.MPI_TAG);
}

/* An MPICH nonblocking collective in flight while blocking ones run. */
static void blocking_collectives_beside_a_nonblocking_one(void)
{
    int size = tl_size(), me = tl_rank(), x = me + 1, nb = 0, b = 0;
    MPI_Request req;
    CHECK_MPI(MPI_Iallreduce(&x, &nb, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req));
    CHECK_MPI(MPI_Allreduce(&x, &b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(nb == size && b == size * (size + 1) / 2,
          "an MPI_Iallreduce in flight across an MPI_Allreduce and an "
          "MPI_Barrier: both complete with their own results (max %d, sum "
          "%d), got %d and %d", size, size * (size + 1) / 2, nb, b);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    allreduce_on(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    allreduce_on(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm half, dup;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, tl_rank() % 2, -tl_rank(), &half));
    allreduce_on(half, "half of the ranks (reversed)");
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    allreduce_on(dup, "a duplicate of MPI_COMM_WORLD");
    CHECK_MPI(MPI_Barrier(half));
    CHECK_MPI(MPI_Comm_free(&half));
    CHECK_MPI(MPI_Comm_free(&dup));
    bcast_from_every_root();
    reduce_to_every_root();
    gather_to_every_root();
    scatter_from_every_root();
    allgather_everyone();
    allgatherv_everyone();
    alltoall_everyone();
    barrier_waits_for_every_member();
    collective_traffic_invisible_to_wildcards();
    blocking_collectives_beside_a_nonblocking_one();
    return tl_finalize();
}
