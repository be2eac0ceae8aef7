// SPDX-License-Identifier: MIT
/*
 * The driver's log kept in memory (logbuf.h): the newest lines in a ring,
 * numbered from 0 as they come, and the callbacks to hand each one to.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "logbuf.h"

int libcumc_log_lines;

/* A line of log.c is at most 512 bytes with its newline. */
#define LOGBUF_LINE 512
#define LOGBUF_LINES 64
#define LOGBUF_CALLBACKS 64

struct CUlogsCallbackEntry_st {
	CUlogsCallback fn;
	void *data;
};

/* The ring, the numbers and the callbacks, under logbuf_lock. */
static pthread_mutex_t logbuf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char text[LOGBUF_LINE];
	size_t len;
} logbuf_ring[LOGBUF_LINES];
/* The number of the next line; line N is at logbuf_ring[N % LOGBUF_LINES]. */
static CUlogIterator logbuf_next;
static bool logbuf_keeping;
static struct CUlogsCallbackEntry_st logbuf_callbacks[LOGBUF_CALLBACKS];
static bool logbuf_callback_used[LOGBUF_CALLBACKS];

void libcumc_logbuf_keep(void)
{
	pthread_mutex_lock(&logbuf_lock);
	logbuf_keeping = true;
	__atomic_store_n(&libcumc_log_lines, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&logbuf_lock);
}

bool libcumc_logbuf_kept(void)
{
	bool kept;

	pthread_mutex_lock(&logbuf_lock);
	kept = logbuf_keeping;
	pthread_mutex_unlock(&logbuf_lock);
	return kept;
}

/*
 * The callbacks run on the thread whose call failed, after the lock is
 * dropped: one may call cuLogs* itself. One unregistered meanwhile may
 * still get the line being handed out.
 */
void libcumc_logbuf_add(const char *text, size_t len)
{
	struct CUlogsCallbackEntry_st calls[LOGBUF_CALLBACKS];
	char message[LOGBUF_LINE];
	unsigned int i, n = 0;

	if (len >= LOGBUF_LINE)
		len = LOGBUF_LINE - 1;
	pthread_mutex_lock(&logbuf_lock);
	memcpy(logbuf_ring[logbuf_next % LOGBUF_LINES].text, text, len);
	logbuf_ring[logbuf_next % LOGBUF_LINES].len = len;
	logbuf_next++;
	for (i = 0; i < LOGBUF_CALLBACKS; i++)
		if (logbuf_callback_used[i])
			calls[n++] = logbuf_callbacks[i];
	pthread_mutex_unlock(&logbuf_lock);
	for (i = 0; i < n; i++) {
		memcpy(message, text, len);
		message[len] = '\0';
		calls[i].fn(calls[i].data, CU_LOG_LEVEL_ERROR, message, len);
	}
}

CUlogIterator libcumc_logbuf_tail(void)
{
	CUlogIterator tail;

	pthread_mutex_lock(&logbuf_lock);
	tail = logbuf_next;
	pthread_mutex_unlock(&logbuf_lock);
	return tail;
}

/* Room for the head line saying how many lines were left out. */
#define LOGBUF_HEAD 48

size_t libcumc_logbuf_read(CUlogIterator *from, char *buf, size_t size,
			   bool *any)
{
	CUlogIterator start, oldest, first, n;
	size_t used = 0, len, i;
	bool head;

	pthread_mutex_lock(&logbuf_lock);
	start = from && *from < logbuf_next ? *from : from ? logbuf_next : 0;
	oldest = logbuf_next > LOGBUF_LINES ? logbuf_next - LOGBUF_LINES : 0;
	first = start > oldest ? start : oldest;
	for (n = first; n < logbuf_next; n++)
		used += logbuf_ring[n % LOGBUF_LINES].len + 1;
	/* Lines gone from the ring, or too many for @size: a head says so. */
	head = first > start || used + 1 > size;
	n = first;
	while (n < logbuf_next && head && used + LOGBUF_HEAD + 1 > size) {
		used -= logbuf_ring[n % LOGBUF_LINES].len + 1;
		n++;
	}
	*any = logbuf_next > first;
	len = 0;
	if (n < logbuf_next) {
		if (head)
			len = snprintf(buf, LOGBUF_HEAD,
				       "cumc: %u earlier lines left out\n",
				       n - start);
		for (; n < logbuf_next; n++) {
			i = n % LOGBUF_LINES;
			memcpy(buf + len, logbuf_ring[i].text, logbuf_ring[i].len);
			len += logbuf_ring[i].len;
			buf[len++] = '\n';
		}
	}
	if (size)
		buf[len] = '\0';
	if (from)
		*from = logbuf_next;
	pthread_mutex_unlock(&logbuf_lock);
	return len;
}

CUresult libcumc_logbuf_callback_add(CUlogsCallback fn, void *data,
				     CUlogsCallbackHandle *handle)
{
	unsigned int i;

	pthread_mutex_lock(&logbuf_lock);
	for (i = 0; i < LOGBUF_CALLBACKS; i++)
		if (!logbuf_callback_used[i])
			break;
	if (i == LOGBUF_CALLBACKS) {
		pthread_mutex_unlock(&logbuf_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	logbuf_callback_used[i] = true;
	logbuf_callbacks[i].fn = fn;
	logbuf_callbacks[i].data = data;
	if (handle)
		*handle = &logbuf_callbacks[i];
	pthread_mutex_unlock(&logbuf_lock);
	return CUDA_SUCCESS;
}

CUresult libcumc_logbuf_callback_remove(CUlogsCallbackHandle handle)
{
	CUresult res = CUDA_ERROR_INVALID_VALUE;
	uintptr_t i;

	/* Compared as integers: a garbage handle is never dereferenced. */
	i = ((uintptr_t)handle - (uintptr_t)logbuf_callbacks) /
	    sizeof(logbuf_callbacks[0]);
	pthread_mutex_lock(&logbuf_lock);
	if (handle && i < LOGBUF_CALLBACKS && &logbuf_callbacks[i] == handle &&
	    logbuf_callback_used[i]) {
		logbuf_callback_used[i] = false;
		res = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&logbuf_lock);
	return res;
}
