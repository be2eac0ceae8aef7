/* SPDX-License-Identifier: MIT */
/*
 * The entry points of the toolkit's cudaGL.h, cudaEGL.h, cudaVDPAU.h and
 * cudaProfiler.h that the CUDA runtime looks up and include/cumc/cuda.h
 * does not declare (interop.c), with the types of OpenGL, EGL and VDPAU
 * their parameters use: libcumc includes no graphics header, and its
 * users' programs include the toolkit's, so these stay private.
 * entry_points.c and the tests that expand entry_points.h include it for
 * the rows' parameters; lib/tests/abi/abi_check.sh holds them to the
 * toolkit's PFN types and CUeglFrame to cudaEGL.h's layout.
 */
#ifndef _CUMC_LIB_INTEROP_H
#define _CUMC_LIB_INTEROP_H

#include <stdint.h>
#include <cuda.h>

/* OpenGL's object names and enumerants. */
typedef unsigned int GLuint;
typedef unsigned int GLenum;

/* EGL's handles (EGL_KHR_image_base, EGL_KHR_stream) and its integer. */
typedef void *EGLImageKHR;
typedef void *EGLStreamKHR;
typedef int32_t EGLint;

/*
 * VDPAU's handles, and the function that finds its others; the status it
 * answers is an enumeration of int size.  libcumc never calls it.
 */
typedef uint32_t VdpDevice;
typedef uint32_t VdpVideoSurface;
typedef uint32_t VdpOutputSurface;
typedef int VdpGetProcAddress(VdpDevice device, uint32_t function_id,
			      void **function_pointer);

/* Which GPUs of the current OpenGL context cuGLGetDevices lists. */
typedef enum CUGLDeviceList_enum {
	CU_GL_DEVICE_LIST_ALL = 0x01,
	CU_GL_DEVICE_LIST_CURRENT_FRAME = 0x02,
	CU_GL_DEVICE_LIST_NEXT_FRAME = 0x03,
} CUGLDeviceList;

/* The output format cuProfilerInitialize was given. */
typedef enum CUoutput_mode_enum {
	CU_OUT_KEY_VALUE_PAIR = 0x00,
	CU_OUT_CSV = 0x01,
} CUoutput_mode;

/* A connection of CUDA to an EGLStream, as producer or consumer. */
typedef struct CUeglStreamConnection_st *CUeglStreamConnection;

/*
 * One frame of an EGLStream or EGLImage: up to three planes, each a CUDA
 * array or pitched memory, then the first plane's geometry and the
 * formats (the frame's kind and its EGL colour format are enumerations of
 * int size; libcumc reads neither).
 */
#define CUMC_EGL_MAX_PLANES 3
typedef struct CUeglFrame_st {
	union {
		CUarray pArray[CUMC_EGL_MAX_PLANES];
		void *pPitch[CUMC_EGL_MAX_PLANES];
	} frame;
	unsigned int width;
	unsigned int height;
	unsigned int depth;
	unsigned int pitch;
	unsigned int planeCount;
	unsigned int numChannels;
	int frameType;
	int eglColorFormat;
	CUarray_format cuFormat;
} CUeglFrame;

/* OpenGL (cudaGL.h) */
CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource,
					    GLuint buffer, unsigned int Flags);
CUresult CUDAAPI cuGraphicsGLRegisterImage(CUgraphicsResource *pCudaResource,
					   GLuint image, GLenum target,
					   unsigned int Flags);
CUresult CUDAAPI cuGLGetDevices_v2(unsigned int *pCudaDeviceCount,
				   CUdevice *pCudaDevices,
				   unsigned int cudaDeviceCount,
				   CUGLDeviceList deviceList);
CUresult CUDAAPI cuGLGetDevices(unsigned int *pCudaDeviceCount,
				CUdevice *pCudaDevices,
				unsigned int cudaDeviceCount,
				CUGLDeviceList deviceList);
CUresult CUDAAPI cuGLCtxCreate_v2(CUcontext *pCtx, unsigned int Flags,
				  CUdevice device);
CUresult CUDAAPI cuGLInit(void);
CUresult CUDAAPI cuGLRegisterBufferObject(GLuint buffer);
CUresult CUDAAPI cuGLMapBufferObject_v2(CUdeviceptr *dptr, size_t *size,
					GLuint buffer);
CUresult CUDAAPI cuGLMapBufferObject_v2_ptds(CUdeviceptr *dptr, size_t *size,
					     GLuint buffer);
CUresult CUDAAPI cuGLUnmapBufferObject(GLuint buffer);
CUresult CUDAAPI cuGLUnregisterBufferObject(GLuint buffer);
CUresult CUDAAPI cuGLSetBufferObjectMapFlags(GLuint buffer, unsigned int Flags);
CUresult CUDAAPI cuGLMapBufferObjectAsync_v2(CUdeviceptr *dptr, size_t *size,
					     GLuint buffer, CUstream hStream);
CUresult CUDAAPI cuGLMapBufferObjectAsync_v2_ptsz(CUdeviceptr *dptr,
						  size_t *size, GLuint buffer,
						  CUstream hStream);
CUresult CUDAAPI cuGLUnmapBufferObjectAsync(GLuint buffer, CUstream hStream);

/* EGL (cudaEGL.h) */
CUresult CUDAAPI cuGraphicsEGLRegisterImage(CUgraphicsResource *pCudaResource,
					    EGLImageKHR image,
					    unsigned int flags);
CUresult CUDAAPI cuGraphicsResourceGetMappedEglFrame(
			CUeglFrame *eglFrame, CUgraphicsResource resource,
			unsigned int index, unsigned int mipLevel);
CUresult CUDAAPI cuEGLStreamConsumerConnect(CUeglStreamConnection *conn,
					    EGLStreamKHR stream);
CUresult CUDAAPI cuEGLStreamConsumerConnectWithFlags(
			CUeglStreamConnection *conn, EGLStreamKHR stream,
			unsigned int flags);
CUresult CUDAAPI cuEGLStreamConsumerDisconnect(CUeglStreamConnection *conn);
CUresult CUDAAPI cuEGLStreamConsumerAcquireFrame(
			CUeglStreamConnection *conn,
			CUgraphicsResource *pCudaResource, CUstream *pStream,
			unsigned int timeout);
CUresult CUDAAPI cuEGLStreamConsumerReleaseFrame(
			CUeglStreamConnection *conn,
			CUgraphicsResource pCudaResource, CUstream *pStream);
CUresult CUDAAPI cuEGLStreamProducerConnect(CUeglStreamConnection *conn,
					    EGLStreamKHR stream, EGLint width,
					    EGLint height);
CUresult CUDAAPI cuEGLStreamProducerDisconnect(CUeglStreamConnection *conn);
CUresult CUDAAPI cuEGLStreamProducerPresentFrame(CUeglStreamConnection *conn,
						 CUeglFrame eglframe,
						 CUstream *pStream);
CUresult CUDAAPI cuEGLStreamProducerReturnFrame(CUeglStreamConnection *conn,
						CUeglFrame *eglframe,
						CUstream *pStream);

/* VDPAU (cudaVDPAU.h) */
CUresult CUDAAPI cuVDPAUGetDevice(CUdevice *pDevice, VdpDevice vdpDevice,
				  VdpGetProcAddress *vdpGetProcAddress);
CUresult CUDAAPI cuVDPAUCtxCreate_v2(CUcontext *pCtx, unsigned int flags,
				     CUdevice device, VdpDevice vdpDevice,
				     VdpGetProcAddress *vdpGetProcAddress);
CUresult CUDAAPI cuGraphicsVDPAURegisterVideoSurface(
			CUgraphicsResource *pCudaResource,
			VdpVideoSurface vdpSurface, unsigned int flags);
CUresult CUDAAPI cuGraphicsVDPAURegisterOutputSurface(
			CUgraphicsResource *pCudaResource,
			VdpOutputSurface vdpSurface, unsigned int flags);

/* The profiler's deprecated configuration (cudaProfiler.h) */
CUresult CUDAAPI cuProfilerInitialize(const char *configFile,
				      const char *outputFile,
				      CUoutput_mode outputMode);

#endif /* _CUMC_LIB_INTEROP_H */
