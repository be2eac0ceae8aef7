// SPDX-License-Identifier: GPL-2.0
/*
 * The module's bookkeeping is charged to the caller's memory cgroup.
 *
 * A forked child moves into a cgroup of its own (cgroup2, mounted here if
 * it is not yet) and creates allocations, maps them and binds them into a
 * multicast object, stopping itself after each phase so that this process
 * can read the cgroup's memory.current:
 *  - without a limit, each phase makes it grow and releasing everything
 *    brings it back down;
 *  - with memory.max just above what the child has, the calls fail with
 *    ENOMEM, each failed call leaves nothing behind, the cgroup's OOM killer
 *    is never invoked, and everything is freed when the child releases.
 * Nothing is touched: backing pages are not part of this.
 *
 * memory.current counts pages the per-CPU charge caches hold (64 pages a
 * CPU), so every bound below leaves that much room.
 */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
/* Of each kind: enough that the growth stands far above the caches. */
#define N 16384
#define CACHE_SLACK (2 * 64 * 4096LL)
#define TIGHT_ROOM (1LL << 20)

enum step { STEP_MEM, STEP_MAP, STEP_BIND, STEP_NR };

/* What the child reports; in a page both processes share. */
struct report {
	int done[STEP_NR];	/* calls of each step that succeeded */
	int failed_step;	/* STEP_NR when none failed */
	int failed_errno;
	int setup_errno;
	__u64 handles[N];
};

/* The value of "key N" in a flat-keyed file, or of a one-number file. */
static long long read_key(const char *path, const char *key)
{
	long long value = -1, v;
	char name[64];
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!key) {
		if (fscanf(f, "%lld", &value) != 1)
			value = -1;
	} else {
		while (fscanf(f, "%63s %lld", name, &v) == 2)
			if (!strcmp(name, key))
				value = v;
	}
	fclose(f);
	return value;
}

static bool cgroup2_mounted(void)
{
	char dev[256], dir[256], type[64];
	bool found = false;
	FILE *f;

	f = fopen("/proc/self/mounts", "r");
	if (!f)
		return false;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2") && !strcmp(dir, CGROUP_ROOT))
			found = true;
	fclose(f);
	return found;
}

static bool kmem_accounting_off(void)
{
	char cmdline[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (!f)
		return false;
	if (!fgets(cmdline, sizeof(cmdline), f))
		cmdline[0] = 0;
	fclose(f);
	return strstr(cmdline, "cgroup.memory=nokmem");
}

/* One call of @step for object @i; 0 or -errno. */
static int child_call(int fd, enum step step, int i, __u64 g, __u64 va,
		      __u64 mc, struct report *r)
{
	switch (step) {
	case STEP_MEM:
		return st_mem_create(fd, 0, 0, g, &r->handles[i]);
	case STEP_MAP:
		return st_map(fd, va + i * g, g, r->handles[i]);
	default:
		return st_mc_bind_mem(fd, mc, 0, i * g, r->handles[i], 0, g);
	}
}

/* child_call(), counted in @r; -1 at the first failure, and after it. */
static int child_step(int fd, enum step step, int i, __u64 g, __u64 va,
		      __u64 mc, struct report *r)
{
	int ret;

	if (r->failed_step != STEP_NR)
		return -1;
	ret = child_call(fd, step, i, g, va, mc, r);
	if (ret) {
		r->failed_step = step;
		r->failed_errno = -ret;
		return -1;
	}
	r->done[step]++;
	return 0;
}

/*
 * The child: into @procs, then the steps, stopping for the parent after
 * setup; then @phased, N of each step in turn, stopping after each; else
 * one of each step for each object until a call fails, stopping then; and
 * again after releasing everything. It allocates no memory of its own on
 * the way.
 */
static void child(const char *procs, struct report *r, bool phased, __u64 g)
{
	__u64 va = 0, mc = 0;
	int fd, i, s;

	memset(r, 0, sizeof(*r));	/* every page faulted in before moving */
	r->failed_step = STEP_NR;
	if (st_write_file(procs, "0"))
		_exit(2);
	fd = st_open();
	if (fd < 0)
		_exit(3);
	r->setup_errno = -st_va_reserve(fd, N * g, 0, 0, &va);
	if (!r->setup_errno)
		r->setup_errno = -st_mc_team(fd, 1, 0, N * g, &mc);
	raise(SIGSTOP);
	if (r->setup_errno)
		_exit(4);

	if (phased) {
		for (s = 0; s < STEP_NR; s++) {
			for (i = 0; i < N && !child_step(fd, s, i, g, va, mc, r); i++)
				;
			raise(SIGSTOP);
		}
	} else {
		for (i = 0; i < N && r->failed_step == STEP_NR; i++)
			for (s = 0; s < STEP_NR; s++)
				if (child_step(fd, s, i, g, va, mc, r))
					break;
		raise(SIGSTOP);
	}

	for (i = 0; i < r->done[STEP_BIND]; i++)
		if (st_mc_unbind(fd, mc, 0, i * g, g))
			_exit(5);
	if (r->done[STEP_MAP] && st_unmap(fd, va, r->done[STEP_MAP] * g))
		_exit(6);
	for (i = 0; i < r->done[STEP_MEM]; i++)
		if (st_release(fd, r->handles[i]))
			_exit(7);
	raise(SIGSTOP);
	_exit(0);
}

FIXTURE(memcg) {
	/* Why the tests cannot run here; NULL when they can. */
	const char *skip;
	char cgroup[128];
	char file[256];
	pid_t pid;
	struct report *r;
	__u64 gran;
	struct st_objects base;
};

static const char *cg_file(FIXTURE_DATA(memcg) *self, const char *name)
{
	snprintf(self->file, sizeof(self->file), "%s/%s", self->cgroup, name);
	return self->file;
}

FIXTURE_SETUP(memcg)
{
	struct cumc_device_info info;
	int fd;

	/* The harness runs the test even when its setup skips: say why. */
	self->pid = 0;
	self->cgroup[0] = 0;
	self->skip = NULL;
	if (kmem_accounting_off())
		self->skip = "booted with cgroup.memory=nokmem";
	else if (!cgroup2_mounted() &&
		 mount("none", CGROUP_ROOT, "cgroup2", 0, NULL))
		self->skip = "cannot mount cgroup2";
	else if (st_write_file(CGROUP_ROOT "/cgroup.subtree_control", "+memory"))
		self->skip = "no memory controller";
	if (self->skip)
		return;
	snprintf(self->cgroup, sizeof(self->cgroup), CGROUP_ROOT "/cumc-memcg-%d",
		 getpid());
	ASSERT_EQ(0, mkdir(self->cgroup, 0755));

	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, st_device_info(fd, 0, &info));
	close(fd);
	self->gran = info.granularity;
	ASSERT_LE(N * self->gran, info.mem_free)
		TH_LOG("device 0 is too small for %d allocations", N);
	ASSERT_EQ(0, st_objects_read(&self->base));
	self->r = mmap(NULL, sizeof(*self->r), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->r);
}

FIXTURE_TEARDOWN(memcg)
{
	struct st_objects now;

	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	if (self->cgroup[0])
		EXPECT_EQ(0, rmdir(self->cgroup));
	if (!self->cgroup[0])
		return;
	EXPECT_EQ(0, st_objects_settle(&self->base, &now, 2000));
	st_objects_diff(&self->base, &now);
}

static void start_child(FIXTURE_DATA(memcg) *self, bool phased)
{
	const char *procs = cg_file(self, "cgroup.procs");

	self->pid = fork();
	if (!self->pid)
		child(procs, self->r, phased, self->gran);
}

/* Wait for the child to stop; true if it did (rather than exit). */
static bool child_stopped(FIXTURE_DATA(memcg) *self)
{
	int status;

	if (waitpid(self->pid, &status, WUNTRACED) != self->pid)
		return false;
	return WIFSTOPPED(status);
}

static bool child_exited_ok(FIXTURE_DATA(memcg) *self)
{
	int status;
	pid_t pid = self->pid;

	kill(pid, SIGCONT);
	self->pid = 0;
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

static long long current(FIXTURE_DATA(memcg) *self)
{
	return read_key(cg_file(self, "memory.current"), NULL);
}

TEST_F(memcg, charged_and_returned)
{
	/* Bytes each object at least costs: a fraction of its struct. */
	static const long long at_least[STEP_NR] = { 64, 32, 16 };
	static const char *const names[STEP_NR] = { "mems", "maps", "binds" };
	long long before, after, start, peak;
	int s;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	start_child(self, true);
	ASSERT_TRUE(child_stopped(self));
	ASSERT_EQ(0, self->r->setup_errno);
	start = before = current(self);
	ASSERT_LT(0, before);
	for (s = 0; s < STEP_NR; s++) {
		kill(self->pid, SIGCONT);
		ASSERT_TRUE(child_stopped(self));
		ASSERT_EQ(STEP_NR, self->r->failed_step)
			TH_LOG("step %d failed: %s", self->r->failed_step,
			       strerror(self->r->failed_errno));
		after = current(self);
		TH_LOG("%d %s: memory.current +%lld bytes", N, names[s],
		       after - before);
		EXPECT_LE(N * at_least[s], after - before);
		before = after;
	}
	peak = after;
	kill(self->pid, SIGCONT);
	ASSERT_TRUE(child_stopped(self));
	after = current(self);
	TH_LOG("released: memory.current %lld, %lld above the start",
	       after, after - start);
	EXPECT_GT((peak - start) / 4 + CACHE_SLACK, after - start);
	EXPECT_TRUE(child_exited_ok(self));
}

TEST_F(memcg, limit_gives_enomem)
{
	struct st_objects now, want;
	long long limit, peak;
	char buf[32];

	if (self->skip)
		SKIP(return, "%s", self->skip);
	start_child(self, false);
	ASSERT_TRUE(child_stopped(self));
	ASSERT_EQ(0, self->r->setup_errno);
	limit = current(self) + TIGHT_ROOM;
	snprintf(buf, sizeof(buf), "%lld", limit);
	ASSERT_EQ(0, st_write_file(cg_file(self, "memory.max"), buf));

	kill(self->pid, SIGCONT);
	ASSERT_TRUE(child_stopped(self));
	TH_LOG("%d mems, %d maps, %d binds, then step %d: %s",
	       self->r->done[STEP_MEM], self->r->done[STEP_MAP],
	       self->r->done[STEP_BIND], self->r->failed_step,
	       strerror(self->r->failed_errno));
	ASSERT_NE(STEP_NR, self->r->failed_step)
		TH_LOG("%d of each fit in %lld bytes", N, TIGHT_ROOM);
	EXPECT_EQ(ENOMEM, self->r->failed_errno);
	peak = current(self);
	TH_LOG("memory.max %lld, memory.current %lld", limit, peak);

	/* The failed call left nothing: the counts are the successes'. */
	want = self->base;
	want.clients++;
	want.mems += self->r->done[STEP_MEM];
	want.vas++;
	want.mappings += self->r->done[STEP_MAP];
	want.mcs++;
	want.binds += self->r->done[STEP_BIND];
	want.usages++;
	ASSERT_EQ(0, st_objects_read(&now));
	EXPECT_EQ(0, st_objects_diff(&want, &now));

	EXPECT_LT(0, read_key(cg_file(self, "memory.events"), "max"));
	EXPECT_EQ(0, read_key(cg_file(self, "memory.events"), "oom"));
	EXPECT_EQ(0, read_key(cg_file(self, "memory.events"), "oom_kill"));

	kill(self->pid, SIGCONT);
	ASSERT_TRUE(child_stopped(self));
	EXPECT_GT(peak, current(self));
	EXPECT_TRUE(child_exited_ok(self));
	EXPECT_EQ(0, read_key(cg_file(self, "memory.events"), "oom_kill"));
}

TEST_HARNESS_MAIN
