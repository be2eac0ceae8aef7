// SPDX-License-Identifier: MIT
/*
 * The copies that see memory as rows: cuMemcpy2D, cuMemcpy3D (and their
 * Unaligned, Async and Peer forms), the array copies of a byte range
 * (cuMemcpyAtoH, HtoA, AtoD, DtoA, AtoA and the Async ones), and the 2D
 * sets (cuMemsetD2D8/16/32 and Async).  As in copy.c the CPU moves the
 * bytes: each side of a copy is host memory (the caller's), device memory
 * (checked mapping by mapping, once over the whole extent the copy
 * touches) or an array (array.h), and the copy is a loop over rows of
 * plain memmoves or fills, or, for a multicast destination, of stores to
 * every member.
 *
 * All of them are one description (struct libcumc_copy3d), run as
 * copy.c's are: synchronous forms after the default stream's work, on
 * the calling thread; Async forms as an item of the stream, which checks
 * the device extents again when it runs.  A graph's memcpy nodes are
 * checked and run by the same code (libcumc_copy3d_params_check(),
 * libcumc_copy3d_on()), and a captured copy or set becomes such a node.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "context.h"
#include "procaddr.h"
#include "stream.h"

enum libcumc_side_kind {
	CUMC_SIDE_HOST,
	CUMC_SIDE_DEVICE,
	CUMC_SIDE_ARRAY,
};

/*
 * One side of a copy, as rows: row y of slice z starts at base +
 * (z * rows + y) * pitch.  An array's are its layout's.
 */
struct libcumc_side {
	enum libcumc_side_kind kind;
	CUmemorytype type;		/* as the caller named it */
	CUarray handle;			/* an array's */
	CUdeviceptr base;
	size_t pitch;			/* bytes from a row to the next */
	size_t rows;			/* rows from a slice to the next */
	size_t x, y, z;			/* where the copy starts: byte, row, slice */
	struct libcumc_array *array;	/* a reference, for an array */
};

struct libcumc_copy3d {
	const struct libcumc_driver *drv;
	struct libcumc_side src;	/* unused by a set */
	struct libcumc_side dst;
	size_t width;			/* bytes of a row */
	size_t height;			/* rows of a slice */
	size_t depth;			/* slices */
	bool is_set;
	__u32 pattern;			/* of a set */
	unsigned int elem_size;		/* of a set */
	bool dst_multicast;		/* found by the last check */
	/* An Async copy's snapshot of a host source, its rows packed. */
	unsigned char *staging;
};

/* Both sides of a copy as CUDA_MEMCPY3D_PEER describes them. */
struct libcumc_copy_desc {
	size_t x, y, z;
	CUmemorytype type;
	CUdeviceptr host;		/* the host pointer */
	CUdeviceptr device;
	CUarray array;
	size_t pitch;
	size_t height;
};

static bool libcumc_is_empty(const struct libcumc_copy3d *op)
{
	return !op->width || !op->height || !op->depth;
}

static void libcumc_copy3d_release(struct libcumc_copy3d *op)
{
	libcumc_array_put(op->src.array);
	libcumc_array_put(op->dst.array);
	free(op->staging);
}

/*
 * The array @handle as a side; @linear: as its first row only (the
 * byte-offset copies: NVIDIA's driver refuses bytes past it), else as
 * its rows and slices.  @x and the width may split an element, as the
 * driver allows (the copy is of bytes).  Every byte the copy touches
 * must lie inside the array.
 */
static CUresult libcumc_array_side(CUarray handle, bool linear,
				   const struct libcumc_copy3d *op,
				   struct libcumc_side *side)
{
	struct libcumc_array_layout layout;
	size_t slice, end;
	CUresult res = libcumc_array_get(handle, &side->array, &layout);

	if (res != CUDA_SUCCESS)
		return res;
	side->kind = CUMC_SIDE_ARRAY;
	side->type = CU_MEMORYTYPE_ARRAY;
	side->handle = handle;
	side->base = (uintptr_t)layout.data;
	side->pitch = layout.row_bytes;
	side->rows = layout.rows;
	if (linear) {
		side->rows = 1;
		layout.rows = 1;
		layout.slices = 1;
	}
	slice = side->z;
	if (__builtin_add_overflow(side->x, op->width, &end) ||
	    end > side->pitch || side->y > layout.rows ||
	    op->height > layout.rows - side->y || slice > layout.slices ||
	    op->depth > layout.slices - slice)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/*
 * A host, device or unified side.  Its pitch matters only when the copy
 * has more than one row, its rows per slice only with more than one
 * slice; then they must hold the rows and slices the copy reads.
 */
static CUresult libcumc_pitched_side(const struct libcumc_copy3d *op,
				     const struct libcumc_copy_desc *d,
				     struct libcumc_side *side)
{
	bool device;
	CUresult res;
	size_t end;

	switch (d->type) {
	case CU_MEMORYTYPE_HOST:
		side->kind = CUMC_SIDE_HOST;
		side->base = d->host;
		break;
	case CU_MEMORYTYPE_DEVICE:
		side->kind = CUMC_SIDE_DEVICE;
		side->base = d->device;
		break;
	default:
		res = libcumc_unified_is_device(op->drv, d->device, &device);
		if (res != CUDA_SUCCESS)
			return res;
		side->kind = device ? CUMC_SIDE_DEVICE : CUMC_SIDE_HOST;
		side->base = d->device;
		break;
	}
	/* An empty copy reads no host memory: the driver lets it be NULL. */
	if (side->kind == CUMC_SIDE_HOST && !side->base && !libcumc_is_empty(op))
		return CUDA_ERROR_INVALID_VALUE;
	side->pitch = d->pitch;
	side->rows = d->height;
	if (op->height > 1 || op->depth > 1) {
		if (__builtin_add_overflow(side->x, op->width, &end) ||
		    end > side->pitch || side->pitch > INT32_MAX)
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (op->depth > 1 && (side->y > side->rows ||
			      op->height > side->rows - side->y))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult libcumc_side_describe(const struct libcumc_copy3d *op,
				      const struct libcumc_copy_desc *d,
				      struct libcumc_side *side)
{
	/* cuda.h wants the LODs 0; NVIDIA's driver ignores them. */
	*side = (struct libcumc_side){
		.type = d->type, .x = d->x, .y = d->y, .z = d->z,
	};
	switch (d->type) {
	case CU_MEMORYTYPE_HOST:
	case CU_MEMORYTYPE_DEVICE:
	case CU_MEMORYTYPE_UNIFIED:
		return libcumc_pitched_side(op, d, side);
	case CU_MEMORYTYPE_ARRAY:
		return libcumc_array_side(d->array, false, op, side);
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* The address of the first byte the copy touches in @side, and its extent. */
static CUresult libcumc_side_extent(const struct libcumc_copy3d *op,
				    const struct libcumc_side *side,
				    CUdeviceptr *start, size_t *len)
{
	size_t slice_bytes, offset, span;

	if (__builtin_mul_overflow(side->pitch, side->rows, &slice_bytes) ||
	    __builtin_mul_overflow(side->z, slice_bytes, &offset) ||
	    __builtin_mul_overflow(side->y, side->pitch, &span) ||
	    __builtin_add_overflow(offset, span, &offset) ||
	    __builtin_add_overflow(offset, side->x, &offset) ||
	    __builtin_add_overflow(side->base, offset, start))
		return CUDA_ERROR_INVALID_VALUE;
	/* From the first row's start to the last row's end. */
	if (__builtin_mul_overflow(op->depth - 1, slice_bytes, &span) ||
	    __builtin_mul_overflow(op->height - 1, side->pitch, &offset) ||
	    __builtin_add_overflow(span, offset, &span) ||
	    __builtin_add_overflow(span, op->width, len) ||
	    __builtin_add_overflow(*start, *len, &offset))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* The device sides mapped, with the access the copy needs, throughout. */
static CUresult libcumc_copy3d_check(struct libcumc_copy3d *op)
{
	CUdeviceptr start;
	bool multicast;
	CUresult res;
	size_t len;

	if (libcumc_is_empty(op))
		return CUDA_SUCCESS;
	if (!op->is_set) {
		res = libcumc_side_extent(op, &op->src, &start, &len);
		if (res == CUDA_SUCCESS && op->src.kind == CUMC_SIDE_DEVICE)
			res = libcumc_span_check(op->drv, start, len,
						 CUMC_ACCESS_READ, &multicast);
		if (res != CUDA_SUCCESS)
			return res;
	}
	res = libcumc_side_extent(op, &op->dst, &start, &len);
	if (res == CUDA_SUCCESS && op->dst.kind == CUMC_SIDE_DEVICE)
		res = libcumc_span_check(op->drv, start, len,
					 CUMC_ACCESS_READWRITE,
					 &op->dst_multicast);
	return res;
}

static CUdeviceptr libcumc_row(const struct libcumc_side *side, size_t y,
			       size_t z)
{
	return side->base + ((side->z + z) * side->rows + side->y + y) *
			    side->pitch + side->x;
}

static CUresult libcumc_copy3d_exec(void *arg)
{
	struct libcumc_copy3d *op = arg;
	struct libcumc_store what = {
		.pattern = op->pattern,
		.elem_size = op->elem_size,
	};
	CUdeviceptr dst;
	CUresult res;
	size_t y, z;

	if (libcumc_is_empty(op))
		return CUDA_SUCCESS;
	res = libcumc_copy3d_check(op);
	if (res != CUDA_SUCCESS)
		return res;
	for (z = 0; z < op->depth; z++)
		for (y = 0; y < op->height; y++) {
			if (op->staging)
				what.src = op->staging +
					   (z * op->height + y) * op->width;
			else if (!op->is_set)
				what.src = (const void *)(uintptr_t)
					   libcumc_row(&op->src, y, z);
			dst = libcumc_row(&op->dst, y, z);
			if (!op->dst_multicast) {
				libcumc_store_plain((void *)(uintptr_t)dst,
						    op->width, &what);
				continue;
			}
			res = libcumc_store_device(op->drv, dst, op->width,
						   &what);
			if (res != CUDA_SUCCESS)
				return res;
		}
	return CUDA_SUCCESS;
}

/* The synchronous form: after the default stream's work, on this thread. */
static CUresult libcumc_copy3d_sync(struct libcumc_copy3d *op, bool ptds)
{
	CUresult res = libcumc_copy3d_check(op);

	if (res == CUDA_SUCCESS && !libcumc_is_empty(op))
		res = libcumc_stream_run_sync(ptds, libcumc_copy3d_exec, op);
	libcumc_copy3d_release(op);
	return res;
}

struct libcumc_copy3d_work {
	struct libcumc_work work;
	struct libcumc_copy3d op;
};

static CUresult libcumc_copy3d_work_run(struct libcumc_work *work)
{
	return libcumc_copy3d_exec(&((struct libcumc_copy3d_work *)work)->op);
}

static void libcumc_copy3d_work_fini(struct libcumc_work *work)
{
	libcumc_copy3d_release(&((struct libcumc_copy3d_work *)work)->op);
}

/*
 * A host source read now, packed, so that the caller may reuse it once
 * the call returns (copy.c does the same); the source stays described as
 * the caller gave it, for a capture.
 */
static CUresult libcumc_copy3d_stage(struct libcumc_copy3d *op)
{
	unsigned char *staging;
	size_t bytes, y, z;

	if (__builtin_mul_overflow(op->width, op->height, &bytes) ||
	    __builtin_mul_overflow(bytes, op->depth, &bytes))
		return CUDA_ERROR_INVALID_VALUE;
	staging = malloc(bytes);
	if (!staging)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (z = 0; z < op->depth; z++)
		for (y = 0; y < op->height; y++)
			memcpy(staging + (z * op->height + y) * op->width,
			       (const void *)(uintptr_t)libcumc_row(&op->src, y, z),
			       op->width);
	op->staging = staging;
	return CUDA_SUCCESS;
}

/* One side as a memcpy node's parameters hold it. */
static void libcumc_side_params(const struct libcumc_side *side,
				CUmemorytype *type, const void **host,
				CUdeviceptr *device, CUarray *array,
				size_t *pitch, size_t *height)
{
	*type = side->type;
	*pitch = side->pitch;
	*height = side->rows;
	if (side->kind == CUMC_SIDE_ARRAY)
		*array = side->handle;
	else if (side->type == CU_MEMORYTYPE_HOST)
		*host = (const void *)(uintptr_t)side->base;
	else
		*device = side->base;
}

/* What a capture makes of the item: a memcpy node, or a memset node. */
static void libcumc_copy3d_describe(const struct libcumc_work *work,
				    union libcumc_node_params *params)
{
	const struct libcumc_copy3d *op =
		&((const struct libcumc_copy3d_work *)work)->op;
	CUDA_MEMCPY3D *p = &params->memcpy;
	const void *dst_host = NULL;

	if (op->is_set) {
		params->memset = (CUDA_MEMSET_NODE_PARAMS){
			.dst = op->dst.base, .pitch = op->dst.pitch,
			.value = op->pattern, .elementSize = op->elem_size,
			.width = op->width / op->elem_size,
			.height = op->height,
		};
		return;
	}
	*p = (CUDA_MEMCPY3D){
		.srcXInBytes = op->src.x, .srcY = op->src.y, .srcZ = op->src.z,
		.dstXInBytes = op->dst.x, .dstY = op->dst.y, .dstZ = op->dst.z,
		.WidthInBytes = op->width, .Height = op->height,
		.Depth = op->depth,
	};
	libcumc_side_params(&op->src, &p->srcMemoryType, &p->srcHost,
			    &p->srcDevice, &p->srcArray, &p->srcPitch,
			    &p->srcHeight);
	libcumc_side_params(&op->dst, &p->dstMemoryType, &dst_host,
			    &p->dstDevice, &p->dstArray, &p->dstPitch,
			    &p->dstHeight);
	p->dstHost = (void *)dst_host;
}

/*
 * @op, checked, queued on @stream; its references go with it.  @stage:
 * a host source is read now (the Async entry points), else when the item
 * runs (a graph's memcpy node).
 */
static CUresult libcumc_copy3d_submit(struct libcumc_copy3d *op,
				      struct libcumc_stream *stream,
				      bool stage)
{
	struct libcumc_copy3d_work *w;
	CUresult res = libcumc_copy3d_check(op);

	if (res != CUDA_SUCCESS || libcumc_is_empty(op))
		goto err_release;
	if (stage && !op->is_set && op->src.kind == CUMC_SIDE_HOST) {
		res = libcumc_copy3d_stage(op);
		if (res != CUDA_SUCCESS)
			goto err_release;
	}
	res = CUDA_ERROR_OUT_OF_MEMORY;
	w = (struct libcumc_copy3d_work *)libcumc_work_alloc(sizeof(*w),
						libcumc_copy3d_work_run);
	if (!w)
		goto err_release;
	w->work.fini = libcumc_copy3d_work_fini;
	w->work.capture_as = CUMC_CAPTURE_NODE;
	w->work.node_type = op->is_set ? CU_GRAPH_NODE_TYPE_MEMSET :
					 CU_GRAPH_NODE_TYPE_MEMCPY;
	w->work.describe = libcumc_copy3d_describe;
	w->op = *op;
	return libcumc_stream_submit(stream, &w->work, NULL);

err_release:
	libcumc_copy3d_release(op);
	return res;
}

/* The Async form; @op's references go with it to the stream. */
static CUresult libcumc_copy3d_async(struct libcumc_copy3d *op,
				     CUstream hStream, bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res = libcumc_stream_get(hStream, ptds, &stream);

	if (res != CUDA_SUCCESS) {
		libcumc_copy3d_release(op);
		return res;
	}
	res = libcumc_copy3d_submit(op, stream, true);
	libcumc_stream_put(stream);
	return res;
}

/*
 * The copy @p describes; on failure, nothing held.  Contexts are checked
 * only by the Peer forms (@peer): they name where each side lives, and
 * every context's memory is reachable by the CPU alike.
 */
static CUresult libcumc_copy3d_from_peer(const CUDA_MEMCPY3D_PEER *p,
					 bool peer,
					 struct libcumc_copy3d *op)
{
	const struct libcumc_copy_desc src = {
		.x = p->srcXInBytes, .y = p->srcY, .z = p->srcZ,
		.type = p->srcMemoryType,
		.host = (uintptr_t)p->srcHost, .device = p->srcDevice,
		.array = p->srcArray, .pitch = p->srcPitch,
		.height = p->srcHeight,
	};
	const struct libcumc_copy_desc dst = {
		.x = p->dstXInBytes, .y = p->dstY, .z = p->dstZ,
		.type = p->dstMemoryType,
		.host = (uintptr_t)p->dstHost, .device = p->dstDevice,
		.array = p->dstArray, .pitch = p->dstPitch,
		.height = p->dstHeight,
	};
	CUdevice dev;
	CUresult res;

	op->width = p->WidthInBytes;
	op->height = p->Height;
	op->depth = p->Depth;
	if (peer) {
		res = libcumc_context_device(p->srcContext, &dev);
		if (res == CUDA_SUCCESS)
			res = libcumc_context_device(p->dstContext, &dev);
		if (res != CUDA_SUCCESS)
			return res;
	}
	res = libcumc_side_describe(op, &src, &op->src);
	if (res == CUDA_SUCCESS)
		res = libcumc_side_describe(op, &dst, &op->dst);
	if (res != CUDA_SUCCESS)
		libcumc_copy3d_release(op);
	return res;
}

static CUresult libcumc_copy3d_desc(const CUDA_MEMCPY3D *p,
				    struct libcumc_copy3d *op)
{
	CUDA_MEMCPY3D_PEER peer;

	/* The reserved members must be NULL (cuda.h). */
	if (!p || p->reserved0 || p->reserved1)
		return CUDA_ERROR_INVALID_VALUE;
	peer = (CUDA_MEMCPY3D_PEER){
		.srcXInBytes = p->srcXInBytes, .srcY = p->srcY,
		.srcZ = p->srcZ, .srcLOD = p->srcLOD,
		.srcMemoryType = p->srcMemoryType, .srcHost = p->srcHost,
		.srcDevice = p->srcDevice, .srcArray = p->srcArray,
		.srcPitch = p->srcPitch, .srcHeight = p->srcHeight,
		.dstXInBytes = p->dstXInBytes, .dstY = p->dstY,
		.dstZ = p->dstZ, .dstLOD = p->dstLOD,
		.dstMemoryType = p->dstMemoryType, .dstHost = p->dstHost,
		.dstDevice = p->dstDevice, .dstArray = p->dstArray,
		.dstPitch = p->dstPitch, .dstHeight = p->dstHeight,
		.WidthInBytes = p->WidthInBytes, .Height = p->Height,
		.Depth = p->Depth,
	};
	return libcumc_copy3d_from_peer(&peer, false, op);
}

CUresult libcumc_copy3d_params_check(const CUDA_MEMCPY3D *p)
{
	struct libcumc_copy3d op = { 0 };
	CUresult res = libcumc_driver(&op.drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_copy3d_desc(p, &op);
	if (res == CUDA_SUCCESS)
		libcumc_copy3d_release(&op);
	return res;
}

CUresult libcumc_copy3d_on(struct libcumc_stream *stream,
			   const CUDA_MEMCPY3D *p)
{
	struct libcumc_copy3d op = { 0 };
	CUresult res = libcumc_driver(&op.drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_copy3d_desc(p, &op);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_copy3d_submit(&op, stream, false);
}

static CUresult libcumc_copy3d_peer_desc(const CUDA_MEMCPY3D_PEER *p,
					 struct libcumc_copy3d *op)
{
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_copy3d_from_peer(p, true, op);
}

/* A 2D copy is a 3D copy of one slice. */
static CUresult libcumc_copy2d_desc(const CUDA_MEMCPY2D *p,
				    struct libcumc_copy3d *op)
{
	CUDA_MEMCPY3D_PEER peer;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	peer = (CUDA_MEMCPY3D_PEER){
		.srcXInBytes = p->srcXInBytes, .srcY = p->srcY,
		.srcMemoryType = p->srcMemoryType, .srcHost = p->srcHost,
		.srcDevice = p->srcDevice, .srcArray = p->srcArray,
		.srcPitch = p->srcPitch,
		.dstXInBytes = p->dstXInBytes, .dstY = p->dstY,
		.dstMemoryType = p->dstMemoryType, .dstHost = p->dstHost,
		.dstDevice = p->dstDevice, .dstArray = p->dstArray,
		.dstPitch = p->dstPitch,
		.WidthInBytes = p->WidthInBytes, .Height = p->Height,
		.Depth = 1,
	};
	return libcumc_copy3d_from_peer(&peer, false, op);
}

/*
 * The byte-offset copies: one row of @len bytes, an array side seen as
 * its bytes in layout order (array.h).  A host or device side is given
 * as a row of its own.
 */
static CUresult libcumc_linear_side(CUarray array, size_t offset,
				    enum libcumc_side_kind kind,
				    CUdeviceptr addr,
				    const struct libcumc_copy3d *op,
				    struct libcumc_side *side)
{
	*side = (struct libcumc_side){ .x = offset };
	if (kind == CUMC_SIDE_ARRAY)
		return libcumc_array_side(array, true, op, side);
	*side = (struct libcumc_side){
		.kind = kind,
		.type = kind == CUMC_SIDE_HOST ? CU_MEMORYTYPE_HOST :
						 CU_MEMORYTYPE_DEVICE,
		.base = addr, .pitch = op->width, .rows = 1,
	};
	return kind == CUMC_SIDE_HOST && !addr && op->width ?
	       CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

struct libcumc_linear {
	enum libcumc_side_kind kind;
	CUarray array;
	size_t offset;
	CUdeviceptr addr;
};

static CUresult libcumc_linear_desc(struct libcumc_linear dst,
				    struct libcumc_linear src, size_t len,
				    struct libcumc_copy3d *op)
{
	CUresult res;

	op->width = len;
	op->height = 1;
	op->depth = 1;
	res = libcumc_linear_side(src.array, src.offset, src.kind, src.addr,
				  op, &op->src);
	if (res == CUDA_SUCCESS)
		res = libcumc_linear_side(dst.array, dst.offset, dst.kind,
					  dst.addr, op, &op->dst);
	if (res != CUDA_SUCCESS)
		libcumc_copy3d_release(op);
	return res;
}

#define CUMC_LINEAR_ARRAY(a, off) \
	((struct libcumc_linear){ .kind = CUMC_SIDE_ARRAY, .array = (a), .offset = (off) })
#define CUMC_LINEAR_HOST(p) \
	((struct libcumc_linear){ .kind = CUMC_SIDE_HOST, .addr = (uintptr_t)(p) })
#define CUMC_LINEAR_DEVICE(p) \
	((struct libcumc_linear){ .kind = CUMC_SIDE_DEVICE, .addr = (p) })

static CUresult libcumc_atoh_desc(void *dst, CUarray src, size_t offset,
				  size_t len, struct libcumc_copy3d *op)
{
	return libcumc_linear_desc(CUMC_LINEAR_HOST(dst),
				   CUMC_LINEAR_ARRAY(src, offset), len, op);
}

static CUresult libcumc_htoa_desc(CUarray dst, size_t offset, const void *src,
				  size_t len, struct libcumc_copy3d *op)
{
	return libcumc_linear_desc(CUMC_LINEAR_ARRAY(dst, offset),
				   CUMC_LINEAR_HOST(src), len, op);
}

static CUresult libcumc_atod_desc(CUdeviceptr dst, CUarray src, size_t offset,
				  size_t len, struct libcumc_copy3d *op)
{
	return libcumc_linear_desc(CUMC_LINEAR_DEVICE(dst),
				   CUMC_LINEAR_ARRAY(src, offset), len, op);
}

static CUresult libcumc_dtoa_desc(CUarray dst, size_t offset, CUdeviceptr src,
				  size_t len, struct libcumc_copy3d *op)
{
	return libcumc_linear_desc(CUMC_LINEAR_ARRAY(dst, offset),
				   CUMC_LINEAR_DEVICE(src), len, op);
}

static CUresult libcumc_atoa_desc(CUarray dst, size_t dst_offset, CUarray src,
				  size_t src_offset, size_t len,
				  struct libcumc_copy3d *op)
{
	return libcumc_linear_desc(CUMC_LINEAR_ARRAY(dst, dst_offset),
				   CUMC_LINEAR_ARRAY(src, src_offset), len, op);
}

/*
 * A 2D set of @width elements of @elem_size bytes in each of @height
 * rows: the start aligned to an element, the pitch (used only with more
 * than one row) holding a row and a whole number of elements.
 */
static CUresult libcumc_set2d_desc(CUdeviceptr dst, size_t pitch,
				   __u32 pattern, unsigned int elem_size,
				   size_t width, size_t height,
				   struct libcumc_copy3d *op)
{
	op->is_set = true;
	op->pattern = pattern;
	op->elem_size = elem_size;
	op->height = height;
	op->depth = 1;
	op->dst = (struct libcumc_side){
		.kind = CUMC_SIDE_DEVICE, .base = dst, .pitch = pitch, .rows = 1,
	};
	if (dst % elem_size ||
	    __builtin_mul_overflow(width, elem_size, &op->width))
		return CUDA_ERROR_INVALID_VALUE;
	if (height > 1 && (pitch < op->width || pitch % elem_size ||
			   pitch > INT32_MAX))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/*
 * The entry points: first cuInit (and, for the synchronous forms, a live
 * current context), then the arguments, then the stream.
 */
#define CUMC_SYNC3D_ENTRY(describe, ptds, ...)				\
	do {								\
		struct libcumc_copy3d op = { 0 };			\
		CUdevice dev;						\
		CUresult res = libcumc_driver(&op.drv);			\
									\
		if (res == CUDA_SUCCESS)				\
			res = libcumc_current_device(&dev);		\
		if (res == CUDA_SUCCESS)				\
			res = describe(__VA_ARGS__, &op);		\
		if (res != CUDA_SUCCESS)				\
			return res;					\
		return libcumc_copy3d_sync(&op, ptds);			\
	} while (0)

#define CUMC_ASYNC3D_ENTRY(describe, stream, ptds, ...)			\
	do {								\
		struct libcumc_copy3d op = { 0 };			\
		CUresult res = libcumc_driver(&op.drv);			\
									\
		if (res == CUDA_SUCCESS)				\
			res = describe(__VA_ARGS__, &op);		\
		if (res != CUDA_SUCCESS)				\
			return res;					\
		return libcumc_copy3d_async(&op, stream, ptds);		\
	} while (0)

CUresult CUDAAPI cuMemcpy2D_v2(const CUDA_MEMCPY2D *pCopy)
{
	CUMC_SYNC3D_ENTRY(libcumc_copy2d_desc, false, pCopy);
}

CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy)
{
	CUMC_SYNC3D_ENTRY(libcumc_copy2d_desc, true, pCopy);
}

/* cumc's copies have no alignment rule: the two forms are one. */
CUresult CUDAAPI cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *pCopy)
	__attribute__((alias("cuMemcpy2D_v2")));
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy)
	__attribute__((alias("cuMemcpy2D_v2_ptds")));

CUresult CUDAAPI cuMemcpy3D_v2(const CUDA_MEMCPY3D *pCopy)
{
	CUMC_SYNC3D_ENTRY(libcumc_copy3d_desc, false, pCopy);
}

CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy)
{
	CUMC_SYNC3D_ENTRY(libcumc_copy3d_desc, true, pCopy);
}

CUresult CUDAAPI cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *pCopy)
{
	CUMC_SYNC3D_ENTRY(libcumc_copy3d_peer_desc, false, pCopy);
}

CUresult CUDAAPI cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy)
{
	CUMC_SYNC3D_ENTRY(libcumc_copy3d_peer_desc, true, pCopy);
}

/* A peer copy of bytes is a 3D peer copy of one row of device memory. */
static CUresult libcumc_peer_desc(CUdeviceptr dst, CUcontext dst_ctx,
				  CUdeviceptr src, CUcontext src_ctx,
				  size_t len, struct libcumc_copy3d *op)
{
	const CUDA_MEMCPY3D_PEER p = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = src,
		.srcContext = src_ctx,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = dst,
		.dstContext = dst_ctx,
		.WidthInBytes = len, .Height = 1, .Depth = 1,
	};

	return libcumc_copy3d_from_peer(&p, true, op);
}

CUresult CUDAAPI cuMemcpyPeer(CUdeviceptr dstDevice, CUcontext dstContext,
			      CUdeviceptr srcDevice, CUcontext srcContext,
			      size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_peer_desc, false, dstDevice, dstContext,
			  srcDevice, srcContext, ByteCount);
}

CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext,
				   CUdeviceptr srcDevice, CUcontext srcContext,
				   size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_peer_desc, true, dstDevice, dstContext,
			  srcDevice, srcContext, ByteCount);
}

CUresult CUDAAPI cuMemcpyPeerAsync(CUdeviceptr dstDevice, CUcontext dstContext,
				   CUdeviceptr srcDevice, CUcontext srcContext,
				   size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_peer_desc, hStream, false, dstDevice,
			   dstContext, srcDevice, srcContext, ByteCount);
}

CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice,
					CUcontext dstContext,
					CUdeviceptr srcDevice,
					CUcontext srcContext, size_t ByteCount,
					CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_peer_desc, hStream, true, dstDevice,
			   dstContext, srcDevice, srcContext, ByteCount);
}

CUresult CUDAAPI cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *pCopy,
				    CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_copy2d_desc, hStream, false, pCopy);
}

CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy,
					 CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_copy2d_desc, hStream, true, pCopy);
}

CUresult CUDAAPI cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *pCopy,
				    CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_copy3d_desc, hStream, false, pCopy);
}

CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy,
					 CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_copy3d_desc, hStream, true, pCopy);
}

CUresult CUDAAPI cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *pCopy,
				     CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_copy3d_peer_desc, hStream, false, pCopy);
}

CUresult CUDAAPI cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy,
					  CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_copy3d_peer_desc, hStream, true, pCopy);
}

CUresult CUDAAPI cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray,
				 size_t srcOffset, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_atoh_desc, false, dstHost, srcArray,
			  srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoH_v2_ptds(void *dstHost, CUarray srcArray,
				      size_t srcOffset, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_atoh_desc, true, dstHost, srcArray,
			  srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset,
				 const void *srcHost, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_htoa_desc, false, dstArray, dstOffset,
			  srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset,
				      const void *srcHost, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_htoa_desc, true, dstArray, dstOffset,
			  srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray,
				 size_t srcOffset, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_atod_desc, false, dstDevice, srcArray,
			  srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoD_v2_ptds(CUdeviceptr dstDevice, CUarray srcArray,
				      size_t srcOffset, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_atod_desc, true, dstDevice, srcArray,
			  srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset,
				 CUdeviceptr srcDevice, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_dtoa_desc, false, dstArray, dstOffset,
			  srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyDtoA_v2_ptds(CUarray dstArray, size_t dstOffset,
				      CUdeviceptr srcDevice, size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_dtoa_desc, true, dstArray, dstOffset,
			  srcDevice, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset,
				 CUarray srcArray, size_t srcOffset,
				 size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_atoa_desc, false, dstArray, dstOffset,
			  srcArray, srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoA_v2_ptds(CUarray dstArray, size_t dstOffset,
				      CUarray srcArray, size_t srcOffset,
				      size_t ByteCount)
{
	CUMC_SYNC3D_ENTRY(libcumc_atoa_desc, true, dstArray, dstOffset,
			  srcArray, srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset,
				      const void *srcHost, size_t ByteCount,
				      CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_htoa_desc, hStream, false, dstArray,
			   dstOffset, srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyHtoAAsync_v2_ptsz(CUarray dstArray, size_t dstOffset,
					   const void *srcHost,
					   size_t ByteCount, CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_htoa_desc, hStream, true, dstArray,
			   dstOffset, srcHost, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray,
				      size_t srcOffset, size_t ByteCount,
				      CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_atoh_desc, hStream, false, dstHost,
			   srcArray, srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemcpyAtoHAsync_v2_ptsz(void *dstHost, CUarray srcArray,
					   size_t srcOffset, size_t ByteCount,
					   CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_atoh_desc, hStream, true, dstHost,
			   srcArray, srcOffset, ByteCount);
}

CUresult CUDAAPI cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch,
				 unsigned char uc, size_t Width, size_t Height)
{
	CUMC_SYNC3D_ENTRY(libcumc_set2d_desc, false, dstDevice, dstPitch, uc,
			  1, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch,
				      unsigned char uc, size_t Width,
				      size_t Height)
{
	CUMC_SYNC3D_ENTRY(libcumc_set2d_desc, true, dstDevice, dstPitch, uc,
			  1, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch,
				  unsigned short us, size_t Width,
				  size_t Height)
{
	CUMC_SYNC3D_ENTRY(libcumc_set2d_desc, false, dstDevice, dstPitch, us,
			  2, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch,
				       unsigned short us, size_t Width,
				       size_t Height)
{
	CUMC_SYNC3D_ENTRY(libcumc_set2d_desc, true, dstDevice, dstPitch, us,
			  2, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch,
				  unsigned int ui, size_t Width, size_t Height)
{
	CUMC_SYNC3D_ENTRY(libcumc_set2d_desc, false, dstDevice, dstPitch, ui,
			  4, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch,
				       unsigned int ui, size_t Width,
				       size_t Height)
{
	CUMC_SYNC3D_ENTRY(libcumc_set2d_desc, true, dstDevice, dstPitch, ui,
			  4, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch,
				   unsigned char uc, size_t Width,
				   size_t Height, CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_set2d_desc, hStream, false, dstDevice,
			   dstPitch, uc, 1, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch,
					unsigned char uc, size_t Width,
					size_t Height, CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_set2d_desc, hStream, true, dstDevice,
			   dstPitch, uc, 1, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch,
				    unsigned short us, size_t Width,
				    size_t Height, CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_set2d_desc, hStream, false, dstDevice,
			   dstPitch, us, 2, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice,
					 size_t dstPitch, unsigned short us,
					 size_t Width, size_t Height,
					 CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_set2d_desc, hStream, true, dstDevice,
			   dstPitch, us, 2, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch,
				    unsigned int ui, size_t Width,
				    size_t Height, CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_set2d_desc, hStream, false, dstDevice,
			   dstPitch, ui, 4, Width, Height);
}

CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice,
					 size_t dstPitch, unsigned int ui,
					 size_t Width, size_t Height,
					 CUstream hStream)
{
	CUMC_ASYNC3D_ENTRY(libcumc_set2d_desc, hStream, true, dstDevice,
			   dstPitch, ui, 4, Width, Height);
}

/*
 * Batches: each copy of the batch is described and checked before any is
 * queued, so that a bad one queues none; then each is an item of the
 * stream, in the batch's order (the real driver leaves their order open).
 * @ops' references go with them.
 */
static CUresult libcumc_batch_submit(struct libcumc_copy3d *ops, size_t n,
				     CUstream hStream, bool ptds,
				     size_t *fail_idx)
{
	CUresult res = CUDA_SUCCESS, queued;
	size_t i;

	for (i = 0; i < n && res == CUDA_SUCCESS; i++) {
		res = libcumc_copy3d_check(&ops[i]);
		if (res != CUDA_SUCCESS)
			*fail_idx = i;
	}
	for (i = 0; i < n; i++) {
		if (res != CUDA_SUCCESS) {
			libcumc_copy3d_release(&ops[i]);
			continue;
		}
		queued = libcumc_copy3d_async(&ops[i], hStream, ptds);
		if (queued != CUDA_SUCCESS)
			res = queued;
	}
	return res;
}

/* Batches refuse the legacy default stream (cuda.h); a per-thread one is fine. */
static bool libcumc_batch_stream_valid(CUstream hStream, bool ptds)
{
	return hStream != CU_STREAM_LEGACY && (hStream || ptds);
}

static bool libcumc_access_order_valid(CUmemcpySrcAccessOrder order,
				       unsigned int flags)
{
	return order >= CU_MEMCPY_SRC_ACCESS_ORDER_STREAM &&
	       order <= CU_MEMCPY_SRC_ACCESS_ORDER_ANY &&
	       !(flags & ~(unsigned int)CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE);
}

/* Attribute runs: starting at 0, increasing, inside the batch. */
static bool libcumc_attrs_valid(const CUmemcpyAttributes *attrs,
				const size_t *idxs, size_t num_attrs,
				size_t count)
{
	size_t j;

	if (!attrs || !idxs || !num_attrs || num_attrs > count || idxs[0])
		return false;
	for (j = 0; j < num_attrs; j++) {
		if ((j && idxs[j] <= idxs[j - 1]) || idxs[j] >= count)
			return false;
		if (!libcumc_access_order_valid(attrs[j].srcAccessOrder,
						attrs[j].flags))
			return false;
	}
	return true;
}

static CUresult libcumc_batch(const struct libcumc_driver *drv,
			      CUdeviceptr *dsts, CUdeviceptr *srcs,
			      size_t *sizes, size_t count,
			      CUmemcpyAttributes *attrs, size_t *attrsIdxs,
			      size_t numAttrs, CUstream hStream, bool ptds,
			      size_t *fail_idx)
{
	struct libcumc_copy3d *ops;
	CUDA_MEMCPY3D_PEER p;
	CUresult res = CUDA_SUCCESS;
	size_t i, done;

	if (!count || !dsts || !srcs || !sizes ||
	    !libcumc_attrs_valid(attrs, attrsIdxs, numAttrs, count) ||
	    !libcumc_batch_stream_valid(hStream, ptds))
		return CUDA_ERROR_INVALID_VALUE;
	ops = calloc(count, sizeof(*ops));
	if (!ops)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (done = 0; done < count && res == CUDA_SUCCESS; done++) {
		p = (CUDA_MEMCPY3D_PEER){
			.srcMemoryType = CU_MEMORYTYPE_UNIFIED,
			.srcDevice = srcs[done],
			.dstMemoryType = CU_MEMORYTYPE_UNIFIED,
			.dstDevice = dsts[done],
			.WidthInBytes = sizes[done], .Height = 1, .Depth = 1,
		};
		ops[done].drv = drv;
		res = libcumc_copy3d_from_peer(&p, false, &ops[done]);
		if (res != CUDA_SUCCESS)
			*fail_idx = done;
	}
	if (res == CUDA_SUCCESS)
		res = libcumc_batch_submit(ops, count, hStream, ptds, fail_idx);
	else
		for (i = 0; i + 1 < done; i++)
			libcumc_copy3d_release(&ops[i]);
	free(ops);
	return res;
}

/* The element size an operand sets: 1 for a pointer, an array's own. */
static CUresult libcumc_operand_elem(const CUmemcpy3DOperand *o, size_t *elem)
{
	struct libcumc_array_layout layout;
	struct libcumc_array *array;

	switch (o->type) {
	case CU_MEMCPY_OPERAND_TYPE_POINTER:
		*elem = 1;
		return CUDA_SUCCESS;
	case CU_MEMCPY_OPERAND_TYPE_ARRAY:
		if (libcumc_array_get(o->op.array.array, &array, &layout))
			return CUDA_ERROR_INVALID_VALUE;
		*elem = layout.elem_size;
		libcumc_array_put(array);
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/*
 * One side of a 3D batch operation: a pointer's rows are rowLength
 * elements (0: the copy's width) and its layers layerHeight rows (0: the
 * copy's height); an array's offset is in elements.
 */
static void libcumc_operand_desc(const CUmemcpy3DOperand *o,
				 const CUextent3D *extent, size_t elem,
				 struct libcumc_copy_desc *d)
{
	if (o->type == CU_MEMCPY_OPERAND_TYPE_ARRAY) {
		*d = (struct libcumc_copy_desc){
			.type = CU_MEMORYTYPE_ARRAY, .array = o->op.array.array,
			.x = o->op.array.offset.x * elem,
			.y = o->op.array.offset.y, .z = o->op.array.offset.z,
		};
		return;
	}
	*d = (struct libcumc_copy_desc){
		.type = CU_MEMORYTYPE_UNIFIED, .device = o->op.ptr.ptr,
		.pitch = (o->op.ptr.rowLength ? o->op.ptr.rowLength :
			  extent->width) * elem,
		.height = o->op.ptr.layerHeight ? o->op.ptr.layerHeight :
						  extent->height,
	};
}

static CUresult libcumc_batch_op(const CUDA_MEMCPY3D_BATCH_OP *b,
				 struct libcumc_copy3d *op)
{
	struct libcumc_copy_desc src, dst;
	size_t src_elem, dst_elem, elem;
	const CUextent3D *e = &b->extent;
	CUresult res;

	if (!libcumc_access_order_valid(b->srcAccessOrder, b->flags) ||
	    !e->width || !e->height || !e->depth)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_operand_elem(&b->src, &src_elem);
	if (res == CUDA_SUCCESS)
		res = libcumc_operand_elem(&b->dst, &dst_elem);
	if (res != CUDA_SUCCESS)
		return res;
	/* Two arrays must agree; a pointer takes the array's elements. */
	if (b->src.type == CU_MEMCPY_OPERAND_TYPE_ARRAY &&
	    b->dst.type == CU_MEMCPY_OPERAND_TYPE_ARRAY && src_elem != dst_elem)
		return CUDA_ERROR_INVALID_VALUE;
	elem = src_elem > dst_elem ? src_elem : dst_elem;
	if ((b->src.type == CU_MEMCPY_OPERAND_TYPE_POINTER &&
	     ((b->src.op.ptr.rowLength && b->src.op.ptr.rowLength < e->width) ||
	      (b->src.op.ptr.layerHeight && b->src.op.ptr.layerHeight < e->height))) ||
	    (b->dst.type == CU_MEMCPY_OPERAND_TYPE_POINTER &&
	     ((b->dst.op.ptr.rowLength && b->dst.op.ptr.rowLength < e->width) ||
	      (b->dst.op.ptr.layerHeight && b->dst.op.ptr.layerHeight < e->height))))
		return CUDA_ERROR_INVALID_VALUE;
	if (__builtin_mul_overflow(e->width, elem, &op->width))
		return CUDA_ERROR_INVALID_VALUE;
	op->height = e->height;
	op->depth = e->depth;
	libcumc_operand_desc(&b->src, e, elem, &src);
	libcumc_operand_desc(&b->dst, e, elem, &dst);
	res = libcumc_side_describe(op, &src, &op->src);
	if (res == CUDA_SUCCESS)
		res = libcumc_side_describe(op, &dst, &op->dst);
	if (res != CUDA_SUCCESS)
		libcumc_copy3d_release(op);
	return res;
}

static CUresult libcumc_batch3d(const struct libcumc_driver *drv,
				size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
				unsigned long long flags, CUstream hStream,
				bool ptds, size_t *fail_idx)
{
	struct libcumc_copy3d *ops;
	CUresult res = CUDA_SUCCESS;
	size_t i, done;

	if (!numOps || !opList || flags ||
	    !libcumc_batch_stream_valid(hStream, ptds))
		return CUDA_ERROR_INVALID_VALUE;
	ops = calloc(numOps, sizeof(*ops));
	if (!ops)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (done = 0; done < numOps && res == CUDA_SUCCESS; done++) {
		ops[done].drv = drv;
		res = libcumc_batch_op(&opList[done], &ops[done]);
		if (res != CUDA_SUCCESS)
			*fail_idx = done;
	}
	if (res == CUDA_SUCCESS)
		res = libcumc_batch_submit(ops, numOps, hStream, ptds, fail_idx);
	else
		for (i = 0; i + 1 < done; i++)
			libcumc_copy3d_release(&ops[i]);
	free(ops);
	return res;
}

/*
 * The entry points.  CUDA 12.8's forms (unversioned, with failIdx) say
 * which copy failed, or SIZE_MAX when the error is the batch's own; CUDA
 * 13's (_v2) do not.
 */
static CUresult libcumc_batch_entry(CUdeviceptr *dsts, CUdeviceptr *srcs,
				    size_t *sizes, size_t count,
				    CUmemcpyAttributes *attrs,
				    size_t *attrsIdxs, size_t numAttrs,
				    size_t *failIdx, CUstream hStream,
				    bool ptds)
{
	const struct libcumc_driver *drv;
	size_t fail_idx = SIZE_MAX;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_batch(drv, dsts, srcs, sizes, count, attrs,
				    attrsIdxs, numAttrs, hStream, ptds,
				    &fail_idx);
	if (failIdx)
		*failIdx = res == CUDA_SUCCESS ? SIZE_MAX : fail_idx;
	return res;
}

static CUresult libcumc_batch3d_entry(size_t numOps,
				      CUDA_MEMCPY3D_BATCH_OP *opList,
				      size_t *failIdx, unsigned long long flags,
				      CUstream hStream, bool ptds)
{
	const struct libcumc_driver *drv;
	size_t fail_idx = SIZE_MAX;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_batch3d(drv, numOps, opList, flags, hStream,
				      ptds, &fail_idx);
	if (failIdx)
		*failIdx = res == CUDA_SUCCESS ? SIZE_MAX : fail_idx;
	return res;
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs,
				       size_t *sizes, size_t count,
				       CUmemcpyAttributes *attrs,
				       size_t *attrsIdxs, size_t numAttrs,
				       CUstream hStream)
{
	return libcumc_batch_entry(dsts, srcs, sizes, count, attrs, attrsIdxs,
				   numAttrs, NULL, hStream, false);
}

CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts,
					    CUdeviceptr *srcs, size_t *sizes,
					    size_t count,
					    CUmemcpyAttributes *attrs,
					    size_t *attrsIdxs, size_t numAttrs,
					    CUstream hStream)
{
	return libcumc_batch_entry(dsts, srcs, sizes, count, attrs, attrsIdxs,
				   numAttrs, NULL, hStream, true);
}

CUresult CUDAAPI cuMemcpyBatchAsync_v1(CUdeviceptr *dsts, CUdeviceptr *srcs,
				       size_t *sizes, size_t count,
				       CUmemcpyAttributes *attrs,
				       size_t *attrsIdxs, size_t numAttrs,
				       size_t *failIdx, CUstream hStream)
{
	return libcumc_batch_entry(dsts, srcs, sizes, count, attrs, attrsIdxs,
				   numAttrs, failIdx, hStream, false);
}

CUresult CUDAAPI cuMemcpyBatchAsync_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs,
					 size_t *sizes, size_t count,
					 CUmemcpyAttributes *attrs,
					 size_t *attrsIdxs, size_t numAttrs,
					 size_t *failIdx, CUstream hStream)
{
	return libcumc_batch_entry(dsts, srcs, sizes, count, attrs, attrsIdxs,
				   numAttrs, failIdx, hStream, true);
}

CUresult CUDAAPI cuMemcpy3DBatchAsync_v2(size_t numOps,
					 CUDA_MEMCPY3D_BATCH_OP *opList,
					 unsigned long long flags,
					 CUstream hStream)
{
	return libcumc_batch3d_entry(numOps, opList, NULL, flags, hStream,
				     false);
}

CUresult CUDAAPI cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps,
					      CUDA_MEMCPY3D_BATCH_OP *opList,
					      unsigned long long flags,
					      CUstream hStream)
{
	return libcumc_batch3d_entry(numOps, opList, NULL, flags, hStream,
				     true);
}

CUresult CUDAAPI cuMemcpy3DBatchAsync_v1(size_t numOps,
					 CUDA_MEMCPY3D_BATCH_OP *opList,
					 size_t *failIdx,
					 unsigned long long flags,
					 CUstream hStream)
{
	return libcumc_batch3d_entry(numOps, opList, failIdx, flags, hStream,
				     false);
}

CUresult CUDAAPI cuMemcpy3DBatchAsync_ptsz(size_t numOps,
					   CUDA_MEMCPY3D_BATCH_OP *opList,
					   size_t *failIdx,
					   unsigned long long flags,
					   CUstream hStream)
{
	return libcumc_batch3d_entry(numOps, opList, failIdx, flags, hStream,
				     true);
}
