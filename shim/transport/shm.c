#include "shim/transport/shm.h"
#include "shim/mpi/hint.h"
#include "shim/base/fail.h"
#include "router/copy.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define SHM_MIN_RING ((size_t)64 << 10)

/* A message goes alone through a ring when it fits one record of a ring
 * of SHM_ALONE_RING (rg_max_record: 128 KiB less 8 bytes): up to there a
 * message alone beats a header and a payload of the MPI underneath, which
 * waits for a round of Omnibus's in the middle, and above it the single-copy
 * read or The underlying MPI's own path is the faster
 * (docs/design/transport.md, Messages above the threshold). */
#define SHM_ALONE_RING ((size_t)256 << 10)

/* Where the lines a producer writes were last held matters more than room.
 * Writing a line the consumer read one lap ago, still in its cache, costs
 * more than writing one neither core holds any more, which favours large
 * rings for large records; a flow of small blocks is the other way round,
 * faster within a part of the ring that stays in cache (measured:
 * docs/design/transport.md, Node rings).  So rings are as large as
 * SHM_RING_MAX while they cost a rank at most SHM_RING_BUDGET in all (2 MiB
 * on nodes of 2 or 3 ranks, 256 KiB up to 17 ranks, 128 KiB up to 33), and
 * records of up to SHM_WARM_RECORD bytes (the default 1 KiB blocks of
 * aggregated items, and headers) start again from the top once a lap has
 * passed SHM_WARM_RING and the top is free (rg_tx_soft), while larger ones
 * go round all of it. */
#define SHM_RING_MAX ((size_t)2 << 20)
#define SHM_RING_BUDGET ((size_t)4 << 20)
#define SHM_WARM_RING ((size_t)256 << 10)
#define SHM_WARM_RECORD ((size_t)2048)

/* The largest power of two up to SHM_RING_MAX whose rings to the node's
 * other local_size - 1 ranks fit SHM_RING_BUDGET, at least SHM_MIN_RING,
 * and in any case large enough for two blocks (rg_max_record).  Every rank
 * of the node computes the same, since local_size and the block size are
 * the same for all. */
static size_t ring_capacity(int local_size)
{
    size_t peers = (size_t)(local_size - 1); /* shm_init: at least 1 */
    size_t cap = SHM_MIN_RING;
    while (cap < SHM_RING_MAX && peers * cap * 2 <= SHM_RING_BUDGET)
        cap *= 2;
    while (rg_max_record(cap) < omni.job.block_cap)
        cap *= 2;
    return cap;
}

/* The world rank of every rank of the node communicator, in its order. */
static int *node_world_ranks(int local_size)
{
    int *world = malloc(sizeof(int) * (size_t)local_size);
    if (world)
        PMPI_Allgather(&omni.job.rank, 1, MPI_INT, world, 1, MPI_INT,
                       omni.tx.ring_comm);
    return world;
}

/* Ring j of a segment.  Rings start a cache line (rg_shared aligns its
 * lines to the region's start), but a window need not: Open MPI 4.1's
 * segments start 8 bytes past one.  The bytes of a page lie at the same
 * offset in every process that maps it, so every rank that rounds a
 * segment's address up to a line finds the same ring there; the segment
 * has a line to spare for it. */
static char *shm_ring_at(char *segment, int j, size_t region)
{
    uintptr_t at = ((uintptr_t)segment + RG_LINE - 1) & ~(uintptr_t)(RG_LINE - 1);
    return (char *)at + (size_t)j * region;
}

static int rings_open(int local_size, int me, const int *world, char *mine,
                      size_t region, size_t cap)
{
    omni.tx.ring_tx = calloc((size_t)local_size, sizeof *omni.tx.ring_tx);
    omni.tx.ring_rx = calloc((size_t)local_size, sizeof *omni.tx.ring_rx);
    omni.tx.ring_peers = malloc(sizeof(int) * (size_t)local_size);
    if (!omni.tx.ring_tx || !omni.tx.ring_rx || !omni.tx.ring_peers)
        return -1;
    for (int j = 0; j < local_size; j++) {
        if (j == me || omni.job.off_node[world[j]])
            continue;
        MPI_Aint bytes;
        int unit;
        char *theirs;
        PMPI_Win_shared_query(omni.tx.ring_win, j, &bytes, &unit, &theirs);
        rg_tx_open(&omni.tx.ring_tx[j], shm_ring_at(theirs, me, region), cap);
        rg_tx_soft(&omni.tx.ring_tx[j], SHM_WARM_RING, SHM_WARM_RECORD);
        rg_rx_open(&omni.tx.ring_rx[omni.tx.ring_nrx++],
                   shm_ring_at(mine, j, region), cap);
        /* A rank of the node that is not a next hop (a grid inside the
         * node) gets no blocks from this one: its ring stays unused. */
        int slot = omni.job.hop_slot[world[j]];
        if (omni.job.hop_rank[slot] == world[j]) {
            omni.tx.peers[slot].ring = &omni.tx.ring_tx[j];
            omni.tx.ring_peers[omni.tx.ring_npeers++] = slot;
        }
    }
    return 0;
}

static int shm_read_direct(int p, void *to, uint64_t addr, size_t n)
{
    size_t done = 0;
    while (done < n) {
        struct iovec local = {(char *)to + done, n - done};
        struct iovec remote = {(void *)(uintptr_t)(addr + done), n - done};
        ssize_t got = process_vm_readv((pid_t)omni.tx.read_pid[p], &local, 1,
                                       &remote, 1, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? errno : EFAULT;
        done += (size_t)got;
    }
    return 0;
}

/* The bytes a read at a slow distance takes at a time through
 * omni.tx.read_bounce. */
#define SHM_BOUNCE ((size_t)64 * 1024)

/* A read whose destination lies at a distance from its source, modulo a
 * page, where this rank timed memcpy slower than cp_loop: the kernel's
 * copy behind process_vm_readv slows down at the same distances (an AMD
 * EPYC VM: 128 KiB at 16 bytes in 93 us, at 0 in 17), and a program whose
 * ranks allocate alike has its send and receive buffers at just such a
 * distance (docs/design/transport.md, Copies and alignment).  So the
 * bytes come in pieces into a buffer of this rank's at distance 0 from
 * the source, and from there by cp_loop into place. */
int shm_read_peer(int p, void *to, uint64_t addr, size_t n)
{
    if (!cp_takes_loop(omni.tx.copy_slow_skews, to,
                       (const void *)(uintptr_t)addr, n))
        return shm_read_direct(p, to, addr, n);
    if (!omni.tx.read_bounce &&
        !(omni.tx.read_bounce = malloc(SHM_BOUNCE + 2 * CP_PAGE)))
        return shm_read_direct(p, to, addr, n);
    char *page = omni.tx.read_bounce +
                 ((CP_PAGE - ((uintptr_t)omni.tx.read_bounce & (CP_PAGE - 1))) &
                  (CP_PAGE - 1));
    for (size_t done = 0; done < n;) {
        size_t len = n - done < SHM_BOUNCE ? n - done : SHM_BOUNCE;
        char *at = page + ((addr + done) & (CP_PAGE - 1));
        int err = shm_read_direct(p, at, addr + done, len);
        if (err)
            return err;
        if (len >= 16)
            cp_loop((char *)to + done, at, len);
        else
            memcpy((char *)to + done, at, len);
        done += len;
    }
    omni.stats.skewed_copies++;
    return 0;
}

/* A word every rank of the node reads from every other at start-up. */
static const uint64_t shm_probe_word = 0x6f6d6e6962757321ULL;

/* Tries a read of every other node rank's probe word; enables single-copy
 * reads on the node only when every rank read every other (MPI_LAND over
 * the node), so that a sender never offers a read its receiver cannot
 * make.  Collective over omni.tx.ring_comm: no rank returns early, out of
 * memory ends the job. */
static void shm_reads_open(int local_size, int me, const int *world)
{
    struct { long long pid, addr; } mine = {getpid(),
        (long long)(uintptr_t)&shm_probe_word}, *all;
    all = malloc(sizeof *all * (size_t)local_size);
    omni.tx.read_pid = calloc((size_t)omni.job.size, sizeof *omni.tx.read_pid);
    if (!all || !omni.tx.read_pid)
        omni_out_of_memory("the single-copy read table");
    PMPI_Allgather(&mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG,
                   omni.tx.ring_comm);
    int ok = 1;
    for (int j = 0; j < local_size && ok; j++) {
        if (j == me || omni.job.off_node[world[j]])
            continue;
        uint64_t word = 0;
        omni.tx.read_pid[world[j]] = (int)all[j].pid;
        ok = shm_read_peer(world[j], &word, (uint64_t)all[j].addr,
                           sizeof word) == 0 &&
             word == shm_probe_word;
    }
    int all_ok = 0;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, omni.tx.ring_comm);
    if (!all_ok)
        memset(omni.tx.read_pid, 0, sizeof *omni.tx.read_pid * (size_t)omni.job.size);
    free(all);
}

int shm_init(void)
{
    omni.tx.ring_comm = MPI_COMM_NULL;
    omni.tx.ring_win = MPI_WIN_NULL;
    if (!cfg_shm_wanted(&omni.job.cfg, omni_transport_is_network()) ||
        omni.job.block_cap > RG_MAX_BLOCK)
        return 0;
    int local_size, me;
    PMPI_Comm_split_type(omni.job.wire_comm, MPI_COMM_TYPE_SHARED, 0,
                         MPI_INFO_NULL, &omni.tx.ring_comm);
    PMPI_Comm_size(omni.tx.ring_comm, &local_size);
    PMPI_Comm_rank(omni.tx.ring_comm, &me);
    if (local_size < 2) {
        PMPI_Comm_free(&omni.tx.ring_comm);
        return 0;
    }
    size_t cap = ring_capacity(local_size), region = rg_region_bytes(cap);
    omni.tx.ring_alone_max = rg_max_record(cap < SHM_ALONE_RING ? cap
                                                             : SHM_ALONE_RING);
    MPI_Info info;
    PMPI_Info_create(&info);
    /* Each rank's segment on its own pages, so no two ranks' rings share a
     * cache line across segments. */
    PMPI_Info_set(info, "alloc_shared_noncontig", "true");
    char *mine;
    int rc = PMPI_Win_allocate_shared((MPI_Aint)(region * (size_t)local_size +
                                                 RG_LINE),
                                      1, info, omni.tx.ring_comm, &mine,
                                      &omni.tx.ring_win);
    PMPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return -1;
    for (int j = 0; j < local_size; j++)
        rg_format(shm_ring_at(mine, j, region));
    /* No rank opens a view of a ring before its owner has formatted it. */
    PMPI_Barrier(omni.tx.ring_comm);
    int *world = node_world_ranks(local_size);
    rc = world ? rings_open(local_size, me, world, mine, region, cap) : -1;
    if (rc == 0)
        shm_reads_open(local_size, me, world);
    free(world);
    return rc;
}

/* Collective over the node: every rank's rings go at once. */
void shm_finalize(void)
{
    if (omni.tx.ring_win != MPI_WIN_NULL)
        PMPI_Win_free(&omni.tx.ring_win);
    if (omni.tx.ring_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&omni.tx.ring_comm);
    free(omni.tx.ring_tx);
    free(omni.tx.ring_rx);
    free(omni.tx.ring_peers);
    omni.tx.ring_tx = NULL;
    omni.tx.ring_rx = NULL;
    omni.tx.ring_peers = NULL;
    omni.tx.ring_nrx = omni.tx.ring_npeers = 0;
    omni.tx.ring_alone_max = 0;
    free(omni.tx.read_pid);
    omni.tx.read_pid = NULL;
    free(omni.tx.read_bounce);
    omni.tx.read_bounce = NULL;
}
