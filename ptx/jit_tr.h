/* SPDX-License-Identifier: MIT */
/*
 * What the translator's files share.  jit.c opens LLVM, compiles a
 * module's kernels and loads them; jit_cache.c keeps the objects on disk;
 * jit_translate.c makes the IR (its helpers, the per-thread code, the
 * round), jit_warp.c the warp code and jit_forms.c its lane forms.
 */
#ifndef _CUMC_PTX_JIT_TR_H
#define _CUMC_PTX_JIT_TR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "jit.h"

/* Part of the cache key: a change of the generated code changes it. */
#define PTX_JIT_VERSION "cumc-jit-27-waiting-warps"

/* The LLVM C API functions used, resolved from PTX_JIT_LIBRARY. */
#define LLVM_FUNCTIONS(X)						\
	X(LLVMContextCreate) X(LLVMContextDispose)			\
	X(LLVMModuleCreateWithNameInContext) X(LLVMDisposeModule)	\
	X(LLVMSetTarget) X(LLVMSetModuleDataLayout)			\
	X(LLVMInt1TypeInContext) X(LLVMInt8TypeInContext)		\
	X(LLVMInt16TypeInContext) X(LLVMInt32TypeInContext)		\
	X(LLVMInt64TypeInContext) X(LLVMIntTypeInContext)		\
	X(LLVMFloatTypeInContext) X(LLVMDoubleTypeInContext)		\
	X(LLVMVoidTypeInContext) X(LLVMPointerType)			\
	X(LLVMFunctionType) X(LLVMAddFunction) X(LLVMGetParam)		\
	X(LLVMAppendBasicBlockInContext) X(LLVMCreateBuilderInContext)	\
	X(LLVMDisposeBuilder) X(LLVMPositionBuilderAtEnd)		\
	X(LLVMGetInsertBlock) X(LLVMGetBasicBlockTerminator)		\
	X(LLVMConstInt) X(LLVMConstAllOnes) X(LLVMConstNull)		\
	X(LLVMBuildAlloca) X(LLVMBuildLoad2) X(LLVMBuildStore)		\
	X(LLVMBuildGEP2) X(LLVMBuildBitCast) X(LLVMBuildIntToPtr)	\
	X(LLVMBuildPtrToInt) X(LLVMBuildTrunc) X(LLVMBuildZExt)		\
	X(LLVMBuildSExt) X(LLVMBuildAdd) X(LLVMBuildSub)		\
	X(LLVMBuildMul) X(LLVMBuildUDiv) X(LLVMBuildSDiv)		\
	X(LLVMBuildURem) X(LLVMBuildSRem) X(LLVMBuildAnd)		\
	X(LLVMBuildOr) X(LLVMBuildXor) X(LLVMBuildNot) X(LLVMBuildNeg)	\
	X(LLVMBuildShl) X(LLVMBuildLShr) X(LLVMBuildAShr)		\
	X(LLVMBuildICmp) X(LLVMBuildFCmp) X(LLVMBuildSelect)		\
	X(LLVMBuildFAdd) X(LLVMBuildFSub) X(LLVMBuildFMul)		\
	X(LLVMBuildFNeg) X(LLVMBuildFDiv) X(LLVMBuildSIToFP)		\
	X(LLVMBuildUIToFP) X(LLVMBuildFPExt) X(LLVMBuildFPTrunc)	\
	X(LLVMBuildBr) X(LLVMBuildCondBr)				\
	X(LLVMBuildSwitch) X(LLVMAddCase) X(LLVMBuildRet)		\
	X(LLVMBuildCall2) X(LLVMBuildFence) X(LLVMSetOrdering)		\
	X(LLVMSetAlignment) X(LLVMGetIntrinsicDeclaration)		\
	X(LLVMLookupIntrinsicID) X(LLVMIntrinsicGetType)		\
	X(LLVMGetDefaultTargetTriple) X(LLVMGetTargetFromTriple)	\
	X(LLVMGetHostCPUName) X(LLVMGetHostCPUFeatures)			\
	X(LLVMCreateTargetMachine) X(LLVMDisposeTargetMachine)		\
	X(LLVMCreateTargetDataLayout) X(LLVMDisposeTargetData)		\
	X(LLVMTargetMachineEmitToMemoryBuffer) X(LLVMDisposeMessage)	\
	X(LLVMCreatePassBuilderOptions) X(LLVMDisposePassBuilderOptions) \
	X(LLVMRunPasses) X(LLVMGetBufferStart) X(LLVMGetBufferSize)	\
	X(LLVMDisposeMemoryBuffer)					\
	X(LLVMCreateMemoryBufferWithMemoryRangeCopy)			\
	X(LLVMInitializeX86TargetInfo) X(LLVMInitializeX86Target)	\
	X(LLVMInitializeX86TargetMC) X(LLVMInitializeX86AsmPrinter)	\
	X(LLVMOrcCreateLLJITBuilder) X(LLVMOrcCreateLLJIT)		\
	X(LLVMOrcLLJITGetMainJITDylib) X(LLVMOrcLLJITAddObjectFile)	\
	X(LLVMOrcLLJITLookup) X(LLVMGetErrorMessage)			\
	X(LLVMDisposeErrorMessage) X(LLVMConsumeError) X(LLVMVerifyModule) \
	X(LLVMGetTypeKind) X(LLVMVectorType) X(LLVMGetElementType)	\
	X(LLVMGetVectorSize) X(LLVMConstVector) X(LLVMGetUndef)		\
	X(LLVMBuildExtractElement) X(LLVMBuildInsertElement)		\
	X(LLVMBuildShuffleVector) X(LLVMSetVolatile) X(LLVMTypeOf)	\
	X(LLVMBuildPhi) X(LLVMAddIncoming) X(LLVMBuildAtomicRMW)		\
	X(LLVMBuildAtomicCmpXchg) X(LLVMBuildExtractValue)

#define LLVM_POINTER(name) __typeof__(&name) name;
struct llvm_functions {
	LLVM_FUNCTIONS(LLVM_POINTER)
};

#undef LLVM_POINTER

/* The functions, which jit_open() resolves before any other use. */
extern struct llvm_functions ptx_jit_llvm;

/* Whether the environment sets @name to 0. */
bool ptx_jit_env_off(const char *name);

/*
 * What warp code knows of a register's lanes: lane l holds lane 0's value
 * plus l * stride (ptx_jit_forms_after()).
 */
struct lane_form {
	bool known;
	int64_t stride;
	LLVMValueRef base;	/* lane 0's value, a scalar i64 */
};

struct tr {
	const struct cumc_ptx_function *fn;
	LLVMContextRef c;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMValueRef f, run, idx, tp;
	LLVMValueRef *regs;		/* i64 allocas */
	LLVMValueRef budget, resume_pc, ti;
	LLVMBasicBlockRef *starts;	/* per instruction; NULL inside a block */
	uint32_t *seglen;		/* instructions from a start to the next */
	LLVMBasicBlockRef next, suspend, barrier, exited, fault;
	/* values' types: vectors of PTX_JIT_LANES while warp code is made */
	LLVMTypeRef i1, i32, i64, i128, f32, f64;
	/* scalars: the run's fields, addresses, indices */
	LLVMTypeRef s1, i8, s32, s64, s128, sf32, sf64, p8, step_ty, mem_ty;
	LLVMTypeRef mm_ty, defer_ty, flush_ty;
	uint32_t sites;
	/* a multimem pair may be kept back: memory's instructions flush */
	bool defers;
	/* warp code (see ptx_jit_warp_code()) */
	bool warp;
	LLVMValueRef *vregs, vti, vpc, mmbuf;
	/* i1: the group runs in its CTA's first round (records unread) */
	LLVMValueRef warp_fresh;
	LLVMBasicBlockRef *vstarts, handoff, warp_stopped, warp_exited;
	LLVMBasicBlockRef per_thread;
	uint32_t *site_of;		/* a memory instruction's site */
	struct lane_form *forms;	/* per register, in warp code */
	/*
	 * the forms a join keeps (ptx_jit_join_forms()): per instruction
	 * NULL, or a stride per register (HEAD_NO_FORM: none), merged over
	 * the ways into it until it is decided; every way in leaves lane
	 * 0's value in form_base
	 */
	int64_t **join_strides;
	bool *join_decided;
	LLVMValueRef *form_base;	/* s64 allocas, per register */
	LLVMBasicBlockRef *vresume;	/* warp_resume()'s way to a join */
	bool *joins;			/* instructions control flow joins at */
	bool *check_only;		/* resume points of form checks alone */
	/*
	 * targets of a branch back: where warp code's slice ends, the warp
	 * stopping whole to resume there as a warp (every cycle of the
	 * code passes one)
	 */
	bool *loop_heads;
	/*
	 * The registers a stopped thread keeps in its slots (live where it
	 * may resume, jit_live.c), and those warp code takes back after
	 * bar.sync or at a loop's head; one bit each
	 */
	uint64_t *kept, *resumed;
	/*
	 * live at each instruction, a set after the other; NULL: not known
	 * (ptx_jit_live_in() reads it)
	 */
	uint64_t *live_at;
	bool tid_forms;			/* ptx_jit_tid_x_only() */
	LLVMValueRef tid_x0;		/* tid_in_row()'s since a join */
	/* lane_value(): the instruction made for one lane, its sources' forms */
	const struct ptx_insn *lane_in;
	const struct lane_form *lane_forms;
	unsigned int lane;
	LLVMValueRef lane_result;
};

#define RUN_FIELD(f) offsetof(struct ptx_jit_run, f)

static inline bool ptx_jit_reg_in(const uint64_t *set, uint32_t r)
{
	return set[r / 64] >> (r % 64) & 1;
}

/* ---- jit_cache.c ---- */

/*
 * The cache key: the PTX, the translator (its version, which changes with
 * the code it generates, and the layout of what the code reads), the CPU
 * the code is for.
 */
void ptx_jit_cache_key(const char *text, size_t len, char *key, size_t size);

/*
 * The cache directory: CUDA_CACHE_PATH, else $XDG_CACHE_HOME/cumc/jit or
 * ~/.cache/cumc/jit; none under CUDA_CACHE_DISABLE=1 or CUMC_JIT_CACHE=0.
 */
bool ptx_jit_cache_dir(char *dir, size_t size);

/* The object cached at @path; NULL where there is none. */
LLVMMemoryBufferRef ptx_jit_cache_read(const char *path);

/*
 * Written under a temporary name and renamed: readers see all or none.
 * The directory exists: ptx_jit_cache_lock() made it, or the object was
 * there.
 */
void ptx_jit_cache_write(const char *path, LLVMMemoryBufferRef buf);

/*
 * The cache directory's lock, held while an object missing from it is
 * compiled: the processes that load one module at once (the ranks of a
 * job) compile it once, the others waiting and then reading what the
 * first wrote. -1 when it cannot be taken: then each compiles, as
 * without it.
 */
int ptx_jit_cache_lock(const char *dir);

/* ---- jit_translate.c ---- */

/* @v in an integer type, or in each lane of an integer vector type. */
LLVMValueRef ptx_jit_cint(LLVMTypeRef ty, uint64_t v);

/* Value types: scalars, or PTX_JIT_LANES lanes of them in warp code. */
void ptx_jit_set_warp(struct tr *t, bool warp);

/* A vector of PTX_JIT_LANES lanes holding the scalar @v. */
LLVMValueRef ptx_jit_splat(struct tr *t, LLVMValueRef v);

/* A scalar as a value: the same in every lane of warp code. */
LLVMValueRef ptx_jit_uniform(struct tr *t, LLVMValueRef v);

/* A new block at the end of the function being made. */
LLVMBasicBlockRef ptx_jit_new_block(struct tr *t);

/* @v as an i64 value (in each lane, in warp code). */
LLVMValueRef ptx_jit_i64c(struct tr *t, uint64_t v);

/* @base plus @off bytes. */
LLVMValueRef ptx_jit_byte_ptr(struct tr *t, LLVMValueRef base,
			      LLVMValueRef off);

/* @p as a pointer to @ty. */
LLVMValueRef ptx_jit_typed_ptr(struct tr *t, LLVMValueRef p, LLVMTypeRef ty);

/* The field at @off of the run (or of a struct at @base), a @ty. */
LLVMValueRef ptx_jit_load_field(struct tr *t, LLVMValueRef base, size_t off,
				LLVMTypeRef ty);

/* Adds @n to the u32 at @off of @base. */
void ptx_jit_add_field(struct tr *t, LLVMValueRef base, size_t off,
		       uint32_t n);

/* A call of the intrinsic @name overloaded on the @ntys types @tys. */
LLVMValueRef ptx_jit_intrinsic_of(struct tr *t, const char *name,
				  LLVMTypeRef *tys, unsigned int ntys,
				  LLVMValueRef *args, unsigned int n);

/* ptx_jit_intrinsic_of() for an intrinsic overloaded on one type, @ty. */
LLVMValueRef ptx_jit_intrinsic(struct tr *t, const char *name,
			       LLVMTypeRef ty, LLVMValueRef *args,
			       unsigned int n);

/* An integer value type of @size bytes. */
LLVMTypeRef ptx_jit_value_int(struct tr *t, unsigned int size);

/* Register @r as an i64 value: its lanes in warp code. */
LLVMValueRef ptx_jit_reg(struct tr *t, uint32_t r);

/* Register @r takes @v, an i64 value. */
void ptx_jit_set_reg(struct tr *t, uint32_t r, LLVMValueRef v);

/* Special register @sr as an i64 value. */
LLVMValueRef ptx_jit_sreg(struct tr *t, unsigned int sr);

/*
 * An operand's immediate.  A module variable's address is the storage of
 * the module being run, not the one compiled: the code is shared by
 * every load of the same PTX (and cached), so it reads the address.
 */
LLVMValueRef ptx_jit_imm(struct tr *t, const struct ptx_operand *o);

/* Whether @v, a register's value, is not 0 (an i1). */
/* Sign- or zero-extends the low @size bytes of @v to 64 bits. */
LLVMValueRef ptx_jit_extend(struct tr *t, LLVMValueRef v, unsigned int size,
			    bool sign);
LLVMValueRef ptx_jit_truthy(struct tr *t, LLVMValueRef v);

/* Whether the translator compiles @in itself. */
bool ptx_jit_native(const struct ptx_insn *in);

/*
 * Kernels with calls, warp operations or barriers other than bar.sync 0
 * (named, counted, arrive, red) stay with the interpreter.
 */
const struct ptx_insn *ptx_jit_uncompiled(const struct cumc_ptx_function *fn);

/* within(addr, size, lo, hi) of mem.c. */
LLVMValueRef ptx_jit_within(struct tr *t, LLVMValueRef addr, unsigned int size,
			    LLVMValueRef lo, LLVMValueRef hi);

/* The scalar integer type of @size bytes. */
LLVMTypeRef ptx_jit_int_type(struct tr *t, unsigned int size);

/* Register @r takes @x, which ld read, as exec_mem.c extends it. */
void ptx_jit_set_loaded(struct tr *t, const struct ptx_insn *in, uint32_t r,
			LLVMValueRef x);

/*
 * A vector of @n elements of @size bytes at @p in one access, as
 * exec_mem.c makes it (NCCL's LL protocol trusts a flag with the data
 * stored beside it): up to 8 bytes one relaxed atomic, 16 one volatile
 * <2 x i64>, which x86 processors with AVX make atomic.  A load gives
 * @elems, a store takes them, each of the element's width.
 */
void ptx_jit_vector_access(struct tr *t, LLVMValueRef p, unsigned int size,
			   unsigned int n, bool st, LLVMValueRef *elems);

/* Element @i's register of a load's or store's value; PTX_NO_REG: none. */
uint32_t ptx_jit_value_reg(const struct ptx_operand *v, unsigned int i);

/* Element @i of a store's value: its register, or the immediate. */
LLVMValueRef ptx_jit_value_elem(struct tr *t, const struct ptx_operand *v,
				unsigned int i);

/* Whether the block being made has its terminator. */
bool ptx_jit_terminated(struct tr *t);

/* A native instruction with registers for operands and result only. */
void ptx_jit_compute(struct tr *t, const struct ptx_insn *in);

/* Whether @fn is a kernel the translator takes. */
bool ptx_jit_compilable(const struct cumc_ptx_function *fn);

/* The symbol of kernel @i of the module of cache key @key. */
void ptx_jit_symbol_name(char *buf, size_t size, const char *key,
			 unsigned int i);

/*
 * Where thread @index (a scalar i32) keeps its registers: register r's
 * slot is r strides (the CTA's threads) from the first, made once for a
 * run of saves or loads rather than reading the run's fields for each.
 */
struct slot_row {
	struct tr *t;
	LLVMValueRef first, stride;
};
void ptx_jit_slot_row(struct tr *t, LLVMValueRef index, struct slot_row *row);
/* Register @r's slot in @row, an i64 pointer. */
LLVMValueRef ptx_jit_slot_in(const struct slot_row *row, uint32_t r);

/*
 * Whether register @r is live at instruction @pc (none past the last);
 * for a kernel not analyzed, whether a stopped thread keeps it.
 */
bool ptx_jit_live_in(const struct tr *t, uint32_t pc, uint32_t r);

/*
 * Before @in, where the function may keep multimem pairs back (t->defers,
 * mm_defer.c) and @in touches memory or orders it: those kept are made.
 */
void ptx_jit_flush_before(struct tr *t, const struct ptx_insn *in);

/* Before @in, a poll (exec.h): the round's count of them, r->polls. */
void ptx_jit_count_poll(struct tr *t, const struct ptx_insn *in);

/* @m's compilable kernels into @t's module; false when out of memory. */
bool ptx_jit_translate_module(struct tr *t, const struct cumc_ptx_module *m,
			      const char *key);

/*
 * An atomic (atomic_native()) of one thread at the host address @p, its
 * operands @b (and cas's @c) scalars of its size: a sequentially
 * consistent host atomic, as exec_mem.c makes it; the old value.
 */
LLVMValueRef ptx_jit_atomic_at(struct tr *t, const struct ptx_insn *in,
			       LLVMValueRef p, LLVMValueRef b, LLVMValueRef c);

/* An address operand's value: its register plus its offset. */
LLVMValueRef ptx_jit_address(struct tr *t, const struct ptx_operand *a);

/* ---- jit_warp.c ---- */

/*
 * Whether warp code runs @in for the lanes of a warp at once.  At any
 * other instruction the warp's threads go on one by one from there
 * (ptx_jit_hand_off()), as they do where the lanes of a guard or a branch
 * disagree or an access leaves the ranges checked inline.
 */
bool ptx_jit_warp_native(const struct cumc_ptx_function *fn,
			 const struct ptx_insn *in);

/*
 * The warp's threads go on one by one from @pc, their registers live
 * there in their slots.
 */
void ptx_jit_hand_off(struct tr *t, uint32_t pc);

/*
 * In the block the round has reached thread @t->idx in (its record at
 * @tp): the first thread of a whole warp whose threads stand together
 * (the same record: runnable, none ran yet or all at one pc with their
 * registers saved) runs the warp code, the others the per-thread code.
 * A whole warp whose threads all wait together (at one barrier or warp
 * operation) or have all exited goes to @waiting, which passes over it
 * at once where the per-thread code would look at each of its threads
 * only to pass it (a round of a CTA whose thread 0 polls while the rest
 * wait at bar.sync).
 */
void ptx_jit_warp_entry(struct tr *t, LLVMValueRef tp, LLVMBasicBlockRef warp,
			LLVMBasicBlockRef waiting);

/*
 * The warp code: the kernel's instructions over vectors of the warp's
 * lanes, from its first instruction, where bar.sync let the threads go
 * or at a loop's head (warp_resume()), in the block @warp; its ways out
 * are the warp's end (each thread exited), its stop at a loop's head when
 * its slice is spent, and the hand-off to the per-thread code.  @tp is
 * the warp's first thread record, @counter the round's thread counter,
 * @head the round's next step.
 */
void ptx_jit_warp_code(struct tr *t, LLVMBasicBlockRef warp, LLVMValueRef tp,
		       LLVMValueRef counter, LLVMBasicBlockRef head);

/* ---- jit_forms.c ---- */

/* No register of warp code has a form (where control flow joins). */
void ptx_jit_forms_forget(struct tr *t);

/* A register's lanes from its form: base + <0, s, 2s, ...>. */
LLVMValueRef ptx_jit_form_lanes(struct tr *t, const struct lane_form *f);

/*
 * A register with a form is made from it where it is read (so that lanes
 * no instruction reads as a vector are not made); its storage holds it
 * once control leaves the forms: where it joins, and to the per-thread
 * code.
 */
void ptx_jit_forms_flush(struct tr *t);

/*
 * Branches to warp code's join at @pc.  Before the join is decided (from
 * before it), the forms go into the registers' storage and their strides
 * are merged; after, lane 0 of each register it keeps a form of goes there,
 * one whose form was lost on the way checked still to be of it (the
 * warp's threads going on one by one from @pc where it is not).
 */
void ptx_jit_branch_to_join(struct tr *t, uint32_t pc);

#define HEAD_NO_FORM INT64_MIN

/*
 * At join @pc in the order of the code: the way from the instruction
 * before it made, the forms it keeps decided (t->join_strides[pc]).  The
 * forms at @pc, after ptx_jit_forms_forget(): ptx_jit_join_enter().
 */
void ptx_jit_join_forms(struct tr *t, uint32_t pc);
void ptx_jit_join_enter(struct tr *t, uint32_t pc);

/*
 * The strides the ways into join @pc brought so far (HEAD_NO_FORM where
 * one had none, or another stride), merged with the forms now, no code:
 * a way in, or a warp stopping at bar.sync to resume at @pc after it with
 * its registers as they are now.
 */
void ptx_jit_join_merge(struct tr *t, uint32_t pc);

/*
 * warp_resume()'s way into join @pc, the registers taken from the
 * threads' slots: on to @pc where those it keeps forms of are of those
 * forms, else to the per-thread code.
 */
void ptx_jit_join_resume(struct tr *t, uint32_t pc);

/*
 * Whether tid.x has a form: where the kernel reads tid.x alone of the
 * tid, it is launched, but for rare cases, with blocks of one row, whose
 * warps tid_in_row() lets go on.  A kernel that reads tid.y or tid.z is
 * launched with rows that may be narrower than a warp (8 by 8): its tid
 * have no form, so that such warps are not handed on.
 */
bool ptx_jit_tid_x_only(const struct cumc_ptx_function *fn);

/*
 * The forms of @in's sources into @f (indexed as its operands) and its
 * result's @stride; false where its result has no form.
 */
bool ptx_jit_forms_before(struct tr *t, const struct ptx_insn *in,
			  struct lane_form *f, int64_t *stride, uint32_t pc);

/* After @in was made as vectors: the forms it leaves. */
void ptx_jit_forms_after(struct tr *t, const struct ptx_insn *in);

/*
 * @in (at @pc) whose result has a form: made for lane 0 alone (and the
 * last lane, where a jump could show), its register the form's lanes.
 */
void ptx_jit_lanes_of_form(struct tr *t, const struct ptx_insn *in,
			   const struct lane_form *f, int64_t stride,
			   uint32_t pc);

/*
 * setp (at @pc) of an integer order, of sources with forms, all alike but
 * one at most: made for lane 0 alone, its predicate a form of stride 0,
 * which guards take as a scalar (ptx_jit_uniform_guard()).  Where one
 * source's lanes vary, lane 0's result must be the last lane's and the
 * lanes must not wrap in the compare's order, or the threads go on one by
 * one from @pc.  False where @in is none of these.
 */
bool ptx_jit_setp_of_forms(struct tr *t, const struct ptx_insn *in,
			   uint32_t pc);

/*
 * @in's guard as a scalar i1, where its predicate is the same in every
 * lane (a form of stride 0); else NULL.
 */
LLVMValueRef ptx_jit_uniform_guard(struct tr *t, const struct ptx_insn *in);

/*
 * Whether warp code may check a lane form at @in: a result with a form
 * made from fewer than 64 bits, or from tid, or an ordered setp.  The
 * threads then resume there one by one, without a block's count of their
 * slice.
 */
bool ptx_jit_form_check_at(const struct tr *t, const struct ptx_insn *in);

#endif
