// SPDX-License-Identifier: MIT
/*
 * cuPointerGetAttribute and cuPointerGetAttributes against the module
 * (runs in the VM): what reserved, mapped, multicast and foreign addresses
 * answer, how many bytes each answer takes, and bad arguments.
 */
#include <stdlib.h>

#include "check_run.h"
#include "vmm.h"

#define CANARY 0xa5

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
}

/* Attribute @attr of @ptr, which must take exactly @size bytes. */
static CUresult attr_of(CUpointer_attribute attr, CUdeviceptr ptr, void *value,
			size_t size)
{
	unsigned char buf[32];
	CUresult res;
	size_t i;

	memset(buf, CANARY, sizeof(buf));
	res = cuPointerGetAttribute(buf, attr, ptr);
	for (i = res == CUDA_SUCCESS ? size : 0; i < sizeof(buf); i++)
		ck_assert_msg(buf[i] == CANARY, "attribute %d wrote byte %zu", attr, i);
	memcpy(value, buf, size);
	return res;
}

static unsigned long long attr_u64(CUpointer_attribute attr, CUdeviceptr ptr)
{
	unsigned long long v = 0;

	ck_assert_int_eq(attr_of(attr, ptr, &v, sizeof(v)), CUDA_SUCCESS);
	return v;
}

static unsigned int attr_uint(CUpointer_attribute attr, CUdeviceptr ptr)
{
	unsigned int v = 0;

	ck_assert_int_eq(attr_of(attr, ptr, &v, sizeof(v)), CUDA_SUCCESS);
	return v;
}

static void assert_no_answer(CUpointer_attribute attr, CUdeviceptr ptr)
{
	unsigned char v[32];

	ck_assert_msg(attr_of(attr, ptr, v, 0) == CUDA_ERROR_INVALID_VALUE,
		      "attribute %d answered", attr);
}

START_TEST(needs_init)
{
	unsigned int v;
	CUpointer_attribute attr = CU_POINTER_ATTRIBUTE_MAPPED;
	void *data = &v;

	ck_assert_int_eq(cuPointerGetAttribute(&v, attr, 1 << 30),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuPointerGetAttributes(1, &attr, &data, 1 << 30),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(reserved_but_unmapped)
{
	CUdeviceptr va = vmm_reserve(3 * gran);

	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + gran + 5), va);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_RANGE_SIZE, va + 3 * gran - 1),
			  3 * gran);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MAPPED, va), 0);
	assert_no_answer(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va);
	assert_no_answer(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va);
	assert_no_answer(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, va);
	assert_no_answer(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, va);
	ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_SUCCESS);
}
END_TEST

/* Two mappings of different devices and handle types in one reservation. */
START_TEST(mapped_addresses_describe_their_mapping)
{
	int last = vmm_device_count() - 1;
	CUdeviceptr va = vmm_reserve(4 * gran);
	CUmemAllocationProp prop = vmm_prop(last);
	CUmemGenericAllocationHandle a = vmm_map_new(0, va, gran), b;

	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
	ck_assert_int_eq(cuMemCreate(&b, 2 * gran, &prop, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(va + 2 * gran, 2 * gran, 0, b, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(va + 2 * gran, 2 * gran, last,
			CU_MEM_ACCESS_FLAGS_PROT_READ), CUDA_SUCCESS);

	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MAPPED, va + 7), 1);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 7),
			  CU_MEMORYTYPE_DEVICE);
	ck_assert_int_eq(attr_uint(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 7), 0);
	ck_assert_int_eq(attr_uint(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 3 * gran), last);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, va),
			  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
				    va + 2 * gran), CU_MEM_HANDLE_TYPE_NONE);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR,
				   va + 4 * gran - 1), va + 2 * gran);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, va + 3 * gran),
			  2 * gran);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + 3 * gran), va);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_RANGE_SIZE, va), 4 * gran);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_IS_MANAGED, va), 0);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, va), 0);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, va), 0);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE, va), 0);
	/* The hole between them is reserved, not mapped. */
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MAPPED, va + gran), 0);

	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(va + 2 * gran, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
}
END_TEST

/* ACCESS_FLAGS and DEVICE_POINTER answer for the current context's device. */
START_TEST(current_device_attributes)
{
	int last = vmm_device_count() - 1;
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUdeviceptr p = buf.va + 100;

	ck_assert_int_eq(cuPointerGetAttribute(&(unsigned int){ 0 },
			CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, p), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuPointerGetAttribute(&(CUdeviceptr){ 0 },
			CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p), CUDA_ERROR_INVALID_CONTEXT);
	vmm_use_device(0);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, p),
			  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p), p);
	ck_assert_int_eq(vmm_set_access(buf.va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READ),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, p),
			  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READ);
	if (last) {
		vmm_use_device(last);
		ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, p),
				  CU_POINTER_ATTRIBUTE_ACCESS_FLAG_NONE);
		/* The last device has no way to this memory. */
		assert_no_answer(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p);
	}
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(attributes_cumc_cannot_answer)
{
	static const CUpointer_attribute none[] = {
		CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_HOST_POINTER,
		CU_POINTER_ATTRIBUTE_P2P_TOKENS, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
		CU_POINTER_ATTRIBUTE_BUFFER_ID, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
		CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID,
	};
	struct vmm_buf buf = vmm_buf_new(0, gran);
	size_t i;

	vmm_use_device(0);
	for (i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		assert_no_answer(none[i], buf.va);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(foreign_addresses_and_bad_arguments)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUpointer_attribute attr;
	int local = 0, *heap = malloc(sizeof(*heap));

	ck_assert_ptr_nonnull(heap);
	vmm_use_device(0);
	for (attr = CU_POINTER_ATTRIBUTE_CONTEXT;
	     attr <= CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE; attr++) {
		assert_no_answer(attr, (uintptr_t)&local);
		assert_no_answer(attr, (uintptr_t)heap);
		assert_no_answer(attr, 0);
		assert_no_answer(attr, buf.va + gran);
	}
	ck_assert_int_eq(cuPointerGetAttribute(NULL, CU_POINTER_ATTRIBUTE_MAPPED, buf.va),
			 CUDA_ERROR_INVALID_VALUE);
	assert_no_answer((CUpointer_attribute)0, buf.va);
	assert_no_answer((CUpointer_attribute)22, buf.va);
	assert_no_answer((CUpointer_attribute)-1, buf.va);
	free(heap);
	vmm_buf_free(&buf);
}
END_TEST

/* The multicast object lives on no one device. */
START_TEST(multicast_mapping)
{
	size_t size = vmm_mc_granularity() > gran ? vmm_mc_granularity() : gran;
	CUmemGenericAllocationHandle mc = vmm_multicast_new(size);
	CUdeviceptr va = vmm_reserve(size);

	ck_assert_int_eq(cuMemMap(va, size, 0, mc, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MAPPED, va), 1);
	ck_assert_uint_eq(attr_uint(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va),
			  CU_MEMORYTYPE_DEVICE);
	ck_assert_uint_eq(attr_u64(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, va), size);
	assert_no_answer(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va);
	ck_assert_int_eq(cuMemUnmap(va, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, size), CUDA_SUCCESS);
}
END_TEST

/* cuPointerGetAttributes */

START_TEST(all_at_once)
{
	CUpointer_attribute attrs[] = {
		CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
		CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_MAPPING_SIZE,
		CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, CU_POINTER_ATTRIBUTE_CONTEXT,
	};
	int last = vmm_device_count() - 1;
	struct vmm_buf buf = vmm_buf_new(last, gran);
	unsigned int mapped = 7, access = 7;
	int ordinal = -7;
	CUdeviceptr start = 7;
	size_t size = 7;
	CUcontext ctx = (CUcontext)7;
	void *data[] = { &mapped, &ordinal, &start, &size, &access, &ctx };

	ck_assert_int_eq(cuPointerGetAttributes(6, attrs, data, buf.va),
			 CUDA_ERROR_INVALID_CONTEXT);
	vmm_use_device(last);
	ck_assert_int_eq(cuPointerGetAttributes(6, attrs, data, buf.va + 9), CUDA_SUCCESS);
	ck_assert_uint_eq(mapped, 1);
	ck_assert_int_eq(ordinal, last);
	ck_assert_uint_eq(start, buf.va);
	ck_assert_uint_eq(size, gran);
	ck_assert_uint_eq(access, CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
	/* No answer reads as zero, here and for an address that is no CUDA pointer. */
	ck_assert_ptr_null(ctx);
	ck_assert_int_eq(cuPointerGetAttributes(6, attrs, data, (uintptr_t)&size),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(mapped, 0);
	ck_assert_int_eq(ordinal, 0);
	ck_assert_uint_eq(start, 0);
	ck_assert_uint_eq(size, 0);
	ck_assert_uint_eq(access, 0);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(all_at_once_bad_arguments)
{
	CUpointer_attribute attrs[2] = {
		CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
	};
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned int mapped = 7;
	size_t size = 7;
	void *data[2] = { &mapped, &size };

	ck_assert_int_eq(cuPointerGetAttributes(0, attrs, data, buf.va),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerGetAttributes(2, NULL, data, buf.va),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerGetAttributes(2, attrs, NULL, buf.va),
			 CUDA_ERROR_INVALID_VALUE);
	/* A bad second entry spoils the call: the first is not written. */
	data[1] = NULL;
	ck_assert_int_eq(cuPointerGetAttributes(2, attrs, data, buf.va),
			 CUDA_ERROR_INVALID_VALUE);
	data[1] = &size;
	attrs[1] = (CUpointer_attribute)22;
	ck_assert_int_eq(cuPointerGetAttributes(2, attrs, data, buf.va),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(mapped, 7);
	ck_assert_uint_eq(size, 7);
	vmm_buf_free(&buf);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pointer");
	TCase *one = tcase_create("cuPointerGetAttribute");
	TCase *many = tcase_create("cuPointerGetAttributes");

	check_add_uninit(s, needs_init);

	tcase_add_checked_fixture(one, setup, NULL);
	tcase_add_test(one, reserved_but_unmapped);
	tcase_add_test(one, mapped_addresses_describe_their_mapping);
	tcase_add_test(one, current_device_attributes);
	tcase_add_test(one, attributes_cumc_cannot_answer);
	tcase_add_test(one, foreign_addresses_and_bad_arguments);
	tcase_add_test(one, multicast_mapping);
	suite_add_tcase(s, one);

	tcase_add_checked_fixture(many, setup, NULL);
	tcase_add_test(many, all_at_once);
	tcase_add_test(many, all_at_once_bad_arguments);
	suite_add_tcase(s, many);

	return check_run_forked(s);
}
