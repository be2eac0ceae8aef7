// SPDX-License-Identifier: MIT
/*
 * Arrays, 2D and 3D copies and 2D sets against the module (runs in the
 * VM): array creation and descriptors, copies in every direction between
 * host, device, unified and array memory with odd pitches and offsets,
 * the byte-offset array copies, the 2D sets, their stream forms, and the
 * arguments they must refuse without writing anything.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_run.h"
#include "vmm.h"

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
	vmm_use_device(0);
}

static void fill_pattern(unsigned char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + seed);
}

static CUarray array_new(size_t w, size_t h, size_t d, CUarray_format format,
			 unsigned int channels, unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR desc = {
		.Width = w, .Height = h, .Depth = d, .Format = format,
		.NumChannels = channels, .Flags = flags,
	};
	CUarray array;

	ck_assert_int_eq(cuArray3DCreate(&array, &desc), CUDA_SUCCESS);
	return array;
}

/* All of @array, @slices of @rows rows of @row_bytes, into @out. */
static void array_read_all(CUarray array, void *out, size_t row_bytes,
			   size_t rows, size_t slices)
{
	CUDA_MEMCPY3D c = {
		.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = array,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = out,
		.dstPitch = row_bytes, .dstHeight = rows,
		.WidthInBytes = row_bytes, .Height = rows, .Depth = slices,
	};

	ck_assert_int_eq(cuMemcpy3D(&c), CUDA_SUCCESS);
}

/*
 * A 2D copy of @w bytes by @h rows from host (@src, @spitch, at @sx, @sy)
 * to host (@dst, @dpitch, at @dx, @dy), as the reference the copies under
 * test must match.
 */
static void ref_copy2d(unsigned char *dst, size_t dpitch, size_t dx, size_t dy,
		       const unsigned char *src, size_t spitch, size_t sx,
		       size_t sy, size_t w, size_t h)
{
	size_t y;

	for (y = 0; y < h; y++)
		memcpy(dst + (dy + y) * dpitch + dx,
		       src + (sy + y) * spitch + sx, w);
}

START_TEST(everything_needs_init)
{
	CUDA_ARRAY_DESCRIPTOR desc = {
		.Width = 8, .Format = CU_AD_FORMAT_FLOAT, .NumChannels = 1,
	};
	CUDA_MEMCPY2D copy = { 0 };
	unsigned char host[8];
	CUarray array;

	ck_assert_int_eq(cuArrayCreate(&array, &desc), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuArrayDestroy((CUarray)1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemcpy2D(&copy), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemcpyAtoH(host, (CUarray)1, 0, 8),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuMemsetD2D8(1 << 30, 64, 0, 8, 2),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(descriptors_round_trip)
{
	static const CUDA_ARRAY3D_DESCRIPTOR shapes[] = {
		{ 2048, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0 },
		{ 64, 64, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0 },
		{ 17, 5, 3, CU_AD_FORMAT_HALF, 2, CUDA_ARRAY3D_SURFACE_LDST },
		{ 33, 0, 7, CU_AD_FORMAT_SIGNED_INT16, 1, CUDA_ARRAY3D_LAYERED },
		{ 16, 16, 6, CU_AD_FORMAT_UNORM_INT8X4, 4, CUDA_ARRAY3D_CUBEMAP },
		{ 8, 8, 12, CU_AD_FORMAT_FLOAT, 1,
		  CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED },
		{ 100, 50, 0, CU_AD_FORMAT_SNORM_INT16X2, 2,
		  CUDA_ARRAY3D_TEXTURE_GATHER },
	};
	CUDA_ARRAY3D_DESCRIPTOR got3;
	CUDA_ARRAY_DESCRIPTOR got2, desc2 = {
		.Width = 300, .Height = 0, .Format = CU_AD_FORMAT_UNSIGNED_INT32,
		.NumChannels = 2,
	};
	CUarray array;
	size_t i;

	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		ck_assert_int_eq(cuArray3DCreate(&array, &shapes[i]), CUDA_SUCCESS);
		ck_assert_int_eq(cuArray3DGetDescriptor(&got3, array), CUDA_SUCCESS);
		ck_assert_mem_eq(&got3, &shapes[i], sizeof(got3));
		ck_assert_int_eq(cuArrayGetDescriptor(&got2, array), CUDA_SUCCESS);
		ck_assert_uint_eq(got2.Width, shapes[i].Width);
		ck_assert_uint_eq(got2.Height, shapes[i].Height);
		ck_assert_int_eq(got2.Format, shapes[i].Format);
		ck_assert_uint_eq(got2.NumChannels, shapes[i].NumChannels);
		ck_assert_int_eq(cuArrayDestroy(array), CUDA_SUCCESS);
		ck_assert_int_eq(cuArray3DGetDescriptor(&got3, array),
				 CUDA_ERROR_INVALID_HANDLE);
		ck_assert_int_eq(cuArrayDestroy(array), CUDA_ERROR_INVALID_HANDLE);
	}
	ck_assert_int_eq(cuArrayCreate(&array, &desc2), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayGetDescriptor(&got2, array), CUDA_SUCCESS);
	ck_assert_mem_eq(&got2, &desc2, sizeof(got2));
	ck_assert_int_eq(cuArray3DGetDescriptor(&got3, array), CUDA_SUCCESS);
	ck_assert_uint_eq(got3.Depth, 0);
	ck_assert_uint_eq(got3.Flags, 0);
	ck_assert_int_eq(cuArrayGetDescriptor(NULL, array), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArray3DGetDescriptor(NULL, array),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayDestroy(array), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuArrayGetDescriptor(&got2, (CUarray)0x1234),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

START_TEST(bad_descriptors_refused)
{
	static const struct {
		CUDA_ARRAY3D_DESCRIPTOR desc;
		CUresult res;
	} cases[] = {
		{ { 0, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0 }, CUDA_ERROR_INVALID_VALUE },
		{ { 4, 4, 0, CU_AD_FORMAT_FLOAT, 3, 0 }, CUDA_ERROR_INVALID_VALUE },
		{ { 4, 4, 0, CU_AD_FORMAT_FLOAT, 0, 0 }, CUDA_ERROR_INVALID_VALUE },
		{ { 4, 4, 0, (CUarray_format)0x42, 1, 0 }, CUDA_ERROR_INVALID_VALUE },
		{ { 4, 4, 0, CU_AD_FORMAT_UNORM_INT8X2, 4, 0 },
		  CUDA_ERROR_INVALID_VALUE },
		/* A depth without a height, unless layered. */
		{ { 4, 0, 2, CU_AD_FORMAT_FLOAT, 1, 0 }, CUDA_ERROR_INVALID_VALUE },
		{ { 4, 4, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 8, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 8, 8, 5, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 8, 8, 12, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 8, 8, 2, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_TEXTURE_GATHER },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0x200 },
		  CUDA_ERROR_INVALID_VALUE },
		/* Past the device's limits (MAXIMUM_TEXTURE1D_WIDTH, ...). */
		{ { 131073, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0 },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 32769, 0, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST },
		  CUDA_ERROR_INVALID_VALUE },
		{ { 16385, 16385, 2, CU_AD_FORMAT_FLOAT, 1, 0 },
		  CUDA_ERROR_INVALID_VALUE },
		/* A block-compressed format's channels are its own. */
		{ { 8, 8, 0, CU_AD_FORMAT_BC1_UNORM, 1, 0 },
		  CUDA_ERROR_INVALID_VALUE },
		/* What cumc does not lay out or simulate. */
		{ { 8, 8, 0, CU_AD_FORMAT_NV12, 1, 0 },
		  CUDA_ERROR_NOT_SUPPORTED },
		{ { 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE },
		  CUDA_ERROR_NOT_SUPPORTED },
	};
	CUDA_ARRAY3D_DESCRIPTOR ok = { 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUarray array;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		array = (CUarray)0x5a5a;
		ck_assert_msg(cuArray3DCreate(&array, &cases[i].desc) == cases[i].res,
			      "case %zu", i);
		ck_assert_ptr_eq(array, (CUarray)0x5a5a);
	}
	ck_assert_int_eq(cuArray3DCreate(NULL, &ok), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArray3DCreate(&array, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayCreate(&array, NULL), CUDA_ERROR_INVALID_VALUE);
	/* Deeper than TEXTURE3D_DEPTH: the alternate 3D shape allows it. */
	array = array_new(1, 1, 20000, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
	ck_assert_int_eq(cuArrayDestroy(array), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DCreate(&array, &ok), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/*
 * A block-compressed array is rows of 4x4 blocks (8 bytes each for BC1,
 * 16 for BC6H) that the copies move as bytes.
 */
START_TEST(block_compressed_arrays)
{
	CUarray bc1 = array_new(10, 6, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0);
	CUarray bc6 = array_new(4, 4, 0, CU_AD_FORMAT_BC6H_UF16, 3, 0);
	unsigned char in[48], out[48];
	CUDA_MEMCPY2D c = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = in,
		.srcPitch = 24,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = bc1,
		.WidthInBytes = 24, .Height = 2,
	};
	CUDA_ARRAY3D_DESCRIPTOR got;

	fill_pattern(in, sizeof(in), 3);
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	c.Height = 3;		/* 6 texels are 2 rows of blocks */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c.Height = 2;
	c.WidthInBytes = 32;	/* 10 texels are 3 blocks, 24 bytes */
	c.srcPitch = 32;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	array_read_all(bc1, out, 24, 2, 1);
	ck_assert_mem_eq(out, in, sizeof(in));
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, bc1), CUDA_SUCCESS);
	ck_assert_uint_eq(got.Width, 10);
	ck_assert_int_eq(got.Format, CU_AD_FORMAT_BC1_UNORM);

	ck_assert_int_eq(cuMemcpyHtoA(bc6, 0, in, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoA(bc6, 0, in, 17), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayDestroy(bc1), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(bc6), CUDA_SUCCESS);
}
END_TEST

/*
 * Host -> device -> array -> array -> unified device -> unified host ->
 * host, each with its own odd pitch and offsets: every byte of the
 * rectangle arrives, and no byte around it in any pitched buffer moves.
 */
START_TEST(copy2d_every_direction)
{
	enum { W = 23, H = 9, SP = 37, DP = 41, HP = 29, BIG = 4096 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char src[BIG], out[BIG], want[BIG];
	CUarray a = array_new(64, 16, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
	CUarray b = array_new(30, 12, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
	CUDA_MEMCPY2D c;
	CUdeviceptr dev2 = buf.va + 2048;

	fill_pattern(src, sizeof(src), 7);
	memset(vmm_ptr(buf.va), 0xcc, 4096);

	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = src,
		.srcXInBytes = 5, .srcY = 3, .srcPitch = SP,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = buf.va,
		.dstXInBytes = 7, .dstY = 2, .dstPitch = DP,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	memset(want, 0xcc, 2048);
	ref_copy2d(want, DP, 7, 2, src, SP, 5, 3, W, H);
	ck_assert_mem_eq(vmm_ptr(buf.va), want, 2048);

	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = buf.va,
		.srcXInBytes = 7, .srcY = 2, .srcPitch = DP,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a,
		.dstXInBytes = 40, .dstY = 6,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = a,
		.srcXInBytes = 40, .srcY = 6,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = b,
		.dstXInBytes = 1, .dstY = 0,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2DUnaligned(&c), CUDA_SUCCESS);
	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = b,
		.srcXInBytes = 1,
		.dstMemoryType = CU_MEMORYTYPE_UNIFIED, .dstDevice = dev2,
		.dstXInBytes = 3, .dstY = 1, .dstPitch = HP,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	memset(out, 0xee, sizeof(out));
	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_UNIFIED, .srcDevice = dev2,
		.srcXInBytes = 3, .srcY = 1, .srcPitch = HP,
		.dstMemoryType = CU_MEMORYTYPE_UNIFIED,
		.dstDevice = (CUdeviceptr)(uintptr_t)out,
		.dstXInBytes = 0, .dstY = 4, .dstPitch = W,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	memset(want, 0xee, sizeof(want));
	ref_copy2d(want, W, 0, 4, src, SP, 5, 3, W, H);
	ck_assert_mem_eq(out, want, sizeof(out));
	/* The unified device buffer kept its bytes between the rows. */
	memset(want, 0xcc, HP * (H + 1));
	ref_copy2d(want, HP, 3, 1, src, SP, 5, 3, W, H);
	ck_assert_mem_eq(vmm_ptr(dev2), want, HP * (H + 1));

	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(b), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/* Host -> 3D float array -> device (pitched, sliced) -> host, then Peer. */
START_TEST(copy3d_round_trip)
{
	enum { W = 12, H = 5, D = 3, SP = 19, SH = 7, DP = 100, DH = 9 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	static unsigned char src[SP * SH * 5], out[W * H * D], want[W * H * D];
	CUarray a = array_new(8, 6, 4, CU_AD_FORMAT_FLOAT, 1, 0);
	CUDA_MEMCPY3D_PEER p;
	CUDA_MEMCPY3D c;
	CUcontext ctx;
	size_t z;

	fill_pattern(src, sizeof(src), 3);
	c = (CUDA_MEMCPY3D){
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = src,
		.srcXInBytes = 2, .srcY = 1, .srcZ = 1, .srcPitch = SP,
		.srcHeight = SH,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a,
		.dstXInBytes = 4, .dstY = 1, .dstZ = 1,
		.WidthInBytes = W, .Height = H, .Depth = D,
	};
	ck_assert_int_eq(cuMemcpy3D(&c), CUDA_SUCCESS);
	c = (CUDA_MEMCPY3D){
		.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = a,
		.srcXInBytes = 4, .srcY = 1, .srcZ = 1,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = buf.va,
		.dstXInBytes = 9, .dstY = 2, .dstZ = 1, .dstPitch = DP,
		.dstHeight = DH,
		.WidthInBytes = W, .Height = H, .Depth = D,
	};
	ck_assert_int_eq(cuMemcpy3D(&c), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	p = (CUDA_MEMCPY3D_PEER){
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = buf.va,
		.srcXInBytes = 9, .srcY = 2, .srcZ = 1, .srcPitch = DP,
		.srcHeight = DH, .srcContext = ctx,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = out,
		.dstPitch = W, .dstHeight = H, .dstContext = ctx,
		.WidthInBytes = W, .Height = H, .Depth = D,
	};
	ck_assert_int_eq(cuMemcpy3DPeer(&p), CUDA_SUCCESS);
	for (z = 0; z < D; z++)
		ref_copy2d(want + z * W * H, W, 0, 0, src + (z + 1) * SP * SH,
			   SP, 2, 1, W, H);
	ck_assert_mem_eq(out, want, sizeof(out));
	/* A context that is not live. */
	p.srcContext = (CUcontext)0x77;
	ck_assert_int_eq(cuMemcpy3DPeer(&p), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

START_TEST(bad_copies_refused)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUarray a = array_new(8, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0);
	unsigned char host[256];
	CUDA_MEMCPY2D good = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = host,
		.srcPitch = 32,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a,
		.WidthInBytes = 32, .Height = 4,
	}, c;
	CUDA_MEMCPY3D c3 = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = host,
		.srcPitch = 8, .srcHeight = 2,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = buf.va,
		.dstPitch = 8, .dstHeight = 2,
		.WidthInBytes = 8, .Height = 2, .Depth = 2,
	};
	unsigned char raw[32];
	float back[8];

	memset(host, 0x11, sizeof(host));
	memset(vmm_ptr(buf.va), 0, 64);
	ck_assert_int_eq(cuMemcpy2D(NULL), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.dstY = 1;		/* past the last row */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.dstXInBytes = 4;	/* past the row's end */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.srcXInBytes = 1;	/* the pitch holds no row from there */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.srcPitch = (size_t)1 << 31;	/* over MAX_PITCH: NVIDIA's driver crashes */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.srcMemoryType = (CUmemorytype)7;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.srcHost = NULL;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c = good;
	c.dstArray = (CUarray)0x4242;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_HANDLE);
	c = good;
	c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.dstDevice = buf.va + gran - 64;	/* runs past the mapping */
	c.dstPitch = 32;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	c.dstDevice = (CUdeviceptr)(uintptr_t)host;	/* host, not device */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyAtoH(back, a, 0, 32), CUDA_SUCCESS);
	ck_assert_float_eq(back[0], 0);
	ck_assert_float_eq(back[7], 0);
	/* Nothing to copy: success, not even the host pointer checked. */
	c = good;
	c.Height = 0;
	c.srcHost = NULL;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	/* Bytes, not elements: NVIDIA's driver copies part of an element. */
	c = good;
	c.dstXInBytes = 2;
	c.WidthInBytes = 28;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	c = good;
	c.WidthInBytes = 30;
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyAtoH(raw, a, 0, sizeof(raw)), CUDA_SUCCESS);
	ck_assert_uint_eq(raw[29], 0x11);
	ck_assert_uint_eq(raw[30], 0);

	ck_assert_int_eq(cuMemcpy3D(NULL), CUDA_ERROR_INVALID_VALUE);
	c3.srcLOD = 1;		/* ignored, as by NVIDIA's driver */
	ck_assert_int_eq(cuMemcpy3D(&c3), CUDA_SUCCESS);
	c3.srcLOD = 0;
	c3.reserved0 = host;
	ck_assert_int_eq(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
	c3.reserved0 = NULL;
	c3.dstHeight = 1;	/* a slice holds fewer rows than copied */
	ck_assert_int_eq(cuMemcpy3D(&c3), CUDA_ERROR_INVALID_VALUE);
	c3.dstHeight = 2;
	ck_assert_int_eq(cuMemcpy3D(&c3), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(buf.va), host, 32);
	ck_assert_int_eq(cuMemcpy3DPeer(NULL), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/*
 * The byte-offset copies reach an array's first row only: NVIDIA's driver
 * refuses bytes past it, as on a 2D array, where rows are reached by the
 * 2D and 3D copies.
 */
START_TEST(linear_array_copies)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUarray a = array_new(60, 0, 0, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0);
	CUarray b = array_new(50, 0, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
	CUarray flat = array_new(4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0);
	enum { SIZE = 60 * 4 };
	unsigned char in[SIZE], out[SIZE], row[16];
	CUDA_MEMCPY2D c = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = in,
		.srcPitch = 16,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = flat,
		.WidthInBytes = 16, .Height = 4,
	};

	fill_pattern(in, SIZE, 9);
	ck_assert_int_eq(cuMemcpyHtoA(a, 0, in, SIZE), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyAtoD(buf.va + 3, a, 5, 101), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(buf.va + 3), in + 5, 101);
	ck_assert_int_eq(cuMemcpyDtoA(b, 17, buf.va + 3, 101), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyAtoA(a, 1, b, 17, 101), CUDA_SUCCESS);
	memset(out, 0, sizeof(out));
	ck_assert_int_eq(cuMemcpyAtoH(out, a, 0, SIZE), CUDA_SUCCESS);
	ck_assert_uint_eq(out[0], in[0]);
	ck_assert_mem_eq(out + 1, in + 5, 101);
	ck_assert_mem_eq(out + 102, in + 102, SIZE - 102);

	ck_assert_int_eq(cuMemcpyAtoH(out, a, 1, SIZE), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyHtoA(b, 200, in, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyHtoA(b, 199, in, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoA(b, 0, NULL, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyAtoH(out, (CUarray)3, 0, 1),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuMemcpyDtoA(b, (size_t)-1, buf.va, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyAtoD(buf.va + gran - 4, b, 0, 8),
			 CUDA_ERROR_INVALID_VALUE);

	/* A 2D array's first row is its 16 bytes; row 1 is past them. */
	ck_assert_int_eq(cuMemcpy2D(&c), CUDA_SUCCESS);
	memset(row, 0, sizeof(row));
	ck_assert_int_eq(cuMemcpyAtoH(row, flat, 20, 8), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(row[0], 0);
	ck_assert_int_eq(cuMemcpyAtoH(row, flat, 0, 17), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyAtoH(row, flat, 4, 12), CUDA_SUCCESS);
	ck_assert_mem_eq(row, in + 4, 12);

	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(b), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(flat), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/*
 * The stream forms run in stream order: a set, then copies that read
 * what it wrote, a host source read at the call, and an array destroyed
 * while a copy of it is queued still copied.
 */
START_TEST(async_copies_in_stream_order)
{
	enum { W = 16, H = 4, P = 24 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUarray a = array_new(W, H, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0);
	unsigned char host[W * H], out[W * H], want[W * H];
	CUDA_MEMCPY2D c;
	CUstream s;
	size_t i;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD2D8Async(buf.va, P, 0x5a, W, H, s), CUDA_SUCCESS);
	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = buf.va,
		.srcPitch = P,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY, .dstArray = a,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2DAsync(&c, s), CUDA_SUCCESS);
	/* The byte-offset forms reach the first row only. */
	ck_assert_int_eq(cuMemcpyAtoHAsync(out, a, 0, W, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	memset(want, 0x5a, sizeof(want));
	ck_assert_mem_eq(out, want, W);

	fill_pattern(host, sizeof(host), 1);
	memcpy(want, host, W);
	ck_assert_int_eq(cuMemcpyHtoAAsync(a, 0, host, W, s), CUDA_SUCCESS);
	memset(host, 0, sizeof(host));	/* read at the call */
	c = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_ARRAY, .srcArray = a,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = out,
		.dstPitch = W,
		.WidthInBytes = W, .Height = H,
	};
	ck_assert_int_eq(cuMemcpy2DAsync(&c, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_mem_eq(out, want, sizeof(out));

	for (i = 0; i < H; i++)
		ck_assert_uint_eq(vmm_bytes(buf.va)[i * P + W], 0);
	ck_assert_int_eq(cuMemcpy2DAsync(&c, s), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuMemcpy2DAsync(NULL, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD2D8Async(buf.va, P, 1, W, H, (CUstream)0x99),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/* Each 2D set writes its rectangle of elements and nothing between rows. */
START_TEST(sets_2d_write_their_rectangle)
{
	enum { P = 36, H = 5 };
	struct vmm_buf buf = vmm_buf_new(0, gran);
	unsigned char want[P * H];
	uint16_t half = 0x1234;
	uint32_t word = 0xa1b2c3d4;
	size_t y, x;

	memset(vmm_ptr(buf.va), 0xee, P * H);
	ck_assert_int_eq(cuMemsetD2D8(buf.va + 1, P, 0x42, 11, H), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD2D16(buf.va + 14, P, half, 3, H), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD2D32(buf.va + 20, P, word, 3, H), CUDA_SUCCESS);
	memset(want, 0xee, sizeof(want));
	for (y = 0; y < H; y++) {
		memset(want + y * P + 1, 0x42, 11);
		for (x = 0; x < 3; x++) {
			memcpy(want + y * P + 14 + 2 * x, &half, 2);
			memcpy(want + y * P + 20 + 4 * x, &word, 4);
		}
	}
	ck_assert_mem_eq(vmm_ptr(buf.va), want, sizeof(want));

	/* One row needs no pitch. */
	ck_assert_int_eq(cuMemsetD2D32(buf.va + 4096, 0, word, 5, 1), CUDA_SUCCESS);
	ck_assert_uint_eq(*(uint32_t *)vmm_ptr(buf.va + 4096 + 16), word);

	ck_assert_int_eq(cuMemsetD2D16(buf.va + 1, P, 1, 2, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD2D32(buf.va, 38, 1, 2, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD2D8(buf.va, 10, 1, 11, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD2D8(buf.va + gran - 8, 16, 1, 8, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD2D8(buf.va, 16, 1, 0, 2), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(buf.va), want, sizeof(want));
	vmm_buf_free(&buf);
}
END_TEST

/* Each level halves what shrinks, down to 1; the levels are the mipmap's. */
START_TEST(mipmap_levels)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 64, 32, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUDA_ARRAY3D_DESCRIPTOR layered = {
		16, 16, 5, CU_AD_FORMAT_UNSIGNED_INT8, 1, CUDA_ARRAY3D_LAYERED,
	};
	CUDA_ARRAY3D_DESCRIPTOR got;
	CUmipmappedArray m, ml;
	float in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8] = { 0 };
	CUarray level;

	/* 0 levels makes the base alone, too many the whole chain (as NVIDIA's). */
	ck_assert_int_eq(cuMipmappedArrayCreate(&m, &d, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayCreate(&m, &d, 8), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 6), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 7), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayCreate(NULL, &d, 1), CUDA_ERROR_INVALID_VALUE);
	d.NumChannels = 3;
	ck_assert_int_eq(cuMipmappedArrayCreate(&m, &d, 1), CUDA_ERROR_INVALID_VALUE);
	d.NumChannels = 1;
	ck_assert_int_eq(cuMipmappedArrayCreate(&m, &d, 7), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 7), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(NULL, m, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 2), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, level), CUDA_SUCCESS);
	ck_assert_uint_eq(got.Width, 16);
	ck_assert_uint_eq(got.Height, 8);
	ck_assert_int_eq(cuMemcpyHtoA(level, 4, in, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyAtoH(out, level, 4, sizeof(out)), CUDA_SUCCESS);
	ck_assert_mem_eq(out, in, sizeof(in));
	/* Success, and the level stays the mipmap's (as NVIDIA's answers). */
	ck_assert_int_eq(cuArrayDestroy(level), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, level), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 6), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, level), CUDA_SUCCESS);
	ck_assert_uint_eq(got.Width, 1);
	ck_assert_uint_eq(got.Height, 1);

	ck_assert_int_eq(cuMipmappedArrayCreate(&ml, &layered, 5), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, ml, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, level), CUDA_SUCCESS);
	ck_assert_uint_eq(got.Width, 1);
	ck_assert_uint_eq(got.Depth, 5);	/* layers do not shrink */

	ck_assert_int_eq(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, level), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayDestroy(ml), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DGetDescriptor(&got, level), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuMipmappedArrayDestroy(m), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuMipmappedArrayGetLevel(&level, m, 0), CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

static CUresult tex_create(CUtexObject *o, const CUDA_RESOURCE_DESC *r,
			   const CUDA_TEXTURE_DESC *t,
			   const CUDA_RESOURCE_VIEW_DESC *v)
{
	return cuTexObjectCreate(o, r, t, v);
}

START_TEST(texture_objects)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUarray a = array_new(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0);
	CUDA_RESOURCE_DESC r = { .resType = CU_RESOURCE_TYPE_ARRAY }, rb, bad;
	CUDA_TEXTURE_DESC t = {
		.addressMode = { CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_WRAP },
		.filterMode = CU_TR_FILTER_MODE_LINEAR,
		.flags = CU_TRSF_NORMALIZED_COORDINATES,
		.borderColor = { 0.5f },
	}, tb, tbad;
	CUDA_RESOURCE_VIEW_DESC v = {
		.format = CU_RES_VIEW_FORMAT_FLOAT_1X32, .width = 8, .height = 8,
	}, vb;
	CUtexObject o, ov;
	CUsurfObject so;

	r.res.array.hArray = a;
	ck_assert_int_eq(tex_create(&o, &r, &t, NULL), CUDA_SUCCESS);
	ck_assert_uint_ne(o, 0);
	ck_assert_int_eq(cuTexObjectGetResourceDesc(&rb, o), CUDA_SUCCESS);
	ck_assert_mem_eq(&rb, &r, sizeof(r));
	ck_assert_int_eq(cuTexObjectGetTextureDesc(&tb, o), CUDA_SUCCESS);
	ck_assert_mem_eq(&tb, &t, sizeof(t));
	/* No view given: success, nothing written, as NVIDIA's driver. */
	memset(&vb, 0xff, sizeof(vb));
	ck_assert_int_eq(cuTexObjectGetResourceViewDesc(&vb, o), CUDA_SUCCESS);
	ck_assert_int_eq((int)vb.format, -1);
	ck_assert_uint_eq(vb.width, SIZE_MAX);
	ck_assert_int_eq(tex_create(&ov, &r, &t, &v), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexObjectGetResourceViewDesc(&vb, ov), CUDA_SUCCESS);
	ck_assert_mem_eq(&vb, &v, sizeof(v));
	/* A texture is no surface. */
	ck_assert_int_eq(cuSurfObjectDestroy(o), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuSurfObjectGetResourceDesc(&rb, o), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexObjectDestroy(o), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexObjectDestroy(o), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexObjectGetTextureDesc(&tb, o), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexObjectDestroy(ov), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexObjectDestroy(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuSurfObjectDestroy(0), CUDA_SUCCESS);

	ck_assert_int_eq(tex_create(NULL, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tex_create(&o, NULL, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tex_create(&o, &r, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	bad = r;
	bad.flags = 1;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	bad = r;
	bad.resType = (CUresourcetype)9;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	bad.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;	/* an array's handle */
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	tbad = t;
	tbad.filterMode = (CUfilter_mode)2;
	ck_assert_int_eq(tex_create(&o, &r, &tbad, NULL), CUDA_ERROR_INVALID_VALUE);
	tbad = t;
	tbad.addressMode[2] = (CUaddress_mode)4;
	ck_assert_int_eq(tex_create(&o, &r, &tbad, NULL), CUDA_ERROR_INVALID_VALUE);
	tbad = t;
	tbad.flags = 0x80;
	ck_assert_int_eq(tex_create(&o, &r, &tbad, NULL), CUDA_ERROR_INVALID_VALUE);

	/* Linear memory: aligned to TEXTURE_ALIGNMENT, mapped. */
	bad = (CUDA_RESOURCE_DESC){ .resType = CU_RESOURCE_TYPE_LINEAR };
	bad.res.linear.devPtr = buf.va;
	bad.res.linear.format = CU_AD_FORMAT_FLOAT;
	bad.res.linear.numChannels = 1;
	bad.res.linear.sizeInBytes = 4096;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexObjectDestroy(o), CUDA_SUCCESS);
	ck_assert_int_eq(tex_create(&o, &bad, &t, &v), CUDA_ERROR_INVALID_VALUE);
	bad.res.linear.devPtr = buf.va + 4;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	bad.res.linear.devPtr = buf.va + gran - 512;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);

	/* Pitched memory: the pitch a multiple of TEXTURE_PITCH_ALIGNMENT. */
	bad = (CUDA_RESOURCE_DESC){ .resType = CU_RESOURCE_TYPE_PITCH2D };
	bad.res.pitch2D.devPtr = buf.va;
	bad.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
	bad.res.pitch2D.numChannels = 4;
	bad.res.pitch2D.width = 10;
	bad.res.pitch2D.height = 10;
	bad.res.pitch2D.pitchInBytes = 64;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexObjectDestroy(o), CUDA_SUCCESS);
	bad.res.pitch2D.pitchInBytes = 48;
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	bad.res.pitch2D.pitchInBytes = 32;	/* less than a row */
	ck_assert_int_eq(tex_create(&o, &bad, &t, NULL), CUDA_ERROR_INVALID_VALUE);

	/*
	 * Surfaces: over an array made without CUDA_ARRAY3D_SURFACE_LDST too,
	 * as NVIDIA's driver makes them.
	 */
	ck_assert_int_eq(cuSurfObjectCreate(&so, &r), CUDA_SUCCESS);
	ck_assert_int_eq(cuSurfObjectDestroy(so), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	a = array_new(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SURFACE_LDST);
	r.res.array.hArray = a;
	ck_assert_int_eq(cuSurfObjectCreate(&so, &r), CUDA_SUCCESS);
	ck_assert_int_eq(cuSurfObjectGetResourceDesc(&rb, so), CUDA_SUCCESS);
	ck_assert_mem_eq(&rb, &r, sizeof(r));
	ck_assert_int_eq(cuTexObjectDestroy(so), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuSurfObjectDestroy(so), CUDA_SUCCESS);
	ck_assert_int_eq(cuSurfObjectCreate(&so, &bad), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuSurfObjectCreate(NULL, &r), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	/* A destroyed array is no resource. */
	ck_assert_int_eq(tex_create(&o, &r, &t, NULL), CUDA_ERROR_INVALID_VALUE);
	vmm_buf_free(&buf);
}
END_TEST

/* A texture reference is its state: what it is bound to, and its settings. */
START_TEST(texture_references)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUarray a = array_new(8, 8, 0, CU_AD_FORMAT_HALF, 2, 0), got;
	CUDA_ARRAY3D_DESCRIPTOR d = { 16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUDA_ARRAY_DESCRIPTOR d2 = {
		.Width = 8, .Height = 4, .Format = CU_AD_FORMAT_FLOAT,
		.NumChannels = 1,
	};
	float border[4] = { 1, 2, 3, 4 }, border_back[4], bias, lo, hi;
	CUmipmappedArray m, m_back;
	CUarray_format format;
	CUaddress_mode am;
	CUfilter_mode fm;
	CUdeviceptr dptr;
	unsigned int flags;
	size_t offset = 1;
	int channels, aniso;
	CUtexref ref;

	ck_assert_int_eq(cuTexRefCreate(NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefCreate(&ref), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(ref);
	ck_assert_int_eq(cuTexRefGetArray(&got, ref), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefGetAddress(&dptr, ref), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuTexRefSetArray(ref, a, 2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetArray(ref, (CUarray)0x99, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetArray(ref, a, CU_TRSA_OVERRIDE_FORMAT),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetArray(&got, ref), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, a);
	ck_assert_int_eq(cuTexRefGetFormat(&format, &channels, ref), CUDA_SUCCESS);
	ck_assert_int_eq(format, CU_AD_FORMAT_HALF);
	ck_assert_int_eq(channels, 2);

	/* Each binding supersedes the one before. */
	ck_assert_int_eq(cuMipmappedArrayCreate(&m, &d, 2), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefSetMipmappedArray(ref, m, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetMipmappedArray(&m_back, ref), CUDA_SUCCESS);
	ck_assert_ptr_eq(m_back, m);
	ck_assert_int_eq(cuTexRefGetArray(&got, ref), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetAddress(&offset, ref, buf.va, 256), CUDA_SUCCESS);
	ck_assert_uint_eq(offset, 0);
	ck_assert_int_eq(cuTexRefGetAddress(&dptr, ref), CUDA_SUCCESS);
	ck_assert_uint_eq(dptr, buf.va);
	ck_assert_int_eq(cuTexRefGetMipmappedArray(&m_back, ref),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetAddress2D(ref, &d2, buf.va, 16),
			 CUDA_ERROR_INVALID_VALUE);	/* a row is 32 bytes */
	ck_assert_int_eq(cuTexRefSetAddress2D(ref, &d2, buf.va + 64, 32),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetAddress(&dptr, ref), CUDA_SUCCESS);
	ck_assert_uint_eq(dptr, buf.va + 64);
	ck_assert_int_eq(cuTexRefGetFormat(&format, &channels, ref), CUDA_SUCCESS);
	ck_assert_int_eq(format, CU_AD_FORMAT_FLOAT);
	ck_assert_int_eq(channels, 1);

	ck_assert_int_eq(cuTexRefSetFormat(ref, CU_AD_FORMAT_FLOAT, 3),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetFormat(ref, CU_AD_FORMAT_UNSIGNED_INT8, 4),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetFormat(&format, NULL, ref), CUDA_SUCCESS);
	ck_assert_int_eq(format, CU_AD_FORMAT_UNSIGNED_INT8);
	ck_assert_int_eq(cuTexRefGetFormat(NULL, NULL, ref), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuTexRefSetAddressMode(ref, 3, CU_TR_ADDRESS_MODE_WRAP),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetAddressMode(ref, 1, CU_TR_ADDRESS_MODE_MIRROR),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetAddressMode(&am, ref, 1), CUDA_SUCCESS);
	ck_assert_int_eq(am, CU_TR_ADDRESS_MODE_MIRROR);
	ck_assert_int_eq(cuTexRefSetFilterMode(ref, (CUfilter_mode)2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetFilterMode(ref, CU_TR_FILTER_MODE_LINEAR),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetFilterMode(&fm, ref), CUDA_SUCCESS);
	ck_assert_int_eq(fm, CU_TR_FILTER_MODE_LINEAR);
	ck_assert_int_eq(cuTexRefSetMipmapFilterMode(ref, CU_TR_FILTER_MODE_LINEAR),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetMipmapFilterMode(&fm, ref), CUDA_SUCCESS);
	ck_assert_int_eq(fm, CU_TR_FILTER_MODE_LINEAR);
	ck_assert_int_eq(cuTexRefSetMipmapLevelBias(ref, 0.5f), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetMipmapLevelBias(&bias, ref), CUDA_SUCCESS);
	ck_assert_float_eq(bias, 0.5f);
	ck_assert_int_eq(cuTexRefSetMipmapLevelClamp(ref, 2, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetMipmapLevelClamp(ref, 1, 2), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetMipmapLevelClamp(&lo, &hi, ref), CUDA_SUCCESS);
	ck_assert_float_eq(lo, 1);
	ck_assert_float_eq(hi, 2);
	ck_assert_int_eq(cuTexRefSetMaxAnisotropy(ref, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetMaxAnisotropy(&aniso, ref), CUDA_SUCCESS);
	ck_assert_int_eq(aniso, 4);
	ck_assert_int_eq(cuTexRefSetBorderColor(ref, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetBorderColor(ref, border), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetBorderColor(border_back, ref), CUDA_SUCCESS);
	ck_assert_mem_eq(border_back, border, sizeof(border));
	ck_assert_int_eq(cuTexRefSetFlags(ref, 0x80), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTexRefSetFlags(ref, CU_TRSF_READ_AS_INTEGER |
					  CU_TRSF_SRGB), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefGetFlags(&flags, ref), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_TRSF_READ_AS_INTEGER | CU_TRSF_SRGB);
	ck_assert_int_eq(cuTexRefGetFlags(NULL, ref), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuTexRefDestroy(ref), CUDA_SUCCESS);
	ck_assert_int_eq(cuTexRefDestroy(ref), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuTexRefSetFlags(ref, 0), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuTexRefGetFlags(&flags, ref), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuTexRefGetArray(&got, NULL), CUDA_ERROR_INVALID_HANDLE);

	/* Surface references come from modules only: none exists. */
	ck_assert_int_eq(cuSurfRefGetArray(&got, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuSurfRefGetArray(NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuSurfRefSetArray(NULL, a, 0), CUDA_ERROR_INVALID_HANDLE);

	ck_assert_int_eq(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

/*
 * What cumc never makes answers as documented for its absence: imports of
 * external memory and semaphores NOT_SUPPORTED (a closed fd UNKNOWN, as
 * NVIDIA's driver answers), graphics resources and external handles
 * INVALID_HANDLE, planar, sparse and deferred-mapping queries of a plain
 * array INVALID_VALUE.
 */
START_TEST(what_cumc_never_makes)
{
	CUarray a = array_new(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0), plane = NULL;
	CUDA_ARRAY3D_DESCRIPTOR d = { 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUDA_ARRAY_SPARSE_PROPERTIES sparse;
	CUDA_ARRAY_MEMORY_REQUIREMENTS req;
	CUarrayMapInfo map_info = { .resourceType = CU_RESOURCE_TYPE_ARRAY };
	CUgraphicsResource res = (CUgraphicsResource)0x10;
	CUmipmappedArray m;
	CUdeviceptr dptr = 0;
	size_t width = 0, size;
	CUDA_EXTERNAL_MEMORY_HANDLE_DESC ext_desc = {
		.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD, .size = 4096,
	};
	CUDA_EXTERNAL_MEMORY_BUFFER_DESC buf_desc = { .size = 4096 };
	CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC sem_desc = {
		.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD,
	};
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS signal = { 0 };
	CUexternalMemory ext = (CUexternalMemory)0x5a;
	CUexternalSemaphore sem = (CUexternalSemaphore)0x5b;

	ck_assert_int_eq(cuGraphicsUnregisterResource(res), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuGraphicsResourceGetMappedPointer(&dptr, &size, res),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_uint_eq(dptr, 0);
	ck_assert_int_eq(cuGraphicsMapResources(1, &res, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuGraphicsMapResources(0, &res, NULL),
			 CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuArrayGetPlane(&plane, a, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayGetPlane(&plane, (CUarray)0x99, 0),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuArrayGetSparseProperties(&sparse, a),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayGetMemoryRequirements(&req, a, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuArrayGetMemoryRequirements(NULL, a, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMapArrayAsync(&map_info, 1, NULL),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuMemMapArrayAsync(NULL, 1, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayCreate(&m, &d, 2), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetSparseProperties(&sparse, m),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayGetMemoryRequirements(&req, m, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
	ck_assert_int_eq(cuMipmappedArrayGetSparseProperties(&sparse, m),
			 CUDA_ERROR_INVALID_HANDLE);

	ext_desc.handle.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(ext_desc.handle.fd, 0);
	ck_assert_int_eq(cuImportExternalMemory(&ext, &ext_desc),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(close(ext_desc.handle.fd), 0);
	ck_assert_int_eq(cuImportExternalMemory(&ext, &ext_desc),
			 CUDA_ERROR_UNKNOWN);
	ck_assert_ptr_eq(ext, (CUexternalMemory)0x5a);
	ck_assert_int_eq(cuImportExternalMemory(&ext, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuExternalMemoryGetMappedBuffer(&dptr, ext, &buf_desc),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuDestroyExternalMemory(ext), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuImportExternalSemaphore(&sem, &sem_desc),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuSignalExternalSemaphoresAsync(&sem, &signal, 1, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuSignalExternalSemaphoresAsync(NULL, NULL, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDestroyExternalSemaphore(sem), CUDA_ERROR_INVALID_HANDLE);

	ck_assert_int_eq(cuDeviceGetTexture1DLinearMaxWidth(&width,
			 CU_AD_FORMAT_FLOAT, 4, 0), CUDA_SUCCESS);
	ck_assert_uint_eq(width, 1 << 28);
	ck_assert_int_eq(cuDeviceGetTexture1DLinearMaxWidth(&width,
			 CU_AD_FORMAT_FLOAT, 3, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetTexture1DLinearMaxWidth(&width,
			 CU_AD_FORMAT_FLOAT, 1, 999), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
}
END_TEST

/* A batch queues all its copies or, with one bad, none. */
START_TEST(batches_copy_all_or_nothing)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	CUarray a = array_new(4, 3, 2, CU_AD_FORMAT_UNSIGNED_INT16, 1, 0);
	unsigned char host[64], out[64], back[48];
	CUdeviceptr dsts[2] = { buf.va + 100, (CUdeviceptr)(uintptr_t)out };
	CUdeviceptr srcs[2] = { (CUdeviceptr)(uintptr_t)host, buf.va + 100 };
	size_t sizes[2] = { 40, 40 }, idxs[1] = { 0 };
	CUmemcpyAttributes attr = {
		.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
	};
	CUDA_MEMCPY3D_BATCH_OP op3 = {
		.src = { .type = CU_MEMCPY_OPERAND_TYPE_POINTER },
		.dst = { .type = CU_MEMCPY_OPERAND_TYPE_ARRAY },
		.extent = { 3, 2, 2 },
		.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL,
	};
	typedef CUresult (*batch_v1_fn)(CUdeviceptr *, CUdeviceptr *, size_t *,
					size_t, CUmemcpyAttributes *, size_t *,
					size_t, size_t *, CUstream);
	batch_v1_fn batch_v1;
	size_t fail_idx;
	void *pfn;
	CUstream s;
	int i;

	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	fill_pattern(host, sizeof(host), 5);
	memset(out, 0, sizeof(out));
	/* Two copies in a row of one batch; they run in batch order here. */
	ck_assert_int_eq(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idxs,
					    1, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyBatchAsync(dsts + 1, srcs + 1, sizes + 1, 1,
					    &attr, idxs, 1, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_mem_eq(out, host, 40);

	/* One bad copy: none is queued. */
	memset(out, 0, sizeof(out));
	srcs[1] = buf.va + gran - 8;
	ck_assert_int_eq(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, idxs,
					    1, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(out[0], 0);
	/* CUDA 12.8's form names the copy that failed. */
	ck_assert_int_eq(cuGetProcAddress("cuMemcpyBatchAsync", &pfn, 12080, 0,
					  NULL), CUDA_SUCCESS);
	batch_v1 = (batch_v1_fn)pfn;
	ck_assert_int_eq(batch_v1(dsts, srcs, sizes, 2, &attr, idxs, 1,
				  &fail_idx, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(fail_idx, 1);
	ck_assert_int_eq(batch_v1(dsts, srcs, sizes, 2, &attr, idxs, 1,
				  &fail_idx, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(fail_idx, SIZE_MAX);
	ck_assert_int_eq(batch_v1(dsts, srcs, sizes, 1, &attr, idxs, 1,
				  &fail_idx, s), CUDA_SUCCESS);
	ck_assert_uint_eq(fail_idx, SIZE_MAX);
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
	ck_assert_int_eq(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idxs,
					    1, s), CUDA_ERROR_INVALID_VALUE);
	attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_ANY;
	idxs[0] = 1;
	ck_assert_int_eq(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idxs,
					    1, s), CUDA_ERROR_INVALID_VALUE);
	idxs[0] = 0;
	ck_assert_int_eq(cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &attr, idxs,
					    1, NULL), CUDA_ERROR_INVALID_VALUE);

	/* 3D: host rows of 5 elements, layers of 3 rows, into the array at (1, 1, 0). */
	op3.src.op.ptr.ptr = (CUdeviceptr)(uintptr_t)host;
	op3.src.op.ptr.rowLength = 5;
	op3.src.op.ptr.layerHeight = 3;
	op3.dst.op.array.array = a;
	op3.dst.op.array.offset = (CUoffset3D){ 1, 1, 0 };
	ck_assert_int_eq(cuMemcpy3DBatchAsync(1, &op3, 0, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	array_read_all(a, back, 8, 3, 2);
	for (i = 0; i < 2; i++) {
		/* Layer i, rows 1 and 2, from element 1 (2 bytes each). */
		ck_assert_mem_eq(back + i * 24 + 1 * 8 + 2, host + i * 30, 6);
		ck_assert_mem_eq(back + i * 24 + 2 * 8 + 2, host + i * 30 + 10, 6);
		ck_assert_uint_eq(back[i * 24 + 8], 0);
	}
	op3.src.op.ptr.rowLength = 2;	/* shorter than the copy's width */
	ck_assert_int_eq(cuMemcpy3DBatchAsync(1, &op3, 0, s), CUDA_ERROR_INVALID_VALUE);
	op3.src.op.ptr.rowLength = 0;
	ck_assert_int_eq(cuMemcpy3DBatchAsync(1, &op3, 1, s), CUDA_ERROR_INVALID_VALUE);
	op3.extent.depth = 0;
	ck_assert_int_eq(cuMemcpy3DBatchAsync(1, &op3, 0, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(a), CUDA_SUCCESS);
	vmm_buf_free(&buf);
}
END_TEST

static CUresult tiled(CUtensorMap *map, CUtensorMapDataType type,
		      cuuint32_t rank, void *addr, const cuuint64_t *dims,
		      const cuuint64_t *strides, const cuuint32_t *box,
		      const cuuint32_t *elem, CUtensorMapInterleave interleave,
		      CUtensorMapSwizzle swizzle)
{
	return cuTensorMapEncodeTiled(map, type, rank, addr, dims, strides,
				      box, elem, interleave, swizzle,
				      CU_TENSOR_MAP_L2_PROMOTION_NONE,
				      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* Each requirement cuda.h lists, one argument at a time off a good map. */
START_TEST(tensor_maps)
{
	struct vmm_buf buf = vmm_buf_new(0, gran);
	void *addr = (void *)(uintptr_t)buf.va;
	cuuint64_t dims[5] = { 64, 64, 8, 4, 2 };
	cuuint64_t strides[4] = { 256, 256 * 64, 256 * 64 * 8, 256 * 64 * 32 };
	cuuint32_t box[5] = { 16, 16, 1, 1, 1 }, elem[5] = { 1, 1, 1, 1, 1 };
	cuuint64_t bad_strides[4] = { 264, 256 * 64, 0, 0 };
	cuuint32_t bad_box[2] = { 2, 16 };	/* 8 bytes: not 16 */
	int lower[3] = { -1, -1, -1 }, upper[3] = { 1, 1, 1 };
	CUtensorMap map, copy;

	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, strides, box, elem,
			       CU_TENSOR_MAP_INTERLEAVE_NONE,
			       CU_TENSOR_MAP_SWIZZLE_64B), CUDA_SUCCESS);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 5, addr,
			       dims, strides, box, elem,
			       CU_TENSOR_MAP_INTERLEAVE_32B,
			       CU_TENSOR_MAP_SWIZZLE_32B), CUDA_SUCCESS);
	copy = map;
	ck_assert_int_eq(cuTensorMapReplaceAddress(&map, (char *)addr + 4096),
			 CUDA_SUCCESS);
	ck_assert_mem_ne(&map, &copy, sizeof(map));
	/* Interleaved 32B: the new address must keep 32-byte alignment. */
	ck_assert_int_eq(cuTensorMapReplaceAddress(&map, (char *)addr + 16),
			 CUDA_ERROR_INVALID_VALUE);
	memset(&copy, 0, sizeof(copy));
	ck_assert_int_eq(cuTensorMapReplaceAddress(&copy, addr),
			 CUDA_ERROR_INVALID_VALUE);

	/* Rank, address, dims, strides, box, element strides, modes. */
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 0, addr,
			       dims, strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 6, addr,
			       dims, strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
			       (char *)addr + 8, dims, strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, bad_strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, strides, bad_box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	box[0] = 257;
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, addr,
			       dims, strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	box[0] = 16;
	elem[1] = 9;
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	elem[1] = 1;
	dims[1] = 0;
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	dims[1] = 64;
	/* 16 floats are 64 bytes: more than a 32-byte swizzle span. */
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, strides, box, elem, 0,
			       CU_TENSOR_MAP_SWIZZLE_32B),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, addr,
			       dims, strides, box, elem,
			       CU_TENSOR_MAP_INTERLEAVE_32B,
			       CU_TENSOR_MAP_SWIZZLE_64B),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr,
			       dims, strides, box, elem,
			       CU_TENSOR_MAP_INTERLEAVE_16B, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled(&map, (CUtensorMapDataType)16, 2, addr, dims,
			       strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(tiled((CUtensorMap *)((char *)&map + 8),
			       CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, addr, dims,
			       strides, box, elem, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuTensorMapEncodeIm2col(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, addr, dims, strides,
			 lower, upper, 32, 64, elem, 0, 0, 0, 0), CUDA_SUCCESS);
	lower[0] = -129;
	ck_assert_int_eq(cuTensorMapEncodeIm2col(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, addr, dims, strides,
			 lower, upper, 32, 64, elem, 0, 0, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTensorMapEncodeIm2col(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, addr, dims, strides,
			 lower, upper, 32, 64, elem, 0, 0, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuTensorMapEncodeIm2col(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, addr, dims, strides,
			 lower, upper, 32, 64, elem, 0, 0, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTensorMapEncodeIm2col(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, addr, dims, strides,
			 lower, upper, 32, 1025, elem, 0, 0, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTensorMapEncodeIm2colWide(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, addr, dims, strides,
			 -1, 1, 64, 0, elem, 0, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128,
			 0, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuTensorMapEncodeIm2colWide(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, addr, dims, strides,
			 -1, 1, 64, 0, elem, 0, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
			 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuTensorMapEncodeIm2colWide(&map,
			 CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 3, addr, dims, strides,
			 -40000, 1, 64, 8, elem, 0, CU_TENSOR_MAP_IM2COL_WIDE_MODE_W,
			 0, 0, 0), CUDA_ERROR_INVALID_VALUE);
	vmm_buf_free(&buf);
}
END_TEST

/* A peer copy of bytes between two devices' memory, then on a stream. */
START_TEST(peer_copies)
{
	CUdevice other = 1 % vmm_device_count();
	struct vmm_buf a = vmm_buf_new(0, gran), b = vmm_buf_new(other, gran);
	unsigned char in[100];
	CUcontext ctx0, ctx1;
	CUstream s;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx1, other), CUDA_SUCCESS);
	fill_pattern(in, sizeof(in), 11);
	memcpy(vmm_ptr(a.va + 3), in, sizeof(in));
	ck_assert_int_eq(cuMemcpyPeer(b.va + 7, ctx1, a.va + 3, ctx0, 100),
			 CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(b.va + 7), in, 100);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyPeerAsync(a.va + 200, ctx0, b.va + 7, ctx1, 100,
					   s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_mem_eq(vmm_ptr(a.va + 200), in, 100);
	ck_assert_int_eq(cuMemcpyPeer(b.va, (CUcontext)0x77, a.va, ctx0, 8),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuMemcpyPeer(b.va + gran - 4, ctx1, a.va, ctx0, 8),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(other), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	vmm_buf_free(&a);
	vmm_buf_free(&b);
}
END_TEST

/*
 * No kernel samples a texture or touches a surface in cumc: a module
 * using tex or suld/sust fails to load with NOT_SUPPORTED
 * (Documentation/ptx.md), rather than running without its data.
 */
START_TEST(texture_instructions_fail_the_load)
{
	static const char *const insn[] = {
		"tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r2}];",
		"suld.b.2d.b32.trap {%r3}, [%rd1, {%r1, %r2}];",
		"sust.b.2d.b32.trap [%rd1, {%r1, %r2}], {%r3};",
	};
	char ptx[1024];
	CUmodule m;
	size_t i;

	for (i = 0; i < sizeof(insn) / sizeof(insn[0]); i++) {
		snprintf(ptx, sizeof(ptx),
			 ".version 8.0\n.target sm_90\n.address_size 64\n"
			 ".visible .entry k(.param .u64 t)\n{\n"
			 "\t.reg .b64 %%rd<2>;\n\t.reg .f32 %%f<5>;\n"
			 "\t.reg .b32 %%r<4>;\n"
			 "\tld.param.u64 %%rd1, [t];\n"
			 "\tmov.b32 %%r1, 0;\n\tmov.b32 %%r2, 0;\n"
			 "\tmov.b32 %%r3, 0;\n\t%s\n\tret;\n}\n", insn[i]);
		ck_assert_msg(cuModuleLoadData(&m, ptx) == CUDA_ERROR_NOT_SUPPORTED,
			      "%s", insn[i]);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("array");
	TCase *arrays = tcase_create("arrays");
	TCase *copies = tcase_create("copies");

	check_add_uninit(s, everything_needs_init);

	tcase_add_checked_fixture(arrays, setup, NULL);
	tcase_add_test(arrays, descriptors_round_trip);
	tcase_add_test(arrays, bad_descriptors_refused);
	tcase_add_test(arrays, block_compressed_arrays);
	tcase_add_test(arrays, mipmap_levels);
	tcase_add_test(arrays, texture_objects);
	tcase_add_test(arrays, texture_references);
	tcase_add_test(arrays, what_cumc_never_makes);
	tcase_add_test(arrays, tensor_maps);
	tcase_add_test(arrays, texture_instructions_fail_the_load);
	suite_add_tcase(s, arrays);

	tcase_add_checked_fixture(copies, setup, NULL);
	tcase_add_test(copies, copy2d_every_direction);
	tcase_add_test(copies, copy3d_round_trip);
	tcase_add_test(copies, bad_copies_refused);
	tcase_add_test(copies, linear_array_copies);
	tcase_add_test(copies, async_copies_in_stream_order);
	tcase_add_test(copies, sets_2d_write_their_rectangle);
	tcase_add_test(copies, batches_copy_all_or_nothing);
	tcase_add_test(copies, peer_copies);
	suite_add_tcase(s, copies);

	return check_run_forked(s);
}
