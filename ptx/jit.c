// SPDX-License-Identifier: MIT
/*
 * The translator: a kernel's IR to LLVM IR, compiled in the process by
 * Debian's libLLVM (loaded with dlopen on the first module, so that a
 * machine without it interprets), the object cached on disk under a hash
 * of the PTX, the translator's version and the host CPU.
 *
 * The code of a kernel is one function running a round over the threads
 * of a CTA: for each thread that can run, it takes its registers (64-bit
 * slots as the interpreter keeps them, in allocas that mem2reg promotes),
 * runs from its pc until it exits, reaches bar.sync, or has spent its time
 * slice at the start of a block, and saves them only when it stops short
 * of its end.  Every register holds its value zero-extended from the
 * instruction's size, as in exec.c, so the two agree bit for bit.
 *
 * Threads that have not run yet, and threads that bar.sync let go of
 * together, run PTX_JIT_LANES at a time first, as the lanes of vectors
 * ("warp code", below): guards and branches the lanes agree on are the
 * group's, one check of a group's addresses serves its lanes' accesses,
 * consecutive elements are one vector access, and a multimem of
 * consecutive elements one call of the multicast path; anything else
 * hands the lanes to the per-thread code, each thread from its own pc
 * with its registers in its slots.  Where an index is lane 0's plus the
 * lane's multiple of a stride (tid.x and what integer arithmetic makes
 * of it: a "lane form"), warp code computes lane 0's alone and knows the
 * lanes' addresses consecutive without comparing them.
 *
 * Compiled natively: integer add sub mul (.lo .hi .wide) mad div rem min
 * max abs neg, bit logic, shifts, setp (integer and float, with its
 * predicate operation), selp, mov, cvt between integers, cvta, f32 and
 * f64 add sub mul fma (.rn) neg abs, ld and st of every space (the same
 * checks as mem.c: windows inline, a device range cached per instruction,
 * the rest through mem.c), bra, exit, ret, bar.sync, membar.  Any other
 * instruction the interpreter runs is a call to it for that instruction.
 * Kernels with calls or warp operations are interpreted whole.
 */
#include <assert.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

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
#define PTX_JIT_VERSION "cumc-jit-12-o1"
/* Another name at build time (-D) for a distribution's other soname. */
#ifndef PTX_JIT_LIBRARY
#define PTX_JIT_LIBRARY "libLLVM-14.so.1"
#endif
#define PTX_JIT_SLICE 4096
/* The lanes of warp code: the threads of a warp, one vector. */
#define PTX_JIT_LANES 16
/*
 * Warp code's prefetch, ahead of a consecutive access, and its locality
 * (LLVM's: 2, the second-level cache).  64 KiB ahead into the L2 measured
 * best on bench_ptx's vec_add (0.32 of the C loop; 16 KiB into the L1,
 * 0.29; 4 KiB, 0.21; none, 0.19): the pages ahead are walked before the
 * accesses reach them.
 */
#define PTX_JIT_PREFETCH 65536
#define PTX_JIT_LOCALITY 2
/*
 * How hard LLVM works.  O1 and the "less" code generation compile the
 * all-reduce kernels (tools/allreduce_kernel.ptx) in 1.6 s where O2 and
 * "aggressive" took 2.8 (in a TCG guest 27 s, from 61): most of the
 * difference is the post-RA scheduler and the passes after inlining,
 * over functions as long as warp code makes them.  The code ran as fast
 * (bench_ptx's vec_add and fma_chain, bench_mm_kernel: within the runs'
 * noise; Documentation/performance.md).
 */
#define PTX_JIT_PIPELINE "default<O1>"
#define PTX_JIT_CODEGEN_LEVEL LLVMCodeGenLevelLess

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
	X(LLVMBuildFNeg) X(LLVMBuildBr) X(LLVMBuildCondBr)		\
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
	X(LLVMBuildPhi) X(LLVMAddIncoming)

#define LLVM_POINTER(name) __typeof__(&name) name;
static struct {
	LLVM_FUNCTIONS(LLVM_POINTER)
} L;
#undef LLVM_POINTER

/* dlsym's names of the functions, and where each goes. */
#define LLVM_NAME(name) { #name, (void **)&L.name },
static const struct {
	const char *name;
	void **fn;
} llvm_names[] = { LLVM_FUNCTIONS(LLVM_NAME) };
#undef LLVM_NAME

/* The one JIT of the process: compiled code lives as long as it. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;
static LLVMOrcLLJITRef jit;
static char *host_cpu, *host_features;
static bool host_fma;
static int jit_state;	/* 0: not tried, 1: ready, -1: unavailable */

static void (*ptx_log_hook)(const char *line);

void cumc_ptx_set_log(void (*log)(const char *line))
{
	ptx_log_hook = log;
}

void ptx_log(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!ptx_log_hook)
		return;
	ptx_log_hook(line);
}

static bool env_off(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "0");
}

/* Takes (and disposes of) an LLVM error: true when there was one. */
static bool llvm_failed(LLVMErrorRef err, const char *what)
{
	char *msg;

	if (!err)
		return false;
	msg = L.LLVMGetErrorMessage(err);
	ptx_log("JIT: %s: %s", what, msg);
	L.LLVMDisposeErrorMessage(msg);
	return true;
}

/* Whether the comma-separated @features list @feature. */
static bool has_feature(const char *features, const char *feature)
{
	size_t n = strlen(feature);
	const char *p;

	for (p = features; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, feature, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static int jit_open(void)
{
	void *h = dlopen(PTX_JIT_LIBRARY, RTLD_NOW | RTLD_LOCAL);
	size_t i;

	if (!h) {
		ptx_log("JIT: %s; kernels run on the interpreter", dlerror());
		return -1;
	}
	for (i = 0; i < sizeof(llvm_names) / sizeof(llvm_names[0]); i++) {
		*llvm_names[i].fn = dlsym(h, llvm_names[i].name);
		if (!*llvm_names[i].fn) {
			ptx_log("JIT: %s lacks %s; kernels run on the interpreter",
				PTX_JIT_LIBRARY, llvm_names[i].name);
			return -1;
		}
	}
	L.LLVMInitializeX86TargetInfo();
	L.LLVMInitializeX86Target();
	L.LLVMInitializeX86TargetMC();
	L.LLVMInitializeX86AsmPrinter();
	if (llvm_failed(L.LLVMOrcCreateLLJIT(&jit, L.LLVMOrcCreateLLJITBuilder()),
			"LLJIT"))
		return -1;
	host_cpu = L.LLVMGetHostCPUName();
	host_features = L.LLVMGetHostCPUFeatures();
	host_fma = has_feature(host_features, "+fma");
	return 1;
}

/* ---- Translation ---- */

/*
 * What warp code knows of a register's lanes: lane l holds lane 0's value
 * plus l * stride (forms_after()).
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
	LLVMTypeRef mm_ty;
	uint32_t sites;
	/* warp code (see warp_code()) */
	bool warp;
	LLVMValueRef *vregs, vti, vpc, mmbuf;
	LLVMValueRef warp_fresh;	/* i1: warp_entry() found no thread ran */
	LLVMBasicBlockRef *vstarts, handoff, warp_exited, per_thread;
	uint32_t *site_of;		/* a memory instruction's site */
	struct lane_form *forms;	/* per register, in warp code */
	bool *joins;			/* instructions control flow joins at */
	bool *check_only;		/* resume points of form checks alone */
	bool tid_forms;			/* tid_x_only() */
	LLVMValueRef tid_x0;		/* tid_in_row()'s since a join */
	/* lane_value(): the instruction made for one lane, its sources' forms */
	const struct ptx_insn *lane_in;
	const struct lane_form *lane_forms;
	unsigned int lane;
	LLVMValueRef lane_result;
};

#define RUN_FIELD(f) offsetof(struct ptx_jit_run, f)

/* @v in an integer type, or in each lane of an integer vector type. */
static LLVMValueRef cint(LLVMTypeRef ty, uint64_t v)
{
	LLVMValueRef lanes[PTX_JIT_LANES];
	unsigned int i, n;

	if (L.LLVMGetTypeKind(ty) != LLVMVectorTypeKind)
		return L.LLVMConstInt(ty, v, false);
	n = L.LLVMGetVectorSize(ty);
	for (i = 0; i < n; i++)
		lanes[i] = L.LLVMConstInt(L.LLVMGetElementType(ty), v, false);
	return L.LLVMConstVector(lanes, n);
}

/* Value types: scalars, or PTX_JIT_LANES lanes of them in warp code. */
static void set_warp(struct tr *t, bool warp)
{
	LLVMTypeRef *value[] = { &t->i1, &t->i32, &t->i64, &t->i128,
				 &t->f32, &t->f64 };
	LLVMTypeRef scalar[] = { t->s1, t->s32, t->s64, t->s128, t->sf32,
				 t->sf64 };
	unsigned int i;

	t->warp = warp;
	for (i = 0; i < sizeof(scalar) / sizeof(scalar[0]); i++)
		*value[i] = warp ? L.LLVMVectorType(scalar[i], PTX_JIT_LANES) :
				   scalar[i];
}

/* A vector of PTX_JIT_LANES lanes holding the scalar @v. */
static LLVMValueRef splat(struct tr *t, LLVMValueRef v)
{
	LLVMTypeRef vt = L.LLVMVectorType(L.LLVMTypeOf(v), PTX_JIT_LANES);
	LLVMValueRef one = L.LLVMBuildInsertElement(t->b, L.LLVMGetUndef(vt),
						    v, cint(t->s32, 0), "");

	return L.LLVMBuildShuffleVector(t->b, one, L.LLVMGetUndef(vt),
		L.LLVMConstNull(L.LLVMVectorType(t->s32, PTX_JIT_LANES)), "");
}

/* A scalar as a value: the same in every lane of warp code. */
static LLVMValueRef uniform(struct tr *t, LLVMValueRef v)
{
	return t->warp ? splat(t, v) : v;
}

static LLVMBasicBlockRef new_block(struct tr *t)
{
	return L.LLVMAppendBasicBlockInContext(t->c, t->f, "");
}

static LLVMValueRef i64c(struct tr *t, uint64_t v)
{
	return cint(t->i64, v);
}

static LLVMValueRef byte_ptr(struct tr *t, LLVMValueRef base, LLVMValueRef off)
{
	return L.LLVMBuildGEP2(t->b, t->i8, base, &off, 1, "");
}

static LLVMValueRef typed_ptr(struct tr *t, LLVMValueRef p, LLVMTypeRef ty)
{
	return L.LLVMBuildBitCast(t->b, p, L.LLVMPointerType(ty, 0), "");
}

/* A field of the run (or of a struct at @base) at @off. */
static LLVMValueRef field_ptr(struct tr *t, LLVMValueRef base, size_t off,
			      LLVMTypeRef ty)
{
	return typed_ptr(t, byte_ptr(t, base, cint(t->s64, off)), ty);
}

static LLVMValueRef load_field(struct tr *t, LLVMValueRef base, size_t off,
			       LLVMTypeRef ty)
{
	return L.LLVMBuildLoad2(t->b, ty, field_ptr(t, base, off, ty), "");
}

static void store_field(struct tr *t, LLVMValueRef base, size_t off,
			LLVMTypeRef ty, LLVMValueRef v)
{
	L.LLVMBuildStore(t->b, v, field_ptr(t, base, off, ty));
}

static void add_field(struct tr *t, LLVMValueRef base, size_t off,
		      uint32_t n)
{
	LLVMValueRef v = load_field(t, base, off, t->s32);

	store_field(t, base, off, t->s32,
		    L.LLVMBuildAdd(t->b, v, cint(t->s32, n), ""));
}

/* A call of the intrinsic @name overloaded on the @ntys types @tys. */
static LLVMValueRef intrinsic_of(struct tr *t, const char *name,
				 LLVMTypeRef *tys, unsigned int ntys,
				 LLVMValueRef *args, unsigned int n)
{
	unsigned int id = L.LLVMLookupIntrinsicID(name, strlen(name));
	LLVMValueRef f = L.LLVMGetIntrinsicDeclaration(t->m, id, tys, ntys);

	return L.LLVMBuildCall2(t->b, L.LLVMIntrinsicGetType(t->c, id, tys, ntys),
				f, args, n, "");
}

static LLVMValueRef intrinsic(struct tr *t, const char *name,
			      LLVMTypeRef ty, LLVMValueRef *args,
			      unsigned int n)
{
	return intrinsic_of(t, name, &ty, 1, args, n);
}

static LLVMValueRef mask(struct tr *t, LLVMValueRef v, unsigned int size)
{
	if (size >= 8)
		return v;
	return L.LLVMBuildAnd(t->b, v, i64c(t, (1ull << (size * 8)) - 1), "");
}

/* An integer value type of @size bytes. */
static LLVMTypeRef value_int(struct tr *t, unsigned int size)
{
	LLVMTypeRef ty = L.LLVMIntTypeInContext(t->c, size * 8);

	return t->warp ? L.LLVMVectorType(ty, PTX_JIT_LANES) : ty;
}

/* Sign- or zero-extends the low @size bytes of @v to 64 bits. */
static LLVMValueRef extend(struct tr *t, LLVMValueRef v, unsigned int size,
			   bool sign)
{
	LLVMValueRef n;

	if (size >= 8)
		return v;
	n = L.LLVMBuildTrunc(t->b, v, value_int(t, size), "");
	return sign ? L.LLVMBuildSExt(t->b, n, t->i64, "") :
		      L.LLVMBuildZExt(t->b, n, t->i64, "");
}

/*
 * Whether warp code keeps register @r in 32-bit lanes: a 32-bit register
 * holds its value zero-extended (set_loaded() masks a sign-extended load
 * to the register's size), so its upper half is always 0 and need not
 * take vector lanes of its own.
 */
static bool narrow_reg(const struct tr *t, uint32_t r)
{
	return t->fn->reg_types[r].size == 4 &&
	       t->fn->reg_types[r].cls != PC_PRED;
}

static LLVMValueRef form_lanes(struct tr *t, const struct lane_form *f);

static LLVMValueRef reg(struct tr *t, uint32_t r)
{
	if (t->warp && t->forms[r].known)
		return form_lanes(t, &t->forms[r]);
	if (t->warp && narrow_reg(t, r))
		return L.LLVMBuildZExt(t->b, L.LLVMBuildLoad2(t->b,
			t->i32, t->regs[r], ""), t->i64, "");
	return L.LLVMBuildLoad2(t->b, t->i64, t->regs[r], "");
}

static void set_reg(struct tr *t, uint32_t r, LLVMValueRef v)
{
	if (t->warp && narrow_reg(t, r))
		v = L.LLVMBuildTrunc(t->b, v, t->i32, "");
	L.LLVMBuildStore(t->b, v, t->regs[r]);
}

static bool sreg_clock(unsigned int sr)
{
	return sr == SR_CLOCK || sr == SR_CLOCK64 || sr == SR_GLOBALTIMER;
}

/* A u32 of the run, as an i64 value. */
static LLVMValueRef run_u32(struct tr *t, size_t off)
{
	return uniform(t, L.LLVMBuildZExt(t->b, load_field(t, t->run, off,
					  t->s32), t->s64, ""));
}

/* tid.x/.y/.z from the thread's index in the CTA. */
static LLVMValueRef tid(struct tr *t, unsigned int d)
{
	LLVMValueRef bx = run_u32(t, RUN_FIELD(ntid[0]));
	LLVMValueRef by = run_u32(t, RUN_FIELD(ntid[1]));
	LLVMValueRef i = L.LLVMBuildZExt(t->b, t->idx, t->i64, "");

	if (d == 0)
		return L.LLVMBuildURem(t->b, i, bx, "");
	i = L.LLVMBuildUDiv(t->b, i, bx, "");
	return d == 1 ? L.LLVMBuildURem(t->b, i, by, "") :
			L.LLVMBuildUDiv(t->b, i, by, "");
}

/*
 * tid.x: in a 1-D block, the common case, the index itself; a branch, not
 * a select, so that the division is not made for every thread.
 */
static LLVMValueRef tid_x(struct tr *t, LLVMValueRef i)
{
	LLVMBasicBlockRef div = new_block(t), join = new_block(t);
	LLVMValueRef flat = L.LLVMBuildICmp(t->b, LLVMIntEQ,
		load_field(t, t->run, RUN_FIELD(ntid[0]), t->s32),
		load_field(t, t->run, RUN_FIELD(nthreads), t->s32), "");

	L.LLVMBuildStore(t->b, i, t->ti);
	L.LLVMBuildCondBr(t->b, flat, join, div);
	L.LLVMPositionBuilderAtEnd(t->b, div);
	L.LLVMBuildStore(t->b, tid(t, 0), t->ti);
	L.LLVMBuildBr(t->b, join);
	L.LLVMPositionBuilderAtEnd(t->b, join);
	return L.LLVMBuildLoad2(t->b, t->i64, t->ti, "");
}

static LLVMValueRef sreg(struct tr *t, unsigned int sr)
{
	LLVMValueRef i = L.LLVMBuildZExt(t->b, t->idx, t->i64, "");
	LLVMValueRef lane = L.LLVMBuildAnd(t->b, i, i64c(t, 31), "");
	LLVMValueRef bit = L.LLVMBuildShl(t->b, i64c(t, 1), lane, "");

	switch (sr) {
	case SR_TID_X: case SR_TID_Y: case SR_TID_Z:
		if (sr == SR_TID_X)
			return tid_x(t, i);
		return tid(t, sr - SR_TID_X);
	case SR_NTID_X: case SR_NTID_Y: case SR_NTID_Z:
		return run_u32(t, RUN_FIELD(ntid[sr - SR_NTID_X]));
	case SR_CTAID_X: case SR_CTAID_Y: case SR_CTAID_Z:
		return run_u32(t, RUN_FIELD(ctaid[sr - SR_CTAID_X]));
	case SR_NCTAID_X: case SR_NCTAID_Y: case SR_NCTAID_Z:
		return run_u32(t, RUN_FIELD(nctaid[sr - SR_NCTAID_X]));
	case SR_LANEID:
		return lane;
	case SR_WARPID:
		return L.LLVMBuildLShr(t->b, i, i64c(t, 5), "");
	case SR_NWARPID:
		return L.LLVMBuildLShr(t->b,
			L.LLVMBuildAdd(t->b, run_u32(t, RUN_FIELD(nthreads)),
				       i64c(t, 31), ""), i64c(t, 5), "");
	case SR_SMID:
		return i64c(t, 0);
	case SR_NSMID:
		return i64c(t, 132);
	case SR_LANEMASK_EQ:
		return bit;
	case SR_LANEMASK_LT:
		return L.LLVMBuildSub(t->b, bit, i64c(t, 1), "");
	case SR_LANEMASK_LE:
		return L.LLVMBuildSub(t->b, L.LLVMBuildShl(t->b, bit,
					i64c(t, 1), ""), i64c(t, 1), "");
	case SR_LANEMASK_GT:
		return L.LLVMBuildAnd(t->b, L.LLVMBuildNot(t->b,
			L.LLVMBuildSub(t->b, L.LLVMBuildShl(t->b, bit,
				i64c(t, 1), ""), i64c(t, 1), ""), ""),
			i64c(t, 0xffffffffu), "");
	default:	/* SR_LANEMASK_GE */
		return L.LLVMBuildAnd(t->b, L.LLVMBuildNot(t->b,
			L.LLVMBuildSub(t->b, bit, i64c(t, 1), ""), ""),
			i64c(t, 0xffffffffu), "");
	}
}

/*
 * An operand's immediate.  A module variable's address is the storage of
 * the module being run, not the one compiled: the code is shared by
 * every load of the same PTX (and cached), so it reads the address.
 */
static LLVMValueRef imm(struct tr *t, const struct ptx_operand *o)
{
	const struct ptx_global *g;
	LLVMValueRef base;

	if (!o->global)
		return i64c(t, o->imm);
	g = &t->fn->module->globals[o->global - 1];
	base = load_field(t, t->run, RUN_FIELD(globals), t->p8);
	base = load_field(t, base, (o->global - 1) * sizeof(uint64_t), t->s64);
	return uniform(t, L.LLVMBuildAdd(t->b, base,
			cint(t->s64, o->imm - (uintptr_t)g->data), ""));
}

/* ptx_src: a register (negated for !p), a special register, a constant. */
static LLVMValueRef src(struct tr *t, const struct ptx_operand *o)
{
	if (t->lane_in && (o->kind == PO_REG || o->kind == PO_SREG)) {
		const struct lane_form *f = &t->lane_forms[o - t->lane_in->o];

		return L.LLVMBuildAdd(t->b, f->base, cint(t->s64,
				      (uint64_t)(f->stride * t->lane)), "");
	}
	switch (o->kind) {
	case PO_REG:
		if (o->neg)
			return L.LLVMBuildZExt(t->b, L.LLVMBuildICmp(t->b,
				LLVMIntEQ, reg(t, o->reg), i64c(t, 0), ""),
				t->i64, "");
		return reg(t, o->reg);
	case PO_SREG:
		return sreg(t, o->sreg);
	default:
		return imm(t, o);
	}
}

static LLVMValueRef srcx(struct tr *t, const struct ptx_operand *o,
			 struct ptx_type ty)
{
	return extend(t, src(t, o), ty.size, ty.cls == PC_S);
}

static void dst(struct tr *t, const struct ptx_operand *o, LLVMValueRef v,
		unsigned int size)
{
	if (t->lane_in)
		t->lane_result = mask(t, v, size);
	else if (o->kind == PO_REG)
		set_reg(t, o->reg, mask(t, v, size));
}

static LLVMValueRef truthy(struct tr *t, LLVMValueRef v)
{
	return L.LLVMBuildICmp(t->b, LLVMIntNE, v, i64c(t, 0), "");
}

static LLVMValueRef as_i64(struct tr *t, LLVMValueRef c)
{
	return L.LLVMBuildZExt(t->b, c, t->i64, "");
}

/* Whether the translator compiles @in itself. */
static bool native(const struct ptx_insn *in)
{
	struct ptx_type ty = in->type;
	bool integer = ty.cls == PC_B || ty.cls == PC_U || ty.cls == PC_S;
	unsigned int i;

	/* frame operands need nothing: a kernel (no calls) has its frame at 0 */
	for (i = 0; i < in->nopnd; i++)
		if (in->o[i].kind == PO_SREG && sreg_clock(in->o[i].sreg))
			return false;
	switch (in->op) {
	case OP_LD: case OP_ST:
		return in->space != PS_PARAM || in->op == OP_LD;
	case OP_BRA: case OP_RET: case OP_EXIT: case OP_BAR: case OP_MEMBAR:
	case OP_CVTA:
		return true;
	case OP_MOV:
		return in->o[0].kind != PO_VEC && in->o[1].kind != PO_VEC &&
		       !ptx_type_half(ty);
	case OP_SELP:
		return !ptx_type_half(ty);
	case OP_SETP:
		if (ty.cls == PC_F)
			return !(in->flags & PF_FTZ);
		return integer;
	case OP_CVT:
		return integer && !(in->flags & PF_SAT) &&
		       (in->type2.cls == PC_B || in->type2.cls == PC_U ||
			in->type2.cls == PC_S);
	case OP_ADD: case OP_SUB:
		if (ty.cls == PC_F)
			return (in->rnd == RND_NONE || in->rnd == RND_RN) &&
			       !(in->flags & (PF_FTZ | PF_SAT));
		return integer && !(in->flags & PF_SAT);
	case OP_MUL:
		if (ty.cls == PC_F)
			return (in->rnd == RND_NONE || in->rnd == RND_RN) &&
			       !(in->flags & (PF_FTZ | PF_SAT));
		return integer;
	case OP_MAD: case OP_FMA:
		if (ty.cls == PC_F)
			return host_fma && in->rnd == RND_RN &&
			       !(in->flags & (PF_FTZ | PF_SAT));
		return integer && !(in->flags & PF_SAT);
	case OP_NEG: case OP_ABS:
		return integer || (ty.cls == PC_F && !(in->flags & PF_FTZ));
	case OP_DIV: case OP_REM: case OP_MIN: case OP_MAX:
	case OP_SHL: case OP_SHR:
		return integer;
	case OP_AND: case OP_OR: case OP_XOR: case OP_NOT: case OP_CNOT:
		return integer || ty.cls == PC_PRED;
	default:
		return false;
	}
}

/*
 * Kernels with calls, warp operations or barriers other than bar.sync 0
 * (named, counted, arrive, red) stay with the interpreter.
 */
static const struct ptx_insn *uncompiled(const struct cumc_ptx_function *fn)
{
	const struct ptx_insn *in;
	uint32_t pc;

	for (pc = 0; pc < fn->ninsns; pc++)
		switch ((in = &fn->insns[pc])->op) {
		case OP_CALL: case OP_SHFL: case OP_VOTE: case OP_MATCH:
		case OP_REDUX: case OP_ACTIVEMASK: case OP_WARPSYNC:
			return in;
		case OP_BAR:
			if (in->wmode != BAR_SYNC || in->nopnd != 1 ||
			    in->o[0].kind != PO_IMM || in->o[0].imm)
				return in;
			break;
		default:
			break;
		}
	return NULL;
}

/* ---- Integer and float operations ---- */

static LLVMValueRef mul_hi(struct tr *t, LLVMValueRef a, LLVMValueRef b,
			   struct ptx_type ty)
{
	bool s = ty.cls == PC_S;
	LLVMValueRef wa = s ? L.LLVMBuildSExt(t->b, a, t->i128, "") :
			      L.LLVMBuildZExt(t->b, a, t->i128, "");
	LLVMValueRef wb = s ? L.LLVMBuildSExt(t->b, b, t->i128, "") :
			      L.LLVMBuildZExt(t->b, b, t->i128, "");
	LLVMValueRef p = L.LLVMBuildMul(t->b, wa, wb, "");
	LLVMValueRef n = cint(t->i128, ty.size * 8);

	p = s ? L.LLVMBuildAShr(t->b, p, n, "") : L.LLVMBuildLShr(t->b, p, n, "");
	return L.LLVMBuildTrunc(t->b, p, t->i64, "");
}

static LLVMValueRef product(struct tr *t, const struct ptx_insn *in,
			    LLVMValueRef a, LLVMValueRef b)
{
	if (in->flags & PF_HI)
		return mul_hi(t, a, b, in->type);
	return L.LLVMBuildMul(t->b, a, b, "");
}

/* div and rem as exec_int.c answers them: all ones for a zero divisor. */
static LLVMValueRef divide(struct tr *t, struct ptx_type ty, LLVMValueRef a,
			   LLVMValueRef b, bool rem)
{
	LLVMValueRef zero = L.LLVMBuildICmp(t->b, LLVMIntEQ, b, i64c(t, 0), "");
	LLVMValueRef neg1, safe, r;

	if (ty.cls != PC_S) {
		safe = L.LLVMBuildSelect(t->b, zero, i64c(t, 1), b, "");
		r = rem ? L.LLVMBuildURem(t->b, a, safe, "") :
			  L.LLVMBuildUDiv(t->b, a, safe, "");
		return L.LLVMBuildSelect(t->b, zero, i64c(t, ~0ull), r, "");
	}
	neg1 = L.LLVMBuildICmp(t->b, LLVMIntEQ, b, i64c(t, ~0ull), "");
	safe = L.LLVMBuildSelect(t->b, L.LLVMBuildOr(t->b, zero, neg1, ""),
				 i64c(t, 1), b, "");
	r = rem ? L.LLVMBuildSRem(t->b, a, safe, "") :
		  L.LLVMBuildSDiv(t->b, a, safe, "");
	r = L.LLVMBuildSelect(t->b, neg1, rem ? i64c(t, 0) :
			      L.LLVMBuildNeg(t->b, a, ""), r, "");
	return L.LLVMBuildSelect(t->b, zero, i64c(t, ~0ull), r, "");
}

static LLVMValueRef shift(struct tr *t, const struct ptx_insn *in,
			  LLVMValueRef a, LLVMValueRef n)
{
	unsigned int bits = in->type.size * 8;
	LLVMValueRef big, amt;

	n = L.LLVMBuildAnd(t->b, n, i64c(t, 0xffffffffu), "");
	big = L.LLVMBuildICmp(t->b, LLVMIntUGE, n, i64c(t, bits), "");
	if (in->op == OP_SHR && in->type.cls == PC_S) {
		amt = L.LLVMBuildSelect(t->b, big, i64c(t, 63), n, "");
		return L.LLVMBuildAShr(t->b, a, amt, "");
	}
	amt = L.LLVMBuildSelect(t->b, big, i64c(t, 0), n, "");
	a = in->op == OP_SHL ? L.LLVMBuildShl(t->b, a, amt, "") :
			       L.LLVMBuildLShr(t->b, a, amt, "");
	return L.LLVMBuildSelect(t->b, big, i64c(t, 0), a, "");
}

static LLVMIntPredicate int_pred(enum ptx_cmp cmp, bool s)
{
	switch (cmp) {
	case CMP_EQ: return LLVMIntEQ;
	case CMP_NE: return LLVMIntNE;
	case CMP_LT: return s ? LLVMIntSLT : LLVMIntULT;
	case CMP_LE: return s ? LLVMIntSLE : LLVMIntULE;
	case CMP_GT: return s ? LLVMIntSGT : LLVMIntUGT;
	case CMP_GE: return s ? LLVMIntSGE : LLVMIntUGE;
	case CMP_LO: return LLVMIntULT;
	case CMP_LS: return LLVMIntULE;
	case CMP_HI: return LLVMIntUGT;
	default: return LLVMIntUGE;
	}
}

static LLVMRealPredicate real_pred(enum ptx_cmp cmp)
{
	static const LLVMRealPredicate p[] = {
		[CMP_EQ] = LLVMRealOEQ, [CMP_NE] = LLVMRealONE,
		[CMP_LT] = LLVMRealOLT, [CMP_LE] = LLVMRealOLE,
		[CMP_GT] = LLVMRealOGT, [CMP_GE] = LLVMRealOGE,
		[CMP_EQU] = LLVMRealUEQ, [CMP_NEU] = LLVMRealUNE,
		[CMP_LTU] = LLVMRealULT, [CMP_LEU] = LLVMRealULE,
		[CMP_GTU] = LLVMRealUGT, [CMP_GEU] = LLVMRealUGE,
		[CMP_NUM] = LLVMRealORD, [CMP_NAN] = LLVMRealUNO,
	};

	return p[cmp];
}

/* The operand's bits as an f32 or f64 value. */
static LLVMValueRef fsrc(struct tr *t, const struct ptx_operand *o, bool single)
{
	LLVMValueRef v = src(t, o);

	if (!single)
		return L.LLVMBuildBitCast(t->b, v, t->f64, "");
	v = L.LLVMBuildTrunc(t->b, v, t->i32, "");
	return L.LLVMBuildBitCast(t->b, v, t->f32, "");
}

static LLVMValueRef is_nan(struct tr *t, LLVMValueRef f)
{
	return L.LLVMBuildFCmp(t->b, LLVMRealUNO, f, f, "");
}

/* ptx_setp_result: p and q from @r and the predicate operation. */
static void setp_result(struct tr *t, const struct ptx_insn *in, LLVMValueRef r)
{
	LLVMValueRef p = r, q = L.LLVMBuildNot(t->b, r, ""), c;

	if (in->aop) {
		c = truthy(t, src(t, &in->o[4]));
		switch (in->aop) {
		case AOP_AND:
			p = L.LLVMBuildAnd(t->b, p, c, "");
			q = L.LLVMBuildAnd(t->b, q, c, "");
			break;
		case AOP_OR:
			p = L.LLVMBuildOr(t->b, p, c, "");
			q = L.LLVMBuildOr(t->b, q, c, "");
			break;
		default:
			p = L.LLVMBuildXor(t->b, p, c, "");
			q = L.LLVMBuildXor(t->b, q, c, "");
		}
	}
	dst(t, &in->o[0], as_i64(t, p), 1);
	if (in->o[1].kind == PO_REG)
		dst(t, &in->o[1], as_i64(t, q), 1);
}

static uint64_t quiet_bit(bool single)
{
	return single ? 0x00400000u : 0x0008000000000000ull;
}

/*
 * f32 and f64 arithmetic as exec_float.c gives it: an f32 NaN result is
 * 0x7fffffff; an f64 NaN operand comes out quieted, the second of two
 * (fma's: b, then c, then a).
 */
static void float_op(struct tr *t, const struct ptx_insn *in)
{
	bool single = in->type.size == 4;
	LLVMTypeRef fty = single ? t->f32 : t->f64, ity = single ? t->i32 : t->i64;
	LLVMValueRef a = fsrc(t, &in->o[1], single), b = NULL, c = NULL, r, bits;
	LLVMValueRef args[3];

	if (in->nopnd > 2)
		b = fsrc(t, &in->o[2], single);
	if (in->nopnd > 3)
		c = fsrc(t, &in->o[3], single);
	switch (in->op) {
	case OP_ADD: r = L.LLVMBuildFAdd(t->b, a, b, ""); break;
	case OP_SUB: r = L.LLVMBuildFSub(t->b, a, b, ""); break;
	case OP_MUL: r = L.LLVMBuildFMul(t->b, a, b, ""); break;
	case OP_NEG: r = L.LLVMBuildFNeg(t->b, a, ""); break;
	case OP_ABS: r = intrinsic(t, "llvm.fabs", fty, &a, 1); break;
	default:
		args[0] = a, args[1] = b, args[2] = c;
		r = intrinsic(t, "llvm.fma", fty, args, 3);
	}
	bits = L.LLVMBuildBitCast(t->b, r, ity, "");
	if (single) {
		bits = L.LLVMBuildSelect(t->b, is_nan(t, r),
					 cint(t->i32, 0x7fffffffu), bits, "");
	} else {
		LLVMValueRef q = i64c(t, quiet_bit(false)), pick, any;

		pick = L.LLVMBuildBitCast(t->b, a, t->i64, "");
		any = is_nan(t, a);
		if (c) {
			pick = L.LLVMBuildSelect(t->b, is_nan(t, c),
				L.LLVMBuildBitCast(t->b, c, t->i64, ""), pick, "");
			any = L.LLVMBuildOr(t->b, any, is_nan(t, c), "");
		}
		if (b) {
			pick = L.LLVMBuildSelect(t->b, is_nan(t, b),
				L.LLVMBuildBitCast(t->b, b, t->i64, ""), pick, "");
			any = L.LLVMBuildOr(t->b, any, is_nan(t, b), "");
		}
		/* a NaN operand decides; an invalid operation's NaN is the host's */
		bits = L.LLVMBuildSelect(t->b, any,
					 L.LLVMBuildOr(t->b, pick, q, ""), bits, "");
	}
	dst(t, &in->o[0], L.LLVMBuildZExt(t->b, bits, t->i64, ""), in->type.size);
}

static void int_op(struct tr *t, const struct ptx_insn *in)
{
	struct ptx_type ty = in->type, ct = ty;
	LLVMValueRef a = srcx(t, &in->o[1], ty), b = NULL, r;
	unsigned int size = ty.size;
	bool s = ty.cls == PC_S;

	if (in->nopnd > 2 && in->op != OP_SHL && in->op != OP_SHR)
		b = srcx(t, &in->o[2], ty);
	switch (in->op) {
	case OP_ADD: r = L.LLVMBuildAdd(t->b, a, b, ""); break;
	case OP_SUB: r = L.LLVMBuildSub(t->b, a, b, ""); break;
	case OP_MUL:
		r = product(t, in, a, b);
		if (in->flags & PF_WIDE)
			size *= 2;
		break;
	case OP_MAD:
		if (in->flags & PF_WIDE)
			ct.size *= 2;
		r = L.LLVMBuildAdd(t->b, product(t, in, a, b),
				   srcx(t, &in->o[3], ct), "");
		size = ct.size;
		break;
	case OP_DIV: r = divide(t, ty, a, b, false); break;
	case OP_REM: r = divide(t, ty, a, b, true); break;
	case OP_MIN: case OP_MAX:
		r = L.LLVMBuildSelect(t->b, L.LLVMBuildICmp(t->b,
			in->op == OP_MIN ? (s ? LLVMIntSLT : LLVMIntULT) :
					   (s ? LLVMIntSGT : LLVMIntUGT),
			a, b, ""), a, b, "");
		break;
	case OP_ABS:
		r = L.LLVMBuildSelect(t->b, L.LLVMBuildICmp(t->b, LLVMIntSLT,
				      a, i64c(t, 0), ""),
				      L.LLVMBuildNeg(t->b, a, ""), a, "");
		break;
	case OP_NEG: r = L.LLVMBuildNeg(t->b, a, ""); break;
	case OP_AND: r = L.LLVMBuildAnd(t->b, a, b, ""); break;
	case OP_OR: r = L.LLVMBuildOr(t->b, a, b, ""); break;
	case OP_XOR: r = L.LLVMBuildXor(t->b, a, b, ""); break;
	case OP_NOT:
		r = ty.cls == PC_PRED ?
		    as_i64(t, L.LLVMBuildICmp(t->b, LLVMIntEQ, a, i64c(t, 0), "")) :
		    L.LLVMBuildNot(t->b, a, "");
		break;
	case OP_CNOT:
		r = as_i64(t, L.LLVMBuildICmp(t->b, LLVMIntEQ, a, i64c(t, 0), ""));
		break;
	default:	/* shl, shr */
		r = shift(t, in, a, src(t, &in->o[2]));
	}
	dst(t, &in->o[0], r, size);
}

static void setp(struct tr *t, const struct ptx_insn *in)
{
	LLVMValueRef r;

	if (in->type.cls == PC_F) {
		bool single = in->type.size == 4;

		r = L.LLVMBuildFCmp(t->b, real_pred(in->cmp),
				    fsrc(t, &in->o[2], single),
				    fsrc(t, &in->o[3], single), "");
	} else {
		r = L.LLVMBuildICmp(t->b, int_pred(in->cmp, in->type.cls == PC_S),
				    srcx(t, &in->o[2], in->type),
				    srcx(t, &in->o[3], in->type), "");
	}
	setp_result(t, in, r);
}

/* cvt between integers (ptx_dst_cvt: a signed result fills its register). */
static void cvt(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *o = &in->o[0];
	LLVMValueRef v = srcx(t, &in->o[1], in->type2);
	unsigned int size = in->type.size;

	if (o->kind == PO_REG && in->type.cls == PC_S &&
	    t->fn->reg_types[o->reg].size > size) {
		v = extend(t, v, size, true);
		size = t->fn->reg_types[o->reg].size;
	}
	dst(t, o, v, size);
}

/* ---- Memory ---- */

/* The local window of the thread: local + index * local_size. */
static LLVMValueRef local_base(struct tr *t)
{
	LLVMValueRef base = load_field(t, t->run, RUN_FIELD(local), t->p8);
	LLVMValueRef n = load_field(t, t->run, RUN_FIELD(local_size), t->i64);

	return byte_ptr(t, base, L.LLVMBuildMul(t->b, n,
			L.LLVMBuildZExt(t->b, t->idx, t->i64, ""), ""));
}

static void cvta(struct tr *t, const struct ptx_insn *in)
{
	LLVMValueRef v = src(t, &in->o[1]), base = NULL;

	if (in->space == PS_SHARED)
		base = load_field(t, t->run, RUN_FIELD(shared), t->p8);
	else if (in->space == PS_LOCAL)
		base = local_base(t);
	if (base) {
		base = uniform(t, L.LLVMBuildPtrToInt(t->b, base, t->s64, ""));
		v = in->flags & PF_TO ? L.LLVMBuildSub(t->b, v, base, "") :
					L.LLVMBuildAdd(t->b, v, base, "");
	}
	dst(t, &in->o[0], v, 8);
}

/* within(addr, size, lo, hi) of mem.c. */
static LLVMValueRef within(struct tr *t, LLVMValueRef addr, unsigned int size,
			   LLVMValueRef lo, LLVMValueRef hi)
{
	LLVMValueRef ok = L.LLVMBuildAnd(t->b,
		L.LLVMBuildICmp(t->b, LLVMIntUGE, addr, lo, ""),
		L.LLVMBuildICmp(t->b, LLVMIntULE, addr, hi, ""), "");

	return L.LLVMBuildAnd(t->b, ok, L.LLVMBuildICmp(t->b, LLVMIntULE,
			      cint(t->s64, size), L.LLVMBuildSub(t->b, hi, addr, ""),
			      ""), "");
}

/*
 * The host address of an access of @size bytes at @addr in @in's space:
 * the checks of mem.c inline (a window; a device range this instruction
 * reached before), else mem.c through the run's callback, which faults.
 */
static LLVMValueRef mem_access(struct tr *t, const struct ptx_insn *in,
				uint32_t pc, LLVMValueRef addr, unsigned int size,
			   bool write)
{
	LLVMBasicBlockRef fast = new_block(t), slow = new_block(t);
	LLVMBasicBlockRef join = new_block(t);
	LLVMValueRef ok, ptr = NULL, base, slow_ptr, args[7], fn, merged;
	LLVMValueRef aligned = L.LLVMBuildICmp(t->b, LLVMIntEQ,
		L.LLVMBuildAnd(t->b, addr, i64c(t, size - 1), ""), i64c(t, 0), "");
	uint32_t site = UINT32_MAX;

	switch (in->space) {
	case PS_PARAM:
		base = load_field(t, t->run, RUN_FIELD(params), t->p8);
		ok = within(t, addr, size, i64c(t, 0), i64c(t, t->fn->param_size));
		ptr = byte_ptr(t, base, addr);
		break;
	case PS_SHARED:
		base = load_field(t, t->run, RUN_FIELD(shared), t->p8);
		ok = within(t, addr, size, i64c(t, 0), load_field(t, t->run,
			    RUN_FIELD(shared_size), t->i64));
		ptr = byte_ptr(t, base, addr);
		break;
	case PS_LOCAL:
		ok = within(t, addr, size, i64c(t, 0), load_field(t, t->run,
			    RUN_FIELD(local_size), t->i64));
		ptr = byte_ptr(t, local_base(t), addr);
		break;
	default: {
		LLVMValueRef sites = load_field(t, t->run, RUN_FIELD(sites), t->p8);
		size_t off = (size_t)t->sites * sizeof(struct ptx_jit_site);

		site = t->sites++;
		ok = within(t, addr, size,
			    load_field(t, sites, off + offsetof(struct ptx_jit_site, lo), t->i64),
			    load_field(t, sites, off + offsetof(struct ptx_jit_site, hi), t->i64));
		ptr = L.LLVMBuildIntToPtr(t->b, addr, t->p8, "");
	}
	}
	if (write && in->space == PS_PARAM)
		ok = cint(t->i1, 0);
	ok = L.LLVMBuildAnd(t->b, ok, aligned, "");
	L.LLVMBuildCondBr(t->b, ok, fast, slow);
	/* the two ways meet through t->ti, which mem2reg makes a phi */
	L.LLVMPositionBuilderAtEnd(t->b, fast);
	L.LLVMBuildStore(t->b, L.LLVMBuildPtrToInt(t->b, ptr, t->i64, ""), t->ti);
	L.LLVMBuildBr(t->b, join);

	L.LLVMPositionBuilderAtEnd(t->b, slow);
	args[0] = t->run;
	args[1] = t->idx;
	args[2] = cint(t->i32, pc);
	args[3] = addr;
	args[4] = cint(t->i32, size);
	args[5] = cint(t->i32, write);
	args[6] = cint(t->i32, site);
	fn = load_field(t, t->run, RUN_FIELD(mem), L.LLVMPointerType(t->mem_ty, 0));
	slow_ptr = L.LLVMBuildPtrToInt(t->b, L.LLVMBuildCall2(t->b, t->mem_ty,
				       fn, args, 7, ""), t->i64, "");
	L.LLVMBuildStore(t->b, slow_ptr, t->ti);
	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ, slow_ptr,
			  i64c(t, 0), ""), t->fault, join);

	L.LLVMPositionBuilderAtEnd(t->b, join);
	merged = L.LLVMBuildLoad2(t->b, t->i64, t->ti, "");
	return L.LLVMBuildIntToPtr(t->b, merged, t->p8, "");
}

static LLVMTypeRef int_type(struct tr *t, unsigned int size)
{
	return L.LLVMIntTypeInContext(t->c, size * 8);
}

/* Register @r takes @x, which ld read, as exec_mem.c extends it. */
static void set_loaded(struct tr *t, const struct ptx_insn *in, uint32_t r,
		       LLVMValueRef x)
{
	if (in->type.cls == PC_S)
		x = mask(t, L.LLVMBuildSExt(t->b, x, t->i64, ""),
			 t->fn->reg_types[r].size);
	else
		x = L.LLVMBuildZExt(t->b, x, t->i64, "");
	set_reg(t, r, x);
}

/*
 * A vector of @n elements of @size bytes at @p in one access, as
 * exec_mem.c makes it (NCCL's LL protocol trusts a flag with the data
 * stored beside it): up to 8 bytes one relaxed atomic, 16 one volatile
 * <2 x i64>, which x86 processors with AVX make atomic.  A load gives
 * @elems, a store takes them, each of the element's width.
 */
static void vector_access(struct tr *t, LLVMValueRef p, unsigned int size,
			  unsigned int n, bool st, LLVMValueRef *elems)
{
	LLVMTypeRef ety = int_type(t, size), v2 = L.LLVMVectorType(t->s64, 2);
	LLVMTypeRef wty = int_type(t, size * n <= 8 ? size * n : 8);
	LLVMValueRef half[2] = { cint(t->s64, 0), cint(t->s64, 0) }, x;
	bool wide = size * n == 16;
	unsigned int i, bit;

	if (!st) {
		x = L.LLVMBuildLoad2(t->b, wide ? v2 : wty,
				     typed_ptr(t, p, wide ? v2 : wty), "");
		if (wide) {
			L.LLVMSetVolatile(x, true);
			half[0] = L.LLVMBuildExtractElement(t->b, x,
							    cint(t->s32, 0), "");
			half[1] = L.LLVMBuildExtractElement(t->b, x,
							    cint(t->s32, 1), "");
		} else {
			L.LLVMSetOrdering(x, LLVMAtomicOrderingMonotonic);
			half[0] = L.LLVMBuildZExt(t->b, x, t->s64, "");
		}
		L.LLVMSetAlignment(x, size * n);
		for (i = 0; i < n; i++) {
			bit = i * size * 8;
			elems[i] = L.LLVMBuildTrunc(t->b, L.LLVMBuildLShr(t->b,
				half[bit / 64], cint(t->s64, bit % 64), ""), ety, "");
		}
		return;
	}
	for (i = 0; i < n; i++) {
		bit = i * size * 8;
		half[bit / 64] = L.LLVMBuildOr(t->b, half[bit / 64],
			L.LLVMBuildShl(t->b, L.LLVMBuildZExt(t->b, elems[i],
							     t->s64, ""),
				       cint(t->s64, bit % 64), ""), "");
	}
	if (wide) {
		x = L.LLVMBuildInsertElement(t->b, L.LLVMGetUndef(v2), half[0],
					     cint(t->s32, 0), "");
		x = L.LLVMBuildInsertElement(t->b, x, half[1], cint(t->s32, 1),
					     "");
		x = L.LLVMBuildStore(t->b, x, typed_ptr(t, p, v2));
		L.LLVMSetVolatile(x, true);
	} else {
		x = L.LLVMBuildStore(t->b, L.LLVMBuildTrunc(t->b, half[0], wty,
							   ""),
				     typed_ptr(t, p, wty));
		L.LLVMSetOrdering(x, LLVMAtomicOrderingMonotonic);
	}
	L.LLVMSetAlignment(x, size * n);
}

/* Element @i's register of a load's or store's value; PTX_NO_REG: none. */
static uint32_t value_reg(const struct ptx_operand *v, unsigned int i)
{
	return v->kind == PO_VEC ? v->vec[i] :
	       v->kind == PO_REG ? v->reg : PTX_NO_REG;
}

/* Element @i of a store's value: its register, or the immediate. */
static LLVMValueRef value_elem(struct tr *t, const struct ptx_operand *v,
			       unsigned int i)
{
	uint32_t r = value_reg(v, i);

	return r != PTX_NO_REG ? reg(t, r) : imm(t, v);
}

/* ld and st: a relaxed atomic of the size, a vector in one access. */
static void load_store(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	bool st = in->op == OP_ST;
	const struct ptx_operand *v = &in->o[st ? 1 : 0];
	const struct ptx_operand *a = &in->o[st ? 0 : 1];
	unsigned int size = in->type.size, n = v->kind == PO_VEC ? v->nvec : 1;
	LLVMValueRef addr = imm(t, a), p, elems[4];
	unsigned int i;

	if (a->reg != PTX_NO_REG)
		addr = L.LLVMBuildAdd(t->b, reg(t, a->reg), addr, "");
	p = mem_access(t, in, pc, addr, size * n, st);
	for (i = 0; st && i < n; i++)
		elems[i] = L.LLVMBuildTrunc(t->b, value_elem(t, v, i),
					    int_type(t, size), "");
	vector_access(t, p, size, n, st, elems);
	for (i = 0; !st && i < n; i++)
		if (value_reg(v, i) != PTX_NO_REG)
			set_loaded(t, in, value_reg(v, i), elems[i]);
}

/* ---- Control and the interpreter's instructions ---- */

static void operand_regs(const struct ptx_insn *in,
			 void (*fn)(struct tr *t, uint32_t r), struct tr *t)
{
	unsigned int i, k;

	if (in->guard != PTX_NO_REG)
		fn(t, in->guard);
	for (i = 0; i < in->nopnd; i++) {
		const struct ptx_operand *o = &in->o[i];

		if ((o->kind == PO_REG || o->kind == PO_ADDR) &&
		    o->reg != PTX_NO_REG)
			fn(t, o->reg);
		if (o->kind == PO_VEC)
			for (k = 0; k < o->nvec; k++)
				if (o->vec[k] != PTX_NO_REG)
					fn(t, o->vec[k]);
	}
}

/* Where thread @index (an i32) keeps register @r while it is stopped. */
static LLVMValueRef slot_ptr_at(struct tr *t, LLVMValueRef index, uint32_t r)
{
	LLVMValueRef base = load_field(t, t->run, RUN_FIELD(regs), t->p8);
	LLVMValueRef off = L.LLVMBuildMul(t->b,
		L.LLVMBuildZExt(t->b, index, t->s64, ""),
		cint(t->s64, (uint64_t)t->fn->nregs * 8), "");

	off = L.LLVMBuildAdd(t->b, off, cint(t->s64, (uint64_t)r * 8), "");
	return typed_ptr(t, byte_ptr(t, base, off), t->s64);
}

static LLVMValueRef slot_ptr(struct tr *t, uint32_t r)
{
	return slot_ptr_at(t, t->idx, r);
}

static void spill(struct tr *t, uint32_t r)
{
	L.LLVMBuildStore(t->b, reg(t, r), slot_ptr(t, r));
}

static void fill(struct tr *t, uint32_t r)
{
	set_reg(t, r, L.LLVMBuildLoad2(t->b, t->i64, slot_ptr(t, r), ""));
}

/* An instruction the interpreter runs: its registers through the slots. */
static void step(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	LLVMValueRef args[3] = { t->run, t->idx, cint(t->i32, pc) }, fn, r;
	LLVMBasicBlockRef ok = new_block(t);

	operand_regs(in, spill, t);
	fn = load_field(t, t->run, RUN_FIELD(step), L.LLVMPointerType(t->step_ty, 0));
	r = L.LLVMBuildCall2(t->b, t->step_ty, fn, args, 3, "");
	L.LLVMBuildCondBr(t->b, truthy(t, L.LLVMBuildZExt(t->b, r, t->i64, "")),
			  t->fault, ok);
	L.LLVMPositionBuilderAtEnd(t->b, ok);
	operand_regs(in, fill, t);
}

static bool terminated(struct tr *t)
{
	return L.LLVMGetBasicBlockTerminator(L.LLVMGetInsertBlock(t->b)) != NULL;
}

/* Goes to @bb, or stops the thread to resume there when its slice is spent. */
static void enter(struct tr *t, uint32_t pc)
{
	LLVMValueRef left = L.LLVMBuildLoad2(t->b, t->i32, t->budget, "");
	LLVMBasicBlockRef go = new_block(t), out = new_block(t);

	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntSLE, left,
			  cint(t->i32, 0), ""), out, go);
	L.LLVMPositionBuilderAtEnd(t->b, out);
	L.LLVMBuildStore(t->b, cint(t->i32, pc), t->resume_pc);
	L.LLVMBuildBr(t->b, t->suspend);
	L.LLVMPositionBuilderAtEnd(t->b, go);
	L.LLVMBuildStore(t->b, L.LLVMBuildSub(t->b, left,
			 cint(t->i32, t->seglen[pc]), ""), t->budget);
}

/* A native instruction with registers for operands and result only. */
static void compute(struct tr *t, const struct ptx_insn *in)
{
	if (in->op == OP_CVTA)
		cvta(t, in);
	else if (in->op == OP_SETP)
		setp(t, in);
	else if (in->op == OP_CVT)
		cvt(t, in);
	else if (in->op == OP_MOV)
		dst(t, &in->o[0], srcx(t, &in->o[1], in->type), in->type.size);
	else if (in->op == OP_SELP)
		dst(t, &in->o[0], L.LLVMBuildSelect(t->b,
			truthy(t, src(t, &in->o[3])), src(t, &in->o[1]),
			src(t, &in->o[2]), ""), in->type.size);
	else if (in->type.cls == PC_F)
		float_op(t, in);
	else
		int_op(t, in);
}

static void emit(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	LLVMBasicBlockRef skip = NULL, body;

	if (in->guard != PTX_NO_REG) {
		LLVMValueRef g = truthy(t, reg(t, in->guard));

		if (in->guard_neg)
			g = L.LLVMBuildNot(t->b, g, "");
		skip = new_block(t);
		if (in->op == OP_BRA) {
			L.LLVMBuildCondBr(t->b, g, t->starts[in->o[0].imm], skip);
			L.LLVMPositionBuilderAtEnd(t->b, skip);
			return;
		}
		body = new_block(t);
		L.LLVMBuildCondBr(t->b, g, body, skip);
		L.LLVMPositionBuilderAtEnd(t->b, body);
	}
	switch (in->op) {
	case OP_BRA:
		L.LLVMBuildBr(t->b, t->starts[in->o[0].imm]);
		break;
	case OP_RET: case OP_EXIT:
		L.LLVMBuildBr(t->b, t->exited);
		break;
	case OP_BAR:
		L.LLVMBuildStore(t->b, cint(t->i32, pc + 1), t->resume_pc);
		L.LLVMBuildBr(t->b, t->barrier);
		break;
	case OP_MEMBAR:
		L.LLVMBuildFence(t->b, LLVMAtomicOrderingSequentiallyConsistent,
				 false, "");
		break;
	default:
		if (!native(in))
			step(t, in, pc);
		else if (in->op == OP_LD || in->op == OP_ST)
			load_store(t, in, pc);
		else
			compute(t, in);
	}
	if (skip) {
		if (!terminated(t))
			L.LLVMBuildBr(t->b, skip);
		L.LLVMPositionBuilderAtEnd(t->b, skip);
	}
}

/* ---- Warp code ---- */

/*
 * Whether warp code runs @in for the lanes of a warp at once.  At any
 * other instruction the warp's threads go on one by one from there
 * (hand_off()), as they do where the lanes of a guard or a branch
 * disagree or an access leaves the ranges checked inline.
 */
static bool warp_native(const struct cumc_ptx_function *fn,
			const struct ptx_insn *in)
{
	const struct ptx_operand *a = &in->o[in->op == OP_ST ? 0 : 1];
	unsigned int n = 1;

	/* warp_multimem(), or the lanes one by one from there */
	if (in->op == OP_MULTIMEM)
		return true;
	if (!native(in) || in->op == OP_BAR)
		return false;
	if (in->op == OP_CVTA)
		return in->space != PS_LOCAL;
	if (in->op != OP_LD && in->op != OP_ST)
		return true;
	if (in->space == PS_LOCAL)
		return false;
	if (in->space != PS_PARAM)
		return true;
	/* a parameter at a fixed offset: the same load for every lane */
	if (in->o[0].kind == PO_VEC)
		n = in->o[0].nvec;
	return a->reg == PTX_NO_REG && !a->global &&
	       !(a->imm & (in->type.size * n - 1)) &&
	       a->imm <= fn->param_size &&
	       in->type.size * n <= fn->param_size - a->imm;
}

/* The warp's threads go on one by one, each from its pc in @pcs. */
static void forms_flush(struct tr *t);

static void hand_off(struct tr *t, LLVMValueRef pcs)
{
	forms_flush(t);
	L.LLVMBuildStore(t->b, pcs, t->vpc);
	L.LLVMBuildBr(t->b, t->handoff);
}

static LLVMValueRef reduce(struct tr *t, const char *op, LLVMValueRef v)
{
	return intrinsic(t, op, L.LLVMTypeOf(v), &v, 1);
}

/* Lane @l's address @x in @in's space, as a host pointer. */
static LLVMValueRef lane_ptr(struct tr *t, const struct ptx_insn *in,
			     LLVMValueRef shared, LLVMValueRef x)
{
	if (in->space == PS_SHARED)
		return byte_ptr(t, shared, x);
	return L.LLVMBuildIntToPtr(t->b, x, t->p8, "");
}

/*
 * The memory the next warps will reach if they go on as this one: the
 * loop of a warp's code is too long for the processor to have many
 * misses in flight, as a plain loop has.
 */
static void prefetch(struct tr *t, LLVMValueRef p, bool write)
{
	LLVMValueRef args[4] = {
		byte_ptr(t, p, cint(t->s64, PTX_JIT_PREFETCH)),
		cint(t->s32, write), cint(t->s32, PTX_JIT_LOCALITY), cint(t->s32, 1)
	};

	intrinsic(t, "llvm.prefetch", t->p8, args, 4);
}

/* A parameter at a fixed offset (warp_native()), read once for the warp. */
static void warp_param_load(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *v = &in->o[0];
	unsigned int size = in->type.size, n = v->kind == PO_VEC ? v->nvec : 1;
	LLVMValueRef base = load_field(t, t->run, RUN_FIELD(params), t->p8);
	LLVMTypeRef ety = int_type(t, size);
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t r = v->kind == PO_VEC ? v->vec[i] : v->reg;
		LLVMValueRef ep;

		if (r == PTX_NO_REG)
			continue;
		ep = typed_ptr(t, byte_ptr(t, base, cint(t->s64,
				in->o[1].imm + i * size)), ety);
		set_loaded(t, in, r, uniform(t, L.LLVMBuildLoad2(t->b, ety,
								   ep, "")));
	}
}

/*
 * ld and st for the lanes of a warp.  Where the lanes' elements are
 * consecutive (lane l at the first lane's address + l * size), the check
 * of the whole span against the window or the device range the
 * instruction reached before is the per-thread code's check, once, and
 * the access is one vector access; else the lowest and the highest
 * lane's addresses are checked and each lane makes its access.  An
 * access outside goes to the per-thread code, which makes it through
 * mem.c (faulting as the interpreter does).
 */
struct warp_access {
	const struct ptx_insn *in;
	const struct ptx_operand *v;	/* the value(s) */
	LLVMValueRef addr, shared, lim_lo, lim_hi;
	unsigned int size, n;
	LLVMTypeRef ety, vty;
	LLVMBasicBlockRef outside;	/* to the per-thread code */
};

/* Goes on where @ok holds, else to the per-thread code. */
static void warp_check(struct tr *t, const struct warp_access *w,
		       LLVMValueRef ok)
{
	LLVMBasicBlockRef in = new_block(t);

	L.LLVMBuildCondBr(t->b, ok, in, w->outside);
	L.LLVMPositionBuilderAtEnd(t->b, in);
}

/* Whether [@lo, @hi + @size) is in the access's window or range. */
static LLVMValueRef warp_within(struct tr *t, const struct warp_access *w,
				LLVMValueRef lo, LLVMValueRef hi,
				unsigned int size)
{
	return L.LLVMBuildAnd(t->b, within(t, lo, size, w->lim_lo, w->lim_hi),
			      within(t, hi, size, w->lim_lo, w->lim_hi), "");
}

/* Whether the address @x (a scalar) is a multiple of @size. */
static LLVMValueRef aligned(struct tr *t, LLVMValueRef x, unsigned int size)
{
	return L.LLVMBuildICmp(t->b, LLVMIntEQ, L.LLVMBuildAnd(t->b, x,
			       cint(t->s64, size - 1), ""), cint(t->s64, 0), "");
}

/*
 * Whether the lanes' addresses @addr follow each other: lane l's is lane
 * 0's (@first) plus l * @stride.
 */
static LLVMValueRef consecutive(struct tr *t, LLVMValueRef addr,
				LLVMValueRef first, unsigned int stride)
{
	LLVMValueRef offs[PTX_JIT_LANES];
	unsigned int l;

	for (l = 0; l < PTX_JIT_LANES; l++)
		offs[l] = cint(t->s64, (uint64_t)l * stride);
	return L.LLVMBuildICmp(t->b, LLVMIntEQ, reduce(t,
		"llvm.vector.reduce.or", L.LLVMBuildXor(t->b, addr,
			L.LLVMBuildAdd(t->b, uniform(t, first),
				L.LLVMConstVector(offs, PTX_JIT_LANES), ""), "")),
		cint(t->s64, 0), "");
}

/*
 * Lane forms (struct lane_form), made as warp code is translated, in
 * program order, and forgotten where control flow joins.  A form says how
 * an instruction's result lanes follow from its operands'.  Arithmetic on
 * 64 bits keeps them so exactly (modulo 2^64, as the lanes themselves);
 * a narrower result may wrap, or be extended from fewer bits, in some
 * lanes only: such a jump is a multiple of 2^bits, so it shows between
 * the first and the last lane when they span less than that
 * (FORM_STRIDE_MAX keeps them so), and the warp's threads then go on one
 * by one.  A register with a form holds it as lane 0's value plus the
 * lane's multiple of the stride, so that what reads only lane 0 (an
 * access of consecutive lanes) costs no vector arithmetic.
 */
#define FORM_STRIDE_MAX (1 << 20)

static void forms_forget(struct tr *t)
{
	memset(t->forms, 0, t->fn->nregs * sizeof(*t->forms));
	t->tid_x0 = NULL;
}

/* A register's lanes from its form: base + <0, s, 2s, ...>. */
static LLVMValueRef form_lanes(struct tr *t, const struct lane_form *f)
{
	LLVMValueRef lanes[PTX_JIT_LANES];
	unsigned int l;

	for (l = 0; l < PTX_JIT_LANES; l++)
		lanes[l] = cint(t->s64, (uint64_t)(f->stride * l));
	return L.LLVMBuildAdd(t->b, splat(t, f->base),
			      L.LLVMConstVector(lanes, PTX_JIT_LANES), "");
}

/*
 * A register with a form is made from it where it is read (so that lanes
 * no instruction reads as a vector are not made); its storage holds it
 * once control leaves the forms: where it joins, and to the per-thread
 * code.
 */
static void forms_flush(struct tr *t)
{
	uint32_t r;

	for (r = 0; r < t->fn->nregs; r++)
		if (t->forms[r].known)
			set_reg(t, r, form_lanes(t, &t->forms[r]));
}

/* Branches to warp code's block @to, where forms are forgotten. */
static void branch_to_join(struct tr *t, LLVMBasicBlockRef to)
{
	forms_flush(t);
	L.LLVMBuildBr(t->b, to);
}

/* Goes on where @ok holds, else the threads go on one by one from @pc. */
static void lanes_or_hand_off(struct tr *t, LLVMValueRef ok, uint32_t pc)
{
	LLVMBasicBlockRef go = new_block(t), off = new_block(t);

	/* mark_starts() made @pc a resume point (form_check_at()) */
	assert(t->starts[pc]);
	L.LLVMBuildCondBr(t->b, ok, go, off);
	L.LLVMPositionBuilderAtEnd(t->b, off);
	hand_off(t, cint(t->i32, pc));
	L.LLVMPositionBuilderAtEnd(t->b, go);
}

/*
 * Whether tid.x has a form: where the kernel reads tid.x alone of the
 * tid, it is launched, but for rare cases, with blocks of one row, whose
 * warps tid_in_row() lets go on.  A kernel that reads tid.y or tid.z is
 * launched with rows that may be narrower than a warp (8 by 8): its tid
 * have no form, so that such warps are not handed on.
 */
static bool tid_x_only(const struct cumc_ptx_function *fn)
{
	uint32_t pc;
	unsigned int i;

	for (pc = 0; pc < fn->ninsns; pc++)
		for (i = 0; i < fn->insns[pc].nopnd; i++)
			if (fn->insns[pc].o[i].kind == PO_SREG &&
			    (fn->insns[pc].o[i].sreg == SR_TID_Y ||
			     fn->insns[pc].o[i].sreg == SR_TID_Z))
				return false;
	return true;
}

/* Lane 0's tid.x, a scalar: as tid_x() makes it, without its vectors. */
static LLVMValueRef lane0_tid_x(struct tr *t)
{
	LLVMBasicBlockRef from = L.LLVMGetInsertBlock(t->b);
	LLVMBasicBlockRef div = new_block(t), join = new_block(t);
	LLVMValueRef i = L.LLVMBuildZExt(t->b, L.LLVMBuildExtractElement(t->b,
		t->idx, cint(t->s32, 0), ""), t->s64, "");
	LLVMValueRef bx = load_field(t, t->run, RUN_FIELD(ntid[0]), t->s32);
	LLVMValueRef x[2], phi;
	LLVMBasicBlockRef in[2] = { from, div };

	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ, bx,
		load_field(t, t->run, RUN_FIELD(nthreads), t->s32), ""), join, div);
	L.LLVMPositionBuilderAtEnd(t->b, div);
	x[1] = L.LLVMBuildURem(t->b, i, L.LLVMBuildZExt(t->b, bx, t->s64, ""), "");
	L.LLVMBuildBr(t->b, join);
	L.LLVMPositionBuilderAtEnd(t->b, join);
	x[0] = i;
	phi = L.LLVMBuildPhi(t->b, t->s64, "");
	L.LLVMAddIncoming(phi, x, in, 2);
	return phi;
}

/*
 * Lane 0's tid.x, where the warp's threads are in one row of the block
 * (lane 0's tid.x plus 15 is in it): their tid.x follow each other and
 * their tid.y and tid.z are the same.  A warp across rows (of a block 8
 * threads wide) goes on one by one from @pc.
 */
static LLVMValueRef tid_in_row(struct tr *t, uint32_t pc)
{
	LLVMValueRef x0;

	if (t->tid_x0)
		return t->tid_x0;
	x0 = lane0_tid_x(t);
	lanes_or_hand_off(t, L.LLVMBuildICmp(t->b, LLVMIntULT,
		L.LLVMBuildAdd(t->b, x0, cint(t->s64, PTX_JIT_LANES - 1), ""),
		L.LLVMBuildZExt(t->b, load_field(t, t->run,
			RUN_FIELD(ntid[0]), t->s32), t->s64, ""), ""), pc);
	return t->tid_x0 = x0;
}

static struct lane_form operand_form(struct tr *t, const struct ptx_operand *o,
				     uint32_t pc)
{
	struct lane_form f = { .known = true };

	switch (o->kind) {
	case PO_REG:
		if (o->neg)
			break;
		return t->forms[o->reg];
	case PO_IMM:
		return f;	/* its value: imm(), made for the lane */
	case PO_SREG:
		if (o->sreg >= SR_NTID_X && o->sreg <= SR_NCTAID_Z) {
			f.base = L.LLVMBuildExtractElement(t->b, sreg(t, o->sreg),
							   cint(t->s32, 0), "");
			return f;
		}
		if (o->sreg != SR_TID_X || !t->tid_forms)
			break;
		f.base = tid_in_row(t, pc);
		f.stride = 1;
		return f;
	}
	return (struct lane_form){ 0 };
}

/*
 * The stride of @in's result from its operands' forms @f: its result's
 * lanes are then lane 0's plus l * stride (but for a jump, above); false
 * where they need not be.
 */
static bool result_stride(const struct ptx_insn *in, const struct lane_form *f,
			  int64_t *stride)
{
	const struct ptx_operand *o = in->o;
	bool imm1 = o[1].kind == PO_IMM, imm2 = o[2].kind == PO_IMM;

	*stride = 0;
	if (in->type.cls != PC_B && in->type.cls != PC_U && in->type.cls != PC_S)
		return false;
	switch (in->op) {
	case OP_MOV: case OP_CVTA:
		*stride = f[1].stride;
		return true;
	case OP_CVT:
		*stride = f[1].stride;
		return in->type.size >= in->type2.size;
	case OP_ADD:
		*stride = f[1].stride + f[2].stride;
		return !(in->flags & PF_SAT);
	case OP_SUB:
		*stride = f[1].stride - f[2].stride;
		return !(in->flags & PF_SAT);
	case OP_SHL:
		*stride = f[1].stride * ((int64_t)1 << (o[2].imm & 31));
		return imm2 && o[2].imm < 32;
	case OP_MUL: case OP_MAD:
		if (in->flags & PF_HI)
			return false;
		/* a lane-varying factor by an immediate */
		if (f[1].stride && f[2].stride)
			return false;
		if ((f[1].stride && !imm2) || (f[2].stride && !imm1))
			return false;
		*stride = f[1].stride * (int64_t)(imm2 ? o[2].imm : 0) +
			  f[2].stride * (int64_t)(imm1 ? o[1].imm : 0);
		if (in->op == OP_MAD)
			*stride += f[3].stride;
		return true;
	default:
		return false;
	}
}

/*
 * Whether @in's result can have a form: an unguarded instruction of a
 * register that result_stride() knows (here on sources of no form).
 */
static bool form_instruction(const struct ptx_insn *in)
{
	static const struct lane_form none[PTX_MAX_OPERANDS];
	int64_t stride;

	return in->guard == PTX_NO_REG && in->o[0].kind == PO_REG &&
	       result_stride(in, none, &stride);
}

/*
 * The forms of @in's sources into @f (indexed as its operands) and its
 * result's @stride; false where its result has no form.
 */
static bool forms_before(struct tr *t, const struct ptx_insn *in,
			 struct lane_form *f, int64_t *stride, uint32_t pc)
{
	unsigned int i;

	if (!form_instruction(in))
		return false;
	for (i = 1; i < in->nopnd; i++) {
		f[i] = operand_form(t, &in->o[i], pc);
		if (!f[i].known)
			return false;
	}
	return result_stride(in, f, stride) && *stride <= FORM_STRIDE_MAX &&
	       *stride >= -FORM_STRIDE_MAX;
}

/* The registers @in writes know no form. */
static void forget_written(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *d = &in->o[0];
	unsigned int i;

	if (in->op == OP_ST || in->op == OP_BRA || in->op == OP_MEMBAR)
		return;
	if (d->kind == PO_REG)
		t->forms[d->reg].known = false;
	for (i = 0; d->kind == PO_VEC && i < d->nvec; i++)
		if (d->vec[i] != PTX_NO_REG)
			t->forms[d->vec[i]].known = false;
	if (in->op == OP_SETP && in->o[1].kind == PO_REG)
		t->forms[in->o[1].reg].known = false;
}

/* After @in was made as vectors: the forms it leaves. */
static void forms_after(struct tr *t, const struct ptx_insn *in)
{
	uint32_t r = in->o[0].reg;

	if (terminated(t)) {
		forms_forget(t);
		return;
	}
	forget_written(t, in);
	/* a parameter: the same in every lane (warp_param_load()) */
	if (in->op == OP_LD && in->space == PS_PARAM && in->o[0].kind == PO_REG)
		t->forms[r] = (struct lane_form){ .known = true,
			.base = L.LLVMBuildExtractElement(t->b, reg(t, r),
							  cint(t->s32, 0), "") };
}

/* @in's result in lane @lane, from its sources' forms @f, a scalar. */
static LLVMValueRef lane_value(struct tr *t, const struct ptx_insn *in,
			       const struct lane_form *f, unsigned int lane)
{
	t->lane_in = in;
	t->lane_forms = f;
	t->lane = lane;
	set_warp(t, false);
	compute(t, in);
	set_warp(t, true);
	t->lane_in = NULL;
	return t->lane_result;
}

/*
 * Whether @in makes its result from fewer than 64 bits, where a jump
 * could show; not a move of a value no wider than its type.
 */
static bool narrow_result(const struct cumc_ptx_function *fn,
			  const struct ptx_insn *in)
{
	const struct ptx_operand *o = &in->o[1];

	if (in->op == OP_MOV && in->type.size >= (o->kind == PO_SREG ? 4 :
	    o->kind == PO_REG ? fn->reg_types[o->reg].size : 8))
		return false;
	return in->type.size < 8 || (in->op == OP_CVT && in->type2.size < 8);
}

/*
 * @in (at @pc) whose result has a form: made for lane 0 alone (and the
 * last lane, where a jump could show), its register the form's lanes.
 */
static void lanes_of_form(struct tr *t, const struct ptx_insn *in,
			  const struct lane_form *f, int64_t stride, uint32_t pc)
{
	LLVMValueRef base = lane_value(t, in, f, 0), last;
	bool vary = false;
	unsigned int i;

	for (i = 1; i < in->nopnd; i++)
		vary |= f[i].stride != 0;
	if (vary && narrow_result(t->fn, in)) {
		last = lane_value(t, in, f, PTX_JIT_LANES - 1);
		lanes_or_hand_off(t, L.LLVMBuildICmp(t->b, LLVMIntEQ,
			L.LLVMBuildSub(t->b, last, base, ""), cint(t->s64,
			(uint64_t)(stride * (PTX_JIT_LANES - 1))), ""), pc);
	}
	forget_written(t, in);
	t->forms[in->o[0].reg] = (struct lane_form){ .known = true,
		.stride = stride, .base = base };
}

/* Consecutive lanes: the whole warp's elements in one vector access. */
static void warp_whole(struct tr *t, const struct warp_access *w,
		       LLVMValueRef first)
{
	const struct ptx_operand *v = w->v;
	bool st = w->in->op == OP_ST;
	LLVMValueRef p, x;

	warp_check(t, w, L.LLVMBuildAnd(t->b,
		within(t, first, w->size * PTX_JIT_LANES, w->lim_lo, w->lim_hi),
		aligned(t, first, w->size), ""));
	p = lane_ptr(t, w->in, w->shared, first);
	if (w->in->space != PS_SHARED)
		prefetch(t, p, st);
	p = typed_ptr(t, p, w->vty);
	if (st)
		x = L.LLVMBuildStore(t->b, L.LLVMBuildTrunc(t->b,
			v->kind == PO_REG ? reg(t, v->reg) : imm(t, v),
			w->vty, ""), p);
	else
		x = L.LLVMBuildLoad2(t->b, w->vty, p, "");
	/* volatile: a spin-wait's load is made each time round */
	L.LLVMSetVolatile(x, true);
	L.LLVMSetAlignment(x, w->size);
	if (!st && v->kind == PO_REG && v->reg != PTX_NO_REG)
		set_loaded(t, w->in, v->reg, x);
}

/* One lane's value, a vector's in one access (vector_access). */
static void warp_lane_vector(struct tr *t, const struct warp_access *w,
			     LLVMValueRef p, LLVMValueRef lane,
			     LLVMValueRef *vals)
{
	const struct ptx_operand *v = w->v;
	bool st = w->in->op == OP_ST;
	LLVMValueRef elems[4];
	unsigned int i;

	for (i = 0; st && i < w->n; i++)
		elems[i] = L.LLVMBuildExtractElement(t->b, L.LLVMBuildTrunc(t->b,
			value_elem(t, v, i), w->vty, ""), lane, "");
	vector_access(t, p, w->size, w->n, st, elems);
	for (i = 0; !st && i < w->n; i++)
		vals[i] = L.LLVMBuildInsertElement(t->b, vals[i], elems[i],
						   lane, "");
}

/* Any lanes' addresses: each lane's elements, lane after lane. */
static void warp_each(struct tr *t, const struct warp_access *w)
{
	bool st = w->in->op == OP_ST;
	unsigned int size = w->size, i, l;
	LLVMValueRef vals[4];

	warp_check(t, w, L.LLVMBuildAnd(t->b, warp_within(t, w,
		reduce(t, "llvm.vector.reduce.umin", w->addr),
		reduce(t, "llvm.vector.reduce.umax", w->addr), size * w->n),
		L.LLVMBuildICmp(t->b, LLVMIntEQ, L.LLVMBuildAnd(t->b,
			reduce(t, "llvm.vector.reduce.or", w->addr),
			cint(t->s64, size * w->n - 1), ""), cint(t->s64, 0), ""),
		""));
	for (i = 0; i < w->n; i++)
		vals[i] = L.LLVMGetUndef(w->vty);
	for (l = 0; l < PTX_JIT_LANES; l++) {
		LLVMValueRef lane = cint(t->s32, l);
		LLVMValueRef p = lane_ptr(t, w->in, w->shared,
			L.LLVMBuildExtractElement(t->b, w->addr, lane, ""));

		warp_lane_vector(t, w, p, lane, vals);
	}
	for (i = 0; i < w->n && !st; i++)
		if (value_reg(w->v, i) != PTX_NO_REG)
			set_loaded(t, w->in, value_reg(w->v, i), vals[i]);
}

/*
 * Whether the lanes' addresses @addr (operand @a's) follow each other by
 * @stride from lane 0's, @first: known from the address register's form
 * where it has that stride, else compared.
 */
static LLVMValueRef lanes_follow(struct tr *t, const struct ptx_operand *a,
				 LLVMValueRef addr, LLVMValueRef first,
				 unsigned int stride)
{
	if (a->reg != PTX_NO_REG && t->forms[a->reg].known &&
	    t->forms[a->reg].stride == stride)
		return cint(t->s1, 1);
	return consecutive(t, addr, first, stride);
}

static void warp_load_store(struct tr *t, const struct ptx_insn *in,
			    uint32_t pc)
{
	bool st = in->op == OP_ST;
	const struct ptx_operand *a = &in->o[st ? 0 : 1];
	struct warp_access w = { .in = in, .v = &in->o[st ? 1 : 0],
				 .size = in->type.size, .n = 1 };
	LLVMValueRef first;
	LLVMBasicBlockRef one, each, join;

	if (in->space == PS_PARAM) {
		warp_param_load(t, in);
		return;
	}
	if (w.v->kind == PO_VEC)
		w.n = w.v->nvec;
	w.ety = int_type(t, w.size);
	w.vty = value_int(t, w.size);
	w.addr = imm(t, a);
	if (a->reg != PTX_NO_REG)
		w.addr = L.LLVMBuildAdd(t->b, reg(t, a->reg), w.addr, "");
	if (in->space == PS_SHARED) {
		w.shared = load_field(t, t->run, RUN_FIELD(shared), t->p8);
		w.lim_lo = cint(t->s64, 0);
		w.lim_hi = load_field(t, t->run, RUN_FIELD(shared_size), t->s64);
	} else {
		LLVMValueRef sites = load_field(t, t->run, RUN_FIELD(sites), t->p8);
		size_t off = (size_t)t->site_of[pc] * sizeof(struct ptx_jit_site);

		w.lim_lo = load_field(t, sites, off +
				      offsetof(struct ptx_jit_site, lo), t->s64);
		w.lim_hi = load_field(t, sites, off +
				      offsetof(struct ptx_jit_site, hi), t->s64);
	}
	w.outside = new_block(t);
	each = new_block(t);
	join = new_block(t);
	if (w.n == 1) {
		one = new_block(t);
		first = L.LLVMBuildExtractElement(t->b, w.addr, cint(t->s32, 0), "");
		L.LLVMBuildCondBr(t->b, lanes_follow(t, a, w.addr, first, w.size),
				  one, each);
		L.LLVMPositionBuilderAtEnd(t->b, one);
		warp_whole(t, &w, first);
	}
	L.LLVMBuildBr(t->b, w.n == 1 ? join : each);
	L.LLVMPositionBuilderAtEnd(t->b, each);
	warp_each(t, &w);
	L.LLVMBuildBr(t->b, join);
	L.LLVMPositionBuilderAtEnd(t->b, w.outside);
	hand_off(t, cint(t->i32, pc));
	L.LLVMPositionBuilderAtEnd(t->b, join);
}

/* The vectors @a and @b as one vector of their lanes, @a's first. */
static LLVMValueRef join_lanes(struct tr *t, LLVMValueRef a, LLVMValueRef b,
			       unsigned int lanes)
{
	LLVMValueRef idx[PTX_JIT_LANES * 4];
	unsigned int i;

	for (i = 0; i < 2 * lanes; i++)
		idx[i] = cint(t->s32, i);
	return L.LLVMBuildShuffleVector(t->b, a, b,
					L.LLVMConstVector(idx, 2 * lanes), "");
}

/*
 * The lanes' @n values (1, 2 or 4 vectors, the decoder allows no other
 * count) as one vector, lane after lane: a warp's buffer for multimem,
 * each lane's part laid out as exec_mem.c lays out one thread's.
 */
static LLVMValueRef interleave(struct tr *t, LLVMValueRef *vals,
			       unsigned int n)
{
	LLVMValueRef idx[PTX_JIT_LANES * 4];
	unsigned int i, l;

	if (n == 1)
		return vals[0];
	if (n == 4) {	/* a shuffle takes two vectors: two pairs joined */
		vals[0] = join_lanes(t, vals[0], vals[1], PTX_JIT_LANES);
		vals[1] = join_lanes(t, vals[2], vals[3], PTX_JIT_LANES);
	}
	for (l = 0; l < PTX_JIT_LANES; l++)
		for (i = 0; i < n; i++)
			idx[l * n + i] = cint(t->s32, i * PTX_JIT_LANES + l);
	return L.LLVMBuildShuffleVector(t->b, vals[0], vals[1],
		L.LLVMConstVector(idx, PTX_JIT_LANES * n), "");
}

/* Value @i of each lane of @v, which interleave() laid out. */
static LLVMValueRef deinterleave(struct tr *t, LLVMValueRef v, unsigned int n,
				 unsigned int i)
{
	LLVMValueRef idx[PTX_JIT_LANES];
	unsigned int l;

	for (l = 0; l < PTX_JIT_LANES; l++)
		idx[l] = cint(t->s32, l * n + i);
	return L.LLVMBuildShuffleVector(t->b, v, L.LLVMGetUndef(L.LLVMTypeOf(v)),
		L.LLVMConstVector(idx, PTX_JIT_LANES), "");
}

/*
 * multimem for the lanes of a warp.  Where lane l's elements follow lane
 * 0's (its address lane 0's plus l times its values' size) and are
 * aligned, the multicast path makes the access for all of them in one
 * call, their values lane after lane, as the hardware makes a warp's;
 * else, or where the path refuses the whole (having changed nothing),
 * the threads go on one by one from the instruction, each making its own
 * access through the interpreter, the first refused one faulting.
 */
static void warp_multimem(struct tr *t, const struct ptx_insn *in,
			  uint32_t pc)
{
	bool ld = in->wmode == CUMC_PTX_MM_LD_REDUCE;
	const struct ptx_operand *a = &in->o[ld ? 1 : 0];
	const struct ptx_operand *v = &in->o[ld ? 0 : 1];
	unsigned int n = v->kind == PO_VEC ? v->nvec : 1, i;
	unsigned int rsize = in->type.size * in->mmpack;
	LLVMTypeRef bty = L.LLVMVectorType(int_type(t, rsize), PTX_JIT_LANES * n);
	LLVMBasicBlockRef call = new_block(t), done = new_block(t);
	LLVMBasicBlockRef outside = new_block(t);
	LLVMValueRef addr = imm(t, a), first, buf, vals[4], args[5], fn, x;

	if (a->reg != PTX_NO_REG)
		addr = L.LLVMBuildAdd(t->b, reg(t, a->reg), addr, "");
	first = L.LLVMBuildExtractElement(t->b, addr, cint(t->s32, 0), "");
	L.LLVMBuildCondBr(t->b, L.LLVMBuildAnd(t->b,
		lanes_follow(t, a, addr, first, n * rsize),
		aligned(t, first, rsize), ""), call, outside);

	L.LLVMPositionBuilderAtEnd(t->b, call);
	buf = typed_ptr(t, t->mmbuf, bty);
	for (i = 0; i < n && !ld; i++) {
		uint32_t r = v->kind == PO_VEC ? v->vec[i] :
			     v->kind == PO_REG ? v->reg : PTX_NO_REG;

		vals[i] = L.LLVMBuildTrunc(t->b, r != PTX_NO_REG ? reg(t, r) :
					   imm(t, v), value_int(t, rsize), "");
	}
	if (!ld)
		L.LLVMSetAlignment(L.LLVMBuildStore(t->b,
				   interleave(t, vals, n), buf), rsize);
	args[0] = t->run;
	args[1] = cint(t->s32, pc);
	args[2] = first;
	args[3] = typed_ptr(t, t->mmbuf, t->i8);
	args[4] = cint(t->s32, PTX_JIT_LANES * n * in->mmpack);
	fn = load_field(t, t->run, RUN_FIELD(multimem),
			L.LLVMPointerType(t->mm_ty, 0));
	x = L.LLVMBuildCall2(t->b, t->mm_ty, fn, args, 5, "");
	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ, x,
			  cint(t->s32, 0), ""), outside, done);

	L.LLVMPositionBuilderAtEnd(t->b, outside);
	hand_off(t, cint(t->i32, pc));

	L.LLVMPositionBuilderAtEnd(t->b, done);
	if (!ld)
		return;
	x = L.LLVMBuildLoad2(t->b, bty, buf, "");
	L.LLVMSetAlignment(x, rsize);
	for (i = 0; i < n; i++) {
		uint32_t r = v->kind == PO_VEC ? v->vec[i] :
			     v->kind == PO_REG ? v->reg : PTX_NO_REG;

		if (r != PTX_NO_REG)
			set_reg(t, r, L.LLVMBuildZExt(t->b,
				deinterleave(t, x, n, i), t->i64, ""));
	}
}

/*
 * An instruction for the lanes of a warp.  A guard or a branch the lanes
 * agree on is taken by the warp; where they disagree, the threads go on
 * one by one (at the branch's two ways, or at the guarded instruction).
 */
static void warp_emit(struct tr *t, const struct ptx_insn *in, uint32_t pc)
{
	LLVMBasicBlockRef skip = NULL, mixed, some;
	struct lane_form f[PTX_MAX_OPERANDS];
	int64_t stride;
	LLVMValueRef g;

	if (!warp_native(t->fn, in)) {
		hand_off(t, cint(t->i32, pc));
		forms_forget(t);
		return;
	}
	if (forms_before(t, in, f, &stride, pc)) {
		lanes_of_form(t, in, f, stride, pc);
		return;
	}
	if (in->guard != PTX_NO_REG) {
		LLVMBasicBlockRef all = new_block(t);

		g = truthy(t, reg(t, in->guard));
		if (in->guard_neg)
			g = L.LLVMBuildNot(t->b, g, "");
		skip = new_block(t);
		mixed = new_block(t);
		some = new_block(t);
		L.LLVMBuildCondBr(t->b, reduce(t, "llvm.vector.reduce.and", g),
				  all, some);
		L.LLVMPositionBuilderAtEnd(t->b, some);
		L.LLVMBuildCondBr(t->b, reduce(t, "llvm.vector.reduce.or", g),
				  mixed, skip);
		L.LLVMPositionBuilderAtEnd(t->b, mixed);
		if (in->op == OP_BRA) {
			hand_off(t, L.LLVMBuildSelect(t->b, g,
				 cint(t->i32, in->o[0].imm), cint(t->i32, pc + 1), ""));
			L.LLVMPositionBuilderAtEnd(t->b, all);
			branch_to_join(t, t->vstarts[in->o[0].imm]);
			L.LLVMPositionBuilderAtEnd(t->b, skip);
			return;
		}
		hand_off(t, cint(t->i32, pc));
		L.LLVMPositionBuilderAtEnd(t->b, all);
	}
	switch (in->op) {
	case OP_BRA:
		branch_to_join(t, t->vstarts[in->o[0].imm]);
		break;
	case OP_RET: case OP_EXIT:
		L.LLVMBuildBr(t->b, t->warp_exited);
		break;
	case OP_MEMBAR:
		L.LLVMBuildFence(t->b, LLVMAtomicOrderingSequentiallyConsistent,
				 false, "");
		break;
	case OP_LD: case OP_ST:
		warp_load_store(t, in, pc);
		break;
	case OP_MULTIMEM:
		warp_multimem(t, in, pc);
		break;
	default:
		compute(t, in);
	}
	if (skip) {
		if (!terminated(t))
			L.LLVMBuildBr(t->b, skip);
		L.LLVMPositionBuilderAtEnd(t->b, skip);
	}
	forms_after(t, in);
}

/* enter() for warp code: a spent slice hands the threads on. */
static void warp_enter(struct tr *t, uint32_t pc)
{
	LLVMValueRef left = L.LLVMBuildLoad2(t->b, t->s32, t->budget, "");
	LLVMBasicBlockRef go = new_block(t), out = new_block(t);

	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntSLE, left,
			  cint(t->s32, 0), ""), out, go);
	L.LLVMPositionBuilderAtEnd(t->b, out);
	hand_off(t, cint(t->i32, pc));
	L.LLVMPositionBuilderAtEnd(t->b, go);
	L.LLVMBuildStore(t->b, L.LLVMBuildSub(t->b, left,
			 cint(t->s32, t->seglen[pc]), ""), t->budget);
}

/*
 * The addresses of register @r's slots of the warp's threads, lane l's
 * of thread idx + l (made where the registers go to or come from them,
 * not on warp code's way).
 */
static LLVMValueRef slot_ptrs(struct tr *t, uint32_t r)
{
	LLVMValueRef base = typed_ptr(t, load_field(t, t->run, RUN_FIELD(regs),
						    t->p8), t->s64);
	LLVMValueRef rows = L.LLVMBuildMul(t->b, L.LLVMBuildZExt(t->b, t->idx,
		t->i64, ""), i64c(t, t->fn->nregs), "");
	LLVMValueRef i = L.LLVMBuildAdd(t->b, rows, i64c(t, r), "");

	return L.LLVMBuildGEP2(t->b, t->s64, base, &i, 1, "");
}

/* The lanes of register @r from the warp's threads' slots. */
static void gather_reg(struct tr *t, uint32_t r)
{
	LLVMValueRef ptrs = slot_ptrs(t, r);
	LLVMTypeRef tys[2] = { t->i64, L.LLVMTypeOf(ptrs) };
	LLVMValueRef args[4] = { ptrs, cint(t->s32, 8), cint(t->i1, 1),
				 L.LLVMGetUndef(t->i64) };

	set_reg(t, r, intrinsic_of(t, "llvm.masked.gather", tys, 2, args, 4));
}

/* Register @r's lanes to the warp's threads' slots. */
static void scatter_reg(struct tr *t, uint32_t r)
{
	LLVMValueRef ptrs = slot_ptrs(t, r);
	LLVMTypeRef tys[2] = { t->i64, L.LLVMTypeOf(ptrs) };
	LLVMValueRef args[4] = { reg(t, r), ptrs, cint(t->s32, 8),
				 cint(t->i1, 1) };

	intrinsic_of(t, "llvm.masked.scatter", tys, 2, args, 4);
}

/* The thread records of a warp as one vector of i64 (8 bytes each). */
_Static_assert(sizeof(struct ptx_jit_thread) == 8 &&
	       offsetof(struct ptx_jit_thread, pc) == 0 &&
	       offsetof(struct ptx_jit_thread, resumed) ==
	       offsetof(struct ptx_jit_thread, state) + 1,
	       "warp code reads a warp's thread records as 64-bit lanes");
#define THREAD_STATE_SHIFT (offsetof(struct ptx_jit_thread, state) * 8)
#define THREAD_RESUMED_SHIFT (offsetof(struct ptx_jit_thread, resumed) * 8)
/* pc, state and resumed: what threads standing together have the same */
#define THREAD_RECORD_MASK (0xffffffffull | 0xffffull << THREAD_STATE_SHIFT)

/*
 * In the block the round has reached thread @t->idx in (its record at
 * @tp): the first thread of a whole warp whose threads stand together
 * (the same record: runnable, none ran yet or all at one pc with their
 * registers saved) runs the warp code, the others the per-thread code.
 */
static void warp_entry(struct tr *t, LLVMValueRef tp, LLVMBasicBlockRef warp)
{
	LLVMBasicBlockRef check = new_block(t), same = new_block(t);
	LLVMTypeRef recs = L.LLVMVectorType(t->s64, PTX_JIT_LANES);
	LLVMValueRef whole, v, first, runnable, fresh;

	whole = L.LLVMBuildAnd(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ,
		L.LLVMBuildAnd(t->b, t->idx, cint(t->s32, PTX_JIT_LANES - 1), ""),
		cint(t->s32, 0), ""), L.LLVMBuildICmp(t->b, LLVMIntULE,
		L.LLVMBuildAdd(t->b, t->idx, cint(t->s32, PTX_JIT_LANES), ""),
		load_field(t, t->run, RUN_FIELD(nthreads), t->s32), ""), "");
	L.LLVMBuildCondBr(t->b, whole, check, t->per_thread);
	L.LLVMPositionBuilderAtEnd(t->b, check);
	v = L.LLVMBuildLoad2(t->b, recs, typed_ptr(t, tp, recs), "");
	L.LLVMSetAlignment(v, 8);
	v = L.LLVMBuildAnd(t->b, v, cint(recs, THREAD_RECORD_MASK), "");
	/* none ran yet (all records 0), the common case, tested first */
	fresh = L.LLVMBuildICmp(t->b, LLVMIntEQ, L.LLVMBuildBitCast(t->b,
		L.LLVMBuildICmp(t->b, LLVMIntEQ, v, cint(recs, 0), ""),
		L.LLVMIntTypeInContext(t->c, PTX_JIT_LANES), ""),
		L.LLVMConstAllOnes(L.LLVMIntTypeInContext(t->c, PTX_JIT_LANES)), "");
	L.LLVMBuildStore(t->b, fresh, t->warp_fresh);
	L.LLVMBuildCondBr(t->b, fresh, warp, same);
	L.LLVMPositionBuilderAtEnd(t->b, same);
	first = L.LLVMBuildExtractElement(t->b, v, cint(t->s32, 0), "");
	runnable = L.LLVMBuildICmp(t->b, LLVMIntEQ, L.LLVMBuildAnd(t->b, first,
		cint(t->s64, 0xffull << THREAD_STATE_SHIFT), ""),
		cint(t->s64, (uint64_t)TS_RUN << THREAD_STATE_SHIFT), "");
	v = L.LLVMBuildXor(t->b, v, splat(t, first), "");
	L.LLVMBuildCondBr(t->b, L.LLVMBuildAnd(t->b, runnable,
		L.LLVMBuildICmp(t->b, LLVMIntEQ, reduce(t, "llvm.vector.reduce.or",
				v), cint(t->s64, 0), ""), ""), warp, t->per_thread);
}

/* Whether @pc is where bar.sync lets its threads go. */
static bool after_barrier(const struct cumc_ptx_function *fn, uint32_t pc)
{
	return pc > 0 && pc < fn->ninsns && fn->insns[pc - 1].op == OP_BAR;
}

/*
 * Where warp code's control flow joins (lane forms are forgotten there):
 * its start, branch targets, and where bar.sync lets the threads go.
 */
static void mark_joins(struct tr *t)
{
	const struct cumc_ptx_function *fn = t->fn;
	uint32_t pc;

	t->joins[0] = true;
	for (pc = 0; pc < fn->ninsns; pc++) {
		const struct ptx_insn *in = &fn->insns[pc];

		if (in->op == OP_BRA && in->o[0].imm < fn->ninsns)
			t->joins[in->o[0].imm] = true;
		if (after_barrier(fn, pc))
			t->joins[pc] = true;
	}
}

/*
 * A warp whose threads bar.sync let go of, all at the instruction after
 * it: their registers from their slots into the lanes, and the warp code
 * from there.  Threads that stand together anywhere else (their slices
 * spent at one pc) go on one by one, as they stopped.
 */
static void warp_resume(struct tr *t, LLVMValueRef tp)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMBasicBlockRef fill = new_block(t);
	LLVMValueRef pc, to, x;
	uint32_t k, r;

	pc = load_field(t, tp, offsetof(struct ptx_jit_thread, pc), t->s32);
	x = L.LLVMBuildSwitch(t->b, pc, t->per_thread, 0);
	for (k = 0; k < fn->ninsns; k++)
		if (after_barrier(fn, k))
			L.LLVMAddCase(x, cint(t->s32, k), fill);
	L.LLVMPositionBuilderAtEnd(t->b, fill);
	for (r = 0; r < fn->nregs; r++)
		gather_reg(t, r);
	to = L.LLVMBuildSwitch(t->b, pc, t->per_thread, 0);
	for (k = 0; k < fn->ninsns; k++)
		if (after_barrier(fn, k))
			L.LLVMAddCase(to, cint(t->s32, k), t->vstarts[k]);
}

/*
 * The warp code: the kernel's instructions over vectors of the warp's
 * lanes, from its first instruction or where bar.sync let the threads go
 * (warp_resume()), in the block @warp; its ways out are the warp's end
 * (each thread exited) and the hand-off to the per-thread code.  @tp is
 * the warp's first thread record, @counter the round's thread counter,
 * @head the round's next step.
 */
static void warp_code(struct tr *t, LLVMBasicBlockRef warp, LLVMValueRef tp,
		      LLVMValueRef counter, LLVMBasicBlockRef head)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMValueRef *regs = t->regs, ti = t->ti, idx = t->idx;
	LLVMValueRef lanes[PTX_JIT_LANES], x;
	LLVMTypeRef recs = L.LLVMVectorType(t->s64, PTX_JIT_LANES);
	LLVMBasicBlockRef fresh = new_block(t), resume = new_block(t), saved;
	uint32_t k, r;

	for (k = 0; k < fn->ninsns; k++)
		if (t->starts[k])
			t->vstarts[k] = new_block(t);
	t->handoff = new_block(t);
	t->warp_exited = new_block(t);
	set_warp(t, true);
	t->regs = t->vregs;
	t->ti = t->vti;

	L.LLVMPositionBuilderAtEnd(t->b, warp);
	for (k = 0; k < PTX_JIT_LANES; k++)
		lanes[k] = cint(t->s32, k);
	t->idx = L.LLVMBuildAdd(t->b, uniform(t, idx),
				L.LLVMConstVector(lanes, PTX_JIT_LANES), "");
	saved = new_block(t);
	L.LLVMBuildCondBr(t->b, L.LLVMBuildLoad2(t->b, t->s1, t->warp_fresh, ""),
			  fresh, saved);
	L.LLVMPositionBuilderAtEnd(t->b, saved);
	x = load_field(t, tp, offsetof(struct ptx_jit_thread, resumed), t->i8);
	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ, x,
			  cint(t->i8, 0), ""), fresh, resume);
	L.LLVMPositionBuilderAtEnd(t->b, fresh);
	for (r = 0; r < fn->nregs; r++)
		set_reg(t, r, i64c(t, 0));
	L.LLVMBuildBr(t->b, t->vstarts[0]);
	L.LLVMPositionBuilderAtEnd(t->b, resume);
	warp_resume(t, tp);
	L.LLVMPositionBuilderAtEnd(t->b, new_block(t));
	mark_joins(t);
	for (k = 0; k < fn->ninsns; k++) {
		if (t->vstarts[k]) {
			if (!terminated(t) && t->joins[k])
				branch_to_join(t, t->vstarts[k]);
			else if (!terminated(t))
				L.LLVMBuildBr(t->b, t->vstarts[k]);
			L.LLVMPositionBuilderAtEnd(t->b, t->vstarts[k]);
			if (t->joins[k])
				forms_forget(t);
			if (!t->check_only[k])
				warp_enter(t, k);
		} else if (terminated(t)) {
			L.LLVMPositionBuilderAtEnd(t->b, new_block(t));
		}
		warp_emit(t, &fn->insns[k], k);
	}
	if (!terminated(t))
		L.LLVMBuildBr(t->b, t->warp_exited);
	forms_forget(t);

	/*
	 * each thread's registers and pc to its slots, its record in one
	 * store (runnable: warp code runs runnable threads only): it
	 * resumes alone
	 */
	L.LLVMPositionBuilderAtEnd(t->b, t->handoff);
	for (r = 0; r < fn->nregs; r++)
		scatter_reg(t, r);
	x = L.LLVMBuildOr(t->b, L.LLVMBuildZExt(t->b, L.LLVMBuildLoad2(t->b,
		t->i32, t->vpc, ""), t->i64, ""), i64c(t, (uint64_t)TS_RUN <<
		THREAD_STATE_SHIFT | 1ull << THREAD_RESUMED_SHIFT), "");
	x = L.LLVMBuildStore(t->b, x, typed_ptr(t, tp, recs));
	L.LLVMSetAlignment(x, 8);
	L.LLVMBuildStore(t->b, cint(t->s32, PTX_JIT_SLICE), t->budget);
	L.LLVMBuildBr(t->b, t->per_thread);

	/* every lane exited: the records say so in one store */
	L.LLVMPositionBuilderAtEnd(t->b, t->warp_exited);
	x = L.LLVMBuildStore(t->b, cint(recs, (uint64_t)TS_EXITED <<
					THREAD_STATE_SHIFT), typed_ptr(t, tp, recs));
	L.LLVMSetAlignment(x, 8);
	add_field(t, t->run, RUN_FIELD(exited), PTX_JIT_LANES);
	L.LLVMBuildStore(t->b, L.LLVMBuildAdd(t->b, idx,
			 cint(t->s32, PTX_JIT_LANES), ""), counter);
	L.LLVMBuildBr(t->b, head);

	set_warp(t, false);
	t->regs = regs;
	t->ti = ti;
	t->idx = idx;
}

/*
 * Whether warp code may check a lane form at @in: a result with a form
 * made from fewer than 64 bits, or from tid.  The threads then resume
 * there one by one, without a block's count of their slice.
 */
static bool form_check_at(const struct tr *t, const struct ptx_insn *in)
{
	unsigned int i;

	if (!form_instruction(in))
		return false;
	if (narrow_result(t->fn, in))
		return true;
	for (i = 1; i < in->nopnd; i++)
		if (in->o[i].kind == PO_SREG && in->o[i].sreg == SR_TID_X &&
		    t->tid_forms)
			return true;
	return false;
}

/*
 * Resume points: the IR's blocks, the instructions after bar.sync, and
 * where warp code may hand its threads on.
 */
static void mark_starts(struct tr *t)
{
	const struct cumc_ptx_function *fn = t->fn;
	uint32_t pc, i, last = 0;

	for (i = 0; i < fn->nblocks; i++)
		if (fn->block_starts[i] < fn->ninsns &&
		    !t->starts[fn->block_starts[i]])
			t->starts[fn->block_starts[i]] = new_block(t);
	t->starts[0] = t->starts[0] ? t->starts[0] : new_block(t);
	for (pc = 0; pc + 1 < fn->ninsns; pc++)
		if (fn->insns[pc].op == OP_BAR && !t->starts[pc + 1])
			t->starts[pc + 1] = new_block(t);
	/* where warp code may hand its threads on */
	for (pc = 0; pc < fn->ninsns; pc++) {
		const struct ptx_insn *in = &fn->insns[pc];

		bool access = ((in->op == OP_LD || in->op == OP_ST) &&
			       in->space != PS_PARAM) || in->op == OP_MULTIMEM;

		if ((in->guard != PTX_NO_REG || access ||
		     !warp_native(fn, in)) && !t->starts[pc])
			t->starts[pc] = new_block(t);
		if (in->guard != PTX_NO_REG && in->op == OP_BRA &&
		    pc + 1 < fn->ninsns && !t->starts[pc + 1])
			t->starts[pc + 1] = new_block(t);
	}
	/* where a lane form's check may hand them on (lanes_or_hand_off()) */
	for (pc = 0; pc < fn->ninsns; pc++)
		if (form_check_at(t, &fn->insns[pc]) && !t->starts[pc]) {
			t->starts[pc] = new_block(t);
			t->check_only[pc] = true;
		}
	for (pc = 1; pc <= fn->ninsns; pc++)
		if (pc == fn->ninsns || (t->starts[pc] && !t->check_only[pc])) {
			t->seglen[last] = pc - last;
			last = pc;
		}
}

static void save_regs(struct tr *t)
{
	uint32_t r;

	for (r = 0; r < t->fn->nregs; r++)
		spill(t, r);
}

/*
 * The round: for (i = 0; i < nthreads && !stop; i++) a runnable thread
 * runs from its pc; the blocks below are its ways out.
 */
static void translate(struct tr *t, LLVMValueRef f)
{
	const struct cumc_ptx_function *fn = t->fn;
	LLVMBasicBlockRef entry, head, body, resume, fresh, done, sw, warp;
	LLVMValueRef i, st, tp, pc, sv;
	LLVMTypeRef lanes64 = L.LLVMVectorType(t->s64, PTX_JIT_LANES);
	uint32_t r, k;

	t->f = f;
	t->run = L.LLVMGetParam(f, 0);
	t->tid_forms = tid_x_only(fn);
	entry = new_block(t);
	mark_starts(t);
	head = new_block(t);
	body = new_block(t);
	resume = new_block(t);
	fresh = new_block(t);
	done = new_block(t);
	sw = new_block(t);
	t->next = new_block(t);
	t->suspend = new_block(t);
	t->barrier = new_block(t);
	t->exited = new_block(t);
	t->fault = new_block(t);
	t->per_thread = new_block(t);
	warp = new_block(t);

	L.LLVMPositionBuilderAtEnd(t->b, entry);
	for (r = 0; r < fn->nregs; r++) {
		t->regs[r] = L.LLVMBuildAlloca(t->b, t->i64, "");
		t->vregs[r] = L.LLVMBuildAlloca(t->b, narrow_reg(t, r) ?
			L.LLVMVectorType(t->s32, PTX_JIT_LANES) : lanes64, "");
	}
	t->vti = L.LLVMBuildAlloca(t->b, lanes64, "");
	t->vpc = L.LLVMBuildAlloca(t->b, L.LLVMVectorType(t->s32,
				   PTX_JIT_LANES), "");
	/* a warp's multimem values: up to 4 of 8 bytes a lane */
	t->mmbuf = L.LLVMBuildAlloca(t->b, L.LLVMVectorType(t->s64,
				     PTX_JIT_LANES * 4), "");
	L.LLVMSetAlignment(t->mmbuf, 16);
	t->warp_fresh = L.LLVMBuildAlloca(t->b, t->s1, "");
	t->budget = L.LLVMBuildAlloca(t->b, t->i32, "");
	t->resume_pc = L.LLVMBuildAlloca(t->b, t->i32, "");
	t->ti = L.LLVMBuildAlloca(t->b, t->i64, "");
	i = L.LLVMBuildAlloca(t->b, t->i32, "");
	L.LLVMBuildStore(t->b, cint(t->i32, 0), i);
	L.LLVMBuildBr(t->b, head);

	/* head: the next thread, unless the grid stopped */
	L.LLVMPositionBuilderAtEnd(t->b, head);
	t->idx = L.LLVMBuildLoad2(t->b, t->i32, i, "");
	{
		LLVMValueRef stop = load_field(t, t->run, RUN_FIELD(stop), t->p8);
		LLVMValueRef sb = L.LLVMBuildLoad2(t->b, t->i8, stop, "");
		LLVMValueRef more;

		L.LLVMSetOrdering(sb, LLVMAtomicOrderingMonotonic);
		L.LLVMSetAlignment(sb, 1);
		more = L.LLVMBuildICmp(t->b, LLVMIntULT, t->idx,
				       load_field(t, t->run, RUN_FIELD(nthreads), t->i32), "");
		more = L.LLVMBuildAnd(t->b, more, L.LLVMBuildICmp(t->b,
				      LLVMIntEQ, sb, cint(t->i8, 0), ""), "");
		L.LLVMBuildCondBr(t->b, more, body, done);
	}

	L.LLVMPositionBuilderAtEnd(t->b, body);
	tp = byte_ptr(t, load_field(t, t->run, RUN_FIELD(threads), t->p8),
		      L.LLVMBuildMul(t->b, L.LLVMBuildZExt(t->b, t->idx, t->i64, ""),
				     i64c(t, sizeof(struct ptx_jit_thread)), ""));
	t->tp = tp;
	L.LLVMBuildStore(t->b, cint(t->i32, PTX_JIT_SLICE), t->budget);
	warp_entry(t, tp, warp);
	L.LLVMPositionBuilderAtEnd(t->b, t->per_thread);
	st = load_field(t, tp, offsetof(struct ptx_jit_thread, state), t->i8);
	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ, st,
			  cint(t->i8, TS_RUN), ""), sw, t->next);

	/* a thread that ran before takes its registers back */
	L.LLVMPositionBuilderAtEnd(t->b, sw);
	st = load_field(t, tp, offsetof(struct ptx_jit_thread, resumed), t->i8);
	L.LLVMBuildCondBr(t->b, L.LLVMBuildICmp(t->b, LLVMIntEQ, st,
			  cint(t->i8, 0), ""), fresh, resume);
	L.LLVMPositionBuilderAtEnd(t->b, fresh);
	for (r = 0; r < fn->nregs; r++)
		set_reg(t, r, i64c(t, 0));
	L.LLVMBuildBr(t->b, t->starts[0]);
	L.LLVMPositionBuilderAtEnd(t->b, resume);
	for (r = 0; r < fn->nregs; r++)
		fill(t, r);
	pc = load_field(t, tp, offsetof(struct ptx_jit_thread, pc), t->i32);
	{
		/* past the last instruction (a bar.sync there): its end */
		LLVMValueRef s = L.LLVMBuildSwitch(t->b, pc, t->exited,
						   fn->ninsns);

		for (k = 0; k < fn->ninsns; k++)
			if (t->starts[k])
				L.LLVMAddCase(s, cint(t->i32, k), t->starts[k]);
	}

	/* the instructions */
	L.LLVMPositionBuilderAtEnd(t->b, new_block(t));
	L.LLVMBuildBr(t->b, t->starts[0]);
	for (k = 0; k < fn->ninsns; k++) {
		if (t->starts[k]) {
			if (!terminated(t))
				L.LLVMBuildBr(t->b, t->starts[k]);
			L.LLVMPositionBuilderAtEnd(t->b, t->starts[k]);
			if (!t->check_only[k])
				enter(t, k);
		} else if (terminated(t)) {
			L.LLVMPositionBuilderAtEnd(t->b, new_block(t));
		}
		emit(t, &fn->insns[k], k);
	}
	if (!terminated(t))
		L.LLVMBuildBr(t->b, t->exited);

	/* ways out */
	L.LLVMPositionBuilderAtEnd(t->b, t->barrier);
	store_field(t, tp, offsetof(struct ptx_jit_thread, state), t->i8,
		    cint(t->i8, TS_BARRIER));
	add_field(t, t->run, RUN_FIELD(arrived), 1);
	L.LLVMBuildBr(t->b, t->suspend);

	L.LLVMPositionBuilderAtEnd(t->b, t->suspend);
	save_regs(t);
	sv = L.LLVMBuildLoad2(t->b, t->i32, t->resume_pc, "");
	store_field(t, tp, offsetof(struct ptx_jit_thread, pc), t->i32, sv);
	store_field(t, tp, offsetof(struct ptx_jit_thread, resumed), t->i8,
		    cint(t->i8, 1));
	L.LLVMBuildBr(t->b, t->next);

	L.LLVMPositionBuilderAtEnd(t->b, t->exited);
	store_field(t, tp, offsetof(struct ptx_jit_thread, state), t->i8,
		    cint(t->i8, TS_EXITED));
	add_field(t, t->run, RUN_FIELD(exited), 1);
	L.LLVMBuildBr(t->b, t->next);

	L.LLVMPositionBuilderAtEnd(t->b, t->next);
	L.LLVMBuildStore(t->b, L.LLVMBuildAdd(t->b, t->idx, cint(t->i32, 1), ""),
			 i);
	L.LLVMBuildBr(t->b, head);

	warp_code(t, warp, tp, i, head);

	L.LLVMPositionBuilderAtEnd(t->b, t->fault);
	L.LLVMBuildRet(t->b, cint(t->i32, 1));
	L.LLVMPositionBuilderAtEnd(t->b, done);
	L.LLVMBuildRet(t->b, cint(t->i32, 0));
}

/* ---- Helpers the compiled code calls ---- */

/* The interpreter's view of thread @index of the run's CTA. */
static void thread_view(const struct ptx_jit_run *r, uint32_t index,
			struct ptx_thread *t)
{
	const struct cumc_ptx_function *fn = r->w->grid->fn;
	uint32_t x = r->ntid[0], y = r->ntid[1];

	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->regs = r->regs + (size_t)index * fn->nregs;
	t->local = r->local + (size_t)index * r->local_size;
	t->local_size = r->local_size;
	t->params = (unsigned char *)r->params;
	t->index = index;
	t->tid[0] = index % x;
	t->tid[1] = index / x % y;
	t->tid[2] = index / x / y;
}

static void *jit_mem(struct ptx_jit_run *r, uint32_t index, uint32_t pc,
		     uint64_t addr, uint32_t size, uint32_t write, uint32_t site)
{
	const struct ptx_insn *in = &r->w->grid->fn->insns[pc];
	struct ptx_thread t;
	unsigned int i;
	void *p;

	thread_view(r, index, &t);
	p = ptx_mem(r->w, r->cta, &t, in->space, addr, size, write);
	if (!p) {
		ptx_grid_fault(r->w, r->cta, &t, CUMC_PTX_EFAULT, addr, in->line);
		return NULL;
	}
	/* device memory: its range serves this instruction's next accesses */
	for (i = 0; site != UINT32_MAX && i < PTX_RANGES; i++) {
		const struct ptx_range *g = &r->w->ranges[i];

		if (g->hi && addr >= g->lo && addr <= g->hi &&
		    size <= g->hi - addr && (g->write || !write)) {
			r->sites[site].lo = g->lo;
			r->sites[site].hi = g->hi;
			break;
		}
	}
	return p;
}

static uint32_t jit_step(struct ptx_jit_run *r, uint32_t index, uint32_t pc)
{
	struct ptx_thread t;

	thread_view(r, index, &t);
	t.pc = pc;
	return ptx_run(r->w, r->cta, &t, 1) == SL_FAULT;
}

static uint32_t jit_multimem(struct ptx_jit_run *r, uint32_t pc, uint64_t addr,
			     void *buf, uint32_t count)
{
	return ptx_multimem_access(r->w, &r->w->grid->fn->insns[pc], addr, buf,
				   count);
}

void ptx_jit_prepare(struct ptx_jit_run *r)
{
	r->mem = jit_mem;
	r->step = jit_step;
	r->multimem = jit_multimem;
}

/* ---- Compiling, caching ---- */

static uint64_t fnv1a(const void *data, size_t len, uint64_t h)
{
	const unsigned char *p = data;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The cache key: the PTX, the translator (its version, which changes with
 * the code it generates, and the layout of what the code reads), the CPU
 * the code is for.
 */
static void cache_key(const char *text, size_t len, char *key, size_t size)
{
	uint64_t h[2] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull };
	unsigned int k;

	/* the code reads these structures at offsets it was compiled with */
	static const size_t layout[] = {
		sizeof(struct ptx_jit_run), RUN_FIELD(globals), RUN_FIELD(sites),
		RUN_FIELD(stop), RUN_FIELD(mem), RUN_FIELD(step),
		RUN_FIELD(multimem),
		RUN_FIELD(nthreads), RUN_FIELD(exited),
		sizeof(struct ptx_jit_thread), sizeof(struct ptx_jit_site),
	};

	for (k = 0; k < 2; k++) {
		h[k] = fnv1a(PTX_JIT_VERSION, strlen(PTX_JIT_VERSION), h[k]);
		h[k] = fnv1a(layout, sizeof(layout), h[k]);
		h[k] = fnv1a(host_cpu, strlen(host_cpu), h[k]);
		h[k] = fnv1a(host_features, strlen(host_features), h[k]);
		h[k] = fnv1a(text, len, h[k] ^ (k ? len : 0));
	}
	snprintf(key, size, "%016llx%016llx", (unsigned long long)h[0],
		 (unsigned long long)h[1]);
}

/*
 * The cache directory: CUDA_CACHE_PATH, else $XDG_CACHE_HOME/cumc/jit or
 * ~/.cache/cumc/jit; none under CUDA_CACHE_DISABLE=1 or CUMC_JIT_CACHE=0.
 */
static bool cache_dir(char *dir, size_t size)
{
	const char *v = getenv("CUDA_CACHE_DISABLE");
	const char *path = getenv("CUDA_CACHE_PATH");
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if ((v && !strcmp(v, "1")) || env_off("CUMC_JIT_CACHE"))
		return false;
	if (path && *path)
		return snprintf(dir, size, "%s", path) < (int)size;
	if (xdg && *xdg)
		return snprintf(dir, size, "%s/cumc/jit", xdg) < (int)size;
	if (home && *home)
		return snprintf(dir, size, "%s/.cache/cumc/jit", home) < (int)size;
	return false;
}

/* @dir and the directories above it that are missing. */
static void make_dirs(const char *dir)
{
	char path[4096], *s;

	snprintf(path, sizeof(path), "%s", dir);
	for (s = path + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(path, 0700);
			*s = '/';
		}
	mkdir(path, 0700);
}

static LLVMMemoryBufferRef cache_read(const char *path)
{
	LLVMMemoryBufferRef buf = NULL;
	struct stat sb;
	char *data;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	data = !fstat(fd, &sb) && sb.st_size > 0 ? malloc(sb.st_size) : NULL;
	if (data && read(fd, data, sb.st_size) == sb.st_size)
		buf = L.LLVMCreateMemoryBufferWithMemoryRangeCopy(data,
			sb.st_size, path);
	free(data);
	close(fd);
	return buf;
}

/*
 * Written under a temporary name and renamed: readers see all or none.
 * The directory exists: cache_lock() made it, or the object was there.
 */
static void cache_write(const char *path, LLVMMemoryBufferRef buf)
{
	char tmp[4300];
	size_t n = L.LLVMGetBufferSize(buf);
	int fd;

	/*
	 * A name no other writer has: processes of other hosts (VMs sharing
	 * the directory) can have the same pid.
	 */
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		ptx_log("JIT: cannot write the cache %s: %s", tmp, strerror(errno));
		return;
	}
	if (write(fd, L.LLVMGetBufferStart(buf), n) != (ssize_t)n ||
	    close(fd) || rename(tmp, path)) {
		ptx_log("JIT: cannot write the cache %s: %s", path, strerror(errno));
		unlink(tmp);
	}
}

static bool compilable(const struct cumc_ptx_function *fn)
{
	return fn->entry && fn->ninsns && !uncompiled(fn);
}

/* Whether @in is a memory instruction with a device range of its own. */
static bool has_site(const struct ptx_insn *in)
{
	return (in->op == OP_LD || in->op == OP_ST) && native(in) &&
	       in->space != PS_PARAM && in->space != PS_SHARED &&
	       in->space != PS_LOCAL;
}

/* Memory instructions with a device range of their own (mem_access()). */
uint32_t ptx_jit_sites(const struct cumc_ptx_function *fn)
{
	uint32_t pc, n = 0;

	for (pc = 0; pc < fn->ninsns; pc++)
		n += has_site(&fn->insns[pc]);
	return n;
}

static void symbol_name(char *buf, size_t size, const char *key,
			unsigned int i)
{
	snprintf(buf, size, "cumc_%s_%u", key, i);
}

static bool translate_module(struct tr *t, const struct cumc_ptx_module *m,
			     const char *key)
{
	LLVMTypeRef run_p = L.LLVMPointerType(t->i8, 0);
	LLVMTypeRef ty = L.LLVMFunctionType(t->i32, &run_p, 1, false);
	LLVMTypeRef mem_args[] = { run_p, t->i32, t->i32, t->i64, t->i32,
				   t->i32, t->i32 };
	LLVMTypeRef step_args[] = { run_p, t->i32, t->i32 };
	LLVMTypeRef mm_args[] = { run_p, t->i32, t->i64, t->p8, t->i32 };
	char name[80];
	uint32_t pc, site;
	unsigned int i;
	bool ok;

	t->mem_ty = L.LLVMFunctionType(t->p8, mem_args, 7, false);
	t->step_ty = L.LLVMFunctionType(t->i32, step_args, 3, false);
	t->mm_ty = L.LLVMFunctionType(t->i32, mm_args, 5, false);
	for (i = 0; i < m->nfuncs; i++) {
		const struct cumc_ptx_function *fn = &m->funcs[i];

		if (!compilable(fn))
			continue;
		t->fn = fn;
		t->sites = 0;
		t->regs = calloc(fn->nregs + 1, sizeof(*t->regs));
		t->vregs = calloc(fn->nregs + 1, sizeof(*t->vregs));
		t->starts = calloc(fn->ninsns, sizeof(*t->starts));
		t->vstarts = calloc(fn->ninsns, sizeof(*t->vstarts));
		t->seglen = calloc(fn->ninsns, sizeof(*t->seglen));
		t->site_of = calloc(fn->ninsns, sizeof(*t->site_of));
		t->forms = calloc(fn->nregs + 1, sizeof(*t->forms));
		t->joins = calloc(fn->ninsns + 1, sizeof(*t->joins));
		t->check_only = calloc(fn->ninsns + 1, sizeof(*t->check_only));
		ok = t->regs && t->vregs && t->starts && t->vstarts &&
		     t->seglen && t->site_of && t->forms && t->joins &&
		     t->check_only;
		for (pc = 0, site = 0; ok && pc < fn->ninsns; pc++)
			if (has_site(&fn->insns[pc]))
				t->site_of[pc] = site++;
		if (ok) {
			symbol_name(name, sizeof(name), key, i);
			translate(t, L.LLVMAddFunction(t->m, name, ty));
		}
		free(t->regs);
		free(t->vregs);
		free(t->starts);
		free(t->vstarts);
		free(t->seglen);
		free(t->site_of);
		free(t->forms);
		free(t->joins);
		free(t->check_only);
		if (!ok)
			return false;
	}
	return true;
}

/* The object code of @m's compilable kernels, NULL on failure. */
static LLVMMemoryBufferRef compile(const struct cumc_ptx_module *m,
				   const char *key)
{
	struct tr t = { 0 };
	LLVMMemoryBufferRef obj = NULL;
	LLVMTargetMachineRef tm = NULL;
	LLVMPassBuilderOptionsRef opts;
	LLVMTargetDataRef layout;
	LLVMTargetRef target;
	char *triple, *msg = NULL;

	t.c = L.LLVMContextCreate();
	t.m = L.LLVMModuleCreateWithNameInContext("cumc", t.c);
	t.b = L.LLVMCreateBuilderInContext(t.c);
	t.s1 = L.LLVMInt1TypeInContext(t.c);
	t.i8 = L.LLVMInt8TypeInContext(t.c);
	t.s32 = L.LLVMInt32TypeInContext(t.c);
	t.s64 = L.LLVMInt64TypeInContext(t.c);
	t.s128 = L.LLVMIntTypeInContext(t.c, 128);
	t.sf32 = L.LLVMFloatTypeInContext(t.c);
	t.sf64 = L.LLVMDoubleTypeInContext(t.c);
	t.p8 = L.LLVMPointerType(t.i8, 0);
	set_warp(&t, false);
	triple = L.LLVMGetDefaultTargetTriple();
	if (L.LLVMGetTargetFromTriple(triple, &target, &msg)) {
		ptx_log("JIT: %s: %s", triple, msg);
		goto out;
	}
	/*
	 * The large code model: the JIT places the code and its data
	 * (jump tables, constants) where it finds room, further apart than
	 * the default model's 32-bit displacements reach once a process has
	 * mapped its GPUs' address space in between, and cuts a displacement
	 * that does not fit short, silently.
	 */
	tm = L.LLVMCreateTargetMachine(target, triple, host_cpu, host_features,
				       PTX_JIT_CODEGEN_LEVEL, LLVMRelocStatic,
				       LLVMCodeModelLarge);
	L.LLVMSetTarget(t.m, triple);
	layout = L.LLVMCreateTargetDataLayout(tm);
	L.LLVMSetModuleDataLayout(t.m, layout);
	L.LLVMDisposeTargetData(layout);
	if (!translate_module(&t, m, key))
		goto out;
	if (L.LLVMVerifyModule(t.m, LLVMReturnStatusAction, &msg)) {
		ptx_log("JIT: the translation is not valid LLVM IR: %.300s", msg);
		goto out;
	}
	L.LLVMDisposeMessage(msg);
	msg = NULL;
	opts = L.LLVMCreatePassBuilderOptions();
	if (llvm_failed(L.LLVMRunPasses(t.m, PTX_JIT_PIPELINE, tm, opts),
			"optimizing")) {
		L.LLVMDisposePassBuilderOptions(opts);
		goto out;
	}
	L.LLVMDisposePassBuilderOptions(opts);
	if (L.LLVMTargetMachineEmitToMemoryBuffer(tm, t.m, LLVMObjectFile, &msg,
						  &obj)) {
		ptx_log("JIT: code generation: %s", msg);
		obj = NULL;
	}
out:
	if (msg)
		L.LLVMDisposeMessage(msg);
	if (tm)
		L.LLVMDisposeTargetMachine(tm);
	L.LLVMDisposeMessage(triple);
	L.LLVMDisposeBuilder(t.b);
	L.LLVMDisposeModule(t.m);
	L.LLVMContextDispose(t.c);
	return obj;
}

/* Objects already in the JIT: loading the same PTX again reuses them. */
struct loaded {
	struct loaded *next;
	char key[33];
};
static struct loaded *loaded;

static bool already_loaded(const char *key)
{
	const struct loaded *l;

	for (l = loaded; l; l = l->next)
		if (!strcmp(l->key, key))
			return true;
	return false;
}

/* Adds @obj (taking it) to the JIT; false when that failed. */
static bool add_object(const char *key, LLVMMemoryBufferRef obj)
{
	struct loaded *l = calloc(1, sizeof(*l));

	if (!l) {
		L.LLVMDisposeMemoryBuffer(obj);
		return false;
	}
	if (llvm_failed(L.LLVMOrcLLJITAddObjectFile(jit,
			L.LLVMOrcLLJITGetMainJITDylib(jit), obj), "loading")) {
		free(l);
		return false;
	}
	snprintf(l->key, sizeof(l->key), "%s", key);
	l->next = loaded;
	loaded = l;
	return true;
}

static void log_interpreted(const struct cumc_ptx_module *m)
{
	unsigned int i;

	for (i = 0; i < m->nfuncs; i++) {
		const struct cumc_ptx_function *fn = &m->funcs[i];
		const struct ptx_insn *in = fn->entry ? uncompiled(fn) : NULL;

		if (in)
			ptx_log("JIT: kernel %s runs on the interpreter: a call, a warp operation or a named barrier at line %u",
				fn->name, in->line);
	}
}

/*
 * The cache directory's lock, held while an object missing from it is
 * compiled: the processes that load one module at once (the ranks of a
 * job) compile it once, the others waiting and then reading what the
 * first wrote. -1 when it cannot be taken: then each compiles, as
 * without it.
 */
static int cache_lock(const char *dir)
{
	int fd;

	make_dirs(dir);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Adds the object for @key to the JIT: the cache's, else (or when the
 * cached one does not load: cut short, damaged) compiled and cached.
 */
static bool load_object(const struct cumc_ptx_module *m, const char *key)
{
	LLVMMemoryBufferRef obj = NULL;
	char dir[4096], path[4200];
	bool cache = cache_dir(dir, sizeof(dir)), added = false;
	int lock = -1;

	if (cache) {
		snprintf(path, sizeof(path), "%s/%s.o", dir, key);
		obj = cache_read(path);
		if (!obj) {
			lock = cache_lock(dir);
			obj = cache_read(path);
		}
		added = obj && add_object(key, obj);
		if (obj && !added)
			ptx_log("JIT: %s does not load; compiling again", path);
	}
	if (!added) {
		obj = compile(m, key);
		if (obj && cache)
			cache_write(path, obj);
		added = obj && add_object(key, obj);
	}
	if (lock >= 0)
		close(lock);
	return added;
}

void ptx_jit_module(struct cumc_ptx_module *m, const char *text, size_t len)
{
	LLVMOrcExecutorAddress addr;
	char key[33], name[80];
	unsigned int i, n = 0;

	if (env_off("CUMC_PTX_JIT"))
		return;
	for (i = 0; i < m->nfuncs; i++)
		n += compilable(&m->funcs[i]);
	pthread_mutex_lock(&jit_lock);
	if (!jit_state)
		jit_state = jit_open();
	if (jit_state < 0)
		goto out;
	log_interpreted(m);
	if (!n)
		goto out;
	if (m->nglobals) {
		m->global_addrs = calloc(m->nglobals, sizeof(*m->global_addrs));
		if (!m->global_addrs)
			goto out;
		for (i = 0; i < m->nglobals; i++)
			m->global_addrs[i] = (uintptr_t)m->globals[i].data;
	}
	cache_key(text, len, key, sizeof(key));
	if (!already_loaded(key) && !load_object(m, key))
		goto out;
	for (i = 0; i < m->nfuncs; i++) {
		struct cumc_ptx_function *fn = &m->funcs[i];
		LLVMErrorRef err;

		if (!compilable(fn))
			continue;
		symbol_name(name, sizeof(name), key, i);
		err = L.LLVMOrcLLJITLookup(jit, &addr, name);
		if (llvm_failed(err, name))
			continue;
		fn->jit_sites = ptx_jit_sites(fn);
		fn->jit = (uint32_t (*)(struct ptx_jit_run *))(uintptr_t)addr;
	}
out:
	pthread_mutex_unlock(&jit_lock);
}
