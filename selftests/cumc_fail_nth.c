// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures everywhere, in the manner of iommufd_fail_nth: for
 * each ioctl sequence and n = 1, 2, 3..., make the n-th allocation of this
 * thread fail (/proc/self/task/TID/fail-nth, with failslab and
 * fail_page_alloc), run the sequence, check that it either completed or
 * stopped at a call that failed with an errno, undo what it made, and check
 * that every live-object count is back to its value before. It ends when
 * the sequence runs to the end without the injection being reached.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS, FAILSLAB and
 * FAIL_PAGE_ALLOC (scripts/debug-kernel, make check-debug); skipped
 * elsewhere.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define MAX_N 2000

static __u64 gran;

struct seq_state {
	int fd, fd2, efd;
	__u64 mem, mem2, mc, va;
	/* Member views the sequence made: unmapped by the cleanup. */
	__u64 views[2];
};

static int fail_nth_fd(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	return open(path, O_RDWR | O_CLOEXEC);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* Arm: the n-th allocation from now fails. */
static int arm(int nth, int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(nth, buf, len, 0) == len ? 0 : -1;
}

/* Disarm; whether the injection was reached (the count ran down to 0). */
static int disarm(int nth)
{
	char buf[16] = "";
	int left;

	if (pread(nth, buf, sizeof(buf) - 1, 0) <= 0)
		return -1;
	left = atoi(buf);
	if (pwrite(nth, "0", 1, 0) != 1)
		return -1;
	return left == 0;
}

/*
 * The sequences: each stops at the first failure, which is fine as long as
 * it is an errno; the cleanup is the caller's, from the state.
 */

static int seq_create(struct seq_state *s)
{
	return st_mem_create(s->fd, 0, 0, gran, &s->mem);
}

static int seq_map(struct seq_state *s)
{
	return st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	       st_va_reserve(s->fd, gran, 0, 0, &s->va) ?:
	       st_map(s->fd, s->va, gran, s->mem) ?:
	       st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE) ?:
	       st_unmap(s->fd, s->va, gran);
}

/* The same in a shared arena: its first reservation maps the arena. */
static int seq_map_shared(struct seq_state *s)
{
	return st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	       st_va_reserve_shared(s->fd, gran, 0, 0, &s->va) ?:
	       st_map(s->fd, s->va, gran, s->mem) ?:
	       st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE) ?:
	       st_unmap(s->fd, s->va, gran);
}

static int seq_share(struct seq_state *s)
{
	int ret;

	ret = st_mem_create(s->fd, 0, CUMC_HANDLE_FD, gran, &s->mem) ?:
	      st_export_fd(s->fd, s->mem, &s->efd);
	if (ret)
		return ret;
	s->fd2 = st_open();
	if (s->fd2 < 0)
		return -errno;
	return st_import_fd(s->fd2, s->efd, &s->mem2);
}

static int seq_multicast(struct seq_state *s)
{
	int ret;

	ret = st_mc_create(s->fd, 1, 0, gran, &s->mc) ?:
	      st_mem_create(s->fd, 0, 0, gran, &s->mem);
	if (ret)
		return ret;
	return st_mc_add(s->fd, s->mc, 0) ?:
	       st_mc_bind_mem(s->fd, s->mc, 0, 0, s->mem, 0, gran) ?:
	       st_mc_unbind(s->fd, s->mc, 0, 0, gran);
}

/*
 * API version 2's one-call paths: binds that name the memory's device,
 * every member's view in one call (all or none).
 */
static int seq_views(struct seq_state *s)
{
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.device_from = CUMC_MC_BIND_DEVICE_OF_MEM,
		.length = gran,
	};
	struct cumc_mc_view v = { .size = sizeof(v), .num_views = 2 };
	int ret;

	ret = st_mc_create(s->fd, 2, 0, gran, &s->mc) ?:
	      st_mc_add(s->fd, s->mc, 0) ?:
	      st_mc_add(s->fd, s->mc, 1) ?:
	      st_mem_create(s->fd, 0, 0, gran, &s->mem) ?:
	      st_mem_create(s->fd, 1, 0, gran, &s->mem2);
	if (ret)
		return ret;
	b.handle = s->mc;
	b.mem = s->mem;
	ret = st_ioctl(s->fd, CUMC_MC_BIND_MEM, &b);
	if (ret)
		return ret;
	b.mem = s->mem2;
	ret = st_ioctl(s->fd, CUMC_MC_BIND_MEM, &b) ?:
	      st_va_reserve(s->fd, gran, 0, 0, &s->va) ?:
	      st_map(s->fd, s->va, gran, s->mc) ?:
	      st_grant(s->fd, s->va, gran, 0, CUMC_ACCESS_READWRITE);
	if (ret)
		return ret;
	v.addr = s->va;
	v.views = (__u64)(unsigned long)s->views;
	return st_ioctl(s->fd, CUMC_MC_VIEW, &v);
}

/* Undo whatever the sequence got to; closing the clients does the rest. */
static void cleanup(struct seq_state *s)
{
	int i;

	/* After the injection: munmap() itself may need memory. */
	for (i = 0; i < 2; i++)
		if (s->views[i])
			munmap((void *)(unsigned long)s->views[i], gran);
	if (s->va) {
		st_unmap(s->fd, s->va, gran);
		st_va_free(s->fd, s->va, gran);
	}
	if (s->efd > 0)
		close(s->efd);
	if (s->fd2 > 0)
		close(s->fd2);
	close(s->fd);
}

static const struct {
	const char *name;
	int (*run)(struct seq_state *s);
} seqs[] = {
	{ "create", seq_create },
	{ "map", seq_map },
	{ "map in a shared arena", seq_map_shared },
	{ "export/import", seq_share },
	{ "multicast create/add/bind", seq_multicast },
	{ "multicast views (version 2)", seq_views },
};

FIXTURE(fail_nth) {
	int nth;
	struct st_objects base;
};

FIXTURE_SETUP(fail_nth)
{
	struct cumc_device_info info;
	int fd;

	/* The test skips: in this harness a SKIP here would not stop it. */
	self->nth = fail_nth_fd();
	if (self->nth < 0)
		return;
	/*
	 * By default both ignore allocations that may sleep, which are
	 * nearly all of the module's, and fail_page_alloc single pages.
	 */
	ASSERT_EQ(0, write_str("/sys/kernel/debug/failslab/ignore-gfp-wait",
			       "N"));
	ASSERT_EQ(0, write_str("/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait",
			       "N"));
	ASSERT_EQ(0, write_str("/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem",
			       "N"));
	ASSERT_EQ(0, write_str("/sys/kernel/debug/fail_page_alloc/min-order",
			       "0"));
	/* One line per injected failure would flood the serial console. */
	write_str("/sys/kernel/debug/failslab/verbose", "0");
	write_str("/sys/kernel/debug/fail_page_alloc/verbose", "0");
	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, st_device_info(fd, 0, &info));
	gran = info.granularity;
	close(fd);
	ASSERT_EQ(0, st_objects_read(&self->base));
}

FIXTURE_TEARDOWN(fail_nth)
{
	if (self->nth >= 0)
		close(self->nth);
}

TEST_F_TIMEOUT(fail_nth, sequences, 1200)
{
	struct st_objects now;
	unsigned int i;
	int n, hit, ret;

	if (self->nth < 0)
		SKIP(return, "no fail-nth: a kernel without fault injection");
	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		int injected = 0, failed_calls = 0;

		for (n = 1; n <= MAX_N; n++) {
			struct seq_state s = { .fd = st_open() };

			ASSERT_LE(0, s.fd);
			ASSERT_EQ(0, arm(self->nth, n));
			ret = seqs[i].run(&s);
			hit = disarm(self->nth);
			ASSERT_LE(0, hit);
			cleanup(&s);
			/* Without injection, the sequence must work. */
			if (!hit) {
				EXPECT_EQ(0, ret) TH_LOG("%s: %s", seqs[i].name,
							 strerror(-ret));
				break;
			}
			injected++;
			failed_calls += ret != 0;
			ASSERT_EQ(0, st_objects_settle(&self->base, &now,
						       2000)) {
				TH_LOG("%s, allocation %d failed", seqs[i].name,
				       n);
				st_objects_diff(&self->base, &now);
			}
		}
		EXPECT_GE(MAX_N, n);
		TH_LOG("%-28s %4d allocations failed, %d calls saw it",
		       seqs[i].name, injected, failed_calls);
	}
	n = st_open();
	ASSERT_LE(0, n);
	EXPECT_EQ(0, st_devices_not_free(n));
	close(n);
}

TEST_HARNESS_MAIN
