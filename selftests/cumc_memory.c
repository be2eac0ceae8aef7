// SPDX-License-Identifier: GPL-2.0
/*
 * CUMC_MEM_CREATE, CUMC_MEM_INFO and CUMC_RELEASE: allocations, their
 * accounting against device memory, and handles that only ever name
 * something in the client that issued them.
 *
 * Counts of live objects come from debugfs; every test ends with the
 * module holding no more clients or allocations than before it started.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

/* What a refused call must leave in the caller's output members. */
#define CANARY 0xdeadbeefcafef00dULL

/* Device memory the tests below need, in granules of device 0. */
#define MIN_GRANULES 16

FIXTURE(mem) {
	int fd;
	__u32 num_devices;
	__u64 gran;
	__u64 mem_total;
	/* Before this test's first client was opened. */
	struct st_objects base;
};

FIXTURE_SETUP(mem)
{
	struct cumc_device_info info;

	ST_SETUP_CLIENT(&info);
	self->gran = info.granularity;
	self->mem_total = info.mem_total;
	ASSERT_LE(MIN_GRANULES, self->mem_total / self->gran)
		TH_LOG("module parameters leave too little device memory");
}

FIXTURE_TEARDOWN(mem)
{
	struct st_objects now;

	/*
	 * No ASSERT here: after a failed ASSERT in the test, one in the
	 * teardown would jump back into the teardown for ever.
	 */
	close(self->fd);
	EXPECT_EQ(0, st_objects_read(&now));
	EXPECT_EQ(self->base.clients, now.clients);
	EXPECT_EQ(self->base.mems, now.mems);
}

/* What a refused call must not change. */
struct snapshot {
	long mems;
	long long mem_free;	/* summed over all devices */
};

static int take_snapshot(int fd, __u32 num_devices, struct snapshot *s)
{
	struct st_objects c;
	long long avail;
	__u32 i;

	if (st_objects_read(&c))
		return -1;
	s->mems = c.mems;
	s->mem_free = 0;
	for (i = 0; i < num_devices; i++) {
		avail = st_mem_free(fd, i);
		if (avail < 0)
			return -1;
		s->mem_free += avail;
	}
	return 0;
}

#define EXPECT_UNCHANGED(before) do {					\
	struct snapshot __now;						\
									\
	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &__now)); \
	EXPECT_EQ((before).mems, __now.mems);				\
	EXPECT_EQ((before).mem_free, __now.mem_free);			\
} while (0)

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Whether @n handles are non-zero and pairwise distinct. */
static int handles_unique(const __u64 *handles, size_t n)
{
	__u64 *sorted;
	size_t i;
	int ok = 1;

	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return 0;
	memcpy(sorted, handles, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_u64);
	for (i = 0; i < n; i++)
		if (!sorted[i] || (i && sorted[i] == sorted[i - 1]))
			ok = 0;
	free(sorted);
	return ok;
}

TEST_F(mem, create_on_each_device)
{
	__u32 n = self->num_devices, d;
	long long *free_before;
	struct cumc_mem_info info;
	__u64 *h;

	h = calloc(n, sizeof(*h));
	free_before = calloc(n, sizeof(*free_before));
	ASSERT_NE(NULL, h);
	ASSERT_NE(NULL, free_before);
	for (d = 0; d < n; d++) {
		free_before[d] = st_mem_free(self->fd, d);
		ASSERT_LE(self->gran, free_before[d]);
	}

	for (d = 0; d < n; d++)
		ASSERT_EQ(0, st_mem_create(self->fd, d, 0, self->gran, &h[d]))
			TH_LOG("device %u", d);
	EXPECT_TRUE(handles_unique(h, n));
	EXPECT_EQ(self->base.mems + n, st_objects_now().mems);

	for (d = 0; d < n; d++) {
		/* Each allocation is charged to its own device only. */
		EXPECT_EQ(free_before[d] - self->gran, st_mem_free(self->fd, d))
			TH_LOG("device %u", d);
		ASSERT_EQ(0, st_mem_info(self->fd, h[d], &info));
		EXPECT_EQ(d, info.out_device);
		EXPECT_EQ(0, info.out_handle_types);
		EXPECT_EQ(self->gran, info.out_length);
		EXPECT_EQ(h[d], info.handle);
	}

	for (d = 0; d < n; d++) {
		EXPECT_EQ(0, st_release(self->fd, h[d]));
		EXPECT_EQ(free_before[d], st_mem_free(self->fd, d));
		EXPECT_EQ(-ENOENT, st_mem_info(self->fd, h[d], &info));
	}
	EXPECT_EQ(self->base.mems, st_objects_now().mems);
	free(free_before);
	free(h);
}

/*
 * CUMC_HANDLE_FD is taken where the caps advertise it and MEM_INFO reports
 * the types back. CUMC_HANDLE_FABRIC also needs an IMEX channel: it belongs
 * to the sharing tests.
 */
TEST_F(mem, handle_types_recorded)
{
	static const __u32 types[] = { 0, CUMC_HANDLE_FD };
	__u32 devs[] = { 0, self->num_devices - 1 };
	struct cumc_device_info dev;
	struct cumc_mem_info info;
	size_t i, j;
	__u64 h;

	for (i = 0; i < ARRAY_SIZE(devs); i++) {
		ASSERT_EQ(0, st_device_info(self->fd, devs[i], &dev));
		for (j = 0; j < ARRAY_SIZE(types); j++) {
			if (types[j] && !(dev.caps & CUMC_CAP_HANDLE_FD)) {
				EXPECT_EQ(-EOPNOTSUPP,
					  st_mem_create(self->fd, devs[i],
							  types[j], self->gran,
							  &h));
				continue;
			}
			ASSERT_EQ(0, st_mem_create(self->fd, devs[i], types[j],
						   self->gran, &h))
				TH_LOG("device %u types 0x%x", devs[i], types[j]);
			ASSERT_EQ(0, st_mem_info(self->fd, h, &info));
			EXPECT_EQ(types[j], info.out_handle_types);
			EXPECT_EQ(devs[i], info.out_device);
			EXPECT_EQ(0, st_release(self->fd, h));
		}
	}
}

TEST_F(mem, lengths_charged_exactly)
{
	const __u64 mult[] = { 1, 2, 3, 4, 5 };
	__u64 h[ARRAY_SIZE(mult)], charged = 0;
	struct cumc_mem_info info;
	long long before;
	size_t i;

	before = st_mem_free(self->fd, 0);
	ASSERT_LE(0, before);
	for (i = 0; i < ARRAY_SIZE(mult); i++) {
		ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, mult[i] * self->gran,
					   &h[i]));
		charged += mult[i] * self->gran;
		EXPECT_EQ(before - charged, st_mem_free(self->fd, 0));
		ASSERT_EQ(0, st_mem_info(self->fd, h[i], &info));
		EXPECT_EQ(mult[i] * self->gran, info.out_length);
	}
	/* Out of order, so each release is seen to return its own length. */
	for (i = 0; i < ARRAY_SIZE(mult); i += 2) {
		EXPECT_EQ(0, st_release(self->fd, h[i]));
		charged -= mult[i] * self->gran;
		EXPECT_EQ(before - charged, st_mem_free(self->fd, 0));
	}
	for (i = 1; i < ARRAY_SIZE(mult); i += 2) {
		EXPECT_EQ(0, st_release(self->fd, h[i]));
		charged -= mult[i] * self->gran;
		EXPECT_EQ(before - charged, st_mem_free(self->fd, 0));
	}
}

TEST_F(mem, create_invalid_fields_refused)
{
	const __u64 g = self->gran, total = self->mem_total;
	const __u32 n = self->num_devices;
	const struct {
		const char *what;
		__u32 flags, device, types;
		__u64 length;
		int err;
	} cases[] = {
		{ "flags bit 0", .flags = 1, .length = g, .err = EOPNOTSUPP },
		{ "flags bit 31", .flags = 1u << 31, .length = g,
		  .err = EOPNOTSUPP },
		{ "handle type bit 2", .types = 1 << 2, .length = g,
		  .err = EOPNOTSUPP },
		{ "handle type bit 31", .types = 1u << 31, .length = g,
		  .err = EOPNOTSUPP },
		{ "every handle type bit", .types = ~0u, .length = g,
		  .err = EOPNOTSUPP },
		{ "device num_devices", .device = n, .length = g,
		  .err = ENODEV },
		{ "device 0xffffffff", .device = ~0u, .length = g,
		  .err = ENODEV },
		{ "length 0", .length = 0, .err = EINVAL },
		{ "length 1", .length = 1, .err = EINVAL },
		{ "length granularity - 1", .length = g - 1, .err = EINVAL },
		{ "length granularity / 2", .length = g / 2, .err = EINVAL },
		{ "length granularity + 1", .length = g + 1, .err = EINVAL },
		{ "length 1.5 granules", .length = g + g / 2, .err = EINVAL },
		{ "length mem_total + 1", .length = total + 1, .err = EINVAL },
		{ "length ~0", .length = ~0ULL, .err = EINVAL },
		{ "length 2^63 + 1", .length = (1ULL << 63) + 1,
		  .err = EINVAL },
		{ "length mem_total + granularity", .length = total + g,
		  .err = ENOSPC },
		{ "length 2 * mem_total", .length = 2 * total, .err = ENOSPC },
		{ "length 2^63", .length = 1ULL << 63, .err = ENOSPC },
		/* With 2 granules held, used + length wraps to 0 and to g. */
		{ "length 2^64 - 2 granules", .length = -(2 * g),
		  .err = ENOSPC },
		{ "length 2^64 - 1 granule (the largest multiple)",
		  .length = -g, .err = ENOSPC },
		{ "length 2^64 - mem_total", .length = -total,
		  .err = ENOSPC },
	};
	struct cumc_mem_create c;
	struct snapshot before;
	__u64 held;
	size_t i;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 2 * g, &held));
	ASSERT_EQ(0, take_snapshot(self->fd, n, &before));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(&c, 0, sizeof(c));
		c.size = sizeof(c);
		c.flags = cases[i].flags;
		c.device = cases[i].device;
		c.handle_types = cases[i].types;
		c.length = cases[i].length;
		c.out_handle = CANARY;
		EXPECT_EQ(-cases[i].err, st_ioctl(self->fd, CUMC_MEM_CREATE, &c))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(CANARY, c.out_handle) TH_LOG("%s", cases[i].what);
		EXPECT_UNCHANGED(before);
	}
	EXPECT_EQ(0, st_release(self->fd, held));
}

TEST_F(mem, create_struct_sizes)
{
	const __u32 short_sizes[] = {
		0, 4, offsetof(struct cumc_mem_create, out_handle),
		sizeof(struct cumc_mem_create) - 1,
	};
	struct {
		struct cumc_mem_create c;
		__u64 tail[2];
		__u32 canary;
	} big;
	struct cumc_mem_info info;
	struct snapshot before;
	size_t i;

	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &before));
	for (i = 0; i < ARRAY_SIZE(short_sizes); i++) {
		memset(&big, 0, sizeof(big));
		big.c.size = short_sizes[i];
		big.c.length = self->gran;
		big.c.out_handle = CANARY;
		EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MEM_CREATE, &big.c))
			TH_LOG("size %u", short_sizes[i]);
		EXPECT_EQ(CANARY, big.c.out_handle);
		EXPECT_UNCHANGED(before);
	}

	memset(&big, 0, sizeof(big));
	big.c.size = offsetof(typeof(big), tail) + sizeof(big.tail);
	big.c.length = self->gran;
	big.tail[1] = 1;
	big.c.out_handle = CANARY;
	EXPECT_EQ(-E2BIG, st_ioctl(self->fd, CUMC_MEM_CREATE, &big));
	EXPECT_EQ(CANARY, big.c.out_handle);
	EXPECT_UNCHANGED(before);

	big.tail[1] = 0;
	big.canary = 0x5a5a5a5a;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MEM_CREATE, &big));
	EXPECT_EQ(0, big.tail[0]);
	EXPECT_EQ(0, big.tail[1]);
	EXPECT_EQ(0x5a5a5a5a, big.canary);
	ASSERT_EQ(0, st_mem_info(self->fd, big.c.out_handle, &info));
	EXPECT_EQ(self->gran, info.out_length);
	EXPECT_EQ(0, st_release(self->fd, big.c.out_handle));
	EXPECT_UNCHANGED(before);
}

/*
 * The struct is readable but the handle cannot be written back: the
 * caller never learns the handle, so the allocation must not survive.
 */
TEST_F(mem, create_unwritable_struct_leaks_nothing)
{
	struct cumc_mem_create *ro;
	struct snapshot before;

	ro = mmap(NULL, sizeof(*ro), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->size = sizeof(*ro);
	ro->length = self->gran;
	ASSERT_EQ(0, mprotect(ro, sizeof(*ro), PROT_READ));
	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &before));
	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_MEM_CREATE, ro));
	EXPECT_UNCHANGED(before);
	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_MEM_CREATE, NULL));
	EXPECT_UNCHANGED(before);
	munmap(ro, sizeof(*ro));
}

TEST_F(mem, info_refusals)
{
	struct {
		struct cumc_mem_info i;
		__u64 tail;
		__u32 canary;
	} big;
	__u64 h;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran,
				   &h));

	memset(&big, 0xa5, sizeof(big));
	big.i.size = sizeof(big.i);
	big.i.flags = 1;
	big.i.handle = h;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_MEM_INFO, &big.i));
	EXPECT_EQ(0xa5a5a5a5, big.i.out_device);
	EXPECT_EQ(0xa5a5a5a5a5a5a5a5ULL, big.i.out_length);

	big.i.flags = 0;
	big.i.size = offsetof(struct cumc_mem_info, out_length);
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MEM_INFO, &big.i));
	EXPECT_EQ(0xa5a5a5a5, big.i.out_device);
	big.i.size = 0;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MEM_INFO, &big.i));

	big.i.size = offsetof(typeof(big), canary);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, st_ioctl(self->fd, CUMC_MEM_INFO, &big));
	EXPECT_EQ(0xa5a5a5a5, big.i.out_device);

	big.tail = 0;
	big.canary = 0x5a5a5a5a;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MEM_INFO, &big));
	EXPECT_EQ(0, big.i.out_device);
	EXPECT_EQ(CUMC_HANDLE_FD, big.i.out_handle_types);
	EXPECT_EQ(self->gran, big.i.out_length);
	EXPECT_EQ(0, big.tail);
	EXPECT_EQ(0x5a5a5a5a, big.canary);

	EXPECT_EQ(0, st_release(self->fd, h));
}

/* A refused release leaves the handle and its allocation alone. */
TEST_F(mem, release_refusals)
{
	struct {
		struct cumc_release r;
		__u64 tail;
	} big;
	struct cumc_mem_info info;
	long mems;
	__u64 h;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h));
	mems = st_objects_now().mems;

	memset(&big, 0, sizeof(big));
	big.r.size = sizeof(big.r);
	big.r.handle = h;
	big.r.flags = 1;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_RELEASE, &big.r));
	big.r.flags = 1u << 31;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_RELEASE, &big.r));
	big.r.flags = 0;

	big.r.size = offsetof(struct cumc_release, handle);
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_RELEASE, &big.r));
	big.r.size = 0;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_RELEASE, &big.r));

	big.r.size = sizeof(big);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, st_ioctl(self->fd, CUMC_RELEASE, &big));

	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_RELEASE, NULL));

	EXPECT_EQ(mems, st_objects_now().mems);
	EXPECT_EQ(0, st_mem_info(self->fd, h, &info));

	big.tail = 0;
	EXPECT_EQ(0, st_ioctl(self->fd, CUMC_RELEASE, &big));
	EXPECT_EQ(mems - 1, st_objects_now().mems);
}

TEST_F(mem, stale_handle_and_double_release)
{
	struct cumc_mem_info info;
	long long avail;
	__u64 h, h2;

	avail = st_mem_free(self->fd, 0);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h));
	ASSERT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(avail, st_mem_free(self->fd, 0));
	EXPECT_EQ(self->base.mems, st_objects_now().mems);

	EXPECT_EQ(-ENOENT, st_mem_info(self->fd, h, &info));
	EXPECT_EQ(-ENOENT, st_release(self->fd, h));

	/* A new allocation must not bring the old handle back to life. */
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 2 * self->gran, &h2));
	EXPECT_NE(h, h2);
	EXPECT_EQ(-ENOENT, st_mem_info(self->fd, h, &info));
	EXPECT_EQ(-ENOENT, st_release(self->fd, h));
	ASSERT_EQ(0, st_mem_info(self->fd, h2, &info));
	EXPECT_EQ(2 * self->gran, info.out_length);
	EXPECT_EQ(0, st_release(self->fd, h2));
	EXPECT_EQ(-ENOENT, st_release(self->fd, h2));
	EXPECT_EQ(avail, st_mem_free(self->fd, 0));
}

static __u64 xorshift64(__u64 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * With a single live handle in the client, every other value must miss,
 * whatever the kernel encodes in the bits.
 */
TEST_F(mem, garbage_handles_refused)
{
	struct cumc_mem_info info;
	__u64 h, seed = 0x6375636d63ULL;
	__u64 bad[48];
	size_t nbad = 0, i;
	long mems;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h));
	mems = st_objects_now().mems;

	bad[nbad++] = 0;
	bad[nbad++] = ~0ULL;
	bad[nbad++] = 1;
	bad[nbad++] = h + 1;
	bad[nbad++] = h - 1;
	bad[nbad++] = h ^ 1;
	bad[nbad++] = h ^ (1ULL << 31);
	bad[nbad++] = h ^ (1ULL << 32);
	bad[nbad++] = h ^ (1ULL << 63);
	/* The upper or the lower 32 bits changed. */
	bad[nbad++] = h & 0xffffffffULL;
	bad[nbad++] = h | 0xffffffff00000000ULL;
	bad[nbad++] = h ^ 0xffffffff00000000ULL;
	bad[nbad++] = h & 0xffffffff00000000ULL;
	bad[nbad++] = h | 0xffffffffULL;
	bad[nbad++] = h ^ 0xffffffffULL;
	bad[nbad++] = (h & 0xffffffff00000000ULL) | ((h + 1000) & 0xffffffff);
	while (nbad < ARRAY_SIZE(bad))
		bad[nbad++] = xorshift64(&seed);

	for (i = 0; i < nbad; i++) {
		if (bad[i] == h)
			continue;
		EXPECT_EQ(-ENOENT, st_mem_info(self->fd, bad[i], &info))
			TH_LOG("handle 0x%llx (valid 0x%llx)",
			       (unsigned long long)bad[i],
			       (unsigned long long)h);
		EXPECT_EQ(-ENOENT, st_release(self->fd, bad[i]))
			TH_LOG("handle 0x%llx (valid 0x%llx)",
			       (unsigned long long)bad[i],
			       (unsigned long long)h);
	}
	EXPECT_EQ(mems, st_objects_now().mems);
	EXPECT_EQ(0, st_mem_info(self->fd, h, &info));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(mem, other_clients_handles_refused)
{
	struct cumc_mem_info info;
	__u64 ha, hb;
	int fdb;

	fdb = st_open();
	ASSERT_LE(0, fdb);
	EXPECT_EQ(self->base.clients + 2, st_objects_now().clients);
	/* Different lengths: a wrong lookup cannot pass for a right one. */
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &ha));
	ASSERT_EQ(0, st_mem_create(fdb, 0, 0, 2 * self->gran, &hb));

	EXPECT_EQ(-ENOENT, st_mem_info(fdb, ha, &info));
	EXPECT_EQ(-ENOENT, st_release(fdb, ha));
	EXPECT_EQ(-ENOENT, st_mem_info(self->fd, hb, &info));
	EXPECT_EQ(-ENOENT, st_release(self->fd, hb));

	ASSERT_EQ(0, st_mem_info(self->fd, ha, &info));
	EXPECT_EQ(self->gran, info.out_length);
	ASSERT_EQ(0, st_mem_info(fdb, hb, &info));
	EXPECT_EQ(2 * self->gran, info.out_length);
	EXPECT_EQ(self->base.mems + 2, st_objects_now().mems);

	/* B's going takes only B's allocation. */
	close(fdb);
	EXPECT_EQ(self->base.mems + 1, st_objects_now().mems);
	EXPECT_EQ(self->base.clients + 1, st_objects_now().clients);
	ASSERT_EQ(0, st_mem_info(self->fd, ha, &info));
	EXPECT_EQ(self->gran, info.out_length);
	EXPECT_EQ(0, st_release(self->fd, ha));
}

/* Create @per_device allocations of one granule on every device. */
static int populate(int fd, __u32 num_devices, __u64 gran, int per_device)
{
	__u32 d;
	__u64 h;
	int i, ret;

	for (d = 0; d < num_devices; d++) {
		for (i = 0; i < per_device; i++) {
			ret = st_mem_create(fd, d, i & 1 ? CUMC_HANDLE_FD : 0,
					    gran, &h);
			if (ret)
				return ret;
		}
	}
	return 0;
}

TEST_F(mem, close_releases_everything)
{
	struct snapshot before;
	int fd2;

	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &before));
	fd2 = st_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, populate(fd2, self->num_devices, self->gran, 3));
	EXPECT_EQ(before.mems + 3 * self->num_devices, st_objects_now().mems);
	EXPECT_EQ(self->base.clients + 2, st_objects_now().clients);
	EXPECT_EQ(0, close(fd2));
	EXPECT_UNCHANGED(before);
	EXPECT_EQ(self->base.clients + 1, st_objects_now().clients);
}

/*
 * The client is the open file, not the process: a child sees the parent's
 * handles through the inherited descriptor, and its exit releases nothing.
 */
TEST_F(mem, forked_child_shares_client)
{
	struct cumc_mem_info info;
	__u64 h, *shared;
	int status;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (st_mem_info(self->fd, h, &info) ||
		    info.out_length != self->gran)
			_exit(1);
		if (st_mem_create(self->fd, 0, 0, 2 * self->gran, shared))
			_exit(2);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	EXPECT_EQ(self->base.clients + 1, st_objects_now().clients);
	EXPECT_EQ(self->base.mems + 2, st_objects_now().mems);
	EXPECT_EQ(0, st_mem_info(self->fd, h, &info));
	ASSERT_EQ(0, st_mem_info(self->fd, *shared, &info));
	EXPECT_EQ(2 * self->gran, info.out_length);
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, st_release(self->fd, *shared));
	munmap(shared, sizeof(*shared));
}

/* Fork a child with its own client; it writes to @ready once it runs. */
static pid_t spawn_client(int ready[2], __u32 num_devices, __u64 gran,
			  int loop)
{
	unsigned int i;
	pid_t pid;
	__u64 h;
	int fd;

	pid = fork();
	if (pid)
		return pid;
	close(ready[0]);
	fd = st_open();
	if (fd < 0)
		_exit(1);
	if (!loop) {
		if (populate(fd, num_devices, gran, 4))
			_exit(1);
		if (write(ready[1], "", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (write(ready[1], "", 1) != 1)
		_exit(1);
	/* Keep every other allocation, so that some are always held. */
	for (i = 0;; i++) {
		if (st_mem_create(fd, i % num_devices, 0, gran, &h))
			continue;
		if (i & 1)
			st_release(fd, h);
	}
}

TEST_F(mem, killed_client_leaves_nothing)
{
	struct snapshot before;
	int ready[2], status;
	long long free0;
	char c;
	pid_t pid;

	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &before));
	free0 = st_mem_free(self->fd, 0);
	ASSERT_EQ(0, pipe(ready));
	pid = spawn_client(ready, self->num_devices, self->gran, 0);
	ASSERT_LE(0, pid);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("the child failed to allocate");
	close(ready[0]);

	EXPECT_EQ(before.mems + 4 * self->num_devices, st_objects_now().mems);
	EXPECT_EQ(self->base.clients + 2, st_objects_now().clients);
	EXPECT_EQ(free0 - 4 * self->gran, st_mem_free(self->fd, 0));

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_UNCHANGED(before);
	EXPECT_EQ(self->base.clients + 1, st_objects_now().clients);
}

TEST_F(mem, killed_while_allocating_leaves_nothing)
{
	struct timespec nap = { .tv_nsec = 10 * 1000 * 1000 };
	struct snapshot before;
	int ready[2], status, i;
	char c;
	pid_t pid;

	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &before));
	ASSERT_EQ(0, pipe(ready));
	pid = spawn_client(ready, self->num_devices, self->gran, 1);
	ASSERT_LE(0, pid);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);

	/* Kill it once it is well into its loop, most likely mid-ioctl. */
	for (i = 0; i < 500 && st_objects_now().mems < before.mems + 64; i++)
		nanosleep(&nap, NULL);
	EXPECT_LE(before.mems + 64, st_objects_now().mems);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_UNCHANGED(before);
	EXPECT_EQ(self->base.clients + 1, st_objects_now().clients);
}

/*
 * Fill device 0 in chunks that do not divide it, then with the exact
 * remainder: every byte accounted, and ENOSPC at exactly the right point.
 */
TEST_F(mem, capacity_exhausted_and_returned)
{
	__u64 chunk, left, h[16], hrem, hb;
	long long free0, free1 = 0;
	size_t nh = 0, i;
	struct snapshot before;
	int fdb, ret;

	ASSERT_EQ(0, take_snapshot(self->fd, self->num_devices, &before));
	free0 = st_mem_free(self->fd, 0);
	ASSERT_LE(0, free0);
	if (self->num_devices > 1)
		free1 = st_mem_free(self->fd, 1);
	chunk = free0 / 7 / self->gran * self->gran;
	left = free0;
	for (;;) {
		ASSERT_GT(ARRAY_SIZE(h), nh);
		ret = st_mem_create(self->fd, 0, 0, chunk, &h[nh]);
		if (ret)
			break;
		nh++;
		left -= chunk;
		EXPECT_EQ(left, st_mem_free(self->fd, 0));
	}
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(free0 / chunk, nh);
	EXPECT_GT(chunk, left);
	EXPECT_EQ(before.mems + nh, st_objects_now().mems);

	if (left) {
		/* One granule more than is free, then exactly what is free. */
		EXPECT_EQ(-ENOSPC, st_mem_create(self->fd, 0, 0,
						 left + self->gran, &hrem));
		ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, left, &hrem));
	}
	EXPECT_EQ(0, st_mem_free(self->fd, 0));
	EXPECT_EQ(-ENOSPC, st_mem_create(self->fd, 0, 0, self->gran, &hb));

	/* The device is full for every client; other devices are not. */
	fdb = st_open();
	ASSERT_LE(0, fdb);
	EXPECT_EQ(-ENOSPC, st_mem_create(fdb, 0, 0, self->gran, &hb));
	if (self->num_devices > 1) {
		EXPECT_EQ(free1, st_mem_free(self->fd, 1));
		ASSERT_EQ(0, st_mem_create(fdb, 1, 0, self->gran, &hb));
	}
	close(fdb);

	/* Released memory can be allocated again. */
	ASSERT_EQ(0, st_release(self->fd, h[0]));
	EXPECT_EQ(chunk, st_mem_free(self->fd, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, chunk, &h[0]));
	EXPECT_EQ(0, st_mem_free(self->fd, 0));

	for (i = 0; i < nh; i++)
		EXPECT_EQ(0, st_release(self->fd, h[i]));
	if (left)
		EXPECT_EQ(0, st_release(self->fd, hrem));
	EXPECT_UNCHANGED(before);
}

/*
 * Memory freed in holes is allocated again, whatever the fragmentation: an
 * allocation larger than any hole spans several (on a PCI device, runs of
 * its BAR), reads zeros, and keeps every byte written across the holes'
 * boundaries. Only when the capacity is gone does a call fail.
 */
TEST_F(mem, fragmented_memory_allocated_across_holes)
{
	__u64 chunk, h[8], big, addr;
	long long free0;
	volatile unsigned char *p;
	size_t i;

	free0 = st_mem_free(self->fd, 0);
	ASSERT_LT(0, free0);
	chunk = free0 / 8 / self->gran * self->gran;
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, chunk, &h[i]));
	/* Four holes of one chunk, none next to another. */
	for (i = 0; i < 8; i += 2)
		ASSERT_EQ(0, st_release(self->fd, h[i]));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 3 * chunk, &big));
	EXPECT_EQ(free0 - 7 * chunk, st_mem_free(self->fd, 0));

	ASSERT_EQ(0, st_map_new(self->fd, big, 3 * chunk, 0,
				CUMC_ACCESS_READWRITE, &addr));
	p = (volatile unsigned char *)(uintptr_t)addr;
	for (i = 1; i <= 2; i++) {
		EXPECT_EQ(0, p[i * chunk - 1]);
		EXPECT_EQ(0, p[i * chunk]);
		p[i * chunk - 1] = 0xa0 + i;
		p[i * chunk] = 0xb0 + i;
	}
	for (i = 1; i <= 2; i++) {
		EXPECT_EQ(0xa0 + i, p[i * chunk - 1]);
		EXPECT_EQ(0xb0 + i, p[i * chunk]);
	}
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, 3 * chunk));

	/* The last hole and what was never handed out, then no more. */
	EXPECT_EQ(-ENOSPC, st_mem_create(self->fd, 0, 0,
					 free0 - 7 * chunk + self->gran, &h[0]));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, free0 - 7 * chunk, &h[0]));
	EXPECT_EQ(0, st_mem_free(self->fd, 0));

	EXPECT_EQ(0, st_release(self->fd, h[0]));
	EXPECT_EQ(0, st_release(self->fd, big));
	for (i = 1; i < 8; i += 2)
		EXPECT_EQ(0, st_release(self->fd, h[i]));
	EXPECT_EQ(free0, st_mem_free(self->fd, 0));
}

/* Several thousand handles in one client, then all of them released. */
TEST_F(mem, handle_table_growth)
{
	const __u32 n = self->num_devices;
	__u64 per_device = self->mem_total / self->gran;
	struct cumc_mem_info info;
	struct snapshot before;
	size_t count = 5000, i;
	__u64 *h;

	if (count > n * per_device)
		count = n * per_device;
	h = calloc(count, sizeof(*h));
	ASSERT_NE(NULL, h);
	ASSERT_EQ(0, take_snapshot(self->fd, n, &before));

	for (i = 0; i < count; i++)
		ASSERT_EQ(0, st_mem_create(self->fd, i % n, 0, self->gran,
					   &h[i]))
			TH_LOG("allocation %zu", i);
	EXPECT_EQ(before.mems + count, st_objects_now().mems);
	EXPECT_TRUE(handles_unique(h, count));
	for (i = 0; i < count; i++) {
		ASSERT_EQ(0, st_mem_info(self->fd, h[i], &info))
			TH_LOG("allocation %zu", i);
		ASSERT_EQ(i % n, info.out_device);
	}

	/* Holes all over the table, then the survivors still resolve. */
	for (i = 0; i < count; i += 2)
		ASSERT_EQ(0, st_release(self->fd, h[i]));
	EXPECT_EQ(before.mems + count / 2, st_objects_now().mems);
	for (i = 0; i < count; i++)
		ASSERT_EQ(i & 1 ? 0 : -ENOENT,
			  st_mem_info(self->fd, h[i], &info))
			TH_LOG("allocation %zu", i);
	for (i = 1; i < count; i += 2)
		ASSERT_EQ(0, st_release(self->fd, h[i]));
	EXPECT_UNCHANGED(before);
	free(h);
}

/* Threads racing, two a CPU, and the handles they release each round. */
#define RACERS 4
#define RACED_HANDLES 64

/* Threads releasing the same handles, each retained once per thread. */
struct release_race {
	int fd;
	int count;
	__u64 handles[RACED_HANDLES];
	pthread_barrier_t start, done;
	int stop;
	/* Each thread's releases that did not answer 0, and the first one. */
	int failed[RACERS];
	int first_errno[RACERS];
};

struct release_racer {
	struct release_race *race;
	int index;
};

static void *release_racer(void *arg)
{
	struct release_racer *racer = arg;
	struct release_race *race = racer->race;
	cpu_set_t cpu;
	int i, ret;

	/*
	 * Two threads a CPU: each may lose its CPU right after a release
	 * drops the table's lock, to one that releases the same handle,
	 * while the other CPU's pair releases it at the same time.
	 */
	CPU_ZERO(&cpu);
	CPU_SET(racer->index % 2, &cpu);
	sched_setaffinity(0, sizeof(cpu), &cpu);
	for (;;) {
		pthread_barrier_wait(&race->start);
		if (race->stop)
			return NULL;
		for (i = 0; i < race->count; i++) {
			ret = st_release(race->fd, race->handles[i]);
			if (ret && !race->failed[racer->index]++)
				race->first_errno[racer->index] = ret;
		}
		pthread_barrier_wait(&race->done);
	}
}

/*
 * A retained handle takes one release per retain. Whichever concurrent
 * release is last must be the only one to drop the handle's reference and
 * free its entry: the others must not look at the entry again once they
 * have let the table go. Four threads release the same handles in the same
 * order, two pinned to each of two CPUs (one CPU serves both pairs when
 * there is only one), on the debug kernel's preemptible kernel too: a
 * second look at the entry is a KASAN use-after-free there within seconds
 * (seen before the fix, in the first of two 300-round runs it was tried
 * in), a double release shows in the allocations' count on any kernel.
 */
/* A hang guard for the debug kernel under load, not a measure. */
TEST_F(mem, concurrent_releases_of_retained_handle)
{
	struct release_race race = { .fd = self->fd };
	struct release_racer racers[RACERS];
	pthread_t racer[RACERS];
	const int rounds = 300;
	struct cumc_va_query q;
	int round, i, t;
	__u64 mem, va, span;

	race.count = RACED_HANDLES;
	if (race.count > self->num_devices * (self->mem_total / self->gran))
		race.count = self->num_devices * (self->mem_total / self->gran);
	span = race.count * self->gran;
	ASSERT_EQ(0, st_va_reserve(self->fd, span, 0, 0, &va));
	for (i = 0; i < race.count; i++) {
		ASSERT_EQ(0, st_mem_create(self->fd, i % self->num_devices, 0,
					   self->gran, &mem));
		ASSERT_EQ(0, st_map(self->fd, va + i * self->gran, self->gran,
				    mem));
		/* The mapping holds it; from now on only retains name it. */
		ASSERT_EQ(0, st_release(self->fd, mem));
	}
	ASSERT_EQ(0, pthread_barrier_init(&race.start, NULL, RACERS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&race.done, NULL, RACERS + 1));
	for (t = 0; t < RACERS; t++) {
		racers[t].race = &race;
		racers[t].index = t;
		ASSERT_EQ(0, pthread_create(&racer[t], NULL, release_racer,
					    &racers[t]));
	}

	for (round = 0; round < rounds; round++) {
		for (i = 0; i < race.count * RACERS; i++) {
			ASSERT_EQ(0, st_va_query(self->fd,
						 va + i / RACERS * self->gran, 0,
						 CUMC_VA_QUERY_RETAIN, &q));
			race.handles[i / RACERS] = q.out_handle;
		}
		pthread_barrier_wait(&race.start);
		pthread_barrier_wait(&race.done);
		for (t = 0; t < RACERS; t++) {
			int failed = race.failed[t], err = race.first_errno[t];

			ASSERT_EQ(0, failed)
				TH_LOG("round %d, thread %d: %d", round, t, err);
		}
		/* Only the mappings hold them: none freed, none over-counted. */
		ASSERT_EQ(self->base.mems + race.count, st_objects_now().mems)
			TH_LOG("round %d", round);
	}
	/* Every retain was released: the last round's handles are gone. */
	for (i = 0; i < race.count; i++)
		EXPECT_EQ(-ENOENT, st_release(self->fd, race.handles[i]));
	race.stop = 1;
	pthread_barrier_wait(&race.start);
	for (t = 0; t < RACERS; t++)
		pthread_join(racer[t], NULL);
	pthread_barrier_destroy(&race.start);
	pthread_barrier_destroy(&race.done);
	EXPECT_EQ(0, st_unmap(self->fd, va, span));
	EXPECT_EQ(0, st_va_free(self->fd, va, span));
	EXPECT_EQ(self->base.mems, st_objects_now().mems);
}

TEST_HARNESS_MAIN
