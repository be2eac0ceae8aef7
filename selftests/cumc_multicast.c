// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast objects: CUMC_MC_CREATE, CUMC_MC_ADD_DEVICE, CUMC_MC_INFO,
 * CUMC_MC_BIND_MEM, CUMC_MC_BIND_ADDR, CUMC_MC_UNBIND, CUMC_MAP of a
 * multicast handle and CUMC_MC_VIEW, from one client up to a team of
 * processes set up the way collective libraries do it.
 *
 * Binds and maps wait for the team. A test that needs such a call to block
 * makes it in one process and lets another one, once it has seen the caller
 * asleep in that very ioctl (/proc/PID/syscall), complete the team, signal
 * or kill it: without that the call could have returned before anyone
 * looked, and the test would prove nothing.
 *
 * Whether a touch faults, and with which signal, is decided in a child that
 * shares our address space (clone(CLONE_VM)): reservations and views are
 * not inherited by fork(). Processes made by fork() report the step that
 * failed in their exit status and leave with _exit(): the harness's
 * ASSERTs and teardown belong to the test process.
 *
 * Loops around EXPECT and ASSERT keep their braces: each of those macros
 * is two statements.
 *
 * The VM emulates the CPU: each test touches a few pages.
 */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

/* What a refused call must leave in the caller's output members. */
#define CANARY 0xdeadbeefcafef00dULL

#define PAGE 4096ULL

/* The most processes team_of_processes starts: enough to show the shape. */
#define MAX_TEAM 4

static void *ptr(__u64 addr)
{
	return (void *)(uintptr_t)addr;
}

static volatile __u32 *u32p(__u64 addr)
{
	return (volatile __u32 *)(uintptr_t)addr;
}

/* The team state, or ~0u when CUMC_MC_INFO fails. */
static __u32 mc_state(int fd, __u64 handle)
{
	struct cumc_mc_info info;

	return st_mc_info(fd, handle, NULL, 0, &info) ? ~0u : info.out_state;
}

/* Device memory and a read-write mapping of it: what the CPU stores into. */
struct uc {
	__u64 handle;
	__u64 addr;
	__u64 length;
};

static void uc_new(struct __test_metadata *_metadata, int fd, __u32 device,
		   __u64 length, struct uc *uc)
{
	uc->length = length;
	ASSERT_EQ(0, st_mem_create(fd, device, CUMC_HANDLE_FD, length,
				   &uc->handle));
	ASSERT_EQ(0, st_map_new(fd, uc->handle, length, device,
				CUMC_ACCESS_READWRITE, &uc->addr));
}

static void uc_free(struct __test_metadata *_metadata, int fd, struct uc *uc)
{
	EXPECT_EQ(0, st_unmap_free(fd, uc->addr, uc->length));
	EXPECT_EQ(0, st_release(fd, uc->handle));
}

/* A complete team of devices 0 .. @n - 1: the object is ready. */
static __u64 team(struct __test_metadata *_metadata, int fd, __u32 n,
		  __u64 length)
{
	__u64 handle = 0;
	__u32 d;

	ASSERT_EQ(0, st_mc_create(fd, n, CUMC_HANDLE_FD, length, &handle));
	for (d = 0; d < n; d++) {
		ASSERT_EQ(0, st_mc_add(fd, handle, d));
	}
	return handle;
}

/*
 * Whether @pid, our parent, goes to sleep in ioctl(@cmd) before it waits
 * for us: a task that runs shows "running" in /proc/PID/syscall, one that
 * sleeps its system call number and arguments. Had the ioctl returned
 * without sleeping, the parent would be waiting for our exit; no clock
 * decides, however slow the machine.
 */
static bool sleeps_in_ioctl(pid_t pid, unsigned long cmd)
{
	unsigned long arg0, arg1;
	char path[64], line[256];
	ssize_t len;
	long nr;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	for (;;) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		len = read(fd, line, sizeof(line) - 1);
		close(fd);
		if (len > 0) {
			line[len] = '\0';
			if (sscanf(line, "%ld %lx %lx", &nr, &arg0, &arg1) == 3) {
				if (nr == SYS_ioctl && arg1 == cmd)
					return true;
				if (nr == SYS_wait4 || nr == SYS_waitid)
					return false;
			}
		}
		usleep(2000);
	}
}

/*
 * A child sharing our client that, once we sleep in ioctl(@cmd), checks
 * the team is still forming and adds @device to it. It adds the device
 * even when we never slept, so that we do not wait forever; its exit
 * status says what went wrong.
 */
static pid_t complete_when_asleep(int fd, __u64 handle, unsigned long cmd,
				  __u32 device)
{
	pid_t parent = getpid();
	pid_t pid;
	int step;

	pid = fork();
	if (pid)
		return pid;
	step = !sleeps_in_ioctl(parent, cmd) ? 1 :
	       mc_state(fd, handle) != CUMC_TEAM_STATE_FORMING ? 2 : 0;
	if (st_mc_add(fd, handle, device))
		step = 3;
	_exit(step);
}

/* Written by the SIGUSR1 handler, so that another process sees it ran. */
static int sig_pipe[2];

static void on_sigusr1(int sig)
{
	char c = 's';

	if (write(sig_pipe[1], &c, 1) != 1)
		_exit(99);
}

static void catch_sigusr1(struct __test_metadata *_metadata, int flags)
{
	struct sigaction sa = { .sa_handler = on_sigusr1, .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, pipe2(sig_pipe, O_CLOEXEC));
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
}

static int send_byte(int sock, char c)
{
	return write(sock, &c, 1) == 1 ? 0 : -1;
}

/* The next byte from @sock, -1 at its end. */
static int recv_byte(int sock)
{
	unsigned char c;

	return read(sock, &c, 1) == 1 ? c : -1;
}

FIXTURE(mc) {
	int fd;
	__u32 num_devices;
	/* Multicast and allocation granularity: sizes are multiples of it. */
	__u64 g;
	/* Before this test's first client was opened. */
	struct st_objects base;
	/* The base with the fixture's client open. */
	struct st_objects open;
};

FIXTURE_SETUP(mc)
{
	/* Children die of SIGSEGV and SIGBUS on purpose: no core files. */
	struct rlimit no_core = { 0, 0 };
	struct cumc_query q = { .size = sizeof(q) };
	struct cumc_device_info info;

	ASSERT_EQ(0, setrlimit(RLIMIT_CORE, &no_core));
	ASSERT_EQ(0, st_objects_read(&self->base))
		TH_LOG("cannot read %s", ST_OBJECTS_PATH);
	self->open = self->base;
	self->open.clients++;
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_QUERY, &q));
	/* A team, and a device outside it. */
	ASSERT_LE(3, q.num_devices);
	self->num_devices = q.num_devices;
	ASSERT_EQ(0, st_device_info(self->fd, 0, &info));
	/* Memory bound at multicast granularity must be allocatable. */
	ASSERT_LE(PAGE, q.mc_granularity);
	ASSERT_EQ(0, q.mc_granularity % info.granularity);
	self->g = q.mc_granularity;
}

FIXTURE_TEARDOWN(mc)
{
	close(self->fd);
	/* Every test gives back all it created, bound, mapped and viewed. */
	ST_EXPECT_OBJECTS(self->base, views);
}

/* CUMC_MC_CREATE */

TEST_F(mc, create_valid)
{
	const __u64 g = self->g;
	const struct {
		__u32 num_devices, types;
		__u64 length;
	} ok[] = {
		{ 1, 0, g },
		{ 2, CUMC_HANDLE_FD, 3 * g },
		{ self->num_devices, 0, g },
		/* The largest objects: num_devices * length is 2^47. */
		{ 1, CUMC_HANDLE_FD, 1ULL << 47 },
		{ 2, 0, 1ULL << 46 },
	};
	struct cumc_mc_info info;
	struct st_objects want;
	__u64 h[ARRAY_SIZE(ok)];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		ASSERT_EQ(0, st_mc_create(self->fd, ok[i].num_devices,
					  ok[i].types,
					  ok[i].length, &h[i]))
			TH_LOG("case %zu", i);
		ASSERT_EQ(0, st_mc_info(self->fd, h[i], NULL, 0, &info));
		EXPECT_EQ(ok[i].num_devices, info.out_num_devices);
		EXPECT_EQ(0, info.out_num_members);
		EXPECT_EQ(CUMC_TEAM_STATE_FORMING, info.out_state);
		EXPECT_EQ(ok[i].length, info.out_length);
		EXPECT_EQ(ok[i].types, info.out_handle_types);
	}
	want = self->open;
	want.mcs += ARRAY_SIZE(ok);
	ST_EXPECT_OBJECTS(want, views);
	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		EXPECT_EQ(0, st_release(self->fd, h[i]));
	}
	ST_EXPECT_OBJECTS(self->open, views);
}

TEST_F(mc, create_bad_arguments_refused)
{
	const __u64 g = self->g;
	const __u32 n = self->num_devices;
	const struct {
		const char *what;
		__u32 flags, num_devices, types;
		__u64 length;
		int err;
	} bad[] = {
		{ "no devices", 0, 0, 0, g, EINVAL },
		{ "more devices than exist", 0, n + 1, 0, g, EINVAL },
		{ "2^32 - 1 devices", 0, ~0u, 0, g, EINVAL },
		{ "length 0", 0, 1, 0, 0, EINVAL },
		{ "half a granule", 0, 1, 0, g / 2, EINVAL },
		{ "unaligned length", 0, 1, 0, g + g / 2, EINVAL },
		{ "one device over 2^47", 0, 1, 0, (1ULL << 47) + g, EINVAL },
		{ "two devices over 2^47", 0, 2, 0, (1ULL << 46) + g, EINVAL },
		{ "product wraps 2^64", 0, 2, 0, 1ULL << 63, EINVAL },
		{ "flags", 1, 1, 0, g, EOPNOTSUPP },
		{ "high flag", 1u << 31, 1, 0, g, EOPNOTSUPP },
		{ "unknown handle type", 0, 1, 1u << 2, g, EOPNOTSUPP },
		{ "high handle type", 0, 1, 1u << 31, g, EOPNOTSUPP },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cumc_mc_create c = {
			.size = sizeof(c),
			.flags = bad[i].flags,
			.num_devices = bad[i].num_devices,
			.handle_types = bad[i].types,
			.length = bad[i].length,
			.out_handle = CANARY,
		};

		EXPECT_EQ(-bad[i].err, st_ioctl(self->fd, CUMC_MC_CREATE, &c))
			TH_LOG("%s", bad[i].what);
		EXPECT_EQ(CANARY, c.out_handle) TH_LOG("%s", bad[i].what);
	}
	ST_EXPECT_OBJECTS(self->open, views);
}

TEST_F(mc, create_fabric_needs_channel)
{
	struct cumc_attach_channel a = { .size = sizeof(a) };
	struct cumc_mc_info info;
	__u64 h = CANARY;
	int chan;

	EXPECT_EQ(-EPERM, st_mc_create(self->fd, 2, CUMC_HANDLE_FABRIC, self->g,
				       &h));
	EXPECT_EQ(-EPERM, st_mc_create(self->fd, 2,
				       CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC,
				       self->g, &h));
	EXPECT_EQ(CANARY, h);
	ST_EXPECT_OBJECTS(self->open, views);

	/* With a channel attached the same calls work. */
	chan = open("/dev/cumc-imex-channels/channel0", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, chan);
	a.fd = chan;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_ATTACH_CHANNEL, &a));
	close(chan);
	ASSERT_EQ(0, st_mc_create(self->fd, 2,
				  CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC,
				  self->g, &h));
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	EXPECT_EQ(CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC, info.out_handle_types);
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* CUMC_MC_ADD_DEVICE */

TEST_F(mc, add_device_bad_ordinal)
{
	struct cumc_mc_info info;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	EXPECT_EQ(-ENODEV, st_mc_add(self->fd, h, self->num_devices));
	EXPECT_EQ(-ENODEV, st_mc_add(self->fd, h, ~0u));
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	EXPECT_EQ(0, info.out_num_members);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, add_device_twice_refused)
{
	__u32 members[3] = { ~0u, ~0u, ~0u };
	struct cumc_mc_info info;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 3, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	EXPECT_EQ(-EEXIST, st_mc_add(self->fd, h, 1));
	ASSERT_EQ(0, st_mc_info(self->fd, h, members, 3, &info));
	EXPECT_EQ(1, info.out_num_members);
	EXPECT_EQ(1, members[0]);
	EXPECT_EQ(~0u, members[1]);
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, info.out_state);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, add_device_beyond_team_refused)
{
	__u32 members[3] = { ~0u, ~0u, ~0u };
	struct cumc_mc_info info;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	EXPECT_EQ(-EINVAL, st_mc_add(self->fd, h, 2));
	/* A member is a member first, whether or not the team is full. */
	EXPECT_EQ(-EEXIST, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mc_info(self->fd, h, members, 3, &info));
	EXPECT_EQ(2, info.out_num_members);
	EXPECT_EQ(0, members[0]);
	EXPECT_EQ(1, members[1]);
	EXPECT_EQ(~0u, members[2]);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, add_device_bad_handles_refused)
{
	struct cumc_mc_info info;
	__u64 h, other_h, mem, gone;
	int other;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &gone));
	ASSERT_EQ(0, st_release(self->fd, gone));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->g, &mem));
	other = st_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_mc_create(other, 2, 0, self->g, &other_h));

	EXPECT_EQ(-ENOENT, st_mc_add(self->fd, 0, 0));
	EXPECT_EQ(-ENOENT, st_mc_add(self->fd, ~0ULL, 0));
	EXPECT_EQ(-ENOENT, st_mc_add(self->fd, h ^ (1ULL << 32), 0));
	EXPECT_EQ(-ENOENT, st_mc_add(self->fd, gone, 0));
	EXPECT_EQ(-ENOENT, st_mc_add(self->fd, other_h, 0));
	EXPECT_EQ(-ENOENT, st_mc_add(self->fd, mem, 0));

	/* Neither object got a member from all that. */
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	EXPECT_EQ(0, info.out_num_members);
	ASSERT_EQ(0, st_mc_info(other, other_h, NULL, 0, &info));
	EXPECT_EQ(0, info.out_num_members);

	close(other);
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, add_device_flags_reserved_refused)
{
	struct cumc_mc_add_device a = { .size = sizeof(a), .device = 0 };
	struct cumc_mc_info info;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 1, 0, self->g, &h));
	a.handle = h;
	a.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_ADD_DEVICE, &a));
	a.flags = 0;
	a.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_ADD_DEVICE, &a));
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	EXPECT_EQ(0, info.out_num_members);
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, info.out_state);
	a.__reserved = 0;
	EXPECT_EQ(0, st_ioctl(self->fd, CUMC_MC_ADD_DEVICE, &a));
	EXPECT_EQ(CUMC_TEAM_STATE_READY, mc_state(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* CUMC_MC_INFO */

TEST_F(mc, info_join_order_and_ready)
{
	__u32 members[4] = { ~0u, ~0u, ~0u, ~0u };
	struct cumc_mc_info info;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 3, CUMC_HANDLE_FD, 2 * self->g,
				  &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 2));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mc_info(self->fd, h, members, 4, &info));
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, info.out_state);
	EXPECT_EQ(3, info.out_num_devices);
	EXPECT_EQ(2, info.out_num_members);
	EXPECT_EQ(2 * self->g, info.out_length);
	EXPECT_EQ(CUMC_HANDLE_FD, info.out_handle_types);
	EXPECT_EQ(2, members[0]);
	EXPECT_EQ(0, members[1]);
	EXPECT_EQ(~0u, members[2]);

	/* The last one to join makes the team ready. */
	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	ASSERT_EQ(0, st_mc_info(self->fd, h, members, 4, &info));
	EXPECT_EQ(CUMC_TEAM_STATE_READY, info.out_state);
	EXPECT_EQ(3, info.out_num_members);
	EXPECT_EQ(2, members[0]);
	EXPECT_EQ(0, members[1]);
	EXPECT_EQ(1, members[2]);
	EXPECT_EQ(~0u, members[3]);

	/* A short array gets the first members; the count is the whole. */
	memset(members, 0xff, sizeof(members));
	ASSERT_EQ(0, st_mc_info(self->fd, h, members, 2, &info));
	EXPECT_EQ(3, info.out_num_members);
	EXPECT_EQ(2, members[0]);
	EXPECT_EQ(0, members[1]);
	EXPECT_EQ(~0u, members[2]);

	/* No array at all, with or without a size. */
	EXPECT_EQ(0, st_mc_info(self->fd, h, NULL, 4, &info));
	EXPECT_EQ(3, info.out_num_members);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, info_refusals)
{
	struct cumc_mc_info info;
	__u64 h, mem;
	void *ro;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);

	EXPECT_EQ(-EFAULT, st_mc_info(self->fd, h, (__u32 *)1, 2, &info));
	EXPECT_EQ(-EFAULT, st_mc_info(self->fd, h, ro, 2, &info));
	/* Nothing to write, nothing to fault on. */
	EXPECT_EQ(0, st_mc_info(self->fd, h, (__u32 *)1, 0, &info));

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->g, &mem));
	EXPECT_EQ(-ENOENT, st_mc_info(self->fd, mem, NULL, 0, &info));
	EXPECT_EQ(-ENOENT, st_mc_info(self->fd, 0, NULL, 0, &info));
	ASSERT_EQ(0, st_mc_info(self->fd, h, NULL, 0, &info));
	info.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_INFO, &info));
	info.flags = 0;
	info.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_INFO, &info));

	EXPECT_EQ(0, munmap(ro, PAGE));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* CUMC_MC_BIND_MEM and CUMC_MC_BIND_ADDR */

TEST_F(mc, bind_mem_and_unbind)
{
	const __u64 g = self->g;
	struct st_objects want;
	__u64 h, mem;

	h = team(_metadata, self->fd, 2, 2 * g);
	ASSERT_EQ(0, st_mem_create(self->fd, 1, CUMC_HANDLE_FD, 2 * g, &mem));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 1, g, mem, g, g));
	want = self->open;
	want.mcs++;
	want.mems++;
	want.binds++;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, g, g));
	want.binds--;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_unaligned_refused)
{
	const __u64 g = self->g, h2 = g / 2;
	const struct {
		const char *what;
		__u64 mc_offset, mem_offset, length;
	} bad[] = {
		{ "length 0", 0, 0, 0 },
		{ "half a granule", 0, 0, h2 },
		{ "unaligned length", 0, 0, g + h2 },
		{ "unaligned multicast offset", h2, 0, g },
		{ "unaligned memory offset", 0, h2, g },
		{ "page-aligned memory offset", 0, PAGE, g },
	};
	struct st_objects want;
	struct uc uc;
	__u64 h;
	size_t i;

	h = team(_metadata, self->fd, 2, 4 * g);
	uc_new(_metadata, self->fd, 0, 4 * g, &uc);
	want = st_objects_now();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* A page is a granule when the module is loaded that way. */
		if (bad[i].mem_offset == PAGE && g == PAGE)
			continue;
		EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, h, 0,
						  bad[i].mc_offset,
						  uc.handle, bad[i].mem_offset,
						  bad[i].length))
			TH_LOG("BIND_MEM %s", bad[i].what);
		EXPECT_EQ(-EINVAL, st_mc_bind_addr(self->fd, h, 0,
						   bad[i].mc_offset,
						   uc.addr + bad[i].mem_offset,
						   bad[i].length))
			TH_LOG("BIND_ADDR %s", bad[i].what);
	}
	ST_EXPECT_OBJECTS(want, views);
	uc_free(_metadata, self->fd, &uc);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_past_the_end_refused)
{
	const __u64 g = self->g, top = -g;
	const struct {
		const char *what;
		__u64 mc_offset, mem_offset, length;
	} bad[] = {
		/* The object is 2g per device, the memory 3g. */
		{ "at the object's end", 2 * g, 0, g },
		{ "across the object's end", g, 0, 2 * g },
		{ "longer than the object", 0, 0, 3 * g },
		{ "multicast offset wraps", top, 0, 2 * g },
		{ "at the memory's end", 0, 3 * g, g },
		{ "across the memory's end", 0, 2 * g, 2 * g },
		{ "memory offset wraps", 0, top, 2 * g },
	};
	struct st_objects want;
	__u64 h, mem;
	size_t i;

	h = team(_metadata, self->fd, 2, 2 * g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, 3 * g, &mem));
	want = st_objects_now();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, h, 0,
						  bad[i].mc_offset,
						  mem, bad[i].mem_offset,
						  bad[i].length))
			TH_LOG("%s", bad[i].what);
	}
	ST_EXPECT_OBJECTS(want, views);

	/* The whole object from the memory's last bytes fits. */
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, g, 2 * g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, 2 * g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_wrong_device_refused)
{
	const __u64 g = self->g;
	struct st_objects want;
	__u64 h, mem0, mem2;

	/* Devices 0 and 1 are the team; 2 is not in it. */
	h = team(_metadata, self->fd, 2, g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g, &mem0));
	ASSERT_EQ(0, st_mem_create(self->fd, 2, CUMC_HANDLE_FD, g, &mem2));
	want = st_objects_now();

	/* Memory of a device outside the team, for that device. */
	EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, h, 2, 0, mem2, 0, g));
	/* ... for a member. */
	EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, h, 0, 0, mem2, 0, g));
	/* Memory of one member for another. */
	EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, h, 1, 0, mem0, 0, g));
	/* A member's memory for a device outside the team. */
	EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, h, 2, 0, mem0, 0, g));
	ST_EXPECT_OBJECTS(want, views);

	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem0, 0, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(0, st_release(self->fd, mem2));
	EXPECT_EQ(0, st_release(self->fd, mem0));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/*
 * A shareable object may reach other processes, so only shareable memory
 * binds to it (the CUDA documentation's rule); a private one takes any.
 */
TEST_F(mc, shareable_object_takes_shareable_memory_only)
{
	const __u64 g = self->g;
	struct st_objects want;
	__u64 shared, private, plain, fd_mem;

	shared = team(_metadata, self->fd, 1, g);
	ASSERT_EQ(0, st_mc_create(self->fd, 1, 0, g, &private));
	ASSERT_EQ(0, st_mc_add(self->fd, private, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, g, &plain));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g, &fd_mem));
	want = st_objects_now();

	EXPECT_EQ(-EINVAL, st_mc_bind_mem(self->fd, shared, 0, 0, plain, 0, g));
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, shared, 0, 0, fd_mem, 0, g));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, private, 0, 0, plain, 0, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, shared, 0, 0, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, private, 0, 0, g));
	EXPECT_EQ(0, st_release(self->fd, fd_mem));
	EXPECT_EQ(0, st_release(self->fd, plain));
	EXPECT_EQ(0, st_release(self->fd, private));
	EXPECT_EQ(0, st_release(self->fd, shared));
}

TEST_F(mc, bind_bad_handles_flags_refused)
{
	const __u64 g = self->g;
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.device = 0,
		.length = g,
	};
	struct st_objects want;
	__u64 h, mem, other_mem;
	int other;

	h = team(_metadata, self->fd, 1, g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g, &mem));
	other = st_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_mem_create(other, 0, CUMC_HANDLE_FD, g, &other_mem));
	want = st_objects_now();

	EXPECT_EQ(-ENOENT, st_mc_bind_mem(self->fd, 0, 0, 0, mem, 0, g));
	EXPECT_EQ(-ENOENT, st_mc_bind_mem(self->fd, mem, 0, 0, mem, 0, g));
	EXPECT_EQ(-ENOENT, st_mc_bind_mem(self->fd, h, 0, 0, 0, 0, g));
	EXPECT_EQ(-ENOENT, st_mc_bind_mem(self->fd, h, 0, 0, h, 0, g));
	EXPECT_EQ(-ENOENT, st_mc_bind_mem(self->fd, h, 0, 0, other_mem, 0, g));

	b.handle = h;
	b.mem = mem;
	b.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_BIND_ADDR, &b));
	b.flags = 0;
	b.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_BIND_ADDR, &b));
	ST_EXPECT_OBJECTS(want, views);

	close(other);
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_overlap_refused)
{
	const __u64 g = self->g;
	const struct {
		const char *what;
		__u64 mc_offset, length;
	} overlap[] = {
		{ "exact", g, 2 * g },
		{ "front", 0, 2 * g },
		{ "back", 2 * g, 2 * g },
		{ "inside", 2 * g, g },
		{ "around", 0, 4 * g },
	};
	struct st_objects want;
	__u64 h, mem0, mem1;
	size_t i;

	/*
	 * Member 0 has [g, 3g) bound out of an object of 4g per device; the
	 * overlapping binds would take memory that is not bound yet.
	 */
	h = team(_metadata, self->fd, 2, 4 * g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, 6 * g, &mem0));
	ASSERT_EQ(0, st_mem_create(self->fd, 1, CUMC_HANDLE_FD, 2 * g, &mem1));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, g, mem0, 0, 2 * g));
	want = st_objects_now();
	for (i = 0; i < ARRAY_SIZE(overlap); i++) {
		EXPECT_EQ(-EEXIST, st_mc_bind_mem(self->fd, h, 0,
						  overlap[i].mc_offset, mem0,
						  2 * g, overlap[i].length))
			TH_LOG("%s", overlap[i].what);
	}
	ST_EXPECT_OBJECTS(want, views);

	/* Next to it, several binds of one member at different offsets... */
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem0, 2 * g, g));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 3 * g, mem0, 3 * g, g));
	/* ... and another member at the same offset. */
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 1, g, mem1, 0, 2 * g));
	want.binds += 3;
	ST_EXPECT_OBJECTS(want, views);

	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, g, 2 * g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 3 * g, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, g, 2 * g));
	EXPECT_EQ(0, st_release(self->fd, mem1));
	EXPECT_EQ(0, st_release(self->fd, mem0));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_addr_inside_mapping)
{
	const __u64 g = self->g;
	__u64 h, mc_addr, view, len;
	struct uc uc;

	h = team(_metadata, self->fd, 2, g);
	uc_new(_metadata, self->fd, 1, 3 * g, &uc);
	/* The allocation's middle granule, by its address. */
	ASSERT_EQ(0, st_mc_bind_addr(self->fd, h, 1, 0, uc.addr + g, g));
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 1, CUMC_ACCESS_READWRITE,
				&mc_addr));
	ASSERT_EQ(0, st_mc_view(self->fd, mc_addr, 1, &view, &len));
	*u32p(uc.addr + g + 64) = 0x1f2e3d4c;
	EXPECT_EQ(0x1f2e3d4c, *u32p(view + 64));

	EXPECT_EQ(0, munmap(ptr(view), len));
	EXPECT_EQ(0, st_unmap_free(self->fd, mc_addr, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, 0, g));
	uc_free(_metadata, self->fd, &uc);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_addr_refusals)
{
	const __u64 g = self->g;
	__u64 h, va, mc_addr, local = 0;
	struct cumc_mc_bind odd = {
		.size = sizeof(odd),
		.mem_offset = g,	/* with an address: refused */
		.length = g,
	};
	struct st_objects want;
	struct uc uc, theirs;
	int other;

	h = team(_metadata, self->fd, 2, 2 * g);
	uc_new(_metadata, self->fd, 0, 2 * g, &uc);
	other = st_open();
	ASSERT_LE(0, other);
	uc_new(_metadata, other, 0, g, &theirs);
	/* A reservation with nothing mapped in it. */
	ASSERT_EQ(0, st_va_reserve(self->fd, g, 0, 0, &va));
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 0, CUMC_ACCESS_READWRITE,
				&mc_addr));
	want = st_objects_now();

	EXPECT_EQ(-ENXIO, st_mc_bind_addr(self->fd, h, 0, 0, va, g));
	EXPECT_EQ(-ENXIO, st_mc_bind_addr(self->fd, h, 0, 0,
					  (__u64)(uintptr_t)&local, g));
	EXPECT_EQ(-ENXIO, st_mc_bind_addr(self->fd, h, 0, 0, 0, g));
	/* A multicast mapping is no memory to bind. */
	EXPECT_EQ(-ENXIO, st_mc_bind_addr(self->fd, h, 0, 0, mc_addr, g));
	/* Nor is memory mapped by another client, even in this process. */
	EXPECT_EQ(-ENXIO, st_mc_bind_addr(self->fd, h, 0, 0, theirs.addr, g));
	/* Past the end of the mapping (and its allocation). */
	EXPECT_EQ(-EINVAL, st_mc_bind_addr(self->fd, h, 0, 0, uc.addr + g,
					   2 * g));
	EXPECT_EQ(-EINVAL, st_mc_bind_addr(self->fd, h, 0, 0, uc.addr, 3 * g));
	/* The memory's offset is the address's business. */
	odd.handle = h;
	odd.mem = uc.addr;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_BIND_ADDR, &odd));
	/* The memory must still be the member's. */
	EXPECT_EQ(-EINVAL, st_mc_bind_addr(self->fd, h, 1, 0, uc.addr, g));
	/* And fit in the object. */
	EXPECT_EQ(-EINVAL, st_mc_bind_addr(self->fd, h, 0, g, uc.addr, 2 * g));
	ST_EXPECT_OBJECTS(want, views);

	EXPECT_EQ(0, st_mc_bind_addr(self->fd, h, 0, 0, uc.addr, 2 * g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, 2 * g));

	EXPECT_EQ(0, st_unmap_free(self->fd, mc_addr, g));
	EXPECT_EQ(0, st_va_free(self->fd, va, g));
	uc_free(_metadata, other, &theirs);
	close(other);
	uc_free(_metadata, self->fd, &uc);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, binding_holds_memory)
{
	const __u64 g = self->g;
	struct cumc_mem_info info;
	struct st_objects want;
	long long free_before;
	__u64 h, mem;

	h = team(_metadata, self->fd, 2, g);
	free_before = st_mem_free(self->fd, 1);
	ASSERT_LE(0, free_before);
	ASSERT_EQ(0, st_mem_create(self->fd, 1, CUMC_HANDLE_FD, g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 1, 0, mem, 0, g));
	ASSERT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(-ENOENT, st_mem_info(self->fd, mem, &info));
	want = self->open;
	want.mcs++;
	want.binds++;
	want.mems++;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(free_before - g, st_mem_free(self->fd, 1));

	ASSERT_EQ(0, st_mc_unbind(self->fd, h, 1, 0, g));
	want.binds--;
	want.mems--;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(free_before, st_mem_free(self->fd, 1));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* CUMC_MC_UNBIND */

TEST_F(mc, unbind_exact_range_only)
{
	const __u64 g = self->g;
	const struct {
		const char *what;
		__u32 device;
		__u64 mc_offset, length;
	} bad[] = {
		{ "never bound", 0, 0, g },
		{ "front part", 0, g, g },
		{ "back part", 0, 2 * g, g },
		{ "longer", 0, g, 3 * g },
		{ "starting before", 0, 0, 3 * g },
		{ "other member", 1, g, 2 * g },
		{ "past the object", 0, 4 * g, g },
		{ "zero length", 0, g, 0 },
	};
	struct cumc_mc_unbind u = { .size = sizeof(u), .mc_offset = g,
				    .length = 2 * g };
	struct st_objects want;
	__u64 h, mem;
	size_t i;

	h = team(_metadata, self->fd, 2, 4 * g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, 2 * g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, g, mem, 0, 2 * g));
	want = st_objects_now();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-ENXIO, st_mc_unbind(self->fd, h, bad[i].device,
					       bad[i].mc_offset, bad[i].length))
			TH_LOG("%s", bad[i].what);
	}
	u.handle = h;
	u.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_UNBIND, &u));
	u.flags = 0;
	u.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_UNBIND, &u));
	EXPECT_EQ(-ENOENT, st_mc_unbind(self->fd, mem, 0, g, 2 * g));
	ST_EXPECT_OBJECTS(want, views);

	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, g, 2 * g));
	EXPECT_EQ(-ENXIO, st_mc_unbind(self->fd, h, 0, g, 2 * g));
	want.binds--;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* Waiting for the team */

TEST_F(mc, bind_waits_for_team_shared_client)
{
	struct st_objects want;
	__u64 h, mem;
	pid_t pid;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->g, &mem));
	/* A forked child shares the client, and with it the handle. */
	pid = complete_when_asleep(self->fd, h, CUMC_MC_BIND_MEM, 1);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_wait_exit(pid));
	EXPECT_EQ(CUMC_TEAM_STATE_READY, mc_state(self->fd, h));
	want = self->open;
	want.mcs++;
	want.mems++;
	want.binds++;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_addr_waits_for_team_other_client)
{
	pid_t parent = getpid(), pid;
	struct uc uc;
	int efd;
	__u64 h;

	ASSERT_EQ(0, st_mc_create(self->fd, 3, CUMC_HANDLE_FD, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 2));
	uc_new(_metadata, self->fd, 2, self->g, &uc);
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Another client, another process: the way peers join. */
		int step = 0, fd = st_open();
		__u64 mine;

		if (!sleeps_in_ioctl(parent, CUMC_MC_BIND_ADDR))
			step = 1;
		if (fd < 0 || st_import_fd(fd, efd, &mine))
			_exit(2);
		if (mc_state(fd, mine) != CUMC_TEAM_STATE_FORMING)
			step = 3;
		if (st_mc_add(fd, mine, 0) || st_mc_add(fd, mine, 1))
			step = 4;
		_exit(step);
	}
	close(efd);
	EXPECT_EQ(0, st_mc_bind_addr(self->fd, h, 2, 0, uc.addr, self->g));
	EXPECT_EQ(0, st_wait_exit(pid));
	EXPECT_EQ(CUMC_TEAM_STATE_READY, mc_state(self->fd, h));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 2, 0, self->g));
	uc_free(_metadata, self->fd, &uc);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, map_waits_for_team)
{
	struct cumc_va_query q;
	__u64 h, va;
	pid_t pid;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, 2 * self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	ASSERT_EQ(0, st_va_reserve(self->fd, 2 * self->g, 0, 0, &va));
	pid = complete_when_asleep(self->fd, h, CUMC_MAP, 0);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, st_map(self->fd, va, 2 * self->g, h));
	EXPECT_EQ(0, st_wait_exit(pid));
	ASSERT_EQ(0, st_va_query(self->fd, va, 0, 0, &q));
	EXPECT_EQ(CUMC_VA_MULTICAST, q.out_type);
	EXPECT_EQ(va, q.out_map_addr);
	EXPECT_EQ(2 * self->g, q.out_map_length);
	EXPECT_EQ(0, st_unmap_free(self->fd, va, 2 * self->g));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_wait_interrupted_by_signal)
{
	pid_t parent = getpid(), pid;
	struct st_objects want;
	__u64 h, mem;
	char c;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->g, &mem));
	want = st_objects_now();
	/* No SA_RESTART: the wait ends with EINTR. */
	catch_sigusr1(_metadata, 0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		bool slept = sleeps_in_ioctl(parent, CUMC_MC_BIND_MEM);

		kill(parent, SIGUSR1);
		_exit(slept ? 0 : 1);
	}
	EXPECT_EQ(-EINTR, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_wait_exit(pid));
	EXPECT_EQ(1, read(sig_pipe[0], &c, 1));
	/* It left nothing behind, and the object is as it was. */
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, mc_state(self->fd, h));

	ASSERT_EQ(0, st_mc_add(self->fd, h, 1));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_wait_restarts_after_signal)
{
	pid_t parent = getpid(), pid;
	__u64 h, mem;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, self->g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->g, &mem));
	catch_sigusr1(_metadata, SA_RESTART);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int step = 0;
		char c;

		if (!sleeps_in_ioctl(parent, CUMC_MC_BIND_MEM))
			step = 1;
		kill(parent, SIGUSR1);
		/* The handler ran; then the call must wait again. */
		if (read(sig_pipe[0], &c, 1) != 1)
			step = 2;
		if (!sleeps_in_ioctl(parent, CUMC_MC_BIND_MEM))
			step = 3;
		if (st_mc_add(self->fd, h, 1))
			step = 4;
		_exit(step);
	}
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, self->g));
	EXPECT_EQ(0, st_wait_exit(pid));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, self->g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, bind_wait_killed_leaves_nothing)
{
	struct st_objects want;
	bool slept;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Member 1 never joins: this bind would wait forever. */
		int fd = st_open();
		__u64 h, mem;

		if (fd < 0 || st_mc_create(fd, 2, 0, self->g, &h) ||
		    st_mc_add(fd, h, 0) ||
		    st_mem_create(fd, 0, CUMC_HANDLE_FD, self->g, &mem))
			_exit(1);
		st_mc_bind_mem(fd, h, 0, 0, mem, 0, self->g);
		_exit(2);
	}
	slept = sleeps_in_ioctl(pid, CUMC_MC_BIND_MEM);
	EXPECT_TRUE(slept);
	if (slept) {
		want = self->open;
		want.clients++;
		want.mcs++;
		want.mems++;
		ST_EXPECT_OBJECTS(want, views);
	}
	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, st_wait_exit(pid));
	ST_EXPECT_OBJECTS(self->open, views);
}

/* A waiter of one process, killed, while two others use the object. */
static int wait_to_bind(int efd, __u64 mc_offset, __u64 length)
{
	int fd = st_open();
	__u64 h, mem;

	if (fd < 0 || st_import_fd(fd, efd, &h))
		return 1;
	close(efd);
	if (st_mem_create(fd, 0, CUMC_HANDLE_FD, length, &mem))
		return 2;
	if (st_mc_bind_mem(fd, h, 0, mc_offset, mem, 0, length))
		return 3;
	return mc_state(fd, h) == CUMC_TEAM_STATE_READY ? 0 : 4;
}

TEST_F(mc, killed_waiter_does_not_disturb_others)
{
	const __u64 g = self->g;
	struct st_objects want;
	bool slept[2];
	pid_t pid[2];
	__u64 h;
	int efd, i;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, CUMC_HANDLE_FD, 2 * g, &h));
	ASSERT_EQ(0, st_mc_add(self->fd, h, 0));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		if (pid[i] == 0)
			_exit(wait_to_bind(efd, i * g, g));
	}
	close(efd);
	ASSERT_LT(0, pid[0]);
	ASSERT_LT(0, pid[1]);
	for (i = 0; i < 2; i++) {
		slept[i] = sleeps_in_ioctl(pid[i], CUMC_MC_BIND_MEM);
		EXPECT_TRUE(slept[i]) TH_LOG("waiter %d", i);
	}
	if (!slept[0] || !slept[1]) {
		kill(pid[0], SIGKILL);
		kill(pid[1], SIGKILL);
		st_wait_exit(pid[0]);
		st_wait_exit(pid[1]);
	}
	ASSERT_TRUE(slept[0] && slept[1]);

	kill(pid[0], SIGKILL);
	EXPECT_EQ(128 + SIGKILL, st_wait_exit(pid[0]));
	/* The other waiter still waits, the object is as it was. */
	EXPECT_TRUE(sleeps_in_ioctl(pid[1], CUMC_MC_BIND_MEM));
	want = self->open;
	want.clients++;
	want.mcs++;
	want.mems++;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(CUMC_TEAM_STATE_FORMING, mc_state(self->fd, h));

	/* Completing the team lets it bind; its memory outlives its client. */
	EXPECT_EQ(0, st_mc_add(self->fd, h, 1));
	EXPECT_EQ(0, st_wait_exit(pid[1]));
	want.clients--;
	want.binds++;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(-ENXIO, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, g, g));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* Mapping the object, and member views */

TEST_F(mc, map_length_and_offset)
{
	const __u64 g = self->g;
	struct cumc_map m = { .size = sizeof(m), .length = g, .offset = g };
	struct cumc_va_query q;
	struct st_objects want;
	__u64 h, va;

	h = team(_metadata, self->fd, 2, 2 * g);
	ASSERT_EQ(0, st_va_reserve(self->fd, 4 * g, 0, 0, &va));
	want = st_objects_now();
	EXPECT_EQ(-EINVAL, st_map(self->fd, va, 3 * g, h));
	EXPECT_EQ(-EINVAL, st_map(self->fd, va, g / 2, h));
	m.addr = va;
	m.handle = h;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MAP, &m));
	ST_EXPECT_OBJECTS(want, views);

	/* Less than the object, from its start: like mscclpp's [0, end). */
	ASSERT_EQ(0, st_map(self->fd, va, g, h));
	ASSERT_EQ(0, st_va_query(self->fd, va, 0, 0, &q));
	EXPECT_EQ(CUMC_VA_MULTICAST, q.out_type);
	EXPECT_EQ(g, q.out_map_length);
	/* The whole object, next to it. */
	ASSERT_EQ(0, st_map(self->fd, va + g, 2 * g, h));
	want.mappings += 2;
	ST_EXPECT_OBJECTS(want, views);

	/* The mappings hold the object. */
	ASSERT_EQ(0, st_release(self->fd, h));
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(0, st_unmap(self->fd, va, 3 * g));
	EXPECT_EQ(0, st_va_free(self->fd, va, 4 * g));
}

TEST_F(mc, plain_access_to_mapping_faults)
{
	const __u64 g = self->g;
	struct cumc_access_desc both[] = {
		{ 0, CUMC_ACCESS_READWRITE }, { 1, CUMC_ACCESS_READWRITE },
	};
	struct cumc_va_query q;
	__u64 h, mem, va;

	h = team(_metadata, self->fd, 2, g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, g));
	ASSERT_EQ(0, st_va_reserve(self->fd, g, 0, 0, &va));
	ASSERT_EQ(0, st_map(self->fd, va, g, h));
	ASSERT_EQ(0, st_set_access(self->fd, va, g, both, 2));
	ASSERT_EQ(0, st_va_query(self->fd, va, 1, 0, &q));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, q.out_access);

	/* Bound and granted, yet only multimem operations may use it. */
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(va, false));
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(va + g - 1, true));

	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, view_refusals)
{
	const __u64 g = self->g;
	struct cumc_mc_view v = { .size = sizeof(v) };
	__u64 h, va, out, len, theirs, their_va;
	struct st_objects want;
	int other, efd;
	struct uc uc;

	h = team(_metadata, self->fd, 2, 2 * g);
	uc_new(_metadata, self->fd, 0, g, &uc);
	ASSERT_EQ(0, st_va_reserve(self->fd, 3 * g, 0, 0, &va));
	ASSERT_EQ(0, st_map(self->fd, va, 2 * g, h));
	want = st_objects_now();

	/* No device has access yet. */
	EXPECT_EQ(-EACCES, st_mc_view(self->fd, va, 0, &out, &len));
	ASSERT_EQ(0, st_grant(self->fd, va, 2 * g, 0, CUMC_ACCESS_READWRITE));

	/* Only the start of a multicast mapping names one. */
	EXPECT_EQ(-ENXIO, st_mc_view(self->fd, va + g, 0, &out, &len));
	EXPECT_EQ(-ENXIO, st_mc_view(self->fd, va + PAGE, 0, &out, &len));
	EXPECT_EQ(-ENXIO, st_mc_view(self->fd, va + 2 * g, 0, &out, &len));
	EXPECT_EQ(-ENXIO, st_mc_view(self->fd, uc.addr, 0, &out, &len));
	EXPECT_EQ(-ENXIO, st_mc_view(self->fd, (__u64)(uintptr_t)&v, 0, &out,
				     &len));
	/* Device 2 is no member. */
	EXPECT_EQ(-EINVAL, st_mc_view(self->fd, va, 2, &out, &len));
	/* Another client's mapping of the object is not this client's. */
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	other = st_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_import_fd(other, efd, &theirs));
	close(efd);
	ASSERT_EQ(0, st_map_new(other, theirs, g, 0, CUMC_ACCESS_READWRITE,
				&their_va));
	EXPECT_EQ(-ENXIO, st_mc_view(self->fd, their_va, 0, &out, &len));
	EXPECT_EQ(0, st_unmap_free(other, their_va, g));
	close(other);

	v.addr = va;
	v.out_addr = CANARY;
	v.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	v.flags = 0;
	v.__reserved = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	EXPECT_EQ(CANARY, v.out_addr);
	ST_EXPECT_OBJECTS(want, views);

	/* The same call with the right address and a member works. */
	ASSERT_EQ(0, st_mc_view(self->fd, va, 1, &out, &len));
	EXPECT_EQ(2 * g, len);
	EXPECT_EQ(0, munmap(ptr(out), len));

	EXPECT_EQ(0, st_unmap(self->fd, va, 2 * g));
	EXPECT_EQ(0, st_va_free(self->fd, va, 3 * g));
	uc_free(_metadata, self->fd, &uc);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, view_shows_bound_memory)
{
	const __u64 g = self->g;
	__u64 h, va, v0, v1, len0, len1;
	struct st_objects want;
	struct uc a, b;

	/*
	 * Member 0: memory a[0, g) at multicast [g, 2g), bound by handle.
	 * Member 1: memory b[g, 2g) at multicast [0, g), bound by address.
	 */
	h = team(_metadata, self->fd, 2, 2 * g);
	uc_new(_metadata, self->fd, 0, g, &a);
	uc_new(_metadata, self->fd, 1, 2 * g, &b);
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, g, a.handle, 0, g));
	ASSERT_EQ(0, st_mc_bind_addr(self->fd, h, 1, 0, b.addr + g, g));
	ASSERT_EQ(0, st_map_new(self->fd, h, 2 * g, 0, CUMC_ACCESS_READWRITE,
				&va));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 0, &v0, &len0));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 1, &v1, &len1));
	EXPECT_EQ(2 * g, len0);
	EXPECT_EQ(2 * g, len1);
	EXPECT_EQ(0, v0 % g);

	/* Stores through a view land in the member's memory... */
	*u32p(v0 + g + 8) = 0xa0a0a0a0;
	EXPECT_EQ(0xa0a0a0a0, *u32p(a.addr + 8));
	*u32p(v1 + g - 4) = 0xb1b1b1b1;
	EXPECT_EQ(0xb1b1b1b1, *u32p(b.addr + 2 * g - 4));
	/* ... and stores into the memory show through the view. */
	*u32p(a.addr + g - 4) = 0xa1a1a1a1;
	EXPECT_EQ(0xa1a1a1a1, *u32p(v0 + 2 * g - 4));
	*u32p(b.addr + g + 12) = 0xb0b0b0b0;
	EXPECT_EQ(0xb0b0b0b0, *u32p(v1 + 12));
	/* The unbound halves. */
	EXPECT_EQ(SIGBUS, probe_touch_in_child(v0, false));
	EXPECT_EQ(SIGBUS, probe_touch_in_child(v0 + g - 1, true));
	EXPECT_EQ(SIGBUS, probe_touch_in_child(v1 + g, false));
	/* The views and the memory share pages: those touched, no more. */
	want = self->open;
	want.mcs++;
	want.mems += 2;
	want.pages += g > PAGE ? 4 : 2;
	want.vas += 3;
	want.mappings += 3;
	want.binds += 2;
	want.views += 2;
	ST_EXPECT_OBJECTS(want, views);

	EXPECT_EQ(0, munmap(ptr(v0), len0));
	EXPECT_EQ(0, munmap(ptr(v1), len1));
	EXPECT_EQ(0, st_unmap_free(self->fd, va, 2 * g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, g, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, 0, g));
	uc_free(_metadata, self->fd, &a);
	uc_free(_metadata, self->fd, &b);
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* API version 2: a bind names its member by the memory's device. */
TEST_F(mc, bind_device_of_mem)
{
	const __u64 g = self->g;
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.device_from = CUMC_MC_BIND_DEVICE_OF_MEM,
		.length = g,
	};
	struct st_objects want;
	__u64 h, mem1, outside;

	h = team(_metadata, self->fd, 2, 2 * g);
	ASSERT_EQ(0, st_mem_create(self->fd, 1, CUMC_HANDLE_FD, g, &mem1));
	ASSERT_EQ(0, st_mem_create(self->fd, 2, CUMC_HANDLE_FD, g, &outside));
	b.handle = h;
	want = st_objects_now();

	/* Refused, changing nothing: a device given too, an unknown way. */
	b.mem = mem1;
	b.device = 1;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	b.device = 0;
	b.device_from = CUMC_MC_BIND_DEVICE_OF_MEM + 1;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	b.device_from = CUMC_MC_BIND_DEVICE_OF_MEM;
	b.__reserved2 = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	b.__reserved2 = 0;
	/* Memory of a device outside the team. */
	b.mem = outside;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	ST_EXPECT_OBJECTS(want, views);

	/* Bound for device 1, whose memory it is: its unbind names it. */
	b.mem = mem1;
	b.mc_offset = g;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	EXPECT_EQ(-ENXIO, st_mc_unbind(self->fd, h, 0, g, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, g, g));

	/* A version-1 struct ends before device_from: @device names it. */
	b.size = offsetof(struct cumc_mc_bind, device_from);
	b.device = 0;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	b.device = 1;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MC_BIND_MEM, &b));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, g, g));

	EXPECT_EQ(0, st_release(self->fd, outside));
	EXPECT_EQ(0, st_release(self->fd, mem1));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* API version 2: every member's view in one call, all or none. */
TEST_F(mc, view_all_members)
{
	const __u64 g = self->g;
	__u64 views[MAX_TEAM + 1], h, va;
	struct cumc_mc_view v;
	struct st_objects want;
	struct uc mem[3];
	void *ro;
	__u32 d;

	h = team(_metadata, self->fd, 3, g);
	for (d = 0; d < 3; d++) {
		uc_new(_metadata, self->fd, d, g, &mem[d]);
		ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, d, 0, mem[d].handle,
					    0, g));
		*u32p(mem[d].addr + 4 * d) = 0x100 + d;
	}
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 0, CUMC_ACCESS_READWRITE,
				&va));
	want = st_objects_now();

	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	/* Any address inside the mapping. */
	v.addr = va + PAGE;
	v.views = (__u64)(unsigned long)views;
	/* Too small an array, a device with the array, a count without it. */
	v.num_views = 2;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	v.num_views = MAX_TEAM + 1;
	v.device = 1;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	v.device = 0;
	v.views = 0;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	v.__reserved2 = 1;
	v.views = (__u64)(unsigned long)views;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	v.__reserved2 = 0;
	/* An array the answer cannot be written to: no view is left. */
	ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	v.views = (__u64)(unsigned long)ro;
	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	EXPECT_EQ(0, munmap(ro, PAGE));
	ST_EXPECT_OBJECTS(want, views);

	v.views = (__u64)(unsigned long)views;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MC_VIEW, &v));
	EXPECT_EQ(3, v.out_num_members);
	EXPECT_EQ(va, v.out_map_addr);
	EXPECT_EQ(g, v.out_length);
	EXPECT_EQ(CUMC_ACCESS_READWRITE, v.out_access);
	EXPECT_EQ(views[0], v.out_addr);
	want.views += 3;
	ST_EXPECT_OBJECTS(want, views);
	/*
	 * In join order, each the member's memory, read-write, member d's
	 * view d pages past an aligned address (so that the members' pages
	 * at one offset fall in different sets of a TLB).
	 */
	for (d = 0; d < 3; d++) {
		EXPECT_EQ(d * PAGE % g, views[d] % g);
		EXPECT_EQ(0x100 + d, *u32p(views[d] + 4 * d));
		*u32p(views[d] + g - 4) = 0x200 + d;
		EXPECT_EQ(0x200 + d, *u32p(mem[d].addr + g - 4));
		EXPECT_EQ(0, munmap(ptr(views[d]), g));
	}

	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	for (d = 0; d < 3; d++) {
		EXPECT_EQ(0, st_mc_unbind(self->fd, h, d, 0, g));
		uc_free(_metadata, self->fd, &mem[d]);
	}
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, unbind_zaps_views)
{
	const __u64 g = self->g;
	__u64 h, va, view, len;
	struct uc a;

	h = team(_metadata, self->fd, 2, g);
	uc_new(_metadata, self->fd, 0, 2 * g, &a);
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, a.handle, 0, g));
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 0, CUMC_ACCESS_READWRITE, &va));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 0, &view, &len));
	*u32p(a.addr) = 1;
	/* Now the view has a page table entry for the binding's page. */
	EXPECT_EQ(1, *u32p(view));

	ASSERT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(SIGBUS, probe_touch_in_child(view, false));
	EXPECT_EQ(SIGBUS, probe_touch_in_child(view, true));
	EXPECT_EQ(1, *u32p(a.addr));

	/* A new binding shows through the same view. */
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, a.handle, g, g));
	*u32p(a.addr + g) = 2;
	EXPECT_EQ(2, *u32p(view));

	EXPECT_EQ(0, munmap(ptr(view), len));
	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	uc_free(_metadata, self->fd, &a);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, views_in_two_processes_share_data)
{
	const __u64 g = self->g;
	__u64 h, mem, va, view, len;
	int sv[2];
	pid_t pid;

	h = team(_metadata, self->fd, 2, g);
	ASSERT_EQ(0, st_mem_create(self->fd, 1, CUMC_HANDLE_FD, g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 1, 0, mem, 0, g));
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 1, CUMC_ACCESS_READWRITE, &va));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 1, &view, &len));
	*u32p(view + 16) = 0x600d;
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Same client; its own reservation, mapping and view. */
		__u64 cva, cview, clen;

		close(sv[0]);
		if (st_map_new(self->fd, h, g, 1, CUMC_ACCESS_READWRITE, &cva))
			_exit(1);
		if (st_mc_view(self->fd, cva, 1, &cview, &clen) || clen != g)
			_exit(2);
		if (*u32p(cview + 16) != 0x600d)
			_exit(3);
		*u32p(cview + 32) = 0xc41d;
		if (send_byte(sv[1], 'w') || recv_byte(sv[1]) != 'u')
			_exit(4);
		/* The parent unbound: this process's view went too. */
		if (probe_touch_in_child(cview + 32, false) != SIGBUS)
			_exit(5);
		_exit(0);
	}
	close(sv[1]);
	EXPECT_EQ('w', recv_byte(sv[0]));
	EXPECT_EQ(0xc41d, *u32p(view + 32));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 1, 0, g));
	EXPECT_EQ(0, send_byte(sv[0], 'u'));
	EXPECT_EQ(0, st_wait_exit(pid));
	close(sv[0]);

	EXPECT_EQ(0, munmap(ptr(view), len));
	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, read_access_gives_read_only_view)
{
	const __u64 g = self->g;
	__u64 h, va, view, len;
	struct uc a;

	h = team(_metadata, self->fd, 2, g);
	uc_new(_metadata, self->fd, 0, g, &a);
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, a.handle, 0, g));
	*u32p(a.addr) = 0x5eed;
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 1, CUMC_ACCESS_READ, &va));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 0, &view, &len));

	EXPECT_EQ(0, probe_touch_in_child(view, false));
	EXPECT_EQ(0x5eed, *u32p(view));
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(view, true));
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(view + len - 1, true));
	/* Nor can the process make it writable itself. */
	EXPECT_NE(0, mprotect(ptr(view), len, PROT_READ | PROT_WRITE));
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(view, true));
	EXPECT_EQ(0x5eed, *u32p(a.addr));

	EXPECT_EQ(0, munmap(ptr(view), len));
	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	uc_free(_metadata, self->fd, &a);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mc, view_holds_object)
{
	const __u64 g = self->g;
	__u64 h, mem, va, view, len;
	struct st_objects want;

	h = team(_metadata, self->fd, 2, g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, g));
	ASSERT_EQ(0, st_map_new(self->fd, h, g, 0, CUMC_ACCESS_READWRITE, &va));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 0, &view, &len));
	*u32p(view) = 7;

	/* Handles, mapping and reservation gone: only the view is left. */
	ASSERT_EQ(0, st_release(self->fd, mem));
	ASSERT_EQ(0, st_release(self->fd, h));
	ASSERT_EQ(0, st_unmap_free(self->fd, va, g));
	want = self->open;
	want.mcs++;
	want.binds++;
	want.mems++;
	want.pages++;
	want.views++;
	ST_EXPECT_OBJECTS(want, views);
	EXPECT_EQ(7, *u32p(view));

	EXPECT_EQ(0, munmap(ptr(view), len));
	ST_EXPECT_OBJECTS(self->open, views);
}

/* Teams of processes */

/* What rank @rank of a team of processes stores in its memory. */
static __u32 rank_mark(__u32 rank)
{
	return 0xc0de0000 | rank;
}

/*
 * One process of a team, the way NCCL, PyTorch and NVSHMEM ranks join: the
 * object comes over @sock from rank 0; the process adds its own device
 * (its rank), binds memory of its own, maps the object and views every
 * member. Returns 0, or the step that failed.
 */
static int team_member(int sock, __u32 rank, __u32 n, __u64 g)
{
	__u64 h, mem, uc, va, view[MAX_TEAM], len;
	int fd, efd;
	__u32 i;

	efd = fdpass_recv(sock);
	if (efd < 0)
		return 1;
	fd = st_open();
	if (fd < 0 || st_import_fd(fd, efd, &h))
		return 2;
	close(efd);
	if (st_mc_add(fd, h, rank) || send_byte(sock, 'a'))
		return 3;
	if (st_mem_create(fd, rank, CUMC_HANDLE_FD, g, &mem) ||
	    st_mc_bind_mem(fd, h, rank, 0, mem, 0, g))
		return 4;
	if (st_map_new(fd, mem, g, rank, CUMC_ACCESS_READWRITE, &uc))
		return 5;
	*u32p(uc) = rank_mark(rank);
	if (st_map_new(fd, h, g, rank, CUMC_ACCESS_READWRITE, &va))
		return 6;
	for (i = 0; i < n; i++)
		if (st_mc_view(fd, va, i, &view[i], &len) || len != g)
			return 7;
	if (send_byte(sock, 'w') || recv_byte(sock) != 'r')
		return 8;
	for (i = 0; i < n; i++)
		if (*u32p(view[i]) != rank_mark(i))
			return 9;
	if (send_byte(sock, 'k') || recv_byte(sock) != 'x')
		return 10;
	/* Half the team gives everything back; the other half just exits. */
	if (rank % 2)
		return 0;
	for (i = 0; i < n; i++)
		if (munmap(ptr(view[i]), g))
			return 11;
	if (st_mc_unbind(fd, h, rank, 0, g) || st_unmap_free(fd, va, g) ||
	    st_unmap_free(fd, uc, g) || st_release(fd, mem) ||
	    st_release(fd, h))
		return 12;
	close(fd);
	return 0;
}

/* Whether every rank from 1 to @n - 1 sends @c next. */
static bool all_send(const int *socks, __u32 n, char c)
{
	bool ok = true;
	__u32 r;

	for (r = 1; r < n; r++)
		if (recv_byte(socks[r]) != c)
			ok = false;
	return ok;
}

TEST_F(mc, team_of_processes)
{
	const __u64 g = self->g;
	const __u32 n = self->num_devices < MAX_TEAM ? self->num_devices :
						       MAX_TEAM;
	__u64 h, mem = 0, uc = 0, va = 0, view[MAX_TEAM] = { 0 }, len;
	int socks[MAX_TEAM], sv[2], efd, status;
	pid_t pids[MAX_TEAM] = { 0 };
	struct st_objects want;
	__u32 r, i;

	ASSERT_EQ(0, st_mc_create(self->fd, n, CUMC_HANDLE_FD, g, &h));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	for (r = 1; r < n; r++) {
		ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
					sv));
		pids[r] = fork();
		ASSERT_LE(0, pids[r]);
		if (pids[r] == 0) {
			/* Only what comes over the socket, like a peer. */
			close(self->fd);
			close(efd);
			close(sv[0]);
			for (i = 1; i < r; i++)
				close(socks[i]);
			_exit(team_member(sv[1], r, n, g));
		}
		close(sv[1]);
		socks[r] = sv[0];
	}
	/*
	 * From here on no ASSERT: a failure must still reach the end, where
	 * the other ranks are killed rather than left waiting.
	 */
	for (r = 1; r < n; r++) {
		EXPECT_EQ(0, fdpass_send(socks[r], efd));
	}
	close(efd);
	/* Like NVSHMEM's PE 0, rank 0 adds its device after the broadcast. */
	EXPECT_EQ(0, st_mc_add(self->fd, h, 0));
	/* The barrier NCCL holds before binding, so that no bind blocks long. */
	EXPECT_TRUE(all_send(socks, n, 'a'));
	if (!_metadata->passed)
		goto out;

	EXPECT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g, &mem));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, g));
	EXPECT_EQ(0, st_map_new(self->fd, mem, g, 0, CUMC_ACCESS_READWRITE,
				&uc));
	EXPECT_EQ(0, st_map_new(self->fd, h, g, 0, CUMC_ACCESS_READWRITE, &va));
	for (i = 0; _metadata->passed && i < n; i++) {
		EXPECT_EQ(0, st_mc_view(self->fd, va, i, &view[i], &len));
	}
	if (!_metadata->passed)
		goto out;
	*u32p(uc) = rank_mark(0);
	EXPECT_TRUE(all_send(socks, n, 'w'));
	for (r = 1; r < n; r++) {
		EXPECT_EQ(0, send_byte(socks[r], 'r'));
	}
	for (i = 0; i < n; i++) {
		EXPECT_EQ(rank_mark(i), *u32p(view[i])) TH_LOG("member %u", i);
	}
	EXPECT_TRUE(all_send(socks, n, 'k'));
	if (!_metadata->passed)
		goto out;

	/* Rank 0 leaves first; the others still hold the object. */
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, munmap(ptr(view[i]), g));
	}
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	EXPECT_EQ(0, st_unmap_free(self->fd, uc, g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
	want = st_objects_now();
	EXPECT_EQ(self->base.mcs + 1, want.mcs);
	EXPECT_EQ(self->base.binds + n - 1, want.binds);
	/* Then the others, last rank first. */
	for (r = n - 1; r >= 1; r--) {
		EXPECT_EQ(0, send_byte(socks[r], 'x'));
		EXPECT_EQ(0, st_wait_exit(pids[r])) TH_LOG("rank %u", r);
		pids[r] = 0;
	}
	ST_EXPECT_OBJECTS(self->open, views);
out:
	for (r = 1; r < n; r++) {
		close(socks[r]);
		if (pids[r]) {
			kill(pids[r], SIGKILL);
			waitpid(pids[r], &status, 0);
		}
	}
}

TEST_F(mc, killed_member_keeps_binding)
{
	const __u64 g = self->g;
	__u64 h, mem, va, v0, v1, v1_again, len;
	int sv[2], efd;
	bool set_up;
	struct st_objects want;
	pid_t pid;

	ASSERT_EQ(0, st_mc_create(self->fd, 2, CUMC_HANDLE_FD, g, &h));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Rank 1: binds, stores, tells, and waits to be killed. */
		int fd = st_open();
		__u64 ch, cmem, cuc;

		close(sv[0]);
		if (fd < 0 || st_import_fd(fd, efd, &ch) ||
		    st_mc_add(fd, ch, 1))
			_exit(1);
		if (st_mem_create(fd, 1, CUMC_HANDLE_FD, g, &cmem) ||
		    st_mc_bind_mem(fd, ch, 1, 0, cmem, 0, g))
			_exit(2);
		if (st_map_new(fd, cmem, g, 1, CUMC_ACCESS_READWRITE, &cuc))
			_exit(3);
		*u32p(cuc) = 0x5a5a5a5a;
		*u32p(cuc + g - 4) = 0xa5a5a5a5;
		send_byte(sv[1], 'b');
		recv_byte(sv[1]);
		_exit(4);
	}
	close(sv[1]);
	close(efd);
	EXPECT_EQ(0, st_mc_add(self->fd, h, 0));
	EXPECT_EQ('b', recv_byte(sv[0]));
	set_up = _metadata->passed;
	if (set_up) {
		EXPECT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, g,
					   &mem));
		EXPECT_EQ(0, st_mc_bind_mem(self->fd, h, 0, 0, mem, 0, g));
		EXPECT_EQ(0, st_map_new(self->fd, h, g, 0,
					CUMC_ACCESS_READWRITE, &va));
		EXPECT_EQ(0, st_mc_view(self->fd, va, 0, &v0, &len));
		EXPECT_EQ(0, st_mc_view(self->fd, va, 1, &v1, &len));
	}
	kill(pid, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, st_wait_exit(pid));
	close(sv[0]);
	ASSERT_TRUE(set_up && _metadata->passed);

	/* Its memory is still bound, with what it stored, for everyone. */
	EXPECT_EQ(0x5a5a5a5a, *u32p(v1));
	ASSERT_EQ(0, st_mc_view(self->fd, va, 1, &v1_again, &len));
	EXPECT_EQ(0xa5a5a5a5, *u32p(v1_again + g - 4));
	*u32p(v1 + 4) = 0x77;
	EXPECT_EQ(0x77, *u32p(v1_again + 4));
	*u32p(v0) = 0x11;
	want = self->open;
	want.mcs++;
	want.mems += 2;
	want.pages += g > PAGE ? 3 : 2;
	want.vas++;
	want.mappings++;
	want.binds += 2;
	want.views += 3;
	ST_EXPECT_OBJECTS(want, views);

	/* It goes with the object, when the last view of it is gone. */
	EXPECT_EQ(0, st_mc_unbind(self->fd, h, 0, 0, g));
	EXPECT_EQ(0, st_release(self->fd, mem));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_unmap_free(self->fd, va, g));
	EXPECT_EQ(0, munmap(ptr(v0), g));
	EXPECT_EQ(0, munmap(ptr(v1), g));
	want = st_objects_now();
	EXPECT_EQ(self->base.binds + 1, want.binds);
	EXPECT_EQ(self->base.mems + 1, want.mems);
	EXPECT_EQ(0, munmap(ptr(v1_again), g));
	ST_EXPECT_OBJECTS(self->open, views);
}

TEST_HARNESS_MAIN
