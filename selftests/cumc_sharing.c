// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing objects between clients and processes: CUMC_EXPORT_FD,
 * CUMC_IMPORT_FD, CUMC_ATTACH_CHANNEL, CUMC_EXPORT_FABRIC and
 * CUMC_IMPORT_FABRIC.
 *
 * Descriptors travel between processes as NCCL and PyTorch send them: over
 * a Unix socket with SCM_RIGHTS. Every test ends with the module holding
 * exactly the objects it held before the test started (debugfs counts).
 *
 * The tests run as root in the VM, where the channel nodes are root:root
 * 0600; the test of another user's permissions changes a node's mode and
 * always puts it back.
 */
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/cumc.h>

#include "kselftest_harness.h"

#include "cumc_selftest.h"

#define CHANNEL_PATH "/dev/cumc-imex-channels/channel%u"
/* The same channels under NVIDIA's name, the major /proc/devices gives it. */
#define NVIDIA_CHANNEL_PATH "/dev/nvidia-caps-imex-channels/channel%u"
#define NVIDIA_CHANNEL_REGION "nvidia-caps-imex-channels"
#define FH_SIZE CUMC_FABRIC_HANDLE_SIZE
/* An unprivileged user and group that exist on every Debian system. */
#define NOBODY 65534
#define PAGE 4096ULL
#define SEED 0x5eed0000c0ffee00ULL

/* Offsets of the fabric handle's parts (Documentation/sharing.md). */
#define FH_CHANNEL 4
#define FH_ID 16

static int open_channel(unsigned int n)
{
	char path[64];

	snprintf(path, sizeof(path), CHANNEL_PATH, n);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* Attach channel @n to client @fd, closing the channel afterwards. */
static int attach(int fd, unsigned int n)
{
	int ch, ret;

	ch = open_channel(n);
	if (ch < 0)
		return -errno;
	ret = st_attach_channel(fd, ch, NULL);
	close(ch);
	return ret;
}

/* A new client with channel @n attached, or -1. */
static int open_on_channel(unsigned int n)
{
	int fd = st_open();

	if (fd >= 0 && attach(fd, n)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Import @fh and give the handle back at once: 0 or -errno. */
static int try_import_fabric(int fd, const __u8 *fh)
{
	__u64 h;
	int ret;

	ret = st_import_fabric(fd, fh, &h);
	if (!ret)
		st_release(fd, h);
	return ret;
}

FIXTURE(sharing) {
	int fd;
	__u64 gran;
	__u64 mc_gran;
	long channels;
	/* Before this test's first client was opened. */
	struct st_objects base;
	/* A channel node whose mode the test changed, to put back. */
	bool restore_mode;
	char mode_path[64];
	mode_t mode;
};

FIXTURE_SETUP(sharing)
{
	struct cumc_query q = { .size = sizeof(q) };
	struct cumc_device_info info;

	ASSERT_EQ(0, st_objects_read(&self->base))
		TH_LOG("cannot read %s", ST_OBJECTS_PATH);
	self->fd = st_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_QUERY, &q));
	self->mc_gran = q.mc_granularity;
	ASSERT_EQ(0, st_device_info(self->fd, 0, &info));
	self->gran = info.granularity;
	ASSERT_LE(2 * PAGE, self->gran);
	self->channels = st_param_uint("imex_channels");
	ASSERT_LE(1, self->channels);
}

FIXTURE_TEARDOWN(sharing)
{
	struct st_objects now;

	/* No ASSERT: after a failed one, it would re-enter the teardown. */
	if (self->restore_mode)
		EXPECT_EQ(0, chmod(self->mode_path, self->mode));
	close(self->fd);
	EXPECT_EQ(0, st_objects_read(&now));
	EXPECT_EQ(0, st_objects_diff(&self->base, &now));
}

/* POSIX file descriptors */

/*
 * In a child: a client of its own makes fd-shareable memory, writes
 * probe_fill(SEED) into it and sends an exported descriptor over @sock.
 * Then it waits for a byte on @sock (or, with @linger, for ever) and gives
 * up everything before exiting.
 */
static int exporter(int sock, __u64 length, bool linger)
{
	__u64 h, addr;
	int fd, efd;
	char c;

	fd = st_open();
	if (fd < 0 || st_mem_create(fd, 0, CUMC_HANDLE_FD, length, &h))
		return 1;
	if (st_map_new(fd, h, length, 0, CUMC_ACCESS_READWRITE, &addr))
		return 2;
	probe_fill(addr, length, SEED);
	if (st_export_fd(fd, h, &efd) || fdpass_send(sock, efd))
		return 3;
	close(efd);
	while (linger)
		pause();
	if (read(sock, &c, 1) != 1)
		return 4;
	if (st_release(fd, h) || st_unmap_free(fd, addr, length))
		return 5;
	close(fd);
	return 0;
}

/*
 * Fork exporter(@length, @linger) on sv[1] of a new socket pair of @type;
 * sv[1] is closed here, the caller talks to it on sv[0].
 */
static pid_t start_exporter(struct __test_metadata *_metadata, int sv[2],
			    int type, __u64 length, bool linger)
{
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		close(sv[0]);
		_exit(exporter(sv[1], length, linger));
	}
	close(sv[1]);
	return pid;
}

/*
 * The importer maps what another process exported and reads what it wrote;
 * the exporter then releases everything and exits, and the importer still
 * reads and writes the memory.
 */
TEST_F(sharing, fd_to_another_process)
{
	long long free_before = st_mem_free(self->fd, 0);
	__u64 h, addr;
	int sv[2], efd;
	pid_t pid;

	pid = start_exporter(_metadata, sv, SOCK_STREAM, self->gran, false);
	efd = fdpass_recv(sv[0]);
	ASSERT_LE(0, efd);
	ASSERT_EQ(0, st_import_fd(self->fd, efd, &h));
	EXPECT_EQ(0, close(efd));
	ASSERT_EQ(0, st_map_new(self->fd, h, self->gran, 0,
				CUMC_ACCESS_READWRITE, &addr));
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, SEED));

	ASSERT_EQ(1, write(sv[0], "x", 1));
	EXPECT_EQ(0, st_wait_exit(pid));
	close(sv[0]);
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, SEED));
	probe_fill(addr, self->gran, ~SEED);
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, ~SEED));
	/* The mapping alone holds the memory now. */
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, ~SEED));
	EXPECT_EQ(free_before - (long long)self->gran,
		  st_mem_free(self->fd, 0));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(free_before, st_mem_free(self->fd, 0));
}

/*
 * The descriptor in flight holds the object on its own: the exporter is
 * killed before anyone imports, and the memory and its contents live on.
 */
TEST_F(sharing, fd_outlives_killed_exporter)
{
	int sv[2], efd, status;
	__u64 h, addr;
	pid_t pid;

	pid = start_exporter(_metadata, sv, SOCK_DGRAM, self->gran, true);
	/* Once the descriptor is queued, nothing else of the child matters. */
	efd = fdpass_recv(sv[0]);
	EXPECT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	ASSERT_LE(0, efd);

	ASSERT_EQ(0, st_import_fd(self->fd, efd, &h));
	EXPECT_EQ(0, close(efd));
	ASSERT_EQ(0, st_map_new(self->fd, h, self->gran, 0,
				CUMC_ACCESS_READWRITE, &addr));
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, SEED));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(0, st_release(self->fd, h));
	close(sv[0]);
}

/* An unreceived descriptor is released with the socket holding it. */
TEST_F(sharing, fd_left_in_socket_released)
{
	long long free_before = st_mem_free(self->fd, 0);
	int sv[2], efd;
	__u64 h;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran,
				   &h));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	ASSERT_EQ(0, fdpass_send(sv[0], efd));
	EXPECT_EQ(0, close(efd));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(free_before - (long long)self->gran,
		  st_mem_free(self->fd, 0));
	close(sv[0]);
	close(sv[1]);
	EXPECT_EQ(free_before, st_mem_free(self->fd, 0));
}

TEST_F(sharing, fd_holds_object)
{
	long long free_before = st_mem_free(self->fd, 0);
	struct cumc_mem_info info;
	__u64 h, h2;
	int efd;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran,
				   &h));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(free_before - (long long)self->gran,
		  st_mem_free(self->fd, 0));
	/* Imported into the exporter's own client: a new handle. */
	ASSERT_EQ(0, st_import_fd(self->fd, efd, &h2));
	EXPECT_NE(h, h2);
	ASSERT_EQ(0, st_mem_info(self->fd, h2, &info));
	EXPECT_EQ(0, info.out_device);
	EXPECT_EQ(self->gran, info.out_length);
	EXPECT_EQ(CUMC_HANDLE_FD, info.out_handle_types);
	EXPECT_EQ(0, st_release(self->fd, h2));
	EXPECT_EQ(free_before - (long long)self->gran,
		  st_mem_free(self->fd, 0));
	EXPECT_EQ(0, close(efd));
	EXPECT_EQ(free_before, st_mem_free(self->fd, 0));
}

TEST_F(sharing, fd_exports_cloexec_and_distinct)
{
	int efd[2], i;
	__u64 h, h2;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran,
				   &h));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, st_export_fd(self->fd, h, &efd[i]));
		EXPECT_EQ(FD_CLOEXEC, fcntl(efd[i], F_GETFD) & FD_CLOEXEC);
	}
	EXPECT_NE(efd[0], efd[1]);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, st_import_fd(self->fd, efd[i], &h2));
		EXPECT_EQ(0, st_release(self->fd, h2));
		EXPECT_EQ(0, close(efd[i]));
	}
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(sharing, import_closed_fds_refused)
{
	__u64 h, out = 0;
	int efd;

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FD, self->gran,
				   &h));
	ASSERT_EQ(0, st_export_fd(self->fd, h, &efd));
	EXPECT_EQ(0, close(efd));
	EXPECT_EQ(-EBADF, st_import_fd(self->fd, efd, &out));
	EXPECT_EQ(-EBADF, st_import_fd(self->fd, -1, &out));
	EXPECT_EQ(-EBADF, st_import_fd(self->fd, 1 << 20, &out));
	EXPECT_EQ(0, out);
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(sharing, import_other_files_refused)
{
	char tmp[] = "/tmp/cumc_sharing.XXXXXX";
	int fds[6], n = 0, i, pipefd[2];
	__u64 out = 0;

	fds[n] = mkstemp(tmp);
	ASSERT_LE(0, fds[n]);
	unlink(tmp);
	n++;
	fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fds[n++]);
	/* /dev/cumc itself, this test's client and another. */
	fds[n++] = self->fd;
	fds[n] = st_open();
	ASSERT_LE(0, fds[n++]);
	fds[n] = open_channel(0);
	ASSERT_LE(0, fds[n++]);
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	close(pipefd[1]);
	fds[n++] = pipefd[0];

	for (i = 0; i < n; i++)
		EXPECT_EQ(-EBADFD, st_import_fd(self->fd, fds[i], &out))
			TH_LOG("file %d", i);
	EXPECT_EQ(0, out);
	for (i = 0; i < n; i++)
		if (fds[i] != self->fd)
			close(fds[i]);
}

/* Only the handle types named at creation can be exported. */
TEST_F(sharing, export_needs_the_handle_type)
{
	const __u32 types[] = { 0, CUMC_HANDLE_FD, CUMC_HANDLE_FABRIC };
	__u8 fh[FH_SIZE];
	size_t i;
	int efd;
	__u64 h;

	ASSERT_EQ(0, attach(self->fd, 0));
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ASSERT_EQ(0, st_mem_create(self->fd, 0, types[i],
					   self->gran, &h));
		if (!(types[i] & CUMC_HANDLE_FD))
			EXPECT_EQ(-EPERM, st_export_fd(self->fd, h, &efd))
				TH_LOG("types 0x%x", types[i]);
		if (!(types[i] & CUMC_HANDLE_FABRIC))
			EXPECT_EQ(-EPERM, st_export_fabric(self->fd, h, fh))
				TH_LOG("types 0x%x", types[i]);
		EXPECT_EQ(0, st_release(self->fd, h));
		/* Gone: unknown like any other handle. */
		EXPECT_EQ(-ENOENT, st_export_fd(self->fd, h, &efd));
		EXPECT_EQ(-ENOENT, st_export_fabric(self->fd, h, fh));
	}
}

TEST_F(sharing, export_other_clients_handle_refused)
{
	__u8 fh[FH_SIZE];
	int other, efd;
	__u64 h;

	other = open_on_channel(0);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, attach(self->fd, 0));
	ASSERT_EQ(0, st_mem_create(other, 0,
				   CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC,
				   self->gran, &h));
	EXPECT_EQ(-ENOENT, st_export_fd(self->fd, h, &efd));
	EXPECT_EQ(-ENOENT, st_export_fabric(self->fd, h, fh));
	EXPECT_EQ(0, close(other));
}

/* IMEX channels */

TEST_F(sharing, attach_channel)
{
	struct cumc_attach_channel a = { .size = sizeof(a), .flags = 1 };
	int ch, other;
	__u32 n = ~0u;

	ch = open_channel(0);
	ASSERT_LE(0, ch);
	a.fd = ch;
	EXPECT_EQ(-EOPNOTSUPP, st_ioctl(self->fd, CUMC_ATTACH_CHANNEL, &a));
	/* Not a channel: /dev/cumc, a closed descriptor. */
	other = st_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(-EBADFD, st_attach_channel(self->fd, other, &n));
	EXPECT_EQ(0, close(other));
	EXPECT_EQ(-EBADF, st_attach_channel(self->fd, other, &n));
	EXPECT_EQ(~0u, n);

	EXPECT_EQ(0, st_attach_channel(self->fd, ch, &n));
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, close(ch));
	/* Once per client, whichever channel. */
	EXPECT_EQ(-EBUSY, attach(self->fd, 0));
	if (self->channels > 1)
		EXPECT_EQ(-EBUSY, attach(self->fd, 1));
}

TEST_F(sharing, no_channel_no_fabric)
{
	struct cumc_mc_create mc = {
		.size = sizeof(mc),
		.num_devices = 1,
		.handle_types = CUMC_HANDLE_FABRIC,
		.length = self->mc_gran,
	};
	__u8 fh[FH_SIZE];
	__u64 h, h2, hx;
	int other, efd;

	EXPECT_EQ(-EPERM, st_mem_create(self->fd, 0, CUMC_HANDLE_FABRIC,
					self->gran, &h));
	EXPECT_EQ(-EPERM, st_ioctl(self->fd, CUMC_MC_CREATE, &mc));

	/* Made on channel 0 by another client, shared both ways. */
	other = open_on_channel(0);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_mem_create(other, 0,
				   CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC,
				   self->gran, &h));
	ASSERT_EQ(0, st_export_fabric(other, h, fh));
	EXPECT_EQ(-EPERM, try_import_fabric(self->fd, fh));
	ASSERT_EQ(0, st_export_fd(other, h, &efd));
	ASSERT_EQ(0, st_import_fd(self->fd, efd, &h2));
	EXPECT_EQ(0, close(efd));
	/* The fd gives the memory, not the right to use fabric handles. */
	EXPECT_EQ(-EPERM, st_export_fabric(self->fd, h2, fh));
	EXPECT_EQ(0, st_release(self->fd, h2));

	/* Attaching a channel later grants it. */
	ASSERT_EQ(0, attach(self->fd, 0));
	EXPECT_EQ(0, st_import_fabric(self->fd, fh, &hx));
	EXPECT_EQ(0, st_release(self->fd, hx));
	EXPECT_EQ(0, close(other));
}

/* Fabric handles */

/*
 * Attaches self->fd to channel 0, makes fabric memory of one granule on
 * device 0 (@h), maps it at @addr, writes probe_fill(SEED) there and exports
 * its fabric handle into @fh.
 */
static void export_filled_fabric(struct __test_metadata *_metadata,
				 FIXTURE_DATA(sharing) *self, __u8 *fh,
				 __u64 *h, __u64 *addr)
{
	ASSERT_EQ(0, attach(self->fd, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FABRIC,
				   self->gran, h));
	ASSERT_EQ(0, st_map_new(self->fd, *h, self->gran, 0,
				CUMC_ACCESS_READWRITE, addr));
	probe_fill(*addr, self->gran, SEED);
	ASSERT_EQ(0, st_export_fabric(self->fd, *h, fh));
}

/* The major /proc/devices lists for @name, or -1. */
static int proc_devices_major(const char *name)
{
	char line[128], found[64];
	int major = -1, m;
	FILE *f;

	f = fopen("/proc/devices", "re");
	if (!f)
		return -1;
	while (major < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %63s", &m, found) == 2 &&
		    !strcmp(found, name))
			major = m;
	fclose(f);
	return major;
}

/* A new client attached through the node at @path: its channel, or -errno. */
static int attach_through(const char *path)
{
	__u32 n = ~0u;
	int fd, ch, ret;

	ch = open(path, O_RDONLY | O_CLOEXEC);
	if (ch < 0)
		return -errno;
	fd = st_open();
	ret = fd < 0 ? fd : st_attach_channel(fd, ch, &n);
	close(ch);
	if (fd >= 0)
		close(fd);
	return ret ? ret : (int)n;
}

/*
 * Every channel has a node under NVIDIA's name too, of the major that
 * /proc/devices names as NVIDIA's driver does, and it opens the same
 * channel; so does a node made with mknod (as setup scripts and container
 * runtimes make them) in another directory.
 */
TEST_F(sharing, nvidia_channel_names)
{
	char path[64], dir[] = "/tmp/cumc_sharing.XXXXXX";
	__u8 fh[FH_SIZE];
	__u64 h, h2, addr;
	int major, other, ch;
	struct stat st;
	unsigned int n;

	major = proc_devices_major(NVIDIA_CHANNEL_REGION);
	ASSERT_LT(0, major);
	EXPECT_NE(major, proc_devices_major("cumc-imex"));
	for (n = 0; n < self->channels; n++) {
		snprintf(path, sizeof(path), NVIDIA_CHANNEL_PATH, n);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_TRUE(S_ISCHR(st.st_mode));
		EXPECT_EQ(major, major(st.st_rdev));
		EXPECT_EQ(n, minor(st.st_rdev));
		EXPECT_EQ(n, attach_through(path));
	}
	snprintf(path, sizeof(path), NVIDIA_CHANNEL_PATH,
		 (unsigned int)self->channels);
	EXPECT_NE(0, access(path, F_OK));

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/channel", dir);
	n = self->channels - 1;
	EXPECT_EQ(0, mknod(path, S_IFCHR | 0600, makedev(major, n)));
	EXPECT_EQ(n, attach_through(path));
	unlink(path);
	rmdir(dir);

	/* Channel 0 by cumc's name and by NVIDIA's: one channel. */
	export_filled_fabric(_metadata, self, fh, &h, &addr);
	other = st_open();
	ASSERT_LE(0, other);
	snprintf(path, sizeof(path), NVIDIA_CHANNEL_PATH, 0);
	ch = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ch);
	ASSERT_EQ(0, st_attach_channel(other, ch, NULL));
	EXPECT_EQ(0, close(ch));
	ASSERT_EQ(0, st_import_fabric(other, fh, &h2));
	EXPECT_EQ(0, st_release(other, h2));
	EXPECT_EQ(0, close(other));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(0, st_release(self->fd, h));
}

TEST_F(sharing, fabric_handle_layout_and_roundtrip)
{
	__u8 fh[FH_SIZE], again[FH_SIZE], zero[8] = { 0 };
	__u64 h, h2, addr;
	__u32 channel;
	int other;

	export_filled_fabric(_metadata, self, fh, &h, &addr);
	EXPECT_EQ(0, memcmp(fh, "CUMF", 4));
	memcpy(&channel, fh + FH_CHANNEL, sizeof(channel));
	EXPECT_EQ(0, channel);
	EXPECT_EQ(0, memcmp(fh + 56, zero, sizeof(zero)));
	ASSERT_EQ(0, st_export_fabric(self->fd, h, again));
	EXPECT_EQ(0, memcmp(fh, again, FH_SIZE));

	other = open_on_channel(0);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_import_fabric(other, fh, &h2));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(0, st_release(self->fd, h));
	/* The importer's handle holds the object; the handle still imports. */
	EXPECT_EQ(0, try_import_fabric(self->fd, fh));
	ASSERT_EQ(0, st_map_new(other, h2, self->gran, 0,
				CUMC_ACCESS_READWRITE, &addr));
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, SEED));
	EXPECT_EQ(0, st_unmap_free(other, addr, self->gran));
	EXPECT_EQ(0, st_release(other, h2));
	EXPECT_EQ(-ENOENT, try_import_fabric(self->fd, fh));
	EXPECT_EQ(0, close(other));
}

/* Every byte of a fabric handle counts: any change imports nothing. */
TEST_F(sharing, forged_fabric_handles_refused)
{
	const __u8 masks[] = { 0x01, 0x80, 0xff };
	__u8 fh[FH_SIZE], forged[FH_SIZE];
	int other, i;
	size_t m;
	__u64 h;

	ASSERT_EQ(0, attach(self->fd, 0));
	other = open_on_channel(0);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FABRIC,
				   self->gran, &h));
	ASSERT_EQ(0, st_export_fabric(self->fd, h, fh));
	EXPECT_EQ(0, try_import_fabric(other, fh));

	/* magic, channel, instance, id, secret, trailing zero: every byte */
	for (i = 0; i < FH_SIZE; i++) {
		for (m = 0; m < ARRAY_SIZE(masks); m++) {
			memcpy(forged, fh, FH_SIZE);
			forged[i] ^= masks[m];
			EXPECT_EQ(-ENOENT, try_import_fabric(other, forged))
				TH_LOG("byte %d ^ 0x%02x", i, masks[m]);
		}
	}
	memset(forged, 0, FH_SIZE);
	EXPECT_EQ(-ENOENT, try_import_fabric(other, forged));
	memset(forged, 0xff, FH_SIZE);
	EXPECT_EQ(-ENOENT, try_import_fabric(other, forged));
	EXPECT_EQ(0, try_import_fabric(other, fh));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, close(other));
}

/*
 * Once its object is gone, a fabric handle imports nothing, also when its
 * id names a live object: ids are handed out cyclically and do not come
 * back soon, so the old handle is spliced with a new object's id.
 */
TEST_F(sharing, stale_fabric_handles_refused)
{
	__u8 old[FH_SIZE], fresh[FH_SIZE], spliced[FH_SIZE];
	__u64 h, addr;

	ASSERT_EQ(0, attach(self->fd, 0));
	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FABRIC,
				   self->gran, &h));
	ASSERT_EQ(0, st_export_fabric(self->fd, h, old));
	/* A mapping keeps it importable after the handle is released. */
	ASSERT_EQ(0, st_map_new(self->fd, h, self->gran, 0,
				CUMC_ACCESS_READWRITE, &addr));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(0, try_import_fabric(self->fd, old));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(-ENOENT, try_import_fabric(self->fd, old));

	ASSERT_EQ(0, st_mem_create(self->fd, 0, CUMC_HANDLE_FABRIC,
				   self->gran, &h));
	ASSERT_EQ(0, st_export_fabric(self->fd, h, fresh));
	EXPECT_NE(0, memcmp(old + FH_ID, fresh + FH_ID, FH_SIZE - FH_ID));
	memcpy(spliced, old, FH_SIZE);
	memcpy(spliced + FH_ID, fresh + FH_ID, 8);
	EXPECT_EQ(-ENOENT, try_import_fabric(self->fd, spliced));
	EXPECT_EQ(-ENOENT, try_import_fabric(self->fd, old));
	EXPECT_EQ(0, try_import_fabric(self->fd, fresh));
	EXPECT_EQ(0, st_release(self->fd, h));
	EXPECT_EQ(-ENOENT, try_import_fabric(self->fd, fresh));
}

/* A handle exported on channel 1 is for clients on channel 1 only. */
TEST_F(sharing, fabric_channel_must_match)
{
	__u8 fh[FH_SIZE], forged[FH_SIZE];
	__u32 channel;
	int on1, on1b;
	__u64 h;

	if (self->channels < 2)
		SKIP(return, "imex_channels=%ld", self->channels);
	on1 = open_on_channel(1);
	ASSERT_LE(0, on1);
	on1b = open_on_channel(1);
	ASSERT_LE(0, on1b);
	ASSERT_EQ(0, attach(self->fd, 0));
	ASSERT_EQ(0, st_mem_create(on1, 0, CUMC_HANDLE_FABRIC, self->gran,
				   &h));
	ASSERT_EQ(0, st_export_fabric(on1, h, fh));
	memcpy(&channel, fh + FH_CHANNEL, sizeof(channel));
	EXPECT_EQ(1, channel);

	EXPECT_EQ(-EPERM, try_import_fabric(self->fd, fh));
	/* Relabelled for channel 0, it is a forgery. */
	memcpy(forged, fh, FH_SIZE);
	forged[FH_CHANNEL] = 0;
	EXPECT_EQ(-ENOENT, try_import_fabric(self->fd, forged));
	EXPECT_EQ(0, try_import_fabric(on1b, fh));
	EXPECT_EQ(0, close(on1));
	/* The creator's close released the only handle. */
	EXPECT_EQ(-ENOENT, try_import_fabric(on1b, fh));
	EXPECT_EQ(0, close(on1b));
}

/*
 * A child of another user: the channel node's mode decides whether it can
 * attach the channel and so import fabric handles.
 */
static int unprivileged_importer(const __u8 *fh, __u64 length,
				 bool may_open)
{
	int fd, ch;
	__u64 h, addr;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return 10;
	fd = st_open();
	if (fd < 0)
		return 11;
	ch = open_channel(0);
	if (!may_open) {
		if (ch >= 0 || errno != EACCES)
			return 12;
		if (st_mem_create(fd, 0, CUMC_HANDLE_FABRIC, length, &h) !=
		    -EPERM)
			return 13;
		return try_import_fabric(fd, fh) == -EPERM ? 0 : 14;
	}
	if (ch < 0 || st_attach_channel(fd, ch, NULL))
		return 15;
	close(ch);
	if (st_import_fabric(fd, fh, &h))
		return 16;
	if (st_map_new(fd, h, length, 0, CUMC_ACCESS_READWRITE, &addr) ||
	    probe_mismatches(addr, length, SEED))
		return 17;
	return 0;
}

TEST_F(sharing, other_user_needs_channel_permission)
{
	__u8 fh[FH_SIZE];
	struct stat st;
	__u64 h, addr;
	pid_t pid;

	snprintf(self->mode_path, sizeof(self->mode_path), CHANNEL_PATH, 0);
	ASSERT_EQ(0, stat(self->mode_path, &st));
	export_filled_fabric(_metadata, self, fh, &h, &addr);

	self->mode = st.st_mode & 07777;
	self->restore_mode = true;
	ASSERT_EQ(0, chmod(self->mode_path, 0600));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged_importer(fh, self->gran, false));
	EXPECT_EQ(0, st_wait_exit(pid));

	ASSERT_EQ(0, chmod(self->mode_path, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(unprivileged_importer(fh, self->gran, true));
	EXPECT_EQ(0, st_wait_exit(pid));

	EXPECT_EQ(0, chmod(self->mode_path, self->mode));
	self->restore_mode = false;
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* A fabric handle is plain bytes: any channel of transport will do. */
TEST_F(sharing, fabric_handle_to_another_process)
{
	__u8 fh[FH_SIZE];
	int sv[2];
	__u64 h, addr;
	pid_t pid;

	ASSERT_EQ(0, socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int fd = open_on_channel(0);
		char c;

		close(sv[0]);
		if (fd < 0 ||
		    st_mem_create(fd, 0, CUMC_HANDLE_FABRIC, self->gran, &h))
			_exit(1);
		if (st_map_new(fd, h, self->gran, 0, CUMC_ACCESS_READWRITE,
			       &addr))
			_exit(2);
		probe_fill(addr, self->gran, SEED);
		if (st_export_fabric(fd, h, fh) ||
		    write(sv[1], fh, FH_SIZE) != FH_SIZE)
			_exit(3);
		/* Hold the object until the importer has its own handle. */
		_exit(read(sv[1], &c, 1) == 1 ? 0 : 4);
	}
	close(sv[1]);
	ASSERT_EQ(FH_SIZE, read(sv[0], fh, FH_SIZE));
	ASSERT_EQ(0, attach(self->fd, 0));
	ASSERT_EQ(0, st_import_fabric(self->fd, fh, &h));
	ASSERT_EQ(1, write(sv[0], "x", 1));
	EXPECT_EQ(0, st_wait_exit(pid));
	close(sv[0]);
	ASSERT_EQ(0, st_map_new(self->fd, h, self->gran, 0,
				CUMC_ACCESS_READWRITE, &addr));
	EXPECT_EQ(0, probe_mismatches(addr, self->gran, SEED));
	EXPECT_EQ(0, st_unmap_free(self->fd, addr, self->gran));
	EXPECT_EQ(0, st_release(self->fd, h));
}

/* Multicast objects share the same way as allocations. */
TEST_F(sharing, multicast_objects_shared)
{
	struct cumc_mc_create mc = {
		.size = sizeof(mc),
		.num_devices = 2,
		.handle_types = CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC,
		.length = self->mc_gran,
	};
	struct cumc_mc_info info = { .size = sizeof(info) };
	__u64 h_fd, h_fabric;
	__u8 fh[FH_SIZE];
	int other, efd;

	ASSERT_EQ(0, attach(self->fd, 0));
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MC_CREATE, &mc));
	other = open_on_channel(0);
	ASSERT_LE(0, other);

	ASSERT_EQ(0, st_export_fd(self->fd, mc.out_handle, &efd));
	ASSERT_EQ(0, st_import_fd(other, efd, &h_fd));
	EXPECT_EQ(0, close(efd));
	ASSERT_EQ(0, st_export_fabric(self->fd, mc.out_handle, fh));
	ASSERT_EQ(0, st_import_fabric(other, fh, &h_fabric));
	EXPECT_EQ(0, st_release(self->fd, mc.out_handle));

	info.handle = h_fd;
	ASSERT_EQ(0, st_ioctl(other, CUMC_MC_INFO, &info));
	EXPECT_EQ(2, info.out_num_devices);
	EXPECT_EQ(self->mc_gran, info.out_length);
	EXPECT_EQ(CUMC_HANDLE_FD | CUMC_HANDLE_FABRIC, info.out_handle_types);
	info.handle = h_fabric;
	EXPECT_EQ(0, st_ioctl(other, CUMC_MC_INFO, &info));
	EXPECT_EQ(0, st_release(other, h_fd));
	EXPECT_EQ(0, st_release(other, h_fabric));
	EXPECT_EQ(-ENOENT, try_import_fabric(other, fh));

	/* Without the fd type, no fd. */
	mc.handle_types = CUMC_HANDLE_FABRIC;
	ASSERT_EQ(0, st_ioctl(self->fd, CUMC_MC_CREATE, &mc));
	EXPECT_EQ(-EPERM, st_export_fd(self->fd, mc.out_handle, &efd));
	EXPECT_EQ(0, st_release(self->fd, mc.out_handle));
	EXPECT_EQ(0, close(other));
}

TEST_HARNESS_MAIN
