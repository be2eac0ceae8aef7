// SPDX-License-Identifier: MIT
/*
 * Peer access (peer.c), context flags (ctx_flags.c) and the refusals of
 * module loading and kernel launches (module.c), in the VM: good and bad
 * arguments of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_run.h"
#include "vmm.h"

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
}

START_TEST(needs_init)
{
	int v;
	unsigned int flags;
	CUmodule mod;
	CUlibrary lib;
	CUfunction f;

	ck_assert_int_eq(cuDeviceCanAccessPeer(&v, 0, 1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
						 0, 1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxEnablePeerAccess((CUcontext)1, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxDisablePeerAccess((CUcontext)1), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuCtxSetFlags(0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, &flags, &v), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDevicePrimaryCtxSetFlags(0, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuModuleLoadData(&mod, "x"), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuLibraryLoadData(&lib, "x", NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuModuleGetFunction(&f, NULL, "k"), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuLibraryGetKernelCount(&flags, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuFuncSetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, 1),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuKernelGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS, NULL, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, NULL, 32, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuLinkCreate(0, NULL, NULL, NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuLinkDestroy(NULL), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(NULL, NULL, 0, 0),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuDeviceGetP2PAtomicCapabilities(NULL, NULL, 0, 0, 1),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

/* Atomic capabilities */

static CUatomicOperation every_op[CU_ATOMIC_OPERATION_MAX];

static void every_op_fill(unsigned int *caps)
{
	int i;

	for (i = 0; i < CU_ATOMIC_OPERATION_MAX; i++) {
		every_op[i] = (CUatomicOperation)i;
		caps[i] = 0xdead;
	}
}

/* None natively to the host, as driver 580 answers on an H200. */
START_TEST(host_atomic_capabilities_are_none)
{
	unsigned int caps[CU_ATOMIC_OPERATION_MAX], cap = 0xdead;
	CUatomicOperation bad = CU_ATOMIC_OPERATION_MAX;
	int i;

	every_op_fill(caps);
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(caps, every_op,
							   CU_ATOMIC_OPERATION_MAX, 0),
			 CUDA_SUCCESS);
	for (i = 0; i < CU_ATOMIC_OPERATION_MAX; i++)
		ck_assert_uint_eq(caps[i], 0);
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(&cap, every_op, 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(NULL, every_op, 1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(&cap, NULL, 1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(&cap, every_op, 1,
							   vmm_device_count()),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_uint_eq(cap, 0xdead);
	/* An unknown operation leaves the answers zeroed, as driver 580. */
	ck_assert_int_eq(cuDeviceGetHostAtomicCapabilities(&cap, &bad, 1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(cap, 0);
}
END_TEST

/* An NVLink pair of compute capability 9.0; no link of a device and itself. */
START_TEST(p2p_atomic_capabilities_of_nvlink_peers)
{
	const unsigned int integer = CU_ATOMIC_CAPABILITY_SIGNED |
		CU_ATOMIC_CAPABILITY_UNSIGNED | CU_ATOMIC_CAPABILITY_SCALAR_32 |
		CU_ATOMIC_CAPABILITY_SCALAR_64;
	unsigned int caps[CU_ATOMIC_OPERATION_MAX], cap = 0xdead;
	CUatomicOperation bad = (CUatomicOperation)-1;
	int n = vmm_device_count();

	every_op_fill(caps);
	ck_assert_int_eq(cuDeviceGetP2PAtomicCapabilities(caps, every_op,
							  CU_ATOMIC_OPERATION_MAX, 0, n - 1),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(caps[CU_ATOMIC_OPERATION_INTEGER_ADD],
			  integer | CU_ATOMIC_CAPABILITY_REDUCTION);
	ck_assert_uint_eq(caps[CU_ATOMIC_OPERATION_CAS],
			  integer | CU_ATOMIC_CAPABILITY_SCALAR_128);
	ck_assert_uint_eq(caps[CU_ATOMIC_OPERATION_INTEGER_INCREMENT],
			  CU_ATOMIC_CAPABILITY_UNSIGNED | CU_ATOMIC_CAPABILITY_REDUCTION |
			  CU_ATOMIC_CAPABILITY_SCALAR_32);
	ck_assert_uint_eq(caps[CU_ATOMIC_OPERATION_FLOAT_MAX],
			  CU_ATOMIC_CAPABILITY_SIGNED | CU_ATOMIC_CAPABILITY_REDUCTION |
			  CU_ATOMIC_CAPABILITY_SCALAR_32 | CU_ATOMIC_CAPABILITY_VECTOR_32x4);
	ck_assert_int_eq(cuDeviceGetP2PAtomicCapabilities(&cap, every_op, 1, 0, 0),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetP2PAtomicCapabilities(&cap, every_op, 1, 0, n),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetP2PAtomicCapabilities(&cap, every_op, 0, 0, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(cap, 0xdead);
	ck_assert_int_eq(cuDeviceGetP2PAtomicCapabilities(&cap, &bad, 1, 0, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_uint_eq(cap, 0);
}
END_TEST

/* Peer access */

START_TEST(every_distinct_pair_can_access)
{
	int n = vmm_device_count(), a, b, v;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			v = 77;
			ck_assert_int_eq(cuDeviceCanAccessPeer(&v, a, b), CUDA_SUCCESS);
			ck_assert_int_eq(v, a != b);
		}
	ck_assert_int_eq(cuDeviceCanAccessPeer(NULL, 0, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceCanAccessPeer(&v, n, 0), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceCanAccessPeer(&v, 0, n), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceCanAccessPeer(&v, -1, 0), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

START_TEST(p2p_attributes_of_nvswitch_peers)
{
	int n = vmm_device_count(), a, b, v;

	ck_assert_int_ge(n, 2);
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			if (a == b) {
				ck_assert_int_eq(cuDeviceGetP2PAttribute(&v,
					CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, a, b),
					CUDA_ERROR_INVALID_DEVICE);
				continue;
			}
			ck_assert_int_eq(cuDeviceGetP2PAttribute(&v,
				CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, a, b), CUDA_SUCCESS);
			ck_assert_int_eq(v, 0);
			ck_assert_int_eq(cuDeviceGetP2PAttribute(&v,
				CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, a, b), CUDA_SUCCESS);
			ck_assert_int_eq(v, 1);
			ck_assert_int_eq(cuDeviceGetP2PAttribute(&v,
				CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, a, b), CUDA_SUCCESS);
			ck_assert_int_eq(v, 1);
			ck_assert_int_eq(cuDeviceGetP2PAttribute(&v,
				CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED, a, b),
				CUDA_SUCCESS);
			ck_assert_int_eq(v, 0);
			ck_assert_int_eq(cuDeviceGetP2PAttribute(&v,
				CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED, a, b),
				CUDA_SUCCESS);
			ck_assert_int_eq(v, 0);
		}
	v = 77;
	ck_assert_int_eq(cuDeviceGetP2PAttribute(NULL, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
						 0, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)0, 0, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetP2PAttribute(&v, (CUdevice_P2PAttribute)6, 0, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
						 0, n), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(v, 77);
}
END_TEST

START_TEST(enable_and_disable_peer_access)
{
	CUcontext c0, c1, other0, created;

	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&c0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
	/* No current context. */
	ck_assert_int_eq(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c1), CUDA_ERROR_INVALID_CONTEXT);

	ck_assert_int_eq(cuCtxSetCurrent(c0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	/* One direction only. */
	ck_assert_int_eq(cuCtxSetCurrent(c1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(c0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);

	/* A context of the same device, itself, garbage, NULL. */
	ck_assert_int_eq(cuCtxCreate(&other0, NULL, 0, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(c0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxEnablePeerAccess(other0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
	ck_assert_int_eq(cuCtxEnablePeerAccess(c0, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxDisablePeerAccess(c0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	ck_assert_int_eq(cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxEnablePeerAccess((CUcontext)0x5a5a5a, 0),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuCtxDestroy(other0), CUDA_SUCCESS);

	/* A destroyed peer is refused; a new context starts with nothing. */
	ck_assert_int_eq(cuCtxCreate(&created, NULL, 0, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(c0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxEnablePeerAccess(created, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDestroy(created), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxDisablePeerAccess(created), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuCtxEnablePeerAccess(created, 0), CUDA_ERROR_CONTEXT_IS_DESTROYED);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(1), CUDA_SUCCESS);
}
END_TEST

/* Context flags */

START_TEST(primary_context_answers_map_host)
{
	unsigned int flags = 77;
	int active = 77;
	CUcontext ctx;

	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, 0);
	ck_assert_int_eq(active, 0);
	vmm_use_device(0);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	ck_assert_int_eq(active, 1);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_MAP_HOST);
	ck_assert_int_eq(cuCtxGetFlags(NULL), CUDA_ERROR_INVALID_VALUE);

	/* Set while active: the context answers them at once. */
	ck_assert_int_eq(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_BLOCKING_SYNC),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST);
	/* The context's flags, not the device's (as driver 580 answers). */
	ck_assert_int_eq(cuCtxSetFlags(CU_CTX_SCHED_SPIN), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_SPIN | CU_CTX_MAP_HOST);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_BLOCKING_SYNC);
	/* Kept while inactive. */
	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxRelease(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, &flags, &active), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_BLOCKING_SYNC);
	ck_assert_int_eq(active, 0);
	/* The next primary context starts with the device's flags. */
	vmm_use_device(0);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST);

	/* Bad arguments. */
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, NULL, &active), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(0, &flags, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDevicePrimaryCtxGetState(vmm_device_count(), &flags, &active),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDevicePrimaryCtxSetFlags(-1, 0), CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDevicePrimaryCtxSetFlags(0, 0x100), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDevicePrimaryCtxSetFlags(0, CU_CTX_SCHED_SPIN | CU_CTX_SCHED_YIELD),
			 CUDA_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(created_context_keeps_its_flags)
{
	unsigned int flags = 77;
	CUcontext ctx;

	ck_assert_int_eq(cuCtxCreate(&ctx, NULL, CU_CTX_SCHED_YIELD | CU_CTX_SYNC_MEMOPS, 1),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_YIELD | CU_CTX_SYNC_MEMOPS);
	ck_assert_int_eq(cuCtxSetFlags(CU_CTX_LMEM_RESIZE_TO_MAX), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_LMEM_RESIZE_TO_MAX);
	ck_assert_int_eq(cuCtxSetFlags(0x100), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxSetFlags(CU_CTX_SCHED_SPIN | CU_CTX_SCHED_BLOCKING_SYNC),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_LMEM_RESIZE_TO_MAX);
	/* A primary context takes its device's new flags while active. */
	vmm_use_device(2 % vmm_device_count());
	ck_assert_int_eq(cuDevicePrimaryCtxSetFlags(2 % vmm_device_count(), CU_CTX_SCHED_BLOCKING_SYNC),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_SCHED_BLOCKING_SYNC | CU_CTX_MAP_HOST);
	ck_assert_int_eq(cuCtxSetFlags(0), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_MAP_HOST);
	/* Only one context's flags change. */
	vmm_use_device(1);
	ck_assert_int_eq(cuCtxGetFlags(&flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_CTX_MAP_HOST);
	ck_assert_int_eq(cuCtxDestroy(ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuCtxSetFlags(0), CUDA_ERROR_INVALID_CONTEXT);
}
END_TEST

/* Module and library loads and handles: a documented error each, never a crash. */

START_TEST(loads_answer_no_binary)
{
	static const char garbage[] = "\x7f" "ELF, a cubin's magic";
	static const char ptx[] = "//\n.version 8.8\n.target sm_90\n";
	static const char junk[] = "neither ELF, fatbin nor PTX";
	static const unsigned int fatbin[] = { 0xba55ed50, 0x00100001, 0, 0 };
	CUjit_option opt = CU_JIT_MAX_REGISTERS;
	void *val = (void *)32;
	char path[] = "/tmp/cumc-cubin-XXXXXX";
	CUmodule mod = (CUmodule)77;
	CUlibrary lib = (CUlibrary)77;
	int fd;

	ck_assert_int_eq(cuModuleLoadData(&mod, garbage), CUDA_ERROR_INVALID_CONTEXT);
	vmm_use_device(0);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, garbage, sizeof(garbage)), sizeof(garbage));
	close(fd);

	ck_assert_int_eq(cuModuleLoad(&mod, path), CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuModuleLoad(&mod, "/nonexistent/k.cubin"), CUDA_ERROR_FILE_NOT_FOUND);
	ck_assert_int_eq(cuModuleLoad(NULL, path), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleLoad(&mod, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleLoadData(&mod, garbage), CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuModuleLoadData(&mod, fatbin), CUDA_ERROR_NO_BINARY_FOR_GPU);
	/* Not device code: what driver 580 answers for it. */
	ck_assert_int_eq(cuModuleLoadData(&mod, junk), CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuModuleLoadData(&mod, ""), CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuModuleLoadData(&mod, "x"), CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuModuleLoadFatBinary(&mod, junk), CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuModuleLoad(&mod, "/etc/hostname"), CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuModuleLoadData(&mod, NULL), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleLoadData(NULL, garbage), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleLoadDataEx(&mod, garbage, 1, &opt, &val),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuModuleLoadDataEx(&mod, garbage, 0, NULL, NULL),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuModuleLoadDataEx(&mod, garbage, 1, NULL, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuModuleLoadFatBinary(&mod, garbage), CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuModuleLoadFatBinary(NULL, garbage), CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_eq(mod, (CUmodule)77);
	/* PTX loads (test_module runs it): a module without kernels. */
	ck_assert_int_eq(cuModuleLoadData(&mod, ptx), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_ERROR_INVALID_HANDLE);

	/* Libraries need no context. */
	ck_assert_int_eq(cuCtxSetCurrent(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuLibraryLoadData(&lib, garbage, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	/* Driver 580 loads libraries lazily and takes junk: cumc refuses it. */
	ck_assert_int_eq(cuLibraryLoadData(&lib, junk, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_INVALID_IMAGE);
	ck_assert_int_eq(cuLibraryLoadData(&lib, garbage, &opt, &val, 1, NULL, NULL, 0),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuLibraryLoadData(&lib, garbage, NULL, NULL, 1, NULL, NULL, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryLoadData(&lib, garbage, NULL, NULL, 0, NULL, NULL, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryLoadData(NULL, garbage, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryLoadData(&lib, NULL, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLibraryLoadFromFile(&lib, path, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_NO_BINARY_FOR_GPU);
	ck_assert_int_eq(cuLibraryLoadFromFile(&lib, "/nonexistent", NULL, NULL, 0, NULL,
					       NULL, 0), CUDA_ERROR_FILE_NOT_FOUND);
	ck_assert_int_eq(cuLibraryLoadFromFile(&lib, NULL, NULL, NULL, 0, NULL, NULL, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_eq(lib, (CUlibrary)77);
	unlink(path);
}
END_TEST

START_TEST(no_handle_of_device_code_exists)
{
	CUfunction f = (CUfunction)77;
	CUkernel k = (CUkernel)77;
	CUdeviceptr d = 77;
	size_t bytes = 77;
	int v = 77;
	void *params[1] = { &v };
	CUlaunchConfig config = { 1, 1, 1, 32, 1, 1, 0, NULL, NULL, 0 };
	CUmodule garbage = (CUmodule)0x1234;

	vmm_use_device(0);
	ck_assert_int_eq(cuModuleUnload(garbage), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleUnload(NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetFunction(&f, garbage, "k"), CUDA_ERROR_INVALID_HANDLE);
	/* The handle first, as driver 580 answers for NULL handles. */
	ck_assert_int_eq(cuModuleGetFunction(NULL, garbage, "k"), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetFunction(&f, garbage, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetFunction(NULL, NULL, "k"), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetGlobal(&d, &bytes, garbage, "g"), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetGlobal(NULL, NULL, garbage, "g"), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuModuleGetGlobal(&d, &bytes, NULL, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryUnload((CUlibrary)0x1234), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryGetKernel(&k, (CUlibrary)0x1234, "k"),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryGetKernel(NULL, (CUlibrary)0x1234, "k"),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryGetGlobal(&d, &bytes, (CUlibrary)0x1234, "g"),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLibraryGetGlobal(&d, &bytes, (CUlibrary)0x1234, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLaunchKernel((CUfunction)0x1234, 1, 1, 1, 32, 1, 1, 0, NULL,
					params, NULL), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLaunchKernel(NULL, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLaunchKernelEx(&config, (CUfunction)0x1234, params, NULL),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuLaunchKernelEx(NULL, (CUfunction)0x1234, params, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchCooperativeKernel((CUfunction)0x1234, 1, 1, 1, 32, 1, 1, 0,
						   NULL, params), CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, (CUfunction)0x1234),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuFuncGetAttribute(NULL, CU_FUNC_ATTRIBUTE_NUM_REGS,
					    (CUfunction)0x1234), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX, (CUfunction)0x1234),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_ptr_eq(f, (CUfunction)77);
	ck_assert_ptr_eq(k, (CUkernel)77);
	ck_assert_uint_eq(d, 77);
	ck_assert_int_eq(v, 77);
}
END_TEST

/* What the attributes say about launches agrees with what runs. */
START_TEST(launch_attributes_are_zero)
{
	int v = 77;

	ck_assert_int_eq(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(cuDeviceGetAttribute(&v,
			 CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(v, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("peer");
	TCase *peer = tcase_create("peer access");
	TCase *flags = tcase_create("context flags");
	TCase *code = tcase_create("device code");

	check_add_uninit(s, needs_init);

	tcase_add_checked_fixture(peer, setup, NULL);
	tcase_add_test(peer, every_distinct_pair_can_access);
	tcase_add_test(peer, p2p_attributes_of_nvswitch_peers);
	tcase_add_test(peer, host_atomic_capabilities_are_none);
	tcase_add_test(peer, p2p_atomic_capabilities_of_nvlink_peers);
	tcase_add_test(peer, enable_and_disable_peer_access);
	suite_add_tcase(s, peer);

	tcase_add_checked_fixture(flags, setup, NULL);
	tcase_add_test(flags, primary_context_answers_map_host);
	tcase_add_test(flags, created_context_keeps_its_flags);
	suite_add_tcase(s, flags);

	tcase_add_checked_fixture(code, setup, NULL);
	tcase_add_test(code, loads_answer_no_binary);
	tcase_add_test(code, no_handle_of_device_code_exists);
	tcase_add_test(code, launch_attributes_are_zero);
	suite_add_tcase(s, code);

	return check_run_forked(s);
}
