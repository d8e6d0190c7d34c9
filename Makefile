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
GUEST_BIN := $(BLD)/guest-bin/memstress $(BLD)/guest-bin/cryptouser
# Kernel variants (qemu-images/variants): make test boots the one with role
# test; make bench boots the control and the candidates unless KERNELS= names others.
VARIANTS := qemu-images/variants
variants_with = $(shell sed -e 's/\#.*//' $(VARIANTS) | awk '$$2 == "$(1)" { print $$1 }')
TEST_KERNEL := $(call variants_with,test)
# The project's files in the initramfs: listed once, by initramfs.sh.
GUEST_FILES := $(shell qemu-images/initramfs.sh --list)

.PHONY: help test bench tree patches check compare clean distclean FORCE

help:
	@echo 'make test      build the debug kernel, boot it, run every test; last line "N passed, N failed"'
	@echo 'make bench     build the control and candidate kernels (base, patched), run the default scenarios, summary + plots'
	@echo '               (REPS=3 alternated repetitions; SCENARIOS="..." picks from bench/matrix,'
	@echo '               FULL=1 runs all of it, MODES=lz4,acompd(lz4); results in results/<date>-<label>/)'
	@echo 'make tree      extract the Debian 6.1 source into build/linux and apply patches/series'
	@echo 'make patches   export the commits above the base in build/linux to patches/, signed by your git identity (or ACOMP_SIGNOFF)'
	@echo 'make check     checkpatch --strict on patches/, the series applies, static checks'
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

test: $(BLD)/kernels/$(TEST_KERNEL)/.acomp-key $(BLD)/initramfs-$(TEST_KERNEL).cpio.gz
	tests/run.sh $(call KIMG,$(TEST_KERNEL)) $(BLD)/initramfs-$(TEST_KERNEL).cpio.gz

BENCH_KERNELS := $(or $(KERNELS),$(call variants_with,control) $(call variants_with,candidate))
bench: $(foreach k,$(BENCH_KERNELS),$(BLD)/kernels/$(k)/.acomp-key $(BLD)/initramfs-$(k).cpio.gz)
	KERNELS="$(BENCH_KERNELS)" bench/bench.sh

compare:
	@test -n "$(A)" -a -n "$(B)" || { echo 'usage: make compare A=dir B=dir [NORM=base]'; exit 2; }
	@test -z "$(NORM)" -o "$(NORM)" = base || { echo 'make compare: NORM takes only "base"'; exit 2; }
	bench/report.py compare $(if $(NORM),--against-base) "$(A)" "$(B)"

check: | $(DEPS)
	tests/check.sh

clean:
	rm -rf $(BLD)/kernels $(BLD)/initramfs* $(BLD)/guest-bin $(BLD)/test-runs $(BLD)/bench-runs

distclean:
	rm -rf $(BLD)
