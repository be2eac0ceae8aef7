// SPDX-License-Identifier: MIT
/*
 * cuGetProcAddress (and the CUDA 11.3 four-argument cuGetProcAddress):
 * every entry of entry_points.h is found at its version, the newest
 * entry not newer than the version asked for wins, and unknown symbols,
 * too-old versions and bad arguments answer as cuda.h documents; lookups
 * with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM find the _ptds/_ptsz
 * flavours.  Every name the CUDA 13.0 runtime asks for (as recorded on
 * NVIDIA's driver, RUNTIME_LOG) is found.  Needs neither cuInit nor a
 * device.
 */
#include <check.h>
#include <cuda.h>
#include <cumc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "interop.h"
#include "procaddr.h"
#include "stream.h"

struct entry {
	const char *symbol;
	int version;
	void *function;
};

/*
 * The exported functions by their symbols (cumc.h's among them): the name
 * a row gives may be a macro of cuda.h's for another (cuGetProcAddress).
 */
#define CUMC_ENTRY(symbol, params, args) \
	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);
#define CUMC_ENTRY_DRIVER(symbol, params, args, impl_params, impl_args) \
	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);
#define CUMC_ENTRY_INIT(symbol, params, args) \
	CUresult CUDAAPI libcumc_entry_##symbol params __asm__(#symbol);
#include "entry_points.h"

#define CUMC_PROC(symbol, version, function) \
	{ symbol, version, (void *)libcumc_entry_##function },
static const struct entry table[] = {
#include "entry_points.h"
};

#define NUM_ENTRIES (sizeof(table) / sizeof(table[0]))

static void *garbage = (void *)0x5a5a;

static void *lookup(const char *symbol, int version,
		    CUdriverProcAddressQueryResult expected_status)
{
	CUdriverProcAddressQueryResult status = 77;
	void *pfn = garbage;

	ck_assert_int_eq(cuGetProcAddress(symbol, &pfn, version, 0, &status),
			 CUDA_SUCCESS);
	ck_assert_int_eq(status, expected_status);
	if (expected_status != CU_GET_PROC_ADDRESS_SUCCESS)
		ck_assert_ptr_null(pfn);
	return pfn;
}

#define FOUND(symbol, version) \
	lookup(symbol, version, CU_GET_PROC_ADDRESS_SUCCESS)

/* Each entry, at its own version and at the driver's, unless a newer one takes over. */
START_TEST(every_entry_is_found_at_its_version)
{
	const struct entry *e = &table[_i];
	const struct entry *next = _i + 1 < (int)NUM_ENTRIES ? e + 1 : NULL;

	ck_assert_ptr_eq(FOUND(e->symbol, e->version), e->function);
	if (!next || strcmp(next->symbol, e->symbol))
		ck_assert_ptr_eq(FOUND(e->symbol, 13010), e->function);
	else
		ck_assert_int_lt(e->version, next->version);
}
END_TEST

START_TEST(newest_fitting_version_wins)
{
	ck_assert_ptr_eq(FOUND("cuInit", 13000), (void *)cuInit);
	ck_assert_ptr_eq(FOUND("cuCtxGetDevice", 12080), (void *)cuCtxGetDevice);
	ck_assert_ptr_eq(FOUND("cuCtxGetDevice", 13000), (void *)cuCtxGetDevice_v2);
	ck_assert_ptr_eq(FOUND("cuCtxSynchronize", 2000), (void *)cuCtxSynchronize);
	ck_assert_ptr_eq(FOUND("cuCtxSynchronize", 13000),
			 (void *)cuCtxSynchronize_v2);
	ck_assert_ptr_eq(FOUND("cuDeviceGetUuid", 11030), (void *)cuDeviceGetUuid_v2);
	ck_assert_ptr_eq(FOUND("cuCtxCreate", 12050), (void *)cuCtxCreate_v4);
	/* The older ABIs are functions of their own, each at its version. */
	ck_assert_ptr_ne(FOUND("cuCtxCreate", 3020), (void *)cuCtxCreate_v4);
	ck_assert_ptr_ne(FOUND("cuCtxCreate", 12040), (void *)cuCtxCreate_v4);
	ck_assert_ptr_ne(FOUND("cuCtxCreate", 3020), FOUND("cuCtxCreate", 11040));
	ck_assert_ptr_eq(FOUND("cuMemCreate", 10020), (void *)cuMemCreate);
	/* The binds that name their device exist for 13.1 callers only. */
	ck_assert_ptr_eq(FOUND("cuMulticastBindMem", 13000),
			 (void *)cuMulticastBindMem);
	ck_assert_ptr_eq(FOUND("cuMulticastBindMem", 13010),
			 (void *)cuMulticastBindMem_v2);
	ck_assert_ptr_eq(FOUND("cuMulticastBindAddr", 13000),
			 (void *)cuMulticastBindAddr);
	ck_assert_ptr_eq(FOUND("cuMulticastBindAddr", 13010),
			 (void *)cuMulticastBindAddr_v2);
	/* CUDA 4.1's cuGLGetDevices has 6.5's ABI. */
	ck_assert_ptr_eq(FOUND("cuGLGetDevices", 4010), (void *)cuGLGetDevices_v2);
	ck_assert_ptr_eq(FOUND("cuGLMapBufferObject", 6050),
			 (void *)cuGLMapBufferObject_v2);
}
END_TEST

/*
 * The distinct names of RUNTIME_LOG's "cuGetProcAddress(NAME) ..." lines
 * into @names, as many as fit; answers how many there are.
 */
static size_t runtime_names(char names[][64], size_t max)
{
	FILE *log = fopen(RUNTIME_LOG, "r");
	char line[256], name[64];
	size_t n = 0, i;

	ck_assert_msg(log, "cannot open %s", RUNTIME_LOG);
	while (fgets(line, sizeof(line), log)) {
		if (sscanf(line, "cuGetProcAddress(%63[^)])", name) != 1)
			continue;
		for (i = 0; i < n && strcmp(names[i], name); i++)
			;
		if (i == n && n < max)
			strcpy(names[n++], name);
	}
	fclose(log);
	return n;
}

/*
 * The CUDA 13.0 runtime asks for these as it starts, with the version it
 * was built for: each must be a function, none missing (issue 35).  The
 * empty name it also asks for has no line of this form.
 */
START_TEST(every_name_the_runtime_asks_for_is_found)
{
	static char names[512][64];
	size_t n = runtime_names(names, 512), i;

	ck_assert_uint_eq(n, 345);
	for (i = 0; i < n; i++) {
		CUdriverProcAddressQueryResult status = 77;
		void *pfn = NULL;

		ck_assert_int_eq(cuGetProcAddress(names[i], &pfn, 13000,
						  CU_GET_PROC_ADDRESS_DEFAULT,
						  &status), CUDA_SUCCESS);
		ck_assert_msg(status == CU_GET_PROC_ADDRESS_SUCCESS && pfn,
			      "%s: status %d", names[i], (int)status);
	}
}
END_TEST

/* The interop functions, found as the runtime finds them, need cuInit. */
START_TEST(interop_functions_need_cuinit)
{
	CUresult (*gl_init)(void) = lookup("cuGLInit", 13000,
					   CU_GET_PROC_ADDRESS_SUCCESS);
	CUresult (*vdpau_device)(CUdevice *, VdpDevice, VdpGetProcAddress *) =
		lookup("cuVDPAUGetDevice", 13000, CU_GET_PROC_ADDRESS_SUCCESS);
	CUresult (*egl_disconnect)(CUeglStreamConnection *) =
		lookup("cuEGLStreamConsumerDisconnect", 13000,
		       CU_GET_PROC_ADDRESS_SUCCESS);
	CUdevice dev = -1;

	ck_assert_int_eq(gl_init(), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(vdpau_device(&dev, 1, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(dev, -1);
	ck_assert_int_eq(egl_disconnect(NULL), CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(get_proc_address_finds_both_of_its_abis)
{
	ck_assert_ptr_eq(FOUND("cuGetProcAddress", 11030),
			 (void *)cuGetProcAddress_v1);
	ck_assert_ptr_eq(FOUND("cuGetProcAddress", 11080),
			 (void *)cuGetProcAddress_v1);
	ck_assert_ptr_eq(FOUND("cuGetProcAddress", 12000),
			 (void *)cuGetProcAddress_v2);
	ck_assert_ptr_ne((void *)cuGetProcAddress_v1, (void *)cuGetProcAddress_v2);
}
END_TEST

START_TEST(too_old_version_is_not_sufficient)
{
	lookup("cuMemCreate", 10010, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuGetProcAddress", 11020, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	/* Left out: their ABI of that version differs from every function. */
	lookup("cuCtxCreate", 3010, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuMemGetInfo", 3010, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuGLMapBufferObject", 2000,
	       CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuGLMapBufferObjectAsync", 3010,
	       CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuGLCtxCreate", 3010, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuVDPAUCtxCreate", 3010,
	       CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	/* As driver 580 answers (conformance/, interop.gl_versions). */
	lookup("cuGLGetDevices", 4000, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuInit", 0, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
	lookup("cuInit", -1, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
}
END_TEST

START_TEST(unknown_symbols_are_not_found)
{
	static const char *const unknown[] = {
		"cuNoSuchFunction", "", "cuinit", "cuInit ", "cuDeviceGetUuid_v2",
		"cuMemAllocManaged_v2", "cugraphcreate", "cuGraphLaunch ", "cuTexObjectCreate_v2",
	};
	size_t i;

	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
		lookup(unknown[i], CUDA_VERSION,
		       CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
}
END_TEST

START_TEST(symbol_status_is_optional)
{
	void *pfn = garbage;

	ck_assert_int_eq(cuGetProcAddress("cuInit", &pfn, 13000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuInit);
	ck_assert_int_eq(cuGetProcAddress("cuNope", &pfn, 13000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_null(pfn);
}
END_TEST

START_TEST(stream_flavour_flags_accepted)
{
	static const cuuint64_t flags[] = {
		CU_GET_PROC_ADDRESS_DEFAULT, CU_GET_PROC_ADDRESS_LEGACY_STREAM,
		CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
	};
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		void *pfn = NULL;

		ck_assert_int_eq(cuGetProcAddress("cuMemGetInfo", &pfn, 13000,
						  flags[i], NULL), CUDA_SUCCESS);
		ck_assert_ptr_eq(pfn, (void *)cuMemGetInfo);
	}
}
END_TEST

/* Per-thread default stream entries, as the table lists them. */
#define CUMC_PROC_PTDS(symbol, version, function) \
	{ symbol, version, (void *)libcumc_entry_##function },
static const struct entry ptds_table[] = {
#include "entry_points.h"
};

START_TEST(every_per_thread_entry_is_found_with_its_flag)
{
	const struct entry *e = &ptds_table[_i];
	CUdriverProcAddressQueryResult status;
	void *pfn = NULL, *legacy = NULL;

	ck_assert_int_eq(cuGetProcAddress(e->symbol, &pfn, e->version,
					  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
					  &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_GET_PROC_ADDRESS_SUCCESS);
	ck_assert_ptr_eq(pfn, e->function);
	/* The legacy flavour is another function. */
	ck_assert_int_eq(cuGetProcAddress(e->symbol, &legacy, e->version,
					  CU_GET_PROC_ADDRESS_LEGACY_STREAM,
					  &status), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(legacy);
	ck_assert_ptr_ne(legacy, pfn);
}
END_TEST

START_TEST(per_thread_flavour_where_one_exists)
{
	const cuuint64_t ptds = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
	void *pfn = NULL;

	ck_assert_int_eq(cuGetProcAddress("cuStreamSynchronize", &pfn, 13000, ptds,
					  NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuStreamSynchronize_ptsz);
	ck_assert_int_eq(cuGetProcAddress("cuStreamSynchronize", &pfn, 13000,
					  CU_GET_PROC_ADDRESS_DEFAULT, NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuStreamSynchronize);
	ck_assert_int_eq(cuGetProcAddress("cuMemcpyHtoD", &pfn, 13000, ptds, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuMemcpyHtoD_v2_ptds);
	/* Before CUDA 7.0 there was no per-thread flavour. */
	ck_assert_int_eq(cuGetProcAddress("cuMemcpyHtoD", &pfn, 6050, ptds, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuMemcpyHtoD_v2);
	ck_assert_int_eq(cuGetProcAddress("cuStreamWaitValue32", &pfn, 13000, ptds,
					  NULL), CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuStreamWaitValue32_v2_ptsz);
	ck_assert_int_eq(cuGetProcAddress("cuMemGetInfo", &pfn, 13000, ptds, NULL),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuMemGetInfo_v2);
}
END_TEST

START_TEST(other_flags_refused)
{
	static const cuuint64_t flags[] = { 3, 4, 1ull << 32, ~0ull };
	CUdriverProcAddressQueryResult status = 77;
	size_t i;

	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		void *pfn = garbage;

		ck_assert_int_eq(cuGetProcAddress("cuInit", &pfn, 13000,
						  flags[i], &status),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_ptr_null(pfn);
	}
	ck_assert_int_eq(status, 77);
}
END_TEST

START_TEST(version_newer_than_the_driver_refused)
{
	void *pfn = garbage;

	ck_assert_int_eq(cuGetProcAddress("cuInit", &pfn, 13020, 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(pfn);
	ck_assert_int_eq(cuGetProcAddress("cuInit", &pfn, 0x7fffffff, 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(null_arguments_refused)
{
	CUdriverProcAddressQueryResult status;
	void *pfn = garbage;

	ck_assert_int_eq(cuGetProcAddress("cuInit", NULL, 13000, 0, &status),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGetProcAddress(NULL, &pfn, 13000, 0, &status),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(pfn);
}
END_TEST

START_TEST(four_argument_version_answers_alike)
{
	void *pfn = garbage;

	ck_assert_int_eq(cuGetProcAddress_v1("cuDeviceGet", &pfn, 11030, 0),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuDeviceGet);
	/* Unknown or too new: CUDA_ERROR_NOT_FOUND, *pfn untouched (driver 580). */
	pfn = garbage;
	ck_assert_int_eq(cuGetProcAddress_v1("cuMemCreate", &pfn, 10000, 0),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_ptr_eq(pfn, garbage);
	ck_assert_int_eq(cuGetProcAddress_v1("cuNope", &pfn, 11030, 0),
			 CUDA_ERROR_NOT_FOUND);
	ck_assert_ptr_eq(pfn, garbage);
	ck_assert_int_eq(cuGetProcAddress_v1("cuStreamQuery", &pfn, 11030,
					     CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(pfn, (void *)cuStreamQuery_ptsz);
	ck_assert_int_eq(cuGetProcAddress_v1("cuInit", &pfn, 11030, 8),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGetProcAddress_v1("cuInit", NULL, 11030, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGetProcAddress_v1(NULL, &pfn, 11030, 0),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* A resolved function works like the one linked directly. */
START_TEST(resolved_function_is_callable)
{
	CUresult (*get_version)(int *);
	int version = 0;

	ck_assert_int_eq(cuGetProcAddress("cuDriverGetVersion",
					  (void **)&get_version, 13000, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(get_version(&version), CUDA_SUCCESS);
	ck_assert_int_eq(version, 13010);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuGetProcAddress");
	TCase *table_tc = tcase_create("table");
	TCase *args = tcase_create("arguments");

	tcase_add_loop_test(table_tc, every_entry_is_found_at_its_version, 0,
			    NUM_ENTRIES);
	tcase_add_test(table_tc, newest_fitting_version_wins);
	tcase_add_test(table_tc, get_proc_address_finds_both_of_its_abis);
	tcase_add_test(table_tc, too_old_version_is_not_sufficient);
	tcase_add_test(table_tc, unknown_symbols_are_not_found);
	tcase_add_loop_test(table_tc, every_per_thread_entry_is_found_with_its_flag,
			    0, sizeof(ptds_table) / sizeof(ptds_table[0]));
	tcase_add_test(table_tc, per_thread_flavour_where_one_exists);
	tcase_add_test(table_tc, resolved_function_is_callable);
	tcase_add_test(table_tc, every_name_the_runtime_asks_for_is_found);
	tcase_add_test(table_tc, interop_functions_need_cuinit);
	suite_add_tcase(s, table_tc);

	tcase_add_test(args, symbol_status_is_optional);
	tcase_add_test(args, stream_flavour_flags_accepted);
	tcase_add_test(args, other_flags_refused);
	tcase_add_test(args, version_newer_than_the_driver_refused);
	tcase_add_test(args, null_arguments_refused);
	tcase_add_test(args, four_argument_version_answers_alike);
	suite_add_tcase(s, args);

	return check_run(s);
}
