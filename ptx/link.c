// SPDX-License-Identifier: MIT
/*
 * The JIT linker's half of cumc_ptx.h.  cumc runs PTX, so linking is
 * joining texts: the inputs' PTX one after the other is one PTX text,
 * since a later .version, .target and .address_size only restate the
 * first (the module keeps the highest version), an .extern function is a
 * prototype its definition in another input fills, and an .extern
 * variable a declaration its definition gives storage to.  The parser
 * finds what a linker must refuse: a function, kernel or variable defined
 * twice, and a call or an .extern variable that no input defines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "parse.h"

enum cumc_ptx_status cumc_ptx_link_input(const void *image, size_t len,
					 unsigned int max_arch, char **text,
					 size_t *text_len, char *log,
					 size_t log_size)
{
	struct cumc_ptx_module *module;
	enum cumc_ptx_status st;

	st = ptx_image_text(image, len, max_arch, text, text_len, log,
			    log_size);
	if (st != CUMC_PTX_OK)
		return st;
	st = ptx_parse(*text, *text_len, true, &module, log, log_size);
	if (st != CUMC_PTX_OK) {
		free(*text);
		return st;
	}
	ptx_module_free(module);
	return CUMC_PTX_OK;
}

/* The parser's "line N:" in the joined text, made the input's own. */
static void log_input_line(char *log, size_t log_size, char *const *texts,
			   const size_t *lens, unsigned int count)
{
	unsigned int line, i, lines;
	char *msg;
	int at = 0;

	if (!log_size || sscanf(log, "line %u: %n", &line, &at) != 1 || !at)
		return;
	for (i = 0; i + 1 < count; i++) {
		/* An input's lines, and the one its joining newline ends. */
		lines = 1;
		for (msg = texts[i]; (msg = memchr(msg, '\n', texts[i] + lens[i] -
						   msg)); msg++)
			lines++;
		if (line <= lines)
			break;
		line -= lines;
	}
	msg = strdup(log + at);
	if (msg)
		snprintf(log, log_size, "input %u, line %u: %s", i + 1, line,
			 msg);
	free(msg);
}

enum cumc_ptx_status ptx_link_join(char *const *texts, const size_t *lens,
				   unsigned int count, char **image,
				   size_t *len)
{
	size_t total = 0, at = 0;
	unsigned int i;
	char *out;

	for (i = 0; i < count; i++)
		total += lens[i] + 1;
	out = malloc(total);
	if (!out)
		return CUMC_PTX_ENOMEM;
	for (i = 0; i < count; i++) {
		if (i)
			out[at++] = '\n';
		memcpy(out + at, texts[i], lens[i]);
		at += lens[i];
	}
	out[at] = '\0';
	*image = out;
	*len = at;
	return CUMC_PTX_OK;
}

enum cumc_ptx_status cumc_ptx_link(char *const *texts, const size_t *lens,
				   unsigned int count, char **image,
				   size_t *len, char *log, size_t log_size)
{
	struct cumc_ptx_module *module;
	enum cumc_ptx_status st;
	size_t at;
	char *out;

	st = ptx_link_join(texts, lens, count, &out, &at);
	if (st != CUMC_PTX_OK)
		return st;
	st = ptx_parse(out, at, false, &module, log, log_size);
	if (st != CUMC_PTX_OK) {
		log_input_line(log, log_size, texts, lens, count);
		free(out);
		return st;
	}
	ptx_module_free(module);
	*image = out;
	*len = at;
	return CUMC_PTX_OK;
}
