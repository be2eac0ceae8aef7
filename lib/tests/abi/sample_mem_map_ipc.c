// SPDX-License-Identifier: MIT
/*
 * The host code of the CUDA samples' memMapIPCDrv, as its users write it:
 * built against the toolkit's cuda.h and linked with its -lcuda stub, run
 * by lib/tests/abi/samples.sh on libcumc as libcuda.so.1.
 *
 * The parent picks the devices that support VMM and POSIX fd handles and
 * reach each other as peers, makes one allocation on each, exports each
 * as a POSIX fd and sends every fd to one child process per device (a
 * fresh exec of this program, as the sample spawns its children).  Each
 * child imports every allocation, maps them side by side in one
 * reservation, grants its own device access and, on a non-blocking stream,
 * works in rounds: it fills one buffer, synchronizes the stream, meets the
 * others at a barrier, then reads the buffer its neighbour filled with
 * cuMemcpyDtoHAsync and checks every byte.  The fill is the sample's
 * kernel (sample_mem_map_ipc.cu), PTX that nvcc built, which each child
 * loads with cuModuleLoad from the file named on the command line and
 * launches on its stream.  Exit status 0 when every call succeeded and
 * every check held, in every process.
 */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sample_check.h"

#define MAX_PROCESSES 8
#define ROUNDS 3
#define FILL_BLOCKS 16
#define FILL_THREADS 256

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void send_fds(int sock, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(sizeof(int) * MAX_PROCESSES)] = { 0 };
	struct iovec iov = { .iov_base = &n, .iov_len = sizeof(n) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = CMSG_SPACE(sizeof(int) * n),
	};
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int) * n);
	memcpy(CMSG_DATA(cmsg), fds, sizeof(int) * n);
	if (sendmsg(sock, &msg, 0) != sizeof(n))
		die("sendmsg");
}

static int recv_fds(int sock, int *fds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * MAX_PROCESSES)];
	int n = 0;
	struct iovec iov = { .iov_base = &n, .iov_len = sizeof(n) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cmsg;

	if (recvmsg(sock, &msg, 0) != sizeof(n))
		die("recvmsg");
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS || n < 1 || n > MAX_PROCESSES ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int) * n)) {
		fprintf(stderr, "child: no handles received\n");
		exit(1);
	}
	memcpy(fds, CMSG_DATA(cmsg), sizeof(int) * n);
	return n;
}

/* A child's half of the barrier: tell the parent, wait for its go. */
static void barrier_wait(int sock)
{
	char byte = 'b';

	if (write(sock, &byte, 1) != 1 || read(sock, &byte, 1) != 1)
		die("barrier");
}

static unsigned char round_value(int process, int round)
{
	return (unsigned char)(17 * process + 3 * round + 1);
}

/* The kernel stores 16 bytes a thread and a step: sizes are granules. */
static void fill(CUfunction kernel, CUstream stream, CUdeviceptr buf,
		 size_t size, unsigned char value)
{
	unsigned long long vectors = size / 16;
	void *args[] = { &buf, &vectors, &value };

	CHECK(cuLaunchKernel(kernel, FILL_BLOCKS, 1, 1, FILL_THREADS, 1, 1, 0,
			     stream, args, NULL));
}

static int child(int index, CUdevice device, int sock, const char *ptx)
{
	CUmemGenericAllocationHandle handle;
	CUmemAccessDesc access = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, device },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	int fds[MAX_PROCESSES], n, i, round;
	unsigned char *check;
	size_t size, offset;
	CUfunction kernel;
	CUmodule module;
	CUdeviceptr va;
	CUcontext ctx;
	CUstream stream;
	CUdevice dev;

	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, device));
	CHECK(cuCtxCreate(&ctx, NULL, 0, dev));
	CHECK(cuModuleLoad(&module, ptx));
	CHECK(cuModuleGetFunction(&kernel, module, "memMapIpc_kernel"));
	n = recv_fds(sock, fds);
	if (read(sock, &size, sizeof(size)) != sizeof(size))
		die("read size");

	CHECK(cuMemAddressReserve(&va, size * n, 0, 0, 0));
	for (i = 0; i < n; i++) {
		CHECK(cuMemImportFromShareableHandle(&handle,
				(void *)(uintptr_t)fds[i],
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
		CHECK(cuMemMap(va + size * i, size, 0, handle, 0));
		CHECK(cuMemRelease(handle));
		close(fds[i]);
	}
	CHECK(cuMemSetAccess(va, size * n, &access, 1));
	CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));

	check = malloc(size);
	if (!check)
		return 1;
	for (round = 0; round < ROUNDS; round++) {
		offset = size * ((index + round) % n);
		fill(kernel, stream, va + offset, size, round_value(index, round));
		CHECK(cuStreamSynchronize(stream));
		barrier_wait(sock);

		/* The buffer the next process filled in this round. */
		offset = size * ((index + 1 + round) % n);
		memset(check, 0, size);
		CHECK(cuMemcpyDtoHAsync(check, va + offset, size, stream));
		CHECK(cuStreamSynchronize(stream));
		for (i = 0; (size_t)i < size; i++) {
			if (check[i] != round_value((index + 1) % n, round)) {
				fprintf(stderr, "process %d, round %d: byte %d is %u, not %u\n",
					index, round, i, check[i],
					round_value((index + 1) % n, round));
				return 1;
			}
		}
		barrier_wait(sock);
	}
	free(check);
	CHECK(cuStreamDestroy(stream));
	CHECK(cuMemUnmap(va, size * n));
	CHECK(cuMemAddressFree(va, size * n));
	CHECK(cuModuleUnload(module));
	CHECK(cuCtxDestroy(ctx));
	return 0;
}

/* The devices the sample can use: VMM, POSIX fds, peers of one another. */
static int pick_devices(CUdevice *devs)
{
	int count, n = 0, vmm, fd_ok, peer, i;
	CUdevice dev;

	CHECK(cuDeviceGetCount(&count));
	for (dev = 0; dev < count && n < MAX_PROCESSES; dev++) {
		CHECK(cuDeviceGetAttribute(&vmm,
			CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
		CHECK(cuDeviceGetAttribute(&fd_ok,
			CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
			dev));
		if (!vmm || !fd_ok)
			continue;
		for (i = 0; i < n; i++) {
			CHECK(cuDeviceCanAccessPeer(&peer, devs[i], dev));
			if (!peer)
				break;
		}
		if (i == n)
			devs[n++] = dev;
	}
	return n;
}

/* The parent: allocate, export, spawn, run the barriers, reap. */
static int parent(const char *self, const char *ptx)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location.type = CU_MEM_LOCATION_TYPE_DEVICE,
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};
	CUmemGenericAllocationHandle handles[MAX_PROCESSES];
	int fds[MAX_PROCESSES], socks[MAX_PROCESSES][2];
	pid_t pids[MAX_PROCESSES];
	CUdevice devs[MAX_PROCESSES];
	int n, i, b, status, failed = 0;
	char arg_index[16], arg_dev[16], arg_sock[16], byte;
	CUcontext ctx;
	size_t size;

	CHECK(cuInit(0));
	n = pick_devices(devs);
	if (n < 2) {
		fprintf(stderr, "memMapIPCDrv needs two devices, found %d\n", n);
		return 1;
	}
	CHECK(cuCtxCreate(&ctx, NULL, 0, devs[0]));
	prop.location.id = devs[0];
	CHECK(cuMemGetAllocationGranularity(&size, &prop,
					    CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	for (i = 0; i < n; i++) {
		prop.location.id = devs[i];
		CHECK(cuMemCreate(&handles[i], size, &prop, 0));
		CHECK(cuMemExportToShareableHandle(&fds[i], handles[i],
				CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	}

	for (i = 0; i < n; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks[i]))
			die("socketpair");
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork");
		if (pids[i] == 0) {
			snprintf(arg_index, sizeof(arg_index), "%d", i);
			snprintf(arg_dev, sizeof(arg_dev), "%d", devs[i]);
			snprintf(arg_sock, sizeof(arg_sock), "%d", socks[i][1]);
			execl(self, self, "child", arg_index, arg_dev, arg_sock,
			      ptx, (char *)NULL);
			die("exec");
		}
		close(socks[i][1]);
		send_fds(socks[i][0], fds, n);
		if (write(socks[i][0], &size, sizeof(size)) != sizeof(size))
			die("write size");
	}

	/* Two barriers a round; a child that died ends them early. */
	for (b = 0; b < 2 * ROUNDS && !failed; b++) {
		for (i = 0; i < n; i++)
			if (read(socks[i][0], &byte, 1) != 1)
				failed = 1;
		for (i = 0; i < n && !failed; i++)
			if (write(socks[i][0], &byte, 1) != 1)
				failed = 1;
	}
	for (i = 0; i < n; i++) {
		close(socks[i][0]);
		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed = 1;
		close(fds[i]);
		CHECK(cuMemRelease(handles[i]));
	}
	CHECK(cuCtxDestroy(ctx));
	if (failed) {
		fprintf(stderr, "memMapIPCDrv: a process failed\n");
		return 1;
	}
	printf("memMapIPCDrv: memMapIpc_kernel from PTX in %d processes on %d "
	       "devices, %d rounds, every byte right\n", n, n, ROUNDS);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "child"))
		return child(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
	if (argc != 2) {
		fprintf(stderr, "usage: sample_mem_map_ipc KERNEL.ptx\n");
		return 2;
	}
	return parent("/proc/self/exe", argv[1]);
}
