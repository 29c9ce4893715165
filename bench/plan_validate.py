#!/usr/bin/env python3
"""plan_validate: omnibus-plan's predictions against the statistics file of
real runs (docs/planning.md, Validation).

usage: bench/plan_validate.py [--out bench/results/plan_validation]
                              [--only SUBSTRING]

Runs benchmark kernels at 2 to 8 ranks under several topologies, buffer
sizes and message sizes with OMNIBUS_STATS_FILE (among them a stencil,
halo -g moore2d -H, and runs predicted from their own file's histogram of
sends by offset), runs build/omnibus-plan with the same inputs, and writes OUT.csv and OUT.md (provenance: date, commit,
host, command).  Needs `make benches build/omnibus-plan` and, for the
small-cap rows, `make BUILD=build/smallcap CFLAGS="-O2 -g -DFL_FILL_CAP=2"
build/smallcap/libomnibus.so`.

Age flushes depend on time, not counts, so every run sets
OMNIBUS_FLUSH_US=1000000 (one second) and the model leaves them out.
The kernels check their results with a few small collectives, which
Omnibus runs as its own messages under a one-hop topology, each its own
wire message (the file's collectives.messages); the model covers the
program's point-to-point sends, so the measured wire messages per send
are taken without them (the raw figure is in the CSV too).  Forwarded
items, less the control items relays forwarded (the file's
forwarded_control_items: credit and answers, Omnibus's own traffic, in
the CSV as fwd_control), are checked twice: against the measured hop
histogram (every item a hops away is forwarded a - 1 times, exactly) and
against the model's expectation, which differs from a run by its random
destinations.

Peak memory is compared in two parts.  The buffers filling at once
(peak_fill_bytes_per_rank) follow from the traffic and the leaving rules
alone, which the model runs.  The whole peak (peak_buffer_bytes_per_rank)
adds the wire messages MPICH still carries and the blocks whose items
wait for their receive: how many depends on how far a receiver runs
behind its senders, a matter of timing the model leaves out (it takes
every item as received at the next poll).  That part is bounded by the
pairs' windows, so the whole peak is checked against the memory bound
instead (docs/planning.md, What the model leaves out).
"""
import csv, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "scripts", "measure"))
import matplotlib_path  # noqa: E402
import provenance  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
B = os.path.join(ROOT, "build")
N = 20000
HALO_ITERS = 2500

# (kernel, ranks, topology, buffer, pattern, message, poll, args, cap[,
# emulated nodes: OMNIBUS_FAKE_NODES, rank r on node r % nodes, or 0[,
# further environment, given to the run and to omnibus-plan alike]])
def runs():
    out = []
    for nodes in (2, 4):
        for topo in ("direct", "2x4", "2x2x2", "nodes"):
            if topo == "nodes" and nodes != 2:
                continue
            for k in (64, 1):
                out.append(("gups", 8, topo, 16384, "uniform", 8, k,
                            ["-n", str(N), "-w", "0", "-k", str(k)], 64,
                            nodes))
    for buf in (1024, 16384):
        for P, topo in ((4, "direct"), (4, "2x2"), (8, "direct"), (8, "2x4"),
                        (8, "2x2x2"), (7, "3x3")):
            out.append(("gups", P, topo, buf, "uniform", 8, 64,
                        ["-n", str(N), "-w", "0", "-k", "64"], 64))
    for P, topo in ((8, "direct"), (8, "2x4"), (8, "2x2x2"), (4, "direct")):
        out.append(("gups", P, topo, 16384, "uniform", 8, 1,
                    ["-n", str(N), "-w", "0", "-k", "1"], 64))
    for buf in (1024, 262144):
        for P, topo in ((8, "direct"), (8, "2x4")):
            out.append(("gups", P, topo, buf, "uniform", 8, 64,
                        ["-n", str(N), "-w", "0", "-k", "64"], 2))
    # 16 KiB buffers, not 256 KiB, for the stream: 256 KiB blocks take a
    # few hundred thousand messages to count, and a sender that far ahead
    # of its receiver fills its pair's window, whose fallbacks the model
    # leaves out (docs/planning.md, What the model leaves out).
    for size in (8, 64, 256):
        for buf in (1024, 16384):
            for P, topo in ((4, "direct"), (4, "2x2"), (8, "2x4")):
                out.append(("stream", P, topo, buf, "pairs", size, 0,
                            ["-n", str(N), "-w", "0", "-s", str(size)], 64))
    for buf in (1024, 16384):
        for P, topo in ((4, "direct"), (4, "2x2"), (8, "direct"),
                        (8, "2x2x2")):
            out.append(("alltoall_items", P, topo, buf, "alltoall", 32, 64,
                        ["-m", str(N // (P - 1)), "-w", "0"], 64))
    # A stencil: each rank sends to its 8 neighbours on a periodic process
    # grid and waits for them (halo -H: MPI_Isend to each, MPI_Waitall),
    # HALO_ITERS times: poll 0, a blocking call every 8 sends.
    for P, topo in ((4, "direct"), (4, "2x2"), (6, "direct"), (8, "direct"),
                    (8, "2x4"), (8, "2x2x2")):
        out.append(("halo", P, topo, 16384, "moore2d", 8, 0,
                    ["-g", "moore2d", "-H", "-n", str(HALO_ITERS), "-w", "0"],
                    64))
    # The same programs predicted from their own statistics file's
    # histogram of sends by offset (omnibus-plan --histogram), as a user
    # would from a small run.
    for P, topo in ((8, "direct"), (8, "2x4")):
        out.append(("halo", P, topo, 16384, "histogram", 8, 0,
                    ["-g", "moore2d", "-H", "-n", str(HALO_ITERS), "-w", "0"],
                    64))
        out.append(("gups", P, topo, 16384, "histogram", 8, 64,
                    ["-n", str(N), "-w", "0", "-k", "64"], 64))
    # One-way streams through relays: pairs (i, i + P/2) two and three
    # hops apart on 2x2x2 at 6 ranks and 3x3 at 8 (where one relay only
    # receives), and mirrored pairs (i, P-1-i), three hops each on 2x2x2.
    for buf in (1024, 16384):
        for P, topo, pattern, extra in ((6, "2x2x2", "pairs", []),
                                         (8, "3x3", "pairs", []),
                                         (8, "2x2x2", "mirror", ["-M"])):
            out.append(("stream", P, topo, buf, pattern, 8, 0,
                        ["-n", str(N), "-w", "0", "-s", "8"] + extra, 64))
    # Programs that poll after every send (the idle regime) on more grids.
    for P, topo in ((4, "2x2"), (8, "3x3")):
        out.append(("gups", P, topo, 16384, "uniform", 8, 1,
                    ["-n", str(N), "-w", "0", "-k", "1"], 64))
    for P, topo in ((8, "direct"), (8, "2x2x2")):
        out.append(("alltoall_items", P, topo, 16384, "alltoall", 32, 1,
                    ["-m", str(N // (P - 1)), "-w", "0", "-k", "1"], 64))
    # Job-size windows: the window rule of 65,536 ranks (512-byte base
    # windows, OMNIBUS_FLOW_RANKS) on 4 to 8: every pair stalls and grows.
    flow = {"OMNIBUS_FLOW_RANKS": "65536"}
    for P, topo in ((8, "direct"), (8, "2x4"), (8, "2x2x2")):
        for k in (64, 1):
            out.append(("gups", P, topo, 1024, "uniform", 8, k,
                        ["-n", str(N // 2), "-w", "0", "-k", str(k)], 64, 0,
                        flow))
    out.append(("alltoall_items", 8, "2x2x2", 1024, "alltoall", 32, 64,
                ["-m", str(N // 2 // 7), "-w", "0"], 64, 0, flow))
    for P, topo, pattern, extra in ((4, "2x2", "pairs", []),
                                     (6, "2x2x2", "pairs", []),
                                     (8, "2x2x2", "mirror", ["-M"])):
        out.append(("stream", P, topo, 16384, pattern, 8, 0,
                    ["-n", str(N), "-w", "0", "-s", "8"] + extra, 64, 0,
                    flow))
    # The small-cap build (FL_FILL_CAP=2) on relayed traffic too.
    for P, topo in ((8, "2x2x2"), (8, "3x3")):
        out.append(("gups", P, topo, 1024, "uniform", 8, 64,
                    ["-n", str(N), "-w", "0", "-k", "64"], 2))
    out.append(("alltoall_items", 8, "2x2x2", 1024, "alltoall", 32, 64,
                ["-m", str(N // 7), "-w", "0"], 2))
    return out

def measure(kernel, P, topo, buf, args, cap, nodes, extra):
    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, OMNIBUS_TOPOLOGY=topo, OMNIBUS_BUFFER_SIZE=str(buf),
               OMNIBUS_FLUSH_US="1000000", OMNIBUS_STATS_FILE=path, **extra)
    if nodes:
        env["OMNIBUS_FAKE_NODES"] = str(nodes)
    if cap != 64:
        env["OMNIBUS_LIB"] = os.path.join(B, "smallcap", "libomnibus.so")
    cmd = [os.path.join(ROOT, "scripts", "user", "omnibus-run"), "-n", str(P),
           os.path.join(B, "bench", kernel)] + args
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=300, check=True)
    with open(path) as f:
        s = json.load(f)
    return s, path

def predict(P, topo, buf, pattern, msg, poll, sends, cap, nodes, stats,
            blocking, extra):
    env = dict(os.environ, OMNIBUS_BUFFER_SIZE=str(buf), **extra)
    where = ["--nodes", str(nodes), "--round-robin"] if nodes else []
    what = (["--histogram", stats] if pattern == "histogram"
            else ["--pattern", pattern])
    if pattern == "histogram" and blocking:
        what.append("--in-turn") # a stencil sends to its neighbours in turn
    out = subprocess.run([os.path.join(B, "omnibus-plan"), "--ranks", str(P),
                          "--topology", topo] + what +
                         ["--message", str(msg),
                          "--poll", str(poll), "--blocking", str(blocking),
                          "--sends", str(sends),
                          "--cap", str(cap), "--json"] + where, env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)["candidates"][0]

# Fallbacks per send below which a count is taken as none.
NONE_PER_SEND = 0.001

def agree(predicted, measured):
    """Within 10% of the measured figure, or both under NONE_PER_SEND."""
    if max(predicted, measured) < NONE_PER_SEND:
        return True
    return abs(predicted - measured) <= 0.10 * measured

def plot(rows, path):
    """Predicted against measured, beside the anchors other aggregation
    libraries' analyses give: wire messages per send under full buffers,
    and the memory of a full buffer (or two) for every peer."""
    try:
        plt = matplotlib_path.pyplot()
    except ImportError:
        print("plan_validate: no matplotlib (scripts/setup/ensure-deps "
              "plots installs it); no plot drawn", file=sys.stderr)
        return False
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 5))
    x = [r["wire_per_send_measured"] for r in rows]
    a.scatter(x, [r["wire_per_send_predicted"] for r in rows], s=18,
              label="omnibus-plan")
    a.scatter(x, [r["anchor_wire_full"] for r in rows], s=18, marker="x",
              label="full-buffer bound (hops x item / B)")
    lo, hi = min(x) / 3, max(x) * 3
    a.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    a.fill_between([lo, hi], [lo * 0.9, hi * 0.9], [lo * 1.1, hi * 1.1],
                   color="0.85", label="within 10%", zorder=0)
    a.set(xscale="log", yscale="log", xlabel="measured wire messages per send",
          ylabel="predicted", title="Wire messages per send")
    a.legend(fontsize=8)
    x = [r["fill_measured"] for r in rows]
    b.scatter(x, [r["fill_predicted"] for r in rows], s=18,
              label="omnibus-plan (buffers filling at once)")
    b.scatter(x, [r["peers"] * (r["buffer"] + 24) for r in rows], s=18,
              marker="x", label="a full buffer per peer (peers x B)")
    b.scatter(x, [2 * r["peers"] * (r["buffer"] + 24) for r in rows], s=18,
              marker="+", label="two per peer (one filling, one travelling)")
    b.scatter(x, [r["peak_measured"] for r in rows], s=10, marker=".",
              color="0.5", label="measured whole peak (timing's)")
    lo, hi = min(x) / 3, max(r["peak_measured"] for r in rows) * 3
    b.plot([lo, hi], [lo, hi], "k-", lw=0.8)
    b.set(xscale="log", yscale="log",
          xlabel="measured peak of the filling buffers, bytes per rank",
          ylabel="predicted (or measured whole peak)",
          title="Buffer memory per rank")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def main():
    argv = sys.argv[1:]
    out = os.path.join(ROOT, "bench", "results", "plan_validation")
    only = None
    while argv:
        a = argv.pop(0)
        if a == "--out":
            out = argv.pop(0)
        elif a == "--only":
            only = argv.pop(0)
        else:
            print(__doc__)
            return 2
    rows = []
    for run in runs():
        kernel, P, topo, buf, pattern, msg, poll, args, cap = run[:9]
        nodes = run[9] if len(run) > 9 else 0
        extra = run[10] if len(run) > 10 else {}
        name = (f"{kernel} {' '.join(args)} {pattern} P={P} {topo} B={buf} "
                f"cap={cap}"
                f"{f' nodes={nodes}' if nodes else ''}"
                f"{''.join(f' {k}={v}' for k, v in extra.items())}")
        if only and only not in name:
            continue
        m, stats = measure(kernel, P, topo, buf, args, cap, nodes, extra)
        t = m["totals"]
        sends_per_rank = (int(args[args.index("-n") + 1]) if "-n" in args
                          else (N // (P - 1)) * (P - 1))
        blocking = 0
        if kernel == "halo":
            sends_per_rank *= 8
            blocking = 8
        p = predict(P, topo, buf, pattern, msg, poll, sends_per_rank, cap,
                    nodes, stats, blocking, extra)
        os.unlink(stats)
        pt = p["predicted_totals"]
        us = t["user_sends"]
        hist = m["hops_histogram"]
        phist = p["predicted_hops_histogram"]
        r = {
            "kernel": kernel, "args": " ".join(args), "ranks": P,
            "pattern": pattern,
            "topology": topo, "buffer": buf, "message": msg, "poll": poll,
            "cap": cap, "nodes": nodes or 1,
            "flow_ranks": extra.get("OMNIBUS_FLOW_RANKS", P),
            "hops_measured": "/".join(f"{h / us:.4f}" for h in hist),
            "hops_predicted": "/".join(f"{h / pt['predicted_user_sends']:.4f}"
                                       for h in phist),
            # the program's items only: control items (credit, answers)
            # are Omnibus's own traffic, which the model leaves out
            "fwd_per_send_measured": (t["forwarded_items"] -
                                      t["forwarded_control_items"]) / us,
            "fwd_control": t["forwarded_control_items"],
            "fwd_per_send_from_hops": sum((a - 1) * h for a, h in
                                          enumerate(hist) if a > 1) / us,
            "fwd_per_send_predicted": pt["predicted_forwarded_items"] /
                                      pt["predicted_user_sends"],
            "collective_messages": m["collectives"]["messages"],
            "wire_per_send_raw": t["wire_messages"] / us,
            "wire_per_send_measured": (t["wire_messages"] -
                                       m["collectives"]["messages"]) / us,
            "wire_per_send_predicted": pt["predicted_wire_messages"] /
                                       pt["predicted_user_sends"],
            "off_node_per_send_measured": t["wire_messages_off_node"] / us,
            "off_node_per_send_predicted":
                pt["predicted_wire_messages_off_node"] /
                pt["predicted_user_sends"],
            "peak_measured": m["peak_buffer_bytes_per_rank"],
            "peak_predicted": p["predicted_peak_buffer_bytes_per_rank"],
            "fill_measured": m["peak_fill_bytes_per_rank"],
            "fill_predicted": p["predicted_peak_fill_bytes_per_rank"],
            "bound": m["memory_bound_bytes"],
            "peers": p["peers_per_rank"],
            "anchor_wire_full": (1 + (t["forwarded_items"] -
                                      t["forwarded_control_items"]) / us) *
                                (24 + msg) / buf,
            "flushes_measured": "/".join(str(m["flushes"][k]) for k in
                                         ("full", "idle", "age",
                                          "before_blocking", "quiet")),
            "trigger_predicted": p["trigger"],
            "fallbacks_per_send_measured": t["window_fallbacks"] / us,
            "fallbacks_per_send_predicted":
                pt["predicted_window_fallbacks"] /
                pt["predicted_user_sends"],
            "stalls_measured": m["flow"]["stalls"],
            "stalls_predicted": p["predicted_flow"]["predicted_stalls"],
            "tables_measured": m["table_bytes_per_rank"],
            "tables_predicted": p["predicted_table_bytes_per_rank"],
            "bound_predicted": p["predicted_memory_bound_bytes"],
        }
        r["wire_ratio"] = r["wire_per_send_predicted"] / r["wire_per_send_measured"]
        r["fallbacks_ok"] = agree(r["fallbacks_per_send_predicted"],
                                  r["fallbacks_per_send_measured"])
        r["off_node_ratio"] = (r["off_node_per_send_predicted"] /
                               r["off_node_per_send_measured"]
                               if r["off_node_per_send_measured"] else 1.0)
        r["peak_ratio"] = r["peak_predicted"] / max(1, r["peak_measured"])
        r["fill_ratio"] = r["fill_predicted"] / max(1, r["fill_measured"])
        rows.append(r)
        print(f"{name}: wire/send {r['wire_per_send_measured']:.5f} predicted "
              f"{r['wire_per_send_predicted']:.5f} ({r['wire_ratio']:.3f}), "
              f"fwd {r['fwd_per_send_measured']:.4f}/{r['fwd_per_send_predicted']:.4f}, "
              f"peak {r['peak_measured']}/{r['peak_predicted']}, "
              f"filling {r['fill_measured']}/{r['fill_predicted']}", flush=True)
    prov = provenance.header(
        " ".join(["bench/plan_validate.py"] + sys.argv[1:]),
        provenance.mpich_version(), "shim router plan bench/*.c bench/*.h",
        conditions="counts, not times, are compared: other load on the "
                   "machine does not move them")
    with open(out + ".csv", "w", newline="") as f:
        f.write(provenance.text(prov, csv=True))
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    within = sum(abs(r["wire_ratio"] - 1) <= 0.10 for r in rows)
    pwithin = sum(abs(r["peak_ratio"] - 1) <= 0.10 for r in rows)
    fwithin = sum(abs(r["fill_ratio"] - 1) <= 0.10 for r in rows)
    bounded = sum(r["peak_measured"] <= r["bound"] for r in rows)
    fallbacks = sum(r["fallbacks_ok"] for r in rows)
    both = sum(abs(r["wire_ratio"] - 1) <= 0.10 and r["fallbacks_ok"]
               for r in rows)
    flowed = [r for r in rows if r["flow_ranks"] != r["ranks"]]
    stalls = sum(abs(r["stalls_predicted"] - r["stalls_measured"]) <=
                 0.10 * r["stalls_measured"] for r in flowed)
    tables = sum(r["tables_predicted"] == r["tables_measured"] for r in rows)
    bounds = sum(r["bound_predicted"] == r["bound"] for r in rows)
    drawn = plot(rows, out + ".png")
    with open(out + ".md", "w") as f:
        f.write("# omnibus-plan against the statistics file\n\n")
        f.write(provenance.text(prov))
        if drawn:
            f.write(f"\n![predicted against measured, with the anchors]"
                    f"({os.path.basename(out)}.png)\n")
        f.write(f"\nOMNIBUS_FLUSH_US=1000000 on every run; {N} sends per "
                f"rank, no warmup.\n\n")
        exact = sum(abs(r["fwd_per_send_measured"] -
                        r["fwd_per_send_from_hops"]) < 1e-12 for r in rows)
        f.write(__doc__.split("\n\n", 2)[2].strip() + "\n\n")
        f.write(f"Forwarded items equal to sum over a of (a - 1) x hops[a]: "
                f"{exact} of {len(rows)} runs.\n")
        emulated = [r for r in rows if r["nodes"] > 1]
        f.write(f"Across emulated nodes (OMNIBUS_FAKE_NODES), off-node wire "
                f"messages per send within 10%: "
                f"{sum(abs(r['off_node_ratio'] - 1) <= 0.10 for r in emulated)} "
                f"of {len(emulated)} runs.\n")
        # The figures docs/planning.md quotes are marked for
        # scripts/test/check-figures.
        f.write(f"Wire messages per send within 10%: "
                f"<!-- fig:wire-within-10 -->{within} of {len(rows)} "
                f"runs. Peak bytes of the filling buffers within 10%: "
                f"{fwithin} of {len(rows)}. The whole peak within 10% of the "
                f"model's (which takes every item as received at the next "
                f"poll): {pwithin} of {len(rows)}; within the memory bound: "
                f"{bounded} of {len(rows)}.\n")
        f.write(f"Fallbacks to MPI per send within 10% (or both under "
                f"{NONE_PER_SEND} per send): {fallbacks} of {len(rows)}; wire "
                f"messages per send and fallbacks both within 10%: "
                f"<!-- fig:wire-fallbacks-within-10 -->{both} of "
                f"{len(rows)}. Under OMNIBUS_FLOW_RANKS, stalls within 10%: "
                f"{stalls} of {len(flowed)}. Per-rank tables "
                f"(table_bytes_per_rank) equal: {tables} of {len(rows)}; the "
                f"memory bound equal: {bounds} of {len(rows)}.\n\n")
        f.write("| kernel | args | pattern | P | nodes | flow ranks | "
                "topology | B | cap | "
                "hops measured | "
                "hops predicted | fwd/send measured | fwd/send from hops | "
                "fwd/send predicted | collective msgs | "
                "wire/send measured | wire/send predicted | ratio | "
                "off-node/send measured | off-node/send predicted | "
                "flushes full/idle/age/blocking/quiet | predicted trigger | "
                "filling peak measured | filling peak predicted | "
                "peak measured | peak predicted | bound | "
                "fallbacks/send measured | fallbacks/send predicted | "
                "stalls measured | stalls predicted | tables |\n")
        f.write("|" + "---|" * 32 + "\n")
        for r in rows:
            f.write(f"| {r['kernel']} | `{r['args']}` | {r['pattern']} | "
                    f"{r['ranks']} | "
                    f"{r['nodes']} | {r['flow_ranks']} | "
                    f"{r['topology']} | {r['buffer']} | {r['cap']} | "
                    f"{r['hops_measured']} | {r['hops_predicted']} | "
                    f"{r['fwd_per_send_measured']:.4f} | "
                    f"{r['fwd_per_send_from_hops']:.4f} | "
                    f"{r['fwd_per_send_predicted']:.4f} | "
                    f"{r['collective_messages']} | "
                    f"{r['wire_per_send_measured']:.5f} | "
                    f"{r['wire_per_send_predicted']:.5f} | "
                    f"{r['wire_ratio']:.3f} | "
                    f"{r['off_node_per_send_measured']:.5f} | "
                    f"{r['off_node_per_send_predicted']:.5f} | "
                    f"{r['flushes_measured']} | "
                    f"{r['trigger_predicted']} | {r['fill_measured']} | "
                    f"{r['fill_predicted']} | {r['peak_measured']} | "
                    f"{r['peak_predicted']} | {r['bound']} | "
                    f"{r['fallbacks_per_send_measured']:.5f} | "
                    f"{r['fallbacks_per_send_predicted']:.5f} | "
                    f"{r['stalls_measured']} | {r['stalls_predicted']} | "
                    f"{r['tables_measured']} |\n")
    # What the model promises (docs/planning.md, Validation): wire messages
    # per send and fallbacks within 10% in at least 90% of the runs, the
    # per-rank tables and the memory bound exactly the statistics file's.
    short = []
    if both < 0.9 * len(rows):
        short.append(f"wire messages per send and fallbacks within 10% in "
                     f"{both} of {len(rows)} runs, fewer than 90%")
    if tables < len(rows) or bounds < len(rows):
        short.append(f"per-rank tables equal in {tables} and the memory "
                     f"bound in {bounds} of {len(rows)} runs, not all")
    for line in short:
        print(f"plan_validate: {line}", file=sys.stderr)
    return 1 if short else 0

if __name__ == "__main__":
    sys.exit(main())
