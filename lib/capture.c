// SPDX-License-Identifier: MIT
/*
 * Stream capture's entry points (stream.h, graph.h): what a capturing
 * stream is given becomes nodes of a graph (stream.c), which
 * cuStreamEndCapture hands out.
 */
#include <string.h>

#include "graph.h"

static bool libcumc_capture_mode_valid(CUstreamCaptureMode mode)
{
	return mode == CU_STREAM_CAPTURE_MODE_GLOBAL ||
	       mode == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL ||
	       mode == CU_STREAM_CAPTURE_MODE_RELAXED;
}

bool libcumc_edges_default(const CUgraphEdgeData *data, size_t count)
{
	static const CUgraphEdgeData plain;
	size_t i;

	for (i = 0; data && i < count; i++)
		if (memcmp(&data[i], &plain, sizeof(plain)))
			return false;
	return true;
}

/* Into @graph after @deps, or into a new graph when @graph is NULL. */
static CUresult libcumc_begin_capture_to(CUstream hStream, CUgraph graph,
					 const CUgraphNode *deps,
					 const CUgraphEdgeData *data,
					 size_t num_deps,
					 CUstreamCaptureMode mode, bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res;

	if (!libcumc_capture_mode_valid(mode) ||
	    !libcumc_edges_default(data, num_deps))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_capture_begin(stream, mode, graph, deps, num_deps);
	libcumc_stream_put(stream);
	return res;
}

static CUresult libcumc_begin_capture(CUstream hStream,
				      CUstreamCaptureMode mode, bool ptds)
{
	return libcumc_begin_capture_to(hStream, NULL, NULL, NULL, 0, mode,
					ptds);
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
				const CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies,
				CUstreamCaptureMode mode)
{
	if (!hGraph)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_begin_capture_to(hStream, hGraph, dependencies,
					dependencyData, numDependencies, mode,
					false);
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream hStream,
				CUgraph hGraph,
				const CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies,
				CUstreamCaptureMode mode)
{
	if (!hGraph)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_begin_capture_to(hStream, hGraph, dependencies,
					dependencyData, numDependencies, mode,
					true);
}

static CUresult libcumc_update_capture(CUstream hStream,
				       const CUgraphNode *deps,
				       const CUgraphEdgeData *data,
				       size_t num_deps, unsigned int flags,
				       bool ptds)
{
	struct libcumc_stream *stream;
	CUresult res;

	if ((flags != CU_STREAM_ADD_CAPTURE_DEPENDENCIES &&
	     flags != CU_STREAM_SET_CAPTURE_DEPENDENCIES) ||
	    !libcumc_edges_default(data, num_deps))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_capture_update(stream, deps, num_deps,
				     flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES);
	libcumc_stream_put(stream);
	return res;
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2(CUstream hStream,
				CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies, unsigned int flags)
{
	return libcumc_update_capture(hStream, dependencies, dependencyData,
				      numDependencies, flags, false);
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream,
				CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies, unsigned int flags)
{
	return libcumc_update_capture(hStream, dependencies, dependencyData,
				      numDependencies, flags, true);
}

/* The CUDA 11.3 form, without the edges' data. */
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v1(CUstream hStream,
				CUgraphNode *dependencies,
				size_t numDependencies, unsigned int flags)
{
	return libcumc_update_capture(hStream, dependencies, NULL,
				      numDependencies, flags, false);
}

CUresult CUDAAPI cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream,
				CUgraphNode *dependencies,
				size_t numDependencies, unsigned int flags)
{
	return libcumc_update_capture(hStream, dependencies, NULL,
				      numDependencies, flags, true);
}

CUresult CUDAAPI cuStreamBeginCapture_v2(CUstream hStream,
					 CUstreamCaptureMode mode)
{
	return libcumc_begin_capture(hStream, mode, false);
}

CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream,
					      CUstreamCaptureMode mode)
{
	return libcumc_begin_capture(hStream, mode, true);
}

/* The CUDA 10.0 form, whose mode was always global. */
CUresult CUDAAPI cuStreamBeginCapture_v1(CUstream hStream)
{
	return libcumc_begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL,
				     false);
}

CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream)
{
	return libcumc_begin_capture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL,
				     true);
}

static CUresult libcumc_end_capture(CUstream hStream, CUgraph *phGraph,
				    bool ptds)
{
	struct libcumc_stream *stream;
	struct libcumc_graph *graph;
	CUresult res;

	if (!phGraph)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_capture_end(stream, &graph);
	libcumc_stream_put(stream);
	*phGraph = res == CUDA_SUCCESS ? (CUgraph)graph : NULL;
	return res;
}

CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	return libcumc_end_capture(hStream, phGraph, false);
}

CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
	return libcumc_end_capture(hStream, phGraph, true);
}

static CUresult libcumc_get_capture_info(CUstream hStream,
					 CUstreamCaptureStatus *status,
					 cuuint64_t *id, CUgraph *graph,
					 const CUgraphNode **deps,
					 const CUgraphEdgeData **edges,
					 size_t *num_deps, bool ptds)
{
	struct libcumc_capture_info info;
	struct libcumc_stream *stream;
	CUresult res;

	if (!status)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_stream_get(hStream, ptds, &stream);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_capture_info(stream, &info);
	libcumc_stream_put(stream);
	if (res != CUDA_SUCCESS)
		return res;
	*status = info.status;
	/* The rest is written only while the stream captures. */
	if (info.status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
		return CUDA_SUCCESS;
	if (id)
		*id = info.id;
	if (graph)
		*graph = (CUgraph)info.graph;
	if (deps)
		*deps = (const CUgraphNode *)info.deps;
	if (edges)
		*edges = info.edges;
	if (num_deps)
		*num_deps = info.num_deps;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				const CUgraphEdgeData **edgeData_out,
				size_t *numDependencies_out)
{
	return libcumc_get_capture_info(hStream, captureStatus_out, id_out,
					graph_out, dependencies_out,
					edgeData_out, numDependencies_out,
					false);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				const CUgraphEdgeData **edgeData_out,
				size_t *numDependencies_out)
{
	return libcumc_get_capture_info(hStream, captureStatus_out, id_out,
					graph_out, dependencies_out,
					edgeData_out, numDependencies_out,
					true);
}

/* The CUDA 11.3 form, without the edges' data. */
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				size_t *numDependencies_out)
{
	return libcumc_get_capture_info(hStream, captureStatus_out, id_out,
					graph_out, dependencies_out, NULL,
					numDependencies_out, false);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				size_t *numDependencies_out)
{
	return libcumc_get_capture_info(hStream, captureStatus_out, id_out,
					graph_out, dependencies_out, NULL,
					numDependencies_out, true);
}

/* The CUDA 10.1 form: the status and the id. */
CUresult CUDAAPI cuStreamGetCaptureInfo_v1(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out)
{
	return libcumc_get_capture_info(hStream, captureStatus_out, id_out,
					NULL, NULL, NULL, NULL, false);
}

CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out)
{
	return libcumc_get_capture_info(hStream, captureStatus_out, id_out,
					NULL, NULL, NULL, NULL, true);
}

/*
 * Like NVIDIA's driver, the exchange takes any value: only a capture's
 * own mode is checked, where it begins.
 */
CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	if (!mode)
		return CUDA_ERROR_INVALID_VALUE;
	*mode = libcumc_capture_mode_exchange(*mode);
	return CUDA_SUCCESS;
}
