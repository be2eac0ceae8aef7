// SPDX-License-Identifier: MIT
// The kernel of sample_mem_map_ipc.c, built by lib/tests/abi/samples.sh
// with the toolkit's nvcc as PTX: memMapIPCDrv's kernel, a grid-stride
// fill, storing 16 bytes at a time (the value in every byte) so that the
// interpreter runs it in seconds.
extern "C" __global__ void memMapIpc_kernel(uint4 *ptr, unsigned long long n,
					    unsigned char val)
{
	unsigned int word = val * 0x01010101u;
	unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;

	for (; i < n; i += gridDim.x * blockDim.x)
		ptr[i] = make_uint4(word, word, word, word);
}
