// SPDX-License-Identifier: MIT
// The kernel of sample_vector_add_drv.c and sample_vector_add_mmap.c,
// built by lib/tests/abi/samples.sh with the toolkit's nvcc into a fatbin
// of compute_90 PTX, as the samples' vectorAdd_kernel.cu is.
extern "C" __global__ void VecAdd_kernel(const float *A, const float *B,
					 float *C, int N)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;

	if (i < N)
		C[i] = A[i] + B[i];
}
