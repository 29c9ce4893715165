/* file_requests_in_waitall: nonblocking file accesses (MPI_File_iwrite_at,
 * MPI_File_iread_at) complete under every completion call, alone and mixed
 * in one array with point-to-point requests and a nonblocking barrier.
 *
 * MPI 4.1 §14.6 makes a nonblocking file access a request like any other:
 * MPI_Wait, MPI_Waitall, MPI_Waitany, MPI_Waitsome and the Test calls
 * complete it (§3.7.3-3.7.5), and its status gives the number of elements
 * accessed (MPI_Get_count, §14.4.2).  ROMIO makes such a request a
 * generalized request that it progresses only from MPICH's Test and Wait
 * calls (its poll_fn), never from MPI_Request_get_status, so a completion
 * call that watches requests with MPI_Request_get_status before completing
 * them would wait for ever.  Each access is checked by the data read back
 * and by the counts of the statuses, on a file opened on MPI_COMM_SELF and
 * on one opened on MPI_COMM_WORLD (each rank its own region).
 */
#include "testlib.h"

/* TESTALL is left out (NMODES): MPICH 4.0.2's MPI_Testall over two or more
 * pending file accesses fails an assertion on a request's reference count
 * now and then (its own bug, with or without Omnibus). */
enum { WAITALL, WAITALL_IGNORE, WAITANY, WAITSOME, WAIT, TESTANY, TESTSOME,
       TEST, NMODES, TESTALL = NMODES };
static const char *mode_name[NMODES + 1] = {
    "MPI_Waitall", "MPI_Waitall (statuses ignored)", "MPI_Waitany",
    "MPI_Waitsome", "MPI_Wait", "MPI_Testany", "MPI_Testsome", "MPI_Test",
    "MPI_Testall"};

#define NBLK 3
#define MAXN 8
#define REGION 4096 /* bytes of the shared file per rank */

static int blk_len(int k) { return 100 * (k + 1) + 7; }
static int blk_off(int k) { return 64 * k * (k + 1); } /* disjoint */

/* Completes every request of reqs[0..n) by `mode`; st[i] is request i's
 * status (untouched with WAITALL_IGNORE).  Every call must succeed and
 * leave each request MPI_REQUEST_NULL. */
static void complete(int mode, int n, MPI_Request reqs[], MPI_Status st[],
                     const char *what)
{
    int done[MAXN] = {0}, ndone = 0, flag = 0, idx, out, ind[MAXN];
    MPI_Status tmp[MAXN];
    double t0 = tl_now();
    switch (mode) {
    case WAITALL:
        CHECK_MPI(MPI_Waitall(n, reqs, st));
        break;
    case WAITALL_IGNORE:
        CHECK_MPI(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE));
        break;
    case TESTALL:
        while (!flag) {
            CHECK_MPI(MPI_Testall(n, reqs, &flag, st));
            CHECK(flag || tl_now() - t0 < 20, "%s: MPI_Testall never "
                  "completed the requests", what);
        }
        break;
    case WAIT:
    case TEST:
        for (int i = 0; i < n; i++) {
            if (mode == WAIT)
                CHECK_MPI(MPI_Wait(&reqs[i], &st[i]));
            else
                for (flag = 0; !flag;) {
                    CHECK_MPI(MPI_Test(&reqs[i], &flag, &st[i]));
                    CHECK(flag || tl_now() - t0 < 20, "%s: MPI_Test never "
                          "completed request %d", what, i);
                }
        }
        break;
    case WAITANY:
    case TESTANY:
        for (;;) {
            MPI_Status s;
            if (mode == WAITANY)
                CHECK_MPI(MPI_Waitany(n, reqs, &idx, &s));
            else {
                CHECK_MPI(MPI_Testany(n, reqs, &idx, &flag, &s));
                CHECK(flag || tl_now() - t0 < 20, "%s: MPI_Testany never "
                      "completed a request", what);
                if (!flag)
                    continue;
            }
            if (idx == MPI_UNDEFINED)
                break;
            CHECK(idx >= 0 && idx < n && !done[idx], "%s: %s returned index "
                  "%d, already completed or out of range", what,
                  mode_name[mode], idx);
            done[idx] = 1;
            ndone++;
            st[idx] = s;
        }
        CHECK(ndone == n, "%s: %s completed %d of %d requests", what,
              mode_name[mode], ndone, n);
        break;
    case WAITSOME:
    case TESTSOME:
        for (;;) {
            if (mode == WAITSOME)
                CHECK_MPI(MPI_Waitsome(n, reqs, &out, ind, tmp));
            else {
                CHECK_MPI(MPI_Testsome(n, reqs, &out, ind, tmp));
                CHECK(out != 0 || tl_now() - t0 < 20, "%s: MPI_Testsome "
                      "never completed a request", what);
            }
            if (out == MPI_UNDEFINED)
                break;
            CHECK(mode == TESTSOME || out > 0, "%s: MPI_Waitsome returned "
                  "outcount 0", what);
            for (int k = 0; k < out; k++) {
                CHECK(ind[k] >= 0 && ind[k] < n && !done[ind[k]], "%s: %s "
                      "returned index %d, already completed or out of "
                      "range", what, mode_name[mode], ind[k]);
                done[ind[k]] = 1;
                ndone++;
                st[ind[k]] = tmp[k];
            }
        }
        CHECK(ndone == n, "%s: %s completed %d of %d requests", what,
              mode_name[mode], ndone, n);
        break;
    }
    for (int i = 0; i < n; i++)
        CHECK(reqs[i] == MPI_REQUEST_NULL, "%s: after %s request %d is not "
              "MPI_REQUEST_NULL", what, mode_name[mode], i);
}

static void check_count(int mode, const MPI_Status *st, int expect,
                        const char *what, int i)
{
    if (mode == WAITALL_IGNORE)
        return;
    int cnt = -2;
    CHECK_MPI(MPI_Get_count(st, MPI_BYTE, &cnt));
    CHECK(cnt == expect, "%s: request %d's status must count %d bytes, "
          "counts %d", what, i, expect, cnt);
}

/* Writes NBLK blocks at base and reads them back, each phase completed by
 * `mode`; with `mixed`, each phase's array also holds a receive from the
 * left neighbour, a send to the right one and a nonblocking barrier. */
static void round_trip(MPI_File fh, MPI_Offset base, int mode, int mixed,
                       const char *file, long msg)
{
    static unsigned char wbuf[NBLK][512], rbuf[NBLK][512];
    unsigned char sbuf[64], pbuf[64];
    MPI_Request reqs[MAXN];
    MPI_Status st[MAXN];
    int pos[NBLK], n, irecv = -1, me = tl_rank();
    char what[200];
    for (int phase = 0; phase < 2; phase++) {
        snprintf(what, sizeof what, "%s %s on the %s file, %s", mixed ?
                 "mixed" : "file-only", phase ? "reads" : "writes", file,
                 mode_name[mode]);
        n = 0;
        if (mixed) {
            tl_fill(sbuf, sizeof sbuf, me, msg + phase);
            memset(pbuf, 0, sizeof pbuf);
            irecv = n;
            CHECK_MPI(MPI_Irecv(pbuf, sizeof pbuf, MPI_BYTE, tl_left(1), 9,
                             MPI_COMM_WORLD, &reqs[n++]));
        }
        for (int k = 0; k < NBLK; k++) {
            pos[k] = n;
            if (phase == 0) {
                tl_fill(wbuf[k], (size_t)blk_len(k), me, msg + 10 * k);
                CHECK_MPI(MPI_File_iwrite_at(fh, base + blk_off(k), wbuf[k],
                                          blk_len(k), MPI_BYTE, &reqs[n++]));
            } else {
                memset(rbuf[k], 0, sizeof rbuf[k]);
                CHECK_MPI(MPI_File_iread_at(fh, base + blk_off(k), rbuf[k],
                                         blk_len(k), MPI_BYTE, &reqs[n++]));
            }
            if (mixed && k == 0)
                CHECK_MPI(MPI_Isend(sbuf, sizeof sbuf, MPI_BYTE, tl_right(1), 9,
                                 MPI_COMM_WORLD, &reqs[n++]));
            if (mixed && k == 1)
                CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &reqs[n++]));
        }
        for (int i = 0; i < n; i++) { /* sentinels */
            memset(&st[i], 0, sizeof st[i]);
            st[i].MPI_SOURCE = st[i].MPI_TAG = -77;
        }
        complete(mode, n, reqs, st, what);
        for (int k = 0; k < NBLK; k++) {
            check_count(mode, &st[pos[k]], blk_len(k), what, pos[k]);
            if (phase == 1)
                CHECK_PATTERN(rbuf[k], (size_t)blk_len(k), me, msg + 10 * k,
                              "%s: block %d read back", what, k);
        }
        if (mixed) {
            CHECK_PATTERN(pbuf, sizeof pbuf, tl_left(1), msg + phase,
                          "%s: the message received from rank %d", what,
                          tl_left(1));
            if (mode != WAITALL_IGNORE)
                CHECK_STATUS(st[irecv], tl_left(1), 9, sizeof pbuf,
                             "%s: the receive's status", what);
        }
    }
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int me = tl_rank();
    int pid = (int)getpid();
    CHECK_MPI(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    char self_path[256], world_path[256];
    snprintf(self_path, sizeof self_path, "/tmp/omnibus_frw_%d_self_%d", pid,
             me);
    snprintf(world_path, sizeof world_path, "/tmp/omnibus_frw_%d_world",
             pid);
    MPI_File self_fh, world_fh;
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE;
    CHECK_MPI(MPI_File_open(MPI_COMM_SELF, self_path, amode, MPI_INFO_NULL,
                         &self_fh));
    CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, world_path, amode, MPI_INFO_NULL,
                         &world_fh));
    long msg = 0;
    for (int mixed = 0; mixed < 2; mixed++)
        for (int mode = 0; mode < NMODES; mode++) {
            round_trip(self_fh, 0, mode, mixed, "MPI_COMM_SELF", msg += 100);
            round_trip(world_fh, (MPI_Offset)me * REGION, mode, mixed,
                       "MPI_COMM_WORLD", msg += 100);
        }
    CHECK_MPI(MPI_File_close(&self_fh));
    CHECK_MPI(MPI_File_close(&world_fh));
    return tl_finalize();
}
