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
 * default), those with bit 0x2000 LZ4 blocks of the compressed size (what
 * nvcc 12 wrote); libzstd.so.1 and liblz4.so.1 decompress them, loaded
 * when one is met, so that cumc needs neither at build time.  Those
 * offsets were read from fatbins nvcc 13.0 wrote, for which ptx/tests/data
 * has examples, and from PyPI's nvidia-nccl-cu12 2.21.5 (built by nvcc
 * 12.4) for LZ4.
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
#define ENTRY_LZ4	0x2000u
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

/* A zstd frame's content: its size, or -1. */
static long long zstd_frame(void *lib, char *dst, size_t dst_len,
			    const unsigned char *src, size_t len)
{
	size_t (*decompress)(void *, size_t, const void *, size_t);
	unsigned (*is_error)(size_t);
	size_t n;

	*(void **)&decompress = dlsym(lib, "ZSTD_decompress");
	*(void **)&is_error = dlsym(lib, "ZSTD_isError");
	if (!decompress || !is_error)
		return -1;
	n = decompress(dst, dst_len, src, len);
	return is_error(n) ? -1 : (long long)n;
}

/* An LZ4 block's content: its size, or -1. */
static long long lz4_block(void *lib, char *dst, size_t dst_len,
			   const unsigned char *src, size_t len)
{
	int (*decompress)(const char *, char *, int, int);

	*(void **)&decompress = dlsym(lib, "LZ4_decompress_safe");
	if (!decompress || len > INT32_MAX || dst_len > INT32_MAX)
		return -1;
	return decompress((const char *)src, dst, (int)len, (int)dst_len);
}

/* A compressed entry's PTX, through the library that decompresses it. */
static enum cumc_ptx_status decompressed(const struct fatbin_entry *e,
					 const unsigned char *src,
					 char **text, size_t *text_len,
					 char *log, size_t log_size)
{
	bool lz4 = !(e->flags & ENTRY_ZSTD);
	void *lib = dlopen(lz4 ? "liblz4.so.1" : "libzstd.so.1",
			   RTLD_NOW | RTLD_LOCAL);
	size_t len = e->compressed_size ? e->compressed_size : e->size;
	long long n;

	if (!lib)
		return fail(log, log_size, CUMC_PTX_ENOPTX, lz4 ?
			    "a compressed fatbin entry needs liblz4.so.1 (or build with -Xfatbin -compress=false)" :
			    "a compressed fatbin entry needs libzstd.so.1 (or build with -Xfatbin -compress=false)");
	*text = malloc(e->uncompressed_size + 1);
	if (!*text) {
		dlclose(lib);
		return CUMC_PTX_ENOMEM;
	}
	if (len > e->size)
		n = -1;
	else if (lz4)
		n = lz4_block(lib, *text, e->uncompressed_size, src, len);
	else
		n = zstd_frame(lib, *text, e->uncompressed_size, src, len);
	dlclose(lib);
	if (n < 0) {
		free(*text);
		return fail(log, log_size, CUMC_PTX_EIMAGE,
			    "a compressed fatbin entry does not decompress");
	}
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

size_t ptx_fatbin_size(const void *fatbin)
{
	struct fatbin_header h;

	memcpy(&h, fatbin, sizeof(h));
	return h.magic == FATBIN_MAGIC ? h.header_size + h.size : 0;
}

enum cumc_ptx_status ptx_fatbin_ptx(const void *fatbin, size_t len,
				    unsigned int max_arch, char **text,
				    size_t *text_len, char *log,
				    size_t log_size)
{
	const unsigned char *p = fatbin;
	struct fatbin_header h;
	const struct fatbin_entry *e;
	const unsigned char *payload;
	bool any;

	memcpy(&h, p, sizeof(h));
	if (len && (h.header_size > len || h.size > len - h.header_size))
		return fail(log, log_size, CUMC_PTX_EIMAGE, "truncated fatbin");
	e = pick(p + h.header_size, h.size, max_arch, &any);
	if (!e)
		return fail(log, log_size, CUMC_PTX_ENOPTX,
			    any ? "no PTX for compute_90 or lower in the fatbin: build with PTX (-gencode arch=compute_90,code=compute_90)" :
				  "a fatbin without entries");
	payload = (const unsigned char *)e + e->header_size;
	if (e->flags & (ENTRY_ZSTD | ENTRY_LZ4))
		return decompressed(e, payload, text, text_len, log, log_size);
	return copy_text((const char *)payload, e->size, text, text_len);
}

/*
 * Device code, if none cumc can run: what the driver says of SASS, unless
 * the program or library it lies in has relocatable PTX to link instead.
 */
static enum cumc_ptx_status fatbin_text(const unsigned char *p, size_t len,
					unsigned int max_arch, char **text,
					size_t *text_len, char *log,
					size_t log_size)
{
	enum cumc_ptx_status st = ptx_fatbin_ptx(p, len, max_arch, text,
						 text_len, log, log_size);

	if (st == CUMC_PTX_ENOPTX &&
	    ptx_relocatable_text(p, max_arch, text, text_len) == CUMC_PTX_OK)
		return CUMC_PTX_OK;
	return st;
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
