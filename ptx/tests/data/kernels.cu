// Kernels of ptx/tests/test_ptx.c; see README for the nvcc commands.
extern "C" __global__ void reduce(const int *in, int *out, int n)
{
	__shared__ int s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	s[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, s[0]);
}

// Block 0 waits for the last block's flag: needs blocks to run together.
extern "C" __global__ void spin(volatile int *flag, int *out)
{
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		while (*flag == 0)
			;
		out[0] = *flag;
	} else if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
		*flag = 42;
	}
}

extern "C" __global__ void convert(const float *f, const double *d, int *i,
				   unsigned long long *u, float *g, int n)
{
	int k = threadIdx.x;

	if (k < n) {
		i[k] = __float2int_rn(f[k]) + (int)d[k] + __float2int_rd(f[k]);
		u[k] = (unsigned long long)d[k] / 3 + ((unsigned long long)k << 40);
		g[k] = __fdiv_rz(f[k], 3.0f) + sqrtf(fabsf(f[k])) + (float)d[k];
	}
}

__device__ int counter;
__constant__ int scale = 3;

extern "C" __global__ void globals(int *out)
{
	int old = atomicAdd(&counter, 1);
	atomicMax(&out[1], old);
	out[2 + threadIdx.x] = scale * threadIdx.x - (int)(threadIdx.x % 3) / -2;
}
