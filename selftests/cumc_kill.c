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

static volatile __u64 *word(__u64 addr)
{
	return (volatile __u64 *)(uintptr_t)addr;
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
	int fd = st_open();
	__u64 h, mem;

	if (fd < 0 || st_mc_create(fd, 2, CUMC_HANDLE_FD, gran, &h) ||
	    st_mc_add(fd, h, seed % ndev) ||
	    st_mem_create(fd, seed % ndev, CUMC_HANDLE_FD, gran, &mem))
		return 1;
	if (write(sock, "b", 1) != 1)
		return 1;
	st_mc_bind_mem(fd, h, seed % ndev, 0, mem, 0, gran);
	/* Only a failed team or a signal ends the wait. */
	return 1;
}

/* Exports an allocation holding data, then keeps creating and mapping. */
static int victim_export(int sock, unsigned int seed)
{
	int fd = st_open(), efd;
	__u64 h, addr;

	if (fd < 0 || st_mem_create(fd, 0, CUMC_HANDLE_FD, gran, &h))
		return 1;
	if (st_map_new(fd, h, gran, 0, CUMC_ACCESS_READWRITE, &addr))
		return 1;
	*word(addr) = seed;
	if (st_export_fd(fd, h, &efd) || fdpass_send(sock, efd))
		return 1;
	for (;;) {
		__u64 h2, a2;

		if (st_mem_create(fd, seed++ % ndev, CUMC_HANDLE_FD, gran,
				  &h2))
			continue;
		if (!st_map_new(fd, h2, gran, 0, CUMC_ACCESS_READWRITE,
				&a2)) {
			*word(a2) = seed;
			st_unmap_free(fd, a2, gran);
		}
		st_release(fd, h2);
	}
}

/* Imports the survivor's team object, joins, then binds and unbinds. */
static int victim_team_member(int sock, unsigned int device)
{
	int fd = st_open(), efd = fdpass_recv(sock);
	__u64 h, mem;

	if (fd < 0 || efd < 0 || st_import_fd(fd, efd, &h) ||
	    st_mc_add(fd, h, device) ||
	    st_mem_create(fd, device, CUMC_HANDLE_FD, gran, &mem))
		return 1;
	close(efd);
	if (write(sock, "j", 1) != 1)
		return 1;
	for (;;) {
		if (st_mc_bind_mem(fd, h, device, 0, mem, 0, gran) ||
		    st_mc_unbind(fd, h, device, 0, gran))
			return 1;
	}
}

/* A random valid sequence, for ever. */
static int victim_random(int sock, unsigned int seed)
{
	int fd = st_open(), efd;
	__u64 h, h2, mc, addr;

	if (fd < 0 || write(sock, "r", 1) != 1)
		return 1;
	for (;;) {
		__u32 dev = rand_r(&seed) % ndev;

		if (st_mem_create(fd, dev, CUMC_HANDLE_FD, gran, &h))
			continue;
		addr = 0;
		if (!st_map_new(fd, h, gran, 0, CUMC_ACCESS_READWRITE, &addr))
			*word(addr) = seed;
		if (!st_export_fd(fd, h, &efd)) {
			if (!st_import_fd(fd, efd, &h2))
				st_release(fd, h2);
			close(efd);
		}
		if (!st_mc_create(fd, 1, CUMC_HANDLE_FD, gran, &mc)) {
			if (!st_mc_add(fd, mc, dev) &&
			    !st_mc_bind_mem(fd, mc, dev, 0, h, 0, gran) &&
			    rand_r(&seed) % 2)
				st_mc_unbind(fd, mc, dev, 0, gran);
			st_release(fd, mc);
		}
		if (addr && rand_r(&seed) % 2)
			st_unmap_free(fd, addr, gran);
		st_release(fd, h);
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

FIXTURE(kill) {
};

FIXTURE_SETUP(kill)
{
}

FIXTURE_TEARDOWN(kill)
{
}

TEST_F(kill, anywhere)
{
	unsigned int seed = st_env_long("CUMC_KILL_SEED", 20261122);
	long rounds = st_env_long("CUMC_KILL_ROUNDS", DEFAULT_ROUNDS), r;
	long kills[NUM_KINDS] = { 0 }, not_blocked = 0;
	struct st_objects base, now;
	struct cumc_device_info info;
	__u64 keep, keep_va;
	int fd, i;

	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, st_device_info(fd, 0, &info));
	gran = info.granularity;
	ndev = st_num_devices(fd);
	ASSERT_LE(2, ndev);
	ASSERT_EQ(0, st_objects_read(&base));
	TH_LOG("seed %u, %ld rounds", seed, rounds);

	/* The survivor's own data, read again after every round. */
	ASSERT_EQ(0, st_mem_create(fd, 0, CUMC_HANDLE_FD, gran, &keep));
	ASSERT_EQ(0, st_map_new(fd, keep, gran, 0, CUMC_ACCESS_READWRITE,
				&keep_va));
	*word(keep_va) = 0x5eed;

	for (r = 0; r < rounds && _metadata->passed; r++) {
		enum kill_kind kind = rand_r(&seed) % NUM_KINDS;
		long delay = rand_r(&seed) % 20000;
		int sock = -1, efd = -1;
		__u64 h = 0, addr, mc;
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
			efd = fdpass_recv(sock);
			EXPECT_LE(0, efd);
			if (efd < 0) {
				kill_wait(pid);
				break;
			}
			/* Kill before, during or after our import and map. */
			if (delay < 5000)
				EXPECT_EQ(0, kill_wait(pid));
			EXPECT_EQ(0, st_import_fd(fd, efd, &h));
			close(efd);
			if (delay >= 5000 && delay < 10000)
				kill(pid, SIGKILL);
			addr = 0;
			EXPECT_EQ(0, st_map_new(fd, h, gran, 0,
						CUMC_ACCESS_READWRITE, &addr));
			EXPECT_EQ(0, st_release(fd, h));
			if (delay >= 5000)
				EXPECT_EQ(0, kill_wait(pid));
			if (addr) {
				EXPECT_EQ(seed, *word(addr));
				EXPECT_EQ(0, st_unmap_free(fd, addr, gran));
			}
			break;
		case KILL_MID_BIND:
			ASSERT_EQ(0, st_mc_create(fd, 2, CUMC_HANDLE_FD, gran,
						  &mc));
			pid = spawn(victim_team_member,
				    1 + seed % (ndev - 1), &sock);
			ASSERT_LT(0, pid);
			EXPECT_EQ(0, st_export_fd(fd, mc, &efd));
			EXPECT_EQ(0, fdpass_send(sock, efd));
			close(efd);
			EXPECT_EQ(0, st_mc_add(fd, mc, 0));
			EXPECT_EQ(1, read(sock, &c, 1));
			EXPECT_EQ(0, st_mc_bind_mem(fd, mc, 0, 0, keep, 0,
						    gran));
			sleep_us(delay);
			EXPECT_EQ(0, kill_wait(pid));
			/* Our binding is still there, and our data. */
			EXPECT_EQ(0, st_mc_unbind(fd, mc, 0, 0, gran));
			EXPECT_EQ(0, st_release(fd, mc));
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
	EXPECT_EQ(0, st_unmap_free(fd, keep_va, gran));
	EXPECT_EQ(0, st_release(fd, keep));
	EXPECT_EQ(0, st_objects_settle(&base, &now, 2000)) {
		st_objects_diff(&base, &now);
	}
	EXPECT_EQ(0, st_devices_not_free(fd));
	close(fd);
}

TEST_HARNESS_MAIN
