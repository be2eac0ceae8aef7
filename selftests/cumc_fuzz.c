// SPDX-License-Identifier: GPL-2.0
/*
 * A structure-aware fuzzer of the /dev/cumc ioctls. Each call starts from a
 * valid-looking struct for a random command, built from pools of what this
 * process has (handles of its own, stale ones, another client's, garbage;
 * reservation addresses, inside, unaligned and outside them), then mutates
 * it: the size (short, long with a zero or non-zero tail, huge), flags and
 * reserved members, integers near overflow, user pointers (NULL, kernel
 * addresses, a page that is not mapped, a device mapping). Seeded
 * (CUMC_FUZZ_SEED) and bounded by a number of calls (CUMC_FUZZ_CALLS).
 *
 * The kernel must survive (scripts/vm-run fails the run on any warning or
 * oops), every call must fail with an errno of the UAPI's table or succeed,
 * and once the fuzzing process is gone every live-object count is back to
 * its value before and all device memory is free.
 */
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define DEFAULT_CALLS 3000
#define POOL 64
#define MAX_ERRNO 256

/* What the fuzzing process reports, in memory shared with the test. */
struct report {
	long calls;
	long ok[CUMC_CMD_MC_VIEW - CUMC_CMD_BASE + 1];
	long by_errno[MAX_ERRNO];
	long foreign_errno;	/* an errno outside the UAPI's table */
	int first_foreign[2];	/* its command and errno */
};

struct fuzzer {
	unsigned int seed;
	int fd, other_fd;
	__u64 handles[POOL];	/* own, released, the other client's */
	int nhandles;
	__u64 addrs[POOL];	/* reservations and what came back */
	int naddrs;
	int fds[POOL];		/* exported descriptors */
	int nfds;
	__u64 gran;
	__u32 ndev;
	void *hole;		/* a page that is not mapped */
	union {
		__u64 words[64];
		__u8 bytes[512];
	} buf;
	/*
	 * Arrays the kernel reads (descs) and writes (members); members
	 * ends at a page that is not mapped, so that an overrun faults in
	 * the kernel's copy instead of corrupting the fuzzer.
	 */
	struct cumc_access_desc *descs;
	__u32 *members;
};

#define NUM_DESCS 8

static const struct {
	unsigned int nr;
	unsigned int size;
} cmds[] = {
#define C(nr, type) { CUMC_CMD_##nr, sizeof(struct type) }
	C(QUERY, cumc_query), C(DEVICE_INFO, cumc_device_info),
	C(MEM_CREATE, cumc_mem_create), C(MEM_INFO, cumc_mem_info),
	C(RELEASE, cumc_release), C(VA_RESERVE, cumc_va_reserve),
	C(VA_FREE, cumc_va_free), C(MAP, cumc_map), C(UNMAP, cumc_unmap),
	C(SET_ACCESS, cumc_set_access), C(VA_QUERY, cumc_va_query),
	C(EXPORT_FD, cumc_export_fd), C(IMPORT_FD, cumc_import_fd),
	C(ATTACH_CHANNEL, cumc_attach_channel),
	C(EXPORT_FABRIC, cumc_export_fabric),
	C(IMPORT_FABRIC, cumc_import_fabric), C(MC_CREATE, cumc_mc_create),
	C(MC_ADD_DEVICE, cumc_mc_add_device), C(MC_BIND_MEM, cumc_mc_bind),
	C(MC_BIND_ADDR, cumc_mc_bind), C(MC_UNBIND, cumc_mc_unbind),
	C(MC_INFO, cumc_mc_info), C(MC_VIEW, cumc_mc_view),
#undef C
};

/* The errnos Documentation/uapi.md promises, EINTR from our timer. */
static const int known_errnos[] = {
	ENOTTY, EFAULT, EINVAL, E2BIG, EOPNOTSUPP, ENODEV, ENOENT, ENOSPC,
	ENOMEM, ENXIO, EEXIST, EBUSY, EPERM, EBADF, EBADFD, EMFILE, EACCES,
	EIO, EOVERFLOW, EDQUOT, EINTR,
};

static unsigned int rnd(struct fuzzer *f, unsigned int n)
{
	return rand_r(&f->seed) % n;
}

static __u64 rnd64(struct fuzzer *f)
{
	return (__u64)rand_r(&f->seed) << 33 ^ (__u64)rand_r(&f->seed) << 11 ^
	       rand_r(&f->seed);
}

static void add(__u64 *pool, int *n, __u64 v)
{
	if (!v)
		return;
	if (*n < POOL)
		pool[(*n)++] = v;
	else
		pool[rand() % POOL] = v;
}

/* Integers where range checks break: zero, ones, powers around limits. */
static __u64 edge(struct fuzzer *f)
{
	static const __u64 edges[] = {
		0, 1, 4095, 4096, ~0ULL, ~0ULL - 4095, 1ULL << 63,
		(1ULL << 47) - 1, 1ULL << 47, (1ULL << 47) + 1, 1ULL << 40,
		1ULL << 41, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		CUMC_MAX_DEVICES, CUMC_MAX_DEVICES + 1,
		0xffff888000000000ULL, 0xffffffff81000000ULL,
	};
	__u64 g = f->gran;

	switch (rnd(f, 4)) {
	case 0:
		return g * rnd(f, 4) + (rnd(f, 2) ? 0 : rnd(f, 3) - 1);
	case 1:
		return -(g * (1 + rnd(f, 2)));
	default:
		return edges[rnd(f, sizeof(edges) / sizeof(edges[0]))];
	}
}

static __u64 handle(struct fuzzer *f)
{
	if (f->nhandles && rnd(f, 8))
		return f->handles[rnd(f, f->nhandles)];
	return rnd(f, 2) ? rnd64(f) : edge(f);
}

static __u64 length(struct fuzzer *f)
{
	return rnd(f, 4) ? f->gran * (1 + rnd(f, 2)) : edge(f);
}

static __u64 addr(struct fuzzer *f)
{
	__u64 a;

	if (!f->naddrs || !rnd(f, 6))
		return rnd(f, 2) ? edge(f) : (__u64)(uintptr_t)f->hole;
	a = f->addrs[rnd(f, f->naddrs)];
	switch (rnd(f, 6)) {
	case 0:
		return a + f->gran;
	case 1:
		return a + 1 + rnd(f, 4096);
	case 2:
		return a - f->gran;
	default:
		return a;
	}
}

static __u32 device(struct fuzzer *f)
{
	return rnd(f, 8) ? rnd(f, f->ndev) : edge(f);
}

/*
 * A user pointer the kernel reads or writes: our own scratch array, or a
 * pointer that must fault, never memory the fuzzer itself lives on.
 */
static __u64 uptr(struct fuzzer *f, void *scratch, size_t len)
{
	switch (rnd(f, 6)) {
	case 0:
		return 0;
	case 1:
		return (__u64)(uintptr_t)f->hole;
	case 2:
		return 0xffff888000000000ULL;
	case 3:
		/* The last bytes of the array, then the unmapped page. */
		return (__u64)(uintptr_t)scratch + len - 4;
	default:
		return (__u64)(uintptr_t)scratch;
	}
}

#define SET(type, member, value) \
	(((struct type *)f->buf.bytes)->member = (value))

/* A plausible struct for @nr: members from the pools. */
static void build(struct fuzzer *f, unsigned int nr, unsigned int size)
{
	unsigned int i;

	memset(&f->buf, 0, sizeof(f->buf));
	f->buf.words[0] = size;
	switch (nr) {
	case CUMC_CMD_DEVICE_INFO:
		SET(cumc_device_info, device, device(f));
		break;
	case CUMC_CMD_MEM_CREATE:
		SET(cumc_mem_create, device, device(f));
		SET(cumc_mem_create, handle_types, rnd(f, 4));
		SET(cumc_mem_create, length, length(f));
		break;
	case CUMC_CMD_MEM_INFO:
	case CUMC_CMD_RELEASE:
	case CUMC_CMD_EXPORT_FD:
	case CUMC_CMD_EXPORT_FABRIC:
		/* handle is the second u64 of each. */
		f->buf.words[1] = handle(f);
		break;
	case CUMC_CMD_VA_RESERVE:
		SET(cumc_va_reserve, length, length(f));
		SET(cumc_va_reserve, alignment, rnd(f, 2) ? 0 : edge(f));
		SET(cumc_va_reserve, addr, rnd(f, 2) ? 0 : addr(f));
		break;
	case CUMC_CMD_VA_FREE:
	case CUMC_CMD_UNMAP:
		f->buf.words[1] = addr(f);
		f->buf.words[2] = length(f);
		break;
	case CUMC_CMD_MAP:
		SET(cumc_map, addr, addr(f));
		SET(cumc_map, length, length(f));
		SET(cumc_map, handle, handle(f));
		SET(cumc_map, offset, rnd(f, 4) ? 0 : edge(f));
		break;
	case CUMC_CMD_SET_ACCESS:
		for (i = 0; i < NUM_DESCS; i++) {
			f->descs[i].device = device(f);
			f->descs[i].access = rnd(f, 4) ? 3 : edge(f);
		}
		SET(cumc_set_access, addr, addr(f));
		SET(cumc_set_access, length, length(f));
		SET(cumc_set_access, descs, uptr(f, f->descs,
						     NUM_DESCS * sizeof(*f->descs)));
		SET(cumc_set_access, num_descs, rnd(f, 4) ? 1 + rnd(f, 8) :
							    edge(f));
		break;
	case CUMC_CMD_VA_QUERY:
		SET(cumc_va_query, flags, rnd(f, 2));
		SET(cumc_va_query, addr, addr(f));
		SET(cumc_va_query, device, device(f));
		break;
	case CUMC_CMD_IMPORT_FD:
		SET(cumc_import_fd, fd, f->nfds && rnd(f, 4) ?
			f->fds[rnd(f, f->nfds)] : (int)edge(f));
		break;
	case CUMC_CMD_ATTACH_CHANNEL:
		SET(cumc_attach_channel, fd, rnd(f, 2) ? f->fd : (int)edge(f));
		break;
	case CUMC_CMD_IMPORT_FABRIC:
		for (i = 0; i < CUMC_FABRIC_HANDLE_SIZE; i++)
			SET(cumc_import_fabric, fabric[i], rnd(f, 256));
		break;
	case CUMC_CMD_MC_CREATE:
		SET(cumc_mc_create, num_devices, rnd(f, 4) ? 1 + rnd(f, 2) :
							     edge(f));
		SET(cumc_mc_create, handle_types, rnd(f, 3));
		SET(cumc_mc_create, length, length(f));
		break;
	case CUMC_CMD_MC_ADD_DEVICE:
		SET(cumc_mc_add_device, handle, handle(f));
		SET(cumc_mc_add_device, device, device(f));
		break;
	case CUMC_CMD_MC_BIND_MEM:
	case CUMC_CMD_MC_BIND_ADDR:
		SET(cumc_mc_bind, handle, handle(f));
		SET(cumc_mc_bind, device, device(f));
		SET(cumc_mc_bind, mc_offset, rnd(f, 2) ? 0 : edge(f));
		SET(cumc_mc_bind, mem, nr == CUMC_CMD_MC_BIND_MEM ? handle(f) :
								   addr(f));
		SET(cumc_mc_bind, mem_offset, rnd(f, 2) ? 0 : edge(f));
		SET(cumc_mc_bind, length, length(f));
		break;
	case CUMC_CMD_MC_UNBIND:
		SET(cumc_mc_unbind, handle, handle(f));
		SET(cumc_mc_unbind, device, device(f));
		SET(cumc_mc_unbind, mc_offset, rnd(f, 2) ? 0 : edge(f));
		SET(cumc_mc_unbind, length, length(f));
		break;
	case CUMC_CMD_MC_INFO:
		SET(cumc_mc_info, handle, handle(f));
		SET(cumc_mc_info, members,
		    uptr(f, f->members, CUMC_MAX_DEVICES * sizeof(__u32)));
		SET(cumc_mc_info, num_members_max,
		    rnd(f, 2) ? rnd(f, CUMC_MAX_DEVICES) : edge(f));
		break;
	case CUMC_CMD_MC_VIEW:
		SET(cumc_mc_view, addr, addr(f));
		SET(cumc_mc_view, device, device(f));
		break;
	}
}

/* Break the struct: its size, a flag, a reserved member, any word. */
static void mutate(struct fuzzer *f, unsigned int size)
{
	unsigned int i, n = rnd(f, 3);

	for (i = 0; i < n; i++) {
		switch (rnd(f, 6)) {
		case 0: {
			static const int deltas[] = { -8, -4, -1, 1, 4, 8, 64 };

			f->buf.words[0] = size + deltas[rnd(f, 7)];
			break;
		}
		case 1:
			f->buf.words[0] = rnd(f, 2) ? sizeof(f->buf) : edge(f);
			break;
		case 2:
			/* A non-zero tail past the kernel's struct. */
			f->buf.words[0] = size + 8;
			f->buf.bytes[size + rnd(f, 8)] = 1 + rnd(f, 255);
			break;
		case 3:
			/* flags: the second u32 of every struct. */
			f->buf.bytes[4 + rnd(f, 4)] |= 1 << rnd(f, 8);
			break;
		case 4:
			f->buf.words[1 + rnd(f, size / 8 - 1)] = edge(f);
			break;
		default:
			f->buf.bytes[4 + rnd(f, size - 4)] ^= 1 << rnd(f, 8);
			break;
		}
	}
}

/* Keep what a successful call gave: new handles, addresses, fds. */
static void harvest(struct fuzzer *f, unsigned int nr)
{
	switch (nr) {
	case CUMC_CMD_MEM_CREATE:
	case CUMC_CMD_MC_CREATE:
		add(f->handles, &f->nhandles,
		    ((struct cumc_mem_create *)f->buf.bytes)->out_handle);
		break;
	case CUMC_CMD_IMPORT_FD:
		add(f->handles, &f->nhandles,
		    ((struct cumc_import_fd *)f->buf.bytes)->out_handle);
		break;
	case CUMC_CMD_VA_QUERY:
		add(f->handles, &f->nhandles,
		    ((struct cumc_va_query *)f->buf.bytes)->out_handle);
		break;
	case CUMC_CMD_VA_RESERVE:
		add(f->addrs, &f->naddrs,
		    ((struct cumc_va_reserve *)f->buf.bytes)->out_addr);
		break;
	case CUMC_CMD_MC_VIEW:
		add(f->addrs, &f->naddrs,
		    ((struct cumc_mc_view *)f->buf.bytes)->out_addr);
		break;
	case CUMC_CMD_EXPORT_FD:
		if (f->nfds < POOL)
			f->fds[f->nfds++] =
				((struct cumc_export_fd *)f->buf.bytes)->out_fd;
		break;
	}
}

static void on_alarm(int sig)
{
}

static bool known(int err)
{
	unsigned int i;

	for (i = 0; i < sizeof(known_errnos) / sizeof(known_errnos[0]); i++)
		if (known_errnos[i] == err)
			return true;
	return false;
}

/* The fuzzing process; everything it made goes with it. */
static void fuzz(struct report *rep, unsigned int seed, long calls)
{
	/* Binds wait for teams that may never form: a timer ends them. */
	struct itimerval tick = { { 0, 20000 }, { 0, 20000 } };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct cumc_device_info info;
	struct fuzzer *f;
	__u8 *page;
	long i;

	f = calloc(1, sizeof(*f));
	page = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!f || page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE))
		_exit(1);
	f->members = (void *)(page + 4096 - CUMC_MAX_DEVICES * sizeof(__u32));
	f->descs = (void *)((__u8 *)f->members -
			    NUM_DESCS * sizeof(*f->descs));
	f->seed = seed;
	f->fd = st_open();
	f->other_fd = st_open();
	if (f->fd < 0 || f->other_fd < 0 || st_device_info(f->fd, 0, &info))
		_exit(1);
	f->gran = info.granularity;
	f->ndev = st_num_devices(f->fd);
	f->hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	munmap(f->hole, 4096);
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);

	for (i = 0; i < calls; i++) {
		unsigned int c = rnd(f, sizeof(cmds) / sizeof(cmds[0]));
		unsigned int nr = cmds[c].nr, size = cmds[c].size;
		unsigned long cmd = _IO(CUMC_TYPE, nr);
		int fd = rnd(f, 8) ? f->fd : f->other_fd, err;
		void *arg = f->buf.bytes;

		build(f, nr, size);
		if (rnd(f, 2))
			mutate(f, size);
		/* A wrong number, a wrong direction, a bad argument pointer. */
		switch (rnd(f, 40)) {
		case 0:
			cmd = _IO(CUMC_TYPE, rnd(f, 256));
			break;
		case 1:
			cmd = _IOWR(CUMC_TYPE, nr, struct cumc_query);
			break;
		case 2:
			arg = rnd(f, 2) ? f->hole : NULL;
			break;
		case 3:
			/* Device memory or a view: faults the kernel serves. */
			if (f->naddrs)
				arg = (void *)(uintptr_t)
					f->addrs[rnd(f, f->naddrs)];
			break;
		}
		err = ioctl(fd, cmd, arg) ? errno : 0;
		rep->calls++;
		if (!err) {
			rep->ok[nr - CUMC_CMD_BASE]++;
			/* The other client's handles are foreign to ours. */
			if (arg == f->buf.bytes)
				harvest(f, nr);
			/* Make some of them stale. */
			if (nr == CUMC_CMD_MEM_CREATE && f->nhandles &&
			    rnd(f, 4) == 0)
				st_release(fd, f->handles[f->nhandles - 1]);
			continue;
		}
		rep->by_errno[err < MAX_ERRNO ? err : 0]++;
		if (!known(err) && !rep->foreign_errno++) {
			rep->first_foreign[0] = nr;
			rep->first_foreign[1] = err;
		}
	}
	_exit(0);
}

FIXTURE(fuzz) {
};

FIXTURE_SETUP(fuzz)
{
}

FIXTURE_TEARDOWN(fuzz)
{
}

/* make fuzz runs long: no harness timeout worth having. */
TEST_F_TIMEOUT(fuzz, ioctls, 100000)
{
	unsigned int seed = st_env_long("CUMC_FUZZ_SEED", 20261122);
	long calls = st_env_long("CUMC_FUZZ_CALLS", DEFAULT_CALLS);
	struct st_objects base, now;
	struct report *rep;
	int fd, status, i;
	pid_t pid;

	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, st_objects_read(&base));
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rep);
	TH_LOG("seed %u, %ld calls", seed, calls);

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(fd);
		fuzz(rep, seed, calls);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("fuzzer status %#x", status);

	TH_LOG("%ld calls", rep->calls);
	for (i = 0; i < (int)(sizeof(cmds) / sizeof(cmds[0])); i++)
		TH_LOG("  cmd %#x succeeded %ld times", cmds[i].nr,
		       rep->ok[cmds[i].nr - CUMC_CMD_BASE]);
	for (i = 0; i < MAX_ERRNO; i++)
		if (rep->by_errno[i])
			TH_LOG("  %-12s %ld", i ? strerrorname_np(i) : "other",
			       rep->by_errno[i]);
	EXPECT_EQ(0, rep->foreign_errno)
		TH_LOG("cmd %#x failed with %s, not in the UAPI's table",
		       rep->first_foreign[0],
		       strerrorname_np(rep->first_foreign[1]));
	EXPECT_EQ(0, st_objects_settle(&base, &now, 2000)) {
		st_objects_diff(&base, &now);
	}
	EXPECT_EQ(0, st_devices_not_free(fd));
	close(fd);
}

TEST_HARNESS_MAIN
