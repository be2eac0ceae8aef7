/* SPDX-License-Identifier: MIT */
#ifndef _CUMC_PTX_IMAGE_H
#define _CUMC_PTX_IMAGE_H

#include "cumc_ptx.h"

/*
 * The PTX text of an image: PTX itself, or the PTX entry of a fatbin (or
 * of the fatbin a host object's wrapper points to) for the highest
 * architecture at or below @max_arch.  *@text is malloc'ed, NUL-terminated.
 */
enum cumc_ptx_status ptx_image_text(const void *image, size_t len,
				    unsigned int max_arch, char **text,
				    size_t *text_len, char *log,
				    size_t log_size);

/* A fatbin's size, header included; 0 if @fatbin is none. */
size_t ptx_fatbin_size(const void *fatbin);

/*
 * The PTX entry of the fatbin at @fatbin (@len bytes, or 0: as its header
 * says) for the highest architecture at or below @max_arch, decompressed.
 */
enum cumc_ptx_status ptx_fatbin_ptx(const void *fatbin, size_t len,
				    unsigned int max_arch, char **text,
				    size_t *text_len, char *log,
				    size_t log_size);

/*
 * For a fatbin with machine code only, at @fatbin in a program or shared
 * library this process has loaded: the PTX of that object's relocatable
 * device code (relocatable.c), linked.  CUMC_PTX_ENOPTX when it has none.
 */
enum cumc_ptx_status ptx_relocatable_text(const void *fatbin,
					  unsigned int max_arch, char **text,
					  size_t *text_len);

/*
 * link.c: @count inputs' PTX joined into one text (*@image, malloc'ed),
 * unchecked: the parse of a load or of cumc_ptx_link() checks it.
 */
enum cumc_ptx_status ptx_link_join(char *const *texts, const size_t *lens,
				   unsigned int count, char **image,
				   size_t *len);

#endif
