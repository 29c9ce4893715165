# Omnibus build.  `make` builds build/libomnibus.so; `make test` builds and
# runs every test (the layering check, the check that the docs' settings
# tables are what config/settings.def gives, the documentation's links and
# quoted figures, unit tests without MPI, then mpiexec regression tests);
# `make demo` runs the short benchmark that shows the
# speedup; `make install PREFIX=dir` installs the library, omnibus-run and
# the documentation.  `make deps` (scripts/setup/ensure-deps) installs the
# Debian packages the build and tests need, when missing; a fresh machine
# runs it once first: `make deps test`.  `make results` regenerates every
# results file the docs quote; `make release-check` fails while one is older
# than the code it measures.  Building and testing never install
# anything; report, calibrate, results, profile, profile-time and ffi-cost
# install their own tool (and what `make deps` would) when it is missing.

# The MPI family to build for (docs/design/mpi-layer.md): one source, one library per
# family, each in its own build directory so that both can sit side by side.
#   MPI=mpich (the default): `mpicc` and `mpif90` of PATH (or MPICC=,
#     MPIF90= from the command line or the environment), into build/: the
#     library build/libomnibus.so, its tests in build/tests/.
#   MPI=openmpi: Debian's Open MPI, `mpicc.openmpi` and `mpifort.openmpi`,
#     into build/openmpi/: the library build/openmpi/libomnibus-openmpi.so,
#     its tests in build/openmpi/tests/.  MPICC= and MPIF90= given on the
#     command line override the compilers; from the environment they do
#     not, since an exported MPICC is the default MPI's and would quietly
#     build a second MPICH library under the Open MPI name.
# The library's file name carries the family (LIB_NAME) because both install
# into one PREFIX/lib.  Targets for MPICH alone (the benchmarks' yield-only
# baseline, the emulated cluster's tools, profile) need not work with
# MPI=openmpi.
MPI ?= mpich
ifeq ($(MPI),mpich)
MPICC   ?= mpicc
MPIF90  ?= mpif90
BUILD   := build
LIB_NAME := libomnibus.so
else ifeq ($(MPI),openmpi)
ifneq ($(origin MPICC),command line)
MPICC   := mpicc.openmpi
endif
ifneq ($(origin MPIF90),command line)
MPIF90  := mpifort.openmpi
endif
# Debian's mpifort.openmpi links -lmpi from the default library path, where
# libmpi.so is the default MPI's (MPICH here): Open MPI's own comes first.
FORTRAN_LIBDIRS := $(addprefix -L,$(shell $(MPICC) --showme:libdirs 2>/dev/null))
BUILD   := build/openmpi
LIB_NAME := libomnibus-openmpi.so
# Recipes that run scripts/user/omnibus-run (longrun) get Open MPI's launcher,
# which makes it preload libomnibus-openmpi.so.
export OMNIBUS_MPIEXEC ?= mpiexec.openmpi
else
$(error MPI=$(MPI): the families are MPI=mpich (the default) and MPI=openmpi)
endif
CC      := cc
PYTHON  ?= python3
WARN    := -Wall -Wextra -Wno-stringop-overflow
# Open MPI's MPI_UNWEIGHTED is the address 2, which GCC reads as a buffer
# of size 0 wherever a program passes it (bench/halo.c).
ifeq ($(MPI),openmpi)
WARN    += -Wno-stringop-overread
endif
CFLAGS  ?= -O2 -g
BASEFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS)
# The library links with link-time optimisation: one small message crosses
# files (wrapper -> send -> transport, wrapper -> request -> recv), and LTO
# inlines across them (docs/design/architecture.md, Keeping the common case
# cheap).
# `make LIB_LTO= lib` builds without it.
LIB_LTO ?= -flto=auto
# The release: VERSION is its one source, for the library (the statistics
# file's "version"), omnibus-run --version and the installed documentation.
VERSION := $(shell cat VERSION)
# The commit the build came from (`git describe --always --dirty`), or
# "unknown" outside a git checkout of this tree (a tarball, even one
# unpacked inside another repository): omnibus-plan --version and the
# installed omnibus-run --version print it beside the release.  Its file
# changes only when the commit does, so what embeds it rebuilds then.
COMMIT := $(shell [ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] && \
                  git describe --always --dirty 2>/dev/null || echo unknown)
COMMIT_FILE = $(BUILD)/gen/commit
LIBFLAGS := $(BASEFLAGS) $(LIB_LTO) -fPIC -fvisibility=hidden \
            -DOMNIBUS_VERSION='"$(VERSION)"'

CORE_SRCS := $(wildcard config/*.c router/*.c)
# shim/ is one folder per layer (docs/design/architecture.md); the PMPI
# wrappers are generated at build time from shim/entry/wrappers.tbl and the
# installed MPICH headers, so they can never go stale against mpi.h.
SHIM_SRCS := $(wildcard shim/*/*.c)
# Headers and the X-macro tables they include (counters.def shapes the
# state every object shares), so that a changed row rebuilds every object.
SHIM_HDRS := $(wildcard shim/*/*.h shim/*/*.def)
GEN_WRAPPERS := $(BUILD)/gen/wrappers_gen.c
# The MPI layer's large-count calls (scripts/gen/gen-count.py), included as
# shim/mpi/count_gen.h from $(BUILD)/gen.
GEN_COUNT := $(BUILD)/gen/shim/mpi/count_gen.h
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o)
# GEN_HAVE: the header of what this family's mpi.h has, which the wrapper
# generator writes beside the wrappers (docs/design/mpi-layer.md); shim/ includes it as
# "omni_have.h" (shim objects compile with -I$(BUILD)/gen).
GEN_HAVE := $(BUILD)/gen/omni_have.h
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/wrappers_gen.o
LIB       := $(BUILD)/$(LIB_NAME)

# omnibus-plan (plan/, docs/planning.md): the planning model, MPI-free,
# linking config/ and router/ as the library does.
PLAN_MODEL_SRCS := plan/model.c plan/sim.c plan/job.c
PLAN := $(BUILD)/omnibus-plan

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)
MPI_TEST_SRCS := $(wildcard tests/mpi/*.c)
MPI_TEST_BINS := $(MPI_TEST_SRCS:tests/mpi/%.c=$(BUILD)/tests/%)
# The Fortran regression test, one source built once per binding: mpif.h
# (-DUSE_MPIF) and `use mpi`; same conventions as the C tests.
FORTRAN_TEST_SRC := tests/mpi/fortran_binding.F90
MPI_TEST_BINS += $(BUILD)/tests/fortran_mpif $(BUILD)/tests/fortran_use_mpi
# Open MPI 4.1 cannot build the tests that call what it lacks
# (tests/mpi/openmpi.skip, "<name> <reason>"); run-tests names them instead.
OPENMPI_SKIPS := $(shell sed -n 's/^\([a-z0-9_]*\) .*/\1/p' tests/mpi/openmpi.skip)
ifeq ($(MPI),openmpi)
MPI_TEST_BINS := $(filter-out $(OPENMPI_SKIPS:%=$(BUILD)/tests/%),$(MPI_TEST_BINS))
endif
# Programs only the cluster tests run (tests/cluster/run), and the helpers
# of scripts/emulate/cluster.
CLUSTER_TEST_SRCS := $(wildcard tests/cluster/*.c)
CLUSTER_TEST_BINS := $(CLUSTER_TEST_SRCS:tests/cluster/%.c=$(BUILD)/cluster/%)
CLUSTER_TOOLS := $(BUILD)/delay_switch $(BUILD)/libfinalize_mark.so
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)
# The yield-only baseline (bench/yield/yield.h): waits yield like Omnibus's,
# nothing is aggregated.  LD_PRELOAD it instead of libomnibus.so.
YIELD_SRCS := $(wildcard bench/yield/*.c)
YIELD_LIB  := $(BUILD)/libyieldonly.so


.PHONY: FORCE all deps lib leg-tests openmpi-leg smallcap-lib bench-kernels install install-all uninstall unit mpitests benches test demo bench clean generate longrun \
        sanitize valgrind stress report calibrate results $(RESULTS_PARTS) release-check cluster-test profile profile-time ffi-cost core-pair large-protocols turns by-state

all: lib $(PLAN)

deps:
	@scripts/setup/ensure-deps

lib: $(LIB)

$(LIB): $(CORE_OBJS) $(SHIM_OBJS)
	$(MPICC) $(LIBFLAGS) -shared -o $@ $^ -ldl -pthread

# config/ and router/ never see mpi.h: they build with the plain compiler.
$(BUILD)/obj/config/%.o: config/%.c $(wildcard config/*.h config/*.def)
	@mkdir -p $(dir $@)
	$(CC) $(LIBFLAGS) -I. -c -o $@ $<
$(BUILD)/obj/router/%.o: router/%.c $(wildcard router/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(LIBFLAGS) -I. -c -o $@ $<
$(BUILD)/obj/shim/%.o: shim/%.c $(SHIM_HDRS) $(GEN_COUNT) $(wildcard config/*.h config/*.def router/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(LIBFLAGS) -I. -I$(BUILD)/gen -c -o $@ $<
$(BUILD)/obj/shim/base/stats.o: VERSION
$(BUILD)/obj/gen/wrappers_gen.o: $(GEN_WRAPPERS) $(SHIM_HDRS) $(GEN_COUNT) $(wildcard config/*.h config/*.def router/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(LIBFLAGS) -I. -I$(BUILD)/gen -c -o $@ $<
# Every shim object waits for the generator's run (order-only: the header
# exists before the first compile) and, once the header exists, depends on
# it, so that a change of it recompiles them in the same run.
$(SHIM_OBJS): $(wildcard $(GEN_HAVE)) | $(GEN_HAVE)

# The generated wrappers (scripts/gen/gen-wrappers.py, bench/yield's
# scripts/gen/gen-yield-wrappers.py).  The generators run on every build and
# read mpi.h as $(MPICC) preprocesses it, so the wrappers always match it;
# they rewrite their file only when its text changes.  gen-wrappers.py also
# writes omni_have.h: OMNI_HAVE_<call> 1 or 0 for each row of wrappers.tbl,
# whether this MPI has the call.  `make generate` makes them alone, to read.
# One run writes both GEN_WRAPPERS and GEN_HAVE (`&:`, a grouped target:
# GNU make 4.3).
$(GEN_WRAPPERS) $(GEN_HAVE) &: FORCE
	@mkdir -p $(dir $(GEN_WRAPPERS))
	@MPICC='$(MPICC)' $(PYTHON) scripts/gen/gen-wrappers.py shim/entry/wrappers.tbl $(GEN_WRAPPERS) $(GEN_HAVE)
$(GEN_COUNT): shim/mpi/count.tbl scripts/gen/gen-count.py
	@mkdir -p $(dir $@)
	@$(PYTHON) scripts/gen/gen-count.py shim/mpi/count.tbl $@
$(BUILD)/gen/yield_wrappers_gen.c: FORCE
	@mkdir -p $(dir $@)
	@MPICC='$(MPICC)' $(PYTHON) scripts/gen/gen-yield-wrappers.py bench/yield/calls.tbl $@
generate: $(GEN_WRAPPERS) $(GEN_COUNT) $(BUILD)/gen/yield_wrappers_gen.c
FORCE:

$(BUILD)/unit/%: tests/unit/%.c $(CORE_SRCS) $(PLAN_MODEL_SRCS) $(wildcard config/*.h config/*.def router/*.h plan/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -I. -o $@ $< $(CORE_SRCS) $(PLAN_MODEL_SRCS) -lm -pthread

$(COMMIT_FILE): FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(COMMIT)" ] || echo "$(COMMIT)" > $@

$(PLAN): $(wildcard plan/*.c plan/*.h) $(CORE_SRCS) $(wildcard config/*.h router/*.h) VERSION $(COMMIT_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -I. -DOMNIBUS_VERSION='"$(VERSION)"' \
	    -DOMNIBUS_COMMIT="\"$$(cat $(COMMIT_FILE))\"" \
	    -o $@ $(wildcard plan/*.c) $(CORE_SRCS) -lm -pthread

$(BUILD)/tests/%: tests/mpi/%.c $(wildcard tests/mpi/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $<

$(BUILD)/cluster/%: tests/cluster/%.c $(wildcard tests/mpi/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $<

$(BUILD)/tests/fortran_mpif: $(FORTRAN_TEST_SRC)
	@mkdir -p $(dir $@)
	$(MPIF90) -O2 -g -Wall -DUSE_MPIF -o $@ $< $(FORTRAN_LIBDIRS)

$(BUILD)/tests/fortran_use_mpi: $(FORTRAN_TEST_SRC)
	@mkdir -p $(dir $@)
	$(MPIF90) -O2 -g -Wall -o $@ $< $(FORTRAN_LIBDIRS)

$(BUILD)/bench/%: bench/%.c $(wildcard bench/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $< -lm

# The driver of scripts/measure/profile-paths (its callgrind phases; not a kernel).
$(BUILD)/profile/paths: bench/profile/paths.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $<

$(YIELD_LIB): $(YIELD_SRCS) $(BUILD)/gen/yield_wrappers_gen.c $(wildcard bench/yield/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -I. -fPIC -fvisibility=hidden -shared -o $@ $(YIELD_SRCS) $(BUILD)/gen/yield_wrappers_gen.c

# The emulated cluster's helpers (scripts/emulate/cluster): the user-space switch
# that adds link delay, and the preload that marks each rank's entry into
# MPICH's MPI_Finalize.
$(BUILD)/delay_switch: scripts/emulate/delay_switch.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -o $@ $<

$(BUILD)/libfinalize_mark.so: scripts/emulate/finalize_mark.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -fPIC -fvisibility=hidden -shared -o $@ $< -ldl

$(BUILD)/stress/stress: tests/stress/stress.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $<

unit: $(UNIT_BINS)
mpitests: $(LIB) $(MPI_TEST_BINS) $(BUILD)/stress/stress $(CLUSTER_TEST_BINS) $(CLUSTER_TOOLS) $(BUILD)/bench/bfs $(BUILD)/bench/stream $(BUILD)/bench/incast $(BUILD)/bench/gups $(BUILD)/bench/alltoall_items $(BUILD)/bench/halo
benches: $(LIB) $(YIELD_LIB) $(BENCH_BINS)
# The kernels and the library alone, without the yield-only baseline (which
# is MPICH's): `make MPI=openmpi bench-kernels` for scripts/measure/bench's Open MPI
# transports.
bench-kernels: $(LIB) $(BENCH_BINS)

# The Open MPI leg's library and tests, which `make test` runs last
# (scripts/test/run-tests, its openmpi check).
leg-tests: $(LIB) $(MPI_TEST_BINS)
openmpi-leg:
	@$(MAKE) --no-print-directory -j2 MPI=openmpi leg-tests

# The kernels tests/plan/check-model runs to hold omnibus-plan's counts to
# the statistics file's, and the library built with a cap of 2 full buffers
# that its small-cap runs preload (router/evict.h).
PLAN_CHECK_BINS := $(addprefix $(BUILD)/bench/,stream gups alltoall_items halo)
SMALLCAP_LIB := build/smallcap/libomnibus.so
smallcap-lib:
	@$(MAKE) --no-print-directory -j2 BUILD=build/smallcap CFLAGS="-O2 -g -DFL_FILL_CAP=2" $(SMALLCAP_LIB)

test: unit mpitests $(PLAN) $(PLAN_CHECK_BINS) smallcap-lib openmpi-leg
	@scripts/test/run-tests scripts/test/check-layers tests/layers/check-layers-cycles tests/layers/check-layers-state \
	    tests/layers/check-layers-names \
	    scripts/gen/gen-settings scripts/gen/gen-stats scripts/gen/gen-quirks scripts/gen/gen-call-table scripts/test/check-links scripts/test/check-figures \
	    tests/figures/planted-figures tests/install/check-install \
	    tests/plan/check-keys tests/plan/check-model tests/plan/check-auto \
	    tests/wrappers/check-request-rows $(UNIT_BINS)

# The tests across emulated nodes alone (tests/cluster/run; `make test` runs
# them too where the machine allows network namespaces).  Needs root; fails
# saying why where it cannot run.
cluster-test: mpitests
	@tests/cluster/run

# The demo, run again (three runs at most) while a row collapsed: a run
# under half its row's median, which on a VM whose two cores share a cache
# at some times and not at others plain MPICH's ping-pong does too
# (docs/performance.md).  $(1): more arguments; $(2): the target named in
# the message.
define demo_again_if_collapsed
	@for try in 1 2 3; do \
	    scripts/measure/bench --demo $(1) && break; \
	    rc=$$?; [ $$rc = 3 ] && [ $$try -lt 3 ] || exit $$rc; \
	    echo "make $(2): a demo row collapsed (a run under half its" \
	         "row's median); the demo again, attempt $$((try + 1)) of 3" >&2; \
	done
endef

demo: benches
	$(call demo_again_if_collapsed,,demo)

bench: benches
	@scripts/measure/bench $(BENCH_ARGS)

# The benchmark report and plots (bench/results/report.md, about 45
# minutes on 2 cores, then the large messages of sizes.md, about 10, and
# the cluster rows where the machine allows), and the calibration of the default buffer size and threshold
# (about 10); docs/performance.md, Running the benchmarks.
report: benches
	@scripts/setup/ensure-deps plots
	@scripts/measure/bench --report

calibrate: benches
	@scripts/setup/ensure-deps plots
	@scripts/measure/bench --calibrate --transports shm,tcp --plots bench/results \
	    --csv bench/results/calibration.csv | tee bench/results/calibration.txt

# Every results file the README and docs/ quote, and the runs they come
# from, written again by the runners at this commit (docs/performance.md,
# How figures are kept; about 2 h 30 min on 2 cores, on a quiet machine).
# One target per part, each of which can run alone:
#   results-demo      the demo's run (demo.md, for the README's headline
#                     figures; a run in which a row collapsed, as this kind
#                     of VM's ping-pong sometimes does under plain MPI, is
#                     run again, at most three in all), about 5 min
#   results-report    report, sizes, and where the machine allows network
#                     namespaces the cluster rows, about 1 h 40 min
#   results-scaling   the scaling rows and the relayed stream, about 23 min
#   results-calibration  the calibration, about 11 min
#   results-openmpi   Omnibus under Open MPI, about 2 min
#   results-plan      omnibus-plan's table and validation (which needs the
#                     library built with a small cap), about 3 min
#   large-protocols   what each protocol for a large message costs in
#                     plain MPI, about 10 min
# `make results` runs every part even when one fails (a run with no result
# fails its part: the table says which, and the part's files are still
# written), then `scripts/test/check-figures`, which lists every quote
# whose figure moved; its exit status is non-zero if any part failed.
# `make release-check` fails while a quoted results file is older than the
# code it measures.
RESULTS_PARTS := results-demo results-report results-scaling results-calibration \
                 results-openmpi results-plan large-protocols
OPENMPI_RESULTS_ARGS := --kernels stream,pingpong --transports ompi,ompi-vader,ompi-tcp \
                        --ranks 2 --reps 7 --csv bench/results/openmpi.csv
results: benches $(PLAN) smallcap-lib
	@status=0; for part in $(RESULTS_PARTS); do \
	    $(MAKE) --no-print-directory $$part || { status=1; \
	        echo "make results: $$part failed; going on with the rest" >&2; }; \
	done; scripts/test/check-figures || status=1; exit $$status
results-demo: benches
	$(call demo_again_if_collapsed,--csv bench/results/demo.csv,results)
results-report: benches
	@scripts/setup/ensure-deps plots
	@scripts/measure/bench --report
results-scaling: benches
	@scripts/measure/bench --scaling
	@scripts/measure/bench --scaling --only 2x2x2 --csv bench/results/relayed.csv
results-calibration: benches
	@scripts/setup/ensure-deps plots
	@scripts/measure/bench --calibrate --transports shm,tcp --plots bench/results \
	    --csv bench/results/calibration.csv > bench/results/calibration.txt
results-openmpi: benches
	@$(MAKE) --no-print-directory -j2 MPI=openmpi bench-kernels
	@scripts/measure/bench $(OPENMPI_RESULTS_ARGS)
	@scripts/measure/bench-table bench/results/openmpi.csv > bench/results/openmpi.md
results-plan: $(PLAN) smallcap-lib
	@scripts/setup/ensure-deps plots
	@$(PYTHON) bench/plan_chart.py
	@$(PYTHON) bench/plan_validate.py

# The check before a release: the figures as `make test` checks them, and
# no results file the docs quote older than the code it measures.
release-check:
	@scripts/test/check-figures --release

# Instructions per message on the send, arrival and receive paths, counted
# by callgrind (scripts/measure/profile-paths --help; PROFILE_ARGS="..."), a
# Markdown table (history in bench/results/log.md).  Counts, not times: any
# machine load will do.
profile: lib $(BUILD)/profile/paths
	@scripts/setup/ensure-deps profile
	@scripts/measure/profile-paths $(PROFILE_ARGS)

# Where each rank's time goes, by library, in the latency-bound kernels
# under the 0.95x-of-MPICH target (bench/results/log.md, 2026-11-26), plain
# MPICH against Omnibus (scripts/measure/profile-time --help;
# PROFILE_TIME_ARGS="...").  A few minutes; needs a quiet machine.
profile-time: benches
	@scripts/setup/ensure-deps perf
	@scripts/measure/profile-time $(PROFILE_TIME_ARGS)

# How many turns of the MPI underneath's engine a large message's ping-pong
# over TCP waits for on its latency path, plain MPI against Omnibus, counted
# with strace (docs/design/progress.md, A progress round); TURNS_ARGS="...".
# A minute; counts, not timings.
turns: lib benches
	@scripts/setup/ensure-deps strace
	@scripts/measure/turns $(TURNS_ARGS)

# A ping-pong under plain MPI and under Omnibus with chosen settings, each run
# stamped with the host's state of the two cores (core_pair's cache-line
# round trip before and after) and compared within its state
# (bench/results/log.md, 2026-12-04, the 128 KiB ping-pong over TCP by the
# host's state); BY_STATE_ARGS="--tcp --mode NAME=VAR=VALUE".  Minutes.
by-state: lib benches $(BUILD)/profile/core_pair
	@scripts/measure/by-state $(BY_STATE_ARGS)

# A call forwarded through a libffi closure against a direct call: the
# figure behind not using libffi (docs/design/decisions.md, No libffi).
# Plain C; never built by `make` or `make test`.
$(BUILD)/profile/ffi_cost: bench/profile/ffi_cost.c
	@scripts/setup/ensure-deps ffi
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -o $@ $< -lffi

ffi-cost: $(BUILD)/profile/ffi_cost
	$(BUILD)/profile/ffi_cost

# Two processes handing a cache line and 64 KiB back and forth, no MPI:
# the figure behind the shared-memory paths' per-run states
# (docs/design/transport.md, Choosing a path by measurement).  Plain C;
# never built by `make` or `make test`; CORE_PAIR_ARGS="-w 20 -s 32768".
$(BUILD)/profile/core_pair: bench/profile/core_pair.c
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -o $@ $<

core-pair: $(BUILD)/profile/core_pair
	$(BUILD)/profile/core_pair $(CORE_PAIR_ARGS)

# What each way a large message could cross the MPI underneath costs, in
# plain MPI (docs/design/transport.md, Messages above the threshold): the
# table bench/results/large_protocols.md, about 10 minutes; never built by
# `make test`.
$(BUILD)/profile/large_protocols: bench/profile/large_protocols.c
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $<

large-protocols: $(BUILD)/profile/large_protocols
	@scripts/measure/large-protocols --out bench/results/large_protocols.md

# 10,000 communicators and 10 million messages: resident memory must stay
# flat, or a long-running program would run out of memory (docs/testing.md,
# Longer checks); prints the growth.  Minutes, so not part of `make test`.
longrun: lib $(BUILD)/tests/long_run_memory
	TESTLIB_TIMEOUT=900 scripts/user/omnibus-run -n 2 $(BUILD)/tests/long_run_memory 10000 10000000

# The library built with AddressSanitizer and UndefinedBehaviorSanitizer,
# and the regression tests run against it (direct and a 2x2 grid, tiny
# buffers).  The sanitizer runtime comes in as the preloaded library's own
# dependency, hence verify_asan_link_order=0; MPICH's own allocations at exit
# are not Omnibus's, hence detect_leaks=0.  CI runs this.
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer
SAN_ENV := ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:halt_on_error=1 \
           UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
sanitize: unit mpitests
	$(MAKE) BUILD=$(BUILD)/asan CFLAGS="$(SAN_FLAGS)" LIB_LTO= $(BUILD)/asan/$(LIB_NAME)
	RUN_TESTS_LIB=$(abspath $(BUILD)/asan/$(LIB_NAME)) RUN_TESTS_CHECKS=none \
	RUN_TESTS_MATRIX="$$(printf 'asan-tiny||%s OMNIBUS_BUFFER_SIZE=256\nasan-2x2|np=4|%s OMNIBUS_TOPOLOGY=2x2' '$(SAN_ENV)' '$(SAN_ENV)')" \
	scripts/test/run-tests

# The regression tests with every rank under valgrind memcheck (2x2 grid,
# tiny buffers); an error in Omnibus fails the run.  tests/valgrind.supp
# holds the one false report inside MPICH itself.
valgrind: lib mpitests
	RUN_TESTS_CHECKS=none RUN_TESTS_TIMEOUT=600 TESTLIB_TIMEOUT=500 \
	RUN_TESTS_WRAPPER="valgrind -q --error-exitcode=99 --suppressions=$(abspath tests/valgrind.supp)" \
	RUN_TESTS_MATRIX="$$(printf 'memcheck|np=4|OMNIBUS_TOPOLOGY=2x2 OMNIBUS_BUFFER_SIZE=256')" \
	scripts/test/run-tests

# Random correct traffic over many seeds (tests/stress); STRESS_ARGS as in
# scripts/test/stress --help, e.g. STRESS_ARGS="--seconds 600".
stress: lib
	scripts/test/stress $(STRESS_ARGS)

# An HPC-style install: PREFIX/lib/libomnibus.so, PREFIX/bin/omnibus-run
# (which finds the library in ../lib), PREFIX/share/doc/omnibus.
# `make install` installs the family being built, MPICH's by default;
# `make install MPI=openmpi` installs PREFIX/lib/libomnibus-openmpi.so (and
# the same launcher, omnibus-plan and docs), so the two can go into one
# PREFIX in either order; `make install-all` installs both.  Installing the
# Open MPI library is asked for, never implied: not always, since it needs
# Open MPI on the machine and a plain `make install` must keep working
# where there is only MPICH; not "if built", since what an install puts
# in PREFIX would then depend on whatever build/openmpi/ holds, maybe a
# stale library, without rebuilding it.  `make uninstall` removes both.
PREFIX ?= /usr/local
DOCDIR := $(PREFIX)/share/doc/omnibus
INSTALLED_LIBS := libomnibus.so libomnibus-openmpi.so
# The installed omnibus-run keeps the commit of the build in its
# `installed_commit=` line, since PREFIX is no git checkout.
install: lib $(PLAN) $(COMMIT_FILE)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(DOCDIR)
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/$(LIB_NAME)
	install -m 755 $(PLAN) $(DESTDIR)$(PREFIX)/bin/omnibus-plan
	sed "s/^\( *installed_commit=\)$$/\1$$(cat $(COMMIT_FILE))/" scripts/user/omnibus-run \
	    > $(DESTDIR)$(PREFIX)/bin/omnibus-run
	chmod 755 $(DESTDIR)$(PREFIX)/bin/omnibus-run
	install -m 644 README.md VERSION $(wildcard LICENSE CHANGELOG.md) $(DESTDIR)$(DOCDIR)/
	if [ -d docs ]; then cp -R docs $(DESTDIR)$(DOCDIR)/ && chmod -R a+rX $(DESTDIR)$(DOCDIR)/docs; fi

install-all:
	$(MAKE) install MPI=mpich
	$(MAKE) install MPI=openmpi

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/lib/,$(INSTALLED_LIBS)) $(DESTDIR)$(PREFIX)/bin/omnibus-run \
	      $(DESTDIR)$(PREFIX)/bin/omnibus-plan
	rm -rf $(DESTDIR)$(DOCDIR)

# `make clean` removes build/, the Open MPI build included;
# `make MPI=openmpi clean` only build/openmpi/.
clean:
	rm -rf $(BUILD)
