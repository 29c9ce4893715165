/* threads: four threads per rank sending and receiving.
 *
 * MPI 4.1 §11.6: under MPI_THREAD_MULTIPLE several threads may call MPI at
 * once, and messages sent by one thread keep their order (per sending
 * thread, communicator and tag); under MPI_THREAD_SERIALIZED the threads
 * take turns.  Each of 4 threads streams to the same thread number on the
 * ring neighbour with its own tag and checks order and content; the test
 * asks for MULTIPLE and, if MPI gives only SERIALIZED, serializes its
 * calls with a mutex.  (Omnibus runs a MULTIPLE job pass-through; the test
 * also runs with SERIALIZED requested, through THREADS_LEVEL=serialized.)
 */
#include "testlib.h"

#include <pthread.h>

#define THREADS 4
#define COUNT 100

static int me, n, level;
static pthread_mutex_t turn = PTHREAD_MUTEX_INITIALIZER;

static void take(void)
{
    if (level < MPI_THREAD_MULTIPLE)
        pthread_mutex_lock(&turn);
}

static void give(void)
{
    if (level < MPI_THREAD_MULTIPLE)
        pthread_mutex_unlock(&turn);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg, right = (me + 1) % n, left = (me + n - 1) % n;
    long bad = 0;
    for (long i = 0; i < COUNT; i++) {
        long v = me * 1000000L + t * 10000L + i, got = -1;
        MPI_Request r[2];
        int done = 0;
        take();
        MPI_Irecv(&got, 1, MPI_LONG, left, 100 + t, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&v, 1, MPI_LONG, right, 100 + t, MPI_COMM_WORLD, &r[1]);
        give();
        while (!done) {
            take();
            MPI_Testall(2, r, &done, MPI_STATUSES_IGNORE);
            give();
        }
        bad += got != left * 1000000L + t * 10000L + i;
    }
    return (void *)bad;
}

int main(int argc, char **argv)
{
    const char *want = getenv("THREADS_LEVEL");
    int required = want && strcmp(want, "serialized") == 0
                       ? MPI_THREAD_SERIALIZED
                       : MPI_THREAD_MULTIPLE;
    alarm(40);
    MPI_Init_thread(&argc, &argv, required, &level);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int queried = -1;
    MPI_Query_thread(&queried);
    if (queried != level) {
        fprintf(stderr, "FAIL threads: rank %d: MPI_Query_thread must report "
                        "the provided level %d, got %d\n", me, level, queried);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (level < MPI_THREAD_SERIALIZED) {
        fprintf(stderr, "FAIL threads: rank %d: asked for thread level %d, "
                        "got %d\n", me, required, level);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)t);
    long bad = 0;
    for (int t = 0; t < THREADS; t++) {
        void *r;
        pthread_join(th[t], &r);
        bad += (long)r;
    }
    if (bad) {
        fprintf(stderr, "FAIL threads: rank %d: %ld of %d messages per thread "
                        "arrived out of per-thread order or wrong\n",
                me, bad, COUNT);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
