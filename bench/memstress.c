// SPDX-License-Identifier: GPL-2.0
/*
 * memstress: a page-verifying swap-pressure workload, in the manner of usemem.
 *
 * P processes each map M MiB of anonymous memory, fill it with pages from a
 * synthetic corpus with a controlled compressibility mix, then make passes
 * over it (sequential, random, or both). Every page read back is compared
 * with the content it was given; a mismatch is reported and fails the run.
 * The first touch of every page in a pass is timed; accesses to pages that
 * were not resident (mincore) count as faults, and their latency
 * percentiles are reported.
 *
 * Page kinds (chosen per page by a hash of seed and page index):
 *   zero    all bytes 0                          (zram/zswap same-filled path)
 *   same    one 64-bit value repeated            (same-filled path)
 *   text    words from a fixed English vocabulary (lz4 ratio about 2-3)
 *   binary  64-bit records: slowly growing counters, small ids, flags
 *                                                (lz4 ratio about 1.5-3)
 *   random  xorshift64* output                   (incompressible)
 *
 * Output: one line "memstress: key=value ...", parsed by the bench reports.
 * Exit status: 0 all pages verified, 1 mismatch, 2 usage or system error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096UL

enum kind { K_ZERO, K_SAME, K_TEXT, K_BINARY, K_RANDOM, K_NR };
static const char *const kind_name[K_NR] = { "zero", "same", "text", "binary", "random" };

struct opts {
	unsigned long mib;
	unsigned int procs;
	unsigned int passes;
	uint64_t seed;
	int order;		/* 0 seq, 1 rand, 2 both (alternating passes) */
	unsigned int mix[K_NR];	/* percent, sums to 100 */
	int flip;		/* corrupt one byte after filling (self-test) */
	int fail;		/* set make-it-fail once mapped (fault injection) */
};

struct shared {
	uint64_t mismatches;
	uint64_t touched;
	uint64_t faults;
	uint64_t kinds[K_NR];
	uint64_t nsamples;
	uint64_t proc_samples[64];
	uint32_t samples[];	/* fault latencies, ns (saturating) */
};

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static enum kind page_kind(const struct opts *o, uint64_t idx)
{
	unsigned int r = mix64(o->seed ^ (idx * 0x9e3779b97f4a7c15ULL)) % 100;
	unsigned int acc = 0;
	int k;

	for (k = 0; k < K_NR; k++) {
		acc += o->mix[k];
		if (r < acc)
			return k;
	}
	return K_RANDOM;
}

static const char *const words[] = {
	"the", "memory", "page", "is", "compressed", "and", "stored", "in", "a",
	"pool", "when", "reclaim", "needs", "to", "free", "some", "of", "it",
	"swap", "device", "kernel", "request", "queue", "completion", "worker",
	"latency", "throughput", "with", "for", "each", "process", "that", "runs",
	"under", "pressure", "from", "cgroup", "limit", "data", "returns",
};

/* Fill @p with the content of page @idx; deterministic in (seed, idx). */
static void gen_page(const struct opts *o, uint64_t idx, unsigned char *p)
{
	uint64_t s = mix64(o->seed + idx * 0x2545f4914f6cdd1dULL) | 1;
	uint64_t *q = (uint64_t *)p;
	size_t i, n;

	switch (page_kind(o, idx)) {
	case K_ZERO:
		memset(p, 0, PAGE);
		break;
	case K_SAME:
		for (i = 0; i < PAGE / 8; i++)
			q[i] = s;
		break;
	case K_TEXT:
		for (n = 0; n < PAGE;) {
			const char *w;
			size_t l;

			s ^= s >> 12;
			s ^= s << 25;
			s ^= s >> 27;
			w = words[(s * 0x2545f4914f6cdd1dULL >> 32) % (sizeof(words) / sizeof(words[0]))];
			l = strlen(w);
			for (i = 0; i < l && n < PAGE; i++)
				p[n++] = w[i];
			if (n < PAGE)
				p[n++] = (s & 0xf) == 0 ? '\n' : ' ';
		}
		break;
	case K_BINARY:
		for (i = 0; i < PAGE / 8; i += 2) {
			s ^= s >> 12;
			s ^= s << 25;
			s ^= s >> 27;
			q[i] = (idx << 20) + i * 16 + (s & 0x7);
			q[i + 1] = ((s >> 8) & 0xff) | (((s >> 16) & 0x3) << 32);
		}
		break;
	default:
		for (i = 0; i < PAGE / 8; i++) {
			s ^= s >> 12;
			s ^= s << 25;
			s ^= s >> 27;
			q[i] = s * 0x2545f4914f6cdd1dULL;
		}
		break;
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int parse_mix(const char *s, unsigned int *mix)
{
	char *dup = strdup(s), *tok, *save = NULL;
	unsigned int sum = 0;
	int k;

	if (!dup)
		return -1;
	memset(mix, 0, sizeof(*mix) * K_NR);
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (!eq)
			goto bad;
		*eq = '\0';
		for (k = 0; k < K_NR; k++)
			if (!strcmp(tok, kind_name[k]))
				break;
		if (k == K_NR)
			goto bad;
		mix[k] = strtoul(eq + 1, NULL, 10);
		sum += mix[k];
	}
	free(dup);
	return sum == 100 ? 0 : -1;
bad:
	free(dup);
	return -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: memstress [-m MiB per process] [-P processes] [-p passes]\n"
		"                 [-s seed] [-o seq|rand|both]\n"
		"                 [-x zero=N,same=N,text=N,binary=N,random=N] [-F] [-f]\n"
		"  -F  flip one byte of one page after filling (verification self-test)\n"
		"  -f  set /proc/self/make-it-fail in each worker once mapped: the\n"
		"      fault-injection attributes with task-filter fail its allocations\n");
	exit(2);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint32_t *v, uint64_t n, double p)
{
	uint64_t i;

	if (!n)
		return 0;
	i = (uint64_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return v[i] / 1000.0;
}

/* One worker process: fill, then verify in passes. */
static int worker(const struct opts *o, unsigned int id, struct shared *sh,
		  uint64_t sample_base, uint64_t sample_cap)
{
	uint64_t npages = o->mib * 1024 * 1024 / PAGE;
	uint64_t base_idx = (uint64_t)id * npages;
	uint64_t *order = NULL, i, nsamp = 0, mism = 0, faults = 0, touched = 0;
	uint64_t kinds[K_NR] = { 0 };
	unsigned char *mem, expect[PAGE];
	unsigned char vec;
	unsigned int pass;
	int k;

	mem = mmap(NULL, npages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	order = malloc(npages * sizeof(*order));
	if (mem == MAP_FAILED || !order) {
		perror("memstress: mmap");
		return 2;
	}
	/*
	 * From here on, the fault-injection attributes with task-filter set
	 * may fail this task's allocations: its page faults retry, its
	 * swap-outs fail or go elsewhere, and every page must still verify.
	 */
	if (o->fail) {
		FILE *f = fopen("/proc/self/make-it-fail", "w");

		if (!f || fputs("1", f) < 0 || fclose(f)) {
			perror("memstress: make-it-fail");
			return 2;
		}
	}
	for (i = 0; i < npages; i++) {
		gen_page(o, base_idx + i, mem + i * PAGE);
		kinds[page_kind(o, base_idx + i)]++;
	}
	if (o->flip && id == 0)
		mem[(npages / 2) * PAGE + 123] ^= 0x40;

	for (pass = 0; pass < o->passes; pass++) {
		int rnd = o->order == 1 || (o->order == 2 && (pass & 1));

		for (i = 0; i < npages; i++)
			order[i] = i;
		if (rnd) {
			uint64_t s = mix64(o->seed ^ (pass + 1) ^ ((uint64_t)id << 32)) | 1;

			for (i = npages - 1; i > 0; i--) {
				uint64_t j, t;

				s ^= s >> 12;
				s ^= s << 25;
				s ^= s >> 27;
				j = (s * 0x2545f4914f6cdd1dULL) % (i + 1);
				t = order[i];
				order[i] = order[j];
				order[j] = t;
			}
		}
		for (i = 0; i < npages; i++) {
			unsigned char *pg = mem + order[i] * PAGE;
			volatile unsigned char *vp = pg;
			int resident = 1;
			uint64_t t0, t1;

			if (mincore(pg, PAGE, &vec) == 0)
				resident = vec & 1;
			t0 = now_ns();
			(void)*vp;
			t1 = now_ns();
			touched++;
			if (!resident) {
				faults++;
				if (nsamp < sample_cap) {
					uint64_t d = t1 - t0;

					sh->samples[sample_base + nsamp++] = d > UINT32_MAX ? UINT32_MAX : d;
				}
			}
			gen_page(o, base_idx + order[i], expect);
			if (memcmp(pg, expect, PAGE)) {
				size_t off = 0;

				while (off < PAGE && pg[off] == expect[off])
					off++;
				if (mism < 5)
					fprintf(stderr,
						"memstress: MISMATCH proc %u page %" PRIu64 " (%s) pass %u offset %zu: got 0x%02x expected 0x%02x\n",
						id, order[i], kind_name[page_kind(o, base_idx + order[i])],
						pass, off, pg[off], expect[off]);
				mism++;
				/* Count each bad page once, not once per pass. */
				memcpy(pg, expect, PAGE);
			}
		}
	}
	__atomic_fetch_add(&sh->mismatches, mism, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->touched, touched, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->faults, faults, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sh->nsamples, nsamp, __ATOMIC_RELAXED);
	sh->proc_samples[id] = nsamp;
	for (k = 0; k < K_NR; k++)
		__atomic_fetch_add(&sh->kinds[k], kinds[k], __ATOMIC_RELAXED);
	return mism ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = { .mib = 64, .procs = 1, .passes = 2, .seed = 1, .order = 2,
			  .mix = { 10, 10, 40, 20, 20 } };
	uint64_t npages, cap_per_proc, t0, t1, n, k0;
	struct rusage ru;
	struct shared *sh;
	size_t shsize;
	unsigned int i;
	int c, status, err = 0;
	double secs, user, sys;

	while ((c = getopt(argc, argv, "m:P:p:s:o:x:Ff")) != -1) {
		switch (c) {
		case 'm': o.mib = strtoul(optarg, NULL, 10); break;
		case 'P': o.procs = strtoul(optarg, NULL, 10); break;
		case 'p': o.passes = strtoul(optarg, NULL, 10); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'o':
			if (!strcmp(optarg, "seq"))
				o.order = 0;
			else if (!strcmp(optarg, "rand"))
				o.order = 1;
			else if (!strcmp(optarg, "both"))
				o.order = 2;
			else
				usage();
			break;
		case 'x':
			if (parse_mix(optarg, o.mix))
				usage();
			break;
		case 'F': o.flip = 1; break;
		case 'f': o.fail = 1; break;
		default: usage();
		}
	}
	if (!o.mib || !o.procs || !o.passes || o.procs > 64)
		usage();

	npages = o.mib * 1024 * 1024 / PAGE;
	cap_per_proc = npages * o.passes;
	shsize = sizeof(*sh) + cap_per_proc * o.procs * sizeof(uint32_t);
	sh = mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("memstress: mmap shared");
		return 2;
	}
	/* The sample buffer must not itself be swapped and perturb the run. */
	mlock(sh, shsize);

	t0 = now_ns();
	for (i = 0; i < o.procs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("memstress: fork");
			return 2;
		}
		if (!pid)
			_exit(worker(&o, i, sh, i * cap_per_proc, cap_per_proc));
	}
	for (i = 0; i < o.procs; i++) {
		if (wait(&status) < 0) {
			perror("memstress: wait");
			return 2;
		}
		if (!WIFEXITED(status)) {
			fprintf(stderr, "memstress: worker killed by signal %d\n",
				WIFSIGNALED(status) ? WTERMSIG(status) : -1);
			err = 2;
		} else if (WEXITSTATUS(status) == 2) {
			err = 2;
		}
	}
	t1 = now_ns();
	getrusage(RUSAGE_CHILDREN, &ru);

	/* Compact the per-process sample slices, then sort. */
	n = 0;
	for (i = 0; i < o.procs; i++)
		for (k0 = 0; k0 < sh->proc_samples[i]; k0++)
			sh->samples[n++] = sh->samples[i * cap_per_proc + k0];
	qsort(sh->samples, n, sizeof(uint32_t), cmp_u32);

	secs = (t1 - t0) / 1e9;
	user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("memstress: procs=%u mib=%lu passes=%u seed=%" PRIu64 " order=%s"
	       " mix=zero:%u,same:%u,text:%u,binary:%u,random:%u"
	       " pages=%" PRIu64 " touched=%" PRIu64 " faults=%" PRIu64
	       " mismatches=%" PRIu64 " elapsed_s=%.3f pages_per_s=%.0f mib_per_s=%.2f"
	       " fault_p50_us=%.1f fault_p90_us=%.1f fault_p99_us=%.1f"
	       " fault_p999_us=%.1f fault_max_us=%.1f user_s=%.2f sys_s=%.2f\n",
	       o.procs, o.mib, o.passes, o.seed,
	       o.order == 0 ? "seq" : o.order == 1 ? "rand" : "both",
	       o.mix[0], o.mix[1], o.mix[2], o.mix[3], o.mix[4],
	       npages * o.procs, sh->touched, sh->faults, sh->mismatches, secs,
	       sh->touched / secs, sh->touched * PAGE / 1048576.0 / secs,
	       pct(sh->samples, n, 50), pct(sh->samples, n, 90), pct(sh->samples, n, 99),
	       pct(sh->samples, n, 99.9), n ? sh->samples[n - 1] / 1000.0 : 0.0,
	       user, sys);
	if (err)
		return err;
	return sh->mismatches ? 1 : 0;
}
