// SPDX-License-Identifier: MIT
/*
 * cuInit and cuDriverGetVersion: opening the client that every other entry
 * point uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t cumc_init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cumc_driver cumc_state = { .fd = -1 };
/* Set once cumc_state is complete; read without the lock. */
static const struct cumc_driver *cumc_ready;

/*
 * A forked child must not share its parent's client: the objects in it are
 * the parent's, and neither its contexts. The child starts uninitialized
 * and calls cuInit again, which opens a client of its own (the real driver
 * cannot be used across fork at all).
 */
static void cumc_forget_parent(void)
{
	cumc_contexts_forget_parent();
	if (cumc_state.fd >= 0)
		close(cumc_state.fd);
	cumc_state.fd = -1;
	__atomic_store_n(&cumc_ready, NULL, __ATOMIC_RELEASE);
	pthread_mutex_init(&cumc_init_lock, NULL);
}

static void cumc_register_atfork(void)
{
	pthread_atfork(NULL, NULL, cumc_forget_parent);
}

static CUresult cumc_open_client(void)
{
	struct cumc_query query = { .size = sizeof(query) };
	const char *path = getenv("CUMC_DEVICE");
	int fd;

	fd = open(path ? path : CUMC_DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_NO_DEVICE;
	if (ioctl(fd, CUMC_QUERY, &query)) {
		close(fd);
		return CUDA_ERROR_NO_DEVICE;
	}
	if (query.api_version < CUMC_API_VERSION) {
		close(fd);
		return CUDA_ERROR_SYSTEM_DRIVER_MISMATCH;
	}
	if (!query.num_devices) {
		close(fd);
		return CUDA_ERROR_NO_DEVICE;
	}
	cumc_state.fd = fd;
	cumc_state.num_devices = query.num_devices;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
	static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
	CUresult res = CUDA_SUCCESS;

	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&cumc_init_lock);
	if (!cumc_ready) {
		pthread_once(&atfork_once, cumc_register_atfork);
		res = cumc_open_client();
		if (res == CUDA_SUCCESS)
			__atomic_store_n(&cumc_ready, &cumc_state, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&cumc_init_lock);
	return res;
}

CUresult cumc_driver(const struct cumc_driver **drv)
{
	*drv = __atomic_load_n(&cumc_ready, __ATOMIC_ACQUIRE);
	return *drv ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = CUDA_VERSION;
	return CUDA_SUCCESS;
}
