/* SPDX-License-Identifier: MIT */
/*
 * MD2 (RFC 1319) and HMAC (RFC 2104) over it, a 16-byte block and digest:
 * the hash of the CUDA runtime's integrity check (runtime_tables.c,
 * Documentation/runtime.md).
 */
#ifndef _CUMC_LIB_MD2_H
#define _CUMC_LIB_MD2_H

#include <stddef.h>

#define LIBCUMC_MD2_SIZE 16

struct libcumc_md2 {
	/* The 48-byte buffer: state, block, their exclusive or. */
	unsigned char x[3 * LIBCUMC_MD2_SIZE];
	unsigned char checksum[LIBCUMC_MD2_SIZE];
	/* The checksum's last byte, carried from block to block. */
	unsigned char last;
	/* Bytes of the block taken so far. */
	unsigned int count;
};

void libcumc_md2_init(struct libcumc_md2 *md);
void libcumc_md2_update(struct libcumc_md2 *md, const void *data, size_t len);
void libcumc_md2_final(struct libcumc_md2 *md,
		       unsigned char digest[LIBCUMC_MD2_SIZE]);

/*
 * HMAC-MD2 of a message given in parts: init with the key (at most one
 * block), update with the message, final for the digest.
 */
struct libcumc_hmac_md2 {
	struct libcumc_md2 inner;
	unsigned char key[LIBCUMC_MD2_SIZE];
};

void libcumc_hmac_md2_init(struct libcumc_hmac_md2 *h,
			   const unsigned char key[LIBCUMC_MD2_SIZE]);
void libcumc_hmac_md2_update(struct libcumc_hmac_md2 *h, const void *data,
			     size_t len);
void libcumc_hmac_md2_final(struct libcumc_hmac_md2 *h,
			    unsigned char digest[LIBCUMC_MD2_SIZE]);

#endif /* _CUMC_LIB_MD2_H */
