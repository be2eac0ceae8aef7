// SPDX-License-Identifier: MIT
/*
 * CUMC_LOG against the module (runs in the VM): a failing /dev/cumc
 * command is named with its errno in the line of the entry point that
 * issued it, the library's own checks have no errno part, a query's
 * NOT_READY and successful calls write nothing, and libcuda.so.1 writes
 * the same lines.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>

#include "check_run.h"
#include "log_capture.h"
#include "stream_gate.h"
#include "vmm.h"

/* Far above anything cuMemAddressReserve hands out: never reserved. */
#define NOWHERE (1ULL << 46)

static size_t gran;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	gran = vmm_granularity();
	log_set("1");
}

START_TEST(a_failed_command_is_named_with_its_errno)
{
	CUmemGenericAllocationHandle handle = vmm_create(0, gran);
	CUdeviceptr va = vmm_reserve(gran);
	struct log_capture c;
	char *text;

	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuMemAddressFree(NOWHERE, gran), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(NOWHERE, gran, 0, handle, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(va, gran, 0, handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_ERROR_INVALID_VALUE);
	text = log_capture_end(&c);
	ck_assert_str_eq(text,
		"cumc: cuMemAddressFree: CUDA_ERROR_INVALID_VALUE (1): "
		"CUMC_VA_FREE: ENXIO (No such device or address)\n"
		"cumc: cuMemMap: CUDA_ERROR_INVALID_VALUE (1): "
		"CUMC_MAP: ENXIO (No such device or address)\n"
		"cumc: cuMemAddressFree: CUDA_ERROR_INVALID_VALUE (1): "
		"CUMC_VA_FREE: EBUSY (Device or resource busy)\n");
	free(text);
	ck_assert_int_eq(cuMemUnmap(va, gran), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, gran), CUDA_SUCCESS);
}
END_TEST

/* Refused before any command, or after one that failed: no errno part. */
START_TEST(the_library_s_own_checks_have_no_errno)
{
	CUmemGenericAllocationHandle handle = vmm_create(0, gran);
	struct log_capture c;
	char *text;

	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuMemMap(NOWHERE, gran, 0, handle, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(NOWHERE, gran, 0, handle, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemMap(NOWHERE, gran, gran, handle, 0),
			 CUDA_ERROR_NOT_SUPPORTED);
	text = log_capture_end(&c);
	ck_assert_str_eq(text,
		"cumc: cuMemMap: CUDA_ERROR_INVALID_VALUE (1): "
		"CUMC_MAP: ENXIO (No such device or address)\n"
		"cumc: cuMemMap: CUDA_ERROR_INVALID_VALUE (1)\n"
		"cumc: cuMemMap: CUDA_ERROR_NOT_SUPPORTED (801)\n");
	free(text);
	ck_assert_int_eq(cuMemRelease(handle), CUDA_SUCCESS);
}
END_TEST

START_TEST(success_writes_nothing)
{
	struct log_capture c;
	struct vmm_buf buf;
	char *text;

	log_capture_begin(&c, STDERR_FILENO);
	buf = vmm_buf_new(0, gran);
	vmm_buf_free(&buf);
	text = log_capture_end(&c);
	ck_assert_str_eq(text, "");
	free(text);
}
END_TEST

/* cuStreamQuery's and cuEventQuery's "not yet" is an answer. */
START_TEST(not_ready_is_an_answer)
{
	struct gate gate = { 0 };
	struct log_capture c;
	CUcontext ctx;
	CUstream stream;
	CUevent event;
	char *text;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&event, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(stream, gate_fn, &gate), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(event, stream), CUDA_SUCCESS);
	gate_wait_reached(&gate);
	log_capture_begin(&c, STDERR_FILENO);
	ck_assert_int_eq(cuStreamQuery(stream), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(cuEventQuery(event), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(cuStreamQuery((CUstream)(uintptr_t)0x5a5a), CUDA_ERROR_INVALID_HANDLE);
	text = log_capture_end(&c);
	atomic_store(&gate.open, 1);
	ck_assert_int_eq(cuStreamSynchronize(stream), CUDA_SUCCESS);
	ck_assert_str_eq(text, "cumc: cuStreamQuery: CUDA_ERROR_INVALID_HANDLE (400)\n");
	free(text);
	ck_assert_int_eq(cuEventDestroy(event), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(stream), CUDA_SUCCESS);
}
END_TEST

/* libcuda.so.1, loaded by a program started with CUMC_LOG set. */
START_TEST(libcuda_names_the_command_too)
{
	char *argv[] = { NULL, "libcuda", NULL };
	char *text = log_of_child("1", argv);

	ck_assert_str_eq(text,
		"cumc: cuMemAddressFree: CUDA_ERROR_INVALID_VALUE (1): "
		"CUMC_VA_FREE: ENXIO (No such device or address)\n");
	free(text);
}
END_TEST

/* The child of the test above: 0 when the calls answered as expected. */
static int child_main(void)
{
	CUresult (*init)(unsigned int);
	CUresult (*address_free)(CUdeviceptr, size_t);
	size_t size = 2 << 20;
	void *lib = dlopen(log_libcuda_path(), RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		fprintf(stdout, "%s\n", dlerror());
		return 1;
	}
	init = (CUresult (*)(unsigned int))dlsym(lib, "cuInit");
	address_free = (CUresult (*)(CUdeviceptr, size_t))
		dlsym(lib, "cuMemAddressFree");
	if (!init || !address_free || init(0) != CUDA_SUCCESS)
		return 1;
	return address_free(NOWHERE, size) == CUDA_ERROR_INVALID_VALUE ? 0 : 1;
}

int main(int argc, char **argv __attribute__((unused)))
{
	Suite *s = suite_create("CUMC_LOG with the module");
	TCase *tc = tcase_create("device");

	if (argc > 1)
		return child_main();
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, a_failed_command_is_named_with_its_errno);
	tcase_add_test(tc, the_library_s_own_checks_have_no_errno);
	tcase_add_test(tc, success_writes_nothing);
	tcase_add_test(tc, not_ready_is_an_answer);
	tcase_add_test(tc, libcuda_names_the_command_too);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
