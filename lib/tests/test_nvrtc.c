// SPDX-License-Identifier: MIT
/*
 * NVRTC on libcumc, as cuda.core's Program uses it: the toolkit's
 * libnvrtc (loaded with dlopen) compiles a kernel to PTX, initializing
 * the libcuda.so.1 it finds (build/cuda: libcumc) and asking it for
 * cuGetExportTable; the PTX loads with cuModuleLoadData and its kernel
 * runs. Skips, saying why, where no libnvrtc.so.13 is found: on the
 * library path, under $CUDA_HOME/lib64 or /usr/local/cuda/lib64.
 */
#include <check.h>
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "vmm.h"

/* nvrtc.h's ABI, which this test does not include: the toolkit's own. */
typedef struct _nvrtcProgram *nvrtcProgram;
#define NVRTC_SUCCESS 0

static struct {
	int (*create)(nvrtcProgram *, const char *, const char *, int,
		      const char *const *, const char *const *);
	int (*compile)(nvrtcProgram, int, const char *const *);
	int (*ptx_size)(nvrtcProgram, size_t *);
	int (*ptx)(nvrtcProgram, char *);
	int (*log_size)(nvrtcProgram, size_t *);
	int (*log)(nvrtcProgram, char *);
	int (*destroy)(nvrtcProgram *);
	const char *(*error)(int);
} nvrtc;

static const char twice_source[] =
	"extern \"C\" __global__ void twice(float *x, float add)\n"
	"{\n"
	"	unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
	"\n"
	"	x[i] = 2.0f * x[i] + add;\n"
	"}\n";

static void *nvrtc_open(char *tried, size_t len)
{
	const char *home = getenv("CUDA_HOME");
	char path[4096];
	void *h = dlopen("libnvrtc.so.13", RTLD_NOW);

	if (h)
		return h;
	snprintf(path, sizeof(path), "%s/lib64/libnvrtc.so.13",
		 home && *home ? home : "/usr/local/cuda");
	h = dlopen(path, RTLD_NOW);
	if (!h)
		snprintf(tried, len, "libnvrtc.so.13 on the library path, %s", path);
	return h;
}

static void *nvrtc_sym(void *h, const char *name)
{
	void *fn = dlsym(h, name);

	if (!fn) {
		fprintf(stderr, "libnvrtc.so.13 has no %s\n", name);
		exit(EXIT_FAILURE);
	}
	return fn;
}

static void nvrtc_bind(void *h)
{
	nvrtc.create = nvrtc_sym(h, "nvrtcCreateProgram");
	nvrtc.compile = nvrtc_sym(h, "nvrtcCompileProgram");
	nvrtc.ptx_size = nvrtc_sym(h, "nvrtcGetPTXSize");
	nvrtc.ptx = nvrtc_sym(h, "nvrtcGetPTX");
	nvrtc.log_size = nvrtc_sym(h, "nvrtcGetProgramLogSize");
	nvrtc.log = nvrtc_sym(h, "nvrtcGetProgramLog");
	nvrtc.destroy = nvrtc_sym(h, "nvrtcDestroyProgram");
	nvrtc.error = nvrtc_sym(h, "nvrtcGetErrorString");
}

/* The PTX of @source, compiled for compute capability 9.0; freed by the caller. */
static char *compile(const char *source)
{
	const char *options[] = { "-arch=compute_90" };
	nvrtcProgram prog;
	size_t size;
	char *text;
	int res;

	ck_assert_int_eq(nvrtc.create(&prog, source, "twice.cu", 0, NULL, NULL),
			 NVRTC_SUCCESS);
	res = nvrtc.compile(prog, 1, options);
	if (res != NVRTC_SUCCESS) {
		ck_assert_int_eq(nvrtc.log_size(prog, &size), NVRTC_SUCCESS);
		text = malloc(size);
		ck_assert_ptr_nonnull(text);
		ck_assert_int_eq(nvrtc.log(prog, text), NVRTC_SUCCESS);
		ck_abort_msg("nvrtcCompileProgram: %s: %s", nvrtc.error(res), text);
	}
	ck_assert_int_eq(nvrtc.ptx_size(prog, &size), NVRTC_SUCCESS);
	text = malloc(size);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(nvrtc.ptx(prog, text), NVRTC_SUCCESS);
	ck_assert_int_eq(nvrtc.destroy(&prog), NVRTC_SUCCESS);
	return text;
}

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

START_TEST(compiles_loads_and_runs)
{
	enum { N = 512 };
	float host[N], add = 0.5f;
	char *ptx = compile(twice_source);
	CUdeviceptr x;
	CUfunction f;
	CUmodule mod;
	void *args[] = { &x, &add };
	int i;

	ck_assert_ptr_nonnull(strstr(ptx, ".entry twice"));
	for (i = 0; i < N; i++)
		host[i] = i;
	ck_assert_int_eq(cuModuleLoadData(&mod, ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "twice"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&x, sizeof(host)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(x, host, sizeof(host)), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, N / 128, 1, 1, 128, 1, 1, 0, NULL,
					args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(host, x, sizeof(host)), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(host[i], 2.0f * i + 0.5f);
	ck_assert_int_eq(cuMemFree(x), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	free(ptx);
}
END_TEST

/* A second compile in the same process: NVRTC's driver stays usable. */
START_TEST(compiles_twice)
{
	char *first = compile(twice_source), *second = compile(twice_source);

	ck_assert_str_eq(first, second);
	free(first);
	free(second);
}
END_TEST

/* NVRTC's own error, not a crash: the source does not compile. */
START_TEST(bad_source_is_an_nvrtc_error)
{
	const char *options[] = { "-arch=compute_90" };
	nvrtcProgram prog;

	ck_assert_int_eq(nvrtc.create(&prog, "__global__ void f() { nope; }",
				      "bad.cu", 0, NULL, NULL), NVRTC_SUCCESS);
	ck_assert_int_ne(nvrtc.compile(prog, 1, options), NVRTC_SUCCESS);
	ck_assert_int_eq(nvrtc.destroy(&prog), NVRTC_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nvrtc");
	TCase *tc = tcase_create("nvrtc");
	char tried[4200];
	void *h = nvrtc_open(tried, sizeof(tried));

	if (!h) {
		printf("ok 1 # SKIP no NVRTC: tried %s\n", tried);
		return EXIT_SUCCESS;
	}
	nvrtc_bind(h);
	/* A compile takes seconds on a host, a minute or more under TCG. */
	tcase_set_timeout(tc, 300);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, compiles_loads_and_runs);
	tcase_add_test(tc, compiles_twice);
	tcase_add_test(tc, bad_source_is_an_nvrtc_error);
	suite_add_tcase(s, tc);
	return check_run(s);
}
