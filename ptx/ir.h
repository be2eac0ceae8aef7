/* SPDX-License-Identifier: MIT */
/*
 * The IR the parser builds and the executor runs.
 *
 * A function is a flat array of instructions split into basic blocks
 * (a block starts at a branch target or after a branch, and ends at a
 * branch, ret or exit), over typed virtual registers: each register has
 * one PTX type for its whole life, as in the source.  That is the shape
 * an LLVM IR translation wants (one LLVM value per register through
 * alloca + mem2reg, one LLVM block per IR block); the interpreter keeps
 * every register in a 64-bit slot.
 *
 * Symbols are resolved when the function has been parsed: an operand
 * naming a variable holds the variable's address in the variable's state
 * space (an offset in the parameter buffer, the block's shared memory or
 * the thread's local memory; the host address of the module's storage
 * for .global and .const).
 */
#ifndef _CUMC_PTX_IR_H
#define _CUMC_PTX_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cumc_ptx.h"

/*
 * A type: its class and its size in bytes.  PC_F is f32 and f64; the
 * 16-bit floats have classes of their own, PC_H (IEEE binary16, .f16)
 * and PC_BH (bfloat16, .bf16), of size 2, or 4 for a packed pair
 * (.f16x2, .bf16x2), so that no f32/f64 path takes them by mistake.
 */
enum ptx_class { PC_NONE, PC_B, PC_U, PC_S, PC_F, PC_PRED, PC_H, PC_BH };

struct ptx_type {
	uint8_t cls;		/* enum ptx_class */
	uint8_t size;		/* 1, 2, 4 or 8; predicates 1 */
};

enum ptx_space {
	PS_GENERIC,
	PS_GLOBAL,
	PS_SHARED,
	PS_LOCAL,
	PS_PARAM,
	PS_CONST,
};

enum ptx_op {
	OP_ADD, OP_SUB, OP_MUL, OP_MAD, OP_FMA, OP_DIV, OP_REM,
	OP_MIN, OP_MAX, OP_ABS, OP_NEG,
	OP_AND, OP_OR, OP_XOR, OP_NOT, OP_SHL, OP_SHR, OP_CNOT,
	OP_POPC, OP_CLZ, OP_BREV, OP_BFIND,
	OP_BFE, OP_BFI, OP_PRMT, OP_LOP3,	/* prmt's mode: wmode */
	OP_SHF,				/* wmode: SHF_* */
	OP_TESTP, OP_COPYSIGN,			/* testp's class: wmode */
	OP_MUL24, OP_MAD24, OP_SAD,
	OP_SQRT, OP_RCP,
	OP_EX2, OP_LG2, OP_SIN, OP_COS, OP_RSQRT, OP_TANH,	/* .approx */
	OP_SETP, OP_SELP, OP_MOV, OP_CVT, OP_CVTA,
	OP_LD, OP_ST,
	OP_BRA, OP_RET, OP_EXIT, OP_BAR, OP_MEMBAR, OP_TRAP,
	OP_ATOM, OP_RED,
	OP_SHFL, OP_VOTE, OP_MATCH, OP_REDUX, OP_ACTIVEMASK,
	OP_WARPSYNC,	/* bar.warp.sync */
	OP_CALL,	/* o[0].imm: the function's struct ptx_call */
	OP_MULTIMEM,	/* wmode: enum cumc_ptx_mm_kind; mmtype, mmpack */
	OP_COUNT
};

/* Comparisons of setp. */
enum ptx_cmp {
	CMP_EQ, CMP_NE, CMP_LT, CMP_LE, CMP_GT, CMP_GE,
	CMP_LO, CMP_LS, CMP_HI, CMP_HS,
	CMP_EQU, CMP_NEU, CMP_LTU, CMP_LEU, CMP_GTU, CMP_GEU,
	CMP_NUM, CMP_NAN,
};

/* Rounding: floating point (rn...) and to integer (rni...). */
enum ptx_rnd { RND_NONE, RND_RN, RND_RZ, RND_RM, RND_RP,
	       RND_RNI, RND_RZI, RND_RMI, RND_RPI };

/* The operation of atom, red and setp's second predicate. */
enum ptx_prmt { PRMT_DEFAULT, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL,
		PRMT_ECR, PRMT_RC16 };
enum ptx_testp { TESTP_FINITE = 1, TESTP_INFINITE, TESTP_NUMBER,
		 TESTP_NOTANUMBER, TESTP_NORMAL, TESTP_SUBNORMAL };
enum ptx_aop { AOP_NONE, AOP_ADD, AOP_CAS, AOP_EXCH, AOP_MIN, AOP_MAX,
	       AOP_INC, AOP_DEC, AOP_AND, AOP_OR, AOP_XOR, AOP_POPC };

/* shf's direction and mode, in its wmode: one of each. */
#define SHF_LEFT	0x1u
#define SHF_RIGHT	0x2u
#define SHF_WRAP	0x4u
#define SHF_CLAMP	0x8u

/* What bar and barrier do, in the wmode of the instruction. */
enum ptx_bar_kind { BAR_SYNC, BAR_ARRIVE, BAR_RED };

/* A CTA's barriers, numbered 0 to 15 as in the ISA. */
#define PTX_BARRIERS 16

/* Flags of an instruction. */
#define PF_FTZ		0x0001u
#define PF_SAT		0x0002u
#define PF_HI		0x0004u
#define PF_LO		0x0008u
#define PF_WIDE		0x0010u
#define PF_TO		0x0020u		/* cvta.to */
#define PF_APPROX	0x0040u
#define PF_UNI		0x0080u
#define PF_VOLATILE	0x0100u
#define PF_SYNC		0x0200u
#define PF_FULL		0x0400u		/* div.full: PF_APPROX too */
#define PF_NAN		0x0800u		/* min.NaN, max.NaN */
#define PF_RELU		0x1000u		/* fma.relu, cvt.relu */
#define PF_SATFINITE	0x2000u		/* cvt.satfinite */
#define PF_SHIFTAMT	0x4000u		/* bfind.shiftamt */
#define PF_ORDERED	0x8000u		/* .acquire, .release, .acq_rel, .sc */

/* The mode of a warp operation: shfl, vote, match. */
enum ptx_wmode { WM_NONE, WM_UP, WM_DOWN, WM_BFLY, WM_IDX,
		 WM_ALL, WM_ANY, WM_UNI, WM_BALLOT };

#define PTX_NO_REG	UINT32_MAX

enum ptx_opnd_kind {
	PO_NONE,
	PO_REG,		/* reg */
	PO_IMM,		/* imm */
	PO_SREG,	/* special register sreg */
	PO_ADDR,	/* [reg + imm], reg may be PTX_NO_REG */
	PO_VEC,		/* {vec[0..nvec)}, PTX_NO_REG for a sink */
	PO_LABEL,	/* imm: the target instruction */
	PO_SINK,	/* _ */
};

/* Special registers; the .x/.y/.z ones are followed by their y and z. */
enum ptx_sreg {
	SR_TID_X, SR_TID_Y, SR_TID_Z,
	SR_NTID_X, SR_NTID_Y, SR_NTID_Z,
	SR_CTAID_X, SR_CTAID_Y, SR_CTAID_Z,
	SR_NCTAID_X, SR_NCTAID_Y, SR_NCTAID_Z,
	SR_LANEID, SR_WARPID, SR_NWARPID, SR_SMID, SR_NSMID,
	SR_CLOCK, SR_CLOCK64, SR_GLOBALTIMER,
	SR_LANEMASK_EQ, SR_LANEMASK_LT, SR_LANEMASK_LE,
	SR_LANEMASK_GT, SR_LANEMASK_GE,
};

struct ptx_operand {
	uint8_t kind;		/* enum ptx_opnd_kind */
	uint8_t nvec;
	uint8_t neg;		/* !%p as a source predicate */
	uint8_t sreg;
	uint8_t lit;		/* enum ptx_lit of an immediate */
	uint8_t dyn_shared;	/* imm is relative to dynamic shared memory */
	uint8_t frame;		/* imm is relative to the function's local frame */
	/* imm is in module variable global - 1 (its storage's host address) */
	uint16_t global;
	uint32_t reg;
	uint32_t vec[4];
	uint64_t imm;
};

/* How an immediate was written, until the parser gives it its type. */
enum ptx_lit { LIT_INT, LIT_F32, LIT_F64, LIT_DEC };

#define PTX_MAX_OPERANDS 6	/* shfl: d|p, a, b, c, membermask */

struct ptx_insn {
	uint8_t op;		/* enum ptx_op */
	uint8_t cmp;		/* enum ptx_cmp */
	uint8_t rnd;		/* enum ptx_rnd */
	uint8_t space;		/* enum ptx_space */
	uint8_t vec;		/* 1, 2 or 4 elements */
	uint8_t aop;		/* enum ptx_aop */
	uint8_t nopnd;
	uint8_t guard_neg;
	uint8_t wmode;		/* enum ptx_wmode; multimem: its kind; bar: enum ptx_bar_kind */
	uint8_t mmtype;		/* multimem: enum cumc_ptx_mm_type */
	uint8_t mmpack;		/* multimem: elements per register (x2: 2) */
	uint16_t flags;
	struct ptx_type type;	/* the instruction's (cvt: destination) */
	struct ptx_type type2;	/* cvt: source; setp and slct: unused */
	uint32_t guard;		/* predicate register, or PTX_NO_REG */
	uint32_t line;
	struct ptx_operand o[PTX_MAX_OPERANDS];
};

struct ptx_jit_run;

struct ptx_param {
	char *name;
	size_t offset;
	size_t size;
};

/*
 * A call: the callee (an index in the module's functions), or for an
 * indirect call the register holding its address, and where the
 * arguments and the results lie: .param variables of the caller, which
 * live in its local memory (their addresses there).
 */
struct ptx_call {
	uint32_t callee;
	uint32_t target;	/* indirect: the address's register; else PTX_NO_REG */
	uint32_t nargs, nrets;
	uint32_t line;
	uint64_t *args;
	uint64_t *rets;
};

/* Device functions the driver provides: declared .extern, no body. */
enum ptx_builtin { PTX_BUILTIN_NONE, PTX_BUILTIN_ASSERTFAIL };

struct cumc_ptx_function {
	char *name;
	bool entry;		/* a kernel; else a device function (.func) */
	bool defined;		/* a .func with a body, not a prototype */
	uint8_t builtin;	/* enum ptx_builtin, for one not defined */
	unsigned int nrets;	/* .func: its first nrets params are results */
	struct ptx_call *calls;
	uint32_t ncalls;
	struct ptx_param *params;
	unsigned int nparams;
	size_t param_size;
	uint32_t nregs;
	struct ptx_type *reg_types;
	struct ptx_insn *insns;
	uint32_t ninsns;
	uint32_t *block_starts;	/* first instruction of each basic block */
	uint32_t nblocks;
	size_t shared_size;	/* static, module variables included */
	size_t local_size;
	const struct cumc_ptx_module *module;
	/* Compiled code (jit.h), NULL to interpret; its memory sites. */
	uint32_t (*jit)(struct ptx_jit_run *run);
	uint32_t jit_sites;
};

/* A module variable with storage of its own (.global, .const). */
struct ptx_global {
	char *name;
	uint8_t space;
	bool declared_only;	/* .extern, its definition not met yet */
	size_t size;
	unsigned char *data;
};

struct cumc_ptx_module {
	struct cumc_ptx_function *funcs;
	unsigned int nfuncs;
	struct ptx_global *globals;
	unsigned int nglobals;
	/* The variables' addresses, for compiled code (which has none). */
	uint64_t *global_addrs;
	unsigned int version;	/* .version major * 10 + minor */
	unsigned int target;	/* .target sm_XX */
	uint32_t tag;		/* its functions' addresses (PTX_FUNC_ADDR) */
};

/*
 * A device function's address, as mov, an initializer and an indirect
 * call see it: its module's tag and its index, in a range no memory has
 * (a load or store through one faults), and another module's functions
 * not mistaken for this one's.
 */
#define PTX_FUNC_ADDR_MARK	0xfffe000000000000ull
#define PTX_FUNC_ADDR_TAGS	0xffffffu

static inline uint64_t ptx_func_addr(const struct cumc_ptx_module *m,
				     uint32_t index)
{
	return PTX_FUNC_ADDR_MARK | (uint64_t)m->tag << 24 | index;
}

/* Whether @addr is one of @m's function addresses; its index if so. */
static inline bool ptx_func_index(const struct cumc_ptx_module *m,
				  uint64_t addr, uint32_t *index)
{
	*index = addr & 0xffffff;
	return (addr & ~0xffffffull) == ptx_func_addr(m, 0) &&
	       *index < m->nfuncs;
}

static inline bool ptx_type_float(struct ptx_type t)
{
	return t.cls == PC_F;
}

/* f16, bf16 and their pairs. */
static inline bool ptx_type_half(struct ptx_type t)
{
	return t.cls == PC_H || t.cls == PC_BH;
}

static inline bool ptx_type_signed(struct ptx_type t)
{
	return t.cls == PC_S;
}

#endif
