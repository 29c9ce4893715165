"""bench_plots: the PNG plots of scripts/measure/bench (--plots DIR).

Contract: every function takes the runner's rows ({(case, mode): Row}) and
cases, draws with matplotlib's non-interactive backend, writes into `outdir`
and returns the paths it wrote.  A plot with nothing to show is not drawn.
Speedup always means "higher is better": for a latency kernel it is the
plain-MPICH latency over the mode's.
"""

import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend comes first)


def speedup(row, base):
    r = row.ratio(base)
    if r is None or r <= 0:
        return None
    return 1.0 / r if row.unit == "us" else r


def case_name(case):
    return f"{case.label} {case.transport} {case.ranks}r"


def _save(fig, outdir, name):
    path = os.path.join(outdir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _size_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([human(s) for s in sizes], rotation=45)


def human(n):
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return f"{n // div}{unit}"
    return str(n)


def matrix(rows, cases, modes, outdir, title, prefix=""):
    """The matrix's plots, as outdir/<prefix>speedup.png and so on."""
    written = []
    others = [m for m in modes if m != "mpich"]
    # Kernels run at several sizes get their own plot below.
    multi = {c.kernel for c in cases
             if len({x.size for x in cases if x.kernel == c.kernel}) > 1}
    unsized = [c for c in cases if c.kernel not in multi]

    # Speedup over plain MPICH, one group of bars per case.
    if unsized and others:
        fig, ax = plt.subplots(figsize=(9, 0.45 * len(unsized) * len(others)
                                        + 1.5))
        y, labels, ticks = 0, [], []
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        for case in reversed(unsized):
            base = rows[(case, "mpich")]
            start = y
            for k, mode in enumerate(others):
                sp = speedup(rows[(case, mode)], base)
                if sp is not None:
                    ax.barh(y, sp, color=colours[k % len(colours)],
                            label=mode if case is unsized[-1] else None)
                    ax.text(sp, y, f" {sp:.3g}x", va="center", fontsize=7)
                y += 1
            ticks.append((start + y - 1) / 2)
            labels.append(case_name(case))
            y += 0.6
        ax.set_yticks(ticks)
        ax.set_yticklabels(labels, fontsize=8)
        ax.set_xscale("log")
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("speedup over plain MPICH (log scale; right of 1 is "
                      "faster)")
        ax.set_title(f"Speedup per kernel\n{title}", fontsize=9)
        ax.legend(fontsize=8, loc="lower right")
        written.append(_save(fig, outdir, prefix + "speedup.png"))

    # Speedup against message size, for the kernels run at several sizes.
    groups = {}
    for case in cases:
        if case.size:
            groups.setdefault((case.kernel, case.transport, case.ranks),
                              []).append(case)
    groups = {k: sorted(v, key=lambda c: c.size) for k, v in groups.items()
              if len(v) > 1}
    if groups and others:
        fig, ax = plt.subplots(figsize=(8, 5))
        all_sizes = set()
        for (kernel, transport, ranks), cs in groups.items():
            for mode in others:
                pts = [(c.size, speedup(rows[(c, mode)], rows[(c, "mpich")]))
                       for c in cs]
                pts = [(s, v) for s, v in pts if v is not None]
                if pts:
                    all_sizes.update(s for s, _ in pts)
                    ax.plot([s for s, _ in pts], [v for _, v in pts],
                            marker="o",
                            label=f"{kernel} {transport} {ranks}r {mode}")
        _size_axis(ax, sorted(all_sizes))
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel("speedup over plain MPICH (log scale)")
        ax.set_title(f"Speedup against message size\n{title}", fontsize=9)
        ax.legend(fontsize=7)
        written.append(_save(fig, outdir, prefix + "speedup_vs_size.png"))

    # Wire messages per user send, per topology.
    omni = [m for m in others if m == "omnibus" or m.startswith("omnibus:")]
    have = [c for c in cases
            if any(rows[(c, m)].wire_per_send is not None for m in omni)]
    if have:
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(have)), 4.5))
        width = 0.8 / len(omni)
        for k, mode in enumerate(omni):
            xs, vs = [], []
            for i, c in enumerate(have):
                v = rows[(c, mode)].wire_per_send
                if v is not None and v > 0:
                    xs.append(i + k * width)
                    vs.append(v)
            ax.bar(xs, vs, width=width, label=mode)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(have))])
        ax.set_xticklabels([case_name(c) for c in have], rotation=30,
                           ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_ylabel("MPI messages on the wire per user send (log scale)")
        ax.set_title(f"Wire messages per user send (plain MPICH: 1)\n{title}",
                     fontsize=9)
        ax.legend(fontsize=8)
        written.append(_save(fig, outdir, prefix + "wire_per_send.png"))

    # Across emulated nodes: wire messages to another node per user send,
    # the ones that crossed the network, per Omnibus mode (auto, direct).
    net = [c for c in cases if c.transport.startswith("net:")
           and any(rows[(c, m)].off_node_per_send for m in omni)]
    if net:
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(net)), 4.5))
        width = 0.8 / len(omni)
        for k, mode in enumerate(omni):
            xs, vs = [], []
            for i, c in enumerate(net):
                v = rows[(c, mode)].off_node_per_send
                if v:
                    xs.append(i + k * width)
                    vs.append(v)
            ax.bar(xs, vs, width=width, label=mode)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(net))])
        ax.set_xticklabels([case_name(c) for c in net], rotation=30,
                           ha="right", fontsize=8)
        ax.set_yscale("log")
        ax.set_ylabel("wire messages to another node per user send (log)")
        ax.set_title("Messages that crossed the network per user send "
                     f"(lower is better)\n{title}", fontsize=9)
        ax.legend(fontsize=8)
        written.append(_save(fig, outdir,
                             prefix + "network_wire_per_send.png"))
    return written


def calibration(rows, cases, outdir, title, choice):
    written = []
    if not choice:
        return written
    fig, ax = plt.subplots(figsize=(8, 5))
    sizes = set()
    for transport, c in choice.items():
        pts = sorted(c["bw"].items())
        sizes.update(s for s, _ in pts)
        line, = ax.plot([s for s, _ in pts], [b / 1e6 for _, b in pts],
                        marker="o", label=f"plain MPICH, {transport}")
        ax.axhline(0.75 * c["peak"] / 1e6, color=line.get_color(),
                   linestyle=":", linewidth=0.8)
        ax.axvline(c["buffer"], color=line.get_color(), linestyle="--",
                   linewidth=0.8)
        ax.annotate(f"{transport}: 75% of peak at {human(c['buffer'])}B",
                    (c["buffer"], 0.75 * c["peak"] / 1e6), fontsize=8,
                    textcoords="offset points", xytext=(6, -12))
    _size_axis(ax, sorted(sizes))
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("streamed bandwidth, MB/s (log scale)")
    ax.set_title(f"Buffer size: 75% of peak bandwidth\n{title}",
                 fontsize=9)
    ax.legend(fontsize=8)
    written.append(_save(fig, outdir, "calibrate_buffer.png"))

    fig, ax = plt.subplots(figsize=(8, 5))
    sizes = set()
    for transport, c in choice.items():
        pts = sorted(c["speedup"].items())
        if not pts:
            continue
        sizes.update(s for s, _ in pts)
        line, = ax.plot([s for s, _ in pts], [v for _, v in pts], marker="o",
                        label=f"Omnibus / MPICH, {transport}")
        if c["threshold"]:
            ax.axvline(c["threshold"], color=line.get_color(),
                       linestyle="--", linewidth=0.8)
    if sizes:
        _size_axis(ax, sorted(sizes))
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xlabel("message size, aggregated (bytes)")
    ax.set_ylabel("stream speedup over plain MPICH (log scale)")
    ax.set_title(f"Threshold: where aggregation stops paying\n{title}",
                 fontsize=9)
    ax.legend(fontsize=8)
    written.append(_save(fig, outdir, "calibrate_threshold.png"))
    return written

