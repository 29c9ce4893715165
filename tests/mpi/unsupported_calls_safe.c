/* unsupported_calls_safe: matched probes, persistent requests and the
 * large-count (_c) calls deliver the right messages in the right order,
 * mixed with ordinary traffic on the same communicator and tag.
 *
 * A first version of Omnibus may not handle these calls itself; whatever it
 * does (handle, pass through, refuse loudly), a correct MPI program must
 * see MPI's semantics or a clean error, never a silently lost or reordered
 * message.  The rules:
 *   MPI 4.1 §3.8.2: MPI_Mprobe/MPI_Improbe match a message and remove it
 *   from matching (no other receive or probe can see it); MPI_Mrecv and
 *   MPI_Imrecv then receive exactly that message.  MPI_Mprobe of
 *   MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC, whose MPI_Mrecv completes at
 *   once with the MPI_PROC_NULL status.
 *   §3.9: persistent requests (MPI_Send_init/MPI_Recv_init) are started
 *   with MPI_Start/MPI_Startall, stay allocated after completion, are
 *   restartable, and their messages obey non-overtaking like any others.
 *   §3.2 / §5 "large count" (MPI 4.0): MPI_Send_c, MPI_Recv_c, MPI_Isend_c,
 *   MPI_Irecv_c, MPI_Get_count_c behave as their int versions.
 * The ranks run in pairs (testlib.h), all at once: the lower rank of a pair
 * sends, its partner receives; nobody else sends to either, so the wildcard
 * receives and probes can only see the partner's messages.
 */
#include "testlib.h"

#define TAG 2
#define MAXLEN 50000

static int len_of(int i)
{
    static const int s[] = {8, 50000, 1, 300, 0, 9000};
    return s[i % 6];
}

/* Sender side of a phase: n messages, mixing plain, persistent and _c
 * sends, all on one tag. */
static void send_mixed(int dest, int phase, int n, int me)
{
    unsigned char *b = tl_malloc(MAXLEN);
    MPI_Request preq;
    for (int i = 0; i < n; i++) {
        int len = len_of(i);
        tl_fill(b, (size_t)len, me, phase * 100 + i);
        switch (i % 4) {
        case 0:
            CHECK_MPI(MPI_Send(b, len, MPI_BYTE, dest, TAG, MPI_COMM_WORLD));
            break;
        case 1: {
            MPI_Request r;
            CHECK_MPI(MPI_Isend_c(b, (MPI_Count)len, MPI_BYTE, dest, TAG,
                               MPI_COMM_WORLD, &r));
            CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
            break;
        }
        case 2:
            CHECK_MPI(MPI_Send_init(b, len, MPI_BYTE, dest, TAG, MPI_COMM_WORLD,
                                 &preq));
            CHECK_MPI(MPI_Start(&preq));
            CHECK_MPI(MPI_Wait(&preq, MPI_STATUS_IGNORE));
            CHECK(preq != MPI_REQUEST_NULL,
                  "a completed persistent request must stay allocated");
            CHECK_MPI(MPI_Request_free(&preq));
            break;
        default:
            CHECK_MPI(MPI_Send_c(b, (MPI_Count)len, MPI_BYTE, dest, TAG,
                              MPI_COMM_WORLD));
            break;
        }
    }
    free(b);
}

static void check_msg(const MPI_Status *st, const unsigned char *b, int src,
                      int phase, int i, const char *how)
{
    MPI_Count c = -1;
    CHECK_MPI(MPI_Get_count_c(st, MPI_BYTE, &c));
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == TAG && c == len_of(i),
          "%s: message %d must have source %d tag %d count %d, got source "
          "%d tag %d count %lld",
          how, i, src, TAG, len_of(i), st->MPI_SOURCE, st->MPI_TAG,
          (long long)c);
    CHECK_PATTERN(b, (size_t)len_of(i), src, phase * 100 + i, "%s: message %d",
                  how, i);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank(), peer = tl_partner();
    if (peer == MPI_PROC_NULL) /* sits out */
        return tl_finalize();
    unsigned char *b = tl_malloc(MAXLEN), *b2 = tl_malloc(MAXLEN);
    MPI_Status st;
    MPI_Message msg;
    int flag;

    /* Phase 0: MPI_Mprobe/MPI_Mrecv; a message taken by Mprobe is invisible
     * to the next Recv, which gets the following one. */
    if (me < peer) {
        send_mixed(peer, 0, 12, me);
    } else {
        for (int i = 0; i < 12; i += 2) {
            CHECK_MPI(MPI_Mprobe(peer, TAG, MPI_COMM_WORLD, &msg, &st));
            int c = -1;
            CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &c));
            CHECK(c == len_of(i) && st.MPI_SOURCE == peer,
                  "MPI_Mprobe must report message %d (%d bytes from %d), got "
                  "%d bytes from %d",
                  i, len_of(i), peer, c, st.MPI_SOURCE);
            CHECK_MPI(MPI_Recv(b2, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, TAG,
                            MPI_COMM_WORLD, &st));
            check_msg(&st, b2, peer, 0, i + 1,
                      "MPI_Recv after MPI_Mprobe (must skip the matched "
                      "message)");
            CHECK_MPI(MPI_Mrecv(b, c, MPI_BYTE, &msg, &st));
            CHECK(msg == MPI_MESSAGE_NULL,
                  "MPI_Mrecv must set the message handle to "
                  "MPI_MESSAGE_NULL");
            check_msg(&st, b, peer, 0, i, "MPI_Mrecv of the Mprobed message");
        }
    }

    /* Phase 1: MPI_Improbe/MPI_Imrecv in order with ANY_SOURCE/ANY_TAG. */
    if (me < peer) {
        send_mixed(peer, 1, 12, me);
    } else {
        for (int i = 0; i < 12; i++) {
            double t0 = tl_now();
            do {
                CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG,
                                   MPI_COMM_WORLD, &flag, &msg, &st));
                CHECK(flag || tl_now() - t0 < 10,
                      "MPI_Improbe never found message %d in 10 s", i);
            } while (!flag);
            MPI_Request r;
            CHECK_MPI(MPI_Imrecv(b, MAXLEN, MPI_BYTE, &msg, &r));
            CHECK_MPI(MPI_Wait(&r, &st));
            check_msg(&st, b, peer, 1, i, "MPI_Improbe+MPI_Imrecv");
        }
        CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, TAG, MPI_COMM_WORLD, &msg, &st));
        CHECK(msg == MPI_MESSAGE_NO_PROC,
              "MPI_Mprobe(MPI_PROC_NULL) must return MPI_MESSAGE_NO_PROC");
        CHECK_MPI(MPI_Mrecv(b, 10, MPI_BYTE, &msg, &st));
        CHECK_STATUS(st, MPI_PROC_NULL, MPI_ANY_TAG, 0,
                     "MPI_Mrecv of MPI_MESSAGE_NO_PROC");
    }

    /* Phase 2: persistent receives, restarted; receives via Recv_c and
     * Irecv_c in between. */
    if (me < peer) {
        send_mixed(peer, 2, 18, me);
    } else {
        MPI_Request p[2];
        CHECK_MPI(MPI_Recv_init(b, MAXLEN, MPI_BYTE, peer, TAG, MPI_COMM_WORLD,
                             &p[0]));
        CHECK_MPI(MPI_Recv_init(b2, MAXLEN, MPI_BYTE, MPI_ANY_SOURCE,
                             MPI_ANY_TAG, MPI_COMM_WORLD, &p[1]));
        unsigned char *b3 = tl_malloc(MAXLEN);
        for (int i = 0; i < 18; i += 3) {
            MPI_Status sts[2];
            CHECK_MPI(MPI_Startall(2, p));
            CHECK_MPI(MPI_Waitall(2, p, sts));
            CHECK(p[0] != MPI_REQUEST_NULL && p[1] != MPI_REQUEST_NULL,
                  "persistent receives must stay allocated after Waitall");
            check_msg(&sts[0], b, peer, 2, i, "persistent receive (Startall)");
            check_msg(&sts[1], b2, peer, 2, i + 1,
                      "persistent ANY_SOURCE receive (Startall)");
            if (i % 2) {
                CHECK_MPI(MPI_Recv_c(b3, MAXLEN, MPI_BYTE, peer, TAG,
                                  MPI_COMM_WORLD, &st));
            } else {
                MPI_Request r;
                CHECK_MPI(MPI_Irecv_c(b3, MAXLEN, MPI_BYTE, peer, TAG,
                                   MPI_COMM_WORLD, &r));
                CHECK_MPI(MPI_Wait(&r, &st));
            }
            check_msg(&st, b3, peer, 2, i + 2, "MPI_Recv_c / MPI_Irecv_c");
        }
        CHECK_MPI(MPI_Request_free(&p[1]));
        free(b3);
        CHECK_MPI(MPI_Request_free(&p[0]));
    }

    /* Phase 3: one persistent send restarted with new data each time,
     * against a persistent receive, with MPI_Start/MPI_Test. */
    {
        MPI_Request p;
        int v = -1;
        if (me < peer)
            CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD,
                                 &p));
        else
            CHECK_MPI(MPI_Recv_init(&v, 1, MPI_INT, peer, TAG + 1, MPI_COMM_WORLD,
                                 &p));
        for (int k = 0; k < 20; k++) {
            if (me < peer)
                v = 1000 + k;
            CHECK_MPI(MPI_Start(&p));
            flag = 0;
            double t0 = tl_now();
            while (!flag) {
                CHECK_MPI(MPI_Test(&p, &flag, &st));
                CHECK(flag || tl_now() - t0 < 10,
                      "persistent request round %d not done in 10 s", k);
            }
            if (me > peer) {
                CHECK(v == 1000 + k,
                      "persistent receive round %d must get %d, got %d", k,
                      1000 + k, v);
                CHECK_STATUS(st, peer, TAG + 1, (int)sizeof(int),
                             "persistent receive round %d", k);
            }
        }
        CHECK_MPI(MPI_Request_free(&p));
        CHECK(p == MPI_REQUEST_NULL,
              "MPI_Request_free on an inactive persistent request must set "
              "MPI_REQUEST_NULL");
    }
    free(b);
    free(b2);
    return tl_finalize();
}
