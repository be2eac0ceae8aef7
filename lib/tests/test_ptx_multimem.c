// SPDX-License-Identifier: MIT
/*
 * multimem in kernels (runs in the VM): nvcc's inline asm forms
 * (ptx/tests/data/multimem.ptx) launched over a multicast object of four
 * devices, bound and mapped as test_multimem.c does; every element the
 * kernels leave in each member, and every value they load, is checked
 * against cumcMultimemLdReduce / cumcMultimemRed on the same memory.
 */
#include <check.h>
#include <cuda.h>
#include <cumc.h>
#include <stdint.h>
#include <string.h>

#include "check_run.h"
#include "vmm.h"

#define DATA PTX_TEST_DATA
#define MEMBERS 4
#define N 4096		/* 32-bit words the kernels cover */

static struct {
	size_t size;
	CUmemGenericAllocationHandle mc, mem[MEMBERS];
	CUdeviceptr mc_va, uc_va[MEMBERS];
	CUmodule mod;
} team;

static CUdeviceptr map(CUmemGenericAllocationHandle handle, CUdevice dev)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUdeviceptr va;

	ck_assert_int_eq(cuMemAddressReserve(&va, team.size, 0, 0, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(va, team.size, 0, handle, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemSetAccess(va, team.size, &desc, 1), CUDA_SUCCESS);
	return va;
}

static void setup(void)
{
	CUmulticastObjectProp mc_prop = { .numDevices = MEMBERS };
	int i;

	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
	ck_assert_int_eq(cuMulticastGetGranularity(&team.size, &mc_prop,
			CU_MULTICAST_GRANULARITY_MINIMUM), CUDA_SUCCESS);
	if (team.size < N * 4)
		team.size = N * 4;
	mc_prop.size = team.size;
	ck_assert_int_eq(cuMulticastCreate(&team.mc, &mc_prop), CUDA_SUCCESS);
	for (i = 0; i < MEMBERS; i++)
		ck_assert_int_eq(cuMulticastAddDevice(team.mc, i), CUDA_SUCCESS);
	for (i = 0; i < MEMBERS; i++) {
		CUmemAllocationProp prop = {
			.type = CU_MEM_ALLOCATION_TYPE_PINNED,
			.location = { CU_MEM_LOCATION_TYPE_DEVICE, i },
		};

		ck_assert_int_eq(cuMemCreate(&team.mem[i], team.size, &prop, 0),
				 CUDA_SUCCESS);
		ck_assert_int_eq(cuMulticastBindMem(team.mc, 0, team.mem[i], 0,
						    team.size, 0), CUDA_SUCCESS);
		team.uc_va[i] = map(team.mem[i], i);
	}
	team.mc_va = map(team.mc, 0);
	ck_assert_int_eq(cuModuleLoad(&team.mod, DATA "/multimem.ptx"),
			 CUDA_SUCCESS);
}

static uint32_t *member(int i)
{
	return (uint32_t *)(uintptr_t)team.uc_va[i];
}

/* Finite values of every sign and a spread of exponents, per member. */
static void fill(int bits16)
{
	int m, i;

	for (m = 0; m < MEMBERS; m++)
		for (i = 0; i < N; i++) {
			uint32_t h = (uint32_t)(i * 2654435761u + m * 40503u);
			float f = (float)((int)(h % 20001) - 10000) /
				  (float)(1 + (h >> 20) % 97);

			if (bits16 == 1)	/* f16: exponents 1..29 */
				h = (h & 0x83ff83ffu) | (((h >> 10) % 29 + 1) << 10) |
				    (((h >> 14) % 29 + 1) << 26);
			else if (bits16 == 2)	/* bf16: exponents near 127 */
				h = (h & 0x807f807fu) | ((120 + (h >> 7) % 16) << 7) |
				    ((120 + (h >> 23) % 16) << 23);
			else
				memcpy(&h, &f, 4);
			member(m)[i] = h;
		}
}

static void launch(const char *name, CUdeviceptr out, unsigned int n,
		   unsigned int block)
{
	CUfunction f;
	void *args_out[] = { &team.mc_va, &out, &n };
	void *args[] = { &team.mc_va, &n };

	ck_assert_int_eq(cuModuleGetFunction(&f, team.mod, name), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, (n + block - 1) / block, 1, 1, block,
					1, 1, 0, NULL, out ? args_out : args,
					NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
}

/* Every member holds @want, element by element. */
static void members_hold(const uint32_t *want)
{
	int m, i;

	for (m = 0; m < MEMBERS; m++)
		for (i = 0; i < N; i++)
			ck_assert_msg(member(m)[i] == want[i],
				      "member %d word %d: %08x, want %08x", m, i,
				      member(m)[i], want[i]);
}

static void out_holds(CUdeviceptr out, const uint32_t *want)
{
	static uint32_t got[N];
	int i;

	ck_assert_int_eq(cuMemcpyDtoH(got, out, sizeof(got)), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_msg(got[i] == want[i], "word %d: %08x, want %08x", i,
			      got[i], want[i]);
}

START_TEST(allreduce_f32_scalar)
{
	static uint32_t want[N];

	fill(0);
	ck_assert_int_eq(cumcMultimemLdReduce(want, team.mc_va, N, CUMC_F32,
					      CUMC_OP_ADD), CUDA_SUCCESS);
	launch("allreduce_f32", 0, N, 256);
	members_hold(want);
}
END_TEST

START_TEST(allreduce_f32_v4)
{
	static uint32_t want[N];
	CUdeviceptr out;

	fill(0);
	ck_assert_int_eq(cuMemAlloc(&out, N * 4), CUDA_SUCCESS);
	ck_assert_int_eq(cumcMultimemLdReduce(want, team.mc_va, N, CUMC_F32,
					      CUMC_OP_ADD), CUDA_SUCCESS);
	launch("allreduce_v4f32", out, N / 4, 128);
	out_holds(out, want);
	members_hold(want);
	ck_assert_int_eq(cuMemFree(out), CUDA_SUCCESS);
}
END_TEST

static void reduce16(const char *name, int bits16, cumcDataType type)
{
	static uint32_t want[N];
	CUdeviceptr out;

	fill(bits16);
	ck_assert_int_eq(cuMemAlloc(&out, N * 4), CUDA_SUCCESS);
	ck_assert_int_eq(cumcMultimemLdReduce(want, team.mc_va, 2 * N, type,
					      CUMC_OP_ADD), CUDA_SUCCESS);
	launch(name, out, N / 4, 64);
	out_holds(out, want);
	ck_assert_int_eq(cuMemFree(out), CUDA_SUCCESS);
}

START_TEST(reduce_bf16x2_acc_f32)
{
	reduce16("reduce_bf16x2", 2, CUMC_BF16);
}
END_TEST

START_TEST(reduce_f16x2_acc_f32)
{
	reduce16("reduce_f16x2", 1, CUMC_F16);
}
END_TEST

/* Two red.add.u32 of 1 (relaxed, release) per thread, as cumcMultimemRed. */
START_TEST(signal_pad_red)
{
	static uint32_t want[N], ones[N];
	CUfunction f;
	void *args[] = { &team.mc_va };
	int i, m;

	for (m = 0; m < MEMBERS; m++)
		memset(member(m), 0, N * 4);
	for (i = 0; i < N; i++)
		ones[i] = 1;
	ck_assert_int_eq(cuModuleGetFunction(&f, team.mod, "signal"),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 3, 1, 1, 64, 1, 1, 0, NULL, args,
					NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_SUCCESS);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(cumcMultimemRed(team.mc_va + 64 * 4, ones, 64,
						 CUMC_U32, CUMC_OP_ADD),
				 CUDA_SUCCESS);
	memcpy(want, member(0), sizeof(want));
	for (i = 0; i < 64; i++) {
		ck_assert_uint_eq(want[i], 6);
		ck_assert_uint_eq(want[64 + i], 6);
	}
	members_hold(want);
}
END_TEST

/* A multicast address the launch's device has not mapped: plain memory. */
START_TEST(plain_memory_faults)
{
	CUdeviceptr plain;
	CUfunction f;
	unsigned int n = 32;
	void *args[] = { &plain, &n };

	ck_assert_int_eq(cuMemAlloc(&plain, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, team.mod, "allreduce_f32"),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, NULL, args,
					NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
}
END_TEST

/*
 * Through a mapping of the multicast object that may only read, the
 * kernel's ld_reduce and st of its sums (one access of the data path for
 * a warp) fault at the st, and no member changes: the pair is refused
 * whole and the threads' own ld_reduce and st are made one by one.
 */
START_TEST(read_only_mapping_st_faults)
{
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READ,
	};
	static uint32_t before[MEMBERS][N];
	CUdeviceptr ro;
	CUfunction f;
	unsigned int n = N;
	void *args[] = { &ro, &n };
	int m;

	fill(0);
	for (m = 0; m < MEMBERS; m++)
		memcpy(before[m], member(m), sizeof(before[m]));
	ck_assert_int_eq(cuMemAddressReserve(&ro, team.size, 0, 0, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemMap(ro, team.size, 0, team.mc, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemSetAccess(ro, team.size, &desc, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, team.mod, "allreduce_f32"),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 0, NULL,
					args, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSynchronize(), CUDA_ERROR_ILLEGAL_ADDRESS);
	for (m = 0; m < MEMBERS; m++)
		ck_assert_mem_eq(member(m), before[m], sizeof(before[m]));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ptx_multimem");
	TCase *tc = tcase_create("kernels");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, allreduce_f32_scalar);
	tcase_add_test(tc, allreduce_f32_v4);
	tcase_add_test(tc, reduce_bf16x2_acc_f32);
	tcase_add_test(tc, reduce_f16x2_acc_f32);
	tcase_add_test(tc, signal_pad_red);
	tcase_add_test(tc, plain_memory_faults);
	tcase_add_test(tc, read_only_mapping_st_faults);
	suite_add_tcase(s, tc);
	return check_run_forked(s);
}
