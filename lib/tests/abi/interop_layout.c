// SPDX-License-Identifier: MIT
/*
 * Print the layout of what lib/interop.h declares for the graphics
 * interoperability entry points, one fact a line, as seen through that
 * header (-DCUMC_INTEROP) or through the toolkit's cudaGL.h, cudaEGL.h and
 * cudaProfiler.h.  abi_check.sh builds it both ways and diffs the output.
 * VDPAU's handles are left out: the toolkit needs VDPAU's own header for
 * them, which few machines have.
 */
#include <stddef.h>
#include <stdio.h>
#ifdef CUMC_INTEROP
#include "interop.h"
#else
#include <GL/gl.h>
#include <cudaGL.h>
#include <cudaEGL.h>
#include <cudaProfiler.h>
#endif

/* (type)-1 > 0 tells an unsigned type from a signed one, enums included. */
#define INTEGER(type)							\
	printf("type %s size %zu align %zu unsigned %d\n", #type,	\
	       sizeof(type), _Alignof(type), (type)-1 > (type)0);
#define OBJECT(type)							\
	printf("struct %s size %zu align %zu\n", #type, sizeof(type),	\
	       _Alignof(type));
#define MEMBER(type, member)						\
	printf("member %s.%s offset %zu size %zu\n", #type, #member,	\
	       offsetof(type, member), sizeof(((type *)0)->member));

int main(void)
{
	INTEGER(GLuint)
	INTEGER(GLenum)
	INTEGER(EGLint)
	INTEGER(CUGLDeviceList)
	INTEGER(CUoutput_mode)
	OBJECT(EGLImageKHR)
	OBJECT(EGLStreamKHR)
	OBJECT(CUeglStreamConnection)
	OBJECT(CUeglFrame)
	MEMBER(CUeglFrame, frame)
	MEMBER(CUeglFrame, frame.pArray)
	MEMBER(CUeglFrame, frame.pPitch)
	MEMBER(CUeglFrame, width)
	MEMBER(CUeglFrame, height)
	MEMBER(CUeglFrame, depth)
	MEMBER(CUeglFrame, pitch)
	MEMBER(CUeglFrame, planeCount)
	MEMBER(CUeglFrame, numChannels)
	MEMBER(CUeglFrame, frameType)
	MEMBER(CUeglFrame, eglColorFormat)
	MEMBER(CUeglFrame, cuFormat)
	return 0;
}
