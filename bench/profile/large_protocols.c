/* large_protocols: what each way Omnibus could carry one large message
 * through the MPI underneath costs, written in plain MPI with nothing of
 * Omnibus in it, so that a protocol's own price is seen apart from the
 * library's code (docs/design/transport.md, Messages above the threshold).
 *
 * Usage: mpiexec -n 2 large_protocols [-s bytes] [-n round trips]
 *                                     [-w warm-up round trips] [-p protocol]
 *                                     [-P piece bytes]
 *
 * A ping-pong shaped as osu_latency (one buffer per rank, a blocking send
 * then a blocking receive, rank 1 answering), timed over -n round trips
 * after -w of warm-up.  The protocols, each a stand-in for a design:
 *   plain       MPI_Send into a receive posted before the message arrives
 *               (MPI_Recv): plain MPI, the figure to reach
 *   probe       the receiver learns of the message from its envelope
 *               (MPI_Improbe, polled) and only then receives it into the
 *               user's buffer (MPI_Mrecv): a design in which the payload
 *               carries its matching information in its envelope and the
 *               library matches it after it arrived
 *   header      a 32-byte header on one communicator, then the payload on
 *               another; the receiver posts the payload's receive once the
 *               header is in: header and payload, as Omnibus sends above
 *               wire_alone_max
 *   speculate   the receiver posts the payload's receive into the user's
 *               buffer and the header's receive before anything arrives;
 *               the sender sends header then payload: a design in which a
 *               receive that can match only one way is posted to the MPI
 *               underneath at once, while the header still keeps the pair's
 *               order
 *   copy        one message of header and payload packed into a block by
 *               memcpy at the sender and copied out at the receiver: alone
 *               in a block, as Omnibus sends up to wire_alone_max
 *   pieces      the same cut into blocks of at most -P bytes (7936, what
 *               Omnibus's probe finds UCX sends at once over TCP), each
 *               its own message into one of PIECE_POSTED receives posted
 *               before it arrives, as Omnibus's wire receives are: a design
 *               in which a message goes as pieces small enough for the MPI
 *               underneath to send each at once (eagerly), where it would
 *               make the whole one wait for its receive (rendezvous)
 * Prints one line per protocol run: "protocol=<p> bytes=<s> us=<one-way
 * latency>".  Run by scripts/measure/large-protocols, never by make test.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HEADER_BYTES = 32, TAG = 7, PIECE_POSTED = 4 };

typedef struct {
    int rank, peer;
    long bytes;
    char *buf;   /* the user's buffer */
    char *block; /* copy: header and payload packed */
    char header[HEADER_BYTES];
    MPI_Comm hdr_comm, pay_comm;
    long piece;                         /* pieces: a block's bytes */
    char *pieces[PIECE_POSTED];         /* pieces: the posted blocks */
    MPI_Request piece_req[PIECE_POSTED];
    int piece_next;                     /* the oldest posted block */
} pp_state;

typedef void (*pp_send_fn)(pp_state *);
typedef void (*pp_recv_fn)(pp_state *);

static void send_plain(pp_state *s)
{
    MPI_Send(s->buf, (int)s->bytes, MPI_BYTE, s->peer, TAG, s->pay_comm);
}

static void recv_plain(pp_state *s)
{
    MPI_Recv(s->buf, (int)s->bytes, MPI_BYTE, s->peer, TAG, s->pay_comm,
             MPI_STATUS_IGNORE);
}

static void recv_probe(pp_state *s)
{
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    while (!flag)
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, s->pay_comm, &flag, &msg,
                    &st);
    MPI_Mrecv(s->buf, (int)s->bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
}

static void send_header(pp_state *s)
{
    MPI_Request r[2];
    MPI_Isend(s->header, HEADER_BYTES, MPI_BYTE, s->peer, TAG, s->hdr_comm,
              &r[0]);
    MPI_Isend(s->buf, (int)s->bytes, MPI_BYTE, s->peer, TAG, s->pay_comm,
              &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

static void recv_header(pp_state *s)
{
    MPI_Recv(s->header, HEADER_BYTES, MPI_BYTE, s->peer, TAG, s->hdr_comm,
             MPI_STATUS_IGNORE);
    MPI_Recv(s->buf, (int)s->bytes, MPI_BYTE, s->peer, TAG, s->pay_comm,
             MPI_STATUS_IGNORE);
}

static void recv_speculate(pp_state *s)
{
    MPI_Request r[2];
    MPI_Irecv(s->buf, (int)s->bytes, MPI_BYTE, s->peer, TAG, s->pay_comm,
              &r[1]);
    MPI_Irecv(s->header, HEADER_BYTES, MPI_BYTE, s->peer, TAG, s->hdr_comm,
              &r[0]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
}

static void send_copy(pp_state *s)
{
    memcpy(s->block, s->header, HEADER_BYTES);
    memcpy(s->block + HEADER_BYTES, s->buf, (size_t)s->bytes);
    MPI_Send(s->block, (int)s->bytes + HEADER_BYTES, MPI_BYTE, s->peer, TAG,
             s->pay_comm);
}

static void recv_copy(pp_state *s)
{
    MPI_Recv(s->block, (int)s->bytes + HEADER_BYTES, MPI_BYTE, s->peer, TAG,
             s->pay_comm, MPI_STATUS_IGNORE);
    memcpy(s->header, s->block, HEADER_BYTES);
    memcpy(s->buf, s->block + HEADER_BYTES, (size_t)s->bytes);
}

static long pieces_of(const pp_state *s)
{
    long room = s->piece - HEADER_BYTES;
    return (s->bytes + room - 1) / room;
}

static void send_pieces(pp_state *s)
{
    long room = s->piece - HEADER_BYTES, n = pieces_of(s);
    MPI_Request r[n];
    char *out = s->block;
    for (long k = 0; k < n; k++) {
        long at = k * room, len = s->bytes - at < room ? s->bytes - at : room;
        memcpy(out, s->header, HEADER_BYTES);
        memcpy(out + HEADER_BYTES, s->buf + at, (size_t)len);
        MPI_Isend(out, (int)(len + HEADER_BYTES), MPI_BYTE, s->peer, TAG,
                  s->pay_comm, &r[k]);
        out += len + HEADER_BYTES;
    }
    MPI_Waitall((int)n, r, MPI_STATUSES_IGNORE);
}

static void post_piece(pp_state *s, int slot)
{
    MPI_Irecv(s->pieces[slot], (int)s->piece, MPI_BYTE, s->peer, TAG,
              s->pay_comm, &s->piece_req[slot]);
}

/* Takes the message's pieces in posting order, copying each out and
 * posting its block again, so that every piece finds a receive posted. */
static void recv_pieces(pp_state *s)
{
    long room = s->piece - HEADER_BYTES, n = pieces_of(s);
    for (long k = 0; k < n; k++) {
        int slot = s->piece_next;
        MPI_Status st;
        int got;
        MPI_Wait(&s->piece_req[slot], &st);
        MPI_Get_count(&st, MPI_BYTE, &got);
        memcpy(s->header, s->pieces[slot], HEADER_BYTES);
        memcpy(s->buf + k * room, s->pieces[slot] + HEADER_BYTES,
               (size_t)got - HEADER_BYTES);
        post_piece(s, slot);
        s->piece_next = (slot + 1) % PIECE_POSTED;
    }
}

static const struct {
    const char *name;
    pp_send_fn send;
    pp_recv_fn recv;
} protocols[] = {
    {"plain", send_plain, recv_plain},
    {"probe", send_plain, recv_probe},
    {"header", send_header, recv_header},
    {"speculate", send_header, recv_speculate},
    {"copy", send_copy, recv_copy},
    {"pieces", send_pieces, recv_pieces},
};
enum { NPROTOCOLS = sizeof protocols / sizeof protocols[0] };

static double run(pp_state *s, int p, long trips)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < trips; i++) {
        if (s->rank == 0) {
            protocols[p].send(s);
            protocols[p].recv(s);
        } else {
            protocols[p].recv(s);
            protocols[p].send(s);
        }
    }
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return t / (double)trips / 2.0 * 1e6;
}

int main(int argc, char **argv)
{
    long bytes = 131072, trips = 1000, warm = 200, piece = 7936;
    const char *only = NULL;
    int opt;
    MPI_Init(&argc, &argv);
    while ((opt = getopt(argc, argv, "s:n:w:p:P:")) != -1) {
        switch (opt) {
        case 's': bytes = atol(optarg); break;
        case 'n': trips = atol(optarg); break;
        case 'w': warm = atol(optarg); break;
        case 'p': only = optarg; break;
        case 'P': piece = atol(optarg); break;
        default:
            fprintf(stderr, "usage: large_protocols [-s bytes] [-n trips] "
                            "[-w warm] [-p protocol] [-P piece bytes]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    pp_state s = {0};
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || bytes < 1 || bytes > (1L << 30) - HEADER_BYTES ||
        piece <= HEADER_BYTES) {
        if (s.rank == 0)
            fprintf(stderr, "large_protocols: 2 ranks, 1 to 1 GiB, pieces "
                            "above %d bytes\n", HEADER_BYTES);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    s.peer = 1 - s.rank;
    s.bytes = bytes;
    s.buf = malloc((size_t)bytes);
    s.piece = piece;
    /* Room for every piece's header: the copy's one and the pieces'. */
    size_t block_bytes = (size_t)bytes + (size_t)pieces_of(&s) * HEADER_BYTES;
    s.block = malloc(block_bytes);
    if (!s.buf || !s.block)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int k = 0; k < PIECE_POSTED; k++)
        if (!(s.pieces[k] = malloc((size_t)piece)))
            MPI_Abort(MPI_COMM_WORLD, 2);
    memset(s.buf, s.rank + 1, (size_t)bytes);
    memset(s.block, 0, block_bytes);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.hdr_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &s.pay_comm);
    for (int p = 0; p < NPROTOCOLS; p++) {
        if (only && strcmp(only, protocols[p].name) != 0)
            continue;
        int by_pieces = protocols[p].send == send_pieces;
        for (int k = 0; by_pieces && k < PIECE_POSTED; k++)
            post_piece(&s, k);
        run(&s, p, warm);
        double us = run(&s, p, trips);
        for (int k = 0; by_pieces && k < PIECE_POSTED; k++) {
            MPI_Cancel(&s.piece_req[k]);
            MPI_Wait(&s.piece_req[k], MPI_STATUS_IGNORE);
        }
        s.piece_next = 0;
        if (s.rank == 0)
            printf("protocol=%s bytes=%ld us=%.3f\n", protocols[p].name,
                   bytes, us);
    }
    MPI_Comm_free(&s.hdr_comm);
    MPI_Comm_free(&s.pay_comm);
    free(s.buf);
    free(s.block);
    for (int k = 0; k < PIECE_POSTED; k++)
        free(s.pieces[k]);
    MPI_Finalize();
    return 0;
}
