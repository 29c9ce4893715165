/* paths: the per-message phases that scripts/measure/profile-paths measures with
 * callgrind (instructions, not time), between exactly two ranks.
 *
 * Usage: paths -f flag-directory [-k messages] [-r rounds] [-s bytes]
 *              [-d milliseconds]
 *   -f  an empty directory both ranks see, for the hand-over below
 *   -k  messages per phase (default 1024)
 *   -r  rounds (default 4); scripts/measure/profile-paths drops the first as warm-up
 *   -s  bytes per message (default 8)
 *   -d  how long the receiver waits after the hand-over (default 200)
 *   -t  also time each phase (clock_gettime, outside valgrind): the
 *       measuring rank prints "TIME phase=<name> round=<r> ns=<ns per
 *       message>" on stderr at the end of each phase
 *
 * Rank 0 sends, rank 1 receives, on MPI_COMM_WORLD.  Each measured phase is
 * bracketed with callgrind client requests (zero, collect, stop collecting,
 * dump with the phase's name); outside valgrind they do nothing.  A round:
 *
 *   send        rank 0: k MPI_Send of s bytes to rank 1
 *   arrival     rank 1: one MPI_Barrier entered once all k messages are on
 *               their way, then MPI_Iprobe for a marker rank 0 sent after
 *               them until it is there, so that every message has been
 *               taken in (Omnibus: unpacks its blocks into the unexpected
 *               queue; MPICH: drains them into its own).  The barrier alone
 *               is not enough: Omnibus takes a bounded number of records
 *               from a node ring per progress round, and a barrier may
 *               return after a few rounds.  The marker travels on a
 *               duplicate of MPI_COMM_WORLD, so that a probe does not scan
 *               the k messages queued on MPI_COMM_WORLD; under Omnibus it
 *               arrives after them all the same, since every item between
 *               two ranks takes one FIFO route whatever its communicator.
 *               Each probe that finds nothing is one progress round, a
 *               fraction of an instruction per message here
 *   barrier     rank 1: the same barrier with nothing arriving, to subtract
 *   recv        rank 1: k MPI_Recv, every message already there
 *   post        rank 1: k MPI_Irecv posted before anything is sent
 *   arrival_posted  rank 1: the barrier and probes that take k messages
 *               in, each matching a posted receive
 *   wait        rank 1: MPI_Wait on each of the k completed receives
 *
 * and the polling calls of a message-driven runtime, on a
 * duplicate of MPI_COMM_WORLD (poll_comm) as such a runtime uses:
 *
 *   iprobe_miss rank 1: k MPI_Iprobe(MPI_ANY_SOURCE) with nothing there
 *   probe_recv  rank 1: k times MPI_Iprobe(MPI_ANY_SOURCE) that finds a
 *               message, MPI_Get_count, MPI_Recv from the probed source,
 *               every message already taken in (as for "recv")
 *   test_sent   rank 0: MPI_Test on each of k MPI_Isend made before the
 *               phase (Omnibus copied them; MPICH's eager sends are done)
 *   test_pending  rank 1: MPI_Test on each of k MPI_Irecv that nothing
 *               matches yet
 *
 * Instruction counts of code that polls depend on how long it waits.  So no
 * measured phase waits for the other rank: the receiver enters a measured
 * barrier only after rank 0 has written its hand-over file (outside MPI,
 * so that no MPI progress happens meanwhile) and a further -d
 * milliseconds, by which time rank 0 has flushed everything and sits in the
 * same barrier.  The payload is checked: message i of a phase carries i.
 */
#include <mpi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_TOGGLE_COLLECT
#define CALLGRIND_DUMP_STATS_AT(name) ((void)(name))
#endif

#define TAG 7
#define TAG_MARK 8 /* the marker behind a phase's messages */
#define TAG_POLL 9 /* the messages of the polling phases */

typedef struct {
    const char *dir;
    int k, rounds, bytes, delay_ms, round;
    unsigned char *msgs; /* k messages of `bytes` each */
    MPI_Request *reqs;
    long long bad;
    MPI_Comm mark_comm; /* the markers' communicator */
    MPI_Comm poll_comm; /* the polling phases' communicator */
} paths;

static int timing;        /* -t */
static struct timespec t0; /* the current phase's start */

static void phase_begin(void)
{
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    if (timing)
        clock_gettime(CLOCK_MONOTONIC, &t0);
}

static void phase_end(const paths *p, const char *name)
{
    char label[64];
    if (timing) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                    (double)(t1.tv_nsec - t0.tv_nsec);
        fprintf(stderr, "TIME phase=%s round=%d ns=%.2f\n", name, p->round,
                ns / p->k);
    }
    CALLGRIND_TOGGLE_COLLECT;
    snprintf(label, sizeof label, "phase=%s round=%d", name, p->round);
    CALLGRIND_DUMP_STATS_AT(label);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}

/* Rank 0 says that it is about to enter the barrier `what`. */
static void hand_over(const paths *p, const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d-%s", p->dir, p->round, what);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fclose(f);
}

/* Rank 1 waits, outside MPI, until rank 0 is in the barrier `what`. */
static void await(const paths *p, const char *what)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%d-%s", p->dir, p->round, what);
    while (access(path, F_OK) != 0)
        sleep_ms(1);
    sleep_ms(p->delay_ms);
}

/* The barrier in which rank 1 takes in what rank 0 sent before it; with
 * `marked`, also the probes until the marker behind it is there, and then
 * (unmeasured) the marker's receive. */
static void measured_barrier(const paths *p, int rank, const char *name,
                             int marked)
{
    if (rank == 0) {
        hand_over(p, name);
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    await(p, name);
    phase_begin();
    MPI_Barrier(MPI_COMM_WORLD);
    for (int flag = !marked; !flag;)
        MPI_Iprobe(0, TAG_MARK, p->mark_comm, &flag, MPI_STATUS_IGNORE);
    phase_end(p, name);
    if (marked) {
        char mark;
        MPI_Recv(&mark, 1, MPI_CHAR, 0, TAG_MARK, p->mark_comm,
                 MPI_STATUS_IGNORE);
    }
}

static unsigned char *msg(const paths *p, int i)
{
    return p->msgs + (size_t)i * (size_t)p->bytes;
}

/* Every byte of message i of a phase holds this. */
static unsigned char stamp(int i)
{
    return (unsigned char)(i * 31 + 7);
}

/* Counts the messages whose bytes are not their stamp, then clears them. */
static void check_all(paths *p)
{
    for (int i = 0; i < p->k; i++)
        for (int j = 0; j < p->bytes; j++)
            if (msg(p, i)[j] != stamp(i)) {
                p->bad++;
                break;
            }
    memset(p->msgs, 0, (size_t)p->k * (size_t)p->bytes);
}

/* Rank 0's k sends, measured as phase "send" or not, and the marker
 * behind them. */
static void send_all(paths *p, int measured)
{
    for (int i = 0; i < p->k; i++)
        memset(msg(p, i), stamp(i), (size_t)p->bytes);
    if (measured)
        phase_begin();
    for (int i = 0; i < p->k; i++)
        MPI_Send(msg(p, i), p->bytes, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
    if (measured)
        phase_end(p, "send");
    char mark = 1;
    MPI_Send(&mark, 1, MPI_CHAR, 1, TAG_MARK, p->mark_comm);
}

static void round_unexpected(paths *p, int rank)
{
    if (rank == 0)
        send_all(p, 1);
    measured_barrier(p, rank, "arrival", 1);
    measured_barrier(p, rank, "barrier", 0);
    if (rank == 1) {
        phase_begin();
        for (int i = 0; i < p->k; i++)
            MPI_Recv(msg(p, i), p->bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        phase_end(p, "recv");
        check_all(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void round_posted(paths *p, int rank)
{
    if (rank == 1) {
        phase_begin();
        for (int i = 0; i < p->k; i++)
            MPI_Irecv(msg(p, i), p->bytes, MPI_BYTE, 0, TAG, MPI_COMM_WORLD,
                      &p->reqs[i]);
        phase_end(p, "post");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        send_all(p, 0);
    measured_barrier(p, rank, "arrival_posted", 1);
    if (rank == 1) {
        phase_begin();
        for (int i = 0; i < p->k; i++)
            MPI_Wait(&p->reqs[i], MPI_STATUS_IGNORE);
        phase_end(p, "wait");
        check_all(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0's k sends on poll_comm, then the marker on mark_comm behind
 * them; rank 1 takes them all in, unmeasured (the marker's probes). */
static void poll_deliver(paths *p, int rank)
{
    if (rank == 0) {
        for (int i = 0; i < p->k; i++) {
            memset(msg(p, i), stamp(i), (size_t)p->bytes);
            MPI_Send(msg(p, i), p->bytes, MPI_BYTE, 1, TAG_POLL, p->poll_comm);
        }
        char mark = 1;
        MPI_Send(&mark, 1, MPI_CHAR, 1, TAG_MARK, p->mark_comm);
        return;
    }
    char mark;
    MPI_Recv(&mark, 1, MPI_CHAR, 0, TAG_MARK, p->mark_comm, MPI_STATUS_IGNORE);
}

static void round_poll(paths *p, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        /* nothing is sent on poll_comm before the next barrier */
        phase_begin();
        for (int i = 0; i < p->k; i++) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_POLL, p->poll_comm, &flag,
                       MPI_STATUS_IGNORE);
            if (flag)
                p->bad++;
        }
        phase_end(p, "iprobe_miss");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    poll_deliver(p, rank);
    if (rank == 1) {
        phase_begin();
        for (int i = 0; i < p->k; i++) {
            int flag = 0, bytes = 0;
            MPI_Status st;
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_POLL, p->poll_comm, &flag, &st);
            if (!flag) {
                p->bad++;
                break;
            }
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            MPI_Recv(msg(p, i), bytes, MPI_BYTE, st.MPI_SOURCE, TAG_POLL,
                     p->poll_comm, MPI_STATUS_IGNORE);
        }
        phase_end(p, "probe_recv");
        check_all(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < p->k; i++) {
            memset(msg(p, i), stamp(i), (size_t)p->bytes);
            MPI_Isend(msg(p, i), p->bytes, MPI_BYTE, 1, TAG_POLL, p->poll_comm,
                      &p->reqs[i]);
        }
        phase_begin();
        for (int i = 0; i < p->k; i++) {
            int flag;
            MPI_Test(&p->reqs[i], &flag, MPI_STATUS_IGNORE);
            if (!flag) /* not counted: MPICH's rendezvous or a full queue */
                MPI_Wait(&p->reqs[i], MPI_STATUS_IGNORE);
        }
        phase_end(p, "test_sent");
    } else {
        for (int i = 0; i < p->k; i++)
            MPI_Recv(msg(p, i), p->bytes, MPI_BYTE, 0, TAG_POLL, p->poll_comm,
                     MPI_STATUS_IGNORE);
        check_all(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int i = 0; i < p->k; i++)
            MPI_Irecv(msg(p, i), p->bytes, MPI_BYTE, 0, TAG_POLL, p->poll_comm,
                      &p->reqs[i]);
        phase_begin();
        for (int i = 0; i < p->k; i++) {
            int flag;
            MPI_Test(&p->reqs[i], &flag, MPI_STATUS_IGNORE);
            if (flag)
                p->bad++;
        }
        phase_end(p, "test_pending");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < p->k; i++) {
            memset(msg(p, i), stamp(i), (size_t)p->bytes);
            MPI_Send(msg(p, i), p->bytes, MPI_BYTE, 1, TAG_POLL, p->poll_comm);
        }
    } else {
        MPI_Waitall(p->k, p->reqs, MPI_STATUSES_IGNORE);
        check_all(p);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    paths p = {.k = 1024, .rounds = 4, .bytes = 8, .delay_ms = 200};
    int opt, rank, size;
    while ((opt = getopt(argc, argv, "f:k:r:s:d:t")) != -1) {
        if (opt == 'f')
            p.dir = optarg;
        else if (opt == 'k')
            p.k = atoi(optarg);
        else if (opt == 'r')
            p.rounds = atoi(optarg);
        else if (opt == 's')
            p.bytes = atoi(optarg);
        else if (opt == 'd')
            p.delay_ms = atoi(optarg);
        else if (opt == 't')
            timing = 1;
        else
            p.k = 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!p.dir || p.k < 1 || p.rounds < 1 || p.bytes < 1 || p.delay_ms < 0 ||
        size != 2) {
        if (rank == 0)
            fprintf(stderr, "paths: usage: mpiexec -n 2 paths -f dir "
                            "[-k messages] [-r rounds] [-s bytes] "
                            "[-d milliseconds]\n");
        MPI_Finalize();
        return 2;
    }
    p.msgs = calloc((size_t)p.k, (size_t)p.bytes);
    p.reqs = malloc((size_t)p.k * sizeof *p.reqs);
    MPI_Comm_dup(MPI_COMM_WORLD, &p.mark_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &p.poll_comm);
    if (!p.msgs || !p.reqs)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (p.round = 0; p.round < p.rounds; p.round++) {
        round_unexpected(&p, rank);
        round_posted(&p, rank);
        round_poll(&p, rank);
    }
    long long bad = 0;
    MPI_Reduce(&p.bad, &bad, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && bad)
        fprintf(stderr, "paths: check failed: %lld messages arrived wrong\n",
                bad);
    free(p.msgs);
    free(p.reqs);
    MPI_Comm_free(&p.mark_comm);
    MPI_Comm_free(&p.poll_comm);
    MPI_Finalize();
    return bad ? 1 : 0;
}
