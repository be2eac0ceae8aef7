// SPDX-License-Identifier: MIT
/*
 * cuInit and cuDriverGetVersion: opening the client that every other entry
 * point uses, and attaching the IMEX channel that fabric handles need.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"

static pthread_mutex_t libcumc_init_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_driver libcumc_state = { .fd = -1 };
/* Set once libcumc_state is complete; read without the lock. */
static const struct libcumc_driver *libcumc_ready;

/*
 * A forked child must not share its parent's client: the objects in it are
 * the parent's, and neither its contexts nor its multicast views (which
 * fork does not copy: context.c and mc_views.c forget those in handlers of
 * their own, registered when the library loads). The child starts
 * uninitialized and calls cuInit again, which opens a client of its own
 * (the real driver cannot be used across fork at all).
 */
static void libcumc_forget_parent(void)
{
	if (libcumc_state.fd >= 0)
		close(libcumc_state.fd);
	libcumc_state.fd = -1;
	__atomic_store_n(&libcumc_ready, NULL, __ATOMIC_RELEASE);
	pthread_mutex_init(&libcumc_init_lock, NULL);
}

static void libcumc_register_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_forget_parent);
}

static CUresult libcumc_open_client(void)
{
	struct cumc_query query = { .size = sizeof(query) };
	const char *path = getenv("CUMC_DEVICE");
	int fd;

	if (!path)
		path = CUMC_DEVICE_PATH;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		libcumc_log_errno("open", path, errno);
		return errno == ENOMEM ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_NO_DEVICE;
	}
	if (ioctl(fd, CUMC_QUERY, &query)) {
		libcumc_log_errno("CUMC_QUERY", NULL, errno);
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
	libcumc_state.fd = fd;
	libcumc_state.num_devices = query.num_devices;
	libcumc_state.mc_granularity = query.mc_granularity;
	libcumc_state.mc_page_size = query.mc_page_size;
	return CUDA_SUCCESS;
}

/*
 * Where the module's IMEX channel devices are: under cumc's name, always
 * the module's, then under NVIDIA's, where a container may have been
 * given only that one.
 */
static const char *const libcumc_channel_dirs[] = {
	"/dev/cumc-imex-channels",
	"/dev/nvidia-caps-imex-channels",
};
#define CUMC_NUM_CHANNEL_DIRS \
	(sizeof(libcumc_channel_dirs) / sizeof(libcumc_channel_dirs[0]))
/* The module makes at most this many channels. */
#define CUMC_MAX_CHANNELS 256

/* Channel @n by either name; errno is ENOENT only when neither exists. */
static int libcumc_open_channel(unsigned long n)
{
	int err = ENOENT;
	char path[64];
	size_t i;
	int fd;

	for (i = 0; i < CUMC_NUM_CHANNEL_DIRS; i++) {
		snprintf(path, sizeof(path), "%s/channel%lu",
			 libcumc_channel_dirs[i], n);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			return fd;
		if (errno != ENOENT)
			err = errno;
	}
	errno = err;
	return -1;
}

/*
 * An open descriptor of the channel this process is to use, or -1: the one
 * CUMC_IMEX_CHANNEL names and no other, so that whoever set it gets what
 * they asked for or nothing; else the lowest-numbered one this process may
 * open. Channels are numbered from 0 without gaps: the first that does not
 * exist ends the search, one this process may not open does not.
 */
static int libcumc_find_channel(void)
{
	const char *env = getenv("CUMC_IMEX_CHANNEL");
	unsigned long n;
	char *end;
	int fd;

	if (env && *env) {
		errno = 0;
		n = strtoul(env, &end, 10);
		if (*env < '0' || *env > '9' || *end || errno)
			return -1;
		return libcumc_open_channel(n);
	}
	for (n = 0; n < CUMC_MAX_CHANNELS; n++) {
		fd = libcumc_open_channel(n);
		if (fd >= 0 || errno == ENOENT)
			return fd;
	}
	return -1;
}

/*
 * Without a channel the client still works: only fabric handles are
 * refused (NOT_PERMITTED), as on a real system without IMEX channels.
 * Having opened the channel is the proof; the descriptor is not needed
 * after attaching.
 */
static void libcumc_attach_channel(void)
{
	struct cumc_attach_channel attach = { .size = sizeof(attach) };

	libcumc_state.channel = -1;
	attach.fd = libcumc_find_channel();
	if (attach.fd < 0)
		return;
	if (libcumc_ioctl(&libcumc_state, CUMC_ATTACH_CHANNEL, &attach, NULL) ==
	    CUDA_SUCCESS)
		libcumc_state.channel = attach.out_channel;
	close(attach.fd);
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
	static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
	CUresult res = CUDA_SUCCESS;

	if (Flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&libcumc_init_lock);
	if (!libcumc_ready) {
		pthread_once(&atfork_once, libcumc_register_atfork);
		res = libcumc_open_client();
		if (res == CUDA_SUCCESS) {
			libcumc_attach_channel();
			__atomic_store_n(&libcumc_ready, &libcumc_state,
					 __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&libcumc_init_lock);
	return res;
}

CUresult libcumc_driver(const struct libcumc_driver **drv)
{
	*drv = __atomic_load_n(&libcumc_ready, __ATOMIC_ACQUIRE);
	return *drv ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
	if (!driverVersion)
		return CUDA_ERROR_INVALID_VALUE;
	*driverVersion = CUMC_DRIVER_VERSION;
	return CUDA_SUCCESS;
}
