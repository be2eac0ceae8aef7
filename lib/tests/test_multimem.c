// SPDX-License-Identifier: MIT
/*
 * The multimem data path against the module (runs in the VM): a team of
 * four devices in one process, each member's memory also mapped unicast so
 * the test can set and read what each member holds.
 */
#include <check.h>
#include <cuda.h>
#include <cumc.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check_run.h"
#include "multimem_ref.h"

#define MEMBERS 4

static struct {
	size_t size;
	CUmemGenericAllocationHandle mc, mem[MEMBERS];
	CUdeviceptr mc_va, uc_va[MEMBERS];
} team;

static CUmemAllocationProp mem_prop(CUdevice dev)
{
	CUmemAllocationProp prop;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	return prop;
}

static CUdeviceptr map(CUmemGenericAllocationHandle handle, CUdevice dev,
		       CUmemAccess_flags access)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
		.flags = access,
	};
	CUdeviceptr va;

	ck_assert_int_eq(cuMemAddressReserve(&va, team.size, 0, 0, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(va, team.size, 0, handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemSetAccess(va, team.size, &desc, 1), CUDA_SUCCESS);
	return va;
}

static void unmap(CUdeviceptr va)
{
	ck_assert_int_eq(cuMemUnmap(va, team.size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAddressFree(va, team.size), CUDA_SUCCESS);
}

static void team_setup(void)
{
	CUmulticastObjectProp mc_prop = { .numDevices = MEMBERS };
	int i;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastGetGranularity(&team.size, &mc_prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	mc_prop.size = team.size;
	ck_assert_int_eq(cuMulticastCreate(&team.mc, &mc_prop), CUDA_SUCCESS);
	/* Binding waits for the whole team: add every device first. */
	for (i = 0; i < MEMBERS; i++)
		ck_assert_int_eq(cuMulticastAddDevice(team.mc, i), CUDA_SUCCESS);
	for (i = 0; i < MEMBERS; i++) {
		CUmemAllocationProp prop = mem_prop(i);

		ck_assert_int_eq(cuMemCreate(&team.mem[i], team.size, &prop, 0),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMulticastBindMem(team.mc, 0, team.mem[i], 0,
						    team.size, 0), CUDA_SUCCESS);
		team.uc_va[i] = map(team.mem[i], i, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	}
	team.mc_va = map(team.mc, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
}

static void team_teardown(void)
{
	int i;

	unmap(team.mc_va);
	for (i = 0; i < MEMBERS; i++) {
		unmap(team.uc_va[i]);
		ck_assert_int_eq(cuMulticastUnbind(team.mc, i, 0, team.size),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMemRelease(team.mem[i]), CUDA_SUCCESS);
	}
	ck_assert_int_eq(cuMemRelease(team.mc), CUDA_SUCCESS);
}

static void *member(int i, size_t offset)
{
	return (char *)(uintptr_t)team.uc_va[i] + offset;
}

START_TEST(st_reaches_every_member)
{
	unsigned char src[12288];
	size_t offset = 8192;
	int i;

	for (i = 0; i < (int)sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	ck_assert_int_eq(cumcMultimemSt(team.mc_va + offset, src, sizeof(src)),
			 CUDA_SUCCESS);
	for (i = 0; i < MEMBERS; i++)
		ck_assert_mem_eq(member(i, offset), src, sizeof(src));
	ck_assert_int_eq(cumcMultimemSt(team.mc_va, src, 0), CUDA_SUCCESS);
}
END_TEST

/* Element @i of @out against the reduction of a over the members then b. */
static void check_element(const struct case_ *c, const void *out, size_t i,
			  double want_f, uint64_t want_i, const char *what)
{
	if (is_float(c->type))
		ck_assert_msg(get_float(out, c->type, i) == want_f,
			      "%s: type %d op %d element %zu: %g, want %g", what,
			      c->type, c->op, i, get_float(out, c->type, i),
			      want_f);
	else
		ck_assert_msg(get_int(out, c->type, i) == want_i,
			      "%s: type %d op %d element %zu: %llx, want %llx",
			      what, c->type, c->op, i,
			      (unsigned long long)get_int(out, c->type, i),
			      (unsigned long long)want_i);
}

#define ELEMENTS 5000	/* more than one 2048-element block, not a multiple */

START_TEST(ld_reduce_every_type_and_op)
{
	const struct case_ *c = &cases[_i];
	static unsigned char out[ELEMENTS * 8];
	size_t i;
	int m;

	for (m = 0; m < MEMBERS; m++)
		for (i = 0; i < ELEMENTS; i++)
			put(member(m, 0), c->type, i, value(m, i));
	ck_assert_int_eq(cumcMultimemLdReduce(out, team.mc_va, ELEMENTS, c->type,
					      c->op), CUDA_SUCCESS);
	for (i = 0; i < ELEMENTS; i++) {
		double want_f = float_value(c->type, 0, i);
		uint64_t want_i = int_value(c->type, 0, i);

		for (m = 1; m < MEMBERS; m++) {
			want_f = ref_float(c->op, want_f, float_value(c->type, m, i));
			want_i = ref_int(c->type, c->op, want_i,
					 int_value(c->type, m, i));
		}
		check_element(c, out, i, want_f, want_i, "ld_reduce");
	}
}
END_TEST

START_TEST(red_combines_into_every_member)
{
	const struct case_ *c = &cases[_i];
	static unsigned char src[ELEMENTS * 8];
	size_t i;
	int m;

	for (i = 0; i < ELEMENTS; i++)
		put(src, c->type, i, value(MEMBERS, i));
	for (m = 0; m < MEMBERS; m++)
		for (i = 0; i < ELEMENTS; i++)
			put(member(m, 0), c->type, i, value(m, i));
	if (is_float(c->type) && c->op != CUMC_OP_ADD) {
		ck_assert_int_eq(cumcMultimemRed(team.mc_va, src, ELEMENTS,
						 c->type, c->op),
				 CUDA_ERROR_INVALID_VALUE);
		return;
	}
	ck_assert_int_eq(cumcMultimemRed(team.mc_va, src, ELEMENTS, c->type, c->op),
			 CUDA_SUCCESS);
	for (m = 0; m < MEMBERS; m++)
		for (i = 0; i < ELEMENTS; i++)
			check_element(c, member(m, 0), i,
				      ref_float(c->op, float_value(c->type, m, i),
						float_value(c->type, MEMBERS, i)),
				      ref_int(c->type, c->op, int_value(c->type, m, i),
					      int_value(c->type, MEMBERS, i)),
				      "red");
}
END_TEST

#define RED_THREADS 4
#define RED_ROUNDS 2000

static void *red_one_thousand_times(void *unused)
{
	uint32_t one = 1;
	int i;

	(void)unused;
	for (i = 0; i < RED_ROUNDS; i++)
		if (cumcMultimemRed(team.mc_va + 64, &one, 1, CUMC_U32,
				    CUMC_OP_ADD) != CUDA_SUCCESS)
			return (void *)1;
	return NULL;
}

/* The barrier pattern of NCCL: every rank adds into one counter. */
START_TEST(red_is_atomic_per_element)
{
	pthread_t threads[RED_THREADS];
	void *ret;
	int i;

	for (i = 0; i < MEMBERS; i++)
		*(uint32_t *)member(i, 64) = 0;
	for (i = 0; i < RED_THREADS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL,
						red_one_thousand_times, NULL), 0);
	for (i = 0; i < RED_THREADS; i++) {
		ck_assert_int_eq(pthread_join(threads[i], &ret), 0);
		ck_assert_ptr_null(ret);
	}
	for (i = 0; i < MEMBERS; i++)
		ck_assert_uint_eq(*(uint32_t *)member(i, 64),
				  RED_THREADS * RED_ROUNDS);
}
END_TEST

START_TEST(bad_arguments_refused)
{
	uint32_t buf[4] = { 0 };

	/* Pairs the hardware lacks. */
	ck_assert_int_eq(cumcMultimemLdReduce(buf, team.mc_va, 1, CUMC_F64,
					      CUMC_OP_MIN), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemLdReduce(buf, team.mc_va, 1, CUMC_F32,
					      CUMC_OP_XOR), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemLdReduce(buf, team.mc_va, 1, (cumcDataType)8,
					      CUMC_OP_ADD), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemLdReduce(buf, team.mc_va, 1, CUMC_U32,
					      (cumcReduceOp)6), CUDA_ERROR_INVALID_VALUE);
	/* Misaligned elements, NULL buffers, counts that overflow. */
	ck_assert_int_eq(cumcMultimemLdReduce(buf, team.mc_va + 2, 1, CUMC_U32,
					      CUMC_OP_ADD), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemLdReduce(NULL, team.mc_va, 1, CUMC_U32,
					      CUMC_OP_ADD), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemSt(team.mc_va, NULL, 4),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemRed(team.mc_va, buf, SIZE_MAX / 2, CUMC_U32,
					 CUMC_OP_ADD), CUDA_ERROR_INVALID_VALUE);
	/* Past the end of the mapping, or not multicast at all. */
	ck_assert_int_eq(cumcMultimemSt(team.mc_va + team.size - 8, buf, 16),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemSt(team.uc_va[0], buf, 16),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemSt((CUdeviceptr)(uintptr_t)buf, buf, 16),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cumcMultimemLdReduce(buf, team.uc_va[0], 4, CUMC_U32,
					      CUMC_OP_ADD), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(read_only_mapping_takes_loads_only)
{
	CUdeviceptr ro = map(team.mc, 1, CU_MEM_ACCESS_FLAGS_PROT_READ);
	uint32_t v = 5, sum = 0;
	int i;

	for (i = 0; i < MEMBERS; i++)
		*(uint32_t *)member(i, 0) = (uint32_t)i;
	ck_assert_int_eq(cumcMultimemLdReduce(&sum, ro, 1, CUMC_U32, CUMC_OP_ADD),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(sum, 0 + 1 + 2 + 3);
	ck_assert_int_eq(cumcMultimemSt(ro, &v, sizeof(v)),
			 CUDA_ERROR_ILLEGAL_ADDRESS);
	ck_assert_int_eq(cumcMultimemRed(ro, &v, 1, CUMC_U32, CUMC_OP_ADD),
			 CUDA_ERROR_ILLEGAL_ADDRESS);
	unmap(ro);
}
END_TEST

START_TEST(granularity_grows_with_size_up_to_the_fabric_page)
{
	CUmulticastObjectProp prop = { 0 };
	size_t min = 0, rec = 0;

	/* An all-zero property is a valid query. */
	ck_assert_int_eq(cuMulticastGetGranularity(&min, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	ck_assert_uint_eq(min, 2u << 20);
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			CU_MULTICAST_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	ck_assert_uint_eq(rec, min);
	prop.numDevices = MEMBERS;
	prop.size = 24 << 10;
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			CU_MULTICAST_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	ck_assert_uint_eq(rec, 2u << 20);
	prop.size = (size_t)1 << 30;
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			CU_MULTICAST_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	ck_assert_uint_eq(rec, 128u << 20);
	prop.size = (size_t)64 << 30;
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			CU_MULTICAST_GRANULARITY_RECOMMENDED), CUDA_SUCCESS);
	ck_assert_uint_eq(rec, 512u << 20);

	ck_assert_int_eq(cuMulticastGetGranularity(NULL, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, NULL,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			(CUmulticastGranularity_flags)2), CUDA_ERROR_INVALID_VALUE);
	prop.flags = 1;
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
	prop.flags = 0;
	prop.handleTypes = CU_MEM_HANDLE_TYPE_WIN32;
	ck_assert_int_eq(cuMulticastGetGranularity(&rec, &prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* The CUDA 13.1 binds name the device, which must be a device. */
START_TEST(v2_binds_name_the_device)
{
	ck_assert_int_eq(cuMulticastUnbind(team.mc, 1, 0, team.size),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastBindMem_v2(team.mc, 99, 0, team.mem[1], 0,
					       team.size, 0),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuMulticastBindMem_v2(team.mc, 1, 0, team.mem[1], 0,
					       team.size, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastUnbind(team.mc, 1, 0, team.size),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMulticastBindAddr_v2(team.mc, -1, 0, team.uc_va[1],
						team.size, 0),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuMulticastBindAddr_v2(team.mc, 1, 0, team.uc_va[1],
						team.size, 0), CUDA_SUCCESS);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("multimem");
	TCase *data = tcase_create("data path");
	TCase *gran = tcase_create("granularity");

	tcase_add_checked_fixture(data, team_setup, team_teardown);
	tcase_add_test(data, st_reaches_every_member);
	tcase_add_loop_test(data, ld_reduce_every_type_and_op, 0,
			    sizeof(cases) / sizeof(cases[0]));
	tcase_add_loop_test(data, red_combines_into_every_member, 0,
			    sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(data, red_is_atomic_per_element);
	tcase_add_test(data, bad_arguments_refused);
	tcase_add_test(data, read_only_mapping_takes_loads_only);
	tcase_add_test(data, v2_binds_name_the_device);
	tcase_set_timeout(data, 120);
	suite_add_tcase(s, data);
	tcase_add_checked_fixture(gran, team_setup, team_teardown);
	tcase_add_test(gran, granularity_grows_with_size_up_to_the_fabric_page);
	suite_add_tcase(s, gran);
	return check_run(s);
}
