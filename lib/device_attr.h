/* SPDX-License-Identifier: MIT */
/*
 * Device attributes of a simulated GPU, as cuDeviceGetAttribute reports
 * them.
 */
#ifndef CUMC_DEVICE_ATTR_H
#define CUMC_DEVICE_ATTR_H

#include <cuda.h>

/*
 * H100's L2 access policy window and memory synchronization domains,
 * device attributes that bound the stream attributes of the same name.
 */
#define CUMC_ACCESS_POLICY_WINDOW_MAX	134213632
#define CUMC_MEM_SYNC_DOMAINS		4

/* The facts that differ between the simulated devices of one machine. */
struct libcumc_device_attr_dev {
	int ordinal;
	int pci_domain;
	int pci_bus;
	int pci_device;
	int multicast;		/* 1: the module says it can join teams */
};

/*
 * Store in *value what an H100 SXM5 80GB on an NVSwitch board answers for
 * attribute @attrib; the PCI location, board group and multicast support
 * come from @dev.
 * Returns CUDA_ERROR_INVALID_VALUE, leaving *value untouched, for a NULL
 * argument or a number that is not an attribute of the CUDA 13.0 header.
 */
CUresult
libcumc_device_attribute_value(const struct libcumc_device_attr_dev *dev,
			       int attrib, int *value);

#endif /* CUMC_DEVICE_ATTR_H */
