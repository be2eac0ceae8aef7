// SPDX-License-Identifier: MIT
/*
 * OpenGL, EGL and VDPAU interoperability (the toolkit's cudaGL.h, cudaEGL.h
 * and cudaVDPAU.h) and cuProfilerInitialize (cudaProfiler.h): the CUDA
 * runtime looks them all up as it starts, and cumc has no graphics stack.
 * Each answers as NVIDIA's driver 580 does on a machine without one
 * (conformance/, probes interop.*): OpenGL cannot be loaded, so nothing is
 * ever registered with it; EGL's objects are not EGL streams or images the
 * driver knows, so no connection is ever made; no context is a VDPAU one.
 * Nothing is written to an output.  Where NVIDIA's driver dies (it calls
 * the VDPAU function it is given, even NULL), cumc answers an error and
 * calls nothing.  Documentation/api.md, "Graphics interoperability:
 * OpenGL, EGL, VDPAU".
 */
#include "internal.h"
#include "interop.h"
#include "log.h"

/* cuGLInit, cuGLGetDevices, cuGLCtxCreate and the registrations. */
static CUresult no_opengl(void)
{
	libcumc_log_note("cumc has no OpenGL: there is no OpenGL library to load");
	return CUDA_ERROR_OPERATING_SYSTEM;
}

/* The cuGL*BufferObject* calls on a buffer: none is ever registered. */
static CUresult no_buffer_object(void)
{
	libcumc_log_note("cumc has no OpenGL: no buffer object is registered");
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGLInit(void)
{
	return no_opengl();
}

CUresult CUDAAPI cuGLGetDevices_v2(unsigned int *pCudaDeviceCount,
				   CUdevice *pCudaDevices,
				   unsigned int cudaDeviceCount,
				   CUGLDeviceList deviceList)
{
	(void)pCudaDeviceCount;
	(void)pCudaDevices;
	(void)cudaDeviceCount;
	(void)deviceList;
	return no_opengl();
}

/* The CUDA 4.1 name: the behaviour 6.5 changed needs OpenGL. */
CUresult CUDAAPI cuGLGetDevices(unsigned int *pCudaDeviceCount,
				CUdevice *pCudaDevices,
				unsigned int cudaDeviceCount,
				CUGLDeviceList deviceList)
	__attribute__((alias("cuGLGetDevices_v2")));

CUresult CUDAAPI cuGLCtxCreate_v2(CUcontext *pCtx, unsigned int Flags,
				  CUdevice device)
{
	(void)pCtx;
	(void)Flags;
	(void)device;
	return no_opengl();
}

CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource *pCudaResource,
					    GLuint buffer, unsigned int Flags)
{
	(void)pCudaResource;
	(void)buffer;
	(void)Flags;
	return no_opengl();
}

CUresult CUDAAPI cuGraphicsGLRegisterImage(CUgraphicsResource *pCudaResource,
					   GLuint image, GLenum target,
					   unsigned int Flags)
{
	(void)pCudaResource;
	(void)image;
	(void)target;
	(void)Flags;
	return no_opengl();
}

CUresult CUDAAPI cuGLRegisterBufferObject(GLuint buffer)
{
	(void)buffer;
	return no_opengl();
}

CUresult CUDAAPI cuGLUnregisterBufferObject(GLuint buffer)
{
	(void)buffer;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLSetBufferObjectMapFlags(GLuint buffer, unsigned int Flags)
{
	(void)buffer;
	(void)Flags;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLMapBufferObject_v2(CUdeviceptr *dptr, size_t *size,
					GLuint buffer)
{
	(void)dptr;
	(void)size;
	(void)buffer;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLMapBufferObject_v2_ptds(CUdeviceptr *dptr, size_t *size,
					     GLuint buffer)
{
	(void)dptr;
	(void)size;
	(void)buffer;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLMapBufferObjectAsync_v2(CUdeviceptr *dptr, size_t *size,
					     GLuint buffer, CUstream hStream)
{
	(void)dptr;
	(void)size;
	(void)buffer;
	(void)hStream;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLMapBufferObjectAsync_v2_ptsz(CUdeviceptr *dptr,
						  size_t *size, GLuint buffer,
						  CUstream hStream)
{
	(void)dptr;
	(void)size;
	(void)buffer;
	(void)hStream;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLUnmapBufferObject(GLuint buffer)
{
	(void)buffer;
	return no_buffer_object();
}

CUresult CUDAAPI cuGLUnmapBufferObjectAsync(GLuint buffer, CUstream hStream)
{
	(void)buffer;
	(void)hStream;
	return no_buffer_object();
}

/* The calls on a connection or a mapped frame: none is ever made. */
static CUresult no_egl_connection(void)
{
	libcumc_log_note("cumc has no EGL: no EGLStream connection or EGL frame exists");
	return CUDA_ERROR_INVALID_HANDLE;
}

/*
 * Registering an EGLImage, connecting to an EGLStream: the current context
 * is needed, and with one the object is none the driver knows: UNKNOWN,
 * as driver 580 answers.
 */
static CUresult no_egl_object(void)
{
	CUdevice dev;
	CUresult res;

	libcumc_log_note("cumc has no EGL: no EGLImage or EGLStream is known to it");
	res = libcumc_current_device(&dev);
	return res != CUDA_SUCCESS ? res : CUDA_ERROR_UNKNOWN;
}

/* A connection's handle is written, so a NULL one comes first. */
static CUresult no_egl_stream(const CUeglStreamConnection *conn)
{
	return conn ? no_egl_object() : no_egl_connection();
}

CUresult CUDAAPI cuGraphicsEGLRegisterImage(CUgraphicsResource *pCudaResource,
					    EGLImageKHR image,
					    unsigned int flags)
{
	(void)image;
	(void)flags;
	if (!pCudaResource)
		return CUDA_ERROR_INVALID_VALUE;
	return no_egl_object();
}

CUresult CUDAAPI cuGraphicsResourceGetMappedEglFrame(
			CUeglFrame *eglFrame, CUgraphicsResource resource,
			unsigned int index, unsigned int mipLevel)
{
	(void)eglFrame;
	(void)resource;
	(void)index;
	(void)mipLevel;
	return no_egl_connection();
}

CUresult CUDAAPI cuEGLStreamConsumerConnect(CUeglStreamConnection *conn,
					    EGLStreamKHR stream)
{
	(void)stream;
	return no_egl_stream(conn);
}

CUresult CUDAAPI cuEGLStreamConsumerConnectWithFlags(
			CUeglStreamConnection *conn, EGLStreamKHR stream,
			unsigned int flags)
{
	(void)stream;
	(void)flags;
	return no_egl_stream(conn);
}

CUresult CUDAAPI cuEGLStreamProducerConnect(CUeglStreamConnection *conn,
					    EGLStreamKHR stream, EGLint width,
					    EGLint height)
{
	(void)stream;
	(void)width;
	(void)height;
	return no_egl_stream(conn);
}

CUresult CUDAAPI cuEGLStreamConsumerDisconnect(CUeglStreamConnection *conn)
{
	(void)conn;
	return no_egl_connection();
}

CUresult CUDAAPI cuEGLStreamProducerDisconnect(CUeglStreamConnection *conn)
{
	(void)conn;
	return no_egl_connection();
}

CUresult CUDAAPI cuEGLStreamConsumerAcquireFrame(
			CUeglStreamConnection *conn,
			CUgraphicsResource *pCudaResource, CUstream *pStream,
			unsigned int timeout)
{
	(void)conn;
	(void)pCudaResource;
	(void)pStream;
	(void)timeout;
	return no_egl_connection();
}

CUresult CUDAAPI cuEGLStreamConsumerReleaseFrame(
			CUeglStreamConnection *conn,
			CUgraphicsResource pCudaResource, CUstream *pStream)
{
	(void)conn;
	(void)pCudaResource;
	(void)pStream;
	return no_egl_connection();
}

CUresult CUDAAPI cuEGLStreamProducerPresentFrame(CUeglStreamConnection *conn,
						 CUeglFrame eglframe,
						 CUstream *pStream)
{
	(void)conn;
	(void)eglframe;
	(void)pStream;
	return no_egl_connection();
}

CUresult CUDAAPI cuEGLStreamProducerReturnFrame(CUeglStreamConnection *conn,
						CUeglFrame *eglframe,
						CUstream *pStream)
{
	(void)conn;
	(void)eglframe;
	(void)pStream;
	return no_egl_connection();
}

/*
 * Finding the GPU of a VDPAU device, or making a context for one: NVIDIA's
 * driver calls vdpGetProcAddress, and dies when it is NULL or not VDPAU's.
 * cumc has no VDPAU, so no VdpDevice is one of its GPUs: the argument
 * cannot be used, and nothing is called.
 */
static CUresult no_vdpau_device(void)
{
	libcumc_log_note("cumc has no VDPAU: no VdpDevice is one of its GPUs (its VdpGetProcAddress is not called)");
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuVDPAUGetDevice(CUdevice *pDevice, VdpDevice vdpDevice,
				  VdpGetProcAddress *vdpGetProcAddress)
{
	(void)pDevice;
	(void)vdpDevice;
	(void)vdpGetProcAddress;
	return no_vdpau_device();
}

CUresult CUDAAPI cuVDPAUCtxCreate_v2(CUcontext *pCtx, unsigned int flags,
				     CUdevice device, VdpDevice vdpDevice,
				     VdpGetProcAddress *vdpGetProcAddress)
{
	(void)pCtx;
	(void)flags;
	(void)device;
	(void)vdpDevice;
	(void)vdpGetProcAddress;
	return no_vdpau_device();
}

/* A surface needs the current context to be one cuVDPAUCtxCreate made. */
static CUresult no_vdpau_context(void)
{
	libcumc_log_note("cumc has no VDPAU: no context is a VDPAU one");
	return CUDA_ERROR_INVALID_CONTEXT;
}

CUresult CUDAAPI cuGraphicsVDPAURegisterVideoSurface(
			CUgraphicsResource *pCudaResource,
			VdpVideoSurface vdpSurface, unsigned int flags)
{
	(void)pCudaResource;
	(void)vdpSurface;
	(void)flags;
	return no_vdpau_context();
}

CUresult CUDAAPI cuGraphicsVDPAURegisterOutputSurface(
			CUgraphicsResource *pCudaResource,
			VdpOutputSurface vdpSurface, unsigned int flags)
{
	(void)pCudaResource;
	(void)vdpSurface;
	(void)flags;
	return no_vdpau_context();
}

/* Deprecated: since CUDA 12.0 NOT_SUPPORTED, whatever it is given. */
CUresult CUDAAPI cuProfilerInitialize(const char *configFile,
				      const char *outputFile,
				      CUoutput_mode outputMode)
{
	(void)configFile;
	(void)outputFile;
	(void)outputMode;
	libcumc_log_note("cuProfilerInitialize is deprecated: the profiler takes no configuration since CUDA 12.0");
	return CUDA_ERROR_NOT_SUPPORTED;
}
