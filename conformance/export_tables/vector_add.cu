// SPDX-License-Identifier: MIT
/*
 * The smallest runtime program: what the CUDA runtime asks of the driver
 * to start, register a kernel, copy and launch (record.sh runs it on the
 * interposer, built with the static and with the shared runtime).
 */
#include <cstdio>

__global__ void add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

int main()
{
	const int n = 1024;
	float a[n], b[n], c[n];
	float *da, *db, *dc;
	int bad = 0;

	for (int i = 0; i < n; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	cudaMalloc(&da, sizeof(a));
	cudaMalloc(&db, sizeof(b));
	cudaMalloc(&dc, sizeof(c));
	cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice);
	cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice);
	add<<<n / 256, 256>>>(da, db, dc, n);
	cudaMemcpy(c, dc, sizeof(c), cudaMemcpyDeviceToHost);
	for (int i = 0; i < n; i++)
		bad += c[i] != 3 * i;
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	printf("vector add: %s (%s)\n", bad ? "wrong" : "right",
	       cudaGetErrorString(cudaGetLastError()));
	return bad != 0;
}
