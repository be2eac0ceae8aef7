// SPDX-License-Identifier: MIT
/*
 * Executable graphs (graph.h): instantiation takes a private copy of the
 * graph and an order of its nodes, each after its dependencies; a launch
 * queues the nodes on the stream in that order, one stream item (or
 * several: a row of a 2D set each) per node, so they run one after the
 * other after the stream's earlier work and before its later work.  A
 * memcpy node is copy3d.c's copy; a node a stream capture made holding
 * an item runs that item again.
 *
 * A CUgraphExec is a pointer to an executable of the registry, looked up
 * before use.  One lock guards the registry and every executable; a
 * launch holds it while it queues, and takes the streams' lock beneath
 * it, never the other way round.
 */
#include <stdlib.h>

#include "graph.h"
#include "kernel.h"
#include "log.h"

struct libcumc_graph_exec {
	struct libcumc_graph_exec *next;
	struct libcumc_graph *graph;		/* private copy */
	struct libcumc_graph_node **order;
	size_t count;
	cuuint64_t flags;
};

static pthread_mutex_t libcumc_execs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_graph_exec *libcumc_execs;

static struct libcumc_graph_exec *libcumc_exec_find(CUgraphExec handle)
{
	struct libcumc_graph_exec *exec;

	for (exec = libcumc_execs; exec; exec = exec->next)
		if ((CUgraphExec)exec == handle)
			return exec;
	return NULL;
}

/* The flags cumc instantiates with; device launch needs device graphs. */
#define CUMC_INSTANTIATE_FLAGS (CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH | \
				CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD | \
				CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY)

/*
 * Whether @graph holds a node a device-launched graph may run: cuda.h
 * wants a kernel, memcpy or memset node in it (lock held).
 */
static bool libcumc_graph_device_runnable(const struct libcumc_graph *graph)
{
	const struct libcumc_graph_node *node;

	for (node = graph->nodes; node; node = node->next)
		if (node->type == CU_GRAPH_NODE_TYPE_KERNEL ||
		    node->type == CU_GRAPH_NODE_TYPE_MEMCPY ||
		    node->type == CU_GRAPH_NODE_TYPE_MEMSET)
			return true;
	return false;
}

/*
 * @graph instantiated into @exec (lock held); on a cycle, or a
 * conditional node cumc cannot run, *@err_node names one of its nodes.
 */
static CUresult libcumc_instantiate_graph(struct libcumc_graph_exec *exec,
					  struct libcumc_graph *graph,
					  CUgraphNode *err_node,
					  CUgraphInstantiateResult *result)
{
	struct libcumc_graph_node *cycle = NULL, *stuck;
	CUresult res;

	if (exec->flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) {
		if (!libcumc_graph_device_runnable(graph))
			return CUDA_ERROR_INVALID_VALUE;
		libcumc_log_note("cumc has no device-side graph launch");
		*result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	res = libcumc_graph_mem_instantiate(graph, exec);
	if (res != CUDA_SUCCESS)
		return res;
	exec->graph = libcumc_graph_clone(graph);
	if (!exec->graph) {
		libcumc_graph_mem_uninstantiate(graph, exec);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	res = libcumc_cond_check(exec->graph, &stuck);
	if (res != CUDA_SUCCESS) {
		*result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
		if (err_node)
			*err_node = (CUgraphNode)stuck->origin;
		libcumc_graph_free(exec->graph);
		libcumc_graph_mem_uninstantiate(graph, exec);
		return res;
	}
	res = libcumc_graph_order(exec->graph, &exec->order, &exec->count,
				  &cycle);
	if (res == CUDA_ERROR_INVALID_VALUE) {
		*result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
		/* The clone's node stands for its origin, the caller's. */
		if (err_node && cycle)
			*err_node = (CUgraphNode)cycle->origin;
	}
	if (res != CUDA_SUCCESS) {
		libcumc_graph_mem_uninstantiate(exec->graph, exec);
		libcumc_graph_free(exec->graph);
	}
	return res;
}

static CUresult libcumc_instantiate(CUgraphExec *phGraphExec, CUgraph hGraph,
				    cuuint64_t flags, CUgraphNode *err_node,
				    CUgraphInstantiateResult *result)
{
	struct libcumc_graph_exec *exec;
	struct libcumc_graph *graph;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	*result = CUDA_GRAPH_INSTANTIATE_ERROR;
	if (!phGraphExec ||
	    flags & ~(cuuint64_t)(CUMC_INSTANTIATE_FLAGS |
				  CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH))
		return res;
	/* A device launch frees nothing on its own (cuda.h). */
	if ((flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) &&
	    (flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH))
		return res;
	exec = calloc(1, sizeof(*exec));
	if (!exec)
		return CUDA_ERROR_OUT_OF_MEMORY;
	exec->flags = flags;
	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (graph && !graph->capturing)
		res = libcumc_instantiate_graph(exec, graph, err_node, result);
	libcumc_graphs_unlock();
	if (res != CUDA_SUCCESS) {
		free(exec);
		return res;
	}
	pthread_mutex_lock(&libcumc_execs_lock);
	exec->next = libcumc_execs;
	libcumc_execs = exec;
	pthread_mutex_unlock(&libcumc_execs_lock);
	*result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
	*phGraphExec = (CUgraphExec)exec;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec,
					     CUgraph hGraph,
					     unsigned long long flags)
{
	CUgraphInstantiateResult result;

	/* Uploading at instantiation needs the stream of the params form. */
	if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_instantiate(phGraphExec, hGraph, flags, NULL, &result);
}

/* The CUDA 10 and 11 form: no log is ever written, nothing fails late. */
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec,
				       CUgraph hGraph, CUgraphNode *phErrorNode,
				       char *logBuffer, size_t bufferSize)
{
	CUgraphInstantiateResult result;

	if (phErrorNode)
		*phErrorNode = NULL;
	if (logBuffer && bufferSize)
		logBuffer[0] = '\0';
	return libcumc_instantiate(phGraphExec, hGraph, 0, phErrorNode,
				   &result);
}

/* The CUDA 10.0 symbol: the same ABI. */
CUresult CUDAAPI cuGraphInstantiate_v1(CUgraphExec *phGraphExec,
				       CUgraph hGraph, CUgraphNode *phErrorNode,
				       char *logBuffer, size_t bufferSize)
	__attribute__((alias("cuGraphInstantiate_v2")));

/* Uploading is nothing to do: a launch reads the nodes where they are. */
static CUresult libcumc_instantiate_params(CUgraphExec *phGraphExec,
					   CUgraph hGraph,
					   CUDA_GRAPH_INSTANTIATE_PARAMS *params,
					   bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res;

	if (!params)
		return CUDA_ERROR_INVALID_VALUE;
	params->hErrNode_out = NULL;
	if (params->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) {
		res = libcumc_stream_get(params->hUploadStream, ptds, &stream);
		if (res != CUDA_SUCCESS)
			return res;
		libcumc_stream_put(stream);
	}
	return libcumc_instantiate(phGraphExec, hGraph, params->flags,
				   &params->hErrNode_out, &params->result_out);
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec *phGraphExec,
			CUgraph hGraph,
			CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	return libcumc_instantiate_params(phGraphExec, hGraph,
					  instantiateParams, false);
}

CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec,
			CUgraph hGraph,
			CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams)
{
	return libcumc_instantiate_params(phGraphExec, hGraph,
					  instantiateParams, true);
}

/* Queued launches still run: they hold what they need. */
CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	struct libcumc_graph_exec *exec, **link;

	pthread_mutex_lock(&libcumc_execs_lock);
	exec = libcumc_exec_find(hGraphExec);
	if (exec) {
		for (link = &libcumc_execs; *link != exec;
		     link = &(*link)->next)
			;
		*link = exec->next;
	}
	pthread_mutex_unlock(&libcumc_execs_lock);
	if (!exec)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_graphs_lock();
	libcumc_graph_mem_uninstantiate(exec->graph, exec);
	libcumc_graph_free(exec->graph);
	libcumc_graphs_unlock();
	free(exec->order);
	free(exec);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags)
{
	struct libcumc_graph_exec *exec;

	pthread_mutex_lock(&libcumc_execs_lock);
	exec = libcumc_exec_find(hGraphExec);
	if (exec && flags)
		*flags = exec->flags;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return exec && flags ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A captured item run again: the item of a launch that holds it. */
struct libcumc_replay {
	struct libcumc_work work;
	struct libcumc_captured *captured;
};

static CUresult libcumc_replay_run(struct libcumc_work *work)
{
	struct libcumc_work *item = ((struct libcumc_replay *)work)->captured->work;

	return item->run ? item->run(item) : CUDA_SUCCESS;
}

/* A node launched into a capture reads as the item it runs. */
static void libcumc_replay_describe(const struct libcumc_work *work,
				    union libcumc_node_params *params)
{
	const struct libcumc_work *item =
		((const struct libcumc_replay *)work)->captured->work;

	item->describe(item, params);
}

static void libcumc_replay_fini(struct libcumc_work *work)
{
	libcumc_captured_put(((struct libcumc_replay *)work)->captured);
}

static CUresult libcumc_replay_submit(struct libcumc_stream *stream,
				      struct libcumc_graph_node *node)
{
	struct libcumc_replay *r;

	r = (struct libcumc_replay *)libcumc_work_alloc(sizeof(*r),
							libcumc_replay_run);
	if (!r)
		return CUDA_ERROR_OUT_OF_MEMORY;
	r->work.fini = libcumc_replay_fini;
	r->work.capture_as = CUMC_CAPTURE_NODE;
	r->work.node_type = node->type;
	if (node->captured->work->describe)
		r->work.describe = libcumc_replay_describe;
	r->captured = node->captured;
	libcumc_captured_get(r->captured);
	return libcumc_stream_submit(stream, &r->work, NULL);
}

/* A memset node's rows. */
static CUresult libcumc_memset_submit(struct libcumc_stream *stream,
				      const CUDA_MEMSET_NODE_PARAMS *p)
{
	CUresult res = CUDA_SUCCESS;
	size_t row;

	for (row = 0; row < p->height && res == CUDA_SUCCESS; row++)
		res = libcumc_set_on(stream, p->dst + row * p->pitch, p->value,
				     p->elementSize, p->width);
	return res;
}

/* The node's cooperative attribute makes a cooperative launch. */
static CUresult libcumc_kernel_submit(struct libcumc_stream *stream,
				      const struct libcumc_graph_node *node)
{
	const struct libcumc_kernel_node *k = &node->u.kernel;
	const CUDA_KERNEL_NODE_PARAMS *p = &k->params;
	bool cooperative =
		node->kernel_attrs[CU_LAUNCH_ATTRIBUTE_COOPERATIVE].cooperative;
	const unsigned int dims[6] = { p->gridDimX, p->gridDimY, p->gridDimZ,
				       p->blockDimX, p->blockDimY,
				       p->blockDimZ };
	struct libcumc_function *fn;
	CUresult res;

	res = p->func ? libcumc_function_get(p->func, &fn) :
			libcumc_kernel_get(p->kern, &fn);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_launch_on(stream, fn, dims, p->sharedMemBytes,
				 cooperative, k->args, NULL);
}

static CUresult libcumc_graph_submit(struct libcumc_stream *stream,
				     struct libcumc_graph_node **order,
				     size_t count);

/* A child graph's or a conditional body's nodes, in an order of theirs. */
static CUresult libcumc_subgraph_submit(struct libcumc_stream *stream,
					const struct libcumc_graph *graph)
{
	struct libcumc_graph_node **order;
	size_t count;
	CUresult res;

	if (!graph)
		return CUDA_SUCCESS;
	res = libcumc_graph_order(graph, &order, &count, NULL);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_graph_submit(stream, order, count);
	free(order);
	return res;
}

static CUresult libcumc_node_submit(struct libcumc_stream *stream,
				    struct libcumc_graph_node *node)
{
	if (node->disabled)
		return CUDA_SUCCESS;
	if (node->is_captured)
		return libcumc_replay_submit(stream, node);
	switch (node->type) {
	case CU_GRAPH_NODE_TYPE_HOST:
		return libcumc_stream_host_fn(stream, node->u.host.fn,
					      node->u.host.userData);
	case CU_GRAPH_NODE_TYPE_MEMSET:
		return libcumc_memset_submit(stream, &node->u.memset.params);
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		return libcumc_copy3d_on(stream, &node->u.memcpy.params);
	case CU_GRAPH_NODE_TYPE_KERNEL:
		return libcumc_kernel_submit(stream, node);
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		return libcumc_batch_on(stream, node->u.batch.count,
					node->u.batch.paramArray,
					node->u.batch.flags);
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		return libcumc_event_record_on(stream, node->u.event);
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		return libcumc_event_wait_on(stream, node->u.event);
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		return libcumc_graph_mem_submit(stream, node);
	case CU_GRAPH_NODE_TYPE_GRAPH:
		return libcumc_subgraph_submit(stream, node->u.child);
	case CU_GRAPH_NODE_TYPE_CONDITIONAL:
		return libcumc_subgraph_submit(stream,
					       libcumc_cond_body(&node->u.cond));
	default:
		return CUDA_SUCCESS;
	}
}

static CUresult libcumc_graph_submit(struct libcumc_stream *stream,
				     struct libcumc_graph_node **order,
				     size_t count)
{
	CUresult res = CUDA_SUCCESS;
	size_t i;

	for (i = 0; i < count && res == CUDA_SUCCESS; i++)
		res = libcumc_node_submit(stream, order[i]);
	return res;
}

static CUresult libcumc_graph_launch(CUgraphExec hGraphExec, CUstream hStream,
				     bool ptds, bool upload)
{
	struct libcumc_graph_exec *exec;
	struct libcumc_stream *stream;
	CUresult res = libcumc_stream_get_initialized(hStream, ptds, &stream);

	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_execs_lock);
	exec = libcumc_exec_find(hGraphExec);
	if (!exec)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (!upload)
		res = libcumc_graph_mem_launch(stream, exec->graph,
				exec->flags &
				CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
	if (res == CUDA_SUCCESS && !upload)
		res = libcumc_graph_submit(stream, exec->order, exec->count);
	pthread_mutex_unlock(&libcumc_execs_lock);
	libcumc_stream_put(stream);
	return res;
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	return libcumc_graph_launch(hGraphExec, hStream, false, false);
}

CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	return libcumc_graph_launch(hGraphExec, hStream, true, false);
}

CUresult CUDAAPI cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
	return libcumc_graph_launch(hGraphExec, hStream, false, true);
}

CUresult CUDAAPI cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	return libcumc_graph_launch(hGraphExec, hStream, true, true);
}

/*
 * The node of @exec instantiated from @hNode, lock held on success;
 * CUDA_ERROR_INVALID_VALUE when either is not there.
 */
static CUresult libcumc_exec_node(CUgraphExec hGraphExec, CUgraphNode hNode,
				  struct libcumc_graph_node **out)
{
	struct libcumc_graph_exec *exec;
	struct libcumc_graph_node *node = NULL;

	pthread_mutex_lock(&libcumc_execs_lock);
	exec = libcumc_exec_find(hGraphExec);
	for (node = exec && hNode ? exec->graph->nodes : NULL; node;
	     node = node->next)
		if ((CUgraphNode)node->origin == hNode)
			break;
	if (!node) {
		pthread_mutex_unlock(&libcumc_execs_lock);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*out = node;
	return CUDA_SUCCESS;
}

/* Kernel, memcpy and memset nodes can be disabled: they then do nothing. */
CUresult CUDAAPI cuGraphNodeSetEnabled(CUgraphExec hGraphExec,
				       CUgraphNode hNode,
				       unsigned int isEnabled)
{
	struct libcumc_graph_node *node;
	CUresult res = libcumc_exec_node(hGraphExec, hNode, &node);

	if (res != CUDA_SUCCESS)
		return res;
	if (node->type == CU_GRAPH_NODE_TYPE_KERNEL ||
	    node->type == CU_GRAPH_NODE_TYPE_MEMCPY ||
	    node->type == CU_GRAPH_NODE_TYPE_MEMSET)
		node->disabled = !isEnabled;
	else
		res = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return res;
}

CUresult CUDAAPI cuGraphNodeGetEnabled(CUgraphExec hGraphExec,
				       CUgraphNode hNode,
				       unsigned int *isEnabled)
{
	struct libcumc_graph_node *node;
	CUresult res;

	if (!isEnabled)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_exec_node(hGraphExec, hNode, &node);
	if (res != CUDA_SUCCESS)
		return res;
	*isEnabled = !node->disabled;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_SUCCESS;
}

/* Later launches run the new parameters; queued ones keep theirs. */
CUresult CUDAAPI cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_HOST_NODE_PARAMS *nodeParams)
{
	struct libcumc_graph_node *node;
	CUresult res;

	if (!nodeParams || !nodeParams->fn)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_exec_node(hGraphExec, hNode, &node);
	if (res != CUDA_SUCCESS)
		return res;
	if (node->type == CU_GRAPH_NODE_TYPE_HOST && !node->is_captured)
		node->u.host = *nodeParams;
	else
		res = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return res;
}

/*
 * The executable's node of @type instantiated from @hNode, lock held on
 * success; one a capture made has no parameters to change.
 */
static CUresult libcumc_exec_node_of(CUgraphExec hGraphExec, CUgraphNode hNode,
				     CUgraphNodeType type,
				     struct libcumc_graph_node **node)
{
	CUresult res = libcumc_exec_node(hGraphExec, hNode, node);

	if (res != CUDA_SUCCESS)
		return res;
	if ((*node)->type == type && !(*node)->is_captured)
		return CUDA_SUCCESS;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult libcumc_exec_node_get(CUgraphExec hGraphExec, CUgraphNode hNode,
			       CUgraphNodeType type,
			       struct libcumc_graph_node **node)
{
	return libcumc_exec_node_of(hGraphExec, hNode, type, node);
}

void libcumc_exec_node_put(void)
{
	pthread_mutex_unlock(&libcumc_execs_lock);
}

CUresult CUDAAPI cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_MEMSET_NODE_PARAMS *memsetParams,
				CUcontext ctx)
{
	struct libcumc_graph_node *node;
	CUresult res = libcumc_memset_params_check(memsetParams);

	if (res == CUDA_SUCCESS)
		res = libcumc_exec_node_of(hGraphExec, hNode,
					   CU_GRAPH_NODE_TYPE_MEMSET, &node);
	if (res != CUDA_SUCCESS)
		return res;
	node->u.memset.params = *memsetParams;
	node->u.memset.ctx = ctx;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_MEMCPY3D *copyParams,
				CUcontext ctx)
{
	struct libcumc_graph_node *node;
	CUresult res = libcumc_memcpy_params_check(copyParams);

	if (res == CUDA_SUCCESS)
		res = libcumc_exec_node_of(hGraphExec, hNode,
					   CU_GRAPH_NODE_TYPE_MEMCPY, &node);
	if (res != CUDA_SUCCESS)
		return res;
	node->u.memcpy.params = *copyParams;
	node->u.memcpy.ctx = ctx;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct libcumc_graph_node *node;
	struct libcumc_kernel_node k;
	CUresult res = libcumc_kernel_params_copy(nodeParams, &k);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_exec_node_of(hGraphExec, hNode, CU_GRAPH_NODE_TYPE_KERNEL,
				   &node);
	if (res != CUDA_SUCCESS) {
		libcumc_kernel_params_free(&k);
		return res;
	}
	libcumc_kernel_params_free(&node->u.kernel);
	node->u.kernel = k;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecBatchMemOpNodeSetParams(CUgraphExec hGraphExec,
				CUgraphNode hNode,
				const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
	CUDA_BATCH_MEM_OP_NODE_PARAMS batch;
	struct libcumc_graph_node *node;
	CUresult res = libcumc_batch_params_copy(nodeParams, &batch);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_exec_node_of(hGraphExec, hNode,
				   CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, &node);
	if (res != CUDA_SUCCESS) {
		free(batch.paramArray);
		return res;
	}
	free(node->u.batch.paramArray);
	node->u.batch = batch;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_SUCCESS;
}

static CUresult libcumc_exec_event_set(CUgraphExec hGraphExec,
				       CUgraphNode hNode, CUgraphNodeType type,
				       CUevent event)
{
	struct libcumc_graph_node *node;
	CUresult res;

	if (!libcumc_event_live(event))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_exec_node_of(hGraphExec, hNode, type, &node);
	if (res != CUDA_SUCCESS)
		return res;
	node->u.event = event;
	pthread_mutex_unlock(&libcumc_execs_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec,
						    CUgraphNode hNode,
						    CUevent event)
{
	return libcumc_exec_event_set(hGraphExec, hNode,
				      CU_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}

CUresult CUDAAPI cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec,
						  CUgraphNode hNode,
						  CUevent event)
{
	return libcumc_exec_event_set(hGraphExec, hNode,
				      CU_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

/* The child graph node's graph becomes a copy of @childGraph. */
CUresult CUDAAPI cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec,
						    CUgraphNode hNode,
						    CUgraph childGraph)
{
	struct libcumc_graph *child, *copy = NULL;
	struct libcumc_graph_node *node;
	CUresult res = libcumc_exec_node_of(hGraphExec, hNode,
					    CU_GRAPH_NODE_TYPE_GRAPH, &node);

	if (res != CUDA_SUCCESS)
		return res;
	libcumc_graphs_lock();
	child = libcumc_graph_find(childGraph);
	if (!child || child->capturing)
		res = CUDA_ERROR_INVALID_VALUE;
	else if (libcumc_graph_has_mem(child))	/* as cuGraphAddChildGraphNode */
		res = CUDA_ERROR_NOT_SUPPORTED;
	else
		copy = libcumc_graph_clone(child);
	if (res == CUDA_SUCCESS && !copy)
		res = CUDA_ERROR_OUT_OF_MEMORY;
	if (copy) {
		libcumc_graph_free(node->u.child);
		node->u.child = copy;
	}
	libcumc_graphs_unlock();
	pthread_mutex_unlock(&libcumc_execs_lock);
	return res;
}

/* The same dependencies, by position in their graphs (numbered). */
static bool libcumc_same_deps(const struct libcumc_graph_node *a,
			      const struct libcumc_graph_node *b)
{
	size_t i, j;

	if (a->num_deps != b->num_deps)
		return false;
	for (i = 0; i < a->num_deps; i++) {
		for (j = 0; j < b->num_deps; j++)
			if (a->deps[i]->mark == b->deps[j]->mark)
				break;
		if (j == b->num_deps)
			return false;
	}
	return true;
}

/*
 * Whether @copy (of the graph the caller gave) can replace @old: as many
 * nodes, paired in the order they were added, each pair of one type,
 * made the same way (by a capture or not) and after the same nodes, and
 * its conditional nodes ones cumc runs.  Lock held.
 */
static CUgraphExecUpdateResult
libcumc_update_check(const struct libcumc_graph *old,
		     const struct libcumc_graph *copy, CUgraphNode *error)
{
	const struct libcumc_graph_node *o, *c;
	struct libcumc_graph_node *stuck;

	*error = NULL;
	if (old->num_nodes != copy->num_nodes)
		return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	libcumc_graph_number(old);
	libcumc_graph_number(copy);
	for (o = old->nodes, c = copy->nodes; o && c; o = o->next, c = c->next) {
		*error = (CUgraphNode)c->origin;
		if (o->type != c->type)
			return CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
		if (o->is_captured != c->is_captured)
			return CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
		/* A memory node's parameters cannot change (cuda.h). */
		if ((o->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
		     o->type == CU_GRAPH_NODE_TYPE_MEM_FREE) &&
		    o->u.mem.alloc != c->u.mem.alloc)
			return CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED;
		if (!libcumc_same_deps(o, c))
			return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	}
	/* What instantiation refuses of conditional nodes. */
	if (libcumc_cond_check(copy, &stuck) != CUDA_SUCCESS) {
		*error = (CUgraphNode)stuck->origin;
		return CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
	}
	*error = NULL;
	return CU_GRAPH_EXEC_UPDATE_SUCCESS;
}

/*
 * The executable takes the parameters of @hGraph's nodes, paired with its
 * own in the order they were added; its nodes keep the names they had
 * (the nodes it was instantiated from) and whether they are enabled.
 */
CUresult CUDAAPI cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
				      CUgraphExecUpdateResultInfo *resultInfo)
{
	struct libcumc_graph_node **order = NULL, *o, *c;
	struct libcumc_graph *graph, *copy = NULL;
	struct libcumc_graph_exec *exec;
	CUgraphExecUpdateResult result = CU_GRAPH_EXEC_UPDATE_ERROR;
	CUgraphNode error = NULL;
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	size_t count;

	if (!resultInfo)
		return res;
	pthread_mutex_lock(&libcumc_execs_lock);
	libcumc_graphs_lock();
	exec = libcumc_exec_find(hGraphExec);
	graph = libcumc_graph_find(hGraph);
	if (exec && graph && !graph->capturing) {
		copy = libcumc_graph_clone(graph);
		res = copy ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (res == CUDA_SUCCESS) {
		result = libcumc_update_check(exec->graph, copy, &error);
		if (result != CU_GRAPH_EXEC_UPDATE_SUCCESS)
			res = CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
	}
	if (res == CUDA_SUCCESS)
		res = libcumc_graph_order(copy, &order, &count, NULL);
	if (res == CUDA_SUCCESS) {
		for (o = exec->graph->nodes, c = copy->nodes; o && c;
		     o = o->next, c = c->next) {
			c->origin = o->origin;
			c->disabled = o->disabled;
		}
		libcumc_graph_free(exec->graph);
		free(exec->order);
		exec->graph = copy;
		exec->order = order;
		exec->count = count;
		copy = NULL;
	}
	if (copy)
		libcumc_graph_free(copy);
	libcumc_graphs_unlock();
	pthread_mutex_unlock(&libcumc_execs_lock);
	if (res == CUDA_SUCCESS || res == CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
		*resultInfo = (CUgraphExecUpdateResultInfo){
			.result = result, .errorNode = error,
		};
	return res;
}

/* A forked child forgets its parent's executables with its graphs. */
static void libcumc_execs_forget_parent(void)
{
	libcumc_execs = NULL;
	pthread_mutex_init(&libcumc_execs_lock, NULL);
}

__attribute__((constructor)) static void libcumc_execs_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_execs_forget_parent);
}
