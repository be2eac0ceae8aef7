// SPDX-License-Identifier: MIT
/*
 * Device code through the driver API, as a vectorAdd program runs it:
 * cuModuleLoad of nvcc's PTX (ptx/tests/data), cuModuleGetFunction,
 * cuLaunchKernel on a stream over cuMemAlloc memory, results checked;
 * then the errors: a bad launch, a fault that leaves the context failed,
 * an image with SASS only.
 */
#include <check.h>
#include <cuda.h>
#include <stdlib.h>

#include "check_run.h"
#include "vmm.h"

#define DATA PTX_TEST_DATA

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

static CUfunction vecadd(CUmodule *mod)
{
	CUfunction f;

	ck_assert_int_eq(cuModuleLoad(mod, DATA "/vecadd.ptx"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, *mod, "vecAdd"), CUDA_SUCCESS);
	return f;
}

START_TEST(vector_add_runs)
{
	enum { N = 5000 };
	size_t size = N * sizeof(float);
	float *a = malloc(size), *b = malloc(size), *c = malloc(size);
	CUdeviceptr da, db, dc;
	CUmodule mod;
	CUfunction f = vecadd(&mod), g;
	CUstream s;
	int n = N, i, v;
	void *args[] = { &da, &db, &dc, &n };

	ck_assert(a && b && c);
	for (i = 0; i < N; i++) {
		a[i] = i * 0.25f;
		b[i] = 3 - i;
	}
	ck_assert_int_eq(cuModuleGetFunction(&g, mod, "nope"), CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_PTX_VERSION, f),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 90);
	ck_assert_int_eq(cuMemAlloc(&da, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&db, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dc, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(da, a, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(db, b, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s,
					args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoHAsync(c, dc, size, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(c[i], a[i] + b[i]);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(da), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(db), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dc), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, NULL, args, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	free(a);
	free(b);
	free(c);
}
END_TEST

/* The parameters as one buffer, through extra. */
START_TEST(extra_parameter_buffer)
{
	struct { CUdeviceptr a, b, c; int n; } p;
	size_t psize = sizeof(p);
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, &p,
			  CU_LAUNCH_PARAM_BUFFER_SIZE, &psize, CU_LAUNCH_PARAM_END };
	float in[64], out[64];
	CUmodule mod;
	CUfunction f = vecadd(&mod);
	int i;

	for (i = 0; i < 64; i++)
		in[i] = i;
	ck_assert_int_eq(cuMemAlloc(&p.a, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&p.c, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(p.a, in, sizeof(in)), CUDA_SUCCESS);
	p.b = p.a;
	p.n = 64;
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, NULL, NULL, extra),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, p.c, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < 64; i++)
		ck_assert_float_eq(out[i], 2.0f * i);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

START_TEST(bad_launches_are_refused)
{
	CUdeviceptr d = 0;
	int n = 0;
	void *args[] = { &d, &d, &d, &n };
	CUmodule mod;
	CUfunction f = vecadd(&mod);

	ck_assert_int_eq(cuLaunchKernel(f, 0, 1, 1, 32, 1, 1, 0, NULL, args, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, NULL, args, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 64 << 10, NULL, args,
					NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

/* A fault is reported at the next synchronization, and stays. */
START_TEST(fault_fails_the_context)
{
	CUdeviceptr good, bad = 0x10;
	int n = 32;
	void *args[] = { &good, &good, &bad, &n };
	CUmodule mod;
	CUfunction f = vecadd(&mod);

	ck_assert_int_eq(cuMemAlloc(&good, 128), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL),
			 CUDA_ERROR_ILLEGAL_ADDRESS);
}
END_TEST

START_TEST(sass_only_has_no_binary)
{
	CUmodule mod;

	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/vecadd_sass.fatbin"),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/vecadd.fatbin"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("module");
	TCase *tc = tcase_create("kernels");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, vector_add_runs);
	tcase_add_test(tc, extra_parameter_buffer);
	tcase_add_test(tc, bad_launches_are_refused);
	tcase_add_test(tc, fault_fails_the_context);
	tcase_add_test(tc, sass_only_has_no_binary);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
