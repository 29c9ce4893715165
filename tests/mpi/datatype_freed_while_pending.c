/* datatype_freed_while_pending: a program may free a derived datatype as
 * soon as the call that uses it returns; pending and persistent requests
 * keep using it.
 *
 * MPI 4.1 §5.1.9: "Freeing a datatype does not affect any other datatype
 * that was built from the freed datatype. ... any communication that is
 * currently using this datatype will complete normally."  The receiver
 * here posts MPI_Irecv with a vector type and frees the type at once,
 * before the sender (held back by a barrier) has sent, for a small and a
 * large message; it builds persistent receives with MPI_Recv_init and the
 * sender persistent sends with MPI_Send_init and MPI_Psend_init, each
 * freeing its type right after creation, then runs them several times.
 * Every element the type names must hold what was sent, and no other byte
 * may change.
 */
#include "testlib.h"

#define TAG 71
#define ROUNDS 4

/* Every other int of a buffer of 2 * n ints. */
static MPI_Datatype every_other(int n)
{
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_vector(n, 1, 2, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static void fill_odd_gaps(int *buf, int n, int v)
{
    for (int k = 0; k < n; k++) {
        buf[2 * k] = v + k;
        buf[2 * k + 1] = -7;
    }
}

static void check_received(const int *buf, int n, int v, const char *how)
{
    long bad = -1;
    for (int k = 0; k < n && bad < 0; k++)
        if (buf[2 * k] != v + k || buf[2 * k + 1] != -7)
            bad = k;
    CHECK(bad < 0, "%s: element %ld must hold %ld and its gap -7, got %d and %d",
          how, bad, bad < 0 ? 0 : v + bad, bad < 0 ? 0 : buf[2 * bad],
          bad < 0 ? 0 : buf[2 * bad + 1]);
}

/* MPI_Irecv, type freed at once, the message sent only afterwards. */
static void irecv_then_free(int peer, int n, int v)
{
    int *buf = tl_malloc(sizeof(int) * 2 * (size_t)n);
    if (tl_leads()) {
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        for (int k = 0; k < 2 * n; k++)
            buf[k] = k % 2 ? 0 : v + k / 2;
        MPI_Datatype t = every_other(n);
        CHECK_MPI(MPI_Send(buf, 1, t, peer, TAG, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Type_free(&t));
    } else {
        fill_odd_gaps(buf, n, -100);
        MPI_Datatype t = every_other(n);
        MPI_Request r;
        CHECK_MPI(MPI_Irecv(buf, 1, t, peer, TAG, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Type_free(&t));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        check_received(buf, n, v, n > 1000 ? "MPI_Irecv of a large message, "
                                             "type freed before it arrived"
                                           : "MPI_Irecv, type freed before "
                                             "the message arrived");
    }
    free(buf);
}

/* MPI_Send_init / MPI_Recv_init with the type freed right after creation. */
static void persistent_then_free(int peer, int n)
{
    int *buf = tl_malloc(sizeof(int) * 2 * (size_t)n);
    MPI_Datatype t = every_other(n);
    MPI_Request r;
    if (tl_leads())
        CHECK_MPI(MPI_Send_init(buf, 1, t, peer, TAG, MPI_COMM_WORLD, &r));
    else
        CHECK_MPI(MPI_Recv_init(buf, 1, t, peer, TAG, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Type_free(&t));
    for (int round = 0; round < ROUNDS; round++) {
        if (tl_leads())
            for (int k = 0; k < 2 * n; k++)
                buf[k] = k % 2 ? 0 : 1000 * round + k / 2;
        else
            fill_odd_gaps(buf, n, -100);
        CHECK_MPI(MPI_Start(&r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (!tl_leads())
            check_received(buf, n, 1000 * round,
                           "MPI_Send_init/MPI_Recv_init, types freed after "
                           "creation");
    }
    CHECK_MPI(MPI_Request_free(&r));
    free(buf);
}

/* MPI_Psend_init / MPI_Precv_init, one partition, type freed at once. */
static void partitioned_then_free(int peer, int n)
{
    int *buf = tl_malloc(sizeof(int) * 2 * (size_t)n);
    MPI_Datatype t = every_other(n);
    MPI_Request r;
    if (tl_leads())
        CHECK_MPI(MPI_Psend_init(buf, 1, 1, t, peer, TAG, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &r));
    else
        CHECK_MPI(MPI_Precv_init(buf, 1, 1, t, peer, TAG, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &r));
    CHECK_MPI(MPI_Type_free(&t));
    for (int round = 0; round < ROUNDS; round++) {
        if (tl_leads())
            for (int k = 0; k < 2 * n; k++)
                buf[k] = k % 2 ? 0 : 7 * round + k / 2;
        else
            fill_odd_gaps(buf, n, -100);
        CHECK_MPI(MPI_Start(&r));
        if (tl_leads())
            CHECK_MPI(MPI_Pready(0, r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        if (!tl_leads())
            check_received(buf, n, 7 * round,
                           "MPI_Psend_init/MPI_Precv_init, types freed after "
                           "creation");
    }
    CHECK_MPI(MPI_Request_free(&r));
    free(buf);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer == MPI_PROC_NULL) {
        for (int i = 0; i < 2; i++)
            CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(1, "the rank without a partner only joins the barriers");
        return tl_finalize();
    }
    irecv_then_free(peer, 10, 5);
    irecv_then_free(peer, 20000, 9);
    persistent_then_free(peer, 10);
    persistent_then_free(peer, 20000);
    partitioned_then_free(peer, 10);
    return tl_finalize();
}
