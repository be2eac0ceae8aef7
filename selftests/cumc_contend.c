// SPDX-License-Identifier: GPL-2.0
/*
 * Contention on shared handles: where cumc_stress gives each thread objects
 * of its own, here every thread of several processes works on the *same*
 * handles of one client (the processes inherit its file), for a bounded
 * time. They race release against use and against release, retain
 * against unmap, map against map and unmap on the same addresses, set
 * access and CPU touches against unmap, export and import against
 * release, add-device, bind and unbind on the same teams, the close of a
 * /dev/cumc file other threads are calling, and the exit of processes
 * killed in the middle of all this.
 *
 * Each call must succeed or fail with an errno its race explains (a
 * handle released by another thread, a range mapped or unmapped by one);
 * the kernel must not report anything (scripts/vm-run fails the run on
 * it, and the KCSAN lane on any data race in cumc's code); and once every
 * file is closed and every process gone, the live-object and usage counts
 * are back to their values before and every device's memory is free.
 *
 * CUMC_CONTEND_SECONDS (default 3) sets the time, CUMC_CONTEND_SEED the
 * seed, to replay or to run longer.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define NSLOTS 6
#define NTEAMS 2
#define NTHREADS 3
/* Processes forked, run for a while and killed, one after another. */
#define VICTIM_MAX_MS 300

enum op {
	OP_CREATE, OP_RELEASE, OP_RELEASE_STALE, OP_MAP, OP_UNMAP,
	OP_SET_ACCESS, OP_TOUCH, OP_RETAIN, OP_SHARE, OP_TEAM_ADD, OP_BIND,
	OP_UNBIND, OP_TEAM_RENEW, OP_CLOSE_IN_USE, NUM_OPS
};

static const char *const op_names[NUM_OPS] = {
	"create", "release", "release a stale handle", "map", "unmap",
	"set access", "CPU touch", "retain", "export+import", "team add-device",
	"bind", "unbind", "team released and renewed",
	"close of a file in use",
};

#define E(e) (1ULL << (e))
/*
 * What another thread's move explains, per operation: ENOENT a handle
 * released meanwhile (or renewed under the same number), EEXIST and ENXIO
 * an address mapped or unmapped meanwhile, EBUSY a team bound meanwhile.
 * Memory and quotas cannot run out: the objects are few and small.
 */
static const unsigned long long allowed[NUM_OPS] = {
	[OP_CREATE] = 0,
	[OP_RELEASE] = E(ENOENT),
	[OP_RELEASE_STALE] = E(ENOENT),
	[OP_MAP] = E(ENOENT) | E(EEXIST),
	[OP_UNMAP] = E(ENXIO),
	[OP_SET_ACCESS] = E(ENXIO),
	[OP_TOUCH] = 0,
	[OP_RETAIN] = E(ENOENT) | E(ENXIO),
	[OP_SHARE] = E(ENOENT),
	[OP_TEAM_ADD] = E(ENOENT) | E(EEXIST) | E(EINVAL),
	[OP_BIND] = E(ENOENT) | E(EEXIST),
	[OP_UNBIND] = E(ENOENT) | E(ENXIO) | E(EINVAL),
	[OP_TEAM_RENEW] = E(ENOENT),
	/* The file may be closed, or its number reused by another file. */
	[OP_CLOSE_IN_USE] = E(EBADF) | E(ENOTTY) | E(ENOENT),
};

/* Shared by every process through a MAP_SHARED mapping. */
struct shared {
	int fd;			/* the client whose handles all share */
	int fd2;		/* a second client, importing */
	__u64 mem[NSLOTS];	/* allocations of gran bytes, 0: none */
	__u64 team[NTEAMS];	/* complete teams of devices 0 and 1 */
	int stop;
	long ops[NUM_OPS];
	long raced[NUM_OPS];	/* failures a race explains */
	long failures;
	char first_failure[160];
};

static struct shared *sh;
static __u64 gran;
/* A client of this process that its threads call while one closes it. */
static int in_use_fd = -1;

struct worker {
	unsigned int seed;
	__u64 va;		/* this process's reservation, NSLOTS granules */
};

static unsigned int rnd(struct worker *w, unsigned int n)
{
	return rand_r(&w->seed) % n;
}

static void fail(enum op op, int ret)
{
	if (__atomic_fetch_add(&sh->failures, 1, __ATOMIC_RELAXED) == 0)
		snprintf(sh->first_failure, sizeof(sh->first_failure),
			 "%s: %s", op_names[op], strerror(-ret));
}

/* Count @op and check its outcome against what a race explains. */
static void outcome(enum op op, int ret)
{
	__atomic_fetch_add(&sh->ops[op], 1, __ATOMIC_RELAXED);
	if (!ret)
		return;
	if (-ret >= 64 || !(allowed[op] & E(-ret)))
		fail(op, ret);
	else
		__atomic_fetch_add(&sh->raced[op], 1, __ATOMIC_RELAXED);
}

static __u64 slot_load(__u64 *slot)
{
	return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* The device of slot @i's allocation: 0 or 1, the teams' members. */
static __u32 slot_device(unsigned int i)
{
	return i % 2;
}

static void op_create(struct worker *w)
{
	unsigned int i = rnd(w, NSLOTS);
	__u64 h, none = 0;
	int ret;

	if (slot_load(&sh->mem[i]))
		return;
	ret = st_mem_create(sh->fd, slot_device(i), CUMC_HANDLE_FD,
			    gran, &h);
	outcome(OP_CREATE, ret);
	if (!ret && !__atomic_compare_exchange_n(&sh->mem[i], &none, h, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
		outcome(OP_RELEASE, st_release(sh->fd, h));
}

static void op_release(struct worker *w)
{
	__u64 h = __atomic_exchange_n(&sh->mem[rnd(w, NSLOTS)], 0,
				      __ATOMIC_ACQ_REL);

	if (h)
		outcome(OP_RELEASE, st_release(sh->fd, h));
}

/* A release through a handle another thread may be releasing too. */
static void op_release_stale(struct worker *w)
{
	__u64 h = slot_load(&sh->mem[rnd(w, NSLOTS)]);

	if (h)
		outcome(OP_RELEASE_STALE, st_release(sh->fd, h));
}

static __u64 slot_addr(struct worker *w, unsigned int i)
{
	return w->va + i * gran;
}

static void op_map(struct worker *w)
{
	unsigned int i = rnd(w, NSLOTS);
	__u64 h = slot_load(&sh->mem[i]);

	if (h)
		outcome(OP_MAP, st_map(sh->fd, slot_addr(w, i), gran, h));
}

static void op_unmap(struct worker *w)
{
	outcome(OP_UNMAP, st_unmap(sh->fd, slot_addr(w, rnd(w, NSLOTS)), gran));
}

static void op_set_access(struct worker *w)
{
	static const __u32 access[] = {
		CUMC_ACCESS_NONE, CUMC_ACCESS_READ, CUMC_ACCESS_READWRITE,
	};

	outcome(OP_SET_ACCESS, st_grant(sh->fd, slot_addr(w, rnd(w, NSLOTS)),
					gran, rnd(w, 2), access[rnd(w, 3)]));
}

/* A touch that another thread's unmap or downgrade may make fault. */
static __thread sigjmp_buf touch_env;
static __thread volatile sig_atomic_t touch_armed;

static void touch_fault(int sig)
{
	if (!touch_armed) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	touch_armed = 0;
	siglongjmp(touch_env, 1);
}

static void op_touch(struct worker *w)
{
	volatile __u64 *p = (volatile __u64 *)(uintptr_t)
		slot_addr(w, rnd(w, NSLOTS));

	if (!sigsetjmp(touch_env, 1)) {
		touch_armed = 1;
		*p = *p + 1;
		touch_armed = 0;
	}
	outcome(OP_TOUCH, 0);
}

static void op_retain(struct worker *w)
{
	struct cumc_va_query q;
	int ret;

	ret = st_va_query(sh->fd, slot_addr(w, rnd(w, NSLOTS)), 0,
			  CUMC_VA_QUERY_RETAIN, &q);
	outcome(OP_RETAIN, ret);
	if (!ret)
		outcome(OP_RELEASE_STALE, st_release(sh->fd, q.out_handle));
}

static void op_share(struct worker *w)
{
	__u64 h = slot_load(&sh->mem[rnd(w, NSLOTS)]), imported;
	int importer = rnd(w, 2) ? sh->fd : sh->fd2;
	int efd, ret;

	if (!h)
		return;
	ret = st_export_fd(sh->fd, h, &efd);
	outcome(OP_SHARE, ret);
	if (ret)
		return;
	ret = st_import_fd(importer, efd, &imported);
	outcome(OP_SHARE, ret);
	close(efd);
	if (!ret)
		outcome(OP_RELEASE_STALE, st_release(importer, imported));
}

static void op_team_add(struct worker *w)
{
	__u64 m = slot_load(&sh->team[rnd(w, NTEAMS)]);

	if (m)
		outcome(OP_TEAM_ADD, st_mc_add(sh->fd, m, rnd(w, 2)));
}

static void op_bind(struct worker *w)
{
	unsigned int i = rnd(w, NSLOTS);
	__u64 m = slot_load(&sh->team[rnd(w, NTEAMS)]);
	__u64 h = slot_load(&sh->mem[i]);

	if (m && h)
		outcome(OP_BIND, st_mc_bind_mem(sh->fd, m, slot_device(i), 0,
						h, 0, gran));
}

static void op_unbind(struct worker *w)
{
	__u64 m = slot_load(&sh->team[rnd(w, NTEAMS)]);

	if (m)
		outcome(OP_UNBIND, st_mc_unbind(sh->fd, m, rnd(w, 2), 0, gran));
}

/* Only complete teams are published: a bind to one never waits. */
static void op_team_renew(struct worker *w)
{
	unsigned int j = rnd(w, NTEAMS);
	__u64 old = __atomic_exchange_n(&sh->team[j], 0, __ATOMIC_ACQ_REL);
	__u64 m = 0, none = 0;
	int ret;

	if (old)
		outcome(OP_TEAM_RENEW, st_release(sh->fd, old));
	ret = st_mc_team(sh->fd, 2, CUMC_HANDLE_FD, gran, &m);
	if (ret && m)
		st_release(sh->fd, m);
	outcome(OP_TEAM_RENEW, ret);
	if (!ret && !__atomic_compare_exchange_n(&sh->team[j], &none, m, false,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
		outcome(OP_TEAM_RENEW, st_release(sh->fd, m));
}

/*
 * One thread opens a client and closes it while others call it: an
 * ioctl may find it open, closed, or its number taken by another file.
 */
static void op_close_in_use(struct worker *w)
{
	int fd = __atomic_load_n(&in_use_fd, __ATOMIC_ACQUIRE), none = -1;
	__u64 h;
	int ret;

	if (fd < 0 || !rnd(w, 4)) {
		if (fd >= 0 && __atomic_compare_exchange_n(&in_use_fd, &fd, -1,
							   false,
							   __ATOMIC_ACQ_REL,
							   __ATOMIC_ACQUIRE))
			close(fd);
		fd = st_open();
		if (fd >= 0 && !__atomic_compare_exchange_n(&in_use_fd, &none,
							    fd, false,
							    __ATOMIC_ACQ_REL,
							    __ATOMIC_ACQUIRE))
			close(fd);
		return;
	}
	ret = st_mem_create(fd, 0, 0, gran, &h);
	outcome(OP_CLOSE_IN_USE, ret);
	if (!ret)
		outcome(OP_CLOSE_IN_USE, st_release(fd, h));
}

static void *worker_main(void *arg)
{
	static void (*const ops[NUM_OPS])(struct worker *) = {
		op_create, op_release, op_release_stale, op_map, op_unmap,
		op_set_access, op_touch, op_retain, op_share, op_team_add,
		op_bind, op_unbind, op_team_renew, op_close_in_use,
	};
	struct worker *w = arg;

	while (!__atomic_load_n(&sh->stop, __ATOMIC_RELAXED))
		ops[rnd(w, NUM_OPS)](w);
	return NULL;
}

/* Threads of one process on one reservation until told to stop. */
static int process_main(unsigned int seed)
{
	struct worker w[NTHREADS];
	pthread_t t[NTHREADS];
	__u64 va;
	int i;

	if (st_va_reserve(sh->fd, NSLOTS * gran, 0, 0, &va))
		return 1;
	for (i = 0; i < NTHREADS; i++) {
		w[i].seed = seed * 131 + i;
		w[i].va = va;
		if (pthread_create(&t[i], NULL, worker_main, &w[i]))
			return 1;
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	/* Other processes may map here no more: take it all down. */
	for (i = 0; i < NSLOTS; i++)
		st_unmap(sh->fd, va + i * gran, gran);
	return st_va_free(sh->fd, va, NSLOTS * gran) ? 1 : 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static bool time_left(const struct timespec *end)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec < end->tv_sec ||
	       (now.tv_sec == end->tv_sec && now.tv_nsec < end->tv_nsec);
}

/*
 * Processes that share the client and die by SIGKILL at a random moment,
 * one after another, until the time is over; returns how many.
 */
static long kill_processes(unsigned int seed, const struct timespec *end)
{
	long killed = 0;
	pid_t pid;

	while (time_left(end)) {
		pid = fork();
		if (pid < 0)
			break;
		if (pid == 0)
			_exit(process_main(seed + killed));
		sleep_ms(1 + rand_r(&seed) % VICTIM_MAX_MS);
		kill(pid, SIGKILL);
		if (st_wait_exit(pid) != 128 + SIGKILL &&
		    __atomic_fetch_add(&sh->failures, 1, __ATOMIC_RELAXED) == 0)
			snprintf(sh->first_failure, sizeof(sh->first_failure),
				 "a killed process ended otherwise");
		killed++;
	}
	return killed;
}

FIXTURE(contend) {
	int fd;
	__u32 num_devices;
	struct st_objects base;
};

FIXTURE_SETUP(contend)
{
	struct cumc_device_info info;

	ST_SETUP_CLIENT(&info);
	gran = info.granularity;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	sh->fd = self->fd;
	sh->fd2 = st_open();
	ASSERT_LE(0, sh->fd2);
}

FIXTURE_TEARDOWN(contend)
{
	munmap(sh, sizeof(*sh));
}

TEST_F(contend, shared_handles_threads_processes)
{
	unsigned int seed = st_env_long("CUMC_CONTEND_SEED", 20261127);
	long seconds = st_env_long("CUMC_CONTEND_SECONDS", 3), killed;
	struct sigaction sa = { .sa_handler = touch_fault };
	struct st_objects now;
	struct timespec end;
	long total = 0;
	pid_t pids[2];
	int fd, i;

	ASSERT_LE(2, self->num_devices) TH_LOG("teams need two devices");
	ASSERT_EQ(0, sigaction(SIGSEGV, &sa, NULL));
	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	TH_LOG("seed %u, %ld s, %d threads a process", seed, seconds, NTHREADS);

	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (pids[i] == 0)
			_exit(process_main(seed + 1000 * (i + 1)));
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	killed = kill_processes(seed, &end);
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		EXPECT_EQ(0, st_wait_exit(pids[i])) TH_LOG("process %d", i);

	for (i = 0; i < NUM_OPS; i++) {
		TH_LOG("%-28s %7ld, %7ld of them failed as a race explains",
		       op_names[i], sh->ops[i], sh->raced[i]);
		total += sh->ops[i];
	}
	TH_LOG("%-28s %7ld, %ld processes killed", "total", total, killed);
	EXPECT_EQ(0, sh->failures) TH_LOG("%ld failures, first: %s",
					  sh->failures, sh->first_failure);

	/* Release what is left; every file closes, and all is back. */
	for (i = 0; i < NSLOTS; i++)
		if (sh->mem[i])
			st_release(sh->fd, sh->mem[i]);
	for (i = 0; i < NTEAMS; i++)
		if (sh->team[i])
			st_release(sh->fd, sh->team[i]);
	close(sh->fd2);
	close(self->fd);
	EXPECT_EQ(0, st_objects_settle(&self->base, &now, 2000)) {
		st_objects_diff(&self->base, &now);
	}
	fd = st_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, st_devices_not_free(fd));
	close(fd);
}

TEST_HARNESS_MAIN
