// SPDX-License-Identifier: MIT
/*
 * MD2 as RFC 1319 defines it (with its published erratum: the checksum
 * takes S[block ^ last], not S[block]), and HMAC over it with MD2's
 * 16-byte block. Nothing in libcumc hashes for security; the CUDA
 * runtime's integrity check happens to be HMAC-MD2 (runtime_tables.c).
 */
#include <string.h>

#include "md2.h"

/* RFC 1319's permutation of 0..255, built from the digits of pi. */
static const unsigned char libcumc_md2_s[256] = {
	 41,  46,  67, 201, 162, 216, 124,   1,  61,  54,  84, 161,
	236, 240,   6,  19,  98, 167,   5, 243, 192, 199, 115, 140,
	152, 147,  43, 217, 188,  76, 130, 202,  30, 155,  87,  60,
	253, 212, 224,  22, 103,  66, 111,  24, 138,  23, 229,  18,
	190,  78, 196, 214, 218, 158, 222,  73, 160, 251, 245, 142,
	187,  47, 238, 122, 169, 104, 121, 145,  21, 178,   7,  63,
	148, 194,  16, 137,  11,  34,  95,  33, 128, 127,  93, 154,
	 90, 144,  50,  39,  53,  62, 204, 231, 191, 247, 151,   3,
	255,  25,  48, 179,  72, 165, 181, 209, 215,  94, 146,  42,
	172,  86, 170, 198,  79, 184,  56, 210, 150, 164, 125, 182,
	118, 252, 107, 226, 156, 116,   4, 241,  69, 157, 112,  89,
	100, 113, 135,  32, 134,  91, 207, 101, 230,  45, 168,   2,
	 27,  96,  37, 173, 174, 176, 185, 246,  28,  70,  97, 105,
	 52,  64, 126,  15,  85,  71, 163,  35, 221,  81, 175,  58,
	195,  92, 249, 206, 186, 197, 234,  38,  44,  83,  13, 110,
	133,  40, 132,   9, 211, 223, 205, 244,  65, 129,  77,  82,
	106, 220,  55, 200, 108, 193, 171, 250,  36, 225, 123,   8,
	 12, 189, 177,  74, 120, 136, 149, 139, 227,  99, 232, 109,
	233, 203, 213, 254,  59,   0,  29,  57, 242, 239, 183,  14,
	102,  88, 208, 228, 166, 119, 114, 248, 235, 117,  75,  10,
	 49,  68,  80, 180, 143, 237,  31,  26, 219, 153, 141,  51,
	159,  17, 131,  20,
};

void libcumc_md2_init(struct libcumc_md2 *md)
{
	memset(md, 0, sizeof(*md));
}

/* The block in x[16..32) is whole: mix it into the state. */
static void libcumc_md2_block(struct libcumc_md2 *md)
{
	unsigned int round, i;
	unsigned char t = 0;

	for (i = 0; i < LIBCUMC_MD2_SIZE; i++)
		md->x[2 * LIBCUMC_MD2_SIZE + i] =
			md->x[LIBCUMC_MD2_SIZE + i] ^ md->x[i];
	for (round = 0; round < 18; round++) {
		for (i = 0; i < sizeof(md->x); i++)
			t = md->x[i] ^= libcumc_md2_s[t];
		t += round;
	}
}

static void libcumc_md2_byte(struct libcumc_md2 *md, unsigned char c)
{
	unsigned int i = md->count;

	md->x[LIBCUMC_MD2_SIZE + i] = c;
	md->last = md->checksum[i] ^= libcumc_md2_s[c ^ md->last];
	md->count = (i + 1) % LIBCUMC_MD2_SIZE;
	if (!md->count)
		libcumc_md2_block(md);
}

void libcumc_md2_update(struct libcumc_md2 *md, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len--)
		libcumc_md2_byte(md, *p++);
}

void libcumc_md2_final(struct libcumc_md2 *md,
		       unsigned char digest[LIBCUMC_MD2_SIZE])
{
	unsigned char pad = LIBCUMC_MD2_SIZE - md->count;
	unsigned char checksum[LIBCUMC_MD2_SIZE];
	unsigned int i;

	for (i = 0; i < pad; i++)
		libcumc_md2_byte(md, pad);
	memcpy(checksum, md->checksum, sizeof(checksum));
	libcumc_md2_update(md, checksum, sizeof(checksum));
	memcpy(digest, md->x, LIBCUMC_MD2_SIZE);
}

static void libcumc_hmac_md2_pad(struct libcumc_md2 *md,
				 const unsigned char key[LIBCUMC_MD2_SIZE],
				 unsigned char with)
{
	unsigned int i;

	libcumc_md2_init(md);
	for (i = 0; i < LIBCUMC_MD2_SIZE; i++)
		libcumc_md2_byte(md, key[i] ^ with);
}

void libcumc_hmac_md2_init(struct libcumc_hmac_md2 *h,
			   const unsigned char key[LIBCUMC_MD2_SIZE])
{
	memcpy(h->key, key, sizeof(h->key));
	libcumc_hmac_md2_pad(&h->inner, key, 0x36);
}

void libcumc_hmac_md2_update(struct libcumc_hmac_md2 *h, const void *data,
			     size_t len)
{
	libcumc_md2_update(&h->inner, data, len);
}

void libcumc_hmac_md2_final(struct libcumc_hmac_md2 *h,
			    unsigned char digest[LIBCUMC_MD2_SIZE])
{
	unsigned char inner[LIBCUMC_MD2_SIZE];
	struct libcumc_md2 outer;

	libcumc_md2_final(&h->inner, inner);
	libcumc_hmac_md2_pad(&outer, h->key, 0x5c);
	libcumc_md2_update(&outer, inner, sizeof(inner));
	libcumc_md2_final(&outer, digest);
}
