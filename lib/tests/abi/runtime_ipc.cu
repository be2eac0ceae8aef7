// SPDX-License-Identifier: MIT
// cudaIpc* memory and events between processes, built by
// lib/tests/abi/runtime.sh with plain nvcc: the parent fills device
// memory with a kernel and hands its cudaIpcMemHandle_t, and the
// cudaIpcEventHandle_t of an event made with cudaEventInterprocess, to a
// child it executes (the program again, the handles in hexadecimal, with
// two pipes); the child opens both, checks the values through cudaMemcpy,
// adds one to each with a kernel and records the event after it, as the
// toolkit's simpleIPC sample does; the parent synchronizes with the event
// and checks the child's writes, adds one again and records; the child
// waits for that record with cudaStreamWaitEvent before it reads the
// result. The last line says whether all were right.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime_check.h"

__global__ void fill(int *p, int base, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] = base + i;
}

__global__ void add_one(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i]++;
}

static const int n = 256;

static void expect(const int *h, int base, const char *what)
{
	for (int i = 0; i < n; i++)
		if (h[i] != base + i) {
			printf("%s: element %d is %d, not %d\n", what, i, h[i],
			       base + i);
			failures++;
			return;
		}
}

static void to_hex(const void *p, size_t len, char *out)
{
	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}

static bool from_hex(const char *in, void *p, size_t len)
{
	unsigned int byte;

	if (strlen(in) != 2 * len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (sscanf(in + 2 * i, "%2x", &byte) != 1)
			return false;
		((unsigned char *)p)[i] = (unsigned char)byte;
	}
	return true;
}

// A byte through a pipe: the processes' steps, in order.
static void send_step(int fd)
{
	char step = 's';

	if (write(fd, &step, 1) != 1) {
		printf("a step was not sent\n");
		failures++;
	}
}

static void await_step(int fd)
{
	char step;

	if (read(fd, &step, 1) != 1) {
		printf("a step did not come\n");
		failures++;
	}
}

static int child(char **argv)
{
	cudaIpcMemHandle_t mem;
	cudaIpcEventHandle_t event_handle;
	cudaEvent_t ev;
	int *d = nullptr, h[n], up = atoi(argv[3]), down = atoi(argv[4]);

	if (!from_hex(argv[1], &mem, sizeof(mem)) ||
	    !from_hex(argv[2], &event_handle, sizeof(event_handle))) {
		printf("child: a bad handle\n");
		return 1;
	}
	CHECK(cudaIpcOpenMemHandle((void **)&d, mem,
				   cudaIpcMemLazyEnablePeerAccess));
	CHECK(cudaIpcOpenEventHandle(&ev, event_handle));
	CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 500, "the parent's kernel, read in the child");
	add_one<<<1, n>>>(d, n);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(ev, 0));
	send_step(up);
	// The parent's kernel and record come once this step is taken.
	await_step(down);
	CHECK(cudaStreamWaitEvent(0, ev, 0));
	CHECK(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, 0));
	CHECK(cudaStreamSynchronize(0));
	expect(h, 502, "the parent's second kernel, after its event");
	CHECK(cudaEventDestroy(ev));
	CHECK(cudaIpcCloseMemHandle(d));
	return failures != 0;
}

int main(int argc, char **argv)
{
	char mem_hex[2 * sizeof(cudaIpcMemHandle_t) + 1];
	char event_hex[2 * sizeof(cudaIpcEventHandle_t) + 1];
	char up_fd[16], down_fd[16];
	cudaIpcMemHandle_t mem;
	cudaIpcEventHandle_t event_handle;
	cudaEvent_t ev;
	int *d = nullptr, h[n], status, up[2], down[2];
	pid_t pid;

	if (argc == 5)
		return child(argv);
	if (pipe(up) || pipe(down)) {
		printf("no pipes\n");
		return 1;
	}
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	fill<<<1, n>>>(d, 500, n);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaIpcGetMemHandle(&mem, d));
	CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming |
					    cudaEventInterprocess));
	CHECK(cudaIpcGetEventHandle(&event_handle, ev));
	to_hex(&mem, sizeof(mem), mem_hex);
	to_hex(&event_handle, sizeof(event_handle), event_hex);
	snprintf(up_fd, sizeof(up_fd), "%d", up[1]);
	snprintf(down_fd, sizeof(down_fd), "%d", down[0]);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], mem_hex, event_hex, up_fd,
		      down_fd, (char *)nullptr);
		_exit(127);
	}
	close(up[1]);
	close(down[0]);
	// The child's kernel is recorded: waiting for the event waits for it.
	await_step(up[0]);
	CHECK(cudaEventSynchronize(ev));
	CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 501, "the child's kernel, read in the parent");
	add_one<<<1, n>>>(d, n);
	CHECK(cudaGetLastError());
	CHECK(cudaEventRecord(ev, 0));
	send_step(down[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("the child failed\n");
		failures++;
	}
	CHECK(cudaEventDestroy(ev));
	CHECK(cudaFree(d));
	printf("runtime ipc: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
