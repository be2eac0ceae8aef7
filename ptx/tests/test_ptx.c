// SPDX-License-Identifier: MIT
/*
 * libcumc-ptx on the host, no device: loading (PTX, fatbins compressed
 * or not, SASS-only and bad images), the parser's errors, and kernels
 * nvcc 13 built (ptx/tests/data) run on buffers of this process.
 */
#include <check.h>
#include <fenv.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumc_ptx.h"

#ifndef PTX_TEST_DATA
#define PTX_TEST_DATA "ptx/tests/data"
#endif

static char *slurp(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", PTX_TEST_DATA, name);
	f = fopen(path, "rb");
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
				       "\tadd.f16 %h1, %h2, %h3;\n}\n", 0, 90,
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
				       sizeof(log)), CUMC_PTX_EUNSUPPORTED);
	ck_assert_ptr_nonnull(strstr(log, "line 12"));
	ck_assert_ptr_nonnull(strstr(log, "vprintf"));
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

/* A multicast range of two members, f32 add and u32 add only. */
struct fake_mc {
	uint64_t base;
	size_t len;
	unsigned char *m[2];
	unsigned int calls;
};

static bool fake_access(void *arg, enum cumc_ptx_mm_kind kind, uint64_t addr,
			void *buf, size_t count, enum cumc_ptx_mm_type type,
			enum cumc_ptx_mm_op op)
{
	struct fake_mc *mc = arg;
	size_t off = addr - mc->base, i;
	unsigned int k;

	if (addr < mc->base || off + count * 4 > mc->len || op != CUMC_PTX_MM_ADD ||
	    (type != CUMC_PTX_MM_F32 && type != CUMC_PTX_MM_U32))
		return false;
	__atomic_fetch_add(&mc->calls, 1, __ATOMIC_RELAXED);
	for (i = 0; i < count; i++) {
		float f0, f1, f;
		uint32_t u;

		switch (kind) {
		case CUMC_PTX_MM_LD_REDUCE:
			memcpy(&f0, mc->m[0] + off + 4 * i, 4);
			memcpy(&f1, mc->m[1] + off + 4 * i, 4);
			f = f0 + f1;
			memcpy((char *)buf + 4 * i, &f, 4);
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

/* multimem reaches the launch's multicast path; without one it faults. */
START_TEST(test_multimem)
{
	struct cumc_ptx_module *m = load_file("multimem.ptx");
	const struct cumc_ptx_function *f = cumc_ptx_function_find(m, "allreduce_f32");
	const struct cumc_ptx_function *sig = cumc_ptx_function_find(m, "signal");
	float m0[64], m1[64];
	struct fake_mc mc = { 0x7f0000000000ull, sizeof(m0),
			      { (unsigned char *)m0, (unsigned char *)m1 }, 0 };
	struct cumc_ptx_multicast cb = { fake_access, &mc };
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
	ck_assert_uint_eq(mc.calls, 128);

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
	p.mc = mc.base;
	l.multicast = NULL;
	ck_assert_int_eq(cumc_ptx_launch(f, &l, &fault), CUMC_PTX_EFAULT);
	cumc_ptx_unload(m);
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
	tcase_add_test(tc, test_vecadd_ptx);
	tcase_add_test(tc, test_vecadd_fatbin);
	tcase_add_test(tc, test_fatbin_wrapper);
	tcase_add_test(tc, test_bad_images);
	tcase_add_test(tc, test_unsupported);
	tcase_add_test(tc, test_reduce);
	tcase_add_test(tc, test_spin_progress);
	tcase_add_test(tc, test_convert);
	tcase_add_test(tc, test_globals);
	tcase_add_test(tc, test_fault);
	tcase_add_test(tc, test_launch_errors);
	tcase_add_test(tc, test_warp_ops);
	tcase_add_test(tc, test_warp_sync);
	tcase_add_test(tc, test_warp_deadlock);
	tcase_add_test(tc, test_calls);
	tcase_add_test(tc, test_call_extern);
	tcase_add_test(tc, test_multimem);
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
