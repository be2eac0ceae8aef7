/* SPDX-License-Identifier: MIT */
/* A map from names to numbers, for the parser's registers and symbols. */
#ifndef _CUMC_PTX_STRMAP_H
#define _CUMC_PTX_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	char *key;
	uint32_t value;
	uint32_t len;		/* the key's, compared before its bytes */
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap;		/* a power of two */
	size_t count;
};

/* 0, or -1 when out of memory; a name already there keeps its value. */
int ptx_strmap_put(struct strmap *map, const char *key, size_t len,
		   uint32_t value);
/* Like ptx_strmap_put, but a name already there takes @value. */
int ptx_strmap_set(struct strmap *map, const char *key, size_t len,
		   uint32_t value);
/* Whether @key is there; its value in *@value. */
int ptx_strmap_get(const struct strmap *map, const char *key, size_t len,
		   uint32_t *value);
void ptx_strmap_clear(struct strmap *map);

#endif
