// SPDX-License-Identifier: MIT
/*
 * Graphs' external semaphore signal and wait nodes.  No external
 * semaphore can be imported into cumc (external.c answers
 * CUDA_ERROR_NOT_SUPPORTED), so adding a node answers what a signal or
 * wait on a stream answers for the same semaphores: CUDA_ERROR_INVALID_HANDLE
 * for any semaphore, once the graph, the dependencies and the arrays are
 * checked.  No such node ever exists: the calls on one answer
 * CUDA_ERROR_INVALID_VALUE, as for a node of another type.  Nothing is
 * written.
 */
#include <stdlib.h>

#include "graph.h"

CUresult libcumc_semaphore_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    const CUexternalSemaphore *sems,
				    const void *params, unsigned int count)
{
	struct libcumc_graph_node **deps = NULL;
	struct libcumc_graph *graph;
	CUresult res = CUDA_ERROR_INVALID_VALUE;

	libcumc_graphs_lock();
	graph = libcumc_graph_find(hGraph);
	if (phGraphNode && graph)
		res = libcumc_graph_nodes_of(graph, dependencies,
					     numDependencies, &deps);
	libcumc_graphs_unlock();
	free(deps);
	if (res != CUDA_SUCCESS)
		return res;
	if (!count || !sems || !params)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuGraphAddExternalSemaphoresSignalNode(
			CUgraphNode *phGraphNode, CUgraph hGraph,
			const CUgraphNode *dependencies, size_t numDependencies,
			const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
	if (!nodeParams)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_semaphore_node_add(phGraphNode, hGraph, dependencies,
					  numDependencies,
					  nodeParams->extSemArray,
					  nodeParams->paramsArray,
					  nodeParams->numExtSems);
}

CUresult CUDAAPI cuGraphAddExternalSemaphoresWaitNode(
			CUgraphNode *phGraphNode, CUgraph hGraph,
			const CUgraphNode *dependencies, size_t numDependencies,
			const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
	if (!nodeParams)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_semaphore_node_add(phGraphNode, hGraph, dependencies,
					  numDependencies,
					  nodeParams->extSemArray,
					  nodeParams->paramsArray,
					  nodeParams->numExtSems);
}

CUresult CUDAAPI cuGraphExternalSemaphoresSignalNodeGetParams(
			CUgraphNode hNode,
			CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *params_out)
{
	(void)hNode;
	(void)params_out;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExternalSemaphoresSignalNodeSetParams(
			CUgraphNode hNode,
			const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
	(void)hNode;
	(void)nodeParams;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExecExternalSemaphoresSignalNodeSetParams(
			CUgraphExec hGraphExec, CUgraphNode hNode,
			const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
	(void)hGraphExec;
	(void)hNode;
	(void)nodeParams;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExternalSemaphoresWaitNodeGetParams(
			CUgraphNode hNode,
			CUDA_EXT_SEM_WAIT_NODE_PARAMS *params_out)
{
	(void)hNode;
	(void)params_out;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExternalSemaphoresWaitNodeSetParams(
			CUgraphNode hNode,
			const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
	(void)hNode;
	(void)nodeParams;
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExecExternalSemaphoresWaitNodeSetParams(
			CUgraphExec hGraphExec, CUgraphNode hNode,
			const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
	(void)hGraphExec;
	(void)hNode;
	(void)nodeParams;
	return CUDA_ERROR_INVALID_VALUE;
}
