// SPDX-License-Identifier: MIT
/*
 * The device address space against the module (runs in the VM):
 * cuMemAddressReserve, cuMemAddressFree, cuMemMap, cuMemUnmap,
 * cuMemSetAccess, cuMemGetAccess, cuMemRetainAllocationHandle and
 * cuMemGetAddressRange, with good and bad arguments, and what the CPU may
 * do through the addresses as mappings and access change.
 *
 * The VM emulates the CPU: tests touch a handful of pages each.
 */
#include <stdlib.h>
#include <unistd.h>

#include "check_run.h"
#include "vmm.h"

#define CANARY 0xdeadbeefcafef00dULL

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
}

START_TEST(everything_needs_init)
{
	CUmemAccessDesc desc = { { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
				 CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	CUmemGenericAllocationHandle handle;
	unsigned long long flags;
	CUdeviceptr va;
	size_t size;

	ck_assert_int_eq(cuMemAddressReserve(&va, 2 << 20, 0, 0, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemAddressFree(1 << 30, 2 << 20), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemMap(1 << 30, 2 << 20, 0, 1, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemUnmap(1 << 30, 2 << 20), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemSetAccess(1 << 30, 2 << 20, &desc, 1),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, 1 << 30), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemRetainAllocationHandle(&handle, &va),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemGetAddressRange(&va, &size, 1 << 30),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

/* Reservations */

START_TEST(reserve_aligned_as_asked)
{
	const size_t alignments[] = { 0, gran, 64 * gran, 1ULL << 30 };
	size_t i, want;
	CUdeviceptr va;

	for (i = 0; i < sizeof(alignments) / sizeof(alignments[0]); i++) {
		want = alignments[i] > gran ? alignments[i] : gran;
		ck_assert_int_eq(cuMemAddressReserve(&va, 3 * gran, alignments[i], 0, 0),
				 CUDA_SUCCESS);
		ck_assert_uint_eq(va % want, 0);
		ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_SUCCESS);
	}
}
END_TEST

START_TEST(reserve_free_hint_honoured)
{
	CUdeviceptr hint, va;

	/*
	 * An address well away from where the kernel puts things, in a range
	 * known to be free: one just reserved whole, then freed.
	 */
	ck_assert_int_eq(cuMemAddressReserve(&hint, 64 * gran, 1ULL << 30, 0, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(hint, 64 * gran), CUDA_SUCCESS);
	hint += 32 * gran;
	ck_assert_int_eq(cuMemAddressReserve(&va, 2 * gran, 0, hint, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(va, hint);
	/* Taken now: a hint, not a demand. */
	ck_assert_int_eq(cuMemAddressReserve(&hint, 2 * gran, 0, va, 0), CUDA_SUCCESS);
	ck_assert_uint_ne(hint, va);
	ck_assert_int_eq(cuMemAddressFree(hint, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 2 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(reserve_bad_arguments_refused)
{
	struct st_objects before = vmm_counts_now();
	CUdeviceptr va = CANARY;

	ck_assert_int_eq(cuMemAddressReserve(NULL, gran, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran, 0, 0, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran, 0, 0, ~0ULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, 0, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran / 2, 0, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran + 4096, 0, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, SIZE_MAX - gran + 1, 0, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran, 3 * gran, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressReserve(&va, gran, 0, (1ULL << 40) + 4096, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(va, CANARY);
	vmm_assert_counts_eq(vmm_counts_now(), before);
}
END_TEST

START_TEST(reserve_beyond_address_space_is_out_of_memory)
{
	CUdeviceptr va = CANARY;

	/* The whole 47-bit user address space cannot be free. */
	ck_assert_int_eq(cuMemAddressReserve(&va, 1ULL << 47, 0, 0, 0),
			 CUDA_ERROR_OUT_OF_MEMORY);
	ck_assert_uint_eq(va, CANARY);
}
END_TEST

START_TEST(free_whole_reservation_only)
{
	CUdeviceptr va = vmm_reserve(3 * gran);
	int local;

	ck_assert_int_eq(cuMemAddressFree(va + gran, 2 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressFree(va, 2 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressFree(0, 3 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressFree((uintptr_t)&local, 3 * gran),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(free_refused_while_mapped)
{
	CUdeviceptr va = vmm_reserve(2 * gran);
	CUmemGenericAllocationHandle h = vmm_map_new(0, va + gran, gran);

	ck_assert_int_eq(cuMemAddressFree(va, 2 * gran), CUDA_ERROR_INVALID_VALUE);
	/* Refused means untouched: the mapping still works. */
	vmm_bytes(va + gran)[0] = 0x5c;
	ck_assert_int_eq(cuMemUnmap(va + gran, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 2 * gran), CUDA_SUCCESS);
	vmm_assert_load_faults(va + gran);
}
END_TEST

/* Mappings */

START_TEST(map_bad_arguments_refused)
{
	CUdeviceptr va = vmm_reserve(4 * gran), other = vmm_reserve(gran);
	CUmemGenericAllocationHandle two = vmm_create(0, 2 * gran);
	CUmemGenericAllocationHandle stale = vmm_create(0, gran);
	struct st_objects before;

	ck_assert_int_eq(cuMemAddressFree(other, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(stale), CUDA_SUCCESS);
	before = vmm_counts_now();

	ck_assert_int_eq(cuMemMap(va, 2 * gran, 0, two, 1), CUDA_ERROR_INVALID_VALUE);
	/* An offset, a partial map, a map larger: NOT_SUPPORTED on driver 580. */
	ck_assert_int_eq(cuMemMap(va, 2 * gran, gran, two, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMap(va, gran, gran, two, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMap(va, gran, 0, two, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMap(va, 3 * gran, 0, two, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMap(va, 0, 0, two, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(va, 2 * gran + 4096, 0, two, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMap(va, 2 * gran, 4096, two, 0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMap(va + 4096, 2 * gran, 0, two, 0), CUDA_ERROR_INVALID_VALUE);
	/* Past the end of the reservation, or in none. */
	ck_assert_int_eq(cuMemMap(va + 3 * gran, 2 * gran, 0, two, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(other, 2 * gran, 0, two, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(0, 2 * gran, 0, two, 0), CUDA_ERROR_INVALID_VALUE);
	/* Handles that name nothing: the documentation has no other code. */
	ck_assert_int_eq(cuMemMap(va, gran, 0, stale, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(va, gran, 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(va, gran, 0, ~0ULL, 0), CUDA_ERROR_INVALID_VALUE);
	vmm_assert_counts_eq(vmm_counts_now(), before);

	ck_assert_int_eq(cuMemMap(va + 2 * gran, 2 * gran, 0, two, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(va + 2 * gran, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(two), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(map_over_mapping_refused)
{
	CUdeviceptr va = vmm_reserve(4 * gran);
	CUmemGenericAllocationHandle mapped = vmm_create(0, 2 * gran);
	CUmemGenericAllocationHandle two = vmm_create(1 % vmm_device_count(), 2 * gran);

	ck_assert_int_eq(cuMemMap(va + gran, 2 * gran, 0, mapped, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(va + gran, 2 * gran, 0, two, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(va, 2 * gran, 0, two, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(va + 2 * gran, 2 * gran, 0, two, 0),
			 CUDA_ERROR_INVALID_VALUE);
	/* Over the very same mapping again. */
	ck_assert_int_eq(cuMemMap(va + gran, 2 * gran, 0, mapped, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va + gran, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(mapped), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(two), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(map_gives_no_access_until_set)
{
	CUdeviceptr va = vmm_reserve(gran);
	CUmemGenericAllocationHandle h = vmm_create(0, gran);

	ck_assert_int_eq(cuMemMap(va, gran, 0, h, 0), CUDA_SUCCESS);
	vmm_assert_load_faults(va);
	vmm_assert_store_faults(va + gran - 1);
	ck_assert_int_eq(vmm_set_access(va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
			 CUDA_SUCCESS);
	vmm_assert_load_ok(va);
	vmm_assert_store_ok(va + gran - 1);
	/* New memory reads as zero. */
	ck_assert_uint_eq(vmm_bytes(va)[0], 0);
	ck_assert_uint_eq(vmm_bytes(va + gran - 1)[0], 0);
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(one_allocation_at_two_addresses_aliases)
{
	CUdeviceptr a = vmm_reserve(2 * gran), b = vmm_reserve(2 * gran);
	CUmemGenericAllocationHandle h = vmm_create(0, 2 * gran);

	ck_assert_int_eq(cuMemMap(a, 2 * gran, 0, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(b, 2 * gran, 0, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(a, 2 * gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
			 CUDA_SUCCESS);
	/* Access is per mapping: read-only through the second address. */
	ck_assert_int_eq(vmm_set_access(b, 2 * gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READ),
			 CUDA_SUCCESS);
	vmm_bytes(a)[0] = 0xa1;
	vmm_bytes(a + gran + 17)[0] = 0xa2;
	vmm_bytes(a + 2 * gran - 1)[0] = 0xa3;
	ck_assert_uint_eq(vmm_bytes(b)[0], 0xa1);
	ck_assert_uint_eq(vmm_bytes(b + gran + 17)[0], 0xa2);
	ck_assert_uint_eq(vmm_bytes(b + 2 * gran - 1)[0], 0xa3);
	vmm_assert_store_faults(b);
	vmm_assert_store_ok(a);

	/* Either lives on without the other. */
	ck_assert_int_eq(cuMemUnmap(a, 2 * gran), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(b + gran + 17)[0], 0xa2);
	vmm_assert_load_faults(a);
	ck_assert_int_eq(cuMemUnmap(b, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(a, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(b, 2 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(release_while_mapped_keeps_memory)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	size_t before;

	vmm_bytes(buf.va)[0] = 0x77;
	ck_assert_int_eq(cuMemRelease(buf.handle), CUDA_SUCCESS);
	before = vmm_free_bytes(0);
	ck_assert_uint_eq(vmm_bytes(buf.va)[0], 0x77);
	vmm_bytes(buf.va + gran - 1)[0] = 0x78;
	/* The mapping was the last holder: unmapping frees the memory. */
	ck_assert_int_eq(cuMemUnmap(buf.va, gran), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_free_bytes(0), before + gran);
	ck_assert_int_eq(cuMemAddressFree(buf.va, gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(unmap_adjacent_mappings_at_once)
{
	CUdeviceptr va = vmm_reserve(4 * gran);
	CUmemGenericAllocationHandle h[3];
	struct st_objects before = vmm_counts_now();
	int i;

	h[0] = vmm_map_new(0, va, gran);
	h[1] = vmm_map_new(0, va + gran, 2 * gran);
	h[2] = vmm_map_new(0, va + 3 * gran, gran);
	ck_assert_int_eq(vmm_counts_now().mappings, before.mappings + 3);
	ck_assert_int_eq(cuMemUnmap(va, 4 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_counts_now().mappings, before.mappings);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(cuMemRelease(h[i]), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(unmap_bad_ranges_refused)
{
	/* [a a . b b .]: two mappings, a hole between them and one after. */
	CUdeviceptr va = vmm_reserve(6 * gran);
	CUmemGenericAllocationHandle a = vmm_map_new(0, va, 2 * gran);
	CUmemGenericAllocationHandle b = vmm_map_new(0, va + 3 * gran, 2 * gran);
	struct st_objects before = vmm_counts_now();

	/* Ranges that cut a mapping. */
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va + gran, gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va, 4 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va + 2 * gran, 2 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va + gran, 5 * gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va + 6 * gran, gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(va + 1, 2 * gran), CUDA_ERROR_INVALID_VALUE);
	vmm_assert_counts_eq(vmm_counts_now(), before);

	/* Nothing mapped there: SUCCESS, as on driver 580, and nothing changes. */
	ck_assert_int_eq(cuMemUnmap(va + 2 * gran, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(va + 5 * gran, gran), CUDA_SUCCESS);
	vmm_assert_counts_eq(vmm_counts_now(), before);

	/* Mappings and holes: the mappings go, as on driver 580. */
	ck_assert_int_eq(cuMemUnmap(va, 3 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_counts_now().mappings, before.mappings - 1);
	ck_assert_int_eq(cuMemUnmap(va, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(va, 6 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_counts_now().mappings, before.mappings - 2);
	ck_assert_int_eq(cuMemUnmap(va + 3 * gran, 2 * gran), CUDA_SUCCESS);
	/* Outside every reservation: still a bad value. */
	ck_assert_int_eq(cuMemUnmap(va + 6 * gran, gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRelease(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 6 * gran), CUDA_SUCCESS);
}
END_TEST

/* Access */

START_TEST(access_levels_reach_the_cpu)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);

	vmm_bytes(buf.va)[0] = 0x42;
	ck_assert_int_eq(vmm_set_access(buf.va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READ),
			 CUDA_SUCCESS);
	vmm_assert_load_ok(buf.va);
	vmm_assert_store_faults(buf.va);
	vmm_assert_store_faults(buf.va + 5 * 4096);
	ck_assert_int_eq(vmm_set_access(buf.va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_NONE),
			 CUDA_SUCCESS);
	vmm_assert_load_faults(buf.va);
	ck_assert_int_eq(vmm_set_access(buf.va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
			 CUDA_SUCCESS);
	vmm_assert_store_ok(buf.va);
	ck_assert_uint_eq(vmm_bytes(buf.va)[0], 0x42);
	vmm_buf_free(&buf);
}
END_TEST

/* The CPU stands in for every device: any device's access lets it in. */
START_TEST(any_device_access_lets_the_cpu_in)
{
	CUdevice last = vmm_device_count() - 1;
	CUdeviceptr va = vmm_reserve(gran);
	CUmemGenericAllocationHandle h = vmm_create(0, gran);

	ck_assert_int_eq(cuMemMap(va, gran, 0, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(va, gran, last, CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
			 CUDA_SUCCESS);
	vmm_assert_store_ok(va);
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(set_access_over_adjacent_mappings_with_several_descriptors)
{
	int n = vmm_device_count();
	CUdeviceptr va = vmm_reserve(3 * gran);
	CUmemGenericAllocationHandle h[3];
	CUmemAccessDesc desc[3] = {
		{ { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READ },
		{ { CU_MEM_LOCATION_TYPE_DEVICE, n - 1 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
		/* A later descriptor for the same device wins. */
		{ { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
	};
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned long long flags;
	int i;

	for (i = 0; i < 3; i++) {
		h[i] = vmm_create(i % n, gran);
		ck_assert_int_eq(cuMemMap(va + i * gran, gran, 0, h[i], 0), CUDA_SUCCESS);
	}
	ck_assert_int_eq(cuMemSetAccess(va, 3 * gran, desc, 3), CUDA_SUCCESS);
	for (i = 0; i < 3; i++) {
		loc.id = 0;
		ck_assert_int_eq(cuMemGetAccess(&flags, &loc, va + i * gran + 99),
				 CUDA_SUCCESS);
		ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
		loc.id = n - 1;
		ck_assert_int_eq(cuMemGetAccess(&flags, &loc, va + i * gran), CUDA_SUCCESS);
		ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
		vmm_assert_store_ok(va + i * gran);
	}
	ck_assert_int_eq(cuMemUnmap(va, 3 * gran), CUDA_SUCCESS);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(cuMemRelease(h[i]), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_SUCCESS);
}
END_TEST

/* More descriptors than devices: the last one of each device counts. */
START_TEST(set_access_repeated_descriptors_last_wins)
{
	int n = vmm_device_count(), count = 3 * n, i;
	CUmemAccessDesc *desc = calloc(count, sizeof(*desc));
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned long long flags;

	ck_assert_ptr_nonnull(desc);
	for (i = 0; i < count; i++) {
		desc[i].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		desc[i].location.id = i % n;
		desc[i].flags = i < 2 * n ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE :
			i % 2 ? CU_MEM_ACCESS_FLAGS_PROT_READ : CU_MEM_ACCESS_FLAGS_PROT_NONE;
	}
	ck_assert_int_eq(cuMemSetAccess(buf.va, gran, desc, count), CUDA_SUCCESS);
	for (i = 0; i < n; i++) {
		loc.id = i;
		ck_assert_int_eq(cuMemGetAccess(&flags, &loc, buf.va), CUDA_SUCCESS);
		ck_assert_uint_eq(flags, desc[2 * n + i].flags);
	}
	vmm_buf_free(&buf);
	free(desc);
}
END_TEST

START_TEST(set_access_bad_arguments_refused)
{
	int n = vmm_device_count();
	CUdeviceptr va = vmm_reserve(3 * gran);
	CUmemGenericAllocationHandle h = vmm_create(0, gran);
	CUmemAccessDesc desc[2] = {
		{ { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
		{ { CU_MEM_LOCATION_TYPE_DEVICE, 0 }, CU_MEM_ACCESS_FLAGS_PROT_READWRITE },
	};
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned long long flags;

	ck_assert_int_eq(cuMemMap(va + gran, gran, 0, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, NULL, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 0), CUDA_ERROR_INVALID_VALUE);
	/* The second descriptor spoils the call: the first is not applied. */
	/* A bad device is a bad value, as on driver 580. */
	desc[1].location.id = n;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	desc[1].location.id = -1;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	desc[1].location.id = 0;
	desc[1].flags = (CUmemAccess_flags)2;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	desc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_MAX;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	desc[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
	desc[1].location.type = CU_MEM_LOCATION_TYPE_HOST;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	desc[1].location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	desc[1].location.type = CU_MEM_LOCATION_TYPE_INVALID;
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran, desc, 2), CUDA_ERROR_INVALID_VALUE);
	/* Ranges that are not whole mappings. */
	ck_assert_int_eq(cuMemSetAccess(va, gran, desc, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetAccess(va, 2 * gran, desc, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetAccess(va + gran, 2 * gran, desc, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetAccess(va + gran, gran / 2, desc, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetAccess(va + gran, 0, desc, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemSetAccess(0, gran, desc, 1), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, va + gran), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	vmm_assert_load_faults(va + gran);
	ck_assert_int_eq(cuMemUnmap(va + gran, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(get_access_bad_arguments_refused)
{
	CUdeviceptr va = vmm_reserve(2 * gran);
	CUmemGenericAllocationHandle h = vmm_map_new(0, va, gran);
	CUmemLocation loc = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	unsigned long long flags = CANARY;
	int local;

	ck_assert_int_eq(cuMemGetAccess(NULL, &loc, va), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAccess(&flags, NULL, va), CUDA_ERROR_INVALID_VALUE);
	loc.type = CU_MEM_LOCATION_TYPE_HOST;
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, va), CUDA_ERROR_INVALID_VALUE);
	loc.type = CU_MEM_LOCATION_TYPE_DEVICE;
	loc.id = vmm_device_count();
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, va), CUDA_ERROR_INVALID_DEVICE);
	loc.id = 0;
	ck_assert_uint_eq(flags, CANARY);
	/*
	 * Unmapped part of the reservation, and no reservation at all:
	 * PROT_NONE beside the error, as NVIDIA's driver answers.
	 */
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, va + gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	flags = CANARY;
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, (uintptr_t)&local),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAccess(&flags, &loc, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 2 * gran), CUDA_SUCCESS);
}
END_TEST

/* Retain and address range */

/*
 * As the real driver: the handle that was mapped, counted once more. NCCL's
 * free path relies on it: retain, release, unmap, release the same value.
 */
START_TEST(retain_counts_the_mapped_handle)
{
	int last = vmm_device_count() - 1;
	struct vmm_buf buf = vmm_buf_new(last, 2 * gran);
	CUmemGenericAllocationHandle retained = 0;
	CUmemAllocationProp prop;
	size_t before;

	vmm_bytes(buf.va)[0] = 0x3c;
	ck_assert_int_eq(cuMemRetainAllocationHandle(&retained,
			vmm_ptr(buf.va + gran + 123)), CUDA_SUCCESS);
	ck_assert_uint_eq(retained, buf.handle);
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&prop, retained),
			 CUDA_SUCCESS);
	ck_assert_int_eq(prop.location.id, last);
	ck_assert_int_eq(prop.requestedHandleTypes, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	ck_assert_int_eq(cuMemRelease(retained), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(buf.va, buf.size), CUDA_SUCCESS);
	/* The creation reference still holds it: the handle still works. */
	ck_assert_int_eq(cuMemGetAllocationPropertiesFromHandle(&prop, buf.handle),
			 CUDA_SUCCESS);
	before = vmm_free_bytes(last);
	ck_assert_int_eq(cuMemRelease(buf.handle), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_free_bytes(last), before + buf.size);
	ck_assert_int_eq(cuMemRelease(buf.handle), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemAddressFree(buf.va, buf.size), CUDA_SUCCESS);
}
END_TEST

/* With no handle of its own left (released while mapped), a new one. */
START_TEST(retain_after_release_gives_a_new_handle)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUmemGenericAllocationHandle retained = 0;

	ck_assert_int_eq(cuMemRelease(buf.handle), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRetainAllocationHandle(&retained, vmm_ptr(buf.va)),
			 CUDA_SUCCESS);
	ck_assert_uint_ne(retained, 0);
	ck_assert_uint_ne(retained, buf.handle);
	ck_assert_int_eq(cuMemRelease(retained), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(retained), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemUnmap(buf.va, buf.size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(buf.va, buf.size), CUDA_SUCCESS);
}
END_TEST

START_TEST(retain_needs_a_mapped_address)
{
	CUdeviceptr va = vmm_reserve(gran);
	CUmemGenericAllocationHandle handle = CANARY;
	int local;

	ck_assert_int_eq(cuMemRetainAllocationHandle(NULL, vmm_ptr(va)),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRetainAllocationHandle(&handle, vmm_ptr(va)),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRetainAllocationHandle(&handle, &local),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemRetainAllocationHandle(&handle, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(handle, CANARY);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(address_range_is_the_mapping)
{
	CUdeviceptr va = vmm_reserve(4 * gran), base = CANARY;
	CUmemGenericAllocationHandle h = vmm_map_new(0, va + gran, 2 * gran);
	size_t size = CANARY;
	int local;

	ck_assert_int_eq(cuMemGetAddressRange(&base, &size, va + gran),
			 CUDA_ERROR_INVALID_CONTEXT);
	vmm_use_device(0);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &size, va + 3 * gran - 1),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(base, va + gran);
	ck_assert_uint_eq(size, 2 * gran);
	/* Either output may be left out. */
	ck_assert_int_eq(cuMemGetAddressRange(NULL, &size, va + gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetAddressRange(&base, NULL, va + gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetAddressRange(NULL, NULL, va + gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &size, va), CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &size, va + 3 * gran),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &size, (uintptr_t)&local),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_uint_eq(base, va + gran);
	ck_assert_uint_eq(size, 2 * gran);
	ck_assert_int_eq(cuMemUnmap(va + gran, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * gran), CUDA_SUCCESS);
}
END_TEST

/* Lifetime */

/*
 * In a forked child: a new client with a mapped, touched allocation, left
 * as it is when the process dies (killed, or on its way out after @go_fd
 * closes).
 */
static void populate_and_wait(int ready_fd, int go_fd)
{
	struct vmm_buf buf;
	char go;
	int i;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	buf = vmm_buf_new(0, 2 * gran);
	for (i = 0; i < 3; i++)
		vmm_bytes(buf.va + i * 4096)[0] = i + 1;
	ck_assert_int_eq(write(ready_fd, "y", 1), 1);
	ck_assert_int_eq(read(go_fd, &go, 1), 0);
}

START_TEST(dead_process_leaves_nothing_behind)
{
	bool killed = _i == 0;
	struct st_objects before = vmm_counts_now(), live;
	int ready[2], go[2], status;
	char ok;
	pid_t pid;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(go[1]);
		populate_and_wait(ready[1], go[0]);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	ck_assert_int_eq(read(ready[0], &ok, 1), 1);
	live = vmm_counts_now();
	ck_assert_int_eq(live.clients, before.clients + 1);
	ck_assert_int_eq(live.mems, before.mems + 1);
	ck_assert_int_eq(live.vas, before.vas + 1);
	ck_assert_int_eq(live.mappings, before.mappings + 1);
	ck_assert_int_ge(live.pages, before.pages + 3);
	if (killed)
		ck_assert_int_eq(kill(pid, SIGKILL), 0);
	close(go[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(killed ? WIFSIGNALED(status) : WIFEXITED(status));
	vmm_assert_counts_eq(vmm_counts_now(), before);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("va");
	TCase *reserve = tcase_create("reservations");
	TCase *map = tcase_create("mappings");
	TCase *access = tcase_create("access");
	TCase *lookup = tcase_create("retain and address range");
	TCase *life = tcase_create("lifetime");
	TCase *all[] = { reserve, map, access, lookup, life };
	size_t i;

	check_add_uninit(s, everything_needs_init);

	tcase_add_test(reserve, reserve_aligned_as_asked);
	tcase_add_test(reserve, reserve_free_hint_honoured);
	tcase_add_test(reserve, reserve_bad_arguments_refused);
	tcase_add_test(reserve, reserve_beyond_address_space_is_out_of_memory);
	tcase_add_test(reserve, free_whole_reservation_only);
	tcase_add_test(reserve, free_refused_while_mapped);

	tcase_add_test(map, map_bad_arguments_refused);
	tcase_add_test(map, map_over_mapping_refused);
	tcase_add_test(map, map_gives_no_access_until_set);
	tcase_add_test(map, one_allocation_at_two_addresses_aliases);
	tcase_add_test(map, release_while_mapped_keeps_memory);
	tcase_add_test(map, unmap_adjacent_mappings_at_once);
	tcase_add_test(map, unmap_bad_ranges_refused);

	tcase_add_test(access, access_levels_reach_the_cpu);
	tcase_add_test(access, any_device_access_lets_the_cpu_in);
	tcase_add_test(access, set_access_over_adjacent_mappings_with_several_descriptors);
	tcase_add_test(access, set_access_repeated_descriptors_last_wins);
	tcase_add_test(access, set_access_bad_arguments_refused);
	tcase_add_test(access, get_access_bad_arguments_refused);

	tcase_add_test(lookup, retain_counts_the_mapped_handle);
	tcase_add_test(lookup, retain_after_release_gives_a_new_handle);
	tcase_add_test(lookup, retain_needs_a_mapped_address);
	tcase_add_test(lookup, address_range_is_the_mapping);

	/* Killed, then exiting without cleaning up. */
	tcase_add_loop_test(life, dead_process_leaves_nothing_behind, 0, 2);

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		tcase_add_checked_fixture(all[i], setup, NULL);
		suite_add_tcase(s, all[i]);
	}
	return check_run_forked(s);
}
