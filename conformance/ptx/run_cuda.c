// SPDX-License-Identifier: MIT
/*
 * The corpus on NVIDIA's driver, through the CUDA driver API: each module
 * is JIT-compiled once by cuModuleLoadDataEx (its log names what ptxas
 * refused), each case is one cuLaunchKernel on fresh buffers.  Touches
 * no multicast entry point and no GPU setting.
 */
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#include "corpus.h"

static CUdevice dev;
static CUcontext ctx;
static struct loaded {
	char file[64];
	CUmodule m;
} loaded[32];
static unsigned int nloaded;

const char *corpus_backend(void)
{
	static char name[128];
	int version = 0;

	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
	    cuDeviceGetName(name, sizeof(name), dev) != CUDA_SUCCESS)
		return "NVIDIA's driver (no device)";
	cuDriverGetVersion(&version);
	snprintf(name + strlen(name), sizeof(name) - strlen(name),
		 ", CUDA driver API %d", version);
	return name;
}

static int fail(CUresult r, const char *what, char *err, size_t err_len)
{
	const char *s = NULL;

	cuGetErrorName(r, &s);
	snprintf(err, err_len, "%s: %s", what, s ? s : "?");
	return -1;
}

/* A fresh context, the modules reloaded as needed: after a fault. */
static void reset(void)
{
	nloaded = 0;
	if (ctx) {
		cuDevicePrimaryCtxRelease(dev);
		cuDevicePrimaryCtxReset(dev);
		ctx = NULL;
	}
}

static CUmodule module(const struct corpus_launch *l, char *err,
		       size_t err_len)
{
	static char log[4096];
	CUjit_option opt[2] = { CU_JIT_ERROR_LOG_BUFFER,
				CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *val[2] = { log, (void *)(uintptr_t)sizeof(log) };
	unsigned int i;
	CUmodule m;
	CUresult r;

	for (i = 0; i < nloaded; i++)
		if (!strcmp(loaded[i].file, l->file))
			return loaded[i].m;
	log[0] = 0;
	r = cuModuleLoadDataEx(&m, l->ptx, 2, opt, val);
	if (r != CUDA_SUCCESS) {
		fail(r, "cuModuleLoadDataEx", err, err_len);
		snprintf(err + strlen(err), err_len - strlen(err), " (%s: %s)",
			 l->file, log);
		return NULL;
	}
	if (nloaded < sizeof(loaded) / sizeof(loaded[0])) {
		snprintf(loaded[nloaded].file, sizeof(loaded[0].file), "%s",
			 l->file);
		loaded[nloaded++].m = m;
	}
	return m;
}

static int run(const struct corpus_launch *l, char *err, size_t err_len)
{
	CUdeviceptr in = 0, out = 0;
	CUfunction f;
	CUmodule m;
	CUresult r;
	void *args[4];
	int ret = -1;

	if (!ctx) {
		if ((r = cuInit(0)) || (r = cuDeviceGet(&dev, 0)) ||
		    (r = cuDevicePrimaryCtxRetain(&ctx, dev)) ||
		    (r = cuCtxSetCurrent(ctx)))
			return fail(r, "context", err, err_len);
	}
	m = module(l, err, err_len);
	if (!m)
		return -1;
	if ((r = cuModuleGetFunction(&f, m, l->kernel)))
		return fail(r, "cuModuleGetFunction", err, err_len);
	if ((r = cuMemAlloc(&in, l->in_len)) ||
	    (r = cuMemAlloc(&out, l->out_len)) ||
	    (r = cuMemcpyHtoD(in, l->in, l->in_len)) ||
	    (r = cuMemsetD8(out, 0, l->out_len))) {
		fail(r, "allocating", err, err_len);
		goto out;
	}
	args[0] = &out;
	args[1] = &in;
	args[2] = (void *)&l->n;
	args[3] = (void *)&l->total;
	if ((r = cuLaunchKernel(f, l->grid[0], l->grid[1], l->grid[2],
				l->block[0], l->block[1], l->block[2], 0, NULL,
				args, NULL))) {
		fail(r, "cuLaunchKernel", err, err_len);
		goto out;
	}
	if ((r = cuCtxSynchronize())) {
		fail(r, "cuCtxSynchronize", err, err_len);
		goto out;
	}
	if ((r = cuMemcpyDtoH(l->out, out, l->out_len))) {
		fail(r, "cuMemcpyDtoH", err, err_len);
		goto out;
	}
	ret = 0;
out:
	if (in)
		cuMemFree(in);
	if (out)
		cuMemFree(out);
	return ret;
}

int corpus_run(const struct corpus_launch *l, char *err, size_t err_len)
{
	int ret = run(l, err, err_len);

	if (ret)
		reset();
	return ret;
}
