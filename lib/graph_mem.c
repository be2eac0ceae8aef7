// SPDX-License-Identifier: MIT
/*
 * Graph memory (graph.h): allocation and free nodes, the allocations they
 * make, the stream-ordered allocator's calls on those allocations and
 * while a stream captures, and what graphs hold on each device.
 *
 * An allocation node reserves its addresses when it is added, so that
 * they stay the allocation's across instantiations and launches, and maps
 * memory there with the access its descriptors give: copies and sets
 * check their addresses when they are queued, which may be before the
 * node runs (the nodes after it, a capture's).  The memory stays mapped,
 * reserved for graphs, while the allocation is freed, until
 * cuDeviceGraphMemTrim or the allocation's end unmaps it; a launch that
 * queues the node maps it again.
 *
 * An allocation has two states.  @owned follows the calls: set when a
 * launch queues the allocation node, cleared when a free is queued (a
 * free node's launch, cuMemFreeAsync, AUTO_FREE_ON_LAUNCH) or done
 * (cuMemFree); launches check it.  @live follows the streams: set when
 * the allocation node runs, cleared when a free runs; the USED
 * attributes count it, the RESERVED ones count the mappings.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "log.h"
#include "memory.h"
#include "va.h"

/*
 * Graph memory is reserved, and counted as used, in units of 32 MiB, as
 * NVIDIA's driver 580 counts a 1 MiB allocation on an H200
 * (graphmem.used_after_launch), or of the device's granularity where
 * that is larger.
 */
#define CUMC_GRAPH_MEM_UNIT (32UL << 20)

struct libcumc_graph_alloc {
	struct libcumc_graph_alloc *next;	/* in the registry */
	/* Nodes, and items queued, that name it. */
	unsigned int refs;
	/* As the node was given, dptr set, accessDescs pointing at @access. */
	CUDA_MEM_ALLOC_NODE_PARAMS params;
	CUmemAccessDesc *access;
	/* Every device's access, as the module takes it. */
	struct cumc_access_desc descs[CUMC_MAX_DEVICES];
	__u32 num_descs;
	size_t length;				/* reserved: whole units */
	/* Its nodes in graphs (not executables'), NULL once destroyed. */
	struct libcumc_graph_node *alloc_node, *free_node;
	/* The executable instantiated from each of those nodes' graphs. */
	const void *alloc_exec, *free_exec;
	unsigned int queued;			/* allocation runs queued */
	bool owned;
	bool live;
	bool mapped;
};

/*
 * Guards the registry, every allocation and the accounting; taken after
 * the streams' and the graphs' locks, never before them.  Queued
 * allocation runs signal @libcumc_graph_mem_ran when they have run.
 */
static pthread_mutex_t libcumc_graph_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t libcumc_graph_mem_ran = PTHREAD_COND_INITIALIZER;
static struct libcumc_graph_alloc *libcumc_graph_allocs;

/* What cuDeviceGetGraphMemAttribute answers for one device. */
struct libcumc_graph_mem_use {
	cuuint64_t used, used_high;
	cuuint64_t reserved, reserved_high;
};

static struct libcumc_graph_mem_use libcumc_graph_mem_use[CUMC_MAX_DEVICES];

static struct libcumc_graph_mem_use *
libcumc_use_of(const struct libcumc_graph_alloc *a)
{
	return &libcumc_graph_mem_use[a->params.poolProps.location.id];
}

static void libcumc_use_add(cuuint64_t *current, cuuint64_t *high,
			    size_t bytes)
{
	*current += bytes;
	if (*current > *high)
		*high = *current;
}

static CUresult libcumc_graph_alloc_map(const struct libcumc_driver *drv,
					struct libcumc_graph_alloc *a)
{
	struct libcumc_graph_mem_use *use = libcumc_use_of(a);
	__u64 handle;
	CUresult res;

	res = libcumc_mem_create(drv, a->params.poolProps.location.id,
				 a->length, 0, &handle);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_va_map_at(drv, a->params.dptr, handle, a->length,
				a->descs, a->num_descs);
	/* Mapped, the memory needs no handle here. */
	libcumc_release_handle(drv, handle);
	if (res != CUDA_SUCCESS)
		return res;
	a->mapped = true;
	libcumc_use_add(&use->reserved, &use->reserved_high, a->length);
	return CUDA_SUCCESS;
}

static void libcumc_graph_alloc_unmap(const struct libcumc_driver *drv,
				      struct libcumc_graph_alloc *a)
{
	libcumc_va_unmap_at(drv, a->params.dptr, a->length);
	a->mapped = false;
	libcumc_use_of(a)->reserved -= a->length;
}

/* The allocation is no longer the program's: its memory is unused. */
static void libcumc_graph_alloc_unlive(struct libcumc_graph_alloc *a)
{
	if (!a->live)
		return;
	a->live = false;
	libcumc_use_of(a)->used -= a->length;
}

/* Ends @a once nothing names it and its memory is not the program's. */
static void libcumc_graph_alloc_end_if_unused(struct libcumc_graph_alloc *a)
{
	struct libcumc_graph_alloc **link;
	const struct libcumc_driver *drv;

	if (a->refs || a->owned || a->live)
		return;
	for (link = &libcumc_graph_allocs; *link != a; link = &(*link)->next)
		;
	*link = a->next;
	/* An allocation exists only after cuInit, whose state stays. */
	if (libcumc_driver(&drv) == CUDA_SUCCESS) {
		if (a->mapped)
			libcumc_graph_alloc_unmap(drv, a);
		libcumc_va_free_own(drv, a->params.dptr, a->length);
	}
	free(a->access);
	free(a);
}

static struct libcumc_graph_alloc *libcumc_graph_alloc_find(CUdeviceptr dptr)
{
	struct libcumc_graph_alloc *a;

	for (a = libcumc_graph_allocs; a; a = a->next)
		if (a->params.dptr == dptr)
			return a;
	return NULL;
}

/*
 * A peer device's access, as a pool's (cuMemPoolSetAccess) is checked:
 * the owning device keeps read-write access, and read-only access is not
 * a mode device memory has.
 */
static CUresult libcumc_alloc_desc_check(const struct libcumc_driver *drv,
					 CUdevice owner,
					 const CUmemAccessDesc *desc)
{
	if (desc->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    libcumc_check_device(drv, desc->location.id) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->location.id == owner &&
	    desc->flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
		return CUDA_ERROR_INVALID_VALUE;
	if (desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READ) {
		libcumc_log_note("device memory is read-write or not accessible in cumc");
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	return CUDA_SUCCESS;
}

/*
 * Device memory of the stream-ordered allocator's kind on one device, no
 * handle types (graph memory cannot be shared), some bytes, and no more
 * access descriptors than devices, each valid.
 */
static CUresult libcumc_alloc_params_check(const struct libcumc_driver *drv,
					   const CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	const CUmemPoolProps *props;
	CUresult res = CUDA_SUCCESS;
	size_t i;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	props = &p->poolProps;
	/* Host graph memory: driver 580 answers so (graphmem.alloc_host). */
	if (props->location.type == CU_MEM_LOCATION_TYPE_HOST ||
	    props->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA ||
	    props->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT) {
		libcumc_log_note("graph memory is device memory in cumc");
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
	    props->handleTypes != CU_MEM_HANDLE_TYPE_NONE ||
	    props->location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
	    libcumc_check_device(drv, props->location.id) != CUDA_SUCCESS ||
	    !p->bytesize || p->accessDescCount > drv->num_devices ||
	    (p->accessDescCount && !p->accessDescs))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < p->accessDescCount && res == CUDA_SUCCESS; i++)
		res = libcumc_alloc_desc_check(drv, props->location.id,
					       &p->accessDescs[i]);
	return res;
}

/* The module's access list: the owner's read-write, then each peer's. */
static void libcumc_alloc_descs(struct libcumc_graph_alloc *a)
{
	const CUDA_MEM_ALLOC_NODE_PARAMS *p = &a->params;
	__u32 j;
	size_t i;

	a->descs[0].device = p->poolProps.location.id;
	a->descs[0].access = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	a->num_descs = 1;
	for (i = 0; i < p->accessDescCount; i++) {
		for (j = 0; j < a->num_descs; j++)
			if (a->descs[j].device ==
			    (__u32)p->accessDescs[i].location.id)
				break;
		a->descs[j].device = p->accessDescs[i].location.id;
		a->descs[j].access = p->accessDescs[i].flags;
		if (j == a->num_descs)
			a->num_descs++;
	}
}

/* A new allocation of @p (checked), its addresses reserved (lock held). */
static CUresult libcumc_graph_alloc_new(const struct libcumc_driver *drv,
					const CUDA_MEM_ALLOC_NODE_PARAMS *p,
					struct libcumc_graph_alloc **out)
{
	struct libcumc_graph_alloc *a;
	struct cumc_device_info info;
	size_t count = p->accessDescCount, unit;
	CUresult res;

	res = libcumc_device_info(drv, p->poolProps.location.id, &info);
	if (res != CUDA_SUCCESS)
		return res;
	a = calloc(1, sizeof(*a));
	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	a->access = calloc(count ? count : 1, sizeof(*a->access));
	unit = CUMC_GRAPH_MEM_UNIT > info.granularity ? CUMC_GRAPH_MEM_UNIT :
						       info.granularity;
	a->length = (p->bytesize + unit - 1) / unit * unit;
	res = a->access ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	if (res == CUDA_SUCCESS && a->length < p->bytesize)
		res = CUDA_ERROR_OUT_OF_MEMORY;
	if (res == CUDA_SUCCESS)
		res = libcumc_va_reserve_own(drv, a->length, &a->params.dptr);
	if (res != CUDA_SUCCESS)
		goto err_free;
	if (count)
		memcpy(a->access, p->accessDescs, count * sizeof(*a->access));
	a->params.poolProps = p->poolProps;
	a->params.accessDescs = a->access;
	a->params.accessDescCount = count;
	a->params.bytesize = p->bytesize;
	libcumc_alloc_descs(a);
	res = libcumc_graph_alloc_map(drv, a);
	if (res != CUDA_SUCCESS)
		goto err_va;
	a->next = libcumc_graph_allocs;
	libcumc_graph_allocs = a;
	*out = a;
	return CUDA_SUCCESS;

err_va:
	libcumc_va_free_own(drv, a->params.dptr, a->length);
err_free:
	free(a->access);
	free(a);
	return res;
}

static void libcumc_mem_node_copied(struct libcumc_graph_node *copy)
{
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	copy->u.mem.alloc->refs++;
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
}

static void libcumc_mem_node_destroyed(struct libcumc_graph_node *node)
{
	struct libcumc_graph_alloc *a = node->u.mem.alloc;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	if (a->alloc_node == node)
		a->alloc_node = NULL;
	if (a->free_node == node)
		a->free_node = NULL;
	a->refs--;
	libcumc_graph_alloc_end_if_unused(a);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
}

static const struct libcumc_mem_node_ops libcumc_mem_node_ops = {
	.copied = libcumc_mem_node_copied,
	.destroyed = libcumc_mem_node_destroyed,
};

/*
 * Memory nodes go into graphs a program builds, not into a child graph
 * node's (cuGraphChildGraphNodeGetGraph's), as cuda.h says: NOT_SUPPORTED,
 * what driver 580 answers for the graphs' other such rules.
 */
static CUresult libcumc_graph_add_mem_alloc(struct libcumc_graph *graph,
					    struct libcumc_graph_node *const *deps,
					    size_t num_deps,
					    CUDA_MEM_ALLOC_NODE_PARAMS *params,
					    struct libcumc_graph_node **node)
{
	struct libcumc_graph_alloc *a = NULL;
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res == CUDA_SUCCESS)
		res = libcumc_alloc_params_check(drv, params);
	if (res == CUDA_SUCCESS && graph->embedded)
		res = CUDA_ERROR_NOT_SUPPORTED;
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	res = libcumc_graph_alloc_new(drv, params, &a);
	if (res == CUDA_SUCCESS)
		res = libcumc_graph_add(graph, CU_GRAPH_NODE_TYPE_MEM_ALLOC,
					deps, num_deps, node);
	if (res == CUDA_SUCCESS) {
		(*node)->u.mem.alloc = a;
		(*node)->u.mem.ops = &libcumc_mem_node_ops;
		a->refs = 1;
		a->alloc_node = *node;
		params->dptr = a->params.dptr;
	} else if (a) {
		libcumc_graph_alloc_end_if_unused(a);
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return res;
}

/*
 * Only an allocation node's address, freed by one graph at most: its own
 * or another, as cuda.h says.  In its own graph, NVIDIA's driver does not
 * require the free to come after the allocation (conformance probe
 * graphmem.free_no_dependency), nor does cumc.
 */
static CUresult libcumc_graph_add_mem_free(struct libcumc_graph *graph,
					   struct libcumc_graph_node *const *deps,
					   size_t num_deps, CUdeviceptr dptr,
					   struct libcumc_graph_node **node)
{
	struct libcumc_graph_alloc *a;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	if (graph->embedded)
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	a = libcumc_graph_alloc_find(dptr);
	if (a && !a->free_node)
		res = libcumc_graph_add(graph, CU_GRAPH_NODE_TYPE_MEM_FREE, deps,
					num_deps, node);
	if (res == CUDA_SUCCESS) {
		(*node)->u.mem.alloc = a;
		(*node)->u.mem.ops = &libcumc_mem_node_ops;
		a->refs++;
		a->free_node = *node;
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return res;
}

/*
 * An allocation node of @params (@alloc) or a free node of the allocation
 * at @dptr, as cuGraphAddMemAllocNode and cuGraphAddMemFreeNode add them.
 */
static CUresult libcumc_mem_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies, bool alloc,
				     CUDA_MEM_ALLOC_NODE_PARAMS *params,
				     CUdeviceptr dptr)
{
	struct libcumc_graph_node **deps, *node;
	struct libcumc_graph *graph;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (phGraphNode && graph)
		res = libcumc_graph_nodes_of(graph, dependencies,
					     numDependencies, &deps);
	if (res == CUDA_SUCCESS) {
		res = alloc ? libcumc_graph_add_mem_alloc(graph, deps,
							  numDependencies,
							  params, &node) :
			      libcumc_graph_add_mem_free(graph, deps,
							 numDependencies, dptr,
							 &node);
		free(deps);
	}
	if (res == CUDA_SUCCESS)
		*phGraphNode = (CUgraphNode)node;
	libcumc_graphs_unlock();
	return res;
}

CUresult libcumc_mem_alloc_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	return libcumc_mem_node_add(phGraphNode, hGraph, dependencies,
				    numDependencies, true, nodeParams, 0);
}

CUresult libcumc_mem_free_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   size_t numDependencies, CUdeviceptr dptr)
{
	return libcumc_mem_node_add(phGraphNode, hGraph, dependencies,
				    numDependencies, false, NULL, dptr);
}

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode *phGraphNode,
					CUgraph hGraph,
					const CUgraphNode *dependencies,
					size_t numDependencies,
					CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	return libcumc_mem_alloc_node_add(phGraphNode, hGraph, dependencies,
					  numDependencies, nodeParams);
}

CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode *phGraphNode,
				       CUgraph hGraph,
				       const CUgraphNode *dependencies,
				       size_t numDependencies, CUdeviceptr dptr)
{
	return libcumc_mem_free_node_add(phGraphNode, hGraph, dependencies,
					 numDependencies, dptr);
}

/* The allocation a memory node of @type names, lock held; NULL: none. */
static const struct libcumc_graph_alloc *
libcumc_mem_node_alloc(CUgraphNode hNode, CUgraphNodeType type)
{
	struct libcumc_graph_node *node = libcumc_node_find(hNode);

	return node && node->type == type ? node->u.mem.alloc : NULL;
}

/* poolProps and accessDescs are the node's, valid while it lives. */
CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode,
				CUDA_MEM_ALLOC_NODE_PARAMS *params_out)
{
	const struct libcumc_graph_alloc *a;

	if (!params_out)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	a = libcumc_mem_node_alloc(hNode, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	if (a)
		*params_out = a->params;
	libcumc_graphs_unlock();
	return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode,
					     CUdeviceptr *dptr_out)
{
	const struct libcumc_graph_alloc *a;

	if (!dptr_out)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	a = libcumc_mem_node_alloc(hNode, CU_GRAPH_NODE_TYPE_MEM_FREE);
	if (a)
		*dptr_out = a->params.dptr;
	libcumc_graphs_unlock();
	return a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/*
 * Where the allocation of @node, a memory node, keeps the executable of
 * the node's graph; NULL for a node of another type.
 */
static const void **libcumc_mem_node_exec(const struct libcumc_graph_node *node)
{
	struct libcumc_graph_alloc *a = node->u.mem.alloc;

	if (node->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC)
		return &a->alloc_exec;
	if (node->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
		return &a->free_exec;
	return NULL;
}

CUresult libcumc_graph_mem_instantiate(const struct libcumc_graph *graph,
				       const void *exec)
{
	const struct libcumc_graph_node *node;
	const void **owner;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	for (node = graph->nodes; node && res == CUDA_SUCCESS;
	     node = node->next) {
		owner = libcumc_mem_node_exec(node);
		if (owner && *owner)	/* graphmem.instantiate_twice */
			res = CUDA_ERROR_NOT_SUPPORTED;
	}
	for (node = graph->nodes; node && res == CUDA_SUCCESS;
	     node = node->next) {
		owner = libcumc_mem_node_exec(node);
		if (owner)
			*owner = exec;
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return res;
}

void libcumc_graph_mem_uninstantiate(const struct libcumc_graph *graph,
				     const void *exec)
{
	const struct libcumc_graph_node *node;
	const void **owner;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	for (node = graph->nodes; node; node = node->next) {
		owner = libcumc_mem_node_exec(node);
		if (owner && *owner == exec)
			*owner = NULL;
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
}

/* An allocation run or a free run, queued on a stream. */
struct libcumc_graph_mem_item {
	struct libcumc_work work;
	struct libcumc_graph_alloc *alloc;
	bool ran;
};

static CUresult libcumc_graph_alloc_run(struct libcumc_work *work)
{
	struct libcumc_graph_mem_item *item =
		(struct libcumc_graph_mem_item *)work;
	struct libcumc_graph_alloc *a = item->alloc;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	if (!a->live) {
		a->live = true;
		libcumc_use_add(&libcumc_use_of(a)->used,
				&libcumc_use_of(a)->used_high, a->length);
	}
	a->queued--;
	item->ran = true;
	pthread_cond_broadcast(&libcumc_graph_mem_ran);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return CUDA_SUCCESS;
}

static CUresult libcumc_graph_free_run(struct libcumc_work *work)
{
	struct libcumc_graph_mem_item *item =
		(struct libcumc_graph_mem_item *)work;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	libcumc_graph_alloc_unlive(item->alloc);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return CUDA_SUCCESS;
}

static void libcumc_graph_mem_item_fini(struct libcumc_work *work)
{
	struct libcumc_graph_mem_item *item =
		(struct libcumc_graph_mem_item *)work;
	struct libcumc_graph_alloc *a = item->alloc;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	if (work->run == libcumc_graph_alloc_run && !item->ran) {
		a->queued--;
		pthread_cond_broadcast(&libcumc_graph_mem_ran);
	}
	a->refs--;
	libcumc_graph_alloc_end_if_unused(a);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
}

/*
 * Queues @a's allocation (@alloc) or free on @stream; @owned is the
 * caller's to set.  A graph with memory nodes launched into a stream
 * capture is not captured: its items end the capture.
 */
static CUresult libcumc_graph_mem_queue(struct libcumc_stream *stream,
					struct libcumc_graph_alloc *a,
					bool alloc)
{
	struct libcumc_graph_mem_item *item;
	CUresult (*run)(struct libcumc_work *work) =
		alloc ? libcumc_graph_alloc_run : libcumc_graph_free_run;

	item = (struct libcumc_graph_mem_item *)libcumc_work_alloc(sizeof(*item),
								   run);
	if (!item)
		return CUDA_ERROR_OUT_OF_MEMORY;
	item->work.fini = libcumc_graph_mem_item_fini;
	item->work.capture_as = CUMC_CAPTURE_UNSUPPORTED;
	item->alloc = a;
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	a->refs++;
	if (alloc)
		a->queued++;
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return libcumc_stream_submit(stream, &item->work, NULL);
}

/* Whether @graph holds @a's allocation node. */
static bool libcumc_graph_allocates(const struct libcumc_graph *graph,
				    const struct libcumc_graph_alloc *a)
{
	const struct libcumc_graph_node *node;

	for (node = graph->nodes; node; node = node->next)
		if (node->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC &&
		    node->u.mem.alloc == a)
			return true;
	return false;
}

/*
 * The launch's checks, under the lock: the allocations it must free
 * first (@auto_free) in @frees, each with a reference, *@count of them.
 */
static CUresult libcumc_launch_check(const struct libcumc_graph *graph,
				     bool auto_free,
				     struct libcumc_graph_alloc **frees,
				     size_t *count)
{
	const struct libcumc_graph_node *node;
	struct libcumc_graph_alloc *a;
	size_t i;

	*count = 0;
	for (node = graph->nodes; node; node = node->next) {
		if (node->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC &&
		    node->type != CU_GRAPH_NODE_TYPE_MEM_FREE)
			continue;
		a = node->u.mem.alloc;
		if (node->type == CU_GRAPH_NODE_TYPE_MEM_FREE && !a->owned &&
		    !libcumc_graph_allocates(graph, a))
			return CUDA_ERROR_INVALID_VALUE;
		if (node->type != CU_GRAPH_NODE_TYPE_MEM_ALLOC || !a->owned)
			continue;
		if (!auto_free)
			return CUDA_ERROR_INVALID_VALUE;
		frees[(*count)++] = a;
	}
	for (i = 0; i < *count; i++) {
		frees[i]->owned = false;
		frees[i]->refs++;
	}
	return CUDA_SUCCESS;
}

CUresult libcumc_graph_mem_launch(struct libcumc_stream *stream,
				  const struct libcumc_graph *graph,
				  bool auto_free)
{
	struct libcumc_graph_alloc **frees;
	size_t count, i;
	CUresult res;

	if (!libcumc_graph_has_mem(graph))
		return CUDA_SUCCESS;
	frees = calloc(graph->num_nodes, sizeof(*frees));
	if (!frees)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	res = libcumc_launch_check(graph, auto_free, frees, &count);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	for (i = 0; i < count && res == CUDA_SUCCESS; i++)
		res = libcumc_graph_mem_queue(stream, frees[i], false);
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	for (i = 0; i < count; i++) {
		frees[i]->refs--;
		libcumc_graph_alloc_end_if_unused(frees[i]);
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	free(frees);
	return res;
}

CUresult libcumc_graph_mem_submit(struct libcumc_stream *stream,
				  const struct libcumc_graph_node *node)
{
	struct libcumc_graph_alloc *a = node->u.mem.alloc;
	bool alloc = node->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC;
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	/* Trimmed: mapped again before the nodes after it are queued. */
	if (alloc && !a->mapped)
		res = libcumc_graph_alloc_map(drv, a);
	if (res == CUDA_SUCCESS)
		a->owned = alloc;
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_graph_mem_queue(stream, a, alloc);
	if (res != CUDA_SUCCESS) {
		pthread_mutex_lock(&libcumc_graph_mem_lock);
		a->owned = !alloc;
		pthread_mutex_unlock(&libcumc_graph_mem_lock);
	}
	return res;
}

CUresult libcumc_graph_mem_free_on(struct libcumc_stream *stream,
				   CUdeviceptr dptr)
{
	struct libcumc_graph_alloc *a;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	a = libcumc_graph_alloc_find(dptr);
	if (!a)
		res = CUDA_ERROR_NOT_FOUND;
	else if (!a->owned)	/* freed already, or in its own graph */
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS) {
		a->owned = false;
		a->refs++;
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_graph_mem_queue(stream, a, false);
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	if (res != CUDA_SUCCESS)
		a->owned = true;
	a->refs--;
	libcumc_graph_alloc_end_if_unused(a);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return res;
}

/* Synchronous: the allocation's queued runs are waited for first. */
CUresult libcumc_graph_mem_free_now(CUdeviceptr dptr)
{
	struct libcumc_graph_alloc *a;
	CUresult res = CUDA_SUCCESS;

	pthread_mutex_lock(&libcumc_graph_mem_lock);
	a = libcumc_graph_alloc_find(dptr);
	if (!a)
		res = CUDA_ERROR_NOT_FOUND;
	else if (!a->owned)
		res = CUDA_ERROR_INVALID_VALUE;
	if (res == CUDA_SUCCESS) {
		a->owned = false;
		a->refs++;
		while (a->queued)
			pthread_cond_wait(&libcumc_graph_mem_ran,
					  &libcumc_graph_mem_lock);
		libcumc_graph_alloc_unlive(a);
		a->refs--;
		libcumc_graph_alloc_end_if_unused(a);
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return res;
}

/* A cuMemAllocAsync or cuMemFreeAsync that a capture makes a node of. */
struct libcumc_mem_capture {
	struct libcumc_work work;
	CUDA_MEM_ALLOC_NODE_PARAMS params;	/* an allocation's */
	CUdeviceptr *dptr;			/* the caller's, for its address */
	CUdeviceptr free_ptr;			/* a free's */
};

static CUresult libcumc_alloc_captured(struct libcumc_work *work,
				       struct libcumc_graph *graph,
				       struct libcumc_graph_node *const *deps,
				       size_t num_deps,
				       struct libcumc_graph_node **node)
{
	struct libcumc_mem_capture *c = (struct libcumc_mem_capture *)work;
	CUresult res;

	res = libcumc_graph_add_mem_alloc(graph, deps, num_deps, &c->params,
					  node);
	if (res == CUDA_SUCCESS)
		*c->dptr = c->params.dptr;
	return res;
}

static CUresult libcumc_free_captured(struct libcumc_work *work,
				      struct libcumc_graph *graph,
				      struct libcumc_graph_node *const *deps,
				      size_t num_deps,
				      struct libcumc_graph_node **node)
{
	struct libcumc_mem_capture *c = (struct libcumc_mem_capture *)work;

	return libcumc_graph_add_mem_free(graph, deps, num_deps, c->free_ptr,
					  node);
}

/* Submits @c, a node to capture; it does nothing if not captured. */
static CUresult libcumc_mem_capture_submit(struct libcumc_stream *stream,
					   struct libcumc_mem_capture *c,
					   CUgraphNodeType type)
{
	c->work.capture_as = CUMC_CAPTURE_NODE;
	c->work.node_type = type;
	c->work.capture_node = type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ?
			       libcumc_alloc_captured : libcumc_free_captured;
	return libcumc_stream_submit(stream, &c->work, NULL);
}

/*
 * The allocation is the stream's device's, with no peer access: the
 * allocator's pools and their access are not graph memory.
 */
CUresult libcumc_graph_mem_capture_alloc(struct libcumc_stream *stream,
					 size_t bytesize, CUdeviceptr *dptr)
{
	struct libcumc_mem_capture *c;
	CUresult res;

	c = (struct libcumc_mem_capture *)libcumc_work_alloc(sizeof(*c), NULL);
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->params.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	c->params.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	c->params.poolProps.location.id = libcumc_stream_dev(stream);
	c->params.bytesize = bytesize;
	c->dptr = dptr;
	*dptr = 0;
	res = libcumc_mem_capture_submit(stream, c,
					 CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	/* The capture ended meanwhile: the item was queued to do nothing. */
	if (res == CUDA_SUCCESS && !*dptr)
		res = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	return res;
}

CUresult libcumc_graph_mem_capture_free(struct libcumc_stream *stream,
					CUdeviceptr dptr)
{
	struct libcumc_mem_capture *c;

	c = (struct libcumc_mem_capture *)libcumc_work_alloc(sizeof(*c), NULL);
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	c->free_ptr = dptr;
	return libcumc_mem_capture_submit(stream, c,
					  CU_GRAPH_NODE_TYPE_MEM_FREE);
}

static CUresult libcumc_graph_mem_device(CUdevice device)
{
	const struct libcumc_driver *drv;
	CUresult res = libcumc_driver(&drv);

	return res == CUDA_SUCCESS ? libcumc_check_device(drv, device) : res;
}

CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device,
					      CUgraphMem_attribute attr,
					      void *value)
{
	struct libcumc_graph_mem_use *use;
	CUresult res = libcumc_graph_mem_device(device);
	cuuint64_t answer;

	if (res != CUDA_SUCCESS)
		return res;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	use = &libcumc_graph_mem_use[device];
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	switch (attr) {
	case CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT:
		answer = use->used;
		break;
	case CU_GRAPH_MEM_ATTR_USED_MEM_HIGH:
		answer = use->used_high;
		break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT:
		answer = use->reserved;
		break;
	case CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH:
		answer = use->reserved_high;
		break;
	default:
		res = CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	if (res == CUDA_SUCCESS)
		memcpy(value, &answer, sizeof(answer));
	return res;
}

/*
 * Only the high watermarks can be set, and only to 0: the mark starts
 * again from what is in use now.
 */
CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device,
					      CUgraphMem_attribute attr,
					      void *value)
{
	struct libcumc_graph_mem_use *use;
	CUresult res = libcumc_graph_mem_device(device);
	cuuint64_t zero;

	if (res != CUDA_SUCCESS)
		return res;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	use = &libcumc_graph_mem_use[device];
	memcpy(&zero, value, sizeof(zero));
	if (zero || (attr != CU_GRAPH_MEM_ATTR_USED_MEM_HIGH &&
		     attr != CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	if (attr == CU_GRAPH_MEM_ATTR_USED_MEM_HIGH)
		use->used_high = use->used;
	else
		use->reserved_high = use->reserved;
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return CUDA_SUCCESS;
}

/*
 * The memory of freed allocations goes back: those neither in use nor
 * queued to be allocated.
 */
CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device)
{
	const struct libcumc_driver *drv;
	struct libcumc_graph_alloc *a;
	CUresult res = libcumc_graph_mem_device(device);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_driver(&drv);
	pthread_mutex_lock(&libcumc_graph_mem_lock);
	for (a = libcumc_graph_allocs; a; a = a->next)
		if (a->params.poolProps.location.id == device && a->mapped &&
		    !a->owned && !a->live && !a->queued)
			libcumc_graph_alloc_unmap(drv, a);
	pthread_mutex_unlock(&libcumc_graph_mem_lock);
	return CUDA_SUCCESS;
}

/* A forked child forgets its parent's allocations with its graphs. */
static void libcumc_graph_mem_forget_parent(void)
{
	libcumc_graph_allocs = NULL;
	memset(libcumc_graph_mem_use, 0, sizeof(libcumc_graph_mem_use));
	pthread_mutex_init(&libcumc_graph_mem_lock, NULL);
	pthread_cond_init(&libcumc_graph_mem_ran, NULL);
}

__attribute__((constructor)) static void libcumc_graph_mem_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_graph_mem_forget_parent);
}
