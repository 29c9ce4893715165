"""provenance: the lines every results file of bench/results starts with
(docs/performance.md, How figures are kept), one "key: value" each, written
by every script that writes a results file and read back by
scripts/test/check-figures.

    date, commit, host, cpu, cores, MPI, command, affected by

"commit" is what the library and kernels were built from; "affected by"
names the source paths (git pathspecs) whose later changes make the file
older than the code it measures, which check-figures computes from git.
Nothing else about a file's age belongs in it.
"""
import datetime
import os
import platform
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
KEYS = ["date", "commit", "host", "cpu", "cores", "MPI", "command",
        "affected by"]
# What the run shared its machine with, when the writer knows: how far its
# times can be trusted, not how old it is.
OPTIONAL_KEYS = ["conditions"]


def _run(args):
    try:
        return subprocess.run(args, capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def git_commit():
    """The commit the measured sources were built from, with a note when
    the tracked sources differ from it (bench/results/ aside: the files a
    run writes are not what it measured)."""
    sha = _run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"]).strip()
    if not sha:
        return "? (not a git checkout)"
    dirty = _run(["git", "-C", ROOT, "status", "--porcelain",
                  "--untracked-files=no", "--", ".",
                  ":(exclude)bench/results"]).strip()
    return sha + (" with uncommitted changes" if dirty else "")


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def mpich_version():
    txt = _run(["mpichversion"])
    m = re.search(r"MPICH Version:\s*(\S+)", txt)
    d = re.search(r"MPICH Device:\s*(\S+)", txt)
    if not m:
        return "MPICH ?"
    return f"MPICH {m.group(1)} ({d.group(1) if d else '?'})"


def openmpi_version():
    txt = _run(["mpiexec.openmpi", "--version"])
    m = re.search(r"\(Open(?: MPI|RTE)\)\s*(\S+)", txt)
    return f"Open MPI {m.group(1) if m else '?'}"


def header(command, mpi, affected_by, started=None, conditions=None):
    """The provenance of a run that started at started (now if None):
    [(key, value)] in the order of KEYS, then the conditions if given."""
    started = started or datetime.datetime.now()
    return [("date", f"{started:%Y-%m-%d %H:%M}"),
            ("commit", git_commit()),
            ("host", platform.node()),
            ("cpu", cpu_model()),
            ("cores", str(os.cpu_count() or 1)),
            ("MPI", mpi),
            ("command", command),
            ("affected by", affected_by)] + (
                [("conditions", conditions)] if conditions else [])


def text(pairs, csv=False):
    """The provenance as the lines a file starts with: "- key: value" in
    Markdown and text, "# key: value" in a CSV."""
    prefix = "# " if csv else "- "
    return "".join(f"{prefix}{k}: {v}\n" for k, v in pairs)
