// SPDX-License-Identifier: MIT
/*
 * The translator: a kernel's IR to LLVM IR, compiled in the process by
 * Debian's libLLVM (loaded with dlopen on the first module, so that a
 * machine without it interprets), the object cached on disk under a hash
 * of the PTX, the translator's version and the host CPU.
 *
 * Here: LLVM opened, a module's kernels compiled (the translation is
 * jit_translate.c's, warp code jit_warp.c's and jit_forms.c's) and
 * loaded, from the cache on disk (jit_cache.c) where they were compiled
 * before; what the compiled code calls as it runs is jit_run.c's.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit_tr.h"

/* Another name at build time (-D) for a distribution's other soname. */
#ifndef PTX_JIT_LIBRARY
#define PTX_JIT_LIBRARY "libLLVM-14.so.1"
#endif
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

struct llvm_functions ptx_jit_llvm;

/* dlsym's names of the functions, and where each goes. */
#define LLVM_NAME(name) { #name, (void **)&ptx_jit_llvm.name },
static const struct {
	const char *name;
	void **fn;
} llvm_names[] = { LLVM_FUNCTIONS(LLVM_NAME) };
#undef LLVM_NAME

/* The one JIT of the process: compiled code lives as long as it. */
static pthread_mutex_t jit_lock = PTHREAD_MUTEX_INITIALIZER;
static LLVMOrcLLJITRef jit;
const char *ptx_jit_host_cpu, *ptx_jit_host_features;
bool ptx_jit_host_fma;
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

bool ptx_jit_env_off(const char *name)
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
	msg = ptx_jit_llvm.LLVMGetErrorMessage(err);
	ptx_log("JIT: %s: %s", what, msg);
	ptx_jit_llvm.LLVMDisposeErrorMessage(msg);
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
	ptx_jit_llvm.LLVMInitializeX86TargetInfo();
	ptx_jit_llvm.LLVMInitializeX86Target();
	ptx_jit_llvm.LLVMInitializeX86TargetMC();
	ptx_jit_llvm.LLVMInitializeX86AsmPrinter();
	if (llvm_failed(ptx_jit_llvm.LLVMOrcCreateLLJIT(&jit,
			ptx_jit_llvm.LLVMOrcCreateLLJITBuilder()), "LLJIT"))
		return -1;
	/*
	 * Under TCG, code without AVX: for the CPU TCG presents (AVX2), the
	 * f32 sum of a kernel's multimem.ld_reduce (the data path's SSE2
	 * loop) took three times as long in most builds, and QEMU's code
	 * that adds floats four times as long, while AVX code ran before it;
	 * with x86-64-v2 the one-shot kernel ran at 0.45 to 0.52 of the
	 * calls, where it ran at 0.27 (Documentation/performance.md).
	 */
	if (cumc_ptx_cpu_emulated()) {
		ptx_jit_host_cpu = "x86-64-v2";
		ptx_jit_host_features = "";
	} else {
		ptx_jit_host_cpu = ptx_jit_llvm.LLVMGetHostCPUName();
		ptx_jit_host_features = ptx_jit_llvm.LLVMGetHostCPUFeatures();
	}
	ptx_jit_host_fma = has_feature(ptx_jit_host_features, "+fma");
	return 1;
}

/* ---- Compiling, loading ---- */

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

	t.c = ptx_jit_llvm.LLVMContextCreate();
	t.m = ptx_jit_llvm.LLVMModuleCreateWithNameInContext("cumc", t.c);
	t.b = ptx_jit_llvm.LLVMCreateBuilderInContext(t.c);
	t.s1 = ptx_jit_llvm.LLVMInt1TypeInContext(t.c);
	t.i8 = ptx_jit_llvm.LLVMInt8TypeInContext(t.c);
	t.s32 = ptx_jit_llvm.LLVMInt32TypeInContext(t.c);
	t.s64 = ptx_jit_llvm.LLVMInt64TypeInContext(t.c);
	t.s128 = ptx_jit_llvm.LLVMIntTypeInContext(t.c, 128);
	t.sf32 = ptx_jit_llvm.LLVMFloatTypeInContext(t.c);
	t.sf64 = ptx_jit_llvm.LLVMDoubleTypeInContext(t.c);
	t.p8 = ptx_jit_llvm.LLVMPointerType(t.i8, 0);
	ptx_jit_set_warp(&t, false);
	triple = ptx_jit_llvm.LLVMGetDefaultTargetTriple();
	if (ptx_jit_llvm.LLVMGetTargetFromTriple(triple, &target, &msg)) {
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
	tm = ptx_jit_llvm.LLVMCreateTargetMachine(target, triple,
		ptx_jit_host_cpu, ptx_jit_host_features, PTX_JIT_CODEGEN_LEVEL,
		LLVMRelocStatic, LLVMCodeModelLarge);
	ptx_jit_llvm.LLVMSetTarget(t.m, triple);
	layout = ptx_jit_llvm.LLVMCreateTargetDataLayout(tm);
	ptx_jit_llvm.LLVMSetModuleDataLayout(t.m, layout);
	ptx_jit_llvm.LLVMDisposeTargetData(layout);
	if (!ptx_jit_translate_module(&t, m, key))
		goto out;
	if (ptx_jit_llvm.LLVMVerifyModule(t.m, LLVMReturnStatusAction, &msg)) {
		ptx_log("JIT: the translation is not valid LLVM IR: %.300s", msg);
		goto out;
	}
	ptx_jit_llvm.LLVMDisposeMessage(msg);
	msg = NULL;
	opts = ptx_jit_llvm.LLVMCreatePassBuilderOptions();
	if (llvm_failed(ptx_jit_llvm.LLVMRunPasses(t.m, PTX_JIT_PIPELINE, tm,
						   opts), "optimizing")) {
		ptx_jit_llvm.LLVMDisposePassBuilderOptions(opts);
		goto out;
	}
	ptx_jit_llvm.LLVMDisposePassBuilderOptions(opts);
	if (ptx_jit_llvm.LLVMTargetMachineEmitToMemoryBuffer(tm, t.m,
							     LLVMObjectFile,
							     &msg, &obj)) {
		ptx_log("JIT: code generation: %s", msg);
		obj = NULL;
	}
out:
	if (msg)
		ptx_jit_llvm.LLVMDisposeMessage(msg);
	if (tm)
		ptx_jit_llvm.LLVMDisposeTargetMachine(tm);
	ptx_jit_llvm.LLVMDisposeMessage(triple);
	ptx_jit_llvm.LLVMDisposeBuilder(t.b);
	ptx_jit_llvm.LLVMDisposeModule(t.m);
	ptx_jit_llvm.LLVMContextDispose(t.c);
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
		ptx_jit_llvm.LLVMDisposeMemoryBuffer(obj);
		return false;
	}
	if (llvm_failed(ptx_jit_llvm.LLVMOrcLLJITAddObjectFile(jit,
			ptx_jit_llvm.LLVMOrcLLJITGetMainJITDylib(jit), obj),
			"loading")) {
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
		const struct ptx_insn *in =
			fn->entry ? ptx_jit_uncompiled(fn) : NULL;

		if (in)
			ptx_log("JIT: kernel %s runs on the interpreter: a call, a warp operation or a named barrier at line %u",
				fn->name, in->line);
	}
}

/*
 * Adds the object for @key to the JIT: the cache's, else (or when the
 * cached one does not load: cut short, damaged) compiled and cached.
 */
static bool load_object(const struct cumc_ptx_module *m, const char *key)
{
	LLVMMemoryBufferRef obj = NULL;
	char dir[4096], path[4200];
	bool cache = ptx_jit_cache_dir(dir, sizeof(dir)), added = false;
	int lock = -1;

	if (cache) {
		snprintf(path, sizeof(path), "%s/%s.o", dir, key);
		obj = ptx_jit_cache_read(path);
		if (!obj) {
			lock = ptx_jit_cache_lock(dir);
			obj = ptx_jit_cache_read(path);
		}
		added = obj && add_object(key, obj);
		if (obj && !added)
			ptx_log("JIT: %s does not load; compiling again", path);
	}
	if (!added) {
		obj = compile(m, key);
		if (obj && cache)
			ptx_jit_cache_write(path, obj);
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

	if (ptx_jit_env_off("CUMC_PTX_JIT"))
		return;
	for (i = 0; i < m->nfuncs; i++)
		n += ptx_jit_compilable(&m->funcs[i]);
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
	ptx_jit_cache_key(text, len, key, sizeof(key));
	if (!already_loaded(key) && !load_object(m, key))
		goto out;
	for (i = 0; i < m->nfuncs; i++) {
		struct cumc_ptx_function *fn = &m->funcs[i];
		LLVMErrorRef err;

		if (!ptx_jit_compilable(fn))
			continue;
		ptx_jit_symbol_name(name, sizeof(name), key, i);
		err = ptx_jit_llvm.LLVMOrcLLJITLookup(jit, &addr, name);
		if (llvm_failed(err, name))
			continue;
		fn->jit_sites = ptx_jit_sites(fn);
		fn->jit = (uint32_t (*)(struct ptx_jit_run *))(uintptr_t)addr;
	}
out:
	pthread_mutex_unlock(&jit_lock);
}
