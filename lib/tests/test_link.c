// SPDX-License-Identifier: MIT
/*
 * The JIT linker, as Numba and cuda.core's Linker use it: PTX (from a
 * file or memory) or a fatbin in, cuLinkComplete's image loaded with
 * cuModuleLoadData and cuLibraryLoadData and its kernel run; the logs
 * and the errors: bad handles, options, inputs, a second input.
 */
#include <check.h>
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "vmm.h"

#define DATA PTX_TEST_DATA

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	buf = malloc(n);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, n, f), (size_t)n);
	fclose(f);
	*len = n;
	return buf;
}

/* vecAdd of @image's module doubles 32 floats. */
static void run_vecadd(CUmodule mod)
{
	CUfunction f;
	CUdeviceptr d;
	float in[32], out[32];
	int n = 32, i;
	void *args[] = { &d, &d, &d, &n };

	for (i = 0; i < 32; i++)
		in[i] = i + 0.5f;
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&d, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(d, in, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, d, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < 32; i++)
		ck_assert_float_eq(out[i], 2 * in[i]);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}

/* PTX in memory, without its NUL, as Numba passes it; verbose logs. */
START_TEST(ptx_links_and_runs)
{
	char info[512] = "x", error[512] = "x";
	CUjit_option opts[] = { CU_JIT_INFO_LOG_BUFFER,
				CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
				CU_JIT_ERROR_LOG_BUFFER,
				CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
				CU_JIT_LOG_VERBOSE, CU_JIT_OPTIMIZATION_LEVEL };
	void *vals[] = { info, (void *)sizeof(info), error,
			 (void *)sizeof(error), (void *)1, (void *)4 };
	size_t len, size = 0;
	char *ptx = slurp(DATA "/vecadd.ptx", &len);
	CUlinkState link;
	CUlibrary lib;
	CUkernel k;
	CUmodule mod;
	void *image = NULL;

	ck_assert_int_eq(cuLinkCreate(6, opts, vals, &link), CUDA_SUCCESS);
	ck_assert_str_eq(info, "");
	ck_assert_str_eq(error, "");
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "vecadd",
				       0, NULL, NULL), CUDA_SUCCESS);
	free(ptx);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(image);
	ck_assert_uint_eq(size, len + 1);
	ck_assert_ptr_nonnull(strstr(info, "vecadd: 1 kernels"));
	ck_assert_uint_eq((uintptr_t)vals[1], strlen(info) + 1);
	ck_assert_str_eq(error, "");
	ck_assert_int_eq(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
	run_vecadd(mod);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL,
					   0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryGetKernel(&k, lib, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryUnload(lib), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_SUCCESS);
}
END_TEST

/* A file, and a fatbin as nvcc writes it. */
START_TEST(files_and_fatbins_link)
{
	CUlinkState link;
	CUmodule mod;
	void *image;
	size_t size, len;
	char *fatbin = slurp(DATA "/vecadd.fatbin", &len);

	ck_assert_int_eq(cuLinkCreate(0, NULL, NULL, &link), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkAddFile(link, CU_JIT_INPUT_PTX, DATA "/vecadd.ptx",
				       0, NULL, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
	run_vecadd(mod);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_SUCCESS);

	ck_assert_int_eq(cuLinkCreate(0, NULL, NULL, &link), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_FATBINARY, fatbin, len,
				       NULL, 0, NULL, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
	ck_assert_uint_eq(size, len);
	ck_assert_int_eq(cuModuleLoadData(&mod, image), CUDA_SUCCESS);
	run_vecadd(mod);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_SUCCESS);
	free(fatbin);
}
END_TEST

START_TEST(bad_inputs_are_refused)
{
	char error[2048] = "";
	CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER,
				CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[] = { error, (void *)sizeof(error) };
	CUjit_option bad = (CUjit_option)CU_JIT_NUM_OPTIONS;
	static char junk[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
			     ".visible .entry k() { frob.u32; }\n";
	CUlinkState link, none = NULL;
	void *image = NULL;
	size_t size = 0, len;
	char *ptx = slurp(DATA "/vecadd.ptx", &len);

	ck_assert_int_eq(cuLinkCreate(0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkCreate(1, NULL, NULL, &link), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkCreate(1, &bad, vals, &link), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkCreate(2, opts, vals, &link), CUDA_SUCCESS);
	/* Nothing to link yet. */
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(error, "no input"));
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, NULL, 10, "p", 0,
				       NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, 0, "p", 0,
				       NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkAddData(link, (CUjitInputType)77, ptx, len, "p", 0,
				       NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "p", 1,
				       &bad, vals), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_LIBRARY, ptx, len, "a",
				       0, NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, junk, sizeof(junk),
				       "junk", 0, NULL, NULL),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_ptr_nonnull(strstr(error, "junk: "));
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, "nothing", 7, "j",
				       0, NULL, NULL), CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuLinkAddFile(link, CU_JIT_INPUT_CUBIN,
				       DATA "/vecadd_sass.fatbin", 0, NULL, NULL),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuLinkAddFile(link, CU_JIT_INPUT_PTX, "/nonexistent.ptx",
				       0, NULL, NULL), CUDA_ERROR_FILE_NOT_FOUND);
	ck_assert_int_eq(cuLinkAddFile(link, CU_JIT_INPUT_PTX, NULL, 0, NULL, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	/* One input is linked; a second is refused, the first kept. */
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "one", 0,
				       NULL, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "two", 0,
				       NULL, NULL), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_ptr_nonnull(strstr(error, "two: cumc links one input"));
	ck_assert_uint_eq((uintptr_t)vals[1], strlen(error) + 1);
	ck_assert_int_eq(cuLinkComplete(link, NULL, &size), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_SUCCESS);
	/* Destroyed, NULL and garbage states. */
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLinkAddData(none, CU_JIT_INPUT_PTX, ptx, len, "p", 0,
				       NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLinkAddFile((CUlinkState)ptx, CU_JIT_INPUT_PTX,
				       DATA "/vecadd.ptx", 0, NULL, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLinkDestroy(NULL), CUDA_ERROR_INVALID_HANDLE);
	/* Linking is for the current context's device. */
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkCreate(0, NULL, NULL, &link), CUDA_ERROR_INVALID_CONTEXT);
	free(ptx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("link");
	TCase *tc = tcase_create("link");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, ptx_links_and_runs);
	tcase_add_test(tc, files_and_fatbins_link);
	tcase_add_test(tc, bad_inputs_are_refused);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
