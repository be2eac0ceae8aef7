// SPDX-License-Identifier: MIT
/*
 * Managed memory: cuMemAllocManaged, cuMemAdvise, the prefetches and
 * discards, cuMemRangeGetAttribute(s) and cuStreamAttachMemAsync.
 *
 * Every simulated device's memory is ordinary RAM the CPU loads and
 * stores, and every device reaches every other's: memory that migrates on
 * demand on hardware is here memory that never needs to move.  A managed
 * allocation is therefore cuMemAlloc memory (alloc.c) marked managed;
 * prefetching moves nothing and attaching to a stream changes nothing a
 * program can see (CONCURRENT_MANAGED_ACCESS is 1).  What a program can
 * see is kept: the advice given and the last prefetch location asked
 * for, per CPU page, as cuMemRangeGetAttribute reports them.
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "entry.h"
#include "stream.h"

/* A processor as the advice and the range attributes name one. */
struct libcumc_location {
	unsigned char type;	/* DEVICE, HOST or HOST_NUMA */
	int id;			/* ordinal, CU_DEVICE_CPU, NUMA node */
};

/* Whether host NUMA node @node exists (sysfs lists the possible ones). */
static bool libcumc_numa_node_exists(int node)
{
	char path[64];

	if (node < 0)
		return false;
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	return access(path, F_OK) == 0;
}

/*
 * @in as a location to keep: a host NUMA node by its number, the calling
 * thread's node for HOST_NUMA_CURRENT, the host as CU_DEVICE_CPU.
 */
static CUresult libcumc_location_check(const struct libcumc_driver *drv,
				       CUmemLocation in,
				       struct libcumc_location *out)
{
	unsigned int cpu, node;

	switch (in.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		if (libcumc_check_device(drv, in.id) != CUDA_SUCCESS)
			return CUDA_ERROR_INVALID_DEVICE;
		out->id = in.id;
		break;
	case CU_MEM_LOCATION_TYPE_HOST:
		out->id = CU_DEVICE_CPU;
		break;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		if (!libcumc_numa_node_exists(in.id))
			return CUDA_ERROR_INVALID_VALUE;
		out->id = in.id;
		break;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		if (getcpu(&cpu, &node))
			node = 0;
		out->type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
		out->id = node;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	out->type = in.type;
	return CUDA_SUCCESS;
}

/* The CUmemLocation of the pre-12.2 entry points' device argument. */
static CUmemLocation libcumc_device_location(CUdevice device)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE,
			      .id = device };

	if (device == CU_DEVICE_CPU)
		loc.type = CU_MEM_LOCATION_TYPE_HOST;
	return loc;
}

CUresult libcumc_impl_cuMemAllocManaged(const struct libcumc_driver *drv,
					CUdeviceptr *dptr, size_t bytesize,
					unsigned int flags)
{
	CUresult res;

	if (!dptr || !bytesize ||
	    (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_capture_unsafe_check();
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_alloc_managed(drv, dptr, bytesize, flags);
}

/* Applies one advice or prefetch to pages (libcumc_managed_visit). */
struct libcumc_advice_op {
	CUmem_advise advice;	/* 0: a prefetch */
	struct libcumc_location loc;
};

/* The bit of accessed_by that stands for @loc's processor. */
static unsigned int libcumc_accessed_by_bit(const struct libcumc_location *loc)
{
	if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE)
		return loc->id;
	return CUMC_ACCESSED_BY_HOST;
}

static bool libcumc_bit_test(const uint64_t *words, unsigned int bit)
{
	return words[bit / 64] & (1ULL << (bit % 64));
}

static void libcumc_advise_pages(struct libcumc_page_advice *pages,
				 size_t count, void *arg)
{
	const struct libcumc_advice_op *op = arg;
	unsigned int bit = libcumc_accessed_by_bit(&op->loc);
	uint64_t mask = 1ULL << (bit % 64);
	size_t i;

	for (i = 0; i < count; i++) {
		struct libcumc_page_advice *pg = &pages[i];

		switch (op->advice) {
		case CU_MEM_ADVISE_SET_READ_MOSTLY:
		case CU_MEM_ADVISE_UNSET_READ_MOSTLY:
			pg->read_mostly =
				op->advice == CU_MEM_ADVISE_SET_READ_MOSTLY;
			break;
		case CU_MEM_ADVISE_SET_PREFERRED_LOCATION:
			pg->preferred_type = op->loc.type;
			pg->preferred_id = op->loc.id;
			break;
		case CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
			pg->preferred_type = CU_MEM_LOCATION_TYPE_INVALID;
			pg->preferred_id = 0;
			break;
		case CU_MEM_ADVISE_SET_ACCESSED_BY:
			pg->accessed_by[bit / 64] |= mask;
			break;
		case CU_MEM_ADVISE_UNSET_ACCESSED_BY:
			pg->accessed_by[bit / 64] &= ~mask;
			break;
		default:
			pg->prefetch_type = op->loc.type;
			pg->prefetch_id = op->loc.id;
			break;
		}
	}
}

/*
 * Runs @op over [@addr, @addr + @count): INVALID_VALUE unless the range
 * lies inside one managed allocation.
 */
static CUresult libcumc_managed_apply(CUdeviceptr addr, size_t count,
				      struct libcumc_advice_op *op)
{
	bool no_memory;

	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	if (libcumc_managed_visit(addr, count, libcumc_advise_pages, op,
				  &no_memory))
		return CUDA_SUCCESS;
	return no_memory ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
}

/* Advice whose location argument the documentation says is ignored. */
static bool libcumc_advice_ignores_location(CUmem_advise advice)
{
	return advice == CU_MEM_ADVISE_SET_READ_MOSTLY ||
	       advice == CU_MEM_ADVISE_UNSET_READ_MOSTLY ||
	       advice == CU_MEM_ADVISE_UNSET_PREFERRED_LOCATION;
}

static CUresult libcumc_advise(const struct libcumc_driver *drv,
			       CUdeviceptr devPtr, size_t count,
			       CUmem_advise advice, CUmemLocation location)
{
	struct libcumc_advice_op op = { .advice = advice };
	CUresult res;

	if (advice < CU_MEM_ADVISE_SET_READ_MOSTLY ||
	    advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY)
		return CUDA_ERROR_INVALID_VALUE;
	if (!libcumc_advice_ignores_location(advice)) {
		res = libcumc_location_check(drv, location, &op.loc);
		if (res != CUDA_SUCCESS)
			return res;
	}
	return libcumc_managed_apply(devPtr, count, &op);
}

CUresult libcumc_impl_cuMemAdvise_v2(const struct libcumc_driver *drv,
				     CUdeviceptr devPtr, size_t count,
				     CUmem_advise advice,
				     CUmemLocation location)
{
	return libcumc_advise(drv, devPtr, count, advice, location);
}

CUresult libcumc_impl_cuMemAdvise(const struct libcumc_driver *drv,
				  CUdeviceptr devPtr, size_t count,
				  CUmem_advise advice, CUdevice device)
{
	return libcumc_advise(drv, devPtr, count, advice,
			      libcumc_device_location(device));
}

/*
 * The stream a prefetch or an attachment names must be live, as for any
 * stream work; nothing is queued, as no data moves.
 */
static CUresult libcumc_stream_check(CUstream hStream, bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res;

	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res == CUDA_SUCCESS)
		libcumc_stream_put(stream);
	return res;
}

static CUresult libcumc_prefetch(const struct libcumc_driver *drv,
				 CUdeviceptr devPtr, size_t count,
				 CUmemLocation location, unsigned int flags,
				 CUstream hStream, bool ptds)
{
	struct libcumc_advice_op op = { .advice = 0 };
	CUresult res;

	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_location_check(drv, location, &op.loc);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_check(hStream, ptds);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_managed_apply(devPtr, count, &op);
}

CUresult libcumc_impl_cuMemPrefetchAsync_v2(const struct libcumc_driver *drv,
					    CUdeviceptr devPtr, size_t count,
					    CUmemLocation location,
					    unsigned int flags,
					    CUstream hStream)
{
	return libcumc_prefetch(drv, devPtr, count, location, flags, hStream,
				false);
}

CUresult libcumc_impl_cuMemPrefetchAsync_v2_ptsz(
		const struct libcumc_driver *drv, CUdeviceptr devPtr,
		size_t count, CUmemLocation location, unsigned int flags,
		CUstream hStream)
{
	return libcumc_prefetch(drv, devPtr, count, location, flags, hStream,
				true);
}

CUresult libcumc_impl_cuMemPrefetchAsync(const struct libcumc_driver *drv,
					 CUdeviceptr devPtr, size_t count,
					 CUdevice dstDevice, CUstream hStream)
{
	return libcumc_prefetch(drv, devPtr, count,
				libcumc_device_location(dstDevice), 0,
				hStream, false);
}

CUresult libcumc_impl_cuMemPrefetchAsync_ptsz(const struct libcumc_driver *drv,
					      CUdeviceptr devPtr, size_t count,
					      CUdevice dstDevice,
					      CUstream hStream)
{
	return libcumc_prefetch(drv, devPtr, count,
				libcumc_device_location(dstDevice), 0,
				hStream, true);
}

/* Whether [@addr, @addr + @count) is non-empty managed memory. */
static bool libcumc_managed_range(CUdeviceptr addr, size_t count)
{
	struct libcumc_alloc_info info;

	return count && libcumc_alloc_lookup(addr, &info) && info.managed &&
	       addr + count > addr && addr + count <= info.base + info.size;
}

/*
 * The batch forms: every range, location and index is checked before any
 * page changes, so a bad batch changes nothing.  The stream must not be
 * the legacy one (NULL of a legacy entry point, or CU_STREAM_LEGACY).
 * A discard leaves the contents as they are: reading discarded memory
 * gives indeterminate values, and the old ones are such values.
 */
static CUresult libcumc_batch(const struct libcumc_driver *drv,
			      CUdeviceptr *dptrs, size_t *sizes, size_t count,
			      CUmemLocation *locs, size_t *loc_idxs,
			      size_t num_locs, unsigned long long flags,
			      CUstream hStream, bool ptds, bool prefetch)
{
	struct libcumc_advice_op op = { .advice = 0 };
	struct libcumc_location loc;
	size_t i, k;
	CUresult res;

	if (!dptrs || !sizes || !count || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (hStream == CU_STREAM_LEGACY || (!hStream && !ptds))
		return CUDA_ERROR_INVALID_VALUE;
	if (prefetch && (!locs || !loc_idxs || !num_locs ||
			 num_locs > count || loc_idxs[0] != 0))
		return CUDA_ERROR_INVALID_VALUE;
	for (k = 0; prefetch && k < num_locs; k++) {
		if (k && loc_idxs[k] <= loc_idxs[k - 1])
			return CUDA_ERROR_INVALID_VALUE;
		if (loc_idxs[k] >= count)
			return CUDA_ERROR_INVALID_VALUE;
		res = libcumc_location_check(drv, locs[k], &loc);
		if (res != CUDA_SUCCESS)
			return res;
	}
	for (i = 0; i < count; i++)
		if (!libcumc_managed_range(dptrs[i], sizes[i]))
			return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_check(hStream, ptds);
	if (res != CUDA_SUCCESS || !prefetch)
		return res;
	for (i = 0, k = 0; i < count; i++) {
		if (k + 1 < num_locs && i == loc_idxs[k + 1])
			k++;
		libcumc_location_check(drv, locs[k], &op.loc);
		res = libcumc_managed_apply(dptrs[i], sizes[i], &op);
		if (res != CUDA_SUCCESS)
			return res;
	}
	return CUDA_SUCCESS;
}

CUresult libcumc_impl_cuMemPrefetchBatchAsync(const struct libcumc_driver *drv,
		CUdeviceptr *dptrs, size_t *sizes, size_t count,
		CUmemLocation *prefetchLocs, size_t *prefetchLocIdxs,
		size_t numPrefetchLocs, unsigned long long flags,
		CUstream hStream)
{
	return libcumc_batch(drv, dptrs, sizes, count, prefetchLocs,
			     prefetchLocIdxs, numPrefetchLocs, flags, hStream,
			     false, true);
}

CUresult libcumc_impl_cuMemPrefetchBatchAsync_ptsz(
		const struct libcumc_driver *drv, CUdeviceptr *dptrs,
		size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
		size_t *prefetchLocIdxs, size_t numPrefetchLocs,
		unsigned long long flags, CUstream hStream)
{
	return libcumc_batch(drv, dptrs, sizes, count, prefetchLocs,
			     prefetchLocIdxs, numPrefetchLocs, flags, hStream,
			     true, true);
}

CUresult libcumc_impl_cuMemDiscardBatchAsync(const struct libcumc_driver *drv,
		CUdeviceptr *dptrs, size_t *sizes, size_t count,
		unsigned long long flags, CUstream hStream)
{
	return libcumc_batch(drv, dptrs, sizes, count, NULL, NULL, 0, flags,
			     hStream, false, false);
}

CUresult libcumc_impl_cuMemDiscardBatchAsync_ptsz(
		const struct libcumc_driver *drv, CUdeviceptr *dptrs,
		size_t *sizes, size_t count, unsigned long long flags,
		CUstream hStream)
{
	return libcumc_batch(drv, dptrs, sizes, count, NULL, NULL, 0, flags,
			     hStream, true, false);
}

CUresult libcumc_impl_cuMemDiscardAndPrefetchBatchAsync(
		const struct libcumc_driver *drv, CUdeviceptr *dptrs,
		size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
		size_t *prefetchLocIdxs, size_t numPrefetchLocs,
		unsigned long long flags, CUstream hStream)
{
	return libcumc_batch(drv, dptrs, sizes, count, prefetchLocs,
			     prefetchLocIdxs, numPrefetchLocs, flags, hStream,
			     false, true);
}

CUresult libcumc_impl_cuMemDiscardAndPrefetchBatchAsync_ptsz(
		const struct libcumc_driver *drv, CUdeviceptr *dptrs,
		size_t *sizes, size_t count, CUmemLocation *prefetchLocs,
		size_t *prefetchLocIdxs, size_t numPrefetchLocs,
		unsigned long long flags, CUstream hStream)
{
	return libcumc_batch(drv, dptrs, sizes, count, prefetchLocs,
			     prefetchLocIdxs, numPrefetchLocs, flags, hStream,
			     true, true);
}

/* What every page of a range shares: the range attributes' answers. */
struct libcumc_range_summary {
	bool read_mostly;
	uint64_t accessed_by[CUMC_ACCESSED_BY_WORDS];
	struct libcumc_location preferred, prefetch;	/* type 0: none */
};

/* @loc, or none, when it differs from the page's @type and @id. */
static void libcumc_location_meet(struct libcumc_location *loc, bool first,
				  unsigned char type, int id)
{
	if (first) {
		loc->type = type;
		loc->id = id;
	} else if (loc->type != type || loc->id != id) {
		loc->type = CU_MEM_LOCATION_TYPE_INVALID;
	}
}

static void libcumc_summarize_pages(struct libcumc_page_advice *pages,
				    size_t count, void *arg)
{
	struct libcumc_range_summary *sum = arg;
	size_t i, w;

	sum->read_mostly = true;
	memset(sum->accessed_by, 0xff, sizeof(sum->accessed_by));
	for (i = 0; i < count; i++) {
		sum->read_mostly &= pages[i].read_mostly;
		for (w = 0; w < CUMC_ACCESSED_BY_WORDS; w++)
			sum->accessed_by[w] &= pages[i].accessed_by[w];
		libcumc_location_meet(&sum->preferred, !i,
				      pages[i].preferred_type,
				      pages[i].preferred_id);
		libcumc_location_meet(&sum->prefetch, !i,
				      pages[i].prefetch_type,
				      pages[i].prefetch_id);
	}
}

/* Whether @size is what @attr writes (a multiple of it for lists). */
static bool libcumc_range_size_ok(CUmem_range_attribute attr, size_t size)
{
	switch (attr) {
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
		return size && size % sizeof(int) == 0;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		return size == sizeof(CUmemLocationType);
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
		return size == sizeof(int);
	default:
		return false;
	}
}

static void libcumc_put_int(void *data, int value)
{
	memcpy(data, &value, sizeof(value));
}

/* The pre-12.2 answer: a device ordinal, CU_DEVICE_CPU or INVALID. */
static int libcumc_location_device(const struct libcumc_location *loc)
{
	switch (loc->type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return loc->id;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		return CU_DEVICE_CPU;
	default:
		return CU_DEVICE_INVALID;
	}
}

/*
 * The id of a uniform device or NUMA node location, CU_DEVICE_CPU for the
 * host (as driver 580 answers), else INVALID.
 */
static int libcumc_location_id(const struct libcumc_location *loc)
{
	if (loc->type == CU_MEM_LOCATION_TYPE_DEVICE ||
	    loc->type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
		return loc->id;
	if (loc->type == CU_MEM_LOCATION_TYPE_HOST)
		return CU_DEVICE_CPU;
	return CU_DEVICE_INVALID;
}

/* Devices with accessed-by advice on the whole range, then INVALID. */
static void libcumc_put_accessed_by(int *data, size_t size,
				    const uint64_t *mask)
{
	size_t n = size / sizeof(int), i = 0;
	int dev;

	for (dev = 0; dev < CUMC_ACCESSED_BY_HOST && i < n; dev++)
		if (libcumc_bit_test(mask, dev))
			libcumc_put_int(&data[i++], dev);
	if (i < n && libcumc_bit_test(mask, CUMC_ACCESSED_BY_HOST))
		libcumc_put_int(&data[i++], CU_DEVICE_CPU);
	while (i < n)
		libcumc_put_int(&data[i++], CU_DEVICE_INVALID);
}

static void libcumc_range_put(const struct libcumc_range_summary *sum,
			      CUmem_range_attribute attr, void *data,
			      size_t size)
{
	switch (attr) {
	case CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY:
		libcumc_put_int(data, sum->read_mostly);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION:
		libcumc_put_int(data, libcumc_location_device(&sum->preferred));
		break;
	case CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY:
		libcumc_put_accessed_by(data, size, sum->accessed_by);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION:
		libcumc_put_int(data, libcumc_location_device(&sum->prefetch));
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE:
		libcumc_put_int(data, sum->preferred.type);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
		libcumc_put_int(data, libcumc_location_id(&sum->preferred));
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE:
		libcumc_put_int(data, sum->prefetch.type);
		break;
	case CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
		libcumc_put_int(data, libcumc_location_id(&sum->prefetch));
		break;
	}
}

static CUresult libcumc_range_summarize(CUdeviceptr devPtr, size_t count,
					struct libcumc_range_summary *sum)
{
	bool no_memory;

	memset(sum, 0, sizeof(*sum));
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	if (libcumc_managed_visit(devPtr, count, libcumc_summarize_pages, sum,
				  &no_memory))
		return CUDA_SUCCESS;
	return no_memory ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemRangeGetAttribute(void *data, size_t dataSize,
					CUmem_range_attribute attribute,
					CUdeviceptr devPtr, size_t count)
{
	struct libcumc_range_summary sum;
	CUresult res;

	if (!data || !libcumc_range_size_ok(attribute, dataSize))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_range_summarize(devPtr, count, &sum);
	if (res == CUDA_SUCCESS)
		libcumc_range_put(&sum, attribute, data, dataSize);
	return res;
}

/* Every attribute is checked before any answer is written. */
CUresult CUDAAPI cuMemRangeGetAttributes(void **data, size_t *dataSizes,
					 CUmem_range_attribute *attributes,
					 size_t numAttributes,
					 CUdeviceptr devPtr, size_t count)
{
	struct libcumc_range_summary sum;
	CUresult res;
	size_t i;

	if (!data || !dataSizes || !attributes || !numAttributes)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < numAttributes; i++)
		if (!data[i] ||
		    !libcumc_range_size_ok(attributes[i], dataSizes[i]))
			return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_range_summarize(devPtr, count, &sum);
	for (i = 0; res == CUDA_SUCCESS && i < numAttributes; i++)
		libcumc_range_put(&sum, attributes[i], data[i], dataSizes[i]);
	return res;
}

/*
 * Only a whole managed allocation, named by its start with its size or
 * 0, may be attached; to one stream only where a stream is named.  Every
 * device has concurrent managed access, so the association changes
 * nothing and is not kept.
 */
static CUresult libcumc_attach(CUstream hStream, CUdeviceptr dptr,
			       size_t length, unsigned int flags, bool ptds)
{
	struct libcumc_alloc_info info;
	CUresult res;

	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
	    flags != CU_MEM_ATTACH_SINGLE)
		return CUDA_ERROR_INVALID_VALUE;
	if (flags == CU_MEM_ATTACH_SINGLE &&
	    (!hStream || hStream == CU_STREAM_LEGACY ||
	     hStream == CU_STREAM_PER_THREAD))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_check(hStream, ptds);
	if (res != CUDA_SUCCESS)
		return res;
	if (!libcumc_alloc_lookup(dptr, &info) || !info.managed ||
	    info.base != dptr || (length && length != info.size))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr,
					size_t length, unsigned int flags)
{
	return libcumc_attach(hStream, dptr, length, flags, false);
}

CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream hStream,
					     CUdeviceptr dptr, size_t length,
					     unsigned int flags)
{
	return libcumc_attach(hStream, dptr, length, flags, true);
}
