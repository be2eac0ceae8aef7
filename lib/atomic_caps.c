// SPDX-License-Identifier: MIT
/*
 * Which atomic operations a link does natively: between a device and the
 * host, and between two devices (cuDeviceGet*AtomicCapabilities).
 *
 * Host: none, as driver 580 answers on an H200 for every operation
 * (conformance/answers), although cumc's host and devices share memory.
 *
 * Peer: every pair of cumc's devices is an NVLink pair of H100s behind an
 * NVSwitch (peer.c), so a pair answers what compute capability 9.0 does
 * over NVLink: the integer operations signed and unsigned on 32 and 64
 * bits, reductions for all but exchange and compare-and-swap, which have
 * 128 bits instead; increment and decrement only unsigned 32-bit, as PTX
 * has them; float add on 32 and 64 bits and float min/max on 32, each as
 * a reduction and on vectors of four 32-bit floats (Documentation/api.md,
 * "Atomic capabilities").
 */
#include "entry.h"
#include "internal.h"

#define CAP_INTEGER (CU_ATOMIC_CAPABILITY_SIGNED |			\
		     CU_ATOMIC_CAPABILITY_UNSIGNED |			\
		     CU_ATOMIC_CAPABILITY_SCALAR_32 |			\
		     CU_ATOMIC_CAPABILITY_SCALAR_64)
#define CAP_FLOAT_32 (CU_ATOMIC_CAPABILITY_SIGNED |			\
		      CU_ATOMIC_CAPABILITY_REDUCTION |			\
		      CU_ATOMIC_CAPABILITY_SCALAR_32 |			\
		      CU_ATOMIC_CAPABILITY_VECTOR_32x4)

static const unsigned int peer_caps[CU_ATOMIC_OPERATION_MAX] = {
	[CU_ATOMIC_OPERATION_INTEGER_ADD] =
		CAP_INTEGER | CU_ATOMIC_CAPABILITY_REDUCTION,
	[CU_ATOMIC_OPERATION_INTEGER_MIN] =
		CAP_INTEGER | CU_ATOMIC_CAPABILITY_REDUCTION,
	[CU_ATOMIC_OPERATION_INTEGER_MAX] =
		CAP_INTEGER | CU_ATOMIC_CAPABILITY_REDUCTION,
	[CU_ATOMIC_OPERATION_INTEGER_INCREMENT] =
		CU_ATOMIC_CAPABILITY_UNSIGNED | CU_ATOMIC_CAPABILITY_REDUCTION |
		CU_ATOMIC_CAPABILITY_SCALAR_32,
	[CU_ATOMIC_OPERATION_INTEGER_DECREMENT] =
		CU_ATOMIC_CAPABILITY_UNSIGNED | CU_ATOMIC_CAPABILITY_REDUCTION |
		CU_ATOMIC_CAPABILITY_SCALAR_32,
	[CU_ATOMIC_OPERATION_AND] = CAP_INTEGER | CU_ATOMIC_CAPABILITY_REDUCTION,
	[CU_ATOMIC_OPERATION_OR] = CAP_INTEGER | CU_ATOMIC_CAPABILITY_REDUCTION,
	[CU_ATOMIC_OPERATION_XOR] = CAP_INTEGER | CU_ATOMIC_CAPABILITY_REDUCTION,
	[CU_ATOMIC_OPERATION_EXCHANGE] =
		CAP_INTEGER | CU_ATOMIC_CAPABILITY_SCALAR_128,
	[CU_ATOMIC_OPERATION_CAS] = CAP_INTEGER | CU_ATOMIC_CAPABILITY_SCALAR_128,
	[CU_ATOMIC_OPERATION_FLOAT_ADD] =
		CAP_FLOAT_32 | CU_ATOMIC_CAPABILITY_SCALAR_64,
	[CU_ATOMIC_OPERATION_FLOAT_MIN] = CAP_FLOAT_32,
	[CU_ATOMIC_OPERATION_FLOAT_MAX] = CAP_FLOAT_32,
};

/*
 * The arrays and their operations. Driver 580 zeroes the answers before
 * it looks at the operations: an unknown one leaves them 0.
 */
static CUresult atomic_caps_check(unsigned int *capabilities,
				  const CUatomicOperation *operations,
				  unsigned int count)
{
	unsigned int i;

	if (!capabilities || !operations || !count)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < count; i++)
		capabilities[i] = 0;
	for (i = 0; i < count; i++)
		if ((unsigned int)operations[i] >= CU_ATOMIC_OPERATION_MAX)
			return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult libcumc_impl_cuDeviceGetHostAtomicCapabilities(
	const struct libcumc_driver *drv, unsigned int *capabilities,
	const CUatomicOperation *operations, unsigned int count, CUdevice dev)
{
	CUresult res = libcumc_check_device(drv, dev);

	if (res == CUDA_SUCCESS)
		res = atomic_caps_check(capabilities, operations, count);
	return res;
}

CUresult libcumc_impl_cuDeviceGetP2PAtomicCapabilities(
	const struct libcumc_driver *drv, unsigned int *capabilities,
	const CUatomicOperation *operations, unsigned int count,
	CUdevice srcDevice, CUdevice dstDevice)
{
	CUresult res = libcumc_check_device(drv, srcDevice);
	unsigned int i;

	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, dstDevice);
	/* A device and itself have no link: driver 580 answers so. */
	if (res == CUDA_SUCCESS && srcDevice == dstDevice)
		res = CUDA_ERROR_INVALID_DEVICE;
	if (res == CUDA_SUCCESS)
		res = atomic_caps_check(capabilities, operations, count);
	if (res != CUDA_SUCCESS)
		return res;
	for (i = 0; i < count; i++)
		capabilities[i] = peer_caps[operations[i]];
	return CUDA_SUCCESS;
}
