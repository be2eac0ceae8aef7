// SPDX-License-Identifier: MIT
/*
 * Device code speed (Documentation/performance.md, "Kernels"): kernels
 * run by libcumc-ptx on buffers of this process, compiled (the JIT) and
 * interpreted, each against a baseline timed in the same run:
 *
 *   vecadd   c[i] = a[i] + b[i] over 64 MiB arrays (16 Mi floats), one
 *            worker, against the same loop in C on one thread;
 *   loop     the same as a grid-stride loop over arrays in cache, 8 blocks
 *            (vec_add_loop): a loop's cost in warp code;
 *   fma      a chain of fma.rn.f32 per thread, in thread-instructions per
 *            second, compiled beside interpreted;
 *   load     a module's load in a fresh process: cold (compiled, written
 *            to the cache), cached, and interpreted (no JIT at all).
 *
 * The kernels' results are compared between the two executors and with
 * the C loop: a run whose results differ stops (a figure of wrong code is
 * no figure).  [--json FILE] [--reps N]; BENCH_PTX_INTERP=0 leaves the
 * interpreted runs out (0 in their places), as under TCG, where they take
 * minutes: the compiled figures are then checked against C only.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/wait.h>

#include "bench.h"
#include "cumc_ptx.h"

#define VEC_N (16u << 20)
#define BLOCK 256u
/*
 * vec_add_loop: a grid-stride loop, as kernels are often written, over
 * arrays in cache (1 MiB each); 8 blocks, so that a thread goes round 128
 * times.  A launch is short: LOOP_LAUNCHES of them (and of the C loop)
 * make one figure.
 */
#define LOOP_N (256u << 10)
#define LOOP_GRID 8u
#define LOOP_LAUNCHES 16
#define FMA_ITERS 256u
#define FMA_THREADS (64u * 1024)
/*
 * Instructions a thread of fma_chain runs: 10 before the loop, 11 an
 * iteration (8 fma, add, setp, bra), 4 after it.
 */
#define FMA_INSNS (10u + 11u * FMA_ITERS + 4u)

static const char kernels_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry vec_add(.param .u64 a, .param .u64 b, .param .u64 c,\n"
	"	.param .u32 n)\n{\n"
	"	.reg .pred %p<2>;\n	.reg .f32 %f<4>;\n	.reg .b32 %r<6>;\n"
	"	.reg .b64 %rd<11>;\n"
	"	ld.param.u64 %rd1, [a];\n	ld.param.u64 %rd2, [b];\n"
	"	ld.param.u64 %rd3, [c];\n	ld.param.u32 %r2, [n];\n"
	"	mov.u32 %r3, %ntid.x;\n	mov.u32 %r4, %ctaid.x;\n"
	"	mov.u32 %r5, %tid.x;\n	mad.lo.s32 %r1, %r3, %r4, %r5;\n"
	"	setp.ge.s32 %p1, %r1, %r2;\n	@%p1 bra DONE;\n"
	"	cvta.to.global.u64 %rd4, %rd1;\n	mul.wide.s32 %rd5, %r1, 4;\n"
	"	add.s64 %rd6, %rd4, %rd5;\n	cvta.to.global.u64 %rd7, %rd2;\n"
	"	add.s64 %rd8, %rd7, %rd5;\n	ld.global.f32 %f1, [%rd8];\n"
	"	ld.global.f32 %f2, [%rd6];\n	add.f32 %f3, %f2, %f1;\n"
	"	cvta.to.global.u64 %rd9, %rd3;\n	add.s64 %rd10, %rd9, %rd5;\n"
	"	st.global.f32 [%rd10], %f3;\n"
	"DONE:\n	ret;\n}\n"
	".visible .entry vec_add_loop(.param .u64 a, .param .u64 b,\n"
	"	.param .u64 c, .param .u64 n)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .f32 %f<4>;\n	.reg .b32 %r<5>;\n"
	"	.reg .b64 %rd<21>;\n"
	"	ld.param.u64 %rd9, [a];\n	ld.param.u64 %rd10, [b];\n"
	"	ld.param.u64 %rd11, [c];\n	ld.param.u64 %rd12, [n];\n"
	"	mov.u32 %r1, %ctaid.x;\n	mov.u32 %r2, %ntid.x;\n"
	"	cvt.u64.u32 %rd1, %r2;\n	mul.wide.u32 %rd13, %r1, %r2;\n"
	"	mov.u32 %r3, %tid.x;\n	cvt.u64.u32 %rd14, %r3;\n"
	"	add.s64 %rd20, %rd13, %rd14;\n	setp.ge.u64 %p1, %rd20, %rd12;\n"
	"	@%p1 bra LOOP_DONE;\n"
	"	mov.u32 %r4, %nctaid.x;\n	cvt.u64.u32 %rd15, %r4;\n"
	"	mul.lo.s64 %rd3, %rd15, %rd1;\n	cvta.to.global.u64 %rd4, %rd9;\n"
	"	cvta.to.global.u64 %rd5, %rd10;\n	cvta.to.global.u64 %rd6, %rd11;\n"
	"LOOP:\n	shl.b64 %rd16, %rd20, 2;\n	add.s64 %rd17, %rd5, %rd16;\n"
	"	ld.global.f32 %f1, [%rd17];\n	add.s64 %rd18, %rd4, %rd16;\n"
	"	ld.global.f32 %f2, [%rd18];\n	add.f32 %f3, %f2, %f1;\n"
	"	add.s64 %rd19, %rd6, %rd16;\n	st.global.f32 [%rd19], %f3;\n"
	"	add.s64 %rd20, %rd20, %rd3;\n	setp.lt.u64 %p2, %rd20, %rd12;\n"
	"	@%p2 bra LOOP;\n"
	"LOOP_DONE:\n	ret;\n}\n"
	".visible .entry fma_chain(.param .u64 out, .param .u32 iters)\n{\n"
	"	.reg .pred %p<2>;\n	.reg .f32 %f<4>;\n	.reg .b32 %r<6>;\n"
	"	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r1, [iters];\n"
	"	mov.u32 %r2, %tid.x;\n	mov.u32 %r3, %ctaid.x;\n"
	"	mov.u32 %r4, %ntid.x;\n	mad.lo.s32 %r2, %r3, %r4, %r2;\n"
	"	cvt.rn.f32.u32 %f1, %r2;\n	mov.f32 %f2, 0f3F800000;\n"
	"	mov.f32 %f3, 0f3F000000;\n	mov.u32 %r5, 0;\n"
	"LOOP:\n"
	"	fma.rn.f32 %f1, %f1, %f3, %f2;\n	fma.rn.f32 %f1, %f1, %f3, %f2;\n"
	"	fma.rn.f32 %f1, %f1, %f3, %f2;\n	fma.rn.f32 %f1, %f1, %f3, %f2;\n"
	"	fma.rn.f32 %f1, %f1, %f3, %f2;\n	fma.rn.f32 %f1, %f1, %f3, %f2;\n"
	"	fma.rn.f32 %f1, %f1, %f3, %f2;\n	fma.rn.f32 %f1, %f1, %f3, %f2;\n"
	"	add.s32 %r5, %r5, 1;\n	setp.lt.u32 %p1, %r5, %r1;\n"
	"	@%p1 bra LOOP;\n"
	"	mul.wide.u32 %rd2, %r2, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.f32 [%rd3], %f1;\n	ret;\n}\n";

/* The buffers kernels may touch: all of them, read and write. */
struct buffers {
	void *p[4];
	size_t size[4];
};

static bool allow(void *arg, uint64_t addr, size_t len, bool write,
		  uint64_t *lo, uint64_t *hi)
{
	const struct buffers *b = arg;
	unsigned int i;

	(void)write;
	for (i = 0; i < 4; i++) {
		uint64_t s = (uintptr_t)b->p[i];

		if (b->p[i] && addr >= s && addr + len <= s + b->size[i]) {
			*lo = s;
			*hi = s + b->size[i];
			return true;
		}
	}
	return false;
}

/* libcumc-ptx's lines (the JIT's, among them), as CUMC_LOG shows them. */
static void log_line(const char *line)
{
	fprintf(stderr, "cumc: %s\n", line);
}

static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

static struct cumc_ptx_module *load(const char *text, bool jit)
{
	struct cumc_ptx_module *m;
	char log[256];

	if (jit)
		unsetenv("CUMC_PTX_JIT");
	else
		setenv("CUMC_PTX_JIT", "0", 1);
	if (cumc_ptx_load(text, 0, 90, &m, log, sizeof(log)) != CUMC_PTX_OK) {
		fprintf(stderr, "load: %s\n", log);
		exit(1);
	}
	return m;
}

static double launch(const struct cumc_ptx_module *m, const char *name,
		     unsigned int grid, const void *params,
		     struct buffers *bufs, unsigned int workers)
{
	struct cumc_ptx_memory mem = { .check = allow, .arg = bufs };
	struct cumc_ptx_launch l = {
		.grid = { grid, 1, 1 }, .block = { BLOCK, 1, 1 },
		.params = params, .memory = &mem, .workers = workers,
	};
	struct cumc_ptx_fault fault;
	double t = now_ns();

	if (cumc_ptx_launch(cumc_ptx_function_find(m, name), &l, &fault)) {
		fprintf(stderr, "%s: fault at line %u\n", name, fault.line);
		exit(1);
	}
	return now_ns() - t;
}

static double median(double *v, int n)
{
	return stats_of(v, n).median_ns;
}

static void same(const void *x, const void *y, size_t size, const char *what)
{
	if (memcmp(x, y, size)) {
		fprintf(stderr, "bench_ptx: %s: results differ\n", what);
		exit(1);
	}
}

/* c = a + b in C, the baseline; the compiler may vectorize it. */
static double c_loop(const float *a, const float *b, float *c, size_t n)
{
	double t = now_ns();
	size_t i;

	for (i = 0; i < n; i++)
		c[i] = a[i] + b[i];
	__asm__ volatile("" : : "r"(c) : "memory");
	return now_ns() - t;
}

struct vec_figures {
	double c_ns, jit_ns, interp_ns;
};

/* a, b, c and ref of @n floats each into @bufs, a and b filled. */
static void vec_arrays(struct buffers *bufs, size_t n)
{
	float *a, *b;
	size_t i;

	for (i = 0; i < 4; i++) {
		bufs->size[i] = n * 4;
		bufs->p[i] = malloc(bufs->size[i]);
		if (!bufs->p[i]) {
			perror("malloc");
			exit(1);
		}
	}
	a = bufs->p[0];
	b = bufs->p[1];
	for (i = 0; i < n; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = (float)(n - i) * 0.25f;
	}
}

/* What vec_arrays() and figures() made. */
static void vec_free(struct buffers *bufs, double *cs, double *js)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		free(bufs->p[i]);
	free(cs);
	free(js);
}

/* @reps figures, zeroed. */
static double *figures(int reps)
{
	double *v = calloc(reps, sizeof(double));

	if (!v) {
		perror("calloc");
		exit(1);
	}
	return v;
}

static void vecadd(const struct cumc_ptx_module *jit,
		   const struct cumc_ptx_module *interp, int reps,
		   struct vec_figures *f)
{
	size_t bytes = (size_t)VEC_N * 4;
	struct { uint64_t a, b, c; uint32_t n; } __attribute__((aligned(8)))
		params = { .n = VEC_N };
	struct buffers bufs;
	float *a, *b, *c, *ref;
	double *cs = figures(reps), *js = figures(reps);
	int r;

	vec_arrays(&bufs, VEC_N);
	a = bufs.p[0], b = bufs.p[1], c = bufs.p[2], ref = bufs.p[3];
	params.a = (uintptr_t)a, params.b = (uintptr_t)b;
	params.c = (uintptr_t)c;
	/* every page touched before anything is timed */
	c_loop(a, b, ref, VEC_N);
	memset(c, 0, bytes);
	for (r = 0; r < reps; r++) {
		/* in turns, so that both see the same machine */
		cs[r] = c_loop(a, b, ref, VEC_N);
		js[r] = launch(jit, "vec_add", VEC_N / BLOCK, &params, &bufs, 1);
	}
	same(c, ref, bytes, "vec_add compiled against C");
	memset(c, 0, bytes);
	f->interp_ns = 0;
	if (interp) {
		f->interp_ns = launch(interp, "vec_add", VEC_N / BLOCK, &params,
				      &bufs, 1);
		same(c, ref, bytes, "vec_add interpreted against C");
	}
	f->c_ns = median(cs, reps);
	f->jit_ns = median(js, reps);
	vec_free(&bufs, cs, js);
}

/* vec_add_loop compiled against the C loop, LOOP_LAUNCHES of each a figure. */
static void vecadd_loop(const struct cumc_ptx_module *jit, int reps,
			struct vec_figures *f)
{
	struct { uint64_t a, b, c, n; } params = { .n = LOOP_N };
	struct buffers bufs;
	float *a, *b, *c, *ref;
	double *cs = figures(reps), *js = figures(reps);
	int r, k;

	vec_arrays(&bufs, LOOP_N);
	a = bufs.p[0], b = bufs.p[1], c = bufs.p[2], ref = bufs.p[3];
	params.a = (uintptr_t)a, params.b = (uintptr_t)b;
	params.c = (uintptr_t)c;
	c_loop(a, b, ref, LOOP_N);
	for (r = 0; r < reps; r++)
		for (k = 0; k < LOOP_LAUNCHES; k++) {
			cs[r] += c_loop(a, b, ref, LOOP_N);
			js[r] += launch(jit, "vec_add_loop", LOOP_GRID, &params,
					&bufs, 1);
		}
	same(c, ref, (size_t)LOOP_N * 4, "vec_add_loop compiled against C");
	f->c_ns = median(cs, reps);
	f->jit_ns = median(js, reps);
	f->interp_ns = 0;
	vec_free(&bufs, cs, js);
}

/* Thread-instructions per second of fma_chain, compiled and interpreted. */
static void fma_chain(const struct cumc_ptx_module *jit,
		      const struct cumc_ptx_module *interp, int reps,
		      double *jit_ips, double *interp_ips)
{
	size_t bytes = FMA_THREADS * 4;
	struct buffers bufs = { { malloc(bytes), malloc(bytes) }, { bytes, bytes } };
	struct { uint64_t out; uint32_t iters; } __attribute__((aligned(8)))
		params = { (uintptr_t)bufs.p[0], FMA_ITERS };
	double *js = calloc(reps, sizeof(double)), insns, t;
	int r;

	if (!bufs.p[0] || !bufs.p[1] || !js) {
		perror("malloc");
		exit(1);
	}
	insns = (double)FMA_THREADS * FMA_INSNS;
	for (r = 0; r < reps; r++)
		js[r] = launch(jit, "fma_chain", FMA_THREADS / BLOCK, &params,
			       &bufs, 1);
	*jit_ips = insns / (median(js, reps) / 1e9);
	*interp_ips = 0;
	if (interp) {
		params.out = (uintptr_t)bufs.p[1];
		t = launch(interp, "fma_chain", FMA_THREADS / BLOCK, &params,
			   &bufs, 1);
		*interp_ips = insns / (t / 1e9);
		same(bufs.p[0], bufs.p[1], bytes,
		     "fma_chain compiled against interpreted");
	}
	free(bufs.p[0]);
	free(bufs.p[1]);
	free(js);
}

/*
 * One load of @text in a fresh process (the JIT's first use included, as
 * a program's first module pays it), in ns; @jit false: interpreted.
 */
static double load_in_child(const char *text, bool jit)
{
	int fd[2];
	double t = -1;
	pid_t pid;

	if (pipe(fd)) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid == 0) {
		double t0 = now_ns();

		cumc_ptx_unload(load(text, jit));
		t0 = now_ns() - t0;
		_exit(write(fd[1], &t0, sizeof(t0)) != sizeof(t0));
	}
	close(fd[1]);
	if (pid < 0 || read(fd[0], &t, sizeof(t)) != sizeof(t)) {
		fprintf(stderr, "bench_ptx: the loading process failed\n");
		exit(1);
	}
	close(fd[0]);
	waitpid(pid, NULL, 0);
	return t;
}

/* The cache directory the loads wrote: its files, then itself. */
static void remove_cache(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

/* Cold, cached and interpreted loads, each the median of @reps processes. */
static void loads(int reps, double *cold, double *cached, double *interp)
{
	char dir[] = "/tmp/bench_ptx.XXXXXX";
	size_t len = sizeof(kernels_ptx) + 64;
	double *c = calloc(reps, sizeof(double)), *h = calloc(reps, sizeof(double));
	double *n = calloc(reps, sizeof(double));
	char *text = malloc(len);
	int r;

	if (!c || !h || !n || !text || !mkdtemp(dir)) {
		perror("bench_ptx");
		exit(1);
	}
	setenv("CUDA_CACHE_PATH", dir, 1);
	unsetenv("CUDA_CACHE_DISABLE");
	unsetenv("CUMC_JIT_CACHE");
	for (r = 0; r < reps; r++) {
		/* a text of its own: nothing cached for it yet */
		snprintf(text, len, "%s// load %d of pid %d\n", kernels_ptx, r,
			 (int)getpid());
		c[r] = load_in_child(text, true);
		h[r] = load_in_child(text, true);
		n[r] = load_in_child(text, false);
	}
	*cold = median(c, reps);
	*cached = median(h, reps);
	*interp = median(n, reps);
	remove_cache(dir);
	free(c);
	free(h);
	free(n);
	free(text);
}

int main(int argc, char **argv)
{
	const char *json = "build/bench/bench_ptx.json";
	struct cumc_ptx_module *jit, *interp;
	struct vec_figures v, w;
	double jit_ips, interp_ips, cold, cached, plain;
	struct json_object *doc;
	int reps = 5;

	control_args(argc, argv, &json, &reps);
	if (getenv("CUMC_LOG"))
		cumc_ptx_set_log(log_line);
	loads(reps, &cold, &cached, &plain);
	setenv("CUDA_CACHE_DISABLE", "1", 1);
	jit = load(kernels_ptx, true);
	/* BENCH_PTX_INTERP=0: no interpreted runs (minutes under TCG), 0s */
	interp = env_is("BENCH_PTX_INTERP", "0") ? NULL :
		 load(kernels_ptx, false);
	if (!cumc_ptx_compiled(cumc_ptx_function_find(jit, "vec_add")) ||
	    !cumc_ptx_compiled(cumc_ptx_function_find(jit, "vec_add_loop")) ||
	    !cumc_ptx_compiled(cumc_ptx_function_find(jit, "fma_chain")))
		fprintf(stderr, "bench_ptx: the JIT is not available (CUMC_LOG says why); "
			"both columns are the interpreter's\n");
	vecadd(jit, interp, reps, &v);
	vecadd_loop(jit, reps, &w);
	fma_chain(jit, interp, reps, &jit_ips, &interp_ips);

	printf("bench_ptx: median of %d; one worker (host thread) a launch\n\n",
	       reps);
	printf("%-44s | %12s %12s %12s\n", "kernel", "C loop ms", "compiled ms",
	       "interp. ms");
	printf("%-44s | %12.1f %12.1f %12.1f\n", "vec_add, 3 x 64 MiB", v.c_ns / 1e6,
	       v.jit_ns / 1e6, v.interp_ns / 1e6);
	printf("%-44s | %12s %12.3f %12.3f\n", "  speed, fraction of the C loop's", "",
	       v.c_ns / v.jit_ns, interp ? v.c_ns / v.interp_ns : 0);
	printf("%-44s | %12.1f %12.1f %12s\n", "vec_add_loop, 3 x 1 MiB, 16 launches",
	       w.c_ns / 1e6, w.jit_ns / 1e6, "");
	printf("%-44s | %12s %12.3f %12s\n", "  speed, fraction of the C loop's", "",
	       w.c_ns / w.jit_ns, "");
	printf("%-44s | %12s %12.0f %12.0f\n", "fma_chain, M thread-instructions/s",
	       "", jit_ips / 1e6, interp_ips / 1e6);
	printf("%-44s | %12s %12.1f %12.1f\n", "module load in a new process, ms: cold",
	       "", cold / 1e6, plain / 1e6);
	printf("%-44s | %12s %12.1f %12s\n", "                                  cached",
	       "", cached / 1e6, "");

	doc = bench_doc_begin(NULL);
	json_object_object_add(doc, "rounds", json_object_new_int(reps));
	json_object_object_add(doc, "results", bench_rows);
	JSON("\"kernel\": \"vec_add\", \"bytes\": %u, \"c_ns\": %.0f, "
	     "\"compiled_ns\": %.0f, \"interpreted_ns\": %.0f, "
	     "\"compiled_x_c\": %.3f, \"interpreted_x_c\": %.4f",
	     VEC_N * 4, v.c_ns, v.jit_ns, v.interp_ns, v.c_ns / v.jit_ns,
	     interp ? v.c_ns / v.interp_ns : 0);
	JSON("\"kernel\": \"vec_add_loop\", \"bytes\": %u, \"launches\": %d, "
	     "\"c_ns\": %.0f, \"compiled_ns\": %.0f, \"compiled_x_c\": %.3f",
	     LOOP_N * 4, LOOP_LAUNCHES, w.c_ns, w.jit_ns, w.c_ns / w.jit_ns);
	JSON("\"kernel\": \"fma_chain\", \"compiled_insn_per_s\": %.0f, "
	     "\"interpreted_insn_per_s\": %.0f", jit_ips, interp_ips);
	JSON("\"kernel\": \"load\", \"cold_ns\": %.0f, \"cached_ns\": %.0f, "
	     "\"interpreted_ns\": %.0f", cold, cached, plain);
	if (bench_json_write(json, doc)) {
		perror(json);
		return 1;
	}
	json_object_put(doc);
	printf("\nJSON: %s\n", json);
	cumc_ptx_unload(jit);
	if (interp)
		cumc_ptx_unload(interp);
	return 0;
}
