// SPDX-License-Identifier: GPL-2.0
/*
 * faultio: direct writes to a block device while the kernel's fault
 * injection may fail this task's allocations, then every page verified.
 *
 * faultio DEV MIB BS ROUNDS
 *
 * Fills the first MIB MiB of DEV with generation 1 (no faults), then for each
 * of ROUNDS rounds writes generation r+1 in BS-byte chunks with
 * /proc/thread-self/make-it-fail set (the debugfs attributes decide which
 * allocations fail; task-filter must be on), and reads every page back
 * without faults. A page of a chunk whose write succeeded must hold the new
 * generation; a page of a failed chunk may hold its previous generation or
 * the new one (a failed write may have reached some of its pages). Anything
 * else is a damaged page.
 *
 * Output: "faultio: key=value ..." (pages verified, chunks written, chunks
 * failed with their errnos, bad pages). Exit 0 when no page is damaged and
 * the fill and every read succeeded, 1 on a damaged page, 2 on a usage or
 * system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096UL

/* A page of generation @gen at index @idx: compressible, never same-filled. */
static void gen_page(uint64_t *w, uint32_t gen, uint64_t idx)
{
	unsigned int i;

	for (i = 0; i < PAGE / 8; i++)
		w[i] = ((uint64_t)gen << 48) ^ (idx << 16) ^ (i / 4);
}

/* The generation a page holds, or 0 when it is no page of ours. */
static uint32_t page_gen(const uint64_t *w, uint64_t idx)
{
	uint64_t expect[PAGE / 8];
	uint32_t gen = w[0] >> 48;

	gen_page(expect, gen, idx);
	return memcmp(w, expect, PAGE) ? 0 : gen;
}

static int make_it_fail(int fd, int on)
{
	char c = on ? '1' : '0';
	int tries;

	/* Turning it off may itself meet an injected failure: retry. */
	for (tries = 0; tries < 1000; tries++)
		if (pwrite(fd, &c, 1, 0) == 1)
			return 0;
	return -1;
}

int main(int argc, char **argv)
{
	uint64_t npages, pages_per_chunk, nchunks, c, p, verified = 0, bad = 0;
	uint64_t failed = 0, written = 0, eio = 0, enomem = 0, eother = 0;
	uint64_t kept_old = 0;
	unsigned long mib, bs, rounds, r;
	uint32_t *cur, gen;
	unsigned char *buf;
	int fd, mif;

	if (argc != 5) {
		fprintf(stderr, "usage: faultio DEV MIB BS ROUNDS\n");
		return 2;
	}
	mib = strtoul(argv[2], NULL, 10);
	bs = strtoul(argv[3], NULL, 10);
	rounds = strtoul(argv[4], NULL, 10);
	if (!mib || !bs || bs % PAGE || (mib << 20) % bs || !rounds) {
		fprintf(stderr, "faultio: MIB > 0, BS a multiple of 4096 dividing it, ROUNDS > 0\n");
		return 2;
	}
	npages = (mib << 20) / PAGE;
	pages_per_chunk = bs / PAGE;
	nchunks = npages / pages_per_chunk;

	fd = open(argv[1], O_RDWR | O_DIRECT);
	mif = open("/proc/thread-self/make-it-fail", O_WRONLY);
	cur = calloc(npages, sizeof(*cur));
	if (fd < 0 || mif < 0 || !cur || posix_memalign((void **)&buf, PAGE, bs)) {
		perror("faultio: setup");
		return 2;
	}

	for (c = 0; c < nchunks; c++) {
		for (p = 0; p < pages_per_chunk; p++)
			gen_page((uint64_t *)(buf + p * PAGE), 1, c * pages_per_chunk + p);
		if (pwrite(fd, buf, bs, c * bs) != (ssize_t)bs) {
			perror("faultio: fill");
			return 2;
		}
	}
	for (p = 0; p < npages; p++)
		cur[p] = 1;

	for (r = 1; r <= rounds; r++) {
		unsigned char *ok = calloc(nchunks, 1);

		gen = r + 1;
		if (!ok || make_it_fail(mif, 1)) {
			perror("faultio: round");
			return 2;
		}
		for (c = 0; c < nchunks; c++) {
			for (p = 0; p < pages_per_chunk; p++)
				gen_page((uint64_t *)(buf + p * PAGE), gen, c * pages_per_chunk + p);
			written++;
			if (pwrite(fd, buf, bs, c * bs) == (ssize_t)bs) {
				ok[c] = 1;
				continue;
			}
			failed++;
			if (errno == EIO)
				eio++;
			else if (errno == ENOMEM)
				enomem++;
			else
				eother++;
		}
		if (make_it_fail(mif, 0)) {
			perror("faultio: make-it-fail off");
			return 2;
		}
		for (c = 0; c < nchunks; c++) {
			if (pread(fd, buf, bs, c * bs) != (ssize_t)bs) {
				perror("faultio: read");
				return 2;
			}
			for (p = 0; p < pages_per_chunk; p++) {
				uint64_t idx = c * pages_per_chunk + p;
				uint32_t g = page_gen((uint64_t *)(buf + p * PAGE), idx);

				verified++;
				if (g == gen || (!ok[c] && g == cur[idx])) {
					kept_old += g != gen;
					cur[idx] = g;
					continue;
				}
				if (bad < 5) {
					const uint64_t *w = (const uint64_t *)(buf + p * PAGE);

					fprintf(stderr, "faultio: DAMAGED page %" PRIu64 " round %lu (chunk %s): expected generation %u%s, first words 0x%016" PRIx64 " 0x%016" PRIx64 " (generation %u of page %" PRIu64 "?)\n",
						idx, r, ok[c] ? "written" : "failed", gen,
						ok[c] ? "" : " or the previous one", w[0], w[PAGE / 8 - 1],
						(unsigned int)(w[0] >> 48), (uint64_t)((w[0] >> 16) & 0xffffffff));
				}
				bad++;
			}
		}
		free(ok);
	}
	printf("faultio: mib=%lu bs=%lu rounds=%lu pages_written=%" PRIu64 " pages_verified=%" PRIu64
	       " chunks=%" PRIu64 " failed=%" PRIu64 " eio=%" PRIu64 " enomem=%" PRIu64
	       " other_errors=%" PRIu64 " pages_kept_old=%" PRIu64 " damaged=%" PRIu64 "\n",
	       mib, bs, rounds, npages * (rounds + 1), verified, written, failed, eio, enomem, eother,
	       kept_old, bad);
	return bad ? 1 : 0;
}
