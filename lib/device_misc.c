// SPDX-License-Identifier: MIT
/*
 * What else a device says of itself: its PCI bus id both ways,
 * cuDeviceComputeCapability and cuDeviceGetProperties (the deprecated
 * forms of attributes), cuDeviceGetExecAffinitySupport, and the
 * Windows- and NvSci-only queries and cuFlushGPUDirectRDMAWrites, which
 * cumc answers NOT_SUPPORTED, and the asynchronous notifications.
 *
 * The bus id is the module's PCI location (CUMC_DEVICE_INFO), the one
 * the PCI attributes and NVML give, written as the CUDA runtime writes
 * it: "DDDD:BB:DD.0", upper-case hexadecimal.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_attr.h"
#include "entry.h"
#include "log.h"

/* "0000:3B:00.0" and its NUL. */
#define CUMC_BUS_ID_LEN 13

CUresult libcumc_impl_cuDeviceGetPCIBusId(const struct libcumc_driver *drv,
					  char *pciBusId, int len,
					  CUdevice dev)
{
	struct cumc_device_info info;
	char id[CUMC_BUS_ID_LEN];
	CUresult res;

	if (!pciBusId || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_device_info(drv, dev, &info);
	if (res != CUDA_SUCCESS)
		return res;
	snprintf(id, sizeof(id), "%04X:%02X:%02X.0", info.pci_domain & 0xffff,
		 info.pci_bus & 0xff, info.pci_device & 0x1f);
	/*
	 * Cut to fit and terminated; too short a buffer is still an error,
	 * as driver 580 answers (conformance/, device.pci_bus_id_short).
	 */
	snprintf(pciBusId, len, "%s", id);
	return len < CUMC_BUS_ID_LEN ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/*
 * The forms the documentation names: [domain]:[bus]:[device].[function],
 * [domain]:[bus]:[device] and [bus]:[device].[function], in hexadecimal
 * of either case.  False for anything else.
 */
static bool libcumc_parse_bus_id(const char *s, unsigned int *domain,
				 unsigned int *bus, unsigned int *device)
{
	unsigned int a, b, c, fn;
	int n = -1;

	*domain = 0;
	if (sscanf(s, "%x:%x:%x.%x%n", &a, &b, &c, &fn, &n) == 4 &&
	    n == (int)strlen(s)) {
		*domain = a;
		*bus = b;
		*device = c;
		return fn == 0;
	}
	n = -1;
	if (sscanf(s, "%x:%x:%x%n", &a, &b, &c, &n) == 3 &&
	    n == (int)strlen(s)) {
		*domain = a;
		*bus = b;
		*device = c;
		return true;
	}
	n = -1;
	if (sscanf(s, "%x:%x.%x%n", &b, &c, &fn, &n) == 3 &&
	    n == (int)strlen(s)) {
		*bus = b;
		*device = c;
		return fn == 0;
	}
	return false;
}

CUresult libcumc_impl_cuDeviceGetByPCIBusId(const struct libcumc_driver *drv,
					    CUdevice *dev,
					    const char *pciBusId)
{
	unsigned int domain, bus, device, i;
	struct cumc_device_info info;
	CUresult res;

	if (!dev || !pciBusId ||
	    !libcumc_parse_bus_id(pciBusId, &domain, &bus, &device))
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < drv->num_devices; i++) {
		res = libcumc_device_info(drv, i, &info);
		if (res != CUDA_SUCCESS)
			return res;
		if (info.pci_domain == domain && info.pci_bus == bus &&
		    info.pci_device == device) {
			*dev = i;
			return CUDA_SUCCESS;
		}
	}
	/* A well-formed id of no device: the documentation's answer. */
	return CUDA_ERROR_INVALID_DEVICE;
}

CUresult libcumc_impl_cuDeviceComputeCapability(
	const struct libcumc_driver *drv, int *major, int *minor, CUdevice dev)
{
	CUresult res;

	if (!major || !minor)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	*major = 9;
	*minor = 0;
	return CUDA_SUCCESS;
}

/* An attribute every device shares (device_attr.c's H100 table). */
static int libcumc_fixed_attr(CUdevice_attribute attrib)
{
	struct libcumc_device_attr_dev any = { 0 };
	int value = 0;

	libcumc_device_attribute_value(&any, attrib, &value);
	return value;
}

CUresult libcumc_impl_cuDeviceGetProperties(const struct libcumc_driver *drv,
					    CUdevprop *prop, CUdevice dev)
{
	CUdevprop p;
	CUresult res;

	if (!prop)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
#define ATTR(name) libcumc_fixed_attr(CU_DEVICE_ATTRIBUTE_##name)
	p.maxThreadsPerBlock = ATTR(MAX_THREADS_PER_BLOCK);
	p.maxThreadsDim[0] = ATTR(MAX_BLOCK_DIM_X);
	p.maxThreadsDim[1] = ATTR(MAX_BLOCK_DIM_Y);
	p.maxThreadsDim[2] = ATTR(MAX_BLOCK_DIM_Z);
	p.maxGridSize[0] = ATTR(MAX_GRID_DIM_X);
	p.maxGridSize[1] = ATTR(MAX_GRID_DIM_Y);
	p.maxGridSize[2] = ATTR(MAX_GRID_DIM_Z);
	p.sharedMemPerBlock = ATTR(MAX_SHARED_MEMORY_PER_BLOCK);
	p.totalConstantMemory = ATTR(TOTAL_CONSTANT_MEMORY);
	p.SIMDWidth = ATTR(WARP_SIZE);
	p.memPitch = ATTR(MAX_PITCH);
	p.regsPerBlock = ATTR(MAX_REGISTERS_PER_BLOCK);
	p.clockRate = ATTR(CLOCK_RATE);
	p.textureAlign = ATTR(TEXTURE_ALIGNMENT);
#undef ATTR
	*prop = p;
	return CUDA_SUCCESS;
}

/* Execution affinity exists under MPS only, which cumc is not. */
CUresult libcumc_impl_cuDeviceGetExecAffinitySupport(
	const struct libcumc_driver *drv, int *pi, CUexecAffinityType type,
	CUdevice dev)
{
	CUresult res;

	if (!pi || type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res == CUDA_SUCCESS)
		*pi = 0;
	return res;
}

/* A LUID names a Windows adapter; Linux has none. */
CUresult libcumc_impl_cuDeviceGetLuid(const struct libcumc_driver *drv,
				      char *luid, unsigned int *deviceNodeMask,
				      CUdevice dev)
{
	CUresult res;

	if (!luid || !deviceNodeMask)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_log_note("a LUID exists on Windows only");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/* NvSciSync (Tegra and DRIVE) is not part of cumc. */
CUresult libcumc_impl_cuDeviceGetNvSciSyncAttributes(
	const struct libcumc_driver *drv, void *nvSciSyncAttrList,
	CUdevice dev, int flags)
{
	CUresult res;

	if (!nvSciSyncAttrList)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res != CUDA_SUCCESS)
		return res;
	if (flags & ~3)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_log_note("cumc has no NvSciSync");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * No third-party device writes into cumc's memory over GPUDirect RDMA:
 * the devices answer GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS 0, which says
 * this call is not supported.
 */
CUresult CUDAAPI cuFlushGPUDirectRDMAWrites(
	CUflushGPUDirectRDMAWritesTarget target,
	CUflushGPUDirectRDMAWritesScope scope)
{
	CUdevice dev;
	CUresult res;

	if (target != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX ||
	    (scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER &&
	     scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES))
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	libcumc_log_note("cumc has no GPUDirect RDMA writes to flush");
	return CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * Asynchronous notifications: the one kind there is tells a process it
 * went over its device memory budget, and cumc gives processes no budget
 * beyond the device's capacity (cuMemAlloc fails first).  A callback is
 * kept until it is unregistered and never called.  Its handle is a
 * number never reused, so a stale one is refused.
 */
struct libcumc_notification {
	uintptr_t handle;
	CUdevice device;
};

static pthread_mutex_t libcumc_notify_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_notification *libcumc_notifications;
static size_t libcumc_num_notifications;
static uintptr_t libcumc_last_notification;

CUresult libcumc_impl_cuDeviceRegisterAsyncNotification(
	const struct libcumc_driver *drv, CUdevice device,
	CUasyncCallback callbackFunc, void *userData,
	CUasyncCallbackHandle *callback)
{
	struct libcumc_notification *n;
	CUresult res = libcumc_check_device(drv, device);

	(void)userData;
	if (res != CUDA_SUCCESS)
		return res;
	if (!callbackFunc || !callback)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_notify_lock);
	n = reallocarray(libcumc_notifications, libcumc_num_notifications + 1,
			 sizeof(*n));
	if (n) {
		libcumc_notifications = n;
		n += libcumc_num_notifications++;
		n->handle = ++libcumc_last_notification;
		n->device = device;
		*callback = (CUasyncCallbackHandle)n->handle;
	}
	pthread_mutex_unlock(&libcumc_notify_lock);
	return n ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult libcumc_impl_cuDeviceUnregisterAsyncNotification(
	const struct libcumc_driver *drv, CUdevice device,
	CUasyncCallbackHandle callback)
{
	CUresult res = libcumc_check_device(drv, device);
	size_t i;

	if (res != CUDA_SUCCESS)
		return res;
	res = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_notify_lock);
	for (i = 0; i < libcumc_num_notifications; i++) {
		struct libcumc_notification *n = &libcumc_notifications[i];

		if (n->handle == (uintptr_t)callback && n->device == device) {
			*n = libcumc_notifications[--libcumc_num_notifications];
			res = CUDA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&libcumc_notify_lock);
	return res;
}

/* A forked child starts over: its parent's registrations are not its own. */
static void libcumc_notify_forget_parent(void)
{
	free(libcumc_notifications);
	libcumc_notifications = NULL;
	libcumc_num_notifications = 0;
	pthread_mutex_init(&libcumc_notify_lock, NULL);
}

__attribute__((constructor)) static void libcumc_notify_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_notify_forget_parent);
}
