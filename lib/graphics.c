// SPDX-License-Identifier: MIT
/*
 * Graphics interoperability (cuGraphics*): the functions that register a
 * resource of OpenGL, Direct3D, VDPAU or EGL live in their own headers,
 * which libcumc does not implement, so no graphics resource exists in
 * cumc.  Every resource given is therefore CUDA_ERROR_INVALID_HANDLE (with
 * a CUMC_LOG note saying why), and nothing is written.
 */
#include "log.h"
#include "stream.h"

static CUresult libcumc_no_resource(void)
{
	libcumc_log_note("cumc registers no graphics resources (no OpenGL, Direct3D, VDPAU or EGL interop)");
	return CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuGraphicsUnregisterResource(CUgraphicsResource resource)
{
	(void)resource;
	return libcumc_no_resource();
}

CUresult CUDAAPI cuGraphicsSubResourceGetMappedArray(CUarray *pArray,
		CUgraphicsResource resource, unsigned int arrayIndex,
		unsigned int mipLevel)
{
	(void)pArray;
	(void)resource;
	(void)arrayIndex;
	(void)mipLevel;
	return libcumc_no_resource();
}

CUresult CUDAAPI cuGraphicsResourceGetMappedMipmappedArray(
		CUmipmappedArray *pMipmappedArray, CUgraphicsResource resource)
{
	(void)pMipmappedArray;
	(void)resource;
	return libcumc_no_resource();
}

CUresult CUDAAPI cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *pDevPtr,
		size_t *pSize, CUgraphicsResource resource)
{
	(void)pDevPtr;
	(void)pSize;
	(void)resource;
	return libcumc_no_resource();
}

CUresult CUDAAPI cuGraphicsResourceSetMapFlags_v2(CUgraphicsResource resource,
						  unsigned int flags)
{
	(void)resource;
	(void)flags;
	return libcumc_no_resource();
}

/* No resources to map is INVALID_VALUE; any resource is none of cumc's. */
static CUresult libcumc_map_resources(unsigned int count,
				      const CUgraphicsResource *resources)
{
	if (!count || !resources)
		return CUDA_ERROR_INVALID_VALUE;
	return libcumc_no_resource();
}

CUresult CUDAAPI cuGraphicsMapResources(unsigned int count,
					CUgraphicsResource *resources,
					CUstream hStream)
{
	(void)hStream;
	return libcumc_map_resources(count, resources);
}

CUresult CUDAAPI cuGraphicsMapResources_ptsz(unsigned int count,
					     CUgraphicsResource *resources,
					     CUstream hStream)
{
	(void)hStream;
	return libcumc_map_resources(count, resources);
}

CUresult CUDAAPI cuGraphicsUnmapResources(unsigned int count,
					  CUgraphicsResource *resources,
					  CUstream hStream)
{
	(void)hStream;
	return libcumc_map_resources(count, resources);
}

CUresult CUDAAPI cuGraphicsUnmapResources_ptsz(unsigned int count,
					       CUgraphicsResource *resources,
					       CUstream hStream)
{
	(void)hStream;
	return libcumc_map_resources(count, resources);
}
