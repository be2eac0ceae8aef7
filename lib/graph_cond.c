// SPDX-License-Identifier: MIT
/*
 * Conditional nodes (graph.h): the handles a graph's conditional nodes
 * test, the bodies such a node owns, and which body a launch runs.
 *
 * Device code sets a condition through the device runtime
 * (cudaGraphSetConditional), which cumc's PTX path does not reach, so a
 * condition holds its handle's default value at each launch with
 * CU_GRAPH_COND_ASSIGN_DEFAULT, and 0 without, as driver 580's starts
 * (probe graph.cond.if_default1_no_assign).  IF and SWITCH
 * nodes run the body that value picks; a WHILE node whose condition
 * starts non-zero would never stop, and is refused at instantiation.
 */
#include <stdlib.h>

#include "context.h"
#include "graph.h"
#include "log.h"

/* Handles are unique in the process; 0 is never one. Graphs' lock. */
static CUgraphConditionalHandle libcumc_cond_last_id;

/* @ctx, or the calling thread's current context for NULL, when live. */
static CUresult libcumc_cond_ctx(CUcontext ctx, CUcontext *out)
{
	CUdevice dev;

	if (!ctx)
		ctx = libcumc_stack_top();
	if (!ctx || libcumc_context_device(ctx, &dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_VALUE;
	*out = ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphConditionalHandleCreate(
			CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
			CUcontext ctx, unsigned int defaultLaunchValue,
			unsigned int flags)
{
	struct libcumc_cond_handle *handles;
	struct libcumc_graph *graph;

	if (!pHandle_out || (flags & ~(unsigned int)CU_GRAPH_COND_ASSIGN_DEFAULT))
		return CUDA_ERROR_INVALID_VALUE;
	/* No current-context fallback here, as driver 580 answers. */
	if (!ctx || libcumc_cond_ctx(ctx, &ctx) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (!graph) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	handles = reallocarray(graph->handles, graph->num_handles + 1,
			       sizeof(*handles));
	if (!handles) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	graph->handles = handles;
	handles[graph->num_handles++] = (struct libcumc_cond_handle){
		.id = ++libcumc_cond_last_id, .ctx = ctx,
		.value = flags & CU_GRAPH_COND_ASSIGN_DEFAULT ?
			 defaultLaunchValue : 0,
		.flags = flags,
	};
	*pHandle_out = libcumc_cond_last_id;
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

/*
 * The handle @id of @graph or of a graph it is a body of, nested as
 * deep as it is (lock held); NULL when there is none.
 */
static const struct libcumc_cond_handle *
libcumc_cond_handle_find(const struct libcumc_graph *graph,
			 CUgraphConditionalHandle id)
{
	size_t i;

	for (; graph; graph = graph->owner ? graph->owner->graph : NULL)
		for (i = 0; i < graph->num_handles; i++)
			if (graph->handles[i].id == id)
				return &graph->handles[i];
	return NULL;
}

/* IF has one body or two (else), WHILE one, SWITCH any number. */
static bool libcumc_cond_size_valid(CUgraphConditionalNodeType type,
				    unsigned int size)
{
	switch (type) {
	case CU_GRAPH_COND_TYPE_IF:
		return size == 1 || size == 2;
	case CU_GRAPH_COND_TYPE_WHILE:
		return size == 1;
	case CU_GRAPH_COND_TYPE_SWITCH:
		return size > 0;
	default:
		return false;
	}
}

/* New empty bodies, CUgraph handles that cuGraphDestroy refuses. */
static CUresult libcumc_cond_bodies_make(union libcumc_node_data *u)
{
	struct libcumc_cond_node *cond = &u->cond;
	struct libcumc_graph *body;
	unsigned int i;

	cond->bodies = calloc(cond->size, sizeof(*cond->bodies));
	if (!cond->bodies)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < cond->size; i++) {
		body = libcumc_graph_new(true);
		if (!body) {
			libcumc_node_params_free(CU_GRAPH_NODE_TYPE_CONDITIONAL,
						 u);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		body->embedded = true;
		cond->bodies[i] = (CUgraph)body;
	}
	return CUDA_SUCCESS;
}

CUresult libcumc_cond_params_make(CUgraph hGraph,
				  const CUDA_CONDITIONAL_NODE_PARAMS *p,
				  union libcumc_node_data *u)
{
	const struct libcumc_cond_handle *handle;
	struct libcumc_graph *graph;
	CUcontext ctx;
	CUresult res;

	if (!libcumc_cond_size_valid(p->type, p->size))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_cond_ctx(p->ctx, &ctx);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	handle = graph ? libcumc_cond_handle_find(graph, p->handle) : NULL;
	if (!handle || handle->ctx != ctx) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	u->cond = (struct libcumc_cond_node){
		.handle = p->handle, .type = p->type, .size = p->size,
		.value = handle->value, .ctx = ctx,
	};
	res = libcumc_cond_bodies_make(u);
	libcumc_graphs_unlock();
	return res;
}

struct libcumc_graph *libcumc_cond_body(const struct libcumc_cond_node *cond)
{
	CUgraph body = NULL;

	switch (cond->type) {
	case CU_GRAPH_COND_TYPE_IF:
		if (cond->value)
			body = cond->bodies[0];
		else if (cond->size == 2)
			body = cond->bodies[1];
		break;
	case CU_GRAPH_COND_TYPE_SWITCH:
		if (cond->value < cond->size)
			body = cond->bodies[cond->value];
		break;
	default:
		/* WHILE: its condition is 0 (libcumc_cond_check), no pass. */
		break;
	}
	return (struct libcumc_graph *)body;
}

/*
 * Whether a node of @type may run in @graph: a conditional node's body,
 * or a graph in one, holds kernel, empty, memset, memcpy, child graph
 * and conditional nodes only, as cuda.h says.  Driver 580 takes any node
 * into a body and refuses the graph's instantiation (probe
 * graph.cond.body_host_node), so the check is here.
 */
static bool libcumc_graph_may_hold(const struct libcumc_graph *graph,
				   CUgraphNodeType type)
{
	return !graph->owner || type == CU_GRAPH_NODE_TYPE_KERNEL ||
	       type == CU_GRAPH_NODE_TYPE_EMPTY ||
	       type == CU_GRAPH_NODE_TYPE_MEMSET ||
	       type == CU_GRAPH_NODE_TYPE_MEMCPY ||
	       type == CU_GRAPH_NODE_TYPE_GRAPH ||
	       type == CU_GRAPH_NODE_TYPE_CONDITIONAL;
}

/*
 * @graph's conditional nodes, and those of its child graphs and bodies;
 * @rules is the body whose restrictions @graph's nodes follow, NULL for
 * none (a body's child graph follows its body's).
 */
static CUresult libcumc_cond_walk(const struct libcumc_graph *graph,
				  const struct libcumc_graph *rules,
				  struct libcumc_graph_node **err_node)
{
	struct libcumc_graph_node *node;
	const struct libcumc_graph *body;
	CUresult res = CUDA_SUCCESS;
	unsigned int i;

	for (node = graph->nodes; node && res == CUDA_SUCCESS;
	     node = node->next) {
		*err_node = node;
		if (rules && !libcumc_graph_may_hold(rules, node->type)) {
			libcumc_log_note("a conditional node's body holds no node of this type");
			return CUDA_ERROR_INVALID_VALUE;
		}
		if (node->is_captured)
			continue;
		if (node->type == CU_GRAPH_NODE_TYPE_GRAPH)
			res = libcumc_cond_walk(node->u.child, rules, err_node);
		if (node->type != CU_GRAPH_NODE_TYPE_CONDITIONAL)
			continue;
		if (node->u.cond.type == CU_GRAPH_COND_TYPE_WHILE &&
		    node->u.cond.value) {
			libcumc_log_note("a WHILE node never ends in cumc: its condition must start at 0");
			return CUDA_ERROR_NOT_SUPPORTED;
		}
		for (i = 0; i < node->u.cond.size && res == CUDA_SUCCESS; i++) {
			body = (const struct libcumc_graph *)
			       node->u.cond.bodies[i];
			res = libcumc_cond_walk(body, body, err_node);
		}
	}
	return res;
}

CUresult libcumc_cond_check(const struct libcumc_graph *graph,
			    struct libcumc_graph_node **err_node)
{
	return libcumc_cond_walk(graph, NULL, err_node);
}
