/* arrived_message_boundaries: a receive of a message that is already
 * there, at the edges of what fits.
 *
 * MPI 4.1 §3.2.4: a message fits a receive when its length is at most
 * count times the size of the receive's datatype; the status then counts
 * all of it in that datatype's elements (MPI_Get_count).  One byte more is
 * an overflow, MPI_ERR_TRUNCATE, and nothing is written past the buffer.
 * §3.5: the communicator goes on in order after it.  Omnibus completes a
 * receive whose message waits at the head of its unexpected queue inline,
 * for builtin datatypes that hold it, and sends every other case the
 * general way; this pins down that both sides of that line behave as MPI
 * says, for MPI_Recv and for MPI_Irecv + MPI_Wait.
 *
 * The ranks run in pairs (testlib.h); the lower rank sends, the higher one
 * waits with MPI_Iprobe until each message has arrived before receiving
 * it.  Per receive call, messages of 8 bytes go into: 2 MPI_INT, 1
 * MPI_DOUBLE, 8 MPI_BYTE, 1 contiguous type of 2 MPI_INT (exact fits), then
 * a 9-byte message into 8 MPI_BYTE (one byte too long), then a 4-byte
 * message that must arrive next and intact.
 */
#include "testlib.h"

#define GUARD 16
#define GUARD_BYTE 0xA5
#define NFIT 4

static MPI_Comm comm;
static int peer;

/* Receives into buf with MPI_Recv (method 0) or MPI_Irecv + MPI_Wait. */
static int receive(int method, void *buf, int count, MPI_Datatype type,
                   int tag, MPI_Status *st)
{
    if (method == 0)
        return MPI_Recv(buf, count, type, peer, tag, comm, st);
    MPI_Request req;
    CHECK_MPI(MPI_Irecv(buf, count, type, peer, tag, comm, &req));
    return MPI_Wait(&req, st);
}

static void sender(int method)
{
    unsigned char b[9];
    for (int i = 0; i < NFIT; i++) {
        tl_fill(b, 8, tl_rank(), method * 10 + i);
        CHECK_MPI(MPI_Send(b, 8, MPI_BYTE, peer, 1 + i, comm));
    }
    tl_fill(b, 9, tl_rank(), method * 10 + 8);
    CHECK_MPI(MPI_Send(b, 9, MPI_BYTE, peer, 8, comm));
    tl_fill(b, 4, tl_rank(), method * 10 + 9);
    CHECK_MPI(MPI_Send(b, 4, MPI_BYTE, peer, 9, comm));
}

static void receiver(int method, MPI_Datatype int_pair)
{
    const char *how = method == 0 ? "MPI_Recv" : "MPI_Irecv+MPI_Wait";
    const struct { MPI_Datatype type; int count; const char *name; } fits[NFIT] = {
        {MPI_INT, 2, "2 MPI_INT"}, {MPI_DOUBLE, 1, "1 MPI_DOUBLE"},
        {MPI_BYTE, 8, "8 MPI_BYTE"}, {int_pair, 1, "1 contiguous pair of MPI_INT"}};
    unsigned char buf[8 + GUARD];
    MPI_Status st;
    for (int i = 0; i < NFIT; i++) {
        tl_await_arrival(peer, 1 + i, comm);
        memset(buf, GUARD_BYTE, sizeof buf);
        int rc = receive(method, buf, fits[i].count, fits[i].type, 1 + i, &st);
        CHECK(rc == MPI_SUCCESS,
              "%s of an arrived 8-byte message into %s fits exactly and must "
              "succeed, got %s", how, fits[i].name, tl_errstr(rc));
        int n = -1;
        CHECK_MPI(MPI_Get_count(&st, fits[i].type, &n));
        CHECK(n == fits[i].count,
              "%s into %s: MPI_Get_count must count the whole message, %d "
              "elements, got %d", how, fits[i].name, fits[i].count, n);
        CHECK_STATUS(st, peer, 1 + i, 8, "%s into %s", how, fits[i].name);
        CHECK_PATTERN(buf, 8, peer, method * 10 + i, "%s into %s", how,
                      fits[i].name);
        CHECK_FILLED(buf + 8, GUARD, GUARD_BYTE,
                     "%s into %s: memory past the buffer", how, fits[i].name);
    }

    tl_await_arrival(peer, 8, comm);
    memset(buf, GUARD_BYTE, sizeof buf);
    int rc = receive(method, buf, 8, MPI_BYTE, 8, &st);
    CHECK(tl_class(rc) == MPI_ERR_TRUNCATE,
          "%s of an arrived 9-byte message into 8 MPI_BYTE must fail with "
          "class MPI_ERR_TRUNCATE (%d), got %s", how, MPI_ERR_TRUNCATE,
          tl_errstr(rc));
    CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 8,
          "%s: the truncated receive's status must name source %d tag 8, got "
          "source %d tag %d", how, peer, st.MPI_SOURCE, st.MPI_TAG);
    CHECK_FILLED(buf + 8, GUARD, GUARD_BYTE,
                 "%s of 9 bytes into 8: memory past the buffer", how);

    tl_await_arrival(peer, 9, comm);
    CHECK_MPI(receive(method, buf, 8, MPI_BYTE, 9, &st));
    CHECK_STATUS(st, peer, 9, 4,
                 "%s: the message sent after the truncated one", how);
    CHECK_PATTERN(buf, 4, peer, method * 10 + 9,
                  "%s: the message sent after the truncated one", how);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    peer = tl_partner();
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    /* MPICH raises an error a completion call finds through the world
     * communicator's handler (truncation.c). */
    CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Datatype int_pair;
    CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &int_pair));
    CHECK_MPI(MPI_Type_commit(&int_pair));
    for (int method = 0; peer != MPI_PROC_NULL && method < 2; method++) {
        if (tl_rank() < peer)
            sender(method);
        else
            receiver(method, int_pair);
    }
    CHECK_MPI(MPI_Type_free(&int_pair));
    CHECK_MPI(MPI_Comm_free(&comm));
    return tl_finalize();
}
