// SPDX-License-Identifier: GPL-2.0
/*
 * CUMC_DEVICE_INFO: what every simulated device reports, and the requests
 * it must refuse without writing anything back.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define CUMC_CAPS_ALL (CUMC_CAP_VMM | CUMC_CAP_HANDLE_FD | \
		       CUMC_CAP_HANDLE_FABRIC | CUMC_CAP_MULTICAST)

/* What a refused call must leave in the caller's struct. */
#define POISON 0xa5

FIXTURE(device) {
	int fd;
	__u32 num_devices;
};

FIXTURE_SETUP(device)
{
	long n;

	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	n = st_num_devices(self->fd);
	ASSERT_LT(0, n);
	self->num_devices = n;
}

FIXTURE_TEARDOWN(device)
{
	close(self->fd);
}

/* A request for @device whose output members hold POISON. */
static void poisoned_info(struct cumc_device_info *info, __u32 device)
{
	memset(info, POISON, sizeof(*info));
	info->size = sizeof(*info);
	info->flags = 0;
	info->device = device;
	info->__reserved = 0;
}

TEST_F(device, info_of_every_device)
{
	long mib = st_param_uint("mem_size_mib");
	long gran = st_param_uint("granularity");
	struct cumc_device_info info;
	__u32 i;

	ASSERT_LT(0, mib);
	ASSERT_LT(0, gran);
	for (i = 0; i < self->num_devices; i++) {
		poisoned_info(&info, i);
		ASSERT_EQ(0, st_ioctl(self->fd, CUMC_DEVICE_INFO, &info))
			TH_LOG("device %u", i);
		EXPECT_EQ(sizeof(info), info.size);
		EXPECT_EQ(0, info.flags);
		EXPECT_EQ(i, info.device);
		EXPECT_EQ(0, info.__reserved);
		EXPECT_EQ(0, info.caps & ~CUMC_CAPS_ALL);
		/* MEM_CREATE works on every device. */
		EXPECT_TRUE(info.caps & CUMC_CAP_VMM);
		/* Every byte of name was written and it ends within the array. */
		EXPECT_NE(NULL, memchr(info.name, '\0', sizeof(info.name)));
		EXPECT_LT(0, strnlen(info.name, sizeof(info.name)));
		EXPECT_EQ(NULL, memchr(info.name, POISON, sizeof(info.name)));
		EXPECT_EQ(gran, info.granularity);
		EXPECT_EQ(0, info.granularity & (info.granularity - 1));
		EXPECT_LE(4096, info.granularity);
		/* A PCI device's memory is what its identity declares. */
		if (st_info_is_pci(&info)) {
			EXPECT_LE(info.granularity, info.mem_total);
			EXPECT_EQ(0, info.mem_total & (info.granularity - 1));
		} else {
			EXPECT_EQ(((__u64)mib << 20) & ~(info.granularity - 1),
				  info.mem_total);
		}
		EXPECT_LE(info.mem_free, info.mem_total);
	}
}

TEST_F(device, locations_and_uuids_distinct)
{
	static const __u8 zero_uuid[16];
	struct cumc_device_info *infos;
	__u32 i, j;

	infos = calloc(self->num_devices, sizeof(*infos));
	ASSERT_NE(NULL, infos);
	for (i = 0; i < self->num_devices; i++) {
		ASSERT_EQ(0, st_device_info(self->fd, i, &infos[i]));
		EXPECT_NE(0, memcmp(infos[i].uuid, zero_uuid, sizeof(zero_uuid)))
			TH_LOG("device %u has an all-zero uuid", i);
	}
	for (i = 0; i < self->num_devices; i++) {
		for (j = i + 1; j < self->num_devices; j++) {
			EXPECT_NE(0, memcmp(infos[i].uuid, infos[j].uuid,
					    sizeof(infos[i].uuid)))
				TH_LOG("devices %u and %u share a uuid", i, j);
			EXPECT_FALSE(infos[i].pci_domain == infos[j].pci_domain &&
				     infos[i].pci_bus == infos[j].pci_bus &&
				     infos[i].pci_device == infos[j].pci_device)
				TH_LOG("devices %u and %u share a pci location",
				       i, j);
		}
	}
	free(infos);
}

TEST_F(device, same_identity_from_another_open)
{
	struct cumc_device_info a, b;
	int fd2;
	__u32 i;

	fd2 = st_open();
	ASSERT_LE(0, fd2);
	for (i = 0; i < self->num_devices; i++) {
		ASSERT_EQ(0, st_device_info(self->fd, i, &a));
		ASSERT_EQ(0, st_device_info(fd2, i, &b));
		EXPECT_EQ(0, memcmp(a.uuid, b.uuid, sizeof(a.uuid)))
			TH_LOG("device %u", i);
		EXPECT_STREQ(a.name, b.name);
		EXPECT_EQ(a.pci_domain, b.pci_domain);
		EXPECT_EQ(a.pci_bus, b.pci_bus);
		EXPECT_EQ(a.pci_device, b.pci_device);
		EXPECT_EQ(a.caps, b.caps);
	}
	close(fd2);
}

TEST_F(device, mem_free_is_total_when_nothing_allocated)
{
	struct cumc_device_info info;
	struct st_objects c;
	__u32 i;

	ASSERT_EQ(0, st_objects_read(&c));
	ASSERT_EQ(0, c.mems) TH_LOG("allocations outlived their clients");
	for (i = 0; i < self->num_devices; i++) {
		ASSERT_EQ(0, st_device_info(self->fd, i, &info));
		EXPECT_EQ(info.mem_total, info.mem_free) TH_LOG("device %u", i);
	}
}

TEST_F(device, bad_ordinal_refused)
{
	__u32 bad[] = { self->num_devices, self->num_devices + 1, 128,
			0x80000000, 0xffffffff };
	struct cumc_device_info info, before;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (bad[i] < self->num_devices)
			continue;
		poisoned_info(&info, bad[i]);
		before = info;
		EXPECT_EQ(-ENODEV, st_ioctl(self->fd, CUMC_DEVICE_INFO, &info))
			TH_LOG("device %u", bad[i]);
		EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));
	}
}

TEST_F(device, nonzero_flags_or_reserved_refused)
{
	__u32 bits[] = { 1, 2, 0x80000000, 0xffffffff };
	struct cumc_device_info info, before;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		poisoned_info(&info, 0);
		info.flags = bits[i];
		before = info;
		EXPECT_EQ(-EOPNOTSUPP,
			  st_ioctl(self->fd, CUMC_DEVICE_INFO, &info))
			TH_LOG("flags 0x%x", bits[i]);
		EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));

		poisoned_info(&info, 0);
		info.__reserved = bits[i];
		before = info;
		EXPECT_EQ(-EOPNOTSUPP,
			  st_ioctl(self->fd, CUMC_DEVICE_INFO, &info))
			TH_LOG("__reserved 0x%x", bits[i]);
		EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));
	}
}

/* granularity has always been there: any shorter struct is refused. */
TEST_F(device, short_struct_refused)
{
	__u32 sizes[] = { 0, 4, offsetof(struct cumc_device_info, mem_total),
			  sizeof(struct cumc_device_info) - 1 };
	struct cumc_device_info info, before;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		poisoned_info(&info, 0);
		info.size = sizes[i];
		before = info;
		EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_DEVICE_INFO, &info))
			TH_LOG("size %u", sizes[i]);
		EXPECT_EQ(0, memcmp(&before, &info, sizeof(info)));
	}
}

TEST_F(device, long_struct_with_zero_tail_accepted)
{
	struct {
		struct cumc_device_info info;
		__u64 tail[3];
		__u32 canary;
	} big;
	struct cumc_device_info ref;

	ASSERT_EQ(0, st_device_info(self->fd, 0, &ref));
	memset(&big, 0, sizeof(big));
	big.info.size = offsetof(typeof(big), canary);
	big.canary = 0x5a5a5a5a;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_DEVICE_INFO, &big));
	EXPECT_EQ(offsetof(typeof(big), canary), big.info.size);
	big.info.size = ref.size;
	EXPECT_EQ(0, memcmp(&ref, &big.info, sizeof(ref)));
	/* Nothing is written past the kernel's own struct. */
	EXPECT_EQ(0, big.tail[0]);
	EXPECT_EQ(0, big.tail[2]);
	EXPECT_EQ(0x5a5a5a5a, big.canary);
}

TEST_F(device, long_struct_with_nonzero_tail_refused)
{
	struct {
		struct cumc_device_info info;
		__u64 tail[2];
	} big, before;

	memset(&big, 0, sizeof(big));
	poisoned_info(&big.info, 0);
	big.info.size = sizeof(big);
	big.tail[1] = 1;
	before = big;
	EXPECT_EQ(-E2BIG, st_ioctl(self->fd, CUMC_DEVICE_INFO, &big));
	EXPECT_EQ(0, memcmp(&before, &big, sizeof(big)));
}

TEST_F(device, unwritable_struct_faults)
{
	struct cumc_device_info *ro;

	/* Readable, so only the write-back can fail. */
	ro = mmap(NULL, sizeof(*ro), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->size = sizeof(*ro);
	ASSERT_EQ(0, mprotect(ro, sizeof(*ro), PROT_READ));
	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_DEVICE_INFO, ro));
	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_DEVICE_INFO, NULL));
	munmap(ro, sizeof(*ro));
}

TEST_HARNESS_MAIN
