// SPDX-License-Identifier: MIT
/*
 * An NVRTC compile with libcumc as libcuda.so.1: NVRTC initializes the
 * driver it finds (cuInit) and asks it for cuGetExportTable; the compile
 * must succeed and give PTX with the kernel's entry. Built against the
 * toolkit's nvrtc.h and libnvrtc alone (lib/tests/abi/nvrtc.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvrtc.h>

static const char source[] =
	"extern \"C\" __global__ void twice(float *x)\n"
	"{\n"
	"	x[threadIdx.x] *= 2.0f;\n"
	"}\n";

static int fail(const char *what, nvrtcResult res)
{
	fprintf(stderr, "%s: %s\n", what, nvrtcGetErrorString(res));
	return 1;
}

int main(void)
{
	const char *options[] = { "-arch=compute_90" };
	nvrtcProgram prog;
	nvrtcResult res;
	size_t size;
	char *ptx;
	int found;

	res = nvrtcCreateProgram(&prog, source, "twice.cu", 0, NULL, NULL);
	if (res != NVRTC_SUCCESS)
		return fail("nvrtcCreateProgram", res);
	res = nvrtcCompileProgram(prog, 1, options);
	if (res != NVRTC_SUCCESS)
		return fail("nvrtcCompileProgram", res);
	res = nvrtcGetPTXSize(prog, &size);
	if (res != NVRTC_SUCCESS)
		return fail("nvrtcGetPTXSize", res);
	ptx = malloc(size);
	if (!ptx)
		return 1;
	res = nvrtcGetPTX(prog, ptx);
	if (res != NVRTC_SUCCESS)
		return fail("nvrtcGetPTX", res);
	found = strstr(ptx, ".entry twice") != NULL;
	printf("PTX of %zu bytes, %s\n", size,
	       found ? "with the entry twice" : "without the entry");
	free(ptx);
	nvrtcDestroyProgram(&prog);
	return found ? 0 : 1;
}
