// SPDX-License-Identifier: MIT
/*
 * Device code through the driver API, as a vectorAdd program runs it:
 * cuModuleLoad of nvcc's PTX (ptx/tests/data), cuModuleGetFunction,
 * cuLaunchKernel on a stream over cuMemAlloc memory, results checked;
 * then the errors: a bad launch, a fault that leaves the context failed,
 * an image with SASS only; and module variables written and read from
 * the host as cudaMemcpyToSymbol does.
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
	/* What cudaFuncGetAttributes asks: 0 here, as driver 580 answers. */
	for (i = CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES;
	     i <= CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE; i++) {
		if (i == CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES ||
		    i == CU_FUNC_ATTRIBUTE_CACHE_MODE_CA ||
		    i >= CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET) {
			v = -1;
			ck_assert_int_eq(cuFuncGetAttribute(&v, i, f), CUDA_SUCCESS);
			ck_assert_int_eq(v, 0);
		}
	}
	ck_assert_int_eq(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX + 0, f),
			 CUDA_ERROR_INVALID_VALUE);
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

/* The pre-4.0 launch: shape, shared size and parameters kept, then run. */
START_TEST(legacy_launch_runs)
{
	enum { N = 300 };
	float a[N], b[N], c[N];
	size_t size = sizeof(a);
	CUdeviceptr da, db, dc;
	CUmodule mod;
	CUfunction f = vecadd(&mod);
	CUstream s;
	int i;

	for (i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	ck_assert_int_eq(cuMemAlloc(&da, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&db, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dc, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(da, a, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(db, b, size), CUDA_SUCCESS);
	/* No block shape yet: nothing to launch. */
	ck_assert_int_eq(cuLaunch(f), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetBlockShape(f, 128, 1, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetSharedSize(f, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuParamSetv(f, 0, &da, sizeof(da)), CUDA_SUCCESS);
	ck_assert_int_eq(cuParamSetv(f, 8, &db, sizeof(db)), CUDA_SUCCESS);
	ck_assert_int_eq(cuParamSetv(f, 16, &dc, sizeof(dc)), CUDA_SUCCESS);
	ck_assert_int_eq(cuParamSeti(f, 24, N), CUDA_SUCCESS);
	ck_assert_int_eq(cuParamSetSize(f, 32), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchGrid(f, (N + 127) / 128, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(c, dc, size), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(c[i], a[i] + b[i]);
	/* Again, asynchronously, on a stream of its own. */
	ck_assert_int_eq(cuMemsetD8(dc, 0, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchGridAsync(f, (N + 127) / 128, 1, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(c, dc, size), CUDA_SUCCESS);
	ck_assert_float_eq(c[N - 1], a[N - 1] + b[N - 1]);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);

	/* Too small a parameter buffer, and bad settings. */
	ck_assert_int_eq(cuParamSetSize(f, 8), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunch(f), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuParamSetSize(f, 4097), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuParamSeti(f, 4094, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuParamSeti(f, -1, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuParamSetv(f, 0, NULL, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuParamSetf(f, 0, 1.5f), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetBlockShape(f, 0, 1, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchGrid(f, 0, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncSetSharedMemConfig(f,
			 CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetSharedMemConfig(f, 3), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(da), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(db), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dc), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncSetBlockShape(f, 1, 1, 1), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLaunch(f), CUDA_ERROR_INVALID_HANDLE);
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

/* Names, parameters and owners (lib/function_info.c). */
START_TEST(functions_describe_themselves)
{
	CUfunctionLoadingState state = CU_FUNCTION_LOADING_STATE_MAX;
	CUmoduleLoadingMode mode = 0;
	size_t offset = 99, size = 99;
	const char *name = NULL;
	CUlibrary lib, owner = NULL;
	CUmodule mod, fmod = NULL;
	CUfunction f = vecadd(&mod);
	CUkernel k;

	ck_assert_int_eq(cuFuncGetName(&name, f), CUDA_SUCCESS);
	ck_assert_str_eq(name, "vecAdd");
	ck_assert_int_eq(cuFuncGetParamInfo(f, 2, &offset, &size), CUDA_SUCCESS);
	ck_assert_uint_eq(offset, 16);
	ck_assert_uint_eq(size, 8);
	ck_assert_int_eq(cuFuncGetParamInfo(f, 3, &offset, NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(offset, 24);
	ck_assert_int_eq(cuFuncGetParamInfo(f, 4, &offset, &size),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncGetParamInfo(f, 0, NULL, &size),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncGetModule(&fmod, f), CUDA_SUCCESS);
	ck_assert_ptr_eq(fmod, mod);
	ck_assert_int_eq(cuFuncIsLoaded(&state, f), CUDA_SUCCESS);
	ck_assert_int_eq(state, CU_FUNCTION_LOADING_STATE_LOADED);
	ck_assert_int_eq(cuFuncLoad(f), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetLoadingMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(mode, CU_MODULE_EAGER_LOADING);
	ck_assert_int_eq(cuFuncGetName(NULL, f), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncIsLoaded(NULL, f), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleGetLoadingMode(NULL), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuLibraryLoadFromFile(&lib, DATA "/vecadd.ptx", NULL,
					       NULL, 0, NULL, NULL, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetKernel(&k, lib, "vecAdd"), CUDA_SUCCESS);
	name = NULL;
	ck_assert_int_eq(cuKernelGetName(&name, k), CUDA_SUCCESS);
	ck_assert_str_eq(name, "vecAdd");
	ck_assert_int_eq(cuKernelGetParamInfo(k, 1, &offset, &size), CUDA_SUCCESS);
	ck_assert_uint_eq(offset, 8);
	ck_assert_uint_eq(size, 8);
	ck_assert_int_eq(cuKernelGetLibrary(&owner, k), CUDA_SUCCESS);
	ck_assert_ptr_eq(owner, lib);
	ck_assert_int_eq(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuKernelSetCacheConfig(k, 9, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuKernelSetCacheConfig(k, CU_FUNC_CACHE_PREFER_L1,
						vmm_device_count()),
			 CUDA_ERROR_INVALID_DEVICE);
	{
		CUdeviceptr managed = 0;
		void *unified = NULL;

		ck_assert_int_eq(cuLibraryGetManaged(&managed, NULL, lib, "vecAdd"),
				 CUDA_ERROR_NOT_FOUND);
		ck_assert_int_eq(cuLibraryGetManaged(&managed, NULL, lib, NULL),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuLibraryGetUnifiedFunction(&unified, lib, "vecAdd"),
				 CUDA_ERROR_NOT_FOUND);
		ck_assert_int_eq(cuLibraryGetUnifiedFunction(NULL, lib, "vecAdd"),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuLibraryGetUnifiedFunction(&unified,
				 (CUlibrary)mod, "vecAdd"), CUDA_ERROR_INVALID_HANDLE);
	}
	ck_assert_int_eq(cuLibraryUnload(lib), CUDA_SUCCESS);
	ck_assert_int_eq(cuKernelGetName(&name, k), CUDA_ERROR_INVALID_HANDLE);

	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	/* Gone with its module: refused, not a crash. */
	ck_assert_int_eq(cuFuncGetName(&name, f), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuFuncGetModule(&fmod, f), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuFuncLoad(f), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuFuncGetName(&name, (CUfunction)&name),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* What cumc does not launch answers NOT_SUPPORTED, after the checks. */
START_TEST(clusters_and_multi_device_launches)
{
	CUlaunchConfig config = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1,
				  .blockDimX = 32, .blockDimY = 1,
				  .blockDimZ = 1 };
	CUDA_LAUNCH_PARAMS params = { .gridDimX = 1 };
	CUmodule mod;
	CUfunction f = vecadd(&mod);
	int n = -1;

	ck_assert_int_eq(cuOccupancyMaxActiveClusters(&n, f, &config),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuOccupancyMaxPotentialClusterSize(&n, f, &config),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuOccupancyMaxActiveClusters(NULL, f, &config),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxPotentialClusterSize(&n, f, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxActiveClusters(&n, (CUfunction)&n, &config),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(n, -1);
	params.function = f;
	ck_assert_int_eq(cuLaunchCooperativeKernelMultiDevice(&params, 1, 0),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuLaunchCooperativeKernelMultiDevice(NULL, 1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchCooperativeKernelMultiDevice(&params, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
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

	/* A kernel's attributes are its function's, on every device. */
	ck_assert_int_eq(cuKernelSetAttribute(
			 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 60 << 10,
			 k, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuFuncGetAttribute(&i,
			 CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f),
			 CUDA_SUCCESS);
	ck_assert_int_eq(i, 60 << 10);
	ck_assert_int_eq(cuKernelGetAttribute(&i,
			 CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k, 0), CUDA_SUCCESS);
	ck_assert_int_eq(i, 1024);
	ck_assert_int_eq(cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS, 1, k, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuKernelGetAttribute(NULL,
			 CU_FUNC_ATTRIBUTE_NUM_REGS, k, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuKernelGetAttribute(&i,
			 CU_FUNC_ATTRIBUTE_NUM_REGS, k, 4096), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuKernelGetAttribute(&i,
			 CU_FUNC_ATTRIBUTE_NUM_REGS, (CUkernel)&i, 0),
			 CUDA_ERROR_INVALID_HANDLE);

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

static size_t hundred_per_thread(int block_size)
{
	return 100 * (size_t)block_size;
}

/* The rule of occupancy.c: 16 resident, 2048 threads, 228 KiB an SM. */
START_TEST(occupancy_answers)
{
	CUmodule mod;
	CUfunction f = vecadd(&mod);
	const CUfunction_attribute dyn =
		CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
	int n = -1, grid = -1, block = -1;
	size_t avail = 1;

	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 256, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 1024, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 32, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(n, 16);
	/* 1 KiB reserved and 40 KiB: five blocks in 228 KiB. */
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f,
			 32, 40 << 10, CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE),
			 CUDA_SUCCESS);
	ck_assert_int_eq(n, 5);
	/* Blocks that cannot launch: none. */
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 2048, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 32,
			 64 << 10), CUDA_SUCCESS);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(NULL, f, 32, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, f,
			 32, 0, 2), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, NULL, 32, 0),
			 CUDA_ERROR_INVALID_HANDLE);

	/* Every size from 128 up fills the SM's 2048 threads: the largest. */
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL,
							  0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(block, 1024);
	ck_assert_int_eq(grid, 2 * 132);
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL,
							  0, 100), CUDA_SUCCESS);
	ck_assert_int_eq(block, 100);
	ck_assert_int_eq(grid, 16 * 132);
	/* 100 bytes a thread: 512 threads need more than 48 KiB. */
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block,
			 f, hundred_per_thread, 0, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(block, 256);
	ck_assert_int_eq(grid, 8 * 132);
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(NULL, &block, f, NULL,
							  0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSizeWithFlags(&grid, &block,
			 f, NULL, 0, 0, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(&grid, &block,
			 (CUfunction)&grid, NULL, 0, 0), CUDA_ERROR_INVALID_HANDLE);

	/* 228 KiB over 4 blocks less 1 KiB each (56 KiB), at most the maximum. */
	ck_assert_int_eq(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 4, 256),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(avail, 48 << 10);
	ck_assert_int_eq(cuFuncSetAttribute(f, dyn, 227 << 10), CUDA_SUCCESS);
	ck_assert_int_eq(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 4, 256),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(avail, 56 << 10);
	ck_assert_int_eq(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 9, 256),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(avail, 0);
	ck_assert_int_eq(cuOccupancyAvailableDynamicSMemPerBlock(NULL, f, 4, 256),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 0, 256),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuOccupancyAvailableDynamicSMemPerBlock(&avail, f, 4, 256),
			 CUDA_ERROR_INVALID_HANDLE);
}
END_TEST

/* Thread 0 of each block arrives, then waits for every block. */
static const char gridbar_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry gridbar(.param .u64 cnt)\n{\n"
	"\t.reg .u64 %rd<2>;\n\t.reg .u32 %r<5>;\n\t.reg .pred %p<3>;\n"
	"\tld.param.u64 %rd1, [cnt];\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tsetp.ne.u32 %p1, %r1, 0;\n"
	"\t@%p1 bra DONE;\n"
	"\tatom.global.add.u32 %r2, [%rd1], 1;\n"
	"\tmov.u32 %r3, %nctaid.x;\n"
	"WAIT:\n"
	"\tld.volatile.global.u32 %r4, [%rd1];\n"
	"\tsetp.lt.u32 %p2, %r4, %r3;\n"
	"\t@%p2 bra WAIT;\n"
	"DONE:\n\tret;\n}\n";

/*
 * A cooperative grid is resident at once, whatever the host's cores: a
 * grid-wide barrier completes.  One larger than the occupancy answer on
 * every SM is refused.
 */
START_TEST(cooperative_grids_are_resident)
{
	CUmodule mod, bar;
	CUfunction f = vecadd(&mod), g;
	CUdeviceptr d, cnt;
	int n = 0;
	unsigned int arrived = 0;
	void *args[] = { &d, &d, &d, &n }, *bargs[] = { &cnt };

	ck_assert_int_eq(cuMemAlloc(&d, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchCooperativeKernel(f, 16 * 132 + 1, 1, 1, 32, 1, 1,
						   0, NULL, args),
			 CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
	ck_assert_int_eq(cuLaunchCooperativeKernel(f, 2 * 132 + 1, 1, 1, 1024, 1, 1,
						   0, NULL, args),
			 CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
	ck_assert_int_eq(cuLaunchCooperativeKernel(f, 1, 1, 1, 32, 1, 1, 64 << 10,
						   NULL, args),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchCooperativeKernel(f, 0, 1, 1, 32, 1, 1, 0, NULL,
						   args), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchCooperativeKernel(NULL, 1, 1, 1, 32, 1, 1, 0, NULL,
						   args), CUDA_ERROR_INVALID_HANDLE);

	ck_assert_int_eq(cuModuleLoadData(&bar, gridbar_ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&g, bar, "gridbar"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&cnt, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(cnt, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchCooperativeKernel(g, 200, 1, 1, 32, 1, 1, 0, NULL,
						   bargs), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(&arrived, cnt, 4), CUDA_SUCCESS);
	ck_assert_uint_eq(arrived, 200);
	ck_assert_int_eq(cuModuleUnload(bar), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

/* A launch config of @attrs over @grid blocks of 32 threads. */
static CUlaunchConfig ex_config(unsigned int grid, CUlaunchAttribute *attrs,
				unsigned int n)
{
	CUlaunchConfig c = { .gridDimX = grid, .gridDimY = 1, .gridDimZ = 1,
			     .blockDimX = 32, .blockDimY = 1, .blockDimZ = 1,
			     .attrs = attrs, .numAttrs = n };

	return c;
}

static CUlaunchAttribute cluster_attr(unsigned int x, unsigned int y,
				      unsigned int z)
{
	CUlaunchAttribute a = { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION };

	a.value.clusterDim.x = x;
	a.value.clusterDim.y = y;
	a.value.clusterDim.z = z;
	return a;
}

/*
 * cuLaunchKernelEx runs the grid as cuLaunchKernel (a CUkernel cast to a
 * CUfunction too), cluster dimensions checked, COOPERATIVE as
 * cuLaunchCooperativeKernel; hints have no effect; the events refused.
 */
START_TEST(launch_kernel_ex_attributes)
{
	enum { N = 64 * 32 };
	float in[N], out[N];
	CUmodule mod, bar;
	CUlibrary lib;
	CUkernel k;
	CUfunction f = vecadd(&mod), g;
	CUdeviceptr d, cnt;
	CUevent ev;
	int n = N, i;
	unsigned int arrived = 0;
	void *args[] = { &d, &d, &d, &n }, *bargs[] = { &cnt };
	CUlaunchAttribute attrs[4] = { cluster_attr(4, 1, 1) }, hint;
	CUlaunchConfig c = ex_config(64, attrs, 1);

	for (i = 0; i < N; i++)
		in[i] = i;
	ck_assert_int_eq(cuMemAlloc(&d, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(d, in, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL), CUDA_SUCCESS);
	/* Hints, one of each, change nothing. */
	memset(&hint, 0, sizeof(hint));
	hint.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
	hint.value.priority = -5;
	attrs[1] = hint;
	hint.id = CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY;
	hint.value.syncPolicy = CU_SYNC_POLICY_SPIN;
	attrs[2] = hint;
	hint.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
	hint.value.programmaticStreamSerializationAllowed = 1;
	attrs[3] = hint;
	c = ex_config(64, attrs, 4);
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, d, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(out[i], 4.0f * i);

	/* Clusters must divide the grid and hold at most 8 blocks. */
	c = ex_config(64, attrs, 1);
	attrs[0] = cluster_attr(3, 1, 1);
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_CLUSTER_SIZE);
	attrs[0] = cluster_attr(16, 1, 1);
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_CLUSTER_SIZE);
	attrs[0] = cluster_attr(2, 0, 1);
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_CLUSTER_SIZE);
	attrs[0] = cluster_attr(8, 1, 1);
	attrs[1] = cluster_attr(12, 1, 1);
	attrs[1].id = CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
	c = ex_config(64, attrs, 2);
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_CLUSTER_SIZE);
	attrs[1].value.preferredClusterDim.x = 16;
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL), CUDA_SUCCESS);

	/* Bad values, unknown attributes, the events: nothing is launched. */
	c = ex_config(64, attrs, 1);
	attrs[0].id = (CUlaunchAttributeID)15;
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	attrs[0].id = CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY;
	attrs[0].value.syncPolicy = (CUsynchronizationPolicy)9;
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING),
			 CUDA_SUCCESS);
	attrs[0].id = CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
	attrs[0].value.launchCompletionEvent.event = ev;
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_NOT_SUPPORTED);
	c.attrs = NULL;
	ck_assert_int_eq(cuLaunchKernelEx(&c, f, args, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, d, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(out[i], 8.0f * i);

	/* COOPERATIVE: co-resident, and refused when too large. */
	ck_assert_int_eq(cuModuleLoadData(&bar, gridbar_ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&g, bar, "gridbar"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&cnt, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(cnt, 0, 1), CUDA_SUCCESS);
	memset(attrs, 0, sizeof(attrs));
	attrs[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
	attrs[0].value.cooperative = 1;
	c = ex_config(16 * 132 + 1, attrs, 1);
	ck_assert_int_eq(cuLaunchKernelEx(&c, g, bargs, NULL),
			 CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
	c = ex_config(200, attrs, 1);
	ck_assert_int_eq(cuLaunchKernelEx(&c, g, bargs, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(&arrived, cnt, 4), CUDA_SUCCESS);
	ck_assert_uint_eq(arrived, 200);

	/* A library's CUkernel, cast, launches as its function. */
	ck_assert_int_eq(cuLibraryLoadFromFile(&lib, DATA "/vecadd.ptx", NULL,
					       NULL, 0, NULL, NULL, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetKernel(&k, lib, "vecAdd"), CUDA_SUCCESS);
	c = ex_config(64, NULL, 0);
	ck_assert_int_eq(cuLaunchKernelEx(&c, (CUfunction)k, args, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, d, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(out[i], 16.0f * i);
	ck_assert_int_eq(cuLibraryUnload(lib), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(cnt), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(bar), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
}
END_TEST

/*
 * A green context's kernels see its SMs: its cooperative grids hold what
 * its 16 SMs run at once, and the occupancy grid counts them.
 */
START_TEST(green_context_narrows_cooperative_grids)
{
	CUdevResource sm, group;
	CUdevResourceDesc desc;
	unsigned int n = 1, arrived = 0;
	CUgreenCtx green;
	CUmodule mod, bar;
	CUfunction f, g;
	CUcontext ctx;
	CUdeviceptr d, cnt;
	int len = 0, grid, block, whole_grid, whole_block;
	void *args[] = { &d, &d, &d, &len }, *bargs[] = { &cnt };

	ck_assert_int_eq(cuDeviceGetDevResource(0, &sm, CU_DEV_RESOURCE_TYPE_SM),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDevSmResourceSplitByCount(&group, &n, &sm, NULL, 0, 16),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuDevResourceGenerateDesc(&desc, &group, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxCreate(&green, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxFromGreenCtx(&ctx, green), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPushCurrent(ctx), CUDA_SUCCESS);
	f = vecadd(&mod);
	ck_assert_int_eq(cuMemAlloc(&d, 4), CUDA_SUCCESS);
	/* 16 blocks of 32 threads an SM, as on the whole device. */
	ck_assert_int_eq(cuLaunchCooperativeKernel(f, 16 * 16 + 1, 1, 1, 32, 1, 1,
						   0, NULL, args),
			 CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE);
	ck_assert_int_eq(cuLaunchCooperativeKernel(f, 16 * 16, 1, 1, 32, 1, 1,
						   0, NULL, args), CUDA_SUCCESS);
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(&grid, &block, f, NULL,
							  0, 1024), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleLoadData(&bar, gridbar_ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&g, bar, "gridbar"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&cnt, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(cnt, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchCooperativeKernel(g, 200, 1, 1, 32, 1, 1, 0, NULL,
						   bargs), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(&arrived, cnt, 4), CUDA_SUCCESS);
	ck_assert_uint_eq(arrived, 200);
	ck_assert_int_eq(cuModuleUnload(bar), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxPopCurrent(NULL), CUDA_SUCCESS);
	/* The same block size, over the device's 132 SMs outside it. */
	f = vecadd(&mod);
	ck_assert_int_eq(cuOccupancyMaxPotentialBlockSize(&whole_grid, &whole_block,
							  f, NULL, 0, 1024),
			 CUDA_SUCCESS);
	ck_assert_int_eq(whole_block, block);
	ck_assert_int_gt(grid, 0);
	ck_assert_int_eq(whole_grid * 16, grid * 132);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuGreenCtxDestroy(green), CUDA_SUCCESS);
}
END_TEST

/*
 * A `.global` and a `.const` table of 16 words: each thread multiplies
 * its word of both into out[], then adds one to its word of table[].
 */
static const char tables_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .global .align 4 .u32 table[16];\n"
	".visible .const .align 4 .u32 coeff[16];\n"
	".visible .entry scale(.param .u64 out)\n{\n"
	"\t.reg .u64 %rd<6>;\n\t.reg .u32 %r<5>;\n"
	"\tmov.u32 %r1, %tid.x;\n"
	"\tmul.wide.u32 %rd1, %r1, 4;\n"
	"\tmov.u64 %rd2, table;\n"
	"\tadd.u64 %rd2, %rd2, %rd1;\n"
	"\tmov.u64 %rd3, coeff;\n"
	"\tadd.u64 %rd3, %rd3, %rd1;\n"
	"\tld.global.u32 %r2, [%rd2];\n"
	"\tld.const.u32 %r3, [%rd3];\n"
	"\tmul.lo.u32 %r4, %r2, %r3;\n"
	"\tadd.u32 %r2, %r2, 1;\n"
	"\tst.global.u32 [%rd2], %r2;\n"
	"\tld.param.u64 %rd4, [out];\n"
	"\tadd.u64 %rd4, %rd4, %rd1;\n"
	"\tst.global.u32 [%rd4], %r4;\n"
	"\tret;\n}\n";

enum { TABLE_WORDS = 16, TABLE_BYTES = TABLE_WORDS * 4 };

static void fill_words(unsigned int *w, unsigned int first, unsigned int step)
{
	int i;

	for (i = 0; i < TABLE_WORDS; i++)
		w[i] = first + i * step;
}

/*
 * cudaMemcpyToSymbol and cudaMemcpyFromSymbol: the copies and sets on a
 * module's variables, within their bounds, in stream order with kernels.
 */
START_TEST(globals_from_the_host)
{
	unsigned int in[TABLE_WORDS], k[TABLE_WORDS], got[TABLE_WORDS];
	unsigned int out[TABLE_WORDS];
	CUdeviceptr table, coeff, dout;
	CUDA_MEMCPY2D rect;
	size_t bytes;
	CUmodule mod;
	CUfunction f;
	CUstream s;
	void *args[] = { &dout };
	int i;

	ck_assert_int_eq(cuModuleLoadData(&mod, tables_ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "scale"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetGlobal(&table, &bytes, mod, "table"),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(bytes, TABLE_BYTES);
	ck_assert_int_eq(cuModuleGetGlobal(&coeff, &bytes, mod, "coeff"),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(bytes, TABLE_BYTES);
	ck_assert_int_eq(cuFuncGetAttribute(&i, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
					    f), CUDA_SUCCESS);
	ck_assert_int_eq(i, TABLE_BYTES);
	ck_assert_int_eq(cuMemAlloc(&dout, TABLE_BYTES), CUDA_SUCCESS);

	fill_words(in, 1, 1);
	fill_words(k, 3, 2);
	ck_assert_int_eq(cuMemcpyHtoD(table, in, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(coeff, k, TABLE_BYTES), CUDA_SUCCESS);
	/* Off the end of a variable: refused, nothing written. */
	fill_words(got, 1000, 0);
	ck_assert_int_eq(cuMemcpyHtoD(table + 4, got, TABLE_BYTES),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoD(coeff, table + 8, TABLE_BYTES),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD32(coeff + 4, 0, TABLE_WORDS),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoH(got, table, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_mem_eq(got, in, TABLE_BYTES);
	ck_assert_int_eq(cuMemcpyDtoH(got, coeff, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_mem_eq(got, k, TABLE_BYTES);
	/* cuMemcpy classifies it as device memory, bounds and all. */
	ck_assert_int_eq(cuMemcpy(table + TABLE_BYTES - 4, (CUdeviceptr)got, 8),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpy((CUdeviceptr)got, coeff, TABLE_BYTES),
			 CUDA_SUCCESS);
	ck_assert_mem_eq(got, k, TABLE_BYTES);

	/* A set inside one: the last half of coeff[] becomes 7s. */
	ck_assert_int_eq(cuMemsetD32(coeff + TABLE_BYTES / 2, 7, TABLE_WORDS / 2),
			 CUDA_SUCCESS);
	for (i = TABLE_WORDS / 2; i < TABLE_WORDS; i++)
		k[i] = 7;

	/* Copy in, run, copy out: one stream's order. */
	fill_words(in, 10, 3);
	ck_assert_int_eq(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoDAsync(table, in, TABLE_BYTES, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, TABLE_WORDS, 1, 1, 0, s, args,
					NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoHAsync(got, table, TABLE_BYTES, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoHAsync(out, dout, TABLE_BYTES, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	for (i = 0; i < TABLE_WORDS; i++) {
		ck_assert_uint_eq(out[i], in[i] * k[i]);
		ck_assert_uint_eq(got[i], in[i] + 1);
	}
	/* Device to device, both ways, and a set on a stream. */
	ck_assert_int_eq(cuMemcpyDtoDAsync(dout, table, TABLE_BYTES, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8Async(table, 0xab, TABLE_BYTES, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoDAsync(coeff, dout, TABLE_BYTES, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, coeff, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_mem_eq(out, got, TABLE_BYTES);
	ck_assert_int_eq(cuMemcpyDtoH(got, table, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_uint_eq(got[TABLE_WORDS - 1], 0xababababu);

	/* A 2D copy to a unified address: two words of every four. */
	ck_assert_int_eq(cuMemsetD32(coeff, 0, TABLE_WORDS), CUDA_SUCCESS);
	rect = (CUDA_MEMCPY2D){
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = in,
		.srcPitch = 16, .dstMemoryType = CU_MEMORYTYPE_UNIFIED,
		.dstDevice = coeff, .dstPitch = 16, .WidthInBytes = 8,
		.Height = TABLE_BYTES / 16,
	};
	ck_assert_int_eq(cuMemcpy2D(&rect), CUDA_SUCCESS);
	rect.Height++;
	ck_assert_int_eq(cuMemcpy2D(&rect), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoH(got, coeff, TABLE_BYTES), CUDA_SUCCESS);
	for (i = 0; i < TABLE_WORDS; i++)
		ck_assert_uint_eq(got[i], i % 4 < 2 ? in[i] : 0);

	/* Unloaded, the addresses are no one's. */
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(table, in, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyDtoH(got, coeff, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemsetD8(table, 0, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemcpyHtoDAsync(table, in, 4, s),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dout), CUDA_SUCCESS);
}
END_TEST

/*
 * What the pointer entry points say of a variable: device memory of the
 * context current at the load (of the calling thread's, for a library),
 * the variable its range.
 */
START_TEST(globals_are_device_pointers)
{
	CUpointer_attribute attrs[] = {
		CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
		CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
		CU_POINTER_ATTRIBUTE_HOST_POINTER,
	};
	unsigned int type = 0, ordinal = 9, words[TABLE_WORDS];
	CUdeviceptr table, coeff, start, base, other;
	CUcontext ctx, owner, ctx1;
	void *host = &type;
	void *data[] = { &type, &owner, &start, &host };
	size_t size, range;
	CUlibrary lib;
	CUmodule mod;
	CUfunction f;
	void *args[] = { &other };

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleLoadData(&mod, tables_ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetGlobal(&table, &size, mod, "table"),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetGlobal(&coeff, NULL, mod, "coeff"),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttribute(&type,
			 CU_POINTER_ATTRIBUTE_MEMORY_TYPE, table + 8), CUDA_SUCCESS);
	ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
	ck_assert_int_eq(cuPointerGetAttribute(&ordinal,
			 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, coeff), CUDA_SUCCESS);
	ck_assert_uint_eq(ordinal, 0);
	ck_assert_int_eq(cuPointerGetAttribute(&range,
			 CU_POINTER_ATTRIBUTE_RANGE_SIZE, table + 8), CUDA_SUCCESS);
	ck_assert_uint_eq(range, TABLE_BYTES);
	ck_assert_int_eq(cuPointerGetAttribute(&host,
			 CU_POINTER_ATTRIBUTE_HOST_POINTER, table),
			 CUDA_ERROR_INVALID_VALUE);
	/* Asked from another context, still the loading context's. */
	ck_assert_int_eq(cuCtxCreate(&ctx1, NULL, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttributes(4, attrs, data, table + 8),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(type, CU_MEMORYTYPE_DEVICE);
	ck_assert_ptr_eq(owner, ctx);
	ck_assert_uint_eq(start, table);
	ck_assert_ptr_null(host);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &range, coeff + 63),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(base, coeff);
	ck_assert_uint_eq(range, TABLE_BYTES);

	/* A library's variable: the calling thread's context. */
	ck_assert_int_eq(cuLibraryLoadData(&lib, tables_ptx, NULL, NULL, 0,
					   NULL, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetGlobal(&other, &size, lib, "table"),
			 CUDA_SUCCESS);
	ck_assert_uint_ne(other, table);
	ck_assert_int_eq(cuPointerGetAttributes(4, attrs, data, other),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(owner, ctx1);
	ck_assert_uint_eq(start, other);
	ck_assert_int_eq(cuPointerGetAttribute(&ordinal,
			 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, other), CUDA_SUCCESS);
	ck_assert_uint_eq(ordinal, 1);
	/* The module's kernel writes into the library's table. */
	fill_words(words, 2, 0);
	ck_assert_int_eq(cuMemcpyHtoD(table, words, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(coeff, words, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "scale"), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, TABLE_WORDS, 1, 1, 0, NULL,
					args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(words, other, TABLE_BYTES), CUDA_SUCCESS);
	ck_assert_uint_eq(words[0], 4);
	ck_assert_uint_eq(words[TABLE_WORDS - 1], 4);
	ck_assert_int_eq(cuLibraryUnload(lib), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(words, other, 4), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuPointerGetAttribute(&type,
			 CU_POINTER_ATTRIBUTE_MEMORY_TYPE, other),
			 CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuPointerGetAttribute(&type,
			 CU_POINTER_ATTRIBUTE_MEMORY_TYPE, table),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemGetAddressRange(&base, &range, coeff),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_int_eq(cuCtxDestroy(ctx1), CUDA_SUCCESS);
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
	tcase_add_test(tc, functions_describe_themselves);
	tcase_add_test(tc, clusters_and_multi_device_launches);
	tcase_add_test(tc, legacy_launch_runs);
	tcase_add_test(tc, shared_memory_opt_in);
	tcase_add_test(tc, function_settings);
	tcase_add_test(tc, library_kernels_run);
	tcase_add_test(tc, occupancy_answers);
	tcase_add_test(tc, cooperative_grids_are_resident);
	tcase_add_test(tc, launch_kernel_ex_attributes);
	tcase_add_test(tc, green_context_narrows_cooperative_grids);
	tcase_add_test(tc, globals_from_the_host);
	tcase_add_test(tc, globals_are_device_pointers);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
