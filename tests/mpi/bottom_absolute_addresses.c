/* bottom_absolute_addresses: MPI_BOTTOM with a datatype of absolute
 * addresses is a valid buffer for sends, receives and probes.
 *
 * MPI 4.1 §5.1.12: with buf = MPI_BOTTOM, a datatype built from
 * MPI_Get_address displacements names the data by absolute address.  The
 * lower rank of each pair sends, through such a struct type over three
 * separate variables (an int, a double array, a char array), one message
 * small enough to be aggregated and one large enough to travel on its own,
 * with MPI_Send and with MPI_Isend; its partner probes each one (the
 * status must count the struct's bytes) and receives it through MPI_BOTTOM
 * with a type of its own variables' addresses, with MPI_Recv and with
 * MPI_Irecv.  Every variable must hold what was sent.
 */
#include "testlib.h"

#define TAG 61

typedef struct {
    int *i;
    double *d;
    char *c;
    int nd, nc;
} parts;

static MPI_Datatype absolute_type(const parts *p)
{
    int lens[3] = {1, p->nd, p->nc};
    MPI_Aint at[3];
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    CHECK_MPI(MPI_Get_address(p->i, &at[0]));
    CHECK_MPI(MPI_Get_address(p->d, &at[1]));
    CHECK_MPI(MPI_Get_address(p->c, &at[2]));
    CHECK_MPI(MPI_Type_create_struct(3, lens, at, types, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    return t;
}

static parts parts_new(int nd, int nc)
{
    parts p = {tl_malloc(sizeof(int)), tl_malloc(sizeof(double) * (size_t)nd),
               tl_malloc((size_t)nc), nd, nc};
    return p;
}

static void parts_free(parts *p)
{
    free(p->i);
    free(p->d);
    free(p->c);
}

static void parts_fill(parts *p, long v)
{
    *p->i = (int)v;
    for (int k = 0; k < p->nd; k++)
        p->d[k] = (double)v + k * 0.5;
    for (int k = 0; k < p->nc; k++)
        p->c[k] = (char)(v + k);
}

static void parts_check(const parts *p, long v, const char *how)
{
    int ok = *p->i == (int)v;
    for (int k = 0; k < p->nd; k++)
        ok = ok && p->d[k] == (double)v + k * 0.5;
    for (int k = 0; k < p->nc; k++)
        ok = ok && p->c[k] == (char)(v + k);
    CHECK(ok, "%s: every variable named by absolute address must hold what "
              "was sent (message %ld): int %d, double[0] %g",
          how, v, *p->i, p->d[0]);
}

static void one_size(int peer, int nd, int nc, long v)
{
    parts p = parts_new(nd, nc);
    MPI_Datatype t = absolute_type(&p);
    int bytes = (int)sizeof(int) + nd * (int)sizeof(double) + nc;
    if (tl_leads()) {
        parts_fill(&p, v);
        CHECK_MPI(MPI_Send(MPI_BOTTOM, 1, t, peer, TAG, MPI_COMM_WORLD));
        parts_fill(&p, v + 1);
        MPI_Request r;
        CHECK_MPI(MPI_Isend(MPI_BOTTOM, 1, t, peer, TAG, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        MPI_Status st;
        CHECK_MPI(MPI_Probe(peer, TAG, MPI_COMM_WORLD, &st));
        int count = -1;
        CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
        CHECK(count == bytes, "a probe of an MPI_BOTTOM message must count its "
                              "%d bytes, got %d", bytes, count);
        parts_fill(&p, -1);
        CHECK_MPI(MPI_Recv(MPI_BOTTOM, 1, t, peer, TAG, MPI_COMM_WORLD, &st));
        CHECK_MPI(MPI_Get_count(&st, t, &count));
        CHECK(count == 1, "MPI_Get_count with the struct type must be 1, got %d",
              count);
        parts_check(&p, v, "MPI_Recv into MPI_BOTTOM");
        parts_fill(&p, -1);
        MPI_Request r;
        CHECK_MPI(MPI_Irecv(MPI_BOTTOM, 1, t, peer, TAG, MPI_COMM_WORLD, &r));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        parts_check(&p, v + 1, "MPI_Irecv into MPI_BOTTOM");
    }
    CHECK_MPI(MPI_Type_free(&t));
    parts_free(&p);
}

int main(int argc, char **argv)
{
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    int peer = tl_partner();
    if (peer != MPI_PROC_NULL) {
        one_size(peer, 4, 5, 10);        /* 41 bytes: aggregated */
        one_size(peer, 16384, 100, 20);  /* 128 KiB: on its own */
    } else {
        CHECK(1, "the rank without a partner takes no part");
    }
    return tl_finalize();
}
