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

#endif
