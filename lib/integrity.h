/* SPDX-License-Identifier: MIT */
/*
 * The CUDA runtime's integrity check (integrity.c): the answer the driver
 * must give, which the runtime computes too and compares
 * (Documentation/runtime.md, table d4082055).
 */
#ifndef _CUMC_LIB_INTEGRITY_H
#define _CUMC_LIB_INTEGRITY_H

#include <stdint.h>

/*
 * What the check hashes first, in this layout: the driver's version (as
 * cuDriverGetVersion answers), the runtime's @version, the calling
 * process and thread (pthread_self() cut to 32 bits), the addresses of
 * the runtime's table 6bd5fb6c and of the check's table d4082055, the
 * check's own function (its slot 1), and the runtime's @unix_seconds.
 */
struct libcumc_integrity_input {
	uint32_t driver_version;
	uint32_t version;
	uint32_t process;
	uint32_t thread;
	const void *runtime_table;
	const void *check_table;
	const void *check;
	uint64_t unix_seconds;
};

/* What the check hashes of each device, in device order. */
struct libcumc_integrity_device {
	unsigned char uuid[16];
	int32_t pci_domain;
	int32_t pci_bus;
	int32_t pci_device;
};

/*
 * The check's answer: for versions ending in 0 and 1 a constant, for the
 * others HMAC-MD2 of @in and then @devices, under a key of the driver's.
 */
void libcumc_integrity_answer(const struct libcumc_integrity_input *in,
			      const struct libcumc_integrity_device *devices,
			      unsigned int num_devices, uint64_t answer[2]);

#endif /* _CUMC_LIB_INTEGRITY_H */
