# Omnibus build.  `make` builds build/libomnibus.so; `make test` builds and
# runs every test (unit tests without MPI, then mpiexec regression tests);
# `make demo` runs the short benchmark that shows the speedup.  Each first
# installs missing Debian packages (scripts/ensure-deps).

MPICC   ?= mpicc
MPIF90  ?= mpif90
CC      := cc
PYTHON  ?= python3
BUILD   := build
WARN    := -Wall -Wextra -Wno-stringop-overflow
CFLAGS  ?= -O2 -g
BASEFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS)

CORE_SRCS := $(wildcard config/*.c router/*.c)
SHIM_SRCS := $(wildcard shim/*.c)
CORE_OBJS := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o)
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/obj/%.o)
LIB       := $(BUILD)/libomnibus.so

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/unit/%)
MPI_TEST_SRCS := $(wildcard tests/mpi/*.c)
MPI_TEST_BINS := $(MPI_TEST_SRCS:tests/mpi/%.c=$(BUILD)/tests/%)
# Fortran regression tests (mpif.h and `use mpi`), same conventions.
FORTRAN_TEST_SRCS := $(wildcard tests/mpi/*.f90)
MPI_TEST_BINS += $(FORTRAN_TEST_SRCS:tests/mpi/%.f90=$(BUILD)/tests/%)
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all deps lib unit mpitests benches test demo bench clean generate longrun

all: deps lib

deps:
	@scripts/ensure-deps

lib: $(LIB)

$(LIB): $(CORE_OBJS) $(SHIM_OBJS)
	$(MPICC) -shared -o $@ $^ -ldl -pthread

# config/ and router/ never see mpi.h: they build with the plain compiler.
$(BUILD)/obj/config/%.o: config/%.c $(wildcard config/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -I. -fPIC -fvisibility=hidden -c -o $@ $<
$(BUILD)/obj/router/%.o: router/%.c $(wildcard router/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -I. -fPIC -fvisibility=hidden -c -o $@ $<
$(BUILD)/obj/shim/%.o: shim/%.c $(wildcard shim/*.h config/*.h router/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -fPIC -fvisibility=hidden -I. -c -o $@ $<

# The PMPI wrappers that only flush and drive progress are generated.
generate:
	$(PYTHON) scripts/gen-wrappers.py shim/wrappers.tbl shim/wrappers_gen.c

$(BUILD)/unit/%: tests/unit/%.c $(CORE_SRCS) $(wildcard config/*.h router/*.h tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -I. -o $@ $< $(CORE_SRCS) -lm

$(BUILD)/tests/%: tests/mpi/%.c $(wildcard tests/mpi/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $<

$(BUILD)/tests/%: tests/mpi/%.f90
	@mkdir -p $(dir $@)
	$(MPIF90) -O2 -g -Wall -o $@ $<

$(BUILD)/bench/%: bench/%.c $(wildcard bench/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(BASEFLAGS) -o $@ $< -lm

unit: $(UNIT_BINS)
mpitests: $(LIB) $(MPI_TEST_BINS)
benches: $(LIB) $(BENCH_BINS)

test: deps unit mpitests
	@scripts/run-tests $(UNIT_BINS)

demo: deps benches
	@scripts/bench --demo

bench: deps benches
	@scripts/bench $(BENCH_ARGS)

# 10,000 communicators and 10 million messages: resident memory must stay
# flat (issue 7); prints the growth.  Minutes, so not part of `make test`.
longrun: deps lib $(BUILD)/tests/long_run_memory
	TESTLIB_TIMEOUT=900 scripts/omnibus-run -n 2 $(BUILD)/tests/long_run_memory 10000 10000000

clean:
	rm -rf $(BUILD)
