// SPDX-License-Identifier: MIT
//
// The device-code variant of cumc-allreduce (--kernel): a one-shot NVLS
// all-reduce as collective libraries write it. Every rank launches the same
// grid on its own GPU; block b of rank r reduces its share of slice r of the
// message with multimem.ld_reduce over the multicast address and stores the
// sum to every member with multimem.st. Before and after, block b of every
// rank meets the others at a barrier on a signal pad: each adds 1 to
// counter b of every member's pad with multimem.red.release and spins with
// ld.acquire on its own member's counter until all ranks have added theirs.
//
// tools/allreduce_kernel.ptx is this file compiled by CUDA 13.0's nvcc, and
// is what the tool embeds (the build of cumc does not need nvcc):
//
//   nvcc -arch=sm_90 -ptx -o tools/allreduce_kernel.ptx tools/allreduce_kernel.cu

// The pad's counters only grow: @target is this barrier's total over all
// launches. A counter may already be past it, when a rank that left this
// barrier has signalled the next one: that ends the wait too.
__device__ static void pad_barrier(unsigned int *mc_pad, unsigned int *pad,
				   unsigned int target)
{
	unsigned int seen;

	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("multimem.red.release.sys.global.add.u32 [%0], %1;"
			     :: "l"(mc_pad + blockIdx.x), "n"(1) : "memory");
		do {
			asm volatile("ld.acquire.sys.global.u32 %0, [%1];"
				     : "=r"(seen) : "l"(pad + blockIdx.x) : "memory");
		} while ((int)(seen - target) < 0);
	}
	__syncthreads();
}

__device__ static void reduce_v4_f32(unsigned int *mc)
{
	float a, b, c, d;

	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.f32 "
		     "{%0, %1, %2, %3}, [%4];"
		     : "=f"(a), "=f"(b), "=f"(c), "=f"(d) : "l"(mc) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.v4.f32 [%0], {%1, %2, %3, %4};"
		     :: "l"(mc), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}

__device__ static void reduce_f32(unsigned int *mc)
{
	float a;

	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];"
		     : "=f"(a) : "l"(mc) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;"
		     :: "l"(mc), "f"(a) : "memory");
}

// bf16 pairs, summed in f32 and rounded once, as NCCL's NVLS kernels ask.
__device__ static void reduce_v4_bf16x2(unsigned int *mc)
{
	unsigned int a, b, c, d;

	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.bf16x2 "
		     "{%0, %1, %2, %3}, [%4];"
		     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(mc) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.v4.bf16x2 [%0], {%1, %2, %3, %4};"
		     :: "l"(mc), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}

__device__ static void reduce_bf16x2(unsigned int *mc)
{
	unsigned int a;

	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.bf16x2 %0, [%1];"
		     : "=r"(a) : "l"(mc) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.bf16x2 [%0], %1;"
		     :: "l"(mc), "r"(a) : "memory");
}

// @mc: the message at the multicast address, @words 32-bit words of it;
// @mc_pad and @pad: the signal pad at the multicast address and in this
// rank's own buffer, one counter per block; @signals: what every counter
// held before this launch (2 * nranks per earlier launch).
template <bool bf16>
__device__ static void one_shot(unsigned int *mc, unsigned int *mc_pad,
				unsigned int *pad, unsigned long long words,
				int rank, int nranks, unsigned int signals)
{
	unsigned long long vecs = words / 4, lo, hi, i;

	pad_barrier(mc_pad, pad, signals + nranks);
	// Slice @rank of the 16-byte vectors, then this block's part of it.
	lo = vecs * rank / nranks;
	hi = vecs * (rank + 1) / nranks;
	i = lo + (hi - lo) * blockIdx.x / gridDim.x + threadIdx.x;
	hi = lo + (hi - lo) * (blockIdx.x + 1) / gridDim.x;
	for (; i < hi; i += blockDim.x) {
		if (bf16)
			reduce_v4_bf16x2(mc + 4 * i);
		else
			reduce_v4_f32(mc + 4 * i);
	}
	// The words after the last whole vector: the last block of the last rank.
	if (rank == nranks - 1 && blockIdx.x == gridDim.x - 1) {
		for (i = vecs * 4 + threadIdx.x; i < words; i += blockDim.x) {
			if (bf16)
				reduce_bf16x2(mc + i);
			else
				reduce_f32(mc + i);
		}
	}
	pad_barrier(mc_pad, pad, signals + 2 * nranks);
}

extern "C" __global__ void allreduce_f32(unsigned int *mc, unsigned int *mc_pad,
					 unsigned int *pad,
					 unsigned long long words, int rank,
					 int nranks, unsigned int signals)
{
	one_shot<false>(mc, mc_pad, pad, words, rank, nranks, signals);
}

extern "C" __global__ void allreduce_bf16(unsigned int *mc, unsigned int *mc_pad,
					  unsigned int *pad,
					  unsigned long long words, int rank,
					  int nranks, unsigned int signals)
{
	one_shot<true>(mc, mc_pad, pad, words, rank, nranks, signals);
}
