# ppbench — see README.md.  `make` builds bench/ppbench; `make check` runs the
# tests under ASan+UBSan; `make bench` runs the speed and overhead benchmark.

.DEFAULT_GOAL := all
CC      ?= cc
PKGS    := libturbojpeg libjpeg libpng hwloc jansson
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
TEST_LIBS  := $(shell pkg-config --libs cmocka)

# -ffp-contract=off: ToTensor/Normalize/RRC must round as torch does; the
# FMAs torch uses are written as explicit fmaf() calls.
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -g -Wall -Wextra -ffp-contract=off -fopenmp \
	-Ipipelines -Ibench -Idatasets $(PKG_CFLAGS)
OPT     ?= -O2
SAN     := -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS  := $(PKG_LIBS) -lpfm -lm -lpthread -lrt -fopenmp

SRCS    := $(sort $(wildcard pipelines/*.c datasets/*.c bench/*.c))
MAIN    := bench/main.c
LIBSRCS := $(filter-out $(MAIN),$(SRCS))
TESTS   := $(sort $(wildcard tests/unit/test_*.c))

# Two build trees: build/opt (the product) and build/san (make check).
define tree
$(1)_OBJS  := $$(patsubst %.c,build/$(1)/%.o,$$(LIBSRCS))
$(1)_TESTS := $$(patsubst tests/unit/%.c,build/$(1)/tests/%,$$(TESTS))
build/$(1)/%.o: %.c
	@mkdir -p $$(@D)
	$$(CC) $$(BASE_CFLAGS) $(2) -MMD -MP -c $$< -o $$@
build/$(1)/libppbench.a: $$($(1)_OBJS)
	@rm -f $$@
	ar rcs $$@ $$^
build/$(1)/ppbench: build/$(1)/bench/main.o build/$(1)/libppbench.a
	$$(CC) $(2) -o $$@ $$^ $$(LDLIBS)
build/$(1)/tests/%: build/$(1)/tests/unit/%.o build/$(1)/libppbench.a
	@mkdir -p $$(@D)
	$$(CC) $(2) -o $$@ $$^ $$(TEST_LIBS) $$(LDLIBS)
-include $$(patsubst %.c,build/$(1)/%.d,$$(SRCS) $$(TESTS))
endef
$(eval $(call tree,opt,$(OPT)))
$(eval $(call tree,san,$(SAN)))

.PHONY: all check test bench clean deps run sweep fixtures
all: bench/ppbench

bench/ppbench: build/opt/ppbench
	cp $< $@

# Tests: unit tests (cmocka) and CLI contract tests, under the sanitizers.
check: build/san/ppbench $(san_TESTS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  tests/run.sh build/san

# The same tests on the optimized build (quicker; not what CI runs).
test: build/opt/ppbench $(opt_TESTS)
	tests/run.sh build/opt

deps:
	scripts/install-deps.sh

# The main job (until the sweep exists): one pipeline run over the default dataset.
run: bench/ppbench
	bench/ppbench run

bench: bench/ppbench
	bench/ppbench bench

# Regenerate golden fixtures with Debian's python3-torchvision and python3-pil.
fixtures:
	for s in scripts/fixtures_*.py; do /usr/bin/python3 $$s || exit 1; done

clean:
	rm -rf build bench/ppbench
