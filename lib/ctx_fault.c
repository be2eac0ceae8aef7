// SPDX-License-Identifier: MIT
/*
 * The contexts whose kernels faulted, and with what (context.h).  Apart
 * from the registry: a destroyed context's streams still complete their
 * work and answer its fault, and context numbers are never reused.
 */
#include <pthread.h>

#include "context.h"

#define LIBCUMC_FAULTS_MAX 64
static pthread_mutex_t libcumc_faults_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { CUcontext ctx; CUresult res; } libcumc_faults[LIBCUMC_FAULTS_MAX];
static unsigned int libcumc_nfaults;

static CUresult libcumc_ctx_fault_locked(CUcontext ctx)
{
	unsigned int i, n = libcumc_nfaults < LIBCUMC_FAULTS_MAX ?
			    libcumc_nfaults : LIBCUMC_FAULTS_MAX;

	for (i = 0; i < n; i++)
		if (libcumc_faults[i].ctx == ctx)
			return libcumc_faults[i].res;
	return CUDA_SUCCESS;
}

void libcumc_ctx_fault_set(CUcontext ctx, CUresult res)
{
	pthread_mutex_lock(&libcumc_faults_lock);
	/* A full table forgets the oldest: context numbers are not reused. */
	if (libcumc_ctx_fault_locked(ctx) == CUDA_SUCCESS) {
		libcumc_faults[libcumc_nfaults % LIBCUMC_FAULTS_MAX].ctx = ctx;
		libcumc_faults[libcumc_nfaults++ % LIBCUMC_FAULTS_MAX].res = res;
	}
	pthread_mutex_unlock(&libcumc_faults_lock);
}

CUresult libcumc_ctx_fault(CUcontext ctx)
{
	CUresult res;

	pthread_mutex_lock(&libcumc_faults_lock);
	res = libcumc_ctx_fault_locked(ctx);
	pthread_mutex_unlock(&libcumc_faults_lock);
	return res;
}
