#include "shim/ops/nbr_exec.h"
#include "shim/engine/send.h"
#include "shim/engine/recv.h"
#include "shim/progress/progress.h"
#include "shim/progress/greq.h"
#include "shim/base/dtype.h"
#include "shim/base/grow.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"
#include <stdlib.h>
#include <string.h>

/* --- operations and their memory ---------------------------------------- */

static void *op_array(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        omni_out_of_memory("a neighbourhood collective");
    return p;
}

nbr_op *nbr_op_get(nbr_topo *t)
{
    nbr_op *op = t->spare;
    t->refs++;
    if (op) {
        t->spare = op->next;
        return op;
    }
    const ns_plan *pl = &t->plan;
    size_t out = (size_t)t->outdeg, in = (size_t)t->indeg;
    size_t nr = (size_t)pl->nrecv, np = (size_t)pl->npiece;
    op = op_array(1, sizeof *op);
    op->t = t;
    op->s_off = op_array(out, sizeof *op->s_off);
    op->s_cnt = op_array(out, sizeof *op->s_cnt);
    op->s_type = op_array(out, sizeof *op->s_type);
    op->s_bytes = op_array(out, sizeof *op->s_bytes);
    op->r_off = op_array(in, sizeof *op->r_off);
    op->r_cnt = op_array(in, sizeof *op->r_cnt);
    op->r_type = op_array(in, sizeof *op->r_type);
    op->r_bytes = op_array(in, sizeof *op->r_bytes);
    op->rx = op_array(nr, sizeof *op->rx);
    op->held = op_array(nr, sizeof *op->held);
    op->rdata = op_array(nr, sizeof *op->rdata);
    op->lbuf = op_array(nr, sizeof *op->lbuf);
    op->rdone = op_array(nr, 1);
    op->poff = op_array(np, sizeof *op->poff);
    op->plen = op_array(np, sizeof *op->plen);
    op->sreq = op_array((size_t)pl->nsend, sizeof *op->sreq);
    op->swait = op_array((size_t)pl->nsend, sizeof *op->swait);
    op->hold = op_array(nr, sizeof *op->hold);
    return op;
}

static void op_release_extra(nbr_op *op)
{
    for (int i = 0; i < op->nextra; i++)
        free(op->extra[i]);
    op->nextra = 0;
}

static void op_free(nbr_op *op)
{
    op_release_extra(op);
    free(op->extra);
    free(op->arena);
    free(op->s_off), free(op->s_cnt), free(op->s_type), free(op->s_bytes);
    free(op->r_off), free(op->r_cnt), free(op->r_type), free(op->r_bytes);
    free(op->rx), free(op->held), free(op->rdata), free(op->lbuf);
    free(op->rdone), free(op->poff), free(op->plen), free(op->sreq);
    free(op->swait), free(op->hold), free(op->types_held);
    free(op);
}

void nbr_op_put(nbr_op *op)
{
    nbr_topo *t = op->t;
    op_release_extra(op);
    for (int i = 0; i < op->ntypes_held; i++)
        dtype_release(op->types_held[i]);
    op->ntypes_held = 0;
    op->next = t->spare;
    t->spare = op;
    nbr_topo_unref(t);
}

static void op_free_spares(nbr_topo *t)
{
    while (t->spare) {
        nbr_op *op = t->spare;
        t->spare = op->next;
        op_free(op);
    }
}

/* A topology lives while its communicator, persistent requests or running
 * operations refer to it; its spare operations and shadow record go with
 * it.  Here, beside the operations, so that putting one back never calls
 * up into the module that builds topologies. */
void nbr_topo_destroy(nbr_topo *t)
{
    op_free_spares(t);
    ns_plan_free(&t->plan);
    free(t->mirror);
    free(t->in);
    free(t->out);
    free(t);
}

void nbr_topo_unref(nbr_topo *t)
{
    if (--t->refs > 0)
        return;
    nbr_module *mod = omni.ops.nbr;
    for (nbr_topo **link = &mod->topos; *link; link = &(*link)->next)
        if (*link == t) {
            *link = t->next;
            break;
        }
    comm_drop_shadow(t->shadow);
    nbr_topo_destroy(t);
}

/* Room for a packed outgoing message, alive until the run ends.  The
 * arena grows between runs to what the last run needed, so a repeated
 * collective allocates nothing. */
static char *op_alloc(nbr_op *op, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    op->arena_want += n;
    if (op->arena_used + n <= op->arena_cap) {
        char *p = op->arena + op->arena_used;
        op->arena_used += n;
        return p;
    }
    op->extra = omni_grow(op->extra, op->nextra, &op->extra_cap,
                          sizeof *op->extra, 8, "a neighbourhood collective");
    char *p = malloc(n ? n : 1);
    if (!p)
        omni_out_of_memory("a neighbourhood collective");
    op->extra[op->nextra++] = p;
    return p;
}

/* --- sending -------------------------------------------------------------- */

static MPI_Count piece_len(const nbr_op *op, const ns_piece *pc)
{
    if (pc->from < 0)
        return op->s_bytes[pc->slot];
    const ns_msg *r = &op->t->plan.recv[pc->from];
    return op->plen[r->first + pc->at];
}

static void send_msg(nbr_op *op, int i)
{
    nbr_topo *t = op->t;
    const ns_msg *m = &t->plan.send[i];
    const ns_piece *pc = &t->plan.piece[m->first];
    MPI_Request req = MPI_REQUEST_NULL;
    int rc, tag = op->tag + m->phase;
    omni.stats.nbr_messages += m->peer != t->rank;
    if (m->count == 1 && pc->from < 0 && t->out[pc->slot] == m->peer) {
        int k = pc->slot;
        rc = send_start_inner(op->sbuf + op->s_off[k], op->s_cnt[k],
                              op->s_type[k], m->peer, tag, t->shadow,
                              SEND_STANDARD, &req);
    } else {
        MPI_Count head = op->variable ? 8 * (MPI_Count)m->count : 0;
        MPI_Count total = head;
        for (int q = 0; q < m->count; q++)
            total += piece_len(op, &pc[q]);
        char *buf = op_alloc(op, (size_t)total);
        MPI_Count pos = head;
        for (int q = 0; q < m->count; q++) {
            MPI_Count len = piece_len(op, &pc[q]);
            if (op->variable) {
                uint64_t l = (uint64_t)len;
                memcpy(buf + 8 * q, &l, sizeof l);
            }
            if (pc[q].from < 0) {
                int k = pc[q].slot;
                omni_Pack_c(op->sbuf + op->s_off[k], op->s_cnt[k],
                            op->s_type[k], buf, total, &pos, MPI_COMM_WORLD);
            } else {
                const ns_msg *r = &t->plan.recv[pc[q].from];
                memcpy(buf + pos,
                       op->rdata[pc[q].from] + op->poff[r->first + pc[q].at],
                       (size_t)len);
                pos += len;
            }
        }
        rc = send_start_inner(buf, total, MPI_BYTE, m->peer, tag, t->shadow,
                              SEND_STANDARD, &req);
    }
    if (rc != MPI_SUCCESS && op->error == MPI_SUCCESS)
        op->error = rc;
    if (req != MPI_REQUEST_NULL)
        op->sreq[op->nsreq++] = req;
}

/* --- receiving ------------------------------------------------------------ */

/* The source slot a piece whose plan slot is `at` lands in. */
static int slot_of(const nbr_op *op, int at)
{
    return op->reversed ? op->t->mirror[at] : at;
}

static void unpack_piece(nbr_op *op, int j, const char *data, MPI_Count len)
{
    MPI_Count cnt = op->r_cnt[j];
    if (len > op->r_bytes[j]) {
        op->error = MPI_ERR_TRUNCATE;
        return;
    }
    if (len < op->r_bytes[j])
        cnt = len / (op->r_bytes[j] / cnt);
    MPI_Count pos = 0;
    omni_Unpack_c(data, len, &pos, op->rbuf + op->r_off[j], cnt, op->r_type[j],
                  MPI_COMM_WORLD);
}

/* Received message i is no longer needed: every send relaying from it
 * has left. */
static void packed_release(nbr_op *op, int i)
{
    if (op->held[i]) {
        match_msg_free(op->held[i]);
        op->held[i] = NULL;
    }
    free(op->lbuf[i]);
    op->lbuf[i] = NULL;
    op->rdata[i] = NULL;
}

/* A packed message i is in: its pieces land, the sends waiting for it
 * alone leave, and it is let go once every send relaying from it has. */
static void packed_arrived(nbr_op *op, int i, const char *data, MPI_Count len)
{
    const ns_plan *pl = &op->t->plan;
    const ns_msg *m = &pl->recv[i];
    MPI_Count pos = op->variable ? 8 * (MPI_Count)m->count : 0;
    if (pos > len)
        op->error = MPI_ERR_TRUNCATE;
    for (int q = 0; q < m->count; q++) {
        const ns_piece *pc = &pl->piece[m->first + q];
        MPI_Count l;
        if (op->variable) {
            uint64_t v = 0;
            if (8 * (MPI_Count)m->count <= len)
                memcpy(&v, data + 8 * q, sizeof v);
            l = (MPI_Count)v;
        } else if (pc->at >= 0) {
            l = op->r_bytes[slot_of(op, pc->at)];
        } else {
            /* allgather, alltoall: a relayed piece has the size of every
             * piece (one type signature per collective) */
            l = op->piece_bytes;
        }
        if (pos + l > len) {
            op->error = MPI_ERR_TRUNCATE;
            l = 0;
        }
        op->poff[m->first + q] = pos;
        op->plen[m->first + q] = l;
        if (pc->at >= 0)
            unpack_piece(op, slot_of(op, pc->at), data + pos, l);
        pos += l;
    }
    if (pos < len)
        /* allgather, alltoall: longer than the pieces this side expects, so
         * a sender's signature is longer than the receiver's */
        op->error = MPI_ERR_TRUNCATE;
    op->rdata[i] = data;
    op->rdone[i] = 1;
    op->recv_left--;
    int sent = 0;
    for (int k = 0; k < m->nlink; k++) {
        int s = pl->link[m->link_first + k];
        if (--op->swait[s] > 0)
            continue;
        send_msg(op, s);
        op->sends_left--;
        sent = 1;
        const ns_msg *sm = &pl->send[s];
        for (int l = 0; l < sm->nlink; l++) {
            int r = pl->link[sm->link_first + l];
            if (--op->hold[r] == 0)
                packed_release(op, r);
        }
    }
    if (sent)
        prog_block_enter();
    if (m->nlink == 0)
        packed_release(op, i);
}

/* The receiving side of send_msg's test for the user's datatype: one
 * piece, the sender's own, for here.  (A lone relayed piece is packed.) */
static int is_direct_recv(const nbr_topo *t, const ns_msg *m)
{
    const ns_piece *pc = &t->plan.piece[m->first];
    return m->count == 1 && pc->at >= 0 && pc->origin == m->peer;
}

/* Takes packed message i from the shadow's unexpected queue if it is in. */
static void packed_poll(nbr_op *op, int i)
{
    nbr_topo *t = op->t;
    const ns_msg *m = &t->plan.recv[i];
    match_msg *mm = match_find_unexpected(t->shadow, m->peer,
                                          op->tag + m->phase, 1);
    if (!mm)
        return;
    if (rt_kind_is_eager(mm->kind)) {
        op->held[i] = mm;
        packed_arrived(op, i, mm->data, mm->bytes);
        return;
    }
    /* Longer than the threshold, or a rendezvous: its data comes on its
     * own, or is read from the sender (rndv.h). */
    op->lbuf[i] = malloc(mm->bytes > 0 ? (size_t)mm->bytes : 1);
    if (!op->lbuf[i])
        omni_out_of_memory("a neighbourhood collective");
    match_recv *r = match_recv_alloc();
    match_recv_init(r, op->lbuf[i], mm->bytes, MPI_BYTE, m->peer,
                    op->tag + m->phase, t->shadow, MPI_COMM_WORLD,
                    MPI_REQUEST_NULL);
    recv_take_message(r, mm);
    match_msg_free(mm);
    op->rx[i] = r;
}

static void recvs_poll(nbr_op *op)
{
    nbr_topo *t = op->t;
    for (int i = 0; i < t->plan.nrecv && op->recv_left; i++) {
        if (op->rdone[i])
            continue;
        match_recv *r = op->rx[i];
        if (!r) {
            if (t->shadow->unx_head)
                packed_poll(op, i);
            continue;
        }
        if (r->state != RECV_DONE)
            continue;
        if (r->error != MPI_SUCCESS)
            op->error = r->error;
        op->rx[i] = NULL;
        MPI_Count got = r->st_bytes;
        match_recv_free(r);
        if (op->lbuf[i]) {
            packed_arrived(op, i, op->lbuf[i], got);
        } else {
            op->rdone[i] = 1;
            op->recv_left--;
        }
    }
}

static int op_complete(nbr_op *op)
{
    if (op->recv_left || op->sends_left)
        return 0;
    if (op->nsreq) {
        int flag = 0;
        prog_testall(op->nsreq, op->sreq, &flag, MPI_STATUSES_IGNORE);
        if (!flag)
            return 0;
        op->nsreq = 0;
    }
    return 1;
}

static void op_finish(nbr_op *op)
{
    op->done = 1;
    if (op->arena_want > op->arena_cap) {
        free(op->arena);
        op->arena = NULL;
        op->arena_cap = 0;
        char *a = malloc(op->arena_want);
        if (a) {
            op->arena = a;
            op->arena_cap = op->arena_want;
        }
    }
    op_release_extra(op);
    MPI_Request g = op->greq;
    op->greq = MPI_REQUEST_NULL;
    op->done_greq = g;
    int orphan = op->orphan;
    /* query_fn will put the error in the ledger; free_fn forgets it */
    op->err_counted =
        op->error != MPI_SUCCESS && g != MPI_REQUEST_NULL && !orphan;
    if (op->err_counted)
        omni.ops.err_pending++;
    if (g != MPI_REQUEST_NULL)
        PMPI_Grequest_complete(g);
    if (orphan)
        nbr_op_put(op);
}

/* Returns whether any operation is still in flight. */
static int nbr_poll(void)
{
    if (!nbr_busy())
        return 0;
    nbr_module *mod = omni.ops.nbr;
    if (mod->polling)
        return 1;
    mod->polling = 1;
    nbr_op **link = &mod->active;
    while (*link) {
        nbr_op *op = *link;
        if (op->recv_left)
            recvs_poll(op);
        if (op_complete(op)) {
            *link = op->next;
            op_finish(op);
        } else {
            link = &op->next;
        }
    }
    mod->polling = 0;
    return nbr_busy();
}

/* --- starting and waiting ----------------------------------------------- */

int nbr_op_start(nbr_op *op, MPI_Request *request)
{
    nbr_topo *t = op->t;
    const ns_plan *pl = &t->plan;
    op->done = 0;
    op->orphan = 0;
    op->error = MPI_SUCCESS;
    op->err_counted = 0;
    op->nsreq = 0;
    op->arena_used = 0;
    op->arena_want = 0;
    op->greq = MPI_REQUEST_NULL;
    op->recv_left = pl->nrecv;
    op->sends_left = 0;
    omni.stats.nbr_collectives++;
    for (int i = 0; i < pl->nrecv; i++) {
        const ns_msg *m = &pl->recv[i];
        op->rdone[i] = 0;
        op->rx[i] = NULL;
        op->hold[i] = m->nlink;
        if (!is_direct_recv(t, m))
            continue;
        int j = slot_of(op, pl->piece[m->first].at);
        match_recv *r = match_recv_alloc();
        match_recv_init(r, op->rbuf + op->r_off[j], op->r_cnt[j],
                        op->r_type[j], m->peer, op->tag + m->phase, t->shadow,
                        MPI_COMM_WORLD, MPI_REQUEST_NULL);
        recv_start(r);
        op->rx[i] = r;
    }
    for (int i = 0; i < pl->nsend; i++) {
        op->swait[i] = pl->send[i].nlink;
        if (op->swait[i] == 0)
            send_msg(op, i);
        else
            op->sends_left++;
    }
    if (pl->nsend)
        prog_block_enter();
    if (request) {
        omni_gclass_start(omni.ops.nbr->cls, op, &op->greq);
        *request = op->greq;
    }
    /* What is already here (self-sends, early arrivals) is taken now. */
    recvs_poll(op);
    if (op_complete(op)) {
        op_finish(op);
        return MPI_SUCCESS;
    }
    op->next = omni.ops.nbr->active;
    omni.ops.nbr->active = op;
    prog_has_work(omni.ops.nbr_poller);
    return MPI_SUCCESS;
}

int nbr_op_wait(nbr_op *op)
{
    unsigned spins = 0;
    while (!op->done)
        prog_wait_step(&spins);
    return op->error;
}

/* --- generalized-request callbacks ------------------------------------- */

/* As recv.c's receives: an error goes to the ledger, which the Wait or
 * Test raises on the communicator (Waitall: MPI_ERR_IN_STATUS). */
static int op_query(void *extra, MPI_Status *st)
{
    nbr_op *op = extra;
    status_fill(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
    st->MPI_ERROR = MPI_SUCCESS;
    if (op->err_counted)
        greq_ledger_add(op->done_greq,
                        op->t->user != MPI_COMM_NULL ? op->t->user
                                                     : MPI_COMM_WORLD,
                        op->error);
    return MPI_SUCCESS;
}

/* A persistent run's request goes, the operation stays with the
 * persistent request; a nonblocking one's operation goes with it, or once
 * finished when freed early (erroneous for a collective, but harmless). */
static int op_free_fn(void *extra)
{
    nbr_op *op = extra;
    if (op->err_counted) {
        omni.ops.err_pending--;
        op->err_counted = 0;
    }
    if (op->persistent)
        return MPI_SUCCESS;
    if (op->done)
        nbr_op_put(op);
    else
        op->orphan = 1;
    return MPI_SUCCESS;
}

static int op_wait_fn(int n, void **states, double timeout, MPI_Status *st)
{
    (void)timeout;
    (void)st;
    for (int i = 0; i < n; i++)
        nbr_op_wait(states[i]);
    return MPI_SUCCESS;
}

int nbr_exec_init(nbr_module *m)
{
    return greq_class_create(op_query, op_free_fn, op_wait_fn, &m->cls);
}

void nbr_add_poller(void)
{
    omni.ops.nbr_poller = prog_add_poller(nbr_poll, 1);
}
