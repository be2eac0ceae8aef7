// SPDX-License-Identifier: MIT
/*
 * libcumc-ptx built to open an LLVM library that no machine has (the
 * Makefile's PTX_JIT_LIBRARY for this program): kernels run on the
 * interpreter, a note says why, and nothing else changes.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cumc_ptx.h"

static char note[512];

static void keep_note(const char *line)
{
	snprintf(note, sizeof(note), "%s", line);
}

static bool any_memory(void *arg, uint64_t addr, size_t len, bool write,
		       uint64_t *lo, uint64_t *hi)
{
	(void)arg;
	(void)write;
	*lo = addr;
	*hi = addr + len;
	return true;
}

START_TEST(test_interpreted_without_llvm)
{
	static char text[1 << 16];
	FILE *f = fopen(PTX_TEST_DATA "/vecadd.ptx", "r");
	struct { const float *a, *b; float *c; int n; } p;
	struct cumc_ptx_memory mem = { any_memory, NULL };
	struct cumc_ptx_launch l = { .grid = { 2, 1, 1 }, .block = { 64, 1, 1 },
				     .params = &p, .memory = &mem };
	const struct cumc_ptx_function *fn;
	struct cumc_ptx_module *m;
	float a[128], b[128], c[128];
	char log[128];
	unsigned int i;

	ck_assert(f);
	text[fread(text, 1, sizeof(text) - 1, f)] = 0;
	fclose(f);
	cumc_ptx_set_log(keep_note);
	ck_assert_int_eq(cumc_ptx_load(text, 0, 90, &m, log, sizeof(log)),
			 CUMC_PTX_OK);
	ck_assert_msg(strstr(note, "libLLVM-missing.so.1") &&
		      strstr(note, "kernels run on the interpreter"), "%s", note);
	fn = cumc_ptx_function_find(m, "vecAdd");
	ck_assert(!cumc_ptx_compiled(fn));
	for (i = 0; i < 128; i++) {
		a[i] = i;
		b[i] = 2.0f * i;
	}
	p.a = a;
	p.b = b;
	p.c = c;
	p.n = 128;
	ck_assert_int_eq(cumc_ptx_launch(fn, &l, NULL), CUMC_PTX_OK);
	for (i = 0; i < 128; i++)
		ck_assert_float_eq(c[i], 3.0f * i);
	cumc_ptx_unload(m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptx_nollvm");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_interpreted_without_llvm);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
