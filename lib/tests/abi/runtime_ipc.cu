// SPDX-License-Identifier: MIT
// cudaIpc* memory between processes, built by lib/tests/abi/runtime.sh
// with plain nvcc: the parent fills device memory with a kernel and hands
// its cudaIpcMemHandle_t to a child it executes (the program again, the
// handle in hexadecimal); the child opens it, checks the values through
// cudaMemcpy, adds one to each with a kernel and exits; the parent checks
// the child's writes. (Interprocess events are not shared by cumc:
// Documentation/api.md.) The last line says whether all were right.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <unistd.h>

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
static int failures;

static void check(cudaError_t err, const char *what)
{
	if (err != cudaSuccess) {
		printf("%s: %s\n", what, cudaGetErrorString(err));
		failures++;
	}
}

#define CHECK(call) check((call), #call)

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

static int child(const char *mem_hex)
{
	cudaIpcMemHandle_t mem;
	int *d = nullptr, h[n];

	if (!from_hex(mem_hex, &mem, sizeof(mem))) {
		printf("child: a bad handle\n");
		return 1;
	}
	CHECK(cudaIpcOpenMemHandle((void **)&d, mem,
				   cudaIpcMemLazyEnablePeerAccess));
	CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 500, "the parent's kernel, read in the child");
	add_one<<<1, n>>>(d, n);
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaIpcCloseMemHandle(d));
	return failures != 0;
}

int main(int argc, char **argv)
{
	char mem_hex[2 * sizeof(cudaIpcMemHandle_t) + 1];
	cudaIpcMemHandle_t mem;
	int *d = nullptr, h[n], status;
	pid_t pid;

	if (argc == 2)
		return child(argv[1]);
	CHECK(cudaMalloc(&d, n * sizeof(int)));
	fill<<<1, n>>>(d, 500, n);
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaIpcGetMemHandle(&mem, d));
	to_hex(&mem, sizeof(mem), mem_hex);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], mem_hex, (char *)nullptr);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status)) {
		printf("the child failed\n");
		failures++;
	}
	CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	expect(h, 501, "the child's kernel, read in the parent");
	CHECK(cudaFree(d));
	printf("runtime ipc: %s\n", failures ? "wrong" : "right");
	return failures != 0;
}
