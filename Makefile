# ppbench — see README.md.  `make` builds bench/ppbench; `make check` runs the
# tests under ASan+UBSan; `make bench` runs the speed and overhead benchmark.

.DEFAULT_GOAL := all

# The variables a command line may set (README, "Using it"). Any other is
# refused with the nearest name: make would silently ignore a misspelt one
# (WORKER="2 4" would run the default sweep, DRYRUN=1 a real one).
MAKE_VARS := CC OPT PREFIX DESTDIR WORKERS BATCH GPUS DATA PIPELINE REPEAT EPOCHS \
	MAX_BATCHES TAG POLICY DRY_RUN EXTRA OUT RESULTS FULL RESUME PROFILE COMPARE_ARGS \
	FUZZ_SECONDS FUZZ_HARNESS AFL_CC PPBENCH_BIN
cmdline_vars := $(strip $(foreach v,$(.VARIABLES),$(if $(filter command line,$(origin $v)),$v)))
unknown_vars := $(filter-out $(MAKE_VARS),$(cmdline_vars))
ifneq ($(unknown_vars),)
near_var = $(shell scripts/nearest-name.sh '$(1)' $(MAKE_VARS))
$(error unknown variable$(if $(word 2,$(unknown_vars)),s) $(foreach v,$(unknown_vars),$(v)$(if $(call near_var,$(v)), (did you mean $(call near_var,$(v))?))); the variables make takes: $(MAKE_VARS) (README, "Using it"))
endif
CC      ?= cc
PKGS    := libturbojpeg libjpeg libpng hwloc jansson libzstd liblz4 libxxhash zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
TEST_LIBS  := $(shell pkg-config --libs cmocka)

# bench/ is one folder per layer (docs/architecture.md); every layer's headers
# are on the include path.
BENCH_INC := $(patsubst %/,-I%,$(sort $(dir $(wildcard bench/*/*.h))))

# -ffp-contract=off: ToTensor/Normalize/RRC must round as torch does; the
# FMAs torch uses are written as explicit fmaf() calls.
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -g -Wall -Wextra -ffp-contract=off -fopenmp \
	-Ipipelines $(BENCH_INC) -Idatasets $(PKG_CFLAGS)
OPT     ?= -O2
SAN     := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS  := $(PKG_LIBS) -lpfm -lm -lpthread -lrt -fopenmp

SRCS    := $(sort $(wildcard pipelines/*.c datasets/*.c bench/*/*.c))
MAIN    := bench/cli/main.c
LIBSRCS := $(filter-out $(MAIN),$(SRCS))
TESTS   := $(sort $(wildcard tests/unit/test_*.c))
# one fuzz harness per parser: tests/fuzz/fuzz_NAME.c (FUZZING.md)
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz_%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))

# The ops' kernels, one file per instruction set, chosen at run time
# (pipelines/kernels.h): -O3 for the vectorizer, and the set's -m flags.
# -mfma only for the explicit fmaf() the kernels write: -ffp-contract=off
# still keeps the compiler from fusing anything else.
KFLAGS_kernels_sse2   := -O3
KFLAGS_kernels_avx2   := -O3 -mavx2 -mfma
KFLAGS_kernels_avx512 := -O3 -mavx512f -mavx512bw -mavx512vl -mfma
KFLAGS_kernels_avx512vnni := $(KFLAGS_kernels_avx512) -mavx512vnni -mavx512vbmi

# Two build trees: build/opt (the product) and build/san (make check).
define tree
$(1)_OBJS  := $$(patsubst %.c,build/$(1)/%.o,$$(LIBSRCS))
$(1)_TESTS := $$(patsubst tests/unit/%.c,build/$(1)/tests/%,$$(TESTS))
build/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(BASE_CFLAGS) $(2) $$(KFLAGS_$$(notdir $$*)) -MMD -MP -c $$< -o $$@
build/$(1)/libppbench.a: $$($(1)_OBJS)
	@rm -f $$@
	ar rcs $$@ $$^
build/$(1)/ppbench: build/$(1)/bench/cli/main.o build/$(1)/libppbench.a
	$$(CC) $(2) -o $$@ $$^ $$(LDLIBS)
build/$(1)/tests/%: build/$(1)/tests/unit/%.o build/$(1)/libppbench.a
	@mkdir -p $$(@D)
	$$(CC) $(2) -o $$@ $$^ $$(TEST_LIBS) $$(LDLIBS)
# the fuzz harnesses with a plain main() that replays stored inputs (no afl)
$(1)_FUZZ := $$(patsubst %,build/$(1)/fuzz/replay_%,$$(FUZZ_NAMES))
build/$(1)/fuzz/replay_%: build/$(1)/tests/fuzz/fuzz_%.o build/$(1)/tests/fuzz/replay.o \
		build/$(1)/tests/fuzz/common.o build/$(1)/libppbench.a
	@mkdir -p $$(@D)
	$$(CC) $(2) -o $$@ $$^ $$(LDLIBS)
-include $$(patsubst %.c,build/$(1)/%.d,$$(SRCS) $$(TESTS) $$(wildcard tests/fuzz/*.c))
endef
$(eval $(call tree,opt,$(OPT)))
$(eval $(call tree,san,$(SAN)))

.PHONY: all check test bench clean deps run sweep fixtures
# keep the test objects (no "rm ..." after the test count, which must be the last line)
.SECONDARY:
all: bench/ppbench

# copy then rename: a running bench/ppbench is replaced, not written over (ETXTBSY)
bench/ppbench: build/opt/ppbench
	cp $< $@.tmp && mv -f $@.tmp $@

# Tests: unit tests (cmocka) and CLI contract tests, under the sanitizers.
check: build/san/ppbench $(san_TESTS) $(san_FUZZ)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  tests/run.sh build/san

# The same tests on the optimized build (quicker; not what CI runs).
test: build/opt/ppbench $(opt_TESTS) $(opt_FUZZ)
	tests/run.sh build/opt

deps:
	scripts/install-deps.sh

# One configuration on the default dataset (the main job is `make sweep`).
run: bench/ppbench
	bench/ppbench run

# make bench [DATA=DIR | PROFILE=photos]: on the default dataset, a folder, or
# a profile's default dataset (`ppbench dataset default --profile NAME`)
bench: bench/ppbench
	$(if $(PROFILE),d="$$(bench/ppbench dataset default --profile $(PROFILE))" && )bench/ppbench bench \
		$(if $(PROFILE),--data "$$d",$(call sweep_opt,DATA,--data))

# The same configuration through ppbench and through the real PyTorch
# DataLoader (needs Debian's python3-torch: scripts/install-deps.sh --oracle).
# Options of `ppbench compare` / `ppbench run` go in COMPARE_ARGS.
.PHONY: compare
compare: bench/ppbench
	bench/ppbench compare $(COMPARE_ARGS)

# ---- sweeps, the paper's figures, the findings report ----------------------
# make sweep [WORKERS="8 12 16"] [BATCH="1024"] [GPUS="4"] [DATA=DIR] [PIPELINE=NAME]
#            [DRY_RUN=1: print the plan (memory, fits, images, time) and run nothing]
#            [REPEAT=N] [EPOCHS=N] [MAX_BATCHES=N] [TAG=NAME] [OUT=DIR (default results)]
#            [EXTRA="--seed 3 ..."]
# Each configuration runs as its own `ppbench run`; the variables left unset take
# `ppbench sweep --help`'s defaults (a small sweep on the default dataset, about a
# minute on 2 cores). Ends with results/<UTC>-sweep-<TAG>/report.html.
# POLICY is reserved (passed on as --policy when set).
sweep_opt = $(if $(strip $($(1))),$(2) "$(strip $($(1)))")
SWEEP_ARGS = $(call sweep_opt,WORKERS,--workers) $(call sweep_opt,BATCH,--batch) \
	$(call sweep_opt,GPUS,--gpus) $(call sweep_opt,DATA,--data) \
	$(call sweep_opt,PIPELINE,--pipeline) $(call sweep_opt,REPEAT,--repeat) \
	$(call sweep_opt,EPOCHS,--epochs) $(call sweep_opt,MAX_BATCHES,--max-batches) \
	$(call sweep_opt,TAG,--tag) $(call sweep_opt,POLICY,--policy) \
	$(call sweep_opt,OUT,--out) $(if $(DRY_RUN),--dry-run) $(EXTRA)

# the binary the long jobs run (tests give the one they test)
PPBENCH_BIN ?= bench/ppbench

.PHONY: sweep plots reproduce
sweep: $(PPBENCH_BIN)
	$(PPBENCH_BIN) sweep $(SWEEP_ARGS)

# make plots [RESULTS=results/<UTC>-sweep-...]: redraw a sweep's figures (default: the
# newest; folders named sweep-<UTC>... by older versions are taken when there is no other)
# (the folder reaches the shell through the environment, never pasted into
# the command: a folder's name is only data)
plots: export PPBENCH_PLOTS_DIR = $(or $(RESULTS),$(lastword $(sort $(wildcard results/sweep-*)) \
	$(sort $(wildcard results/*-sweep results/*-sweep-*))))
plots: bench/ppbench
	@if [ -z "$$PPBENCH_PLOTS_DIR" ]; then echo "make plots: no sweep folder in results/; give RESULTS=DIR" >&2; exit 2; fi; \
	printf 'bench/ppbench plots %s\n' "$$PPBENCH_PLOTS_DIR"; bench/ppbench plots "$$PPBENCH_PLOTS_DIR"

# make reproduce: the paper's two experiments on this machine, in the paper's
# regime, then one report (scripts/reproduce.sh):
#   1. the batch x GPU grid with workers = GPUs (Figs. 4-5)
#   2. the worker sweep at 4 simulated GPUs (Fig. 6)
# It first probes this machine's CPU time per image (ppbench regime) and scales
# the simulated GPU step by it over the paper's, so that GPU time over
# preprocessing time per image is the paper's; and scales the paper's worker
# grid (8..28 of 32 hardware threads) to the CPUs it may use (1 2 3 on 2 CPUs).
# Then it prints the plan with its estimated time (each sweep's dry run) and
# runs it. Default: the default dataset (2,000 images) with the paper's batch
# sizes / 8 (16..128 for 128..1024) and 8 (grid) / 20 (workers) epochs: on 2 CPUs
# 19 runs; the plan printed first gives its estimated time (on the 2-vCPU
# development VM, shared with other jobs: 32 minutes planned and 34 taken, 10
# planned and 19 taken when quieter; README, "make reproduce"). FULL=1: the paper's sizes (batch 128..1024, one
# epoch) on DATA=<ImageNet train folder>. REPEAT=N: every configuration N times,
# interleaved (N x the time; the verdicts then rest on spreads, not on one run
# each). OUT=DIR: where its folder goes
# (default results). Interrupted (SIGINT, SIGTERM, SIGHUP: the whole job
# stops, what finished is kept), the same command again, or
# RESUME=results/...-reproduce, finishes what is missing and writes the report.
REPRO_GRID_BATCH = $(if $(FULL),128 256 512 1024,16 32 64 128)
REPRO_GRID_EPOCHS = $(if $(FULL),1,8)
REPRO_W_BATCH = $(if $(FULL),1024,128)
REPRO_W_EPOCHS = $(if $(FULL),1,20)
reproduce: $(PPBENCH_BIN)
	@if [ -n "$(FULL)" ] && [ -z "$(DATA)" ]; then \
		echo "make reproduce: error: FULL=1 needs DATA=<the ImageNet train folder>" >&2; exit 2; fi
	@PPBENCH_MAKE_PID=$$PPID scripts/reproduce.sh $(PPBENCH_BIN) "$(or $(OUT),results)" "$(TAG)" \
		"$(REPRO_GRID_BATCH)" $(REPRO_GRID_EPOCHS) $(REPRO_W_BATCH) $(REPRO_W_EPOCHS) \
		"$(RESUME)" -- $(call sweep_opt,DATA,--data) $(call sweep_opt,REPEAT,--repeat) $(EXTRA)

# make validate-model: the model against this machine's own runs (docs/model.md,
# validation 2): the photos profile's default dataset, workers 1-4 x batch 32 and
# 128 with 2 simulated GPUs, 125 batches a run at b32 and 112 at b128, 3 repeats
# (about 5 minutes on an idle 2-core machine: run it on an idle one), then
# `ppbench model --validate` on that sweep: its verdict lines say what was met
# (a missed validation is reported, not a failure of make; an error is).
.PHONY: validate-model
validate-model: bench/ppbench
	d="$$(bench/ppbench dataset default --profile photos)" && \
	bench/ppbench sweep --workers "1 2 3 4" --batch "32 128" --gpus 2 --data "$$d" --epochs 7 \
		--max-batches 125 --repeat 3 --fused off --report off --tag model-v2 $(EXTRA) && \
	{ bench/ppbench model --validate "$$(ls -d results/*-sweep-model-v2 | tail -1)"; \
	  rc=$$?; [ $$rc -le 1 ]; }

# ---- fuzzing (FUZZING.md) ----------------------------------------------------
# make fuzz [FUZZ_SECONDS=60] [FUZZ_HARNESS="decode options"]: afl++ (Debian's
# afl++, afl-clang-fast) on each harness for FUZZ_SECONDS, from the stored
# corpus tests/fuzz/corpus/NAME; findings in build/fuzz-out/NAME/default/
# (crashes/, hangs/, fuzzer_stats). `make check` replays the stored corpus
# and tests/fuzz/crashers/NAME under ASan+UBSan without afl.
.PHONY: fuzz
FUZZ_SECONDS ?= 60
FUZZ_HARNESS ?= $(FUZZ_NAMES)
AFL_CC  ?= afl-clang-fast
afl_OBJS := $(patsubst %.c,build/afl/%.o,$(LIBSRCS) $(wildcard tests/fuzz/*.c))
build/afl/%.o: %.c
	@mkdir -p $(@D)
	$(AFL_CC) $(BASE_CFLAGS) -O2 -MMD -MP -c $< -o $@
-include $(afl_OBJS:.o=.d)
build/afl/fuzz/fuzz_%: build/afl/tests/fuzz/fuzz_%.o build/afl/tests/fuzz/afl.o \
		build/afl/tests/fuzz/common.o $(patsubst %.c,build/afl/%.o,$(LIBSRCS))
	@mkdir -p $(@D)
	$(AFL_CC) -O2 -o $@ $^ $(LDLIBS)
# afl++ first: without it the build would stop at "afl-clang-fast: No such file"
.PHONY: fuzz-check
fuzz-check:
	@command -v $(firstword $(AFL_CC)) >/dev/null 2>&1 && command -v afl-fuzz >/dev/null 2>&1 || { \
		echo "make fuzz: error: needs afl++ ($(firstword $(AFL_CC)) and afl-fuzz, not found):" \
			"apt-get install afl++ (Debian's package), or give AFL_CC=PATH; make check replays" \
			"the stored corpus without it (FUZZING.md)" >&2; exit 2; }
$(patsubst %,build/afl/fuzz/fuzz_%,$(FUZZ_NAMES)) $(afl_OBJS): | fuzz-check
fuzz: fuzz-check $(patsubst %,build/afl/fuzz/fuzz_%,$(FUZZ_HARNESS))
	@for h in $(FUZZ_HARNESS); do \
		rm -rf build/fuzz-out/$$h; mkdir -p build/fuzz-out; \
		echo "make fuzz: $$h for $(FUZZ_SECONDS) s"; \
		AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
		afl-fuzz -V $(FUZZ_SECONDS) -i tests/fuzz/corpus/$$h -o build/fuzz-out/$$h \
			-- build/afl/fuzz/fuzz_$$h >build/fuzz-out/$$h.log 2>&1 || \
			{ tail -20 build/fuzz-out/$$h.log; exit 1; }; \
		sed -n 's/^\(execs_done\|execs_per_sec\|corpus_count\|saved_crashes\|saved_hangs\) *: /  \1 /p' \
			build/fuzz-out/$$h/default/fuzzer_stats; \
	done

# Regenerate golden fixtures with Debian's python3-torchvision and python3-pil.
fixtures:
	for s in scripts/fixtures_*.py; do /usr/bin/python3 $$s || exit 1; done

# make install [PREFIX=/usr/local] [DESTDIR=]: bin/ppbench, its files under
# lib/ppbench, a man page per command (from each --help), bash completion
PREFIX ?= /usr/local
.PHONY: install man
install: bench/ppbench
	scripts/install.sh bench/ppbench "$(PREFIX)" "$(DESTDIR)"
man: bench/ppbench
	scripts/gen-man.sh bench/ppbench build/man

clean:
	rm -rf build bench/ppbench
