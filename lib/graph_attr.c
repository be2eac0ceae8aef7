// SPDX-License-Identifier: MIT
/*
 * Kernel node attributes (graph.h): the launch attributes cuda.h lists
 * for kernel nodes (CUkernelNodeAttrID), kept with the node, copied with
 * it into clones and executables.  COOPERATIVE makes the node's launches
 * cooperative (graph_exec.c); cumc has no L2, clusters, priorities among
 * kernels, memory domains or carveouts, so the others are kept and read
 * back, checked as a stream's are.  A device-updatable kernel node needs
 * device-launched graphs, which cumc does not run.
 */
#include <string.h>

#include "graph.h"
#include "log.h"

static bool libcumc_kernel_attr_known(CUkernelNodeAttrID attr)
{
	switch (attr) {
	case CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW:
	case CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE:
	case CU_KERNEL_NODE_ATTRIBUTE_CLUSTER_DIMENSION:
	case CU_KERNEL_NODE_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
	case CU_KERNEL_NODE_ATTRIBUTE_PRIORITY:
	case CU_KERNEL_NODE_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
	case CU_KERNEL_NODE_ATTRIBUTE_MEM_SYNC_DOMAIN:
	case CU_KERNEL_NODE_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
	case CU_KERNEL_NODE_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
	case CU_KERNEL_NODE_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		return true;
	default:
		return false;
	}
}

/* The live kernel node @hNode names, lock held on success. */
static CUresult libcumc_kernel_node_find(CUgraphNode hNode,
					 struct libcumc_graph_node **out)
{
	struct libcumc_graph_node *node;

	libcumc_graphs_lock();
	node = libcumc_node_find(hNode);
	if (!node || node->type != CU_GRAPH_NODE_TYPE_KERNEL) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	*out = node;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphKernelNodeGetAttribute(CUgraphNode hNode,
					CUkernelNodeAttrID attr,
					CUkernelNodeAttrValue *value_out)
{
	struct libcumc_graph_node *node;
	CUresult res;

	if (!value_out || !libcumc_kernel_attr_known(attr))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_kernel_node_find(hNode, &node);
	if (res != CUDA_SUCCESS)
		return res;
	*value_out = node->kernel_attrs[attr];
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphKernelNodeSetAttribute(CUgraphNode hNode,
					CUkernelNodeAttrID attr,
					const CUkernelNodeAttrValue *value)
{
	struct libcumc_graph_node *node;
	CUresult res;

	if (!value || !libcumc_kernel_attr_known(attr) ||
	    !libcumc_stream_attr_valid(attr, value))
		return CUDA_ERROR_INVALID_VALUE;
	if (attr == CU_KERNEL_NODE_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE &&
	    (value->clusterSchedulingPolicyPreference <
		     CU_CLUSTER_SCHEDULING_POLICY_DEFAULT ||
	     value->clusterSchedulingPolicyPreference >
		     CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_kernel_node_find(hNode, &node);
	if (res != CUDA_SUCCESS)
		return res;
	if (attr == CU_KERNEL_NODE_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE &&
	    value->deviceUpdatableKernelNode.deviceUpdatable) {
		libcumc_graphs_unlock();
		libcumc_log_note("cumc has no device-side graph updates");
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	node->kernel_attrs[attr] = *value;
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphKernelNodeCopyAttributes(CUgraphNode dst,
						 CUgraphNode src)
{
	struct libcumc_graph_node *to, *from;

	libcumc_graphs_lock();
	to = libcumc_node_find(dst);
	from = libcumc_node_find(src);
	if (!to || !from || to->type != CU_GRAPH_NODE_TYPE_KERNEL ||
	    from->type != CU_GRAPH_NODE_TYPE_KERNEL) {
		libcumc_graphs_unlock();
		return CUDA_ERROR_INVALID_VALUE;
	}
	memcpy(to->kernel_attrs, from->kernel_attrs, sizeof(to->kernel_attrs));
	libcumc_graphs_unlock();
	return CUDA_SUCCESS;
}
