/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the cumc selftests.
 *
 * The ioctl wrappers return 0 or -errno so that a test can compare the
 * outcome in one EXPECT_EQ and print the errno it got.
 */
#ifndef _CUMC_SELFTEST_H
#define _CUMC_SELFTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/cumc.h>

#define CUMC_OBJECTS_PATH "/sys/kernel/debug/cumc/objects"

static inline int cumc_open(void)
{
	return open("/dev/cumc", O_RDWR | O_CLOEXEC);
}

/* The value of a module parameter, -1 when it cannot be read. */
static inline long cumc_param_uint(const char *name)
{
	char path[128];
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/cumc/parameters/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

/* Live objects of the whole module, from debugfs. */
struct cumc_counts {
	long clients;
	long mems;
};

/* 0, or -1 when debugfs or the file cannot be read. */
static inline int cumc_counts(struct cumc_counts *c)
{
	FILE *f;
	int n;

	f = fopen(CUMC_OBJECTS_PATH, "r");
	if (!f)
		return -1;
	n = fscanf(f, "clients %ld mems %ld", &c->clients, &c->mems);
	fclose(f);
	return n == 2 ? 0 : -1;
}

static inline int cumc_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* The number of devices, or -errno. */
static inline long cumc_num_devices(int fd)
{
	struct cumc_query q = { .size = sizeof(q) };
	int ret;

	ret = cumc_ioctl(fd, CUMC_QUERY, &q);
	return ret ? ret : q.num_devices;
}

static inline int cumc_device_info(int fd, __u32 device,
				   struct cumc_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->device = device;
	return cumc_ioctl(fd, CUMC_DEVICE_INFO, info);
}

/* Bytes free on @device, or -errno. */
static inline long long cumc_mem_free(int fd, __u32 device)
{
	struct cumc_device_info info;
	int ret;

	ret = cumc_device_info(fd, device, &info);
	return ret ? ret : (long long)info.mem_free;
}

static inline int cumc_mem_create(int fd, __u32 device, __u32 handle_types,
				  __u64 length, __u64 *handle)
{
	struct cumc_mem_create c = {
		.size = sizeof(c),
		.device = device,
		.handle_types = handle_types,
		.length = length,
	};
	int ret;

	ret = cumc_ioctl(fd, CUMC_MEM_CREATE, &c);
	if (!ret)
		*handle = c.out_handle;
	return ret;
}

static inline int cumc_mem_info(int fd, __u64 handle,
				struct cumc_mem_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->handle = handle;
	return cumc_ioctl(fd, CUMC_MEM_INFO, info);
}

static inline int cumc_release(int fd, __u64 handle)
{
	struct cumc_release r = { .size = sizeof(r), .handle = handle };

	return cumc_ioctl(fd, CUMC_RELEASE, &r);
}

/*
 * Device addresses (cumc_va.c): CUMC_VA_RESERVE, CUMC_VA_FREE, CUMC_MAP,
 * CUMC_UNMAP, CUMC_SET_ACCESS and CUMC_VA_QUERY with every member that
 * callers need not vary (flags, offset, reserved) left at zero. Addresses
 * are __u64 like the UAPI's so that tests can do arithmetic on them.
 */
static inline int cumc_va_reserve(int fd, __u64 length, __u64 alignment,
				  __u64 hint, __u64 *addr)
{
	struct cumc_va_reserve r = {
		.size = sizeof(r),
		.length = length,
		.alignment = alignment,
		.addr = hint,
	};
	int ret;

	ret = cumc_ioctl(fd, CUMC_VA_RESERVE, &r);
	if (!ret)
		*addr = r.out_addr;
	return ret;
}

static inline int cumc_va_free(int fd, __u64 addr, __u64 length)
{
	struct cumc_va_free f = {
		.size = sizeof(f),
		.addr = addr,
		.length = length,
	};

	return cumc_ioctl(fd, CUMC_VA_FREE, &f);
}

static inline int cumc_map(int fd, __u64 addr, __u64 length, __u64 handle)
{
	struct cumc_map m = {
		.size = sizeof(m),
		.addr = addr,
		.length = length,
		.handle = handle,
	};

	return cumc_ioctl(fd, CUMC_MAP, &m);
}

static inline int cumc_unmap(int fd, __u64 addr, __u64 length)
{
	struct cumc_unmap u = {
		.size = sizeof(u),
		.addr = addr,
		.length = length,
	};

	return cumc_ioctl(fd, CUMC_UNMAP, &u);
}

/* A new descriptor for @handle, or -errno. */
static inline int cumc_export_fd_of(int fd, __u64 handle)
{
	struct cumc_export_fd e = { .size = sizeof(e), .handle = handle };
	int ret;

	ret = cumc_ioctl(fd, CUMC_EXPORT_FD, &e);
	return ret ? ret : e.out_fd;
}

static inline int cumc_import_fd_as(int fd, int efd, __u64 *handle)
{
	struct cumc_import_fd i = { .size = sizeof(i), .fd = efd };
	int ret;

	ret = cumc_ioctl(fd, CUMC_IMPORT_FD, &i);
	if (!ret)
		*handle = i.out_handle;
	return ret;
}

/* Bind @length bytes of @mem at @mc_offset of multicast object @mc. */
static inline int cumc_mc_bind_mem(int fd, __u64 mc, __u64 mc_offset,
				   __u64 mem, __u64 length)
{
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.handle = mc,
		.mc_offset = mc_offset,
		.mem = mem,
		.length = length,
	};

	return cumc_ioctl(fd, CUMC_MC_BIND_MEM, &b);
}

static inline int cumc_mc_unbind(int fd, __u64 mc, __u64 mc_offset,
				 __u64 length)
{
	struct cumc_mc_unbind u = {
		.size = sizeof(u),
		.handle = mc,
		.mc_offset = mc_offset,
		.length = length,
	};

	return cumc_ioctl(fd, CUMC_MC_UNBIND, &u);
}

static inline int cumc_set_access(int fd, __u64 addr, __u64 length,
				  const struct cumc_access_desc *descs,
				  __u32 num_descs)
{
	struct cumc_set_access s = {
		.size = sizeof(s),
		.addr = addr,
		.length = length,
		.descs = (__u64)(unsigned long)descs,
		.num_descs = num_descs,
	};

	return cumc_ioctl(fd, CUMC_SET_ACCESS, &s);
}

static inline int cumc_va_query(int fd, __u64 addr, __u32 device, __u32 flags,
				struct cumc_va_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->flags = flags;
	q->addr = addr;
	q->device = device;
	return cumc_ioctl(fd, CUMC_VA_QUERY, q);
}

/*
 * Every live-object count of debugfs, for tests that prove nothing leaks
 * (stress, kill, fuzz, fail-nth). Indexed like cumc_object_names.
 */
#define CUMC_NUM_OBJECT_KINDS 9

static const char *const cumc_object_names[CUMC_NUM_OBJECT_KINDS] = {
	"clients", "mems", "pages", "vas", "mappings", "mcs", "binds", "views",
	"usages",
};

struct cumc_objects {
	long n[CUMC_NUM_OBJECT_KINDS];
};

/* 0, or -1 when the file cannot be read or has not every count. */
static inline int cumc_objects_read(struct cumc_objects *o)
{
	char name[32];
	int found = 0, i;
	long value;
	FILE *f;

	f = fopen(CUMC_OBJECTS_PATH, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%31s %ld", name, &value) == 2) {
		for (i = 0; i < CUMC_NUM_OBJECT_KINDS; i++) {
			if (!strcmp(name, cumc_object_names[i])) {
				o->n[i] = value;
				found |= 1 << i;
			}
		}
	}
	fclose(f);
	return found == (1 << CUMC_NUM_OBJECT_KINDS) - 1 ? 0 : -1;
}

/*
 * Wait up to @ms for the counts to equal @want: the last close of a file
 * (a dead process's, an exported descriptor in flight) may run a moment
 * after waitpid() returns. 0 when equal; otherwise -1, @now the last seen.
 */
static inline int cumc_objects_settle(const struct cumc_objects *want,
				      struct cumc_objects *now, int ms)
{
	for (;;) {
		if (!cumc_objects_read(now) && !memcmp(now, want, sizeof(*now)))
			return 0;
		if (ms <= 0)
			return -1;
		usleep(10000);
		ms -= 10;
	}
}

/* Print the counts that differ from @want; the number of them. */
static inline int cumc_objects_diff(const struct cumc_objects *want,
				    const struct cumc_objects *now)
{
	int i, bad = 0;

	for (i = 0; i < CUMC_NUM_OBJECT_KINDS; i++) {
		if (want->n[i] == now->n[i])
			continue;
		fprintf(stderr, "# %s: %ld, expected %ld\n",
			cumc_object_names[i], now->n[i], want->n[i]);
		bad++;
	}
	return bad;
}

/* The devices whose mem_free is not their mem_total; -1 on error. */
static inline int cumc_devices_not_free(int fd)
{
	struct cumc_device_info info;
	long n = cumc_num_devices(fd);
	int bad = 0;
	__u32 d;

	if (n < 0)
		return -1;
	for (d = 0; d < n; d++) {
		if (cumc_device_info(fd, d, &info))
			return -1;
		if (info.mem_free == info.mem_total)
			continue;
		fprintf(stderr, "# device %u: mem_free %llu of %llu\n", d,
			(unsigned long long)info.mem_free,
			(unsigned long long)info.mem_total);
		bad++;
	}
	return bad;
}

#endif /* _CUMC_SELFTEST_H */
