// SPDX-License-Identifier: GPL-2.0
/*
 * Kill anywhere: processes SIGKILLed at random points of their use of
 * /dev/cumc, among them while blocked in a bind waiting for a team that is
 * not complete, while this process maps the objects they exported, and in
 * the middle of binds and unbinds of a team shared with this process.
 * Afterwards nothing is left (live-object counts, every device's mem_free)
 * and the survivor (this process) still reads its data through the mappings
 * it had before and got from the dead.
 *
 * Seeded (CUMC_KILL_SEED) and bounded by a number of rounds
 * (CUMC_KILL_ROUNDS).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define DEFAULT_ROUNDS 32

enum kill_kind {
	KILL_TEAM_WAIT, KILL_WHILE_MAPPED, KILL_MID_BIND, KILL_RANDOM,
	NUM_KINDS
};

static const char *const kind_names[NUM_KINDS] = {
	"blocked in bind waiting for the team",
	"while the survivor maps its export",
	"mid bind/unbind in a shared team",
	"at a random point",
};

static __u64 gran;
static __u32 ndev;

static int mc_create(int fd, __u32 n, __u64 length, __u64 *h)
{
	struct cumc_mc_create c = {
		.size = sizeof(c), .num_devices = n,
		.handle_types = CUMC_HANDLE_FD, .length = length,
	};
	int ret = cumc_ioctl(fd, CUMC_MC_CREATE, &c);

	*h = c.out_handle;
	return ret;
}

static int mc_add(int fd, __u64 h, __u32 device)
{
	struct cumc_mc_add_device a = {
		.size = sizeof(a), .handle = h, .device = device,
	};

	return cumc_ioctl(fd, CUMC_MC_ADD_DEVICE, &a);
}

static int mc_bind(int fd, __u64 h, __u32 device, __u64 mem)
{
	struct cumc_mc_bind b = {
		.size = sizeof(b), .handle = h, .device = device,
		.mem = mem, .length = gran,
	};

	return cumc_ioctl(fd, CUMC_MC_BIND_MEM, &b);
}

static int mc_unbind(int fd, __u64 h, __u32 device)
{
	struct cumc_mc_unbind u = {
		.size = sizeof(u), .handle = h, .device = device,
		.length = gran,
	};

	return cumc_ioctl(fd, CUMC_MC_UNBIND, &u);
}

static int export_fd(int fd, __u64 h)
{
	struct cumc_export_fd e = { .size = sizeof(e), .handle = h };

	return cumc_ioctl(fd, CUMC_EXPORT_FD, &e) ?: e.out_fd;
}

static int import_fd(int fd, int efd, __u64 *h)
{
	struct cumc_import_fd i = { .size = sizeof(i), .fd = efd };
	int ret = cumc_ioctl(fd, CUMC_IMPORT_FD, &i);

	*h = i.out_handle;
	return ret;
}

/* Reserve, map and grant device 0 read-write; the address or 0. */
static __u64 map_rw(int fd, __u64 h, __u64 length)
{
	struct cumc_access_desc d = { 0, CUMC_ACCESS_READWRITE };
	__u64 addr;

	if (cumc_va_reserve(fd, length, 0, 0, &addr))
		return 0;
	if (cumc_map(fd, addr, length, h) ||
	    cumc_set_access(fd, addr, length, &d, 1)) {
		cumc_unmap(fd, addr, length);
		cumc_va_free(fd, addr, length);
		return 0;
	}
	return addr;
}

static int unmap_free(int fd, __u64 addr, __u64 length)
{
	return cumc_unmap(fd, addr, length) ?: cumc_va_free(fd, addr, length);
}

static volatile __u64 *word(__u64 addr)
{
	return (volatile __u64 *)(uintptr_t)addr;
}

static int send_fd(int sock, int fd)
{
	char c = 'f', ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &c, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &c, 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Whether @pid sleeps (state S in /proc/PID/stat), waiting up to 2 s. */
static bool wait_sleeping(pid_t pid)
{
	char path[64], buf[256], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (i = 0; i < 200; i++) {
		FILE *f = fopen(path, "r");

		if (!f)
			return false;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			return true;
		sleep_us(10000);
	}
	return false;
}

/*
 * The victims. Each tells the survivor over @sock when it reached the
 * point of interest, then carries on until killed.
 */

/* Joins a team of two that never completes, and binds: blocks. */
static int victim_team_wait(int sock, unsigned int seed)
{
	int fd = cumc_open();
	__u64 h, mem;

	if (fd < 0 || mc_create(fd, 2, gran, &h) ||
	    mc_add(fd, h, seed % ndev) ||
	    cumc_mem_create(fd, seed % ndev, CUMC_HANDLE_FD, gran, &mem))
		return 1;
	if (write(sock, "b", 1) != 1)
		return 1;
	mc_bind(fd, h, seed % ndev, mem);
	/* Only a failed team or a signal ends the wait. */
	return 1;
}

/* Exports an allocation holding data, then keeps creating and mapping. */
static int victim_export(int sock, unsigned int seed)
{
	int fd = cumc_open(), efd;
	__u64 h, addr;

	if (fd < 0 || cumc_mem_create(fd, 0, CUMC_HANDLE_FD, gran, &h))
		return 1;
	addr = map_rw(fd, h, gran);
	if (!addr)
		return 1;
	*word(addr) = seed;
	efd = export_fd(fd, h);
	if (efd < 0 || send_fd(sock, efd))
		return 1;
	for (;;) {
		__u64 h2, a2;

		if (cumc_mem_create(fd, seed++ % ndev, CUMC_HANDLE_FD, gran,
				    &h2))
			continue;
		a2 = map_rw(fd, h2, gran);
		if (a2) {
			*word(a2) = seed;
			unmap_free(fd, a2, gran);
		}
		cumc_release(fd, h2);
	}
}

/* Imports the survivor's team object, joins, then binds and unbinds. */
static int victim_team_member(int sock, unsigned int device)
{
	int fd = cumc_open(), efd = recv_fd(sock);
	__u64 h, mem;

	if (fd < 0 || efd < 0 || import_fd(fd, efd, &h) ||
	    mc_add(fd, h, device) ||
	    cumc_mem_create(fd, device, CUMC_HANDLE_FD, gran, &mem))
		return 1;
	close(efd);
	if (write(sock, "j", 1) != 1)
		return 1;
	for (;;) {
		if (mc_bind(fd, h, device, mem) || mc_unbind(fd, h, device))
			return 1;
	}
}

/* A random valid sequence, for ever. */
static int victim_random(int sock, unsigned int seed)
{
	int fd = cumc_open(), efd;
	__u64 h, h2, mc, addr;

	if (fd < 0 || write(sock, "r", 1) != 1)
		return 1;
	for (;;) {
		__u32 dev = rand_r(&seed) % ndev;

		if (cumc_mem_create(fd, dev, CUMC_HANDLE_FD, gran, &h))
			continue;
		addr = map_rw(fd, h, gran);
		if (addr)
			*word(addr) = seed;
		efd = export_fd(fd, h);
		if (efd >= 0 && !import_fd(fd, efd, &h2))
			cumc_release(fd, h2);
		if (efd >= 0)
			close(efd);
		if (!mc_create(fd, 1, gran, &mc)) {
			if (!mc_add(fd, mc, dev) && !mc_bind(fd, mc, dev, h) &&
			    rand_r(&seed) % 2)
				mc_unbind(fd, mc, dev);
			cumc_release(fd, mc);
		}
		if (addr && rand_r(&seed) % 2)
			unmap_free(fd, addr, gran);
		cumc_release(fd, h);
	}
}

static pid_t spawn(int (*fn)(int, unsigned int), unsigned int arg,
		   int *sock)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		_exit(fn(sv[1], arg));
	}
	close(sv[1]);
	*sock = sv[0];
	return pid;
}

static int kill_wait(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? 0 : -1;
}

static long env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

FIXTURE(kill) {
};

FIXTURE_SETUP(kill)
{
}

FIXTURE_TEARDOWN(kill)
{
}

TEST_F_TIMEOUT(kill, anywhere, 300)
{
	unsigned int seed = env_long("CUMC_KILL_SEED", 20261122);
	long rounds = env_long("CUMC_KILL_ROUNDS", DEFAULT_ROUNDS), r;
	long kills[NUM_KINDS] = { 0 }, not_blocked = 0;
	struct cumc_objects base, now;
	struct cumc_device_info info;
	__u64 keep, keep_va;
	int fd, i;

	fd = cumc_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, cumc_device_info(fd, 0, &info));
	gran = info.granularity;
	ndev = cumc_num_devices(fd);
	ASSERT_LE(2, ndev);
	ASSERT_EQ(0, cumc_objects_read(&base));
	TH_LOG("seed %u, %ld rounds", seed, rounds);

	/* The survivor's own data, read again after every round. */
	ASSERT_EQ(0, cumc_mem_create(fd, 0, CUMC_HANDLE_FD, gran, &keep));
	keep_va = map_rw(fd, keep, gran);
	ASSERT_NE(0, keep_va);
	*word(keep_va) = 0x5eed;

	for (r = 0; r < rounds && _metadata->passed; r++) {
		enum kill_kind kind = rand_r(&seed) % NUM_KINDS;
		long delay = rand_r(&seed) % 20000;
		int sock = -1, efd;
		__u64 h, addr, mc;
		char c;
		pid_t pid;

		switch (kind) {
		case KILL_TEAM_WAIT:
			pid = spawn(victim_team_wait, seed, &sock);
			ASSERT_LT(0, pid);
			EXPECT_EQ(1, read(sock, &c, 1));
			if (!wait_sleeping(pid))
				not_blocked++;
			EXPECT_EQ(0, kill_wait(pid));
			break;
		case KILL_WHILE_MAPPED:
			pid = spawn(victim_export, seed, &sock);
			ASSERT_LT(0, pid);
			efd = recv_fd(sock);
			EXPECT_LE(0, efd);
			if (efd < 0) {
				kill_wait(pid);
				break;
			}
			/* Kill before, during or after our import and map. */
			if (delay < 5000)
				EXPECT_EQ(0, kill_wait(pid));
			EXPECT_EQ(0, import_fd(fd, efd, &h));
			close(efd);
			if (delay >= 5000 && delay < 10000)
				kill(pid, SIGKILL);
			addr = map_rw(fd, h, gran);
			EXPECT_NE(0, addr);
			EXPECT_EQ(0, cumc_release(fd, h));
			if (delay >= 5000)
				EXPECT_EQ(0, kill_wait(pid));
			if (addr) {
				EXPECT_EQ(seed, *word(addr));
				EXPECT_EQ(0, unmap_free(fd, addr, gran));
			}
			break;
		case KILL_MID_BIND:
			ASSERT_EQ(0, mc_create(fd, 2, gran, &mc));
			pid = spawn(victim_team_member,
				    1 + seed % (ndev - 1), &sock);
			ASSERT_LT(0, pid);
			efd = export_fd(fd, mc);
			EXPECT_LE(0, efd);
			EXPECT_EQ(0, send_fd(sock, efd));
			close(efd);
			EXPECT_EQ(0, mc_add(fd, mc, 0));
			EXPECT_EQ(1, read(sock, &c, 1));
			EXPECT_EQ(0, mc_bind(fd, mc, 0, keep));
			sleep_us(delay);
			EXPECT_EQ(0, kill_wait(pid));
			/* Our binding is still there, and our data. */
			EXPECT_EQ(0, mc_unbind(fd, mc, 0));
			EXPECT_EQ(0, cumc_release(fd, mc));
			break;
		default:
			pid = spawn(victim_random, seed, &sock);
			ASSERT_LT(0, pid);
			EXPECT_EQ(1, read(sock, &c, 1));
			sleep_us(delay);
			EXPECT_EQ(0, kill_wait(pid));
			break;
		}
		close(sock);
		kills[kind]++;
		EXPECT_EQ(0x5eed, *word(keep_va)) TH_LOG("round %ld", r);
	}

	for (i = 0; i < NUM_KINDS; i++)
		TH_LOG("killed %-38s %4ld", kind_names[i], kills[i]);
	TH_LOG("(of which %ld not seen asleep in the wait)", not_blocked);

	EXPECT_EQ(0x5eed, *word(keep_va));
	EXPECT_EQ(0, unmap_free(fd, keep_va, gran));
	EXPECT_EQ(0, cumc_release(fd, keep));
	EXPECT_EQ(0, cumc_objects_settle(&base, &now, 2000)) {
		cumc_objects_diff(&base, &now);
	}
	EXPECT_EQ(0, cumc_devices_not_free(fd));
	close(fd);
}

TEST_HARNESS_MAIN
