/* SPDX-License-Identifier: MIT */
/*
 * libcumc private header: the driver state every entry point reaches.
 */
#ifndef _CUMC_LIB_INTERNAL_H
#define _CUMC_LIB_INTERNAL_H

#include <cuda.h>
#include <linux/cumc.h>

/*
 * The driver version cumc answers: CUDA 13.1, whose multicast binds that
 * name their device it provides, while its header stays that of 13.0.
 */
#define CUMC_DRIVER_VERSION 13010

/* The device node; CUMC_DEVICE in the environment overrides it for tests. */
#define CUMC_DEVICE_PATH "/dev/cumc"

/* The file of this process's client; cuInit opens it. */
struct libcumc_driver {
	int fd;
	unsigned int num_devices;
	size_t mc_granularity;
	size_t mc_page_size;
	/* The IMEX channel cuInit attached, -1 for none. */
	int channel;
};

/*
 * The driver state once cuInit has succeeded in this process (a forked
 * child starts over); CUDA_ERROR_NOT_INITIALIZED before.
 */
CUresult libcumc_driver(const struct libcumc_driver **drv);

/* The name cuGetErrorName gives @error, or NULL for no CUresult (error.c). */
const char *libcumc_error_name(CUresult error);

/* How one call site reads an errno that the common mapping does not settle. */
struct libcumc_errno_result {
	int err;		/* 0 ends a list */
	CUresult result;
};

/*
 * Issue one /dev/cumc command and translate its errno: first through @site
 * (may be NULL), then through the meaning uapi/linux/cumc.h gives every
 * command.
 */
CUresult libcumc_ioctl(const struct libcumc_driver *drv, unsigned long request,
		       void *arg, const struct libcumc_errno_result *site);

/* CUDA_ERROR_INVALID_DEVICE unless @dev names one of the devices. */
CUresult libcumc_check_device(const struct libcumc_driver *drv, CUdevice dev);

/* CUMC_DEVICE_INFO of @dev, after libcumc_check_device. */
CUresult libcumc_device_info(const struct libcumc_driver *drv, CUdevice dev,
			     struct cumc_device_info *info);

/*
 * The device of the calling thread's current context:
 * CUDA_ERROR_INVALID_CONTEXT when there is none, and
 * CUDA_ERROR_CONTEXT_IS_DESTROYED when it was destroyed while current.
 */
CUresult libcumc_current_device(CUdevice *dev);

/* The current context's device (as above) and its CUMC_DEVICE_INFO. */
CUresult libcumc_current_device_info(const struct libcumc_driver *drv,
				     CUdevice *dev,
				     struct cumc_device_info *info);

#endif /* _CUMC_LIB_INTERNAL_H */
