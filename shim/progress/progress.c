#include "shim/progress/progress.h"
#include "shim/transport/transport.h"
#include "shim/mpi/quirks.h"
#include "shim/base/fail.h"
#include <sched.h>
#include <stdlib.h>
#include <time.h>

/* PROG_SPINS_BEFORE_YIELD (progress.h), spins before a wait loop starts
 * yielding: long enough that a reply a few microseconds away is caught
 * without a context switch. */

/* The anchor's tag on wire_comm, which no rank sends (transport.h uses 1,
 * the communicator constructors 2). */
#define PROG_ANCHOR_TAG 3

int prog_init(void)
{
    omni.prog.npollers = 0;
    omni.prog.after_round = omni.prog.poll_work = 0;
    return PMPI_Irecv(NULL, 0, MPI_BYTE, omni.job.rank, PROG_ANCHOR_TAG,
                      omni.job.wire_comm, &omni.prog.under_anchor) == MPI_SUCCESS
               ? 0
               : -1;
}

void prog_close(void)
{
    omni.prog.in_progress = 1;
}

void prog_finalize(void)
{
    PMPI_Cancel(&omni.prog.under_anchor);
    PMPI_Wait(&omni.prog.under_anchor, MPI_STATUS_IGNORE);
}

/* Only a rank without wire receives needs it: the transport tests one of
 * those every round. */
static void under_turn(void)
{
    if (omni.tx.rx_count || ++omni.prog.under_rounds < PROG_UNDER_ROUNDS)
        return;
    omni.prog.under_rounds = 0;
    int flag = 0;
    PMPI_Test(&omni.prog.under_anchor, &flag, MPI_STATUS_IGNORE);
}

/* A call that waits flushes first, and then runs rounds with a pause
 * after each (prog_wait_step, prog_pause): both mark the next round as a step of a wait,
 * which the round consumes.  Such a round finds the program waiting
 * (router/adapt.h), whatever its last MPI_Test found: what a relay
 * forwards in it leaves with the round.  The mark a wait's last pause
 * leaves is consumed by the next round, whatever calls it. */
void prog_block_enter(void)
{
    transport_flush_all(&omni.stats.flush_block);
    omni.prog.waiting = 1;
}

int prog_add_poller(int (*poll)(void), int after_round)
{
    if (omni.prog.npollers == OMNI_POLLERS_MAX)
        omni_out_of_memory("a progress poller (OMNI_POLLERS_MAX)");
    int id = omni.prog.npollers++;
    omni.prog.pollers[id] = poll;
    if (after_round)
        omni.prog.after_round |= 1u << id;
    return id;
}

/* Calls the pollers of `which` that have work, and forgets the work of
 * those that report none left. */
static void run_pollers(unsigned which)
{
    for (unsigned work = omni.prog.poll_work & which; work; work &= work - 1) {
        int id = __builtin_ctz(work);
        if (!omni.prog.pollers[id]())
            omni.prog.poll_work &= ~(1u << id);
    }
}

void prog_round(void)
{
    if (omni.prog.in_progress)
        return;
    omni.prog.in_progress = 1;
    /* Before arrivals are forwarded: only the program's own appends. */
    int sent = transport_sent_since_round();
    int waiting = omni.prog.waiting || omni.prog.empty_polls > 0;
    omni.prog.waiting = 0;
    omni.prog.round_waits = waiting;
    transport_poll_arrivals();
    if (omni.prog.poll_work & ~omni.prog.after_round)
        run_pollers(~omni.prog.after_round);
    if (omni.tx.inflight_count || omni.tx.ring_backlogs)
        transport_reap_sends();
    if (omni.tx.soon_count)
        transport_ship_soon();
    transport_flush_stale(sent, waiting);
    under_turn();
    omni.prog.in_progress = 0;
    if (omni.prog.poll_work & omni.prog.after_round)
        run_pollers(omni.prog.after_round);
}

void prog_pause(unsigned *spins)
{
    omni.prog.waiting = 1;
    omni.prog.wait_steps++;
    if (++*spins > PROG_SPINS_BEFORE_YIELD && omni.job.yield)
        sched_yield();
}

void prog_yield(void)
{
    sched_yield();
}

static int under_enter(void)
{
    int was = omni.prog.in_progress;
    omni.prog.in_progress = 1;
    return was;
}

int prog_test(MPI_Request *req, int *flag, MPI_Status *status)
{
    int was = under_enter();
    int rc = PMPI_Test(req, flag, status);
    omni.prog.in_progress = was;
    return rc;
}

/* MPICH 4.0.2 quirk Q1 (mpi/quirks.h): with real statuses its Testall
 * takes the general path over an array longer than one batch. */

int prog_testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    MPI_Status *tmp = NULL;
    if (sts == MPI_STATUSES_IGNORE && n > OMNI_QUIRK_TESTALL_BATCH) {
        tmp = malloc(sizeof *tmp * (size_t)n);
        if (!tmp)
            omni_out_of_memory("a status array");
        sts = tmp;
    }
    int was = under_enter();
    int rc = PMPI_Testall(n, reqs, flag, sts);
    omni.prog.in_progress = was;
    free(tmp);
    return rc;
}

int prog_testany(int n, MPI_Request reqs[], int *index, int *flag,
                 MPI_Status *status)
{
    int was = under_enter();
    int rc = PMPI_Testany(n, reqs, index, flag, status);
    omni.prog.in_progress = was;
    return rc;
}

int prog_testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                  MPI_Status sts[])
{
    int was = under_enter();
    int rc = PMPI_Testsome(n, reqs, outcount, indices, sts);
    omni.prog.in_progress = was;
    return rc;
}

int prog_get_status(MPI_Request req, int *flag, MPI_Status *status)
{
    int was = under_enter();
    int rc = PMPI_Request_get_status(req, flag, status);
    omni.prog.in_progress = was;
    return rc;
}

int prog_waitall_done(int n, MPI_Request reqs[], MPI_Status sts[])
{
    int was = under_enter();
    int rc = PMPI_Waitall(n, reqs, sts);
    omni.prog.in_progress = was;
    return rc;
}

int prog_wait(MPI_Request *req, MPI_Status *status)
{
    unsigned spins = 0;
    for (;;) {
        int flag = 0;
        int rc = prog_test(req, &flag, status);
        if (flag || rc != MPI_SUCCESS)
            return rc;
        prog_wait_step(&spins);
    }
}

/* --- the optional progress thread ------------------------------------- */

/* How long the thread sleeps between rounds: short next to the flush
 * timeout, long enough that a rank computing alone keeps its core. */
#define PROG_THREAD_SLEEP_NS 50000L

static void *prog_thread_main(void *arg)
{
    (void)arg;
    struct timespec pause = {0, PROG_THREAD_SLEEP_NS};
    for (;;) {
        pthread_mutex_lock(&omni.prog.lock);
        if (omni.prog.thread_stop) {
            pthread_mutex_unlock(&omni.prog.lock);
            return NULL;
        }
        prog_poll();
        pthread_mutex_unlock(&omni.prog.lock);
        nanosleep(&pause, NULL);
    }
}

int prog_thread_start(void)
{
    if (pthread_mutex_init(&omni.prog.lock, NULL) != 0)
        return -1;
    omni.prog.thread_stop = 0;
    omni.prog.threaded = 1;
    if (pthread_create(&omni.prog.thread, NULL, prog_thread_main, NULL) != 0) {
        omni.prog.threaded = 0;
        return -1;
    }
    return 0;
}

void prog_thread_stop(void)
{
    if (!omni.prog.threaded)
        return;
    pthread_mutex_lock(&omni.prog.lock);
    omni.prog.thread_stop = 1;
    pthread_mutex_unlock(&omni.prog.lock);
    pthread_join(omni.prog.thread, NULL);
    omni.prog.threaded = 0;
    pthread_mutex_destroy(&omni.prog.lock);
}
