// SPDX-License-Identifier: GPL-2.0
/*
 * A GPU falling off the bus: a PCI device removed from the running VM
 * through QEMU's device_del (lib/tests/unplug.h). Each test loses a GPU of
 * its own, the highest-numbered one still working, so the tests of this
 * program run last in their VM and need the control channel of
 * scripts/vm-run; without it (a real host, the system-memory backend) they
 * are skipped.
 */
#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"
#include "nl_monitor.h"
#include "cumc_lost.h"

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

/* Unplug the GPU at PCI address @pci. */
static int unplug_lose(void *pci, char *why, size_t len)
{
	return unplug_gpu(pci, why, len);
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

/* A GPU falls off the bus under its users: cumc_lost.h's checks. */
TEST_F(unplug, lost_gpu)
{
	if (self->skip)
		SKIP(return, "%s", self->skip);
	st_lost_gpu(_metadata, &self->fd, self->lost, self->other, &self->mon,
		    &self->base, unplug_lose, self->pci);
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
