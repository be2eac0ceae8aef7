/* SPDX-License-Identifier: MIT */
/*
 * The driver's log (logbuf.c): the lines CUMC_LOG makes (log.c), kept in
 * memory for cuLogs* (logs.c) and handed to the callbacks it registers.
 */
#ifndef _CUMC_LIB_LOGBUF_H
#define _CUMC_LIB_LOGBUF_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda.h>

/* Nonzero while entry points make their lines (log.h); 0 makes none. */
extern int libcumc_log_lines __attribute__((visibility("hidden")));

/*
 * From now on lines are made and kept, CUMC_LOG or not; libcumc_log_lines
 * is set. Before the first call, lines are kept only while CUMC_LOG is on.
 */
void libcumc_logbuf_keep(void);
/* Whether lines are being kept (libcumc_logbuf_keep was called). */
bool libcumc_logbuf_kept(void);

/* Keeps the line @text of @len bytes (no newline) and calls the callbacks. */
void libcumc_logbuf_add(const char *text, size_t len);

/* The number the next line will have: where cuLogsCurrent points. */
CUlogIterator libcumc_logbuf_tail(void);

/*
 * The kept lines from @*from on (all when @from is NULL), each ending in
 * a newline, the newest last, as many as fit in @size bytes with a line
 * saying how many older ones were left out first; NUL-terminated. Returns
 * the bytes written before the NUL, 0 when no line fits (or none is
 * there: *@any tells which); advances *@from to the tail.
 */
size_t libcumc_logbuf_read(CUlogIterator *from, char *buf, size_t size,
			   bool *any);

/* Callbacks for every line from now on (at most 64 at once). */
CUresult libcumc_logbuf_callback_add(CUlogsCallback fn, void *data,
				     CUlogsCallbackHandle *handle);
CUresult libcumc_logbuf_callback_remove(CUlogsCallbackHandle handle);

#endif /* _CUMC_LIB_LOGBUF_H */
