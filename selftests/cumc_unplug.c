// SPDX-License-Identifier: GPL-2.0
/*
 * A GPU falling off the bus: a PCI device removed from the running VM
 * through QEMU's device_del (lib/tests/unplug.h). Each test loses a GPU of
 * its own, the highest-numbered one still working, so the tests of this
 * program run last in their VM and need the control channel of
 * scripts/vm-run; without it (a real host, the system-memory backend) they
 * are skipped.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"
#include "nl_monitor.h"

#define SZ_2M (2UL << 20)

/* The working PCI device with the highest ordinal, or -1; its address. */
static int pick_pci_device(int fd, char *pci, size_t len, int below)
{
	long n = st_num_devices(fd);
	struct cumc_device_info info;

	for (long d = (below < 0 ? n : below) - 1; d >= 0; d--)
		if (!st_device_info(fd, d, &info) &&
		    unplug_pci_bound(info.pci_domain, info.pci_bus,
				     info.pci_device, pci, len))
			return d;
	return -1;
}

/* Any other working device, or -1. */
static int pick_other_device(int fd, int not)
{
	long n = st_num_devices(fd);
	struct cumc_device_info info;

	for (long d = 0; d < n; d++)
		if (d != not && !st_device_info(fd, d, &info))
			return d;
	return -1;
}

static sigjmp_buf touch_env;

static void touch_sigbus(int sig)
{
	siglongjmp(touch_env, 1);
}

/* Read a byte at @addr: the byte, or -SIGBUS when the access faults. */
static int touch(volatile unsigned char *addr)
{
	struct sigaction sa = { .sa_handler = touch_sigbus }, old;
	int ret;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(touch_env, 1))
		ret = -SIGBUS;
	else
		ret = *addr;
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

struct waiter {
	int fd;
	__u64 mc, mem;
	__u32 device;
	int ret;
};

/* A bind into a team still forming: it waits until the team settles. */
static void *bind_waiter(void *arg)
{
	struct waiter *w = arg;

	w->ret = st_mc_bind_mem(w->fd, w->mc, w->device, 0, w->mem, 0, SZ_2M);
	return NULL;
}

FIXTURE(unplug) {
	const char *skip;
	int fd;
	struct st_objects base;
	int lost, other;
	char pci[32];
	struct monitor mon;
};

FIXTURE_SETUP(unplug)
{
	/* The harness runs the test after a SKIP here: the test skips itself. */
	self->fd = -1;
	self->skip = "no control channel to unplug a GPU (run under scripts/vm-run)";
	if (!unplug_channel())
		return;
	ASSERT_EQ(0, st_objects_read(&self->base));
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	self->skip = "no PCI device to lose";
	self->lost = pick_pci_device(self->fd, self->pci, sizeof(self->pci), -1);
	if (self->lost < 0)
		return;
	self->skip = NULL;
	self->other = pick_other_device(self->fd, self->lost);
	ASSERT_LE(0, self->other) TH_LOG("no second working device");
	ASSERT_EQ(0, monitor_open(&self->mon));
}

FIXTURE_TEARDOWN(unplug)
{
	if (self->mon.sk)
		nl_socket_free(self->mon.sk);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * A process maps the GPU's memory and exports it to a second process that
 * maps it too; a team spans the GPU and another; a bind waits on a second
 * team still forming. The GPU goes: both processes get SIGBUS, the waiter
 * wakes, calls naming the GPU fail with ENOLINK (CUDA_ERROR_UNKNOWN),
 * teams fail (EIO, CUDA_ERROR_ILLEGAL_STATE) with events, the memory is
 * given back, and everything can still be released.
 */
TEST_F(unplug, lost_gpu)
{
	int go[2], done[2], efd, status;
	__u64 mem, mem_other, mc, mc_forming, addr, addr_other, handle;
	struct cumc_device_info info;
	struct cumc_mc_info mci;
	struct waiter w;
	struct st_objects before;
	pthread_t thread;
	char why[128], byte;
	pid_t child;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, st_mem_create(self->fd, self->lost, CUMC_HANDLE_FD, SZ_2M,
				   &mem));
	ASSERT_EQ(0, st_map_new(self->fd, mem, SZ_2M, self->lost,
				CUMC_ACCESS_READWRITE, &addr));
	((volatile unsigned char *)addr)[0] = 0xab;
	((volatile unsigned char *)addr)[SZ_2M / 2] = 0xcd;
	ASSERT_EQ(0, st_export_fd(self->fd, mem, &efd));

	/* The importer: maps, reads, waits for the loss, touches again. */
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int cfd = st_open();
		__u64 h, a;

		if (cfd < 0 || st_import_fd(cfd, efd, &h) ||
		    st_map_new(cfd, h, SZ_2M, self->lost, CUMC_ACCESS_READ, &a) ||
		    touch((unsigned char *)a) != 0xab)
			_exit(1);
		if (write(go[1], "m", 1) != 1 || read(done[0], &byte, 1) != 1)
			_exit(2);
		if (touch((unsigned char *)a + SZ_2M / 2) != -SIGBUS)
			_exit(3);
		/* What it imported is gone; letting go of it still works. */
		if (st_import_fd(cfd, efd, &h) != -ENOLINK ||
		    st_unmap_free(cfd, a, SZ_2M) || st_release(cfd, h))
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(1, read(go[0], &byte, 1));

	/* A team over both devices, ready and bound on each. */
	ASSERT_EQ(0, st_mem_create(self->fd, self->other, 0, SZ_2M, &mem_other));
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, SZ_2M, &mc));
	ASSERT_EQ(0, st_mc_add(self->fd, mc, self->other));
	ASSERT_EQ(0, st_mc_add(self->fd, mc, self->lost));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, mc, self->other, 0, mem_other, 0,
				    SZ_2M));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, mc, self->lost, 0, mem, 0, SZ_2M));

	/* A team still forming, the lost GPU joined, a bind waiting on it. */
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, SZ_2M, &mc_forming));
	ASSERT_EQ(0, st_mc_add(self->fd, mc_forming, self->lost));
	w = (struct waiter){ .fd = self->fd, .mc = mc_forming, .mem = mem_other,
			     .device = self->other, .ret = 1 };
	ASSERT_EQ(0, pthread_create(&thread, NULL, bind_waiter, &w));

	before = st_objects_now();
	ASSERT_EQ(0, unplug_gpu(self->pci, why, sizeof(why)))
		TH_LOG("unplug %s: %s", self->pci, why);

	/* Mappings: SIGBUS, here and in the importer. */
	EXPECT_EQ(-SIGBUS, touch((unsigned char *)addr));
	ASSERT_EQ(1, write(done[1], "u", 1));
	EXPECT_EQ(0, st_wait_exit(child));
	EXPECT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(-EIO, w.ret);

	/* Calls naming the lost GPU or its memory. */
	EXPECT_EQ(-ENOLINK, st_device_info(self->fd, self->lost, &info));
	EXPECT_EQ(-ENOLINK, st_mem_create(self->fd, self->lost, 0, SZ_2M,
					  &handle));
	EXPECT_EQ(-ENOLINK, st_grant(self->fd, addr, SZ_2M, self->lost,
				     CUMC_ACCESS_READ));
	EXPECT_EQ(-ENOLINK, st_export_fd(self->fd, mem, &status));
	EXPECT_EQ(-ENOLINK, st_map_new(self->fd, mem, SZ_2M, self->other,
				       CUMC_ACCESS_READ, &addr_other));
	ASSERT_EQ(0, st_mc_create(self->fd, 2, 0, SZ_2M, &handle));
	EXPECT_EQ(-ENOLINK, st_mc_add(self->fd, handle, self->lost));
	EXPECT_EQ(0, st_release(self->fd, handle));

	/* Its teams failed: later binds are refused; the events came. */
	ASSERT_EQ(0, st_mc_info(self->fd, mc, NULL, 0, &mci));
	EXPECT_EQ(CUMC_TEAM_STATE_FAILED, mci.out_state);
	EXPECT_EQ(0, st_mc_unbind(self->fd, mc, self->other, 0, SZ_2M));
	EXPECT_EQ(-EIO, st_mc_bind_mem(self->fd, mc, self->other, 0, mem_other,
				       0, SZ_2M));
	/* Everything the monitor heard, until it is quiet for two seconds. */
	monitor_read(&self->mon, MAX_EVENTS, 2000);
	EXPECT_NE(NULL, monitor_find(&self->mon, CUMC_CMD_DEVICE_LOST_NTF, 0));
	EXPECT_NE(NULL, monitor_find(&self->mon, CUMC_CMD_TEAM_FAILED_NTF, 0));

	/* Its memory came back at once: the pages both processes touched. */
	EXPECT_EQ(before.pages - 2, st_objects_now().pages);

	/* The other device still works. */
	ASSERT_EQ(0, st_map_new(self->fd, mem_other, SZ_2M, self->other,
				CUMC_ACCESS_READWRITE, &addr_other));
	((volatile unsigned char *)addr_other)[0] = 0x5a;
	EXPECT_EQ(0x5a, touch((unsigned char *)addr_other));

	/* Everything lets go as usual, and nothing is left. */
	EXPECT_EQ(0, st_unmap_free(self->fd, addr_other, SZ_2M));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, SZ_2M));
	close(efd);
	EXPECT_EQ(0, st_release(self->fd, mc_forming));
	EXPECT_EQ(0, st_release(self->fd, mc));
	EXPECT_EQ(0, st_release(self->fd, mem_other));
	EXPECT_EQ(0, st_release(self->fd, mem));
	close(self->fd);
	self->fd = -1;
	ST_EXPECT_OBJECTS(self->base, views);
	EXPECT_EQ(self->base.usages, st_objects_now().usages);
}

/* A second unplug of the same address is refused; nothing else moves. */
TEST_F(unplug, gone_twice)
{
	char why[128];
	long n = st_num_devices(self->fd);

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, unplug_gpu(self->pci, why, sizeof(why)))
		TH_LOG("unplug %s: %s", self->pci, why);
	EXPECT_NE(0, unplug_gpu(self->pci, why, sizeof(why)));
	/* The lost device keeps its ordinal: the others keep theirs. */
	EXPECT_EQ(n, st_num_devices(self->fd));
}

TEST_HARNESS_MAIN
