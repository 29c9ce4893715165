#!/usr/bin/env python3
"""plan_patterns: the grid `auto` builds for each pattern omnibus-plan
knows, against `direct`, from 16 to 1,048,576 ranks, as the markdown table
docs/design/routing.md shows ("`auto` for each pattern the plan knows").

Each row is two omnibus-plan runs (--topology auto and --topology direct)
of the same job: nodes of 128 ranks from 1,024 up, one node of 16 below,
8-byte messages, the library's defaults.  It asserts what the planning
rules promise and exits 1 naming the row that breaks it:
  - `auto` never above `direct` in wire messages per send, for every
    pattern and size;
  - uniform traffic polled after every send: at most 0.1 wire messages per
    send;
  - at most 4 dimensions (3 relays) at any size;
  - a rank's memory bound plus its per-rank tables within the default
    OMNIBUS_MEMORY, 256 MiB, at any size.
Runs in about a minute (the 10^6-rank rows simulate 64 ranks each).
Usage: bench/plan_patterns.py [--plan build/omnibus-plan]
"""
import json, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (ranks, nodes, ranks per node)
SIZES = [(16, 1, 16), (1024, 8, 128), (65536, 512, 128),
         (1048576, 8192, 128)]
# omnibus-plan's arguments for each pattern, as the table shows them
PATTERNS = ["uniform --poll 1", "uniform --poll 64", "alltoall --poll 64",
            "pairs --poll 0", "moore2d --poll 0 --blocking 8"]
POLL_EVERY_SEND = "uniform --poll 1"
MOST_WIRE_POLL_EVERY_SEND = 0.1
MOST_DIMS = 4
MOST_MEMORY = 256 << 20


def plan(exe, nodes, per, topo, args):
    out = subprocess.run(
        [exe, "--nodes", str(nodes), "--per-node", str(per), "--topology",
         topo, "--message", "8", "--pattern"] + args.split() + ["--json"],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out)["candidates"][0]


def rows(exe):
    """One (ranks, pattern arguments, auto's dims, auto's and direct's wire
    messages per send, auto's bound plus tables in bytes) per row of the
    table."""
    for P, nodes, per in SIZES:
        for args in PATTERNS:
            a = plan(exe, nodes, per, "auto", args)
            d = plan(exe, nodes, per, "direct", args)
            m = a
            yield (P, args, a["predicted_topology"],
                   a["wire_messages_per_send"], d["wire_messages_per_send"],
                   m["predicted_memory_bound_bytes"] +
                   m["predicted_table_bytes_per_rank"])


def problems(P, args, dims, wa, wd, mem):
    """What the row breaks of the planning rules, as sentences."""
    out = []
    if wa > wd:
        out.append(f"auto's {wa} wire messages per send exceed direct's {wd}")
    if args == POLL_EVERY_SEND and wa > MOST_WIRE_POLL_EVERY_SEND:
        out.append(f"auto's {wa} wire messages per send exceed "
                   f"{MOST_WIRE_POLL_EVERY_SEND}")
    if len(dims) > MOST_DIMS:
        out.append(f"auto takes {len(dims)} dimensions, more than "
                   f"{MOST_DIMS} (3 relays)")
    if mem > MOST_MEMORY:
        out.append(f"a rank of auto's grid may hold {mem / 2**20:.1f} MiB, "
                   f"more than OMNIBUS_MEMORY's {MOST_MEMORY >> 20} MiB")
    return out


def plan_exe(argv):
    if len(argv) > 2 and argv[1] == "--plan":
        return argv[2]
    return os.path.join(ROOT, "build", "omnibus-plan")


def main(argv):
    broken = 0
    print("| ranks | pattern (`omnibus-plan --pattern ...`) | `auto` | "
          "wire messages per send, `auto` | `direct` | bound and tables, "
          "MiB |")
    print("|---|---|---|---|---|---|")
    for P, args, dims, wa, wd, mem in rows(plan_exe(argv)):
        grid = "x".join(str(x) for x in dims)
        print(f"| {P} | {args} | `{grid}` | {wa:.5f} | {wd:.5f} | "
              f"{mem / 2**20:.1f} |")
        for b in problems(P, args, dims, wa, wd, mem):
            print(f"BROKEN: {P} ranks, {args}: {b}", file=sys.stderr)
            broken = 1
    return broken


if __name__ == "__main__":
    sys.exit(main(sys.argv))
