// SPDX-License-Identifier: MIT
/*
 * The CUDA samples' way of using the VMM API, against the module (runs in
 * the VM).  As vectorAddMMAP does: allocations striped across several
 * devices into one reservation, released as soon as they are mapped, one
 * cuMemSetAccess with a descriptor per device over all of them, a
 * "kernel" (the CPU) working through the device addresses, and one
 * cuMemUnmap of the whole range.  As memMapIPCDrv does: one access
 * descriptor over chunks of one device mapped side by side.
 */
#include <stdlib.h>

#include "check_run.h"
#include "vmm.h"

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

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

START_TEST(vector_add_over_striped_buffers)
{
	int n = vmm_device_count(), dev;
	/* Small enough for the emulated CPU; spans every device's chunk. */
	size_t elems = n * vmm_granularity() / sizeof(float) / 64;
	size_t bytes = elems * sizeof(float), i;
	struct striped a = striped_alloc(bytes, n), b = striped_alloc(bytes, n);
	struct striped c = striped_alloc(bytes, n);
	float *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes);
	const float *da = vmm_ptr(a.va), *db = vmm_ptr(b.va);
	float *dc = vmm_ptr(c.va);
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
	/* The kernel: the CPU stands in for the devices. */
	for (i = 0; i < elems; i++)
		dc[i] = da[i] + db[i];
	ck_assert_int_eq(cuMemcpyDtoH(hc, c.va, bytes), CUDA_SUCCESS);
	for (i = 0; i < elems; i++)
		ck_assert_msg(hc[i] == 3.0f * i, "element %zu is %f", i, hc[i]);

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

int main(void)
{
	Suite *s = suite_create("vmm samples");
	TCase *tc = tcase_create("samples");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, vector_add_over_striped_buffers);
	tcase_add_test(tc, one_access_descriptor_over_side_by_side_chunks);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
