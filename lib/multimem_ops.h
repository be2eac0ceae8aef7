/* SPDX-License-Identifier: MIT */
/*
 * The element loops of the multimem data path.
 */
#ifndef _CUMC_LIB_MULTIMEM_OPS_H
#define _CUMC_LIB_MULTIMEM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <cumc.h>

/**
 * struct cumc_reducer - the loops reducing members with one operator
 * @load: acc[i] = a[i]
 * @first: acc[i] = a[i] op b[i]
 * @fold1: acc[i] = acc[i] op a[i]
 * @fold2: acc[i] = (acc[i] op a[i]) op b[i]
 * @first_out: (16-bit floats) out[i] = round(a[i] op b[i])
 * @fold1_out: (16-bit floats) out[i] = round(acc[i] op a[i])
 * @fold2_out: (16-bit floats) out[i] = round((acc[i] op a[i]) op b[i])
 *
 * Accumulators are of the element type, or f32 for f16 and bf16, whose
 * last pass rounds into the destination with one of the _out loops.
 */
struct cumc_reducer {
	void (*load)(void *restrict acc, const void *restrict a, size_t n);
	void (*first)(void *restrict acc, const void *restrict a,
		      const void *restrict b, size_t n);
	void (*fold1)(void *restrict acc, const void *restrict a, size_t n);
	void (*fold2)(void *restrict acc, const void *restrict a,
		      const void *restrict b, size_t n);
	void (*first_out)(void *restrict out, const void *restrict a,
			  const void *restrict b, size_t n);
	void (*fold1_out)(void *restrict out, const float *restrict acc,
			  const void *restrict a, size_t n);
	void (*fold2_out)(void *restrict out, const float *restrict acc,
			  const void *restrict a, const void *restrict b,
			  size_t n);
};

/* The loops for @op over @type; NULL for a pair the data path does not offer. */
const struct cumc_reducer *cumc_reducer_lookup(cumcDataType type,
					       cumcReduceOp op);

/* Bytes of one element of @type (a valid type). */
size_t cumc_type_size(cumcDataType type);


/* One bf16 value to and from f32, rounding to nearest even. */
float cumc_bf16_to_f32(uint16_t h);
uint16_t cumc_bf16_from_f32(float f);

#endif /* _CUMC_LIB_MULTIMEM_OPS_H */
