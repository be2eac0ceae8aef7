// SPDX-License-Identifier: GPL-2.0
/*
 * Per-client quotas: max_handles, max_objects, max_address_ranges,
 * max_mapped_bytes and max_bound_bytes. For each: reaching the limit gives
 * EDQUOT and changes nothing, releasing one lets the next call succeed,
 * another client is unaffected, and a new value of the module parameter
 * applies at once. Charges follow what was charged: an object or a binding
 * that outlives its client keeps the client's usage record alive until it
 * goes, and is never charged to whoever held it last.
 *
 * Usage comes from /sys/kernel/debug/cumc/clients, one line per client:
 * its tag (the upper half of its handles), then its counts.
 */
#include <stdint.h>
#include <sys/mman.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

enum { HANDLES, OBJECTS, RANGES, MAPPED, BOUND, NR_QUOTAS };

static const char *const params[NR_QUOTAS] = {
	"max_handles", "max_objects", "max_address_ranges",
	"max_mapped_bytes", "max_bound_bytes",
};

static const char *const usage_names[NR_QUOTAS] = {
	"handles", "objects", "ranges", "mapped", "bound",
};

static unsigned long long param_get(const char *name)
{
	char path[128];
	unsigned long long value = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/cumc/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &value) != 1)
		value = 0;
	fclose(f);
	return value;
}

/* The usage of the client whose handles carry @tag; 0, or -1 if none. */
static int usage_read(__u32 tag, unsigned long long u[NR_QUOTAS])
{
	unsigned long long t, v[NR_QUOTAS];
	char n[NR_QUOTAS][16];
	int ret = -1, i;
	FILE *f;

	f = fopen("/sys/kernel/debug/cumc/clients", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%llu %15s %llu %15s %llu %15s %llu %15s %llu %15s %llu",
		      &t, n[0], &v[0], n[1], &v[1], n[2], &v[2], n[3], &v[3],
		      n[4], &v[4]) == 11) {
		if (t != tag)
			continue;
		ret = 0;
		for (i = 0; i < NR_QUOTAS; i++) {
			if (strcmp(n[i], usage_names[i]))
				ret = -1;
			u[i] = v[i];
		}
		break;
	}
	fclose(f);
	return ret;
}

/* One count of @tag's usage, or ~0ULL when it cannot be read. */
static unsigned long long usage_of(__u32 tag, int quota)
{
	unsigned long long u[NR_QUOTAS];

	return usage_read(tag, u) ? ~0ULL : u[quota];
}

static __u32 tag_of(__u64 handle)
{
	return handle >> 32;
}

FIXTURE(quota) {
	int fd;
	__u64 gran;
	unsigned long long saved[NR_QUOTAS];
	struct st_objects base;
};

FIXTURE_SETUP(quota)
{
	struct cumc_device_info info;
	int i;

	ASSERT_EQ(0, st_objects_read(&self->base));
	for (i = 0; i < NR_QUOTAS; i++) {
		self->saved[i] = param_get(params[i]);
		ASSERT_NE(0, self->saved[i]) TH_LOG("no parameter %s", params[i]);
	}
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, st_device_info(self->fd, 0, &info));
	self->gran = info.granularity;
	ASSERT_LE(8 * self->gran, info.mem_free);
}

FIXTURE_TEARDOWN(quota)
{
	struct st_objects now;
	int i;

	close(self->fd);
	for (i = 0; i < NR_QUOTAS; i++)
		EXPECT_EQ(0, st_param_set(params[i], self->saved[i]));
	EXPECT_EQ(0, st_objects_settle(&self->base, &now, 2000));
	st_objects_diff(&self->base, &now);
}

TEST_F(quota, defaults)
{
	/* What real workloads never reach; see Documentation/security.md. */
	EXPECT_EQ(262144, self->saved[HANDLES]);
	EXPECT_EQ(131072, self->saved[OBJECTS]);
	EXPECT_EQ(8192, self->saved[RANGES]);
	EXPECT_EQ(1ULL << 42, self->saved[MAPPED]);
	EXPECT_EQ(1ULL << 42, self->saved[BOUND]);
}

TEST_F(quota, parameters_validated)
{
	int i;

	for (i = 0; i < NR_QUOTAS; i++) {
		EXPECT_EQ(-EINVAL, st_param_write(params[i], "0"));
		EXPECT_EQ(-EINVAL, st_param_write(params[i], "banana"));
		EXPECT_EQ(-EINVAL, st_param_write(params[i], "-1"));
		EXPECT_EQ(self->saved[i], param_get(params[i]));
	}
	EXPECT_EQ(-EINVAL, st_param_set("max_handles", 1ULL << 32));
	EXPECT_EQ(-EINVAL, st_param_set("max_objects", 1ULL << 32));
	EXPECT_EQ(-EINVAL, st_param_set("max_address_ranges", 65536));
	EXPECT_EQ(-EINVAL, st_param_set("max_mapped_bytes", (1ULL << 62) + 1));
	EXPECT_EQ(-EINVAL, st_param_set("max_bound_bytes", (1ULL << 62) + 1));
	EXPECT_EQ(0, st_param_set("max_address_ranges", 65535));
	EXPECT_EQ(65535, param_get("max_address_ranges"));
}

/* The 4th handle is refused until one goes; the other client is free. */
TEST_F(quota, handles)
{
	struct st_objects before, after;
	__u64 h[4], other[3];
	long long mem_free;
	int fd2, i;

	ASSERT_EQ(0, st_param_set("max_handles", 3));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h[i]));
	EXPECT_EQ(3, usage_of(tag_of(h[0]), HANDLES));

	ASSERT_EQ(0, st_objects_read(&before));
	mem_free = st_mem_free(self->fd, 0);
	EXPECT_EQ(-EDQUOT, st_mem_create(self->fd, 0, 0, self->gran, &h[3]));
	ASSERT_EQ(0, st_objects_read(&after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(mem_free, st_mem_free(self->fd, 0));
	EXPECT_EQ(3, usage_of(tag_of(h[0]), HANDLES));
	EXPECT_EQ(3, usage_of(tag_of(h[0]), OBJECTS));

	fd2 = st_open();
	ASSERT_LE(0, fd2);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, st_mem_create(fd2, 0, 0, self->gran, &other[i]));
	close(fd2);

	ASSERT_EQ(0, st_release(self->fd, h[1]));
	EXPECT_EQ(2, usage_of(tag_of(h[0]), HANDLES));
	EXPECT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h[1]));
	EXPECT_EQ(-EDQUOT, st_mem_create(self->fd, 0, 0, self->gran, &h[3]));

	/* Raised, the limit lets the next one through at once. */
	ASSERT_EQ(0, st_param_set("max_handles", 4));
	EXPECT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h[3]));
	/* Lowered below usage: nothing is taken away, nothing new comes. */
	ASSERT_EQ(0, st_param_set("max_handles", 1));
	EXPECT_EQ(4, usage_of(tag_of(h[0]), HANDLES));
	EXPECT_EQ(-EDQUOT, st_mc_create(self->fd, 1, 0, self->gran, &other[0]));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, st_release(self->fd, h[i]));
	EXPECT_EQ(0, usage_of(tag_of(h[0]), HANDLES));
	EXPECT_EQ(0, usage_of(tag_of(h[0]), OBJECTS));
}

/* Imports and retains that add an entry count; retaining one again does not. */
TEST_F(quota, handles_imports_and_retains)
{
	__u64 h, h2, imported, va, retained;
	struct cumc_va_query q;
	int efd;

	ASSERT_EQ(0, st_param_set("max_handles", 2));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran, &h));
	ASSERT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0, &va));
	ASSERT_EQ(0, st_map(self->fd, va, self->gran, h));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	ASSERT_EQ(0, st_import_fd(self->fd, efd, &imported));
	EXPECT_EQ(2, usage_of(tag_of(h), HANDLES));

	EXPECT_EQ(-EDQUOT, st_import_fd(self->fd, efd, &h2));
	/* The table has an entry for it: retaining counts it once more. */
	ASSERT_EQ(0, st_va_query(self->fd, va, 0, CUMC_VA_QUERY_RETAIN, &q));
	retained = q.out_handle;
	EXPECT_EQ(2, usage_of(tag_of(h), HANDLES));

	/* Both entries gone, the mapping still holds the allocation. */
	EXPECT_EQ(0, st_release(self->fd, retained));
	EXPECT_EQ(0, st_release(self->fd, retained == h ? imported : h));
	EXPECT_EQ(1, usage_of(tag_of(h), HANDLES));
	EXPECT_EQ(0, st_release(self->fd, retained == h ? h : imported));
	EXPECT_EQ(0, usage_of(tag_of(h), HANDLES));

	ASSERT_EQ(0, st_va_query(self->fd, va, 0, CUMC_VA_QUERY_RETAIN, &q));
	ASSERT_EQ(0, st_import_fd(self->fd, efd, &imported));
	EXPECT_EQ(2, usage_of(tag_of(h), HANDLES));
	EXPECT_EQ(-EDQUOT, st_mc_create(self->fd, 1, 0, self->gran, &h2));
	EXPECT_EQ(-EDQUOT, st_import_fd(self->fd, efd, &h2));
	close(efd);
	EXPECT_EQ(0, st_unmap(self->fd, va, self->gran));
	EXPECT_EQ(0, st_va_free(self->fd, va, self->gran));
}

/*
 * Objects are charged to their creator for as long as they live, wherever
 * their handles are; both kinds count.
 */
TEST_F(quota, objects)
{
	struct st_objects before, after;
	__u64 h[3], mc, imported, theirs;
	int fd2, efd;

	ASSERT_EQ(0, st_param_set("max_objects", 2));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran, &h[0]));
	ASSERT_EQ(0, st_mc_create(self->fd, 1, 0, self->gran, &mc));
	ASSERT_EQ(0, st_objects_read(&before));
	EXPECT_EQ(-EDQUOT, st_mem_create(self->fd, 0, 0, self->gran, &h[1]));
	EXPECT_EQ(-EDQUOT, st_mc_create(self->fd, 1, 0, self->gran, &h[1]));
	ASSERT_EQ(0, st_objects_read(&after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(2, usage_of(tag_of(h[0]), OBJECTS));
	EXPECT_EQ(2, usage_of(tag_of(h[0]), HANDLES));

	/* Another client imports ours: still ours, not its. */
	fd2 = st_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, st_export_fd(self->fd, h[0], &efd));
	ASSERT_EQ(0, st_import_fd(fd2, efd, &imported));
	close(efd);
	EXPECT_EQ(0, usage_of(tag_of(imported), OBJECTS));
	EXPECT_EQ(1, usage_of(tag_of(imported), HANDLES));
	ASSERT_EQ(0, st_mem_create(fd2, 0, 0, self->gran, &theirs));
	EXPECT_EQ(0, st_mem_create(fd2, 0, 0, self->gran, &h[2]));
	EXPECT_EQ(-EDQUOT, st_mem_create(fd2, 0, 0, self->gran, &h[2]));

	/* Our handle gone, the object lives in the other client: still ours. */
	ASSERT_EQ(0, st_release(self->fd, h[0]));
	EXPECT_EQ(2, usage_of(tag_of(mc), OBJECTS));
	EXPECT_EQ(-EDQUOT, st_mem_create(self->fd, 0, 0, self->gran, &h[1]));
	ASSERT_EQ(0, st_release(fd2, imported));
	EXPECT_EQ(1, usage_of(tag_of(mc), OBJECTS));
	EXPECT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h[1]));

	ASSERT_EQ(0, st_param_set("max_objects", 3));
	EXPECT_EQ(0, st_mem_create(self->fd, 0, 0, self->gran, &h[2]));
	close(fd2);
}

/*
 * A closed client's charges stay with what was charged: its usage record
 * lives, charged, until the last such thing goes.
 */
TEST_F(quota, charge_outlives_client)
{
	struct st_objects now, want;
	__u64 h, mc, mem, imported_mc, imported_h;
	int fd2, efd, efd_mc;

	fd2 = st_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, st_mc_team(fd2, 1, CUMC_HANDLE_FD, 2 * self->gran, &mc));
	ASSERT_EQ(0, st_mem_create(fd2, 0, CUMC_HANDLE_FD, self->gran, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(fd2, mc, 0, 0, mem, 0, self->gran));
	ASSERT_EQ(0, st_mem_create(fd2, 0, CUMC_HANDLE_FD, self->gran, &h));
	ASSERT_EQ(0, st_export_fd(fd2, h, &efd));
	ASSERT_EQ(0, st_export_fd(fd2, mc, &efd_mc));
	ASSERT_EQ(0, st_import_fd(self->fd, efd, &imported_h));
	ASSERT_EQ(0, st_import_fd(self->fd, efd_mc, &imported_mc));
	close(efd);
	close(efd_mc);
	EXPECT_EQ(3, usage_of(tag_of(mc), OBJECTS));
	EXPECT_EQ(self->gran, usage_of(tag_of(mc), BOUND));
	EXPECT_EQ(0, usage_of(tag_of(imported_h), OBJECTS));
	EXPECT_EQ(0, usage_of(tag_of(imported_h), BOUND));

	/* Gone from the clients file, its record lives on (usages). */
	close(fd2);
	ASSERT_EQ(0, st_objects_read(&now));
	want = self->base;
	want.clients++;		/* ours */
	want.mems += 2;		/* h, and mem in the binding */
	want.mcs++;
	want.binds++;
	want.usages += 2;	/* ours, and the closed client's */
	EXPECT_EQ(0, st_objects_settle(&want, &now, 2000));
	st_objects_diff(&want, &now);
	EXPECT_EQ(~0ULL, usage_of(tag_of(mc), OBJECTS));
	EXPECT_EQ(0, usage_of(tag_of(imported_h), OBJECTS));
	EXPECT_EQ(0, usage_of(tag_of(imported_h), BOUND));

	ASSERT_EQ(0, st_release(self->fd, imported_h));
	ASSERT_EQ(0, st_release(self->fd, imported_mc));
	want = self->base;
	want.clients++;
	want.usages++;
	EXPECT_EQ(0, st_objects_settle(&want, &now, 2000));
	st_objects_diff(&want, &now);
}

/* Reservations and multicast objects share the address-range quota. */
TEST_F(quota, address_ranges)
{
	struct st_objects before, after;
	__u64 va[3] = { 0 }, mc, h;
	int fd2;

	ASSERT_EQ(0, st_param_set("max_address_ranges", 2));
	ASSERT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0, &va[0]));
	ASSERT_EQ(0, st_mc_create(self->fd, 1, 0, self->gran, &mc));
	EXPECT_EQ(2, usage_of(tag_of(mc), RANGES));
	ASSERT_EQ(0, st_objects_read(&before));
	EXPECT_EQ(-EDQUOT, st_va_reserve(self->fd, self->gran, 0, 0, &va[1]));
	EXPECT_EQ(-EDQUOT, st_mc_create(self->fd, 1, 0, self->gran, &h));
	ASSERT_EQ(0, st_objects_read(&after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(2, usage_of(tag_of(mc), RANGES));
	EXPECT_EQ(1, usage_of(tag_of(mc), OBJECTS));
	EXPECT_EQ(1, usage_of(tag_of(mc), HANDLES));

	fd2 = st_open();
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, st_va_reserve(fd2, self->gran, 0, 0, &va[1]));
	EXPECT_EQ(0, st_mc_create(fd2, 1, 0, self->gran, &h));
	EXPECT_EQ(-EDQUOT, st_mc_create(fd2, 1, 0, self->gran, &h));
	close(fd2);
	/* Its reservation is a VMA of ours: it goes with the mapping. */
	EXPECT_EQ(0, munmap((void *)(uintptr_t)va[1], self->gran));

	ASSERT_EQ(0, st_va_free(self->fd, va[0], self->gran));
	EXPECT_EQ(1, usage_of(tag_of(mc), RANGES));
	EXPECT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0, &va[0]));
	ASSERT_EQ(0, st_release(self->fd, mc));
	EXPECT_EQ(1, usage_of(tag_of(mc), RANGES));
	ASSERT_EQ(0, st_param_set("max_address_ranges", 3));
	EXPECT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0, &va[1]));
	EXPECT_EQ(0, st_va_reserve(self->fd, self->gran, 0, 0, &va[2]));
	EXPECT_EQ(-EDQUOT, st_mc_create(self->fd, 1, 0, self->gran, &h));
	/* A reservation that goes with munmap returns its range too. */
	EXPECT_EQ(0, munmap((void *)(uintptr_t)va[2], self->gran));
	EXPECT_EQ(0, st_mc_create(self->fd, 1, 0, self->gran, &h));
	EXPECT_EQ(3, usage_of(tag_of(h), RANGES));
	/* Reservations hold the client's file: they must go for it to close. */
	EXPECT_EQ(0, st_va_free(self->fd, va[0], self->gran));
	EXPECT_EQ(0, st_va_free(self->fd, va[1], self->gran));
}

TEST_F(quota, mapped_bytes)
{
	struct st_objects before, after;
	const __u64 g = self->gran;
	__u64 h[3], va, va2, h2;
	int fd2, i;

	ASSERT_EQ(0, st_param_set("max_mapped_bytes", 2 * g));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, g, &h[i]));
	ASSERT_EQ(0, st_va_reserve(self->fd, 4 * g, 0, 0, &va));
	ASSERT_EQ(0, st_map(self->fd, va, g, h[0]));
	ASSERT_EQ(0, st_map(self->fd, va + g, g, h[1]));
	EXPECT_EQ(2 * g, usage_of(tag_of(h[0]), MAPPED));
	ASSERT_EQ(0, st_objects_read(&before));
	EXPECT_EQ(-EDQUOT, st_map(self->fd, va + 2 * g, g, h[2]));
	ASSERT_EQ(0, st_objects_read(&after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(2 * g, usage_of(tag_of(h[0]), MAPPED));
	/* Nothing was mapped there. */
	EXPECT_EQ(-ENXIO, st_unmap(self->fd, va + 2 * g, g));

	fd2 = st_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, st_mem_create(fd2, 0, 0, 2 * g, &h2));
	ASSERT_EQ(0, st_va_reserve(fd2, 2 * g, 0, 0, &va2));
	EXPECT_EQ(0, st_map(fd2, va2, 2 * g, h2));
	EXPECT_EQ(2 * g, usage_of(tag_of(h2), MAPPED));
	EXPECT_EQ(0, st_unmap(fd2, va2, 2 * g));
	EXPECT_EQ(0, st_va_free(fd2, va2, 2 * g));
	close(fd2);

	ASSERT_EQ(0, st_unmap(self->fd, va, g));
	EXPECT_EQ(g, usage_of(tag_of(h[0]), MAPPED));
	EXPECT_EQ(0, st_map(self->fd, va + 2 * g, g, h[2]));
	EXPECT_EQ(-EDQUOT, st_map(self->fd, va, g, h[0]));
	ASSERT_EQ(0, st_param_set("max_mapped_bytes", 3 * g));
	EXPECT_EQ(0, st_map(self->fd, va, g, h[0]));
	EXPECT_EQ(3 * g, usage_of(tag_of(h[0]), MAPPED));

	/* A reservation torn down with its mappings returns their bytes. */
	EXPECT_EQ(0, munmap((void *)(uintptr_t)va, 4 * g));
	EXPECT_EQ(0, usage_of(tag_of(h[0]), MAPPED));
	EXPECT_EQ(0, usage_of(tag_of(h[0]), RANGES));
}

TEST_F(quota, bound_bytes)
{
	struct st_objects before, after;
	const __u64 g = self->gran;
	__u64 mc, mem, mc2, mem2;
	int fd2;

	ASSERT_EQ(0, st_param_set("max_bound_bytes", g));
	ASSERT_EQ(0, st_mc_team(self->fd, 1, 0, 2 * g, &mc));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, 0, 2 * g, &mem));
	ASSERT_EQ(0, st_mc_bind_mem(self->fd, mc, 0, 0, mem, 0, g));
	EXPECT_EQ(g, usage_of(tag_of(mc), BOUND));
	ASSERT_EQ(0, st_objects_read(&before));
	EXPECT_EQ(-EDQUOT, st_mc_bind_mem(self->fd, mc, 0, g, mem, 0, g));
	ASSERT_EQ(0, st_objects_read(&after));
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(-ENXIO, st_mc_unbind(self->fd, mc, 0, g, g));
	EXPECT_EQ(g, usage_of(tag_of(mc), BOUND));

	fd2 = st_open();
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, st_mc_team(fd2, 1, 0, g, &mc2));
	ASSERT_EQ(0, st_mem_create(fd2, 0, 0, g, &mem2));
	EXPECT_EQ(0, st_mc_bind_mem(fd2, mc2, 0, 0, mem2, 0, g));
	close(fd2);

	ASSERT_EQ(0, st_mc_unbind(self->fd, mc, 0, 0, g));
	EXPECT_EQ(0, usage_of(tag_of(mc), BOUND));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, mc, 0, g, mem, 0, g));
	EXPECT_EQ(-EDQUOT, st_mc_bind_mem(self->fd, mc, 0, 0, mem, 0, g));
	ASSERT_EQ(0, st_param_set("max_bound_bytes", 2 * g));
	EXPECT_EQ(0, st_mc_bind_mem(self->fd, mc, 0, 0, mem, 0, g));
	EXPECT_EQ(2 * g, usage_of(tag_of(mc), BOUND));
	/* Released with the object, the bindings return their bytes. */
	ASSERT_EQ(0, st_release(self->fd, mc));
	EXPECT_EQ(0, usage_of(tag_of(mem), BOUND));
}

TEST_HARNESS_MAIN
