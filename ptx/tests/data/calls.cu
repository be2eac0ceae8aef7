// Device functions nvcc does not inline: inputs of test_ptx's call tests.
__device__ __noinline__ int scale(int x, int k) { return x * k + 1; }

__device__ __noinline__ float mix(float a, float b, int *cnt)
{
	atomicAdd(cnt, 1);
	return a * 0.5f + b;
}

// Recursion nvcc cannot turn into a loop.
__device__ __noinline__ int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

// A pointer to the caller's local array.
__device__ __noinline__ void fill(int *a, int n, int v)
{
	for (int i = 0; i < n; i++)
		a[i] = v + i;
}

__device__ __noinline__ int warp_sum(int v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__device__ __noinline__ long long wide(long long a, double d)
{
	return a * 3 + (long long)d;
}

extern "C" __global__ void calls(const int *in, int *out, float *f, int *cnt)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	volatile int arr[8];
	int loc[8], s = 0;

	fill(loc, 8, in[i]);
	for (int k = 0; k < 8; k++) {
		arr[k] = loc[k];
		s += arr[k];
	}
	out[i * 5 + 0] = scale(in[i], 3);
	out[i * 5 + 1] = fib(i % 12);
	out[i * 5 + 2] = s;
	out[i * 5 + 3] = warp_sum(in[i]);
	out[i * 5 + 4] = (int)wide(in[i], 2.5);
	f[i] = mix((float)in[i], 2.0f, cnt);
}
