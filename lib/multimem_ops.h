/* SPDX-License-Identifier: MIT */
/*
 * The element loops of the multimem data path.
 */
#ifndef _CUMC_LIB_MULTIMEM_OPS_H
#define _CUMC_LIB_MULTIMEM_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cumc.h>

/* Members folded into the accumulators by one pass, at most. */
#define CUMC_PASS_MEMBERS 4

typedef void (*libcumc_pass_fn)(void *restrict acc, char *const *views,
				size_t off, size_t n);
typedef void (*libcumc_pass_out_fn)(void *restrict out,
				    const float *restrict acc,
				    char *const *views, size_t off, size_t n);

/**
 * struct libcumc_reducer - the loops reducing members with one operator
 * @first: @first[k]: acc[i] = v0[i] op ... op v(k-1)[i]
 * @fold: @fold[k]: acc[i] = acc[i] op v0[i] op ... op v(k-1)[i]
 * @first_out: (16-bit floats) @first_out[k]: out[i] = round(v0[i] op ...
 *	op v(k-1)[i]), k = 2 or 3
 * @fold_out: (16-bit floats) @fold_out[k]: out[i] = round(acc[i] op v0[i]
 *	... op v(k-1)[i]), k = 1 or 2
 *
 * vj[i] is element i at the pass's offset into views[j]. Accumulators are
 * of the element type, or f32 for f16 and bf16, whose last pass rounds
 * into the destination with one of the _out loops.
 */
struct libcumc_reducer {
	libcumc_pass_fn first[CUMC_PASS_MEMBERS + 1];
	libcumc_pass_fn fold[CUMC_PASS_MEMBERS + 1];
	libcumc_pass_out_fn first_out[4];
	libcumc_pass_out_fn fold_out[3];
};

/* The loops for @op over @type; NULL for a pair the data path does not offer. */
const struct libcumc_reducer *libcumc_reducer_lookup(cumcDataType type,
						     cumcReduceOp op);

typedef void *(*libcumc_copy_fn)(void *restrict dst, const void *restrict src,
				 size_t n);

/*
 * How multimem.st copies into each member when it stores @members_bytes in
 * all: memcpy; streaming stores past this core's L2 cache; under an
 * emulator the data path's own loop (multimem_ops.c says why).
 */
libcumc_copy_fn libcumc_copy_for_st(size_t members_bytes);

/* A copy with stores that bypass the cache (memcpy where there are none). */
void *libcumc_copy_streaming(void *restrict dst, const void *restrict src,
			     size_t n);

/* Bytes of one element of @type (a valid type). */
size_t libcumc_type_size(cumcDataType type);

/* One bf16 value to f32: its top half. Inline, so that loops vectorise. */
static inline float libcumc_bf16_widen(uint16_t h)
{
	uint32_t bits = (uint32_t)h << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

/* Round to nearest even; a NaN stays a (quiet) NaN. Branch-free, to vectorise. */
static inline uint16_t libcumc_f32_to_bf16(float f)
{
	uint32_t bits, rounded, quiet;

	memcpy(&bits, &f, sizeof(bits));
	rounded = (bits + 0x7fff + ((bits >> 16) & 1)) >> 16;
	quiet = (bits >> 16) | 0x40;
	return (uint16_t)((bits & 0x7fffffff) > 0x7f800000 ? quiet : rounded);
}

#endif /* _CUMC_LIB_MULTIMEM_OPS_H */
