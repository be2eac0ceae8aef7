// SPDX-License-Identifier: MIT
/*
 * Which build of the data path's loops to run.
 *
 * The reduction and copy loops are built for baseline x86-64, x86-64-v3
 * (AVX2) and x86-64-v4 (AVX-512). On a real CPU the widest one it has is
 * the fastest. Under QEMU's TCG, the emulator of the VM the tests and the
 * demo run in, it is not: TCG advertises AVX2 but runs each 256-bit
 * floating-point instruction as a helper that loops over the elements, and
 * the AVX2 reduction measured about 1.8 times slower than the SSE2 one over
 * eight members (Documentation/performance.md, The demo's all-reduce). So
 * under TCG (cumc_ptx_cpu_emulated()) the baseline build runs.
 */
#include "cumc_ptx.h"
#include "multimem_isa.h"

/* The choice, LIBCUMC_ISA_COUNT until made; a benign race makes it twice. */
static int libcumc_isa_chosen = LIBCUMC_ISA_COUNT;
/* -1: as the CPU says; libcumc_multimem_force_isa() sets it for the tests. */
static int libcumc_emulated = -1;

bool libcumc_cpu_emulated(void)
{
	int emulated = __atomic_load_n(&libcumc_emulated, __ATOMIC_RELAXED);

	return emulated >= 0 ? emulated : cumc_ptx_cpu_emulated();
}

bool libcumc_isa_supported(enum libcumc_isa isa)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	switch (isa) {
	case LIBCUMC_ISA_BASE:
		return true;
	case LIBCUMC_ISA_V3:
		return __builtin_cpu_supports("x86-64-v3");
	case LIBCUMC_ISA_V4:
		return __builtin_cpu_supports("x86-64-v4");
	default:
		return false;
	}
#else
	return isa == LIBCUMC_ISA_BASE;
#endif
}

enum libcumc_isa libcumc_multimem_isa(void)
{
	int isa = __atomic_load_n(&libcumc_isa_chosen, __ATOMIC_RELAXED);

	if (isa != LIBCUMC_ISA_COUNT)
		return isa;
	if (libcumc_cpu_emulated())
		isa = LIBCUMC_ISA_BASE;
	else if (libcumc_isa_supported(LIBCUMC_ISA_V4))
		isa = LIBCUMC_ISA_V4;
	else if (libcumc_isa_supported(LIBCUMC_ISA_V3))
		isa = LIBCUMC_ISA_V3;
	else
		isa = LIBCUMC_ISA_BASE;
	__atomic_store_n(&libcumc_isa_chosen, isa, __ATOMIC_RELAXED);
	return isa;
}

void libcumc_multimem_force_isa(enum libcumc_isa isa, bool emulated)
{
	__atomic_store_n(&libcumc_isa_chosen, isa, __ATOMIC_RELAXED);
	__atomic_store_n(&libcumc_emulated, emulated, __ATOMIC_RELAXED);
}
