// SPDX-License-Identifier: MIT
/*
 * cuMemcpyHtoD/DtoH/DtoD and cuMemsetD8/D16/D32: the CPU stands in for the
 * copy engines.  Every device range is first checked mapping by mapping
 * (one CUMC_VA_QUERY each), so that a bad address costs the caller an error
 * code rather than a SIGSEGV; then plain memmove and fill loops move the
 * bytes at memory speed.  Host buffers are the caller's, as with the real
 * driver.  A device address may also be host memory CUDA knows of
 * (cuMemHostAlloc, cuMemHostRegister): with unified addressing, its
 * device pointer is its host address.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "host_mem.h"
#include "mc_views.h"
#include "va.h"

/* What a copy or a set writes to device memory. */
struct libcumc_store {
	const void *src;	/* the bytes to copy, or NULL for a pattern */
	__u32 pattern;		/* repeated every elem_size bytes */
	unsigned int elem_size;	/* 1, 2 or 4 */
};

/* Sixteen bytes of a pattern at a time: SSE2 on x86-64. */
typedef uint64_t libcumc_fill_vec __attribute__((vector_size(16)));

static void *libcumc_host_ptr(CUdeviceptr addr)
{
	return (void *)(uintptr_t)addr;
}

/*
 * Check that [addr, addr + len) is mapped throughout, with @need access
 * for the CPU (any device's).  *@multicast tells whether part of it is a
 * multicast mapping, which only a write may target: nothing reads
 * through one on the hardware either.
 */
static CUresult libcumc_span_check(const struct libcumc_driver *drv,
				   CUdeviceptr addr, size_t len,
				   enum cumc_access need, bool *multicast)
{
	struct cumc_va_query q;
	CUdeviceptr end;
	CUresult res;

	*multicast = false;
	if (__builtin_add_overflow(addr, len, &end))
		return CUDA_ERROR_INVALID_VALUE;
	/* Host memory CUDA knows of: its device pointer is its address. */
	if (need == CUMC_ACCESS_READWRITE ?
	    libcumc_host_range_writable(addr, len) :
	    libcumc_host_range(addr, len))
		return CUDA_SUCCESS;
	while (addr < end) {
		res = libcumc_mapping_query(drv, addr, 0, &q);
		if (res == CUDA_ERROR_NOT_FOUND)
			return CUDA_ERROR_INVALID_VALUE;
		if (res != CUDA_SUCCESS)
			return res;
		if ((q.out_access_any & need) != need)
			return CUDA_ERROR_INVALID_VALUE;
		if (q.out_type == CUMC_VA_MULTICAST) {
			if (need != CUMC_ACCESS_READWRITE)
				return CUDA_ERROR_INVALID_VALUE;
			*multicast = true;
		}
		addr = libcumc_mapping_end(&q);
	}
	return CUDA_SUCCESS;
}

static void libcumc_fill_elems(unsigned char *dst, __u32 pattern,
			       unsigned int elem_size, size_t len)
{
	uint16_t half = pattern;
	size_t i;

	for (i = 0; i < len; i += elem_size) {
		if (elem_size == 2)
			memcpy(dst + i, &half, sizeof(half));
		else
			memcpy(dst + i, &pattern, sizeof(pattern));
	}
}

/*
 * @len bytes of a 2- or 4-byte @pattern at @dst, which is aligned to
 * @elem_size: elements up to a 16-byte boundary, then whole vectors, then
 * the elements left over.
 */
static void libcumc_fill_wide(unsigned char *dst, __u32 pattern,
			      unsigned int elem_size, size_t len)
{
	uint64_t word = elem_size == 2 ? (uint16_t)pattern * 0x0001000100010001ULL :
					 pattern * 0x0000000100000001ULL;
	libcumc_fill_vec vec = { word, word };
	size_t head = -(uintptr_t)dst & (sizeof(vec) - 1);
	libcumc_fill_vec *v;
	size_t i, n;

	if (head > len)
		head = len;
	libcumc_fill_elems(dst, pattern, elem_size, head);
	dst += head;
	len -= head;
	v = (libcumc_fill_vec *)dst;
	n = len / sizeof(vec);
	for (i = 0; i < n; i++)
		v[i] = vec;
	libcumc_fill_elems(dst + n * sizeof(vec), pattern, elem_size,
			   len - n * sizeof(vec));
}

/* A pattern whose bytes are all alike is a plain memset. */
static bool libcumc_pattern_is_one_byte(__u32 pattern, unsigned int elem_size)
{
	__u32 byte = pattern & 0xff;

	switch (elem_size) {
	case 2:
		return pattern == byte * 0x0101u;
	case 4:
		return pattern == byte * 0x01010101u;
	default:
		return true;
	}
}

static void libcumc_store_plain(void *dst, size_t len,
				const struct libcumc_store *what)
{
	if (what->src)
		memmove(dst, what->src, len);
	else if (libcumc_pattern_is_one_byte(what->pattern, what->elem_size))
		memset(dst, what->pattern & 0xff, len);
	else
		libcumc_fill_wide(dst, what->pattern, what->elem_size, len);
}

/*
 * A copy-engine write to a multicast address reaches every member: the
 * same store through each member's view. The range must lie in one
 * multicast mapping.
 */
static CUresult libcumc_store_multicast(CUdeviceptr dst, size_t len,
					const struct libcumc_store *what)
{
	struct libcumc_mc_span span;
	unsigned int m;
	CUresult res = libcumc_mc_acquire(dst, len, &span);

	if (res != CUDA_SUCCESS)
		return res;
	for (m = 0; m < span.map->num_members; m++)
		libcumc_store_plain(span.map->views[m] + span.offset, len,
				    what);
	libcumc_mc_release();
	return CUDA_SUCCESS;
}

static CUresult libcumc_store_device(const struct libcumc_driver *drv,
				     CUdeviceptr dst, size_t len,
				     const struct libcumc_store *what)
{
	bool multicast;
	CUresult res;

	res = libcumc_span_check(drv, dst, len, CUMC_ACCESS_READWRITE,
				 &multicast);
	if (res != CUDA_SUCCESS)
		return res;
	if (multicast)
		return libcumc_store_multicast(dst, len, what);
	libcumc_store_plain(libcumc_host_ptr(dst), len, what);
	return CUDA_SUCCESS;
}

/* What every copy and set checks first: cuInit, and a live current context. */
static CUresult libcumc_copy_begin(const struct libcumc_driver **drv)
{
	CUdevice dev;
	CUresult res = libcumc_driver(drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_current_device(&dev);
	return res;
}

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
				 size_t ByteCount)
{
	const struct libcumc_driver *drv;
	struct libcumc_store what = { .src = srcHost };
	CUresult res = libcumc_copy_begin(&drv);

	if (res != CUDA_SUCCESS || !ByteCount)
		return res;
	if (!srcHost)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_store_device(drv, dstDevice, ByteCount, &what);
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
				 size_t ByteCount)
{
	const struct libcumc_driver *drv;
	bool multicast;
	CUresult res = libcumc_copy_begin(&drv);

	if (res != CUDA_SUCCESS || !ByteCount)
		return res;
	if (!dstHost)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_span_check(drv, srcDevice, ByteCount, CUMC_ACCESS_READ,
				 &multicast);
	if (res == CUDA_SUCCESS)
		memcpy(dstHost, libcumc_host_ptr(srcDevice), ByteCount);
	return res;
}

/* Overlapping ranges are undefined in CUDA; here they copy as memmove. */
CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
				 size_t ByteCount)
{
	const struct libcumc_driver *drv;
	struct libcumc_store what = { .src = libcumc_host_ptr(srcDevice) };
	bool multicast;
	CUresult res = libcumc_copy_begin(&drv);

	if (res != CUDA_SUCCESS || !ByteCount)
		return res;
	res = libcumc_span_check(drv, srcDevice, ByteCount, CUMC_ACCESS_READ,
				 &multicast);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_store_device(drv, dstDevice, ByteCount, &what);
}

/* @count elements of @elem_size bytes; @dst must be aligned to one. */
static CUresult libcumc_memset(CUdeviceptr dst, __u32 pattern,
			       unsigned int elem_size, size_t count)
{
	const struct libcumc_driver *drv;
	struct libcumc_store what = {
		.pattern = pattern,
		.elem_size = elem_size,
	};
	size_t len;
	CUresult res = libcumc_copy_begin(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	if (dst % elem_size || __builtin_mul_overflow(count, elem_size, &len))
		return CUDA_ERROR_INVALID_VALUE;
	if (!len)
		return CUDA_SUCCESS;
	return libcumc_store_device(drv, dst, len, &what);
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc,
			       size_t N)
{
	return libcumc_memset(dstDevice, uc, 1, N);
}

CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us,
				size_t N)
{
	return libcumc_memset(dstDevice, us, 2, N);
}

CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui,
				size_t N)
{
	return libcumc_memset(dstDevice, ui, 4, N);
}
