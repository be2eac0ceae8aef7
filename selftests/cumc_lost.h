/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A GPU lost under its users, whatever loses it: the scenario and checks
 * that cumc_unplug.c (a PCI GPU removed through QEMU's device_del) and
 * cumc_bus.c (a system-memory GPU deleted from cumc's bus) share, so that
 * both losses answer the same (Documentation/devices.md, "Losing a GPU").
 * Include after kselftest_harness.h, cumc_selftest.h and nl_monitor.h.
 */
#ifndef _CUMC_LOST_H
#define _CUMC_LOST_H

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

#define ST_LOST_SZ (2UL << 20)

static sigjmp_buf st_touch_env;

static inline void st_touch_sigbus(int sig)
{
	siglongjmp(st_touch_env, 1);
}

/* Read a byte at @addr: the byte, or -SIGBUS when the access faults. */
static inline int st_touch(volatile unsigned char *addr)
{
	struct sigaction sa = { .sa_handler = st_touch_sigbus }, old;
	int ret;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(st_touch_env, 1))
		ret = -SIGBUS;
	else
		ret = *addr;
	sigaction(SIGBUS, &old, NULL);
	return ret;
}

struct st_lost_waiter {
	int fd;
	__u64 mc, mem;
	__u32 device;
	int ret;
};

/* A bind into a team still forming: it waits until the team settles. */
static inline void *st_lost_bind_waiter(void *arg)
{
	struct st_lost_waiter *w = arg;

	w->ret = st_mc_bind_mem(w->fd, w->mc, w->device, 0, w->mem, 0,
				ST_LOST_SZ);
	return NULL;
}

/*
 * A process (the test, on client *@fd) maps GPU @lost's memory and
 * exports it to a second process that maps it too; a team spans @lost and
 * @other; a bind waits on a second team still forming. Then @lose(@arg)
 * loses the GPU (0, or it failed and says why in @why): both processes
 * get SIGBUS, the waiter wakes, calls naming the GPU fail with ENOLINK
 * (CUDA_ERROR_UNKNOWN), teams fail (EIO, CUDA_ERROR_ILLEGAL_STATE) with
 * events @mon hears, the memory is given back, @other still works, and
 * everything can still be released: the objects are @base's again once
 * *@fd is closed (set to -1).
 */
static inline void st_lost_gpu(struct __test_metadata *_metadata, int *fd,
			       int lost, int other, struct monitor *mon,
			       const struct st_objects *base,
			       int (*lose)(void *arg, char *why, size_t len),
			       void *arg)
{
	int go[2], done[2], efd, status;
	__u64 mem, mem_other, mc, mc_forming, addr, addr_other, handle;
	struct cumc_device_info info;
	struct cumc_mc_info mci;
	struct st_lost_waiter w;
	struct st_objects before;
	pthread_t thread;
	char why[128], byte;
	pid_t child;

	ASSERT_EQ(0, st_mem_create(*fd, lost, CUMC_HANDLE_FD, ST_LOST_SZ,
				   &mem));
	ASSERT_EQ(0, st_map_new(*fd, mem, ST_LOST_SZ, lost,
				CUMC_ACCESS_READWRITE, &addr));
	((volatile unsigned char *)addr)[0] = 0xab;
	((volatile unsigned char *)addr)[ST_LOST_SZ / 2] = 0xcd;
	ASSERT_EQ(0, st_export_fd(*fd, mem, &efd));

	/* The importer: maps, reads, waits for the loss, touches again. */
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		int cfd = st_open();
		__u64 h, a;

		if (cfd < 0 || st_import_fd(cfd, efd, &h) ||
		    st_map_new(cfd, h, ST_LOST_SZ, lost, CUMC_ACCESS_READ, &a) ||
		    st_touch((unsigned char *)a) != 0xab)
			_exit(1);
		if (write(go[1], "m", 1) != 1 || read(done[0], &byte, 1) != 1)
			_exit(2);
		if (st_touch((unsigned char *)a + ST_LOST_SZ / 2) != -SIGBUS)
			_exit(3);
		/* What it imported is gone; letting go of it still works. */
		if (st_import_fd(cfd, efd, &h) != -ENOLINK ||
		    st_unmap_free(cfd, a, ST_LOST_SZ) || st_release(cfd, h))
			_exit(4);
		_exit(0);
	}
	ASSERT_EQ(1, read(go[0], &byte, 1));

	/* A team over both devices, ready and bound on each. */
	ASSERT_EQ(0, st_mem_create(*fd, other, 0, ST_LOST_SZ, &mem_other));
	ASSERT_EQ(0, st_mc_create(*fd, 2, 0, ST_LOST_SZ, &mc));
	ASSERT_EQ(0, st_mc_add(*fd, mc, other));
	ASSERT_EQ(0, st_mc_add(*fd, mc, lost));
	ASSERT_EQ(0, st_mc_bind_mem(*fd, mc, other, 0, mem_other, 0,
				    ST_LOST_SZ));
	ASSERT_EQ(0, st_mc_bind_mem(*fd, mc, lost, 0, mem, 0, ST_LOST_SZ));

	/* A team still forming, the lost GPU joined, a bind waiting on it. */
	ASSERT_EQ(0, st_mc_create(*fd, 2, 0, ST_LOST_SZ, &mc_forming));
	ASSERT_EQ(0, st_mc_add(*fd, mc_forming, lost));
	w = (struct st_lost_waiter){ .fd = *fd, .mc = mc_forming,
				     .mem = mem_other, .device = other,
				     .ret = 1 };
	ASSERT_EQ(0, pthread_create(&thread, NULL, st_lost_bind_waiter, &w));

	before = st_objects_now();
	ASSERT_EQ(0, lose(arg, why, sizeof(why))) TH_LOG("lose: %s", why);

	/* Mappings: SIGBUS, here and in the importer. */
	EXPECT_EQ(-SIGBUS, st_touch((unsigned char *)addr));
	ASSERT_EQ(1, write(done[1], "u", 1));
	EXPECT_EQ(0, st_wait_exit(child));
	EXPECT_EQ(0, pthread_join(thread, NULL));
	EXPECT_EQ(-EIO, w.ret);

	/* Calls naming the lost GPU or its memory. */
	EXPECT_EQ(-ENOLINK, st_device_info(*fd, lost, &info));
	EXPECT_EQ(-ENOLINK, st_mem_create(*fd, lost, 0, ST_LOST_SZ, &handle));
	EXPECT_EQ(-ENOLINK, st_grant(*fd, addr, ST_LOST_SZ, lost,
				     CUMC_ACCESS_READ));
	EXPECT_EQ(-ENOLINK, st_export_fd(*fd, mem, &status));
	EXPECT_EQ(-ENOLINK, st_map_new(*fd, mem, ST_LOST_SZ, other,
				       CUMC_ACCESS_READ, &addr_other));
	ASSERT_EQ(0, st_mc_create(*fd, 2, 0, ST_LOST_SZ, &handle));
	EXPECT_EQ(-ENOLINK, st_mc_add(*fd, handle, lost));
	EXPECT_EQ(0, st_release(*fd, handle));

	/* Its teams failed: later binds are refused; the events came. */
	ASSERT_EQ(0, st_mc_info(*fd, mc, NULL, 0, &mci));
	EXPECT_EQ(CUMC_TEAM_STATE_FAILED, mci.out_state);
	EXPECT_EQ(0, st_mc_unbind(*fd, mc, other, 0, ST_LOST_SZ));
	EXPECT_EQ(-EIO, st_mc_bind_mem(*fd, mc, other, 0, mem_other, 0,
				       ST_LOST_SZ));
	/* Everything the monitor heard, until it is quiet for two seconds. */
	monitor_read(mon, MAX_EVENTS, 2000);
	EXPECT_NE(NULL, monitor_find(mon, CUMC_CMD_DEVICE_LOST_NTF, 0));
	EXPECT_NE(NULL, monitor_find(mon, CUMC_CMD_TEAM_FAILED_NTF, 0));

	/* Its memory came back at once: the pages both processes touched. */
	EXPECT_EQ(before.pages - 2, st_objects_now().pages);

	/* The other device still works. */
	ASSERT_EQ(0, st_map_new(*fd, mem_other, ST_LOST_SZ, other,
				CUMC_ACCESS_READWRITE, &addr_other));
	((volatile unsigned char *)addr_other)[0] = 0x5a;
	EXPECT_EQ(0x5a, st_touch((unsigned char *)addr_other));

	/* Everything lets go as usual, and nothing is left. */
	EXPECT_EQ(0, st_unmap_free(*fd, addr_other, ST_LOST_SZ));
	EXPECT_EQ(0, st_unmap_free(*fd, addr, ST_LOST_SZ));
	close(efd);
	EXPECT_EQ(0, st_release(*fd, mc_forming));
	EXPECT_EQ(0, st_release(*fd, mc));
	EXPECT_EQ(0, st_release(*fd, mem_other));
	EXPECT_EQ(0, st_release(*fd, mem));
	close(*fd);
	*fd = -1;
	ST_EXPECT_OBJECTS(*base, views);
	EXPECT_EQ(base->usages, st_objects_now().usages);
}

#endif /* _CUMC_LOST_H */
