// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: processes and threads on every device at once, each running a
 * seeded random sequence of valid operations (create, map, set access, CPU
 * touches, export and import, multicast teams formed across processes,
 * binds, unbinds, unmaps, releases, clients closed with objects alive),
 * bounded by a number of operations so that it takes seconds in the
 * emulated VM. Afterwards every live-object count is back to its value
 * before, and every device's memory is free again.
 *
 * CUMC_STRESS_SEED and CUMC_STRESS_OPS (per thread) override the defaults,
 * to replay a failure or run longer.
 */
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define NPROCS 4
#define NTHREADS 3
#define DEFAULT_OPS 200
#define MAX_MEMS 6
#define MAX_VAS 4

enum op_kind {
	OP_CREATE, OP_RELEASE, OP_MAP, OP_UNMAP, OP_SHARE, OP_QUERY,
	OP_MC_LOCAL, OP_MC_TEAM, OP_REOPEN, NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"create", "release", "map+access+touch", "unmap+free",
	"export+import", "va_query+retain", "mc create/add/bind/unbind",
	"mc team across processes", "client closed with objects",
};

/* Shared by every process: what was done, and what went wrong. */
struct tally {
	long ops[NUM_OPS];
	long enospc;
	long failures;
	char first_failure[160];
};

static struct tally *tally;
static __u64 gran;
static __u32 ndev;

struct mem {
	int fd;
	__u64 handle;
	__u32 device;
	bool shareable;
};

struct va {
	int fd;
	__u64 addr;
	__u64 length;
};

struct worker {
	int shared_fd;	/* the process's client, used by all its threads */
	int own_fd;	/* this thread's own client */
	unsigned int seed;
	long ops;
	struct mem mems[MAX_MEMS];
	int nmems;
	struct va vas[MAX_VAS];
	int nvas;
};

static void count(enum op_kind kind)
{
	__atomic_fetch_add(&tally->ops[kind], 1, __ATOMIC_RELAXED);
}

/* Record an unexpected result; the test fails at the end. */
#define FAIL(fmt, ...) do {						\
	if (__atomic_fetch_add(&tally->failures, 1, __ATOMIC_RELAXED) == 0) \
		snprintf(tally->first_failure,				\
			 sizeof(tally->first_failure),			\
			 "%s:%d: " fmt, __func__, __LINE__, ##__VA_ARGS__); \
} while (0)

#define CHECK0(expr) do {						\
	int __r = (expr);						\
									\
	if (__r)							\
		FAIL("%s: %s", #expr, strerror(-__r));			\
} while (0)

static unsigned int rnd(struct worker *w, unsigned int n)
{
	return rand_r(&w->seed) % n;
}

static int pick_fd(struct worker *w)
{
	return rnd(w, 2) ? w->shared_fd : w->own_fd;
}

/* Reserve, map, grant @device read-write: the address, or 0. */
static __u64 map_rw(int fd, __u64 h, __u64 length, __u32 device)
{
	__u64 addr;
	int ret;

	ret = st_map_new(fd, h, length, device, CUMC_ACCESS_READWRITE, &addr);
	if (ret) {
		FAIL("map_new of %llu: %s", (unsigned long long)length,
		     strerror(-ret));
		return 0;
	}
	return addr;
}

/* Write a word per page of the first pages and read them back. */
static void touch(__u64 addr, __u64 length, unsigned int salt)
{
	volatile __u64 *p = (volatile __u64 *)(uintptr_t)addr;
	__u64 off, step = length / 4;

	for (off = 0; off < length; off += step)
		p[off / 8] = off ^ salt;
	for (off = 0; off < length; off += step) {
		if (p[off / 8] != (off ^ salt)) {
			FAIL("read back at +%llu", (unsigned long long)off);
			return;
		}
	}
}

static void op_create(struct worker *w)
{
	struct mem *m;
	int ret;

	if (w->nmems == MAX_MEMS)
		return;
	m = &w->mems[w->nmems];
	m->fd = pick_fd(w);
	m->device = rnd(w, ndev);
	m->shareable = rnd(w, 2);
	ret = st_mem_create(m->fd, m->device,
			    m->shareable ? CUMC_HANDLE_FD : 0,
			    gran * (1 + rnd(w, 2)), &m->handle);
	if (ret == -ENOSPC) {
		__atomic_fetch_add(&tally->enospc, 1, __ATOMIC_RELAXED);
		return;
	}
	CHECK0(ret);
	if (!ret)
		w->nmems++;
	count(OP_CREATE);
}

static void forget_mem(struct worker *w, int i)
{
	w->mems[i] = w->mems[--w->nmems];
}

static void op_release(struct worker *w)
{
	int i;

	if (!w->nmems)
		return;
	i = rnd(w, w->nmems);
	CHECK0(st_release(w->mems[i].fd, w->mems[i].handle));
	forget_mem(w, i);
	count(OP_RELEASE);
}

static void op_map(struct worker *w)
{
	struct cumc_mem_info info;
	struct mem *m;
	struct va *v;

	if (!w->nmems || w->nvas == MAX_VAS)
		return;
	m = &w->mems[rnd(w, w->nmems)];
	if (st_mem_info(m->fd, m->handle, &info)) {
		FAIL("mem_info");
		return;
	}
	v = &w->vas[w->nvas];
	v->fd = m->fd;
	v->length = info.out_length;
	v->addr = map_rw(m->fd, m->handle, v->length, m->device);
	if (!v->addr)
		return;
	touch(v->addr, v->length, w->seed);
	/* The mapping holds the memory: the handle may go first. */
	if (rnd(w, 3) == 0) {
		CHECK0(st_release(m->fd, m->handle));
		forget_mem(w, m - w->mems);
	}
	w->nvas++;
	count(OP_MAP);
}

static void op_unmap(struct worker *w)
{
	int i;

	if (!w->nvas)
		return;
	i = rnd(w, w->nvas);
	touch(w->vas[i].addr, w->vas[i].length, i);
	CHECK0(st_unmap_free(w->vas[i].fd, w->vas[i].addr, w->vas[i].length));
	w->vas[i] = w->vas[--w->nvas];
	count(OP_UNMAP);
}

/* Export to a descriptor and import into the other client. */
static void op_share(struct worker *w)
{
	struct mem *m;
	__u64 h;
	int efd;

	if (!w->nmems || w->nmems == MAX_MEMS)
		return;
	m = &w->mems[rnd(w, w->nmems)];
	if (!m->shareable)
		return;
	if (st_export_fd(m->fd, m->handle, &efd)) {
		FAIL("export_fd");
		return;
	}
	w->mems[w->nmems] = *m;
	w->mems[w->nmems].fd = m->fd == w->own_fd ? w->shared_fd : w->own_fd;
	if (st_import_fd(w->mems[w->nmems].fd, efd, &h))
		FAIL("import_fd");
	else
		w->mems[w->nmems++].handle = h;
	close(efd);
	count(OP_SHARE);
}

static void op_query(struct worker *w)
{
	struct cumc_va_query q;
	struct va *v;

	if (!w->nvas)
		return;
	v = &w->vas[rnd(w, w->nvas)];
	if (st_va_query(v->fd, v->addr + rnd(w, v->length), 0,
			CUMC_VA_QUERY_RETAIN, &q)) {
		FAIL("va_query");
		return;
	}
	if (q.out_map_addr != v->addr || q.out_map_length != v->length)
		FAIL("va_query: mapping %llx+%llx",
		     (unsigned long long)q.out_map_addr,
		     (unsigned long long)q.out_map_length);
	CHECK0(st_release(v->fd, q.out_handle));
	count(OP_QUERY);
}

/*
 * A team of distinct devices in one process, each member's memory bound by
 * handle or by address, some bindings undone, the rest left to the release.
 */
static void op_mc_local(struct worker *w)
{
	__u32 n = 1 + rnd(w, ndev < 3 ? ndev : 3), first = rnd(w, ndev), i;
	__u32 types = rnd(w, 2) ? CUMC_HANDLE_FD : 0;
	__u64 h, mem[3] = { 0 }, va[3] = { 0 };
	int fd = pick_fd(w);

	if (st_mc_create(fd, n, types, gran, &h)) {
		FAIL("mc_create");
		return;
	}
	for (i = 0; i < n; i++)
		CHECK0(st_mc_add(fd, h, (first + i) % ndev));
	for (i = 0; i < n; i++) {
		__u32 dev = (first + i) % ndev;
		int ret = st_mem_create(fd, dev, types, gran, &mem[i]);

		if (ret == -ENOSPC)
			continue;
		CHECK0(ret);
		if (ret)
			continue;
		if (rnd(w, 2)) {
			CHECK0(st_mc_bind_mem(fd, h, dev, 0, mem[i], 0, gran));
		} else {
			va[i] = map_rw(fd, mem[i], gran, dev);
			if (va[i])
				CHECK0(st_mc_bind_addr(fd, h, dev, 0, va[i],
						       gran));
		}
		if (rnd(w, 2))
			CHECK0(st_mc_unbind(fd, h, dev, 0, gran));
	}
	for (i = 0; i < n; i++) {
		if (va[i])
			CHECK0(st_unmap_free(fd, va[i], gran));
		if (mem[i])
			CHECK0(st_release(fd, mem[i]));
	}
	CHECK0(st_release(fd, h));
	count(OP_MC_LOCAL);
}

/*
 * A team of two processes: a child imports the object, joins with its
 * device and binds, while this thread binds before or after the team is
 * complete. The child exits with its binding in place, or not.
 */
static void op_mc_team(struct worker *w)
{
	__u32 a = rnd(w, ndev), b = (a + 1 + rnd(w, ndev - 1)) % ndev;
	bool child_unbinds = rnd(w, 2), add_first = rnd(w, 2);
	int fd = pick_fd(w), efd, status;
	__u64 h, mem;
	pid_t pid;

	if (st_mc_create(fd, 2, CUMC_HANDLE_FD, gran, &h)) {
		FAIL("mc_create");
		return;
	}
	if (st_export_fd(fd, h, &efd)) {
		FAIL("export_fd");
		st_release(fd, h);
		return;
	}
	if (add_first)
		CHECK0(st_mc_add(fd, h, a));
	pid = fork();
	if (pid == 0) {
		/* Only system calls here: the parent has other threads. */
		int cfd = st_open();
		__u64 ch, cmem;

		if (cfd < 0 || st_import_fd(cfd, efd, &ch) ||
		    st_mc_add(cfd, ch, b) ||
		    st_mem_create(cfd, b, CUMC_HANDLE_FD, gran, &cmem) ||
		    st_mc_bind_mem(cfd, ch, b, 0, cmem, 0, gran))
			_exit(1);
		if (child_unbinds && st_mc_unbind(cfd, ch, b, 0, gran))
			_exit(2);
		_exit(0);
	}
	close(efd);
	if (pid < 0) {
		FAIL("fork");
		st_release(fd, h);
		return;
	}
	if (!add_first && st_mc_add(fd, h, a)) {
		/* The child would wait for the team for ever. */
		FAIL("mc_add");
		kill(pid, SIGKILL);
	} else if (!st_mem_create(fd, a, CUMC_HANDLE_FD, gran, &mem)) {
		CHECK0(st_mc_bind_mem(fd, h, a, 0, mem, 0, gran));
		CHECK0(st_release(fd, mem));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		FAIL("team member: status %#x", status);
	CHECK0(st_release(fd, h));
	count(OP_MC_TEAM);
}

/* Close the thread's own client with whatever it holds, and open anew. */
static void op_reopen(struct worker *w)
{
	int i;

	for (i = w->nmems - 1; i >= 0; i--)
		if (w->mems[i].fd == w->own_fd)
			forget_mem(w, i);
	for (i = w->nvas - 1; i >= 0; i--) {
		if (w->vas[i].fd != w->own_fd)
			continue;
		/* Reservations outlive the file in the address space. */
		munmap((void *)(uintptr_t)w->vas[i].addr, w->vas[i].length);
		w->vas[i] = w->vas[--w->nvas];
	}
	close(w->own_fd);
	w->own_fd = st_open();
	if (w->own_fd < 0)
		FAIL("open: %s", strerror(errno));
	count(OP_REOPEN);
}

static void *worker_main(void *arg)
{
	static void (*const ops[NUM_OPS])(struct worker *) = {
		op_create, op_release, op_map, op_unmap, op_share, op_query,
		op_mc_local, op_mc_team, op_reopen,
	};
	/* Out of 100: creating and mapping dominate, teams are costly. */
	static const int weight[NUM_OPS] = { 22, 14, 18, 12, 10, 8, 8, 4, 4 };
	struct worker *w = arg;
	long i;

	w->own_fd = st_open();
	if (w->own_fd < 0) {
		FAIL("open: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < w->ops && w->own_fd >= 0; i++) {
		int r = rnd(w, 100), k = 0;

		while (r >= weight[k])
			r -= weight[k++];
		ops[k](w);
	}
	/* Leave half of it to the close, undo the rest explicitly. */
	if (rnd(w, 2)) {
		while (w->nvas)
			op_unmap(w);
		while (w->nmems)
			op_release(w);
	}
	return NULL;
}

static int process_main(unsigned int seed, long ops)
{
	struct worker w[NTHREADS] = { 0 };
	pthread_t t[NTHREADS];
	int i, shared_fd = st_open();

	if (shared_fd < 0)
		return 1;
	for (i = 0; i < NTHREADS; i++) {
		w[i].shared_fd = shared_fd;
		w[i].seed = seed * 131 + i;
		w[i].ops = ops;
		if (pthread_create(&t[i], NULL, worker_main, &w[i]))
			return 1;
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}

TEST(all_devices_processes_threads)
{
	unsigned int seed = st_env_long("CUMC_STRESS_SEED", 20261122);
	long ops = st_env_long("CUMC_STRESS_OPS", DEFAULT_OPS), total = 0;
	struct st_objects base, now;
	struct cumc_device_info info;
	pid_t pids[NPROCS];
	int fd, i, status;

	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, st_device_info(fd, 0, &info));
	gran = info.granularity;
	ndev = st_num_devices(fd);
	ASSERT_LE(2, ndev) TH_LOG("teams need two devices");
	ASSERT_EQ(0, st_objects_read(&base)) TH_LOG("no debugfs counts");
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, tally);

	TH_LOG("seed %u, %d processes x %d threads x %ld operations, %u devices",
	       seed, NPROCS, NTHREADS, ops, ndev);
	for (i = 0; i < NPROCS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0) {
			close(fd);
			_exit(process_main(seed + i, ops));
		}
	}
	for (i = 0; i < NPROCS; i++) {
		EXPECT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("process %d: status %#x", i, status);
	}

	for (i = 0; i < NUM_OPS; i++) {
		TH_LOG("%-28s %6ld", op_names[i], tally->ops[i]);
		total += tally->ops[i];
	}
	TH_LOG("%-28s %6ld (+%ld ENOSPC)", "total", total, tally->enospc);
	EXPECT_EQ(0, tally->failures) TH_LOG("%ld failures, first: %s",
					    tally->failures,
					    tally->first_failure);
	EXPECT_EQ(0, st_objects_settle(&base, &now, 2000)) {
		st_objects_diff(&base, &now);
	}
	EXPECT_EQ(0, st_devices_not_free(fd));
	close(fd);
}

TEST_HARNESS_MAIN
