#!/usr/bin/env python3
"""Generate the PMPI wrappers of blocking MPI calls from a table.

    gen-wrappers.py shim/entry/wrappers.tbl build/gen/wrappers_gen.c
                    [build/gen/omni_have.h]

Why: Omnibus forwards other ranks' items only while this rank is inside
Omnibus (docs/design/progress.md).  A rank parked in a blocking MPI call
that Omnibus does not drive stalls every route through it, and a correct
program hangs.  So each such call is wrapped; there are too many to write
by hand.

The table has one MPI function per line, with its kind:

  MPI_X  nb MPI_IX   The call has a nonblocking form.  The wrapper passes
                     straight to PMPI_X while Omnibus is off; otherwise it
                     flushes (prog_block_enter), starts PMPI_IX with the same
                     arguments and waits in prog_wait(), which keeps
                     forwarding until the request completes.  A blocking form
                     with an MPI_Status * parameter (collective file I/O)
                     gives that status to prog_wait, not to PMPI_IX.
  MPI_X  flush       No nonblocking form: flush, then call PMPI_X.  At least
                     no other rank then waits on an item parked here.
  MPI_X  drain       A collective with no nonblocking form on a file or
                     window (shim/ops/drain.h): the members meet in a barrier
                     Omnibus drives before PMPI_X, so that no member waits
                     inside the MPI library for a relay that sits there
                     too.  The parameters say which object: a communicator
                     and an MPI_File * or MPI_Win * make one
                     (drain_before_make, drain_made); an MPI_File * or
                     MPI_Win * alone frees one (drain_object, then
                     drain_forget); an MPI_File or MPI_Win is an object's
                     call (drain_object).
  MPI_X  impl F      Omnibus implements the call in F, whose parameters are
                     those of the large-count form (MPI_Count counts), so
                     MPI_X and MPI_X_c share one implementation; the wrapper
                     passes straight to PMPI_X while Omnibus is off.
  MPI_X  nbr KIND    A neighbourhood collective of NBR_KIND (ALLGATHER,
                     ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW): its
                     arguments become an nbr_args and the call goes to
                     nbr_run (shim/ops/neighbor.h); when Omnibus does not
                     take it, a blocking form runs as its nonblocking one
                     plus progress, as an nb row, and any other goes to
                     PMPI_X.  Blocking, nonblocking (MPI_I...) or persistent
                     (..._init) and int or large-count (..._c) come from
                     the name; the arguments are found by position, and
                     their types are checked.
  MPI_X  send MODE   A point-to-point send: on a communicator Omnibus
                     manages it becomes send_start(..., SEND_MODE, request
                     or NULL); on any other it goes straight to PMPI_X.
  MPI_X  view F      A completion call (Wait/Test family): F gets a view of
                     the request argument in which Omnibus's own request
                     handles are replaced by the library's requests they
                     stand for (preq_view_begin/end, shim/engine/preq.h);
                     the size of the view is the int parameter just before
                     the requests (a count), or 1.
  MPI_X  init MODE   A persistent send's creation: on a communicator Omnibus
                     manages it becomes persist_send_init(..., SEND_MODE,
                     request); on any other it goes straight to PMPI_X.
  MPI_X  hand        Wrapped by a function written by hand in shim/: nothing
                     is generated.
  MPI_X  safe WHY    Reads a request or message, but none of Omnibus's can
                     reach it, for the reason WHY: nothing is generated.

Every call of mpi.h that reads a request or a message the program holds
(by value, as an array, or a pointer that is not the new one a call
starts) must have a row: otherwise Omnibus's own handle would reach the
MPI library untranslated.  The script fails naming any other.

Prototypes are read from mpi.h as the MPI compiler of the build sees it:
the output of `$MPICC -E` (MPICC defaults to mpicc) on a file that
includes it, attributes stripped wherever they stand, so one script reads
MPICH's and Open MPI's alike.  Each wrapper is emitted with exactly the
header's parameter list, types and names, so that it overrides the
library's symbol; parameters are found by position and type, never by
name, since names differ between implementations.  A row whose call that
mpi.h lacks generates nothing, and the optional third file, a header,
defines OMNI_HAVE_<name> to 1 or 0 for every row, for hand-written code to
test.  The script fails (exit 1, message on stderr) on a call that reads a
handle without a row, or if a nonblocking form is missing or its
parameters are not the blocking ones (minus status) plus a trailing
MPI_Request *.  Output depends only on the table and mpi.h.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

LITERAL = re.compile(r'"(?:[^"\\\n]|\\.)*"' r"|'(?:[^'\\\n]|\\.)*'")
ATTRIBUTE = re.compile(r"\b__attribute(?:__)?\s*(?=\()")
DECL = re.compile(r"^(?:extern\s+)?int\s+(MPI_\w+)\s*\((.*)\)$", re.S)
QUALIFIERS = {"const", "volatile", "restrict"}


def die(msg):
    sys.stderr.write("gen-wrappers: error: %s\n" % msg)
    sys.exit(1)


def preprocessed_mpi_h():
    """The text of mpi.h as the MPI C compiler of the build sees it: the
    output of `$MPICC -E` (default mpicc) on a file that includes it.
    Reading what the compiler sees, rather than header files found on
    disk, works for any MPI family's layout of headers and macros (MPICH's
    mpi.h includes its mpio.h, Open MPI's declares its file calls
    itself)."""
    cc = shlex.split(os.environ.get("MPICC", "mpicc"))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "mpi_h.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write("#include <mpi.h>\n")
        try:
            r = subprocess.run(cc + ["-E", src], capture_output=True, text=True)
        except OSError as e:
            die("cannot run %s: %s" % (" ".join(cc), e))
    if r.returncode != 0:
        die("`%s -E` on #include <mpi.h> failed:\n%s" % (" ".join(cc), r.stderr))
    return r.stdout


def strip_attributes(text):
    """`text` without its __attribute__((...)) specifiers, wherever they
    stand.  Every attribute macro of the MPI headers (MPICH_ATTR_*,
    OMPI_DECLSPEC, __mpi_interface_deprecated__) has become one by now, and
    their arguments may hold any text: string literals have been emptied
    first (a deprecation message may hold a ';'), so the arguments are
    balanced parentheses."""
    out, pos = [], 0
    m = ATTRIBUTE.search(text)
    while m:
        out.append(text[pos:m.start()] + " ")
        depth, pos = 0, m.end()
        while pos < len(text):
            depth += (text[pos] == "(") - (text[pos] == ")")
            pos += 1
            if depth == 0:
                break
        m = ATTRIBUTE.search(text, pos)
    out.append(text[pos:])
    return "".join(out)


class Param:
    """One parameter: its text as declared, its name, a normalized type, and
    whether it is declared as an array (`T x[]`, whose type is `T *`)."""

    def __init__(self, text, func):
        self.text = text
        m = re.search(r"(\w+)\s*((?:\[[^\]]*\]\s*)*)$", text)
        rest = text[:m.start()] if m else text
        if not m or not set(re.findall(r"\w+", rest)) - QUALIFIERS:
            die("%s: parameter '%s' has no name" % (func, text))
        self.name = m.group(1)
        self.array = bool(m.group(2))
        ctype = rest + "*" * m.group(2).count("[")      # T x[] is T *x
        self.ctype = re.sub(r"\s*\*\s*", "*", " ".join(ctype.split()))


def split_params(text):
    """Split a parameter list on the commas at parenthesis depth 0."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    parts = [" ".join(p.split()) for p in parts]
    return [] if parts in ([""], ["void"]) else parts


def read_prototypes():
    """{name: [parameter texts of each declaration]} for every
    `int MPI_...(...)` the preprocessed mpi.h declares."""
    protos = {}
    text = preprocessed_mpi_h()
    text = re.sub(r"^\s*#[^\n]*", " ", text, flags=re.M)     # line markers
    text = LITERAL.sub('""', text)
    text = strip_attributes(text)
    # A declaration ends at a ';', and a struct's or an inline function's
    # braces end whatever precedes them.
    for decl in re.split(r"[;{}]", text):
        m = DECL.match(decl.strip())
        if m:
            protos.setdefault(m.group(1), []).append(split_params(m.group(2)))
    return protos


def prototype(protos, name):
    """The [Param] of name (parsed only for names we use: `...` has no name)."""
    decls = [[Param(p, name) for p in d] for d in protos.get(name, [])]
    if not decls:
        return None
    if any([p.ctype for p in d] != [p.ctype for p in decls[0]] for d in decls):
        die("%s is declared twice with different parameters" % name)
    return decls[0]


def table_rows(path, parse, fail):
    """The rows of a wrapper table, in order: parse(words, where) of each
    line that holds more than a comment (# to the end of the line), where
    `where` is "path:line"; fail(message) when a name is listed twice.
    gen-yield-wrappers.py reads its own table with it too."""
    rows, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            where = "%s:%d" % (path, lineno)
            row = parse(words, where)
            if row[0] in seen:
                fail("%s: %s listed twice" % (where, row[0]))
            seen.add(row[0])
            rows.append(row)
    return rows


def parse_row(words, where):
    """(name, kind, argument or None, fast function or None) of one row; a
    safe row's argument is its reason."""
    if len(words) == 3 and words[1] == "nb":
        return (words[0], "nb", words[2], None)
    if len(words) == 2 and words[1] in ("flush", "drain", "hand"):
        return (words[0], words[1], None, None)
    if len(words) == 3 and words[1] in ("impl", "send", "init", "view", "nbr"):
        return (words[0], words[1], words[2], None)
    if len(words) == 5 and words[1] in ("impl", "send") and words[3] == "fast":
        return (words[0], words[1], words[2], words[4])
    if len(words) > 2 and words[1] == "safe":
        return (words[0], "safe", " ".join(words[2:]), None)
    die("%s: expected '<MPI_Name> nb <MPI_Iname>', '<MPI_Name> flush', "
        "'<MPI_Name> drain', '<MPI_Name> impl <function> [fast <function>]', "
        "'<MPI_Name> send <MODE> [fast <function>]', "
        "'<MPI_Name> view <function>', '<MPI_Name> nbr <KIND>', "
        "'<MPI_Name> init <MODE>', '<MPI_Name> hand' or "
        "'<MPI_Name> safe <reason>'" % where)


def read_table(path):
    """[(name, kind, argument or None, fast function or None)] in table
    order."""
    return table_rows(path, parse_row, die)


# The kinds of row that generate nothing: a hand-written wrapper in shim/,
# or a call Omnibus leaves to the MPI library.
NOT_GENERATED = ("hand", "safe")
# The handles Omnibus hands the program in place of the MPI library's own:
# requests, and the messages of the probes it matches (shim/base/handles.h).
HANDLES = ("MPI_Request", "MPI_Message")


def reads_handles(name, texts):
    """Whether MPI function `name`, declared with parameter texts `texts`,
    reads a request or a message the program holds.  Only the types and
    positions tell, never the names (they differ between implementations):
    a trailing MPI_Request * or MPI_Message * declared as a pointer, not an
    array, of a call with other parameters is the new handle it starts;
    every other handle by value, array or pointer is read.  (So MPI_Mprobe's
    new message counts as read; it has a row anyway.)"""
    if not any(h in t for t in texts for h in HANDLES):
        return False
    params = [Param(t, name) for t in texts]
    last = len(params) - 1
    for i, p in enumerate(params):
        base = p.ctype.rstrip("*")
        starts = p.ctype == base + "*" and not p.array and 0 < i == last
        if base in HANDLES and not starts:
            return True
    return False


def check_handle_readers(protos, rows):
    """Fails naming every call of mpi.h that reads a request or a message
    the program holds and has no row."""
    listed = {n for n, _, _, _ in rows}
    missing = sorted(n for n, decls in protos.items()
                     if n not in listed and reads_handles(n, decls[0]))
    if missing:
        die("%s read%s a request or message the program holds and %s no row "
            "in the table: Omnibus's own handles would reach the MPI library "
            "untranslated (add a row that translates them, 'hand' for a "
            "hand-written wrapper, or 'safe' with the reason none of "
            "Omnibus's handles can reach it)"
            % (", ".join(missing), "s" if len(missing) == 1 else "",
               "has" if len(missing) == 1 else "have"))


def pmpi(name):
    return "P" + name


def nonblocking_call(name, params, nbname, protos):
    """For a blocking call run as its nonblocking form: (the nonblocking
    call's argument list, ending in &req; the name of the blocking call's
    MPI_Status * parameter, or MPI_STATUS_IGNORE).  Dies unless the
    nonblocking parameters are the blocking ones minus the status, plus a
    trailing MPI_Request *."""
    nbparams = prototype(protos, nbname)
    if nbparams is None:
        die("%s: nonblocking form %s has no prototype in the MPI headers" % (name, nbname))
    status = [p for p in params if p.ctype == "MPI_Status*"]
    if len(status) > 1:
        die("%s: more than one MPI_Status * parameter" % name)
    passed = [p for p in params if p not in status]
    want = [p.ctype for p in passed] + ["MPI_Request*"]
    got = [p.ctype for p in nbparams]
    if want != got:
        die("%s: parameters of %s are (%s), expected (%s)"
            % (name, nbname, ", ".join(got), ", ".join(want)))
    return (", ".join([p.name for p in passed] + ["&req"]),
            status[0].name if status else "MPI_STATUS_IGNORE")


def write_generated(out, text):
    """Writes `out` whole or not at all (a temporary file, then a rename),
    and leaves it untouched when it already holds `text`: the build runs the
    generator every time, so that the wrappers follow the installed mpi.h,
    and an unchanged file must not rebuild the library."""
    try:
        with open(out, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    os.replace(tmp, out)


# The types a send's parameters may have, by position.
SEND_TYPES = [("const void*",), ("int", "MPI_Count"), ("MPI_Datatype",),
              ("int",), ("int",), ("MPI_Comm",)]


def send_params(name, params):
    """The names of a send's buffer, count, datatype, dest, tag and comm,
    and of its request or None.  Found by position and type: the names
    differ between implementations (Open MPI's MPI_Rsend has `ibuf`)."""
    types = [p.ctype for p in params]
    if (len(types) in (6, 7) and
            all(t in want for t, want in zip(types, SEND_TYPES)) and
            types[6:] in ([], ["MPI_Request*"])):
        return [p.name for p in params[:6]], params[6].name if len(params) == 7 else None
    die("%s: not a send: parameters are (%s)" % (name, ", ".join(p.text for p in params)))


# A neighbourhood collective's arguments before its communicator, by
# kind: the nbr_args field each one fills and the types it may have (the
# int form's or the large-count form's).  Positions, not names: the names
# differ between implementations.
COUNT = ("int", "MPI_Count")
COUNTS = ("const int*", "const MPI_Count*")
DISPLS = ("const int*", "const MPI_Aint*")
NBR_FIELDS = {
    "ALLGATHER": [("sbuf", ("const void*",)), ("scount", COUNT),
                  ("stype", ("MPI_Datatype",)), ("rbuf", ("void*",)),
                  ("rcount", COUNT), ("rtype", ("MPI_Datatype",))],
    "ALLGATHERV": [("sbuf", ("const void*",)), ("scount", COUNT),
                   ("stype", ("MPI_Datatype",)), ("rbuf", ("void*",)),
                   ("rcounts", COUNTS), ("rdispls", DISPLS),
                   ("rtype", ("MPI_Datatype",))],
    "ALLTOALLV": [("sbuf", ("const void*",)), ("scounts", COUNTS),
                  ("sdispls", DISPLS), ("stype", ("MPI_Datatype",)),
                  ("rbuf", ("void*",)), ("rcounts", COUNTS),
                  ("rdispls", DISPLS), ("rtype", ("MPI_Datatype",))],
    "ALLTOALLW": [("sbuf", ("const void*",)), ("scounts", COUNTS),
                  ("sdispls", ("const MPI_Aint*",)),
                  ("stypes", ("const MPI_Datatype*",)), ("rbuf", ("void*",)),
                  ("rcounts", COUNTS), ("rdispls", ("const MPI_Aint*",)),
                  ("rtypes", ("const MPI_Datatype*",))],
}
NBR_FIELDS["ALLTOALL"] = NBR_FIELDS["ALLGATHER"]


def nbr_body(name, kind, params, args, protos):
    """The body of an nbr row's wrapper (see the table)."""
    if kind not in NBR_FIELDS:
        die("%s: unknown neighbourhood collective kind %s (expected %s)"
            % (name, kind, ", ".join(sorted(NBR_FIELDS))))
    fields = NBR_FIELDS[kind]
    persistent = re.search(r"_init(_c)?$", name) is not None
    nonblocking = name.startswith("MPI_Ineighbor_")
    tail = (["MPI_Comm"] + (["MPI_Info"] if persistent else []) +
            (["MPI_Request*"] if persistent or nonblocking else []))
    types = [p.ctype for p in params]
    if (len(types) != len(fields) + len(tail) or
            any(t not in f[1] for t, f in zip(types, fields)) or
            types[len(fields):] != tail):
        die("%s: not a neighbourhood %s: parameters are (%s)"
            % (name, kind.lower(), ", ".join(p.text for p in params)))
    comm = params[len(fields)].name
    init = ", ".join(".%s = %s" % (f[0], p.name) for f, p in zip(fields, params))
    head = ("    nbr_args a = {.kind = NBR_%s, .large = %d, %s};\n"
            % (kind, name.endswith("_c"), init))
    if persistent or nonblocking:
        how = "NBR_PERSISTENT" if persistent else "NBR_NONBLOCKING"
        return (head +
                "    int handled, rc = nbr_run(&a, %s, %s, %s, &handled);\n"
                % (comm, how, params[-1].name) +
                "    if (!handled)\n"
                "        rc = %s(%s);\n" % (pmpi(name), args))
    nbname = name.replace("MPI_Neighbor_", "MPI_Ineighbor_", 1)
    nbargs, _ = nonblocking_call(name, params, nbname, protos)
    return (head +
            "    int handled, rc = nbr_run(&a, %s, NBR_BLOCKING, NULL, "
            "&handled);\n" % comm +
            "    if (!handled) {\n"
            "        prog_block_enter();\n"
            "        MPI_Request req;\n"
            "        rc = %s(%s);\n" % (pmpi(nbname), nbargs) +
            "        if (rc == MPI_SUCCESS)\n"
            "            rc = prog_wait(&req, MPI_STATUS_IGNORE);\n"
            "    }\n")


def wrapper(name, kind, nbname, fast, protos):
    """The wrapper of one row.  A row with a fast function gets two: the
    whole wrapper, out of line as omni_whole_<name>, and the exported one,
    which runs the fast function while Omnibus is on and unlocked and
    passes it the whole wrapper to fall back on (see the table)."""
    params = prototype(protos, name)
    if not fast:
        return whole_wrapper(name, kind, nbname, params, protos,
                             "OMNI_EXPORT int %s" % name)
    args = ", ".join(p.name for p in params)
    whole = "omni_whole_%s" % name
    return (whole_wrapper(name, kind, nbname, params, protos,
                          "static __attribute__((noinline)) int %s" % whole) +
            "\nOMNI_EXPORT int %s(%s)\n{\n" % (name, ", ".join(p.text for p in params)) +
            "    if (omni_enabled_unlocked())\n"
            "        return %s(%s, %s);\n" % (fast, args, whole) +
            "    return %s(%s);\n}\n" % (whole, args))


def whole_wrapper(name, kind, nbname, params, protos, decl):
    args = ", ".join(p.name for p in params)
    head = "%s(%s)\n{\n" % (decl, ", ".join(p.text for p in params) or "void")
    if kind == "impl":
        return (head + "    if (!omni_enabled())\n        return %s(%s);\n" % (pmpi(name), args) +
                "    omni_lock();\n"
                "    int rc = %s(%s);\n" % (nbname, args) +
                "    omni_unlock();\n    return rc;\n}\n")
    if kind == "nbr":
        return (head + "    if (!omni_enabled())\n        return %s(%s);\n" % (pmpi(name), args) +
                "    omni_lock();\n" + nbr_body(name, nbname, params, args, protos) +
                "    omni_unlock();\n    return rc;\n}\n")
    if kind in ("send", "init"):
        names, req = send_params(name, params)
        if kind == "send":
            call = ("send_start(%s, c, SEND_%s, %s)"
                    % (", ".join(names[:5]), nbname, req or "NULL"))
        elif req is None:
            die("%s: a persistent send's creation needs a request" % name)
        else:
            call = ("persist_send_init(%s, SEND_%s, %s)"
                    % (", ".join(names), nbname, req))
        return (head + "    if (!omni_enabled())\n"
                "        return %s(%s);\n" % (pmpi(name), args) +
                "    omni_lock();\n"
                "    comm_rec *c = comm_lookup(%s);\n" % names[5] +
                "    int rc = c ? %s\n"
                "               : %s(%s);\n" % (call, pmpi(name), args) +
                "    omni_unlock();\n    return rc;\n}\n")
    if kind == "view":
        reqs = [i for i, p in enumerate(params) if p.ctype == "MPI_Request*"]
        if len(reqs) != 1:
            die("%s: a view row needs exactly one MPI_Request * parameter" % name)
        i = reqs[0]
        # The view's size: the int just before an array of requests (its
        # count, as in MPI_Waitall and MPI_Waitsome), else one request.
        n = params[i - 1].name if i > 0 and params[i - 1].ctype == "int" else "1"
        req = params[i].name
        viewed = ", ".join("view_reqs" if j == i else p.name
                           for j, p in enumerate(params))
        return (head + "    if (!omni_enabled())\n"
                "        return %s(%s);\n" % (pmpi(name), args) +
                "    omni_lock();\n"
                "    preq_view v;\n"
                "    MPI_Request *view_reqs = preq_view_begin(&v, %s, %s);\n" % (n, req) +
                "    int rc = %s(%s);\n" % (nbname, viewed) +
                "    preq_view_end(&v, %s, %s);\n" % (n, req) +
                "    omni_unlock();\n    return rc;\n}\n")
    if kind == "flush":
        return (head + "    if (omni_enabled()) {\n        omni_lock();\n"
                "        prog_block_enter();\n        omni_unlock();\n    }\n"
                "    return %s(%s);\n}\n" % (pmpi(name), args))

    if kind == "drain":
        return head + drain_body(name, params, args)

    nbargs, status = nonblocking_call(name, params, nbname, protos)
    return (head +
            "    if (!omni_enabled())\n        return %s(%s);\n" % (pmpi(name), args) +
            "    omni_lock();\n"
            "    prog_block_enter();\n"
            "    MPI_Request req;\n"
            "    int rc = %s(%s);\n" % (pmpi(nbname), nbargs) +
            "    if (rc == MPI_SUCCESS)\n"
            "        rc = prog_wait(&req, %s);\n" % status +
            "    omni_unlock();\n    return rc;\n}\n")


DRAIN_KINDS = {"MPI_File": "DRAIN_FILE", "MPI_Win": "DRAIN_WIN"}


def drain_body(name, params, args):
    """The body of a drain row, chosen by its parameters (see the table)."""
    comms = [p for p in params if p.ctype == "MPI_Comm"]
    made = [p for p in params if p.ctype.rstrip("*") in DRAIN_KINDS and p.ctype.endswith("*")]
    held = [p for p in params if p.ctype in DRAIN_KINDS]
    off = "    if (!omni_enabled())\n        return %s(%s);\n" % (pmpi(name), args)
    call = "    int rc = %s(%s);\n" % (pmpi(name), args)
    if len(made) == 1 and len(comms) == 1 and not held:
        kind = DRAIN_KINDS[made[0].ctype.rstrip("*")]
        return (off + "    omni_lock();\n"
                "    MPI_Comm drain = drain_before_make(%s);\n" % comms[0].name +
                "    omni_unlock();\n" + call +
                "    omni_lock();\n"
                "    drain_made(%s, (uintptr_t)*%s, drain, rc);\n" % (kind, made[0].name) +
                "    omni_unlock();\n    return rc;\n}\n")
    if len(made) == 1 and not comms and not held:
        kind = DRAIN_KINDS[made[0].ctype.rstrip("*")]
        return (off + "    omni_lock();\n"
                "    uintptr_t handle = (uintptr_t)*%s;\n" % made[0].name +
                "    drain_object(%s, handle);\n" % kind +
                "    omni_unlock();\n" + call +
                "    if (rc == MPI_SUCCESS) {\n        omni_lock();\n"
                "        drain_forget(%s, handle);\n" % kind +
                "        omni_unlock();\n    }\n    return rc;\n}\n")
    if len(held) == 1 and not made:
        kind = DRAIN_KINDS[held[0].ctype]
        return (off + "    omni_lock();\n"
                "    drain_object(%s, (uintptr_t)%s);\n" % (kind, held[0].name) +
                "    omni_unlock();\n" + call + "    return rc;\n}\n")
    die("%s: a drain row needs one MPI_File or MPI_Win, or one MPI_File * or "
        "MPI_Win * with or without a communicator" % name)


BANNER = """\
/* GENERATED by scripts/gen/gen-wrappers.py from shim/entry/wrappers.tbl -- DO NOT EDIT.
 * The build makes it anew from the table and the mpi.h of its MPI compiler.
 *
 * The PMPI wrappers: "send", "init", "view" and "impl" rows are the
 * point-to-point entry points (int and large-count forms share one
 * implementation); "nb" rows are blocking calls that run as their
 * nonblocking form plus Omnibus progress (docs/design/progress.md);
 * "nbr" rows are the neighbourhood collectives (shim/ops/neighbor.h);
 * "flush" rows have no nonblocking form and only flush first; "drain"
 * rows are collectives on a file or window whose members meet first
 * (shim/ops/drain.h).
 */
#include "shim/progress/progress.h"
#include "shim/engine/send.h"
#include "shim/ops/persist.h"
#include "shim/engine/preq.h"
#include "shim/engine/request.h"
#include "shim/engine/recv.h"
#include "shim/ops/mprobe.h"
#include "shim/ops/isendrecv.h"
#include "shim/ops/coll.h"
#include "shim/ops/alltoallv.h"
#include "shim/ops/neighbor.h"
#include "shim/entry/comm_calls.h"
#include "shim/ops/drain.h"
#include "shim/entry/init.h"

/* The shim builds with -fvisibility=hidden; these must override libmpi. */
#ifndef OMNI_EXPORT
#define OMNI_EXPORT __attribute__((visibility("default")))
#endif
"""


HAVE_BANNER = """\
/* GENERATED by scripts/gen/gen-wrappers.py from shim/entry/wrappers.tbl -- DO NOT EDIT.
 * The build makes it anew from the table and the mpi.h of its MPI compiler.
 *
 * OMNI_HAVE_<call> for every row of the table: 1 when that mpi.h declares
 * the call, 0 when the implementation lacks it (Open MPI 4.1 has no MPI-4.0
 * call).  The generated wrappers cover only the calls it declares;
 * hand-written code about a call stands under #if OMNI_HAVE_<call>.
 */
#ifndef OMNIBUS_HAVE_H
#define OMNIBUS_HAVE_H

"""


def have_header(rows, protos):
    return (HAVE_BANNER +
            "".join("#define OMNI_HAVE_%s %d\n" % (n, n in protos) for n, _, _, _ in rows) +
            "\n#endif\n")


def main(argv):
    if len(argv) not in (3, 4):
        sys.stderr.write("usage: gen-wrappers.py TABLE OUTPUT.c [HAVE.h]\n")
        return 2
    table, out = argv[1], argv[2]
    protos = read_prototypes()
    rows = read_table(table)
    check_handle_readers(protos, rows)
    # A row whose call this mpi.h lacks gets no wrapper: an implementation
    # may predate a call (MPI-4.0's under Open MPI 4.1).  HAVE.h says which.
    write_generated(out, BANNER + "".join("\n" + wrapper(n, k, nb, fast, protos)
                                          for n, k, nb, fast in rows
                                          if n in protos and k not in NOT_GENERATED))
    if len(argv) == 4:
        write_generated(argv[3], have_header(rows, protos))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
