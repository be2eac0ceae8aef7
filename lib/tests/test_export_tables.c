// SPDX-License-Identifier: MIT
/*
 * cuGetExportTable's tables for the CUDA runtime, called as the runtime
 * calls them (Documentation/runtime.md): their sizes, the primary
 * context, fat binaries loaded into modules, context-local storage, the
 * context checks, refused slots, and the integrity check's answer from
 * the inputs the documentation names (runs inside the VM).
 * lib/tests/abi/runtime.sh runs the runtime itself on them.
 */
#include <check.h>
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "integrity.h"

#define DATA PTX_TEST_DATA

static const CUuuid runtime_id = { { 0x6b, (char)0xd5, (char)0xfb, 0x6c, 0x5b,
	(char)0xf4, (char)0xe7, 0x4a, (char)0x89, (char)0x87, (char)0xd9, 0x39,
	0x12, (char)0xfd, (char)0x9d, (char)0xf9 } };
static const CUuuid hooks_id = { { (char)0xa0, (char)0x94, 0x79, (char)0x8c,
	0x2e, 0x74, 0x2e, 0x74, (char)0x93, (char)0xf2, 0x08, 0x00, 0x20, 0x0c,
	0x0a, 0x66 } };
static const CUuuid cls_id = { { (char)0xc6, (char)0x93, 0x33, 0x6e, 0x11,
	0x21, (char)0xdf, 0x11, (char)0xa8, (char)0xc3, 0x68, (char)0xf3, 0x55,
	(char)0xd8, (char)0x95, (char)0x93 } };
static const CUuuid checks_id = { { 0x26, 0x3e, (char)0x88, 0x60, 0x7c,
	(char)0xd2, 0x61, 0x43, (char)0x92, (char)0xf6, (char)0xbb, (char)0xd5,
	0x00, 0x6d, (char)0xfa, 0x7e } };
static const CUuuid integrity_id = { { (char)0xd4, 0x08, 0x20, 0x55,
	(char)0xbd, (char)0xe6, 0x70, 0x4b, (char)0x8d, 0x34, (char)0xba, 0x12,
	0x3c, 0x66, (char)0xe1, (char)0xf2 } };
static const CUuuid other_id = { { (char)0xf8, (char)0xcf, (char)0xf9, 0x51,
	0x21, 0x46, (char)0x8b, 0x4e, (char)0xb9, (char)0xe2, (char)0xfb, 0x46,
	(char)0x9e, 0x7c, 0x0d, (char)0xd9 } };
static const CUuuid tls_id = { { 0x42, (char)0xd8, 0x5a, (char)0x81, 0x23,
	(char)0xf6, (char)0xcb, 0x47, (char)0x82, (char)0x98, (char)0xf6,
	(char)0xe7, (char)0x8a, 0x3a, (char)0xec, (char)0xdc } };

typedef CUresult (*load_wrapper_fn)(CUmodule *module, const void *wrapper);
typedef CUresult (*load_fatbin_fn)(const void *fatbin, CUmodule *module,
				   void *more, void *more2, unsigned int count);
typedef CUresult (*primary_fn)(CUcontext *pctx, CUdevice dev);
typedef void (*buffer_fn)(void **buffer, size_t *size);
typedef CUresult (*cls_put_fn)(CUcontext ctx, void *key, void *value,
			       void (*dtor)(CUcontext, void *, void *));
typedef CUresult (*cls_delete_fn)(CUcontext ctx, void *key);
typedef CUresult (*cls_get_fn)(void **value, CUcontext ctx, void *key);
typedef CUresult (*wraps_fn)(CUcontext ctx, unsigned int *wraps,
			     CUcontext *inner);
typedef unsigned int (*zero_fn)(void);
typedef CUresult (*refused_fn)(void);
typedef CUresult (*integrity_fn)(unsigned int version, uint64_t unix_seconds,
				 uint64_t answer[2]);

static const void *const *table(const CUuuid *id)
{
	const void *t = NULL;

	ck_assert_int_eq(cuGetExportTable(&t, id), CUDA_SUCCESS);
	ck_assert_ptr_nonnull(t);
	return t;
}

/* Slot @n of a table as a function of type @type. */
#define SLOT(type, t, n) ((type)(uintptr_t)(t)[n])

static CUcontext setup_ctx;

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&setup_ctx, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(setup_ctx), CUDA_SUCCESS);
}

static void teardown(void)
{
	cuCtxSetCurrent(NULL);
	cuDevicePrimaryCtxRelease(0);
}

/* The size words of driver 580.159.04's tables; c693336e has none. */
START_TEST(tables_have_driver_580_sizes)
{
	static const struct {
		const CUuuid *id;
		uintptr_t size;
	} sizes[] = {
		{ &other_id, 0x18 }, { &runtime_id, 0x68 }, { &hooks_id, 0x38 },
		{ &tls_id, 0x18 }, { &checks_id, 0x78 }, { &integrity_id, 0x18 },
	};
	const void *const *cls = table(&cls_id);
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ck_assert_uint_eq((uintptr_t)table(sizes[i].id)[0],
				  sizes[i].size);
	ck_assert_ptr_null(table(&runtime_id)[10]);
	for (i = 0; i < 3; i++)
		ck_assert_ptr_nonnull(cls[i]);
}
END_TEST

START_TEST(tables_need_init)
{
	const void *t = &t;

	ck_assert_int_eq(cuGetExportTable(&t, &runtime_id),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

START_TEST(primary_context_is_the_retained_one)
{
	primary_fn primary = SLOT(primary_fn, table(&runtime_id), 2);
	CUcontext ctx = NULL, again = NULL;
	unsigned int flags;
	int count, active;

	ck_assert_int_eq(primary(&ctx, 0), CUDA_SUCCESS);
	ck_assert_ptr_eq(ctx, setup_ctx);
	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	ck_assert_int_eq(primary(&ctx, count), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(primary(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	/* One retain for the runtime, kept: it outlives the program's. */
	ck_assert_int_eq(primary(&again, count - 1), CUDA_SUCCESS);
	ck_assert_int_eq(primary(&ctx, count - 1), CUDA_SUCCESS);
	ck_assert_ptr_eq(ctx, again);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&ctx, count - 1),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(ctx, again);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(count - 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(count - 1, &flags, &active),
			 CUDA_SUCCESS);
	ck_assert_int_eq(active, 1);
}
END_TEST

static void *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	void *buf = aligned_alloc(8, 1 << 20);
	size_t len;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(buf);
	len = fread(buf, 1, 1 << 20, f);
	ck_assert_uint_gt(len, 0);
	fclose(f);
	return buf;
}

START_TEST(fat_binaries_load_into_modules)
{
	const void *const *rt = table(&runtime_id);
	void *fatbin = read_file(DATA "/vecadd.fatbin");
	const struct {
		unsigned int magic, version;
		const void *data, *unused;
	} wrapper = { 0x466243b1, 1, fatbin, NULL };
	CUmodule mod = NULL;
	CUfunction fn;
	int more;

	ck_assert_int_eq(SLOT(load_wrapper_fn, rt, 1)(&mod, &wrapper),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&fn, mod, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	mod = NULL;
	ck_assert_int_eq(SLOT(load_fatbin_fn, rt, 8)(fatbin, &mod, NULL, NULL,
						     0), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&fn, mod, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(SLOT(load_fatbin_fn, rt, 8)(fatbin, &mod, &more, NULL,
						     0), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(SLOT(load_fatbin_fn, rt, 8)(fatbin, &mod, NULL, NULL,
						     1), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(SLOT(load_wrapper_fn, rt, 1)(NULL, &wrapper),
			 CUDA_ERROR_INVALID_VALUE);
	free(fatbin);
}
END_TEST

START_TEST(context_local_storage_keeps_a_value_per_context_and_key)
{
	const void *const *cls = table(&cls_id);
	cls_put_fn put = SLOT(cls_put_fn, cls, 0);
	cls_delete_fn del = SLOT(cls_delete_fn, cls, 1);
	cls_get_fn get = SLOT(cls_get_fn, cls, 2);
	int key, other_key, value, other_value;
	void *got = NULL;
	CUcontext other;

	ck_assert_int_eq(get(&got, NULL, &key), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(put(NULL, &key, &value, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, NULL, &key), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, &value);
	ck_assert_int_eq(get(&got, setup_ctx, &key), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, &value);
	ck_assert_int_eq(put(setup_ctx, &key, &other_value, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, NULL, &key), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, &other_value);
	ck_assert_int_eq(get(&got, NULL, &other_key),
			 CUDA_ERROR_INVALID_HANDLE);

	ck_assert_int_eq(cuCtxCreate(&other, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, other, &key), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(put(other, &key, &value, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, other, &key), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, &value);
	ck_assert_int_eq(cuCtxDestroy(other), CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, other, &key), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(put(other, &key, &value, NULL),
			 CUDA_ERROR_INVALID_CONTEXT);

	ck_assert_int_eq(del(NULL, &key), CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, setup_ctx, &key), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(del(NULL, &key), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(get(NULL, NULL, &key), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(get(&got, NULL, &key), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(put(NULL, &key, &value, NULL),
			 CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

START_TEST(hooks_and_checks_answer_what_the_runtime_reads)
{
	const void *const *hooks = table(&hooks_id);
	const void *const *checks = table(&checks_id);
	unsigned int wraps = 7;
	void *buffer = NULL;
	size_t size = 0;

	SLOT(buffer_fn, hooks, 2)(&buffer, &size);
	ck_assert_ptr_nonnull(buffer);
	ck_assert_uint_eq(size, 1024);
	memset(buffer, 0xff, size * 8);
	SLOT(buffer_fn, hooks, 6)(&buffer, &size);
	ck_assert_ptr_nonnull(buffer);
	ck_assert_uint_eq(size, 14);
	memset(buffer, 0xff, size * 8);

	ck_assert_int_eq(SLOT(wraps_fn, checks, 2)(setup_ctx, &wraps, NULL),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(wraps, 0);
	ck_assert_int_eq(SLOT(wraps_fn, checks, 2)(setup_ctx, NULL, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(SLOT(zero_fn, checks, 3)(), 0);
}
END_TEST

/* A slot nobody has established answers NOT_SUPPORTED, whatever it is. */
START_TEST(unknown_slots_are_refused)
{
	ck_assert_int_eq(SLOT(refused_fn, table(&other_id), 1)(),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(SLOT(refused_fn, table(&runtime_id), 3)(),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(SLOT(refused_fn, table(&checks_id), 14)(),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(SLOT(refused_fn, table(&integrity_id), 2)(),
			 CUDA_ERROR_NOT_SUPPORTED);
}
END_TEST

/* The documented inputs of the check, on the calling thread. */
static void expected_answer(unsigned int version, uint64_t seconds,
			    uint64_t answer[2])
{
	const void *const *check = table(&integrity_id);
	struct libcumc_integrity_device devices[128];
	struct libcumc_integrity_input in = {
		.driver_version = 13010,
		.version = version,
		.process = (uint32_t)getpid(),
		.thread = (uint32_t)pthread_self(),
		.runtime_table = table(&runtime_id),
		.check_table = check,
		.check = check[1],
		.unix_seconds = seconds,
	};
	CUuuid uuid;
	int count, dev;

	ck_assert_int_eq(cuDeviceGetCount(&count), CUDA_SUCCESS);
	for (dev = 0; dev < count; dev++) {
		ck_assert_int_eq(cuDeviceGetUuid(&uuid, dev), CUDA_SUCCESS);
		memcpy(devices[dev].uuid, uuid.bytes, sizeof(uuid.bytes));
		cuDeviceGetAttribute(&devices[dev].pci_domain,
				     CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
		cuDeviceGetAttribute(&devices[dev].pci_bus,
				     CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
		cuDeviceGetAttribute(&devices[dev].pci_device,
				     CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
	}
	libcumc_integrity_answer(&in, devices, (unsigned int)count, answer);
}

static void *answer_on_thread(void *arg)
{
	integrity_fn check = SLOT(integrity_fn, table(&integrity_id), 1);

	ck_assert_int_eq(check(13002, 0x6b0bc34a, arg), CUDA_SUCCESS);
	return NULL;
}

START_TEST(integrity_check_answers_from_documented_inputs)
{
	integrity_fn check = SLOT(integrity_fn, table(&integrity_id), 1);
	uint64_t got[2], want[2], other[2];
	pthread_t thread;

	ck_assert_int_eq(check(13000, 0x6b0bc34a, got), CUDA_SUCCESS);
	ck_assert_uint_eq(got[0], 0x3341181c03cb675cull);
	ck_assert_uint_eq(got[1], 0x8ed383aa1f4cd1e8ull);
	ck_assert_int_eq(check(13001, 0x6b0bc34a, got), CUDA_SUCCESS);
	ck_assert_uint_eq(got[0], 0x1841181c03cb675cull);
	ck_assert_uint_eq(got[1], 0x8ed383aa1f4cd1e8ull);

	ck_assert_int_eq(check(13002, 0x6b0bc34a, got), CUDA_SUCCESS);
	expected_answer(13002, 0x6b0bc34a, want);
	ck_assert_mem_eq(got, want, sizeof(got));
	ck_assert_int_eq(check(13002, 0x6b0bc34b, other), CUDA_SUCCESS);
	ck_assert_mem_ne(got, other, sizeof(got));

	/* The thread is an input: another thread gets another answer. */
	ck_assert_int_eq(pthread_create(&thread, NULL, answer_on_thread, other),
			 0);
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	ck_assert_mem_ne(got, other, sizeof(got));
	ck_assert_int_eq(check(13002, 0x6b0bc34a, NULL),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cuGetExportTable's runtime tables");
	TCase *tc = tcase_create("tables");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, tables_have_driver_580_sizes);
	tcase_add_test(tc, primary_context_is_the_retained_one);
	tcase_add_test(tc, fat_binaries_load_into_modules);
	tcase_add_test(tc, context_local_storage_keeps_a_value_per_context_and_key);
	tcase_add_test(tc, hooks_and_checks_answer_what_the_runtime_reads);
	tcase_add_test(tc, unknown_slots_are_refused);
	tcase_add_test(tc, integrity_check_answers_from_documented_inputs);
	suite_add_tcase(s, tc);
	check_add_uninit(s, tables_need_init);
	return check_run(s);
}
