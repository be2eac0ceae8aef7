// SPDX-License-Identifier: MIT
/*
 * cuLogs*: the driver's log is the lines CUMC_LOG makes (log.c), one for
 * each failing call, kept in memory (logbuf.c) from the first cuLogs*
 * call on, or from the start while CUMC_LOG is on.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"
#include "logbuf.h"

/* What one dump holds at most: every kept line, each with its newline. */
#define LOGS_DUMP_MAX (64 * 512 + 64)

CUresult CUDAAPI cuLogsRegisterCallback(CUlogsCallback callbackFunc,
					void *userData,
					CUlogsCallbackHandle *callback_out)
{
	if (!callbackFunc)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_logbuf_keep();
	return libcumc_logbuf_callback_add(callbackFunc, userData,
					   callback_out);
}

CUresult CUDAAPI cuLogsUnregisterCallback(CUlogsCallbackHandle callback)
{
	return libcumc_logbuf_callback_remove(callback);
}

CUresult CUDAAPI cuLogsCurrent(CUlogIterator *iterator_out,
			       unsigned int flags)
{
	if (!iterator_out || flags)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_logbuf_keep();
	*iterator_out = libcumc_logbuf_tail();
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer,
				    size_t *size, unsigned int flags)
{
	bool any;

	if (!buffer || !size || !*size || flags)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_logbuf_keep();
	*size = libcumc_logbuf_read(iterator, buffer, *size, &any);
	return *size || !any ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The file is made or truncated; a path that cannot be written is refused. */
CUresult CUDAAPI cuLogsDumpToFile(CUlogIterator *iterator,
				  const char *pathToFile, unsigned int flags)
{
	CUresult res = CUDA_SUCCESS;
	size_t len, done = 0;
	char *text;
	bool any;
	ssize_t n;
	int fd;

	if (!pathToFile || flags)
		return CUDA_ERROR_INVALID_VALUE;
	libcumc_logbuf_keep();
	text = malloc(LOGS_DUMP_MAX);
	if (!text)
		return CUDA_ERROR_OUT_OF_MEMORY;
	fd = open(pathToFile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		libcumc_log_errno("open", pathToFile, errno);
		free(text);
		return CUDA_ERROR_INVALID_VALUE;
	}
	len = libcumc_logbuf_read(iterator, text, LOGS_DUMP_MAX, &any);
	while (done < len) {
		n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			libcumc_log_errno("write", pathToFile, errno);
			res = CUDA_ERROR_INVALID_VALUE;
			break;
		}
		done += n;
	}
	close(fd);
	free(text);
	return res;
}
