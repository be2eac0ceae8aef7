// SPDX-License-Identifier: MIT
/*
 * A kernel (.entry) or a device function (.func): its parameters (a
 * .func's results first), register and variable declarations, labels and
 * instructions; then labels are resolved, the dynamic shared memory
 * placed after the static, and the basic blocks found.  A .func without a
 * body is a prototype, which its definition later fills.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_int.h"

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

void ptx_function_state_clear(struct ptx_parser *ps)
{
	ptx_symtab_clear(&ps->lsyms);
	ptx_strmap_clear(&ps->regs);
	ptx_strmap_clear(&ps->labels);
	ptx_strmap_clear(&ps->protos);
	free(ps->label_at);
	ps->label_at = NULL;
	ps->labels_cap = ps->nlabels = 0;
	ps->regs_cap = ps->insns_cap = ps->params_cap = 0;
	ps->fn_shared = 0;
	ps->dyn_align = 16;
	ps->fn = NULL;
	ps->calls_cap = 0;
	ps->depth = 0;
	free(ps->reg_depth);
	ps->reg_depth = NULL;
	ps->reg_depth_cap = 0;
}

void ptx_function_free(struct cumc_ptx_function *f)
{
	unsigned int j;

	for (j = 0; j < f->nparams; j++)
		free(f->params[j].name);
	for (j = 0; j < f->ncalls; j++) {
		free(f->calls[j].args);
		free(f->calls[j].rets);
	}
	free(f->calls);
	free(f->params);
	free(f->name);
	free(f->reg_types);
	free(f->insns);
	free(f->block_starts);
	memset(f, 0, sizeof(*f));
}

int ptx_find_func(const struct ptx_parser *ps, const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < ps->mod->nfuncs; i++) {
		const struct cumc_ptx_function *f = &ps->mod->funcs[i];

		if (!f->entry && f->name && strlen(f->name) == len &&
		    !memcmp(f->name, name, len))
			return (int)i;
	}
	return -1;
}

/*
 * __assertfail(message, file, line, function, char size), what assert()
 * in device code calls: the driver's, as cumc's (exec.c).
 */
static void find_builtin(struct cumc_ptx_function *f)
{
	static const uint8_t assertfail[] = { 8, 8, 4, 8, 8 };
	unsigned int i;

	if (strcmp(f->name, "__assertfail") || f->nrets ||
	    f->nparams != sizeof(assertfail))
		return;
	for (i = 0; i < f->nparams; i++)
		if (f->params[i].size != assertfail[i])
			return;
	f->builtin = PTX_BUILTIN_ASSERTFAIL;
}

int ptx_check_calls(struct ptx_parser *ps)
{
	struct cumc_ptx_module *m = ps->mod;
	unsigned int i, j;

	for (i = 0; i < m->nfuncs; i++)
		if (!m->funcs[i].entry && !m->funcs[i].defined)
			find_builtin(&m->funcs[i]);
	for (i = 0; i < m->nfuncs; i++)
		for (j = 0; j < m->funcs[i].ncalls; j++) {
			const struct ptx_call *c = &m->funcs[i].calls[j];
			const struct cumc_ptx_function *f = &m->funcs[c->callee];

			/* An indirect call's callee is checked as it runs. */
			if (c->target != PTX_NO_REG)
				continue;
			ps->lx.tok_line = c->line;
			if (!f->defined && !f->builtin && !ps->link_input)
				return ptx_fail(ps, CUMC_PTX_EUNDEFINED,
						"call to '%s', which has no body (.extern)",
						f->name);
			if (c->nargs != f->nparams - f->nrets ||
			    c->nrets > f->nrets)
				return ptx_fail(ps, CUMC_PTX_ESYNTAX,
						"call to '%s': operands do not match its parameters",
						f->name);
		}
	return 0;
}

int ptx_label(struct ptx_parser *ps, const char *name, size_t len,
	      uint32_t *label)
{
	if (ptx_strmap_get(&ps->labels, name, len, label))
		return 0;
	if (ptx_grow(ps, (void **)&ps->label_at, &ps->labels_cap,
		     ps->nlabels + 1, sizeof(uint32_t)))
		return -1;
	if (ptx_strmap_put(&ps->labels, name, len, ps->nlabels))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	ps->label_at[ps->nlabels] = UINT32_MAX;
	*label = ps->nlabels++;
	return 0;
}

/* .param [.align N] .type [.ptr .space .align N] name[[N]] */
static int parse_param(struct ptx_parser *ps)
{
	struct cumc_ptx_function *fn = ps->fn;
	struct ptx_param *p;
	struct ptx_sym sym = { .space = PS_PARAM };
	size_t align = 0, size = 0;
	uint64_t n;
	bool ptr = false;

	if (ptx_expect(ps, ".param"))
		return -1;
	while (ps->lx.tok == T_WORD && ps->lx.text[0] == '.') {
		struct ptx_type t = ptx_type_word(ps->lx.text + 1,
						  ps->lx.len - 1);
		bool is_align = ptx_lex_is(&ps->lx, ".align");

		if (ptx_lex_is(&ps->lx, ".ptr"))
			ptr = true;
		else if (t.size && !size)
			size = t.size;
		else if (!is_align && !ptr)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"parameter attribute '%.*s'",
					(int)ps->lx.len, ps->lx.text);
		ptx_lex_next(&ps->lx);
		if (is_align) {
			if (ptx_number(ps, &n))
				return -1;
			/* .ptr's .align is the pointee's, not the parameter's. */
			if (!ptr)
				align = n;
		}
	}
	if (!size || ps->lx.tok != T_WORD)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad parameter");
	if (ptx_grow(ps, (void **)&fn->params, &ps->params_cap,
		     fn->nparams + 1, sizeof(*p)))
		return -1;
	p = &fn->params[fn->nparams];
	p->name = strndup(ps->lx.text, ps->lx.len);
	if (!p->name)
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	fn->nparams++;
	if (!align)
		align = size;
	sym.value = p->offset = align_up(fn->param_size, align);
	if (ptx_strmap_put(&ps->lsyms.names, ps->lx.text, ps->lx.len,
			   ps->lsyms.count) ||
	    ptx_grow(ps, (void **)&ps->lsyms.syms, &ps->lsyms.cap,
		     ps->lsyms.count + 1, sizeof(sym)))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	ps->lsyms.syms[ps->lsyms.count++] = sym;
	ptx_lex_next(&ps->lx);
	if (ptx_lex_is(&ps->lx, "[")) {
		ptx_lex_next(&ps->lx);
		if (ptx_number(ps, &n) || ptx_expect(ps, "]"))
			return -1;
		size *= n;
	}
	p->size = size;
	fn->param_size = p->offset + size;
	return 0;
}

static int parse_params(struct ptx_parser *ps)
{
	if (!ptx_lex_is(&ps->lx, "("))
		return 0;
	ptx_lex_next(&ps->lx);
	while (!ptx_lex_is(&ps->lx, ")")) {
		if (parse_param(ps))
			return -1;
		if (ptx_lex_is(&ps->lx, ","))
			ptx_lex_next(&ps->lx);
		else if (!ptx_lex_is(&ps->lx, ")"))
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad parameter list");
	}
	ptx_lex_next(&ps->lx);
	return 0;
}

static int add_reg(struct ptx_parser *ps, const char *name, size_t len,
		   struct ptx_type t)
{
	struct cumc_ptx_function *fn = ps->fn;
	uint32_t old;

	/*
	 * A name declared again in a nested block whose first declaration's
	 * block has closed (nvcc's temp_param_reg in each call sequence): a
	 * register of its own.  Shadowing a live register is not supported.
	 */
	if (ptx_strmap_get(&ps->regs, name, len, &old) &&
	    ps->reg_depth[old] != 0xff)
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
				"register '%.*s' declared again (scoped registers)",
				(int)len, name);
	if (ptx_grow(ps, (void **)&fn->reg_types, &ps->regs_cap,
		     fn->nregs + 1, sizeof(t)) ||
	    ptx_grow(ps, (void **)&ps->reg_depth, &ps->reg_depth_cap,
		     fn->nregs + 1, 1))
		return -1;
	if (ptx_strmap_set(&ps->regs, name, len, fn->nregs))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	ps->reg_depth[fn->nregs] = ps->depth;
	fn->reg_types[fn->nregs++] = t;
	return 0;
}

/* .reg .type %r<N>;  or  .reg .type %a, %b; */
static int parse_reg(struct ptx_parser *ps)
{
	struct ptx_type t;
	char name[128];
	uint64_t n, i;

	ptx_lex_next(&ps->lx);
	t = ps->lx.tok == T_WORD && ps->lx.text[0] == '.' ?
	    ptx_type_word(ps->lx.text + 1, ps->lx.len - 1) :
	    (struct ptx_type){ 0, 0 };
	if (!t.size)
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED, "register type '%.*s'",
				(int)ps->lx.len, ps->lx.text);
	ptx_lex_next(&ps->lx);
	for (;;) {
		const char *s = ps->lx.text;
		size_t len = ps->lx.len;

		if (ps->lx.tok != T_WORD || len >= sizeof(name) - 24)
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad register name");
		ptx_lex_next(&ps->lx);
		if (ptx_lex_is(&ps->lx, "<")) {
			ptx_lex_next(&ps->lx);
			if (ptx_number(ps, &n) || ptx_expect(ps, ">"))
				return -1;
			for (i = 0; i < n; i++) {
				int nl = snprintf(name, sizeof(name), "%.*s%llu",
						  (int)len, s,
						  (unsigned long long)i);

				if (add_reg(ps, name, nl, t))
					return -1;
			}
		} else if (add_reg(ps, s, len, t)) {
			return -1;
		}
		if (!ptx_lex_is(&ps->lx, ","))
			break;
		ptx_lex_next(&ps->lx);
	}
	return ptx_expect(ps, ";");
}

/* Whether the current word is followed by a colon: a label. */
static bool at_label(const struct ptx_parser *ps)
{
	const char *p = ps->lx.p;

	if (ps->lx.tok != T_WORD || ps->lx.text[0] == '.')
		return false;
	while (p < ps->lx.end && (*p == ' ' || *p == '\t'))
		p++;
	return p < ps->lx.end && *p == ':';
}

/* ( .param .type _, ... ): how many. */
static int prototype_params(struct ptx_parser *ps, uint32_t *n)
{
	*n = 0;
	if (!ptx_lex_is(&ps->lx, "("))
		return 0;
	for (ptx_lex_next(&ps->lx); !ptx_lex_is(&ps->lx, ")");
	     ptx_lex_next(&ps->lx)) {
		if (ps->lx.tok == T_EOF)
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "bad prototype");
		if (ptx_lex_is(&ps->lx, ".param"))
			++*n;
	}
	ptx_lex_next(&ps->lx);
	return 0;
}

/*
 * label: .callprototype [(results)] _ [(arguments)];
 * label: .calltargets func, ...;
 * What an indirect call names to say what it calls.
 */
static int define_prototype(struct ptx_parser *ps, const char *name,
			    size_t len)
{
	uint32_t proto = PTX_PROTO_ANY, rets, args;

	if (ptx_lex_is(&ps->lx, ".calltargets")) {
		while (ps->lx.tok != T_EOF && !ptx_lex_is(&ps->lx, ";"))
			ptx_lex_next(&ps->lx);
	} else {
		ptx_lex_next(&ps->lx);
		if (prototype_params(ps, &rets) || ptx_expect(ps, "_") ||
		    prototype_params(ps, &args))
			return -1;
		proto = PTX_PROTO(rets, args);
	}
	if (ptx_strmap_set(&ps->protos, name, len, proto))
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	return ptx_expect(ps, ";");
}

static int define_label(struct ptx_parser *ps)
{
	const char *name = ps->lx.text;
	size_t len = ps->lx.len;
	uint32_t label;

	ptx_lex_next(&ps->lx);
	if (ptx_expect(ps, ":"))
		return -1;
	if (ptx_lex_is(&ps->lx, ".callprototype") ||
	    ptx_lex_is(&ps->lx, ".calltargets"))
		return define_prototype(ps, name, len);
	if (ptx_label(ps, name, len, &label))
		return -1;
	if (ps->label_at[label] != UINT32_MAX)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "label '%.*s' defined twice",
				(int)len, name);
	ps->label_at[label] = ps->fn->ninsns;
	return 0;
}

static int parse_statement(struct ptx_parser *ps)
{
	struct ptx_lexer *lx = &ps->lx;

	if (ptx_lex_is(lx, ".reg"))
		return parse_reg(ps);
	if (ptx_lex_is(lx, ".shared"))
		return ptx_parse_var(ps, PS_SHARED, true);
	if (ptx_lex_is(lx, ".local"))
		return ptx_parse_var(ps, PS_LOCAL, true);
	if (ptx_lex_is(lx, ".param"))
		return ptx_parse_var(ps, PS_PARAM, true);
	if (ptx_lex_is(lx, ".pragma")) {
		while (lx->tok != T_EOF && !ptx_lex_is(lx, ";"))
			ptx_lex_next(lx);
		return ptx_expect(ps, ";");
	}
	if (lx->tok == T_WORD && lx->text[0] == '.')
		return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
				"directive '%.*s' in a function",
				(int)lx->len, lx->text);
	if (at_label(ps))
		return define_label(ps);
	return ptx_parse_insn(ps);
}

/* A nested block closes: its registers' names may be declared again. */
static void close_block(struct ptx_parser *ps)
{
	uint32_t i;

	for (i = 0; i < ps->fn->nregs; i++)
		if (ps->reg_depth[i] == ps->depth && ps->depth > 1)
			ps->reg_depth[i] = 0xff;
	ps->depth--;
}

static int parse_body(struct ptx_parser *ps)
{
	do {
		if (ptx_lex_is(&ps->lx, "{")) {
			ps->depth++;
			ptx_lex_next(&ps->lx);
		} else if (ptx_lex_is(&ps->lx, "}")) {
			close_block(ps);
			ptx_lex_next(&ps->lx);
		} else if (ps->lx.tok == T_EOF) {
			return ptx_fail(ps, CUMC_PTX_ESYNTAX, "unterminated function");
		} else if (parse_statement(ps)) {
			return -1;
		}
	} while (ps->depth > 0);
	return 0;
}

/* Branch targets and dynamic shared memory, now that both are known. */
static int resolve(struct ptx_parser *ps)
{
	struct cumc_ptx_function *fn = ps->fn;
	size_t dyn = align_up(ps->mod_shared + ps->fn_shared, ps->dyn_align);
	uint32_t i, j;

	fn->shared_size = ps->mod_shared + ps->fn_shared;
	for (i = 0; i < fn->ninsns; i++) {
		struct ptx_insn *in = &fn->insns[i];

		for (j = 0; j < in->nopnd; j++) {
			struct ptx_operand *o = &in->o[j];

			if (o->dyn_shared)
				o->imm += dyn;
			if (o->kind != PO_LABEL)
				continue;
			if (ps->label_at[o->imm] == UINT32_MAX) {
				ps->lx.tok_line = in->line;
				return ptx_fail(ps, CUMC_PTX_ESYNTAX,
						"undefined label");
			}
			o->imm = ps->label_at[o->imm];
		}
	}
	return 0;
}

static bool ends_block(const struct ptx_insn *in)
{
	return in->op == OP_BRA || in->op == OP_RET || in->op == OP_EXIT ||
	       in->op == OP_TRAP;
}

/* Leaders: the first instruction, branch targets, those after a branch. */
static int find_blocks(struct ptx_parser *ps)
{
	struct cumc_ptx_function *fn = ps->fn;
	uint8_t *leader = calloc(fn->ninsns + 1, 1);
	uint32_t i, n = 0;

	if (!leader)
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	leader[0] = 1;
	for (i = 0; i < fn->ninsns; i++) {
		if (ends_block(&fn->insns[i]))
			leader[i + 1] = 1;
		if (fn->insns[i].op == OP_BRA)
			leader[fn->insns[i].o[0].imm] = 1;
	}
	for (i = 0; i < fn->ninsns; i++)
		n += leader[i];
	fn->block_starts = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!fn->block_starts) {
		free(leader);
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	}
	for (i = 0; i < fn->ninsns; i++)
		if (leader[i])
			fn->block_starts[fn->nblocks++] = i;
	free(leader);
	return 0;
}

/* A kernel must end: an implicit ret after the last instruction. */
static int add_final_ret(struct ptx_parser *ps)
{
	struct cumc_ptx_function *fn = ps->fn;
	struct ptx_insn *in;

	if (ptx_grow(ps, (void **)&fn->insns, &ps->insns_cap, fn->ninsns + 1,
		     sizeof(*in)))
		return -1;
	in = &fn->insns[fn->ninsns++];
	memset(in, 0, sizeof(*in));
	in->op = OP_RET;
	in->guard = PTX_NO_REG;
	in->line = ps->lx.tok_line;
	return 0;
}

/*
 * A .func with the name of an earlier one: its prototype takes the
 * definition (calls hold the prototype's index); a second prototype is
 * dropped.  The new one is the last of the module's functions.
 */
static int merge_func(struct ptx_parser *ps)
{
	struct cumc_ptx_module *m = ps->mod;
	struct cumc_ptx_function *f = &m->funcs[m->nfuncs - 1], *old;
	int i = ptx_find_func(ps, f->name, strlen(f->name));

	if (i < 0 || (unsigned int)i == m->nfuncs - 1)
		return 0;
	old = &m->funcs[i];
	if (f->defined && old->defined)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "function '%s' defined twice",
				f->name);
	if (f->defined) {
		/* Calls in the body to the prototype's index stay right. */
		ptx_function_free(old);
		*old = *f;
	} else {
		ptx_function_free(f);
	}
	memset(&m->funcs[--m->nfuncs], 0, sizeof(*f));
	ps->fn = NULL;
	return 0;
}

/* Kernels have no prototypes: a name given twice is two definitions. */
static int check_entry_name(struct ptx_parser *ps)
{
	const struct cumc_ptx_module *m = ps->mod;
	unsigned int i;

	for (i = 0; i + 1 < m->nfuncs; i++)
		if (m->funcs[i].entry && !strcmp(m->funcs[i].name, ps->fn->name))
			return ptx_fail(ps, CUMC_PTX_ESYNTAX,
					"kernel '%s' defined twice", ps->fn->name);
	return 0;
}

int ptx_parse_function(struct ptx_parser *ps, bool entry)
{
	struct cumc_ptx_module *m = ps->mod;
	int res;

	ptx_lex_next(&ps->lx);
	if (ptx_grow(ps, (void **)&m->funcs, &ps->funcs_cap, m->nfuncs + 1,
		     sizeof(*m->funcs)))
		return -1;
	ptx_function_state_clear(ps);
	ps->fn = &m->funcs[m->nfuncs++];
	memset(ps->fn, 0, sizeof(*ps->fn));
	ps->fn->entry = entry;
	if (!entry) {	/* (.param .b32 func_retval0) before the name */
		if (parse_params(ps))
			return -1;
		ps->fn->nrets = ps->fn->nparams;
	}
	if (ps->lx.tok != T_WORD)
		return ptx_fail(ps, CUMC_PTX_ESYNTAX, "expected a function name");
	ps->fn->name = strndup(ps->lx.text, ps->lx.len);
	if (!ps->fn->name)
		return ptx_fail(ps, CUMC_PTX_ENOMEM, "out of memory");
	if (entry && check_entry_name(ps))
		return -1;
	ptx_lex_next(&ps->lx);
	if (parse_params(ps))
		return -1;
	/* Performance directives (.maxntid, .reqntid...) are hints here. */
	while (!ptx_lex_is(&ps->lx, "{") && !ptx_lex_is(&ps->lx, ";") &&
	       ps->lx.tok != T_EOF)
		ptx_lex_next(&ps->lx);
	if (ptx_lex_is(&ps->lx, ";")) {	/* a prototype */
		ptx_lex_next(&ps->lx);
		if (entry)
			return ptx_fail(ps, CUMC_PTX_EUNSUPPORTED,
					"a kernel without a body");
		return merge_func(ps);
	}
	ps->fn->defined = true;
	res = parse_body(ps);
	if (!res)
		res = add_final_ret(ps);
	if (!res)
		res = resolve(ps);
	if (!res)
		res = find_blocks(ps);
	if (!res && !entry)
		res = merge_func(ps);
	return res;
}
