/* SPDX-License-Identifier: MIT */
/* The parser's state, shared by parse.c, function.c and decode.c. */
#ifndef _CUMC_PTX_PARSE_INT_H
#define _CUMC_PTX_PARSE_INT_H

#include "ir.h"
#include "lex.h"
#include "parse.h"
#include "strmap.h"

/* A variable: its state space and address there (see ir.h). */
struct ptx_sym {
	uint8_t space;
	bool dyn;		/* the dynamic shared memory */
	uint16_t global;	/* a module variable: its index + 1 */
	bool declared_only;	/* module .shared: .extern, not defined yet */
	uint64_t value;
	uint64_t size;		/* module .shared */
};

struct ptx_symtab {
	struct strmap names;
	struct ptx_sym *syms;
	size_t count;
	size_t cap;
};

struct ptx_parser {
	struct ptx_lexer lx;
	char *log;
	size_t log_size;
	enum cumc_ptx_status err;
	struct cumc_ptx_module *mod;
	size_t funcs_cap;
	size_t globals_cap;
	struct ptx_symtab gsyms;
	size_t mod_shared;
	bool link_input;	/* ptx_parse()'s: definitions may be elsewhere */
	bool extern_decl;	/* the directive follows .extern */
	/* The function being parsed. */
	struct cumc_ptx_function *fn;
	struct ptx_symtab lsyms;
	struct strmap regs;
	size_t regs_cap;
	size_t insns_cap;
	size_t params_cap;
	struct strmap labels;
	uint32_t *label_at;	/* instruction of each label, or UINT32_MAX */
	size_t labels_cap;
	uint32_t nlabels;
	size_t fn_shared;
	size_t dyn_align;
	size_t calls_cap;
	int depth;		/* of nested blocks */
	uint8_t *reg_depth;	/* each register's block depth; 0xff: closed */
	size_t reg_depth_cap;
	struct strmap protos;	/* .callprototype labels: PTX_PROTO() */
	/* Sized module variables ahead: definition_size()'s index. */
	struct ptx_def_sizes {
		bool made;
		struct strmap names;	/* name: its entry in defs */
		struct ptx_def_size {
			size_t size;
			enum ptx_space space;
		} *defs;
		size_t count;
		size_t cap;
	} defs;
};

/* A .callprototype's results and arguments; a .calltargets' any. */
#define PTX_PROTO(rets, args)	((rets) << 16 | (args))
#define PTX_PROTO_RETS(p)	((p) >> 16)
#define PTX_PROTO_ARGS(p)	((p) & 0xffff)
#define PTX_PROTO_ANY		UINT32_MAX

int ptx_fail(struct ptx_parser *ps, enum cumc_ptx_status st,
	     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int ptx_expect(struct ptx_parser *ps, const char *s);
int ptx_number(struct ptx_parser *ps, uint64_t *value);
int ptx_grow(struct ptx_parser *ps, void **arr, size_t *cap, size_t need,
	     size_t elem);
struct ptx_type ptx_type_word(const char *w, size_t len);
const struct ptx_sym *ptx_find_sym(const struct ptx_parser *ps,
				   const char *name, size_t len);
int ptx_parse_var(struct ptx_parser *ps, enum ptx_space space, bool local);
void ptx_symtab_clear(struct ptx_symtab *tab);

/* function.c */
int ptx_parse_function(struct ptx_parser *ps, bool entry);
void ptx_function_free(struct cumc_ptx_function *f);
/* Every call's callee has a body; at the end of the module. */
int ptx_check_calls(struct ptx_parser *ps);
void ptx_function_state_clear(struct ptx_parser *ps);
/* The label @name's number, declared on first use. */
int ptx_label(struct ptx_parser *ps, const char *name, size_t len,
	      uint32_t *label);

/* decode.c */
int ptx_parse_insn(struct ptx_parser *ps);
/* The index of device function @name in the module, or -1. */
int ptx_find_func(const struct ptx_parser *ps, const char *name, size_t len);
/* A literal as an immediate operand (lit tells how it was written). */
int ptx_immediate(struct ptx_parser *ps, struct ptx_operand *o);
/* check.c: whether the executor runs @in as decoded; immediates typed. */
int ptx_check_insn(struct ptx_parser *ps, struct ptx_insn *in,
		   const char *text, size_t len, unsigned int nopnd);
/* Gives an immediate the bits of type @t. */
int ptx_imm_convert(struct ptx_parser *ps, struct ptx_operand *o,
		    struct ptx_type t);

#endif
