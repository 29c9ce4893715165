/* large_count_variants: every large-count (_c) point-to-point call.
 *
 * MPI 4.1 §3 (and §19.3 on large counts): each MPI_X_c behaves as MPI_X
 * with MPI_Count counts.  Each call below moves one message between ring
 * neighbours, in order with the others on the same tag, and checks content
 * and MPI_Get_count_c.  Small (8 B) and large (50 KB) payloads.
 */
#include "testlib.h"

#define BIG 50000

static int me, n, right, left;
static unsigned char sbuf[BIG], rbuf[BIG];

static void expect(MPI_Status *st, MPI_Count len, long id, const char *call)
{
    MPI_Count got = -1;
    MPI_Get_count_c(st, MPI_BYTE, &got);
    CHECK(got == len, "%s: MPI_Get_count_c must be %lld, got %lld", call,
          (long long)len, (long long)got);
    CHECK(st->MPI_SOURCE == left, "%s: the source must be %d, got %d", call,
          left, st->MPI_SOURCE);
    CHECK_PATTERN(rbuf, (size_t)len, left, id, "%s: content", call);
}

static void one_round(MPI_Count len, long id)
{
    MPI_Status st;
    MPI_Request r[2];
    char name[64];
    tl_fill(sbuf, (size_t)len, me, id);

    snprintf(name, sizeof name, "MPI_Send_c/MPI_Recv_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Irecv_c(rbuf, BIG, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Send_c(sbuf, len, MPI_BYTE, right, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r[0], &st));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "MPI_Isend_c/MPI_Recv_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Isend_c(sbuf, len, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Recv_c(rbuf, BIG, MPI_BYTE, left, 1, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "MPI_Issend_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Irecv_c(rbuf, BIG, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Issend_c(sbuf, len, MPI_BYTE, right, 1, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_MPI(MPI_Sendrecv_c(sbuf, 0, MPI_BYTE, right, 9, rbuf + BIG - 1, 0,
                          MPI_BYTE, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_PATTERN(rbuf, (size_t)len, left, id, "%s: content", name);

    snprintf(name, sizeof name, "MPI_Ssend_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Irecv_c(rbuf, BIG, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Ssend_c(sbuf, len, MPI_BYTE, right, 1, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r[0], &st));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "MPI_Rsend_c/MPI_Irsend_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Irecv_c(rbuf, BIG, MPI_BYTE, left, 2, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Rsend_c(sbuf, len, MPI_BYTE, right, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r[0], &st));
    expect(&st, len, id, name);
    CHECK_MPI(MPI_Irecv_c(rbuf, BIG, MPI_BYTE, left, 2, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_MPI(MPI_Irsend_c(sbuf, len, MPI_BYTE, right, 2, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_PATTERN(rbuf, (size_t)len, left, id, "%s: content", name);

    snprintf(name, sizeof name, "MPI_Bsend_c/MPI_Ibsend_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Bsend_c(sbuf, len, MPI_BYTE, right, 3, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv_c(rbuf, BIG, MPI_BYTE, left, 3, MPI_COMM_WORLD, &st));
    expect(&st, len, id, name);
    CHECK_MPI(MPI_Ibsend_c(sbuf, len, MPI_BYTE, right, 3, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Recv_c(rbuf, BIG, MPI_BYTE, left, 3, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "MPI_Sendrecv_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Sendrecv_c(sbuf, len, MPI_BYTE, right, 4, rbuf, BIG, MPI_BYTE,
                          left, 4, MPI_COMM_WORLD, &st));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "MPI_Sendrecv_replace_c (%lld B)", (long long)len);
    memcpy(rbuf, sbuf, (size_t)len);
    CHECK_MPI(MPI_Sendrecv_replace_c(rbuf, len, MPI_BYTE, right, 5, left, 5,
                                  MPI_COMM_WORLD, &st));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "MPI_Isendrecv_c (%lld B)", (long long)len);
    CHECK_MPI(MPI_Isendrecv_c(sbuf, len, MPI_BYTE, right, 6, rbuf, BIG, MPI_BYTE,
                           left, 6, MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK_PATTERN(rbuf, (size_t)len, left, id, "%s: content", name);

    snprintf(name, sizeof name, "MPI_Isendrecv_replace_c (%lld B)", (long long)len);
    memcpy(rbuf, sbuf, (size_t)len);
    CHECK_MPI(MPI_Isendrecv_replace_c(rbuf, len, MPI_BYTE, right, 7, left, 7,
                                   MPI_COMM_WORLD, &r[0]));
    CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
    CHECK_PATTERN(rbuf, (size_t)len, left, id, "%s: content", name);

    snprintf(name, sizeof name, "MPI_Mprobe/MPI_Mrecv_c/MPI_Imrecv_c (%lld B)",
             (long long)len);
    MPI_Message msg;
    CHECK_MPI(MPI_Isend_c(sbuf, len, MPI_BYTE, right, 8, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Mprobe(left, 8, MPI_COMM_WORLD, &msg, &st));
    CHECK_MPI(MPI_Mrecv_c(rbuf, BIG, MPI_BYTE, &msg, &st));
    CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    expect(&st, len, id, name);
    CHECK_MPI(MPI_Isend_c(sbuf, len, MPI_BYTE, right, 8, MPI_COMM_WORLD, &r[1]));
    CHECK_MPI(MPI_Mprobe(left, 8, MPI_COMM_WORLD, &msg, &st));
    CHECK_MPI(MPI_Imrecv_c(rbuf, BIG, MPI_BYTE, &msg, &r[0]));
    CHECK_MPI(MPI_Wait(&r[0], &st));
    CHECK_MPI(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
    expect(&st, len, id, name);

    snprintf(name, sizeof name, "persistent _c (%lld B)", (long long)len);
    MPI_Request p[6];
    CHECK_MPI(MPI_Recv_init_c(rbuf, BIG, MPI_BYTE, left, 10, MPI_COMM_WORLD, &p[0]));
    CHECK_MPI(MPI_Send_init_c(sbuf, len, MPI_BYTE, right, 10, MPI_COMM_WORLD, &p[1]));
    CHECK_MPI(MPI_Ssend_init_c(sbuf, len, MPI_BYTE, right, 10, MPI_COMM_WORLD, &p[2]));
    CHECK_MPI(MPI_Bsend_init_c(sbuf, len, MPI_BYTE, right, 10, MPI_COMM_WORLD, &p[3]));
    CHECK_MPI(MPI_Rsend_init_c(sbuf, len, MPI_BYTE, right, 10, MPI_COMM_WORLD, &p[4]));
    for (int k = 1; k <= 4; k++) {
        CHECK_MPI(MPI_Start(&p[0]));
        CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* the ready send needs it */
        CHECK_MPI(MPI_Start(&p[k]));
        CHECK_MPI(MPI_Wait(&p[0], &st));
        CHECK_MPI(MPI_Wait(&p[k], MPI_STATUS_IGNORE));
        expect(&st, len, id, name);
    }
    for (int k = 0; k <= 4; k++)
        CHECK_MPI(MPI_Request_free(&p[k]));
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    me = tl_rank();
    n = tl_size();
    right = (me + 1) % n;
    left = (me + n - 1) % n;
    static char bsend_space[4 * (BIG + MPI_BSEND_OVERHEAD)];
    CHECK_MPI(MPI_Buffer_attach_c(bsend_space, sizeof bsend_space));
    one_round(8, 1);
    one_round(BIG, 2);
    void *addr;
    MPI_Count size;
    CHECK_MPI(MPI_Buffer_detach_c(&addr, &size));
    CHECK(size == (MPI_Count)sizeof bsend_space,
          "MPI_Buffer_detach_c must return the attached size %zu, got %lld",
          sizeof bsend_space, (long long)size);
    return tl_finalize();
}
