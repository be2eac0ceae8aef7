// SPDX-License-Identifier: MIT
/* The module half of cumc_ptx.h: load, find functions and globals. */
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "jit.h"
#include "parse.h"

enum cumc_ptx_status cumc_ptx_load(const void *image, size_t len,
				   unsigned int max_arch,
				   struct cumc_ptx_module **module,
				   char *log, size_t log_size)
{
	enum cumc_ptx_status st;
	char *text;
	size_t text_len;
	unsigned int i;

	st = ptx_image_text(image, len, max_arch, &text, &text_len, log,
			    log_size);
	if (st != CUMC_PTX_OK)
		return st;
	st = ptx_parse(text, text_len, false, module, log, log_size);
	if (st == CUMC_PTX_OK) {
		for (i = 0; i < (*module)->nfuncs; i++)
			(*module)->funcs[i].module = *module;
		ptx_jit_module(*module, text, text_len);
	}
	free(text);
	return st;
}

void cumc_ptx_unload(struct cumc_ptx_module *module)
{
	ptx_module_free(module);
}

unsigned int cumc_ptx_version(const struct cumc_ptx_module *module)
{
	return module->version;
}

/* Kernels only: device functions (.func) are not launched by name. */
unsigned int cumc_ptx_function_count(const struct cumc_ptx_module *module)
{
	unsigned int i, n = 0;

	for (i = 0; i < module->nfuncs; i++)
		n += module->funcs[i].entry;
	return n;
}

const struct cumc_ptx_function *
cumc_ptx_function_at(const struct cumc_ptx_module *module, unsigned int i)
{
	unsigned int k;

	for (k = 0; k < module->nfuncs; k++)
		if (module->funcs[k].entry && !i--)
			return &module->funcs[k];
	return NULL;
}

const struct cumc_ptx_function *
cumc_ptx_function_find(const struct cumc_ptx_module *module, const char *name)
{
	unsigned int i;

	for (i = 0; i < module->nfuncs; i++)
		if (module->funcs[i].entry &&
		    !strcmp(module->funcs[i].name, name))
			return &module->funcs[i];
	return NULL;
}

bool cumc_ptx_compiled(const struct cumc_ptx_function *func)
{
	return func->jit;
}

const char *cumc_ptx_function_name(const struct cumc_ptx_function *func)
{
	return func->name;
}

unsigned int cumc_ptx_param_count(const struct cumc_ptx_function *func)
{
	return func->nparams;
}

void cumc_ptx_param_layout(const struct cumc_ptx_function *func,
			   unsigned int i, size_t *offset, size_t *size)
{
	*offset = func->params[i].offset;
	*size = func->params[i].size;
}

size_t cumc_ptx_param_size(const struct cumc_ptx_function *func)
{
	return func->param_size;
}

size_t cumc_ptx_static_shared(const struct cumc_ptx_function *func)
{
	return func->shared_size;
}

size_t cumc_ptx_const_size(const struct cumc_ptx_function *func)
{
	const struct cumc_ptx_module *m = func->module;
	size_t size = 0;
	unsigned int i;

	for (i = 0; i < m->nglobals; i++)
		if (m->globals[i].space == PS_CONST)
			size += m->globals[i].size;
	return size;
}

size_t cumc_ptx_local_size(const struct cumc_ptx_function *func)
{
	return func->local_size;
}

unsigned int cumc_ptx_num_regs(const struct cumc_ptx_function *func)
{
	return func->nregs;
}

enum cumc_ptx_status cumc_ptx_global_find(const struct cumc_ptx_module *module,
					  const char *name, void **addr,
					  size_t *size)
{
	unsigned int i;

	for (i = 0; i < module->nglobals; i++)
		if (!strcmp(module->globals[i].name, name)) {
			*addr = module->globals[i].data;
			*size = module->globals[i].size;
			return CUMC_PTX_OK;
		}
	return CUMC_PTX_ENOTFOUND;
}

void cumc_ptx_globals_each(const struct cumc_ptx_module *module,
			   void (*fn)(void *arg, void *addr, size_t size),
			   void *arg)
{
	unsigned int i;

	for (i = 0; i < module->nglobals; i++)
		fn(arg, module->globals[i].data, module->globals[i].size);
}

const char *cumc_ptx_strerror(enum cumc_ptx_status status)
{
	static const char *const msgs[] = {
		[CUMC_PTX_OK] = "success",
		[CUMC_PTX_ENOMEM] = "out of memory",
		[CUMC_PTX_EIMAGE] = "not a PTX, fatbin or cubin image",
		[CUMC_PTX_ENOPTX] = "no PTX cumc can run in the image",
		[CUMC_PTX_ESYNTAX] = "PTX syntax error",
		[CUMC_PTX_EUNSUPPORTED] = "PTX that cumc does not execute yet",
		[CUMC_PTX_ENOTFOUND] = "no such function or global",
		[CUMC_PTX_ELAUNCH] = "bad grid or block dimensions",
		[CUMC_PTX_ESHARED] = "too much shared memory",
		[CUMC_PTX_EFAULT] = "illegal address",
		[CUMC_PTX_ETRAP] = "the kernel trapped",
		[CUMC_PTX_EUNDEFINED] = "a function or variable defined nowhere",
		[CUMC_PTX_EASSERT] = "a device-side assert failed",
	};

	return (unsigned int)status < sizeof(msgs) / sizeof(msgs[0]) ?
	       msgs[status] : "unknown error";
}
