/* SPDX-License-Identifier: MIT */
/*
 * libcumc private header: the driver state every entry point reaches.
 */
#ifndef _CUMC_LIB_INTERNAL_H
#define _CUMC_LIB_INTERNAL_H

#include <cuda.h>
#include <linux/cumc.h>

/* The device node; CUMC_DEVICE in the environment overrides it for tests. */
#define CUMC_DEVICE_PATH "/dev/cumc"

/* The file of this process's client; cuInit opens it. */
struct cumc_driver {
	int fd;
	unsigned int num_devices;
};

#endif /* _CUMC_LIB_INTERNAL_H */
