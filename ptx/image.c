// SPDX-License-Identifier: MIT
/*
 * Images as nvcc and the driver API hand them over.
 *
 * A fatbin (as nvcc -fatbin writes it, and as host objects embed it) is a
 * 16-byte header (magic 0xba55ed50, version, header size, size of the
 * entries) followed by entries, each a header of its own and a payload:
 * kind (1: PTX, 2: ELF), header size, payload size, the architecture
 * (90 for sm_90/compute_90), flags, and the uncompressed size.  Payloads
 * whose flags have bit 0x8000 are zstd frames (nvcc 13 compresses by
 * default); libzstd.so.1 decompresses them, loaded when one is met, so
 * that cumc needs no zstd at build time.  Those offsets were read from
 * fatbins nvcc 13.0 wrote, for which ptx/tests/data has examples.
 *
 * A host object's wrapper is { magic 0x466243b1, version, fatbin
 * pointer, ... }: what cudart registers and cuModuleLoadFatBinary gets.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"

#define FATBIN_MAGIC	0xba55ed50u
#define WRAPPER_MAGIC	0x466243b1u
#define ELF_MAGIC	0x464c457fu

#define ENTRY_PTX	1
#define ENTRY_ZSTD	0x8000u

struct fatbin_header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;
	uint64_t size;
};

struct fatbin_entry {
	uint16_t kind;
	uint16_t version;
	uint32_t header_size;
	uint64_t size;
	uint32_t compressed_size;
	uint32_t unknown0;
	uint32_t ptx_version;
	uint32_t arch;
	uint64_t unknown1;
	uint64_t flags;
	uint64_t unknown2;
	uint64_t uncompressed_size;
};

struct wrapper {
	uint32_t magic;
	uint32_t version;
	const void *fatbin;
	const void *unused;
};

static enum cumc_ptx_status fail(char *log, size_t log_size,
				 enum cumc_ptx_status st, const char *msg)
{
	if (log_size)
		snprintf(log, log_size, "%s", msg);
	return st;
}

static enum cumc_ptx_status copy_text(const char *src, size_t len,
				      char **text, size_t *text_len)
{
	*text = malloc(len + 1);
	if (!*text)
		return CUMC_PTX_ENOMEM;
	memcpy(*text, src, len);
	(*text)[len] = '\0';
	*text_len = strnlen(*text, len);
	return CUMC_PTX_OK;
}

static enum cumc_ptx_status unzstd(const unsigned char *src, size_t len,
				   size_t out_len, char **text,
				   size_t *text_len, char *log,
				   size_t log_size)
{
	size_t (*decompress)(void *, size_t, const void *, size_t);
	unsigned (*is_error)(size_t);
	void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	size_t n;

	if (!lib)
		return fail(log, log_size, CUMC_PTX_ENOPTX,
			    "a compressed fatbin entry needs libzstd.so.1 (or build with -Xfatbin -compress=false)");
	*(void **)&decompress = dlsym(lib, "ZSTD_decompress");
	*(void **)&is_error = dlsym(lib, "ZSTD_isError");
	*text = malloc(out_len + 1);
	if (!decompress || !is_error || !*text) {
		free(*text);
		dlclose(lib);
		return CUMC_PTX_ENOMEM;
	}
	n = decompress(*text, out_len, src, len);
	if (is_error(n)) {
		free(*text);
		dlclose(lib);
		return fail(log, log_size, CUMC_PTX_EIMAGE,
			    "a compressed fatbin entry does not decompress");
	}
	dlclose(lib);
	(*text)[n] = '\0';
	*text_len = strnlen(*text, n);
	return CUMC_PTX_OK;
}

/* The best PTX entry: the highest arch at or below @max_arch. */
static const struct fatbin_entry *pick(const unsigned char *p, size_t size,
				       unsigned int max_arch, bool *any)
{
	const struct fatbin_entry *best = NULL;
	size_t off = 0;

	*any = false;
	while (off + sizeof(struct fatbin_entry) <= size) {
		const struct fatbin_entry *e = (const void *)(p + off);

		if (e->header_size < sizeof(*e) ||
		    e->size > size - off - e->header_size)
			break;
		*any = true;
		if (e->kind == ENTRY_PTX && e->arch <= max_arch &&
		    (!best || e->arch > best->arch))
			best = e;
		off += e->header_size + e->size;
	}
	return best;
}

static enum cumc_ptx_status fatbin_text(const unsigned char *p, size_t len,
					unsigned int max_arch, char **text,
					size_t *text_len, char *log,
					size_t log_size)
{
	struct fatbin_header h;
	const struct fatbin_entry *e;
	const unsigned char *payload;
	bool any;

	memcpy(&h, p, sizeof(h));
	if (len && (h.header_size > len || h.size > len - h.header_size))
		return fail(log, log_size, CUMC_PTX_EIMAGE, "truncated fatbin");
	e = pick(p + h.header_size, h.size, max_arch, &any);
	/* Device code, if none cumc can run: what the driver says of SASS. */
	if (!e)
		return fail(log, log_size, CUMC_PTX_ENOPTX,
			    any ? "no PTX for compute_90 or lower in the fatbin: build with PTX (-gencode arch=compute_90,code=compute_90)" :
				  "a fatbin without entries");
	payload = (const unsigned char *)e + e->header_size;
	if (e->flags & ENTRY_ZSTD)
		return unzstd(payload, e->compressed_size, e->uncompressed_size,
			      text, text_len, log, log_size);
	return copy_text((const char *)payload, e->size, text, text_len);
}

enum cumc_ptx_status ptx_image_text(const void *image, size_t len,
				    unsigned int max_arch, char **text,
				    size_t *text_len, char *log,
				    size_t log_size)
{
	const struct wrapper *w = image;
	uint32_t magic = 0;

	if (log_size)
		log[0] = '\0';
	if (!len || len >= sizeof(magic))
		memcpy(&magic, image, sizeof(magic));
	if (magic == WRAPPER_MAGIC)
		return ptx_image_text(w->fatbin, 0, max_arch, text, text_len,
				      log, log_size);
	if (magic == FATBIN_MAGIC)
		return fatbin_text(image, len, max_arch, text, text_len, log,
				   log_size);
	if (magic == ELF_MAGIC)
		return fail(log, log_size, CUMC_PTX_ENOPTX,
			    "a cubin (SASS) has no PTX: build with PTX (-gencode arch=compute_90,code=compute_90)");
	if (!len)
		len = strlen(image);
	if (!memmem(image, len, ".version", 8))
		return fail(log, log_size, CUMC_PTX_EIMAGE,
			    "not PTX, a fatbin nor a cubin");
	return copy_text(image, len, text, text_len);
}
