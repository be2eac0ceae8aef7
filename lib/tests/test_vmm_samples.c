// SPDX-License-Identifier: MIT
/*
 * The CUDA samples' way of using the VMM API, against the module (runs in
 * the VM).  As vectorAddMMAP does: allocations striped across several
 * devices into one reservation, released as soon as they are mapped, one
 * cuMemSetAccess with a descriptor per device over all of them, a kernel
 * (nvcc's vecAdd, ptx/tests/data) working through the device addresses,
 * and one cuMemUnmap of the whole range.  As memMapIPCDrv does: one access
 * descriptor over chunks of one device mapped side by side.  And
 * vectorAddMMAP's host code whole: cuCtxCreate, the backing devices chosen
 * by cuDeviceCanAccessPeer, the granularity of each, striping, the access
 * of the mapping device only, its kernel loaded from nvcc's fatbin and
 * launched.  lib/tests/abi/samples.sh runs such programs built with the
 * toolkit alone, their kernels built by its nvcc.
 */
#include <stdlib.h>

#include "check_run.h"
#include "vmm.h"

#define DATA PTX_TEST_DATA

/* A striped buffer: one chunk per device, mapped back to back. */
struct striped {
	CUdeviceptr va;
	size_t size;
	size_t chunk;
	int num_devices;
};

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* The chunks are released at once: the mappings keep the memory. */
static struct striped striped_alloc(size_t size, int num_devices)
{
	CUmemGenericAllocationHandle handle;
	struct striped s = { .num_devices = num_devices };
	CUmemAccessDesc *desc = calloc(num_devices, sizeof(*desc));
	int dev;

	ck_assert_ptr_nonnull(desc);
	s.chunk = round_up(round_up(size, num_devices) / num_devices,
			   vmm_granularity());
	s.size = s.chunk * num_devices;
	ck_assert_int_eq(cuMemAddressReserve(&s.va, s.size, vmm_granularity(), 0, 0),
			 CUDA_SUCCESS);
	for (dev = 0; dev < num_devices; dev++) {
		handle = vmm_create(dev, s.chunk);
		ck_assert_int_eq(cuMemMap(s.va + dev * s.chunk, s.chunk, 0, handle, 0),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
		desc[dev].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		desc[dev].location.id = dev;
		desc[dev].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	ck_assert_int_eq(cuMemSetAccess(s.va, s.size, desc, num_devices), CUDA_SUCCESS);
	free(desc);
	return s;
}

static void striped_free(const struct striped *s)
{
	ck_assert_int_eq(cuMemUnmap(s->va, s->size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(s->va, s->size), CUDA_SUCCESS);
}

/* vecAdd from @image over @n floats, on the current context's device. */
static void vec_add(const char *image, CUdeviceptr a, CUdeviceptr b,
		    CUdeviceptr c, int n)
{
	void *args[] = { &a, &b, &c, &n };
	CUmodule module;
	CUfunction f;

	ck_assert_int_eq(cuModuleLoad(&module, image), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, module, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0,
					NULL, args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(module), CUDA_SUCCESS);
}

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

START_TEST(vector_add_over_striped_buffers)
{
	int n = vmm_device_count(), dev;
	/* Small enough for the interpreter on the emulated CPU. */
	size_t elems = n * vmm_granularity() / sizeof(float) / 64;
	size_t bytes = elems * sizeof(float), i;
	struct striped a = striped_alloc(bytes, n), b = striped_alloc(bytes, n);
	struct striped c = striped_alloc(bytes, n);
	float *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
	size_t *free_before = calloc(n, sizeof(*free_before));

	ck_assert(ha && hb && hc && free_before);
	for (dev = 0; dev < n; dev++) {
		CUdeviceptr chunk = a.va + dev * a.chunk;
		int ordinal = -1;

		ck_assert_int_eq(cuPointerGetAttribute(&ordinal,
				CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, chunk), CUDA_SUCCESS);
		ck_assert_int_eq(ordinal, dev);
		free_before[dev] = vmm_free_bytes(dev);
	}
	for (i = 0; i < elems; i++) {
		ha[i] = (float)i;
		hb[i] = 2.0f * i;
	}
	ck_assert_int_eq(cuMemcpyHtoD(a.va, ha, bytes), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(b.va, hb, bytes), CUDA_SUCCESS);
	vec_add(DATA "/vecadd.ptx", a.va, b.va, c.va, elems);
	ck_assert_int_eq(cuMemcpyDtoH(hc, c.va, bytes), CUDA_SUCCESS);
	for (i = 0; i < elems && hc[i] == 3.0f * i; i++)
		;
	ck_assert_msg(i == elems, "element %zu is %f", i, hc[i]);

	striped_free(&a);
	striped_free(&b);
	striped_free(&c);
	/* The mappings held the released chunks; the unmaps freed them. */
	for (dev = 0; dev < n; dev++)
		ck_assert_uint_eq(vmm_free_bytes(dev), free_before[dev] + 3 * a.chunk);
	free(ha);
	free(hb);
	free(hc);
	free(free_before);
}
END_TEST

START_TEST(one_access_descriptor_over_side_by_side_chunks)
{
	const int chunks = 4;
	size_t gran = vmm_granularity();
	CUdeviceptr va = vmm_reserve(chunks * gran);
	CUmemGenericAllocationHandle handle;
	struct st_objects before = vmm_counts_now();
	int i;

	for (i = 0; i < chunks; i++) {
		handle = vmm_create(0, gran);
		ck_assert_int_eq(cuMemMap(va + i * gran, gran, 0, handle, 0), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
	}
	ck_assert_int_eq(vmm_set_access(va, chunks * gran, 0,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);
	/* One set over the chunk boundaries, read back through each. */
	ck_assert_int_eq(cuMemsetD32(va, 0xfeedf00d, chunks * gran / 4), CUDA_SUCCESS);
	for (i = 0; i < chunks; i++) {
		ck_assert_uint_eq(*(volatile uint32_t *)vmm_ptr(va + i * gran), 0xfeedf00d);
		vmm_assert_store_ok(va + (i + 1) * gran - 1);
	}
	ck_assert_int_eq(cuMemUnmap(va, chunks * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, chunks * gran), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_counts_now().mems, before.mems);
	ck_assert_int_eq(vmm_counts_now().vas, before.vas - 1);
}
END_TEST

/* vectorAddMMAP's getBackingDevices: the device and the peers it reaches. */
static int backing_devices(CUdevice cu_device, CUdevice *backing)
{
	int n = vmm_device_count(), count = 0, capable, vmm;
	CUdevice dev;

	backing[count++] = cu_device;
	for (dev = 0; dev < n; dev++) {
		if (dev == cu_device)
			continue;
		ck_assert_int_eq(cuDeviceCanAccessPeer(&capable, cu_device, dev), CUDA_SUCCESS);
		ck_assert_int_eq(cuDeviceGetAttribute(&vmm,
				CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev),
				CUDA_SUCCESS);
		if (capable && vmm)
			backing[count++] = dev;
	}
	return count;
}

/*
 * simpleMallocMultiDeviceMmap: the largest granularity of the backing
 * devices, a stripe per device, access for the mapping devices only.
 */
static CUdeviceptr sample_malloc(size_t *alloc_size, size_t size,
				 const CUdevice *backing, int num_backing,
				 const CUdevice *mapping, int num_mapping)
{
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc desc[8];
	CUmemGenericAllocationHandle h;
	size_t min_gran = 0, gran, stripe;
	CUdeviceptr dptr;
	int i;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	for (i = 0; i < num_backing; i++) {
		prop.location.id = backing[i];
		ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
		if (gran > min_gran)
			min_gran = gran;
	}
	for (i = 0; i < num_mapping; i++) {
		prop.location.id = mapping[i];
		ck_assert_int_eq(cuMemGetAllocationGranularity(&gran, &prop,
				CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
		if (gran > min_gran)
			min_gran = gran;
	}
	size = round_up(size, num_backing * min_gran);
	stripe = size / num_backing;
	ck_assert_int_eq(cuMemAddressReserve(&dptr, size, 0, 0, 0), CUDA_SUCCESS);
	for (i = 0; i < num_backing; i++) {
		prop.location.id = backing[i];
		ck_assert_int_eq(cuMemCreate(&h, stripe, &prop, 0), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemMap(dptr + stripe * i, stripe, 0, h, 0), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	}
	ck_assert_int_le(num_mapping, 8);
	for (i = 0; i < num_mapping; i++) {
		desc[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		desc[i].location.id = mapping[i];
		desc[i].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	}
	ck_assert_int_eq(cuMemSetAccess(dptr, size, desc, num_mapping), CUDA_SUCCESS);
	*alloc_size = size;
	return dptr;
}

static void sample_free(CUdeviceptr dptr, size_t size)
{
	ck_assert_int_eq(cuMemUnmap(dptr, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(dptr, size), CUDA_SUCCESS);
}

START_TEST(vector_add_mmap_host_code)
{
	CUdevice cu_device = _i % vmm_device_count(), backing[64];
	int num_backing, n = 50000, i, peer_count = 0;
	size_t size = n * sizeof(float), alloc_a, alloc_b, alloc_c;
	float *h_a = malloc(size), *h_b = malloc(size), *h_c = malloc(size);
	CUdeviceptr d_a, d_b, d_c;
	CUcontext ctx;
	unsigned int flags;

	ck_assert(h_a && h_b && h_c);
	ck_assert_int_le(vmm_device_count(), 64);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, cu_device), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, 0);
	num_backing = backing_devices(cu_device, backing);
	/* Every other device on the fabric is a peer. */
	ck_assert_int_eq(num_backing, vmm_device_count());
	for (i = 0; i < n; i++) {
		h_a[i] = rand() / (float)RAND_MAX;
		h_b[i] = rand() / (float)RAND_MAX;
	}
	d_a = sample_malloc(&alloc_a, size, backing, num_backing, &cu_device, 1);
	d_b = sample_malloc(&alloc_b, size, backing, num_backing, &cu_device, 1);
	d_c = sample_malloc(&alloc_c, size, backing, num_backing, &cu_device, 1);
	ck_assert_int_eq(cuMemcpyHtoD(d_a, h_a, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(d_b, h_b, size), CUDA_SUCCESS);
	/* nvcc's fatbin, its PTX zstd-compressed, as the sample loads it. */
	vec_add(DATA "/vecadd.fatbin", d_a, d_b, d_c, n);
	ck_assert_int_eq(cuMemcpyDtoH(h_c, d_c, size), CUDA_SUCCESS);
	for (i = 0; i < n && h_a[i] + h_b[i] == h_c[i]; i++)
		;
	ck_assert_msg(i == n, "result verification failed at %d", i);
	/* Each stripe lives on its backing device. */
	for (i = 0; i < num_backing; i++) {
		int ordinal = -1;

		ck_assert_int_eq(cuPointerGetAttribute(&ordinal,
				CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
				d_a + alloc_a / num_backing * i), CUDA_SUCCESS);
		ck_assert_int_eq(ordinal, backing[i]);
		peer_count += backing[i] != cu_device;
	}
	ck_assert_int_eq(peer_count, num_backing - 1);
	sample_free(d_a, alloc_a);
	sample_free(d_b, alloc_b);
	sample_free(d_c, alloc_c);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	free(h_a);
	free(h_b);
	free(h_c);
}
END_TEST

/*
 * Its peer-access companion, as the samples that use cuMemAlloc do
 * (simpleP2P's host code): enable access from one context to the other,
 * copy between the devices' allocations, disable.
 */
START_TEST(peer_copy_between_contexts)
{
	CUcontext c0, c1;
	CUdeviceptr d0, d1;
	int can = 0, n = 1 << 16, i;
	int *h = malloc(n * sizeof(int)), *back = malloc(n * sizeof(int));

	ck_assert(h && back);
	ck_assert_int_eq(cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(can, 1);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxCreate(&c1, NULL, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d1, n * sizeof(int)), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxCreate(&c0, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d0, n * sizeof(int)), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
	for (i = 0; i < n; i++)
		h[i] = i ^ 0x5a5a;
	ck_assert_int_eq(cuMemcpyHtoD(d0, h, n * sizeof(int)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoD(d1, d0, n * sizeof(int)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(back, d1, n * sizeof(int)), CUDA_SUCCESS);
	ck_assert_mem_eq(back, h, n * sizeof(int));
	ck_assert_int_eq(cuCtxDisablePeerAccess(c1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(c0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(c1), CUDA_SUCCESS);
	free(h);
	free(back);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("vmm samples");
	TCase *tc = tcase_create("samples");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, vector_add_over_striped_buffers);
	tcase_add_test(tc, one_access_descriptor_over_side_by_side_chunks);
	tcase_add_loop_test(tc, vector_add_mmap_host_code, 0, 2);
	tcase_add_test(tc, peer_copy_between_contexts);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
