// SPDX-License-Identifier: MIT
/*
 * The JIT linker, as Numba and cuda.core's Linker use it: PTX (from a
 * file or memory) or a fatbin in, cuLinkComplete's image loaded with
 * cuModuleLoadData and cuLibraryLoadData and its kernel run; several
 * inputs, .extern functions and variables resolved across them; the logs
 * and the errors: bad handles, options, inputs, symbols defined twice or
 * nowhere.
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
	ck_assert_ptr_nonnull(strstr(info, "vecadd: "));
	ck_assert_ptr_nonnull(strstr(info, "linked 1 inputs"));
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
	/* The fatbin's PTX, whose entry is compressed. */
	ck_assert_uint_eq(size, strlen(image) + 1);
	ck_assert_ptr_nonnull(strstr(image, ".entry vecAdd"));
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
	void *image = NULL, *data = NULL;
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
	/* The refused inputs left nothing behind. */
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "one", 0,
				       NULL, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkComplete(link, NULL, &size), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkComplete(link, &image, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size), CUDA_SUCCESS);
	ck_assert_uint_eq(size, len + 1);
	/* Complete: no more input; the image stays as it was. */
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "late", 0,
				       NULL, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_nonnull(strstr(error, "late: the link is complete"));
	ck_assert_uint_eq((uintptr_t)vals[1], strlen(error) + 1);
	ck_assert_int_eq(cuLinkComplete(link, &data, &size), CUDA_SUCCESS);
	ck_assert_ptr_eq(data, image);
	ck_assert_uint_eq(size, len + 1);
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

/* A link of @n inputs of data/: cuLinkComplete's answer, @error its log. */
static CUresult link_files(const char *const *names, unsigned int n,
			   CUmodule *mod, char *error, size_t error_size)
{
	CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER,
				CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[] = { error, (void *)error_size }, *image;
	char path[256];
	CUlinkState link;
	unsigned int i;
	size_t size;
	CUresult res;

	ck_assert_int_eq(cuLinkCreate(2, opts, vals, &link), CUDA_SUCCESS);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), DATA "/%s", names[i]);
		ck_assert_int_eq(cuLinkAddFile(link, CU_JIT_INPUT_PTX, path, 0,
					       NULL, NULL), CUDA_SUCCESS);
	}
	res = cuLinkComplete(link, &image, &size);
	if (res == CUDA_SUCCESS)
		ck_assert_int_eq(cuModuleLoadData(mod, image), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_SUCCESS);
	return res;
}

/* scaleAll of link_main.cu, which calls and reads link_lib.cu's: 3x + 0.5. */
static void run_scale_all(CUmodule mod)
{
	CUfunction f;
	CUdeviceptr d, var;
	float in[100], out[100], half = 0;
	size_t bytes = 0;
	int n = 100, i;
	void *args[] = { &d, &n };

	for (i = 0; i < n; i++)
		in[i] = i - 20.25f;
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "scaleAll"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetGlobal(&var, &bytes, mod, "scale_by"),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(bytes, 4);
	ck_assert_int_eq(cuMemAlloc(&d, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(d, in, sizeof(in)), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 2, 1, 1, 64, 1, 1, 0, NULL, args, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(out, d, sizeof(out)), CUDA_SUCCESS);
	for (i = 0; i < n; i++)
		ck_assert_float_eq(out[i], 3 * in[i] + 0.5f);
	/* One variable, the definition's: its initial value was read. */
	memcpy(&half, (void *)(uintptr_t)var, sizeof(half));
	ck_assert_float_eq(half, 0.5f);
	ck_assert_int_eq(cuMemFree(d), CUDA_SUCCESS);
}

/* Either order: the definitions may come before or after their use. */
START_TEST(extern_symbols_resolve_across_inputs)
{
	static const char *const main_first[] = { "link_main.ptx",
						  "link_lib.ptx" };
	static const char *const lib_first[] = { "link_lib.ptx",
						 "link_main.ptx" };
	char error[512] = "";
	CUmodule mod;

	ck_assert_int_eq(link_files(main_first, 2, &mod, error, sizeof(error)),
			 CUDA_SUCCESS);
	run_scale_all(mod);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(link_files(lib_first, 2, &mod, error, sizeof(error)),
			 CUDA_SUCCESS);
	run_scale_all(mod);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_str_eq(error, "");
}
END_TEST

/*
 * A symbol defined twice is INVALID_PTX, one defined nowhere NOT_FOUND;
 * the error log names it, and the input and line.
 */
START_TEST(symbols_defined_twice_or_nowhere)
{
	static const char *const twice[] = { "link_main.ptx", "link_lib.ptx",
					     "link_lib.ptx" };
	static const char *const alone[] = { "link_main.ptx" };
	static const char *const kernels[] = { "vecadd.ptx", "vecadd.ptx" };
	static char func_only[] =
		".version 9.0\n.target sm_90\n.address_size 64\n"
		".visible .func (.param .b32 r) _Z6scaledf(.param .b32 a)\n"
		"{\n\t.reg .f32 %f<2>;\n\tld.param.f32 %f1, [a];\n"
		"\tst.param.f32 [r], %f1;\n\tret;\n}\n";
	char error[512] = "", *ptx;
	CUjit_option opts[] = { CU_JIT_ERROR_LOG_BUFFER,
				CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[] = { error, (void *)sizeof(error) }, *image = NULL;
	CUlinkState link;
	CUmodule mod;
	size_t size = 0, len;

	ck_assert_int_eq(link_files(twice, 3, &mod, error, sizeof(error)),
			 CUDA_ERROR_INVALID_PTX);
	ck_assert_ptr_nonnull(strstr(error, "input 3, line "));
	ck_assert_ptr_nonnull(strstr(error, "variable 'scale_by' defined twice"));
	ck_assert_int_eq(link_files(kernels, 2, &mod, error, sizeof(error)),
			 CUDA_ERROR_INVALID_PTX);
	ck_assert_ptr_nonnull(strstr(error, "kernel 'vecAdd' defined twice"));
	ck_assert_int_eq(link_files(alone, 1, &mod, error, sizeof(error)),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_ptr_nonnull(strstr(error, "call to '_Z6scaledf'"));

	/* The function given, the variable still missing. */
	ptx = slurp(DATA "/link_main.ptx", &len);
	ck_assert_int_eq(cuLinkCreate(2, opts, vals, &link), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, ptx, len, "main",
				       0, NULL, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkAddData(link, CU_JIT_INPUT_PTX, func_only,
				       sizeof(func_only), "func", 0, NULL, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLinkComplete(link, &image, &size),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_ptr_null(image);
	ck_assert_ptr_nonnull(strstr(error, "variable 'scale_by' is declared "
					    ".extern and defined nowhere"));
	ck_assert_int_eq(cuLinkDestroy(link), CUDA_SUCCESS);
	/* Loaded whole, such PTX is what cumc cannot run (vprintf...). */
	ptx = realloc(ptx, len + 1);
	ck_assert_ptr_nonnull(ptx);
	ptx[len] = '\0';
	ck_assert_int_eq(cuModuleLoadData(&mod, ptx), CUDA_ERROR_NOT_SUPPORTED);
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
	tcase_add_test(tc, extern_symbols_resolve_across_inputs);
	tcase_add_test(tc, symbols_defined_twice_or_nowhere);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
