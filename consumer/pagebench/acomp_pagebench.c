// SPDX-License-Identifier: GPL-2.0
/*
 * acomp_pagebench: page-compression microbenchmark of an acomp algorithm.
 *
 * Userspace loads a corpus of pages into debugfs, then starts a run:
 *
 *   cat corpus.bin > /sys/kernel/debug/acomp_pagebench/corpus
 *   echo 'alg=acompd(lz4) depth=8 iters=4' > /sys/kernel/debug/acomp_pagebench/run
 *   cat /sys/kernel/debug/acomp_pagebench/result
 *
 * A run compresses every corpus page, then decompresses every compressed
 * page and checks it against the original, each pass keeping up to @depth
 * requests in flight (depth 1 waits for each request, as zswap does; deeper,
 * all but the last request submitted before a wait are marked
 * CRYPTO_ACOMP_REQ_BATCH, as zram marks the pages of one write). It
 * reports per-request latency percentiles (submission to completion),
 * throughput, the compression ratio and CPU time: the submitting task's and
 * that of all CPUs together (workers included). Pages that do not compress
 * below PAGE_SIZE count as PAGE_SIZE, as zram and zswap store them.
 *
 * alg=comp:NAME runs NAME through the legacy synchronous crypto_comp API
 * instead (depth 1 only), called as zram in 6.1 calls it, so that the cost
 * of going through acomp can be measured in the same boot. alg=held runs
 * the transform that "hold" keeps allocated (-ENOENT without one), rather
 * than a fresh transform.
 */

#include <crypto/acompress.h>
#include <linux/crypto.h>
#include <linux/debugfs.h>
#include <linux/kernel_stat.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/cputime.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>

/* The unpatched kernel has no batch hint; its algorithms would ignore it. */
#ifndef CRYPTO_ACOMP_REQ_BATCH
#define CRYPTO_ACOMP_REQ_BATCH 0
#endif

#define PB_MAX_DEPTH	256
#define PB_MAX_PAGES	16384
#define PB_DST_SIZE	(2 * PAGE_SIZE)
#define PB_RESULT_SIZE	2048

struct pb_run;

struct pb_slot {
	struct pb_run *run;
	struct acomp_req *req;
	struct scatterlist sg_src, sg_dst;
	struct page *out;		/* decompression output */
	unsigned int page;
	u64 start;
	int err;
	struct list_head done;		/* on run->completed once finished */
};

struct pb_run {
	struct crypto_acomp *tfm;
	bool compress;
	spinlock_t lock;		/* protects completed */
	struct list_head completed;
	wait_queue_head_t wq;
	u64 *lat;
	unsigned int nlat;
	unsigned int errors;
	unsigned int mismatches;
};

static DEFINE_MUTEX(pb_lock);		/* protects everything below */
static struct page **pb_pages;		/* the corpus */
static unsigned int pb_npages;
static u8 **pb_comp;			/* compressed pages, PB_DST_SIZE each */
static unsigned int *pb_clen;
static char pb_result[PB_RESULT_SIZE];
static struct crypto_acomp *pb_held;	/* a transform kept allocated */
static struct dentry *pb_dir;

static void pb_free_corpus(void)
{
	unsigned int i;

	for (i = 0; i < pb_npages; i++) {
		__free_page(pb_pages[i]);
		kfree(pb_comp[i]);
	}
	kvfree(pb_pages);
	kvfree(pb_comp);
	kvfree(pb_clen);
	pb_pages = NULL;
	pb_comp = NULL;
	pb_clen = NULL;
	pb_npages = 0;
}

static void pb_complete(struct crypto_async_request *base, int err)
{
	struct pb_slot *slot = base->data;
	struct pb_run *run = slot->run;
	unsigned long flags;

	/* A backlogged request was accepted; its result comes later. */
	if (err == -EINPROGRESS)
		return;
	slot->err = err;
	spin_lock_irqsave(&run->lock, flags);
	list_add_tail(&slot->done, &run->completed);
	spin_unlock_irqrestore(&run->lock, flags);
	wake_up(&run->wq);
}

/*
 * Account one finished operation on corpus page @i, started at @start: its
 * latency, and either its compressed length or whether @out, its
 * decompression, matches the page.
 */
static void pb_account(struct pb_run *run, unsigned int i, u64 start, int err,
		       unsigned int dlen, struct page *out)
{
	run->lat[run->nlat++] = ktime_get_ns() - start;
	if (err) {
		run->errors++;
		return;
	}
	if (run->compress) {
		pb_clen[i] = dlen;
	} else if (dlen != PAGE_SIZE ||
		   memcmp(page_address(out), page_address(pb_pages[i]), PAGE_SIZE)) {
		run->mismatches++;
	}
}

/* Account one finished request; the slot can be reused afterwards. */
static void pb_finish(struct pb_run *run, struct pb_slot *slot)
{
	pb_account(run, slot->page, slot->start, slot->err, slot->req->dlen,
		   slot->out);
}

/* @more: another request follows before the submitter waits. */
static int pb_submit(struct pb_run *run, struct pb_slot *slot, unsigned int i,
		     bool more)
{
	int ret;

	slot->page = i;
	if (run->compress) {
		sg_init_table(&slot->sg_src, 1);
		sg_set_page(&slot->sg_src, pb_pages[i], PAGE_SIZE, 0);
		sg_init_one(&slot->sg_dst, pb_comp[i], PB_DST_SIZE);
		acomp_request_set_params(slot->req, &slot->sg_src, &slot->sg_dst,
					 PAGE_SIZE, PB_DST_SIZE);
	} else {
		sg_init_one(&slot->sg_src, pb_comp[i], pb_clen[i]);
		sg_init_table(&slot->sg_dst, 1);
		sg_set_page(&slot->sg_dst, slot->out, PAGE_SIZE, 0);
		acomp_request_set_params(slot->req, &slot->sg_src, &slot->sg_dst,
					 pb_clen[i], PAGE_SIZE);
	}
	acomp_request_set_callback(slot->req, CRYPTO_TFM_REQ_MAY_BACKLOG |
				   CRYPTO_TFM_REQ_MAY_SLEEP |
				   (more ? CRYPTO_ACOMP_REQ_BATCH : 0),
				   pb_complete, slot);
	slot->start = ktime_get_ns();
	ret = run->compress ? crypto_acomp_compress(slot->req) :
			      crypto_acomp_decompress(slot->req);
	return ret;
}

/* One pass over the corpus with up to @depth requests in flight. */
static void pb_pass(struct pb_run *run, struct pb_slot *slots,
		    struct pb_slot **free_slots, unsigned int depth)
{
	unsigned int nfree = depth, next = 0, finished = 0, i;

	for (i = 0; i < depth; i++)
		free_slots[i] = &slots[i];

	while (finished < pb_npages) {
		while (next < pb_npages && nfree) {
			struct pb_slot *slot = free_slots[--nfree];
			int ret;

			next++;
			/* More follow before we wait: a batch, as zram's. */
			ret = pb_submit(run, slot, next - 1,
					nfree && next < pb_npages);

			if (ret == -EINPROGRESS || ret == -EBUSY)
				continue;
			slot->err = ret;
			pb_finish(run, slot);
			free_slots[nfree++] = slot;
			finished++;
		}
		if (finished == pb_npages)
			break;
		wait_event(run->wq, !list_empty_careful(&run->completed));
		for (;;) {
			struct pb_slot *slot;

			spin_lock_irq(&run->lock);
			slot = list_first_entry_or_null(&run->completed,
							struct pb_slot, done);
			if (slot)
				list_del(&slot->done);
			spin_unlock_irq(&run->lock);
			if (!slot)
				break;
			pb_finish(run, slot);
			free_slots[nfree++] = slot;
			finished++;
		}
	}
}

/* One pass over the corpus through the legacy crypto_comp API. */
static void pb_comp_pass(struct pb_run *run, struct crypto_comp *tfm,
			 struct page *out)
{
	unsigned int i, dlen;
	u64 start;
	int err;

	for (i = 0; i < pb_npages; i++) {
		start = ktime_get_ns();
		if (run->compress) {
			dlen = PB_DST_SIZE;
			err = crypto_comp_compress(tfm, page_address(pb_pages[i]),
						   PAGE_SIZE, pb_comp[i], &dlen);
		} else {
			dlen = PAGE_SIZE;
			err = crypto_comp_decompress(tfm, pb_comp[i], pb_clen[i],
						     page_address(out), &dlen);
		}
		pb_account(run, i, start, err, dlen, out);
	}
}

static int pb_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 pb_cpu_busy_ns(void)
{
	u64 sum = 0;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		u64 *st = kcpustat_cpu(cpu).cpustat;

		for (i = CPUTIME_USER; i <= CPUTIME_SOFTIRQ; i++)
			sum += st[i];
	}
	return sum;
}

/* Run @iters compress passes, then @iters decompress passes, and report. */
static int pb_run_all(const char *alg, unsigned int depth, unsigned int iters)
{
	struct pb_slot *slots = NULL, **free_slots = NULL;
	struct crypto_comp *ctfm = NULL;
	struct pb_run run = { };
	unsigned int i, op, len = 0;
	u64 stored = 0, t0, t1, cpu0, cpu1, ut0, st0, ut1, st1;
	const char *driver, *async;
	int err = 0;

	if (!strncmp(alg, "comp:", 5)) {
		if (depth != 1)
			return -EINVAL;
		ctfm = crypto_alloc_comp(alg + 5, 0, 0);
		if (IS_ERR(ctfm))
			return PTR_ERR(ctfm);
		driver = crypto_tfm_alg_driver_name(crypto_comp_tfm(ctfm));
		async = "no";
	} else {
		if (!strcmp(alg, "held")) {
			/* pb_lock, held by our caller, keeps "hold" from freeing it. */
			if (!pb_held)
				return -ENOENT;
			run.tfm = pb_held;
		} else {
			run.tfm = crypto_alloc_acomp(alg, 0, 0);
			if (IS_ERR(run.tfm))
				return PTR_ERR(run.tfm);
		}
		driver = crypto_tfm_alg_driver_name(crypto_acomp_tfm(run.tfm));
		async = crypto_acomp_tfm(run.tfm)->__crt_alg->cra_flags &
			CRYPTO_ALG_ASYNC ? "yes" : "no";
	}
	slots = kcalloc(depth, sizeof(*slots), GFP_KERNEL);
	free_slots = kmalloc_array(depth, sizeof(*free_slots), GFP_KERNEL);
	run.lat = kvmalloc_array((size_t)pb_npages * iters, sizeof(u64), GFP_KERNEL);
	if (!slots || !free_slots || !run.lat) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < depth; i++) {
		slots[i].run = &run;
		if (run.tfm) {
			slots[i].req = acomp_request_alloc(run.tfm);
			if (!slots[i].req) {
				err = -ENOMEM;
				goto out;
			}
		}
		slots[i].out = alloc_page(GFP_KERNEL);
		if (!slots[i].out) {
			err = -ENOMEM;
			goto out;
		}
	}
	spin_lock_init(&run.lock);
	INIT_LIST_HEAD(&run.completed);
	init_waitqueue_head(&run.wq);

	pb_result[0] = '\0';
	for (op = 0; op < 2; op++) {
		run.compress = !op;
		run.nlat = 0;
		run.errors = 0;
		run.mismatches = 0;
		task_cputime(current, &ut0, &st0);
		cpu0 = pb_cpu_busy_ns();
		t0 = ktime_get_ns();
		for (i = 0; i < iters; i++) {
			if (ctfm)
				pb_comp_pass(&run, ctfm, slots[0].out);
			else
				pb_pass(&run, slots, free_slots, depth);
		}
		t1 = ktime_get_ns();
		cpu1 = pb_cpu_busy_ns();
		task_cputime(current, &ut1, &st1);

		sort(run.lat, run.nlat, sizeof(u64), pb_cmp_u64, NULL);
		if (run.compress) {
			stored = 0;
			for (i = 0; i < pb_npages; i++)
				stored += min_t(u64, pb_clen[i], PAGE_SIZE);
		}
		len += scnprintf(pb_result + len, PB_RESULT_SIZE - len,
				 "pagebench: alg=%s driver=%s async=%s depth=%u op=%s pages=%u iters=%u requests=%u errors=%u mismatches=%u p50_us=%llu.%03llu p99_us=%llu.%03llu max_us=%llu.%03llu mib_s=%llu wall_ms=%llu cpu_submitter_ms=%llu cpu_all_ms=%llu ratio_x1000=%llu\n",
				 alg, driver, async, depth, run.compress ? "compress" : "decompress",
				 pb_npages, iters, run.nlat, run.errors, run.mismatches,
				 run.lat[run.nlat / 2] / 1000, run.lat[run.nlat / 2] % 1000,
				 run.lat[run.nlat * 99 / 100] / 1000, run.lat[run.nlat * 99 / 100] % 1000,
				 run.lat[run.nlat - 1] / 1000, run.lat[run.nlat - 1] % 1000,
				 div64_u64((u64)run.nlat * PAGE_SIZE * NSEC_PER_SEC,
					   max_t(u64, t1 - t0, 1) * SZ_1M),
				 div64_u64(t1 - t0, NSEC_PER_MSEC),
				 div64_u64(ut1 + st1 - ut0 - st0, NSEC_PER_MSEC),
				 div64_u64(cpu1 - cpu0, NSEC_PER_MSEC),
				 div64_u64((u64)pb_npages * PAGE_SIZE * 1000, max_t(u64, stored, 1)));
		if (run.compress && run.errors) {
			err = -EIO;
			break;
		}
	}
	if (!err && (run.errors || run.mismatches))
		err = -EIO;
out:
	for (i = 0; slots && i < depth; i++) {
		if (slots[i].out)
			__free_page(slots[i].out);
		if (slots[i].req)
			acomp_request_free(slots[i].req);
	}
	kfree(slots);
	kfree(free_slots);
	kvfree(run.lat);
	if (ctfm)
		crypto_free_comp(ctfm);
	else if (run.tfm != pb_held)
		crypto_free_acomp(run.tfm);
	return err;
}

static ssize_t pb_corpus_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	unsigned int first, last, i;
	size_t done = 0;
	int err = 0;

	if (*ppos + count > (loff_t)PB_MAX_PAGES * PAGE_SIZE)
		return -EFBIG;
	mutex_lock(&pb_lock);
	if (*ppos == 0)
		pb_free_corpus();
	if (!pb_pages) {
		pb_pages = kvcalloc(PB_MAX_PAGES, sizeof(*pb_pages), GFP_KERNEL);
		pb_comp = kvcalloc(PB_MAX_PAGES, sizeof(*pb_comp), GFP_KERNEL);
		pb_clen = kvcalloc(PB_MAX_PAGES, sizeof(*pb_clen), GFP_KERNEL);
		if (!pb_pages || !pb_comp || !pb_clen) {
			pb_free_corpus();
			err = -ENOMEM;
			goto out;
		}
	}
	first = *ppos >> PAGE_SHIFT;
	last = (*ppos + count - 1) >> PAGE_SHIFT;
	for (i = pb_npages; i <= last; i++) {
		pb_pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		pb_comp[i] = kmalloc(PB_DST_SIZE, GFP_KERNEL);
		if (!pb_pages[i] || !pb_comp[i]) {
			if (pb_pages[i])
				__free_page(pb_pages[i]);
			kfree(pb_comp[i]);
			err = -ENOMEM;
			goto out;
		}
		pb_npages = i + 1;
	}
	for (i = first; i <= last; i++) {
		size_t off = (*ppos + done) & ~PAGE_MASK;
		size_t n = min_t(size_t, count - done, PAGE_SIZE - off);

		if (copy_from_user(page_address(pb_pages[i]) + off, buf + done, n)) {
			err = -EFAULT;
			goto out;
		}
		done += n;
	}
	*ppos += done;
out:
	mutex_unlock(&pb_lock);
	return err ? err : done;
}

static ssize_t pb_run_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	unsigned int depth = 1, iters = 1;
	char alg[CRYPTO_MAX_ALG_NAME] = "";
	char *buf, *p, *tok;
	int err;

	buf = memdup_user_nul(ubuf, min_t(size_t, count, 256));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	p = strim(buf);
	while ((tok = strsep(&p, " \t\n"))) {
		if (!*tok)
			continue;
		if (!strncmp(tok, "alg=", 4)) {
			strscpy(alg, tok + 4, sizeof(alg));
		} else if (!strncmp(tok, "depth=", 6)) {
			if (kstrtouint(tok + 6, 10, &depth))
				goto inval;
		} else if (!strncmp(tok, "iters=", 6)) {
			if (kstrtouint(tok + 6, 10, &iters))
				goto inval;
		} else {
			goto inval;
		}
	}
	kfree(buf);
	if (!alg[0] || !depth || depth > PB_MAX_DEPTH || !iters || iters > 1000)
		return -EINVAL;

	mutex_lock(&pb_lock);
	if (!pb_npages) {
		err = -ENODATA;
	} else {
		err = pb_run_all(alg, depth, iters);
		if (err)
			scnprintf(pb_result + strlen(pb_result),
				  PB_RESULT_SIZE - strlen(pb_result),
				  "pagebench: alg=%s depth=%u failed: %d\n", alg, depth, err);
	}
	mutex_unlock(&pb_lock);
	return err ? err : count;
inval:
	kfree(buf);
	return -EINVAL;
}

static ssize_t pb_result_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&pb_lock);
	ret = simple_read_from_buffer(buf, count, ppos, pb_result, strlen(pb_result));
	mutex_unlock(&pb_lock);
	return ret;
}

/*
 * "hold": writing an algorithm name allocates a transform of it and keeps it
 * until "none" is written or the module is unloaded, so that a test can
 * check how the algorithm's module behaves while it has a user.
 */
static ssize_t pb_hold_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct crypto_acomp *tfm = NULL;
	char *buf, *name;

	buf = memdup_user_nul(ubuf, min_t(size_t, count, CRYPTO_MAX_ALG_NAME));
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	name = strim(buf);
	if (!*name) {
		kfree(buf);
		return -EINVAL;
	}
	if (strcmp(name, "none")) {
		tfm = crypto_alloc_acomp(name, 0, 0);
		if (IS_ERR(tfm)) {
			kfree(buf);
			return PTR_ERR(tfm);
		}
	}
	kfree(buf);
	mutex_lock(&pb_lock);
	swap(tfm, pb_held);
	mutex_unlock(&pb_lock);
	if (tfm)
		crypto_free_acomp(tfm);
	return count;
}

static ssize_t pb_hold_read(struct file *file, char __user *buf,
			    size_t count, loff_t *ppos)
{
	char line[CRYPTO_MAX_ALG_NAME + 1];
	int len;

	mutex_lock(&pb_lock);
	len = scnprintf(line, sizeof(line), "%s\n", pb_held ?
			crypto_tfm_alg_driver_name(crypto_acomp_tfm(pb_held)) : "none");
	mutex_unlock(&pb_lock);
	return simple_read_from_buffer(buf, count, ppos, line, len);
}

static const struct file_operations pb_hold_fops = {
	.owner = THIS_MODULE,
	.read = pb_hold_read,
	.write = pb_hold_write,
};

static const struct file_operations pb_corpus_fops = {
	.owner = THIS_MODULE,
	.write = pb_corpus_write,
};

static const struct file_operations pb_run_fops = {
	.owner = THIS_MODULE,
	.write = pb_run_write,
};

static const struct file_operations pb_result_fops = {
	.owner = THIS_MODULE,
	.read = pb_result_read,
};

static int __init pb_init(void)
{
	pb_dir = debugfs_create_dir("acomp_pagebench", NULL);
	debugfs_create_file("corpus", 0200, pb_dir, NULL, &pb_corpus_fops);
	debugfs_create_file("run", 0200, pb_dir, NULL, &pb_run_fops);
	debugfs_create_file("result", 0400, pb_dir, NULL, &pb_result_fops);
	debugfs_create_file("hold", 0600, pb_dir, NULL, &pb_hold_fops);
	return 0;
}

static void __exit pb_exit(void)
{
	debugfs_remove_recursive(pb_dir);
	mutex_lock(&pb_lock);
	pb_free_corpus();
	mutex_unlock(&pb_lock);
	if (pb_held)
		crypto_free_acomp(pb_held);
}

module_init(pb_init);
module_exit(pb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Page-compression microbenchmark of acomp algorithms");
