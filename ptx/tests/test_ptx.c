// SPDX-License-Identifier: MIT
/*
 * libcumc-ptx on the host, no device: loading (PTX, fatbins compressed
 * or not, SASS-only and bad images), the parser's errors, and kernels
 * nvcc 13 built (ptx/tests/data) run on buffers of this process.
 */
#include <check.h>
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cumc_ptx.h"
#include "jit.h"

#ifndef PTX_TEST_DATA
#define PTX_TEST_DATA "ptx/tests/data"
#endif

/* The file at @path, NUL-terminated. */
static char *slurp_path(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, n + 1);
	ck_assert(buf && fread(buf, 1, n, f) == (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

static char *slurp(const char *name, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", PTX_TEST_DATA, name);
	return slurp_path(path, len);
}

static struct cumc_ptx_module *load_file(const char *name)
{
	struct cumc_ptx_module *m = NULL;
	char log[256];
	size_t len;
	char *buf = slurp(name, &len);
	enum cumc_ptx_status st = cumc_ptx_load(buf, len, 90, &m, log,
						sizeof(log));

	ck_assert_msg(st == CUMC_PTX_OK, "%s: %s", name, log);
	free(buf);
	return m;
}

/* The device memory of a test: the buffers it registered. */
struct buffers {
	unsigned int n;
	struct { void *p; size_t len; } b[8];
};

static bool check_mem(void *arg, uint64_t addr, size_t len, bool write,
		      uint64_t *lo, uint64_t *hi)
{
	struct buffers *bufs = arg;
	unsigned int i;

	(void)write;
	for (i = 0; i < bufs->n; i++) {
		uint64_t s = (uintptr_t)bufs->b[i].p, e = s + bufs->b[i].len;

		if (addr >= s && addr + len <= e) {
			*lo = s;
			*hi = e;
			return true;
		}
	}
	return false;
}

static void *dev_alloc(struct buffers *bufs, size_t len)
{
	void *p = calloc(1, len);

	ck_assert(p && bufs->n < 8);
	bufs->b[bufs->n].p = p;
	bufs->b[bufs->n++].len = len;
	return p;
}

static void dev_free(struct buffers *bufs)
{
	while (bufs->n)
		free(bufs->b[--bufs->n].p);
}

static enum cumc_ptx_status launch(const struct cumc_ptx_function *f,
				   struct buffers *bufs, unsigned int grid,
				   unsigned int block, const void *params,
				   struct cumc_ptx_fault *fault)
{
	struct cumc_ptx_memory mem = { check_mem, bufs };
	struct cumc_ptx_launch l = {
		.grid = { grid, 1, 1 }, .block = { block, 1, 1 },
		.params = params, .memory = &mem,
	};

	return cumc_ptx_launch(f, &l, fault);
}

START_TEST(test_vecadd_layout)
{
	struct cumc_ptx_module *m = load_file("vecadd.ptx");
	const struct cumc_ptx_function *f;
	size_t off, size;

	ck_assert_uint_eq(cumc_ptx_function_count(m), 1);
	f = cumc_ptx_function_find(m, "vecAdd");
	ck_assert_ptr_eq(f, cumc_ptx_function_at(m, 0));
	ck_assert_str_eq(cumc_ptx_function_name(f), "vecAdd");
	ck_assert_uint_eq(cumc_ptx_param_count(f), 4);
	cumc_ptx_param_layout(f, 3, &off, &size);
	ck_assert_uint_eq(off, 24);
	ck_assert_uint_eq(size, 4);
	ck_assert_uint_eq(cumc_ptx_param_size(f), 28);
	ck_assert_ptr_null(cumc_ptx_function_find(m, "nope"));
	cumc_ptx_unload(m);
}
END_TEST

/* vecAdd's parameters as cuLaunchKernel lays them out. */
struct vecadd_params {
	const float *a, *b;
	float *c;
	int n;
};

static void run_vecadd(struct cumc_ptx_module *m)
{
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "vecAdd");
	struct buffers bufs = { 0 };
	struct vecadd_params p;
	int n = 1000, i;
	float *a = dev_alloc(&bufs, n * 4), *b = dev_alloc(&bufs, n * 4);
	float *c = dev_alloc(&bufs, n * 4);

	for (i = 0; i < n; i++) {
		a[i] = i * 0.5f;
		b[i] = 1000 - i;
	}
	p = (struct vecadd_params){ a, b, c, n };
	ck_assert_int_eq(launch(f, &bufs, 8, 128, &p, NULL), CUMC_PTX_OK);
	for (i = 0; i < n; i++)
		ck_assert_float_eq(c[i], a[i] + b[i]);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}

START_TEST(test_vecadd_ptx)
{
	run_vecadd(load_file("vecadd.ptx"));
}
END_TEST

START_TEST(test_vecadd_fatbin)
{
	run_vecadd(load_file("vecadd_plain.fatbin"));
	run_vecadd(load_file("vecadd.fatbin"));	/* zstd-compressed */
}
END_TEST

/* A host object's wrapper points at its fatbin. */
START_TEST(test_fatbin_wrapper)
{
	size_t len;
	char *fatbin = slurp("vecadd_plain.fatbin", &len);
	struct { uint32_t magic, version; const void *data, *unused; } w = {
		0x466243b1u, 1, fatbin, NULL,
	};
	struct cumc_ptx_module *m = NULL;

	ck_assert_int_eq(cumc_ptx_load(&w, 0, 90, &m, NULL, 0), CUMC_PTX_OK);
	run_vecadd(m);
	free(fatbin);
}
END_TEST

START_TEST(test_bad_images)
{
	struct cumc_ptx_module *m = NULL;
	char log[256];
	size_t len;
	char *sass = slurp("vecadd_sass.fatbin", &len);

	ck_assert_int_eq(cumc_ptx_load(sass, len, 90, &m, log, sizeof(log)),
			 CUMC_PTX_ENOPTX);
	ck_assert_ptr_nonnull(strstr(log, "compute_90"));
	free(sass);
	ck_assert_int_eq(cumc_ptx_load("hello", 0, 90, &m, log, sizeof(log)),
			 CUMC_PTX_EIMAGE);
	ck_assert_int_eq(cumc_ptx_load(".version 9.0\n.target sm_100\n", 0, 90,
				       &m, log, sizeof(log)), CUMC_PTX_ENOPTX);
}
END_TEST

static const char shfl_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
	"\tmov.u32 %r1, 1;\n"
	"\tredux.sync.min.f32 %r2, %r1, -1;\n\tret;\n}\n";

START_TEST(test_unsupported)
{
	struct cumc_ptx_module *m = NULL;
	char log[256];

	ck_assert_int_eq(cumc_ptx_load(shfl_ptx, 0, 90, &m, log, sizeof(log)),
			 CUMC_PTX_EUNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(log, "line 8"));
	ck_assert_ptr_nonnull(strstr(log, "redux.sync.min.f32"));
	ck_assert_int_eq(cumc_ptx_load(".version 9.0\n.target sm_90\n"
				       ".visible .entry k()\n{\n"
				       "\tfma.rn.oob.f16 %h1, %h2, %h3, %h4;\n}\n", 0, 90,
				       &m, log, sizeof(log)),
			 CUMC_PTX_EUNSUPPORTED);
	ck_assert_int_eq(cumc_ptx_load(".version 9.0\n.target sm_90\n"
				       ".visible .entry k()\n{\n"
				       "\t.reg .b32 %r<2>;\n"
				       "\tadd.s32 %r1 %r1, 1;\n}\n", 0, 90,
				       &m, log, sizeof(log)),
			 CUMC_PTX_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(log, "line 6"));
}
END_TEST

START_TEST(test_reduce)
{
	struct cumc_ptx_module *m = load_file("kernels.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "reduce");
	struct buffers bufs = { 0 };
	struct { int *in, *out; int n; } p;
	int n = 1000, i, sum = 0;
	int *in = dev_alloc(&bufs, n * 4), *out = dev_alloc(&bufs, 4);

	ck_assert_uint_eq(cumc_ptx_static_shared(f), 1024);
	for (i = 0; i < n; i++)
		sum += in[i] = i * 7 - 300;
	p.in = in;
	p.out = out;
	p.n = n;
	ck_assert_int_eq(launch(f, &bufs, 4, 256, &p, NULL), CUMC_PTX_OK);
	ck_assert_int_eq(*out, sum);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

/* Block 0 spins on a flag the last block sets, on a single worker. */
START_TEST(test_spin_progress)
{
	struct cumc_ptx_module *m = load_file("kernels.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "spin");
	struct buffers bufs = { 0 };
	struct cumc_ptx_memory mem = { check_mem, &bufs };
	struct { int *flag, *out; } p;
	struct cumc_ptx_launch l = {
		.grid = { 8, 1, 1 }, .block = { 64, 1, 1 },
		.params = &p, .memory = &mem, .workers = 1,
	};

	p.flag = dev_alloc(&bufs, 4);
	p.out = dev_alloc(&bufs, 4);
	ck_assert_int_eq(cumc_ptx_launch(f, &l, NULL), CUMC_PTX_OK);
	ck_assert_int_eq(*p.out, 42);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

START_TEST(test_convert)
{
	static const float fin[4] = { 2.5f, -1.5f, 7.0f, 1e10f };
	static const double din[4] = { 3.9, -2.2, 100.0, 5.0 };
	static const int iwant[4] = { 7, -6, 114, 3 };
	struct cumc_ptx_module *m = load_file("kernels.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "convert");
	struct buffers bufs = { 0 };
	struct { float *f; double *d; int *i; unsigned long long *u;
		 float *g; int n; } p;
	volatile float q;
	int k;

	p.f = dev_alloc(&bufs, sizeof(fin));
	p.d = dev_alloc(&bufs, sizeof(din));
	p.i = dev_alloc(&bufs, 16);
	p.u = dev_alloc(&bufs, 32);
	p.g = dev_alloc(&bufs, 16);
	p.n = 4;
	memcpy(p.f, fin, sizeof(fin));
	memcpy(p.d, din, sizeof(din));
	ck_assert_int_eq(launch(f, &bufs, 1, 32, &p, NULL), CUMC_PTX_OK);
	for (k = 0; k < 4; k++) {
		ck_assert_int_eq(p.i[k], iwant[k]);
		ck_assert_uint_eq(p.u[k], (din[k] < 0 ? 0 :
					   (unsigned long long)din[k] / 3) +
					  ((unsigned long long)k << 40));
		fesetround(FE_TOWARDZERO);
		q = fin[k];
		q = q / 3.0f;
		fesetround(FE_TONEAREST);
		ck_assert_float_eq(p.g[k], q + sqrtf(fabsf(fin[k])) +
					   (float)din[k]);
	}
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * f16 and bf16 edge cases the corpus has none of, one instruction each
 * in a one-thread kernel: the operands are words in[0..2] in %r1..%r3,
 * their halves in %h1..%h6 (%h1 in[0]'s low half), in[0..1] as a double
 * in %fd1; the kernel stores %r4, a 16-bit result %h7 zero-extended.
 * The expected values are worked out by hand from the PTX ISA and IEEE
 * 754 rounding (round to nearest, ties to even), not recorded on a GPU.
 */
static const struct {
	const char *body;
	uint32_t in[3], want;
} half_cases[] = {
	/* 1 + 2^-11 is a tie between 1 and 1 + 2^-10: the even one. */
	{ "add.rn.f16 %h7, %h1, %h3;", { 0x3c00, 0x1000 }, 0x3c00 },
	{ "add.rn.f16 %h7, %h1, %h3;", { 0x3c01, 0x1000 }, 0x3c02 },
	/* 65504 + 16 ties with 2^16, which is even: infinity; + 15.99 not. */
	{ "add.rn.f16 %h7, %h1, %h3;", { 0x7bff, 0x4c00 }, 0x7c00 },
	{ "add.rn.f16 %h7, %h1, %h3;", { 0x7bff, 0x4bff }, 0x7bff },
	/* Subnormals: 2^-24 * 0.5 ties with 0; * 0.75 rounds up. */
	{ "mul.rn.f16 %h7, %h1, %h3;", { 0x0001, 0x3800 }, 0x0000 },
	{ "mul.rn.f16 %h7, %h1, %h3;", { 0x0001, 0x3a00 }, 0x0001 },
	/* .ftz flushes the subnormal operand, keeping the sum's sign. */
	{ "add.rn.ftz.f16 %h7, %h1, %h3;", { 0x0001, 0x3c00 }, 0x3c00 },
	{ "add.rn.ftz.f16 %h7, %h1, %h3;", { 0x8001, 0x8000 }, 0x8000 },
	/* .sat: 2 is 1; -1 is +0; NaN is +0. */
	{ "add.rn.sat.f16 %h7, %h1, %h3;", { 0x3c00, 0x3c00 }, 0x3c00 },
	{ "add.rn.sat.f16 %h7, %h1, %h3;", { 0xbc00, 0x0000 }, 0x0000 },
	{ "add.rn.sat.f16 %h7, %h1, %h3;", { 0x7e00, 0x0000 }, 0x0000 },
	/* One rounding: (1 + 2^-10)(1 - 2^-11) - 1 = 2^-11 - 2^-21 exactly;
	 * the product alone rounds to 1, and a separate sum would be 0. */
	{ "fma.rn.f16 %h7, %h1, %h3, %h5;", { 0x3c01, 0x3bff, 0xbc00 },
	  0x0ffe },
	/* .relu: -2 is +0. */
	{ "fma.rn.relu.f16 %h7, %h1, %h3, %h5;", { 0x3c00, 0xbc00, 0xbc00 },
	  0x0000 },
	/* A pair: each half on its own (1 + 1, 2 * 0.5 + 3). */
	{ "fma.rn.f16x2 %r4, %r1, %r2, %r3;",
	  { 0x40003c00, 0x38003c00, 0x42003c00 }, 0x44004000 },
	/* bf16 has 8 significant bits: 1 + 2^-8 ties, to even. */
	{ "add.rn.bf16 %h7, %h1, %h3;", { 0x3f80, 0x3b80 }, 0x3f80 },
	{ "add.rn.bf16 %h7, %h1, %h3;", { 0x3f81, 0x3b80 }, 0x3f82 },
	{ "sub.rn.bf16x2 %r4, %r1, %r2;", { 0x3f804000, 0x3f803f80 },
	  0x00003f80 },
	/* cvt from f32, every rounding mode. */
	{ "cvt.rn.bf16.f32 %h7, %f1;", { 0x3f808000 }, 0x3f80 },
	{ "cvt.rn.bf16.f32 %h7, %f1;", { 0x3f818000 }, 0x3f82 },
	{ "cvt.rz.bf16.f32 %h7, %f1;", { 0x3f81ffff }, 0x3f81 },
	{ "cvt.rm.f16.f32 %h7, %f1;", { 0xbf800001 }, 0xbc01 },
	{ "cvt.rp.f16.f32 %h7, %f1;", { 0xbf800001 }, 0xbc00 },
	{ "cvt.rp.f16.f32 %h7, %f1;", { 0x00000001 }, 0x0001 },
	/* From f64 in one rounding: 1 + 2^-11 + 2^-40 is above the tie
	 * (through f32 it would be the tie, and 1). */
	{ "cvt.rn.f16.f64 %h7, %fd1;", { 0x00001000, 0x3ff00200 }, 0x3c01 },
	/* .satfinite: an infinity is the largest finite value. */
	{ "cvt.rn.satfinite.f16x2.f32 %r4, %f1, %f2;",
	  { 0x7f800000, 0x49742400 }, 0x7bff7bff },
	/* From and to integers. */
	{ "cvt.rn.f16.s32 %h7, %r1;", { 65520 }, 0x7c00 },
	{ "cvt.rz.f16.s32 %h7, %r1;", { 65520 }, 0x7bff },
	{ "cvt.rn.f16.u32 %h7, %r1;", { 2049 }, 0x6800 },
	{ "cvt.rn.bf16.s32 %h7, %r1;", { 0xfffffeff }, 0xc380 },
	{ "cvt.rni.s32.f16 %r4, %h1;", { 0x4100 }, 2 },
	{ "cvt.rzi.s32.f16 %r4, %h1;", { 0xc100 }, 0xfffffffe },
	{ "cvt.rpi.u32.bf16 %r4, %h1;", { 0x3fc0 }, 2 },
	/* Between the formats: bf16 1 + 2^-7 is f16 exactly; 2^-30 is
	 * below half of f16's smallest subnormal (2^-25): 0. */
	{ "cvt.rn.f16.bf16 %h7, %h1;", { 0x3f81 }, 0x3c08 },
	{ "cvt.rn.f16.bf16 %h7, %h1;", { 0x3080 }, 0x0000 },
	{ "cvt.f64.f16 %fd2, %h1;\n\tmov.b64 {_, %r4}, %fd2;", { 0xc000 },
	  0xc0000000 },
	/* min and max: NaN loses, or with .NaN wins (canonical); -0 < +0. */
	{ "min.f16 %h7, %h1, %h3;", { 0x7e00, 0x3c00 }, 0x3c00 },
	{ "min.NaN.f16 %h7, %h1, %h3;", { 0x7e00, 0x3c00 }, 0x7fff },
	{ "min.f16 %h7, %h1, %h3;", { 0x0000, 0x8000 }, 0x8000 },
	{ "max.bf16 %h7, %h1, %h3;", { 0x8000, 0x0000 }, 0x0000 },
	{ "max.NaN.bf16x2 %r4, %r1, %r2;", { 0x7fc13f80, 0x3f804000 },
	  0x7fff4000 },
	/* neg and abs flip and clear the sign bit. */
	{ "neg.bf16 %h7, %h1;", { 0x3f80 }, 0xbf80 },
	{ "abs.f16x2 %r4, %r1;", { 0xbc008001 }, 0x3c000001 },
	/* setp: an unordered comparison is true with a NaN; on a pair,
	 * p is the low halves', q the high halves'. */
	{ "setp.ltu.f16 %p1, %h1, %h3;\n\tselp.u32 %r4, 1, 0, %p1;",
	  { 0x7e00, 0x3c00 }, 1 },
	{ "setp.lt.f16x2 %p1|%p2, %r1, %r2;\n\tselp.u32 %r4, 1, 0, %p1;\n"
	  "\tselp.u32 %r5, 2, 0, %p2;\n\tor.b32 %r4, %r4, %r5;",
	  { 0x3c004000, 0x40003c00 }, 2 },
	/* mov packs halves, the first lowest. */
	{ "mov.b32 %r4, {%h2, %h1};", { 0x12345678 }, 0x56781234 },
	/*
	 * Where the ISA leaves it open, as the corpus recorded it on an
	 * H200.  .ftz flushes a result tiny once rounded with an unbounded
	 * exponent: 2^-14 - 2^-25 has 11 bits and is flushed, 2^-14 - 2^-28
	 * rounds to 2^-14 and is not.
	 */
	{ "mul.rn.ftz.f16 %h7, %h1, %h3;", { 0x3bff, 0x0400 }, 0x0000 },
	{ "fma.rn.ftz.f16 %h7, %h1, %h3, %h5;", { 0x0400, 0x8400, 0x0400 },
	  0x0400 },
	/* cvt's .ftz is f32's: it flushes neither an f16 result nor an f16
	 * source (a normal f32). */
	{ "cvt.rn.ftz.f16.f32 %h7, %f1;", { 0x33800000 }, 0x0001 },
	{ "cvt.ftz.f32.f16 %f2, %h1;\n\tmov.b32 %r4, %f2;", { 0x03ff },
	  0x387fc000 },
	/* NaNs: to f64 with sign and payload; from f64 the quiet NaN of the
	 * sign; .sat makes one +0. */
	{ "cvt.f64.f16 %fd2, %h1;\n\tmov.b64 {_, %r4}, %fd2;", { 0xfe01 },
	  0xfff80400 },
	{ "cvt.rn.f16.f64 %h7, %fd1;", { 0x00000001, 0xfff00000 }, 0xfe00 },
	{ "cvt.sat.f32.f16 %f2, %h1;\n\tmov.b32 %r4, %f2;", { 0x7e00 }, 0 },
	/* sin and cos reduce through an f32 product with 1/(2 pi): from
	 * 2^23 it is whole, so cos(2^30) is 1. */
	{ "cos.approx.f32 %f2, %f1;\n\tmov.b32 %r4, %f2;", { 0x4e800000 },
	  0x3f800000 },
};

START_TEST(test_half)
{
	static const char head[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
		"\t.reg .pred %p<3>;\n\t.reg .b16 %h<8>;\n"
		"\t.reg .b32 %r<6>;\n\t.reg .f32 %f<3>;\n"
		"\t.reg .b64 %rd<3>;\n\t.reg .f64 %fd<3>;\n"
		"\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [in];\n"
		"\tld.global.b32 %r1, [%rd2];\n"
		"\tld.global.b32 %r2, [%rd2+4];\n"
		"\tld.global.b32 %r3, [%rd2+8];\n"
		"\tld.global.f64 %fd1, [%rd2];\n"
		"\tmov.b32 {%h1, %h2}, %r1;\n\tmov.b32 {%h3, %h4}, %r2;\n"
		"\tmov.b32 {%h5, %h6}, %r3;\n"
		"\tmov.b32 %f1, %r1;\n\tmov.b32 %f2, %r2;\n"
		"\tmov.b16 %h7, 0;\n\tmov.b16 %h0, 0;\n\tmov.b32 %r4, 0;\n\t";
	static const char tail[] =
		"\n\tmov.b32 %r5, {%h7, %h0};\n"
		"\tor.b32 %r4, %r4, %r5;\n"
		"\tst.global.b32 [%rd1], %r4;\n\tret;\n}\n";
	struct buffers bufs = { 0 };
	struct { uint32_t *out, *in; } p;
	unsigned int i;

	p.out = dev_alloc(&bufs, 4);
	p.in = dev_alloc(&bufs, 16);
	for (i = 0; i < sizeof(half_cases) / sizeof(half_cases[0]); i++) {
		struct cumc_ptx_module *m = NULL;
		char text[2048], log[256];

		snprintf(text, sizeof(text), "%s%s%s", head,
			 half_cases[i].body, tail);
		ck_assert_msg(cumc_ptx_load(text, 0, 90, &m, log,
					    sizeof(log)) == CUMC_PTX_OK,
			      "%s: %s", half_cases[i].body, log);
		memcpy(p.in, half_cases[i].in, 12);
		ck_assert_int_eq(launch(cumc_ptx_function_find(m, "k"), &bufs,
					1, 1, &p, NULL), CUMC_PTX_OK);
		ck_assert_msg(*p.out == half_cases[i].want,
			      "%s: %08x, not %08x", half_cases[i].body,
			      *p.out, half_cases[i].want);
		cumc_ptx_unload(m);
	}
	dev_free(&bufs);
}
END_TEST

/* The forms the ISA does not list fail to load. */
START_TEST(test_half_unsupported)
{
	static const char *const bad[] = {
		"add.rz.f16 %h1, %h1, %h1;",		/* .rn only */
		"add.rn.ftz.bf16 %h1, %h1, %h1;",	/* no .ftz on bf16 */
		"fma.f16 %h1, %h1, %h1, %h1;",		/* needs .rn */
		"fma.rn.sat.relu.f16 %h1, %h1, %h1, %h1;",
		"cvt.f16.f32 %h1, %f1;",		/* needs a rounding */
		"cvt.rn.f32.f16 %f1, %h1;",		/* exact: none */
		"cvt.s32.f16 %r1, %h1;",		/* needs .rni... */
		"min.NaN.f64 %fd1, %fd1, %fd1;",
		"ex2.approx.f64 %fd1, %fd1;",
		"rcp.approx.f64 %fd1, %fd1;",		/* .ftz only */
		"rsqrt.approx.ftz.f64 %fd1, %fd1;",
		"tanh.approx.ftz.f32 %f1, %f1;",
		"sin.f32 %f1, %f1;",			/* .approx only */
		"mov.b32 %r1, {%h1, %h1, %h1, %h1};",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cumc_ptx_module *m = NULL;
		char text[512], log[256];

		snprintf(text, sizeof(text), ".version 8.0\n.target sm_90\n"
			 ".visible .entry k()\n{\n\t.reg .b16 %%h<2>;\n"
			 "\t.reg .b32 %%r<2>;\n\t.reg .f32 %%f<2>;\n"
			 "\t.reg .f64 %%fd<2>;\n\t%s\n\tret;\n}\n", bad[i]);
		ck_assert_msg(cumc_ptx_load(text, 0, 90, &m, log,
					    sizeof(log)) ==
			      CUMC_PTX_EUNSUPPORTED, "%s loads", bad[i]);
	}
}
END_TEST

START_TEST(test_globals)
{
	struct cumc_ptx_module *m = load_file("kernels.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "globals");
	struct buffers bufs = { 0 };
	int *out = dev_alloc(&bufs, 66 * 4), *counter, *scale;
	size_t size;
	int t;

	ck_assert_int_eq(cumc_ptx_global_find(m, "counter", (void **)&counter,
					      &size), CUMC_PTX_OK);
	ck_assert_uint_eq(size, 4);
	ck_assert_int_eq(cumc_ptx_global_find(m, "scale", (void **)&scale,
					      &size), CUMC_PTX_OK);
	ck_assert_int_eq(*scale, 3);
	ck_assert_int_eq(cumc_ptx_global_find(m, "nope", (void **)&scale,
					      &size), CUMC_PTX_ENOTFOUND);
	ck_assert_int_eq(launch(f, &bufs, 1, 64, &out, NULL), CUMC_PTX_OK);
	ck_assert_int_eq(*counter, 64);
	ck_assert_int_eq(out[1], 63);
	for (t = 0; t < 64; t++)
		ck_assert_int_eq(out[2 + t], 3 * t - (t % 3) / -2);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

START_TEST(test_fault)
{
	struct cumc_ptx_module *m = load_file("vecadd.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "vecAdd");
	struct buffers bufs = { 0 };
	struct cumc_ptx_fault fault;
	struct vecadd_params p;
	float *a = dev_alloc(&bufs, 256 * 4);

	/* c is not device memory: the store faults, nothing is written. */
	p = (struct vecadd_params){ a, a, (float *)0x1000, 256 };
	ck_assert_int_eq(launch(f, &bufs, 2, 128, &p, &fault), CUMC_PTX_EFAULT);
	ck_assert_int_eq(fault.status, CUMC_PTX_EFAULT);
	ck_assert_uint_ge(fault.addr, 0x1000);
	ck_assert_uint_lt(fault.addr, 0x1000 + 256 * 4);
	ck_assert_uint_gt(fault.line, 0);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * vecAdd compiled and interpreted (CUMC_PTX_JIT=0) on the same inputs,
 * with NaNs and infinities among them: the same bits; with an address
 * that is not device memory, the same fault.
 */
START_TEST(test_jit_matches_interpreter)
{
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct cumc_ptx_fault fault[2];
	struct buffers bufs = { 0 };
	struct vecadd_params p;
	float *a = dev_alloc(&bufs, 1000 * 4), *b = dev_alloc(&bufs, 1000 * 4);
	float *c[2] = { dev_alloc(&bufs, 1000 * 4), dev_alloc(&bufs, 1000 * 4) };
	unsigned int i, k;

	for (i = 0; i < 1000; i++) {
		a[i] = i % 7 ? (float)i / 3 : NAN;
		b[i] = i % 11 ? -(float)i * 1e37f : INFINITY;
	}
	m[0] = load_file("vecadd.ptx");
	setenv("CUMC_PTX_JIT", "0", 1);
	m[1] = load_file("vecadd.ptx");
	for (k = 0; k < 2; k++) {
		f[k] = cumc_ptx_function_find(m[k], "vecAdd");
		ck_assert_int_eq(cumc_ptx_compiled(f[k]), k == 0);
		p = (struct vecadd_params){ a, b, c[k], 1000 };
		ck_assert_int_eq(launch(f[k], &bufs, 4, 256, &p, NULL),
				 CUMC_PTX_OK);
		p.c = (float *)0x1000;
		ck_assert_int_eq(launch(f[k], &bufs, 4, 256, &p, &fault[k]),
				 CUMC_PTX_EFAULT);
	}
	ck_assert_mem_eq(c[0], c[1], 1000 * 4);
	ck_assert_uint_eq(fault[0].line, fault[1].line);
	ck_assert_uint_ge(fault[0].addr, 0x1000);
	ck_assert_uint_lt(fault[0].addr, 0x1000 + 1000 * 4);
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/* fma.rn.f32 of the triples at in, thread i's at in + 12 i, into out. */
static const char fma_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry fma3(.param .u64 in, .param .u64 out)\n{\n"
	"	.reg .f32 %f<5>;\n	.reg .b32 %r<5>;\n	.reg .b64 %rd<7>;\n"
	"	ld.param.u64 %rd1, [in];\n	ld.param.u64 %rd2, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n"
	"	mov.u32 %r3, %ntid.x;\n	mad.lo.s32 %r4, %r2, %r3, %r1;\n"
	"	mul.wide.u32 %rd3, %r4, 12;\n	add.s64 %rd4, %rd1, %rd3;\n"
	"	ld.global.f32 %f1, [%rd4];\n	ld.global.f32 %f2, [%rd4+4];\n"
	"	ld.global.f32 %f3, [%rd4+8];\n"
	"	fma.rn.f32 %f4, %f1, %f2, %f3;\n"
	"	mul.wide.u32 %rd5, %r4, 4;\n	add.s64 %rd6, %rd2, %rd5;\n"
	"	st.global.f32 [%rd6], %f4;\n	ret;\n}\n";

static float f32_of_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint32_t bits_of_f32(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/*
 * fma.rn.f32 compiled for QEMU's TCG (x86-64-v2, which has no FMA: the
 * sum through f64, rounded to odd there) gives the host's fmaf(), the
 * correctly rounded result, bit for bit (a NaN as 0x7fffffff): random
 * triples of every class, and sums whose rounding to f64 would land on
 * an f32 midpoint, the even neighbour of which is the wrong result:
 * 3 * 2^e * (1 + 2^-23) - 2^(e - 80) (and its negation) is just under the
 * midpoint of 3 * 2^e and the next f32 up.  Blocks of 48 threads: warp
 * code and the per-thread code.  Check forks each test, so the JIT opens
 * in this one's process, after the CPU is taken for TCG.
 */
START_TEST(test_jit_fma_without_fma)
{
	enum { BLOCK = 48, GRID = 64, N = BLOCK * GRID };
	const struct cumc_ptx_function *f;
	struct buffers bufs = { 0 };
	struct { float *in, *out; } p;
	struct cumc_ptx_module *m;
	float *in = dev_alloc(&bufs, N * 12), *out = dev_alloc(&bufs, N * 4);
	uint32_t x = 12345, i, k, got, want;
	int e;

	ptx_cpu_force_emulated(true);
	for (i = 0; i < N; i++)
		for (k = 0; k < 3; k++) {
			x = x * 1103515245u + 12345u;
			/* exponents near each other, or any bits at all */
			in[3 * i + k] = i % 4 ? f32_of_bits((x & 0x807fffffu) |
				(100 + (x >> 23) % 56) << 23) : f32_of_bits(x);
		}
	for (i = 0, e = -40; e <= 40; e++, i += 2) {
		in[3 * i] = ldexpf(3, e);
		in[3 * i + 1] = f32_of_bits(0x3f800001u);
		in[3 * i + 2] = -ldexpf(1, e - 80);
		in[3 * i + 3] = -in[3 * i];
		in[3 * i + 4] = in[3 * i + 1];
		in[3 * i + 5] = -in[3 * i + 2];
	}
	ck_assert_int_eq(cumc_ptx_load(fma_ptx, 0, 90, &m, NULL, 0),
			 CUMC_PTX_OK);
	f = cumc_ptx_function_find(m, "fma3");
	ck_assert(cumc_ptx_compiled(f));
	ck_assert_str_eq(ptx_jit_host_cpu, "x86-64-v2");
	ck_assert(!ptx_jit_host_fma);
	p.in = in;
	p.out = out;
	ck_assert_int_eq(launch(f, &bufs, GRID, BLOCK, &p, NULL), CUMC_PTX_OK);
	for (i = 0; i < N; i++) {
		float r = fmaf(in[3 * i], in[3 * i + 1], in[3 * i + 2]);

		memcpy(&want, &r, 4);
		if (isnan(r))
			want = 0x7fffffff;
		memcpy(&got, &out[i], 4);
		ck_assert_msg(got == want, "fma(%a, %a, %a): %08x, want %08x",
			      in[3 * i], in[3 * i + 1], in[3 * i + 2], got,
			      want);
	}
	ck_assert_float_eq(out[0], ldexpf(3, -40) + ldexpf(1, -62));
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * A kernel for the lanes of warp code (jit_warp.c): a gathered load, a guard
 * and a branch the lanes of a group disagree on, a permuted store to
 * shared memory, bar.sync, a vector store; blocks of 72 threads, so
 * that the last group of each block is short.
 */
static const char lanes_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry lanes(.param .u64 in, .param .u64 out, .param .u32 n)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<16>;\n	.reg .b64 %rd<12>;\n"
	"	.shared .align 4 .b32 sh[72];\n"
	"	ld.param.u64 %rd1, [in];\n	ld.param.u64 %rd2, [out];\n"
	"	ld.param.u32 %r1, [n];\n	mov.u32 %r2, %tid.x;\n"
	"	mov.u32 %r3, %ctaid.x;\n	mov.u32 %r4, %ntid.x;\n"
	"	mad.lo.s32 %r5, %r3, %r4, %r2;\n"
	"	mul.lo.u32 %r6, %r5, 7;\n	rem.u32 %r6, %r6, %r1;\n"
	"	mul.wide.u32 %rd3, %r6, 4;\n	add.s64 %rd4, %rd1, %rd3;\n"
	"	ld.global.u32 %r7, [%rd4];\n"
	"	and.b32 %r8, %r2, 1;\n	setp.eq.u32 %p1, %r8, 1;\n"
	"	@%p1 add.u32 %r7, %r7, 100;\n"
	"	rem.u32 %r9, %r2, 3;\n	setp.ne.u32 %p2, %r9, 0;\n"
	"	@%p2 bra SKIP;\n	shl.b32 %r7, %r7, 1;\n"
	"SKIP:\n	mov.u64 %rd5, sh;\n"
	"	mul.lo.u32 %r10, %r2, 5;\n	rem.u32 %r10, %r10, %r4;\n"
	"	mul.wide.u32 %rd6, %r10, 4;\n	add.s64 %rd7, %rd5, %rd6;\n"
	"	st.shared.u32 [%rd7], %r7;\n	bar.sync 0;\n"
	"	mul.wide.u32 %rd8, %r2, 4;\n	add.s64 %rd9, %rd5, %rd8;\n"
	"	ld.shared.u32 %r11, [%rd9];\n"
	"	mul.wide.u32 %rd10, %r5, 8;\n	add.s64 %rd11, %rd2, %rd10;\n"
	"	st.global.v2.u32 [%rd11], {%r7, %r11};\n	ret;\n}\n";

/* What lanes gives thread @i of a block of @block (its value, before sh). */
static uint32_t lanes_value(const uint32_t *in, uint32_t n, uint32_t block,
			    uint32_t i)
{
	uint32_t tid = i % block, v = in[(uint64_t)i * 7 % n];

	if (tid & 1)
		v += 100;
	if (tid % 3 == 0)
		v <<= 1;
	return v;
}

/*
 * @text loaded twice, compiled (m[0]) and interpreted (CUMC_PTX_JIT=0,
 * m[1]), and its function @name in each (f[k]).
 */
static void load_both_ways(const char *text, const char *name,
			   struct cumc_ptx_module *m[2],
			   const struct cumc_ptx_function *f[2])
{
	unsigned int k;

	ck_assert_int_eq(cumc_ptx_load(text, 0, 90, &m[0], NULL, 0),
			 CUMC_PTX_OK);
	setenv("CUMC_PTX_JIT", "0", 1);
	ck_assert_int_eq(cumc_ptx_load(text, 0, 90, &m[1], NULL, 0),
			 CUMC_PTX_OK);
	unsetenv("CUMC_PTX_JIT");
	for (k = 0; k < 2; k++) {
		f[k] = cumc_ptx_function_find(m[k], name);
		ck_assert_int_eq(cumc_ptx_compiled(f[k]), k == 0);
	}
}

/*
 * A loop that steps each thread's index by the block's size until it
 * reaches n, then bar.sync and a store of where the index ended.  The
 * index keeps its form (tid.x plus the lane) at the loop's head and
 * after the barrier; where n leaves the lanes of a warp at different
 * counts, they leave the loop apart and the warp resuming after the
 * barrier finds its lanes no longer of that form.
 */
static const char join_forms_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry loopbar(.param .u64 out, .param .u32 n)\n{\n"
	"	.reg .pred %p<2>;\n	.reg .b32 %r<6>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r1, [n];\n"
	"	mov.u32 %r2, %tid.x;\n	mov.u32 %r3, %ntid.x;\n"
	"	mov.u32 %r4, %r2;\n"
	"LOOP:\n	setp.ge.u32 %p1, %r4, %r1;\n	@%p1 bra DONE;\n"
	"	add.u32 %r4, %r4, %r3;\n	bra LOOP;\n"
	"DONE:\n	bar.sync 0;\n"
	"	mul.wide.u32 %rd2, %r2, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r4;\n	ret;\n}\n";

/*
 * Forms kept where control flow joins (jit_forms.c): the loop above
 * compiled and interpreted gives every thread's end, bit for bit, where
 * the lanes leave the loop together (n a multiple of the block) and where
 * they do not (n = 100 of 64: lanes 32 to 35 go round once more than the
 * rest of their warp, which then resumes after bar.sync thread by thread).
 */
START_TEST(test_jit_join_forms)
{
	enum { BLOCK = 64 };
	static const uint32_t ns[] = { 128, 100, 5, 0 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct buffers bufs = { 0 };
	struct { uint32_t *out; uint32_t n; } __attribute__((aligned(8))) p;
	uint32_t *out[2] = { dev_alloc(&bufs, BLOCK * 4),
			     dev_alloc(&bufs, BLOCK * 4) };
	uint32_t i, k, t, want;

	load_both_ways(join_forms_ptx, "loopbar", m, f);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		for (k = 0; k < 2; k++) {
			memset(out[k], 0xff, BLOCK * 4);
			p.out = out[k];
			p.n = ns[i];
			ck_assert_int_eq(launch(f[k], &bufs, 1, BLOCK, &p, NULL),
					 CUMC_PTX_OK);
		}
		for (t = 0; t < BLOCK; t++) {
			want = t >= ns[i] ? t :
			       t + (ns[i] - t + BLOCK - 1) / BLOCK * BLOCK;
			ck_assert_uint_eq(out[0][t], want);
			ck_assert_uint_eq(out[1][t], want);
		}
	}
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * The lanes kernel compiled (warp code where a warp of 32 allows it) and
 * interpreted: the results C computes, bit for bit; with n larger than
 * the input (lanes of a group reach past it), the same fault.
 */
START_TEST(test_jit_warp_lanes)
{
	enum { BLOCK = 72, GRID = 4, N = BLOCK * GRID };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct cumc_ptx_fault fault[2];
	struct buffers bufs = { 0 };
	struct { uint32_t *in, *out; uint32_t n; } __attribute__((aligned(8))) p;
	uint32_t *in = dev_alloc(&bufs, N * 4), *out[2], i, t, k;

	out[0] = dev_alloc(&bufs, N * 8);
	out[1] = dev_alloc(&bufs, N * 8);
	for (i = 0; i < N; i++)
		in[i] = i * 3 + 1;
	load_both_ways(lanes_ptx, "lanes", m, f);
	for (k = 0; k < 2; k++) {
		p.in = in, p.out = out[k], p.n = N;
		ck_assert_int_eq(launch(f[k], &bufs, GRID, BLOCK, &p, NULL),
				 CUMC_PTX_OK);
		for (i = 0; i < N; i++) {
			t = i % BLOCK;
			ck_assert_uint_eq(out[k][2 * i], lanes_value(in, N, BLOCK, i));
			/* sh[t] holds the value of the thread u with 5u % 72 = t */
			ck_assert_uint_eq(out[k][2 * i + 1], lanes_value(in, N,
				BLOCK, i - t + t * 29 % BLOCK));
		}
		p.n = N + 40;
		ck_assert_int_eq(launch(f[k], &bufs, GRID, BLOCK, &p, &fault[k]),
				 CUMC_PTX_EFAULT);
	}
	ck_assert_uint_eq(fault[0].line, fault[1].line);
	for (k = 0; k < 2; k++)
		ck_assert_uint_ge(fault[k].addr, (uintptr_t)(in + N));
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * Indices warp code keeps as lane 0's value plus a lane's stride (lane
 * forms, jit_forms.c): 32-bit ones that wrap, or cross the sign, within a
 * warp of 32 threads, and tid.x in blocks whose rows are narrower than a
 * group (the kernel reads tid.x alone; its thread's slot comes from the
 * warp and the lane).
 */
static const char forms_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry forms(.param .u64 out, .param .u32 base)\n{\n"
	"	.reg .b32 %r<13>;\n	.reg .b64 %rd<6>;\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r1, [base];\n"
	"	mov.u32 %r2, %tid.x;\n	mov.u32 %r3, %laneid;\n"
	"	mov.u32 %r4, %warpid;\n	shl.b32 %r4, %r4, 5;\n"
	"	add.u32 %r5, %r4, %r3;\n	mov.u32 %r6, %ctaid.x;\n"
	"	mov.u32 %r7, %ntid.x;\n	mov.u32 %r12, %ntid.y;\n"
	"	mul.lo.u32 %r7, %r7, %r12;\n	mad.lo.u32 %r8, %r6, %r7, %r5;\n"
	"	add.u32 %r9, %r2, %r1;\n	mul.wide.s32 %rd2, %r9, 4;\n"
	"	sub.u32 %r10, %r1, %r2;\n	shl.b32 %r11, %r9, 3;\n"
	"	cvt.s64.s32 %rd3, %r10;\n	mul.wide.u32 %rd4, %r8, 48;\n"
	"	add.s64 %rd5, %rd1, %rd4;\n"
	"	st.global.v4.u32 [%rd5], {%r9, %r10, %r11, %r2};\n"
	"	st.global.v2.u64 [%rd5+16], {%rd2, %rd3};\n"
	"	st.global.u32 [%rd5+32], %r5;\n	ret;\n}\n";

/*
 * The forms kernel compiled and interpreted, for bases that make its
 * indices wrap (0xfffffff8: past 2^32 at lane 8) or cross the sign
 * (0x7ffffffa) within a group, in 1-D blocks and in blocks 8, 16, 24 and
 * 32 threads wide: the same results, byte for byte.
 */
START_TEST(test_jit_lane_forms)
{
	static const uint32_t bases[] = { 0, 5, 0xfffffff8u, 0x7ffffffau,
					  0x80000003u };
	static const unsigned int blocks[][2] = { { 64, 1 }, { 8, 8 },
						  { 16, 4 }, { 24, 2 },
						  { 32, 2 } };
	enum { GRID = 3, MAX_THREADS = 64 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct buffers bufs = { 0 };
	struct { uint32_t *out; uint32_t base; } __attribute__((aligned(8))) p;
	struct cumc_ptx_memory mem = { check_mem, &bufs };
	size_t bytes = GRID * MAX_THREADS * 48;
	uint32_t *out[2];
	unsigned int b, i, k;

	out[0] = dev_alloc(&bufs, bytes);
	out[1] = dev_alloc(&bufs, bytes);
	load_both_ways(forms_ptx, "forms", m, f);
	for (b = 0; b < sizeof(blocks) / sizeof(blocks[0]); b++)
		for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
			for (k = 0; k < 2; k++) {
				struct cumc_ptx_launch l = {
					.grid = { GRID, 1, 1 },
					.block = { blocks[b][0], blocks[b][1], 1 },
					.params = &p, .memory = &mem,
				};

				memset(out[k], 0, bytes);
				p.out = out[k], p.base = bases[i];
				ck_assert_int_eq(cumc_ptx_launch(f[k], &l, NULL),
						 CUMC_PTX_OK);
			}
			ck_assert_msg(!memcmp(out[0], out[1], bytes),
				      "block %ux%u, base %#x: compiled and "
				      "interpreted differ", blocks[b][0],
				      blocks[b][1], bases[i]);
		}
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * Compares warp code makes for lane 0 alone (ptx_jit_setp_of_forms()):
 * of indices that step by 1 or -1 against a bound the same in every lane,
 * in 32 and 64 bits, signed and unsigned, each predicate stored as a bit
 * and two of them guarding a branch and a store.
 */
static const char setp_forms_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry setp_forms(.param .u64 out, .param .u32 base,\n"
	"	.param .u32 lim, .param .u64 base64, .param .u64 lim64)\n{\n"
	"	.reg .pred %p<7>;\n	.reg .b32 %r<16>;\n	.reg .b64 %rd<10>;\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r1, [base];\n"
	"	ld.param.u32 %r2, [lim];\n	ld.param.u64 %rd7, [base64];\n"
	"	ld.param.u64 %rd8, [lim64];\n	mov.u32 %r3, %tid.x;\n"
	"	mov.u32 %r4, %ctaid.x;\n	mov.u32 %r5, %ntid.x;\n"
	"	mad.lo.s32 %r6, %r4, %r5, %r3;\n	add.u32 %r7, %r6, %r1;\n"
	"	sub.u32 %r8, %r1, %r6;\n	mul.wide.u32 %rd3, %r6, 8;\n"
	"	add.s64 %rd4, %rd1, %rd3;\n	cvt.u64.u32 %rd5, %r6;\n"
	"	add.s64 %rd6, %rd7, %rd5;\n"
	"	setp.lt.s32 %p1, %r7, %r2;\n	setp.lo.u32 %p2, %r7, %r2;\n"
	"	setp.ge.s32 %p3, %r8, %r2;\n	setp.hi.u32 %p4, %r2, %r8;\n"
	"	setp.gt.s64 %p5, %rd6, %rd8;\n	setp.ls.u64 %p6, %rd6, %rd8;\n"
	"	selp.b32 %r9, 1, 0, %p1;\n	selp.b32 %r10, 2, 0, %p2;\n"
	"	or.b32 %r9, %r9, %r10;\n	selp.b32 %r10, 4, 0, %p3;\n"
	"	or.b32 %r9, %r9, %r10;\n	selp.b32 %r10, 8, 0, %p4;\n"
	"	or.b32 %r9, %r9, %r10;\n	selp.b32 %r10, 16, 0, %p5;\n"
	"	or.b32 %r9, %r9, %r10;\n	selp.b32 %r10, 32, 0, %p6;\n"
	"	or.b32 %r9, %r9, %r10;\n	st.global.u32 [%rd4], %r9;\n"
	"	@%p6 st.global.u32 [%rd4+4], %r8;\n"
	"	@%p1 bra DONE;\n	st.global.u32 [%rd4], %r7;\n"
	"DONE:\n	ret;\n}\n";

/*
 * The setp_forms kernel compiled and interpreted, with bounds that split
 * a warp of 32 threads or fall between warps, and indices that wrap
 * (past 2^32 at lane 8, past 2^64), cross the sign (in 32 and in 64
 * bits) or go below 0 within a group: the same results, byte for byte.
 */
START_TEST(test_jit_setp_forms)
{
	static const struct { uint32_t base, lim; uint64_t base64, lim64; }
	cases[] = {
		{ 0, 100, 0, 160 },
		{ 0xfffffff8u, 5, 0xfffffffffffffff0ull, 3 },
		{ 0x7ffffffau, 0x80000002u, 0x7ffffffffffffff8ull,
		  0x7ffffffffffffffcull },
		{ 50, 0, 0x7fffffffffffff80ull, 0x8000000000000010ull },
		{ 0x80000003u, 0x7fffffffu, 5, 0 },
	};
	enum { GRID = 3, BLOCK = 64 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct buffers bufs = { 0 };
	struct { uint64_t *out; uint32_t base, lim; uint64_t base64, lim64; }
		__attribute__((aligned(8))) p;
	size_t bytes = GRID * BLOCK * 8;
	uint64_t *out[2];
	unsigned int i, k;

	out[0] = dev_alloc(&bufs, bytes);
	out[1] = dev_alloc(&bufs, bytes);
	load_both_ways(setp_forms_ptx, "setp_forms", m, f);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (k = 0; k < 2; k++) {
			memset(out[k], 0, bytes);
			p.out = out[k], p.base = cases[i].base;
			p.lim = cases[i].lim, p.base64 = cases[i].base64;
			p.lim64 = cases[i].lim64;
			ck_assert_int_eq(launch(f[k], &bufs, GRID, BLOCK, &p,
						NULL), CUMC_PTX_OK);
		}
		ck_assert_msg(!memcmp(out[0], out[1], bytes),
			      "case %u: compiled and interpreted differ", i);
	}
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * Loops long enough that warp code spends its slice at their heads many
 * times over (jit_warp.c, warp_enter()): the first one's trip count the
 * same in every lane, the warp stopping whole at its head and resuming
 * there as a warp, with registers that differ by lane (%r6, %r11) live
 * across the stop; the second's by lane, the lanes parting at its branch
 * and going on one by one, coming together at its head again.
 */
static const char slice_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry slice(.param .u64 out, .param .u32 iters)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<16>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r2, [iters];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r3, %ctaid.x;\n"
	"	mov.u32 %r4, %ntid.x;\n	mad.lo.u32 %r4, %r3, %r4, %r1;\n"
	"	mad.lo.u32 %r11, %r1, 7, 3;\n	mov.u32 %r5, 0;\n"
	"	mov.u32 %r6, %r4;\n"
	"UNIFORM:\n	mad.lo.u32 %r6, %r6, 1664525, %r1;\n"
	"	add.u32 %r5, %r5, 1;\n	setp.lt.u32 %p1, %r5, %r2;\n"
	"	@%p1 bra UNIFORM;\n"
	"	and.b32 %r7, %r1, 7;\n	shl.b32 %r7, %r7, 9;\n"
	"	add.u32 %r7, %r7, %r2;\n	mov.u32 %r5, 0;\n"
	"BY_LANE:\n	xor.b32 %r6, %r6, %r5;\n	add.u32 %r6, %r6, %r11;\n"
	"	add.u32 %r5, %r5, 1;\n	setp.lt.u32 %p2, %r5, %r7;\n"
	"	@%p2 bra BY_LANE;\n"
	"	mul.wide.u32 %rd2, %r4, 4;\n	add.s64 %rd3, %rd1, %rd2;\n"
	"	st.global.u32 [%rd3], %r6;\n	ret;\n}\n";

/* What slice leaves for thread @tid of block @ctaid of @block threads. */
static uint32_t slice_value(uint32_t ctaid, uint32_t block, uint32_t tid,
			    uint32_t iters)
{
	uint32_t v = ctaid * block + tid, i, n = ((tid & 7) << 9) + iters;

	for (i = 0; i < iters; i++)
		v = v * 1664525 + tid;
	for (i = 0; i < n; i++)
		v = (v ^ i) + tid * 7 + 3;
	return v;
}

/*
 * The slice kernel compiled and interpreted, in blocks of 72 threads (a
 * short last group): the values C computes, thread by thread.
 */
START_TEST(test_jit_warp_slice)
{
	enum { BLOCK = 72, GRID = 3, ITERS = 5000 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct buffers bufs = { 0 };
	struct { uint32_t *out; uint32_t iters; } __attribute__((aligned(8))) p;
	uint32_t *out = dev_alloc(&bufs, GRID * BLOCK * 4), i, k;

	load_both_ways(slice_ptx, "slice", m, f);
	for (k = 0; k < 2; k++) {
		memset(out, 0, GRID * BLOCK * 4);
		p.out = out, p.iters = ITERS;
		ck_assert_int_eq(launch(f[k], &bufs, GRID, BLOCK, &p, NULL),
				 CUMC_PTX_OK);
		for (i = 0; i < GRID * BLOCK; i++)
			ck_assert_msg(out[i] == slice_value(i / BLOCK, BLOCK,
				      i % BLOCK, ITERS), "%s: thread %u",
				      k ? "interpreted" : "compiled", i);
	}
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * Block 0 polls a flag (ld.acquire) that block 1 sets after a loop of
 * @work times 3 instructions, on one worker: a poll costs PTX_POLL_COST of
 * the slice, so block 0 tries at most 16 times a round, not 1365 (each
 * try is 3 instructions), and there are as many rounds as block 1's slices.
 */
static const char poll_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry poll(.param .u64 flag, .param .u64 out,"
	" .param .u32 work)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<8>;\n	.reg .b64 %rd<4>;\n"
	"	ld.param.u64 %rd1, [flag];\n	ld.param.u64 %rd2, [out];\n"
	"	ld.param.u32 %r1, [work];\n	mov.u32 %r2, %ctaid.x;\n"
	"	mov.u32 %r3, 0;\n	setp.ne.u32 %p1, %r2, 0;\n"
	"	@%p1 bra WORK;\n"
	"POLL:\n	ld.acquire.gpu.global.u32 %r4, [%rd1];\n"
	"	add.u32 %r3, %r3, 1;\n	setp.eq.u32 %p2, %r4, 0;\n"
	"	@%p2 bra POLL;\n	st.global.u32 [%rd2], %r3;\n	ret;\n"
	"WORK:\n	add.u32 %r3, %r3, 1;\n	setp.lt.u32 %p2, %r3, %r1;\n"
	"	@%p2 bra WORK;\n	st.release.gpu.global.u32 [%rd1], 1;\n	ret;\n}\n";

START_TEST(test_poll_cost)
{
	enum { WORK = 8000 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct buffers bufs = { 0 };
	struct cumc_ptx_memory mem = { check_mem, &bufs };
	struct { uint32_t *flag, *out; uint32_t work; }
		__attribute__((aligned(8))) p;
	struct cumc_ptx_launch l = {
		.grid = { 2, 1, 1 }, .block = { 1, 1, 1 },
		.params = &p, .memory = &mem, .workers = 1,
	};
	unsigned int k, rounds = WORK * 3 / 4096 + 2;

	p.flag = dev_alloc(&bufs, 4);
	p.out = dev_alloc(&bufs, 4);
	p.work = WORK;
	load_both_ways(poll_ptx, "poll", m, f);
	for (k = 0; k < 2; k++) {
		*p.flag = 0;
		*p.out = 0;
		ck_assert_int_eq(cumc_ptx_launch(f[k], &l, NULL), CUMC_PTX_OK);
		ck_assert_msg(*p.out >= 1 && *p.out <= rounds * 16,
			      "%s: %u tries in at most %u rounds",
			      k ? "interpreted" : "compiled", *p.out, rounds);
	}
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * Atomics in warp code (jit_warp.c, warp_atomic()): each thread's own
 * words (add, max, exch, cas: their old values summed), contended ones
 * (red.add and red.xor on two words, atom.add on eight shared bins), in a
 * loop with bar.sync in it, so that after the first round, where a
 * global atomic's range is not known yet and the threads go on one by
 * one, the warps make them lane by lane.
 */
static const char atomics_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry atomics(.param .u64 out, .param .u32 iters)\n{\n"
	"	.reg .pred %p<3>;\n	.reg .b32 %r<24>;\n	.reg .b64 %rd<8>;\n"
	"	.shared .align 4 .b32 bins[8];\n"
	"	ld.param.u64 %rd1, [out];\n	ld.param.u32 %r20, [iters];\n"
	"	mov.u32 %r1, %tid.x;\n	mov.u32 %r2, %ctaid.x;\n"
	"	mov.u32 %r3, %ntid.x;\n	mad.lo.u32 %r4, %r2, %r3, %r1;\n"
	"	and.b32 %r5, %r1, 7;\n	mul.wide.u32 %rd2, %r5, 4;\n"
	"	mov.u64 %rd3, bins;\n	add.s64 %rd4, %rd3, %rd2;\n"
	"	setp.lt.u32 %p1, %r1, 8;\n	@%p1 st.shared.u32 [%rd4], 0;\n"
	"	bar.sync 0;\n"
	"	mul.wide.u32 %rd5, %r4, 32;\n	add.s64 %rd6, %rd1, %rd5;\n"
	"	mul.lo.u32 %r10, %r4, 7;\n	rem.u32 %r10, %r10, 13;\n"
	"	sub.s32 %r10, %r10, 6;\n	mov.u32 %r6, 0;\n	mov.u32 %r13, 0;\n"
	"LOOP:\n	atom.shared.add.u32 %r7, [%rd4], 1;\n"
	"	atom.global.add.u32 %r8, [%rd6+64], %r4;\n"
	"	add.u32 %r13, %r13, %r8;\n	add.s32 %r11, %r10, %r6;\n"
	"	atom.global.max.s32 %r9, [%rd6+68], %r11;\n"
	"	add.u32 %r13, %r13, %r9;\n	red.global.add.u32 [%rd1], %r1;\n"
	"	red.global.xor.b32 [%rd1+4], %r4;\n"
	"	atom.global.exch.b32 %r12, [%rd6+72], %r6;\n"
	"	add.u32 %r13, %r13, %r12;\n	add.u32 %r14, %r12, 100;\n"
	"	atom.global.cas.b32 %r15, [%rd6+76], %r12, %r14;\n"
	"	add.u32 %r13, %r13, %r15;\n	bar.sync 0;\n"
	"	add.u32 %r6, %r6, 1;\n	setp.lt.u32 %p2, %r6, %r20;\n"
	"	@%p2 bra LOOP;\n	st.global.u32 [%rd6+80], %r13;\n"
	"	@%p1 ld.shared.u32 %r17, [%rd4];\n	add.s64 %rd7, %rd1, %rd2;\n"
	"	@%p1 red.global.add.u32 [%rd7+8], %r17;\n	ret;\n}\n";

/*
 * The atomics kernel compiled and interpreted: the same words, byte for
 * byte; the contended sums as C computes them.
 */
START_TEST(test_jit_warp_atomics)
{
	enum { BLOCK = 64, GRID = 2, ITERS = 3, WORDS = 16 + GRID * BLOCK * 8 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	struct buffers bufs = { 0 };
	struct { uint32_t *out; uint32_t iters; } __attribute__((aligned(8))) p;
	uint32_t *out[2], k, b, x = 0;

	out[0] = dev_alloc(&bufs, WORDS * 4);
	out[1] = dev_alloc(&bufs, WORDS * 4);
	load_both_ways(atomics_ptx, "atomics", m, f);
	for (k = 0; k < 2; k++) {
		memset(out[k], 0, WORDS * 4);
		p.out = out[k], p.iters = ITERS;
		ck_assert_int_eq(launch(f[k], &bufs, GRID, BLOCK, &p, NULL),
				 CUMC_PTX_OK);
	}
	ck_assert_msg(!memcmp(out[0], out[1], WORDS * 4),
		      "compiled and interpreted differ");
	ck_assert_uint_eq(out[0][0], ITERS * GRID * BLOCK * (BLOCK - 1) / 2);
	for (k = 0; k < GRID * BLOCK; k++)
		x ^= k;
	ck_assert_uint_eq(out[0][1], ITERS % 2 ? x : 0);
	for (b = 0; b < 8; b++)
		ck_assert_uint_eq(out[0][2 + b], GRID * ITERS * BLOCK / 8);
	dev_free(&bufs);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/* Warp operations keep a kernel on the interpreter. */
START_TEST(test_jit_warp_interpreted)
{
	struct cumc_ptx_module *m = load_file("warp.ptx");
	unsigned int i;

	for (i = 0; i < cumc_ptx_function_count(m); i++)
		ck_assert(!cumc_ptx_compiled(cumc_ptx_function_at(m, i)));
	cumc_ptx_unload(m);
}
END_TEST

static unsigned int files_in(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned int n = 0;

	ck_assert_msg(d, "%s", dir);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* vecadd.ptx made a text of its own, with nothing cached for it. */
static char *unique_text(const char *tag)
{
	size_t len;
	char *text = slurp("vecadd.ptx", &len), *u;

	ck_assert(asprintf(&u, "%s// %s %d\n", text, tag, (int)getpid()) > 0);
	free(text);
	return u;
}

/* @text loaded; NULL unless its vecAdd is compiled. */
static struct cumc_ptx_module *load_compiled(const char *text)
{
	struct cumc_ptx_module *m = NULL;
	char log[256];

	if (cumc_ptx_load(text, 0, 90, &m, log, sizeof(log)) != CUMC_PTX_OK)
		return NULL;
	if (!cumc_ptx_compiled(cumc_ptx_function_find(m, "vecAdd"))) {
		cumc_ptx_unload(m);
		return NULL;
	}
	return m;
}

static struct cumc_ptx_module *load_unique(const char *tag)
{
	char *text = unique_text(tag);
	struct cumc_ptx_module *m = load_compiled(text);

	ck_assert(m);
	free(text);
	return m;
}

static void remove_dir(const char *dir)
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

/* The one file of @dir, made junk. */
static void damage_cache(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int fd = -1;

	ck_assert(d);
	while ((e = readdir(d)) && fd < 0)
		if (e->d_name[0] != '.')
			fd = openat(dirfd(d), e->d_name, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "junk", 4), 4);
	close(fd);
	closedir(d);
}

/*
 * The total size of the files of @dir and, through @ino when not NULL, the
 * inode of the last one read (of the one file, where the cache holds one).
 */
static off_t cache_stat(const char *dir, ino_t *ino)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat sb;
	off_t n = 0;

	ck_assert(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    !fstatat(dirfd(d), e->d_name, &sb, 0)) {
			n += sb.st_size;
			if (ino)
				*ino = sb.st_ino;
		}
	closedir(d);
	return n;
}

static off_t cache_size(const char *dir)
{
	return cache_stat(dir, NULL);
}

/*
 * Whether @text loads compiled in a new process, which has no code of
 * its own yet (a process reuses what it loaded: it would not read the
 * cache again).
 */
static bool compiled_in_child(const char *text)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(load_compiled(text) ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * The JIT's cache in @dir, whatever the environment the tests run in says
 * (CUDA_CACHE_DISABLE=1 or CUMC_JIT_CACHE=0 would leave it empty).
 */
static void use_cache(const char *dir)
{
	setenv("CUDA_CACHE_PATH", dir, 1);
	unsetenv("CUDA_CACHE_DISABLE");
	unsetenv("CUMC_JIT_CACHE");
}

/* A cached object that does not load is compiled again and replaced. */
START_TEST(test_jit_cache_damaged)
{
	char dir[] = "/tmp/test_ptx_jit.XXXXXX";
	char *text = unique_text("damaged");
	off_t good;

	ck_assert(mkdtemp(dir));
	use_cache(dir);
	ck_assert(compiled_in_child(text));
	ck_assert_uint_eq(files_in(dir), 1);
	good = cache_size(dir);
	ck_assert_int_gt(good, 4);
	damage_cache(dir);
	ck_assert_int_eq(cache_size(dir), 4);
	ck_assert(compiled_in_child(text));
	ck_assert_uint_eq(files_in(dir), 1);
	ck_assert_int_eq(cache_size(dir), good);
	free(text);
	remove_dir(dir);
}
END_TEST

/* The inode of the one file of @dir; 0 when there is none. */
static ino_t cached_inode(const char *dir)
{
	ino_t ino = 0;

	cache_stat(dir, &ino);
	return ino;
}

/*
 * Processes that load one module at once into an empty cache (the ranks
 * of a job) compile it once: the others wait for the first and load what
 * it wrote. Each child reports the inode of the cache's file after its
 * load; one written by each would have been replaced as each renamed its
 * own into place.
 */
START_TEST(test_jit_cache_compiled_once)
{
	enum { CHILDREN = 4 };
	char dir[] = "/tmp/test_ptx_jit.XXXXXX";
	char *text = unique_text("once");
	int start[2], report[2], status;
	ino_t seen[CHILDREN];
	unsigned int i;
	pid_t pid;

	ck_assert(mkdtemp(dir));
	use_cache(dir);
	ck_assert_int_eq(pipe(start), 0);
	ck_assert_int_eq(pipe(report), 0);
	for (i = 0; i < CHILDREN; i++) {
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (!pid) {
			char go;
			ino_t ino;

			close(start[1]);
			if (read(start[0], &go, 1) != 0 || !load_compiled(text))
				_exit(1);
			ino = cached_inode(dir);
			_exit(write(report[1], &ino, sizeof(ino)) ==
			      sizeof(ino) ? 0 : 1);
		}
	}
	/* Every child waits for the end of this pipe, then loads at once. */
	close(start[0]);
	close(start[1]);
	close(report[1]);
	for (i = 0; i < CHILDREN; i++)
		ck_assert_int_eq(read(report[0], &seen[i], sizeof(seen[i])),
				 sizeof(seen[i]));
	close(report[0]);
	while ((pid = wait(&status)) > 0)
		ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_uint_eq(files_in(dir), 1);
	for (i = 0; i < CHILDREN; i++)
		ck_assert_uint_eq(seen[i], cached_inode(dir));
	free(text);
	remove_dir(dir);
}
END_TEST

/*
 * The code is cached in CUDA_CACHE_PATH, a file per PTX text; not under
 * CUDA_CACHE_DISABLE=1 nor CUMC_JIT_CACHE=0.
 */
START_TEST(test_jit_cache)
{
	char dir[] = "/tmp/test_ptx_jit.XXXXXX";
	struct cumc_ptx_module *m[4];
	unsigned int i;

	ck_assert(mkdtemp(dir));
	use_cache(dir);
	m[0] = load_unique("first");
	ck_assert_uint_eq(files_in(dir), 1);
	m[1] = load_unique("second");
	ck_assert_uint_eq(files_in(dir), 2);
	setenv("CUDA_CACHE_DISABLE", "1", 1);
	m[2] = load_unique("disabled");
	ck_assert_uint_eq(files_in(dir), 2);
	unsetenv("CUDA_CACHE_DISABLE");
	setenv("CUMC_JIT_CACHE", "0", 1);
	m[3] = load_unique("knob");
	ck_assert_uint_eq(files_in(dir), 2);
	for (i = 0; i < 4; i++)
		cumc_ptx_unload(m[i]);
	remove_dir(dir);
}
END_TEST

/* Every relocation the code sections of ELF object @obj ask for. */
static void code_relocations(const unsigned char *obj, size_t len,
			     unsigned int *absolute, unsigned int *other)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)obj;
	const Elf64_Shdr *sh;
	const Elf64_Rela *r;
	size_t i, k;

	ck_assert(len >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG));
	ck_assert(eh->e_shoff + (size_t)eh->e_shnum * sizeof(*sh) <= len);
	sh = (const Elf64_Shdr *)(obj + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_RELA || sh[i].sh_info >= eh->e_shnum ||
		    !(sh[sh[i].sh_info].sh_flags & SHF_EXECINSTR))
			continue;
		ck_assert(sh[i].sh_offset + sh[i].sh_size <= len);
		r = (const Elf64_Rela *)(obj + sh[i].sh_offset);
		for (k = 0; k < sh[i].sh_size / sizeof(*r); k++) {
			if (ELF64_R_TYPE(r[k].r_info) == R_X86_64_64)
				++*absolute;
			else
				++*other;
		}
	}
}

/*
 * The JIT puts a kernel's code and its data (jump tables, constants) where
 * it finds room, which may be further apart than a 32-bit displacement
 * reaches: a process of several GPUs maps terabytes of address space in
 * between.  The code must name its data by absolute address, or a
 * displacement that does not fit is cut short and the kernel jumps into
 * the middle of nowhere.
 */
START_TEST(test_jit_code_placed_anywhere)
{
	char dir[] = "/tmp/test_ptx_jit.XXXXXX", path[512];
	unsigned int absolute = 0, other = 0;
	struct cumc_ptx_module *m;
	struct dirent *e;
	unsigned char *obj;
	size_t len;
	DIR *d;

	ck_assert(mkdtemp(dir));
	use_cache(dir);
	m = load_unique("anywhere");
	d = opendir(dir);
	ck_assert(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			obj = (unsigned char *)slurp_path(path, &len);
			code_relocations(obj, len, &absolute, &other);
			free(obj);
		}
	closedir(d);
	ck_assert_uint_gt(absolute, 0);
	ck_assert_uint_eq(other, 0);
	cumc_ptx_unload(m);
	remove_dir(dir);
}
END_TEST

START_TEST(test_launch_errors)
{
	struct cumc_ptx_module *m = load_file("vecadd.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "vecAdd");
	struct vecadd_params p = { 0 };
	struct cumc_ptx_launch l = {
		.grid = { 1, 1, 1 }, .block = { 1025, 1, 1 }, .params = &p,
	};

	ck_assert_int_eq(cumc_ptx_launch(f, &l, NULL), CUMC_PTX_ELAUNCH);
	l.block[0] = 1;
	l.grid[1] = 0;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, NULL), CUMC_PTX_ELAUNCH);
	l.grid[1] = 1;
	l.dynamic_shared = 64 << 10;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, NULL), CUMC_PTX_ESHARED);
	l.max_dynamic_shared = 64 << 10;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, NULL), CUMC_PTX_OK);
	cumc_ptx_unload(m);
}
END_TEST

/* What warp.cu's warp_ops writes for the lanes @present of one warp. */
static void warp_expect(const int *v, uint32_t present, int *want, bool full)
{
	int sum = 0, mn = INT_MAX, all = 1, any = 0;
	uint32_t ballot = 0, orv = 0, mx = 0;
	unsigned int l, m;

	for (l = 0; l < 32; l++) {
		if (!(present >> l & 1))
			continue;
		sum += v[l];
		mn = v[l] < mn ? v[l] : mn;
		mx = (uint32_t)v[l] > mx ? (uint32_t)v[l] : mx;
		all &= v[l] >= 0;
		any |= v[l] > 50;
		ballot |= (uint32_t)(v[l] & 1) << l;
		if (l < 16)
			orv |= v[l];
	}
	for (l = 0; l < 32; l++) {
		int *o = want + l * 8;
		uint32_t match = 0;

		if (!(present >> l & 1))
			continue;
		for (m = 0; m < 32; m++)
			if ((present >> m & 1) && v[m] % 3 == v[l] % 3)
				match |= 1u << m;
		o[0] = full ? sum : o[0];
		o[1] = ballot;
		o[2] = l & 1 ? (int)(present & 0xaaaaaaaau) :
			       -1 - (int)(present & 0x55555555u);
		o[3] = match;
		o[4] = sum;
		if (full)
			o[5] = v[l ^ 5] + (l % 8 >= 3 ? v[l - 3] : v[l]) * 1000;
		o[6] = (int)((all ? 7 : 3) * 1000000u + (any ? 11 : 5) * 10000u +
			     (uint32_t)mn * 3 + mx);
		if (full)
			o[7] = l < 16 ? (int)orv : v[19];
	}
}

static void warp_run(const struct cumc_ptx_function *f, unsigned int grid,
		     unsigned int block, int n)
{
	struct buffers bufs = { 0 };
	unsigned int total = grid * block, w, i;
	struct { int *in, *out; int n; } p;
	int *want = calloc(total * 8, sizeof(int));
	int v[32];

	p.in = dev_alloc(&bufs, total * 4);
	p.out = dev_alloc(&bufs, total * 32);
	p.n = n;
	for (i = 0; i < (unsigned int)n; i++)
		p.in[i] = (int)(i * 37 % 101) - 20;
	ck_assert_int_eq(launch(f, &bufs, grid, block, &p, NULL), CUMC_PTX_OK);
	for (w = 0; w < total / 32 + (block % 32 != 0) * grid; w++) {
		/* Warps do not straddle blocks: warp w of the grid's layout. */
		unsigned int b = w / ((block + 31) / 32);
		unsigned int base = b * block + w % ((block + 31) / 32) * 32;
		unsigned int lanes = block - (base - b * block);
		uint32_t present = lanes >= 32 ? UINT32_MAX : (1u << lanes) - 1;
		bool full = lanes >= 32;

		if (b >= grid)
			break;
		for (i = 0; i < 32; i++)
			v[i] = i < lanes && base + i < (unsigned int)n ?
			       p.in[base + i] : 0;
		memcpy(want + base * 8, p.out + base * 8,
		       (lanes < 32 ? lanes : 32) * 32);
		warp_expect(v, present, want + base * 8, full);
	}
	for (i = 0; i < total * 8; i++)
		ck_assert_msg(p.out[i] == want[i], "thread %u out[%u]: %d, not %d",
			      i / 8, i % 8, p.out[i], want[i]);
	free(want);
	dev_free(&bufs);
}

/* shfl, vote, activemask, match and redux, full warps and a partial one. */
START_TEST(test_warp_ops)
{
	struct cumc_ptx_module *m = load_file("warp.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "warp_ops");

	warp_run(f, 2, 64, 120);
	warp_run(f, 3, 48, 144);	/* the second warp of each has 16 lanes */
	cumc_ptx_unload(m);
}
END_TEST

/* __syncwarp (bar.warp.sync) orders the steps of a shared-memory sum. */
START_TEST(test_warp_sync)
{
	struct cumc_ptx_module *m = load_file("warp.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "warp_sync");
	struct buffers bufs = { 0 };
	struct { int *in, *out; } p;
	int i, w, want;

	p.in = dev_alloc(&bufs, 3 * 64 * 4);
	p.out = dev_alloc(&bufs, 6 * 4);
	for (i = 0; i < 3 * 64; i++)
		p.in[i] = i * i % 97 - 40;
	ck_assert_int_eq(launch(f, &bufs, 3, 64, &p, NULL), CUMC_PTX_OK);
	for (w = 0; w < 6; w++) {
		for (want = 0, i = 0; i < 32; i++)
			want += p.in[w * 32 + i];
		ck_assert_int_eq(p.out[w], want);
	}
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Device functions: arguments, results, recursion, a caller's local. */
START_TEST(test_calls)
{
	struct cumc_ptx_module *m = load_file("calls.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "calls");
	struct buffers bufs = { 0 };
	struct { int *in, *out; float *f; int *cnt; } p;
	unsigned int n = 128, i, k, w;

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(cumc_ptx_function_count(m), 1);
	ck_assert_ptr_null(cumc_ptx_function_find(m, "_Z3fibi"));
	p.in = dev_alloc(&bufs, n * 4);
	p.out = dev_alloc(&bufs, n * 5 * 4);
	p.f = dev_alloc(&bufs, n * 4);
	p.cnt = dev_alloc(&bufs, 4);
	for (i = 0; i < n; i++)
		p.in[i] = (int)(i * 13 % 57) - 9;
	ck_assert_int_eq(launch(f, &bufs, 2, 64, &p, NULL), CUMC_PTX_OK);
	for (i = 0; i < n; i++) {
		int s = 0, ws = 0;

		for (k = 0; k < 8; k++)
			s += p.in[i] + (int)k;
		for (w = i / 32 * 32; w < i / 32 * 32 + 32; w++)
			ws += p.in[w];
		ck_assert_int_eq(p.out[i * 5 + 0], p.in[i] * 3 + 1);
		ck_assert_int_eq(p.out[i * 5 + 1], fib(i % 12));
		ck_assert_int_eq(p.out[i * 5 + 2], s);
		ck_assert_int_eq(p.out[i * 5 + 3], ws);
		ck_assert_int_eq(p.out[i * 5 + 4], p.in[i] * 3 + 2);
		ck_assert_float_eq(p.f[i], p.in[i] * 0.5f + 2.0f);
	}
	ck_assert_int_eq(*p.cnt, (int)n);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * What inline PTX writes: registers without '%' declared in a nested
 * block (one hiding a module variable of the same name, readable again
 * after the block), "{%r}" for a register, and funnel shifts and bfind.
 */
static const char inline_forms_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".global .u32 q = 7;\n"
	".visible .entry k(.param .u64 out)\n{\n"
	"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<2>;\n"
	"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, 5;\n"
	"\t{ .reg .pred q; .reg .b32 t; .reg .b64 a;\n"
	"\tsetp.ne.s32 q, %r1, 0; selp.u32 t, 3, 4, q;\n"
	"\tadd.s64 a, %rd1, 4; st.global.u32 [a], t;\n"
	"\t@q st.global.u32 [a+4], %r1; }\n"
	"\tld.global.u32 {%r2}, [q];\n\tst.global.u32 [%rd1], %r2;\n"
	"\tmov.u32 %r3, 0x80000001;\n"
	"\tshf.l.wrap.b32 %r2, %r3, %r1, 33;\n\tst.global.u32 [%rd1+12], %r2;\n"
	"\tshf.r.clamp.b32 %r2, %r3, %r1, 33;\n\tst.global.u32 [%rd1+16], %r2;\n"
	"\tbfind.u32 %r2, %r3;\n\tst.global.u32 [%rd1+20], %r2;\n"
	"\tbfind.shiftamt.s32 %r2, %r3;\n\tst.global.u32 [%rd1+24], %r2;\n"
	"\tret;\n}\n";

START_TEST(test_inline_forms)
{
	static const char *const refused[] = {
		"shf.l.b32 %r1, %r1, %r1, %r1;",
		"shf.l.r.wrap.b32 %r1, %r1, %r1, %r1;",
		"shf.r.clamp.u64 %r1, %r1, %r1, %r1;",
		"bfind.f32 %r1, %r1;",
		"popc.shiftamt.b32 %r1, %r1;",
	};
	const uint32_t want[] = { 7, 3, 5, 0xb, 5, 31, 1 };
	struct cumc_ptx_fault fault = { 0 };
	struct cumc_ptx_module *m = NULL;
	const struct cumc_ptx_function *f;
	struct buffers bufs = { 0 };
	uint32_t *out = dev_alloc(&bufs, sizeof(want));
	char text[512], log[256];
	size_t i;

	ck_assert_msg(cumc_ptx_load(inline_forms_ptx, 0, 90, &m, log,
				    sizeof(log)) == CUMC_PTX_OK, "%s", log);
	f = cumc_ptx_function_find(m, "k");
	ck_assert_msg(launch(f, &bufs, 1, 1, &out, &fault) == CUMC_PTX_OK,
		      "fault at line %u, address %#llx", fault.line,
		      (unsigned long long)fault.addr);
	ck_assert_mem_eq(out, want, sizeof(want));
	dev_free(&bufs);
	cumc_ptx_unload(m);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(text, sizeof(text),
			 ".version 9.0\n.target sm_90\n.visible .entry k()\n"
			 "{\n\t.reg .b32 %%r<2>;\n\t%s\n}\n", refused[i]);
		m = NULL;
		ck_assert_int_eq(cumc_ptx_load(text, 0, 90, &m, log,
					       sizeof(log)),
				 CUMC_PTX_EUNSUPPORTED);
		ck_assert_ptr_nonnull(strstr(log, "line 6"));
	}
}
END_TEST

/*
 * Function pointers as NCCL's device code uses them: a table of device
 * functions' addresses (and a variable's) initialized in PTX, read by the
 * kernel and called through .callprototype, a function's address taken
 * with mov, and an .extern array of unknown size defined further on.
 */
static const char indirect_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".func (.param .b32 r) twice(.param .b32 a)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [a];\n"
	"\tadd.s32 %r2, %r1, %r1;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n"
	".func (.param .b32 r) square(.param .b32 a)\n{\n"
	"\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [a];\n"
	"\tmul.lo.s32 %r2, %r1, %r1;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n"
	".func nothing()\n{\n\tret;\n}\n"
	".global .u32 counter = 5;\n"
	".global .u64 table[3] = {twice, square, generic(counter)+4};\n"
	".extern .global .align 4 .b8 later[];\n"
	".visible .entry k(.param .u64 out, .param .u64 bad, .param .u32 shape)\n{\n"
	"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<2>;\n"
	"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
	"\tand.b32 %r2, %r1, 1;\n\tmul.wide.u32 %rd2, %r2, 8;\n"
	"\tmov.u64 %rd3, table;\n\tadd.s64 %rd3, %rd3, %rd2;\n"
	"\tld.global.u64 %rd4, [%rd3];\n"
	"\tld.param.u32 %r7, [shape];\n\tsetp.ne.u32 %p1, %r7, 0;\n"
	"\t@%p1 mov.u64 %rd4, nothing;\n"
	"\tld.param.u64 %rd5, [bad];\n\tsetp.ne.u64 %p1, %rd5, 0;\n"
	"\t@%p1 mov.u64 %rd4, %rd5;\n"
	"\t{\n\t.param .b32 a0;\n\t.param .b32 r0;\n"
	"\tst.param.b32 [a0], %r1;\n"
	"\tproto : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
	"\tcall (r0), %rd4, (a0), proto;\n"
	"\tld.param.b32 %r3, [r0];\n\t}\n"
	"\tmul.wide.u32 %rd6, %r1, 4;\n\tadd.s64 %rd6, %rd1, %rd6;\n"
	"\tst.global.u32 [%rd6], %r3;\n"
	"\tsetp.ne.u32 %p1, %r1, 0;\n\t@%p1 ret;\n"
	"\tmov.u64 %rd7, square;\n\tst.global.u64 [%rd1+256], %rd7;\n"
	"\tld.global.u64 %rd7, [table+16];\n\tld.u32 %r4, [%rd7+-4];\n"
	"\tst.global.u32 [%rd1+264], %r4;\n"
	"\tld.global.u32 %r5, [later+4];\n\tst.global.u32 [%rd1+268], %r5;\n"
	"\tret;\n}\n"
	".visible .global .align 4 .u32 later[2] = {11, 22};\n";

START_TEST(test_indirect_calls)
{
	struct cumc_ptx_fault fault = { 0 };
	struct cumc_ptx_module *m = NULL;
	const struct cumc_ptx_function *f;
	struct buffers bufs = { 0 };
	struct { uint32_t *out; uint64_t bad; uint32_t shape; } p = { 0 };
	uint32_t want[64];
	uint64_t square;
	char log[256];
	unsigned int i;

	ck_assert_msg(cumc_ptx_load(indirect_ptx, 0, 90, &m, log,
				    sizeof(log)) == CUMC_PTX_OK, "%s", log);
	f = cumc_ptx_function_find(m, "k");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(cumc_ptx_function_find(m, "twice"));
	p.out = dev_alloc(&bufs, 272);
	ck_assert_msg(launch(f, &bufs, 1, 64, &p, &fault) == CUMC_PTX_OK,
		      "fault at line %u", fault.line);
	for (i = 0; i < 64; i++)
		want[i] = i & 1 ? i * i : 2 * i;
	ck_assert_mem_eq(p.out, want, sizeof(want));
	memcpy(&square, (char *)p.out + 256, 8);
	ck_assert_uint_eq(square >> 48, 0xfffe);
	ck_assert_uint_eq(p.out[66], 5);
	ck_assert_uint_eq(p.out[67], 22);

	/* Through a data address, or to a function of another shape. */
	p.bad = (uintptr_t)p.out;
	ck_assert_int_eq(launch(f, &bufs, 1, 32, &p, &fault), CUMC_PTX_EFAULT);
	ck_assert_uint_eq(fault.addr, p.bad);
	ck_assert_uint_eq(fault.line, 50);
	p.bad = square + 100;
	ck_assert_int_eq(launch(f, &bufs, 1, 32, &p, &fault), CUMC_PTX_EFAULT);
	p.bad = 0;
	p.shape = 1;
	ck_assert_int_eq(launch(f, &bufs, 1, 32, &p, &fault), CUMC_PTX_ETRAP);
	ck_assert_uint_eq(fault.line, 50);
	dev_free(&bufs);
	cumc_ptx_unload(m);
}
END_TEST

/* What an indirect call, a table and an unsized array may not be. */
START_TEST(test_indirect_refused)
{
	static const struct {
		const char *text;
		enum cumc_ptx_status st;
	} cases[] = {
		{ "\t.reg .b64 %rd<2>;\n\tcall %rd1, ();\n", CUMC_PTX_ESYNTAX },
		{ "\t.reg .b64 %rd<2>;\n"
		  "\tp : .callprototype _ (.param .b32 _);\n"
		  "\tcall %rd1, (), p;\n", CUMC_PTX_ESYNTAX },
		{ "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, nowhere;\n",
		  CUMC_PTX_ESYNTAX },
	};
	static const struct {
		const char *text;
		enum cumc_ptx_status st;
	} globals[] = {
		{ ".global .u32 t[] = {1};\n", CUMC_PTX_ESYNTAX },
		{ ".func f()\n{\n\tret;\n}\n.global .u32 t[1] = {f};\n",
		  CUMC_PTX_ESYNTAX },
		{ ".global .u64 t[1] = {nowhere};\n", CUMC_PTX_ESYNTAX },
		{ ".extern .global .b8 t[];\n", CUMC_PTX_EUNDEFINED },
	};
	struct cumc_ptx_module *m;
	char text[512], log[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
			 ".version 9.0\n.target sm_90\n.visible .entry k()\n"
			 "{\n%s}\n", cases[i].text);
		m = NULL;
		ck_assert_int_eq(cumc_ptx_load(text, 0, 90, &m, log,
					       sizeof(log)), cases[i].st);
		ck_assert_ptr_null(m);
	}
	for (i = 0; i < sizeof(globals) / sizeof(globals[0]); i++) {
		snprintf(text, sizeof(text),
			 ".version 9.0\n.target sm_90\n%s", globals[i].text);
		m = NULL;
		ck_assert_msg(cumc_ptx_load(text, 0, 90, &m, log,
					    sizeof(log)) == globals[i].st,
			      "%zu: %s", i, log);
		ck_assert_ptr_null(m);
	}
}
END_TEST

/*
 * A library with relocatable device code (relfatbin.c): its linked image
 * has machine code only, so the load links its objects' PTX, one of them
 * LZ4-compressed, and the kernel calls from one object into the other.
 * The same bytes outside any loaded object are machine code only.
 */
START_TEST(test_relocatable_code)
{
	void *lib = dlopen(RELFATBIN_LIB, RTLD_NOW | RTLD_LOCAL);
	struct cumc_ptx_module *m = NULL;
	const struct cumc_ptx_function *f;
	struct buffers bufs = { 0 };
	const size_t image_size = 16 + 64 + 8;
	const void *image;
	uint32_t *value;
	char log[256];
	void *copy;

	ck_assert_msg(lib, "%s", dlerror());
	image = dlsym(lib, "relfatbin_linked_image");
	ck_assert_ptr_nonnull(image);
	ck_assert_msg(cumc_ptx_load(image, 0, 90, &m, log, sizeof(log)) ==
		      CUMC_PTX_OK, "%s", log);
	f = cumc_ptx_function_find(m, "bump");
	ck_assert_ptr_nonnull(f);
	value = dev_alloc(&bufs, 4);
	*value = 41;
	ck_assert_int_eq(launch(f, &bufs, 1, 1, &value, NULL), CUMC_PTX_OK);
	ck_assert_uint_eq(*value, 42);
	dev_free(&bufs);
	cumc_ptx_unload(m);

	copy = malloc(image_size);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, image, image_size);
	m = NULL;
	ck_assert_int_eq(cumc_ptx_load(copy, image_size, 90, &m, log,
				       sizeof(log)), CUMC_PTX_ENOPTX);
	ck_assert_ptr_nonnull(strstr(log, "no PTX for compute_90"));
	free(copy);
	dlclose(lib);
}
END_TEST

/*
 * A module .shared variable that one input defines and the others
 * declare .extern (NCCL's ncclShmem): one variable once linked; a second
 * definition, or a declaration of another size, is refused.
 */
static const char shared_def_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .shared .align 4 .b8 buf[8];\n"
	".extern .func (.param .b32 r) peek();\n"
	".visible .entry k(.param .u64 out)\n{\n"
	"\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
	"\tmov.u32 %r1, 77;\n\tst.shared.u32 [buf+4], %r1;\n\tbar.sync 0;\n"
	"\t{\n\t.param .b32 r0;\n\tcall (r0), peek, ();\n"
	"\tld.param.b32 %r2, [r0];\n\t}\n"
	"\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r2;\n"
	"\tret;\n}\n";
static const char shared_use_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".extern .shared .align 4 .b8 buf[8];\n"
	".visible .func (.param .b32 r) peek()\n{\n"
	"\t.reg .b32 %r<2>;\n\tld.shared.u32 %r1, [buf+4];\n"
	"\tst.param.b32 [r], %r1;\n\tret;\n}\n";

START_TEST(test_link_shared)
{
	const char *inputs[] = { shared_use_ptx, shared_def_ptx,
				 shared_def_ptx };
	struct cumc_ptx_module *m = NULL;
	struct buffers bufs = { 0 };
	char log[256], *texts[3], *image, *wrong;
	size_t lens[3], image_len;
	uint32_t *out;
	unsigned int i;

	for (i = 0; i < 3; i++)
		ck_assert_int_eq(cumc_ptx_link_input(inputs[i], 0, 90,
						     &texts[i], &lens[i], log,
						     sizeof(log)), CUMC_PTX_OK);
	ck_assert_msg(cumc_ptx_link(texts, lens, 2, &image, &image_len, log,
				    sizeof(log)) == CUMC_PTX_OK, "%s", log);
	ck_assert_int_eq(cumc_ptx_load(image, 0, 90, &m, log, sizeof(log)),
			 CUMC_PTX_OK);
	out = dev_alloc(&bufs, 4);
	ck_assert_int_eq(launch(cumc_ptx_function_find(m, "k"), &bufs, 1, 1,
				&out, NULL), CUMC_PTX_OK);
	ck_assert_uint_eq(*out, 77);
	dev_free(&bufs);
	cumc_ptx_unload(m);
	free(image);
	ck_assert_int_eq(cumc_ptx_link(texts, lens, 3, &image, &image_len, log,
				       sizeof(log)), CUMC_PTX_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(log, "'buf' defined twice"));
	wrong = strstr(texts[0], "buf[8]");
	wrong[4] = '9';
	ck_assert_int_eq(cumc_ptx_link(texts, lens, 2, &image, &image_len, log,
				       sizeof(log)), CUMC_PTX_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(log, "declared unlike its definition"));
	for (i = 0; i < 3; i++)
		free(texts[i]);
}
END_TEST

/*
 * assert() in device code: nvcc's call of the driver's __assertfail, with
 * the message, file, line and function.  The grid stops with
 * CUMC_PTX_EASSERT and stderr has CUDA's line for it.
 */
static const char assert_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".global .align 1 .b8 msg[6] = {120, 32, 62, 32, 48, 0};\n"
	".global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};\n"
	".global .align 1 .b8 func[2] = {107, 0};\n"
	".extern .func __assertfail\n(\n.param .b64 p0,\n.param .b64 p1,\n"
	".param .b32 p2,\n.param .b64 p3,\n.param .b64 p4\n)\n;\n"
	".visible .entry k()\n{\n"
	"\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n"
	"\tmov.u32 %r1, %tid.x;\n\tsetp.ne.u32 %p1, %r1, 3;\n\t@%p1 ret;\n"
	"\tmov.u64 %rd1, msg;\n\tmov.u64 %rd2, file;\n\tmov.u64 %rd3, func;\n"
	"\t{\n\t.param .b64 a0;\n\t.param .b64 a1;\n\t.param .b32 a2;\n"
	"\t.param .b64 a3;\n\t.param .b64 a4;\n"
	"\tst.param.b64 [a0], %rd1;\n\tst.param.b64 [a1], %rd2;\n"
	"\tst.param.b32 [a2], 7;\n\tst.param.b64 [a3], %rd3;\n"
	"\tst.param.b64 [a4], 1;\n"
	"\tcall.uni __assertfail, (a0, a1, a2, a3, a4);\n\t}\n"
	"\tret;\n}\n";

START_TEST(test_assertfail)
{
	struct cumc_ptx_fault fault = { 0 };
	struct cumc_ptx_module *m = NULL;
	struct buffers bufs = { 0 };
	char log[256], out[256] = "";
	FILE *err = tmpfile();
	int saved = dup(2);
	size_t n;

	ck_assert_msg(cumc_ptx_load(assert_ptx, 0, 90, &m, log,
				    sizeof(log)) == CUMC_PTX_OK, "%s", log);
	ck_assert(err && saved >= 0);
	fflush(stderr);
	dup2(fileno(err), 2);
	ck_assert_int_eq(launch(cumc_ptx_function_find(m, "k"), &bufs, 2, 32,
				NULL, &fault), CUMC_PTX_EASSERT);
	fflush(stderr);
	dup2(saved, 2);
	rewind(err);
	n = fread(out, 1, sizeof(out) - 1, err);
	out[n] = '\0';
	ck_assert_msg(strstr(out, "a.cu:7: k: block: [") &&
		      strstr(out, "thread: [3,0,0] Assertion `x > 0` failed."),
		      "%s", out);
	ck_assert_str_eq(cumc_ptx_strerror(CUMC_PTX_EASSERT),
			 "a device-side assert failed");
	fclose(err);
	close(saved);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * A vector is one access: block 0 stores {i, i} and {i, i, i, i} again
 * and again, block 1 loads them and counts the vectors whose elements
 * differ, which element-by-element accesses let it see (the tear NCCL's
 * LL protocol must not meet).  Compiled and interpreted.
 */
static const char untorn_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry untorn(.param .u64 p, .param .u32 n)\n{\n"
	"\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<2>;\n\t.reg .pred %p<4>;\n"
	"\tld.param.u64 %rd1, [p];\n\tld.param.u32 %r1, [n];\n"
	"\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, 0;\n\tmov.u32 %r10, 0;\n"
	"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra READ;\n"
	"WRITE:\n\tadd.u32 %r3, %r3, 1;\n"
	"\tst.volatile.global.v2.u32 [%rd1], {%r3, %r3};\n"
	"\tst.volatile.global.v4.u32 [%rd1+16], {%r3, %r3, %r3, %r3};\n"
	"\tsetp.lt.u32 %p2, %r3, %r1;\n\t@%p2 bra WRITE;\n\tret;\n"
	"READ:\n\tadd.u32 %r3, %r3, 1;\n"
	"\tld.volatile.global.v2.u32 {%r4, %r5}, [%rd1];\n"
	"\tsetp.ne.u32 %p2, %r4, %r5;\n\tselp.u32 %r11, 1, 0, %p2;\n"
	"\tadd.u32 %r10, %r10, %r11;\n"
	"\tld.volatile.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd1+16];\n"
	"\tsetp.ne.u32 %p2, %r6, %r9;\n\tselp.u32 %r11, 1, 0, %p2;\n"
	"\tadd.u32 %r10, %r10, %r11;\n"
	"\tsetp.lt.u32 %p3, %r3, %r1;\n\t@%p3 bra READ;\n"
	"\tst.global.u32 [%rd1+32], %r10;\n\tret;\n}\n";

START_TEST(test_vector_untorn)
{
	struct buffers bufs = { 0 };
	struct cumc_ptx_module *m;
	struct { uint32_t *p; uint32_t n; } __attribute__((aligned(8))) a;
	unsigned int k;

	a.p = dev_alloc(&bufs, 64);
	a.n = 300000;
	for (k = 0; k < 2; k++) {
		if (k)
			setenv("CUMC_PTX_JIT", "0", 1);
		ck_assert_int_eq(cumc_ptx_load(untorn_ptx, 0, 90, &m, NULL, 0),
				 CUMC_PTX_OK);
		unsetenv("CUMC_PTX_JIT");
		memset(a.p, 0, 64);
		ck_assert_int_eq(launch(cumc_ptx_function_find(m, "untorn"),
					&bufs, 2, 1, &a, NULL), CUMC_PTX_OK);
		ck_assert_msg(a.p[8] == 0, "%u torn vectors (%s)", a.p[8],
			      k ? "interpreted" : "compiled");
		cumc_ptx_unload(m);
	}
	dev_free(&bufs);
}
END_TEST

/* A call to a function without a body (vprintf) fails the load. */
static const char extern_call_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".extern .func (.param .b32 r) vprintf (.param .b64 a, .param .b64 b);\n"
	".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t{\n"
	"\t.param .b64 p0;\n\t.param .b64 p1;\n\t.param .b32 r0;\n"
	"\tcall.uni (r0), vprintf, (p0, p1);\n\t}\n\tret;\n}\n";

START_TEST(test_call_extern)
{
	struct cumc_ptx_module *m = NULL;
	char log[256];

	ck_assert_int_eq(cumc_ptx_load(extern_call_ptx, 0, 90, &m, log,
				       sizeof(log)), CUMC_PTX_EUNDEFINED);
	ck_assert_ptr_nonnull(strstr(log, "line 12"));
	ck_assert_ptr_nonnull(strstr(log, "vprintf"));
}
END_TEST

/*
 * The linker's half: an input that calls and reads what it does not
 * define is one, not a module; joined with its definitions, it loads.
 */
START_TEST(test_link_inputs)
{
	struct cumc_ptx_module *m = NULL;
	char log[256], *texts[3], *image = NULL;
	size_t lens[3], len, image_len;
	char *main_ptx = slurp("link_main.ptx", &len);
	char *lib_ptx;

	ck_assert_int_eq(cumc_ptx_load(main_ptx, len, 90, &m, log,
				       sizeof(log)), CUMC_PTX_EUNDEFINED);
	ck_assert_int_eq(cumc_ptx_link_input(main_ptx, len, 90, &texts[0],
					     &lens[0], log, sizeof(log)),
			 CUMC_PTX_OK);
	free(main_ptx);
	lib_ptx = slurp("link_lib.ptx", &len);
	ck_assert_int_eq(cumc_ptx_link_input(lib_ptx, len, 90, &texts[1],
					     &lens[1], log, sizeof(log)),
			 CUMC_PTX_OK);
	free(lib_ptx);
	ck_assert_int_eq(cumc_ptx_link(texts, lens, 1, &image, &image_len, log,
				       sizeof(log)), CUMC_PTX_EUNDEFINED);
	ck_assert_ptr_nonnull(strstr(log, "input 1, line "));
	ck_assert_ptr_null(image);
	ck_assert_int_eq(cumc_ptx_link(texts, lens, 2, &image, &image_len, log,
				       sizeof(log)), CUMC_PTX_OK);
	ck_assert_uint_eq(image_len, strlen(image));
	ck_assert_int_eq(cumc_ptx_load(image, 0, 90, &m, log, sizeof(log)),
			 CUMC_PTX_OK);
	ck_assert_uint_eq(cumc_ptx_function_count(m), 1);
	ck_assert_uint_eq(cumc_ptx_version(m), 90);
	cumc_ptx_unload(m);
	free(image);
	texts[2] = texts[1];
	lens[2] = lens[1];
	ck_assert_int_eq(cumc_ptx_link(texts, lens, 3, &image, &image_len, log,
				       sizeof(log)), CUMC_PTX_ESYNTAX);
	ck_assert_ptr_nonnull(strstr(log, "input 3, line 14: variable "
					  "'scale_by' defined twice"));
	free(texts[0]);
	free(texts[1]);
}
END_TEST

/*
 * An input of the linker's tests, its variable and function declared
 * with a linkage ("", ".weak ", ".visible "): the kernel stores val at
 * out[0] and helper(1) at out[1].
 */
static const char link_fmt[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	"%s.global .align 4 .u32 val = %u;\n"
	"%s.func (.param .b32 r) helper(.param .b32 x)\n{\n"
	"\t.reg .b32 %%r<3>;\n\tld.param.u32 %%r1, [x];\n"
	"\tadd.u32 %%r2, %%r1, %u;\n\tst.param.b32 [r], %%r2;\n"
	"\tret;\n}\n"
	".visible .entry %s(.param .u64 out)\n{\n"
	"\t.reg .b32 %%r<3>;\n\t.reg .b64 %%rd<2>;\n"
	"\tld.param.u64 %%rd1, [out];\n\tld.global.u32 %%r1, [val];\n"
	"\tst.global.u32 [%%rd1], %%r1;\n"
	"\t{\n\t.param .b32 p0;\n\t.param .b32 r0;\n"
	"\tst.param.b32 [p0], 1;\n\tcall.uni (r0), helper, (p0);\n"
	"\tld.param.b32 %%r2, [r0];\n\t}\n"
	"\tst.global.u32 [%%rd1+4], %%r2;\n\tret;\n}\n";

/* link_fmt for kernel @k, helper(1) being 1 + @add. */
static char *link_ptx(const char *linkage, const char *k, unsigned int val,
		      unsigned int add)
{
	char *ptx;

	ck_assert_int_gt(asprintf(&ptx, link_fmt, linkage, val, linkage, add,
				  k), 0);
	return ptx;
}

/* Links @n texts and loads the image; the link's status. */
static enum cumc_ptx_status link_load(char **ptx, unsigned int n,
				      struct cumc_ptx_module **m, char *log,
				      size_t log_size)
{
	enum cumc_ptx_status st;
	char *image = NULL;
	size_t lens[4], len;
	unsigned int i;

	for (i = 0; i < n; i++)
		lens[i] = strlen(ptx[i]);
	st = cumc_ptx_link(ptx, lens, n, &image, &len, log, log_size);
	if (st != CUMC_PTX_OK)
		return st;
	ck_assert_msg(cumc_ptx_load(image, len, 90, m, log, log_size) ==
		      CUMC_PTX_OK, "%s", log);
	free(image);
	return st;
}

/* Runs kernel @k: the val and helper(1) it reads. */
static void link_run(struct cumc_ptx_module *m, const char *k, uint32_t val,
		     uint32_t helper)
{
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, k);
	struct buffers bufs = { 0 };
	uint32_t *out = dev_alloc(&bufs, 8);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(launch(f, &bufs, 1, 1, &out, NULL), CUMC_PTX_OK);
	ck_assert_uint_eq(out[0], val);
	ck_assert_uint_eq(out[1], helper);
	dev_free(&bufs);
}

static void count_global(void *arg, void *addr, size_t size)
{
	(void)addr;
	(void)size;
	++*(unsigned int *)arg;
}

/*
 * Without .visible, a variable and a function are their input's own: two
 * inputs each have theirs, renamed in the image; one that no other input
 * declares keeps its name.
 */
START_TEST(test_link_private)
{
	static const char lone[] = ".version 8.0\n.target sm_90\n"
			     ".global .align 4 .u32 lone = 5;\n";
	char *ptx[3] = { link_ptx("", "k1", 11, 100),
			 link_ptx("", "k2", 22, 200), (char *)lone };
	struct cumc_ptx_module *m = NULL;
	unsigned int globals = 0;
	char log[256];
	uint32_t *val;
	size_t size;

	ck_assert_msg(link_load(ptx, 3, &m, log, sizeof(log)) == CUMC_PTX_OK,
		      "%s", log);
	link_run(m, "k1", 11, 101);
	link_run(m, "k2", 22, 201);
	ck_assert_int_eq(cumc_ptx_global_find(m, "val", (void **)&val, &size),
			 CUMC_PTX_ENOTFOUND);
	ck_assert_int_eq(cumc_ptx_global_find(m, "val$cumc2", (void **)&val,
					      &size), CUMC_PTX_OK);
	ck_assert_uint_eq(*val, 22);
	ck_assert_int_eq(cumc_ptx_global_find(m, "lone", (void **)&val,
					      &size), CUMC_PTX_OK);
	ck_assert_uint_eq(*val, 5);
	cumc_ptx_globals_each(m, count_global, &globals);
	ck_assert_uint_eq(globals, 3);
	cumc_ptx_unload(m);
	free(ptx[0]);
	free(ptx[1]);
}
END_TEST

/*
 * .weak definitions in two inputs are one: the first, or the .visible
 * one where there is one, whichever comes first.
 */
START_TEST(test_link_weak)
{
	static const struct {
		const char *first, *second;
		uint32_t val, helper;
	} cases[] = {
		{ ".weak ", ".weak ", 11, 101 },
		{ ".weak ", ".visible ", 22, 201 },
		{ ".visible ", ".weak ", 11, 101 },
	};
	struct cumc_ptx_module *m;
	char *ptx[2], log[256];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ptx[0] = link_ptx(cases[i].first, "k1", 11, 100);
		ptx[1] = link_ptx(cases[i].second, "k2", 22, 200);
		m = NULL;
		ck_assert_msg(link_load(ptx, 2, &m, log, sizeof(log)) ==
			      CUMC_PTX_OK, "%u: %s", i, log);
		link_run(m, "k1", cases[i].val, cases[i].helper);
		link_run(m, "k2", cases[i].val, cases[i].helper);
		cumc_ptx_unload(m);
		free(ptx[0]);
		free(ptx[1]);
	}
}
END_TEST

/*
 * Two .visible definitions of a name are refused, at the input and line
 * of the second, lines that a dropped .weak definition before it kept.
 */
START_TEST(test_link_visible_twice)
{
	struct cumc_ptx_module *m = NULL;
	char *ptx[2], *weak, log[256], want[64];
	unsigned int i, line = 1;

	ptx[0] = link_ptx(".visible ", "k1", 11, 100);
	ptx[1] = link_ptx(".visible ", "k2", 22, 200);
	ck_assert_int_eq(link_load(ptx, 2, &m, log, sizeof(log)),
			 CUMC_PTX_ESYNTAX);
	ck_assert_str_eq(log, "input 2, line 4: variable 'val' defined twice");
	for (i = 0; i < 2; i++) {
		free(ptx[i]);
		weak = link_ptx(".weak ", i ? "k2" : "k1", 11, 100);
		ck_assert_int_gt(asprintf(&ptx[i], "%s.visible .global .u32 "
					  "dup = %u;\n", weak, i), 0);
		free(weak);
	}
	for (weak = ptx[1]; (weak = strchr(weak, '\n')); weak++)
		line++;
	snprintf(want, sizeof(want),
		 "input 2, line %u: variable 'dup' defined twice", line - 1);
	ck_assert_int_eq(link_load(ptx, 2, &m, log, sizeof(log)),
			 CUMC_PTX_ESYNTAX);
	ck_assert_str_eq(log, want);
	free(ptx[0]);
	free(ptx[1]);
}
END_TEST

/*
 * Another input's .extern does not reach a variable or a function
 * declared without .visible: it is undefined there.
 */
START_TEST(test_link_private_unreachable)
{
	static const char use_val[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".extern .global .align 4 .u32 val;\n"
		".visible .entry k2(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n"
		"\tld.param.u64 %rd1, [out];\n\tld.global.u32 %r1, [val];\n"
		"\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n";
	static const char call_helper[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".extern .func (.param .b32 r) helper(.param .b32 x);\n"
		".visible .entry k2()\n{\n\t.reg .b32 %r<2>;\n"
		"\t{\n\t.param .b32 p0;\n\t.param .b32 r0;\n"
		"\tst.param.b32 [p0], 1;\n\tcall.uni (r0), helper, (p0);\n"
		"\tld.param.b32 %r1, [r0];\n\t}\n\tret;\n}\n";
	struct cumc_ptx_module *m = NULL;
	char *ptx[2], log[256];

	ptx[0] = link_ptx("", "k1", 11, 100);
	ptx[1] = (char *)use_val;
	ck_assert_int_eq(link_load(ptx, 2, &m, log, sizeof(log)),
			 CUMC_PTX_EUNDEFINED);
	ck_assert_msg(strstr(log, "variable 'val' is declared .extern and "
			     "defined nowhere"), "%s", log);
	ptx[1] = (char *)call_helper;
	ck_assert_int_eq(link_load(ptx, 2, &m, log, sizeof(log)),
			 CUMC_PTX_EUNDEFINED);
	ck_assert_msg(strstr(log, "input 2, line 12: call to 'helper', "),
		      "%s", log);
	free(ptx[0]);
}
END_TEST

/* Lane 0 waits at a shfl for lane 1, which waits at bar.sync: a trap. */
static const char warp_deadlock_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\t.reg .pred %p<2>;\n"
	"\tmov.u32 %r1, %laneid;\n"
	"\tsetp.eq.u32 %p1, %r1, 0;\n"
	"\t@%p1 bra L;\n"
	"\tbar.sync 0;\n\tret;\n"
	"L:\n\tshfl.sync.idx.b32 %r2, %r1, 1, 31, 3;\n\tret;\n}\n";

START_TEST(test_warp_deadlock)
{
	struct cumc_ptx_module *m = NULL;
	struct cumc_ptx_fault fault;
	struct buffers bufs = { 0 };
	char log[256];

	ck_assert_int_eq(cumc_ptx_load(warp_deadlock_ptx, 0, 90, &m, log,
				       sizeof(log)), CUMC_PTX_OK);
	ck_assert_int_eq(launch(cumc_ptx_function_find(m, "k"), &bufs, 1, 2,
				NULL, &fault), CUMC_PTX_ETRAP);
	cumc_ptx_unload(m);
}
END_TEST

/* Barrier forms the ISA does not allow fail to load, naming why. */
START_TEST(test_barrier_bad_forms)
{
	static const struct {
		const char *insn;
		enum cumc_ptx_status want;
	} bad[] = {
		{ "bar.sync 16;", CUMC_PTX_ESYNTAX },
		{ "bar.sync 1, 48;", CUMC_PTX_ESYNTAX },	/* not 32n */
		{ "bar.sync 1, 0;", CUMC_PTX_ESYNTAX },
		{ "bar.sync 1, 2048;", CUMC_PTX_ESYNTAX },
		{ "bar.arrive 1;", CUMC_PTX_EUNSUPPORTED },	/* needs b */
		{ "bar.red.popc.u32 %r1, 0;", CUMC_PTX_EUNSUPPORTED },
		{ "bar.red.popc.u32 %r1, 0, 5;", CUMC_PTX_ESYNTAX },
		{ "bar.red.add.u32 %r1, 0, %p1;", CUMC_PTX_EUNSUPPORTED },
		{ "bar.red.and.u32 %r1, 0, %p1;", CUMC_PTX_EUNSUPPORTED },
		{ "bar.red.popc.pred %p1, 0, %p1;", CUMC_PTX_EUNSUPPORTED },
		{ "bar.sync.u32 0;", CUMC_PTX_EUNSUPPORTED },
		{ "bar.sync 0, 32, 1;", CUMC_PTX_EUNSUPPORTED },
		{ "bar.warp.sync -1, 1;", CUMC_PTX_ESYNTAX },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cumc_ptx_module *m = NULL;
		char text[512], log[256];

		snprintf(text, sizeof(text), ".version 8.0\n.target sm_90\n"
			 ".visible .entry k()\n{\n\t.reg .b32 %%r<2>;\n"
			 "\t.reg .pred %%p<2>;\n\t%s\n\tret;\n}\n",
			 bad[i].insn);
		ck_assert_msg(cumc_ptx_load(text, 0, 90, &m, log,
					    sizeof(log)) == bad[i].want,
			      "%s: %s", bad[i].insn, log);
	}
}
END_TEST

/*
 * A barrier number or count from a register out of range traps; so does
 * a counted barrier that not enough threads reach (64 wanted, 32 there).
 */
START_TEST(test_barrier_traps)
{
	static const char *const bodies[] = {
		"mov.u32 %r1, 16;\n\tbar.sync %r1;",
		"mov.u32 %r1, 40;\n\tbar.sync 1, %r1;",
		"bar.sync 1, 64;",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		struct cumc_ptx_module *m = NULL;
		struct cumc_ptx_fault fault;
		struct buffers bufs = { 0 };
		char text[512], log[256];

		snprintf(text, sizeof(text), ".version 8.0\n.target sm_90\n"
			 ".visible .entry k()\n{\n\t.reg .b32 %%r<2>;\n"
			 "\t%s\n\tret;\n}\n", bodies[i]);
		ck_assert_msg(cumc_ptx_load(text, 0, 90, &m, log,
					    sizeof(log)) == CUMC_PTX_OK,
			      "%s: %s", bodies[i], log);
		ck_assert_int_eq(launch(cumc_ptx_function_find(m, "k"), &bufs,
					1, 32, NULL, &fault), CUMC_PTX_ETRAP);
		cumc_ptx_unload(m);
	}
}
END_TEST

/*
 * A multicast range of two members, f32 add and u32 add only; what a
 * worker holds is the range itself, counted when taken and let go of.
 * The calls it answered and their elements are counted.
 */
struct fake_mc {
	uint64_t base;
	size_t len;
	unsigned char *m[2];
	unsigned int calls, checks;	/* checks: of pairs kept back */
	size_t elements;
	unsigned int held, released;
	bool refuse_pairs;	/* refuses ld_reduce_st whole */
	size_t max_pair;	/* 0, or ld_reduce_st's most elements */
	size_t check_len;	/* 0, or the bytes a check's answer covers */
};

static bool fake_access(void *arg, void **held, enum cumc_ptx_mm_kind kind,
			uint64_t addr, void *buf, size_t count,
			enum cumc_ptx_mm_type type, enum cumc_ptx_mm_op op)
{
	struct fake_mc *mc = arg;
	size_t off = addr - mc->base, i;
	unsigned int k;

	if (addr < mc->base || off + count * 4 > mc->len || op != CUMC_PTX_MM_ADD ||
	    (type != CUMC_PTX_MM_F32 && type != CUMC_PTX_MM_U32) ||
	    ((kind == CUMC_PTX_MM_LD_REDUCE_ST ||
	      kind == CUMC_PTX_MM_CHECK_LD_REDUCE_ST) && mc->refuse_pairs) ||
	    (kind == CUMC_PTX_MM_LD_REDUCE_ST && mc->max_pair &&
	     count > mc->max_pair))
		return false;
	if (!*held) {
		*held = mc;
		__atomic_fetch_add(&mc->held, 1, __ATOMIC_RELAXED);
	}
	ck_assert_ptr_eq(*held, mc);
	if (kind == CUMC_PTX_MM_CHECK_LD_REDUCE_ST) {
		uint64_t *range = buf;

		range[0] = mc->base;
		range[1] = mc->base + (mc->check_len ? mc->check_len : mc->len);
		__atomic_fetch_add(&mc->checks, 1, __ATOMIC_RELAXED);
		return true;
	}
	__atomic_fetch_add(&mc->calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&mc->elements,
			   kind == CUMC_PTX_MM_LD_REDUCE_ST ? 2 * count : count,
			   __ATOMIC_RELAXED);
	for (i = 0; i < count; i++) {
		float f0, f1, f;
		uint32_t u;

		switch (kind) {
		case CUMC_PTX_MM_LD_REDUCE: case CUMC_PTX_MM_LD_REDUCE_ST:
			memcpy(&f0, mc->m[0] + off + 4 * i, 4);
			memcpy(&f1, mc->m[1] + off + 4 * i, 4);
			f = f0 + f1;
			if (type == CUMC_PTX_MM_U32) {
				u = ((uint32_t *)(mc->m[0] + off))[i] +
				    ((uint32_t *)(mc->m[1] + off))[i];
				memcpy(&f, &u, 4);
			}
			memcpy((char *)buf + 4 * i, &f, 4);
			for (k = 0; kind == CUMC_PTX_MM_LD_REDUCE_ST && k < 2;
			     k++)
				memcpy(mc->m[k] + off + 4 * i, &f, 4);
			break;
		case CUMC_PTX_MM_ST:
			for (k = 0; k < 2; k++)
				memcpy(mc->m[k] + off + 4 * i,
				       (char *)buf + 4 * i, 4);
			break;
		default:
			memcpy(&u, (char *)buf + 4 * i, 4);
			for (k = 0; k < 2; k++)
				__atomic_fetch_add((uint32_t *)(mc->m[k] + off) + i,
						   u, __ATOMIC_RELAXED);
		}
	}
	return true;
}

static void fake_release(void *arg, void **held)
{
	struct fake_mc *mc = arg;

	ck_assert_ptr_eq(*held, mc);
	*held = NULL;
	__atomic_fetch_add(&mc->released, 1, __ATOMIC_RELAXED);
}

/*
 * A plain store to a multicast address reaches every member (NCCL's NVLS
 * credits); a plain load from one still faults.  Interpreted.
 */
static const char mc_store_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k(.param .u64 mc, .param .u32 load)\n{\n"
	"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n\t.reg .pred %p<2>;\n"
	"\tld.param.u64 %rd1, [mc];\n\tmov.u32 %r1, %tid.x;\n"
	"\tmul.wide.u32 %rd2, %r1, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
	"\tadd.u32 %r2, %r1, 100;\n"
	"\tst.relaxed.sys.global.v2.u32 [%rd3], {%r1, %r2};\n"
	"\tld.param.u32 %r3, [load];\n\tsetp.ne.u32 %p1, %r3, 0;\n"
	"\t@%p1 ld.global.u32 %r3, [%rd3];\n\tret;\n}\n";

START_TEST(test_multicast_plain_store)
{
	uint32_t m0[16] = { 0 }, m1[16] = { 0 };
	struct fake_mc mc = { .base = 0x7f0000000000ull, .len = sizeof(m0),
			      .m = { (unsigned char *)m0, (unsigned char *)m1 } };
	struct cumc_ptx_multicast cb = { fake_access, fake_release, &mc };
	struct buffers bufs = { 0 };
	struct cumc_ptx_memory mem = { check_mem, &bufs };
	struct { uint64_t mc; uint32_t load; } p = { mc.base, 0 };
	struct cumc_ptx_launch l = {
		.grid = { 1, 1, 1 }, .block = { 8, 1, 1 },
		.params = &p, .memory = &mem, .multicast = &cb,
	};
	struct cumc_ptx_fault fault;
	struct cumc_ptx_module *m;
	unsigned int i;

	setenv("CUMC_PTX_JIT", "0", 1);
	ck_assert_int_eq(cumc_ptx_load(mc_store_ptx, 0, 90, &m, NULL, 0),
			 CUMC_PTX_OK);
	unsetenv("CUMC_PTX_JIT");
	ck_assert_int_eq(cumc_ptx_launch(cumc_ptx_function_find(m, "k"), &l,
					 &fault), CUMC_PTX_OK);
	for (i = 0; i < 8; i++) {
		ck_assert_uint_eq(m0[2 * i], i);
		ck_assert_uint_eq(m1[2 * i + 1], i + 100);
	}
	ck_assert_uint_eq(mc.elements, 16);
	ck_assert_uint_eq(mc.released, mc.held);
	p.load = 1;
	ck_assert_int_eq(cumc_ptx_launch(cumc_ptx_function_find(m, "k"), &l,
					 &fault), CUMC_PTX_EFAULT);
	ck_assert_uint_eq(fault.addr & ~0xffull, mc.base);
	l.multicast = NULL;
	p.load = 0;
	ck_assert_int_eq(cumc_ptx_launch(cumc_ptx_function_find(m, "k"), &l,
					 &fault), CUMC_PTX_EFAULT);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * multimem reaches the launch's multicast path (compiled, one call per
 * instruction for each warp of 32 threads, one for a ld_reduce and the
 * st of its results after it, or a call per thread and instruction where
 * the path refuses that pair), and what a worker kept is let go of by the
 * launch's end; without a path it faults.
 */
START_TEST(test_multimem)
{
	struct cumc_ptx_module *m = load_file("multimem.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "allreduce_f32");
	const struct cumc_ptx_function *sig = cumc_ptx_function_find(m, "signal");
	float m0[64], m1[64];
	struct fake_mc mc = { .base = 0x7f0000000000ull, .len = sizeof(m0),
			      .m = { (unsigned char *)m0, (unsigned char *)m1 } };
	struct cumc_ptx_multicast cb = { fake_access, fake_release, &mc };
	struct buffers bufs = { 0 };
	struct cumc_ptx_memory mem = { check_mem, &bufs };
	struct { uint64_t mc; uint32_t n; } p = { mc.base, 64 };
	struct cumc_ptx_launch l = {
		.grid = { 2, 1, 1 }, .block = { 32, 1, 1 },
		.params = &p, .memory = &mem, .multicast = &cb,
	};
	struct cumc_ptx_fault fault;
	uint32_t *u0 = (uint32_t *)m0, *u1 = (uint32_t *)m1;
	unsigned int i;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(sig);
	for (i = 0; i < 64; i++) {
		m0[i] = i;
		m1[i] = 0.5f * i;
	}
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_OK);
	for (i = 0; i < 64; i++) {
		ck_assert_float_eq(m0[i], 1.5f * i);
		ck_assert_float_eq(m1[i], 1.5f * i);
	}
	/* compiled, a warp's ld_reduce and st of its results: one call */
	ck_assert_uint_eq(mc.calls, (cumc_ptx_compiled(f) ? 64 / 32 : 2 * 64));
	ck_assert_uint_eq(mc.elements, 2 * 64);
	ck_assert_uint_ge(mc.held, 1);
	ck_assert_uint_eq(mc.released, mc.held);

	/* the pair refused whole: each thread makes both, the same sums */
	for (i = 0; i < 64; i++) {
		m0[i] = i;
		m1[i] = 0.5f * i;
	}
	mc.calls = 0;
	mc.refuse_pairs = true;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_OK);
	for (i = 0; i < 64; i++) {
		ck_assert_float_eq(m0[i], 1.5f * i);
		ck_assert_float_eq(m1[i], 1.5f * i);
	}
	ck_assert_uint_eq(mc.calls, 2 * 64);
	mc.refuse_pairs = false;

	/*
	 * One CTA of two warps: compiled, each warp's pair is kept back, the
	 * second without a check of its own (the first's answer covers it),
	 * and the two, following each other, are one call.
	 */
	for (i = 0; i < 64; i++) {
		m0[i] = i;
		m1[i] = 0.5f * i;
	}
	mc.calls = 0;
	mc.checks = 0;
	l.grid[0] = 1;
	l.block[0] = 64;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_OK);
	for (i = 0; i < 64; i++) {
		ck_assert_float_eq(m0[i], 1.5f * i);
		ck_assert_float_eq(m1[i], 1.5f * i);
	}
	ck_assert_uint_eq(mc.calls, cumc_ptx_compiled(f) ? 1 : 2 * 64);
	ck_assert_uint_eq(mc.checks, cumc_ptx_compiled(f) ? 1 : 0);

	/* An answer that covers the first warp's pair only: two checks. */
	mc.checks = 0;
	mc.check_len = 32 * sizeof(float);
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_OK);
	ck_assert_uint_eq(mc.checks, cumc_ptx_compiled(f) ? 2 : 0);
	mc.check_len = 0;

	/*
	 * Two CTAs of one warp on one worker: the answer is forgotten with
	 * the hold let go after the first CTA's round, the second asks again.
	 */
	mc.checks = 0;
	l.grid[0] = 2;
	l.block[0] = 32;
	l.workers = 1;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_OK);
	ck_assert_uint_eq(mc.checks, cumc_ptx_compiled(f) ? 2 : 0);
	l.workers = 0;
	l.grid[0] = 1;
	l.block[0] = 64;
	for (i = 0; i < 64; i++) {
		m0[i] = i;
		m1[i] = 0.5f * i;
	}

	/*
	 * The path takes the two only one at a time (as a range over two
	 * mappings): each is made alone, once.  Then it takes neither
	 * (the mapping gone since their checks): warp 0's first thread
	 * faults at its pair's address.
	 */
	for (i = 0; i < 64; i++) {
		m0[i] = i;
		m1[i] = 0.5f * i;
	}
	mc.calls = 0;
	mc.max_pair = 32;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_OK);
	for (i = 0; i < 64; i++) {
		ck_assert_float_eq(m0[i], 1.5f * i);
		ck_assert_float_eq(m1[i], 1.5f * i);
	}
	ck_assert_uint_eq(mc.calls, cumc_ptx_compiled(f) ? 2 : 2 * 64);
	mc.max_pair = 16;
	if (cumc_ptx_compiled(f)) {
		ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault),
				 CUMC_PTX_EFAULT);
		ck_assert_uint_eq(fault.addr, mc.base);
		ck_assert_uint_eq(fault.thread[0], 0);
		ck_assert_uint_eq(fault.block[0], 0);
	}
	mc.max_pair = 0;
	l.grid[0] = 2;
	l.block[0] = 32;

	/* Two red.add.u32 of 1 per thread, into every member. */
	memset(m0, 0, sizeof(m0));
	memset(m1, 0, sizeof(m1));
	l.grid[0] = 3;
	ck_assert_int_eq(cumc_ptx_launch(sig, &l, &fault), CUMC_PTX_OK);
	for (i = 0; i < 32; i++) {
		ck_assert_uint_eq(u0[i], 6);
		ck_assert_uint_eq(u1[i], 6);
	}

	/* Not multicast memory, or no multicast path: a fault. */
	p.mc = 0x1000;
	l.grid[0] = 1;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_EFAULT);
	ck_assert_uint_eq(fault.addr, 0x1000);
	ck_assert_uint_eq(mc.released, mc.held);
	p.mc = mc.base;
	l.multicast = NULL;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_EFAULT);
	cumc_ptx_unload(m);
}
END_TEST

/*
 * Pairs kept back made in their order where their ranges overlap: a
 * warp's f32 pair one vector further first, then a u32 pair at its own
 * words (sorted by address, the second would come first, and the two
 * read each other's bits); then a ld_reduce of its own word after both,
 * into a plain buffer.
 */
static const char kept_pairs_ptx[] =
	".version 9.0\n.target sm_90\n.address_size 64\n"
	".visible .entry kept(.param .u64 mc, .param .u64 out)\n{\n"
	"	.reg .b32 %r<4>;\n	.reg .b64 %rd<10>;\n	.reg .f32 %f<5>;\n"
	"	ld.param.u64 %rd1, [mc];\n	ld.param.u64 %rd2, [out];\n"
	"	mov.u32 %r1, %tid.x;\n	mul.wide.u32 %rd3, %r1, 16;\n"
	"	add.s64 %rd4, %rd1, %rd3;\n	add.s64 %rd5, %rd4, 16;\n"
	"	mul.wide.u32 %rd7, %r1, 4;\n	add.s64 %rd8, %rd1, %rd7;\n"
	"	multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];\n"
	"	multimem.st.relaxed.sys.global.v4.f32 [%rd5], {%f1, %f2, %f3, %f4};\n"
	"	multimem.ld_reduce.relaxed.sys.global.add.u32 %r2, [%rd8];\n"
	"	multimem.st.relaxed.sys.global.u32 [%rd8], %r2;\n"
	"	multimem.ld_reduce.relaxed.sys.global.add.u32 %r3, [%rd8];\n"
	"	add.s64 %rd6, %rd2, %rd7;\n	st.global.u32 [%rd6], %r3;\n"
	"	ret;\n}\n";

/* Empties what workers kept (worker_mem.c), whatever ran before. */
static void worker_mem_drain(void)
{
	const struct ptx_cta_shape none = { 0 };
	struct ptx_worker_mem m;
	unsigned int i;

	for (i = 0; i < PTX_WORKERS_KEPT; i++) {
		ptx_worker_mem_take(&m, &none);
		free(m.mm_pairs);
		free(m.mm_sums);
	}
}

/* A CTA's memory as a worker allocates it; tiny: only pointers are compared. */
static void worker_mem_add_cta(struct ptx_worker_mem *m)
{
	m->spare[m->nspare++] = (struct ptx_cta_mem){
		malloc(1), malloc(1), malloc(1), malloc(1),
	};
}

/*
 * What a worker leaves serves a later launch's worker: its CTAs' memory
 * only for CTAs of the same shape, the multimem pairs' buffers for any;
 * what would pass the bound on bytes is freed, not kept.
 */
START_TEST(test_worker_mem_kept)
{
	struct ptx_cta_shape a = { .nthreads = 32, .nregs = 4,
				   .shared_size = 64 };
	struct ptx_cta_shape b = a, huge = a;
	struct ptx_worker_mem m;
	uint64_t *regs;
	struct ptx_mm_pair *pairs;

	b.nthreads = 64;
	huge.local_size = 128u << 20;
	worker_mem_drain();
	ptx_worker_mem_take(&m, &a);
	ck_assert_uint_eq(m.nspare, 0);
	ck_assert_ptr_null(m.mm_pairs);
	worker_mem_add_cta(&m);
	worker_mem_add_cta(&m);
	m.mm_pairs = pairs = malloc(sizeof(*pairs));
	m.mm_sums = malloc(1);
	regs = m.spare[1].regs;
	ptx_worker_mem_keep(&m);
	ck_assert_uint_eq(m.nspare, 0);
	ck_assert_ptr_null(m.mm_pairs);

	ptx_worker_mem_take(&m, &a);
	ck_assert_uint_eq(m.nspare, 2);
	ck_assert_ptr_eq(m.spare[1].regs, regs);
	ck_assert_ptr_eq(m.mm_pairs, pairs);
	ptx_worker_mem_keep(&m);

	ptx_worker_mem_take(&m, &b);
	ck_assert_uint_eq(m.nspare, 0);
	ck_assert_ptr_eq(m.mm_pairs, pairs);
	ck_assert_uint_eq(m.shape.nthreads, 64);

	m.shape = huge;
	worker_mem_add_cta(&m);
	ptx_worker_mem_keep(&m);
	ptx_worker_mem_take(&m, &huge);
	ck_assert_uint_eq(m.nspare, 0);
	ck_assert_ptr_null(m.mm_pairs);
}
END_TEST

START_TEST(test_multimem_kept_order)
{
	enum { WORDS = 4 * 33 };
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	uint32_t mem[2][2][WORDS], want[2][WORDS], v, *out[2];
	unsigned int i, k;

	load_both_ways(kept_pairs_ptx, "kept", m, f);
	for (i = 0; i < WORDS; i++) {
		want[0][i] = bits_of_f32(i);
		want[1][i] = bits_of_f32(0.25f * i);
	}
	for (k = 0; k < 2; k++) {
		struct fake_mc mc = { .base = 0x7f0000000000ull,
			.len = sizeof(mem[k][0]),
			.m = { (unsigned char *)mem[k][0],
			       (unsigned char *)mem[k][1] } };
		struct cumc_ptx_multicast cb = { fake_access, fake_release,
						 &mc };
		struct buffers bufs = { 0 };
		struct cumc_ptx_memory mm = { check_mem, &bufs };
		struct { uint64_t mc, out; } p;
		struct cumc_ptx_launch l = {
			.grid = { 1, 1, 1 }, .block = { 32, 1, 1 },
			.params = &p, .memory = &mm, .multicast = &cb,
		};
		struct cumc_ptx_fault fault;

		out[k] = dev_alloc(&bufs, 4 * 32);
		p.mc = mc.base;
		p.out = (uintptr_t)out[k];
		memcpy(mem[k], want, sizeof(want));
		ck_assert_int_eq(cumc_ptx_launch(f[k], &l, &fault),
				 CUMC_PTX_OK);
		ck_assert_uint_eq(mc.released, mc.held);
		if (!k)
			ck_assert_uint_eq(mc.checks,
					  cumc_ptx_compiled(f[0]) ? 2 : 0);
	}
	/* the two pairs in the kernel's order */
	for (i = 4; i < WORDS; i++)
		want[0][i] = want[1][i] = bits_of_f32(f32_of_bits(want[0][i]) +
						      f32_of_bits(want[1][i]));
	for (i = 0; i < 32; i++) {
		v = want[0][i] + want[1][i];
		want[0][i] = want[1][i] = v;
	}
	for (k = 0; k < 2; k++) {
		ck_assert_mem_eq(mem[k][0], want[0], sizeof(want[0]));
		ck_assert_mem_eq(mem[k][1], want[1], sizeof(want[1]));
	}
	for (k = 0; k < 2; k++)
		for (i = 0; i < 32; i++)
			ck_assert_uint_eq(out[k][i], 2 * want[0][i]);
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/*
 * multimem after bar.sync, the warp code's resume point: ld_reduce of a
 * 16-byte vector a thread, a st of it permuted (the sum of two elements
 * first, so that every element read shows) and a red of a u32, at
 * element @swap ^ i for thread i of the grid (0: each group's elements
 * follow each other; 1: lanes swapped in pairs).  The index is computed
 * before the barrier, so the lanes take it from the threads' registers.
 * No plain global access: its first one would send a group to the
 * per-thread code (jit_translate.c's ranges).
 */
static const char mm_after_bar_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry mm_after_bar(.param .u64 pad, .param .u64 vec,\n"
	"	.param .u32 swap)\n{\n"
	"	.reg .b32 %r<8>;\n	.reg .b64 %rd<10>;\n	.reg .f32 %f<6>;\n"
	"	ld.param.u64 %rd1, [pad];\n	ld.param.u64 %rd2, [vec];\n"
	"	ld.param.u32 %r1, [swap];\n"
	"	mov.u32 %r2, %tid.x;\n	mov.u32 %r3, %ctaid.x;\n"
	"	mov.u32 %r4, %ntid.x;\n	mad.lo.s32 %r5, %r3, %r4, %r2;\n"
	"	bar.sync 0;\n"
	"	xor.b32 %r6, %r5, %r1;\n	mul.wide.u32 %rd4, %r6, 16;\n"
	"	add.s64 %rd5, %rd2, %rd4;\n"
	"	multimem.ld_reduce.relaxed.sys.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd5];\n"
	"	add.f32 %f5, %f1, %f4;\n"
	"	multimem.st.relaxed.sys.global.v4.f32 [%rd5], {%f5, %f3, %f2, %f1};\n"
	"	mul.wide.u32 %rd8, %r6, 4;\n	add.s64 %rd9, %rd1, %rd8;\n"
	"	add.u32 %r7, %r5, 1;\n"
	"	multimem.red.relaxed.sys.global.add.u32 [%rd9], %r7;\n"
	"	ret;\n}\n";

enum {
	MM_BLOCK = 64, MM_GRID = 2, MM_THREADS = MM_BLOCK * MM_GRID,
	MM_PAD = MM_THREADS,			/* a u32 a thread */
	MM_WORDS = MM_PAD + 4 * MM_THREADS,	/* then a vector a thread */
};

/* One launch of mm_after_bar: the members after it, how it ended. */
struct mm_after_bar {
	uint32_t m[2][MM_WORDS];
	struct fake_mc mc;
	struct cumc_ptx_fault fault;
	enum cumc_ptx_status st;
};

/* mm_after_bar on @grid blocks, the multicast range @len bytes long. */
static void mm_after_bar_run(const struct cumc_ptx_function *f,
			     struct mm_after_bar *r, uint32_t swap, size_t len,
			     unsigned int grid)
{
	const uint64_t base = 0x7f0000000000ull;
	struct buffers bufs = { 0 };
	struct cumc_ptx_multicast cb = { fake_access, fake_release, &r->mc };
	struct cumc_ptx_memory mem = { check_mem, &bufs };
	struct { uint64_t pad, vec; uint32_t swap; }
		__attribute__((aligned(8))) p = { base, base + MM_PAD * 4, swap };
	struct cumc_ptx_launch l = {
		.grid = { grid, 1, 1 }, .block = { MM_BLOCK, 1, 1 },
		.params = &p, .memory = &mem, .multicast = &cb,
	};
	unsigned int i;
	float v;

	memset(r, 0, sizeof(*r));
	for (i = MM_PAD; i < MM_WORDS; i++) {
		v = i;
		memcpy(&r->m[0][i], &v, 4);
		v = 0.5f * i;
		memcpy(&r->m[1][i], &v, 4);
	}
	r->mc = (struct fake_mc){ .base = base, .len = len,
		.m = { (unsigned char *)r->m[0], (unsigned char *)r->m[1] } };
	r->st = cumc_ptx_launch(f, &l, &r->fault);
	ck_assert_uint_eq(r->mc.released, r->mc.held);
}

/*
 * Compiled, each warp of 32 threads goes on from bar.sync as warp code,
 * which makes each multimem of its consecutive elements one call of the
 * multicast path; interpreted, one call a thread: the same results, bit
 * for bit.  Lanes swapped in pairs go thread by thread, a call each; a
 * range ending at the middle lane of a group faults at that lane's
 * address, as interpreted.
 */
START_TEST(test_multimem_warp)
{
	static struct mm_after_bar r[2];
	struct cumc_ptx_module *m[2];
	const struct cumc_ptx_function *f[2];
	unsigned int i, e, k;
	float sum[4], got[4];

	load_both_ways(mm_after_bar_ptx, "mm_after_bar", m, f);
	for (k = 0; k < 2; k++) {
		mm_after_bar_run(f[k], &r[k], 0, MM_WORDS * 4, MM_GRID);
		ck_assert_int_eq(r[k].st, CUMC_PTX_OK);
	}
	ck_assert_uint_eq(r[0].mc.calls, 3 * MM_THREADS / 32);
	ck_assert_uint_eq(r[1].mc.calls, 3 * MM_THREADS);
	ck_assert_uint_eq(r[0].mc.elements, 9 * MM_THREADS);
	ck_assert_uint_eq(r[1].mc.elements, 9 * MM_THREADS);
	ck_assert_mem_eq(r[0].m, r[1].m, sizeof(r[0].m));
	for (i = 0; i < MM_THREADS; i++) {
		ck_assert_uint_eq(r[0].m[0][i], i + 1);
		for (e = 0; e < 4; e++)
			sum[e] = 1.5f * (MM_PAD + 4 * i + e);
		memcpy(got, &r[0].m[1][MM_PAD + 4 * i], sizeof(got));
		ck_assert_float_eq(got[0], sum[0] + sum[3]);
		ck_assert_float_eq(got[1], sum[2]);
		ck_assert_float_eq(got[2], sum[1]);
		ck_assert_float_eq(got[3], sum[0]);
	}

	for (k = 0; k < 2; k++) {
		mm_after_bar_run(f[k], &r[k], 1, MM_WORDS * 4, MM_GRID);
		ck_assert_int_eq(r[k].st, CUMC_PTX_OK);
		ck_assert_uint_eq(r[k].mc.calls, 3 * MM_THREADS);
	}
	ck_assert_mem_eq(r[0].m, r[1].m, sizeof(r[0].m));
	ck_assert_uint_eq(r[0].m[1][0], 2);

	for (k = 0; k < 2; k++) {
		mm_after_bar_run(f[k], &r[k], 0, (MM_PAD + 4 * 24) * 4, 1);
		ck_assert_int_eq(r[k].st, CUMC_PTX_EFAULT);
		ck_assert_uint_eq(r[k].fault.addr, r[k].mc.base +
				  (MM_PAD + 4 * 24) * 4);
		ck_assert_uint_eq(r[k].fault.thread[0], 24);
	}
	ck_assert_uint_eq(r[0].fault.line, r[1].fault.line);
	ck_assert_mem_eq(r[0].m, r[1].m, sizeof(r[0].m));
	cumc_ptx_unload(m[0]);
	cumc_ptx_unload(m[1]);
}
END_TEST

/* Forms cumc does not run fail the load, naming the instruction; other
 * forms of the ISA load. */
START_TEST(test_multimem_unsupported)
{
	static const char *const bad[] = {
		"multimem.red.relaxed.sys.global.min.f32 [%rd1], %f1;",
		"multimem.ld_reduce.relaxed.sys.global.add.v8.f16x2 {%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1];",
		"multimem.ld_reduce.relaxed.sys.shared.add.f32 %f1, [%rd1];",
		"multimem.st.relaxed.sys.global.add.f32 [%rd1], %f1;",
		"multimem.ld_reduce.relaxed.sys.global.min.f32 %f1, [%rd1];",
	};
	char ptx[1024], log[256];
	struct cumc_ptx_module *m;
	unsigned int i;

	static const char *const good[] = {
		"multimem.ld_reduce.acquire.cluster.global.max.v2.bf16x2 {%r1,%r2}, [%rd1];",
		"multimem.red.release.gpu.global.add.v4.f32 [%rd1], {%f1,%f2,%f1,%f2};",
		"multimem.ld_reduce.weak.global.xor.b64 %rd2, [%rd1];",
		"multimem.st.relaxed.sys.v2.f16x2 [%rd1], {%r1,%r2};",
	};

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(ptx, sizeof(ptx),
			 ".version 8.0\n.target sm_90\n.address_size 64\n"
			 ".visible .entry k()\n{\n.reg .f32 %%f<3>;\n"
			 ".reg .b32 %%r<9>;\n.reg .b64 %%rd<3>;\n%s\nret;\n}\n",
			 good[i]);
		m = NULL;
		ck_assert_msg(cumc_ptx_load(ptx, 0, 90, &m, log, sizeof(log)) ==
			      CUMC_PTX_OK, "%s: %s", good[i], log);
		cumc_ptx_unload(m);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(ptx, sizeof(ptx),
			 ".version 8.0\n.target sm_90\n.address_size 64\n"
			 ".visible .entry k()\n{\n.reg .f32 %%f<3>;\n"
			 ".reg .b32 %%r<9>;\n.reg .b64 %%rd<3>;\n%s\nret;\n}\n",
			 bad[i]);
		m = NULL;
		ck_assert_int_ne(cumc_ptx_load(ptx, 0, 90, &m, log, sizeof(log)),
				 CUMC_PTX_OK);
		ck_assert_msg(strstr(log, "multimem"), "%s", log);
	}
}
END_TEST

static Suite *ptx_suite(void)
{
	Suite *s = suite_create("ptx");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_vecadd_layout);
	tcase_add_test(tc, test_barrier_bad_forms);
	tcase_add_test(tc, test_barrier_traps);
	tcase_add_test(tc, test_vecadd_ptx);
	tcase_add_test(tc, test_vecadd_fatbin);
	tcase_add_test(tc, test_fatbin_wrapper);
	tcase_add_test(tc, test_bad_images);
	tcase_add_test(tc, test_unsupported);
	tcase_add_test(tc, test_reduce);
	tcase_add_test(tc, test_spin_progress);
	tcase_add_test(tc, test_poll_cost);
	tcase_add_test(tc, test_convert);
	tcase_add_test(tc, test_half);
	tcase_add_test(tc, test_half_unsupported);
	tcase_add_test(tc, test_globals);
	tcase_add_test(tc, test_fault);
	tcase_add_test(tc, test_launch_errors);
	tcase_add_test(tc, test_jit_matches_interpreter);
	tcase_add_test(tc, test_jit_fma_without_fma);
	tcase_add_test(tc, test_jit_join_forms);
	tcase_add_test(tc, test_jit_warp_interpreted);
	tcase_add_test(tc, test_jit_warp_lanes);
	tcase_add_test(tc, test_jit_lane_forms);
	tcase_add_test(tc, test_jit_setp_forms);
	tcase_add_test(tc, test_jit_warp_slice);
	tcase_add_test(tc, test_jit_warp_atomics);
	tcase_add_test(tc, test_jit_cache);
	tcase_add_test(tc, test_jit_cache_damaged);
	tcase_add_test(tc, test_jit_cache_compiled_once);
	tcase_add_test(tc, test_jit_code_placed_anywhere);
	tcase_add_test(tc, test_warp_ops);
	tcase_add_test(tc, test_warp_sync);
	tcase_add_test(tc, test_warp_deadlock);
	tcase_add_test(tc, test_calls);
	tcase_add_test(tc, test_call_extern);
	tcase_add_test(tc, test_inline_forms);
	tcase_add_test(tc, test_indirect_calls);
	tcase_add_test(tc, test_indirect_refused);
	tcase_add_test(tc, test_relocatable_code);
	tcase_add_test(tc, test_assertfail);
	tcase_add_test(tc, test_vector_untorn);
	tcase_add_test(tc, test_link_inputs);
	tcase_add_test(tc, test_link_shared);
	tcase_add_test(tc, test_link_private);
	tcase_add_test(tc, test_link_weak);
	tcase_add_test(tc, test_link_visible_twice);
	tcase_add_test(tc, test_link_private_unreachable);
	tcase_add_test(tc, test_multimem);
	tcase_add_test(tc, test_multimem_warp);
	tcase_add_test(tc, test_multimem_kept_order);
	tcase_add_test(tc, test_worker_mem_kept);
	tcase_add_test(tc, test_multicast_plain_store);
	tcase_add_test(tc, test_multimem_unsupported);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ptx_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
