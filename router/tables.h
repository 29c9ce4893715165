/* tables: the tables every rank keeps with one entry per job rank, so that
 * what the library reports (the statistics file's table_bytes_per_rank,
 * shim/base/stats.c) and what omnibus-plan predicts are one count
 * (docs/statistics.md, docs/planning.md).
 *
 * TB_TABLES lists each table: its name here, the bytes of one entry on
 * the library's LP64 targets, whether every rank keeps it or only a rank
 * with node rings (single-copy reads), and the entry in `omni` it counts.
 * router/ never expands that last column; shim/entry/init.c asserts at
 * compile time that each entry is the size written here, so a changed
 * struct fails the build until this table follows it.
 *
 * Not counted: what grows with the next hops rather than with P (a
 * buffer record and a hop's rank and dimension for each,
 * shim/entry/topology.h), what grows with use (blocks, requests, match
 * queues, the flow-control records of the pairs that left their base
 * window, 56 bytes each: shim/progress/credit.h), and the records of
 * communicators the program creates, each 4 bytes per job rank more (its
 * world-to-local map) and 4 per member, unless its ranks are the world's
 * first ranks in order (shim/match/comm_rec.h), as MPI_COMM_WORLD's are:
 * it keeps no maps.
 */
#ifndef OMNIBUS_TABLES_H
#define OMNIBUS_TABLES_H

#include <stdint.h>

#define TB_ALWAYS 0
#define TB_RINGS 1 /* only a rank that reads its node's ranks' memory */

#define TB_TABLES(X)                                                          \
    X(TB_HOP_SLOT, 4, TB_ALWAYS, omni.job.hop_slot[0])                        \
    X(TB_ROUTE_LEN, 4, TB_ALWAYS, omni.job.route_len[0])                      \
    X(TB_OFF_NODE, 1, TB_ALWAYS, omni.job.off_node[0])                        \
    X(TB_CREDIT_LEFT, 4, TB_ALWAYS, omni.credit.left[0])                      \
    X(TB_CREDIT_DUE, 4, TB_ALWAYS, omni.credit.due[0])                        \
    X(TB_CREDIT_PAIR, 4, TB_ALWAYS, omni.credit.pair[0])                      \
    X(TB_SENT_TO, 8, TB_ALWAYS, omni.eng.sent_to[0])                          \
    X(TB_READ_PID, 4, TB_RINGS, omni.tx.read_pid[0])                          \
    X(TB_SELF_FROM, 4, TB_ALWAYS, ((comm_rec *)0)->from_world[0])

/* Bytes per job rank of the tables above, for a rank with (rings = 1) or
 * without node rings. */
uint64_t tb_bytes_per_rank(int rings);

/* A rank's tables in a job of nranks ranks. */
static inline uint64_t tb_table_bytes(int nranks, int rings)
{
    return (uint64_t)nranks * tb_bytes_per_rank(rings);
}

#endif
