/* recv: receives, probes and delivery of arrived messages.
 *
 * recv_arrived() is the single door through which an item addressed to this
 * rank enters the matching engine: it goes to the oldest matching posted
 * receive or, failing that, to the unexpected queue (match.h).  A receive
 * completes when its data is in the user's buffer: at once for an eager
 * message, after the payload's own PMPI_Irecv for a large one.  A receive
 * with a request handle is then left for the completion calls to find
 * (request.h); one the program already freed goes at once.
 */
#ifndef OMNIBUS_RECV_H
#define OMNIBUS_RECV_H

#include "shim/match/comm.h"
#include "shim/match/match.h"
#include "shim/engine/request.h"

/* The receiving side's own state (receives awaiting rendezvous data). */
void recv_init(void);
void recv_finalize(void);

void recv_arrived(const rt_item_hdr *h, const char *body, omni_block *b);
/* recv_arrived for a plain eager item at `at` in block b, with header h:
 * on a communicator with no receive posted it is queued with the plain
 * eager items for the same communicator after it, as one run (match.h,
 * Runs).  Returns the bytes of b it took and sets *items to their
 * number. */
size_t recv_arrived_eager(const rt_item_hdr *h, const char *at,
                          omni_block *b, uint32_t *items);
/* As recv_arrived, without a block (deliver_in_place): only a message that
 * a posted receive takes at once, or that a freed communicator drops, is
 * handled; for any other it returns 0 having done nothing. */
int recv_arrived_if_taken(const rt_item_hdr *h, const char *body);

/* The data of the rendezvous message that receive `id` (from its CTS)
 * waits for arrived: the receive completes. */
void recv_rndv_data(uint32_t id, const char *data, uint32_t bytes);

/* Registers the progress poller that tests pending large-payload receives
 * and completes those that are done (omni.eng.payload_poller). */
void recv_add_poller(void);

/* Starts a receive into r (already filled with buffer, source, tag, comm and
 * req): takes a matching unexpected message or posts r. */
void recv_start(match_recv *r);

/* r takes message m, which is in no queue any more (the caller frees m). */
void recv_take_message(match_recv *r, match_msg *m);

/* Blocks (driving progress) until r is complete. */
void recv_wait(match_recv *r);

/* The common case of a fine-grained stream, taken without the general
 * matching path: the oldest unexpected message is an eager one that this
 * receive matches and that fits a builtin type's buffer.  Returns it,
 * still queued (the caller reads it and then calls match_head_received),
 * or NULL for anything else (another message first, a derived type, a
 * large or synchronous message), which goes the general way. */
static inline match_msg *recv_head_fits(comm_rec *c, MPI_Count count,
                                        MPI_Datatype dtype, int source,
                                        int tag)
{
    match_msg *m = c->unx_head;
    int esize = dtype_builtin_size(dtype);
    if (!m || m->kind != RT_EAGER || !esize ||
        !match_fits(source, tag, m->src, m->tag) || m->bytes > esize * count ||
        tag > omni.job.tag_ub || count < 0)
        return NULL;
    return m;
}

/* Takes m, which recv_head_fits found, into buf: the whole of MPI_Recv
 * then.  Returns MPI_SUCCESS. */
int recv_take_head(comm_rec *c, match_msg *m, void *buf, MPI_Status *status);

/* MPI_Recv, whole, when recv_head_fits finds its message; 0 otherwise. */
static inline int recv_from_head(comm_rec *c, void *buf, MPI_Count count,
                                 MPI_Datatype dtype, int source, int tag,
                                 MPI_Status *status)
{
    match_msg *m = recv_head_fits(c, count, dtype, source, tag);
    if (!m)
        return 0;
    recv_take_head(c, m, buf, status);
    return 1;
}

/* MPI_Recv in every other case (c NULL: a communicator Omnibus does not
 * manage). */
int recv_general(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                 int tag, comm_rec *c, MPI_Comm comm, MPI_Status *status);

/* MPI_Recv's fast function (wrappers.tbl, "fast"), run while Omnibus is
 * on and unlocked: a message at the head of the queue is taken by a tail
 * call of recv_take_head; any other receive on the communicator goes to
 * recv_general, and one on a communicator not last looked up to the whole
 * wrapper, `whole`.  So a streamed receive skips the whole wrapper's
 * checks of the lock and of Omnibus being on, and its frame: the wrapper
 * keeps only the checks, and the taking, with four arguments, has the
 * registers the seven of MPI_Recv would leave it short of. */
typedef int recv_whole_fn(void *, int, MPI_Datatype, int, int, MPI_Comm,
                          MPI_Status *);

static inline __attribute__((always_inline)) int
recv_fast(void *buf, int count, MPI_Datatype dtype, int source, int tag,
          MPI_Comm comm, MPI_Status *status, recv_whole_fn *whole)
{
    comm_rec *c = comm_last(comm);
    if (!c)
        return whole(buf, count, dtype, source, tag, comm, status);
    match_msg *m = recv_head_fits(c, count, dtype, source, tag);
    if (m)
        return recv_take_head(c, m, buf, status);
    return recv_general(buf, count, dtype, source, tag, c, comm, status);
}

/* MPI_Recv: inline in the entry points, so that a message already
 * at the head of the queue costs no call of its own. */
static inline __attribute__((always_inline)) int
impl_Recv(void *buf, MPI_Count count, MPI_Datatype dtype, int source, int tag,
          MPI_Comm comm, MPI_Status *status)
{
    comm_rec *c = comm_lookup(comm);
    if (c && recv_from_head(c, buf, count, dtype, source, tag, status))
        return MPI_SUCCESS;
    return recv_general(buf, count, dtype, source, tag, c, comm, status);
}

/* MPI_Irecv's form of recv_from_head: the receive is done as it is
 * posted, so its record holds only its status (and no datatype
 * reference).  The taking is out of line (recv.c), so that an MPI_Irecv
 * that posts keeps a small frame. */
void irecv_take_head(comm_rec *c, match_msg *m, void *buf, MPI_Count count,
                     MPI_Datatype dtype, int source, int tag, MPI_Comm comm,
                     MPI_Request *request);
static inline int irecv_from_head(comm_rec *c, void *buf, MPI_Count count,
                                  MPI_Datatype dtype, int source, int tag,
                                  MPI_Comm comm, MPI_Request *request)
{
    match_msg *m = recv_head_fits(c, count, dtype, source, tag);
    if (!m)
        return 0;
    irecv_take_head(c, m, buf, count, dtype, source, tag, comm, request);
    return 1;
}

/* MPI_Irecv in every other case, as recv_general. */
int irecv_general(void *buf, MPI_Count count, MPI_Datatype dtype, int source,
                  int tag, comm_rec *c, MPI_Comm comm, MPI_Request *request);

/* MPI_Irecv, inline as impl_Recv is. */
static inline __attribute__((always_inline)) int
impl_Irecv(void *buf, MPI_Count count, MPI_Datatype dtype, int source, int tag,
           MPI_Comm comm, MPI_Request *request)
{
    comm_rec *c = comm_lookup(comm);
    if (c && irecv_from_head(c, buf, count, dtype, source, tag, comm, request))
        return MPI_SUCCESS;
    return irecv_general(buf, count, dtype, source, tag, c, comm, request);
}

/* The replace forms send the buffer's old content while receiving into it:
 * packs it into a new copy (the caller frees it), *packed bytes long.  On
 * failure the copy is NULL and the error is returned. */
int recv_pack_aside(const void *buf, MPI_Count count, MPI_Datatype dtype,
                    MPI_Comm comm, void **copy, MPI_Count *packed);

/* MPI calls recv.c implements (impl_Recv and impl_Irecv are inline above),
 * called by the generated wrappers. */
int impl_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int impl_Iprobe(int source, int tag, MPI_Comm comm, int *flag,
                MPI_Status *status);
int impl_Sendrecv(const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status);
int impl_Sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype dtype,
                          int dest, int sendtag, int source, int recvtag,
                          MPI_Comm comm, MPI_Status *status);

#endif
