/* The wire half of calib.h: where a blocking send to a rank reached
 * through the MPI underneath stops going alone in a block of its own
 * (wire_alone_max), timed by one pair of ranks at MPI_Init, and the
 * largest message the MPI underneath sends at once (wire_piece), probed by
 * the same pair first (docs/design/transport.md, Choosing a path by
 * measurement, Blocks in pieces).
 *
 * A message alone in a block is copied into it, travels as one message of
 * the MPI underneath into a posted receive, and is copied out.  Apart, it
 * travels with no copy of Omnibus's: without a header, found by the
 * receiver's matched probe (shim/engine/envelope.h), or, where envelopes
 * cannot be used, after a header of its own.  Which costs less, and from
 * which size, is the network's and the machine's; the pair times it only
 * where the MPI underneath talks through a network
 * (wire_pair_shares_memory says why not elsewhere). */
#include "shim/transport/calib.h"
#include "shim/base/fail.h"
#include "shim/base/state.h"
#include "shim/mpi/hint.h"
#include "shim/transport/transport.h"
#include "router/envelope.h"
#include "router/paths.h"
#include "router/wire.h"
#include <string.h>
#include <sys/mman.h>

/* The sizes timed: those above the threshold that fit a block with an
 * item header and TRANSPORT_WIRE_TRIAL_MAX (wire_size_open). */
static const uint32_t wire_sizes[] = {8192, 16384, 32768, 65536};
#define WIRE_NSIZES ((int)(sizeof wire_sizes / sizeof wire_sizes[0]))
/* Round trips timed per size and path, the paths taking turns, as in
 * calib.c. */
#define WIRE_TRIPS 9
/* Untimed round trips before the first timed one (calib.c's warm-up):
 * fewer than through a node's MPI, since a round trip over a network can
 * take 100 us, and the budget would go on them. */
#define WIRE_WARMUP 32
#define WIRE_WARM_TRIPS 2
/* The longest the timing may take before it leaves the sizes left
 * unmeasured. */
#define WIRE_BUDGET_NS ((uint64_t)20000000)
enum { WIRE_TAG_BLOCK = 1, WIRE_TAG_APART, WIRE_TAG_GO, WIRE_TAG_PROBE };
/* The sizes probed for the piece, each a power of two less this much: the
 * MPI underneath's own limits are often a power of two that holds its own
 * header too (UCX's TCP segments of 8 KiB, with a size of 8000 bytes sent
 * at once and 8192 not, on an AMD EPYC VM). */
static const uint32_t piece_sizes[] = {4096, 8192, 16384, 32768, 65536};
#define PIECE_NSIZES ((int)(sizeof piece_sizes / sizeof piece_sizes[0]))
#define PIECE_SLACK 256u
/* How long a probe's send may take to complete before its receive is
 * posted and still count as eager: an eager send completes as soon as the
 * MPI underneath has copied it out, a rendezvous never before the
 * receive. */
#define CALIB_EAGER_NS ((uint64_t)200000)

/* The timing's two ends, on a communicator of their own (rank 0 leads)
 * so that nothing of the job's can match its messages.  As the transport
 * does, each end keeps a receive for a block posted (rx), and a block
 * leaves by a nonblocking send that the next block waits for (tx). */
typedef struct {
    MPI_Comm comm;
    int other;    /* the other end's rank in comm */
    int leads;
    int envelope; /* apart is without a header; else header and payload */
    uint32_t piece; /* a block alone larger than this goes in pieces (0:
                       never), as transport_in_pieces sends it */
    char *user_out, *user_in, *block_out, *head, *joined, *block_in;
    MPI_Request tx, rx;
} wire_pair;

/* Whether a message of len bytes can go either way, above the threshold
 * and within a block with its item header, and may be timed alone. */
static int wire_size_open(uint32_t len)
{
    return len > omni.job.threshold &&
           len + RT_HDR_SIZE <= omni.job.block_cap &&
           len <= TRANSPORT_WIRE_TRIAL_MAX;
}

static void wire_post_block(wire_pair *p)
{
    PMPI_Irecv(p->block_in, (int)omni.job.block_cap, MPI_BYTE, MPI_ANY_SOURCE,
               WIRE_TAG_BLOCK, p->comm, &p->rx);
}

/* The block of `bytes` at p->block_out leaves in pieces, as the
 * transport's wire_send_pieces sends it: a head (a PIECES header and the
 * block's first bytes, copied), then the rest where it lies. */
static void wire_ship_pieces(wire_pair *p, uint32_t bytes)
{
    rt_item_hdr h = rt_pieces_head((uint32_t)p->other, 0, bytes, p->piece);
    rt_hdr_write(p->head, &h);
    memcpy(p->head + RT_HDR_SIZE, p->block_out, h.len);
    PMPI_Isend(p->head, (int)p->piece, MPI_BYTE, p->other, WIRE_TAG_BLOCK,
               p->comm, &p->tx);
    for (uint32_t at = h.len; at < bytes; at += p->piece)
        PMPI_Send(p->block_out + at,
                  (int)(bytes - at < p->piece ? bytes - at : p->piece),
                  MPI_BYTE, p->other, WIRE_TAG_BLOCK, p->comm);
}

/* A block of `bytes` leaves, once the previous one has; the first `len`
 * bytes past its item header are the program's, copied in. */
static void wire_ship_block(wire_pair *p, uint32_t bytes, uint32_t len)
{
    PMPI_Wait(&p->tx, MPI_STATUS_IGNORE);
    transport_copy_uncounted(p->block_out + RT_HDR_SIZE, p->user_out, len);
    if (p->piece > RT_HDR_SIZE && bytes > p->piece) {
        wire_ship_pieces(p, bytes);
        return;
    }
    PMPI_Isend(p->block_out, (int)bytes, MPI_BYTE, p->other, WIRE_TAG_BLOCK,
               p->comm, &p->tx);
}

/* The block whose head just arrived in p->block_in, put together in
 * p->joined from its pieces as the transport's rx_joined does: each piece
 * is received into the block receive's buffer and copied on. */
static const char *wire_join_pieces(wire_pair *p, const rt_item_hdr *h)
{
    uint32_t at = h->len;
    memcpy(p->joined, p->block_in + RT_HDR_SIZE, at);
    for (uint32_t k = rt_meta_value(h->meta); k > 0; k--) {
        MPI_Status st;
        int got = 0;
        PMPI_Recv(p->block_in, (int)omni.job.block_cap, MPI_BYTE, p->other,
                  WIRE_TAG_BLOCK, p->comm, &st);
        PMPI_Get_count(&st, MPI_BYTE, &got);
        memcpy(p->joined + at, p->block_in, (size_t)got);
        at += (uint32_t)got;
    }
    return p->joined;
}

/* The next block has arrived (whole, or in pieces): its first `len` bytes
 * past the item header are copied out, and the receive is posted again. */
static void wire_take_block(wire_pair *p, uint32_t len)
{
    PMPI_Wait(&p->rx, MPI_STATUS_IGNORE);
    const char *block = p->block_in;
    rt_item_hdr h;
    rt_hdr_read(block, &h);
    if (rt_meta_kind(h.meta) == RT_PIECES)
        block = wire_join_pieces(p, &h);
    transport_copy_uncounted(p->user_in, block + RT_HDR_SIZE, len);
    wire_post_block(p);
}

/* A blocking send of len bytes: alone in a block, or apart, as the
 * program's own message (without a header, or after a header in a
 * block), which the blocking send waits for. */
static void wire_send(wire_pair *p, uint32_t len, int alone)
{
    if (alone) {
        wire_ship_block(p, len + RT_HDR_SIZE, len);
        return;
    }
    if (!p->envelope)
        wire_ship_block(p, 2 * RT_HDR_SIZE, 0);
    PMPI_Send(p->user_out, (int)len, MPI_BYTE, p->other, WIRE_TAG_APART,
              p->comm);
}

static void wire_recv(wire_pair *p, uint32_t len, int alone)
{
    if (alone) {
        wire_take_block(p, len);
    } else if (p->envelope) {
        MPI_Message m;
        int found = 0;
        while (!found)
            PMPI_Improbe(p->other, WIRE_TAG_APART, p->comm, &found, &m,
                         MPI_STATUS_IGNORE);
        PMPI_Mrecv(p->user_in, (int)len, MPI_BYTE, &m, MPI_STATUS_IGNORE);
    } else {
        wire_take_block(p, 0);
        PMPI_Recv(p->user_in, (int)len, MPI_BYTE, p->other, WIRE_TAG_APART,
                  p->comm, MPI_STATUS_IGNORE);
    }
}

/* `trips` round trips of `len` bytes by one path, the leader sending
 * first; their time in ns. */
static uint64_t wire_trips(wire_pair *p, uint32_t len, int alone, int trips)
{
    uint64_t t0 = omni_now_ns();
    for (int turn = 0; turn < 2 * trips; turn++) {
        if ((turn % 2 == 0) == (p->leads != 0))
            wire_send(p, len, alone);
        else
            wire_recv(p, len, alone);
    }
    return omni_now_ns() - t0;
}

/* The leader's word (`go`), which the other end takes. */
static int wire_both_go(wire_pair *p, int go)
{
    if (p->leads)
        PMPI_Send(&go, 1, MPI_INT, p->other, WIRE_TAG_GO, p->comm);
    else
        PMPI_Recv(&go, 1, MPI_INT, p->other, WIRE_TAG_GO, p->comm,
                  MPI_STATUS_IGNORE);
    return go;
}

/* The largest message timed alone, with its item header; 0 when none is
 * open (wire_size_open). */
static uint32_t wire_largest_block(void)
{
    uint32_t largest = 0;
    for (int i = 0; i < WIRE_NSIZES; i++)
        if (wire_size_open(wire_sizes[i]))
            largest = wire_sizes[i] + RT_HDR_SIZE;
    return largest;
}

/* Whether the MPI underneath's standard send of `len` bytes from the
 * leader completes before its receive is posted (0) or waits for it (1),
 * as calib.c's under_waits finds it through a node's ring, told here by a
 * word through the MPI underneath; both ends return the leader's finding. */
static int wire_waits(wire_pair *p, uint32_t len)
{
    if (!p->leads) {
        int waits = wire_both_go(p, 0);
        PMPI_Recv(p->user_in, (int)len, MPI_BYTE, p->other, WIRE_TAG_PROBE,
                  p->comm, MPI_STATUS_IGNORE);
        return waits;
    }
    MPI_Request req;
    PMPI_Isend(p->user_out, (int)len, MPI_BYTE, p->other, WIRE_TAG_PROBE,
               p->comm, &req);
    int done = calib_sent_at_once(&req);
    wire_both_go(p, !done);
    if (!done)
        PMPI_Wait(&req, MPI_STATUS_IGNORE);
    return !done;
}

/* The piece (pa_piece) from a probe of each size below the largest block
 * timed, smallest first, up to the first that waits: a size larger than
 * that block would never be a piece of one. */
static pa_choice wire_probe_piece(wire_pair *p)
{
    uint64_t sizes[PIECE_NSIZES];
    int waits[PIECE_NSIZES], n = 0, going = 1;
    uint32_t largest = wire_largest_block();
    for (int i = 0; i < PIECE_NSIZES; i++) {
        uint32_t len = piece_sizes[i] - PIECE_SLACK;
        if (len >= largest || len > omni.job.block_cap)
            break;
        sizes[n] = len;
        going = wire_both_go(p, going);
        waits[n] = going ? wire_waits(p, len) : -1;
        going = going && !waits[n];
        n++;
    }
    return pa_piece(sizes, waits, n);
}

/* Both paths' one-way times at each open size (wire_size_open), the
 * paths taking turns; 0 where pa_cost finds the trips disagree or the
 * budget left the size unmeasured. */
static void wire_costs(wire_pair *p, pa_table *t)
{
    uint64_t t0 = omni_now_ns();
    memset(t, 0, sizeof *t);
    for (int i = 0; i < WIRE_NSIZES; i++) {
        uint32_t len = wire_sizes[i];
        if (!wire_size_open(len))
            continue;
        int k = t->nsizes++;
        t->size[k] = len;
        if (!wire_both_go(p, omni_now_ns() - t0 < WIRE_BUDGET_NS))
            continue;
        uint64_t a[WIRE_TRIPS], b[WIRE_TRIPS];
        wire_trips(p, len, 1, WIRE_WARM_TRIPS);
        wire_trips(p, len, 0, WIRE_WARM_TRIPS);
        for (int j = 0; j < WIRE_TRIPS; j++) {
            a[j] = wire_trips(p, len, 1, 1);
            b[j] = wire_trips(p, len, 0, 1);
        }
        t->cost[k][PA_ALONE] = pa_cost(a, WIRE_TRIPS) / 2;
        t->cost[k][PA_APART] = pa_cost(b, WIRE_TRIPS) / 2;
    }
}

/* World rank 0's partner: the first rank it reaches through the MPI
 * underneath (any other rank without node rings, else the first rank of
 * another node), or -1; the same on every rank. */
static int wire_partner(void)
{
    int partner = -1;
    for (int r = 1; omni.job.rank == 0 && r < omni.job.size && partner < 0;
         r++)
        if (omni.tx.ring_comm == MPI_COMM_NULL || omni.job.off_node[r])
            partner = r;
    PMPI_Bcast(&partner, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return partner;
}

/* Whether the pair on `comm` runs on one node and its MPI talks through
 * shared memory there (a pair OMNIBUS_FAKE_NODES put on two nodes, or
 * OMNIBUS_SHM=off).  The MPI underneath then copies a message apart from
 * one process's buffer into the other's, at a speed that can depend on
 * where the two buffers lie in their pages, which a start-up timing cannot
 * know.  On an AMD EPYC VM a 32 KiB ping-pong apart took 6.5 to 10 us in
 * some runs and 17.5 to 31 us in others (the kernel's copy 3.6% and 17%
 * of the samples), plain MPICH 5.6 to 9.1 in all; the program's two
 * buffers lay 896 bytes into their pages on both ranks under plain MPICH,
 * and 1712 or 2320 bytes in, from run to run, under Omnibus, whose
 * start-up allocates before the program does.  Over a network the data
 * reach the receiver's buffer through the network, and a timing holds. */
static int wire_pair_shares_memory(MPI_Comm comm)
{
    MPI_Comm node;
    int n = 0;
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    PMPI_Comm_size(node, &n);
    PMPI_Comm_free(&node);
    return n > 1 && !omni_transport_is_network();
}

/* The pair's six buffers, mapped (not taken from malloc, for the reason
 * calib.c gives), each from a page of its own, so that the copies are made
 * at the distance an item header makes, as the transport's are; the block
 * receive's as large as a block, as the transport's are (the MPI
 * underneath may take longer to fill a receive larger than its message),
 * and the others as large as the largest block timed, which holds any
 * piece of it and any size probed.  Returns the bytes mapped from
 * p->user_out. */
static size_t wire_map(wire_pair *p)
{
    size_t page = 4096, each = (wire_largest_block() + page - 1) / page * page;
    size_t bytes = 5 * each + (omni.job.block_cap + page - 1) / page * page;
    char *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        omni_out_of_memory("the start-up timing of the paths");
    memset(mem, 1, 6 * each);
    p->user_out = mem;
    p->user_in = mem + each;
    p->block_out = mem + 2 * each;
    p->head = mem + 3 * each;
    p->joined = mem + 4 * each;
    p->block_in = mem + 5 * each;
    return bytes;
}

/* The crossover the pair on `comm` finds, on its leader; dflt
 * (PA_DEFAULT) on the other end, and on both when either end's node is
 * crowded (its round trips would time the scheduler) or the pair shares
 * memory.  *piece as calib_wire_alone says, on both ends.  Untimed trips
 * through the MPI underneath go first, before the probe too: its first
 * messages of a pair cost several times the later ones (calib.c), and
 * one not yet connected could wait where a later one would not. */
static pa_choice wire_pair_measure(MPI_Comm comm, int crowded, uint64_t dflt,
                                   pa_choice *piece)
{
    int me;
    PMPI_Comm_rank(comm, &me);
    wire_pair p = {.comm = comm,
                   .other = 1 - me,
                   .leads = me == 0,
                   .envelope = calib_apart_is_bare(),
                   .tx = MPI_REQUEST_NULL,
                   .rx = MPI_REQUEST_NULL};
    pa_choice c = {dflt, PA_DEFAULT};
    int other_crowded = 0;
    PMPI_Sendrecv(&crowded, 1, MPI_INT, p.other, WIRE_TAG_GO,
                  &other_crowded, 1, MPI_INT, p.other, WIRE_TAG_GO, comm,
                  MPI_STATUS_IGNORE);
    if (crowded || other_crowded || wire_pair_shares_memory(comm))
        return c;
    size_t bytes = wire_map(&p);
    wire_post_block(&p);
    for (int i = 0; i < WIRE_NSIZES; i++)
        if (wire_size_open(wire_sizes[i])) {
            wire_trips(&p, wire_sizes[i], 0, WIRE_WARMUP);
            break;
        }
    if (piece->source != PA_SET)
        *piece = wire_probe_piece(&p);
    p.piece = (uint32_t)piece->from;
    pa_table t;
    wire_costs(&p, &t);
    PMPI_Cancel(&p.rx);
    PMPI_Wait(&p.rx, MPI_STATUS_IGNORE);
    PMPI_Wait(&p.tx, MPI_STATUS_IGNORE);
    if (p.leads)
        c = pa_crossover(&t, PA_ALONE, PA_APART, dflt);
    munmap(p.user_out, bytes);
    return c;
}

int calib_sent_at_once(MPI_Request *req)
{
    int done = 0;
    uint64_t t0 = omni_now_ns();
    while (!done && omni_now_ns() - t0 < CALIB_EAGER_NS)
        PMPI_Test(req, &done, MPI_STATUS_IGNORE);
    return done;
}

int calib_apart_is_bare(void)
{
    return omni.job.cfg.envelopes != CFG_ENVELOPES_OFF &&
           ev_layout_for(omni.job.tag_ub).ok;
}

pa_choice calib_wire_alone(int crowded, uint64_t dflt, pa_choice *piece)
{
    pa_choice c = {dflt, PA_DEFAULT};
    int any_open = 0;
    for (int i = 0; i < WIRE_NSIZES; i++)
        any_open |= wire_size_open(wire_sizes[i]);
    int partner = any_open ? wire_partner() : -1;
    if (partner < 0)
        return c;
    /* The pair's communicator is made by the pair alone: a split of the
     * world would be a collective over every rank of a large job. */
    if (omni.job.rank == 0 || omni.job.rank == partner) {
        int ends[2] = {0, partner};
        MPI_Group world, two;
        MPI_Comm pair;
        PMPI_Comm_group(MPI_COMM_WORLD, &world);
        PMPI_Group_incl(world, 2, ends, &two);
        PMPI_Comm_create_group(MPI_COMM_WORLD, two, WIRE_TAG_GO, &pair);
        PMPI_Group_free(&two);
        PMPI_Group_free(&world);
        c = wire_pair_measure(pair, crowded, dflt, piece);
        PMPI_Comm_free(&pair);
    }
    long found[4] = {(long)c.from, (long)c.source, (long)piece->from,
                     (long)piece->source};
    PMPI_Bcast(found, 4, MPI_LONG, 0, MPI_COMM_WORLD);
    *piece = (pa_choice){(uint64_t)found[2], (enum pa_source)found[3]};
    return (pa_choice){(uint64_t)found[0], (enum pa_source)found[1]};
}
