// SPDX-License-Identifier: GPL-2.0
/*
 * Device addresses: CUMC_VA_RESERVE, CUMC_VA_FREE, CUMC_MAP, CUMC_UNMAP,
 * CUMC_SET_ACCESS and CUMC_VA_QUERY, and what the CPU may do through a
 * reservation as mappings and access change.
 *
 * Whether an access faults is decided in a child that shares our address
 * space (clone(CLONE_VM)): a fork()ed child would not see the reservation
 * at all, so it would fault whatever the module did. Only the test of fork()
 * itself uses fork().
 *
 * The VM these tests run in emulates the CPU: every test touches a handful
 * of pages, except the one that fills a whole 4 MiB mapping.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

/* What a refused call must leave in the caller's output members. */
#define CANARY 0xdeadbeefcafef00dULL

#define SZ_2M (2ULL << 20)
#define SZ_4M (4ULL << 20)
#define SZ_64M (64ULL << 20)
#define SZ_1G (1ULL << 30)

#define PAGE 4096ULL

static void *ptr(__u64 addr)
{
	return (void *)(uintptr_t)addr;
}

static volatile unsigned char *bytes(__u64 addr)
{
	return (volatile unsigned char *)(uintptr_t)addr;
}

#define EXPECT_LOAD_OK(addr) EXPECT_EQ(0, probe_touch_in_child(addr, false))
#define EXPECT_STORE_OK(addr) EXPECT_EQ(0, probe_touch_in_child(addr, true))
#define EXPECT_LOAD_FAULTS(addr) \
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(addr, false))
#define EXPECT_STORE_FAULTS(addr) \
	EXPECT_EQ(SIGSEGV, probe_touch_in_child(addr, true))

FIXTURE(va) {
	int fd;
	__u32 num_devices;
	__u64 gran;
	/* Before this test's first client was opened. */
	struct st_objects base;
};

FIXTURE_SETUP(va)
{
	/* Children die of SIGSEGV on purpose: no core files in the tree. */
	struct rlimit no_core = { 0, 0 };
	struct cumc_device_info info;

	ASSERT_EQ(0, setrlimit(RLIMIT_CORE, &no_core));
	ST_SETUP_CLIENT(&info);
	self->gran = info.granularity;
	ASSERT_LE(PAGE, self->gran);
}

FIXTURE_TEARDOWN(va)
{
	close(self->fd);
	/* Every test gives back all it reserved, mapped and allocated. */
	ST_EXPECT_OBJECTS(self->base, mappings);
}

static __u64 reserve(struct __test_metadata *_metadata, int fd, __u64 length)
{
	__u64 addr = 0;

	ASSERT_EQ(0, st_va_reserve(fd, length, 0, 0, &addr));
	return addr;
}

/* A new allocation on @device mapped at @addr; returns its handle. */
static __u64 map_new(struct __test_metadata *_metadata, int fd, __u32 device,
		     __u64 addr, __u64 length)
{
	__u64 handle = 0;

	ASSERT_EQ(0, st_mem_create(fd, device, 0, length, &handle));
	ASSERT_EQ(0, st_map(fd, addr, length, handle));
	return handle;
}

static __u32 access_of(int fd, __u64 addr, __u32 device)
{
	struct cumc_va_query q;

	if (st_va_query(fd, addr, device, 0, &q))
		return ~0u;
	return q.out_access;
}

static __u32 access_any(int fd, __u64 addr)
{
	struct cumc_va_query q;

	if (st_va_query(fd, addr, 0, 0, &q))
		return ~0u;
	return q.out_access_any;
}

/* Gives back a mapping made by map_new() and the reservation around it. */
static void unmap_release_free(struct __test_metadata *_metadata, int fd,
			       __u64 handle, __u64 map_addr, __u64 map_length,
			       __u64 va_addr, __u64 va_length)
{
	EXPECT_EQ(0, st_unmap(fd, map_addr, map_length));
	EXPECT_EQ(0, st_release(fd, handle));
	EXPECT_EQ(0, st_va_free(fd, va_addr, va_length));
}

/* CUMC_VA_RESERVE */

TEST_F(va, reserve_aligned_as_asked)
{
	const __u64 alignments[] = { SZ_2M, SZ_64M, SZ_1G };
	struct cumc_va_query q;
	__u64 addr, want;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(alignments); i++) {
		want = alignments[i] > self->gran ? alignments[i] : self->gran;
		ASSERT_EQ(0, st_va_reserve(self->fd, 2 * self->gran,
					   alignments[i], 0, &addr));
		EXPECT_NE(0, addr);
		EXPECT_EQ(0, addr % want)
			TH_LOG("0x%llx not aligned to 0x%llx", addr, want);
		ASSERT_EQ(0, st_va_query(self->fd, addr, 0, 0, &q));
		EXPECT_EQ(addr, q.out_va_addr);
		EXPECT_EQ(2 * self->gran, q.out_va_length);
		EXPECT_EQ(0, st_va_free(self->fd, addr, 2 * self->gran));
	}
}

TEST_F(va, reserve_alignment_zero_means_granularity)
{
	__u64 addr[4];
	int i;

	/* Several, so that one lucky placement cannot pass the test. */
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0,
					   &addr[i]));
		EXPECT_EQ(0, addr[i] % self->gran)
			TH_LOG("0x%llx", addr[i]);
	}
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, st_va_free(self->fd, addr[i], self->gran));
}

TEST_F(va, reserve_free_hint_honoured)
{
	__u64 len = 2 * self->gran;
	__u64 hint, addr;

	/*
	 * A free address far from where the kernel would put it by itself,
	 * inside a range just freed: the layout is random, and a mapping may
	 * sit less than 64 MiB above a reservation.
	 */
	ASSERT_EQ(0, st_va_reserve(self->fd, 2 * SZ_64M, SZ_1G, 0, &hint));
	ASSERT_EQ(0, st_va_free(self->fd, hint, 2 * SZ_64M));
	hint += SZ_64M;

	ASSERT_EQ(0, st_va_reserve(self->fd, len, 0, hint, &addr));
	EXPECT_EQ(hint, addr);
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));

	/* The alignment wins over a hint that does not have it. */
	ASSERT_EQ(0, st_va_reserve(self->fd, len, SZ_1G, hint, &addr));
	EXPECT_EQ(0, addr % SZ_1G) TH_LOG("0x%llx", addr);
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, reserve_busy_hint_not_error)
{
	__u64 len = 2 * self->gran;
	__u64 first, second;
	struct cumc_va_query q;
	void *anon;

	ASSERT_EQ(0, st_va_reserve(self->fd, len, 0, 0, &first));
	ASSERT_EQ(0, st_va_reserve(self->fd, len, 0, first, &second));
	EXPECT_NE(first, second);
	EXPECT_EQ(0, second % self->gran);
	ASSERT_EQ(0, st_va_query(self->fd, first, 0, 0, &q));
	EXPECT_EQ(first, q.out_va_addr);
	ASSERT_EQ(0, st_va_query(self->fd, second, 0, 0, &q));
	EXPECT_EQ(second, q.out_va_addr);
	EXPECT_EQ(0, st_va_free(self->fd, second, len));
	EXPECT_EQ(0, st_va_free(self->fd, first, len));

	/* Busy with something that is not a reservation: left alone. */
	anon = mmap(ptr(first), PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	ASSERT_EQ(ptr(first), anon);
	*(volatile char *)anon = 1;
	ASSERT_EQ(0, st_va_reserve(self->fd, len, 0, first, &second));
	EXPECT_NE(first, second);
	EXPECT_EQ(0, st_va_free(self->fd, second, len));
	EXPECT_EQ(1, *(volatile char *)anon);
	EXPECT_EQ(0, munmap(anon, PAGE));
}

TEST_F(va, reserve_bad_arguments_refused)
{
	__u64 g = self->gran;
	const struct {
		const char *what;
		__u32 flags;
		__u64 length;
		__u64 alignment;
		__u64 hint;
		int err;
	} bad[] = {
		{ "length 0", 0, 0, 0, 0, EINVAL },
		{ "unaligned length", 0, g + g / 2, 0, 0, EINVAL },
		{ "length over 2^47", 0, (1ULL << 47) + g, 0, 0, EINVAL },
		{ "alignment not a power of two", 0, g, 3 * g, 0, EINVAL },
		{ "alignment over 2^40", 0, g, 1ULL << 41, 0, EINVAL },
		{ "unaligned hint", 0, g, 0, 64 * g + g / 2, EINVAL },
		{ "flags", 1, g, 0, 0, EOPNOTSUPP },
		{ "high flag", 1u << 31, g, 0, 0, EOPNOTSUPP },
		{ "flag beside SHARED", CUMC_VA_RESERVE_SHARED << 1, g, 0, 0,
		  EOPNOTSUPP },
		{ "unaligned length, shared", CUMC_VA_RESERVE_SHARED,
		  g + g / 2, 0, 0, EINVAL },
		{ "alignment over 2^40, shared", CUMC_VA_RESERVE_SHARED, g,
		  1ULL << 41, 0, EINVAL },
	};
	struct st_objects before;
	__u64 addr;
	size_t i;

	ASSERT_EQ(0, st_objects_read(&before));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cumc_va_reserve r = {
			.size = sizeof(r),
			.flags = bad[i].flags,
			.length = bad[i].length,
			.alignment = bad[i].alignment,
			.addr = bad[i].hint,
			.out_addr = CANARY,
		};

		EXPECT_EQ(-bad[i].err,
			  st_ioctl(self->fd, CUMC_VA_RESERVE, &r))
			TH_LOG("%s", bad[i].what);
		EXPECT_EQ(CANARY, r.out_addr) TH_LOG("%s", bad[i].what);
	}
	ST_EXPECT_OBJECTS(before, mappings);

	/* The largest alignment allowed works. */
	ASSERT_EQ(0, st_va_reserve(self->fd, g, 1ULL << 40, 0, &addr));
	EXPECT_EQ(0, addr % (1ULL << 40));
	EXPECT_EQ(0, st_va_free(self->fd, addr, g));
}

TEST_F(va, plain_mmap_refused)
{
	struct st_objects before;
	void *p;

	ASSERT_EQ(0, st_objects_read(&before));
	p = mmap(NULL, self->gran, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	p = mmap(NULL, self->gran, PROT_READ, MAP_PRIVATE, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	ST_EXPECT_OBJECTS(before, mappings);
}

TEST_F(va, partial_munmap_refused)
{
	__u64 g = self->gran, len = 3 * g;
	struct cumc_va_query q;
	__u64 addr;

	ASSERT_EQ(0, st_va_reserve(self->fd, len, 0, 0, &addr));
	EXPECT_EQ(-1, munmap(ptr(addr), g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(ptr(addr + g), g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(ptr(addr + 2 * g), g));
	EXPECT_EQ(EINVAL, errno);
	/* Still one whole reservation. */
	ASSERT_EQ(0, st_va_query(self->fd, addr + 2 * g, 0, 0, &q));
	EXPECT_EQ(addr, q.out_va_addr);
	EXPECT_EQ(len, q.out_va_length);
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, mprotect_refused)
{
	__u64 g = self->gran, len = 2 * g;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	bytes(addr)[0] = 0x11;

	EXPECT_EQ(-1, mprotect(ptr(addr), len, PROT_READ));
	EXPECT_EQ(-1, mprotect(ptr(addr), g, PROT_READ));
	EXPECT_EQ(-1, mprotect(ptr(addr), len, PROT_NONE));
	/* Access is the module's to decide: the address is still writable. */
	EXPECT_STORE_OK(addr);
	EXPECT_STORE_OK(addr + g);
	EXPECT_EQ(0x11, bytes(addr)[0]);

	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, mremap_resize_refused)
{
	__u64 g = self->gran, len = 2 * g;
	struct cumc_va_query q;
	struct st_objects before;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	bytes(addr)[0] = 0x22;
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(MAP_FAILED, mremap(ptr(addr), len, g, 0));
	EXPECT_EQ(MAP_FAILED, mremap(ptr(addr), len, 2 * len, 0));
	EXPECT_EQ(MAP_FAILED, mremap(ptr(addr), len, 2 * len, MREMAP_MAYMOVE));

	ST_EXPECT_OBJECTS(before, mappings);
	ASSERT_EQ(0, st_va_query(self->fd, addr + g, 0, 0, &q));
	EXPECT_EQ(addr, q.out_va_addr);
	EXPECT_EQ(len, q.out_va_length);
	EXPECT_EQ(addr, q.out_map_addr);
	EXPECT_EQ(0x22, bytes(addr)[0]);

	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, mremap_move_refused)
{
	__u64 len = 2 * self->gran;
	struct st_objects before;
	struct cumc_va_query q;
	__u64 addr, handle;
	void *dst;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	bytes(addr)[0] = 0x3c;
	dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, dst);
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(MAP_FAILED, mremap(ptr(addr), len, len,
				     MREMAP_MAYMOVE | MREMAP_FIXED, dst));
	EXPECT_EQ(MAP_FAILED, mremap(ptr(addr), len, len,
				     MREMAP_MAYMOVE | MREMAP_DONTUNMAP, dst));
	/* old_len 0 would duplicate a shared mapping: two VMAs, one owner. */
	EXPECT_EQ(MAP_FAILED, mremap(ptr(addr), 0, len, MREMAP_MAYMOVE));

	/* Whole and alive where it was, the mapping and its data with it. */
	ST_EXPECT_OBJECTS(before, mappings);
	ASSERT_EQ(0, st_va_query(self->fd, addr, 0, 0, &q));
	EXPECT_EQ(addr, q.out_va_addr);
	EXPECT_EQ(len, q.out_va_length);
	EXPECT_EQ(addr, q.out_map_addr);
	EXPECT_EQ(0x3c, bytes(addr)[0]);
	EXPECT_STORE_OK(addr + len - 1);

	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
	/* A refused MREMAP_FIXED may already have unmapped the target. */
	munmap(dst, len);
}

TEST_F(va, reservation_not_inherited_by_fork)
{
	__u64 len = self->gran;
	__u64 addr, handle;
	int status;
	pid_t pid;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	bytes(addr)[0] = 0x33;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct cumc_va_query q;

		/* Same client, but no reservation in this process. */
		if (st_va_query(self->fd, addr, 0, 0, &q) != -ENXIO)
			_exit(1);
		(void)bytes(addr)[0];
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status)) TH_LOG("status 0x%x", status);
	EXPECT_EQ(SIGSEGV, WTERMSIG(status));
	EXPECT_EQ(0x33, bytes(addr)[0]);

	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

/* CUMC_VA_FREE */

TEST_F(va, free_whole_reservation_only)
{
	__u64 g = self->gran, len = 2 * g;
	struct st_objects before;
	__u64 addr;

	ASSERT_EQ(0, st_objects_read(&before));
	ASSERT_EQ(0, st_va_reserve(self->fd, len, 0, 0, &addr));
	EXPECT_EQ(-ENXIO, st_va_free(self->fd, addr + g, g));
	EXPECT_EQ(-ENXIO, st_va_free(self->fd, addr + g, len));
	EXPECT_EQ(-EINVAL, st_va_free(self->fd, addr, g));
	EXPECT_EQ(-EINVAL, st_va_free(self->fd, addr, 2 * len));
	EXPECT_EQ(before.vas + 1, st_objects_now().vas);

	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
	EXPECT_EQ(-ENXIO, st_va_free(self->fd, addr, len));
}

TEST_F(va, free_busy_while_mapped)
{
	__u64 g = self->gran, len = 2 * g;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr + g, g);
	EXPECT_EQ(-EBUSY, st_va_free(self->fd, addr, len));
	/* Refused means untouched: the mapping is still there and usable. */
	EXPECT_EQ(0, st_grant(self->fd, addr + g, g, 0, CUMC_ACCESS_READWRITE));
	EXPECT_STORE_OK(addr + g);
	unmap_release_free(_metadata, self->fd, handle, addr + g, g, addr, len);
}

TEST_F(va, freed_address_faults)
{
	__u64 len = self->gran;
	struct cumc_va_query q;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	EXPECT_STORE_OK(addr);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);

	EXPECT_LOAD_FAULTS(addr);
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, addr, 0, 0, &q));
}

/* CUMC_MAP */

TEST_F(va, map_needs_whole_allocation)
{
	__u64 g = self->gran, len = 4 * g;
	struct st_objects before;
	__u64 addr, handle;
	struct cumc_map m = {
		.size = sizeof(m),
		.length = 2 * g,
		.offset = g,
	};

	addr = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 2 * g, &handle));
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(-EINVAL, st_map(self->fd, addr, g, handle));
	EXPECT_EQ(-EINVAL, st_map(self->fd, addr, 3 * g, handle));
	EXPECT_EQ(-EINVAL, st_map(self->fd, addr, PAGE, handle));
	m.addr = addr;
	m.handle = handle;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MAP, &m));
	m.length = g;
	EXPECT_EQ(-EINVAL, st_ioctl(self->fd, CUMC_MAP, &m));
	ST_EXPECT_OBJECTS(before, mappings);

	EXPECT_EQ(0, st_map(self->fd, addr, 2 * g, handle));
	unmap_release_free(_metadata, self->fd, handle, addr, 2 * g, addr, len);
}

TEST_F(va, map_outside_own_reservation_refused)
{
	__u64 g = self->gran, len = 2 * g;
	__u64 addr, other_addr, freed, small, big;
	struct st_objects before;
	int other;

	addr = reserve(_metadata, self->fd, len);
	freed = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_va_free(self->fd, freed, len));
	/* A second client of the same process, with its own reservation. */
	other = st_open();
	ASSERT_LE(0, other);
	other_addr = reserve(_metadata, other, len);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, g, &small));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, len, &big));
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(-ENXIO, st_map(self->fd, freed, g, small));
	EXPECT_EQ(-ENXIO, st_map(self->fd, other_addr, g, small));
	/* Starts right after the reservation, or runs past its end. */
	EXPECT_EQ(-ENXIO, st_map(self->fd, addr + len, g, small));
	EXPECT_EQ(-ENXIO, st_map(self->fd, addr + g, len, big));
	ST_EXPECT_OBJECTS(before, mappings);

	EXPECT_EQ(0, st_va_free(other, other_addr, len));
	close(other);
	EXPECT_EQ(0, st_map(self->fd, addr + g, g, small));
	EXPECT_EQ(0, st_unmap(self->fd, addr + g, g));
	EXPECT_EQ(0, st_release(self->fd, small));
	EXPECT_EQ(0, st_release(self->fd, big));
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, map_overlap_refused)
{
	__u64 g = self->gran, len = 8 * g;
	__u64 addr, mapped, two, four;
	struct st_objects before;

	addr = reserve(_metadata, self->fd, len);
	/* Granules 2 and 3 of the reservation. */
	mapped = map_new(_metadata, self->fd, 0, addr + 2 * g, 2 * g);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 2 * g, &two));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 4 * g, &four));
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(-EEXIST, st_map(self->fd, addr + 2 * g, 2 * g, two));
	EXPECT_EQ(-EEXIST, st_map(self->fd, addr + g, 2 * g, two));
	EXPECT_EQ(-EEXIST, st_map(self->fd, addr + 3 * g, 2 * g, two));
	EXPECT_EQ(-EEXIST, st_map(self->fd, addr + g, 4 * g, four));
	EXPECT_EQ(-EEXIST, st_map(self->fd, addr + 2 * g, 4 * g, four));
	ST_EXPECT_OBJECTS(before, mappings);

	/* Right next to it on either side is fine. */
	EXPECT_EQ(0, st_map(self->fd, addr, 2 * g, two));
	EXPECT_EQ(0, st_map(self->fd, addr + 4 * g, 4 * g, four));
	EXPECT_EQ(0, st_unmap(self->fd, addr, len));
	EXPECT_EQ(0, st_release(self->fd, mapped));
	EXPECT_EQ(0, st_release(self->fd, two));
	EXPECT_EQ(0, st_release(self->fd, four));
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, map_unknown_handle_refused)
{
	__u64 len = self->gran;
	__u64 addr, stale, foreign, handle;
	struct st_objects before;
	int other;

	addr = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, len, &stale));
	ASSERT_EQ(0, st_release(self->fd, stale));
	other = st_open();
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_mem_create(other, 0, 0, len, &foreign));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, len, &handle));
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(-ENOENT, st_map(self->fd, addr, len, 0));
	EXPECT_EQ(-ENOENT, st_map(self->fd, addr, len, ~0ULL));
	/* Garbage, some of it a bit flip or a small step from a real one. */
	EXPECT_EQ(-ENOENT, st_map(self->fd, addr, len, handle ^ 1ULL << 40));
	EXPECT_EQ(-ENOENT, st_map(self->fd, addr, len, handle + 1000));
	EXPECT_EQ(-ENOENT, st_map(self->fd, addr, len, stale));
	EXPECT_EQ(-ENOENT, st_map(self->fd, addr, len, foreign));
	ST_EXPECT_OBJECTS(before, mappings);

	close(other);
	EXPECT_EQ(0, st_map(self->fd, addr, len, handle));
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, map_grants_no_access)
{
	__u64 len = self->gran;
	__u64 addr, handle;
	__u32 d;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	for (d = 0; d < self->num_devices; d++)
		EXPECT_EQ(CUMC_ACCESS_NONE, access_of(self->fd, addr, d));
	EXPECT_EQ(CUMC_ACCESS_NONE, access_any(self->fd, addr));
	EXPECT_LOAD_FAULTS(addr);
	EXPECT_STORE_FAULTS(addr + len - PAGE);

	/* The same child does get through once access is granted. */
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	EXPECT_LOAD_OK(addr);
	EXPECT_STORE_OK(addr + len - PAGE);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, one_allocation_at_two_addresses_aliases)
{
	__u64 g = self->gran, len = 2 * g;
	__u64 addr, handle, second;

	addr = reserve(_metadata, self->fd, 2 * len);
	second = addr + len;
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_map(self->fd, second, len, handle));
	ASSERT_EQ(0, st_grant(self->fd, addr, 2 * len, 0,
			      CUMC_ACCESS_READWRITE));

	bytes(addr)[0] = 0xa1;
	bytes(addr + g + 17)[0] = 0xa2;
	bytes(second + len - 1)[0] = 0xa3;
	EXPECT_EQ(0xa1, bytes(second)[0]);
	EXPECT_EQ(0xa2, bytes(second + g + 17)[0]);
	EXPECT_EQ(0xa3, bytes(addr + len - 1)[0]);

	/* Either stays whole without the other. */
	EXPECT_EQ(0, st_unmap(self->fd, second, len));
	EXPECT_LOAD_FAULTS(second);
	EXPECT_EQ(0xa3, bytes(addr + len - 1)[0]);
	unmap_release_free(_metadata, self->fd, handle, addr, len,
			   addr, 2 * len);
}

TEST_F(va, release_while_mapped_keeps_memory)
{
	__u64 len = self->gran;
	struct st_objects before;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	bytes(addr)[0] = 0x5a;
	bytes(addr + len - 1)[0] = 0xa5;
	ASSERT_EQ(0, st_objects_read(&before));

	ASSERT_EQ(0, st_release(self->fd, handle));
	ST_EXPECT_OBJECTS(before, mappings);
	EXPECT_EQ(0x5a, bytes(addr)[0]);
	EXPECT_EQ(0xa5, bytes(addr + len - 1)[0]);
	bytes(addr + PAGE)[0] = 0x77;
	EXPECT_EQ(0x77, bytes(addr + PAGE)[0]);

	EXPECT_EQ(0, st_unmap(self->fd, addr, len));
	EXPECT_EQ(before.mems - 1, st_objects_now().mems);
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

/* CUMC_SET_ACCESS */

TEST_F(va, set_access_over_adjacent_mappings)
{
	__u64 g = self->gran, len = 4 * g;
	struct cumc_access_desc d[2] = {
		{ .device = 0, .access = CUMC_ACCESS_READ },
		/* A later descriptor for the same device wins. */
		{ .device = 0, .access = CUMC_ACCESS_READWRITE },
	};
	__u64 addr, h[3];

	addr = reserve(_metadata, self->fd, len);
	h[0] = map_new(_metadata, self->fd, 0, addr, g);
	h[1] = map_new(_metadata, self->fd, 0, addr + g, 2 * g);
	h[2] = map_new(_metadata, self->fd, 0, addr + 3 * g, g);

	ASSERT_EQ(0, st_set_access(self->fd, addr, len, d, 2));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, access_of(self->fd, addr, 0));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, access_of(self->fd, addr + 2 * g, 0));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, access_of(self->fd, addr + 3 * g, 0));
	EXPECT_STORE_OK(addr);
	EXPECT_STORE_OK(addr + 2 * g);
	EXPECT_STORE_OK(addr + len - 1);

	EXPECT_EQ(0, st_unmap(self->fd, addr, len));
	EXPECT_EQ(0, st_release(self->fd, h[0]));
	EXPECT_EQ(0, st_release(self->fd, h[1]));
	EXPECT_EQ(0, st_release(self->fd, h[2]));
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, set_access_not_whole_mappings_refused)
{
	__u64 g = self->gran, len = 6 * g;
	__u64 addr, a, b;

	/* [a a . b b .]: two mappings with a hole between and after. */
	addr = reserve(_metadata, self->fd, len);
	a = map_new(_metadata, self->fd, 0, addr, 2 * g);
	b = map_new(_metadata, self->fd, 0, addr + 3 * g, 2 * g);

	EXPECT_EQ(-EINVAL, st_grant(self->fd, addr, g, 0, CUMC_ACCESS_READ));
	EXPECT_EQ(-EINVAL, st_grant(self->fd, addr + g, g, 0,
				    CUMC_ACCESS_READ));
	EXPECT_EQ(-EINVAL, st_grant(self->fd, addr + 3 * g, g, 0,
				    CUMC_ACCESS_READ));
	EXPECT_EQ(-ENXIO, st_grant(self->fd, addr, 5 * g, 0, CUMC_ACCESS_READ));
	EXPECT_EQ(-ENXIO, st_grant(self->fd, addr + 2 * g, 3 * g, 0,
				   CUMC_ACCESS_READ));
	EXPECT_EQ(-ENXIO, st_grant(self->fd, addr + 3 * g, 3 * g, 0,
				   CUMC_ACCESS_READ));
	EXPECT_EQ(-ENXIO, st_grant(self->fd, addr + 3 * g, 4 * g, 0,
				   CUMC_ACCESS_READ));
	/* Refusals changed nothing anywhere. */
	EXPECT_EQ(CUMC_ACCESS_NONE, access_any(self->fd, addr));
	EXPECT_EQ(CUMC_ACCESS_NONE, access_any(self->fd, addr + 3 * g));

	EXPECT_EQ(0, st_grant(self->fd, addr + 3 * g, 2 * g, 0,
			      CUMC_ACCESS_READ));
	EXPECT_EQ(0, st_unmap(self->fd, addr, 2 * g));
	EXPECT_EQ(0, st_unmap(self->fd, addr + 3 * g, 2 * g));
	EXPECT_EQ(0, st_release(self->fd, a));
	EXPECT_EQ(0, st_release(self->fd, b));
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, set_access_bad_descriptors_refused)
{
	__u32 n = self->num_devices, last = n - 1;
	struct cumc_access_desc *d;
	__u64 len = self->gran;
	__u64 addr, handle;
	void *gone;
	__u32 i;

	d = calloc(n + 1, sizeof(*d));
	ASSERT_NE(NULL, d);
	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	/* Every descriptor valid and granting, unless a case says otherwise. */
	for (i = 0; i <= n; i++)
		d[i] = (struct cumc_access_desc){ i % n,
						  CUMC_ACCESS_READWRITE };

	EXPECT_EQ(-EINVAL, st_set_access(self->fd, addr, len, d, 0));
	EXPECT_EQ(-EINVAL, st_set_access(self->fd, addr, len, d, n + 1));

	d[1] = (struct cumc_access_desc){ n, CUMC_ACCESS_READWRITE };
	EXPECT_EQ(-ENODEV, st_set_access(self->fd, addr, len, d, 2));
	d[1] = (struct cumc_access_desc){ ~0u, CUMC_ACCESS_READWRITE };
	EXPECT_EQ(-ENODEV, st_set_access(self->fd, addr, len, d, 2));
	d[1] = (struct cumc_access_desc){ last, 2 };
	EXPECT_EQ(-EINVAL, st_set_access(self->fd, addr, len, d, 2));
	d[1] = (struct cumc_access_desc){ last, 4 };
	EXPECT_EQ(-EINVAL, st_set_access(self->fd, addr, len, d, 2));

	gone = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gone);
	ASSERT_EQ(0, munmap(gone, PAGE));
	EXPECT_EQ(-EFAULT, st_set_access(self->fd, addr, len, gone, 1));

	/* d[0] granted device 0 each time, yet was never applied. */
	EXPECT_EQ(CUMC_ACCESS_NONE, access_of(self->fd, addr, 0));
	EXPECT_EQ(CUMC_ACCESS_NONE, access_any(self->fd, addr));
	EXPECT_LOAD_FAULTS(addr);

	/* All devices at once is the most allowed. */
	d[1] = (struct cumc_access_desc){ 1 % n, CUMC_ACCESS_READWRITE };
	EXPECT_EQ(0, st_set_access(self->fd, addr, len, d, n));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, access_of(self->fd, addr, last));
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
	free(d);
}

TEST_F(va, read_access_loads_only)
{
	__u64 len = self->gran;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READ));
	EXPECT_EQ(CUMC_ACCESS_READ, access_of(self->fd, addr, 0));
	EXPECT_EQ(CUMC_ACCESS_READ, access_any(self->fd, addr));

	EXPECT_EQ(0, bytes(addr)[0]);
	EXPECT_LOAD_OK(addr + PAGE);
	/* Both on a page already read in and on one never touched. */
	EXPECT_STORE_FAULTS(addr);
	EXPECT_STORE_FAULTS(addr + 2 * PAGE);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, lowering_access_applies_to_touched_pages)
{
	__u64 len = self->gran;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	/* Pages the CPU has written already have writable page tables. */
	bytes(addr)[0] = 0x42;
	bytes(addr + PAGE)[0] = 0x43;

	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READ));
	EXPECT_STORE_FAULTS(addr);
	EXPECT_STORE_FAULTS(addr + PAGE);
	EXPECT_LOAD_OK(addr);
	EXPECT_EQ(0x42, bytes(addr)[0]);

	/* Raising it again gives writes back to the read-only pages. */
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	EXPECT_STORE_OK(addr);
	bytes(addr + PAGE)[0] = 0x44;

	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_NONE));
	EXPECT_EQ(CUMC_ACCESS_NONE, access_any(self->fd, addr));
	EXPECT_LOAD_FAULTS(addr);
	EXPECT_LOAD_FAULTS(addr + PAGE);

	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READ));
	EXPECT_EQ(0x44, bytes(addr + PAGE)[0]);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, any_device_access_lets_cpu_in)
{
	__u32 last = self->num_devices - 1;
	__u64 len = self->gran;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	/* Memory of device 0, access granted only to another device. */
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, last,
			      CUMC_ACCESS_READWRITE));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, access_of(self->fd, addr, last));
	if (last)
		EXPECT_EQ(CUMC_ACCESS_NONE, access_of(self->fd, addr, 0));
	EXPECT_EQ(CUMC_ACCESS_READWRITE, access_any(self->fd, addr));
	bytes(addr)[0] = 0x99;
	EXPECT_EQ(0x99, bytes(addr)[0]);

	/* Read for one device, write for none: the CPU may only read. */
	ASSERT_EQ(0, st_grant(self->fd, addr, len, last, CUMC_ACCESS_READ));
	EXPECT_LOAD_OK(addr);
	EXPECT_STORE_FAULTS(addr);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

/* CUMC_UNMAP */

TEST_F(va, unmap_adjacent_mappings_at_once)
{
	__u64 g = self->gran, len = 4 * g;
	struct st_objects before;
	struct cumc_va_query q;
	__u64 addr, h[3];

	addr = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_objects_read(&before));
	h[0] = map_new(_metadata, self->fd, 0, addr, g);
	h[1] = map_new(_metadata, self->fd, 0, addr + g, 2 * g);
	h[2] = map_new(_metadata, self->fd, 0, addr + 3 * g, g);
	EXPECT_EQ(before.mappings + 3, st_objects_now().mappings);

	ASSERT_EQ(0, st_unmap(self->fd, addr, len));
	EXPECT_EQ(before.mappings, st_objects_now().mappings);
	ASSERT_EQ(0, st_va_query(self->fd, addr + 2 * g, 0, 0, &q));
	EXPECT_EQ(0, q.out_map_addr);
	/* The space is free to map again. */
	EXPECT_EQ(0, st_map(self->fd, addr, g, h[0]));
	EXPECT_EQ(0, st_unmap(self->fd, addr, g));

	EXPECT_EQ(0, st_release(self->fd, h[0]));
	EXPECT_EQ(0, st_release(self->fd, h[1]));
	EXPECT_EQ(0, st_release(self->fd, h[2]));
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, unmap_not_whole_mappings_refused)
{
	__u64 g = self->gran, len = 6 * g;
	struct st_objects before;
	__u64 addr, a, b;

	/* [a a . b b .]: two mappings with a hole between and after. */
	addr = reserve(_metadata, self->fd, len);
	a = map_new(_metadata, self->fd, 0, addr, 2 * g);
	b = map_new(_metadata, self->fd, 0, addr + 3 * g, 2 * g);
	ASSERT_EQ(0, st_objects_read(&before));

	EXPECT_EQ(-EINVAL, st_unmap(self->fd, addr, g));
	EXPECT_EQ(-EINVAL, st_unmap(self->fd, addr + g, g));
	EXPECT_EQ(-EINVAL, st_unmap(self->fd, addr + 3 * g, g));
	EXPECT_EQ(-ENXIO, st_unmap(self->fd, addr, 5 * g));
	EXPECT_EQ(-ENXIO, st_unmap(self->fd, addr + 2 * g, 3 * g));
	EXPECT_EQ(-ENXIO, st_unmap(self->fd, addr + 3 * g, 3 * g));
	EXPECT_EQ(-ENXIO, st_unmap(self->fd, addr + 5 * g, g));
	ST_EXPECT_OBJECTS(before, mappings);

	EXPECT_EQ(0, st_unmap(self->fd, addr, 2 * g));
	EXPECT_EQ(0, st_unmap(self->fd, addr + 3 * g, 2 * g));
	EXPECT_EQ(0, st_release(self->fd, a));
	EXPECT_EQ(0, st_release(self->fd, b));
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

TEST_F(va, unmap_faults_and_frees_pages)
{
	__u64 len = 2 * self->gran;
	struct st_objects before, touched;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_objects_read(&before));
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	bytes(addr)[0] = 1;
	bytes(addr + len - 1)[0] = 2;
	ASSERT_EQ(0, st_objects_read(&touched));
	EXPECT_EQ(before.pages + 2, touched.pages);
	EXPECT_EQ(before.mems + 1, touched.mems);

	/* The mapping alone holds the allocation now. */
	ASSERT_EQ(0, st_release(self->fd, handle));
	ST_EXPECT_OBJECTS(touched, mappings);
	ASSERT_EQ(0, st_unmap(self->fd, addr, len));
	ST_EXPECT_OBJECTS(before, mappings);
	EXPECT_LOAD_FAULTS(addr);
	EXPECT_LOAD_FAULTS(addr + len - 1);
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

/* CUMC_VA_QUERY */

TEST_F(va, query_mapped_address)
{
	__u32 n = self->num_devices, dev = n - 1;
	__u64 g = self->gran, len = 4 * g;
	struct cumc_access_desc d[2] = {
		{ .device = 0, .access = CUMC_ACCESS_READ },
		{ .device = dev, .access = CUMC_ACCESS_READWRITE },
	};
	/* FABRIC would need an IMEX channel: not what this test is about. */
	__u32 types = CUMC_HANDLE_FD;
	struct cumc_va_query q;
	__u64 addr, handle;

	if (n < 2)
		SKIP(return, "needs 2 devices, has %u", n);
	addr = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_mem_create(self->fd, dev, types, 2 * g, &handle));
	ASSERT_EQ(0, st_map(self->fd, addr + g, 2 * g, handle));
	ASSERT_EQ(0, st_set_access(self->fd, addr + g, 2 * g, d, 2));

	/* Any byte of the mapping answers for all of it. */
	ASSERT_EQ(0, st_va_query(self->fd, addr + 2 * g + 0x123, 0, 0, &q));
	EXPECT_EQ(addr, q.out_va_addr);
	EXPECT_EQ(len, q.out_va_length);
	EXPECT_EQ(addr + g, q.out_map_addr);
	EXPECT_EQ(2 * g, q.out_map_length);
	EXPECT_EQ(dev, q.out_mem_device);
	EXPECT_EQ(types, q.out_handle_types);
	EXPECT_EQ(CUMC_ACCESS_READ, q.out_access);
	EXPECT_EQ(CUMC_ACCESS_READWRITE, q.out_access_any);

	ASSERT_EQ(0, st_va_query(self->fd, addr + g + 1, dev, 0, &q));
	EXPECT_EQ(addr + g, q.out_map_addr);
	EXPECT_EQ(CUMC_ACCESS_READWRITE, q.out_access);
	if (n > 2) {
		ASSERT_EQ(0, st_va_query(self->fd, addr + 3 * g - 1, 1, 0,
					 &q));
		EXPECT_EQ(addr + g, q.out_map_addr);
		EXPECT_EQ(CUMC_ACCESS_NONE, q.out_access);
		EXPECT_EQ(CUMC_ACCESS_READWRITE, q.out_access_any);
	}

	EXPECT_EQ(-ENODEV, st_va_query(self->fd, addr + g, n, 0, &q));
	unmap_release_free(_metadata, self->fd, handle, addr + g, 2 * g,
			   addr, len);
}

TEST_F(va, query_unmapped_address)
{
	__u64 g = self->gran, len = 4 * g;
	struct cumc_va_query q;
	__u64 addr, handle;
	int other;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr + g, g);
	ASSERT_EQ(0, st_va_query(self->fd, addr + g, 0, 0, &q));
	ASSERT_EQ(addr + g, q.out_map_addr);

	/*
	 * The same struct again for an unmapped address, as a caller walking
	 * a range would: outputs are answers, whatever was left in them.
	 */
	q.addr = addr + 2 * g + PAGE;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_VA_QUERY, &q));
	EXPECT_EQ(addr, q.out_va_addr);
	EXPECT_EQ(len, q.out_va_length);
	EXPECT_EQ(0, q.out_map_addr);

	ASSERT_EQ(0, st_va_query(self->fd, addr, 0, 0, &q));
	EXPECT_EQ(addr, q.out_va_addr);
	EXPECT_EQ(0, q.out_map_addr);

	/* Outside any reservation of this client. */
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, addr + len, 0, 0, &q));
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, (uintptr_t)&q, 0, 0, &q));
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, 0, 0, 0, &q));
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, ~0ULL, 0, 0, &q));
	other = st_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(-ENXIO, st_va_query(other, addr + g, 0, 0, &q));
	close(other);

	unmap_release_free(_metadata, self->fd, handle, addr + g, g, addr, len);
}

TEST_F(va, query_retain_counts_the_existing_handle)
{
	__u64 g = self->gran, len = 2 * g;
	__u32 types = CUMC_HANDLE_FD;
	struct cumc_mem_info info;
	struct st_objects before;
	struct cumc_va_query q;
	__u64 addr, handle;

	addr = reserve(_metadata, self->fd, len);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, types, g, &handle));
	ASSERT_EQ(0, st_map(self->fd, addr + g, g, handle));
	ASSERT_EQ(0, st_grant(self->fd, addr + g, g, 0, CUMC_ACCESS_READWRITE));
	bytes(addr + g)[0] = 0x6b;
	ASSERT_EQ(0, st_objects_read(&before));

	/* The client's own handle, counted once more. */
	ASSERT_EQ(0, st_va_query(self->fd, addr + g + PAGE, 0,
				 CUMC_VA_QUERY_RETAIN, &q));
	EXPECT_EQ(handle, q.out_handle);
	EXPECT_EQ(addr + g, q.out_map_addr);
	ASSERT_EQ(0, st_mem_info(self->fd, q.out_handle, &info));
	EXPECT_EQ(0, info.out_device);
	EXPECT_EQ(types, info.out_handle_types);
	EXPECT_EQ(g, info.out_length);
	ST_EXPECT_OBJECTS(before, mappings);
	ASSERT_EQ(0, st_release(self->fd, handle));
	EXPECT_EQ(0, st_mem_info(self->fd, handle, &info));
	ASSERT_EQ(0, st_release(self->fd, handle));
	EXPECT_EQ(-ENOENT, st_mem_info(self->fd, handle, &info));

	/* With no handle left, a new one: one more holder of the mapping's. */
	ASSERT_EQ(0, st_va_query(self->fd, addr + g, 0,
				 CUMC_VA_QUERY_RETAIN, &q));
	EXPECT_NE(0, q.out_handle);
	EXPECT_NE(handle, q.out_handle);
	ASSERT_EQ(0, st_release(self->fd, q.out_handle));
	EXPECT_EQ(-ENOENT, st_mem_info(self->fd, q.out_handle, &info));
	ST_EXPECT_OBJECTS(before, mappings);
	EXPECT_EQ(0x6b, bytes(addr + g)[0]);
	EXPECT_STORE_OK(addr + g);

	/* Nothing mapped there: nothing to retain. */
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, addr, 0,
				      CUMC_VA_QUERY_RETAIN, &q));
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, addr + len, 0,
				      CUMC_VA_QUERY_RETAIN, &q));

	EXPECT_EQ(0, st_unmap(self->fd, addr + g, g));
	EXPECT_EQ(before.mems - 1, st_objects_now().mems);
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

/* Data */

TEST_F(va, new_memory_reads_zero)
{
	__u64 len = 2 * self->gran;
	__u64 addr, handle, off;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READ));
	for (off = 0; off < len; off += len / 4 + PAGE + 8)
		EXPECT_EQ(0, *(volatile __u64 *)ptr(addr + off))
			TH_LOG("offset 0x%llx", off);
	EXPECT_EQ(0, bytes(addr + len - 1)[0]);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, pattern_fills_whole_mapping)
{
	__u64 len = SZ_4M > self->gran ? SZ_4M : self->gran;
	volatile __u64 *p;
	__u64 addr, handle, i, bad = 0;

	addr = reserve(_metadata, self->fd, len);
	handle = map_new(_metadata, self->fd, 0, addr, len);
	ASSERT_EQ(0, st_grant(self->fd, addr, len, 0, CUMC_ACCESS_READWRITE));
	p = ptr(addr);
	/* Distinct in every word and every page. */
	for (i = 0; i < len / 8; i++)
		p[i] = i * 0x9e3779b97f4a7c15ULL;
	for (i = 0; i < len / 8; i++)
		bad += p[i] != i * 0x9e3779b97f4a7c15ULL;
	EXPECT_EQ(0, bad);
	EXPECT_EQ(len / PAGE, st_objects_now().pages - self->base.pages);
	unmap_release_free(_metadata, self->fd, handle, addr, len, addr, len);
}

TEST_F(va, recreated_allocation_never_shows_old_data)
{
	__u64 len = self->gran;
	__u64 addr, handle;
	int round;

	addr = reserve(_metadata, self->fd, len);
	/* Same size, same place, same device: the likeliest to reuse pages. */
	for (round = 0; round < 2; round++) {
		handle = map_new(_metadata, self->fd, 0, addr, len);
		ASSERT_EQ(0, st_grant(self->fd, addr, len, 0,
				      CUMC_ACCESS_READWRITE));
		EXPECT_EQ(0, *(volatile __u64 *)ptr(addr));
		EXPECT_EQ(0, *(volatile __u64 *)ptr(addr + len - 8));
		*(volatile __u64 *)ptr(addr) = ~0ULL;
		*(volatile __u64 *)ptr(addr + len - 8) = ~0ULL;
		EXPECT_EQ(0, st_unmap(self->fd, addr, len));
		EXPECT_EQ(0, st_release(self->fd, handle));
		EXPECT_EQ(self->base.pages, st_objects_now().pages);
	}
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
}

/* Lifetime */

/* Reserve, map, grant and touch @pages pages through a new client. */
static int populate(int fd, __u64 len, int pages, __u64 *addr)
{
	__u64 handle;
	int i, ret;

	ret = st_va_reserve(fd, len, 0, 0, addr);
	if (!ret)
		ret = st_mem_create(fd, 0, 0, len, &handle);
	if (!ret)
		ret = st_map(fd, *addr, len, handle);
	if (!ret)
		ret = st_grant(fd, *addr, len, 0, CUMC_ACCESS_READWRITE);
	for (i = 0; !ret && i < pages; i++)
		bytes(*addr + i * PAGE)[0] = i + 1;
	return ret;
}

TEST_F(va, killed_client_leaves_nothing)
{
	struct st_objects before, live;
	int pipefd[2], status, fd;
	__u64 addr;
	char ok;
	pid_t pid;

	ASSERT_EQ(0, st_objects_read(&before));
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fd = st_open();
		if (fd < 0 || populate(fd, self->gran, 3, &addr))
			_exit(1);
		if (write(pipefd[1], "y", 1) != 1)
			_exit(1);
		pause();
		_exit(1);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &ok, 1));
	close(pipefd[0]);
	ASSERT_EQ(0, st_objects_read(&live));
	EXPECT_EQ(before.clients + 1, live.clients);
	EXPECT_EQ(before.mems + 1, live.mems);
	EXPECT_EQ(before.pages + 3, live.pages);
	EXPECT_EQ(before.vas + 1, live.vas);
	EXPECT_EQ(before.mappings + 1, live.mappings);

	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	ST_EXPECT_OBJECTS(before, mappings);
}

TEST_F(va, reservation_outlives_closed_fd)
{
	__u64 len = self->gran;
	struct st_objects before;
	struct cumc_va_query q;
	int fd, status;
	__u64 addr;
	pid_t pid;

	ASSERT_EQ(0, st_objects_read(&before));
	fd = st_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, populate(fd, len, 2, &addr));
	ASSERT_EQ(0, close(fd));

	/* The reservation keeps its client, mapping and memory. */
	EXPECT_EQ(before.clients + 1, st_objects_now().clients);
	EXPECT_EQ(1, bytes(addr)[0]);
	EXPECT_EQ(2, bytes(addr + PAGE)[0]);
	bytes(addr + 2 * PAGE)[0] = 3;
	EXPECT_EQ(3, bytes(addr + 2 * PAGE)[0]);
	/* Still not ours to query through another client. */
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, addr, 0, 0, &q));

	/* munmap() is the only way left to give it back. */
	ASSERT_EQ(0, munmap(ptr(addr), len));
	ST_EXPECT_OBJECTS(before, mappings);
	EXPECT_LOAD_FAULTS(addr);

	/* Exiting gives it back too. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		fd = st_open();
		if (fd < 0 || populate(fd, len, 2, &addr) || close(fd))
			_exit(1);
		bytes(addr + 2 * PAGE)[0] = 3;
		_exit(bytes(addr)[0] == 1 ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status 0x%x", status);
	ST_EXPECT_OBJECTS(before, mappings);
}

struct free_race {
	int fd;
	__u64 addr, length;
	pthread_barrier_t *start;
	int result;
};

static void *free_racer(void *arg)
{
	struct free_race *race = arg;

	pthread_barrier_wait(race->start);
	race->result = st_va_free(race->fd, race->addr, race->length);
	return NULL;
}

/*
 * Two concurrent frees of one reservation: the check and the decision are
 * made under one lock, so exactly one frees it and the other finds nothing.
 * 500 rounds of two threads take minutes on the debug kernel under TCG
 * on a loaded machine: the harness's 30 s would fail a correct run.
 */
TEST_F(va, concurrent_frees_of_one_reservation)
{
	struct free_race race[2] = { { .fd = self->fd }, { .fd = self->fd } };
	pthread_barrier_t start;
	pthread_t t[2];
	int round, i;

	for (round = 0; round < 500; round++) {
		ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 2));
		ASSERT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0,
					   &race[0].addr));
		for (i = 0; i < 2; i++) {
			race[i].addr = race[0].addr;
			race[i].length = self->gran;
			race[i].start = &start;
		}
		for (i = 0; i < 2; i++)
			ASSERT_EQ(0, pthread_create(&t[i], NULL, free_racer,
						    &race[i]));
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&start);
		ASSERT_EQ(-ENXIO, race[0].result + race[1].result)
			TH_LOG("round %d: %d and %d", round, race[0].result,
			       race[1].result);
	}
}

/*
 * Arenas: reservations with CUMC_VA_RESERVE_SHARED are ranges of a few
 * large mappings of /dev/cumc (kmod/cumc_va.c), not a mapping each.
 */

TEST_F(va, unshared_reservation_is_a_mapping_of_its_own)
{
	__u64 g = self->gran, shared, own, s, e;

	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &shared));
	ASSERT_EQ(0, st_va_reserve(self->fd, g, 0, 0, &own));
	ASSERT_EQ(0, st_vma_of(own, &s, &e));
	EXPECT_EQ(own, s);
	EXPECT_EQ(own + g, e);
	ASSERT_EQ(0, st_vma_of(shared, &s, &e));
	EXPECT_LT(g, e - s);
	/* Its munmap frees it, as before arenas; the shared one stays. */
	EXPECT_EQ(0, munmap(ptr(own), g));
	EXPECT_EQ(-ENXIO, st_va_free(self->fd, own, g));
	EXPECT_EQ(0, st_va_free(self->fd, shared, g));
}

#define ARENA_MANY 64

TEST_F(va, many_reservations_share_one_arena)
{
	__u64 g = self->gran, addr[ARENA_MANY], start, end, s, e;
	struct cumc_va_query q;
	int i;

	for (i = 0; i < ARENA_MANY; i++)
		ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &addr[i]));
	ASSERT_EQ(0, st_vma_of(addr[0], &start, &end));
	EXPECT_LT(g * ARENA_MANY, end - start);
	for (i = 0; i < ARENA_MANY; i++) {
		ASSERT_EQ(0, st_vma_of(addr[i], &s, &e));
		EXPECT_EQ(start, s) TH_LOG("reservation %d", i);
		EXPECT_EQ(end, e) TH_LOG("reservation %d", i);
		/* Each is a reservation of its own all the same. */
		ASSERT_EQ(0, st_va_query(self->fd, addr[i], 0, 0, &q));
		EXPECT_EQ(addr[i], q.out_va_addr);
		EXPECT_EQ(g, q.out_va_length);
	}
	/* Mapping across two of them is refused, as across two VMAs. */
	for (i = 1; i < ARENA_MANY; i++)
		if (addr[i] == addr[0] + g)
			break;
	if (i < ARENA_MANY) {
		__u64 handle;

		ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 2 * g, &handle));
		EXPECT_EQ(-ENXIO, st_map(self->fd, addr[0], 2 * g, handle));
		EXPECT_EQ(-EINVAL, st_va_free(self->fd, addr[0], 2 * g));
		EXPECT_EQ(0, st_release(self->fd, handle));
	}
	for (i = 0; i < ARENA_MANY; i++)
		EXPECT_EQ(0, st_va_free(self->fd, addr[i], g));
	/* Nothing of the arena's range is anyone's any more. */
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, addr[0], 0, 0, &q));
}

TEST_F(va, freed_range_in_the_middle_is_reused)
{
	__u64 g = self->gran, a, b, c, again, handle;

	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &a));
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &b));
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &c));
	ASSERT_EQ(0, st_va_free(self->fd, b, g));
	EXPECT_LOAD_FAULTS(b);
	/* The lowest room first: the hole left in the middle. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &again));
	EXPECT_EQ(b, again);
	/* Usable like any other: mapped, written, read. */
	handle = map_new(_metadata, self->fd, 0, again, g);
	ASSERT_EQ(0, st_grant(self->fd, again, g, 0, CUMC_ACCESS_READWRITE));
	bytes(again)[0] = 0x5a;
	EXPECT_EQ(0x5a, bytes(again)[0]);
	EXPECT_LOAD_FAULTS(a);
	EXPECT_LOAD_FAULTS(c);
	unmap_release_free(_metadata, self->fd, handle, again, g, again, g);
	/* And the hole honours a hint at it. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, b, &again));
	EXPECT_EQ(b, again);
	EXPECT_EQ(0, st_va_free(self->fd, again, g));
	EXPECT_EQ(0, st_va_free(self->fd, a, g));
	EXPECT_EQ(0, st_va_free(self->fd, c, g));
}

/*
 * The struct is readable but the address cannot be written back: the
 * caller never learns it, so the range must be free again.
 */
TEST_F(va, reserve_unwritable_struct_reserves_nothing)
{
	__u64 g = self->gran, hint, again;
	struct cumc_va_reserve *ro;

	/* A free range of a shared arena, to ask for by its address. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &hint));
	ASSERT_EQ(0, st_va_free(self->fd, hint, g));
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ro->size = sizeof(*ro);
	ro->flags = CUMC_VA_RESERVE_SHARED;
	ro->length = g;
	ro->addr = hint;
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, st_ioctl(self->fd, CUMC_VA_RESERVE, ro));
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, hint, &again));
	EXPECT_EQ(hint, again);
	EXPECT_EQ(0, st_va_free(self->fd, again, g));
	munmap(ro, PAGE);
}

TEST_F(va, reservation_never_spans_arenas)
{
	__u64 g = self->gran, first, start, end, addr, s, e;

	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &first));
	ASSERT_EQ(0, st_vma_of(first, &start, &end));
	/* The arena's last granule is honoured as a hint... */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, end - g, &addr));
	EXPECT_EQ(end - g, addr);
	EXPECT_EQ(0, st_va_free(self->fd, addr, g));
	/* ...but not for more than it holds: placed elsewhere, whole. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, 2 * g, 0, end - g, &addr));
	EXPECT_NE(end - g, addr);
	ASSERT_EQ(0, st_vma_of(addr, &s, &e));
	EXPECT_LE(addr + 2 * g, e);
	EXPECT_EQ(0, st_va_free(self->fd, addr, 2 * g));
	EXPECT_EQ(0, st_va_free(self->fd, first, g));
}

TEST_F(va, hint_outside_arenas_gets_a_mapping_of_its_own)
{
	__u64 len = 2 * self->gran, first, start, end, hint, addr, s, e;

	ASSERT_EQ(0, st_va_reserve_shared(self->fd, len, 0, 0, &first));
	ASSERT_EQ(0, st_vma_of(first, &start, &end));
	/* A hole of the process, away from the arena. */
	hint = st_hole(len, self->gran);
	ASSERT_NE(0, hint);

	ASSERT_EQ(0, st_va_reserve_shared(self->fd, len, 0, hint, &addr));
	EXPECT_EQ(hint, addr);
	ASSERT_EQ(0, st_vma_of(addr, &s, &e));
	EXPECT_EQ(addr, s);
	EXPECT_EQ(addr + len, e);
	/* Freeing it unmaps it: the range is the process's again. */
	EXPECT_EQ(0, st_va_free(self->fd, addr, len));
	EXPECT_NE(0, st_vma_of(addr, &s, &e));
	EXPECT_EQ(0, st_va_free(self->fd, first, len));
}

TEST_F(va, user_munmap_of_part_of_an_arena_refused)
{
	__u64 g = self->gran, a, b, start, end, handle;
	struct st_objects before;
	struct cumc_va_query q;

	ASSERT_EQ(0, st_objects_read(&before));
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &a));
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &b));
	handle = map_new(_metadata, self->fd, 0, b, g);
	ASSERT_EQ(0, st_grant(self->fd, b, g, 0, CUMC_ACCESS_READWRITE));
	bytes(b)[0] = 0x77;
	ASSERT_EQ(0, st_vma_of(a, &start, &end));

	/* One reservation, or a piece of free arena: both refused. */
	EXPECT_EQ(-1, munmap(ptr(a), g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap(ptr(end - g), g));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, mprotect(ptr(a), g, PROT_NONE));
	EXPECT_EQ(0x77, bytes(b)[0]);
	ASSERT_EQ(0, st_va_query(self->fd, a, 0, 0, &q));
	EXPECT_EQ(a, q.out_va_addr);

	/* The whole arena goes, every reservation and mapping in it. */
	EXPECT_EQ(0, st_release(self->fd, handle));
	ASSERT_EQ(0, munmap(ptr(start), end - start));
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, a, 0, 0, &q));
	EXPECT_EQ(-ENXIO, st_va_query(self->fd, b, 0, 0, &q));
	EXPECT_EQ(-ENXIO, st_va_free(self->fd, a, g));
	EXPECT_EQ(before.vas, st_objects_now().vas);
	EXPECT_EQ(before.mappings, st_objects_now().mappings);
	EXPECT_EQ(before.mems, st_objects_now().mems);
	/* And reserving again maps a new one. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &a));
	EXPECT_EQ(0, st_va_free(self->fd, a, g));
}

TEST_F(va, fork_child_gets_arenas_of_its_own)
{
	__u64 g = self->gran, addr;
	int status;
	pid_t pid;

	ASSERT_EQ(0, st_va_reserve_shared(self->fd, g, 0, 0, &addr));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct cumc_va_query q;
		__u64 mine, s, e;

		/* The parent's arena is not here, nor its reservations. */
		if (st_vma_of(addr, &s, &e) == 0)
			_exit(1);
		if (st_va_query(self->fd, addr, 0, 0, &q) != -ENXIO)
			_exit(2);
		if (st_va_free(self->fd, addr, g) != -ENXIO)
			_exit(3);
		/* Reserving, through the same client, maps one here. */
		if (st_va_reserve_shared(self->fd, g, 0, 0, &mine))
			_exit(4);
		if (st_va_query(self->fd, mine, 0, 0, &q) || q.out_va_addr != mine)
			_exit(5);
		if (st_va_free(self->fd, mine, g))
			_exit(6);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status 0x%x", status);
	/* The parent's reservation is as it was. */
	EXPECT_EQ(-EINVAL, st_va_free(self->fd, addr, 2 * g));
	EXPECT_EQ(0, st_va_free(self->fd, addr, g));
}

TEST_F(va, largest_reservations_are_fast_path_too)
{
	__u64 tib = 1ULL << 40, a, b, start, end, s, e;

	/* Two 1 TiB reservations share one arena. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, tib, 0, 0, &a));
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, tib, 0, 0, &b));
	ASSERT_EQ(0, st_vma_of(a, &start, &end));
	ASSERT_EQ(0, st_vma_of(b, &s, &e));
	EXPECT_EQ(start, s);
	EXPECT_LE(b + tib, end);
	EXPECT_EQ(0, st_va_free(self->fd, b, tib));
	/* Freed and reserved again at the same place, aligned as asked. */
	ASSERT_EQ(0, st_va_reserve_shared(self->fd, tib, tib, 0, &b));
	EXPECT_EQ(0, b % tib);
	EXPECT_EQ(0, st_va_free(self->fd, b, tib));
	EXPECT_EQ(0, st_va_free(self->fd, a, tib));
}

struct reserve_racer {
	int fd;
	__u64 gran;
	pthread_barrier_t *start;
	__u64 addr[ARENA_MANY];
	int result;
};

static void *reserve_racer(void *arg)
{
	struct reserve_racer *r = arg;
	int i;

	pthread_barrier_wait(r->start);
	for (i = 0; i < ARENA_MANY && !r->result; i++)
		r->result = st_va_reserve_shared(r->fd, r->gran, 0, 0, &r->addr[i]);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

TEST_F(va, threads_reserving_at_once_get_distinct_ranges)
{
	struct reserve_racer r[4];
	__u64 all[4 * ARENA_MANY];
	pthread_barrier_t start;
	pthread_t t[4];
	int i, j;

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 4));
	for (i = 0; i < 4; i++) {
		r[i] = (struct reserve_racer) {
			.fd = self->fd, .gran = self->gran, .start = &start,
		};
		ASSERT_EQ(0, pthread_create(&t[i], NULL, reserve_racer, &r[i]));
	}
	for (i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, r[i].result);
		for (j = 0; j < ARENA_MANY; j++)
			all[i * ARENA_MANY + j] = r[i].addr[j];
	}
	qsort(all, 4 * ARENA_MANY, sizeof(all[0]), cmp_u64);
	for (i = 1; i < 4 * ARENA_MANY; i++)
		EXPECT_LE(all[i - 1] + self->gran, all[i]);
	for (i = 0; i < 4 * ARENA_MANY; i++)
		EXPECT_EQ(0, st_va_free(self->fd, all[i], self->gran));
}

#define CHURN_ROUNDS 1000

struct arena_churn {
	int fd;
	__u64 gran;
	pthread_barrier_t *start;
	bool done;
	int vanished;
	/* A result no race explains, or 0. */
	int bad;
};

static void *arena_churner(void *arg)
{
	struct arena_churn *c = arg;
	__u64 addr;
	int i, ret;

	pthread_barrier_wait(c->start);
	for (i = 0; i < CHURN_ROUNDS && !c->bad; i++) {
		ret = st_va_reserve_shared(c->fd, c->gran, 0, 0, &addr);
		if (ret) {
			c->bad = ret;
			break;
		}
		/* Its arena may have been unmapped, the reservation with it. */
		ret = st_va_free(c->fd, addr, c->gran);
		if (ret && ret != -ENXIO)
			c->bad = ret;
		c->vanished += ret == -ENXIO;
	}
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool churners_done(struct arena_churn *c, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!__atomic_load_n(&c[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/*
 * Reserving without a hint and freeing find a shared arena through the
 * client's list, without the mmap_lock: an arena the process unmaps whole
 * meanwhile takes the reservations in it along, and is used by no call
 * after it is freed (the KASAN lane runs this too).
 */
TEST_F(va, arena_unmapped_while_threads_reserve_and_free)
{
	__u64 g = self->gran, addr, start = 0, end = 0;
	int i, unmapped = 0, failed = 0;
	struct arena_churn c[2];
	pthread_barrier_t go;
	pthread_t t[2];

	ASSERT_EQ(0, pthread_barrier_init(&go, NULL, 3));
	for (i = 0; i < 2; i++) {
		c[i] = (struct arena_churn){
			.fd = self->fd, .gran = g, .start = &go,
		};
		ASSERT_EQ(0, pthread_create(&t[i], NULL, arena_churner, &c[i]));
	}
	pthread_barrier_wait(&go);
	do {
		if (st_va_reserve_shared(self->fd, g, 0, 0, &addr) ||
		    st_vma_of(addr, &start, &end) ||
		    munmap(ptr(start), end - start))
			failed++;
		else
			unmapped++;
	} while (!failed && !churners_done(c, 2));
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&go);
	EXPECT_EQ(0, failed);
	EXPECT_LT(0, unmapped);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, c[i].bad);
		TH_LOG("thread %d: %d of %d reservations gone with their arena",
		       i, c[i].vanished, CHURN_ROUNDS);
	}
	TH_LOG("%d arenas unmapped", unmapped);
}

TEST_HARNESS_MAIN
