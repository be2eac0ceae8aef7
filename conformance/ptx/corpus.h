/* SPDX-License-Identifier: MIT */
/*
 * The PTX corpus runner (corpus.c) and its two ways of running a kernel:
 * NVIDIA's driver through the CUDA driver API (run_cuda.c, to record the
 * answers) and libcumc-ptx on this process's memory (run_cumc.c, to
 * check cumc against them, with no VM).
 */
#ifndef CORPUS_H
#define CORPUS_H

#include <stddef.h>
#include <stdint.h>

struct corpus_launch {
	const char *ptx;		/* the module's text, NUL-terminated */
	const char *file;		/* its name, to cache it by */
	const char *kernel;
	unsigned int grid[3], block[3];
	const void *in;
	size_t in_len;
	uint32_t n, total;
	void *out;			/* zeroed here, filled by the kernel */
	size_t out_len;
};

/*
 * Runs one case: 0 when it ran, else -1 with a message in @err.  Modules
 * are loaded once per file and kept; after a failed launch the backend
 * starts afresh (a GPU context that faulted stays failed).
 */
int corpus_run(const struct corpus_launch *l, char *err, size_t err_len);
/* What ran the kernels, for the answers' header. */
const char *corpus_backend(void);

#endif
