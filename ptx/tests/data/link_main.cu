// One input of a link (lib/tests/test_link.c): a kernel calling a device
// function and reading a variable that link_lib.cu defines.
extern __device__ float scale_by;
extern __device__ float scaled(float v);

extern "C" __global__ void scaleAll(float *x, int n)
{
	int i = blockDim.x * blockIdx.x + threadIdx.x;

	if (i < n)
		x[i] = scaled(x[i]) + scale_by;
}
