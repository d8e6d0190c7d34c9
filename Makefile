# acomp-swap: every entry point. `make help` lists them.
SHELL := /bin/bash
.DELETE_ON_ERROR:
# Keep what the pattern rules build (guest programs, module stamps) between runs.
.SECONDARY:
.SUFFIXES:

BLD := build
KIMG = $(BLD)/kernels/$(1)/arch/x86/boot/bzImage
DEPS := $(BLD)/.host-deps
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Werror
GUEST_BIN := $(BLD)/guest-bin/memstress $(BLD)/guest-bin/cryptouser $(BLD)/guest-bin/icmark $(BLD)/guest-bin/faultio
# The instruction-counting TCG plugin (bench/plugin/), against the installed
# QEMU's plugin header (fetched from its Debian source package).
PLUGIN := $(BLD)/plugin/insncount.so
# Kernel variants (qemu-images/variants): make test boots the one with role
# test; make bench boots the control and the candidates unless KERNELS= names others.
VARIANTS := qemu-images/variants
variants_with = $(shell sed -e 's/\#.*//' $(VARIANTS) | awk '$$2 == "$(1)" { print $$1 }')
TEST_KERNEL := $(call variants_with,test)
# The project's files in the initramfs: listed once, by initramfs.sh.
GUEST_FILES := $(shell qemu-images/initramfs.sh --list)

.PHONY: help test host-checks soak bench profile tree patches check compare clean distclean plugin FORCE

help:
	@echo 'make test      build the debug kernel, boot it, run every test; last line "N passed, N failed"'
	@echo '               (the host checks that need no boot run first: make host-checks alone)'
	@echo 'make soak      DURATION=30m (s, m, h): the debug kernel under mixed zram/zswap load and random fault'
	@echo '               injection, every page verified; report (pages lost, splats) in results/<date>-soak-DURATION/'
	@echo 'make bench     build the control and candidate kernels (base, patched), run the default scenarios, summary + plots'
	@echo '               (REPS=3 alternated repetitions; SCENARIOS="..." picks from bench/matrix,'
	@echo '               FULL=1 runs all of it, MODES=lz4,acompd(lz4); results in results/<date>-<label>/)'
	@echo '               INSN=0: without the instruction-counting plugin (counted under TCG by default)'
	@echo 'make tree      extract the Debian 6.1 source into build/linux and apply patches/series'
	@echo 'make patches   export the commits above the base in build/linux to patches/, signed by your git identity (or ACOMP_SIGNOFF)'
	@echo 'make check     checkpatch --strict on patches/, the series applies, static checks'
	@echo 'make profile   a counted run (SCENARIOS, KERNELS, MODES as for bench; REPS=1) and per-function'
	@echo '               differences of guest kernel instructions per page: two kernels, or acompd(X) vs X'
	@echo 'make compare A=dir B=dir   per-metric ratios of two bench runs; non-zero on a regression (NORM=base: of patched/base)'
	@echo 'make clean     remove build/ outputs but keep the kernel trees; distclean removes all of build/'
	@echo '               KERNELS="base patched NAME" boots those variants of qemu-images/variants, alternated'
	@echo 'Stages alone: make kernel-NAME, make initramfs-NAME (NAME: base, patched, debug or a variant of yours)'
	@echo 'Every boot uses KVM when /dev/kvm opens and a KVM guest boots, else TCG; ACCEL=tcg|kvm forces one'

$(DEPS): qemu-images/deps.sh
	@mkdir -p $(BLD)
	qemu-images/deps.sh
	@touch $@

tree: | $(DEPS)
	qemu-images/tree.sh tree

patches:
	qemu-images/tree.sh patches

# kernel.sh decides whether anything needs rebuilding (source commit, changes,
# fragments); the key file changes only when it rebuilt.
$(BLD)/kernels/%/.acomp-key: FORCE | $(DEPS)
	@qemu-images/tree.sh tree
	@qemu-images/kernel.sh $*

kernel-%: $(BLD)/kernels/%/.acomp-key
	@true

$(BLD)/guest-bin/%: bench/%.c | $(DEPS)
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

$(BLD)/guest-bin/%: tests/%.c | $(DEPS)
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

$(BLD)/plugin/include/qemu-plugin.h: bench/plugin/header.sh | $(DEPS)
	bench/plugin/header.sh $(@D)

$(PLUGIN): bench/plugin/insncount.c $(BLD)/plugin/include/qemu-plugin.h
	gcc -shared -fPIC -O2 -Wall -Wextra -Werror -I$(BLD)/plugin/include -o $@ $< -lpthread

plugin: $(PLUGIN)

$(BLD)/corpus.bin: qemu-images/corpus.sh | $(DEPS)
	qemu-images/corpus.sh $@

# Out-of-tree modules from consumer/, built against each kernel.
CONSUMER_SRC := $(wildcard consumer/*/Kbuild consumer/*/*.c)
$(BLD)/consumer/%/.stamp: $(BLD)/kernels/%/.acomp-key $(CONSUMER_SRC) qemu-images/modules.sh
	qemu-images/modules.sh $*
	@touch $@

$(BLD)/initramfs-%.cpio.gz: $(BLD)/kernels/%/.acomp-key $(BLD)/consumer/%/.stamp $(GUEST_BIN) \
		$(BLD)/corpus.bin $(GUEST_FILES) qemu-images/initramfs.sh
	KMODROOT=$(BLD)/kernels/$*/modroot qemu-images/initramfs.sh $@ $(BLD)/consumer/$*

initramfs-%: $(BLD)/initramfs-%.cpio.gz
	@true

# The host checks that need no boot come first: a broken parser or fixture
# stops make test in seconds, before any kernel is built or booted.
test: host-checks $(BLD)/kernels/$(TEST_KERNEL)/.acomp-key $(BLD)/initramfs-$(TEST_KERNEL).cpio.gz $(PLUGIN)
	HOST_CHECKS=$(BLD)/host-checks PLUGIN=$(PLUGIN) tests/run.sh $(call KIMG,$(TEST_KERNEL)) $(BLD)/initramfs-$(TEST_KERNEL).cpio.gz

host-checks: | $(DEPS)
	tests/host-checks.sh $(BLD)/host-checks

# make soak DURATION=30m [SEED=N] [LABEL=x]: the debug kernel under mixed
# load and random fault injection; report in results/<date>-soak-DURATION/.
soak: $(BLD)/kernels/$(TEST_KERNEL)/.acomp-key $(BLD)/initramfs-$(TEST_KERNEL).cpio.gz
	DURATION="$(DURATION)" SEED="$(SEED)" LABEL="$(LABEL)" tests/soak.sh $(call KIMG,$(TEST_KERNEL)) $(BLD)/initramfs-$(TEST_KERNEL).cpio.gz

BENCH_KERNELS := $(or $(KERNELS),$(call variants_with,control) $(call variants_with,candidate))
# INSN=0: no instruction counts (the plugin is neither built nor loaded).
BENCH_PLUGIN := $(if $(filter 0,$(INSN)),,$(PLUGIN))
bench: $(foreach k,$(BENCH_KERNELS),$(BLD)/kernels/$(k)/.acomp-key $(BLD)/initramfs-$(k).cpio.gz) $(BENCH_PLUGIN)
	KERNELS="$(BENCH_KERNELS)" PLUGIN="$(BENCH_PLUGIN)" bench/bench.sh

# make profile: a counted bench run (REPS=1 unless given) and the per-function
# differences of its kernels or modes; RUN=results/DIR: those of a run made.
profile: $(if $(RUN),,$(foreach k,$(BENCH_KERNELS),$(BLD)/kernels/$(k)/.acomp-key $(BLD)/initramfs-$(k).cpio.gz) $(PLUGIN))
	@if [ -n "$(RUN)" ]; then bench/report.py profile "$(RUN)"; else \
	  rc=0; KERNELS="$(BENCH_KERNELS)" PLUGIN="$(PLUGIN)" REPS=$(or $(REPS),1) LABEL=$(or $(LABEL),profile) \
	    bench/bench.sh >&2 || rc=$$?; bench/report.py profile "$$(cat $(BLD)/last-bench-run)" && exit $$rc; fi

compare:
	@test -n "$(A)" -a -n "$(B)" || { echo 'usage: make compare A=dir B=dir [NORM=base]'; exit 2; }
	@test -z "$(NORM)" -o "$(NORM)" = base || { echo 'make compare: NORM takes only "base"'; exit 2; }
	bench/report.py compare $(if $(NORM),--against-base) "$(A)" "$(B)"

check: | $(DEPS)
	tests/check.sh

clean:
	rm -rf $(BLD)/kernels $(BLD)/initramfs* $(BLD)/guest-bin $(BLD)/test-runs $(BLD)/bench-runs $(BLD)/plugin

distclean:
	rm -rf $(BLD)
