/* send_paths_in_order: one stream of MPI_Send calls keeps its order
 * whichever way each send goes.
 *
 * MPI 4.1 §3.5: two messages a sender sends in succession to the same
 * destination on the same communicator, both matching one receive, are
 * received in the order sent.  Under Omnibus a standard send of a builtin
 * type that fits its window is written into its next hop's buffer by
 * MPI_Send's fast function, or by a buffer opened for it, and every other
 * send (another communicator looked up last, a derived datatype, a large
 * message, MPI_Isend, MPI_Ssend, a count of 0) by the general path; all of
 * them must land in one order.  The leader sends NMSG messages to its
 * partner on MPI_COMM_WORLD, the tag of each its index, cycling through
 * those kinds, and between them a message on a duplicate of the world
 * communicator, so that the next world send finds another communicator
 * looked up last.  The partner takes the world messages with MPI_ANY_SOURCE
 * and MPI_ANY_TAG: each must carry the next index as its tag, its length
 * and its pattern; then the duplicate's, in their own order.  Once with the
 * receiver late (the messages arrive unexpected) and once with it early.
 */
#include "testlib.h"

#define NMSG 90
#define LARGE 70000
#define MAXLEN LARGE

enum kind { K_SEND8, K_SEND_INTS, K_DERIVED, K_EMPTY, K_ISEND, K_LARGE,
            K_SSEND, K_OTHER_COMM_BEFORE, K_SEND1, NKINDS };

static int length_of(int i)
{
    switch (i % NKINDS) {
    case K_SEND_INTS: return 3 * (int)sizeof(int);
    case K_DERIVED: return 4 * (int)sizeof(int);
    case K_EMPTY: return 0;
    case K_ISEND: return 16;
    case K_LARGE: return LARGE;
    case K_SEND1: return 1;
    default: return 8;
    }
}

static void send_all(int dest, MPI_Comm dup, MPI_Datatype four_ints,
                     int phase)
{
    unsigned char *buf = tl_malloc(MAXLEN), other[8];
    int me = tl_rank();
    for (int i = 0; i < NMSG; i++) {
        long id = phase * NMSG + i;
        int len = length_of(i);
        tl_fill(buf, (size_t)len, me, id);
        switch (i % NKINDS) {
        case K_SEND_INTS:
            CHECK_MPI(MPI_Send(buf, 3, MPI_INT, dest, i, MPI_COMM_WORLD));
            break;
        case K_DERIVED:
            CHECK_MPI(MPI_Send(buf, 1, four_ints, dest, i, MPI_COMM_WORLD));
            break;
        case K_ISEND: {
            MPI_Request r;
            CHECK_MPI(MPI_Isend(buf, len, MPI_BYTE, dest, i, MPI_COMM_WORLD,
                                &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        }
        case K_SSEND:
            CHECK_MPI(MPI_Ssend(buf, len, MPI_BYTE, dest, i, MPI_COMM_WORLD));
            break;
        case K_OTHER_COMM_BEFORE:
            tl_fill(other, sizeof other, me, 1000 + id);
            CHECK_MPI(MPI_Send(other, 8, MPI_BYTE, dest, i, dup));
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, dest, i, MPI_COMM_WORLD));
            break;
        default:
            CHECK_MPI(MPI_Send(buf, len, MPI_BYTE, dest, i, MPI_COMM_WORLD));
        }
    }
    free(buf);
}

static void receive_all(int src, MPI_Comm dup, int phase)
{
    unsigned char *buf = tl_malloc(MAXLEN);
    MPI_Status st;
    const char *when = phase ? "receiver early" : "receiver late";
    for (int i = 0; i < NMSG; i++) {
        long id = phase * NMSG + i;
        CHECK_MPI(MPI_Recv(buf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, src, i, length_of(i),
                     "%s: world message %d of kind %d is the %dth received, "
                     "in send order", when, i, i % NKINDS, i);
        CHECK_PATTERN(buf, (size_t)length_of(i), src, id,
                      "%s: world message %d (kind %d)", when, i, i % NKINDS);
    }
    for (int i = K_OTHER_COMM_BEFORE; i < NMSG; i += NKINDS) {
        long id = phase * NMSG + i;
        CHECK_MPI(MPI_Recv(buf, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                           dup, &st));
        CHECK_STATUS(st, src, i, 8,
                     "%s: the duplicate communicator's message sent before "
                     "world message %d, in its own order", when, i);
        CHECK_PATTERN(buf, 8, src, 1000 + id,
                      "%s: the duplicate communicator's message %d", when, i);
    }
    free(buf);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    MPI_Comm dup;
    MPI_Datatype four_ints;
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four_ints));
    CHECK_MPI(MPI_Type_commit(&four_ints));
    int partner = tl_partner();
    for (int phase = 0; phase < 2; phase++) {
        if (partner != MPI_PROC_NULL && tl_leads()) {
            send_all(partner, dup, four_ints, phase);
        } else if (partner != MPI_PROC_NULL) {
            if (phase == 0)
                tl_sleep(0.05);
            receive_all(partner, dup, phase);
        }
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    }
    CHECK_MPI(MPI_Type_free(&four_ints));
    CHECK_MPI(MPI_Comm_free(&dup));
    return tl_finalize();
}
