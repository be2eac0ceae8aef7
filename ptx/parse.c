// SPDX-License-Identifier: MIT
/*
 * The PTX parser: module directives, variables, kernels and their
 * instructions, into the IR of ir.h.  Instruction words are decoded by
 * decode.c; this file handles the structure around them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"

int ptx_fail(struct ptx_parser *ps, enum cumc_ptx_status st,
	     const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (ps->err != CUMC_PTX_OK)
		return -1;
	ps->err = st;
	if (!ps->log_size)
		return -1;
	n = snprintf(ps->log, ps->log_size, "line %u: ", ps->lx.tok_line);
	if (n < 0 || (size_t)n >= ps->log_size)
		return -1;
	va_start(ap, fmt);
	vsnprintf(ps->log + n, ps->log_size - n, fmt, ap);
	va_end(ap);
	return -1;
}

int ptx_expect(struct ptx_parser *ps, const char *s)
{
	if (!ptx_lex_is(&ps->lx, s))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "expected '%s', found '%.*s'",
				s, (int)ps->lx.len, ps->lx.text);
	ptx_lex_next(&ps->lx);
	return 0;
}

int ptx_number(struct ptx_parser *ps, uint64_t *value)
{
	char buf[64];
	char *end;

	if (ps->lx.tok != T_NUMBER || ps->lx.len >= sizeof(buf))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "expected a number");
	memcpy(buf, ps->lx.text, ps->lx.len);
	buf[ps->lx.len] = '\0';
	if (buf[0] == '0' && (buf[1] == 'b' || buf[1] == 'B'))
		*value = strtoull(buf + 2, &end, 2);
	else
		*value = strtoull(buf, &end, 0);
	if (*end == 'U' || *end == 'u')
		end++;
	if (*end)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad number '%s'", buf);
	ptx_lex_next(&ps->lx);
	return 0;
}

/* A type word (.b32, .f64, .pred, ...) as a type; size 0 if it is none. */
struct ptx_type ptx_type_word(const char *w, size_t len)
{
	static const struct { const char *name; struct ptx_type t; } types[] = {
		{ "b8", { PC_B, 1 } }, { "b16", { PC_B, 2 } },
		{ "b32", { PC_B, 4 } }, { "b64", { PC_B, 8 } },
		{ "u8", { PC_U, 1 } }, { "u16", { PC_U, 2 } },
		{ "u32", { PC_U, 4 } }, { "u64", { PC_U, 8 } },
		{ "s8", { PC_S, 1 } }, { "s16", { PC_S, 2 } },
		{ "s32", { PC_S, 4 } }, { "s64", { PC_S, 8 } },
		{ "f32", { PC_F, 4 } }, { "f64", { PC_F, 8 } },
		{ "f16", { PC_H, 2 } }, { "f16x2", { PC_H, 4 } },
		{ "bf16", { PC_BH, 2 } }, { "bf16x2", { PC_BH, 4 } },
		{ "pred", { PC_PRED, 1 } },
	};
	struct ptx_type none = { PC_NONE, 0 };
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (ptx_word_is(types[i].name, w, len))
			return types[i].t;
	return none;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	memset((char *)p + *cap * elem, 0, (ncap - *cap) * elem);
	*arr = p;
	*cap = ncap;
	return 0;
}

int ptx_grow(struct ptx_parser *ps, void **arr, size_t *cap, size_t need,
	     size_t elem)
{
	if (grow(arr, cap, need, elem))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	return 0;
}

/* Adds a symbol to the function's table (@local) or the module's. */
static int add_sym(struct ptx_parser *ps, bool local, const char *name,
		   size_t len, struct ptx_sym sym)
{
	struct ptx_symtab *tab = local ? &ps->lsyms : &ps->gsyms;

	if (ptx_grow(ps, (void **)&tab->syms, &tab->cap, tab->count + 1,
		     sizeof(sym)))
		return -1;
	/* A function's names may be declared again in a nested block. */
	if ((local ? ptx_strmap_set : ptx_strmap_put)(&tab->names, name, len,
					       tab->count))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	tab->syms[tab->count++] = sym;
	return 0;
}

const struct ptx_sym *ptx_find_sym(const struct ptx_parser *ps,
				   const char *name, size_t len)
{
	uint32_t i;

	if (ptx_strmap_get(&ps->lsyms.names, name, len, &i))
		return &ps->lsyms.syms[i];
	if (ptx_strmap_get(&ps->gsyms.names, name, len, &i))
		return &ps->gsyms.syms[i];
	return NULL;
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Stores one initializer element of @t at @dst. */
static int init_elem(struct ptx_parser *ps, struct ptx_type t,
		     unsigned char *dst)
{
	struct ptx_operand o = { 0 };

	if (ptx_immediate(ps, &o))
		return -1;
	if (ptx_imm_convert(ps, &o, t))
		return -1;
	memcpy(dst, &o.imm, t.size);
	return 0;
}

/*
 * An address as an initializer: a device function's (for a table of
 * them), or a module variable's, plain or generic(), plus an offset.
 * Both are known as the module is parsed: variables have their storage.
 */
static int init_address(struct ptx_parser *ps, struct ptx_type t,
			unsigned char *dst)
{
	bool generic = ptx_lex_is(&ps->lx, "generic");
	const struct ptx_sym *sym = NULL;
	uint64_t addr, off = 0;
	int f = -1;

	if (t.size != 8)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"initializer '%.*s': an address needs 64 bits",
				(int)ps->lx.len, ps->lx.text);
	if (generic && (ptx_lex_next(&ps->lx), ptx_expect(ps, "(")))
		return -1;
	if (ps->lx.tok == T_WORD) {
		sym = ptx_find_sym(ps, ps->lx.text, ps->lx.len);
		if (!sym)
			f = ptx_find_func(ps, ps->lx.text, ps->lx.len);
	}
	if (sym ? !sym->global : f < 0)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"initializer '%.*s' is no function or module variable",
				(int)ps->lx.len, ps->lx.text);
	addr = sym ? sym->value : ptx_func_addr(ps->mod, f);
	ptx_lex_next(&ps->lx);
	if (generic && ptx_expect(ps, ")"))
		return -1;
	if (ptx_lex_is(&ps->lx, "+")) {
		ptx_lex_next(&ps->lx);
		if (ptx_number(ps, &off))
			return -1;
	}
	addr += off;
	memcpy(dst, &addr, 8);
	return 0;
}

/* = value, or = { values, ... } (nested braces of arrays flattened). */
static int parse_init(struct ptx_parser *ps, struct ptx_type t,
		      unsigned char *data, size_t size)
{
	size_t at = 0;
	int depth = 0;

	do {
		if (ptx_lex_is(&ps->lx, "{")) {
			depth++;
			ptx_lex_next(&ps->lx);
			continue;
		}
		if (ptx_lex_is(&ps->lx, "}")) {
			depth--;
			ptx_lex_next(&ps->lx);
		} else if (ptx_lex_is(&ps->lx, ",")) {
			ptx_lex_next(&ps->lx);
		} else {
			if (at + t.size > size)
				return ptx_fail(ps, CUMC_PTX_ESYNTAX,
						"too many initializers");
			if (ps->lx.tok == T_WORD ? init_address(ps, t, data + at) :
			    init_elem(ps, t, data + at))
				return -1;
			at += t.size;
		}
	} while (depth > 0 && ps->lx.tok != T_EOF);
	return 0;
}

/* What a variable declaration says, after its state space. */
struct var_decl {
	const char *name;
	size_t len;
	size_t align;
	size_t size;
	bool unsized;		/* name[] */
	struct ptx_type type;
};

static int parse_var_head(struct ptx_parser *ps, struct var_decl *v)
{
	uint64_t n;
	unsigned int vec = 1;

	memset(v, 0, sizeof(*v));
	while (ps->lx.tok == T_WORD && ps->lx.text[0] == '.') {
		struct ptx_type t = ptx_type_word(ps->lx.text + 1, ps->lx.len - 1);

		if (ptx_lex_is(&ps->lx, ".align")) {
			ptx_lex_next(&ps->lx);
			if (ptx_number(ps, &n))
				return -1;
			v->align = n;
			continue;
		}
		if (ptx_lex_is(&ps->lx, ".v2") || ptx_lex_is(&ps->lx, ".v4"))
			vec = ps->lx.text[2] - '0';
		else if (t.size && t.cls != PC_PRED)
			v->type = t;
		else
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"variable attribute '%.*s'",
					(int)ps->lx.len, ps->lx.text);
		ptx_lex_next(&ps->lx);
	}
	if (!v->type.size || ps->lx.tok != T_WORD)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad variable declaration");
	v->name = ps->lx.text;
	v->len = ps->lx.len;
	ptx_lex_next(&ps->lx);
	v->size = v->type.size * vec;
	if (!v->align)
		v->align = v->size;
	while (ptx_lex_is(&ps->lx, "[")) {
		ptx_lex_next(&ps->lx);
		if (ptx_lex_is(&ps->lx, "]")) {
			v->unsized = true;
		} else {
			if (ptx_number(ps, &n))
				return -1;
			v->size *= n;
		}
		if (ptx_expect(ps, "]"))
			return -1;
	}
	return 0;
}

/*
 * A module variable named before: an .extern declaration of it (its
 * definition may come before or after, from another input of a link)
 * or its one definition, which fills the declaration's storage.
 */
static int module_storage_again(struct ptx_parser *ps,
				const struct ptx_sym *sym, enum ptx_space space,
				const struct var_decl *v)
{
	struct ptx_global *g;

	if (!sym->global)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "'%.*s' declared twice",
				(int)v->len, v->name);
	g = &ps->mod->globals[sym->global - 1];
	if (g->space != space || (g->size != v->size && !v->unsized))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"variable '%s' declared unlike its definition",
				g->name);
	if (ps->extern_decl)
		return 0;
	if (!g->declared_only)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"variable '%s' defined twice", g->name);
	g->declared_only = false;
	if (ptx_lex_is(&ps->lx, "=")) {
		ptx_lex_next(&ps->lx);
		return parse_init(ps, v->type, g->data, g->size);
	}
	return 0;
}

/* @d, a definition in @space, in the index; a name's first one is kept. */
static int def_sizes_add(struct ptx_parser *ps, const struct var_decl *d,
			 enum ptx_space space)
{
	struct ptx_def_sizes *defs = &ps->defs;
	uint32_t known;

	if (ptx_strmap_get(&defs->names, d->name, d->len, &known))
		return 0;
	if (ptx_grow(ps, (void **)&defs->defs, &defs->cap, defs->count + 1,
		     sizeof(*defs->defs)))
		return -1;
	if (ptx_strmap_put(&defs->names, d->name, d->len, defs->count))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	defs->defs[defs->count++] = (struct ptx_def_size){ d->size, space };
	return 0;
}

/*
 * Every sized .global and .const definition from here to the end of the
 * text (a later input of a link among them), read once: reading ahead for
 * each array declared without a size took time in the square of the
 * text's length, seconds for NCCL's linked objects.  A definition seen
 * before here is parsed already, its name known to the module.
 */
static int def_sizes_make(struct ptx_parser *ps)
{
	struct ptx_lexer saved = ps->lx;
	bool start = true, declaration = false;
	enum ptx_space space;
	struct var_decl d;
	int depth = 0, err = 0;

	ps->defs.made = true;
	while (ps->lx.tok != T_EOF) {
		struct ptx_lexer *lx = &ps->lx;

		if (ptx_lex_is(lx, "{") || ptx_lex_is(lx, "}")) {
			depth += ptx_lex_is(lx, "{") ? 1 : -1;
			start = !depth;
		} else if (depth) {
			/* a function's body */
		} else if (ptx_lex_is(lx, ";")) {
			start = true;
			declaration = false;
		} else if (start && ptx_lex_is(lx, ".extern")) {
			declaration = true;
		} else if (start && !declaration &&
			   (ptx_lex_is(lx, ".const") || ptx_lex_is(lx, ".global"))) {
			space = ptx_lex_is(lx, ".const") ? PS_CONST : PS_GLOBAL;
			ptx_lex_next(lx);
			if (parse_var_head(ps, &d))
				break;
			if (!d.unsized)
				err = def_sizes_add(ps, &d, space);
			if (err)
				break;
			continue;
		} else if (!ptx_lex_is(lx, ".visible") &&
			   !ptx_lex_is(lx, ".weak")) {
			start = false;
		}
		ptx_lex_next(lx);
	}
	ps->lx = saved;
	return err;
}

/*
 * The size of @v, an .extern array of unknown size (name[]): its
 * definition's, which may come later in the text (another input of a
 * link); 0 when there is none.
 */
static size_t definition_size(struct ptx_parser *ps, enum ptx_space space,
			      const struct var_decl *v)
{
	uint32_t i;

	if (!ps->defs.made && def_sizes_make(ps))
		return 0;
	if (!ptx_strmap_get(&ps->defs.names, v->name, v->len, &i) ||
	    ps->defs.defs[i].space != space)
		return 0;
	return ps->defs.defs[i].size;
}

/* A .global or .const variable: storage the module owns. */
static int module_storage(struct ptx_parser *ps, enum ptx_space space,
			  const struct var_decl *v)
{
	struct cumc_ptx_module *m = ps->mod;
	struct ptx_global *g;
	struct ptx_sym sym = { .space = space };
	size_t align = v->align < 16 ? 16 : v->align;
	size_t size = v->size;
	uint32_t known;

	if (v->unsized && !ps->extern_decl)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"variable '%.*s' defined without a size",
				(int)v->len, v->name);
	if (ptx_strmap_get(&ps->gsyms.names, v->name, v->len, &known))
		return module_storage_again(ps, &ps->gsyms.syms[known], space,
					    v);
	if (v->unsized)
		size = definition_size(ps, space, v);
	if (ptx_grow(ps, (void **)&m->globals, &ps->globals_cap,
		     m->nglobals + 1, sizeof(*g)))
		return -1;
	g = &m->globals[m->nglobals];
	g->name = strndup(v->name, v->len);
	g->data = aligned_alloc(align, align_up(size ? size : 1, align));
	if (!g->name || !g->data) {
		free(g->name);
		free(g->data);
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	}
	memset(g->data, 0, size);
	g->space = space;
	g->size = size;
	g->declared_only = ps->extern_decl;
	m->nglobals++;
	sym.value = (uintptr_t)g->data;
	sym.global = m->nglobals;
	if (add_sym(ps, false, v->name, v->len, sym))
		return -1;
	if (ptx_lex_is(&ps->lx, "=")) {
		ptx_lex_next(&ps->lx);
		return parse_init(ps, v->type, g->data, g->size);
	}
	return 0;
}

/* .shared: an offset in the block's shared memory; [] is the dynamic part. */
/*
 * A module .shared variable named again: each input of a link declares
 * .extern the one another defines (NCCL's ncclShmem), all one variable.
 */
static int shared_again(struct ptx_parser *ps, struct ptx_sym *sym,
			const struct var_decl *v)
{
	if (sym->space != PS_SHARED || sym->dyn != v->unsized ||
	    (!v->unsized && sym->size != v->size))
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"variable '%.*s' declared unlike its definition",
				(int)v->len, v->name);
	if (ps->extern_decl)
		return 0;
	if (!sym->declared_only)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX,
				"variable '%.*s' defined twice",
				(int)v->len, v->name);
	sym->declared_only = false;
	return 0;
}

static int shared_var(struct ptx_parser *ps, bool local,
		      const struct var_decl *v)
{
	struct ptx_sym sym = { .space = PS_SHARED, .size = v->size,
			       .declared_only = !local && ps->extern_decl };
	size_t *end = local ? &ps->fn_shared : &ps->mod_shared;
	uint32_t known;

	if (!local && ptx_strmap_get(&ps->gsyms.names, v->name, v->len, &known))
		return shared_again(ps, &ps->gsyms.syms[known], v);

	if (v->unsized) {
		sym.dyn = true;
		if (v->align > ps->dyn_align)
			ps->dyn_align = v->align;
	} else {
		*end = align_up(*end, v->align);
		sym.value = *end;
		*end += v->size;
	}
	return add_sym(ps, local, v->name, v->len, sym);
}

static int local_var(struct ptx_parser *ps, const struct var_decl *v)
{
	struct ptx_sym sym = { .space = PS_LOCAL };

	ps->fn->local_size = align_up(ps->fn->local_size, v->align);
	sym.value = ps->fn->local_size;
	ps->fn->local_size += v->size;
	return add_sym(ps, true, v->name, v->len, sym);
}

/* A variable of @space, in a function (@local) or the module. */
int ptx_parse_var(struct ptx_parser *ps, enum ptx_space space, bool local)
{
	struct var_decl v;

	ptx_lex_next(&ps->lx);
	if (parse_var_head(ps, &v))
		return -1;
	switch (space) {
	case PS_SHARED:
		if (shared_var(ps, local, &v))
			return -1;
		break;
	case PS_PARAM:	/* a call's argument or result, in a function */
		if (!local)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"module-scope .param variable");
		if (local_var(ps, &v))
			return -1;
		break;
	case PS_LOCAL:
		if (!local)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"module-scope .local variable");
		if (local_var(ps, &v))
			return -1;
		break;
	default:
		if (module_storage(ps, space, &v))
			return -1;
	}
	return ptx_expect(ps, ";");
}

/*
 * The current token in @buf, for sscanf: the text it lies in goes on to
 * the end of the module, which sscanf would measure first.
 */
static const char *token_copy(const struct ptx_lexer *lx, char *buf,
			      size_t size)
{
	size_t n = lx->len < size ? lx->len : size - 1;

	memcpy(buf, lx->text, n);
	buf[n] = '\0';
	return buf;
}

static int parse_version(struct ptx_parser *ps)
{
	unsigned int major = 0, minor = 0;
	char buf[32];

	ptx_lex_next(&ps->lx);
	if (ps->lx.tok != T_NUMBER ||
	    sscanf(token_copy(&ps->lx, buf, sizeof(buf)), "%u.%u", &major,
		   &minor) != 2)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad .version");
	/* Inputs joined by a link each have theirs: the highest holds. */
	if (major * 10 + minor > ps->mod->version)
		ps->mod->version = major * 10 + minor;
	ptx_lex_next(&ps->lx);
	return 0;
}

/* .target sm_XX[a|f], options; PTX for a later GPU than the H100 is not ours. */
static int parse_target(struct ptx_parser *ps)
{
	unsigned int sm;
	char buf[32];

	do {
		ptx_lex_next(&ps->lx);
		if (ps->lx.tok != T_WORD)
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad .target");
		if (sscanf(token_copy(&ps->lx, buf, sizeof(buf)), "sm_%u",
			   &sm) == 1) {
			if (sm > 90)
				return ptx_fail(ps, CUMC_PTX_ENOPTX,
						".target sm_%u: cumc simulates sm_90 GPUs",
						sm);
			if (sm > ps->mod->target)
				ps->mod->target = sm;
		}
		ptx_lex_next(&ps->lx);
	} while (ptx_lex_is(&ps->lx, ","));
	return 0;
}

static int parse_address_size(struct ptx_parser *ps)
{
	uint64_t n;

	ptx_lex_next(&ps->lx);
	if (ptx_number(ps, &n))
		return -1;
	if (n != 64)
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED, ".address_size %llu",
				(unsigned long long)n);
	return 0;
}

static int parse_directive_one(struct ptx_parser *ps)
{
	struct ptx_lexer *lx = &ps->lx;

	if (ptx_lex_is(lx, ".version"))
		return parse_version(ps);
	if (ptx_lex_is(lx, ".target"))
		return parse_target(ps);
	if (ptx_lex_is(lx, ".address_size"))
		return parse_address_size(ps);
	if (ptx_lex_is(lx, ".visible") || ptx_lex_is(lx, ".extern") ||
	    ptx_lex_is(lx, ".weak")) {
		ps->extern_decl = ptx_lex_is(lx, ".extern");
		ptx_lex_next(lx);
		return 0;
	}
	if (ptx_lex_is(lx, ".entry") || ptx_lex_is(lx, ".func"))
		return ptx_parse_function(ps, ptx_lex_is(lx, ".entry"));
	if (ptx_lex_is(lx, ".global"))
		return ptx_parse_var(ps, PS_GLOBAL, false);
	if (ptx_lex_is(lx, ".const"))
		return ptx_parse_var(ps, PS_CONST, false);
	if (ptx_lex_is(lx, ".shared"))
		return ptx_parse_var(ps, PS_SHARED, false);
	if (lx->tok == T_WORD && lx->text[0] == '.')
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED, "directive '%.*s'",
				(int)lx->len, lx->text);
	return ptx_fail(ps, CUMC_PTX_ESYNTAX, "unexpected '%.*s'",
			(int)lx->len, lx->text);
}

/* A linkage directive holds for the one directive after it. */
static int parse_directive(struct ptx_parser *ps)
{
	bool linkage = ptx_lex_is(&ps->lx, ".visible") ||
		       ptx_lex_is(&ps->lx, ".extern") ||
		       ptx_lex_is(&ps->lx, ".weak");
	int res = parse_directive_one(ps);

	if (!linkage)
		ps->extern_decl = false;
	return res;
}

/* Module variables declared .extern and defined nowhere. */
static void check_variables(struct ptx_parser *ps)
{
	const struct cumc_ptx_module *m = ps->mod;
	unsigned int i;

	for (i = 0; i < m->nglobals; i++)
		if (m->globals[i].declared_only) {
			ptx_fail(ps, CUMC_PTX_EUNDEFINED,
				 "variable '%s' is declared .extern and "
				 "defined nowhere", m->globals[i].name);
			return;
		}
}

void ptx_module_free(struct cumc_ptx_module *m)
{
	unsigned int i;

	if (!m)
		return;
	for (i = 0; i < m->nfuncs; i++)
		ptx_function_free(&m->funcs[i]);
	free(m->funcs);
	for (i = 0; i < m->nglobals; i++) {
		free(m->globals[i].name);
		free(m->globals[i].data);
	}
	free(m->globals);
	free(m->global_addrs);
	free(m);
}

void ptx_symtab_clear(struct ptx_symtab *tab)
{
	ptx_strmap_clear(&tab->names);
	free(tab->syms);
	memset(tab, 0, sizeof(*tab));
}

/* Tags of the modules loaded: a function address names its module. */
static uint32_t module_tags;

enum cumc_ptx_status ptx_parse(const char *text, size_t len, bool link_input,
			       struct cumc_ptx_module **module,
			       char *log, size_t log_size)
{
	struct ptx_parser ps = { .log = log, .log_size = log_size,
				 .link_input = link_input };

	if (log_size)
		log[0] = '\0';
	ps.mod = calloc(1, sizeof(*ps.mod));
	if (!ps.mod)
		return CUMC_PTX_ENOMEM;
	ps.mod->tag = __atomic_add_fetch(&module_tags, 1, __ATOMIC_RELAXED) &
		      PTX_FUNC_ADDR_TAGS;
	ptx_lex_init(&ps.lx, text, len);
	while (ps.lx.tok != T_EOF && !parse_directive(&ps))
		;
	if (ps.err == CUMC_PTX_OK && !ps.mod->version)
		ptx_fail(&ps, CUMC_PTX_ESYNTAX, "no .version directive");
	if (ps.err == CUMC_PTX_OK)
		ptx_check_calls(&ps);
	if (ps.err == CUMC_PTX_OK && !link_input)
		check_variables(&ps);
	ptx_symtab_clear(&ps.gsyms);
	ptx_strmap_clear(&ps.defs.names);
	free(ps.defs.defs);
	ptx_function_state_clear(&ps);
	if (ps.err != CUMC_PTX_OK) {
		ptx_module_free(ps.mod);
		return ps.err;
	}
	*module = ps.mod;
	return CUMC_PTX_OK;
}
