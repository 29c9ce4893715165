#include "shim/ops/coll.h"
#include "shim/match/comm.h"
#include "shim/progress/progress.h"
#include "shim/engine/recv.h"
#include "shim/engine/send.h"
#include "shim/mpi/count_gen.h"
#include "omni_have.h"
#include "shim/base/fail.h"
#include <stdlib.h>
#include <string.h>

/* Tags on the shadow record, one per kind of collective (coll.h). */
enum { COLL_TAG_ALLREDUCE = 1, COLL_TAG_BARRIER = 2, COLL_TAG_BCAST = 3,
       COLL_TAG_REDUCE = 4, COLL_TAG_GATHER = 5, COLL_TAG_SCATTER = 6,
       COLL_TAG_ALLGATHER = 7, COLL_TAG_ALLTOALL = 8, COLL_TAG_SELF = 9,
       COLL_TAG_SCAN = 10, COLL_TAG_EXSCAN = 11,
       COLL_TAG_ALLGATHERV = 12, COLL_TAG_REDUCE_SCATTER = 13 };

/* What a predefined operation applies to (MPI-4.1 §6.9.2), as bits. */
enum {
    COLL_INTEGER = 1, /* C and Fortran integers */
    COLL_FLOAT = 2,   /* floating point */
    COLL_LOGICAL = 4, /* Fortran logical */
    COLL_PAIR = 8     /* (value, index) pairs of MINLOC and MAXLOC */
};

/* Tables, not switches: under Open MPI datatypes and operations are
 * addresses, which C allows in an initializer but not as a case label. */
static const struct { MPI_Datatype type; int cls; } coll_type_classes[] = {
    {MPI_INT, COLL_INTEGER}, {MPI_LONG, COLL_INTEGER},
    {MPI_LONG_LONG, COLL_INTEGER}, {MPI_SHORT, COLL_INTEGER},
    {MPI_UNSIGNED, COLL_INTEGER}, {MPI_UNSIGNED_LONG, COLL_INTEGER},
    {MPI_UNSIGNED_LONG_LONG, COLL_INTEGER},
    {MPI_UNSIGNED_SHORT, COLL_INTEGER}, {MPI_SIGNED_CHAR, COLL_INTEGER},
    {MPI_UNSIGNED_CHAR, COLL_INTEGER}, {MPI_INT8_T, COLL_INTEGER},
    {MPI_INT16_T, COLL_INTEGER}, {MPI_INT32_T, COLL_INTEGER},
    {MPI_INT64_T, COLL_INTEGER}, {MPI_UINT8_T, COLL_INTEGER},
    {MPI_UINT16_T, COLL_INTEGER}, {MPI_UINT32_T, COLL_INTEGER},
    {MPI_UINT64_T, COLL_INTEGER}, {MPI_INTEGER, COLL_INTEGER},
    {MPI_FLOAT, COLL_FLOAT}, {MPI_DOUBLE, COLL_FLOAT},
    {MPI_REAL, COLL_FLOAT}, {MPI_DOUBLE_PRECISION, COLL_FLOAT},
    {MPI_LOGICAL, COLL_LOGICAL}, {MPI_2INT, COLL_PAIR},
};

static const struct { MPI_Op op; int classes; } coll_op_classes[] = {
    {MPI_MAX, COLL_INTEGER | COLL_FLOAT}, {MPI_MIN, COLL_INTEGER | COLL_FLOAT},
    {MPI_SUM, COLL_INTEGER | COLL_FLOAT}, {MPI_PROD, COLL_INTEGER | COLL_FLOAT},
    {MPI_LAND, COLL_INTEGER | COLL_LOGICAL},
    {MPI_LOR, COLL_INTEGER | COLL_LOGICAL},
    {MPI_LXOR, COLL_INTEGER | COLL_LOGICAL},
    {MPI_BAND, COLL_INTEGER}, {MPI_BOR, COLL_INTEGER},
    {MPI_BXOR, COLL_INTEGER},
    {MPI_MAXLOC, COLL_PAIR}, {MPI_MINLOC, COLL_PAIR},
};

/* The class of a predefined datatype whose elements are contiguous (size
 * equal to extent, lower bound 0, so that its bytes are its data), or 0
 * for any other; types that are not listed go to the MPI underneath. */
static int type_class(MPI_Datatype t)
{
    for (size_t i = 0; i < sizeof coll_type_classes / sizeof *coll_type_classes; i++)
        if (coll_type_classes[i].type == t)
            return coll_type_classes[i].cls;
    return 0;
}

/* The classes a predefined operation accepts, or 0 for a user-defined
 * operation (its commutativity and datatypes are the program's). */
static int op_classes(MPI_Op op)
{
    for (size_t i = 0; i < sizeof coll_op_classes / sizeof *coll_op_classes; i++)
        if (coll_op_classes[i].op == op)
            return coll_op_classes[i].classes;
    return 0;
}

/* inout[i] = in[i] op inout[i] for the sums, maxima and minima of the
 * commonest types, in the operand order and with the comparisons of
 * the underlying MPI's own reduction loops (so NaNs come out as without
 * Omnibus); each spares a reduction the 38 ns of PMPI_Reduce_local.  Returns 0
 * for any other type or operation. */
#define COLL_REDUCE(T)                                                         \
    do {                                                                       \
        const T *a = in;                                                       \
        T *b = inout;                                                          \
        if (op == MPI_SUM)                                                     \
            for (MPI_Count i = 0; i < n; i++)                                  \
                b[i] = a[i] + b[i];                                            \
        else if (op == MPI_MAX)                                                \
            for (MPI_Count i = 0; i < n; i++)                                  \
                b[i] = a[i] > b[i] ? a[i] : b[i];                              \
        else if (op == MPI_MIN)                                                \
            for (MPI_Count i = 0; i < n; i++)                                  \
                b[i] = a[i] < b[i] ? a[i] : b[i];                              \
        else                                                                   \
            return 0;                                                          \
        return 1;                                                              \
    } while (0)

static int reduce_inline(const void *in, void *inout, MPI_Count n,
                         MPI_Datatype t, MPI_Op op)
{
    if (t == MPI_DOUBLE)
        COLL_REDUCE(double);
    if (t == MPI_FLOAT)
        COLL_REDUCE(float);
    if (t == MPI_INT)
        COLL_REDUCE(int);
    if (t == MPI_LONG)
        COLL_REDUCE(long);
    if (t == MPI_LONG_LONG)
        COLL_REDUCE(long long);
    if (t == MPI_INT64_T)
        COLL_REDUCE(int64_t);
    if (t == MPI_UNSIGNED_LONG)
        COLL_REDUCE(unsigned long);
    if (t == MPI_UINT64_T)
        COLL_REDUCE(uint64_t);
    return 0;
}

static void reduce(const void *in, void *inout, MPI_Count n, MPI_Datatype t,
                   MPI_Op op)
{
    if (!reduce_inline(in, inout, n, t, op))
        PMPI_Reduce_local(in, inout, (int)n, t, op);
}

/* Whether Omnibus may run collectives on c at all (coll.h): a managed
 * communicator, OMNIBUS_COLLECTIVES=omnibus, and a topology of one hop,
 * the same on every rank of the job. */
static int coll_on(const comm_rec *c)
{
    return c && omni.job.cfg.collectives == CFG_COLLECTIVES_OMNIBUS &&
           rt_grid_one_hop(&omni.job.grid);
}

/* Runs the call as the underlying MPI's nonblocking form plus Omnibus
 * progress, and returns its result: coll.h's "every other call".  `start`
 * starts it into the request `req` that this macro declares. */
#define BY_UNDER(start)                                                        \
    do {                                                                       \
        MPI_Request req;                                                       \
        prog_block_enter();                                                    \
        return prog_wait_started(start, &req);                                 \
    } while (0)

/* The collective shadow of c, made on first use (coll.h). */
static comm_rec *shadow_of(comm_rec *c)
{
    if (!c->coll) {
        c->coll = comm_add_shadow(c, c->id | COMM_ID_COLL_BIT);
        if (!c->coll)
            omni_out_of_memory("a collective shadow record");
    }
    return c->coll;
}

/* At least `bytes` of the kept buffer k; growing it loses its contents,
 * so a collective asks once for what it needs. */
static void *kept(coll_kept *k, size_t bytes, const char *what)
{
    if (bytes > k->cap) {
        free(k->buf);
        k->buf = malloc(bytes);
        if (!k->buf)
            omni_out_of_memory(what);
        k->cap = bytes;
    }
    return k->buf;
}

/* Scratch for what a partner sends. */
static char *scratch(size_t bytes)
{
    return kept(&omni.ops.coll_scratch, bytes, "a collective's scratch buffer");
}

static void kept_free(coll_kept *k)
{
    free(k->buf);
    *k = (coll_kept){NULL, 0};
}

void coll_finalize(void)
{
    kept_free(&omni.ops.coll_scratch);
    kept_free(&omni.ops.coll_recvs);
    kept_free(&omni.ops.coll_displs);
}

/* Omnibus's point-to-point steps on the shadow s, `count` elements of
 * `dtype` at `buf` (MPI_BYTE for the reductions' contiguous data, the
 * program's own datatype for a broadcast).  A receive is posted before the
 * matching send leaves, and the wait flushes that send first, so two
 * members exchanging never wait on each other. */
static void step_post(match_recv *r, comm_rec *s, void *buf, MPI_Count count,
                      MPI_Datatype dtype, int src, int tag)
{
    match_recv_init(r, buf, count, dtype, src, tag, s, MPI_COMM_WORLD,
                    MPI_REQUEST_NULL);
    recv_start(r);
}

static void step_send(comm_rec *s, const void *buf, MPI_Count count,
                      MPI_Datatype dtype, int dest, int tag)
{
    omni.stats.coll_items++;
    omni.stats.coll_by_hops[omni.job.route_len[comm_to_world(s, dest)]]++;
    send_start(buf, count, dtype, dest, tag, s, SEND_STANDARD, NULL);
}

static void step_recv(comm_rec *s, void *buf, MPI_Count count,
                      MPI_Datatype dtype, int src, int tag)
{
    match_recv r;
    step_post(&r, s, buf, count, dtype, src, tag);
    recv_wait(&r);
}

/* Exchanges `bytes` with member `peer`: sends from `out`, receives into
 * `in`. */
static void step_exchange(comm_rec *s, const void *out, void *in, size_t bytes,
                          int peer, int tag)
{
    match_recv r;
    step_post(&r, s, in, (MPI_Count)bytes, MPI_BYTE, peer, tag);
    step_send(s, out, (MPI_Count)bytes, MPI_BYTE, peer, tag);
    recv_wait(&r);
}

/* Whether Omnibus runs a reduction of `count` elements of dtype by op on
 * c itself (coll.h: a choice every member of a correct program makes
 * alike): the buffers are checked by the caller. */
static int reduction_ours(const comm_rec *c, MPI_Count count,
                          MPI_Datatype dtype, MPI_Op op)
{
    if (!coll_on(c) || count < 0)
        return 0;
    int cls = type_class(dtype);
    if (!cls || !(op_classes(op) & cls))
        return 0;
    return (size_t)count <= omni.job.threshold &&
           (size_t)count * (size_t)dtype_builtin_size(dtype) <= omni.job.threshold;
}

/* Buffers MPI accepts for a reduction into recvbuf from sendbuf. */
static int reduction_buffers_valid(const void *sendbuf, const void *recvbuf,
                                   MPI_Count count)
{
    return count == 0 || (recvbuf && recvbuf != MPI_IN_PLACE && sendbuf &&
                          sendbuf != recvbuf);
}

static int allreduce_ours(const comm_rec *c, const void *sendbuf,
                          const void *recvbuf, MPI_Count count,
                          MPI_Datatype dtype, MPI_Op op)
{
    return reduction_ours(c, count, dtype, op) &&
           reduction_buffers_valid(sendbuf, recvbuf, count);
}

/* Recursive doubling over the members (coll.h, Results): with
 * pof2 the largest power of two not above the size and rem the rest, the
 * first 2 * rem members fold pairwise (even into odd), pof2 members
 * double, and the odd ones hand the result back. */
static void allreduce_run(comm_rec *c, void *recvbuf, MPI_Count count,
                          MPI_Datatype dtype, MPI_Op op)
{
    comm_rec *s = shadow_of(c);
    size_t bytes = (size_t)count * (size_t)dtype_builtin_size(dtype);
    char *in = scratch(bytes ? bytes : 1);
    int rank = c->rank, size = c->size, tag = COLL_TAG_ALLREDUCE;
    int pof2 = 1;
    while (pof2 * 2 <= size)
        pof2 *= 2;
    int rem = size - pof2, newrank;
    if (rank < 2 * rem) {
        if (rank % 2 == 0) {
            step_send(s, recvbuf, (MPI_Count)bytes, MPI_BYTE, rank + 1, tag);
            newrank = -1;
        } else {
            step_recv(s, in, (MPI_Count)bytes, MPI_BYTE, rank - 1, tag);
            reduce(in, recvbuf, count, dtype, op);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            step_exchange(s, recvbuf, in, bytes, dst, tag);
            reduce(in, recvbuf, count, dtype, op);
        }
    }
    if (rank < 2 * rem) {
        if (rank % 2)
            step_send(s, recvbuf, (MPI_Count)bytes, MPI_BYTE, rank - 1, tag);
        else
            step_recv(s, recvbuf, (MPI_Count)bytes, MPI_BYTE, rank + 1, tag);
    }
    prog_block_enter();
}

int impl_Allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                   MPI_Datatype dtype, MPI_Op op, MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    if (!allreduce_ours(c, sendbuf, recvbuf, count, dtype, op)) {
        BY_UNDER(omni_Iallreduce_c(sendbuf, recvbuf, count, dtype, op, comm,
                                   &req));
    }
    if (sendbuf != MPI_IN_PLACE && count > 0)
        memcpy(recvbuf, sendbuf,
               (size_t)count * (size_t)dtype_builtin_size(dtype));
    if (c->size > 1)
        allreduce_run(c, recvbuf, count, dtype, op);
    return MPI_SUCCESS;
}

/* Dissemination: in round k each member tells the one 2^k above it and
 * hears from the one 2^k below, so after ceil(log2 size) rounds every
 * member has heard, directly or not, from every other. */
int impl_Barrier(MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    if (!coll_on(c)) {
        BY_UNDER(PMPI_Ibarrier(comm, &req));
    }
    if (c->size == 1)
        return MPI_SUCCESS;
    comm_rec *s = shadow_of(c);
    char none = 0;
    for (int k = 1; k < c->size; k <<= 1) {
        match_recv r;
        step_post(&r, s, &none, 0, MPI_BYTE, (c->rank - k + c->size) % c->size,
                  COLL_TAG_BARRIER);
        step_send(s, &none, 0, MPI_BYTE, (c->rank + k) % c->size,
                  COLL_TAG_BARRIER);
        recv_wait(&r);
    }
    prog_block_enter();
    return MPI_SUCCESS;
}

/* --- MPI_Scan and MPI_Exscan: recursive doubling ------------------------ */

/* A prefix runs here only where its result is exact in any order
 * (integers, logicals, MINLOC and MAXLOC pairs; quirk Q6,
 * mpi/quirks.h): MPICH 4.0.2 may scan a
 * communicator by another algorithm than this one (its SMP variant on a
 * hierarchical one), and a floating-point prefix would round differently.
 * The rest is what MPI requires to be equal on every member. */
static int scan_ours(const comm_rec *c, MPI_Count count, MPI_Datatype dtype,
                     MPI_Op op)
{
    return reduction_ours(c, count, dtype, op) &&
           type_class(dtype) != COLL_FLOAT;
}

/* In round `mask` a member swaps with member rank ^ mask the reduction of
 * its aligned block of 2 * mask members so far (`partial`); what comes
 * from below adds to its own result.  Exclusive: the first contribution
 * from below is the result's start, and member 0's recvbuf is left as it
 * was (MPI leaves it undefined). */
static void scan_run(comm_rec *c, const void *sendbuf, void *recvbuf,
                     MPI_Count count, MPI_Datatype dtype, MPI_Op op,
                     int exclusive)
{
    size_t bytes = (size_t)count * (size_t)dtype_builtin_size(dtype);
    const void *own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    if (!exclusive && own != recvbuf && bytes)
        memcpy(recvbuf, own, bytes);
    if (c->size == 1)
        return;
    comm_rec *s = shadow_of(c);
    char *in = scratch(2 * bytes + 1), *partial = in + bytes;
    if (bytes)
        memcpy(partial, own, bytes);
    int tag = exclusive ? COLL_TAG_EXSCAN : COLL_TAG_SCAN, have = !exclusive;
    for (int mask = 1; mask < c->size; mask <<= 1) {
        int peer = c->rank ^ mask;
        if (peer >= c->size)
            continue;
        step_exchange(s, partial, in, bytes, peer, tag);
        if (peer < c->rank) {
            if (have)
                reduce(in, recvbuf, count, dtype, op);
            else if (bytes)
                memcpy(recvbuf, in, bytes);
            have = 1;
        }
        reduce(in, partial, count, dtype, op);
    }
    prog_block_enter();
}

int impl_Scan(const void *sendbuf, void *recvbuf, MPI_Count count,
              MPI_Datatype dtype, MPI_Op op, MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    if (!scan_ours(c, count, dtype, op) ||
        !reduction_buffers_valid(sendbuf, recvbuf, count)) {
        BY_UNDER(omni_Iscan_c(sendbuf, recvbuf, count, dtype, op, comm, &req));
    }
    scan_run(c, sendbuf, recvbuf, count, dtype, op, 0);
    return MPI_SUCCESS;
}

/* Member 0 never writes recvbuf, so its recvbuf is not checked: a program
 * may pass NULL there, and member 0 must still choose as the others do. */
int impl_Exscan(const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype dtype, MPI_Op op, MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    const void *own = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int ours =
        scan_ours(c, count, dtype, op) &&
        (c->rank == 0 ? count == 0 || own
                      : reduction_buffers_valid(sendbuf, recvbuf, count));
    if (!ours) {
        BY_UNDER(omni_Iexscan_c(sendbuf, recvbuf, count, dtype, op, comm,
                                &req));
    }
    scan_run(c, sendbuf, recvbuf, count, dtype, op, 1);
    return MPI_SUCCESS;
}

/* --- MPI_Bcast and MPI_Reduce: binomial trees rooted at `root` ----------- */

/* A member's place in a tree rooted at root: members are renumbered so
 * that the root is 0; in round k (mask 2^k) a member below 2^k sends to the
 * one 2^k above it. */
static int tree_rank(const comm_rec *c, int root)
{
    return (c->rank - root + c->size) % c->size;
}

static int tree_member(const comm_rec *c, int vrank, int root)
{
    return (vrank + root) % c->size;
}

/* The choice for MPI_Bcast rests on its byte count, which every member's
 * (count, datatype) gives alike (MPI requires equal type signatures, not
 * equal datatypes), so the data travels in each member's own datatype. */
int impl_Bcast(void *buf, MPI_Count count, MPI_Datatype dtype, int root,
               MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    MPI_Count size = dtype_size(dtype);
    if (!coll_on(c) || count < 0 ||
        size < 0 || root < 0 || root >= c->size ||
        (count > 0 && ((!buf && dtype_builtin_size(dtype)) ||
                       (size_t)size > omni.job.threshold ||
                       (size_t)count > omni.job.threshold ||
                       (size_t)(count * size) > omni.job.threshold))) {
        BY_UNDER(omni_Ibcast_c(buf, count, dtype, root, comm, &req));
    }
    if (c->size == 1)
        return MPI_SUCCESS;
    comm_rec *s = shadow_of(c);
    int vr = tree_rank(c, root), mask = 1;
    for (; mask < c->size; mask <<= 1)
        if (vr & mask) {
            step_recv(s, buf, count, dtype, tree_member(c, vr - mask, root),
                      COLL_TAG_BCAST);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < c->size)
            step_send(s, buf, count, dtype, tree_member(c, vr + mask, root),
                      COLL_TAG_BCAST);
    prog_block_enter();
    return MPI_SUCCESS;
}

/* MPI_Reduce: each member reduces what its subtree sent into its own
 * accumulator (what arrived, then what it holds, for commutative
 * operations: coll.h, Results) and sends that to its parent. */
static void reduce_run(comm_rec *c, const void *sendbuf, void *recvbuf,
                       MPI_Count count, MPI_Datatype dtype, MPI_Op op,
                       int root)
{
    comm_rec *s = shadow_of(c);
    size_t bytes = (size_t)count * (size_t)dtype_builtin_size(dtype);
    char *in = scratch(2 * bytes + 1), *acc = c->rank == root ? recvbuf
                                                              : in + bytes;
    if (sendbuf != MPI_IN_PLACE && bytes)
        memcpy(acc, sendbuf, bytes);
    int vr = tree_rank(c, root);
    for (int mask = 1; mask < c->size; mask <<= 1) {
        if (vr & mask) {
            step_send(s, acc, (MPI_Count)bytes, MPI_BYTE,
                      tree_member(c, vr - mask, root), COLL_TAG_REDUCE);
            break;
        }
        if (vr + mask < c->size) {
            step_recv(s, in, (MPI_Count)bytes, MPI_BYTE,
                      tree_member(c, vr + mask, root), COLL_TAG_REDUCE);
            reduce(in, acc, count, dtype, op);
        }
    }
    prog_block_enter();
}

int impl_Reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype dtype, MPI_Op op, int root, MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    int ours = reduction_ours(c, count, dtype, op) && root >= 0 &&
               root < c->size &&
               (c->rank == root
                    ? reduction_buffers_valid(sendbuf, recvbuf, count)
                    : count == 0 || (sendbuf && sendbuf != MPI_IN_PLACE));
    if (!ours) {
        BY_UNDER(omni_Ireduce_c(sendbuf, recvbuf, count, dtype, op, root, comm,
                                &req));
    }
    if (c->size == 1) {
        if (sendbuf != MPI_IN_PLACE && count > 0)
            memcpy(recvbuf, sendbuf,
                   (size_t)count * (size_t)dtype_builtin_size(dtype));
        return MPI_SUCCESS;
    }
    reduce_run(c, sendbuf, recvbuf, count, dtype, op, root);
    return MPI_SUCCESS;
}

/* --- MPI_Gather, MPI_Scatter, MPI_Allgather(v), MPI_Alltoall: a message
 * per member and piece --------------------------------------------------- */

/* Each member's piece: `count` elements of `dtype`; the choice rests on
 * its byte count, which every member's own (count, datatype) gives alike
 * (equal type signatures), so pieces travel in each member's datatypes.
 * A v form's pieces (MPI_Allgatherv) have a count and a displacement per
 * member instead, from the call's int arrays or its large-count ones. */
typedef struct {
    char *buf;
    MPI_Count count;
    MPI_Datatype dtype;
    MPI_Aint stride; /* bytes from one member's piece to the next */
    const int *counts_i, *displs_i;     /* v form, int arrays */
    const MPI_Count *counts_c;          /* v form, _c arrays */
    const MPI_Aint *displs_c;
    MPI_Aint extent;                    /* v form: displacements' unit */
} coll_pieces;

static MPI_Count piece_count(const coll_pieces *p, int member)
{
    return p->counts_i ? p->counts_i[member]
         : p->counts_c ? p->counts_c[member] : p->count;
}

static char *piece_at(const coll_pieces *p, int member)
{
    if (p->displs_i)
        return p->buf + (MPI_Aint)p->displs_i[member] * p->extent;
    if (p->displs_c)
        return p->buf + p->displs_c[member] * p->extent;
    return p->buf + (MPI_Aint)member * p->stride;
}

/* Whether a piece of count elements of a type of `size` bytes at buf may
 * travel as an Omnibus message: MPI accepts it and it is at most the
 * threshold (else the MPI underneath takes the call). */
static int piece_small(const void *buf, MPI_Count count, MPI_Count size,
                       MPI_Datatype dtype)
{
    return count >= 0 && size >= 0 &&
           (count == 0 || buf || !dtype_builtin_size(dtype)) &&
           (size_t)count <= omni.job.threshold && (size_t)size <= omni.job.threshold &&
           (size_t)(count * size) <= omni.job.threshold;
}

/* The pieces of count elements of dtype at buf, one per member; their
 * byte count, or -1 when piece_small refuses them. */
static int pieces_of(coll_pieces *p, const void *buf, MPI_Count count,
                     MPI_Datatype dtype)
{
    MPI_Count size = dtype_size(dtype), lb, extent;
    if (!piece_small(buf, count, size, dtype) ||
        PMPI_Type_get_extent_x(dtype, &lb, &extent) != MPI_SUCCESS)
        return -1;
    *p = (coll_pieces){.buf = (char *)buf, .count = count, .dtype = dtype,
                       .stride = (MPI_Aint)(count * extent)};
    return (int)(count * size);
}

/* A v form's pieces for n members (one of each pair of arrays NULL): 0, or
 * -1 when piece_small refuses any of them. */
static int vpieces_of(coll_pieces *p, const void *buf, const int *counts_i,
                      const MPI_Count *counts_c, const int *displs_i,
                      const MPI_Aint *displs_c, MPI_Datatype dtype, int n)
{
    MPI_Count size = dtype_size(dtype), lb, extent;
    if (!(counts_i || counts_c) || !(displs_i || displs_c) ||
        PMPI_Type_get_extent_x(dtype, &lb, &extent) != MPI_SUCCESS)
        return -1;
    *p = (coll_pieces){.buf = (char *)buf, .dtype = dtype,
                       .counts_i = counts_i, .counts_c = counts_c,
                       .displs_i = displs_i, .displs_c = displs_c,
                       .extent = (MPI_Aint)extent};
    for (int j = 0; j < n; j++)
        if (!piece_small(buf, piece_count(p, j), size, dtype))
            return -1;
    return 0;
}

/* Receive records for every member. */
static match_recv *recv_slots(int n)
{
    return kept(&omni.ops.coll_recvs, sizeof(match_recv) * (size_t)n,
                "a collective's receive records");
}

/* Copies one piece into another of the same type signature, through a
 * message to this rank on the shadow (Omnibus unpacks any datatype). */
static void piece_copy(comm_rec *s, const void *from, MPI_Count fcount,
                       MPI_Datatype ftype, void *to, MPI_Count tcount,
                       MPI_Datatype ttype)
{
    match_recv r;
    step_post(&r, s, to, tcount, ttype, s->rank, COLL_TAG_SELF);
    step_send(s, from, fcount, ftype, s->rank, COLL_TAG_SELF);
    recv_wait(&r);
}

/* Posts a receive from every other member into its piece of `in`, then
 * sends every other member its piece of `out` (NULL: nothing; a stride of
 * 0 sends all the same piece), and waits for the receives: every member
 * posts before it sends, so a send that waits for its receiver (a full
 * window) never waits on a member that waits for it. */
static void pieces_exchange(comm_rec *s, const coll_pieces *in,
                            const coll_pieces *out, int tag)
{
    match_recv *r = recv_slots(s->size);
    for (int j = 0; j < s->size; j++)
        if (j != s->rank)
            step_post(&r[j], s, piece_at(in, j), piece_count(in, j), in->dtype,
                      j, tag);
    for (int j = 0; out && j < s->size; j++)
        if (j != s->rank)
            step_send(s, piece_at(out, j), piece_count(out, j), out->dtype, j,
                      tag);
    for (int j = 0; j < s->size; j++)
        if (j != s->rank)
            recv_wait(&r[j]);
    prog_block_enter();
}

/* The choice for MPI_Gather and MPI_Scatter: at the root, `all` holds
 * every member's piece (*all_p describes it) and `own` its own, which may
 * be MPI_IN_PLACE; elsewhere only `own` counts. */
static int rooted_ours(const comm_rec *c, int root, coll_pieces *all_p,
                       const void *all, MPI_Count acount, MPI_Datatype atype,
                       const void *own, MPI_Count ocount, MPI_Datatype otype)
{
    coll_pieces own_p;
    if (!coll_on(c) || root < 0 || root >= c->size)
        return 0;
    if (c->rank != root)
        return own != MPI_IN_PLACE &&
               pieces_of(&own_p, own, ocount, otype) >= 0;
    int bytes = all == MPI_IN_PLACE ? -1 : pieces_of(all_p, all, acount, atype);
    return bytes >= 0 && (own == MPI_IN_PLACE ||
                          pieces_of(&own_p, own, ocount, otype) == bytes);
}

int impl_Gather(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    coll_pieces in;
    if (!rooted_ours(c, root, &in, rbuf, rcount, rtype, sbuf, scount, stype)) {
        BY_UNDER(omni_Igather_c(sbuf, scount, stype, rbuf, rcount, rtype, root,
                                comm, &req));
    }
    comm_rec *s = shadow_of(c);
    if (c->rank != root) {
        step_send(s, sbuf, scount, stype, root, COLL_TAG_GATHER);
        prog_block_enter();
        return MPI_SUCCESS;
    }
    if (sbuf != MPI_IN_PLACE)
        piece_copy(s, sbuf, scount, stype, piece_at(&in, root), rcount, rtype);
    pieces_exchange(s, &in, NULL, COLL_TAG_GATHER);
    return MPI_SUCCESS;
}

int impl_Scatter(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                 void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                 MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    coll_pieces out;
    if (!rooted_ours(c, root, &out, sbuf, scount, stype, rbuf, rcount, rtype)) {
        BY_UNDER(omni_Iscatter_c(sbuf, scount, stype, rbuf, rcount, rtype, root,
                                 comm, &req));
    }
    comm_rec *s = shadow_of(c);
    if (c->rank != root) {
        step_recv(s, rbuf, rcount, rtype, root, COLL_TAG_SCATTER);
        return MPI_SUCCESS;
    }
    for (int j = 0; j < c->size; j++)
        if (j != root)
            step_send(s, piece_at(&out, j), scount, stype, j, COLL_TAG_SCATTER);
    if (rbuf != MPI_IN_PLACE)
        piece_copy(s, piece_at(&out, root), scount, stype, rbuf, rcount, rtype);
    prog_block_enter();
    return MPI_SUCCESS;
}

/* The gathers to all: this member's piece of `in` goes into its own slot
 * (from sbuf, or already there with MPI_IN_PLACE) and from there to every
 * other member, while every other member's arrives in its slot. */
static void own_piece_to_all(comm_rec *c, const void *sbuf, MPI_Count scount,
                             MPI_Datatype stype, const coll_pieces *in, int tag)
{
    comm_rec *s = shadow_of(c);
    coll_pieces own = {.buf = piece_at(in, c->rank),
                       .count = piece_count(in, c->rank), .dtype = in->dtype,
                       .stride = 0 /* the same piece to every member */};
    if (sbuf != MPI_IN_PLACE)
        piece_copy(s, sbuf, scount, stype, own.buf, own.count, own.dtype);
    pieces_exchange(s, in, &own, tag);
}

int impl_Allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                   void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                   MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    coll_pieces in, out;
    int bytes = coll_on(c) && rbuf != MPI_IN_PLACE
                    ? pieces_of(&in, rbuf, rcount, rtype) : -1;
    if (bytes < 0 || (sbuf != MPI_IN_PLACE &&
                      pieces_of(&out, sbuf, scount, stype) != bytes)) {
        BY_UNDER(omni_Iallgather_c(sbuf, scount, stype, rbuf, rcount, rtype,
                                   comm, &req));
    }
    own_piece_to_all(c, sbuf, scount, stype, &in, COLL_TAG_ALLGATHER);
    return MPI_SUCCESS;
}

/* MPI_Allgatherv: every member has every count (MPI-4.1 §6.7), so every
 * member sees the same largest piece and chooses alike.  Returns -1 when
 * the call is not Omnibus's (the caller passes it to the MPI underneath). */
static int allgatherv_ours(const void *sbuf, MPI_Count scount,
                           MPI_Datatype stype, void *rbuf,
                           const int *counts_i, const MPI_Count *counts_c,
                           const int *displs_i, const MPI_Aint *displs_c,
                           MPI_Datatype rtype, MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    coll_pieces in, out;
    if (!coll_on(c) || rbuf == MPI_IN_PLACE ||
        vpieces_of(&in, rbuf, counts_i, counts_c, displs_i, displs_c, rtype,
                   c->size) != 0)
        return -1;
    MPI_Count mine = piece_count(&in, c->rank);
    if (sbuf != MPI_IN_PLACE &&
        pieces_of(&out, sbuf, scount, stype) != mine * dtype_size(rtype))
        return -1;
    own_piece_to_all(c, sbuf, scount, stype, &in, COLL_TAG_ALLGATHERV);
    return 0;
}

int impl_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype,
                    void *rbuf, const int rcounts[], const int displs[],
                    MPI_Datatype rtype, MPI_Comm comm)
{
    if (allgatherv_ours(sbuf, scount, stype, rbuf, rcounts, NULL, displs, NULL,
                        rtype, comm) == 0)
        return MPI_SUCCESS;
    BY_UNDER(PMPI_Iallgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype,
                              comm, &req));
}

#if OMNI_HAVE_MPI_Allgatherv_c
int impl_Allgatherv_c(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                      void *rbuf, const MPI_Count rcounts[],
                      const MPI_Aint displs[], MPI_Datatype rtype,
                      MPI_Comm comm)
{
    if (allgatherv_ours(sbuf, scount, stype, rbuf, NULL, rcounts, NULL, displs,
                        rtype, comm) == 0)
        return MPI_SUCCESS;
    BY_UNDER(PMPI_Iallgatherv_c(sbuf, scount, stype, rbuf, rcounts, displs,
                                rtype, comm, &req));
}
#endif

/* Block displacements for every member. */
static MPI_Aint *displ_slots(int n)
{
    return kept(&omni.ops.coll_displs, sizeof(MPI_Aint) * (size_t)n,
                "a collective's displacements");
}

/* MPI_Reduce_scatter(_block): every member sends member j its j-th block
 * (`counts` gives every member's block; counts_i, counts_c or neither,
 * then `count` each) and reduces the blocks it gets into its own.  The
 * reduction order is not the underlying MPI's (recursive halving), so only
 * datatypes exact in any order (scan_ours), for every block: every member has
 * every count, datatype and operation (MPI-4.1 §6.10), so all choose alike.
 * Returns -1 when the call is not Omnibus's (the caller passes it to
 * the MPI underneath). */
static int reduce_scatter_ours(const void *sendbuf, void *recvbuf,
                               MPI_Count count, const int *counts_i,
                               const MPI_Count *counts_c, MPI_Datatype dtype,
                               MPI_Op op, MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    if (!c)
        return -1;
    coll_pieces blocks = {.count = count, .counts_i = counts_i,
                          .counts_c = counts_c, .dtype = dtype};
    MPI_Count total = 0, largest = 0;
    for (int j = 0; j < c->size; j++) {
        MPI_Count n = piece_count(&blocks, j);
        if (n < 0)
            return -1;
        total += n;
        largest = n > largest ? n : largest;
    }
    /* the largest block within the threshold: every block is */
    if (!scan_ours(c, largest, dtype, op))
        return -1;
    const char *data = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    MPI_Count mine = piece_count(&blocks, c->rank);
    if (total > 0 &&
        (!data || (sendbuf != MPI_IN_PLACE && sendbuf == recvbuf) ||
         (mine > 0 && (!recvbuf || recvbuf == MPI_IN_PLACE))))
        return -1;
    size_t esize = (size_t)dtype_builtin_size(dtype),
           bytes = (size_t)mine * esize;
    if (c->size == 1) {
        if (data != recvbuf && bytes)
            memcpy(recvbuf, data, bytes);
        return 0;
    }
    MPI_Aint *displs = displ_slots(c->size), at = 0;
    for (int j = 0; j < c->size; j++) {
        displs[j] = at;
        at += (MPI_Aint)piece_count(&blocks, j);
    }
    blocks.buf = (char *)data;
    blocks.displs_c = displs;
    blocks.extent = (MPI_Aint)esize;
    coll_pieces in = {.buf = scratch(bytes * (size_t)c->size + 1),
                      .count = mine,
                      .dtype = dtype,
                      .stride = (MPI_Aint)bytes};
    pieces_exchange(shadow_of(c), &in, &blocks, COLL_TAG_REDUCE_SCATTER);
    /* The exchange's blocking sends have copied `data` out, so recvbuf
     * takes the result even where it holds the data (MPI_IN_PLACE): its
     * own block first, which may overlap the result's place. */
    if (bytes)
        memmove(recvbuf, piece_at(&blocks, c->rank), bytes);
    for (int j = 0; j < c->size; j++)
        if (j != c->rank)
            reduce(piece_at(&in, j), recvbuf, mine, dtype, op);
    return 0;
}

int impl_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                              MPI_Count count, MPI_Datatype dtype, MPI_Op op,
                              MPI_Comm comm)
{
    if (reduce_scatter_ours(sendbuf, recvbuf, count, NULL, NULL, dtype, op,
                            comm) == 0)
        return MPI_SUCCESS;
    BY_UNDER(omni_Ireduce_scatter_block_c(sendbuf, recvbuf, count, dtype, op,
                                          comm, &req));
}

int impl_Reduce_scatter(const void *sendbuf, void *recvbuf,
                        const int recvcounts[], MPI_Datatype dtype, MPI_Op op,
                        MPI_Comm comm)
{
    if (recvcounts && reduce_scatter_ours(sendbuf, recvbuf, 0, recvcounts, NULL,
                                          dtype, op, comm) == 0)
        return MPI_SUCCESS;
    BY_UNDER(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, dtype, op, comm,
                                  &req));
}

#if OMNI_HAVE_MPI_Reduce_scatter_c
int impl_Reduce_scatter_c(const void *sendbuf, void *recvbuf,
                          const MPI_Count recvcounts[], MPI_Datatype dtype,
                          MPI_Op op, MPI_Comm comm)
{
    if (recvcounts && reduce_scatter_ours(sendbuf, recvbuf, 0, NULL, recvcounts,
                                          dtype, op, comm) == 0)
        return MPI_SUCCESS;
    BY_UNDER(PMPI_Ireduce_scatter_c(sendbuf, recvbuf, recvcounts, dtype, op,
                                    comm, &req));
}
#endif

/* MPI_IN_PLACE, which MPI-4.1 §6.8 has every member pass alike, stays
 * the underlying MPI's: a piece would arrive over one not yet sent. */
int impl_Alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    comm_rec *c = comm_lookup(comm);
    coll_pieces in, out;
    int bytes = coll_on(c) && sbuf != MPI_IN_PLACE && rbuf != MPI_IN_PLACE
                    ? pieces_of(&in, rbuf, rcount, rtype) : -1;
    if (bytes < 0 || pieces_of(&out, sbuf, scount, stype) != bytes) {
        BY_UNDER(omni_Ialltoall_c(sbuf, scount, stype, rbuf, rcount, rtype,
                                  comm, &req));
    }
    comm_rec *s = shadow_of(c);
    piece_copy(s, piece_at(&out, c->rank), scount, stype,
               piece_at(&in, c->rank), rcount, rtype);
    pieces_exchange(s, &in, &out, COLL_TAG_ALLTOALL);
    return MPI_SUCCESS;
}
