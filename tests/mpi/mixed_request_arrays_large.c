/* mixed_request_arrays_large: the multiple-completion calls over arrays of
 * more than 32 requests that mix receives on MPI_COMM_WORLD with requests
 * of every other kind and MPI_REQUEST_NULL.
 *
 * MPI 4.1 §3.7.3 and §3.7.5: any request handle may appear in any
 * completion call, whatever the length of the array.  MPI_REQUEST_NULL
 * entries are ignored; a completed nonpersistent request is freed and its
 * entry set to MPI_REQUEST_NULL, and no other entry changes.
 * MPI_Waitany/MPI_Testany return the index of one completed request, or
 * MPI_UNDEFINED (with flag true for Testany) when every entry is null,
 * with an empty status (source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0);
 * MPI_Testany with flag false returns index MPI_UNDEFINED.
 * MPI_Waitsome/MPI_Testsome return the indices of the requests they
 * completed, status k for indices[k], or outcount MPI_UNDEFINED when all
 * entries are null.  MPI_Waitall/MPI_Testall act as MPI_Wait on each
 * entry: status i is entry i's, empty for a null entry; MPI_Testall with
 * flag false changes no entry.  A receive's status carries its source (in
 * the remote group on an intercommunicator), tag and count; MPI_STATUSES_
 * IGNORE is legal in every one of these calls.
 *
 * Under Omnibus, a receive on a communicator it manages (MPI_COMM_WORLD)
 * gets a handle Omnibus owns and completes itself; the calls hand MPICH a
 * copy of the array with those entries nulled, malloc'ed past 32 entries.
 * A send above the threshold gets an Omnibus handle over MPICH's payload
 * request, and an array holding one is translated through a second copy,
 * malloc'ed past 16.  Every other request here is MPICH's own: small sends
 * (already complete, or a generalized request for MPI_Issend), nonblocking
 * collectives on a dup of MPI_COMM_WORLD, and sends and receives on an
 * intercommunicator, which Omnibus does not manage.
 *
 * Layout.  Every rank sends to its right neighbour and receives from its
 * left one on MPI_COMM_WORLD, and talks to its partner (testlib.h) on an
 * intercommunicator of the pairs (the rank without a partner at odd counts
 * leaves those entries null).  An array of n entries is built from blocks
 * of 20 (receives and sends of small, MPI_ANY_SOURCE, large and
 * synchronous messages, intercommunicator messages small and large,
 * MPI_Ibarriers, MPI_REQUEST_NULL, one MPI_Iallreduce) shuffled the same
 * way on every rank, padded with MPI_REQUEST_NULL to n (33, 40, 100).
 * Three layouts: everything in the array; only the receives on
 * MPI_COMM_WORLD and nulls (their sends outside); everything but those
 * receives (posted outside).
 *
 * Late messages.  Some receives in the array get their message only when
 * the receiving rank says so.  Once it has completed every other entry it
 * sends a "go" to the senders of one kind of late receive (on
 * MPI_COMM_WORLD, Omnibus's, or on the intercommunicator, MPICH's,
 * alternating between rounds); once those receives are complete, and its
 * own go receive of that kind, it sends the go for the other kind.  A
 * sender sends its late messages when it completes the go, a receive in
 * its own array, so that MPI_Waitany and MPI_Waitsome may block without
 * any rank waiting on one that cannot act; MPI_Testall polls the go
 * outside its array, and MPI_Waitall rounds send everything at once.  So
 * in every round each rank's calls run, and block, with every MPICH
 * request of the array complete and Omnibus's receives pending, or the
 * other way round; a late receive must not complete before its go; and
 * MPI_Testall must answer false, changing nothing, while one has had no
 * message.
 */
#include "testlib.h"

#define BLOCK 20
#define MAXN 100
#define MAXMSG (MAXN / BLOCK * 10)
#define SLACK 16 /* receive buffers are this much larger than the message */
#define GUARD 0xEE
#define LIMIT 15.0 /* seconds a completion loop may take */

enum cls { W_SMALL, W_ANY, W_LARGE, W_SYNC, I_SMALL, I_LARGE };
static const char *cls_name[] = {
    "small receive on MPI_COMM_WORLD",
    "MPI_ANY_SOURCE receive on MPI_COMM_WORLD",
    "large receive on MPI_COMM_WORLD",
    "receive of an MPI_Issend on MPI_COMM_WORLD",
    "small receive on the intercommunicator",
    "large receive on the intercommunicator"};
#define IS_INTER(c) ((c) == I_SMALL || (c) == I_LARGE)

enum kind { K_NULL, K_RECV, K_SEND, K_IBARRIER, K_IALLREDUCE, K_GO };
enum layout { MIXED, RECVS_ONLY, NO_RECVS, NLAYOUTS };
static const char *layout_name[] = {
    "mixed",
    "only receives on MPI_COMM_WORLD and nulls",
    "everything but receives on MPI_COMM_WORLD"};
enum { G_WORLD, G_INTER }; /* groups of late messages */
static const char *group_name[] = {"MPI_COMM_WORLD", "the intercommunicator"};
/* Where the go messages travel: in the array (the any and some calls),
 * outside it (MPI_Testall), or not at all (MPI_Waitall: all sent at once). */
enum { GO_NONE, GO_IN_ARRAY, GO_OUTSIDE };
#define GO_TAG 28000

struct msg {
    int cls, bytes, tag;
    long id;        /* payload pattern number */
    int late;       /* sent only at its group's stage (below) */
    int recv_slot;  /* array position, or -1: posted outside the array */
    int send_slot;  /* array position, or -1: sent outside the array */
    int skip;       /* intercommunicator message on the rank without one */
    unsigned char *sbuf, *rbuf;
    MPI_Request side_send, side_recv;
};

struct slot {
    int kind, msg;
};

struct round {
    char how[160];
    int n, layout, go;
    long id;
    struct slot s[MAXN];     /* K_GO: msg is the group */
    MPI_Request req[MAXN];
    int active0[MAXN]; /* entry was active when the round started */
    int seen[MAXN];    /* reported complete */
    int active, ndone;
    struct msg m[MAXMSG];
    int nm;
    int first;          /* the group whose go is sent first */
    int takes_part[2];  /* this rank has late messages of the group */
    int nlate[2];       /* late receives in this rank's array, by group */
    int late_done[2];
    int nplain, plain_done; /* the other entries, go receives excepted */
    int go_sent[2], released[2];
    int go_wait[2], go_got[2]; /* go receive of the group in the array */
    int go_out[2], go_in[2];
    MPI_Request go_send[2], go_recv[2]; /* go_recv: outside the array */
    long sum_in, sum_out;
};

/* The job's fixed context. */
static int me, np, left, right;
static MPI_Comm dup_world, inter = MPI_COMM_NULL;
static int inter_peer = -1; /* remote rank of the partner, own local rank */
static long next_round;

/* ---- building a round ------------------------------------------------ */

static void push(struct slot *list, int *len, int kind, int msg)
{
    list[*len].kind = kind;
    list[*len].msg = msg;
    (*len)++;
}

/* One message: where its receive and send go depends on the layout.  A
 * late message takes one entry (its receive; its send stays outside),
 * any other two, in every layout, so that all arrays have the same shape:
 *   mixed:      receive and send in the array;
 *   receives:   receives on MPI_COMM_WORLD in the array, their sends
 *               outside; no intercommunicator message (null entries);
 *   no receives: receives on MPI_COMM_WORLD outside the array (none late),
 *               everything else as in mixed. */
static void add_msg(struct round *r, struct slot *list, int *len, int cls,
                    int late)
{
    int inter_cls = IS_INTER(cls), nslots = late ? 1 : 2;
    if (r->layout == RECVS_ONLY && inter_cls) {
        for (int k = 0; k < nslots; k++)
            push(list, len, K_NULL, -1);
        return;
    }
    int recv_in = !(r->layout == NO_RECVS && !inter_cls);
    int send_in = r->layout != RECVS_ONLY && (late == 0 || !recv_in);
    if (!recv_in)
        late = 0; /* its receive is outside: nothing waits for a stage */
    int j = r->nm++;
    struct msg *m = &r->m[j];
    int small = 1 + (j * 13) % 48;
    int big = j % 2 ? 70000 + j : 3000 + j * 7;
    *m = (struct msg){
        .cls = cls,
        .bytes = cls == W_LARGE || cls == I_LARGE ? big : small,
        .tag = (int)(r->id % 90) * 300 + j + 1,
        .id = r->id * 100 + j,
        .late = late,
        .recv_slot = -1,
        .send_slot = -1,
        .skip = inter_cls && inter == MPI_COMM_NULL,
        .side_send = MPI_REQUEST_NULL,
        .side_recv = MPI_REQUEST_NULL,
    };
    if (recv_in)
        push(list, len, K_RECV, j);
    else if (nslots == 2)
        push(list, len, K_NULL, -1);
    if (send_in)
        push(list, len, K_SEND, j);
    else if (nslots == 2)
        push(list, len, K_NULL, -1);
}

static void build(struct round *r)
{
    struct slot list[MAXN];
    int len = 0;
    int coll = r->layout != RECVS_ONLY;
    for (int b = 0; b < r->n / BLOCK; b++) {
        add_msg(r, list, &len, W_SMALL, 0);
        add_msg(r, list, &len, W_SMALL, 0);
        add_msg(r, list, &len, W_ANY, 0);
        add_msg(r, list, &len, W_LARGE, 0);
        add_msg(r, list, &len, W_SYNC, 0);
        add_msg(r, list, &len, I_SMALL, 0);
        add_msg(r, list, &len, I_LARGE, 0);
        add_msg(r, list, &len, W_SMALL, 1);
        add_msg(r, list, &len, I_SMALL, 1);
        push(list, &len, coll ? K_IBARRIER : K_NULL, -1);
        push(list, &len, coll ? K_IBARRIER : K_NULL, -1);
        push(list, &len, coll && b == 0 ? K_IALLREDUCE : K_NULL, -1);
        push(list, &len, K_NULL, -1);
    }
    while (len < r->n)
        push(list, &len, K_NULL, -1);
    if (len != r->n)
        FAIL("internal: built %d entries for an array of %d", len, r->n);
    /* The go receives take the first null entries, for the groups that
     * have late messages in this layout. */
    int late_in[2] = {r->layout != NO_RECVS, r->layout != RECVS_ONLY};
    for (int g = 0; g < 2; g++)
        for (int i = 0; r->go == GO_IN_ARRAY && late_in[g] && i < len; i++)
            if (list[i].kind == K_NULL) {
                list[i].kind = K_GO;
                list[i].msg = g;
                break;
            }
    /* The same shuffle on every rank: a fixed generator. */
    unsigned long x = 12345u + (unsigned long)r->n * 77u +
                      (unsigned long)r->layout;
    for (int i = r->n - 1; i > 0; i--) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        int k = (int)((x >> 33) % (unsigned long)(i + 1));
        struct slot t = list[i];
        list[i] = list[k];
        list[k] = t;
    }
    for (int i = 0; i < r->n; i++) {
        r->s[i] = list[i];
        if (list[i].kind == K_RECV)
            r->m[list[i].msg].recv_slot = i;
        else if (list[i].kind == K_SEND)
            r->m[list[i].msg].send_slot = i;
    }
    for (int j = 0; j < r->nm; j++)
        if (r->m[j].late && !r->m[j].skip)
            r->takes_part[IS_INTER(r->m[j].cls) ? G_INTER : G_WORLD] = 1;
}

static int group_of(const struct msg *m)
{
    return IS_INTER(m->cls) ? G_INTER : G_WORLD;
}

/* The world rank a message on this rank comes from. */
static int sender_world(const struct msg *m)
{
    return IS_INTER(m->cls) ? tl_partner() : left;
}

static void post_recv(struct msg *m, MPI_Request *q)
{
    if (IS_INTER(m->cls))
        CHECK_MPI(MPI_Irecv(m->rbuf, m->bytes + SLACK, MPI_BYTE, inter_peer,
                         m->tag, inter, q));
    else
        CHECK_MPI(MPI_Irecv(m->rbuf, m->bytes + SLACK, MPI_BYTE,
                         m->cls == W_ANY ? MPI_ANY_SOURCE : left, m->tag,
                         MPI_COMM_WORLD, q));
}

static void post_send(struct msg *m, MPI_Request *q)
{
    if (IS_INTER(m->cls))
        CHECK_MPI(MPI_Isend(m->sbuf, m->bytes, MPI_BYTE, inter_peer, m->tag,
                         inter, q));
    else if (m->cls == W_SYNC)
        CHECK_MPI(MPI_Issend(m->sbuf, m->bytes, MPI_BYTE, right, m->tag,
                          MPI_COMM_WORLD, q));
    else
        CHECK_MPI(MPI_Isend(m->sbuf, m->bytes, MPI_BYTE, right, m->tag,
                         MPI_COMM_WORLD, q));
}

/* The go of group g comes from the rank this one sends late messages of
 * that group to, and goes to the rank it receives them from. */
static int go_tag(const struct round *r, int g)
{
    return GO_TAG + (int)(r->id % 90) * 2 + g;
}

static void post_go_recv(struct round *r, int g, MPI_Request *q)
{
    if (g == G_INTER)
        CHECK_MPI(MPI_Irecv(&r->go_in[g], 1, MPI_INT, inter_peer, go_tag(r, g),
                         inter, q));
    else
        CHECK_MPI(MPI_Irecv(&r->go_in[g], 1, MPI_INT, right, go_tag(r, g),
                         MPI_COMM_WORLD, q));
}

static void send_go(struct round *r, int g)
{
    if (r->go_sent[g])
        return;
    r->go_sent[g] = 1;
    if (!r->takes_part[g])
        return;
    r->go_out[g] = (int)r->id;
    if (g == G_INTER)
        CHECK_MPI(MPI_Isend(&r->go_out[g], 1, MPI_INT, inter_peer, go_tag(r, g),
                         inter, &r->go_send[g]));
    else
        CHECK_MPI(MPI_Isend(&r->go_out[g], 1, MPI_INT, left, go_tag(r, g),
                         MPI_COMM_WORLD, &r->go_send[g]));
}

/* Builds and starts a round: every entry of the array in array order (the
 * collectives in the same order on every rank), then the receives and the
 * sends outside the array that are not late. */
static void start(struct round *r, const char *call, int n, int layout,
                  int ignore, int go)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->layout = layout;
    r->go = go;
    r->id = next_round++;
    /* main runs six calls per setting, with statuses and then without:
     * each call gets both orders, with statuses and without, in turn. */
    r->first = (r->id + r->id / 6 + r->id / 12) % 2 ? G_INTER : G_WORLD;
    snprintf(r->how, sizeof r->how, "%s over %d requests (%s%s)", call, n,
             layout_name[layout], ignore ? "; statuses ignored" : "");
    build(r);
    for (int g = 0; g < 2; g++) {
        r->go_send[g] = MPI_REQUEST_NULL;
        r->go_recv[g] = MPI_REQUEST_NULL;
    }
    for (int j = 0; j < r->nm; j++) {
        struct msg *m = &r->m[j];
        m->sbuf = tl_malloc((size_t)m->bytes);
        m->rbuf = tl_malloc((size_t)m->bytes + SLACK);
        tl_fill(m->sbuf, (size_t)m->bytes, me, m->id);
        memset(m->rbuf, GUARD, (size_t)m->bytes + SLACK);
        if (m->late && m->recv_slot >= 0 && !m->skip)
            r->nlate[group_of(m)]++;
    }
    r->sum_in = me + 1 + r->id;
    for (int i = 0; i < n; i++) {
        MPI_Request *q = &r->req[i];
        struct msg *m = r->s[i].kind == K_RECV || r->s[i].kind == K_SEND
                            ? &r->m[r->s[i].msg]
                            : NULL;
        *q = MPI_REQUEST_NULL;
        switch (r->s[i].kind) {
        case K_NULL:
            break;
        case K_RECV:
            if (!m->skip)
                post_recv(m, q);
            break;
        case K_SEND:
            if (!m->skip)
                post_send(m, q);
            break;
        case K_IBARRIER:
            CHECK_MPI(MPI_Ibarrier(dup_world, q));
            break;
        case K_IALLREDUCE:
            CHECK_MPI(MPI_Iallreduce(&r->sum_in, &r->sum_out, 1, MPI_LONG,
                                  MPI_SUM, dup_world, q));
            break;
        case K_GO:
            if (r->takes_part[r->s[i].msg]) {
                post_go_recv(r, r->s[i].msg, q);
                r->go_wait[r->s[i].msg] = 1;
            }
            break;
        }
        r->active0[i] = *q != MPI_REQUEST_NULL;
        r->active += r->active0[i];
        if (r->active0[i] && r->s[i].kind != K_GO &&
            !(r->s[i].kind == K_RECV && m->late))
            r->nplain++;
    }
    for (int j = 0; j < r->nm; j++) {
        struct msg *m = &r->m[j];
        if (m->skip)
            continue;
        if (m->recv_slot < 0)
            post_recv(m, &m->side_recv);
        if (m->send_slot < 0 && !m->late)
            post_send(m, &m->side_send);
    }
    for (int g = 0; g < 2; g++)
        if (go == GO_OUTSIDE && r->takes_part[g])
            post_go_recv(r, g, &r->go_recv[g]);
}

/* Sends the late messages of group g (outside the array): its go came. */
static void release_group(struct round *r, int g)
{
    if (r->released[g])
        return;
    r->released[g] = 1;
    for (int j = 0; j < r->nm; j++) {
        struct msg *m = &r->m[j];
        if (m->late && !m->skip && group_of(m) == g)
            post_send(m, &m->side_send);
    }
}

/* The gos this rank owes: the first group's once every entry but the late
 * and go receives is complete; the second's once the first group's late
 * receives and its go receive are complete too, so that only receives of
 * the second group are left (its late ones, maybe its go).  Nothing waits
 * in a cycle: a go receive of the first group needs only its sender's
 * other entries. */
static void send_go_due(struct round *r)
{
    int first = r->first;
    if (r->plain_done < r->nplain)
        return;
    send_go(r, first);
    if (r->late_done[first] == r->nlate[first] &&
        (!r->go_wait[first] || r->go_got[first]))
        send_go(r, 1 - first);
}

/* The late messages whose go came: for the any and some calls it is a
 * receive in the array (check_done), for MPI_Testall one outside. */
static void poll_go_outside(struct round *r)
{
    for (int g = 0; g < 2; g++) {
        if (r->go_recv[g] == MPI_REQUEST_NULL)
            continue;
        int flag = 0;
        MPI_Status st;
        CHECK_MPI(MPI_Test(&r->go_recv[g], &flag, &st));
        if (flag)
            release_group(r, g);
    }
}

/* ---- checking ----------------------------------------------------------- */

/* Statuses a call must overwrite: source, tag and count that no real one
 * has. */
static void preset(MPI_Status *st, int n)
{
    for (int k = 0; k < n; k++) {
        st[k].MPI_SOURCE = -77;
        st[k].MPI_TAG = -77;
        MPI_Status_set_elements(&st[k], MPI_BYTE, 12345);
    }
}

static void check_empty(const MPI_Status *st, const char *how, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
              n == 0,
          "%s: %s must be empty (source MPI_ANY_SOURCE, tag MPI_ANY_TAG, "
          "count 0), got source %d tag %d count %d",
          how, what, st->MPI_SOURCE, st->MPI_TAG, n);
}

/* A receive's status and data; `where` is its index, or -1 outside the
 * array. */
static void check_received(const struct msg *m, const MPI_Status *st,
                           const char *how, int where)
{
    int src = IS_INTER(m->cls) ? inter_peer : left;
    char at[32] = "";
    if (where >= 0)
        snprintf(at, sizeof at, " at index %d", where);
    if (st)
        CHECK_STATUS(*st, src, m->tag, m->bytes, "%s: %s%s", how,
                     cls_name[m->cls], at);
    CHECK_PATTERN(m->rbuf, (size_t)m->bytes, sender_world(m), m->id,
                  "%s: %s%s", how, cls_name[m->cls], at);
    CHECK_FILLED(m->rbuf + m->bytes, SLACK, GUARD,
                 "%s: %s%s, past the %d bytes of the message", how,
                 cls_name[m->cls], at, m->bytes);
}

/* Entry i was reported complete; st is its status or NULL. */
static void check_done(struct round *r, int i, const MPI_Status *st)
{
    CHECK(i >= 0 && i < r->n,
          "%s returned index %d, outside the array of %d entries", r->how, i,
          r->n);
    CHECK(r->active0[i],
          "%s reported index %d complete, but that entry is MPI_REQUEST_NULL "
          "and must be ignored",
          r->how, i);
    CHECK(!r->seen[i],
          "%s reported index %d complete a second time: MPI completes each "
          "request once and sets its entry to MPI_REQUEST_NULL",
          r->how, i);
    CHECK(r->req[i] == MPI_REQUEST_NULL,
          "%s: the completed request at index %d must be set to "
          "MPI_REQUEST_NULL, is 0x%x",
          r->how, i, (unsigned)(uintptr_t)r->req[i]);
    r->seen[i] = 1;
    r->ndone++;
    switch (r->s[i].kind) {
    case K_RECV: {
        const struct msg *m = &r->m[r->s[i].msg];
        if (m->late) {
            CHECK(r->go_sent[group_of(m)],
                  "%s reported the late %s at index %d complete, but no "
                  "message has been sent to it yet (its sender waits for "
                  "this rank's go)",
                  r->how, cls_name[m->cls], i);
            r->late_done[group_of(m)]++;
        } else
            r->plain_done++;
        check_received(m, st, r->how, i);
        break;
    }
    case K_GO: {
        int g = r->s[i].msg;
        if (st)
            CHECK_STATUS(*st, g == G_INTER ? inter_peer : right,
                         go_tag(r, g), (int)sizeof(int),
                         "%s: go receive on %s at index %d", r->how,
                         group_name[g], i);
        CHECK(r->go_in[g] == (int)r->id,
              "%s: go receive on %s at index %d must hold %ld, holds %d",
              r->how, group_name[g], i, r->id, r->go_in[g]);
        r->go_got[g] = 1;
        release_group(r, g);
        break;
    }
    case K_IALLREDUCE: {
        long expect = 0;
        for (int k = 0; k < np; k++)
            expect += k + 1 + r->id;
        CHECK(r->sum_out == expect,
              "%s: MPI_Iallreduce(SUM) at index %d must give %ld, got %ld",
              r->how, i, expect, r->sum_out);
        r->plain_done++;
        break;
    }
    default:
        r->plain_done++;
        break;
    }
}

/* Every entry the call did not report must be as it was before. */
static void check_untouched(const struct round *r, const MPI_Request *before,
                            const int *reported)
{
    for (int i = 0; i < r->n; i++)
        if (!reported[i])
            CHECK(r->req[i] == before[i],
                  "%s changed entry %d (0x%x to 0x%x) without reporting it "
                  "complete; MPI changes only the entries it completes",
                  r->how, i, (unsigned)(uintptr_t)before[i], (unsigned)(uintptr_t)r->req[i]);
}

/* The round is over: every active entry reported once, all null; then the
 * operations outside the array complete and are checked. */
static void finish(struct round *r)
{
    CHECK(r->ndone == r->active,
          "%s must complete each of the %d active requests exactly once, "
          "completed %d",
          r->how, r->active, r->ndone);
    for (int i = 0; i < r->n; i++)
        CHECK(r->req[i] == MPI_REQUEST_NULL,
              "%s: entry %d must be MPI_REQUEST_NULL once everything is "
              "complete, is 0x%x",
              r->how, i, (unsigned)(uintptr_t)r->req[i]);
    /* A go polled outside the array may still be on its way: its late
     * messages go once it is here. */
    for (int g = 0; g < 2; g++)
        if (r->go_recv[g] != MPI_REQUEST_NULL) {
            CHECK_MPI(MPI_Wait(&r->go_recv[g], MPI_STATUS_IGNORE));
            release_group(r, g);
        }
    MPI_Request side[2 * MAXMSG + 4];
    MPI_Status sts[2 * MAXMSG + 4];
    int ns = 0;
    for (int j = 0; j < r->nm; j++) {
        side[ns++] = r->m[j].side_recv;
        side[ns++] = r->m[j].side_send;
    }
    for (int g = 0; g < 2; g++) {
        side[ns++] = r->go_send[g];
        side[ns++] = r->go_recv[g];
    }
    CHECK_MPI(MPI_Waitall(ns, side, sts));
    for (int j = 0; j < r->nm; j++) {
        const struct msg *m = &r->m[j];
        if (m->recv_slot < 0 && !m->skip)
            check_received(m, &sts[2 * j],
                           "MPI_Waitall on the receives outside the array",
                           -1);
        free(m->sbuf);
        free(m->rbuf);
    }
}

static void too_long(const struct round *r, double t0)
{
    CHECK(tl_now() - t0 < LIMIT,
          "%s: %d of %d requests still not complete after %.0f s, though "
          "every message was sent",
          r->how, r->active - r->ndone, r->active, LIMIT);
}

/* ---- the calls ---------------------------------------------------------- */

/* MPI_Waitany: each active entry exactly once, with its status, set to
 * MPI_REQUEST_NULL, no other entry changed; then MPI_UNDEFINED with an
 * empty status. */
static void waitany(int n, int layout, int ignore)
{
    struct round r;
    MPI_Request before[MAXN];
    int reported[MAXN];
    start(&r, "MPI_Waitany", n, layout, ignore, GO_IN_ARRAY);
    double t0 = tl_now();
    for (;;) {
        send_go_due(&r);
        MPI_Status st;
        int idx = -5;
        preset(&st, 1);
        memcpy(before, r.req, sizeof before);
        CHECK_MPI(MPI_Waitany(n, r.req, &idx, ignore ? MPI_STATUS_IGNORE : &st));
        if (idx == MPI_UNDEFINED) {
            CHECK(r.ndone == r.active,
                  "%s returned MPI_UNDEFINED with %d of %d requests still "
                  "active; MPI returns it only when every entry is null",
                  r.how, r.active - r.ndone, r.active);
            if (!ignore)
                check_empty(&st, r.how, "the status with index MPI_UNDEFINED");
            break;
        }
        memset(reported, 0, sizeof reported);
        if (idx >= 0 && idx < n)
            reported[idx] = 1;
        check_done(&r, idx, ignore ? NULL : &st);
        check_untouched(&r, before, reported);
        too_long(&r, t0);
    }
    finish(&r);
}

/* MPI_Testany: flag false means index MPI_UNDEFINED and nothing changed;
 * flag true an index as for MPI_Waitany, or MPI_UNDEFINED and an empty
 * status once every entry is null. */
static void testany(int n, int layout, int ignore)
{
    struct round r;
    MPI_Request before[MAXN];
    int reported[MAXN];
    start(&r, "MPI_Testany", n, layout, ignore, GO_IN_ARRAY);
    double t0 = tl_now();
    for (;;) {
        send_go_due(&r);
        MPI_Status st;
        int idx = -5, flag = -5;
        preset(&st, 1);
        memcpy(before, r.req, sizeof before);
        CHECK_MPI(MPI_Testany(n, r.req, &idx, &flag,
                           ignore ? MPI_STATUS_IGNORE : &st));
        memset(reported, 0, sizeof reported);
        if (!flag) {
            CHECK(idx == MPI_UNDEFINED,
                  "%s with flag false must return index MPI_UNDEFINED, got %d",
                  r.how, idx);
            CHECK(r.ndone < r.active,
                  "%s returned flag false though every entry is "
                  "MPI_REQUEST_NULL; MPI returns flag true and "
                  "MPI_UNDEFINED then",
                  r.how);
            check_untouched(&r, before, reported);
            too_long(&r, t0);
            continue;
        }
        CHECK(flag == 1, "%s must set flag to true (1) or false, set %d",
              r.how, flag);
        if (idx == MPI_UNDEFINED) {
            CHECK(r.ndone == r.active,
                  "%s returned flag true and MPI_UNDEFINED with %d of %d "
                  "requests still active; MPI does so only when every "
                  "entry is null",
                  r.how, r.active - r.ndone, r.active);
            if (!ignore)
                check_empty(&st, r.how, "the status with index MPI_UNDEFINED");
            break;
        }
        if (idx >= 0 && idx < n)
            reported[idx] = 1;
        check_done(&r, idx, ignore ? NULL : &st);
        check_untouched(&r, before, reported);
        too_long(&r, t0);
    }
    finish(&r);
}

/* MPI_Waitsome (wait) and MPI_Testsome: indices distinct and each active
 * entry reported exactly once overall, statuses[k] for indices[k], the
 * rest unchanged; outcount MPI_UNDEFINED once every entry is null. */
static void some(int n, int layout, int ignore, int wait)
{
    struct round r;
    MPI_Request before[MAXN];
    MPI_Status sts[MAXN];
    int indices[MAXN], reported[MAXN];
    start(&r, wait ? "MPI_Waitsome" : "MPI_Testsome", n, layout, ignore,
          GO_IN_ARRAY);
    double t0 = tl_now();
    for (;;) {
        send_go_due(&r);
        int outcount = -5;
        preset(sts, n);
        for (int k = 0; k < n; k++)
            indices[k] = -9;
        memcpy(before, r.req, sizeof before);
        if (wait)
            CHECK_MPI(MPI_Waitsome(n, r.req, &outcount, indices,
                                ignore ? MPI_STATUSES_IGNORE : sts));
        else
            CHECK_MPI(MPI_Testsome(n, r.req, &outcount, indices,
                                ignore ? MPI_STATUSES_IGNORE : sts));
        if (outcount == MPI_UNDEFINED) {
            CHECK(r.ndone == r.active,
                  "%s returned outcount MPI_UNDEFINED with %d of %d "
                  "requests still active; MPI does so only when every "
                  "entry is null",
                  r.how, r.active - r.ndone, r.active);
            break;
        }
        CHECK(outcount >= (wait ? 1 : 0) &&
                  outcount <= r.active - r.ndone,
              "%s returned outcount %d with %d requests active; it must be "
              "between %d and that",
              r.how, outcount, r.active - r.ndone, wait ? 1 : 0);
        memset(reported, 0, sizeof reported);
        for (int k = 0; k < outcount; k++) {
            int idx = indices[k];
            CHECK(idx < 0 || idx >= n || !reported[idx],
                  "%s listed index %d twice in one call", r.how, idx);
            if (idx >= 0 && idx < n)
                reported[idx] = 1;
            check_done(&r, idx, ignore ? NULL : &sts[k]);
        }
        check_untouched(&r, before, reported);
        too_long(&r, t0);
    }
    finish(&r);
}

/* Status i of a call that completes all: entry i's, empty for a null. */
static void check_all(struct round *r, const MPI_Status *sts)
{
    for (int i = 0; i < r->n; i++) {
        if (r->active0[i])
            check_done(r, i, sts ? &sts[i] : NULL);
        else if (sts) {
            char what[64];
            snprintf(what, sizeof what, "the status of null entry %d", i);
            check_empty(&sts[i], r->how, what);
        }
    }
}

/* MPI_Waitall: everything null afterwards; status i is entry i's, empty
 * for the null entries.  Every late message is sent before the call. */
static void waitall(int n, int layout, int ignore)
{
    struct round r;
    MPI_Status sts[MAXN];
    start(&r, "MPI_Waitall", n, layout, ignore, GO_NONE);
    for (int g = 0; g < 2; g++) {
        r.go_sent[g] = 1;
        release_group(&r, g);
    }
    preset(sts, n);
    CHECK_MPI(MPI_Waitall(n, r.req, ignore ? MPI_STATUSES_IGNORE : sts));
    check_all(&r, ignore ? NULL : sts);
    finish(&r);
}

/* MPI_Testall: false, changing nothing, while a receive in the array has
 * had no message sent to it (before this rank's gos, then before its
 * second go); then true once, as MPI_Waitall. */
static void testall(int n, int layout, int ignore)
{
    struct round r;
    MPI_Request before[MAXN];
    MPI_Status sts[MAXN];
    int none[MAXN] = {0};
    int flag = -5;
    start(&r, "MPI_Testall", n, layout, ignore, GO_OUTSIDE);
    double t0 = tl_now();
    for (;;) {
        int waiting = 0;
        for (int g = 0; g < 2; g++)
            if (!r.go_sent[g])
                waiting += r.nlate[g];
        preset(sts, n);
        memcpy(before, r.req, sizeof before);
        CHECK_MPI(MPI_Testall(n, r.req, &flag, ignore ? MPI_STATUSES_IGNORE : sts));
        if (waiting)
            CHECK(!flag,
                  "%s returned true while %d receives in the array have had "
                  "no message sent to them",
                  r.how, waiting);
        if (flag)
            break;
        check_untouched(&r, before, none);
        too_long(&r, t0);
        poll_go_outside(&r);
        /* The first go after the first false answer, the second after the
         * next one. */
        if (r.go_sent[r.first])
            send_go(&r, 1 - r.first);
        send_go(&r, r.first);
    }
    CHECK(flag == 1, "%s must set flag to true (1) or false, set %d", r.how,
          flag);
    check_all(&r, ignore ? NULL : sts);
    finish(&r);
}

/* Arrays of only MPI_REQUEST_NULL, past 32 entries. */
static void all_null(int n)
{
    MPI_Request nul[MAXN];
    MPI_Status st, sts[MAXN];
    int idx = -5, flag = -5, outcount = -5, indices[MAXN];
    char how[96];
    for (int i = 0; i < n; i++)
        nul[i] = MPI_REQUEST_NULL;

    snprintf(how, sizeof how, "MPI_Waitany over %d MPI_REQUEST_NULL", n);
    preset(&st, 1);
    CHECK_MPI(MPI_Waitany(n, nul, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "%s must return index MPI_UNDEFINED, got %d",
          how, idx);
    check_empty(&st, how, "the status");

    snprintf(how, sizeof how, "MPI_Testany over %d MPI_REQUEST_NULL", n);
    preset(&st, 1);
    CHECK_MPI(MPI_Testany(n, nul, &idx, &flag, &st));
    CHECK(flag == 1 && idx == MPI_UNDEFINED,
          "%s must return flag true and index MPI_UNDEFINED, got flag %d "
          "index %d",
          how, flag, idx);
    check_empty(&st, how, "the status");

    CHECK_MPI(MPI_Waitsome(n, nul, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED,
          "MPI_Waitsome over %d MPI_REQUEST_NULL must return outcount "
          "MPI_UNDEFINED, got %d",
          n, outcount);
    outcount = -5;
    CHECK_MPI(MPI_Testsome(n, nul, &outcount, indices, sts));
    CHECK(outcount == MPI_UNDEFINED,
          "MPI_Testsome over %d MPI_REQUEST_NULL must return outcount "
          "MPI_UNDEFINED, got %d",
          n, outcount);

    snprintf(how, sizeof how, "MPI_Waitall over %d MPI_REQUEST_NULL", n);
    preset(sts, n);
    CHECK_MPI(MPI_Waitall(n, nul, sts));
    check_empty(&sts[0], how, "status 0");
    check_empty(&sts[n - 1], how, "the last status");

    snprintf(how, sizeof how, "MPI_Testall over %d MPI_REQUEST_NULL", n);
    preset(sts, n);
    CHECK_MPI(MPI_Testall(n, nul, &flag, sts));
    CHECK(flag == 1, "%s must return flag true, got %d", how, flag);
    check_empty(&sts[n / 2], how, "the middle status");
    for (int i = 0; i < n; i++)
        CHECK(nul[i] == MPI_REQUEST_NULL,
              "completion calls over MPI_REQUEST_NULL entries must leave "
              "them null; entry %d is 0x%x",
              i, (unsigned)(uintptr_t)nul[i]);
}

/* The pairs' intercommunicator (as in intercomm_traffic): the lower ranks
 * of the pairs form one group, their partners the other, so that local
 * rank k of each group is the partner of remote rank k. */
static void make_inter(void)
{
    int partner = tl_partner();
    int color = partner == MPI_PROC_NULL ? MPI_UNDEFINED
                : me < partner          ? 0
                                        : 1;
    int key = partner == MPI_PROC_NULL ? 0 : me < partner ? me : partner;
    MPI_Comm local;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, key, &local));
    if (local == MPI_COMM_NULL)
        return;
    int remote_leader = color == 0 ? np - 1 : np % 2;
    CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 56,
                                &inter));
    CHECK_MPI(MPI_Comm_rank(inter, &inter_peer));
    CHECK_MPI(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    static const int sizes[] = {33, 40, 100};
    tl_init(&argc, &argv, 2, TL_MAX_RANKS);
    me = tl_rank();
    np = tl_size();
    left = tl_left(1);
    right = tl_right(1);
    CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup_world));
    make_inter();

    for (int k = 0; k < 3; k++)
        all_null(sizes[k]);
    for (int layout = 0; layout < NLAYOUTS; layout++)
        for (int k = 0; k < 3; k++)
            for (int ignore = 0; ignore < 2; ignore++) {
                int n = sizes[k];
                waitany(n, layout, ignore);
                testany(n, layout, ignore);
                some(n, layout, ignore, 1);
                some(n, layout, ignore, 0);
                waitall(n, layout, ignore);
                testall(n, layout, ignore);
            }

    if (inter != MPI_COMM_NULL)
        CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Comm_free(&dup_world));
    return tl_finalize();
}
