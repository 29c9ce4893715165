/* send: every send mode on a managed communicator.
 *
 * A message of at most omni.job.threshold bytes is copied into the buffer of
 * its next hop and the send is complete at once (standard, ready and buffered
 * modes: MPI allows a send to complete once its data is copied); the
 * program's request is HANDLE_SENT (request.h), Omnibus's own callers get a
 * real, already complete request of the MPI underneath.  A synchronous send's
 * item asks for an ACK, and its request completes when the ACK comes back,
 * that is, once a receive has matched it.  A larger message sends a LARGE
 * header along the same route, then its payload straight to the destination on
 * the payload communicator under a tag of its own.  The request a user holds
 * for it is an Omnibus handle over that payload's request of the MPI
 * underneath (preq.h), so that MPI_Cancel cannot withdraw a payload whose
 * header has already left: the receiver would match the header and wait for
 * ever.  Omnibus's own callers take the request of the MPI underneath itself
 * (send_start_inner).
 */
#ifndef OMNIBUS_SEND_H
#define OMNIBUS_SEND_H

#include "shim/match/comm.h"
#include "shim/engine/send_mode.h"
#include "shim/progress/credit.h"
#include "shim/base/dtype.h"
#include "shim/engine/request.h"
#include "shim/transport/transport.h"

/* Starts a send; with req == NULL it is blocking and returns when complete.
 * *req is a request the user holds: MPI_Cancel never withdraws it.
 * send_start tries the common case inline (send_copy_small) and leaves
 * everything else to send_start_general, which decides it all anew. */
static inline int send_start(const void *buf, MPI_Count count,
                             MPI_Datatype dtype, int dest, int tag,
                             comm_rec *c, enum send_mode mode,
                             MPI_Request *req);
int send_start_general(const void *buf, MPI_Count count, MPI_Datatype dtype,
                       int dest, int tag, comm_rec *c, enum send_mode mode,
                       MPI_Request *req);

/* As send_start, for a request Omnibus itself completes (persistent and
 * combined operations): *req is always a request the MPI underneath knows. */
int send_start_inner(const void *buf, MPI_Count count, MPI_Datatype dtype,
                     int dest, int tag, comm_rec *c, enum send_mode mode,
                     MPI_Request *req);

/* As send_start_inner for a standard-mode send the caller waits for before
 * it returns to the program (MPI_Sendrecv's send half): past its pair's
 * window it goes to the MPI underneath as a blocking MPI_Send would (send.c,
 * send_past_window). */
int send_start_blocking_half(const void *buf, MPI_Count count,
                             MPI_Datatype dtype, int dest, int tag,
                             comm_rec *c, MPI_Request *req);

/* A synchronous send's ACK arrived. */
void send_sync_acked(uint32_t id);

/* Answers a synchronous send: its receive has matched. */
void send_ack(uint32_t src_world, uint32_t id);

/* Registers the progress poller that frees the buffered-send payloads
 * the MPI underneath has finished sending (omni.eng.bsend_poller). */
void send_add_poller(void);

int send_init(void);
void send_finalize(void);

/* Whether MPI accepts a send's count, destination and tag on c (not
 * MPI_PROC_NULL, which callers take first). */
static inline int send_args_valid(MPI_Count count, int dest, int tag,
                                  const comm_rec *c)
{
    return count >= 0 && tag >= 0 && tag <= omni.job.tag_ub && dest >= 0 &&
           dest < c->size;
}

/* The header of an item of `bytes` bytes of data from this rank, at `at`. */
static inline void send_item_hdr_write(char *at, uint32_t bytes, int dst,
                                       int tag, const comm_rec *c,
                                       uint32_t meta)
{
    rt_item_hdr h = {.dst = (uint32_t)dst, .src = (uint32_t)omni.job.rank,
                     .comm = c->id, .tag = tag, .len = bytes, .meta = meta};
    rt_hdr_write(at, &h);
}

/* An eager item of a builtin datatype, header and `bytes` of data, written
 * at `at`. */
static inline void send_item_write_builtin(char *at, const void *buf,
                                           uint32_t bytes, int dst, int tag,
                                           const comm_rec *c, uint32_t meta)
{
    send_item_hdr_write(at, bytes, dst, tag, c, meta);
    transport_copy(at + RT_HDR_SIZE, buf, bytes);
}

/* The size of send_copy_small's item, header included, with the world
 * rank it goes to in *dst: a standard-mode message of a builtin datatype,
 * at most the threshold, with valid arguments, that fits its pair's
 * window (not yet taken); 0 for any other send. */
static inline __attribute__((always_inline)) uint32_t
send_small_item(MPI_Count count, MPI_Datatype dtype, int dest, int tag,
                const comm_rec *c, int *dst)
{
    int builtin = dtype_builtin_size(dtype);
    if (!builtin || !send_args_valid(count, dest, tag, c))
        return 0;
    MPI_Count bytes = builtin * count;
    if ((size_t)bytes > omni.job.threshold)
        return 0;
    *dst = comm_to_world(c, dest);
    uint32_t size = RT_HDR_SIZE + (uint32_t)bytes;
    return credit_fits(*dst, size) ? size : 0;
}

/* Writes send_small_item's item of `size` bytes at `at`, reserved in its
 * next hop's buffer, its window already taken, and counts the send. */
static inline __attribute__((always_inline)) void
send_small_put(char *at, const void *buf, uint32_t size, int dst, int tag,
               const comm_rec *c)
{
    send_item_write_builtin(at, buf, size - RT_HDR_SIZE, dst, tag, c,
                            rt_meta(RT_EAGER, 0));
    omni.eng.sent_to[dst]++;
}

/* The common small send, whole: a standard-mode message of a builtin
 * datatype, at most the threshold, with valid arguments, whose item fits
 * its pair's window.  Copied into its next hop's buffer (a new one, or
 * after the full one has shipped), it is complete (send.c's contract).
 * Returns 0 having done nothing for anything else, a full window included.
 * Inline in the entry points, it spares a small send the frame of the
 * general path, which every mode and size shares; a ping-pong's sends,
 * each of which finds no buffer filling, took that path for 80
 * instructions more when only an item that fit a filling buffer came
 * here. */
static inline __attribute__((always_inline)) int
send_copy_small(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
                int tag, comm_rec *c)
{
    int dst;
    uint32_t size = send_small_item(count, dtype, dest, tag, c, &dst);
    if (!size)
        return 0;
    credit_take(dst, size);
    send_small_put(transport_reserve(dst, size), buf, size, dst, tag, c);
    return 1;
}

static inline __attribute__((always_inline)) int
send_start(const void *buf, MPI_Count count, MPI_Datatype dtype, int dest,
           int tag, comm_rec *c, enum send_mode mode, MPI_Request *req)
{
    if (mode == SEND_STANDARD &&
        send_copy_small(buf, count, dtype, dest, tag, c))
        return req ? request_give_sent(req) : MPI_SUCCESS;
    return send_start_general(buf, count, dtype, dest, tag, c, mode, req);
}

/* send_copy_small's item of `size` bytes towards world rank dst, written
 * into a buffer that opens (or after the full one ships) for it: its
 * window is checked, not yet taken.  Out of line, so that send_fast keeps
 * no frame.  Returns MPI_SUCCESS. */
int send_small_opening(const void *buf, uint32_t size, int dst, int tag,
                       comm_rec *c);

/* MPI_Send's fast function (wrappers.tbl, "fast"), run while Omnibus is
 * on and unlocked: send_copy_small's case, on the communicator last looked
 * up, whose item fits the buffer already filling, is done here whole with
 * no call at all; one that needs a buffer opened goes to
 * send_small_opening by a tail call, and anything else to the whole
 * wrapper, `whole`.  So a streamed send pays neither the whole wrapper's
 * checks of the lock and of Omnibus being on nor the frame the general
 * path's calls would need: the registers its six arguments leave are
 * enough when nothing is called. */
typedef int send_whole_fn(const void *, int, MPI_Datatype, int, int,
                          MPI_Comm);

static inline __attribute__((always_inline)) int
send_fast(const void *buf, int count, MPI_Datatype dtype, int dest, int tag,
          MPI_Comm comm, send_whole_fn *whole)
{
    comm_rec *c = comm_last(comm);
    int dst;
    uint32_t size = c ? send_small_item(count, dtype, dest, tag, c, &dst) : 0;
    if (!size)
        return whole(buf, count, dtype, dest, tag, comm);
    char *at = transport_reserve_in_fill(dst, size);
    if (!at)
        return send_small_opening(buf, size, dst, tag, c);
    credit_take(dst, size);
    send_small_put(at, buf, size, dst, tag, c);
    return MPI_SUCCESS;
}

/* MPI_Buffer_attach and _detach, called by the generated wrappers. */
int impl_Buffer_attach(void *buffer, MPI_Count size);
int impl_Buffer_detach(void *buffer_addr, int *size);
int impl_Buffer_detach_c(void *buffer_addr, MPI_Count *size);

#endif
