// SPDX-License-Identifier: MIT
/*
 * Kernel launches: cuLaunchKernel (and cuLaunchKernelEx, whose attributes
 * are read below) puts the grid on its stream as one work
 * item (stream.c), which the stream's worker runs through libcumc-ptx,
 * so kernels are ordered with copies, events and host functions as on
 * hardware.  The launch is checked when it is made (the handle, then the
 * dimensions and shared memory: CUDA_ERROR_INVALID_VALUE; a cooperative
 * grid larger than can be resident at once:
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE); a fault while it runs is
 * CUDA_ERROR_ILLEGAL_ADDRESS (a trap CUDA_ERROR_LAUNCH_FAILED) at the next
 * synchronization, and the context stays failed.
 *
 * What a kernel may touch: its module's globals, its shared and local
 * memory, and device memory mapped for the launching context's device
 * or host memory CUDA knows of, each access checked against them
 * (ptx/mem.c) rather than caught as a SIGSEGV.
 */
#include <assert.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "cumc_ptx.h"
#include "host_mem.h"
#include "kernel.h"
#include "log.h"
#include "module_globals.h"
#include "multimem.h"
#include "multimem_ops.h"
#include "occupancy.h"
#include "procaddr.h"
#include "stream.h"
#include "va.h"

struct libcumc_launch {
	struct libcumc_work work;
	const struct libcumc_driver *drv;
	struct libcumc_function *fn;	/* holds a module reference */
	CUcontext ctx;
	CUdevice dev;
	struct cumc_ptx_memory memory;
	struct cumc_ptx_multicast multicast;
	struct cumc_ptx_launch launch;
	void **args;			/* into params, one a parameter */
	unsigned char params[];
};

/*
 * ptx/'s memory callback: device memory of the context's device, host
 * memory CUDA knows of, and the variables of other modules (ptx/ checks
 * the kernel's own module's).
 */
static bool libcumc_kernel_access(void *arg, uint64_t addr, size_t len,
				  bool write, uint64_t *lo, uint64_t *hi)
{
	const struct libcumc_launch *l = arg;
	enum cumc_access need = write ? CUMC_ACCESS_READWRITE : CUMC_ACCESS_READ;
	struct libcumc_global_info var;
	struct libcumc_host_info info;
	struct cumc_va_query q;

	if (libcumc_host_lookup(addr, &info)) {
		if (write ? !libcumc_host_range_writable(addr, len) :
			    !libcumc_host_range(addr, len))
			return false;
		*lo = addr;
		*hi = addr + len;
		return true;
	}
	/* The whole variable, so that the executor asks once for it. */
	if (libcumc_global_lookup(addr, &var) &&
	    len <= var.base + var.size - addr) {
		*lo = var.base;
		*hi = var.base + var.size;
		return true;
	}
	if (libcumc_mapping_query(l->drv, addr, l->dev, &q) != CUDA_SUCCESS ||
	    q.out_type != CUMC_VA_MEM || (q.out_access & need) != need)
		return false;
	*lo = q.out_map_addr;
	*hi = libcumc_mapping_end(&q);
	return true;
}

/*
 * ptx/'s multimem callback: the multicast data path of cumcMultimem*
 * (lib/multimem.c over lib/mc_views.c), with its checks, so that a kernel's
 * multimem gives what the entry points give.  The worker's *held is the
 * mapping its last instruction found, kept held (mc_views.h) until the
 * executor lets go of it, so that an instruction inside the same mapping
 * is a bounds check and the element loop.  The types and operators of
 * cumc_ptx.h are numbered as cumcDataType and cumcReduceOp.
 */
static_assert(CUMC_PTX_MM_BF16 == (int)CUMC_BF16 &&
	      CUMC_PTX_MM_U64 == (int)CUMC_U64 &&
	      CUMC_PTX_MM_F64 == (int)CUMC_F64 &&
	      CUMC_PTX_MM_XOR == (int)CUMC_OP_XOR &&
	      CUMC_PTX_MM_MAX == (int)CUMC_OP_MAX, "multimem numbering");

static bool libcumc_kernel_multimem(void *arg, void **held,
				    enum cumc_ptx_mm_kind kind, uint64_t addr,
				    void *buf, size_t count,
				    enum cumc_ptx_mm_type type,
				    enum cumc_ptx_mm_op op)
{
	struct libcumc_mc_hold hold = { .map = *held };
	cumcDataType t = (cumcDataType)type;
	cumcReduceOp o = (cumcReduceOp)op;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	(void)arg;
	switch (kind) {
	case CUMC_PTX_MM_LD_REDUCE:
		res = libcumc_multimem_ld_reduce(&hold, buf, addr, count, t, o);
		break;
	case CUMC_PTX_MM_ST:
		res = libcumc_multimem_st(&hold, addr, buf,
					  count * libcumc_type_size(t));
		break;
	case CUMC_PTX_MM_RED:
		res = libcumc_multimem_red(&hold, addr, buf, count, t, o);
		break;
	case CUMC_PTX_MM_LD_REDUCE_ST:
		res = libcumc_multimem_ld_reduce_st(&hold, buf, addr, count, t,
						    o);
		break;
	case CUMC_PTX_MM_CHECK_LD_REDUCE_ST:
		res = libcumc_multimem_ld_reduce_st_check(&hold, addr, count,
							  t, o, buf);
		break;
	}
	*held = hold.map;
	return res == CUDA_SUCCESS;
}

static void libcumc_kernel_multimem_release(void *arg, void **held)
{
	struct libcumc_mc_hold hold = { .map = *held };

	(void)arg;
	libcumc_mc_unhold(&hold);
	*held = NULL;
}

/* Where a grid stopped, for CUMC_LOG: what a GPU's error report says. */
static void libcumc_launch_log_fault(const struct libcumc_launch *l,
				     enum cumc_ptx_status st,
				     const struct cumc_ptx_fault *f)
{
	char note[512];

	snprintf(note, sizeof(note),
		 "kernel %s: %s at PTX line %u, address %#llx, block (%u,%u,%u), thread (%u,%u,%u)",
		 cumc_ptx_function_name(l->fn->ptx), cumc_ptx_strerror(st),
		 f->line, (unsigned long long)f->addr, f->block[0], f->block[1],
		 f->block[2], f->thread[0], f->thread[1], f->thread[2]);
	libcumc_log_line(note);
}

static CUresult libcumc_launch_run(struct libcumc_work *work)
{
	struct libcumc_launch *l = (struct libcumc_launch *)work;
	struct cumc_ptx_fault fault;
	enum cumc_ptx_status st;
	CUresult res = libcumc_ctx_fault(l->ctx);

	if (res != CUDA_SUCCESS)
		return res;
	st = cumc_ptx_launch(l->fn->ptx, &l->launch, &fault);
	if (st == CUMC_PTX_OK)
		return CUDA_SUCCESS;
	libcumc_launch_log_fault(l, st, &fault);
	res = st == CUMC_PTX_EFAULT ? CUDA_ERROR_ILLEGAL_ADDRESS :
	      st == CUMC_PTX_ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY :
	      st == CUMC_PTX_EASSERT ? CUDA_ERROR_ASSERT :
				      CUDA_ERROR_LAUNCH_FAILED;
	libcumc_ctx_fault_set(l->ctx, res);
	return res;
}

/* What a capture makes of a launch: a kernel node of its arguments. */
static void libcumc_launch_describe(const struct libcumc_work *work,
				    union libcumc_node_params *params)
{
	const struct libcumc_launch *l = (const struct libcumc_launch *)work;

	params->kernel = (CUDA_KERNEL_NODE_PARAMS){
		.func = (CUfunction)l->fn,
		.gridDimX = l->launch.grid[0],
		.gridDimY = l->launch.grid[1],
		.gridDimZ = l->launch.grid[2],
		.blockDimX = l->launch.block[0],
		.blockDimY = l->launch.block[1],
		.blockDimZ = l->launch.block[2],
		.sharedMemBytes = l->launch.dynamic_shared,
		.kernelParams = l->args,
		.ctx = l->ctx,
	};
}

static void libcumc_launch_fini(struct libcumc_work *work)
{
	struct libcumc_launch *l = (struct libcumc_launch *)work;

	libcumc_module_put(l->fn->mod);
}

/* The parameter buffer from kernelParams (one pointer a parameter) or extra. */
static CUresult libcumc_launch_params(const struct cumc_ptx_function *f,
				      unsigned char *buf, void **kernelParams,
				      void **extra)
{
	size_t size = cumc_ptx_param_size(f), off, psize, given = 0;
	const void *src = NULL;
	unsigned int i;

	if (kernelParams && extra)
		return CUDA_ERROR_INVALID_VALUE;
	if (kernelParams) {
		for (i = 0; i < cumc_ptx_param_count(f); i++) {
			cumc_ptx_param_layout(f, i, &off, &psize);
			memcpy(buf + off, kernelParams[i], psize);
		}
		return CUDA_SUCCESS;
	}
	for (i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
			src = extra[i + 1];
		else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
			given = *(size_t *)extra[i + 1];
		else
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (!size)
		return CUDA_SUCCESS;
	if (!src || given < size)
		return CUDA_ERROR_INVALID_VALUE;
	memcpy(buf, src, size);
	return CUDA_SUCCESS;
}

/*
 * A cooperative grid's blocks are all resident at once: no more than the
 * occupancy answer (occupancy.c) on each SM, and as many workers as that
 * takes, each keeping up to CUMC_PTX_RESIDENT blocks resident.  Worker
 * threads the host cannot start break that promise: the grid may then
 * hang where it waits for a block not running.
 */
static CUresult libcumc_cooperative(struct libcumc_launch *l,
				    const unsigned int dims[6],
				    unsigned int shared)
{
	uint64_t blocks = (uint64_t)dims[0] * dims[1] * dims[2];
	unsigned int per_sm = libcumc_occupancy(l->fn, dims[3] * dims[4] *
						dims[5], shared);

	if (!per_sm ||
	    blocks > (uint64_t)per_sm * libcumc_ctx_sm_count(l->ctx))
		return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
	l->launch.workers = (blocks + per_sm - 1) / per_sm;
	return CUDA_SUCCESS;
}

/*
 * A green context's kernels run on no more workers than it has SMs, as
 * its partition narrows the hardware's; others on one per online CPU.
 */
static unsigned int libcumc_green_workers(CUcontext ctx)
{
	unsigned int green_sms = libcumc_context_green_sms(ctx);
	long cpus;

	/* sysconf reads sysfs (three system calls): only when it matters */
	if (!green_sms)
		return 0;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus > 0 && (unsigned long)cpus < green_sms)
		return cpus;
	return green_sms;
}

static CUresult libcumc_launch_prepare(struct libcumc_launch *l,
				       const unsigned int dims[6],
				       unsigned int shared, bool cooperative,
				       void **kernelParams, void **extra)
{
	CUresult res;
	unsigned int i;
	int max;

	for (i = 0; i < 3; i++) {
		l->launch.grid[i] = dims[i];
		l->launch.block[i] = dims[3 + i];
	}
	l->launch.dynamic_shared = shared;
	/* Beyond what the function opted into, as driver 580: a bad value. */
	max = __atomic_load_n(&l->fn->max_dynamic_shared, __ATOMIC_RELAXED);
	if (shared > (unsigned int)max)
		return CUDA_ERROR_INVALID_VALUE;
	l->launch.max_dynamic_shared = cumc_ptx_static_shared(l->fn->ptx) + max;
	l->launch.params = l->params;
	l->launch.memory = &l->memory;
	l->memory.check = libcumc_kernel_access;
	l->memory.arg = l;
	l->launch.multicast = &l->multicast;
	l->multicast.access = libcumc_kernel_multimem;
	l->multicast.release = libcumc_kernel_multimem_release;
	l->multicast.arg = l;
	if (cumc_ptx_launch_check(l->fn->ptx, &l->launch) != CUMC_PTX_OK)
		return CUDA_ERROR_INVALID_VALUE;
	if (cooperative) {
		res = libcumc_cooperative(l, dims, shared);
		if (res != CUDA_SUCCESS)
			return res;
	} else {
		l->launch.workers = libcumc_green_workers(l->ctx);
	}
	return libcumc_launch_params(l->fn->ptx, l->params, kernelParams, extra);
}

CUresult libcumc_launch_on(struct libcumc_stream *stream,
			   struct libcumc_function *fn,
			   const unsigned int dims[6], unsigned int shared,
			   bool cooperative, void **kernelParams, void **extra)
{
	unsigned int i, count = cumc_ptx_param_count(fn->ptx);
	const struct libcumc_driver *drv;
	size_t args_at, off, psize;
	struct libcumc_launch *l;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS) {
		libcumc_module_put(fn->mod);
		return res;
	}
	/* The parameters, then a pointer at each, in one allocation. */
	args_at = sizeof(*l) + cumc_ptx_param_size(fn->ptx);
	args_at += -args_at & (_Alignof(void *) - 1);
	l = (struct libcumc_launch *)libcumc_work_alloc(
		args_at + count * sizeof(void *), libcumc_launch_run);
	if (!l) {
		libcumc_module_put(fn->mod);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	l->work.fini = libcumc_launch_fini;
	l->work.capture_as = CUMC_CAPTURE_NODE;
	l->work.node_type = CU_GRAPH_NODE_TYPE_KERNEL;
	l->work.describe = libcumc_launch_describe;
	l->args = (void **)((unsigned char *)l + args_at);
	for (i = 0; i < count; i++) {
		cumc_ptx_param_layout(fn->ptx, i, &off, &psize);
		l->args[i] = l->params + off;
	}
	l->drv = drv;
	l->fn = fn;
	l->ctx = libcumc_stream_ctx(stream);
	res = libcumc_context_device(l->ctx, &l->dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_ctx_fault(l->ctx);
	if (res == CUDA_SUCCESS)
		res = libcumc_launch_prepare(l, dims, shared, cooperative,
					     kernelParams, extra);
	if (res == CUDA_SUCCESS)
		res = libcumc_stream_submit(stream, &l->work, NULL);
	else
		libcumc_work_free(&l->work);
	return res;
}

static CUresult libcumc_launch(CUfunction f, const unsigned int dims[6],
			       unsigned int shared, CUstream hStream, bool ptds,
			       bool cooperative, void **kernelParams,
			       void **extra)
{
	const struct libcumc_driver *drv;
	struct libcumc_function *fn;
	struct libcumc_stream *stream;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_function_get(f, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS) {
		libcumc_module_put(fn->mod);
		return res;
	}
	res = libcumc_launch_on(stream, fn, dims, shared, cooperative,
				kernelParams, extra);
	libcumc_stream_put(stream);
	return res;
}

CUresult libcumc_kernel_args_copy(const struct libcumc_function *fn,
				  void **kernelParams, void **extra,
				  unsigned char **buf, size_t *size,
				  void ***args, unsigned int *count)
{
	unsigned int i, n = cumc_ptx_param_count(fn->ptx);
	size_t total = cumc_ptx_param_size(fn->ptx), off, psize;
	CUresult res;

	*buf = calloc(1, total ? total : 1);
	*args = calloc(n ? n : 1, sizeof(void *));
	res = *buf && *args ? libcumc_launch_params(fn->ptx, *buf,
						    kernelParams, extra) :
			      CUDA_ERROR_OUT_OF_MEMORY;
	if (res != CUDA_SUCCESS) {
		free(*buf);
		free(*args);
		return res;
	}
	for (i = 0; i < n; i++) {
		cumc_ptx_param_layout(fn->ptx, i, &off, &psize);
		(*args)[i] = *buf + off;
	}
	*size = total;
	*count = n;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX,
				unsigned int gridDimY, unsigned int gridDimZ,
				unsigned int blockDimX, unsigned int blockDimY,
				unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams, void **extra)
{
	const unsigned int dims[6] = { gridDimX, gridDimY, gridDimZ,
				       blockDimX, blockDimY, blockDimZ };

	return libcumc_launch(f, dims, sharedMemBytes, hStream, false, false,
			      kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX,
				     unsigned int gridDimY, unsigned int gridDimZ,
				     unsigned int blockDimX, unsigned int blockDimY,
				     unsigned int blockDimZ,
				     unsigned int sharedMemBytes,
				     CUstream hStream, void **kernelParams,
				     void **extra)
{
	const unsigned int dims[6] = { gridDimX, gridDimY, gridDimZ,
				       blockDimX, blockDimY, blockDimZ };

	return libcumc_launch(f, dims, sharedMemBytes, hStream, true, false,
			      kernelParams, extra);
}

/*
 * cuLaunchKernelEx's attributes.  COOPERATIVE makes the launch
 * cuLaunchCooperativeKernel's.  CLUSTER_DIMENSION is checked as the driver
 * checks it (every dimension at least 1 and dividing the grid's, at most 8
 * blocks: the portable size, since NON_PORTABLE_CLUSTER_SIZE_ALLOWED
 * cannot be set) and the grid then runs as any other: cumc refuses at load
 * the PTX that could tell a cluster's blocks apart (the %cluster_*
 * registers, barrier.cluster, distributed shared memory), so no kernel it
 * runs can.  PREFERRED_CLUSTER_DIMENSION is a best-effort regrouping of
 * those clusters, checked and not made.  The hints (ACCESS_POLICY_WINDOW,
 * SYNCHRONIZATION_POLICY, CLUSTER_SCHEDULING_POLICY_PREFERENCE, PRIORITY,
 * MEM_SYNC_DOMAIN, MEM_SYNC_DOMAIN_MAP, PREFERRED_SHARED_MEMORY_CARVEOUT,
 * NVLINK_UTIL_CENTRIC_SCHEDULING) and PROGRAMMATIC_STREAM_SERIALIZATION
 * (cumc always serializes, which that allows) have no effect.  The
 * programmatic and launch-completion events and device-updatable kernel
 * nodes are not built: CUDA_ERROR_NOT_SUPPORTED with a CUMC_LOG note.
 */
#define LIBCUMC_CLUSTER_PORTABLE	8u

struct libcumc_launch_attrs {
	bool cooperative;
	unsigned int cluster[3];	/* all 0: no cluster dimension */
	unsigned int preferred[3];
};

static CUresult libcumc_cluster_check(const unsigned int grid[3],
				      const unsigned int cluster[3],
				      unsigned int portable)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		if (!cluster[i] || grid[i] % cluster[i])
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	if ((uint64_t)cluster[0] * cluster[1] * cluster[2] > portable)
		return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	return CUDA_SUCCESS;
}

static CUresult libcumc_launch_attr(const CUlaunchAttribute *a,
				    struct libcumc_launch_attrs *out)
{
	const CUlaunchAttributeValue *v = &a->value;

	switch (a->id) {
	case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
		out->cooperative = v->cooperative != 0;
		return CUDA_SUCCESS;
	case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
		out->cluster[0] = v->clusterDim.x;
		out->cluster[1] = v->clusterDim.y;
		out->cluster[2] = v->clusterDim.z;
		return CUDA_SUCCESS;
	case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
		out->preferred[0] = v->preferredClusterDim.x;
		out->preferred[1] = v->preferredClusterDim.y;
		out->preferred[2] = v->preferredClusterDim.z;
		return CUDA_SUCCESS;
	case CU_LAUNCH_ATTRIBUTE_IGNORE:
	case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
	case CU_LAUNCH_ATTRIBUTE_PRIORITY:
	case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
	case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
		return CUDA_SUCCESS;
	case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
		return (unsigned int)v->syncPolicy - CU_SYNC_POLICY_AUTO <=
		       CU_SYNC_POLICY_BLOCKING_SYNC - CU_SYNC_POLICY_AUTO ?
		       CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		return (unsigned int)v->clusterSchedulingPolicyPreference <=
		       CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING ?
		       CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
		return (unsigned int)v->memSyncDomain <=
		       CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE ?
		       CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
		return CUDA_SUCCESS;
	case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		return (int)v->sharedMemCarveout >= CU_SHAREDMEM_CARVEOUT_DEFAULT &&
		       (int)v->sharedMemCarveout <=
		       CU_SHAREDMEM_CARVEOUT_MAX_SHARED ?
		       CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
	case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT:
	case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
		libcumc_log_note("cuLaunchKernelEx: the programmatic and "
				 "launch-completion events and device-updatable "
				 "kernel nodes are not supported");
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* Every attribute of @config read, and the cluster dimensions checked. */
static CUresult libcumc_launch_attrs(const CUlaunchConfig *config,
				     struct libcumc_launch_attrs *out)
{
	const unsigned int grid[3] = { config->gridDimX, config->gridDimY,
				       config->gridDimZ };
	unsigned int i;
	CUresult res;

	memset(out, 0, sizeof(*out));
	if (config->numAttrs && !config->attrs)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < config->numAttrs; i++) {
		res = libcumc_launch_attr(&config->attrs[i], out);
		if (res != CUDA_SUCCESS)
			return res;
	}
	if (!out->cluster[0] && !out->cluster[1] && !out->cluster[2])
		return CUDA_SUCCESS;
	/* Grid dimensions of 0 are the launch's own error, found later. */
	if (!grid[0] || !grid[1] || !grid[2])
		return CUDA_SUCCESS;
	res = libcumc_cluster_check(grid, out->cluster,
				    LIBCUMC_CLUSTER_PORTABLE);
	if (res != CUDA_SUCCESS || (!out->preferred[0] && !out->preferred[1] &&
				    !out->preferred[2]))
		return res;
	for (i = 0; i < 3; i++)
		if (!out->preferred[i] || out->preferred[i] % out->cluster[i])
			return CUDA_ERROR_INVALID_CLUSTER_SIZE;
	return libcumc_cluster_check(grid, out->preferred, UINT_MAX);
}

static CUresult libcumc_launch_ex(const CUlaunchConfig *config, CUfunction f,
				  bool ptds, void **kernelParams, void **extra)
{
	struct libcumc_launch_attrs attrs;
	struct libcumc_function *fn;
	unsigned int dims[6];
	CUresult res;

	if (!config)
		return CUDA_ERROR_INVALID_VALUE;
	/* The handle before the attributes, as for the other launches. */
	res = libcumc_function_get(f, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_module_put(fn->mod);
	res = libcumc_launch_attrs(config, &attrs);
	if (res != CUDA_SUCCESS)
		return res;
	dims[0] = config->gridDimX;
	dims[1] = config->gridDimY;
	dims[2] = config->gridDimZ;
	dims[3] = config->blockDimX;
	dims[4] = config->blockDimY;
	dims[5] = config->blockDimZ;
	return libcumc_launch(f, dims, config->sharedMemBytes, config->hStream,
			      ptds, attrs.cooperative, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
				  void **kernelParams, void **extra)
{
	return libcumc_launch_ex(config, f, false, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig *config,
				       CUfunction f, void **kernelParams,
				       void **extra)
{
	return libcumc_launch_ex(config, f, true, kernelParams, extra);
}

CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f,
				unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams)
{
	const unsigned int dims[6] = { gridDimX, gridDimY, gridDimZ,
				       blockDimX, blockDimY, blockDimZ };

	return libcumc_launch(f, dims, sharedMemBytes, hStream, false, true,
			      kernelParams, NULL);
}

CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f,
				unsigned int gridDimX, unsigned int gridDimY,
				unsigned int gridDimZ, unsigned int blockDimX,
				unsigned int blockDimY, unsigned int blockDimZ,
				unsigned int sharedMemBytes, CUstream hStream,
				void **kernelParams)
{
	const unsigned int dims[6] = { gridDimX, gridDimY, gridDimZ,
				       blockDimX, blockDimY, blockDimZ };

	return libcumc_launch(f, dims, sharedMemBytes, hStream, true, true,
			      kernelParams, NULL);
}

static CUresult libcumc_func_attribute(const struct libcumc_function *fn,
				       CUfunction_attribute attrib, int *pi)
{
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
		*pi = CUMC_PTX_MAX_BLOCK_THREADS;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
		*pi = cumc_ptx_static_shared(fn->ptx);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
		*pi = cumc_ptx_local_size(fn->ptx);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_NUM_REGS:
		*pi = cumc_ptx_num_regs(fn->ptx);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION:
		*pi = libcumc_function_ptx_version(fn);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
		*pi = 90;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		*pi = __atomic_load_n(&fn->max_dynamic_shared, __ATOMIC_RELAXED);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		*pi = __atomic_load_n(&fn->carveout, __ATOMIC_RELAXED);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
		*pi = cumc_ptx_const_size(fn->ptx);
		return CUDA_SUCCESS;
	/* No -dlcm=ca, no clusters: 0, as driver 580 answers for sm_90. */
	case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
	case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		*pi = 0;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
				    CUfunction hfunc)
{
	struct libcumc_function *fn;
	CUresult res;

	/* The handle before the attribute, as driver 580 answers. */
	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_function_get(hfunc, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_func_attribute(fn, attrib, pi);
	libcumc_module_put(fn->mod);
	return res;
}

/*
 * The settable attributes, as cuda.h lists them: dynamic shared memory up
 * to the opt-in maximum with the static share (227 KiB), the carveout as
 * a percentage or -1, a hint with no effect here.  The cluster attributes
 * answer CUDA_ERROR_NOT_SUPPORTED: the device answers CLUSTER_LAUNCH 0, and
 * a cluster launch (cuLaunchKernelEx) runs as a plain grid.  The rest are read-only: a bad value, as on
 * driver 580.
 */
static CUresult libcumc_func_set(struct libcumc_function *fn,
				 CUfunction_attribute attrib, int value)
{
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		if (value < 0 || cumc_ptx_static_shared(fn->ptx) +
				 (size_t)value > CUMC_PTX_MAX_SHARED)
			return CUDA_ERROR_INVALID_VALUE;
		__atomic_store_n(&fn->max_dynamic_shared, value,
				 __ATOMIC_RELAXED);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		if (value < CU_SHAREDMEM_CARVEOUT_DEFAULT ||
		    value > CU_SHAREDMEM_CARVEOUT_MAX_SHARED)
			return CUDA_ERROR_INVALID_VALUE;
		__atomic_store_n(&fn->carveout, value, __ATOMIC_RELAXED);
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc,
				    CUfunction_attribute attrib, int value)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_function_get(hfunc, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_func_set(fn, attrib, value);
	libcumc_module_put(fn->mod);
	return res;
}

/* The simulated device has no cache to prefer: checked, kept nowhere. */
CUresult CUDAAPI cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_function_get(hfunc, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_module_put(fn->mod);
	return (unsigned int)config > CU_FUNC_CACHE_PREFER_EQUAL ?
	       CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/*
 * A kernel's attributes are its function's: cumc's code is one for every
 * device, so what is set for one device holds for all of them.
 */
static CUresult libcumc_kernel_begin(CUkernel kernel, CUdevice dev,
				     struct libcumc_function **fn)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_kernel_get(kernel, fn);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		libcumc_module_put((*fn)->mod);
	return res;
}

CUresult CUDAAPI cuKernelGetAttribute(int *pi, CUfunction_attribute attrib,
				      CUkernel kernel, CUdevice dev)
{
	struct libcumc_function *fn;
	CUresult res;

	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_kernel_begin(kernel, dev, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_func_attribute(fn, attrib, pi);
	libcumc_module_put(fn->mod);
	return res;
}

CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attrib, int val,
				      CUkernel kernel, CUdevice dev)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_kernel_begin(kernel, dev, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_func_set(fn, attrib, val);
	libcumc_module_put(fn->mod);
	return res;
}

/*
 * Deprecated since CUDA 11.3 and gone from CUDA 13's runtime: the
 * devices answer COOPERATIVE_MULTI_DEVICE_LAUNCH 0, so no such launch
 * is made; cuLaunchCooperativeKernel on each device's stream is the way.
 */
CUresult CUDAAPI cuLaunchCooperativeKernelMultiDevice(
	CUDA_LAUNCH_PARAMS *launchParamsList, unsigned int numDevices,
	unsigned int flags)
{
	(void)flags;
	if (!launchParamsList || !numDevices)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_log_note("multi-device cooperative launches are not "
			 "supported: use cuLaunchCooperativeKernel per device");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * The legacy launch (before CUDA 4.0): cuFuncSetBlockShape,
 * cuFuncSetSharedSize and cuParamSet* keep a block shape, dynamic shared
 * memory and a parameter buffer with the function, and cuLaunch,
 * cuLaunchGrid and cuLaunchGridAsync launch it as cuLaunchKernel does
 * with that buffer (CU_LAUNCH_PARAM_BUFFER_POINTER).  The settings are
 * the function's until its module goes; a launch copies them.
 */
static pthread_mutex_t libcumc_legacy_lock = PTHREAD_MUTEX_INITIALIZER;

/* Runs @set on @hfunc's settings, made when first needed, under the lock. */
static CUresult libcumc_legacy_set(CUfunction hfunc,
				   CUresult (*set)(struct libcumc_legacy_launch *,
						   const void *),
				   const void *arg)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_function_get(hfunc, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_legacy_lock);
	if (!fn->legacy)
		fn->legacy = calloc(1, sizeof(*fn->legacy));
	res = fn->legacy ? set(fn->legacy, arg) : CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_unlock(&libcumc_legacy_lock);
	libcumc_module_put(fn->mod);
	return res;
}

static CUresult libcumc_legacy_block(struct libcumc_legacy_launch *l,
				     const void *arg)
{
	memcpy(l->block, arg, sizeof(l->block));
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z)
{
	const unsigned int block[3] = { x, y, z };

	/* The launch checks the shape against the device's limits. */
	if (x <= 0 || y <= 0 || z <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_legacy_set(hfunc, libcumc_legacy_block, block);
}

static CUresult libcumc_legacy_shared(struct libcumc_legacy_launch *l,
				      const void *arg)
{
	l->shared = *(const unsigned int *)arg;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes)
{
	return libcumc_legacy_set(hfunc, libcumc_legacy_shared, &bytes);
}

static CUresult libcumc_legacy_size(struct libcumc_legacy_launch *l,
				    const void *arg)
{
	l->param_size = *(const unsigned int *)arg;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuParamSetSize(CUfunction hfunc, unsigned int numbytes)
{
	if (numbytes > CUMC_LEGACY_PARAM_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_legacy_set(hfunc, libcumc_legacy_size, &numbytes);
}

/* Bytes for the parameter buffer at an offset (cuParamSet{i,f,v}). */
struct libcumc_legacy_bytes {
	size_t offset, len;
	const void *src;
};

static CUresult libcumc_legacy_bytes(struct libcumc_legacy_launch *l,
				     const void *arg)
{
	const struct libcumc_legacy_bytes *b = arg;

	memcpy(l->params + b->offset, b->src, b->len);
	return CUDA_SUCCESS;
}

static CUresult libcumc_param_set(CUfunction hfunc, int offset,
				  const void *src, size_t len)
{
	struct libcumc_legacy_bytes b = { .offset = offset, .len = len,
					  .src = src };

	if (offset < 0 || !src || len > CUMC_LEGACY_PARAM_MAX ||
	    (size_t)offset > CUMC_LEGACY_PARAM_MAX - len)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_legacy_set(hfunc, libcumc_legacy_bytes, &b);
}

CUresult CUDAAPI cuParamSeti(CUfunction hfunc, int offset, unsigned int value)
{
	return libcumc_param_set(hfunc, offset, &value, sizeof(value));
}

CUresult CUDAAPI cuParamSetf(CUfunction hfunc, int offset, float value)
{
	return libcumc_param_set(hfunc, offset, &value, sizeof(value));
}

CUresult CUDAAPI cuParamSetv(CUfunction hfunc, int offset, void *ptr,
			     unsigned int numbytes)
{
	return libcumc_param_set(hfunc, offset, ptr, numbytes);
}

static CUresult libcumc_legacy_copy(struct libcumc_legacy_launch *l,
				    const void *arg)
{
	memcpy((void *)arg, l, sizeof(*l));
	return CUDA_SUCCESS;
}

/* A @width x @height grid of the function's settings on @hStream. */
static CUresult libcumc_legacy_launch(CUfunction f, int width, int height,
				      CUstream hStream)
{
	struct libcumc_legacy_launch *l;
	unsigned int dims[6];
	size_t size;
	void *extra[5];
	CUresult res;

	if (width <= 0 || height <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	l = malloc(sizeof(*l));
	if (!l)
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = libcumc_legacy_set(f, libcumc_legacy_copy, l);
	if (res == CUDA_SUCCESS) {
		dims[0] = width;
		dims[1] = height;
		dims[2] = 1;
		memcpy(dims + 3, l->block, sizeof(l->block));
		size = l->param_size;
		extra[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
		extra[1] = l->params;
		extra[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
		extra[3] = &size;
		extra[4] = CU_LAUNCH_PARAM_END;
		res = libcumc_launch(f, dims, l->shared, hStream, false, false,
				     NULL, extra);
	}
	free(l);
	return res;
}

CUresult CUDAAPI cuLaunch(CUfunction f)
{
	return libcumc_legacy_launch(f, 1, 1, NULL);
}

CUresult CUDAAPI cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
	return libcumc_legacy_launch(f, grid_width, grid_height, NULL);
}

CUresult CUDAAPI cuLaunchGridAsync(CUfunction f, int grid_width,
				   int grid_height, CUstream hStream)
{
	return libcumc_legacy_launch(f, grid_width, grid_height, hStream);
}

/* Deprecated: Hopper's banks are four bytes; a valid setting is kept nowhere. */
CUresult CUDAAPI cuFuncSetSharedMemConfig(CUfunction hfunc,
					  CUsharedconfig config)
{
	struct libcumc_function *fn;
	CUresult res = libcumc_function_get(hfunc, &fn);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_module_put(fn->mod);
	return (unsigned int)config > CU_SHARED_MEM_CONFIG_EIGHT_BYTE_BANK_SIZE ?
	       CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
