// SPDX-License-Identifier: MIT
// NVLS-style kernels over a multicast address (ptx/tests/data/README):
// the inline asm forms of one-shot all-reduce and signal pads.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void allreduce_f32(float *mc, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v;

	if (i >= n)
		return;
	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];"
		     : "=f"(v) : "l"(mc + i) : "memory");
	asm volatile("multimem.st.relaxed.sys.global.f32 [%0], %1;"
		     :: "l"(mc + i), "f"(v) : "memory");
}

extern "C" __global__ void allreduce_v4f32(float4 *mc, float4 *out,
					   unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 v;

	if (i >= n)
		return;
	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.v4.f32 "
		     "{%0, %1, %2, %3}, [%4];"
		     : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
		     : "l"(mc + i) : "memory");
	out[i] = v;
	asm volatile("multimem.st.relaxed.sys.global.v4.f32 [%0], "
		     "{%1, %2, %3, %4};"
		     :: "l"(mc + i), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
		     : "memory");
}

extern "C" __global__ void reduce_bf16x2(uint4 *mc, uint4 *out, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	uint4 v;

	if (i >= n)
		return;
	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.bf16x2 "
		     "{%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(mc + i) : "memory");
	out[i] = v;
}

extern "C" __global__ void reduce_f16x2(uint4 *mc, uint4 *out, unsigned int n)
{
	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
	uint4 v;

	if (i >= n)
		return;
	asm volatile("multimem.ld_reduce.relaxed.sys.global.add.acc::f32.v4.f16x2 "
		     "{%0, %1, %2, %3}, [%4];"
		     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
		     : "l"(mc + i) : "memory");
	out[i] = v;
}

extern "C" __global__ void signal(unsigned int *mc_pad)
{
	asm volatile("multimem.red.relaxed.sys.global.add.u32 [%0], %1;"
		     :: "l"(mc_pad + threadIdx.x), "n"(1) : "memory");
	asm volatile("multimem.red.release.sys.global.add.u32 [%0], %1;"
		     :: "l"(mc_pad + threadIdx.x), "n"(1) : "memory");
}
