// SPDX-License-Identifier: GPL-2.0
/*
 * insncount: a QEMU TCG plugin that counts the instructions a guest executes
 * between phase markers, per vCPU, kernel and total, and per kernel
 * translation block start address (resolved to functions on the host).
 *
 * Markers are 8-byte NOPs a guest program executes (bench/icmark.c):
 *
 *	0f 1f 84 00 'I' 'C' 'M' cmd	nopl disp32(%rax,%rax,1)
 *
 * with cmd 'B' (a phase begins) or 'E' (it ends). The phase label is carried
 * by the 7-byte NOPs immediately before the marker in the same block:
 *
 *	0f 1f 80 c0 c1 c2 c3		nopl disp32(%rax), four label bytes
 *
 * Compilers emit these NOPs only with a zero displacement, so neither form
 * occurs by accident.
 *
 * No increment is lost under multi-threaded TCG: every vCPU has its own
 * counters, written only by the thread that runs that vCPU; a marker reads
 * the other vCPUs' counters with relaxed atomic loads. The other vCPUs keep
 * running while they are read: what they execute meanwhile falls on either
 * side of the phase's boundary (see phase_end()). A block is counted whole
 * when it starts executing (QEMU 7.2's block callback): a block left early
 * by an exception (a page fault in its middle) counts the instructions it
 * did not execute, and the ones it did again when it is re-executed after
 * the fault. The overcount is at most one block per exception:
 * deterministic, and small against a page's cost.
 *
 * Arguments: out=FILE (required): one "phase" record per ended phase.
 *
 * Output (text, one record per ended phase, written when it ends):
 *	phase LABEL
 *	vcpu N TOTAL KERNEL		one per vCPU
 *	site 0xVADDR COUNT		kernel instructions by block start
 *	unsited COUNT			kernel instructions of blocks that
 *					found the site table full (if any)
 *	end LABEL TOTAL KERNEL		KERNEL: the sum of the sites and
 *					unsited; TOTAL: KERNEL and user space
 * and at exit "exit TOTAL KERNEL SITES OVERFLOW" for the whole run.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define KERNEL_START 0xffff800000000000ULL
#define MAX_SITES (1u << 21)	/* distinct kernel block starts */
#define HASH_SLOTS (1u << 22)
#define MAX_PHASES 64
#define LABEL_MAX 128
#define NO_SITE UINT32_MAX

struct vcpu {
	uint64_t user;		/* the total is user + kernel */
	uint64_t kernel;
	uint64_t unsited;	/* kernel, in blocks without a site */
	uint64_t *site;		/* [MAX_SITES], zeroed pages until touched */
} __attribute__((aligned(64)));

struct block {
	uint32_t n;		/* instructions */
	uint32_t site;		/* NO_SITE: the table was full */
	bool kernel;
};

struct marker {
	char cmd;
	char label[LABEL_MAX];
};

struct phase {
	char label[LABEL_MAX];
	uint32_t nsites;	/* sites that existed when it began */
	uint64_t *user;		/* [nvcpus] at begin */
	uint64_t *kernel;
	uint64_t unsited;	/* summed over vCPUs at begin */
	uint64_t *site;		/* [nsites] summed over vCPUs at begin */
};

static struct vcpu *vcpus;
static int nvcpus;
static FILE *out;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Guarded by lock: the site table (written at translation only). */
static uint64_t *slot_vaddr;	/* [HASH_SLOTS], 0 = empty */
static uint32_t *slot_site;
static uint64_t *site_vaddr;	/* [MAX_SITES] */
static uint32_t nsites;		/* read relaxed outside the lock */
static uint64_t overflow_blocks;
static struct phase *phases[MAX_PHASES];

static uint64_t rd(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Only the vCPU's own thread writes its counters: no lost increments. */
static void add(uint64_t *p, uint64_t n)
{
	__atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

static void vcpu_block(unsigned int idx, void *udata)
{
	const struct block *b = udata;
	struct vcpu *v = &vcpus[idx];

	if (!b->kernel) {
		add(&v->user, b->n);
		return;
	}
	add(&v->kernel, b->n);
	if (b->site != NO_SITE)
		add(&v->site[b->site], b->n);
	else
		add(&v->unsited, b->n);
}

/* Caller holds lock. */
static uint32_t site_of(uint64_t vaddr)
{
	uint64_t h = (vaddr * 0x9e3779b97f4a7c15ULL) >> 42;

	for (;; h = (h + 1) & (HASH_SLOTS - 1)) {
		if (slot_vaddr[h] == vaddr)
			return slot_site[h];
		if (slot_vaddr[h])
			continue;
		if (nsites == MAX_SITES) {
			overflow_blocks++;
			return NO_SITE;
		}
		slot_vaddr[h] = vaddr;
		slot_site[h] = nsites;
		site_vaddr[nsites] = vaddr;
		__atomic_store_n(&nsites, nsites + 1, __ATOMIC_RELEASE);
		return slot_site[h];
	}
}

static uint64_t site_sum(uint32_t s)
{
	uint64_t sum = 0;

	for (int i = 0; i < nvcpus; i++)
		sum += rd(&vcpus[i].site[s]);
	return sum;
}

/* Caller holds lock. */
static void phase_begin(const char *label)
{
	struct phase *p;
	int i;

	for (i = 0; i < MAX_PHASES && phases[i]; i++)
		;
	if (i == MAX_PHASES) {
		fprintf(stderr, "insncount: more than %d open phases, '%s' ignored\n",
			MAX_PHASES, label);
		return;
	}
	p = calloc(1, sizeof(*p));
	p->nsites = __atomic_load_n(&nsites, __ATOMIC_ACQUIRE);
	p->user = calloc(nvcpus, sizeof(uint64_t));
	p->kernel = calloc(nvcpus, sizeof(uint64_t));
	p->site = malloc((p->nsites + 1) * sizeof(uint64_t));
	if (!p->user || !p->kernel || !p->site) {
		fprintf(stderr, "insncount: out of memory, '%s' ignored\n", label);
		free(p->user);
		free(p->kernel);
		free(p->site);
		free(p);
		return;
	}
	snprintf(p->label, sizeof(p->label), "%s", label);
	for (int c = 0; c < nvcpus; c++) {
		p->user[c] = rd(&vcpus[c].user);
		p->kernel[c] = rd(&vcpus[c].kernel);
		p->unsited += rd(&vcpus[c].unsited);
	}
	for (uint32_t s = 0; s < p->nsites; s++)
		p->site[s] = site_sum(s);
	phases[i] = p;
}

/*
 * Caller holds lock. The most recently begun open phase of that label.
 *
 * The other vCPUs run on while the counters are read, so the phase's
 * boundary is fuzzy for them by what they execute meanwhile. Both ends read
 * in the same order (the per-vCPU counters, then every site) before
 * anything is printed, so that the sites' window and the counters' window
 * are of the same length, shifted by one scan. The phase's KERNEL is the
 * sum of its sites (and unsited blocks), so that its functions add up to
 * it; the "vcpu" lines are the counters as read, and their kernel sum
 * differs from KERNEL by the difference of the two windows (bench/insn.py
 * reports it as the phase's skew).
 */
static void phase_end(const char *label)
{
	uint64_t user = 0, kernel = 0, unsited = 0;
	uint32_t now = __atomic_load_n(&nsites, __ATOMIC_ACQUIRE);
	uint64_t *site = calloc(now + 1, sizeof(uint64_t));
	struct phase *p;
	int i;

	for (i = MAX_PHASES - 1; i >= 0; i--)
		if (phases[i] && !strcmp(phases[i]->label, label))
			break;
	if (i < 0 || !site) {
		fprintf(out, "%s %s\n", site ? "unmatched" : "nomem", label);
		fflush(out);
		free(site);
		return;
	}
	p = phases[i];
	phases[i] = NULL;
	for (int c = 0; c < nvcpus; c++) {
		p->user[c] = rd(&vcpus[c].user) - p->user[c];
		p->kernel[c] = rd(&vcpus[c].kernel) - p->kernel[c];
		unsited += rd(&vcpus[c].unsited);
	}
	unsited -= p->unsited;
	for (uint32_t s = 0; s < now; s++)
		site[s] = site_sum(s) - (s < p->nsites ? p->site[s] : 0);

	fprintf(out, "phase %s\n", label);
	for (int c = 0; c < nvcpus; c++) {
		fprintf(out, "vcpu %d %" PRIu64 " %" PRIu64 "\n", c,
			p->user[c] + p->kernel[c], p->kernel[c]);
		user += p->user[c];
	}
	for (uint32_t s = 0; s < now; s++) {
		if (site[s])
			fprintf(out, "site 0x%" PRIx64 " %" PRIu64 "\n",
				site_vaddr[s], site[s]);
		kernel += site[s];
	}
	if (unsited)
		fprintf(out, "unsited %" PRIu64 "\n", unsited);
	kernel += unsited;
	fprintf(out, "end %s %" PRIu64 " %" PRIu64 "\n", label, user + kernel,
		kernel);
	fflush(out);
	free(site);
	free(p->user);
	free(p->kernel);
	free(p->site);
	free(p);
}

static void vcpu_marker(unsigned int idx, void *udata)
{
	const struct marker *m = udata;

	(void)idx;
	pthread_mutex_lock(&lock);
	if (m->cmd == 'B')
		phase_begin(m->label);
	else
		phase_end(m->label);
	pthread_mutex_unlock(&lock);
}

static bool is_label(const uint8_t *d, size_t len)
{
	return len == 7 && d[0] == 0x0f && d[1] == 0x1f && d[2] == 0x80;
}

static bool is_marker(const uint8_t *d, size_t len)
{
	return len == 8 && d[0] == 0x0f && d[1] == 0x1f && d[2] == 0x84 &&
	       d[3] == 0x00 && d[4] == 'I' && d[5] == 'C' && d[6] == 'M' &&
	       (d[7] == 'B' || d[7] == 'E');
}

static void block_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b = malloc(sizeof(*b));
	char label[LABEL_MAX];
	size_t llen = 0;

	(void)id;
	if (!b)
		abort();
	b->n = n;
	b->site = NO_SITE;
	b->kernel = vaddr >= KERNEL_START;
	if (b->kernel) {
		pthread_mutex_lock(&lock);
		b->site = site_of(vaddr);
		pthread_mutex_unlock(&lock);
	}
	qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_block,
					     QEMU_PLUGIN_CB_NO_REGS, b);
	if (vaddr >= KERNEL_START)
		return;

	/* Markers: only in user space, where bench/icmark.c runs them. */
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *d = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);
		struct marker *m;

		if (is_label(d, len)) {
			for (int j = 3; j < 7 && d[j] && llen < LABEL_MAX - 1; j++)
				label[llen++] = (d[j] > ' ' && d[j] < 127) ? d[j] : '_';
			continue;
		}
		if (is_marker(d, len)) {
			m = malloc(sizeof(*m));
			if (!m)
				abort();
			m->cmd = d[7];
			memcpy(m->label, label, llen);
			m->label[llen] = 0;
			if (!llen)
				strcpy(m->label, "-");
			qemu_plugin_register_vcpu_insn_exec_cb(insn, vcpu_marker,
							       QEMU_PLUGIN_CB_NO_REGS,
							       m);
		}
		llen = 0;
	}
}

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	uint64_t total = 0, kernel = 0;

	(void)id;
	(void)p;
	pthread_mutex_lock(&lock);
	for (int c = 0; c < nvcpus; c++) {
		total += rd(&vcpus[c].user) + rd(&vcpus[c].kernel);
		kernel += rd(&vcpus[c].kernel);
	}
	fprintf(out, "exit %" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu64 "\n",
		total, kernel, nsites, overflow_blocks);
	fclose(out);
	out = NULL;
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			path = argv[i] + 4;
		} else {
			fprintf(stderr, "insncount: unknown argument '%s' (takes out=FILE)\n",
				argv[i]);
			return 1;
		}
	}
	if (!path) {
		fprintf(stderr, "insncount: out=FILE is required\n");
		return 1;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "insncount: system emulation only\n");
		return 1;
	}
	nvcpus = info->system.max_vcpus;
	out = fopen(path, "w");
	vcpus = aligned_alloc(64, nvcpus * sizeof(*vcpus));
	slot_vaddr = calloc(HASH_SLOTS, sizeof(*slot_vaddr));
	slot_site = calloc(HASH_SLOTS, sizeof(*slot_site));
	site_vaddr = calloc(MAX_SITES, sizeof(*site_vaddr));
	if (!out || !vcpus || !slot_vaddr || !slot_site || !site_vaddr) {
		fprintf(stderr, "insncount: cannot open %s or allocate\n", path);
		return 1;
	}
	memset(vcpus, 0, nvcpus * sizeof(*vcpus));
	for (int c = 0; c < nvcpus; c++) {
		vcpus[c].site = calloc(MAX_SITES, sizeof(uint64_t));
		if (!vcpus[c].site) {
			fprintf(stderr, "insncount: cannot allocate\n");
			return 1;
		}
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
