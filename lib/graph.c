// SPDX-License-Identifier: MIT
/*
 * Building and querying graphs (graph.h): cuGraphCreate, the cuGraphAdd*
 * nodes cumc runs, the topology, each node type's parameters, clones and
 * user objects.  Every call looks its handles up first: a garbage or
 * destroyed graph or node answers CUDA_ERROR_INVALID_VALUE, as the real
 * driver does for a NULL one, and changes nothing.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "kernel.h"
#include "log.h"

CUresult libcumc_node_begin(CUgraphNode *phGraphNode, CUgraph hGraph,
			    const CUgraphNode *dependencies,
			    size_t numDependencies, CUgraphNodeType type,
			    struct libcumc_graph_node **node)
{
	struct libcumc_graph_node **deps;
	struct libcumc_graph *graph = libcumc_graph_find(hGraph);
	CUresult res;

	if (!phGraphNode || !graph)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_graph_nodes_of(graph, dependencies, numDependencies,
				     &deps);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_graph_add(graph, type, deps, numDependencies, node);
	free(deps);
	if (res == CUDA_SUCCESS)
		*phGraphNode = (CUgraphNode)*node;
	return res;
}

CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	struct libcumc_graph *graph;

	/* flags are reserved for the future and must be 0. */
	if (!phGraph || flags)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	graph = libcumc_graph_new(true);
	libcumc_graphs_unlock();
	if (!graph)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*phGraph = (CUgraph)graph;
	return CUDA_SUCCESS;
}

/*
 * A stream capture's graph goes when the capture ends, a child graph
 * node's with the node.
 */
CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	struct libcumc_graph *graph;
	CUresult res = CUDA_SUCCESS;

	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (!graph || graph->embedded)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (graph->capturing)	/* NVIDIA's driver answers the same */
		res = CUDA_ERROR_ILLEGAL_STATE;
	else
		libcumc_graph_free(graph);
	libcumc_graphs_unlock();
	return res;
}

CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	struct libcumc_graph *graph, *copy;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	libcumc_graphs_lock();
	graph = libcumc_graph_find(originalGraph);
	/* Graphs with memory nodes cannot be cloned (cuda.h). */
	if (graph && libcumc_graph_has_mem(graph)) {
		res = CUDA_ERROR_NOT_SUPPORTED;
	} else if (phGraphClone && graph) {
		copy = libcumc_graph_clone(graph);
		res = copy ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
		if (copy) {
			libcumc_graph_register(copy);
			*phGraphClone = (CUgraph)copy;
		}
	}
	libcumc_graphs_unlock();
	return res;
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies)
{
	struct libcumc_graph_node *node;
	CUresult res;

	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, CU_GRAPH_NODE_TYPE_EMPTY,
				 &node);
	libcumc_graphs_unlock();
	return res;
}

/* Adds a node whose parameters @params (checked already) are @size bytes. */
static CUresult libcumc_node_add_plain(CUgraphNode *phGraphNode, CUgraph hGraph,
				       const CUgraphNode *dependencies,
				       size_t numDependencies,
				       CUgraphNodeType type,
				       const void *params, size_t size)
{
	struct libcumc_graph_node *node;
	CUresult res;

	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, type, &node);
	if (res == CUDA_SUCCESS)
		memcpy(&node->u, params, size);
	libcumc_graphs_unlock();
	return res;
}

static CUresult libcumc_host_params_check(const CUDA_HOST_NODE_PARAMS *p)
{
	return p && p->fn ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	CUresult res = libcumc_host_params_check(nodeParams);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_node_add_plain(phGraphNode, hGraph, dependencies,
				      numDependencies, CU_GRAPH_NODE_TYPE_HOST,
				      nodeParams, sizeof(*nodeParams));
}

/*
 * A set of height rows of width elements of 1, 2 or 4 bytes, each row
 * aligned to its element, pitch bytes apart.
 */
CUresult libcumc_memset_params_check(const CUDA_MEMSET_NODE_PARAMS *p)
{
	size_t row;

	if (!p || (p->elementSize != 1 && p->elementSize != 2 &&
		   p->elementSize != 4))
		return CUDA_ERROR_INVALID_VALUE;
	if (!p->width || !p->height || p->dst % p->elementSize ||
	    __builtin_mul_overflow(p->width, p->elementSize, &row))
		return CUDA_ERROR_INVALID_VALUE;
	if (p->height > 1 && (p->pitch < row || p->pitch % p->elementSize))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMSET_NODE_PARAMS *memsetParams,
				      CUcontext ctx)
{
	struct libcumc_graph_node *node;
	CUresult res = libcumc_memset_params_check(memsetParams);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, CU_GRAPH_NODE_TYPE_MEMSET,
				 &node);
	if (res == CUDA_SUCCESS) {
		node->u.memset.params = *memsetParams;
		node->u.memset.ctx = ctx;
	}
	libcumc_graphs_unlock();
	return res;
}

/* A copy cuMemcpy3D would take, of at least one byte. */
CUresult libcumc_memcpy_params_check(const CUDA_MEMCPY3D *p)
{
	if (!p || !p->WidthInBytes || !p->Height || !p->Depth)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_copy3d_params_check(p);
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMCPY3D *copyParams,
				      CUcontext ctx)
{
	struct libcumc_graph_node *node;
	CUresult res = libcumc_memcpy_params_check(copyParams);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, CU_GRAPH_NODE_TYPE_MEMCPY,
				 &node);
	if (res == CUDA_SUCCESS) {
		node->u.memcpy.params = *copyParams;
		node->u.memcpy.ctx = ctx;
	}
	libcumc_graphs_unlock();
	return res;
}

/*
 * A kernel node's launch, its arguments copied into @k: the function (or
 * the library kernel) must be live and the grid and block not empty; the
 * rest is checked when the graph is launched, as a launch's errors.
 */
CUresult libcumc_kernel_params_copy(const CUDA_KERNEL_NODE_PARAMS *p,
					   struct libcumc_kernel_node *k)
{
	struct libcumc_function *fn;
	CUresult res;

	*k = (struct libcumc_kernel_node){ 0 };
	if (!p || !p->gridDimX || !p->gridDimY || !p->gridDimZ ||
	    !p->blockDimX || !p->blockDimY || !p->blockDimZ ||
	    (p->func && p->kern) || (!p->func && !p->kern))
		return CUDA_ERROR_INVALID_VALUE;
	res = p->func ? libcumc_function_get(p->func, &fn) :
			libcumc_kernel_get(p->kern, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	*k = (struct libcumc_kernel_node){ .params = *p };
	res = libcumc_kernel_args_copy(fn, p->kernelParams, p->extra,
				       &k->arg_buf, &k->arg_size, &k->args,
				       &k->num_args);
	libcumc_module_put(fn->mod);
	if (res != CUDA_SUCCESS) {
		*k = (struct libcumc_kernel_node){ 0 };
		return res;
	}
	k->params.kernelParams = k->args;
	k->params.extra = NULL;
	return CUDA_SUCCESS;
}

void libcumc_kernel_params_free(struct libcumc_kernel_node *k)
{
	free(k->arg_buf);
	free(k->args);
}

CUresult CUDAAPI cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode,
					 CUgraph hGraph,
					 const CUgraphNode *dependencies,
					 size_t numDependencies,
					 const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct libcumc_kernel_node k;
	struct libcumc_graph_node *node;
	CUresult res = libcumc_kernel_params_copy(nodeParams, &k);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, CU_GRAPH_NODE_TYPE_KERNEL,
				 &node);
	if (res == CUDA_SUCCESS)
		node->u.kernel = k;
	libcumc_graphs_unlock();
	if (res != CUDA_SUCCESS)
		libcumc_kernel_params_free(&k);
	return res;
}

static CUresult libcumc_node_params_read(CUgraphNode hNode,
					 CUgraphNodeType type, void *dst,
					 size_t offset, size_t size);

CUresult libcumc_batch_params_copy(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p,
				   CUDA_BATCH_MEM_OP_NODE_PARAMS *copy)
{
	CUresult res;

	if (!p || !p->count)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_batch_check(p->count, p->paramArray, p->flags);
	return res == CUDA_SUCCESS ? libcumc_batch_params_dup(p, copy) : res;
}

/*
 * The operations are copied and checked as cuStreamBatchMemOp checks
 * them; their addresses when the graph is launched.
 */
CUresult CUDAAPI cuGraphAddBatchMemOpNode(CUgraphNode *phGraphNode,
				CUgraph hGraph, const CUgraphNode *dependencies,
				size_t numDependencies,
				const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
	CUDA_BATCH_MEM_OP_NODE_PARAMS batch;
	struct libcumc_graph_node *node;
	CUresult res = libcumc_batch_params_copy(nodeParams, &batch);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
				 numDependencies, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP,
				 &node);
	if (res == CUDA_SUCCESS)
		node->u.batch = batch;
	libcumc_graphs_unlock();
	if (res != CUDA_SUCCESS)
		free(batch.paramArray);
	return res;
}

/* paramArray points at the node's own copy of the operations. */
CUresult CUDAAPI cuGraphBatchMemOpNodeGetParams(CUgraphNode hNode,
				CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams_out)
{
	return libcumc_node_params_read(hNode, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP,
			nodeParams_out,
			offsetof(struct libcumc_graph_node, u.batch),
			sizeof(*nodeParams_out));
}

CUresult CUDAAPI cuGraphBatchMemOpNodeSetParams(CUgraphNode hNode,
				const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
	CUDA_BATCH_MEM_OP_NODE_PARAMS batch;
	struct libcumc_graph_node *node;
	CUresult res = libcumc_batch_params_copy(nodeParams, &batch);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_node_params(hNode, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, false,
				  &node);
	if (res != CUDA_SUCCESS) {
		free(batch.paramArray);
		return res;
	}
	free(node->u.batch.paramArray);
	node->u.batch = batch;
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

static CUresult libcumc_add_event_node(CUgraphNode *phGraphNode, CUgraph hGraph,
				       const CUgraphNode *dependencies,
				       size_t numDependencies,
				       CUgraphNodeType type, CUevent event)
{
	if (!libcumc_event_live(event))
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_node_add_plain(phGraphNode, hGraph, dependencies,
				      numDependencies, type, &event,
				      sizeof(event));
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode,
					   CUgraph hGraph,
					   const CUgraphNode *dependencies,
					   size_t numDependencies,
					   CUevent event)
{
	return libcumc_add_event_node(phGraphNode, hGraph, dependencies,
				      numDependencies,
				      CU_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode,
					 CUgraph hGraph,
					 const CUgraphNode *dependencies,
					 size_t numDependencies, CUevent event)
{
	return libcumc_add_event_node(phGraphNode, hGraph, dependencies,
				      numDependencies,
				      CU_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

/* The node embeds a clone: later changes to @childGraph do not reach it. */
CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode,
					  CUgraph hGraph,
					  const CUgraphNode *dependencies,
					  size_t numDependencies,
					  CUgraph childGraph)
{
	struct libcumc_graph *child, *copy = NULL;
	struct libcumc_graph_node *node;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	libcumc_graphs_lock();
	child = libcumc_graph_find(childGraph);
	/* A graph with memory nodes is not copied into a child (cuda.h). */
	if (child && libcumc_graph_has_mem(child)) {
		res = CUDA_ERROR_NOT_SUPPORTED;
	} else if (child && childGraph != hGraph) {
		copy = libcumc_graph_clone(child);
		res = copy ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (res == CUDA_SUCCESS)
		res = libcumc_node_begin(phGraphNode, hGraph, dependencies,
					 numDependencies,
					 CU_GRAPH_NODE_TYPE_GRAPH, &node);
	if (res == CUDA_SUCCESS)
		node->u.child = copy;
	else if (copy)
		libcumc_graph_free(copy);
	libcumc_graphs_unlock();
	return res;
}

/* Topology */

CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type)
{
	struct libcumc_graph_node *node;

	libcumc_graphs_lock();
	node = libcumc_node_find(hNode);
	if (node && type)
		*type = node->type;
	libcumc_graphs_unlock();
	return node && type ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/*
 * The nodes @pick selects, as cuGraphGetNodes answers: their count when
 * @out is NULL, else at most *@count of them, NULL filling the rest.
 */
static CUresult libcumc_nodes_answer(CUgraph hGraph, CUgraphNode *out,
				     size_t *count,
				     bool (*pick)(const struct libcumc_graph_node *))
{
	struct libcumc_graph_node *node;
	struct libcumc_graph *graph;
	size_t n = 0;

	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (graph) {
		for (node = graph->nodes; node; node = node->next) {
			if (!pick(node))
				continue;
			if (out && n < *count)
				out[n] = (CUgraphNode)node;
			n++;
		}
		if (!out)
			*count = n;
		else if (n < *count) {
			memset(out + n, 0, (*count - n) * sizeof(*out));
			*count = n;
		}
	}
	libcumc_graphs_unlock();
	return graph ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static bool libcumc_pick_any(const struct libcumc_graph_node *node)
{
	(void)node;
	return true;
}

static bool libcumc_pick_root(const struct libcumc_graph_node *node)
{
	return !node->num_deps;
}

CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes,
				 size_t *numNodes)
{
	return libcumc_nodes_answer(hGraph, nodes, numNodes, libcumc_pick_any);
}

CUresult CUDAAPI cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes,
				     size_t *numRootNodes)
{
	return libcumc_nodes_answer(hGraph, rootNodes, numRootNodes,
				    libcumc_pick_root);
}

/* One edge into the answer of a query of edges, as cuGraphGetEdges fills it. */
static void libcumc_edge_answer(CUgraphNode *from, CUgraphNode *to,
				CUgraphEdgeData *data, size_t max, size_t i,
				struct libcumc_graph_node *f,
				struct libcumc_graph_node *t)
{
	if (i >= max)
		return;
	if (from)
		from[i] = (CUgraphNode)f;
	if (to)
		to[i] = (CUgraphNode)t;
	if (data)
		memset(&data[i], 0, sizeof(data[i]));
}

/* The rest of an answer's arrays, past the @n entries found, cleared. */
static void libcumc_edges_clear(CUgraphNode *from, CUgraphNode *to,
				CUgraphEdgeData *data, size_t n, size_t max)
{
	if (n >= max)
		return;
	if (from)
		memset(from + n, 0, (max - n) * sizeof(*from));
	if (to)
		memset(to + n, 0, (max - n) * sizeof(*to));
	if (data)
		memset(data + n, 0, (max - n) * sizeof(*data));
}

CUresult CUDAAPI cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from,
				    CUgraphNode *to, CUgraphEdgeData *edgeData,
				    size_t *numEdges)
{
	struct libcumc_graph_node *node;
	struct libcumc_graph *graph;
	size_t n = 0, i, max;

	/* Both arrays, or neither to count the edges. */
	if (!numEdges || !from != !to || (edgeData && !from))
		return CUDA_ERROR_INVALID_VALUE;
	max = from ? *numEdges : 0;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (graph) {
		for (node = graph->nodes; node; node = node->next)
			for (i = 0; i < node->num_deps; i++, n++)
				libcumc_edge_answer(from, to, edgeData, max, n,
						    node->deps[i], node);
		libcumc_edges_clear(from, to, edgeData, n, max);
		*numEdges = from && n > max ? max : n;
	}
	libcumc_graphs_unlock();
	return graph ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A node's dependencies (@dependents false) or dependent nodes. */
static CUresult libcumc_node_edges(CUgraphNode hNode, CUgraphNode *nodes,
				   CUgraphEdgeData *edgeData, size_t *count,
				   bool dependents)
{
	struct libcumc_graph_node *node, *other;
	size_t n = 0, i, max;

	if (!count || (edgeData && !nodes))
		return CUDA_ERROR_INVALID_VALUE;
	max = nodes ? *count : 0;
	libcumc_graphs_lock();
	node = libcumc_node_find(hNode);
	if (node && !dependents) {
		for (i = 0; i < node->num_deps; i++, n++)
			libcumc_edge_answer(nodes, NULL, edgeData, max, n,
					    node->deps[i], NULL);
	} else if (node) {
		for (other = node->graph->nodes; other; other = other->next)
			for (i = 0; i < other->num_deps; i++)
				if (other->deps[i] == node)
					libcumc_edge_answer(nodes, NULL,
							    edgeData, max,
							    n++, other, NULL);
	}
	if (node) {
		libcumc_edges_clear(nodes, NULL, edgeData, n, max);
		*count = nodes && n > max ? max : n;
	}
	libcumc_graphs_unlock();
	return node ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphNodeGetDependencies_v2(CUgraphNode hNode,
					       CUgraphNode *dependencies,
					       CUgraphEdgeData *edgeData,
					       size_t *numDependencies)
{
	return libcumc_node_edges(hNode, dependencies, edgeData,
				  numDependencies, false);
}

CUresult CUDAAPI cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode,
						 CUgraphNode *dependentNodes,
						 CUgraphEdgeData *edgeData,
						 size_t *numDependentNodes)
{
	return libcumc_node_edges(hNode, dependentNodes, edgeData,
				  numDependentNodes, true);
}

/* Whether @to depends on @from directly. */
static size_t libcumc_edge_find(const struct libcumc_graph_node *from,
				const struct libcumc_graph_node *to)
{
	size_t i;

	for (i = 0; i < to->num_deps; i++)
		if (to->deps[i] == from)
			return i;
	return (size_t)-1;
}

/*
 * The edges of a cuGraphAdd/RemoveDependencies call, checked whole before
 * anything changes: nodes of the graph, default edge data only (cumc has
 * no programmatic dependencies); adding, no edge twice and none from a
 * node to itself; removing, only edges there are.
 */
static CUresult libcumc_edges_change(CUgraph hGraph, const CUgraphNode *from,
				     const CUgraphNode *to,
				     const CUgraphEdgeData *edgeData,
				     size_t count, bool add)
{
	static const CUgraphEdgeData plain;
	struct libcumc_graph_node **f = NULL, **t = NULL, *node;
	struct libcumc_graph *graph;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	size_t i, j, at;

	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (!graph)
		goto out;
	/* Nor edges of a graph with memory nodes removed (cuda.h). */
	if (!add && libcumc_graph_has_mem(graph)) {
		res = CUDA_ERROR_NOT_SUPPORTED;
		goto out;
	}
	res = libcumc_graph_nodes_of(graph, from, count, &f);
	if (res == CUDA_SUCCESS)
		res = libcumc_graph_nodes_of(graph, to, count, &t);
	for (i = 0; i < count && res == CUDA_SUCCESS; i++) {
		if (edgeData && memcmp(&edgeData[i], &plain, sizeof(plain)))
			res = CUDA_ERROR_INVALID_VALUE;
		else if (add && (f[i] == t[i] ||
				 libcumc_edge_find(f[i], t[i]) != (size_t)-1))
			res = CUDA_ERROR_INVALID_VALUE;
		else if (!add && libcumc_edge_find(f[i], t[i]) == (size_t)-1)
			res = CUDA_ERROR_INVALID_VALUE;
		for (j = 0; j < i && res == CUDA_SUCCESS; j++)
			if (f[j] == f[i] && t[j] == t[i])
				res = CUDA_ERROR_INVALID_VALUE;
	}
	for (i = 0; i < count && res == CUDA_SUCCESS; i++) {
		node = t[i];
		if (!add) {
			at = libcumc_edge_find(f[i], node);
			node->deps[at] = node->deps[--node->num_deps];
			continue;
		}
		if (node->num_deps == node->max_deps) {
			struct libcumc_graph_node **deps;
			size_t max = node->max_deps ? 2 * node->max_deps : 4;

			deps = reallocarray(node->deps, max, sizeof(*deps));
			if (!deps) {
				res = CUDA_ERROR_OUT_OF_MEMORY;
				break;
			}
			node->deps = deps;
			node->max_deps = max;
		}
		node->deps[node->num_deps++] = f[i];
	}
out:
	libcumc_graphs_unlock();
	free(f);
	free(t);
	return res;
}

CUresult CUDAAPI cuGraphAddDependencies_v2(CUgraph hGraph,
					   const CUgraphNode *from,
					   const CUgraphNode *to,
					   const CUgraphEdgeData *edgeData,
					   size_t numDependencies)
{
	return libcumc_edges_change(hGraph, from, to, edgeData,
				    numDependencies, true);
}

CUresult CUDAAPI cuGraphRemoveDependencies_v2(CUgraph hGraph,
					      const CUgraphNode *from,
					      const CUgraphNode *to,
					      const CUgraphEdgeData *edgeData,
					      size_t numDependencies)
{
	return libcumc_edges_change(hGraph, from, to, edgeData,
				    numDependencies, false);
}

/*
 * The node goes with its edges, both ways.  Not while a capture builds
 * its graph: the capturing streams' dependencies may name it.
 */
CUresult CUDAAPI cuGraphDestroyNode(CUgraphNode hNode)
{
	struct libcumc_graph_node *node, *other, **link;
	struct libcumc_graph *graph;
	size_t at;

	libcumc_graphs_lock();
	node = libcumc_node_find(hNode);
	if (!node || node->graph->capturing) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* Nor can nodes of a graph with memory nodes (cuda.h, driver 580). */
	if (libcumc_graph_has_mem(node->graph)) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	graph = node->graph;
	for (other = graph->nodes; other; other = other->next)
		while ((at = libcumc_edge_find(node, other)) != (size_t)-1)
			other->deps[at] = other->deps[--other->num_deps];
	for (link = &graph->nodes; *link != node; link = &(*link)->next)
		;
	*link = node->next;
	if (graph->last == node) {
		for (graph->last = graph->nodes;
		     graph->last && graph->last->next;
		     graph->last = graph->last->next)
			;
	}
	graph->num_nodes--;
	libcumc_node_destroy(node);
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphNodeFindInClone(CUgraphNode *phNode,
					CUgraphNode hOriginalNode,
					CUgraph hClonedGraph)
{
	struct libcumc_graph_node *node = NULL;
	struct libcumc_graph *graph;

	if (!phNode || !hOriginalNode)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hClonedGraph);
	for (node = graph ? graph->nodes : NULL; node; node = node->next)
		if ((CUgraphNode)node->origin == hOriginalNode)
			break;
	if (node)
		*phNode = (CUgraphNode)node;
	libcumc_graphs_unlock();
	return node ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static const char *const libcumc_node_type_names[] = {
	[CU_GRAPH_NODE_TYPE_KERNEL] = "kernel",
	[CU_GRAPH_NODE_TYPE_MEMCPY] = "memcpy",
	[CU_GRAPH_NODE_TYPE_MEMSET] = "memset",
	[CU_GRAPH_NODE_TYPE_HOST] = "host",
	[CU_GRAPH_NODE_TYPE_GRAPH] = "graph",
	[CU_GRAPH_NODE_TYPE_EMPTY] = "empty",
	[CU_GRAPH_NODE_TYPE_WAIT_EVENT] = "wait_event",
	[CU_GRAPH_NODE_TYPE_EVENT_RECORD] = "event_record",
	[CU_GRAPH_NODE_TYPE_MEM_ALLOC] = "mem_alloc",
	[CU_GRAPH_NODE_TYPE_MEM_FREE] = "mem_free",
	[CU_GRAPH_NODE_TYPE_BATCH_MEM_OP] = "batch_mem_op",
};

static const char *libcumc_node_type_name(CUgraphNodeType type)
{
	size_t n = sizeof(libcumc_node_type_names) /
		   sizeof(libcumc_node_type_names[0]);

	return (size_t)type < n && libcumc_node_type_names[type] ?
	       libcumc_node_type_names[type] : "other";
}

/* One graph's nodes and edges in DOT, each node named by its position. */
static void libcumc_dot_graph(FILE *f, struct libcumc_graph *graph,
			      const char *prefix)
{
	struct libcumc_graph_node *node;
	size_t i, n = 0;
	char child[64];

	for (node = graph->nodes; node; node = node->next, n++) {
		node->mark = n;
		fprintf(f, "\t\"%s%zu\" [label=\"%s%zu %s%s\"];\n", prefix, n,
			prefix, n, libcumc_node_type_name(node->type),
			node->is_captured ? " (captured)" : "");
	}
	for (node = graph->nodes; node; node = node->next)
		for (i = 0; i < node->num_deps; i++)
			fprintf(f, "\t\"%s%zu\" -> \"%s%zu\";\n", prefix,
				node->deps[i]->mark, prefix, node->mark);
	for (node = graph->nodes; node; node = node->next) {
		if (node->type != CU_GRAPH_NODE_TYPE_GRAPH || node->is_captured)
			continue;
		snprintf(child, sizeof(child), "%s%zu.", prefix, node->mark);
		libcumc_dot_graph(f, node->u.child, child);
	}
}

/*
 * The graph's topology as a DOT file: a node a line (its number, a child
 * graph's nodes numbered under it, and its type), an edge a line.  The
 * verbosity flags add nothing.
 */
CUresult CUDAAPI cuGraphDebugDotPrint(CUgraph hGraph, const char *path,
				      unsigned int flags)
{
	struct libcumc_graph *graph;
	CUresult res = CUDA_SUCCESS;
	FILE *f;

	(void)flags;
	if (!path)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	f = graph ? fopen(path, "we") : NULL;
	if (!graph) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (!f) {
		libcumc_log_errno("fopen", path, errno);
		res = CUDA_ERROR_OPERATING_SYSTEM;
	} else {
		fputs("digraph cumc {\n", f);
		libcumc_dot_graph(f, graph, "");
		fputs("}\n", f);
		if (fclose(f))
			res = CUDA_ERROR_OPERATING_SYSTEM;
	}
	libcumc_graphs_unlock();
	return res;
}

/* Parameters */

/*
 * The node @hNode names, of @type, lock held on success.  A node that
 * holds captured work (graph.h) has no parameters to change, and to
 * @read only those its item described: CUDA_ERROR_NOT_SUPPORTED.
 */
CUresult libcumc_node_params(CUgraphNode hNode, CUgraphNodeType type,
			     bool read, struct libcumc_graph_node **out)
{
	struct libcumc_graph_node *node;
	CUresult res = CUDA_SUCCESS;

	libcumc_graphs_lock();
	node = libcumc_node_find(hNode);
	if (!node || node->type != type) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (node->is_captured && !(read && node->described)) {
		libcumc_log_note("this captured node's parameters cannot be read or changed in cumc");
		res = CUDA_ERROR_NOT_SUPPORTED;
	}
	if (res != CUDA_SUCCESS) {
		libcumc_graphs_unlock();
		return res;
	}
	*out = node;
	return CUDA_SUCCESS;
}

/*
 * Copies @size bytes at @offset in the node @hNode names, of @type, to
 * @dst: the getters of parameters a node keeps by value.
 */
static CUresult libcumc_node_params_read(CUgraphNode hNode,
					 CUgraphNodeType type, void *dst,
					 size_t offset, size_t size)
{
	struct libcumc_graph_node *node;
	CUresult res;

	if (!dst)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_node_params(hNode, type, true, &node);
	if (res != CUDA_SUCCESS)
		return res;
	memcpy(dst, (const char *)node + offset, size);
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

/* The setters' counterpart; @src is already checked. */
static CUresult libcumc_node_params_write(CUgraphNode hNode,
					  CUgraphNodeType type,
					  const void *src, size_t offset,
					  size_t size)
{
	struct libcumc_graph_node *node;
	CUresult res = libcumc_node_params(hNode, type, false, &node);

	if (res != CUDA_SUCCESS)
		return res;
	memcpy((char *)node + offset, src, size);
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphHostNodeGetParams(CUgraphNode hNode,
					  CUDA_HOST_NODE_PARAMS *nodeParams)
{
	return libcumc_node_params_read(hNode, CU_GRAPH_NODE_TYPE_HOST, nodeParams,
			offsetof(struct libcumc_graph_node, u.host),
			sizeof(*nodeParams));
}

CUresult CUDAAPI cuGraphHostNodeSetParams(CUgraphNode hNode,
					  const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	CUresult res = libcumc_host_params_check(nodeParams);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_node_params_write(hNode, CU_GRAPH_NODE_TYPE_HOST, nodeParams,
			offsetof(struct libcumc_graph_node, u.host),
			sizeof(*nodeParams));
}

CUresult CUDAAPI cuGraphMemsetNodeGetParams(CUgraphNode hNode,
					    CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
	return libcumc_node_params_read(hNode, CU_GRAPH_NODE_TYPE_MEMSET, nodeParams,
			offsetof(struct libcumc_graph_node, u.memset.params),
			sizeof(*nodeParams));
}

CUresult CUDAAPI cuGraphMemsetNodeSetParams(CUgraphNode hNode,
					const CUDA_MEMSET_NODE_PARAMS *nodeParams)
{
	CUresult res = libcumc_memset_params_check(nodeParams);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_node_params_write(hNode, CU_GRAPH_NODE_TYPE_MEMSET, nodeParams,
			offsetof(struct libcumc_graph_node, u.memset.params),
			sizeof(*nodeParams));
}

CUresult CUDAAPI cuGraphMemcpyNodeGetParams(CUgraphNode hNode,
					    CUDA_MEMCPY3D *nodeParams)
{
	return libcumc_node_params_read(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, nodeParams,
			offsetof(struct libcumc_graph_node, u.memcpy.params),
			sizeof(*nodeParams));
}

CUresult CUDAAPI cuGraphMemcpyNodeSetParams(CUgraphNode hNode,
					    const CUDA_MEMCPY3D *nodeParams)
{
	CUresult res = libcumc_memcpy_params_check(nodeParams);

	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_node_params_write(hNode, CU_GRAPH_NODE_TYPE_MEMCPY, nodeParams,
			offsetof(struct libcumc_graph_node, u.memcpy.params),
			sizeof(*nodeParams));
}

/*
 * kernelParams points at the node's copies of the arguments (a captured
 * node's, at its launch's).
 */
CUresult CUDAAPI cuGraphKernelNodeGetParams_v2(CUgraphNode hNode,
					CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	return libcumc_node_params_read(hNode, CU_GRAPH_NODE_TYPE_KERNEL, nodeParams,
			offsetof(struct libcumc_graph_node, u.kernel.params),
			sizeof(*nodeParams));
}

CUresult CUDAAPI cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
				const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct libcumc_graph_node *node;
	struct libcumc_kernel_node k;
	CUresult res = libcumc_kernel_params_copy(nodeParams, &k);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_node_params(hNode, CU_GRAPH_NODE_TYPE_KERNEL, false, &node);
	if (res != CUDA_SUCCESS) {
		libcumc_kernel_params_free(&k);
		return res;
	}
	libcumc_kernel_params_free(&node->u.kernel);
	node->u.kernel = k;
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

static CUresult libcumc_event_node_get(CUgraphNode hNode, CUgraphNodeType type,
				       CUevent *event_out)
{
	return libcumc_node_params_read(hNode, type, event_out,
			offsetof(struct libcumc_graph_node, u.event),
			sizeof(*event_out));
}

static CUresult libcumc_event_node_set(CUgraphNode hNode, CUgraphNodeType type,
				       CUevent event)
{
	if (!libcumc_event_live(event))
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_node_params_write(hNode, type, &event,
			offsetof(struct libcumc_graph_node, u.event),
			sizeof(event));
}

CUresult CUDAAPI cuGraphEventRecordNodeGetEvent(CUgraphNode hNode,
						CUevent *event_out)
{
	return libcumc_event_node_get(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD,
				      event_out);
}

CUresult CUDAAPI cuGraphEventRecordNodeSetEvent(CUgraphNode hNode,
						CUevent event)
{
	return libcumc_event_node_set(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD,
				      event);
}

CUresult CUDAAPI cuGraphEventWaitNodeGetEvent(CUgraphNode hNode,
					      CUevent *event_out)
{
	return libcumc_event_node_get(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT,
				      event_out);
}

CUresult CUDAAPI cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event)
{
	return libcumc_event_node_set(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT,
				      event);
}

/*
 * The embedded graph itself: a handle to it is valid while the node
 * lives, and changes to it change the node.
 */
CUresult CUDAAPI cuGraphChildGraphNodeGetGraph(CUgraphNode hNode,
					       CUgraph *phGraph)
{
	struct libcumc_graph_node *node;
	struct libcumc_graph *child;
	CUresult res;

	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_node_params(hNode, CU_GRAPH_NODE_TYPE_GRAPH, true, &node);
	if (res != CUDA_SUCCESS)
		return res;
	child = node->u.child;
	if (!child->registered) {
		libcumc_graph_register(child);
		child->embedded = true;
	}
	*phGraph = (CUgraph)child;
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

/* User objects */

CUresult CUDAAPI cuUserObjectCreate(CUuserObject *object_out, void *ptr,
				    CUhostFn destroy,
				    unsigned int initialRefcount,
				    unsigned int flags)
{
	struct libcumc_user_object *obj;

	/* The destructor never synchronizes: the flag says it is known. */
	if (!object_out || !destroy || !initialRefcount ||
	    flags != CU_USER_OBJECT_NO_DESTRUCTOR_SYNC)
		return CUDA_ERROR_INVALID_VALUE;
	obj = calloc(1, sizeof(*obj));
	if (!obj)
		return CUDA_ERROR_OUT_OF_MEMORY;
	obj->count = initialRefcount;
	obj->ptr = ptr;
	obj->destroy = destroy;
	libcumc_graphs_lock();
	libcumc_user_object_add(obj);
	libcumc_graphs_unlock();
	*object_out = (CUuserObject)obj;
	return CUDA_SUCCESS;
}

/* More references than there are: INVALID_VALUE, nothing changes. */
static CUresult libcumc_user_object_count(CUuserObject object,
					  unsigned int count, bool retain)
{
	struct libcumc_user_object *obj;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	if (!count)
		return res;
	libcumc_graphs_lock();
	obj = libcumc_user_object_find(object);
	if (obj && retain && obj->count + count > obj->count) {
		obj->count += count;
		res = CUDA_SUCCESS;
	} else if (obj && !retain && count <= obj->count) {
		libcumc_user_object_put(obj, count);
		res = CUDA_SUCCESS;
	}
	libcumc_graphs_unlock();
	return res;
}

CUresult CUDAAPI cuUserObjectRetain(CUuserObject object, unsigned int count)
{
	return libcumc_user_object_count(object, count, true);
}

CUresult CUDAAPI cuUserObjectRelease(CUuserObject object, unsigned int count)
{
	return libcumc_user_object_count(object, count, false);
}

/* With CU_GRAPH_USER_OBJECT_MOVE the caller's references move to the graph. */
CUresult CUDAAPI cuGraphRetainUserObject(CUgraph graph, CUuserObject object,
					 unsigned int count,
					 unsigned int flags)
{
	struct libcumc_user_object *obj;
	struct libcumc_graph *g;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	if (!count || (flags & ~(unsigned int)CU_GRAPH_USER_OBJECT_MOVE))
		return res;
	libcumc_graphs_lock();
	g = libcumc_graph_find(graph);
	obj = libcumc_user_object_find(object);
	if (g && obj && (flags || obj->count + count > obj->count))
		res = libcumc_graph_hold(g, obj, count);
	if (res == CUDA_SUCCESS && !flags)
		obj->count += count;
	libcumc_graphs_unlock();
	return res;
}

CUresult CUDAAPI cuGraphReleaseUserObject(CUgraph graph, CUuserObject object,
					  unsigned int count)
{
	struct libcumc_graph *g;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	size_t i;

	if (!count)
		return res;
	libcumc_graphs_lock();
	g = libcumc_graph_find(graph);
	for (i = 0; g && i < g->num_refs; i++) {
		if ((CUuserObject)g->refs[i].obj != object ||
		    g->refs[i].count < count)
			continue;
		g->refs[i].count -= count;
		libcumc_user_object_put(g->refs[i].obj, count);
		if (!g->refs[i].count)
			g->refs[i] = g->refs[--g->num_refs];
		res = CUDA_SUCCESS;
		break;
	}
	libcumc_graphs_unlock();
	return res;
}
