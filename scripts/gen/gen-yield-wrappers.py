#!/usr/bin/env python3
"""Generate the yield-only library's PMPI wrappers from a table.

    gen-yield-wrappers.py bench/yield/calls.tbl build/gen/yield_wrappers_gen.c

The yield-only library (bench/yield/, built as build/libyieldonly.so) is a
benchmark baseline: it turns each blocking MPI call into its nonblocking or
test form plus a loop that spins and then sched_yield()s with Omnibus's
policy, and changes nothing else.  The row kinds (nb, poll, test, impl) are
described at the top of the table.

Prototypes come from mpi.h as $MPICC preprocesses it, parsed by the
functions of scripts/gen/gen-wrappers.py (Omnibus's own generator; loaded, not
copied, so the two agree on every parameter list).  Unlike that one, this
script finds some parameters by name (flag, outcount, source), MPICH's.  Each wrapper has exactly the header's
parameter list so that it overrides the library's symbol.  The script fails
(exit 1, message on stderr) if a table name has no prototype or if a
nonblocking or test form's parameters do not fit its row.  Output depends
only on the table and the headers.
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_omnibus_generator():
    path = os.path.join(HERE, "gen-wrappers.py")
    spec = importlib.util.spec_from_file_location("gen_wrappers", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gw = load_omnibus_generator()


def die(msg):
    sys.stderr.write("gen-yield-wrappers: error: %s\n" % msg)
    sys.exit(1)


KINDS = {"nb": 3, "poll": 3, "impl": 3, "test": 2}


def parse_row(words, where):
    """(name, kind, argument or None) of one row."""
    if len(words) < 2 or KINDS.get(words[1]) != len(words):
        die("%s: expected '<MPI_X> nb <MPI_IX>', '<MPI_X> poll <MPI_TX>', "
            "'<MPI_X> test' or '<MPI_X> impl <function>'" % where)
    return (words[0], words[1], words[2] if len(words) == 3 else None)


def read_table(path):
    """[(name, kind, argument or None)] in table order."""
    return gw.table_rows(path, parse_row, die)


def proto(protos, name, what=""):
    params = gw.prototype(protos, name)
    if params is None:
        die("%s%s has no prototype in the MPI headers" % (what, name))
    return params


def done_test(name, params):
    """The C expression, over the parameters of a test form, that says it
    found something: its flag, or outcount != 0 (MPI_Testsome)."""
    by_name = {p.name: p for p in params}
    for pname, expr in (("flag", "*flag"), ("outcount", "*outcount != 0")):
        p = by_name.get(pname)
        if p is not None and p.ctype == "int*":
            return expr
    die("%s has neither an `int *flag` nor an `int *outcount` parameter" % name)


def signature(name, params):
    return "YO_EXPORT int %s(%s)\n{\n" % (name, ", ".join(p.text for p in params) or "void")


def passthrough(name, params, procnull=True):
    """Straight to PMPI_X while the library is off.  Also, MPICH 4.0.2
    completes an MPI_Irecv from MPI_PROC_NULL with source and tag 0, where
    MPI_Recv gives MPI_PROC_NULL and MPI_ANY_TAG: a receive from
    MPI_PROC_NULL (which never waits) goes straight to the blocking call."""
    cond = "!yieldonly.on"
    if (procnull and any(p.ctype == "MPI_Status*" for p in params) and
            any(p.name == "source" and p.ctype == "int" for p in params)):
        cond += " || source == MPI_PROC_NULL"
    return "    if (%s)\n        return P%s(%s);\n" % (
        cond, name, ", ".join(p.name for p in params))


def wrap_nb(name, params, nbname, protos):
    nbargs, status = gw.nonblocking_call(name, params, nbname, protos)
    return ("    MPI_Request req;\n"
            "    int rc = P%s(%s);\n" % (nbname, nbargs) +
            "    if (rc != MPI_SUCCESS)\n        return rc;\n"
            "    return yo_wait(&req, %s);\n}\n" % status)


def wrap_poll(name, params, tname, protos):
    tparams = proto(protos, tname, "%s: test form " % name)
    names = {p.name for p in params}
    extra = [p for p in tparams if p.name not in names]
    if extra:
        # MPI_X's parameters plus one int *flag, which the loop owns.
        if len(extra) != 1 or extra[0].ctype != "int*":
            die("%s: %s adds (%s) to its parameters, expected one int *"
                % (name, tname, ", ".join(p.text for p in extra)))
        flag = extra[0].name
        rest = [p for p in tparams if p is not extra[0]]
        decl = "        int %s = 0;\n" % flag
        args = ", ".join("&" + flag if p is extra[0] else p.name for p in tparams)
        done = flag
    else:
        rest = tparams
        decl = ""
        args = ", ".join(p.name for p in tparams)
        done = done_test(tname, tparams)
    if [(p.name, p.ctype) for p in rest] != [(p.name, p.ctype) for p in params]:
        die("%s: parameters of %s are (%s), expected those of %s (%s) and "
            "at most one int *flag" % (name, tname, ", ".join(p.text for p in tparams),
                                      name, ", ".join(p.text for p in params)))
    return ("    unsigned spins = 0;\n"
            "    for (;;) {\n" + decl +
            "        int rc = P%s(%s);\n" % (tname, args) +
            "        if (rc != MPI_SUCCESS || %s)\n" % done +
            "            return rc;\n"
            "        yo_pause(&spins);\n"
            "    }\n}\n")


def wrapper(name, kind, arg, protos):
    params = proto(protos, name)
    args = ", ".join(p.name for p in params)
    head = signature(name, params)
    if kind == "test":
        return (head +
                "    int rc = P%s(%s);\n" % (name, args) +
                "    if (yieldonly.on)\n"
                "        yo_polled(rc != MPI_SUCCESS || %s);\n" % done_test(name, params) +
                "    return rc;\n}\n")
    if kind == "impl":
        # The hand-written bodies handle MPI_PROC_NULL themselves.
        return (head + passthrough(name, params, procnull=False) +
                "    return %s(%s);\n}\n" % (arg, args))
    head += passthrough(name, params)
    if kind == "nb":
        return head + wrap_nb(name, params, arg, protos)
    return head + wrap_poll(name, params, arg, protos)


BANNER = """\
/* GENERATED by scripts/gen/gen-yield-wrappers.py from bench/yield/calls.tbl --
 * DO NOT EDIT.  The build makes it anew from the table.
 *
 * The yield-only library's PMPI wrappers (bench/yield/yield.h): "nb" rows
 * start the nonblocking form and wait in yo_wait(); "poll" rows loop on the
 * test form; "test" rows are the application's own polls, counted by
 * yo_polled(); "impl" rows call a hand-written body in yield.c.
 */
#include "bench/yield/yield.h"
"""


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen-yield-wrappers.py TABLE OUTPUT.c\n")
        return 2
    table, out = argv[1], argv[2]
    protos = gw.read_prototypes()
    rows = read_table(table)
    gw.write_generated(out, BANNER + "".join("\n" + wrapper(n, k, a, protos)
                                             for n, k, a in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
