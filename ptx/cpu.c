// SPDX-License-Identifier: MIT
/*
 * Whether the CPU is QEMU's TCG, the emulator of the VM the tests and the
 * demo run in: it advertises AVX2 but runs wide vector code slower than
 * SSE's, so the JIT (jit.c) and libcumc's data path
 * (lib/multimem_isa.c) use baseline code there. TCG names itself with
 * its CPUID hypervisor signature, "TCGTCGTCGTCG".
 */
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "exec.h"

/* -1 until known; a benign race finds it twice. */
static int ptx_cpu_emulated = -1;

bool cumc_ptx_cpu_emulated(void)
{
	int emulated = __atomic_load_n(&ptx_cpu_emulated, __ATOMIC_RELAXED);
#if defined(__x86_64__)
	unsigned int eax, ebx, ecx, edx;
	char sig[12];

	if (emulated >= 0)
		return emulated;
	emulated = 0;
	/* CPUID.1:ECX bit 31: a hypervisor; leaf 0x40000000 names it. */
	if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 31))) {
		__cpuid(0x40000000, eax, ebx, ecx, edx);
		memcpy(sig, &ebx, 4);
		memcpy(sig + 4, &ecx, 4);
		memcpy(sig + 8, &edx, 4);
		emulated = !memcmp(sig, "TCGTCGTCGTCG", sizeof(sig));
	}
#else
	emulated = 0;
#endif
	__atomic_store_n(&ptx_cpu_emulated, emulated, __ATOMIC_RELAXED);
	return emulated;
}

void ptx_cpu_force_emulated(bool emulated)
{
	__atomic_store_n(&ptx_cpu_emulated, emulated, __ATOMIC_RELAXED);
}
