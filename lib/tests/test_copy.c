// SPDX-License-Identifier: MIT
/*
 * Copies and sets against the module (runs in the VM): cuMemcpyHtoD,
 * cuMemcpyDtoH, cuMemcpyDtoD, cuMemsetD8, cuMemsetD16 and cuMemsetD32, at
 * the edges of mappings, across adjacent mappings, and on addresses they
 * must refuse without faulting and without writing anything.
 */
#include <stdlib.h>

#include "check_run.h"
#include "vmm.h"

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
	vmm_use_device(0);
}

/* Distinct bytes, so that a misplaced one shows. */
static void fill_pattern(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + seed);
}

static void assert_bytes(CUdeviceptr addr, size_t len, unsigned char value)
{
	size_t i;

	for (i = 0; i < len; i++)
		ck_assert_uint_eq(vmm_bytes(addr)[i], value);
}

/* Two adjacent mappings, on devices 0 and 1 (when there is one). */
struct two_maps {
	CUdeviceptr va;
	CUmemGenericAllocationHandle h[2];
};

static struct two_maps two_maps_new(void)
{
	struct two_maps t;

	t.va = vmm_reserve(2 * gran);
	t.h[0] = vmm_map_new(0, t.va, gran);
	t.h[1] = vmm_map_new(1 % vmm_device_count(), t.va + gran, gran);
	return t;
}

static void two_maps_free(const struct two_maps *t)
{
	ck_assert_int_eq(cuMemUnmap(t->va, 2 * gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(t->h[0]), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(t->h[1]), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(t->va, 2 * gran), CUDA_SUCCESS);
}

START_TEST(everything_needs_init)
{
	unsigned char host[8] = { 0 };

	ck_assert_int_eq(cuMemcpyHtoD(1 << 30, host, 8), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemcpyDtoH(host, 1 << 30, 8), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemcpyDtoD(1 << 30, 2 << 30, 8), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemsetD8(1 << 30, 0, 8), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemsetD16(1 << 30, 0, 8), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemsetD32(1 << 30, 0, 8), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(everything_needs_a_live_context)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char host[8] = { 0 };
	CUcontext ctx;

	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(buf.va, host, 8), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuMemcpyDtoH(host, buf.va, 8), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuMemcpyDtoD(buf.va, buf.va + 8, 8), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuMemsetD8(buf.va, 1, 8), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(buf.va, 1, 2), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuMemcpyHtoD(buf.va, host, 8), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	assert_bytes(buf.va, 8, 0);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(round_trip_at_the_edges)
{
	/* Offset and length pairs: the first bytes, the last, odd ones. */
	static const size_t cases[][2] = {
		{ 0, 1 }, { 0, 4096 }, { 1, 7 }, { 4095, 2 },
		{ 0, 0 }, { 1, 0 }, { 2, 4093 },
	};
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char out[8192], in[8192];
	size_t i, off, len;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* Measured from the end of the mapping for odd i. */
		off = i % 2 ? gran - cases[i][0] - cases[i][1] : cases[i][0];
		len = cases[i][1];
		fill_pattern(out, len, i);
		memset(in, 0xee, sizeof(in));
		ck_assert_int_eq(cuMemcpyHtoD(buf.va + off, out, len), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemcpyDtoH(in, buf.va + off, len), CUDA_SUCCESS);
		ck_assert_mem_eq(in, out, len);
		ck_assert_uint_eq(in[len], 0xee);
		if (len)
			ck_assert_mem_eq(vmm_ptr(buf.va + off), out, len);
	}
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(copies_cross_adjacent_mappings)
{
	struct two_maps t = two_maps_new();
	size_t len = 3 * 4096 + 5;
	CUdeviceptr at = t.va + gran - len / 2;
	unsigned char *out = malloc(len), *in = malloc(len);

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(in);
	fill_pattern(out, len, 7);
	ck_assert_int_eq(cuMemcpyHtoD(at, out, len), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(in, at, len), CUDA_SUCCESS);
	ck_assert_mem_eq(in, out, len);
	/* Device to device, from one side of the boundary to the other. */
	ck_assert_int_eq(cuMemcpyDtoD(t.va, at, len), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(t.va), out, len);
	ck_assert_int_eq(cuMemcpyDtoD(t.va + 2 * gran - len, t.va, len), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(t.va + 2 * gran - len), out, len);
	two_maps_free(&t);
	free(out);
	free(in);
}
END_TEST

START_TEST(overlapping_device_copy_moves)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char out[300], want[300];

	fill_pattern(out, sizeof(out), 3);
	ck_assert_int_eq(cuMemcpyHtoD(buf.va, out, sizeof(out)), CUDA_SUCCESS);
	memmove(want, out, sizeof(want));
	memmove(want + 10, want, 200);
	ck_assert_int_eq(cuMemcpyDtoD(buf.va + 10, buf.va, 200), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(buf.va), want, sizeof(want));
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(zero_bytes_succeed_anywhere)
{
	ck_assert_int_eq(cuMemcpyHtoD(0, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoD(0, ~0ULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(~0ULL, 1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD16(0, 1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(0, 1, 0), CUDA_SUCCESS);
}
END_TEST

/* Addresses every copy must refuse, with nothing written anywhere. */
START_TEST(bad_device_ranges_refused)
{
	/* [m . m]: a mapping, a hole, a mapping; then the end of the range. */
	CUdeviceptr va = vmm_reserve(3 * gran);
	CUmemGenericAllocationHandle a = vmm_map_new(0, va, gran);
	CUmemGenericAllocationHandle b = vmm_map_new(0, va + 2 * gran, gran);
	const CUdeviceptr bad[][2] = {
		{ va + gran - 4, 8 },		/* into the hole */
		{ va + gran, 1 },		/* in the hole */
		{ va, 3 * gran },		/* over the hole */
		{ va + 3 * gran - 4, 8 },	/* past the reservation */
		{ va + 3 * gran, 1 },		/* after it */
		{ 0, 8 },
		{ ~0ULL - 3, 8 },		/* wraps around */
		{ va, ~0ULL },
	};
	unsigned char host[16] = { 0 };
	size_t i;

	ck_assert_int_eq(cuMemsetD8(va, 0xab, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(va + 2 * gran, 0xcd, gran), CUDA_SUCCESS);
	/* Refused before the host side is touched, whatever the length. */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CUdeviceptr at = bad[i][0];
		size_t len = bad[i][1];

		ck_assert_msg(cuMemcpyHtoD(at, host, len) == CUDA_ERROR_INVALID_VALUE,
			      "HtoD %zu", i);
		ck_assert_msg(cuMemcpyDtoH(host, at, len) == CUDA_ERROR_INVALID_VALUE,
			      "DtoH %zu", i);
		ck_assert_msg(cuMemsetD8(at, 1, len) == CUDA_ERROR_INVALID_VALUE,
			      "memset %zu", i);
		ck_assert_msg(cuMemcpyDtoD(at, va, len) == CUDA_ERROR_INVALID_VALUE,
			      "DtoD to %zu", i);
		ck_assert_msg(cuMemcpyDtoD(va, at, len) == CUDA_ERROR_INVALID_VALUE,
			      "DtoD from %zu", i);
	}
	assert_bytes(va + gran - 16, 16, 0xab);
	assert_bytes(va + 2 * gran, 16, 0xcd);
	assert_bytes(va + 3 * gran - 16, 16, 0xcd);
	assert_bytes((uintptr_t)host, sizeof(host), 0);
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemUnmap(va + 2 * gran, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 3 * gran), CUDA_SUCCESS);
}
END_TEST

START_TEST(non_device_addresses_refused)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char host[16] = { 0 }, other[16] = { 0 };

	/* Host memory is no device address, even though the CPU could. */
	ck_assert_int_eq(cuMemcpyHtoD((uintptr_t)other, host, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoH(host, (uintptr_t)other, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD8((uintptr_t)other, 1, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyHtoD(buf.va, NULL, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoH(NULL, buf.va, 8), CUDA_ERROR_INVALID_VALUE);
	assert_bytes((uintptr_t)other, sizeof(other), 0);
	vmm_buf_free(&buf);
}
END_TEST

/* The CPU stands in for the devices: any device's access is enough. */
START_TEST(copies_need_the_access_they_use)
{
	struct vmm_buf buf = vmm_buf_new(0, gran), src = vmm_buf_new(0, gran);
	unsigned char host[8] = { 0 }, ones[8];
	CUdevice last = vmm_device_count() - 1;

	memset(ones, 1, sizeof(ones));
	ck_assert_int_eq(cuMemsetD8(buf.va, 0x5a, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(vmm_set_access(buf.va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_READ),
			 CUDA_SUCCESS);
	/* Read-only: a source, not a destination. */
	ck_assert_int_eq(cuMemcpyDtoH(host, buf.va, 8), CUDA_SUCCESS);
	ck_assert_uint_eq(host[7], 0x5a);
	ck_assert_int_eq(cuMemcpyDtoD(src.va, buf.va, 8), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(buf.va, ones, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoD(buf.va, src.va, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD32(buf.va, 7, 2), CUDA_ERROR_INVALID_VALUE);
	/* No access: neither. */
	ck_assert_int_eq(vmm_set_access(buf.va, gran, 0, CU_MEM_ACCESS_FLAGS_PROT_NONE),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(host, buf.va, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoD(src.va, buf.va, 8), CUDA_ERROR_INVALID_VALUE);
	/* Another device's access is the CPU's too. */
	ck_assert_int_eq(vmm_set_access(buf.va, gran, last,
			CU_MEM_ACCESS_FLAGS_PROT_READWRITE), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(buf.va, ones, 8), CUDA_SUCCESS);
	assert_bytes(buf.va, 8, 1);
	assert_bytes(buf.va + 8, 4088, 0x5a);
	vmm_buf_free(&buf);
	vmm_buf_free(&src);
}
END_TEST

/* Sets */

/*
 * @n elements of @elem_size bytes of @pattern at @at, with the bytes
 * @before and @after around them.
 */
static void assert_set(CUdeviceptr at, unsigned int pattern, size_t elem_size,
		       size_t n, unsigned char before, unsigned char after)
{
	unsigned int v = pattern;
	size_t i;

	for (i = 0; i < n && v == pattern; i++) {
		v = 0;
		memcpy(&v, vmm_ptr(at + i * elem_size), elem_size);
	}
	ck_assert_msg(v == pattern, "element %zu is 0x%x", i - 1, v);
	ck_assert_uint_eq(vmm_bytes(at - 1)[0], before);
	ck_assert_uint_eq(vmm_bytes(at + n * elem_size)[0], after);
}

/*
 * Every width, at starts with each alignment to 16 bytes that the width
 * allows, over counts that leave heads and tails of every length; with
 * patterns that are one byte repeated (a memset) and patterns that are not.
 */
START_TEST(sets_write_exactly_their_elements)
{
	static const size_t offsets[] = { 4, 12, 16, 100, 4096 - 4 };
	static const size_t counts[] = { 1, 2, 3, 5, 31, 1000 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	size_t o, c, n;

	for (o = 0; o < sizeof(offsets) / sizeof(offsets[0]); o++) {
		for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			CUdeviceptr at = buf.va + offsets[o] + 64 * 1024 * c;

			n = counts[c];
			ck_assert_int_eq(cuMemsetD8(at - 4, 0xee, 4 * n + 8), CUDA_SUCCESS);
			ck_assert_int_eq(cuMemsetD32(at, 0x12345678, n), CUDA_SUCCESS);
			assert_set(at, 0x12345678, 4, n, 0xee, 0xee);
			ck_assert_int_eq(cuMemsetD32(at, 0x3c3c3c3c, n), CUDA_SUCCESS);
			assert_set(at, 0x3c3c3c3c, 4, n, 0xee, 0xee);
			ck_assert_int_eq(cuMemsetD16(at + 2, 0xbeef, 2 * n - 1), CUDA_SUCCESS);
			assert_set(at + 2, 0xbeef, 2, 2 * n - 1, 0x3c, 0xee);
			ck_assert_int_eq(cuMemsetD16(at, 0x0101, 2 * n), CUDA_SUCCESS);
			assert_set(at, 0x0101, 2, 2 * n, 0xee, 0xee);
			ck_assert_int_eq(cuMemsetD8(at + 1, 0x99, 4 * n - 1), CUDA_SUCCESS);
			assert_set(at + 1, 0x99, 1, 4 * n - 1, 0x01, 0xee);
		}
	}
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(sets_cover_whole_and_adjacent_mappings)
{
	struct two_maps t = two_maps_new();
	size_t words = 2 * gran / 4;

	ck_assert_int_eq(cuMemsetD32(t.va, 0xa5a5f00d, words), CUDA_SUCCESS);
	ck_assert_uint_eq(((volatile uint32_t *)vmm_ptr(t.va))[0], 0xa5a5f00d);
	ck_assert_uint_eq(((volatile uint32_t *)vmm_ptr(t.va))[words - 1], 0xa5a5f00d);
	ck_assert_int_eq(cuMemsetD16(t.va + gran - 6, 0x1234, 6), CUDA_SUCCESS);
	assert_set(t.va + gran - 6, 0x1234, 2, 6, 0xf0, 0xa5);
	ck_assert_int_eq(cuMemsetD8(t.va + 1, 0, 2 * gran - 2), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(t.va)[0], 0x0d);
	ck_assert_uint_eq(vmm_bytes(t.va + gran)[0], 0);
	ck_assert_uint_eq(vmm_bytes(t.va + 2 * gran - 1)[0], 0xa5);
	two_maps_free(&t);
}
END_TEST

START_TEST(sets_bad_arguments_refused)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);

	ck_assert_int_eq(cuMemsetD16(buf.va + 1, 7, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD32(buf.va + 2, 7, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD32(buf.va + 1, 7, 4), CUDA_ERROR_INVALID_VALUE);
	/* Element counts whose byte count overflows. */
	ck_assert_int_eq(cuMemsetD32(buf.va, 7, SIZE_MAX / 2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD16(buf.va, 7, SIZE_MAX), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD8(buf.va, 7, gran + 1), CUDA_ERROR_INVALID_VALUE);
	assert_bytes(buf.va, 64, 0);
	assert_bytes(buf.va + gran - 64, 64, 0);
	vmm_buf_free(&buf);
}
END_TEST

/* Multicast */

/* A copy-engine write to a multicast address reaches every member. */
START_TEST(multicast_destination_broadcasts)
{
	size_t size = vmm_mc_granularity() > gran ? vmm_mc_granularity() : gran;
	CUmulticastObjectProp prop = { .numDevices = 2, .size = size };
	CUmemGenericAllocationHandle mc, mem[2];
	CUdeviceptr va = vmm_reserve(4 * size), mc_va = va + 3 * size;
	unsigned char host[64];
	int m;

	ck_assert_int_eq(cuMulticastCreate(&mc, &prop), CUDA_SUCCESS);
	for (m = 0; m < 2; m++)
		ck_assert_int_eq(cuMulticastAddDevice(mc, m), CUDA_SUCCESS);
	/* Members' memory at va and va + size; a source buffer at va + 2 size. */
	for (m = 0; m < 3; m++) {
		CUmemGenericAllocationHandle h = vmm_map_new(m < 2 ? m : 0,
							     va + m * size, size);

		if (m < 2) {
			mem[m] = h;
			ck_assert_int_eq(cuMulticastBindMem(mc, 0, h, 0, size, 0),
					 CUDA_SUCCESS);
		} else {
			ck_assert_int_eq(cuMemRelease(h), CUDA_SUCCESS);
		}
	}
	ck_assert_int_eq(cuMemMap(mc_va, size, 0, mc, 0), CUDA_SUCCESS);
	/* Without access it is a bad destination like any other. */
	ck_assert_int_eq(cuMemsetD8(mc_va, 1, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(vmm_set_access(mc_va, size, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE),
			 CUDA_SUCCESS);

	memset(host, 0x5a, sizeof(host));
	ck_assert_int_eq(cuMemcpyHtoD(mc_va + 64, host, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(va + 2 * size, 0x33, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoD(mc_va + 128, va + 2 * size, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD16(mc_va + 192, 0x1122, 32), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(mc_va + 256, 0x77, 16), CUDA_SUCCESS);
	for (m = 0; m < 2; m++) {
		CUdeviceptr member = va + m * size;

		assert_bytes(member + 64, 64, 0x5a);
		assert_bytes(member + 128, 64, 0x33);
		ck_assert_uint_eq(*(volatile uint16_t *)vmm_ptr(member + 194), 0x1122);
		ck_assert_uint_eq(*(volatile uint32_t *)vmm_ptr(member + 316), 0x77);
		assert_bytes(member, 64, 0);
	}
	/* A range running off the multicast mapping is refused whole. */
	ck_assert_int_eq(cuMemsetD8(mc_va + size - 8, 1, 16), CUDA_ERROR_INVALID_VALUE);
	/* Nothing reads through a multicast address. */
	ck_assert_int_eq(cuMemcpyDtoH(host, mc_va, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoD(va, mc_va, 8), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuMemUnmap(va, 4 * size), CUDA_SUCCESS);
	for (m = 0; m < 2; m++) {
		ck_assert_int_eq(cuMulticastUnbind(mc, m, 0, size), CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(mem[m]), CUDA_SUCCESS);
	}
	ck_assert_int_eq(cuMemRelease(mc), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, 4 * size), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("copy");
	TCase *copy = tcase_create("copies");
	TCase *set = tcase_create("sets");

	check_add_uninit(s, everything_needs_init);

	tcase_add_checked_fixture(copy, setup, NULL);
	tcase_add_test(copy, everything_needs_a_live_context);
	tcase_add_test(copy, round_trip_at_the_edges);
	tcase_add_test(copy, copies_cross_adjacent_mappings);
	tcase_add_test(copy, overlapping_device_copy_moves);
	tcase_add_test(copy, zero_bytes_succeed_anywhere);
	tcase_add_test(copy, bad_device_ranges_refused);
	tcase_add_test(copy, non_device_addresses_refused);
	tcase_add_test(copy, copies_need_the_access_they_use);
	tcase_add_test(copy, multicast_destination_broadcasts);
	suite_add_tcase(s, copy);

	tcase_add_checked_fixture(set, setup, NULL);
	tcase_add_test(set, sets_write_exactly_their_elements);
	tcase_add_test(set, sets_cover_whole_and_adjacent_mappings);
	tcase_add_test(set, sets_bad_arguments_refused);
	suite_add_tcase(s, set);

	return check_run_forked(s);
}
