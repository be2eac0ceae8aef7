// Warp operations: inputs of test_ptx's warp tests.
extern "C" __global__ void warp_ops(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x & 31;
	int v = i < n ? in[i] : 0;
	int s = v;

	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_down_sync(0xffffffffu, s, o);
	out[i * 8 + 0] = __shfl_sync(0xffffffffu, s, 0);
	out[i * 8 + 1] = __ballot_sync(0xffffffffu, v & 1);
	if (lane & 1)
		out[i * 8 + 2] = __activemask();
	else
		out[i * 8 + 2] = -1 - (int)__activemask();
	out[i * 8 + 3] = __match_any_sync(0xffffffffu, v % 3);
	out[i * 8 + 4] = __reduce_add_sync(0xffffffffu, v);
	out[i * 8 + 5] = __shfl_xor_sync(0xffffffffu, v, 5) +
			 __shfl_up_sync(0xffffffffu, v, 3, 8) * 1000;
	out[i * 8 + 6] = (__all_sync(0xffffffffu, v >= 0) ? 7 : 3) * 1000000 +
			 (__any_sync(0xffffffffu, v > 50) ? 11 : 5) * 10000 +
			 __reduce_min_sync(0xffffffffu, v) * 3 +
			 (int)__reduce_max_sync(0xffffffffu, (unsigned)v);
	if (lane < 16)
		out[i * 8 + 7] = __reduce_or_sync(0x0000ffffu, (unsigned)v);
	else
		out[i * 8 + 7] = __shfl_sync(0xffff0000u, v, 3, 16);
}

// A warp's sum through shared memory, its steps ordered by __syncwarp.
extern "C" __global__ void warp_sync(const int *in, int *out)
{
	__shared__ int s[64];
	int t = threadIdx.x, lane = t & 31;

	s[t] = in[blockIdx.x * 64 + t];
	__syncwarp();
	for (int o = 16; o > 0; o >>= 1) {
		int x = lane < o ? s[t + o] : 0;

		__syncwarp();
		s[t] += x;
		__syncwarp();
	}
	if (lane == 0)
		out[blockIdx.x * 2 + t / 32] = s[t];
}
