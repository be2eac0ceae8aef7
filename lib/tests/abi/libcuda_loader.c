// SPDX-License-Identifier: MIT
/*
 * A loader as PyTorch's and cuda-python's are: dlopen("libcuda.so.1"),
 * then every entry point through cuGetProcAddress_v2, by name and the
 * CUDA version the caller was built for. Built with the toolkit's cuda.h
 * and linked with nothing of CUDA's. Exit status 0 when the entry points
 * it asks for come back and answer, and a name the driver lacks is
 * refused.
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>

typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
				CUdriverProcAddressQueryResult *);
typedef CUresult (*init_fn)(unsigned int);
typedef CUresult (*count_fn)(int *);

static int fail(const char *what)
{
	fprintf(stderr, "libcuda_loader: %s\n", what);
	return 1;
}

int main(void)
{
	CUdriverProcAddressQueryResult found;
	void *lib, *sym = NULL;
	get_proc_fn get_proc;
	init_fn init;
	count_fn count;
	int n = -1;

	lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return fail(dlerror());
	get_proc = (get_proc_fn)dlsym(lib, "cuGetProcAddress_v2");
	if (!get_proc)
		return fail("no cuGetProcAddress_v2");
	if (get_proc("cuInit", &sym, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT,
		     &found) != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS)
		return fail("cuInit not found");
	init = (init_fn)sym;
	if (get_proc("cuDeviceGetCount", &sym, CUDA_VERSION,
		     CU_GET_PROC_ADDRESS_DEFAULT, &found) != CUDA_SUCCESS)
		return fail("cuDeviceGetCount not found");
	count = (count_fn)sym;
	if (init(0) != CUDA_SUCCESS || count(&n) != CUDA_SUCCESS || n < 1)
		return fail("cuInit or cuDeviceGetCount failed");
	sym = &n;
	if (get_proc("cuNoSuchEntryPoint", &sym, CUDA_VERSION,
		     CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS && sym)
		return fail("an unknown name was given an address");
	printf("dlopen(libcuda.so.1) + cuGetProcAddress_v2: %d devices\n", n);
	return 0;
}
