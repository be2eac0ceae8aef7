// SPDX-License-Identifier: MIT
/*
 * Tensor maps: cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col,
 * cuTensorMapEncodeIm2colWide and cuTensorMapReplaceAddress.  The
 * arguments are checked against the requirements cuda.h lists; the
 * 128-byte CUtensorMap is opaque, and cumc keeps in it what it needs to
 * recognise one of its own and check a new address: a magic word, the
 * kind of map, the global address and the encoding's parameters.  No
 * kernel reads one (libcumc-ptx has no cp.async.bulk.tensor).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* opaque[0]: tells a map cumc encoded from anything else. */
#define CUMC_TENSOR_MAP_MAGIC 0x70616d54636d7563ULL	/* "cumcTmap" */

enum libcumc_tensor_map_kind {
	CUMC_TENSOR_MAP_TILED = 1,
	CUMC_TENSOR_MAP_IM2COL,
	CUMC_TENSOR_MAP_IM2COL_WIDE,
};

/* Where the encoding keeps each part, in 64-bit words. */
enum {
	CUMC_TM_MAGIC,
	CUMC_TM_ADDRESS,
	CUMC_TM_PARAMS,		/* kind, type, rank, interleave, swizzle, l2, oob */
	CUMC_TM_DIMS,		/* 5 words: globalDim */
	CUMC_TM_STRIDES = CUMC_TM_DIMS + 5,	/* 4 words: globalStrides */
	CUMC_TM_BOX = CUMC_TM_STRIDES + 4,	/* boxDim or im2col's, 12 bits each */
	CUMC_TM_ELEMENT_STRIDES,		/* 4 bits each */
};

/* The parameters every encoding shares. */
struct libcumc_tensor_map {
	CUtensorMapDataType type;
	cuuint32_t rank;
	void *address;
	const cuuint64_t *dims;
	const cuuint64_t *strides;
	const cuuint32_t *element_strides;
	CUtensorMapInterleave interleave;
	CUtensorMapSwizzle swizzle;
	CUtensorMapL2promotion l2;
	CUtensorMapFloatOOBfill oob;
};

/*
 * Bits of one element: the packed types hold 16 values in 8 bytes
 * (16U4_ALIGN8B) or in 16 (16U4_ALIGN16B, 16U6_ALIGN16B, with gaps).
 */
static unsigned int libcumc_element_bits(CUtensorMapDataType type)
{
	static const unsigned char bits[] = {
		[CU_TENSOR_MAP_DATA_TYPE_UINT8] = 8,
		[CU_TENSOR_MAP_DATA_TYPE_UINT16] = 16,
		[CU_TENSOR_MAP_DATA_TYPE_UINT32] = 32,
		[CU_TENSOR_MAP_DATA_TYPE_INT32] = 32,
		[CU_TENSOR_MAP_DATA_TYPE_UINT64] = 64,
		[CU_TENSOR_MAP_DATA_TYPE_INT64] = 64,
		[CU_TENSOR_MAP_DATA_TYPE_FLOAT16] = 16,
		[CU_TENSOR_MAP_DATA_TYPE_FLOAT32] = 32,
		[CU_TENSOR_MAP_DATA_TYPE_FLOAT64] = 64,
		[CU_TENSOR_MAP_DATA_TYPE_BFLOAT16] = 16,
		[CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ] = 32,
		[CU_TENSOR_MAP_DATA_TYPE_TFLOAT32] = 32,
		[CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ] = 32,
		[CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B] = 4,
		[CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B] = 8,
		[CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B] = 8,
	};

	return (unsigned int)type < sizeof(bits) ? bits[type] : 0;
}

static bool libcumc_packed16(CUtensorMapDataType type)
{
	return type == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B ||
	       type == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B;
}

/* The alignment of the global address and of the strides. */
static uintptr_t libcumc_address_alignment(CUtensorMapInterleave interleave,
					   CUtensorMapDataType type)
{
	return interleave == CU_TENSOR_MAP_INTERLEAVE_32B ||
	       libcumc_packed16(type) ? 32 : 16;
}

/* The swizzles a packed type allows. */
static bool libcumc_swizzle_for_type(CUtensorMapDataType type,
				     CUtensorMapSwizzle swizzle)
{
	if (!libcumc_packed16(type))
		return true;
	if (swizzle == CU_TENSOR_MAP_SWIZZLE_NONE ||
	    swizzle == CU_TENSOR_MAP_SWIZZLE_128B ||
	    swizzle == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B)
		return true;
	return type == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B &&
	       swizzle == CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B;
}

/*
 * The bounding box's inner dimension, @inner_bytes, against the swizzle
 * span (without interleave) and the 16-byte rule.
 */
static bool libcumc_inner_valid(const struct libcumc_tensor_map *m,
				uint64_t inner_bytes)
{
	static const unsigned int span[] = {
		[CU_TENSOR_MAP_SWIZZLE_32B] = 32,
		[CU_TENSOR_MAP_SWIZZLE_64B] = 64,
		[CU_TENSOR_MAP_SWIZZLE_128B] = 128,
		[CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B] = 128,
		[CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B] = 128,
		[CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B] = 128,
	};

	if (m->interleave != CU_TENSOR_MAP_INTERLEAVE_NONE)
		return true;
	if (m->swizzle != CU_TENSOR_MAP_SWIZZLE_NONE &&
	    inner_bytes > span[m->swizzle])
		return false;
	return true;
}

/* What every encoding requires of the common parameters. */
static CUresult libcumc_tensor_map_valid(CUtensorMap *map,
					 const struct libcumc_tensor_map *m,
					 cuuint32_t min_rank)
{
	uintptr_t align = libcumc_address_alignment(m->interleave, m->type);
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);
	cuuint32_t i;

	if (res != CUDA_SUCCESS)
		return res;
	if (!map || (uintptr_t)map % 64 || !libcumc_element_bits(m->type) ||
	    m->rank < min_rank || m->rank > 5 ||
	    (unsigned int)m->interleave > CU_TENSOR_MAP_INTERLEAVE_32B ||
	    (unsigned int)m->swizzle > CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B ||
	    (unsigned int)m->l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B ||
	    (unsigned int)m->oob > CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA ||
	    (m->interleave != CU_TENSOR_MAP_INTERLEAVE_NONE && m->rank < 3) ||
	    !m->address || (uintptr_t)m->address % align ||
	    !m->dims || (m->rank > 1 && !m->strides) || !m->element_strides)
		return CUDA_ERROR_INVALID_VALUE;
	if ((m->interleave == CU_TENSOR_MAP_INTERLEAVE_32B &&
	     m->swizzle != CU_TENSOR_MAP_SWIZZLE_32B) ||
	    (m->type == CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B &&
	     m->interleave != CU_TENSOR_MAP_INTERLEAVE_NONE) ||
	    !libcumc_swizzle_for_type(m->type, m->swizzle))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < m->rank; i++)
		if (!m->dims[i] || m->dims[i] > (1ULL << 32) ||
		    !m->element_strides[i] || m->element_strides[i] > 8)
			return CUDA_ERROR_INVALID_VALUE;
	if ((libcumc_packed16(m->type) && m->dims[0] % 128) ||
	    (m->type == CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B && m->dims[0] % 2))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i + 1 < m->rank; i++)
		if (m->strides[i] % align || m->strides[i] >= (1ULL << 40))
			return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

/* Writes the map: the common parameters, then the encoding's own. */
static void libcumc_tensor_map_write(CUtensorMap *map,
				     enum libcumc_tensor_map_kind kind,
				     const struct libcumc_tensor_map *m,
				     uint64_t box, uint64_t extra)
{
	cuuint64_t *w = map->opaque;
	cuuint32_t i;

	memset(map, 0, sizeof(*map));
	w[CUMC_TM_MAGIC] = CUMC_TENSOR_MAP_MAGIC;
	w[CUMC_TM_ADDRESS] = (uintptr_t)m->address;
	w[CUMC_TM_PARAMS] = (uint64_t)kind | (uint64_t)m->type << 8 |
			    (uint64_t)m->rank << 16 |
			    (uint64_t)m->interleave << 24 |
			    (uint64_t)m->swizzle << 32 | (uint64_t)m->l2 << 40 |
			    (uint64_t)m->oob << 48;
	for (i = 0; i < m->rank; i++) {
		w[CUMC_TM_DIMS + i] = m->dims[i];
		w[CUMC_TM_ELEMENT_STRIDES] |=
			(uint64_t)m->element_strides[i] << (4 * i);
		if (i + 1 < m->rank)
			w[CUMC_TM_STRIDES + i] = m->strides[i];
	}
	w[CUMC_TM_BOX] = box;
	w[CUMC_TM_ELEMENT_STRIDES + 1] = extra;
}

CUresult CUDAAPI cuTensorMapEncodeTiled(CUtensorMap *tensorMap,
		CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
		void *globalAddress, const cuuint64_t *globalDim,
		const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
		const cuuint32_t *elementStrides,
		CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
		CUtensorMapL2promotion l2Promotion,
		CUtensorMapFloatOOBfill oobFill)
{
	const struct libcumc_tensor_map m = {
		.type = tensorDataType, .rank = tensorRank,
		.address = globalAddress, .dims = globalDim,
		.strides = globalStrides, .element_strides = elementStrides,
		.interleave = interleave, .swizzle = swizzle,
		.l2 = l2Promotion, .oob = oobFill,
	};
	CUresult res = libcumc_tensor_map_valid(tensorMap, &m, 1);
	uint64_t box = 0, inner_bytes;
	cuuint32_t i;

	if (res != CUDA_SUCCESS)
		return res;
	if (!boxDim)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < tensorRank; i++) {
		if (!boxDim[i] || boxDim[i] > 256)
			return CUDA_ERROR_INVALID_VALUE;
		box |= (uint64_t)boxDim[i] << (12 * i);
	}
	inner_bytes = (uint64_t)boxDim[0] * libcumc_element_bits(tensorDataType) / 8;
	if ((interleave == CU_TENSOR_MAP_INTERLEAVE_NONE && inner_bytes % 16) ||
	    (libcumc_packed16(tensorDataType) && boxDim[0] != 128) ||
	    !libcumc_inner_valid(&m, inner_bytes))
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_tensor_map_write(tensorMap, CUMC_TENSOR_MAP_TILED, &m, box, 0);
	return CUDA_SUCCESS;
}

/* channelsPerPixel and pixelsPerColumn, shared by both im2col forms. */
static bool libcumc_im2col_valid(const struct libcumc_tensor_map *m,
				 cuuint32_t channels, cuuint32_t pixels,
				 bool pixels_used)
{
	uint64_t inner_bytes = (uint64_t)channels *
			       libcumc_element_bits(m->type) / 8;

	if (!channels || channels > 256 ||
	    (libcumc_packed16(m->type) && channels != 128))
		return false;
	if (pixels_used && (!pixels || pixels > 1024))
		return false;
	return libcumc_inner_valid(m, inner_bytes);
}

CUresult CUDAAPI cuTensorMapEncodeIm2col(CUtensorMap *tensorMap,
		CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
		void *globalAddress, const cuuint64_t *globalDim,
		const cuuint64_t *globalStrides,
		const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
		cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
		const cuuint32_t *elementStrides,
		CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
		CUtensorMapL2promotion l2Promotion,
		CUtensorMapFloatOOBfill oobFill)
{
	/* The corners' range by rank: one, two or three spatial offsets. */
	static const int corner_limit[] = { [3] = 32768, [4] = 128, [5] = 16 };
	const struct libcumc_tensor_map m = {
		.type = tensorDataType, .rank = tensorRank,
		.address = globalAddress, .dims = globalDim,
		.strides = globalStrides, .element_strides = elementStrides,
		.interleave = interleave, .swizzle = swizzle,
		.l2 = l2Promotion, .oob = oobFill,
	};
	CUresult res = libcumc_tensor_map_valid(tensorMap, &m, 3);
	uint64_t corners = 0;
	cuuint32_t i;
	int limit;

	if (res != CUDA_SUCCESS)
		return res;
	if (!pixelBoxLowerCorner || !pixelBoxUpperCorner ||
	    !libcumc_im2col_valid(&m, channelsPerPixel, pixelsPerColumn, true))
		return CUDA_ERROR_INVALID_VALUE;
	limit = corner_limit[tensorRank];
	for (i = 0; i < tensorRank - 2; i++) {
		if (pixelBoxLowerCorner[i] < -limit ||
		    pixelBoxLowerCorner[i] >= limit ||
		    pixelBoxUpperCorner[i] < -limit ||
		    pixelBoxUpperCorner[i] >= limit)
			return CUDA_ERROR_INVALID_VALUE;
		corners |= (uint64_t)(pixelBoxLowerCorner[i] & 0xffff) << (16 * i);
	}
	libcumc_tensor_map_write(tensorMap, CUMC_TENSOR_MAP_IM2COL, &m,
				 (uint64_t)channelsPerPixel |
				 (uint64_t)pixelsPerColumn << 12, corners);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuTensorMapEncodeIm2colWide(CUtensorMap *tensorMap,
		CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
		void *globalAddress, const cuuint64_t *globalDim,
		const cuuint64_t *globalStrides, int pixelBoxLowerCornerWidth,
		int pixelBoxUpperCornerWidth, cuuint32_t channelsPerPixel,
		cuuint32_t pixelsPerColumn, const cuuint32_t *elementStrides,
		CUtensorMapInterleave interleave, CUtensorMapIm2ColWideMode mode,
		CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
		CUtensorMapFloatOOBfill oobFill)
{
	const struct libcumc_tensor_map m = {
		.type = tensorDataType, .rank = tensorRank,
		.address = globalAddress, .dims = globalDim,
		.strides = globalStrides, .element_strides = elementStrides,
		.interleave = interleave, .swizzle = swizzle,
		.l2 = l2Promotion, .oob = oobFill,
	};
	CUresult res = libcumc_tensor_map_valid(tensorMap, &m, 3);

	if (res != CUDA_SUCCESS)
		return res;
	if ((unsigned int)mode > CU_TENSOR_MAP_IM2COL_WIDE_MODE_W128 ||
	    pixelBoxLowerCornerWidth < -32768 ||
	    pixelBoxLowerCornerWidth > 32767 ||
	    pixelBoxUpperCornerWidth < -32768 ||
	    pixelBoxUpperCornerWidth > 32767 ||
	    !libcumc_im2col_valid(&m, channelsPerPixel, pixelsPerColumn,
				  mode == CU_TENSOR_MAP_IM2COL_WIDE_MODE_W))
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_tensor_map_write(tensorMap, CUMC_TENSOR_MAP_IM2COL_WIDE, &m,
				 (uint64_t)channelsPerPixel |
				 (uint64_t)pixelsPerColumn << 12 |
				 (uint64_t)mode << 24,
				 (uint64_t)(pixelBoxLowerCornerWidth & 0xffff) |
				 (uint64_t)(pixelBoxUpperCornerWidth & 0xffff) << 16);
	return CUDA_SUCCESS;
}

/* A map cumc encoded, the new address aligned as its encoding asked. */
CUresult CUDAAPI cuTensorMapReplaceAddress(CUtensorMap *tensorMap,
					   void *globalAddress)
{
	CUtensorMapInterleave interleave;
	CUtensorMapDataType type;
	CUdevice dev;
	CUresult res = libcumc_current_device(&dev);
	uint64_t params;

	if (res != CUDA_SUCCESS)
		return res;
	if (!tensorMap || (uintptr_t)tensorMap % 64 ||
	    tensorMap->opaque[CUMC_TM_MAGIC] != CUMC_TENSOR_MAP_MAGIC ||
	    !globalAddress)
		return CUDA_ERROR_INVALID_VALUE;
	params = tensorMap->opaque[CUMC_TM_PARAMS];
	type = (CUtensorMapDataType)((params >> 8) & 0xff);
	interleave = (CUtensorMapInterleave)((params >> 24) & 0xff);
	if ((uintptr_t)globalAddress % libcumc_address_alignment(interleave, type))
		return CUDA_ERROR_INVALID_VALUE;
	tensorMap->opaque[CUMC_TM_ADDRESS] = (uintptr_t)globalAddress;
	return CUDA_SUCCESS;
}
