// SPDX-License-Identifier: MIT
/*
 * cuMemExportToShareableHandle and cuMemImportFromShareableHandle between
 * processes (runs in the VM, as root), and the IMEX channel cuInit
 * attaches.
 *
 * Every participant is a forked child that calls cuInit for itself, as
 * separate programs would; the test process only hands out sockets, waits
 * and checks that the module's count of live objects is back where it
 * started. Children report through their exit status (child.h).
 */
#include <check.h>
#include <cuda.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"
#include "child.h"
#include "fdpass.h"
#include "probe.h"

#define OBJECTS_PATH "/sys/kernel/debug/cumc/objects"
#define CHANNEL_PATH "/dev/cumc-imex-channels/channel%d"
/* The same channels under NVIDIA's name (Documentation/sharing.md). */
#define NVIDIA_CHANNEL_PATH "/dev/nvidia-caps-imex-channels/channel%d"
/* An unprivileged user and group that exist on every Debian system. */
#define NOBODY 65534
#define SEED 0x0123456789abcdefULL
#define FH_SIZE sizeof(CUmemFabricHandle)

/* Offsets of the fabric handle's parts (Documentation/sharing.md). */
#define FH_MAGIC 0
#define FH_CHANNEL 4
#define FH_INSTANCE 8
#define FH_ID 16
#define FH_SECRET 24
#define FH_ZERO 56

static char baseline[512];

/* The whole count file: every kind of object the module counts. */
static void read_counts(char *buf, size_t len)
{
	ssize_t n = -1;
	int fd;

	fd = open(OBJECTS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
}

static void setup(void)
{
	read_counts(baseline, sizeof(baseline));
	ck_assert_msg(baseline[0], "cannot read %s", OBJECTS_PATH);
}

static void teardown(void)
{
	char now[sizeof(baseline)];

	read_counts(now, sizeof(now));
	ck_assert_str_eq(baseline, now);
}

/* Run @body(@sock, @arg) in a child; the child exits with what it returns. */
static pid_t spawn(int (*body)(int sock, const void *arg), int sock,
		   const void *arg)
{
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(body(sock, arg));
	return pid;
}

static int exit_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define ck_assert_child_ok(pid)						\
	ck_assert_msg(exit_status(pid) == 0, "a child failed (see stderr)")

static void socket_pair(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
}

static void *as_os_handle(int fd)
{
	return (void *)(uintptr_t)fd;
}

static CUmemAllocationProp prop_of(CUmemAllocationHandleType types)
{
	CUmemAllocationProp prop;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	prop.requestedHandleTypes = types;
	return prop;
}

static size_t granularity(void)
{
	CUmemAllocationProp prop = prop_of(CU_MEM_HANDLE_TYPE_NONE);
	size_t gran = 0;

	if (cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM))
		return 0;
	return gran;
}

static CUresult create(CUmemGenericAllocationHandle *h, size_t size,
		       CUmemAllocationHandleType types)
{
	CUmemAllocationProp prop = prop_of(types);

	return cuMemCreate(h, size, &prop, 0);
}

/* Reserve, map and grant device 0 read-write access: the importer's way. */
static CUresult map_rw(CUmemGenericAllocationHandle h, size_t size,
		       CUdeviceptr *ptr)
{
	CUmemAccessDesc access;
	CUresult res;

	memset(&access, 0, sizeof(access));
	access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	access.location.id = 0;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	res = cuMemAddressReserve(ptr, size, 0, 0, 0);
	if (res != CUDA_SUCCESS)
		return res;
	res = cuMemMap(*ptr, size, 0, h, 0);
	if (res == CUDA_SUCCESS)
		res = cuMemSetAccess(*ptr, size, &access, 1);
	return res;
}

static CUresult unmap(CUdeviceptr ptr, size_t size)
{
	CUresult res = cuMemUnmap(ptr, size);

	return res != CUDA_SUCCESS ? res : cuMemAddressFree(ptr, size);
}

/* Read exactly @len bytes, or fail. */
static bool read_all(int sock, void *buf, size_t len)
{
	return read(sock, buf, len) == (ssize_t)len;
}

static bool wait_byte(int sock)
{
	char c;

	return read(sock, &c, 1) == 1;
}

static bool send_byte(int sock)
{
	return write(sock, "g", 1) == 1;
}

/*
 * In a child: create @size bytes of @types memory, map it read-write at
 * @ptr and write probe_fill(SEED) there (the exporters' start).
 */
static int create_filled(CUmemGenericAllocationHandle *h, size_t size,
			 CUmemAllocationHandleType types, CUdeviceptr *ptr)
{
	CHILD_EXPECT(create(h, size, types) == CUDA_SUCCESS);
	CHILD_EXPECT(map_rw(*h, size, ptr) == CUDA_SUCCESS);
	probe_fill(*ptr, size, SEED);
	return 0;
}

/*
 * In a child: map the imported @h, find probe_fill(SEED) there, then
 * unmap and release it (the importers' end).
 */
static int read_seed_and_release(CUmemGenericAllocationHandle h, size_t size)
{
	CUdeviceptr ptr;

	CHILD_EXPECT(map_rw(h, size, &ptr) == CUDA_SUCCESS);
	CHILD_EXPECT(!probe_mismatches(ptr, size, SEED));
	CHILD_EXPECT(unmap(ptr, size) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

/* Whether @path exists (a channel the module made). */
static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Entry points before cuInit */

START_TEST(everything_needs_init)
{
	CUmemGenericAllocationHandle h = 0;
	CUmemFabricHandle fh;
	int fd = -1;

	memset(&fh, 0, sizeof(fh));
	ck_assert_int_eq(cuMemExportToShareableHandle(&fd, 1,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
			CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemExportToShareableHandle(NULL, 0, 0, 1),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemImportFromShareableHandle(&h, as_os_handle(0),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR),
			CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemImportFromShareableHandle(&h, &fh,
			CU_MEM_HANDLE_TYPE_FABRIC), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(fd, -1);
	ck_assert_uint_eq(h, 0);
}
END_TEST

/* Arguments, in one process */

static int bad_arguments(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h, out = 0;
	CUmemFabricHandle fh;
	size_t gran;
	int fd = -1;

	(void)sock;
	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	CHILD_EXPECT(create(&h, gran, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
			    CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_SUCCESS);

	CHILD_EXPECT(cuMemExportToShareableHandle(NULL, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_FABRIC, 1ULL << 63) ==
		     CUDA_ERROR_INVALID_VALUE);
	/* Defined but Windows-only: not supported; anything else is invalid. */
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_WIN32, 0) ==
		     CUDA_ERROR_NOT_SUPPORTED);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_WIN32_KMT, 0) ==
		     CUDA_ERROR_NOT_SUPPORTED);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_NONE, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
			CU_MEM_HANDLE_TYPE_FABRIC, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			(CUmemAllocationHandleType)0x10, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(fd == -1);
	/* Unknown handles: the documented errors name no other code. */
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, h ^ 0x5a5a0000,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, 0,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) ==
		     CUDA_ERROR_INVALID_VALUE);

	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuMemImportFromShareableHandle(NULL, as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&out, as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_WIN32) == CUDA_ERROR_NOT_SUPPORTED);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&out, as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_NONE) == CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&out, NULL,
			CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_ERROR_INVALID_VALUE);
	/* Not descriptors: negative, and beyond what an int holds. */
	CHILD_EXPECT(cuMemImportFromShareableHandle(&out, (void *)(intptr_t)-1,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&out,
			(void *)(uintptr_t)(1ULL << 32 | (unsigned int)fd),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(out == 0);
	CHILD_EXPECT(close(fd) == 0);
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

START_TEST(arguments_checked)
{
	ck_assert_child_ok(spawn(bad_arguments, -1, NULL));
}
END_TEST

/* POSIX file descriptors over a Unix socket */

/*
 * Makes fd-shareable memory, writes probe_fill(SEED), sends an exported fd over
 * @sock, waits for the importer's word, then releases everything and
 * exits: its end of @sock closing tells the importer it is gone.
 */
static int fd_exporter(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h;
	size_t gran;
	CUdeviceptr ptr;
	int fd;

	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	CHILD_EXPECT(!create_filled(&h, gran,
				    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
				    &ptr));
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT((fcntl(fd, F_GETFD) & FD_CLOEXEC) == FD_CLOEXEC);
	CHILD_EXPECT(fdpass_send(sock, fd) == 0);
	CHILD_EXPECT(close(fd) == 0);
	CHILD_EXPECT(wait_byte(sock));
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	CHILD_EXPECT(unmap(ptr, gran) == CUDA_SUCCESS);
	return 0;
}

static int fd_importer(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h;
	CUdeviceptr ptr;
	size_t gran;
	int fd;

	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	fd = fdpass_recv(sock);
	CHILD_EXPECT(fd >= 0);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&h, as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(close(fd) == 0);
	CHILD_EXPECT(map_rw(h, gran, &ptr) == CUDA_SUCCESS);
	CHILD_EXPECT(!probe_mismatches(ptr, gran, SEED));

	/* The exporter releases everything and exits: EOF on the socket. */
	CHILD_EXPECT(send_byte(sock));
	CHILD_EXPECT(!wait_byte(sock));
	CHILD_EXPECT(!probe_mismatches(ptr, gran, SEED));
	probe_fill(ptr, gran, ~SEED);
	CHILD_EXPECT(!probe_mismatches(ptr, gran, ~SEED));
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	CHILD_EXPECT(!probe_mismatches(ptr, gran, ~SEED));
	CHILD_EXPECT(unmap(ptr, gran) == CUDA_SUCCESS);
	return 0;
}

START_TEST(fd_over_unix_socket)
{
	pid_t exporter, importer;
	int sv[2];

	socket_pair(sv);
	exporter = spawn(fd_exporter, sv[0], NULL);
	/* Only the exporter holds its end: its exit is the importer's EOF. */
	close(sv[0]);
	importer = spawn(fd_importer, sv[1], NULL);
	close(sv[1]);
	ck_assert_child_ok(exporter);
	ck_assert_child_ok(importer);
}
END_TEST

/* Imports of descriptors that are not, or no longer, cumc exports. */
static int wrong_fds(int sock, const void *arg)
{
	char tmp[] = "/tmp/test_share.XXXXXX";
	CUmemGenericAllocationHandle h, out = 0;
	int fds[5], n = 0, i, fd;

	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(create(&h, granularity(),
			    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(close(fd) == 0);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&out, as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_ERROR_INVALID_VALUE);

	fds[n] = mkstemp(tmp);
	CHILD_EXPECT(fds[n++] >= 0);
	unlink(tmp);
	fds[n++] = sock;
	fds[n] = open("/dev/cumc", O_RDWR | O_CLOEXEC);
	CHILD_EXPECT(fds[n++] >= 0);
	fds[n] = open("/dev/cumc-imex-channels/channel0", O_RDONLY | O_CLOEXEC);
	CHILD_EXPECT(fds[n++] >= 0);
	fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHILD_EXPECT(fds[n++] >= 0);
	for (i = 0; i < n; i++) {
		if (cuMemImportFromShareableHandle(&out, as_os_handle(fds[i]),
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) !=
		    CUDA_ERROR_INVALID_VALUE) {
			fprintf(stderr, "file %d imported\n", i);
			return 1;
		}
	}
	CHILD_EXPECT(out == 0);
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

START_TEST(fd_imports_of_other_files_refused)
{
	int sv[2];
	pid_t pid;

	socket_pair(sv);
	pid = spawn(wrong_fds, sv[0], NULL);
	close(sv[0]);
	close(sv[1]);
	ck_assert_child_ok(pid);
}
END_TEST

/* Only the handle types requested at creation export. */
static int types_not_requested(int sock, const void *arg)
{
	CUmemGenericAllocationHandle none, fd_only, fabric_only;
	CUmemFabricHandle fh;
	size_t gran;
	int fd = -1;

	(void)sock;
	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	CHILD_EXPECT(create(&none, gran, CU_MEM_HANDLE_TYPE_NONE) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(create(&fd_only, gran,
			    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(create(&fabric_only, gran, CU_MEM_HANDLE_TYPE_FABRIC) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, none,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, none,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, fd_only,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, fabric_only,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_ERROR_INVALID_VALUE);
	CHILD_EXPECT(fd == -1);
	CHILD_EXPECT(cuMemRelease(none) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(fd_only) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(fabric_only) == CUDA_SUCCESS);
	return 0;
}

START_TEST(export_of_type_not_requested_refused)
{
	ck_assert_child_ok(spawn(types_not_requested, -1, NULL));
}
END_TEST

/* Fabric handles */

/*
 * Makes fabric memory (on the channel cuInit attached, or the one @arg
 * names), writes probe_fill(SEED), sends the fabric handle's bytes and keeps the
 * object until told to go.
 */
static int fabric_exporter(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h;
	CUmemFabricHandle fh, again;
	CUdeviceptr ptr;
	size_t gran;

	if (arg)
		setenv("CUMC_IMEX_CHANNEL", arg, 1);
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	CHILD_EXPECT(!create_filled(&h, gran, CU_MEM_HANDLE_TYPE_FABRIC, &ptr));
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&again, h,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(memcmp(&fh, &again, FH_SIZE) == 0);
	CHILD_EXPECT(write(sock, &fh, FH_SIZE) == (ssize_t)FH_SIZE);
	CHILD_EXPECT(wait_byte(sock));
	CHILD_EXPECT(unmap(ptr, gran) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

/* Imports @arg (a fabric handle), maps it and reads probe_fill(SEED). */
static int fabric_importer(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h;
	size_t gran;

	(void)sock;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	CHILD_EXPECT(cuMemImportFromShareableHandle(&h, (void *)arg,
			CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_SUCCESS);
	return read_seed_and_release(h, gran);
}

/* An import of a fabric handle and what it must answer. */
struct expected_import {
	const CUmemFabricHandle *fh;
	const char *channel;	/* CUMC_IMEX_CHANNEL, or NULL */
	CUresult result;
};

static int import_answers(int sock, const void *arg)
{
	const struct expected_import *e = arg;
	CUmemGenericAllocationHandle h = 0;

	(void)sock;
	if (e->channel)
		setenv("CUMC_IMEX_CHANNEL", e->channel, 1);
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&h, (void *)e->fh,
			CU_MEM_HANDLE_TYPE_FABRIC) == e->result);
	if (e->result != CUDA_SUCCESS) {
		CHILD_EXPECT(h == 0);
		return 0;
	}
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

/* Start fabric_exporter on @channel; its handle lands in @fh. */
static pid_t start_fabric_exporter(int sv[2], const char *channel,
				   CUmemFabricHandle *fh)
{
	pid_t pid;

	socket_pair(sv);
	pid = spawn(fabric_exporter, sv[1], channel);
	close(sv[1]);
	ck_assert(read_all(sv[0], fh, FH_SIZE));
	return pid;
}

static void stop_fabric_exporter(int sv[2], pid_t pid)
{
	ck_assert(send_byte(sv[0]));
	close(sv[0]);
	ck_assert_child_ok(pid);
}

START_TEST(fabric_handle_between_processes)
{
	CUmemFabricHandle fh;
	pid_t exporter;
	int sv[2];

	exporter = start_fabric_exporter(sv, NULL, &fh);
	ck_assert_child_ok(spawn(fabric_importer, -1, &fh));
	stop_fabric_exporter(sv, exporter);
}
END_TEST

/* Each part altered: magic, channel, instance, id, secret, trailing zero. */
START_TEST(forged_fabric_handles_refused)
{
	const size_t bytes[] = {
		FH_MAGIC, FH_MAGIC + 3, FH_CHANNEL, FH_CHANNEL + 3,
		FH_INSTANCE, FH_INSTANCE + 7, FH_ID, FH_ID + 4, FH_ID + 7,
		FH_SECRET, FH_SECRET + 16, FH_ZERO - 1, FH_ZERO, FH_SIZE - 1,
	};
	struct expected_import r = { .result = CUDA_ERROR_INVALID_VALUE };
	CUmemFabricHandle fh, forged;
	pid_t exporter;
	size_t i;
	int sv[2];

	exporter = start_fabric_exporter(sv, NULL, &fh);
	r.fh = &forged;
	for (i = 0; i < sizeof(bytes) / sizeof(bytes[0]); i++) {
		forged = fh;
		forged.data[bytes[i]] ^= 0x01;
		ck_assert_msg(exit_status(spawn(import_answers, -1, &r)) == 0,
			      "byte %zu altered imports", bytes[i]);
	}
	/* The original still imports. */
	ck_assert_child_ok(spawn(fabric_importer, -1, &fh));
	stop_fabric_exporter(sv, exporter);
}
END_TEST

/*
 * Once the object is gone its handle imports nothing, also with its id
 * set to that of a live object: ids are handed out cyclically, so a reuse
 * is simulated by splicing.
 */
START_TEST(stale_fabric_handles_refused)
{
	struct expected_import r = { .result = CUDA_ERROR_INVALID_VALUE };
	CUmemFabricHandle old, fresh, spliced;
	pid_t exporter;
	int sv[2];

	exporter = start_fabric_exporter(sv, NULL, &old);
	stop_fabric_exporter(sv, exporter);
	r.fh = &old;
	ck_assert_child_ok(spawn(import_answers, -1, &r));

	exporter = start_fabric_exporter(sv, NULL, &fresh);
	spliced = old;
	memcpy(spliced.data + FH_ID, fresh.data + FH_ID, 8);
	r.fh = &spliced;
	ck_assert_child_ok(spawn(import_answers, -1, &r));
	r.fh = &old;
	ck_assert_child_ok(spawn(import_answers, -1, &r));
	ck_assert_child_ok(spawn(fabric_importer, -1, &fresh));
	stop_fabric_exporter(sv, exporter);
}
END_TEST

START_TEST(fabric_channel_must_match)
{
	struct expected_import r = {
		.channel = "0",
		.result = CUDA_ERROR_NOT_PERMITTED,
	};
	CUmemFabricHandle fh;
	pid_t exporter;
	char path[64];
	int sv[2];

	snprintf(path, sizeof(path), CHANNEL_PATH, 1);
	if (!exists(path))
		return;
	exporter = start_fabric_exporter(sv, "1", &fh);
	r.fh = &fh;
	ck_assert_child_ok(spawn(import_answers, -1, &r));
	r.channel = "1";
	r.result = CUDA_SUCCESS;
	ck_assert_child_ok(spawn(import_answers, -1, &r));
	stop_fabric_exporter(sv, exporter);
}
END_TEST

/*
 * A client without a channel (CUMC_IMEX_CHANNEL naming none that can be
 * opened) still works, but every fabric operation is NOT_PERMITTED.
 */
static int channelless(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h, imported, mc;
	const CUmemFabricHandle *fh = arg;
	CUmulticastObjectProp mc_prop;
	CUmemFabricHandle out;
	size_t gran;
	int fd;

	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	CHILD_EXPECT(create(&h, gran, CU_MEM_HANDLE_TYPE_FABRIC) ==
		     CUDA_ERROR_NOT_PERMITTED);
	memset(&mc_prop, 0, sizeof(mc_prop));
	mc_prop.numDevices = 1;
	mc_prop.handleTypes = CU_MEM_HANDLE_TYPE_FABRIC;
	CHILD_EXPECT(cuMulticastGetGranularity(&mc_prop.size, &mc_prop,
			CU_MULTICAST_GRANULARITY_MINIMUM) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMulticastCreate(&mc, &mc_prop) ==
		     CUDA_ERROR_NOT_PERMITTED);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&h, (void *)fh,
			CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_ERROR_NOT_PERMITTED);
	/* An fd gives the memory, not the right to fabric handles. */
	fd = fdpass_recv(sock);
	CHILD_EXPECT(fd >= 0);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&imported,
			as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(close(fd) == 0);
	CHILD_EXPECT(cuMemExportToShareableHandle(&out, imported,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) ==
		     CUDA_ERROR_NOT_PERMITTED);
	CHILD_EXPECT(cuMemRelease(imported) == CUDA_SUCCESS);
	/* Memory without the fabric type is still created. */
	CHILD_EXPECT(create(&h, gran,
			    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

/* Exports memory of both types: its fabric handle to @fh, an fd on @sock. */
static int both_types_exporter(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h;
	CUmemFabricHandle fh;
	int fd;

	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(create(&h, granularity(),
			    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
			    CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, h,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, h,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(write(sock, &fh, FH_SIZE) == (ssize_t)FH_SIZE);
	CHILD_EXPECT(fdpass_send(sock, fd) == 0);
	CHILD_EXPECT(wait_byte(sock));
	CHILD_EXPECT(cuMemRelease(h) == CUDA_SUCCESS);
	return 0;
}

static void check_channelless(const char *channel)
{
	CUmemFabricHandle fh;
	pid_t exporter, pid;
	int sv[2], peer[2], fd;

	socket_pair(sv);
	exporter = spawn(both_types_exporter, sv[1], NULL);
	close(sv[1]);
	ck_assert(read_all(sv[0], &fh, FH_SIZE));
	socket_pair(peer);
	fd = fdpass_recv(sv[0]);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fdpass_send(peer[0], fd), 0);
	close(fd);
	setenv("CUMC_IMEX_CHANNEL", channel, 1);
	pid = spawn(channelless, peer[1], &fh);
	unsetenv("CUMC_IMEX_CHANNEL");
	close(peer[0]);
	close(peer[1]);
	ck_assert_msg(exit_status(pid) == 0, "CUMC_IMEX_CHANNEL=%s", channel);
	ck_assert(send_byte(sv[0]));
	close(sv[0]);
	ck_assert_child_ok(exporter);
}

START_TEST(no_channel_not_permitted)
{
	/* One that does not exist, and values that name none. */
	check_channelless("4096");
	check_channelless("zero");
	check_channelless("-1");
	check_channelless("0x1");
}
END_TEST

/* A child forked after cuInit attaches a channel of its own. */
static int fabric_in_grandchild(int sock, const void *arg)
{
	CUmemGenericAllocationHandle h;
	int status;
	pid_t pid;

	(void)sock;
	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	pid = fork();
	CHILD_EXPECT(pid >= 0);
	if (pid == 0) {
		CHILD_EXPECT(create(&h, 1, CU_MEM_HANDLE_TYPE_FABRIC) ==
			     CUDA_ERROR_NOT_INITIALIZED);
		CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
		CHILD_EXPECT(create(&h, granularity(),
				    CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_SUCCESS);
		_exit(cuMemRelease(h) == CUDA_SUCCESS ? 0 : 1);
	}
	CHILD_EXPECT(waitpid(pid, &status, 0) == pid);
	CHILD_EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return 0;
}

START_TEST(forked_child_attaches_again)
{
	ck_assert_child_ok(spawn(fabric_in_grandchild, -1, NULL));
}
END_TEST

/*
 * Another user: nothing but the channel node's mode stands between it and
 * fabric handles. /dev/cumc itself is 0666.
 */
static int as_nobody(int sock, const void *arg)
{
	const struct expected_import *r = arg;
	CUmemGenericAllocationHandle h = 0;
	size_t gran;

	(void)sock;
	CHILD_EXPECT(setgroups(0, NULL) == 0 && setgid(NOBODY) == 0 &&
		     setuid(NOBODY) == 0);
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	gran = granularity();
	if (r->result != CUDA_SUCCESS) {
		CHILD_EXPECT(create(&h, gran, CU_MEM_HANDLE_TYPE_FABRIC) ==
			     r->result);
		CHILD_EXPECT(cuMemImportFromShareableHandle(&h, (void *)r->fh,
				CU_MEM_HANDLE_TYPE_FABRIC) == r->result);
		CHILD_EXPECT(h == 0);
		return 0;
	}
	CHILD_EXPECT(cuMemImportFromShareableHandle(&h, (void *)r->fh,
			CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_SUCCESS);
	return read_seed_and_release(h, gran);
}

/*
 * chmod every channel node under the name @fmt gives to @mode, keeping
 * the old modes in @saved.
 */
static int chmod_channels(const char *fmt, mode_t mode, mode_t *saved,
			  int max)
{
	struct stat st;
	char path[64];
	int n;

	for (n = 0; n < max; n++) {
		snprintf(path, sizeof(path), fmt, n);
		if (stat(path, &st))
			break;
		if (saved)
			saved[n] = st.st_mode & 07777;
		if (chmod(path, mode))
			return -1;
	}
	return n;
}

static void restore_channels(const char *fmt, const mode_t *saved, int n)
{
	char path[64];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), fmt, i);
		ck_assert_int_eq(chmod(path, saved[i]), 0);
	}
}

/* Whether the module offers its channels under NVIDIA's name too. */
static bool nvidia_names_offered(void)
{
	char value = 'N';
	int fd;

	fd = open("/sys/module/cumc/parameters/nvidia_imex_channels",
		  O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, &value, 1) != 1)
			value = 'N';
		close(fd);
	}
	return value == 'Y';
}

/*
 * Whether nobody may import a fabric handle of channel 0 when every
 * channel node under both names is 0600 but for @door (a node's path),
 * made 0666; no door when NULL. 0 when it gets what is expected.
 */
static int nobody_through(const char *door, const CUmemFabricHandle *fh)
{
	struct expected_import r = {
		.result = door ? CUDA_SUCCESS : CUDA_ERROR_NOT_PERMITTED,
		.fh = fh,
	};
	mode_t saved[256], saved_nvidia[256];
	int n, n_nvidia, n_nvidia_expected, status = -1;

	/*
	 * No ck_assert until the modes are back: a failed one would end
	 * this process and leave the nodes changed.
	 */
	n = chmod_channels(CHANNEL_PATH, 0600, saved, 256);
	n_nvidia = chmod_channels(NVIDIA_CHANNEL_PATH, 0600, saved_nvidia, 256);
	n_nvidia_expected = nvidia_names_offered() ? n : 0;
	if (n > 0 && n_nvidia == n_nvidia_expected &&
	    (!door || chmod(door, 0666) == 0))
		status = exit_status(spawn(as_nobody, -1, &r));
	if (n > 0)
		restore_channels(CHANNEL_PATH, saved, n);
	if (n_nvidia > 0)
		restore_channels(NVIDIA_CHANNEL_PATH, saved_nvidia, n_nvidia);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(n_nvidia, n_nvidia_expected);
	return status;
}

START_TEST(other_user_needs_channel_permission)
{
	char channel0[64];
	CUmemFabricHandle fh;
	pid_t exporter;
	int sv[2];

	snprintf(channel0, sizeof(channel0), CHANNEL_PATH, 0);
	exporter = start_fabric_exporter(sv, "0", &fh);
	ck_assert_msg(nobody_through(NULL, &fh) == 0,
		      "refused while the nodes are 0600");
	ck_assert_msg(nobody_through(channel0, &fh) == 0,
		      "allowed once channel0 is 0666");
	stop_fabric_exporter(sv, exporter);
}
END_TEST

/*
 * The channel under NVIDIA's name is a door of its own, which cuInit
 * finds when cumc's is closed to the process: as a container given only
 * /dev/nvidia-caps-imex-channels/channel0 would have it. With
 * nvidia_imex_channels=0 there is no such door.
 */
START_TEST(nvidia_channel_name_opens_the_same_channel)
{
	char channel0[64];
	CUmemFabricHandle fh;
	pid_t exporter;
	int sv[2];

	snprintf(channel0, sizeof(channel0), NVIDIA_CHANNEL_PATH, 0);
	if (!nvidia_names_offered()) {
		ck_assert_int_ne(access(channel0, F_OK), 0);
		return;
	}
	exporter = start_fabric_exporter(sv, "0", &fh);
	ck_assert_msg(nobody_through(channel0, &fh) == 0,
		      "allowed through %s", channel0);
	stop_fabric_exporter(sv, exporter);
}
END_TEST

/* Multicast objects share like allocations. */
static int mc_exporter(int sock, const void *arg)
{
	CUmulticastObjectProp prop;
	CUmemGenericAllocationHandle mc;
	CUmemFabricHandle fh;
	size_t gran;
	int fd;

	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	memset(&prop, 0, sizeof(prop));
	prop.numDevices = 2;
	prop.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
			   CU_MEM_HANDLE_TYPE_FABRIC;
	CHILD_EXPECT(cuMulticastGetGranularity(&gran, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM) == CUDA_SUCCESS);
	prop.size = gran;
	CHILD_EXPECT(cuMulticastCreate(&mc, &prop) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fh, mc,
			CU_MEM_HANDLE_TYPE_FABRIC, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemExportToShareableHandle(&fd, mc,
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
		     CUDA_SUCCESS);
	/* The creator lets go first, as NCCL and mscclpp should. */
	CHILD_EXPECT(cuMemRelease(mc) == CUDA_SUCCESS);
	CHILD_EXPECT(write(sock, &fh, FH_SIZE) == (ssize_t)FH_SIZE);
	CHILD_EXPECT(fdpass_send(sock, fd) == 0);
	return 0;
}

static int mc_importer(int sock, const void *arg)
{
	CUmemGenericAllocationHandle by_fd, by_fabric;
	CUmemFabricHandle fh;
	int fd;

	(void)arg;
	CHILD_EXPECT(cuInit(0) == CUDA_SUCCESS);
	CHILD_EXPECT(read_all(sock, &fh, FH_SIZE));
	fd = fdpass_recv(sock);
	CHILD_EXPECT(fd >= 0);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&by_fd, as_os_handle(fd),
			CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) ==
		     CUDA_SUCCESS);
	CHILD_EXPECT(close(fd) == 0);
	CHILD_EXPECT(cuMemImportFromShareableHandle(&by_fabric, &fh,
			CU_MEM_HANDLE_TYPE_FABRIC) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMulticastAddDevice(by_fd, 0) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMulticastAddDevice(by_fabric, 1) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(by_fd) == CUDA_SUCCESS);
	CHILD_EXPECT(cuMemRelease(by_fabric) == CUDA_SUCCESS);
	return 0;
}

START_TEST(multicast_objects_shared)
{
	pid_t exporter, importer;
	int sv[2];

	socket_pair(sv);
	exporter = spawn(mc_exporter, sv[0], NULL);
	importer = spawn(mc_importer, sv[1], NULL);
	close(sv[0]);
	close(sv[1]);
	ck_assert_child_ok(exporter);
	ck_assert_child_ok(importer);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sharing");
	TCase *tc = tcase_create("share");

	/* Several processes per test, in an emulated CPU. */
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, everything_needs_init);
	tcase_add_test(tc, arguments_checked);
	tcase_add_test(tc, fd_over_unix_socket);
	tcase_add_test(tc, fd_imports_of_other_files_refused);
	tcase_add_test(tc, export_of_type_not_requested_refused);
	tcase_add_test(tc, fabric_handle_between_processes);
	tcase_add_test(tc, forged_fabric_handles_refused);
	tcase_add_test(tc, stale_fabric_handles_refused);
	tcase_add_test(tc, fabric_channel_must_match);
	tcase_add_test(tc, no_channel_not_permitted);
	tcase_add_test(tc, forked_child_attaches_again);
	tcase_add_test(tc, other_user_needs_channel_permission);
	tcase_add_test(tc, nvidia_channel_name_opens_the_same_channel);
	tcase_add_test(tc, multicast_objects_shared);
	suite_add_tcase(s, tc);
	return check_run(s);
}
