// SPDX-License-Identifier: MIT
/*
 * Peer access.  Every simulated device reaches every other one, as the
 * GPUs of an NVSwitch baseboard do: device memory of cumc is open to all
 * devices whenever its access descriptors say so (cuMemSetAccess, and
 * cuMemAlloc grants it to all), so enabling peer access changes no
 * mapping.  It is still bookkept per pair of contexts, so that the
 * answers (ALREADY_ENABLED, NOT_ENABLED) are those of the real driver.
 */
#include <pthread.h>
#include <stdlib.h>

#include "context.h"
#include "entry.h"
#include "internal.h"

struct libcumc_peer {
	CUcontext ctx, peer;
};

static pthread_mutex_t libcumc_peer_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_peer *libcumc_peers;
static size_t libcumc_num_peers, libcumc_peer_capacity;

/* 1 for two distinct devices of this process, 0 for a device and itself. */
CUresult libcumc_impl_cuDeviceCanAccessPeer(const struct libcumc_driver *drv,
					    int *canAccessPeer, CUdevice dev,
					    CUdevice peerDev)
{
	CUresult res;

	if (!canAccessPeer)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, dev);
	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, peerDev);
	if (res == CUDA_SUCCESS)
		*canAccessPeer = dev != peerDev;
	return res;
}

/*
 * NVLink through NVSwitch: one link class for every pair (rank 0),
 * access and native atomics (the CPU's, through shared mappings).  CUDA
 * arrays do not exist in cumc: array access answers 0.
 */
CUresult libcumc_impl_cuDeviceGetP2PAttribute(const struct libcumc_driver *drv,
					      int *value,
					      CUdevice_P2PAttribute attrib,
					      CUdevice srcDevice,
					      CUdevice dstDevice)
{
	CUresult res;

	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_check_device(drv, srcDevice);
	if (res == CUDA_SUCCESS)
		res = libcumc_check_device(drv, dstDevice);
	if (res != CUDA_SUCCESS)
		return res;
	/* The real driver has no answer for a device and itself. */
	if (srcDevice == dstDevice)
		return CUDA_ERROR_INVALID_DEVICE;
	switch (attrib) {
	case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
		*value = 0;
		return CUDA_SUCCESS;
	case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
		*value = 1;
		return CUDA_SUCCESS;
	case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
	case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
		*value = 0;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static struct libcumc_peer *libcumc_peer_find(CUcontext ctx, CUcontext peer)
{
	struct libcumc_peer *p;

	for (p = libcumc_peers; p < libcumc_peers + libcumc_num_peers; p++)
		if (p->ctx == ctx && p->peer == peer)
			return p;
	return NULL;
}

static void libcumc_peer_remove(struct libcumc_peer *p)
{
	*p = libcumc_peers[--libcumc_num_peers];
}

/* Pairs whose contexts were destroyed: handles are never reused. */
static void libcumc_peer_prune(void)
{
	CUdevice dev;
	size_t i = 0;

	while (i < libcumc_num_peers) {
		if (libcumc_context_device(libcumc_peers[i].ctx, &dev) ||
		    libcumc_context_device(libcumc_peers[i].peer, &dev))
			libcumc_peer_remove(&libcumc_peers[i]);
		else
			i++;
	}
}

static CUresult libcumc_peer_add(CUcontext ctx, CUcontext peer)
{
	struct libcumc_peer *peers;
	size_t capacity;

	libcumc_peer_prune();
	if (libcumc_peer_find(ctx, peer))
		return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	if (libcumc_num_peers == libcumc_peer_capacity) {
		capacity = libcumc_peer_capacity ?: 8;
		capacity *= 2;
		peers = reallocarray(libcumc_peers, capacity, sizeof(*peers));
		if (!peers)
			return CUDA_ERROR_OUT_OF_MEMORY;
		libcumc_peers = peers;
		libcumc_peer_capacity = capacity;
	}
	libcumc_peers[libcumc_num_peers].ctx = ctx;
	libcumc_peers[libcumc_num_peers].peer = peer;
	libcumc_num_peers++;
	return CUDA_SUCCESS;
}

/* The current context and @peer, checked: both live, distinct devices. */
static CUresult libcumc_peer_begin(CUcontext peer, CUcontext *ctx)
{
	const struct libcumc_driver *drv;
	CUdevice dev, peer_dev;
	CUresult res = libcumc_driver(&drv);

	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	/* A destroyed peer is told apart, as driver 580 does (measured). */
	if (libcumc_context_destroyed(peer))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	if (!peer || libcumc_context_device(peer, &peer_dev) != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_CONTEXT;
	*ctx = libcumc_stack_top();
	return dev == peer_dev ? CUDA_ERROR_PEER_ACCESS_UNSUPPORTED :
				 CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext,
				       unsigned int Flags)
{
	CUcontext ctx;
	CUresult res;

	/* Before the contexts, as driver 580 answers (measured). */
	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_peer_begin(peerContext, &ctx);
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_peer_lock);
	res = libcumc_peer_add(ctx, peerContext);
	pthread_mutex_unlock(&libcumc_peer_lock);
	return res;
}

CUresult CUDAAPI cuCtxDisablePeerAccess(CUcontext peerContext)
{
	struct libcumc_peer *p;
	CUcontext ctx;
	CUresult res = libcumc_peer_begin(peerContext, &ctx);

	/* A context and itself were never enabled. */
	if (res == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
		return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	if (res != CUDA_SUCCESS)
		return res;
	pthread_mutex_lock(&libcumc_peer_lock);
	p = libcumc_peer_find(ctx, peerContext);
	if (p)
		libcumc_peer_remove(p);
	else
		res = CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	pthread_mutex_unlock(&libcumc_peer_lock);
	return res;
}

/* A forked child starts over: its contexts are new. */
static void libcumc_peer_forget_parent(void)
{
	free(libcumc_peers);
	libcumc_peers = NULL;
	libcumc_num_peers = libcumc_peer_capacity = 0;
	pthread_mutex_init(&libcumc_peer_lock, NULL);
}

__attribute__((constructor)) static void libcumc_peer_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_peer_forget_parent);
}
