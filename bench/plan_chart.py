#!/usr/bin/env python3
"""plan_chart: omnibus-plan's planning table for 10^3 to 10^6 ranks
(bench/results/plan.md; docs/planning.md).

usage: bench/plan_chart.py [--out bench/results/plan.md]

Nodes of 128 ranks (8, 64, 512 and 8,192 of them), uniform traffic of
8-byte messages, the defaults across nodes (256 KiB buffers), a program that
polls after every send and one that polls after every 100.  For each
topology: peers per rank, items per block, wire messages per send (in all
and off the node), the memory bound, and the anchors: the full-buffer
bound on wire messages (every block leaves full) and the memory of a
scheme that keeps a full buffer for every peer (one, or two: one filling
while one travels).  Needs build/omnibus-plan.
"""
import json, os, subprocess, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "scripts", "measure"))
import provenance  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAN = os.path.join(ROOT, "build", "omnibus-plan")
PER = 128
ITEM = 24 + 8

def plan(nodes, poll):
    out = subprocess.run([PLAN, "--nodes", str(nodes), "--per-node", str(PER),
                          "--poll", str(poll), "--sends", "50000", "--json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)

def mib(x):
    return f"{x / 2**20:,.0f}" if x < 2**50 else "(no bound)"

def main():
    out = os.path.join(ROOT, "bench", "results", "plan.md")
    if sys.argv[1:2] == ["--out"]:
        out = sys.argv[2]
    lines = []
    # router/evict.h: EV_START_SHARE x FL_FILL_CAP buffers open at once
    OPEN = 4 * 64
    lines.append("# Planning table: 10^3 to 10^6 ranks\n")
    lines.append(provenance.text(provenance.header(
        " ".join(["bench/plan_chart.py"] + sys.argv[1:]),
        "none (omnibus-plan is MPI-free)", "router plan")))
    lines.append("From `omnibus-plan` (docs/planning.md).\n")
    lines.append("Nodes of 128 ranks; uniform traffic of 8-byte messages "
                 "(32-byte items); 256 KiB buffers, the cap of 64 buffers' "
                 "room (a rank of more next hops opens each buffer with its "
                 "share, at least a quarter block, so up to 256 fill at "
                 "once), OMNIBUS_IDLE_ROUNDS 16; the age flush left "
                 "out. `poll 1`: the program polls after every send; `poll "
                 "100`: after every 100. Peers marked **>open** exceed the "
                 f"{OPEN} buffers the cap holds open: then a block carries "
                 f"about K/(K - {OPEN}) items whatever the rate. "
                 "`full-buffer` is the "
                 "anchor that assumes every block leaves full (hops per send "
                 "/ 8,192 items); `memory, a full buffer per peer` is the "
                 "anchor of schemes that keep one full buffer for every peer "
                 "(peers x B), and twice that for schemes that keep one "
                 "filling while another travels. `auto` marks the pick.\n")
    lines.append("| ranks | topology | peers | fwd/send | items/block poll 1 "
                 "| items/block poll 100 | wire/send poll 1 | wire/send poll "
                 "100 | off-node wire/send poll 100 | full-buffer wire/send | "
                 "memory bound MiB | a full buffer per peer, MiB (x2) |")
    lines.append("|" + "---|" * 12)
    for nodes in (8, 64, 512, 8192):
        a, b = plan(nodes, 1), plan(nodes, 100)
        P = a["ranks"]
        for ca, cb in zip(a["candidates"], b["candidates"]):
            name = ca["candidate"]
            sizes = "x".join(str(s) for s in ca["predicted_topology"])
            mark = " **auto**" if sizes == a["recommended"] else ""
            K = ca["peers_per_rank"]
            hops = 1 + ca["forwarded_items_per_send"]
            full = hops * ITEM / ca["predicted_buffer_size"]
            per_peer = K * ca["predicted_buffer_size"]
            lines.append(
                f"| {P:,} | {name}{mark} | {K:,}{' **>open**' if K > OPEN else ''} "
                f"| {ca['forwarded_items_per_send']:.2f} "
                f"| {ca['items_per_block']:.2f} | {cb['items_per_block']:.2f} "
                f"| {ca['wire_messages_per_send']:.3f} "
                f"| {cb['wire_messages_per_send']:.4f} "
                f"| {cb['off_node_wire_messages_per_send']:.4f} "
                f"| {full:.5f} | {mib(ca['predicted_memory_bound_bytes'])} "
                f"| {per_peer / 2**20:,.0f} ({2 * per_peer / 2**20:,.0f}) |")
        lines.append(f"| | *auto: {a['recommended']}* | | | | | | | | | | |")
    lines.append("")
    lines.append(f"Reading: past {OPEN} peers (**>open**) a block carries "
                 f"about K/(K - {OPEN}) items however often the program "
                 "polls, so polling less often helps only a grid whose "
                 "peers' buffers stay open (compare the two items-per-block "
                 "columns). The full-buffer anchor is 100 to 10,000 times "
                 "too optimistic for every topology past that. The memory "
                 "bound (`fl_memory_bound`, relayed pairs counted exactly "
                 "by `router/relay.h`) stays with the per-rank tables "
                 "within the default `OMNIBUS_MEMORY` of 256 MiB at every "
                 "size, because the eager pool is what that budget leaves "
                 "on each grid (`router/pool.h`), while a full buffer per "
                 "peer grows with the peers. `auto`'s choice and the cap: "
                 "docs/design/routing.md and docs/planning.md.")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0

if __name__ == "__main__":
    sys.exit(main())
