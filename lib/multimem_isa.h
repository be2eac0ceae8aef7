/* SPDX-License-Identifier: MIT */
/*
 * Which build of the data path's loops runs on this CPU.
 */
#ifndef _CUMC_LIB_MULTIMEM_ISA_H
#define _CUMC_LIB_MULTIMEM_ISA_H

#include <stdbool.h>

/* The builds of each loop: baseline x86-64 (SSE2), x86-64-v3, x86-64-v4. */
enum libcumc_isa {
	LIBCUMC_ISA_BASE,
	LIBCUMC_ISA_V3,
	LIBCUMC_ISA_V4,
	LIBCUMC_ISA_COUNT
};

/*
 * The build the data path runs, decided at the first call: the widest this
 * CPU has, except under an emulator (see multimem_isa.c), where it is the
 * baseline.
 */
enum libcumc_isa libcumc_multimem_isa(void);

/* Whether QEMU's TCG emulates this CPU (its CPUID hypervisor signature). */
bool libcumc_cpu_emulated(void);

/* Whether this CPU can run the loops built for @isa. */
bool libcumc_isa_supported(enum libcumc_isa isa);

/*
 * Tests: run @isa's loops from now on (one this CPU supports), and copy
 * with the data path's own loop (@emulated) or memcpy, as under TCG or not.
 */
void libcumc_multimem_force_isa(enum libcumc_isa isa, bool emulated);

#endif /* _CUMC_LIB_MULTIMEM_ISA_H */
