#include "shim/match/comm.h"
#include "shim/match/match.h"
#include "shim/base/fail.h"
#include <stdlib.h>
#include <string.h>

int comm_table_init(void)
{
    return table_init(&omni.match.comm_by_handle) || table_init(&omni.match.comm_by_id)
               ? -1 : 0;
}

comm_rec *comm_for_arrival_slow(uint32_t id)
{
    comm_rec *c = table_get(&omni.match.comm_by_id, id);
    if (c && !c->placeholder)
        omni.match.last_arrival = c;
    if (c || id < omni.match.next_comm_id)
        return c;
    c = calloc(1, sizeof *c);
    if (!c || table_put(&omni.match.comm_by_id, id, c) != 0)
        omni_out_of_memory("a communicator placeholder");
    c->id = id;
    c->handle = MPI_COMM_NULL;
    c->placeholder = 1;
    c->unx_tail = &c->unx_head;
    c->posted_tail = &c->posted_head;
    return c;
}

/* Moves the messages that arrived before c existed here into c's queue,
 * translating their senders now that the group is known. */
static void comm_adopt(comm_rec *c, comm_rec *early)
{
    for (match_msg *m = early->unx_head; m; m = m->next)
        m->src = comm_from_world(c, m->src_world);
    c->unx_head = early->unx_head;
    c->unx_tail = early->unx_head ? early->unx_tail : &c->unx_head;
    free(early);
}

static void comm_rec_free(comm_rec *c)
{
    free(c->to_world);
    free(c->from_world);
    free(c);
}

/* Completes c's maps from its to_world: none when c's rank r is world
 * rank r for every member (only members' world ranks are ever
 * translated back), else from_world too. */
static int comm_maps_make(comm_rec *c)
{
    int i = 0;
    while (i < c->size && c->to_world[i] == i)
        i++;
    if (i == c->size) {
        free(c->to_world);
        c->to_world = NULL;
        return 0;
    }
    c->from_world = malloc(sizeof(int) * (size_t)omni.job.size);
    if (!c->from_world)
        return -1;
    for (int w = 0; w < omni.job.size; w++)
        c->from_world[w] = -1;
    for (i = 0; i < c->size; i++)
        c->from_world[c->to_world[i]] = i;
    return 0;
}

int comm_add(MPI_Comm comm, uint32_t id)
{
    if (id >= omni.match.next_comm_id)
        omni.match.next_comm_id = id + 1;
    comm_rec *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->handle = comm;
    c->id = id;
    PMPI_Comm_rank(comm, &c->rank);
    PMPI_Comm_size(comm, &c->size);
    c->to_world = malloc(sizeof(int) * (size_t)c->size);
    int *ranks = malloc(sizeof(int) * (size_t)c->size);
    if (!c->to_world || !ranks) {
        free(ranks);
        comm_rec_free(c);
        return -1;
    }
    MPI_Group group, world;
    PMPI_Comm_group(comm, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    for (int i = 0; i < c->size; i++)
        ranks[i] = i;
    PMPI_Group_translate_ranks(group, c->size, ranks, world, c->to_world);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    free(ranks);
    if (comm_maps_make(c) != 0) {
        comm_rec_free(c);
        return -1;
    }
    c->unx_tail = &c->unx_head;
    c->posted_tail = &c->posted_head;
    comm_rec *early = table_get(&omni.match.comm_by_id, id);
    if (early)
        comm_adopt(c, early);
    if (table_put(&omni.match.comm_by_handle, omni_comm_key(comm), c) ||
        table_put(&omni.match.comm_by_id, id, c)) {
        comm_rec_free(c);
        return -1;
    }
    return 0;
}

comm_rec *comm_add_shadow(const comm_rec *c, uint32_t id)
{
    comm_rec *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->handle = MPI_COMM_WORLD;
    s->id = id;
    s->rank = c->rank;
    s->size = c->size;
    if (c->to_world) {
        s->to_world = malloc(sizeof(int) * (size_t)c->size);
        s->from_world = malloc(sizeof(int) * (size_t)omni.job.size);
        if (!s->to_world || !s->from_world) {
            comm_rec_free(s);
            return NULL;
        }
        memcpy(s->to_world, c->to_world, sizeof(int) * (size_t)c->size);
        memcpy(s->from_world, c->from_world,
               sizeof(int) * (size_t)omni.job.size);
    }
    s->unx_tail = &s->unx_head;
    s->posted_tail = &s->posted_head;
    if (!(id & COMM_ID_COLL_BIT) && id >= omni.match.next_comm_id)
        omni.match.next_comm_id = id + 1;
    comm_rec *early = table_get(&omni.match.comm_by_id, id);
    if (early)
        comm_adopt(s, early);
    if (table_put(&omni.match.comm_by_id, id, s)) {
        comm_rec_free(s);
        return NULL;
    }
    return s;
}

void comm_drop_shadow(comm_rec *s)
{
    s->freed = 1;
    match_drop_unexpected(s);
    comm_release_if_idle(s);
}

int comm_register_world(void)
{
    return comm_add(MPI_COMM_WORLD, 0) || comm_add(MPI_COMM_SELF, 1) ? -1 : 0;
}

comm_rec *comm_unregister(MPI_Comm comm)
{
    comm_rec *c = table_remove(&omni.match.comm_by_handle, omni_comm_key(comm));
    if (!c)
        return NULL;
    if (omni.match.last_comm == c)
        omni.match.last_comm = NULL;
    c->freed = 1;
    return c;
}

void comm_release_if_idle(comm_rec *c)
{
    if (!c->freed || c->posted_head)
        return;
    table_remove(&omni.match.comm_by_id, c->id);
    if (omni.match.last_arrival == c)
        omni.match.last_arrival = NULL;
    comm_rec_free(c);
}

void comm_table_destroy(void)
{
    table_map *by_id = &omni.match.comm_by_id;
    for (size_t i = 0; i < by_id->cap; i++) {
        comm_rec *c = by_id->slots[i].value;
        if (c) {
            match_drop_unexpected(c);
            comm_rec_free(c);
        }
    }
    table_destroy(by_id);
    omni.match.last_arrival = NULL;
    table_destroy(&omni.match.comm_by_handle);
    omni.match.last_comm = NULL;
}
