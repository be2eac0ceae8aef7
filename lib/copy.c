// SPDX-License-Identifier: MIT
/*
 * cuMemcpy*, cuMemsetD8/D16/D32 and their Async forms: the CPU stands in
 * for the copy engines.  Every device range is first checked mapping by
 * mapping (one CUMC_VA_QUERY each), so that a bad address costs the caller
 * an error code rather than a SIGSEGV; then plain memmove and fill loops
 * move the bytes at memory speed.  Host buffers are the caller's, as with
 * the real driver.  A device address may also be host memory CUDA knows of
 * (cuMemHostAlloc, cuMemHostRegister): with unified addressing, its
 * device pointer is its host address; or a variable of a loaded module
 * (cuModuleGetGlobal), whose storage is in the process too.
 *
 * One description of the operation (struct libcumc_copy) serves both
 * forms: its arguments are checked when it is called, then it runs after
 * the default stream's work (synchronous forms, on the calling thread) or
 * as an item of the stream (Async forms, on its worker, which checks the
 * ranges again: they may have been unmapped meanwhile, and an error then
 * is latched on the stream as a fault would be).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host_mem.h"
#include "mc_views.h"
#include "module_globals.h"
#include "stream.h"
#include "va.h"

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
CUresult libcumc_span_check(const struct libcumc_driver *drv,
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
	/* A module's variable, `.const` ones too: the host writes those. */
	if (libcumc_global_range(addr, len))
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

void libcumc_store_plain(void *dst, size_t len, const struct libcumc_store *what)
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

CUresult libcumc_store_device(const struct libcumc_driver *drv,
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

/*
 * One copy or set.  Each side is a device range (checked and, for a
 * multicast destination, broadcast) or a host buffer (the caller's).
 */
struct libcumc_copy {
	const struct libcumc_driver *drv;
	CUdeviceptr dst;
	CUdeviceptr src;		/* unused by a set */
	size_t len;
	bool dst_device;
	bool src_device;
	bool is_set;
	__u32 pattern;			/* of a set */
	unsigned int elem_size;		/* of a set */
	void *staging;			/* an Async copy's snapshot of src */
};

/* Both device ranges mapped with the access the copy needs. */
static CUresult libcumc_copy_check(const struct libcumc_copy *op)
{
	bool multicast;
	CUresult res;

	if (!op->len)
		return CUDA_SUCCESS;
	if (!op->is_set && op->src_device) {
		res = libcumc_span_check(op->drv, op->src, op->len,
					 CUMC_ACCESS_READ, &multicast);
		if (res != CUDA_SUCCESS)
			return res;
	}
	if (op->dst_device)
		return libcumc_span_check(op->drv, op->dst, op->len,
					  CUMC_ACCESS_READWRITE, &multicast);
	return CUDA_SUCCESS;
}

static CUresult libcumc_copy_exec(void *arg)
{
	const struct libcumc_copy *op = arg;
	struct libcumc_store what = {
		.src = op->staging ? op->staging : libcumc_host_ptr(op->src),
		.pattern = op->pattern,
		.elem_size = op->elem_size,
	};
	CUresult res;

	if (!op->len)
		return CUDA_SUCCESS;
	if (op->is_set)
		what.src = NULL;
	else if (op->src_device) {
		res = libcumc_copy_check(op);
		if (res != CUDA_SUCCESS)
			return res;
	}
	if (op->dst_device)
		return libcumc_store_device(op->drv, op->dst, op->len, &what);
	memmove(libcumc_host_ptr(op->dst), what.src, op->len);
	return CUDA_SUCCESS;
}

/* The synchronous form: after the default stream's work, on this thread. */
static CUresult libcumc_copy_sync(struct libcumc_copy *op, bool ptds)
{
	CUresult res = libcumc_copy_check(op);

	if (res != CUDA_SUCCESS || !op->len)
		return res;
	return libcumc_stream_run_sync(ptds, libcumc_copy_exec, op);
}

struct libcumc_copy_work {
	struct libcumc_work work;
	struct libcumc_copy op;
};

static CUresult libcumc_copy_work_run(struct libcumc_work *work)
{
	return libcumc_copy_exec(&((struct libcumc_copy_work *)work)->op);
}

static void libcumc_copy_work_fini(struct libcumc_work *work)
{
	free(((struct libcumc_copy_work *)work)->op.staging);
}

/* The node a capture makes of the item: one row set or copied. */
static void libcumc_copy_describe(const struct libcumc_work *work,
				  union libcumc_node_params *params)
{
	const struct libcumc_copy *op =
		&((const struct libcumc_copy_work *)work)->op;
	CUDA_MEMCPY3D *p = &params->memcpy;

	if (op->is_set) {
		params->memset = (CUDA_MEMSET_NODE_PARAMS){
			.dst = op->dst, .pitch = op->len,
			.value = op->pattern, .elementSize = op->elem_size,
			.width = op->len / op->elem_size, .height = 1,
		};
		return;
	}
	*p = (CUDA_MEMCPY3D){
		.srcMemoryType = op->src_device ? CU_MEMORYTYPE_DEVICE :
						  CU_MEMORYTYPE_HOST,
		.srcPitch = op->len, .srcHeight = 1,
		.dstMemoryType = op->dst_device ? CU_MEMORYTYPE_DEVICE :
						  CU_MEMORYTYPE_HOST,
		.dstPitch = op->len, .dstHeight = 1,
		.WidthInBytes = op->len, .Height = 1, .Depth = 1,
	};
	if (op->src_device)
		p->srcDevice = op->src;
	else
		p->srcHost = libcumc_host_ptr(op->src);
	if (op->dst_device)
		p->dstDevice = op->dst;
	else
		p->dstHost = libcumc_host_ptr(op->dst);
}

/*
 * The Async form.  A host source is read now, into a staging buffer: the
 * caller may reuse it once the call returns, as with pageable memory on
 * the real driver.
 */
static CUresult libcumc_copy_submit(struct libcumc_copy *op,
				    struct libcumc_stream *stream)
{
	struct libcumc_copy_work *w;
	CUresult res = libcumc_copy_check(op);

	if (res != CUDA_SUCCESS || !op->len)
		return res;
	w = (struct libcumc_copy_work *)libcumc_work_alloc(sizeof(*w),
						libcumc_copy_work_run);
	if (!w)
		return CUDA_ERROR_OUT_OF_MEMORY;
	w->work.fini = libcumc_copy_work_fini;
	w->work.capture_as = CUMC_CAPTURE_NODE;
	w->work.node_type = op->is_set ? CU_GRAPH_NODE_TYPE_MEMSET :
					 CU_GRAPH_NODE_TYPE_MEMCPY;
	w->work.describe = libcumc_copy_describe;
	w->op = *op;
	if (!op->is_set && !op->src_device) {
		w->op.staging = malloc(op->len);
		if (!w->op.staging) {
			libcumc_work_free(&w->work);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		memcpy(w->op.staging, libcumc_host_ptr(op->src), op->len);
	}
	return libcumc_stream_submit(stream, &w->work, NULL);
}

static CUresult libcumc_copy_async(struct libcumc_copy *op, CUstream hStream,
				   bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res = libcumc_stream_get(hStream, ptds, &stream);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_copy_submit(op, stream);
	libcumc_stream_put(stream);
	return res;
}

/* Host to device: NULL source refused unless nothing is copied. */
static CUresult libcumc_htod(CUdeviceptr dst, const void *src, size_t len,
			     struct libcumc_copy *op)
{
	*op = (struct libcumc_copy){
		.dst = dst, .src = (uintptr_t)src, .len = len,
		.dst_device = true,
	};
	return len && !src ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult libcumc_dtoh(void *dst, CUdeviceptr src, size_t len,
			     struct libcumc_copy *op)
{
	*op = (struct libcumc_copy){
		.dst = (uintptr_t)dst, .src = src, .len = len,
		.src_device = true,
	};
	return len && !dst ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* Overlapping ranges are undefined in CUDA; here they copy as memmove. */
static CUresult libcumc_dtod(CUdeviceptr dst, CUdeviceptr src, size_t len,
			     struct libcumc_copy *op)
{
	*op = (struct libcumc_copy){
		.dst = dst, .src = src, .len = len,
		.dst_device = true, .src_device = true,
	};
	return CUDA_SUCCESS;
}

/* @count elements of @elem_size bytes; @dst must be aligned to one. */
static CUresult libcumc_set(CUdeviceptr dst, __u32 pattern,
			    unsigned int elem_size, size_t count,
			    struct libcumc_copy *op)
{
	*op = (struct libcumc_copy){
		.dst = dst, .dst_device = true, .is_set = true,
		.pattern = pattern, .elem_size = elem_size,
	};
	if (dst % elem_size || __builtin_mul_overflow(count, elem_size,
						      &op->len))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult libcumc_set_on(struct libcumc_stream *stream, CUdeviceptr dst,
			__u32 pattern, unsigned int elem_size, size_t count)
{
	const struct libcumc_driver *drv;
	struct libcumc_copy op;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_set(dst, pattern, elem_size, count, &op);
	if (res != CUDA_SUCCESS)
		return res;
	op.drv = drv;
	return libcumc_copy_submit(&op, stream);
}

CUresult libcumc_unified_is_device(const struct libcumc_driver *drv,
				   CUdeviceptr addr, bool *device)
{
	struct cumc_va_query q;
	CUresult res = libcumc_address_query(drv, addr, 0, &q);

	if (res != CUDA_SUCCESS && res != CUDA_ERROR_NOT_FOUND)
		return res;
	*device = res == CUDA_SUCCESS || libcumc_global_range(addr, 0);
	return CUDA_SUCCESS;
}

/* cuMemcpy's unified addresses, classified as libcumc_unified_is_device. */
static CUresult libcumc_unified(const struct libcumc_driver *drv,
				CUdeviceptr dst, CUdeviceptr src, size_t len,
				struct libcumc_copy *op)
{
	CUresult res;

	*op = (struct libcumc_copy){ .dst = dst, .src = src, .len = len };
	if (!len)
		return CUDA_SUCCESS;
	res = libcumc_unified_is_device(drv, dst, &op->dst_device);
	if (res == CUDA_SUCCESS)
		res = libcumc_unified_is_device(drv, src, &op->src_device);
	if (res != CUDA_SUCCESS)
		return res;
	if ((!op->dst_device && !dst) || (!op->src_device && !src))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/*
 * The entry points: first cuInit (and, for the synchronous forms, a live
 * current context), then the arguments, then the stream.
 */
#define CUMC_SYNC_ENTRY(describe, ptds, ...)				\
	do {								\
		const struct libcumc_driver *drv;			\
		struct libcumc_copy op;					\
		CUresult res = libcumc_copy_begin(&drv);		\
									\
		if (res == CUDA_SUCCESS)				\
			res = describe(__VA_ARGS__, &op);		\
		if (res != CUDA_SUCCESS)				\
			return res;					\
		op.drv = drv;						\
		return libcumc_copy_sync(&op, ptds);			\
	} while (0)

#define CUMC_ASYNC_ENTRY(describe, stream, ptds, ...)			\
	do {								\
		const struct libcumc_driver *drv;			\
		struct libcumc_copy op;					\
		CUresult res = libcumc_driver(&drv);			\
									\
		if (res == CUDA_SUCCESS)				\
			res = describe(__VA_ARGS__, &op);		\
		if (res != CUDA_SUCCESS)				\
			return res;					\
		op.drv = drv;						\
		return libcumc_copy_async(&op, stream, ptds);		\
	} while (0)

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost,
				 size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_htod, false, dstDevice, srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice,
				      const void *srcHost, size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_htod, true, dstDevice, srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice,
				 size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_dtoh, false, dstHost, srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice,
				      size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_dtoh, true, dstHost, srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
				 size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_dtod, false, dstDevice, srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice,
				      CUdeviceptr srcDevice, size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_dtod, true, dstDevice, srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_unified, false, drv, dst, src, ByteCount);
}

CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src,
			       size_t ByteCount)
{
	CUMC_SYNC_ENTRY(libcumc_unified, true, drv, dst, src, ByteCount);
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc,
			       size_t N)
{
	CUMC_SYNC_ENTRY(libcumc_set, false, dstDevice, uc, 1, N);
}

CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc,
				    size_t N)
{
	CUMC_SYNC_ENTRY(libcumc_set, true, dstDevice, uc, 1, N);
}

CUresult CUDAAPI cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us,
				size_t N)
{
	CUMC_SYNC_ENTRY(libcumc_set, false, dstDevice, us, 2, N);
}

CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us,
				     size_t N)
{
	CUMC_SYNC_ENTRY(libcumc_set, true, dstDevice, us, 2, N);
}

CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui,
				size_t N)
{
	CUMC_SYNC_ENTRY(libcumc_set, false, dstDevice, ui, 4, N);
}

CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui,
				     size_t N)
{
	CUMC_SYNC_ENTRY(libcumc_set, true, dstDevice, ui, 4, N);
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice,
				      const void *srcHost, size_t ByteCount,
				      CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_htod, hStream, false, dstDevice, srcHost,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice,
					   const void *srcHost,
					   size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_htod, hStream, true, dstDevice, srcHost,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice,
				      size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_dtoh, hStream, false, dstHost, srcDevice,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dstHost,
					   CUdeviceptr srcDevice,
					   size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_dtoh, hStream, true, dstHost, srcDevice,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice,
				      CUdeviceptr srcDevice, size_t ByteCount,
				      CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_dtod, hStream, false, dstDevice, srcDevice,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice,
					   CUdeviceptr srcDevice,
					   size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_dtod, hStream, true, dstDevice, srcDevice,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src,
			       size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_unified, hStream, false, drv, dst, src,
			 ByteCount);
}

CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src,
				    size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_unified, hStream, true, drv, dst, src,
			 ByteCount);
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc,
				 size_t N, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_set, hStream, false, dstDevice, uc, 1, N);
}

CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc,
				      size_t N, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_set, hStream, true, dstDevice, uc, 1, N);
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us,
				  size_t N, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_set, hStream, false, dstDevice, us, 2, N);
}

CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dstDevice,
				       unsigned short us, size_t N,
				       CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_set, hStream, true, dstDevice, us, 2, N);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui,
				  size_t N, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_set, hStream, false, dstDevice, ui, 4, N);
}

CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui,
				       size_t N, CUstream hStream)
{
	CUMC_ASYNC_ENTRY(libcumc_set, hStream, true, dstDevice, ui, 4, N);
}
