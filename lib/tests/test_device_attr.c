// SPDX-License-Identifier: MIT
/*
 * libcumc_device_attribute_value: a simulated device answers every attribute
 * of the CUDA 13.0 header as an H100 SXM5 would, except 0 for memory
 * features libcumc does not implement, takes its PCI location from the
 * caller, and refuses numbers that are not attributes.
 *
 * The list of attributes comes from tests/abi/abi_list.h, which
 * abi_check.sh holds equal to the toolkit's cuda.h.
 */
#include <check.h>
#include <limits.h>
#include <stdlib.h>

#include "../device_attr.h"
#include "check_run.h"

#define ABI_DEVATTR(name) name,
static const CUdevice_attribute defined_attributes[] = {
#include "abi/abi_list.h"
};
#undef ABI_DEVATTR

#define NUM_DEFINED_ATTRIBUTES \
	(sizeof(defined_attributes) / sizeof(defined_attributes[0]))

static const struct libcumc_device_attr_dev dev0 = {
	.ordinal = 0, .pci_domain = 0, .pci_bus = 0x18, .pci_device = 0,
	.multicast = 1,
};
static const struct libcumc_device_attr_dev dev5 = {
	.ordinal = 5, .pci_domain = 2, .pci_bus = 0xba, .pci_device = 3,
};

static int is_defined(long long attrib)
{
	size_t i;

	for (i = 0; i < NUM_DEFINED_ATTRIBUTES; i++)
		if ((long long)defined_attributes[i] == attrib)
			return 1;
	return 0;
}

static int attribute(const struct libcumc_device_attr_dev *dev, int attrib)
{
	int value = INT_MIN;

	ck_assert_int_eq(libcumc_device_attribute_value(dev, attrib, &value),
			 CUDA_SUCCESS);
	return value;
}

/* The value of CU_DEVICE_ATTRIBUTE_<name> on device 0 or 5. */
#define DEV0(name) attribute(&dev0, CU_DEVICE_ATTRIBUTE_##name)
#define DEV5(name) attribute(&dev5, CU_DEVICE_ATTRIBUTE_##name)

START_TEST(list_covers_the_13_0_header)
{
	/* 147 attributes plus 6 deprecated aliases in CUDA 13.0. */
	ck_assert_uint_eq(NUM_DEFINED_ATTRIBUTES, 153);
	ck_assert_int_eq(CU_DEVICE_ATTRIBUTE_MAX, 148);
}
END_TEST

START_TEST(vmm_and_multicast_supported)
{
	ck_assert_int_eq(DEV0(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), 1);
	ck_assert_int_eq(DEV0(HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED), 1);
	ck_assert_int_eq(DEV0(HANDLE_TYPE_FABRIC_SUPPORTED), 1);
	ck_assert_int_eq(DEV0(MULTICAST_SUPPORTED), 1);
	ck_assert_int_eq(DEV0(UNIFIED_ADDRESSING), 1);
	ck_assert_int_eq(DEV0(HANDLE_TYPE_WIN32_HANDLE_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED), 0);
}
END_TEST

/* Managed memory exists, and every device reaches it as the CPU does. */
START_TEST(managed_memory_is_advertised)
{
	ck_assert_int_eq(DEV0(MANAGED_MEMORY), 1);
	ck_assert_int_eq(DEV0(CONCURRENT_MANAGED_ACCESS), 1);
	ck_assert_int_eq(DEV0(PAGEABLE_MEMORY_ACCESS), 0);
}
END_TEST

/* What cuMemCreate and friends would refuse must not be advertised. */
START_TEST(unimplemented_memory_features_answer_zero)
{
	ck_assert_int_eq(DEV0(HOST_MEMORY_POOLS_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(HOST_NUMA_MEMORY_POOLS_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(DMA_BUF_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(HOST_ALLOC_DMA_BUF_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(GENERIC_COMPRESSION_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(GPU_DIRECT_RDMA_SUPPORTED), 0);
	ck_assert_int_eq(DEV0(GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS), 0);
	ck_assert_int_eq(DEV0(SPARSE_CUDA_ARRAY_SUPPORTED), 0);
}
END_TEST

/* Device pools shared as POSIX descriptors or fabric handles: mempool*.c. */
START_TEST(memory_pools_answer_what_is_provided)
{
	ck_assert_int_eq(DEV0(MEMORY_POOLS_SUPPORTED), 1);
	ck_assert_int_eq(DEV5(MEMORY_POOLS_SUPPORTED), 1);
	ck_assert_int_eq(DEV0(MEMPOOL_SUPPORTED_HANDLE_TYPES),
			 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR |
			 CU_MEM_HANDLE_TYPE_FABRIC);
}
END_TEST

START_TEST(hopper_h100_sxm_figures)
{
	ck_assert_int_eq(DEV0(COMPUTE_CAPABILITY_MAJOR), 9);
	ck_assert_int_eq(DEV0(COMPUTE_CAPABILITY_MINOR), 0);
	ck_assert_int_eq(DEV0(MULTIPROCESSOR_COUNT), 132);
	ck_assert_int_eq(DEV0(MAX_THREADS_PER_BLOCK), 1024);
	ck_assert_int_eq(DEV0(WARP_SIZE), 32);
	ck_assert_int_eq(DEV0(GLOBAL_MEMORY_BUS_WIDTH), 5120);
	ck_assert_int_eq(DEV0(L2_CACHE_SIZE), 52428800);
	ck_assert_int_eq(DEV0(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN), 232448);
	ck_assert_int_eq(DEV0(INTEGRATED), 0);
	ck_assert_int_eq(DEV0(MULTI_GPU_BOARD), 0);
}
END_TEST

START_TEST(deprecated_aliases_answer_like_their_successors)
{
	ck_assert_int_eq(DEV0(VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED),
			 DEV0(VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED));
	ck_assert_int_eq(DEV0(SHARED_MEMORY_PER_BLOCK),
			 DEV0(MAX_SHARED_MEMORY_PER_BLOCK));
	ck_assert_int_eq(DEV0(REGISTERS_PER_BLOCK),
			 DEV0(MAX_REGISTERS_PER_BLOCK));
	ck_assert_int_eq(DEV0(MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES),
			 DEV0(MAXIMUM_TEXTURE2D_LAYERED_LAYERS));
}
END_TEST

START_TEST(location_comes_from_the_device)
{
	ck_assert_int_eq(DEV5(PCI_DOMAIN_ID), 2);
	ck_assert_int_eq(DEV5(PCI_BUS_ID), 0xba);
	ck_assert_int_eq(DEV5(PCI_DEVICE_ID), 3);
	ck_assert_int_eq(DEV0(PCI_BUS_ID), 0x18);
	ck_assert_int_ne(DEV0(MULTI_GPU_BOARD_GROUP_ID),
			 DEV5(MULTI_GPU_BOARD_GROUP_ID));
	/* dev5 lacks CUMC_CAP_MULTICAST, as under `cumcctl dev set multicast 0`. */
	ck_assert_int_eq(DEV5(MULTICAST_SUPPORTED), 0);
	ck_assert_int_eq(DEV5(HANDLE_TYPE_FABRIC_SUPPORTED), 1);
	/* Everything else is the same on every device. */
	ck_assert_int_eq(DEV0(CLOCK_RATE), DEV5(CLOCK_RATE));
}
END_TEST

/* Each number from -64 to MAX + 64 in turn: answered iff an attribute. */
START_TEST(only_defined_attributes_answer)
{
	int value = INT_MIN;
	CUresult result = libcumc_device_attribute_value(&dev0, _i, &value);

	if (is_defined(_i)) {
		ck_assert_int_eq(result, CUDA_SUCCESS);
		ck_assert_int_ne(value, INT_MIN);
	} else {
		ck_assert_int_eq(result, CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(value, INT_MIN);
	}
}
END_TEST

START_TEST(extreme_numbers_refused)
{
	int value = 7;

	ck_assert_int_eq(libcumc_device_attribute_value(&dev0, INT_MIN, &value),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(libcumc_device_attribute_value(&dev0, INT_MAX, &value),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(libcumc_device_attribute_value(&dev0, CU_DEVICE_ATTRIBUTE_MAX,
							&value),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(value, 7);
}
END_TEST

START_TEST(null_arguments_refused)
{
	int value = 7;

	ck_assert_int_eq(libcumc_device_attribute_value(&dev0, CU_DEVICE_ATTRIBUTE_WARP_SIZE,
							NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(libcumc_device_attribute_value(NULL, CU_DEVICE_ATTRIBUTE_WARP_SIZE,
							&value),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(value, 7);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("device attributes");
	TCase *values = tcase_create("values");
	TCase *numbers = tcase_create("attribute numbers");

	tcase_add_test(values, list_covers_the_13_0_header);
	tcase_add_test(values, vmm_and_multicast_supported);
	tcase_add_test(values, unimplemented_memory_features_answer_zero);
	tcase_add_test(values, managed_memory_is_advertised);
	tcase_add_test(values, memory_pools_answer_what_is_provided);
	tcase_add_test(values, hopper_h100_sxm_figures);
	tcase_add_test(values, deprecated_aliases_answer_like_their_successors);
	tcase_add_test(values, location_comes_from_the_device);
	suite_add_tcase(s, values);

	tcase_add_loop_test(numbers, only_defined_attributes_answer, -64,
			    CU_DEVICE_ATTRIBUTE_MAX + 64);
	tcase_add_test(numbers, extreme_numbers_refused);
	tcase_add_test(numbers, null_arguments_refused);
	suite_add_tcase(s, numbers);

	return check_run(s);
}
