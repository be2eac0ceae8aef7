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

/* The kernels of a module, in the order of its PTX. */
START_TEST(functions_are_enumerated)
{
	CUfunction fs[8] = { NULL }, f;
	unsigned int n = 0;
	CUmodule mod;

	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/kernels.ptx"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunctionCount(&n, mod), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(cuModuleEnumerateFunctions(fs, 2, mod), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fs[1]);
	ck_assert_ptr_null(fs[2]);
	ck_assert_int_eq(cuModuleEnumerateFunctions(fs, 8, mod), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(fs[3]);
	ck_assert_ptr_null(fs[4]);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "spin"), CUDA_SUCCESS);
	ck_assert(f == fs[0] || f == fs[1] || f == fs[2] || f == fs[3]);
	ck_assert_int_eq(cuModuleEnumerateFunctions(fs, 0, mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunctionCount(NULL, mod),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleEnumerateFunctions(NULL, 1, mod),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleGetFunctionCount(&n, (CUmodule)fs),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunctionCount(&n, mod),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleEnumerateFunctions(fs, 8, mod),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* More than 48 KiB of dynamic shared memory once the function opts in. */
START_TEST(shared_memory_opt_in)
{
	CUdeviceptr d;
	int n = 64, v = 0;
	void *args[] = { &d, &d, &d, &n };
	CUmodule mod;
	CUfunction f = vecadd(&mod);
	const CUfunction_attribute dyn =
		CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;

	ck_assert_int_eq(cuMemAlloc(&d, n * sizeof(float)), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 100 << 10, NULL,
					args, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncGetAttribute(&v, dyn, f), CUDA_SUCCESS);
	ck_assert_int_eq(v, 48 << 10);
	ck_assert_int_eq(cuFuncSetAttribute(f, dyn, 100 << 10), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncGetAttribute(&v, dyn, f), CUDA_SUCCESS);
	ck_assert_int_eq(v, 100 << 10);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 100 << 10, NULL,
					args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, (100 << 10) + 1,
					NULL, args, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	/* The opt-in maximum of an H100 is 227 KiB. */
	ck_assert_int_eq(cuFuncSetAttribute(f, dyn, 227 << 10), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetAttribute(f, dyn, (227 << 10) + 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetAttribute(f, dyn, -1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncGetAttribute(&v, dyn, f), CUDA_SUCCESS);
	ck_assert_int_eq(v, 227 << 10);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

START_TEST(function_settings)
{
	const CUfunction_attribute carve =
		CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
	CUmodule mod;
	CUfunction f = vecadd(&mod);
	int v = 0;

	ck_assert_int_eq(cuFuncGetAttribute(&v, carve, f), CUDA_SUCCESS);
	ck_assert_int_eq(v, CU_SHAREDMEM_CARVEOUT_DEFAULT);
	ck_assert_int_eq(cuFuncSetAttribute(f, carve, 50), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncGetAttribute(&v, carve, f), CUDA_SUCCESS);
	ck_assert_int_eq(v, 50);
	ck_assert_int_eq(cuFuncSetAttribute(f, carve, 101),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetAttribute(f, carve, -2),
			 CUDA_ERROR_INVALID_VALUE);
	/* Read-only attributes are bad values to set. */
	ck_assert_int_eq(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, 8),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX, 8),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetAttribute(f,
			CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, 2),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuFuncSetAttribute(NULL, carve, 50),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuFuncSetCacheConfig(f, CU_FUNC_CACHE_PREFER_SHARED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetCacheConfig(f, (CUfunc_cache)4),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetCacheConfig(NULL, CU_FUNC_CACHE_PREFER_L1),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetAttribute(f, carve, 50),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* A library: its kernels, its module and its functions, one code. */
START_TEST(library_kernels_run)
{
	CUlibrary lib, lib2;
	CUkernel k, ks[3] = { NULL };
	CUfunction f;
	CUmodule mod;
	CUdeviceptr d;
	unsigned int n = 0;
	int len = 32, i;
	float in[32], out[32];
	void *args[] = { &d, &d, &d, &len };

	for (i = 0; i < 32; i++)
		in[i] = i;
	ck_assert_int_eq(cuLibraryLoadFromFile(&lib, DATA "/vecadd.ptx", NULL,
					       NULL, 0, NULL, NULL, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetKernel(&k, lib, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetKernel(&k, lib, "nope"), CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(cuLibraryGetKernel(NULL, lib, "vecAdd"),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryGetKernelCount(&n, lib), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(cuLibraryEnumerateKernels(ks, 3, lib), CUDA_SUCCESS);
	ck_assert_ptr_eq(ks[0], k);
	ck_assert_ptr_null(ks[1]);
	ck_assert_int_eq(cuLibraryGetKernelCount(NULL, lib), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryEnumerateKernels(NULL, 1, lib),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuKernelGetFunction(&f, k), CUDA_SUCCESS);
	ck_assert_int_eq(cuKernelGetFunction(NULL, k), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryGetModule(&mod, lib), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetModule(NULL, lib), CUDA_ERROR_INVALID_VALUE);
	/* The module's function is the kernel's. */
	ck_assert_int_eq(cuModuleGetFunctionCount(&n, mod), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	/* A library's module goes with the library only. */
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);
	/* A module is no library, a function no kernel. */
	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/vecadd.ptx"), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetKernelCount(&n, (CUlibrary)mod),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuKernelGetFunction(&f, (CUkernel)f),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryUnload((CUlibrary)mod), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);

	ck_assert_int_eq(cuKernelGetFunction(&f, k), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(d, in, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, d, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < 32; i++)
		ck_assert_float_eq(out[i], 2.0f * i);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);

	/* Libraries load without a context; their modules need one. */
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryLoadFromFile(&lib2, DATA "/vecadd.fatbin", NULL,
					       NULL, 0, NULL, NULL, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetModule(&mod, lib2), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuLibraryUnload(lib2), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryUnload(lib), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryUnload(lib), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryGetModule(&mod, lib), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuKernelGetFunction(&f, k), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryGetKernel(&k, lib, "vecAdd"),
			 CUDA_ERROR_INVALID_HANDLE);
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
	tcase_add_test(tc, functions_are_enumerated);
	tcase_add_test(tc, shared_memory_opt_in);
	tcase_add_test(tc, function_settings);
	tcase_add_test(tc, library_kernels_run);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
