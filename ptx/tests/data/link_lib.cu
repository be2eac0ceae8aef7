// The other input of the link of link_main.cu: what it declares extern.
__device__ float scale_by = 0.5f;

__device__ __noinline__ float scaled(float v)
{
	return 3.0f * v;
}
