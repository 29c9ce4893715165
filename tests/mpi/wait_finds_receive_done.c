/* wait_finds_receive_done: a Wait call whose receive completed before it
 * was called is an ordinary completion, with the send posted just before
 * it still delivered.
 *
 * MPI 4.1 §3.7.3: MPI_Wait, MPI_Waitall, MPI_Waitany and MPI_Waitsome on a
 * receive that is already complete return at once with its status and
 * data, and free the request; §3.5: a send is delivered, whatever the
 * sender calls next.  Omnibus ships the buffer towards the receive's
 * sender at such a Wait (transport.h, transport_answer), since the partner
 * is likely waiting for it; scripts/test/run-tests also runs this test with
 * OMNIBUS_STATS_FILE and checks flushes.answer: one answer per round.
 *
 * Round k of the pair (testlib.h), one round per Wait call:
 *   partner: MPI_Send tag 10+k, then MPI_Recv tag 20+k, and sends what it
 *            got back under tag 30+k;
 *   leader:  MPI_Irecv tag 10+k, MPI_Request_get_status until it is done,
 *            MPI_Isend tag 20+k, then the round's Wait on the receive (with
 *            the send's request too for Waitall), then MPI_Recv tag 30+k:
 *            the echo shows the tag-20+k message arrived intact.
 */
#include "testlib.h"

#define N 8 /* bytes per message */
#define ROUNDS 4

static const char *const wait_name[ROUNDS] = {"MPI_Wait", "MPI_Waitall",
                                              "MPI_Waitany", "MPI_Waitsome"};
static int peer;

/* Completes req, already done, with round k's Wait call. */
static void wait_round(int k, MPI_Request *req, MPI_Request *sreq,
                       MPI_Status *st)
{
    int index = -1, outcount = -1, indices[1] = {-1};
    MPI_Request both[2] = {*req, *sreq};
    MPI_Status sts[2];
    switch (k) {
    case 0:
        CHECK_MPI(MPI_Wait(req, st));
        CHECK_MPI(MPI_Wait(sreq, MPI_STATUS_IGNORE));
        break;
    case 1:
        CHECK_MPI(MPI_Waitall(2, both, sts));
        *st = sts[0];
        *req = both[0];
        *sreq = both[1];
        break;
    case 2:
        CHECK_MPI(MPI_Waitany(1, req, &index, st));
        CHECK(index == 0, "MPI_Waitany of one done receive must give index 0, "
                          "got %d", index);
        CHECK_MPI(MPI_Wait(sreq, MPI_STATUS_IGNORE));
        break;
    default:
        CHECK_MPI(MPI_Waitsome(1, req, &outcount, indices, st));
        CHECK(outcount == 1 && indices[0] == 0,
              "MPI_Waitsome of one done receive must give it alone, got "
              "outcount %d index %d", outcount, indices[0]);
        CHECK_MPI(MPI_Wait(sreq, MPI_STATUS_IGNORE));
        break;
    }
    CHECK(*req == MPI_REQUEST_NULL && *sreq == MPI_REQUEST_NULL,
          "%s must free the requests it completes", wait_name[k]);
}

static void leader(void)
{
    unsigned char in[N], out[N], echo[N];
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Request req, sreq;
        MPI_Status st;
        int flag = 0;
        CHECK_MPI(MPI_Irecv(in, N, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD, &req));
        double t0 = tl_now();
        while (!flag) {
            CHECK_MPI(MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE));
            CHECK(flag || tl_now() - t0 < 10,
                  "round %d: the tag-%d message from rank %d never arrived",
                  k, 10 + k, peer);
        }
        tl_fill(out, N, tl_rank(), 20 + k);
        CHECK_MPI(MPI_Isend(out, N, MPI_BYTE, peer, 20 + k, MPI_COMM_WORLD,
                         &sreq));
        wait_round(k, &req, &sreq, &st);
        CHECK_STATUS(st, peer, 10 + k, N, "%s of a receive already done",
                     wait_name[k]);
        CHECK_PATTERN(in, N, peer, 10 + k, "%s of a receive already done",
                      wait_name[k]);
        CHECK_MPI(MPI_Recv(echo, N, MPI_BYTE, peer, 30 + k, MPI_COMM_WORLD, &st));
        CHECK_PATTERN(echo, N, tl_rank(), 20 + k,
                      "the partner's echo of the MPI_Isend posted before %s",
                      wait_name[k]);
    }
}

static void partner(void)
{
    unsigned char out[N], got[N];
    for (int k = 0; k < ROUNDS; k++) {
        MPI_Status st;
        tl_fill(out, N, tl_rank(), 10 + k);
        CHECK_MPI(MPI_Send(out, N, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD));
        CHECK_MPI(MPI_Recv(got, N, MPI_BYTE, peer, 20 + k, MPI_COMM_WORLD, &st));
        CHECK_STATUS(st, peer, 20 + k, N, "round %d: the leader's MPI_Isend "
                     "posted before %s", k, wait_name[k]);
        CHECK_MPI(MPI_Send(got, N, MPI_BYTE, peer, 30 + k, MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    peer = tl_partner();
    if (peer != MPI_PROC_NULL) {
        if (tl_leads())
            leader();
        else
            partner();
    }
    return tl_finalize();
}
