#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#define P(e) printf("%-64s -> %d\n", #e, (int)(e))
int main(void){CUcontext p,c;CUdeviceptr a,b;size_t s;unsigned f;int v;void*h=0,*g;char*m=malloc(1<<16);
P(cuInit(0));P(cuMemAlloc(&a,4));P(cuMemHostAlloc(&h,4,0));P(cuMemFree(0));
P(cuDevicePrimaryCtxRetain(&p,0));P(cuMemFree(0));P(cuCtxSetCurrent(p));
P(cuMemHostAlloc(&h,0,0));printf("h=%p\n",h);P(cuMemFreeHost(NULL));
P(cuMemAllocHost(&h,100));P(cuMemHostUnregister((char*)h+4));P(cuMemHostUnregister(h));
P(cuMemHostRegister(h,64,0));P(cuMemHostRegister(m,4096,4));P(cuMemFree((CUdeviceptr)h));
P(cuMemHostRegister(m+64,4096,8));P(cuMemGetAddressRange(&b,&s,(CUdeviceptr)m+100));printf("s=%zu\n",s);
P(cuPointerGetAttribute(&c,CU_POINTER_ATTRIBUTE_CONTEXT,(CUdeviceptr)h));printf("%d\n",c==p);
P(cuPointerGetAttribute(&v,CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,(CUdeviceptr)m+64));printf("v=%d\n",v);
P(cuDevicePrimaryCtxSetFlags(0,4));P(cuCtxGetFlags(&f));printf("f=%u\n",f);
P(cuCtxSetFlags(0));P(cuCtxGetFlags(&f));printf("f=%u\n",f);
P(cuCtxCreate(&c,NULL,0,0));P(cuCtxDestroy(c));P(cuCtxSetCurrent(p));P(cuCtxEnablePeerAccess(c,0));
P(cuCtxSetCurrent(NULL));P(cuMemAlloc(&b,4));P(cuMemHostAlloc(&g,4,0));P(cuMemFree(a));
P(cuMemHostGetDevicePointer(&b,h,0));P(cuMemHostGetFlags(&f,h));P(cuCtxSetCurrent(p));
{CUlaunchConfig k={0};P(cuLaunchKernelEx(&k,NULL,NULL,NULL));}
P(cuModuleLoad((CUmodule*)&g,"/tmp"));P(cuFuncGetAttribute(&v,CU_FUNC_ATTRIBUTE_MAX,NULL));
{CUmemAllocationProp q={0};q.type=CU_MEM_ALLOCATION_TYPE_PINNED;q.location.type=CU_MEM_LOCATION_TYPE_HOST;
q.requestedHandleTypes=CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;P(cuMemGetAllocationGranularity(&s,&q,0));
q.location.type=CU_MEM_LOCATION_TYPE_HOST_NUMA;q.location.id=-1;P(cuMemGetAllocationGranularity(&s,&q,0));
q.location.type=CU_MEM_LOCATION_TYPE_DEVICE;q.location.id=0;q.requestedHandleTypes=0;
CUmemGenericAllocationHandle x;P(cuMemCreate(&x,2<<20,&q,0));P(cuMemAddressReserve(&b,2<<20,0,0,0));
P(cuMemMap(b,2<<20,0,x,1));P(cuMemFree(b));P(cuMemMap(b,2<<20,0,x,0));P(cuMemFree(b));}
return 0;}
