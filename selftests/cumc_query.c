// SPDX-License-Identifier: GPL-2.0
/*
 * CUMC_QUERY and the ioctl framework: size-first structs, unknown commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

FIXTURE(query) {
	int fd;
};

FIXTURE_SETUP(query)
{
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(query)
{
	close(self->fd);
}

TEST_F(query, answers_version_and_devices)
{
	struct cumc_query q = { .size = sizeof(q) };

	ASSERT_EQ(0, ioctl(self->fd, CUMC_QUERY, &q));
	EXPECT_EQ(CUMC_API_VERSION, q.api_version);
	/* num_devices counts the system-memory devices, made after PCI ones. */
	EXPECT_EQ(st_param_uint("num_devices") + st_pci_devices(),
		  q.num_devices);
	EXPECT_EQ(sizeof(q), q.size);
	EXPECT_EQ(0, q.flags);
}

TEST_F(query, nonzero_flags_refused)
{
	struct cumc_query q = { .size = sizeof(q), .flags = 1 };

	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, &q));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(0, q.num_devices);
}

TEST_F(query, short_struct_refused)
{
	struct cumc_query q = { .size = offsetof(struct cumc_query, num_devices) };

	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, q.api_version);

	q.size = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, &q));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(query, long_struct_with_zero_tail_accepted)
{
	struct {
		struct cumc_query q;
		uint64_t tail[4];
		uint32_t canary;
	} big;

	memset(&big, 0, sizeof(big));
	big.q.size = offsetof(typeof(big), canary);
	big.canary = 0x5a5a5a5a;
	ASSERT_EQ(0, ioctl(self->fd, CUMC_QUERY, &big));
	EXPECT_EQ(CUMC_API_VERSION, big.q.api_version);
	/* Nothing is written past the kernel's own struct. */
	EXPECT_EQ(0, big.tail[0]);
	EXPECT_EQ(0x5a5a5a5a, big.canary);
}

TEST_F(query, long_struct_with_nonzero_tail_refused)
{
	struct {
		struct cumc_query q;
		uint64_t tail;
	} big;

	memset(&big, 0, sizeof(big));
	big.q.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, &big));
	EXPECT_EQ(E2BIG, errno);
}

TEST_F(query, huge_size_refused_without_reading)
{
	struct cumc_query q = { .size = 1u << 31 };

	/* The tail beyond the stack struct is unmapped: refused, no oops. */
	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, &q));
	EXPECT_TRUE(errno == EFAULT || errno == E2BIG);
}

TEST_F(query, bad_pointer_faults)
{
	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, (void *)16));
	EXPECT_EQ(EFAULT, errno);
}

/*
 * An older caller's shorter struct, not whole words: read with the rest
 * zero, answered no further than its size.
 */
TEST_F(query, short_struct_answered_up_to_its_size)
{
	struct {
		struct cumc_query q;
		uint32_t canary;
	} buf;
	const uint32_t size = offsetof(struct cumc_query, mc_granularity) + 4;

	memset(&buf, 0x5a, sizeof(buf));
	buf.q.size = size;
	buf.q.flags = 0;
	ASSERT_EQ(0, ioctl(self->fd, CUMC_QUERY, &buf.q));
	EXPECT_EQ(CUMC_API_VERSION, buf.q.api_version);
	/* Past its size, the caller's bytes are as it left them. */
	EXPECT_EQ(0x5a5a5a5a, *(uint32_t *)((char *)&buf.q + size));
	EXPECT_EQ(0x5a5a5a5a, buf.canary);
}

/* The size word is readable, the rest of the struct is not. */
TEST_F(query, struct_running_into_an_unmapped_page_faults)
{
	long page = sysconf(_SC_PAGESIZE);
	struct cumc_query *q;
	char *two;

	two = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, two);
	ASSERT_EQ(0, munmap(two + page, page));
	q = (struct cumc_query *)(two + page - offsetof(struct cumc_query,
							   api_version));
	q->size = sizeof(*q);
	q->flags = 0;
	EXPECT_EQ(-1, ioctl(self->fd, CUMC_QUERY, q));
	EXPECT_EQ(EFAULT, errno);
	munmap(two, page);
}

/* Structs are read and answered whole at any address, aligned or not. */
TEST_F(query, unaligned_struct_answered)
{
	struct cumc_query q = { .size = sizeof(q) }, answer;
	char buf[sizeof(q) + 1 + sizeof(uint32_t)];
	const uint32_t canary = 0x5a5a5a5a;
	uint32_t after;

	memcpy(buf + 1, &q, sizeof(q));
	memcpy(buf + 1 + sizeof(q), &canary, sizeof(canary));
	ASSERT_EQ(0, ioctl(self->fd, CUMC_QUERY, buf + 1));
	memcpy(&answer, buf + 1, sizeof(answer));
	memcpy(&after, buf + 1 + sizeof(q), sizeof(after));
	EXPECT_EQ(CUMC_API_VERSION, answer.api_version);
	EXPECT_NE(0, answer.mc_granularity);
	EXPECT_EQ(canary, after);
}

TEST_F(query, unknown_commands_refused)
{
	struct cumc_query q = { .size = sizeof(q) };
	unsigned long bad[] = {
		_IO(CUMC_TYPE, CUMC_CMD_BASE - 1),
		_IO(CUMC_TYPE, 0xff),
		_IO(CUMC_TYPE + 1, CUMC_CMD_QUERY),
		/* The right number with a size or direction encoded. */
		_IOWR(CUMC_TYPE, CUMC_CMD_QUERY, struct cumc_query),
		_IOW(CUMC_TYPE, CUMC_CMD_QUERY, uint32_t),
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-1, ioctl(self->fd, bad[i], &q));
		EXPECT_EQ(ENOTTY, errno) TH_LOG("ioctl 0x%lx", bad[i]);
	}
}

TEST(device_node_is_world_accessible)
{
	struct stat st;

	ASSERT_EQ(0, stat("/dev/cumc", &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 0777);
}

TEST_HARNESS_MAIN
