// SPDX-License-Identifier: MIT
/*
 * Stream memory operations: cuStreamWaitValue32/64, cuStreamWriteValue32/64
 * and cuStreamBatchMemOp (the _v2 ABI, which CUDA 13.0's cuda.h selects).
 *
 * Each call is one item of its stream (stream.c), so a wait blocks the
 * stream and what follows on it, never the caller: its worker polls the
 * word with atomic loads, spinning briefly, then sleeping with a backoff
 * bounded at CUMC_WAIT_MAX_SLEEP_NS.  Writes are atomic stores, after a
 * full fence unless CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER; to a
 * multicast address they reach every member, as a copy engine's would.
 * Arguments are checked when the call is made, and the target again when
 * the item runs and while a wait sleeps: an address unmapped meanwhile
 * ends the operation with an error latched on the stream, not a SIGSEGV.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "host_mem.h"
#include "mc_views.h"
#include "stream.h"
#include "va.h"

/* The documented limit of cuStreamBatchMemOp: fewer than 256 operations. */
#define CUMC_BATCH_MAX 255
#define CUMC_WAIT_SPINS 256
#define CUMC_WAIT_MIN_SLEEP_NS 1000L
#define CUMC_WAIT_MAX_SLEEP_NS 1000000L

#define CUMC_WAIT_CONDITION_MASK 0x3u

/* One wait or write, as a batch holds them. */
struct libcumc_memop {
	CUstreamBatchMemOpType type;
	CUdeviceptr addr;
	cuuint64_t value;
	unsigned int flags;
	bool multicast;		/* a write to a multicast address */
};

struct libcumc_memop_work {
	struct libcumc_work work;
	const struct libcumc_driver *drv;
	unsigned int count;
	struct libcumc_memop ops[];
};

/*
 * Whether a stream memory operation may target [addr, addr + size): a
 * naturally aligned word of mapped device memory with the access the
 * operation needs (a read for a wait, both for a write).  Multicast
 * addresses take writes only.  *@multicast tells whether it is one.
 */
CUresult libcumc_memop_target_check(const struct libcumc_driver *drv,
				    CUdeviceptr addr, unsigned int size,
				    bool write, bool *multicast)
{
	*multicast = false;
	if (!addr || addr % size)
		return CUDA_ERROR_INVALID_VALUE;
	/* An aligned word lies in one mapping: the span check of copies. */
	return libcumc_span_check(drv, addr, size,
				  write ? CUMC_ACCESS_READWRITE :
					  CUMC_ACCESS_READ, multicast);
}

static unsigned int libcumc_memop_size(CUstreamBatchMemOpType type)
{
	return type == CU_STREAM_MEM_OP_WAIT_VALUE_64 ||
	       type == CU_STREAM_MEM_OP_WRITE_VALUE_64 ? 8 : 4;
}

static bool libcumc_memop_is_write(CUstreamBatchMemOpType type)
{
	return type == CU_STREAM_MEM_OP_WRITE_VALUE_32 ||
	       type == CU_STREAM_MEM_OP_WRITE_VALUE_64;
}

static bool libcumc_memop_is_wait(CUstreamBatchMemOpType type)
{
	return type == CU_STREAM_MEM_OP_WAIT_VALUE_32 ||
	       type == CU_STREAM_MEM_OP_WAIT_VALUE_64;
}

/* The flags each operation takes. */
static bool libcumc_memop_flags_valid(const struct libcumc_memop *op)
{
	if (libcumc_memop_is_wait(op->type))
		return !(op->flags & ~(CUMC_WAIT_CONDITION_MASK |
				       CU_STREAM_WAIT_VALUE_FLUSH));
	if (libcumc_memop_is_write(op->type))
		return !(op->flags & ~CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER);
	if (op->type == CU_STREAM_MEM_OP_BARRIER)
		return op->flags == CU_STREAM_MEMORY_BARRIER_TYPE_SYS ||
		       op->flags == CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
	return !op->flags;	/* FLUSH_REMOTE_WRITES: must be 0 */
}

/* An operation's arguments, as the call gives them. */
static CUresult libcumc_memop_check(const struct libcumc_driver *drv,
				    struct libcumc_memop *op)
{
	switch (op->type) {
	case CU_STREAM_MEM_OP_WAIT_VALUE_32:
	case CU_STREAM_MEM_OP_WRITE_VALUE_32:
	case CU_STREAM_MEM_OP_WAIT_VALUE_64:
	case CU_STREAM_MEM_OP_WRITE_VALUE_64:
	case CU_STREAM_MEM_OP_BARRIER:
	case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!libcumc_memop_flags_valid(op))
		return CUDA_ERROR_INVALID_VALUE;
	if (!libcumc_memop_is_wait(op->type) && !libcumc_memop_is_write(op->type))
		return CUDA_SUCCESS;
	return libcumc_memop_target_check(drv, op->addr,
					  libcumc_memop_size(op->type),
					  libcumc_memop_is_write(op->type),
					  &op->multicast);
}

static cuuint64_t libcumc_memop_load(const struct libcumc_memop *op)
{
	if (op->type == CU_STREAM_MEM_OP_WAIT_VALUE_64)
		return atomic_load_explicit((_Atomic cuuint64_t *)(uintptr_t)op->addr,
					    memory_order_acquire);
	return atomic_load_explicit((_Atomic cuuint32_t *)(uintptr_t)op->addr,
				    memory_order_acquire);
}

/* The documented conditions, on 32 or 64 bits. */
static bool libcumc_wait_satisfied(const struct libcumc_memop *op)
{
	cuuint64_t word = libcumc_memop_load(op), value = op->value;
	bool wide = op->type == CU_STREAM_MEM_OP_WAIT_VALUE_64;

	if (!wide) {
		word = (cuuint32_t)word;
		value = (cuuint32_t)value;
	}
	switch (op->flags & CUMC_WAIT_CONDITION_MASK) {
	case CU_STREAM_WAIT_VALUE_GEQ:	/* cyclic: ignores wraparound */
		return wide ? (int64_t)(word - value) >= 0 :
			      (int32_t)(cuuint32_t)(word - value) >= 0;
	case CU_STREAM_WAIT_VALUE_EQ:
		return word == value;
	case CU_STREAM_WAIT_VALUE_AND:
		return (word & value) != 0;
	default:			/* CU_STREAM_WAIT_VALUE_NOR */
		return wide ? ~(word | value) != 0 :
			      (cuuint32_t)~(word | value) != 0;
	}
}

static CUresult libcumc_memop_wait(const struct libcumc_driver *drv,
				   const struct libcumc_memop *op)
{
	struct timespec nap = { 0, CUMC_WAIT_MIN_SLEEP_NS };
	unsigned int spins = 0;
	bool multicast;
	CUresult res;

	while (!libcumc_wait_satisfied(op)) {
		if (spins < CUMC_WAIT_SPINS) {
			spins++;
			sched_yield();
			continue;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < CUMC_WAIT_MAX_SLEEP_NS) {
			nap.tv_nsec *= 2;
			continue;
		}
		/* Long waits: is the word still mapped? */
		res = libcumc_memop_target_check(drv, op->addr,
						 libcumc_memop_size(op->type),
						 false, &multicast);
		if (res != CUDA_SUCCESS)
			return res;
	}
	/* FLUSH: earlier remote writes are visible to what follows. */
	atomic_thread_fence(memory_order_seq_cst);
	return CUDA_SUCCESS;
}

static void libcumc_store_word(void *at, const struct libcumc_memop *op,
			       memory_order order)
{
	if (op->type == CU_STREAM_MEM_OP_WRITE_VALUE_64)
		atomic_store_explicit((_Atomic cuuint64_t *)at, op->value, order);
	else
		atomic_store_explicit((_Atomic cuuint32_t *)at,
				      (cuuint32_t)op->value, order);
}

static CUresult libcumc_memop_write(const struct libcumc_memop *op)
{
	memory_order order = memory_order_release;
	struct libcumc_mc_span span;
	unsigned int m;
	CUresult res;

	/* By default a fence orders the write after all earlier ones. */
	if (!(op->flags & CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER)) {
		atomic_thread_fence(memory_order_seq_cst);
		order = memory_order_seq_cst;
	}
	if (!op->multicast) {
		libcumc_store_word((void *)(uintptr_t)op->addr, op, order);
		return CUDA_SUCCESS;
	}
	res = libcumc_mc_acquire(op->addr, libcumc_memop_size(op->type), &span);
	if (res != CUDA_SUCCESS)
		return res;
	for (m = 0; m < span.map->num_members; m++)
		libcumc_store_word(span.map->views[m] + span.offset, op, order);
	libcumc_mc_release();
	return CUDA_SUCCESS;
}

static CUresult libcumc_memop_run_one(const struct libcumc_driver *drv,
				      struct libcumc_memop *op)
{
	CUresult res;

	if (!libcumc_memop_is_wait(op->type) && !libcumc_memop_is_write(op->type)) {
		/* Barriers and flushes: the host's full fence covers both. */
		atomic_thread_fence(memory_order_seq_cst);
		return CUDA_SUCCESS;
	}
	/* The mapping may have changed since the call. */
	res = libcumc_memop_target_check(drv, op->addr,
					 libcumc_memop_size(op->type),
					 libcumc_memop_is_write(op->type),
					 &op->multicast);
	if (res != CUDA_SUCCESS)
		return res;
	if (libcumc_memop_is_wait(op->type))
		return libcumc_memop_wait(drv, op);
	return libcumc_memop_write(op);
}

static CUresult libcumc_memop_run(struct libcumc_work *work)
{
	struct libcumc_memop_work *w = (struct libcumc_memop_work *)work;
	unsigned int i;
	CUresult res;

	for (i = 0; i < w->count; i++) {
		res = libcumc_memop_run_one(w->drv, &w->ops[i]);
		if (res != CUDA_SUCCESS)
			return res;
	}
	return CUDA_SUCCESS;
}

/* Checks @count operations and queues them on @stream, as one item. */
static CUresult libcumc_memops_submit(struct libcumc_stream *stream,
				      const struct libcumc_memop *ops,
				      unsigned int count)
{
	const struct libcumc_driver *drv;
	struct libcumc_memop_work *w;
	unsigned int i;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	w = (struct libcumc_memop_work *)libcumc_work_alloc(
		sizeof(*w) + count * sizeof(w->ops[0]), libcumc_memop_run);
	if (!w)
		return CUDA_ERROR_OUT_OF_MEMORY;
	w->work.capture_as = CUMC_CAPTURE_NODE;
	w->work.node_type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
	w->drv = drv;
	w->count = count;
	for (i = 0; i < count && res == CUDA_SUCCESS; i++) {
		w->ops[i] = ops[i];
		res = libcumc_memop_check(drv, &w->ops[i]);
	}
	if (res == CUDA_SUCCESS && count)
		return libcumc_stream_submit(stream, &w->work, NULL);
	libcumc_work_free(&w->work);
	return res;
}

static CUresult libcumc_memops_enqueue(CUstream hStream, bool ptds,
				       const struct libcumc_memop *ops,
				       unsigned int count)
{
	struct libcumc_stream *stream;
	CUresult res = libcumc_stream_get_initialized(hStream, ptds, &stream);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_memops_submit(stream, ops, count);
	libcumc_stream_put(stream);
	return res;
}

static CUresult libcumc_memop_single(CUstream stream, bool ptds,
				     CUstreamBatchMemOpType type,
				     CUdeviceptr addr, cuuint64_t value,
				     unsigned int flags)
{
	struct libcumc_memop op = {
		.type = type, .addr = addr, .value = value, .flags = flags,
	};

	return libcumc_memops_enqueue(stream, ptds, &op, 1);
}

CUresult CUDAAPI cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr,
					cuuint32_t value, unsigned int flags)
{
	return libcumc_memop_single(stream, false, CU_STREAM_MEM_OP_WAIT_VALUE_32,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr,
					     cuuint32_t value,
					     unsigned int flags)
{
	return libcumc_memop_single(stream, true, CU_STREAM_MEM_OP_WAIT_VALUE_32,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr,
					cuuint64_t value, unsigned int flags)
{
	return libcumc_memop_single(stream, false, CU_STREAM_MEM_OP_WAIT_VALUE_64,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream stream, CUdeviceptr addr,
					     cuuint64_t value,
					     unsigned int flags)
{
	return libcumc_memop_single(stream, true, CU_STREAM_MEM_OP_WAIT_VALUE_64,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr,
					 cuuint32_t value, unsigned int flags)
{
	return libcumc_memop_single(stream, false, CU_STREAM_MEM_OP_WRITE_VALUE_32,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWriteValue32_v2_ptsz(CUstream stream,
					      CUdeviceptr addr,
					      cuuint32_t value,
					      unsigned int flags)
{
	return libcumc_memop_single(stream, true, CU_STREAM_MEM_OP_WRITE_VALUE_32,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr,
					 cuuint64_t value, unsigned int flags)
{
	return libcumc_memop_single(stream, false, CU_STREAM_MEM_OP_WRITE_VALUE_64,
				    addr, value, flags);
}

CUresult CUDAAPI cuStreamWriteValue64_v2_ptsz(CUstream stream,
					      CUdeviceptr addr,
					      cuuint64_t value,
					      unsigned int flags)
{
	return libcumc_memop_single(stream, true, CU_STREAM_MEM_OP_WRITE_VALUE_64,
				    addr, value, flags);
}

/* The union's members share their layout up to the flags. */
static void libcumc_memop_from_params(const CUstreamBatchMemOpParams *p,
				      struct libcumc_memop *op)
{
	*op = (struct libcumc_memop){ .type = p->operation };
	if (libcumc_memop_is_wait(p->operation)) {
		op->addr = p->waitValue.address;
		op->value = libcumc_memop_size(p->operation) == 8 ?
			    p->waitValue.value64 : p->waitValue.value;
		op->flags = p->waitValue.flags;
	} else if (libcumc_memop_is_write(p->operation)) {
		op->addr = p->writeValue.address;
		op->value = libcumc_memop_size(p->operation) == 8 ?
			    p->writeValue.value64 : p->writeValue.value;
		op->flags = p->writeValue.flags;
	} else if (p->operation == CU_STREAM_MEM_OP_BARRIER) {
		op->flags = p->memoryBarrier.flags;
	} else {
		op->flags = p->flushRemoteWrites.flags;
	}
}

CUresult libcumc_batch_check(unsigned int count,
			     const CUstreamBatchMemOpParams *paramArray,
			     unsigned int flags)
{
	/* flags are reserved and must be 0. */
	if (flags || count > CUMC_BATCH_MAX || (count && !paramArray))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult libcumc_batch_on(struct libcumc_stream *stream, unsigned int count,
			  const CUstreamBatchMemOpParams *paramArray,
			  unsigned int flags)
{
	struct libcumc_memop ops[CUMC_BATCH_MAX];
	unsigned int i;
	CUresult res = libcumc_batch_check(count, paramArray, flags);

	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < count; i++)
		libcumc_memop_from_params(&paramArray[i], &ops[i]);
	return libcumc_memops_submit(stream, ops, count);
}

static CUresult libcumc_batch(CUstream hStream, unsigned int count,
			      const CUstreamBatchMemOpParams *paramArray,
			      unsigned int flags, bool ptds)
{
	const struct libcumc_driver *drv;
	struct libcumc_stream *stream;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_batch_check(count, paramArray, flags);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_batch_on(stream, count, paramArray, flags);
	libcumc_stream_put(stream);
	return res;
}

CUresult CUDAAPI cuStreamBatchMemOp_v2(CUstream stream, unsigned int count,
				       CUstreamBatchMemOpParams *paramArray,
				       unsigned int flags)
{
	return libcumc_batch(stream, count, paramArray, flags, false);
}

CUresult CUDAAPI cuStreamBatchMemOp_v2_ptsz(CUstream stream,
					    unsigned int count,
					    CUstreamBatchMemOpParams *paramArray,
					    unsigned int flags)
{
	return libcumc_batch(stream, count, paramArray, flags, true);
}
