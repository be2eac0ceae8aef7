// SPDX-License-Identifier: MIT
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

static size_t hash(const char *key, size_t len)
{
	size_t h = 14695981039346656037ull;

	while (len--)
		h = (h ^ (unsigned char)*key++) * 1099511628211ull;
	return h;
}

static struct strmap_slot *find(const struct strmap *map, const char *key,
				size_t len)
{
	size_t i = hash(key, len) & (map->cap - 1);

	for (;; i = (i + 1) & (map->cap - 1)) {
		struct strmap_slot *s = &map->slots[i];

		if (!s->key || (s->len == len && !memcmp(s->key, key, len)))
			return s;
	}
}

static int grow(struct strmap *map)
{
	struct strmap old = *map;
	size_t i;

	map->cap = old.cap ? old.cap * 2 : 64;
	map->slots = calloc(map->cap, sizeof(*map->slots));
	if (!map->slots) {
		*map = old;
		return -1;
	}
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*find(map, old.slots[i].key,
			      old.slots[i].len) = old.slots[i];
	free(old.slots);
	return 0;
}

int ptx_strmap_put(struct strmap *map, const char *key, size_t len,
		   uint32_t value)
{
	struct strmap_slot *s;

	if ((map->count + 1) * 2 > map->cap && grow(map))
		return -1;
	s = find(map, key, len);
	if (s->key)
		return 0;
	s->key = strndup(key, len);
	if (!s->key)
		return -1;
	s->len = len;
	s->value = value;
	map->count++;
	return 0;
}

int ptx_strmap_set(struct strmap *map, const char *key, size_t len,
		   uint32_t value)
{
	struct strmap_slot *s;

	if (ptx_strmap_put(map, key, len, value))
		return -1;
	s = find(map, key, len);
	s->value = value;
	return 0;
}

int ptx_strmap_get(const struct strmap *map, const char *key, size_t len,
		   uint32_t *value)
{
	struct strmap_slot *s;

	if (!map->cap)
		return 0;
	s = find(map, key, len);
	if (!s->key)
		return 0;
	*value = s->value;
	return 1;
}

void ptx_strmap_clear(struct strmap *map)
{
	size_t i;

	for (i = 0; i < map->cap; i++)
		free(map->slots[i].key);
	free(map->slots);
	memset(map, 0, sizeof(*map));
}
