#include "shim/engine/inbox.h"
#include "shim/transport/transport.h"
#include "shim/mpi/count_gen.h"
#include "shim/base/fail.h"
#include <stdlib.h>

_Static_assert(sizeof(omni_inbox) % 64 == 0,
               "omni_inbox is whole cache lines (part_engine.h)");

/* Buckets at first, a power of two; the table doubles whenever it holds
 * twice as many entries as buckets, so chains stay short. */
#define INBOX_BUCKETS_MIN 1024

/* One payload held.  `link` is the pool's free-list word (handles.h);
 * `next` the handle of the next entry of its bucket, 0 at the end. */
typedef struct inbox_entry {
    int link;
    int next;
    uint32_t src, tag;
    MPI_Count bytes;
    char *early;        /* received early into it, or NULL */
    MPI_Request req;    /* that receive, while early */
    MPI_Message msg;    /* while not early */
} inbox_entry;

void inbox_init(void)
{
    PMPI_Comm_dup(MPI_COMM_WORLD, &omni.eng.inbox.sync_comm);
    PMPI_Comm_set_errhandler(omni.eng.inbox.sync_comm, MPI_ERRORS_RETURN);
    handle_pool_init(&omni.eng.inbox.entries, sizeof(inbox_entry));
    omni.eng.inbox.bucket = NULL;
    omni.eng.inbox.nbuckets = 0;
    omni.eng.inbox.count = omni.eng.inbox.by_message = 0;
}

static int *inbox_head(int *bucket, int nbuckets, uint32_t src, uint32_t tag)
{
    uint32_t h = (src * 2654435761u) ^ (tag * 40503u);
    return &bucket[(h ^ (h >> 16)) & (uint32_t)(nbuckets - 1)];
}

static inbox_entry *inbox_at(int handle)
{
    return handle_get(&omni.eng.inbox.entries, (uintptr_t)handle);
}

/* Appends entry `handle` to its chain of `bucket`, after the entries of
 * its key already there. */
static void inbox_link(int *bucket, int nbuckets, int handle)
{
    inbox_entry *e = inbox_at(handle);
    int *link = inbox_head(bucket, nbuckets, e->src, e->tag);
    while (*link)
        link = &inbox_at(*link)->next;
    e->next = 0;
    *link = handle;
}

/* Makes the buckets, or doubles them when the chains grow long; entries
 * move chain by chain in order, so each key's stay oldest first. */
static void inbox_size_buckets(void)
{
    omni_inbox *in = &omni.eng.inbox;
    if (in->bucket && in->count < 2 * in->nbuckets)
        return;
    int n = in->bucket ? 2 * in->nbuckets : INBOX_BUCKETS_MIN;
    int *bucket = calloc((size_t)n, sizeof *bucket);
    if (!bucket)
        omni_out_of_memory("the payload inbox");
    for (int b = 0; in->bucket && b < in->nbuckets; b++)
        for (int h = in->bucket[b]; h;) {
            int next = inbox_at(h)->next;
            inbox_link(bucket, n, h);
            h = next;
        }
    free(in->bucket);
    in->bucket = bucket;
    in->nbuckets = n;
}

/* Receives entry e's payload, held by its message, early into a buffer of
 * Omnibus's own when it fits (INBOX_EARLY_MAX, the pool); returns whether
 * it did. */
static int inbox_receive_early(inbox_entry *e)
{
    MPI_Count bytes = e->bytes;
    if (bytes > INBOX_EARLY_MAX ||
        omni.match.early_bytes + omni_early_charge(bytes) >
            omni.job.cfg.eager_pool)
        return 0;
    char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!buf ||
        omni_Imrecv_c(buf, bytes, MPI_BYTE, &e->msg, &e->req) != MPI_SUCCESS) {
        free(buf);
        return 0;
    }
    /* An eager payload is in at once, and then holds no request of the
     * MPI underneath: OMNI_EARLY_MAX, which bounds the receives posted
     * ahead, does not bound these. */
    int done = 0;
    PMPI_Test(&e->req, &done, MPI_STATUS_IGNORE);
    e->early = buf;
    match_early_take(omni_early_charge(bytes));
    omni.stats.early_payloads++;
    return 1;
}

/* Whether entry e is a message without header (its key) that the MPI
 * underneath sent at once (transport_wire_at_once).  Its sender waited
 * for no receive, and the MPI underneath holds its bytes already, as it
 * holds any unexpected message it sent so: received early, it would be
 * copied once more before its receive (an Open MPI stream over TCP to a
 * slower receiver lost a seventh of plain Open MPI's rate so).  A larger
 * one may be a rendezvous whose sender waits until it is received, which
 * early receiving spares it. */
static int inbox_sent_at_once(const inbox_entry *e)
{
    return e->tag >= INBOX_BARE_KEYS &&
           transport_wire_at_once((uint64_t)e->bytes);
}

/* Appends payload `msg` of `bytes` from src under `tag`, receiving it
 * early when `early` and it fits. */
static void inbox_append(MPI_Message msg, uint32_t src, uint32_t tag,
                         MPI_Count bytes, int early)
{
    int handle;
    inbox_entry *e = handle_take(&omni.eng.inbox.entries, &handle);
    *e = (inbox_entry){.next = 0, .src = src, .tag = tag, .bytes = bytes,
                       .early = NULL, .req = MPI_REQUEST_NULL, .msg = msg};
    if (early)
        inbox_receive_early(e);
    if (!e->early)
        omni.eng.inbox.by_message++;
    omni.eng.inbox.count++;
    inbox_link(omni.eng.inbox.bucket, omni.eng.inbox.nbuckets, handle);
}

/* Appends a payload just probed as `msg` (status st), receiving it early
 * when it fits. */
static void inbox_keep(MPI_Message msg, const MPI_Status *st)
{
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(st, MPI_BYTE, &bytes);
    inbox_append(msg, (uint32_t)st->MPI_SOURCE, (uint32_t)st->MPI_TAG, bytes,
                 1);
}

void inbox_hold(uint32_t src, uint32_t key, MPI_Message msg, MPI_Count bytes)
{
    inbox_size_buckets();
    /* Past INBOX_MAX messages held, received early where the pool allows
     * and held by its message all the same otherwise: unlike a header's
     * payload, it cannot wait in the MPI underneath to be received by tag
     * (its tag is not the key its header asks for). */
    inbox_append(msg, src, key, bytes, omni.eng.inbox.by_message >= INBOX_MAX);
}

/* Removes the oldest entry of (src, tag) into *out and returns 1, or
 * returns 0 when there is none; with early_only, one held by its message
 * stays and the call returns -1. */
static int inbox_take(uint32_t src, uint32_t tag, int early_only,
                      inbox_payload *out)
{
    if (!omni.eng.inbox.count)
        return 0;
    int *link = inbox_head(omni.eng.inbox.bucket, omni.eng.inbox.nbuckets,
                           src, tag);
    while (*link) {
        int handle = *link;
        inbox_entry *e = inbox_at(handle);
        if (e->src != src || e->tag != tag) {
            link = &e->next;
            continue;
        }
        if (early_only && !e->early) {
            /* A message without header is held by its message until its
             * header finds no receive: received early now when it fits,
             * as its header's payload would have been (recv.c), unless
             * it was sent at once. */
            if (inbox_sent_at_once(e)) {
                omni.stats.unexpected_held++;
                return -1;
            }
            if (!inbox_receive_early(e))
                return -1;
            omni.eng.inbox.by_message--;
        }
        *out = (inbox_payload){.early = e->early, .req = e->req,
                               .msg = e->msg};
        *link = e->next;
        if (!e->early)
            omni.eng.inbox.by_message--;
        omni.eng.inbox.count--;
        handle_release_slot(&omni.eng.inbox.entries, e, handle);
        return 1;
    }
    return 0;
}

int inbox_claim(uint32_t src, uint32_t tag, int early_only,
                inbox_payload *out)
{
    int held = inbox_take(src, tag, early_only, out);
    if (held)
        return held;
    while (omni.eng.inbox.by_message < INBOX_MAX) {
        inbox_size_buckets();
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        if (PMPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, omni.job.payload_comm,
                         &flag, &msg, &st) != MPI_SUCCESS ||
            !flag)
            return 0;
        if ((uint32_t)st.MPI_SOURCE != src || (uint32_t)st.MPI_TAG != tag) {
            inbox_keep(msg, &st);
            omni.stats.inbox_payloads++;
            continue;
        }
        if (early_only) { /* no receive yet: received early if it fits */
            inbox_keep(msg, &st);
            return inbox_take(src, tag, early_only, out);
        }
        /* A receive waits for it: into its buffer, with no copy. */
        *out = (inbox_payload){.early = NULL, .req = MPI_REQUEST_NULL,
                               .msg = msg};
        return 1;
    }
    return 0;
}

/* What no header claimed by the end of the job (its communicator was
 * freed with it unreceived, or the program never received it): received
 * and dropped, so that no request of the MPI underneath is left. */
void inbox_finalize(void)
{
    for (int b = 0; omni.eng.inbox.bucket && b < omni.eng.inbox.nbuckets;
         b++) {
        for (int h = omni.eng.inbox.bucket[b]; h;) {
            inbox_entry *e = inbox_at(h);
            h = e->next;
            if (e->early) {
                PMPI_Wait(&e->req, MPI_STATUS_IGNORE);
                free(e->early);
                match_early_return(omni_early_charge(e->bytes));
                continue;
            }
            char *sink = malloc(e->bytes > 0 ? (size_t)e->bytes : 1);
            if (sink)
                omni_Mrecv_c(sink, e->bytes, MPI_BYTE, &e->msg,
                             MPI_STATUS_IGNORE);
            free(sink);
        }
    }
    free(omni.eng.inbox.bucket);
    omni.eng.inbox.bucket = NULL;
    omni.eng.inbox.nbuckets = 0;
    omni.eng.inbox.count = omni.eng.inbox.by_message = 0;
    handle_pool_destroy(&omni.eng.inbox.entries);
    PMPI_Comm_free(&omni.eng.inbox.sync_comm);
}
