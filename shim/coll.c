#include "shim/coll.h"
#include "shim/comm.h"
#include "shim/progress.h"
#include "shim/recv.h"
#include "shim/send.h"
#include <stdlib.h>
#include <string.h>

/* Tags on the shadow record, one per kind of collective (coll.h). */
enum { COLL_TAG_ALLREDUCE = 1, COLL_TAG_BARRIER = 2, COLL_TAG_BCAST = 3,
       COLL_TAG_REDUCE = 4 };

/* What a predefined operation applies to (MPI-4.1 §6.9.2), as bits. */
enum {
    COLL_INTEGER = 1, /* C and Fortran integers */
    COLL_FLOAT = 2,   /* floating point */
    COLL_LOGICAL = 4, /* Fortran logical */
    COLL_PAIR = 8     /* (value, index) pairs of MINLOC and MAXLOC */
};

/* The class of a predefined datatype whose elements are contiguous (size
 * equal to extent, lower bound 0, so that its bytes are its data), or 0
 * for any other; types that are not listed go to MPICH. */
static int type_class(MPI_Datatype t)
{
    switch (t) {
    case MPI_INT: case MPI_LONG: case MPI_LONG_LONG: case MPI_SHORT:
    case MPI_UNSIGNED: case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG:
    case MPI_UNSIGNED_SHORT: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR:
    case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T:
    case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T:
    case MPI_INTEGER:
        return COLL_INTEGER;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_REAL: case MPI_DOUBLE_PRECISION:
        return COLL_FLOAT;
    case MPI_LOGICAL:
        return COLL_LOGICAL;
    case MPI_2INT:
        return COLL_PAIR;
    default:
        return 0;
    }
}

/* The classes a predefined operation accepts, or 0 for a user-defined
 * operation (its commutativity and datatypes are the program's). */
static int op_classes(MPI_Op op)
{
    switch (op) {
    case MPI_MAX: case MPI_MIN:
        return COLL_INTEGER | COLL_FLOAT;
    case MPI_SUM: case MPI_PROD:
        return COLL_INTEGER | COLL_FLOAT;
    case MPI_LAND: case MPI_LOR: case MPI_LXOR:
        return COLL_INTEGER | COLL_LOGICAL;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR:
        return COLL_INTEGER;
    case MPI_MAXLOC: case MPI_MINLOC:
        return COLL_PAIR;
    default:
        return 0;
    }
}

/* inout[i] = in[i] op inout[i] for the sums, maxima and minima of the
 * commonest types, in the operand order and with the comparisons of
 * MPICH's own reduction loops (so NaNs come out as under MPICH); each
 * spares a reduction the 38 ns of PMPI_Reduce_local.  Returns 0 for any
 * other type or operation. */
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
    switch (t) {
    case MPI_DOUBLE: COLL_REDUCE(double);
    case MPI_FLOAT: COLL_REDUCE(float);
    case MPI_INT: COLL_REDUCE(int);
    case MPI_LONG: COLL_REDUCE(long);
    case MPI_LONG_LONG: COLL_REDUCE(long long);
    case MPI_INT64_T: COLL_REDUCE(int64_t);
    case MPI_UNSIGNED_LONG: COLL_REDUCE(unsigned long);
    case MPI_UINT64_T: COLL_REDUCE(uint64_t);
    default:
        return 0;
    }
}

static void reduce(const void *in, void *inout, MPI_Count n, MPI_Datatype t,
                   MPI_Op op)
{
    if (!reduce_inline(in, inout, n, t, op))
        PMPI_Reduce_local(in, inout, (int)n, t, op);
}

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

/* Scratch for what a partner sends, kept between calls so that a
 * collective allocates nothing once the first has run. */
static char *scratch(size_t bytes)
{
    if (bytes > omni.coll_scratch_cap) {
        free(omni.coll_scratch);
        omni.coll_scratch = malloc(bytes);
        if (!omni.coll_scratch)
            omni_out_of_memory("a collective's scratch buffer");
        omni.coll_scratch_cap = bytes;
    }
    return omni.coll_scratch;
}

void coll_finalize(void)
{
    free(omni.coll_scratch);
    omni.coll_scratch = NULL;
    omni.coll_scratch_cap = 0;
}

/* Omnibus's point-to-point steps on the shadow s, `count` elements of
 * `dtype` at `buf` (MPI_BYTE for the reductions' contiguous data, the
 * program's own datatype for a broadcast).  A receive is posted before the
 * matching send leaves, and the wait flushes that send first, so two
 * members exchanging never wait on each other. */
static void step_post(match_recv *r, comm_rec *s, void *buf, MPI_Count count,
                      MPI_Datatype dtype, int src, int tag)
{
    *r = (match_recv){.buf = buf, .count = count, .dtype = dtype,
                      .src = src, .tag = tag, .comm = s,
                      .user_comm = MPI_COMM_WORLD, .req = MPI_REQUEST_NULL};
    recv_start(r);
}

static void step_send(comm_rec *s, const void *buf, MPI_Count count,
                      MPI_Datatype dtype, int dest, int tag)
{
    omni.stats.coll_items++;
    omni.stats.coll_by_hops[omni.route_len[s->to_world[dest]]]++;
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
    if (!c || omni.cfg.collectives != CFG_COLLECTIVES_OMNIBUS || count < 0)
        return 0;
    int cls = type_class(dtype);
    if (!cls || !(op_classes(op) & cls))
        return 0;
    return (size_t)count <= omni.threshold &&
           (size_t)count * (size_t)dtype_builtin_size(dtype) <= omni.threshold;
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

/* Recursive doubling over the members (MPICH's short allreduce): with
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
        prog_block_enter();
        MPI_Request req;
        int rc = PMPI_Iallreduce_c(sendbuf, recvbuf, count, dtype, op, comm,
                                   &req);
        return rc == MPI_SUCCESS ? prog_wait(&req, MPI_STATUS_IGNORE) : rc;
    }
    if (sendbuf != MPI_IN_PLACE && count > 0)
        memcpy(recvbuf, sendbuf, (size_t)count * (size_t)dtype_builtin_size(dtype));
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
    if (!c || omni.cfg.collectives != CFG_COLLECTIVES_OMNIBUS) {
        prog_block_enter();
        MPI_Request req;
        int rc = PMPI_Ibarrier(comm, &req);
        return rc == MPI_SUCCESS ? prog_wait(&req, MPI_STATUS_IGNORE) : rc;
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
    if (!c || omni.cfg.collectives != CFG_COLLECTIVES_OMNIBUS || count < 0 ||
        size < 0 || root < 0 || root >= c->size ||
        (count > 0 && ((!buf && dtype_builtin_size(dtype)) ||
                       (size_t)size > omni.threshold ||
                       (size_t)count > omni.threshold ||
                       (size_t)(count * size) > omni.threshold))) {
        prog_block_enter();
        MPI_Request req;
        int rc = PMPI_Ibcast_c(buf, count, dtype, root, comm, &req);
        return rc == MPI_SUCCESS ? prog_wait(&req, MPI_STATUS_IGNORE) : rc;
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
 * accumulator (what arrived, then what it holds, as MPICH's binomial
 * reduce does for commutative operations) and sends that to its parent. */
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
        prog_block_enter();
        MPI_Request req;
        int rc = PMPI_Ireduce_c(sendbuf, recvbuf, count, dtype, op, root, comm,
                                &req);
        return rc == MPI_SUCCESS ? prog_wait(&req, MPI_STATUS_IGNORE) : rc;
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
