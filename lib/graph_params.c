// SPDX-License-Identifier: MIT
/*
 * The generic graph builder (graph.h): cuGraphAddNode,
 * cuGraphNodeSetParams and cuGraphExecNodeSetParams over the tagged
 * union CUgraphNodeParams.  A table says, for each node type, how its
 * member of the union is checked and turned into a node's parameters;
 * the same checks as the type's own cuGraphAdd*Node apply.  A type the
 * table has no row for answers CUDA_ERROR_INVALID_VALUE, as an unknown
 * type does.  Bad parameters change nothing.
 */

#include "graph.h"
#include "log.h"

/* What the generic builder does with the nodes of one type. */
struct libcumc_node_kind {
	/* The size of the type's member of CUgraphNodeParams. */
	size_t size;
	/*
	 * The parameters @p checked and made into @u, the graphs' lock not
	 * held.  @hGraph is the graph a node is added to, NULL when a node
	 * is changed.
	 */
	CUresult (*make)(CUgraph hGraph, CUgraphNodeParams *p,
			 union libcumc_node_data *u);
	/* What make made, released when no node takes it (lock held). */
	void (*release)(const CUgraphNodeParams *p,
			union libcumc_node_data *u);
	/* The node added with @p is in its graph (lock held). */
	void (*made)(struct libcumc_graph_node *node, CUgraphNodeParams *p);
	/*
	 * For a type whose own cuGraphAdd*Node adds its nodes whole, in place
	 * of make: memory nodes, and external semaphore nodes, which that
	 * refuses.  Their parameters are not set through the builder.
	 */
	CUresult (*add_whole)(CUgraphNode *phGraphNode, CUgraph hGraph,
			      const CUgraphNode *dependencies,
			      size_t numDependencies, CUgraphNodeParams *p);
	/* Why a node's parameters cannot change, NULL when they can. */
	const char *fixed;
};

static CUresult libcumc_kernel_make(CUgraph hGraph, CUgraphNodeParams *p,
				    union libcumc_node_data *u)
{
	const CUDA_KERNEL_NODE_PARAMS_v3 *k = &p->kernel;
	const CUDA_KERNEL_NODE_PARAMS params = {
		.func = k->func,
		.gridDimX = k->gridDimX, .gridDimY = k->gridDimY,
		.gridDimZ = k->gridDimZ,
		.blockDimX = k->blockDimX, .blockDimY = k->blockDimY,
		.blockDimZ = k->blockDimZ,
		.sharedMemBytes = k->sharedMemBytes,
		.kernelParams = k->kernelParams, .extra = k->extra,
		.kern = k->kern, .ctx = k->ctx,
	};

	(void)hGraph;
	return libcumc_kernel_params_copy(&params, &u->kernel);
}

/* flags and reserved must be 0. */
static CUresult libcumc_memcpy_make(CUgraph hGraph, CUgraphNodeParams *p,
				    union libcumc_node_data *u)
{
	const CUDA_MEMCPY_NODE_PARAMS *m = &p->memcpy;
	CUresult res;

	(void)hGraph;
	if (m->flags || m->reserved)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_memcpy_params_check(&m->copyParams);
	if (res == CUDA_SUCCESS) {
		u->memcpy.params = m->copyParams;
		u->memcpy.ctx = m->copyCtx;
	}
	return res;
}

static CUresult libcumc_memset_make(CUgraph hGraph, CUgraphNodeParams *p,
				    union libcumc_node_data *u)
{
	const CUDA_MEMSET_NODE_PARAMS_v2 *m = &p->memset;
	const CUDA_MEMSET_NODE_PARAMS params = {
		.dst = m->dst, .pitch = m->pitch, .value = m->value,
		.elementSize = m->elementSize, .width = m->width,
		.height = m->height,
	};
	CUresult res = libcumc_memset_params_check(&params);

	(void)hGraph;
	if (res == CUDA_SUCCESS) {
		u->memset.params = params;
		u->memset.ctx = m->ctx;
	}
	return res;
}

static CUresult libcumc_host_make(CUgraph hGraph, CUgraphNodeParams *p,
				  union libcumc_node_data *u)
{
	(void)hGraph;
	if (!p->host.fn)
		return CUDA_ERROR_INVALID_VALUE;
	u->host.fn = p->host.fn;
	u->host.userData = p->host.userData;
	return CUDA_SUCCESS;
}

/* Whether @graph, its child graphs or bodies, nested, are @target. */
static bool libcumc_graph_within(const struct libcumc_graph *graph,
				 const struct libcumc_graph *target)
{
	const struct libcumc_graph_node *node;
	unsigned int i;

	if (graph == target)
		return true;
	for (node = graph->nodes; node; node = node->next) {
		if (node->is_captured)
			continue;
		if (node->type == CU_GRAPH_NODE_TYPE_GRAPH &&
		    libcumc_graph_within(node->u.child, target))
			return true;
		if (node->type != CU_GRAPH_NODE_TYPE_CONDITIONAL)
			continue;
		for (i = 0; i < node->u.cond.size; i++)
			if (libcumc_graph_within((const struct libcumc_graph *)
						 node->u.cond.bodies[i],
						 target))
				return true;
	}
	return false;
}

static bool libcumc_graph_has_cond(const struct libcumc_graph *graph)
{
	const struct libcumc_graph_node *node;

	for (node = graph->nodes; node; node = node->next)
		if (node->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
			return true;
	return false;
}

/*
 * A child graph holds no conditional node (cuda.h).  CLONE embeds a
 * copy; MOVE, when a node is added, the graph itself, which from then on
 * goes with the node: not a graph a capture builds, another node's, or
 * one that holds the graph the node is added to.
 */
static CUresult libcumc_child_make(CUgraph hGraph, CUgraphNodeParams *p,
				   union libcumc_node_data *u)
{
	const CUDA_CHILD_GRAPH_NODE_PARAMS *c = &p->graph;
	struct libcumc_graph *child, *graph = NULL;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	libcumc_graphs_lock();
	child = libcumc_graph_find(c->graph);
	if (hGraph)
		graph = libcumc_graph_find(hGraph);
	if (!child || child->capturing || libcumc_graph_has_cond(child) ||
	    (graph && libcumc_graph_within(child, graph))) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (c->ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE) {
		u->child = libcumc_graph_clone(child);
		res = u->child ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	} else if (c->ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE &&
		   graph && !child->embedded) {
		u->child = child;
		res = CUDA_SUCCESS;
	}
	libcumc_graphs_unlock();
	return res;
}

/* A graph to be moved stays the caller's until the node takes it. */
static void libcumc_child_release(const CUgraphNodeParams *p,
				  union libcumc_node_data *u)
{
	if (p->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
		libcumc_graph_free(u->child);
}

static void libcumc_child_made(struct libcumc_graph_node *node,
			       CUgraphNodeParams *p)
{
	(void)p;
	node->u.child->embedded = true;
}

static CUresult libcumc_empty_make(CUgraph hGraph, CUgraphNodeParams *p,
				   union libcumc_node_data *u)
{
	(void)hGraph;
	(void)p;
	(void)u;
	return CUDA_SUCCESS;
}

static CUresult libcumc_event_make(CUevent event,
				   union libcumc_node_data *u)
{
	if (!libcumc_event_live(event))
		return CUDA_ERROR_INVALID_VALUE;
	u->event = event;
	return CUDA_SUCCESS;
}

static CUresult libcumc_wait_make(CUgraph hGraph, CUgraphNodeParams *p,
				  union libcumc_node_data *u)
{
	(void)hGraph;
	return libcumc_event_make(p->eventWait.event, u);
}

static CUresult libcumc_record_make(CUgraph hGraph, CUgraphNodeParams *p,
				    union libcumc_node_data *u)
{
	(void)hGraph;
	return libcumc_event_make(p->eventRecord.event, u);
}

static CUresult libcumc_signal_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   size_t numDependencies, CUgraphNodeParams *p)
{
	return libcumc_semaphore_node_add(phGraphNode, hGraph, dependencies,
					  numDependencies,
					  p->extSemSignal.extSemArray,
					  p->extSemSignal.paramsArray,
					  p->extSemSignal.numExtSems);
}

static CUresult libcumc_sem_wait_add(CUgraphNode *phGraphNode,
				     CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies, CUgraphNodeParams *p)
{
	return libcumc_semaphore_node_add(phGraphNode, hGraph, dependencies,
					  numDependencies,
					  p->extSemWait.extSemArray,
					  p->extSemWait.paramsArray,
					  p->extSemWait.numExtSems);
}

/* The allocation's address is written back to the caller's parameters. */
static CUresult libcumc_mem_alloc_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      CUgraphNodeParams *p)
{
	CUDA_MEM_ALLOC_NODE_PARAMS params = {
		.poolProps = p->alloc.poolProps,
		.accessDescs = p->alloc.accessDescs,
		.accessDescCount = p->alloc.accessDescCount,
		.bytesize = p->alloc.bytesize,
	};
	CUresult res = libcumc_mem_alloc_node_add(phGraphNode, hGraph,
						  dependencies, numDependencies,
						  &params);

	if (res == CUDA_SUCCESS)
		p->alloc.dptr = params.dptr;
	return res;
}

static CUresult libcumc_mem_free_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies,
				     CUgraphNodeParams *p)
{
	return libcumc_mem_free_node_add(phGraphNode, hGraph, dependencies,
					 numDependencies, p->free.dptr);
}

static CUresult libcumc_batch_make(CUgraph hGraph, CUgraphNodeParams *p,
				   union libcumc_node_data *u)
{
	const CUDA_BATCH_MEM_OP_NODE_PARAMS params = {
		.ctx = p->memOp.ctx, .count = p->memOp.count,
		.paramArray = p->memOp.paramArray, .flags = p->memOp.flags,
	};

	(void)hGraph;
	return libcumc_batch_params_copy(&params, &u->batch);
}

static CUresult libcumc_cond_make(CUgraph hGraph, CUgraphNodeParams *p,
				  union libcumc_node_data *u)
{
	return libcumc_cond_params_make(hGraph, &p->conditional, u);
}

/* The caller's phGraph_out names the node's bodies. */
static void libcumc_cond_made(struct libcumc_graph_node *node,
			      CUgraphNodeParams *p)
{
	libcumc_node_adopt(node);
	p->conditional.phGraph_out = node->u.cond.bodies;
}

static const struct libcumc_node_kind libcumc_node_kinds[] = {
	[CU_GRAPH_NODE_TYPE_KERNEL] = {
		.size = sizeof(CUDA_KERNEL_NODE_PARAMS_v3),
		.make = libcumc_kernel_make,
	},
	[CU_GRAPH_NODE_TYPE_MEMCPY] = {
		.size = sizeof(CUDA_MEMCPY_NODE_PARAMS),
		.make = libcumc_memcpy_make,
	},
	[CU_GRAPH_NODE_TYPE_MEMSET] = {
		.size = sizeof(CUDA_MEMSET_NODE_PARAMS_v2),
		.make = libcumc_memset_make,
	},
	[CU_GRAPH_NODE_TYPE_HOST] = {
		.size = sizeof(CUDA_HOST_NODE_PARAMS_v2),
		.make = libcumc_host_make,
	},
	[CU_GRAPH_NODE_TYPE_GRAPH] = {
		.size = sizeof(CUDA_CHILD_GRAPH_NODE_PARAMS),
		.make = libcumc_child_make,
		.release = libcumc_child_release,
		.made = libcumc_child_made,
	},
	[CU_GRAPH_NODE_TYPE_EMPTY] = {
		.size = 0,
		.make = libcumc_empty_make,
	},
	[CU_GRAPH_NODE_TYPE_WAIT_EVENT] = {
		.size = sizeof(CUDA_EVENT_WAIT_NODE_PARAMS),
		.make = libcumc_wait_make,
	},
	[CU_GRAPH_NODE_TYPE_EVENT_RECORD] = {
		.size = sizeof(CUDA_EVENT_RECORD_NODE_PARAMS),
		.make = libcumc_record_make,
	},
	[CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL] = {
		.size = sizeof(CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2),
		.add_whole = libcumc_signal_add,
	},
	[CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT] = {
		.size = sizeof(CUDA_EXT_SEM_WAIT_NODE_PARAMS_v2),
		.add_whole = libcumc_sem_wait_add,
	},
	[CU_GRAPH_NODE_TYPE_MEM_ALLOC] = {
		.size = sizeof(CUDA_MEM_ALLOC_NODE_PARAMS_v2),
		.add_whole = libcumc_mem_alloc_add,
		.fixed = "a memory allocation node's parameters cannot change",
	},
	[CU_GRAPH_NODE_TYPE_MEM_FREE] = {
		.size = sizeof(CUDA_MEM_FREE_NODE_PARAMS),
		.add_whole = libcumc_mem_free_add,
		.fixed = "a memory free node's parameters cannot change",
	},
	[CU_GRAPH_NODE_TYPE_BATCH_MEM_OP] = {
		.size = sizeof(CUDA_BATCH_MEM_OP_NODE_PARAMS_v2),
		.make = libcumc_batch_make,
	},
	[CU_GRAPH_NODE_TYPE_CONDITIONAL] = {
		.size = sizeof(CUDA_CONDITIONAL_NODE_PARAMS),
		.make = libcumc_cond_make,
		.made = libcumc_cond_made,
		.fixed = "a conditional node's parameters cannot change in cumc",
	},
};

/*
 * The row of @p's type, when @p is one cuda.h allows: reserved0,
 * reserved2 and the union's bytes past the type's member zero.
 */
static const struct libcumc_node_kind *
libcumc_node_kind(const CUgraphNodeParams *p)
{
	const struct libcumc_node_kind *kind;
	const unsigned char *byte, *end;

	if (!p || (size_t)p->type >= sizeof(libcumc_node_kinds) /
				     sizeof(libcumc_node_kinds[0]))
		return NULL;
	kind = &libcumc_node_kinds[p->type];
	if (!kind->make && !kind->add_whole)
		return NULL;
	if (p->reserved0[0] || p->reserved0[1] || p->reserved0[2] ||
	    p->reserved2)
		return NULL;
	end = (const unsigned char *)p->reserved1 + sizeof(p->reserved1);
	for (byte = (const unsigned char *)p->reserved1 + kind->size;
	     byte < end; byte++)
		if (*byte)
			return NULL;
	return kind;
}

static void libcumc_node_kind_release(const struct libcumc_node_kind *kind,
				      const CUgraphNodeParams *p,
				      union libcumc_node_data *u)
{
	libcumc_graphs_lock();
	if (kind->release)
		kind->release(p, u);
	else
		libcumc_node_params_free(p->type, u);
	libcumc_graphs_unlock();
}

static CUresult libcumc_graph_add_node(CUgraphNode *phGraphNode,
				       CUgraph hGraph,
				       const CUgraphNode *dependencies,
				       const CUgraphEdgeData *dependencyData,
				       size_t numDependencies,
				       CUgraphNodeParams *nodeParams)
{
	const struct libcumc_node_kind *kind = libcumc_node_kind(nodeParams);
	union libcumc_node_data u = { 0 };
	struct libcumc_graph_node *node;
	CUresult res;

	if (!kind || !libcumc_edges_default(dependencyData, numDependencies))
		return CUDA_ERROR_INVALID_VALUE;
	if (kind->add_whole)
		return kind->add_whole(phGraphNode, hGraph, dependencies,
				    numDependencies, nodeParams);
	res = kind->make(hGraph, nodeParams, &u);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, nodeParams->type, &node);
	if (res == CUDA_SUCCESS) {
		node->u = u;
		if (kind->made)
			kind->made(node, nodeParams);
	}
	libcumc_graphs_unlock();
	if (res != CUDA_SUCCESS)
		libcumc_node_kind_release(kind, nodeParams, &u);
	return res;
}

CUresult CUDAAPI cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   const CUgraphEdgeData *dependencyData,
				   size_t numDependencies,
				   CUgraphNodeParams *nodeParams)
{
	return libcumc_graph_add_node(phGraphNode, hGraph, dependencies,
				      dependencyData, numDependencies,
				      nodeParams);
}

/* The CUDA 12.2 form, without edge data. */
CUresult CUDAAPI cuGraphAddNode_v1(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   size_t numDependencies,
				   CUgraphNodeParams *nodeParams)
{
	return libcumc_graph_add_node(phGraphNode, hGraph, dependencies, NULL,
				      numDependencies, nodeParams);
}

/*
 * The parameters of a node of the graph, checked as an add checks them;
 * the node's type must be @nodeParams's.  A node a capture made answers
 * NOT_SUPPORTED, as its type's own setter does.
 */
CUresult CUDAAPI cuGraphNodeSetParams(CUgraphNode hNode,
				      CUgraphNodeParams *nodeParams)
{
	const struct libcumc_node_kind *kind = libcumc_node_kind(nodeParams);
	union libcumc_node_data u = { 0 };
	struct libcumc_graph_node *node;
	CUresult res;

	/* No external semaphore node is ever made. */
	if (!kind || (kind->add_whole && !kind->fixed))
		return CUDA_ERROR_INVALID_VALUE;
	if (kind->fixed) {
		res = libcumc_node_params(hNode, nodeParams->type, false, &node);
		if (res != CUDA_SUCCESS)
			return res;
		libcumc_graphs_unlock();
		libcumc_log_note(kind->fixed);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	res = kind->make(NULL, nodeParams, &u);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_node_params(hNode, nodeParams->type, false, &node);
	if (res != CUDA_SUCCESS) {
		libcumc_node_kind_release(kind, nodeParams, &u);
		return res;
	}
	libcumc_node_params_free(node->type, &node->u);
	node->u = u;
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

/*
 * The executable's copy of @hNode takes the parameters for later
 * launches, as the type's own cuGraphExec*SetParams does; the graph's
 * node keeps its own.
 */
CUresult CUDAAPI cuGraphExecNodeSetParams(CUgraphExec hGraphExec,
					  CUgraphNode hNode,
					  CUgraphNodeParams *nodeParams)
{
	const struct libcumc_node_kind *kind = libcumc_node_kind(nodeParams);
	union libcumc_node_data u = { 0 };
	struct libcumc_graph_node *node;
	CUresult res;

	if (!kind || (kind->add_whole && !kind->fixed))
		return CUDA_ERROR_INVALID_VALUE;
	if (kind->fixed) {
		res = libcumc_exec_node_get(hGraphExec, hNode, nodeParams->type,
					    &node);
		if (res != CUDA_SUCCESS)
			return res;
		libcumc_exec_node_put();
		libcumc_log_note(kind->fixed);
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	res = kind->make(NULL, nodeParams, &u);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_exec_node_get(hGraphExec, hNode, nodeParams->type, &node);
	if (res != CUDA_SUCCESS) {
		libcumc_node_kind_release(kind, nodeParams, &u);
		return res;
	}
	libcumc_graphs_lock();
	libcumc_node_params_free(node->type, &node->u);
	node->u = u;
	libcumc_graphs_unlock();
	libcumc_exec_node_put();
	return CUDA_SUCCESS;
}
