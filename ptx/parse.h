/* SPDX-License-Identifier: MIT */
#ifndef _CUMC_PTX_PARSE_H
#define _CUMC_PTX_PARSE_H

#include "ir.h"

/*
 * Parses PTX @text of @len bytes into a new module, or fails with a
 * message in @log naming the line and, for PTX that is valid but not
 * executed by cumc, the instruction or directive.  A @link_input may call
 * functions and use .extern variables it does not define (another input
 * of the link may): it is checked, not run.
 */
enum cumc_ptx_status ptx_parse(const char *text, size_t len, bool link_input,
			       struct cumc_ptx_module **module,
			       char *log, size_t log_size);
void ptx_module_free(struct cumc_ptx_module *module);

#endif
