/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The helper library of the cumc selftests: every selftest and helper
 * program includes this header and keeps no ioctl wrapper of its own,
 * except where it calls an ioctl with odd fields on purpose (sizes,
 * reserved members, fuzzing).
 *
 * Everything here is named st_*, apart from the UAPI's cumc_* and CUMC_*.
 * There is one wrapper per ioctl: it fills the members callers need not
 * vary with zero, returns 0 or -errno (so that a test compares the outcome
 * in one EXPECT_EQ and prints the errno it got) and hands outputs back by
 * pointer, written only on success. Descriptors pass between processes
 * with fdpass_send() and fdpass_recv() of lib/tests/fdpass.h; the CPU
 * looks at device memory with lib/tests/probe.h; lib/tests/objects.h reads
 * the module's live-object counts.
 */
#ifndef _CUMC_SELFTEST_H
#define _CUMC_SELFTEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "fdpass.h"
#include "objects.h"
#include "unplug.h"
#include "probe.h"

/*
 * The harness stops a test after 30 s unless it says otherwise: a timing
 * assertion in disguise, which failed tests that take 3 s on an idle host
 * once KASAN, TCG and other VMs on the same cores stretched them past it.
 * The limit is there to end hangs (scripts/vm-run also bounds the whole
 * run); every test of this header's includers gets 10 minutes.
 * TEST_TIMEOUT_DEFAULT is read where the tests are defined, after this.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 600
#endif

/* A new client of /dev/cumc, or -1. */
static inline int st_open(void)
{
	return open("/dev/cumc", O_RDWR | O_CLOEXEC);
}

/* The value of a module parameter, -1 when it cannot be read. */
static inline long st_param_uint(const char *name)
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

/* Write @text to the file @path: 0, or -errno of the open or write. */
static inline int st_write_file(const char *path, const char *text)
{
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Write @value to the module parameter @name: 0, or -errno of the write. */
static inline int st_param_write(const char *name, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/cumc/parameters/%s", name);
	return st_write_file(path, value);
}

static inline int st_param_set(const char *name, unsigned long long value)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", value);
	return st_param_write(name, buf);
}

/* The environment variable @name as a number, @def when unset or empty. */
static inline long st_env_long(const char *name, long def)
{
	const char *s = getenv(name);

	return s && *s ? strtol(s, NULL, 0) : def;
}

static inline int st_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int st_query(int fd, struct cumc_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	return st_ioctl(fd, CUMC_QUERY, q);
}

/* The number of devices, or -errno. */
/* PCI devices the cumc driver has bound: its sysfs links named by address. */
static inline long st_pci_devices(void)
{
	DIR *dir = opendir("/sys/bus/pci/drivers/cumc");
	struct dirent *d;
	long n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		n += strchr(d->d_name, ':') != NULL;
	closedir(dir);
	return n;
}

/* Whether the device @info describes is a PCI device the driver bound. */
static inline bool st_info_is_pci(const struct cumc_device_info *info)
{
	char pci[32];

	return unplug_pci_bound(info->pci_domain, info->pci_bus,
				info->pci_device, pci, sizeof(pci));
}

static inline long st_num_devices(int fd)
{
	struct cumc_query q;
	int ret;

	ret = st_query(fd, &q);
	return ret ? ret : q.num_devices;
}

static inline int st_device_info(int fd, __u32 device,
				 struct cumc_device_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->device = device;
	return st_ioctl(fd, CUMC_DEVICE_INFO, info);
}

/* Bytes free on @device, or -errno. */
static inline long long st_mem_free(int fd, __u32 device)
{
	struct cumc_device_info info;
	int ret;

	ret = st_device_info(fd, device, &info);
	return ret ? ret : (long long)info.mem_free;
}

static inline int st_mem_create(int fd, __u32 device, __u32 handle_types,
				__u64 length, __u64 *handle)
{
	struct cumc_mem_create c = {
		.size = sizeof(c),
		.device = device,
		.handle_types = handle_types,
		.length = length,
	};
	int ret;

	ret = st_ioctl(fd, CUMC_MEM_CREATE, &c);
	if (!ret)
		*handle = c.out_handle;
	return ret;
}

static inline int st_mem_info(int fd, __u64 handle, struct cumc_mem_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->handle = handle;
	return st_ioctl(fd, CUMC_MEM_INFO, info);
}

/* CUMC_RELEASE of a memory or multicast handle. */
static inline int st_release(int fd, __u64 handle)
{
	struct cumc_release r = { .size = sizeof(r), .handle = handle };

	return st_ioctl(fd, CUMC_RELEASE, &r);
}

/*
 * Device addresses: CUMC_VA_RESERVE, CUMC_VA_FREE, CUMC_MAP, CUMC_UNMAP,
 * CUMC_SET_ACCESS and CUMC_VA_QUERY. Addresses are __u64 like the UAPI's
 * so that tests can do arithmetic on them.
 */
/* CUMC_VA_RESERVE with @flags: CUMC_VA_RESERVE_SHARED, or 0. */
static inline int st_va_reserve_flags(int fd, __u32 flags, __u64 length,
				      __u64 alignment, __u64 hint, __u64 *addr)
{
	struct cumc_va_reserve r = {
		.size = sizeof(r),
		.flags = flags,
		.length = length,
		.alignment = alignment,
		.addr = hint,
	};
	int ret;

	ret = st_ioctl(fd, CUMC_VA_RESERVE, &r);
	if (!ret)
		*addr = r.out_addr;
	return ret;
}

/* A reservation with a mapping of its own, as before arenas. */
static inline int st_va_reserve(int fd, __u64 length, __u64 alignment,
				__u64 hint, __u64 *addr)
{
	return st_va_reserve_flags(fd, 0, length, alignment, hint, addr);
}

/*
 * The mapping of the process holding @addr, from /proc/self/maps: for a
 * reservation, the arena it is a range of. 0 when found.
 */
static inline int st_vma_of(__u64 addr, __u64 *start, __u64 *end)
{
	unsigned long long s, e;
	char line[512];
	int ret = -1;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 &&
		    addr >= s && addr < e) {
			*start = s;
			*end = e;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * munmap() the whole arena holding the reservation at @addr, and with it
 * every reservation in it (a part of an arena cannot be unmapped).
 */
static inline int st_munmap_arena(__u64 addr)
{
	__u64 start, end;

	if (st_vma_of(addr, &start, &end))
		return -1;
	return munmap((void *)(uintptr_t)start, end - start);
}

/*
 * An address aligned to @align where the process has nothing mapped for
 * @length bytes: a hint there gets even a shared reservation a mapping of
 * its own.
 */
static inline __u64 st_hole(__u64 length, __u64 align)
{
	void *p = mmap(NULL, length + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, length + align);
	return ((__u64)(uintptr_t)p + align - 1) & ~(align - 1);
}

/* st_va_reserve() in one of the client's shared arenas. */
static inline int st_va_reserve_shared(int fd, __u64 length, __u64 alignment,
				       __u64 hint, __u64 *addr)
{
	return st_va_reserve_flags(fd, CUMC_VA_RESERVE_SHARED, length,
				   alignment, hint, addr);
}

static inline int st_va_free(int fd, __u64 addr, __u64 length)
{
	struct cumc_va_free f = {
		.size = sizeof(f),
		.addr = addr,
		.length = length,
	};

	return st_ioctl(fd, CUMC_VA_FREE, &f);
}

static inline int st_map(int fd, __u64 addr, __u64 length, __u64 handle)
{
	struct cumc_map m = {
		.size = sizeof(m),
		.addr = addr,
		.length = length,
		.handle = handle,
	};

	return st_ioctl(fd, CUMC_MAP, &m);
}

static inline int st_unmap(int fd, __u64 addr, __u64 length)
{
	struct cumc_unmap u = {
		.size = sizeof(u),
		.addr = addr,
		.length = length,
	};

	return st_ioctl(fd, CUMC_UNMAP, &u);
}

static inline int st_set_access(int fd, __u64 addr, __u64 length,
				const struct cumc_access_desc *descs,
				__u32 num_descs)
{
	struct cumc_set_access s = {
		.size = sizeof(s),
		.addr = addr,
		.length = length,
		.descs = (__u64)(uintptr_t)descs,
		.num_descs = num_descs,
	};

	return st_ioctl(fd, CUMC_SET_ACCESS, &s);
}

/* CUMC_SET_ACCESS of one device. */
static inline int st_grant(int fd, __u64 addr, __u64 length, __u32 device,
			   __u32 access)
{
	struct cumc_access_desc d = { .device = device, .access = access };

	return st_set_access(fd, addr, length, &d, 1);
}

static inline int st_va_query(int fd, __u64 addr, __u32 device, __u32 flags,
			      struct cumc_va_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->flags = flags;
	q->addr = addr;
	q->device = device;
	return st_ioctl(fd, CUMC_VA_QUERY, q);
}

/*
 * Map @handle (memory or multicast) over a reservation of its own and give
 * @device @access to it; on failure nothing is left. Usable in forked
 * processes and threads: 0 or -errno.
 */
static inline int st_map_new(int fd, __u64 handle, __u64 length,
			     __u32 device, __u32 access, __u64 *addr)
{
	__u64 a;
	int ret;

	ret = st_va_reserve(fd, length, 0, 0, &a);
	if (ret)
		return ret;
	ret = st_map(fd, a, length, handle);
	if (!ret)
		ret = st_grant(fd, a, length, device, access);
	if (ret) {
		st_unmap(fd, a, length);
		st_va_free(fd, a, length);
		return ret;
	}
	*addr = a;
	return 0;
}

/* Undoes st_map_new(): 0 or -errno. */
static inline int st_unmap_free(int fd, __u64 addr, __u64 length)
{
	int ret;

	ret = st_unmap(fd, addr, length);
	return ret ? ret : st_va_free(fd, addr, length);
}

/* Sharing: CUMC_EXPORT_FD, CUMC_IMPORT_FD, channels and fabric handles. */
static inline int st_export_fd(int fd, __u64 handle, int *out_fd)
{
	struct cumc_export_fd e = { .size = sizeof(e), .handle = handle };
	int ret;

	ret = st_ioctl(fd, CUMC_EXPORT_FD, &e);
	if (!ret)
		*out_fd = e.out_fd;
	return ret;
}

static inline int st_import_fd(int fd, int efd, __u64 *handle)
{
	struct cumc_import_fd i = { .size = sizeof(i), .fd = efd };
	int ret;

	ret = st_ioctl(fd, CUMC_IMPORT_FD, &i);
	if (!ret)
		*handle = i.out_handle;
	return ret;
}

/* @out_channel may be NULL. */
static inline int st_attach_channel(int fd, int channel_fd, __u32 *out_channel)
{
	struct cumc_attach_channel a = { .size = sizeof(a), .fd = channel_fd };
	int ret;

	ret = st_ioctl(fd, CUMC_ATTACH_CHANNEL, &a);
	if (!ret && out_channel)
		*out_channel = a.out_channel;
	return ret;
}

/* @fh: CUMC_FABRIC_HANDLE_SIZE bytes. */
static inline int st_export_fabric(int fd, __u64 handle, __u8 *fh)
{
	struct cumc_export_fabric e = { .size = sizeof(e), .handle = handle };
	int ret;

	ret = st_ioctl(fd, CUMC_EXPORT_FABRIC, &e);
	if (!ret)
		memcpy(fh, e.out_fabric, CUMC_FABRIC_HANDLE_SIZE);
	return ret;
}

static inline int st_import_fabric(int fd, const __u8 *fh, __u64 *handle)
{
	struct cumc_import_fabric i = { .size = sizeof(i) };
	int ret;

	memcpy(i.fabric, fh, CUMC_FABRIC_HANDLE_SIZE);
	ret = st_ioctl(fd, CUMC_IMPORT_FABRIC, &i);
	if (!ret)
		*handle = i.out_handle;
	return ret;
}

/* Multicast objects: the one wrapper of each CUMC_MC_* ioctl. */
static inline int st_mc_create(int fd, __u32 num_devices, __u32 handle_types,
			       __u64 length, __u64 *handle)
{
	struct cumc_mc_create c = {
		.size = sizeof(c),
		.num_devices = num_devices,
		.handle_types = handle_types,
		.length = length,
	};
	int ret;

	ret = st_ioctl(fd, CUMC_MC_CREATE, &c);
	if (!ret)
		*handle = c.out_handle;
	return ret;
}

static inline int st_mc_add(int fd, __u64 mc, __u32 device)
{
	struct cumc_mc_add_device a = {
		.size = sizeof(a),
		.handle = mc,
		.device = device,
	};

	return st_ioctl(fd, CUMC_MC_ADD_DEVICE, &a);
}

/*
 * A multicast object with devices 0 .. @num_devices - 1 added: the team is
 * complete, ready for binds. When an add fails, @handle still names the
 * object, for the caller to release.
 */
static inline int st_mc_team(int fd, __u32 num_devices, __u32 handle_types,
			     __u64 length, __u64 *handle)
{
	__u32 d;
	int ret;

	ret = st_mc_create(fd, num_devices, handle_types, length, handle);
	for (d = 0; !ret && d < num_devices; d++)
		ret = st_mc_add(fd, *handle, d);
	return ret;
}

/* Bind @length bytes of @mem from @mem_offset at @mc_offset for @device. */
static inline int st_mc_bind_mem(int fd, __u64 mc, __u32 device,
				 __u64 mc_offset, __u64 mem, __u64 mem_offset,
				 __u64 length)
{
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.handle = mc,
		.device = device,
		.mc_offset = mc_offset,
		.mem = mem,
		.mem_offset = mem_offset,
		.length = length,
	};

	return st_ioctl(fd, CUMC_MC_BIND_MEM, &b);
}

/* Bind the memory mapped at device address @addr, for @device. */
static inline int st_mc_bind_addr(int fd, __u64 mc, __u32 device,
				  __u64 mc_offset, __u64 addr, __u64 length)
{
	struct cumc_mc_bind b = {
		.size = sizeof(b),
		.handle = mc,
		.device = device,
		.mc_offset = mc_offset,
		.mem = addr,
		.length = length,
	};

	return st_ioctl(fd, CUMC_MC_BIND_ADDR, &b);
}

static inline int st_mc_unbind(int fd, __u64 mc, __u32 device,
			       __u64 mc_offset, __u64 length)
{
	struct cumc_mc_unbind u = {
		.size = sizeof(u),
		.handle = mc,
		.device = device,
		.mc_offset = mc_offset,
		.length = length,
	};

	return st_ioctl(fd, CUMC_MC_UNBIND, &u);
}

/* @members: room for @max device numbers, or NULL. */
static inline int st_mc_info(int fd, __u64 mc, __u32 *members, __u32 max,
			     struct cumc_mc_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->handle = mc;
	info->members = (__u64)(uintptr_t)members;
	info->num_members_max = max;
	return st_ioctl(fd, CUMC_MC_INFO, info);
}

/* The view of multicast mapping @addr for @device, and its length. */
static inline int st_mc_view(int fd, __u64 addr, __u32 device, __u64 *view,
			     __u64 *length)
{
	struct cumc_mc_view v = {
		.size = sizeof(v),
		.addr = addr,
		.device = device,
	};
	int ret;

	ret = st_ioctl(fd, CUMC_MC_VIEW, &v);
	if (!ret) {
		*view = v.out_addr;
		*length = v.out_length;
	}
	return ret;
}

/* Processes. */

/* The exit status of @pid, 128 + the signal that killed it, or -1. */
static inline int st_wait_exit(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * For a kselftest_harness.h FIXTURE_SETUP whose fixture has int fd,
 * struct st_objects base and __u32 num_devices: count the live objects
 * before this test's first client, open one, and ASSERT that it sees a
 * device, reading device 0's struct cumc_device_info into *@info.
 */
#define ST_SETUP_CLIENT(info) do {					\
	long __devices;							\
									\
	ASSERT_EQ(0, st_objects_read(&self->base))			\
		TH_LOG("cannot read %s", ST_OBJECTS_PATH);		\
	self->fd = st_open();						\
	ASSERT_LE(0, self->fd);						\
	__devices = st_num_devices(self->fd);				\
	ASSERT_LT(0, __devices);					\
	self->num_devices = __devices;					\
	ASSERT_EQ(0, st_device_info(self->fd, 0, (info)));		\
} while (0)

/*
 * For kselftest_harness.h's tests: EXPECT the counts now, from clients to
 * member @last of struct st_objects, to be those of @want. No ASSERT: the
 * harness would loop if this ran in a teardown after a failed ASSERT.
 * Unreadable counts are -1 and fail every comparison.
 */
#define ST_EXPECT_OBJECTS(want, last) do {				\
	struct st_objects __want = (want), __now = st_objects_now();	\
	int __i, __kinds = offsetof(struct st_objects, last) /		\
			   sizeof(long) + 1;				\
									\
	for (__i = 0; __i < __kinds; __i++)				\
		EXPECT_EQ(*st_object(&__want, __i),			\
			  *st_object(&__now, __i))			\
			TH_LOG("%s", st_object_kinds[__i].name);	\
} while (0)

/* The devices whose mem_free is not their mem_total; -1 on error. */
static inline int st_devices_not_free(int fd)
{
	struct cumc_device_info info;
	long n = st_num_devices(fd);
	int bad = 0;
	__u32 d;

	if (n < 0)
		return -1;
	for (d = 0; d < n; d++) {
		if (st_device_info(fd, d, &info))
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
