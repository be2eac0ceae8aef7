// SPDX-License-Identifier: MIT
/*
 * cuCheckpointProcess*: cumc cannot checkpoint a process. Its memory lives
 * in the module's objects, which nothing saves and restores, so locking a
 * process, the first step, answers CUDA_ERROR_NOT_SUPPORTED once its
 * arguments are checked; every process that exists therefore stays in
 * CU_PROCESS_STATE_RUNNING, where the later steps answer
 * CUDA_ERROR_ILLEGAL_STATE, as driver 580 does for unlocking a process
 * that is not locked.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>

#include "internal.h"
#include "log.h"

static const char checkpoint_why[] =
	"cumc cannot checkpoint a process: the module's memory objects "
	"are not saved or restored";

/*
 * CUDA_ERROR_OPERATING_SYSTEM unless @pid names a process that exists, as
 * driver 580 answers for pid 0.
 */
static CUresult checkpoint_pid(int pid)
{
	if (pid <= 0)
		return CUDA_ERROR_OPERATING_SYSTEM;
	if (kill(pid, 0) && errno == ESRCH)
		return CUDA_ERROR_OPERATING_SYSTEM;
	return CUDA_SUCCESS;
}

/* Whether the @size bytes at @p, which cuda.h says must be zero, are. */
static bool checkpoint_zero(const void *p, size_t size)
{
	static const unsigned char zero[64];

	return size <= sizeof(zero) && !memcmp(p, zero, size);
}

/* A step refused with @res, after the checks of @pid and its arguments. */
static CUresult checkpoint_refused(int pid, bool args_ok, CUresult res)
{
	CUresult bad = checkpoint_pid(pid);

	if (bad)
		return bad;
	if (!args_ok)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_log_note(checkpoint_why);
	return res;
}

CUresult CUDAAPI cuCheckpointProcessGetState(int pid, CUprocessState *state)
{
	CUresult res;

	if (!state)
		return CUDA_ERROR_INVALID_VALUE;
	res = checkpoint_pid(pid);
	if (res == CUDA_SUCCESS)
		*state = CU_PROCESS_STATE_RUNNING;
	return res;
}

/*
 * NVIDIA's driver runs a thread in each process for restoring it; cumc,
 * restoring nothing, has none to name.
 */
CUresult CUDAAPI cuCheckpointProcessGetRestoreThreadId(int pid, int *tid)
{
	if (!tid)
		return CUDA_ERROR_INVALID_VALUE;
	return checkpoint_refused(pid, true, CUDA_ERROR_NOT_SUPPORTED);
}

CUresult CUDAAPI cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args)
{
	return checkpoint_refused(pid, !args ||
		(!args->reserved0 &&
		 checkpoint_zero(args->reserved1, sizeof(args->reserved1))),
		CUDA_ERROR_NOT_SUPPORTED);
}

CUresult CUDAAPI cuCheckpointProcessCheckpoint(int pid,
					       CUcheckpointCheckpointArgs *args)
{
	return checkpoint_refused(pid, !args ||
		checkpoint_zero(args->reserved, sizeof(args->reserved)),
		CUDA_ERROR_ILLEGAL_STATE);
}

CUresult CUDAAPI cuCheckpointProcessRestore(int pid,
					    CUcheckpointRestoreArgs *args)
{
	return checkpoint_refused(pid, !args ||
		((args->gpuPairs || !args->gpuPairsCount) &&
		 checkpoint_zero(args->reserved, sizeof(args->reserved)) &&
		 !args->reserved1), CUDA_ERROR_ILLEGAL_STATE);
}

CUresult CUDAAPI cuCheckpointProcessUnlock(int pid,
					   CUcheckpointUnlockArgs *args)
{
	return checkpoint_refused(pid, !args ||
		checkpoint_zero(args->reserved, sizeof(args->reserved)),
		CUDA_ERROR_ILLEGAL_STATE);
}
