// SPDX-License-Identifier: MIT
/*
 * Conformance probes: the same driver API calls, good and bad, answered by
 * NVIDIA's driver (on a machine with a GPU) and by libcumc (in the VM).
 * Built against the CUDA toolkit's own cuda.h and linked with its -lcuda
 * stub, so that libcuda.so.1 decides who answers.
 *
 * Every probe runs in a child of its own, which calls cuInit and, unless
 * the probe says otherwise, makes device 0's primary context current: a
 * probe that crashes or hangs costs only its own answer, and no probe sees
 * what another one left behind.  Each answer is one line:
 *
 *	<probe> = <CUresult name>[ <what the call returned>]
 *
 * check.sh compares these lines with answers/<driver>.txt, recorded on the
 * real driver.  No probe calls a multicast entry point: the GPUs the real
 * answers come from are shared, and multicast answers come from the
 * documentation (lib/tests, selftests).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

/* How long one probe may take before it counts as a hang. */
#define PROBE_TIMEOUT_S 20

#define MIB (1024UL * 1024UL)

static char answer[256];

/* Record the result of the probe's call, with what it returned. */
static void say(CUresult res, const char *fmt, ...)
{
	const char *name = NULL;
	va_list ap;
	int n;

	if (cuGetErrorName(res, &name) != CUDA_SUCCESS || !name)
		n = snprintf(answer, sizeof(answer), "CUresult(%d)", (int)res);
	else
		n = snprintf(answer, sizeof(answer), "%s", name);
	if (!fmt || n < 0 || (size_t)n >= sizeof(answer))
		return;
	answer[n++] = ' ';
	va_start(ap, fmt);
	vsnprintf(answer + n, sizeof(answer) - n, fmt, ap);
	va_end(ap);
}

#define SAY(call) say((call), NULL)

/*
 * The call, then what it wrote: arguments of one function call are
 * evaluated in no fixed order, so the outputs are read after it returns.
 */
#define SAYV(call, ...)							\
	do {								\
		CUresult sayv_res = (call);				\
		say(sayv_res, __VA_ARGS__);				\
	} while (0)

/* A setup step that must work: otherwise the probe answers what broke. */
#define NEED(call)							\
	do {								\
		CUresult need_res = (call);				\
		if (need_res != CUDA_SUCCESS) {				\
			say(need_res, "in setup: %s", #call);		\
			return;						\
		}							\
	} while (0)

static CUmemAllocationProp device_prop(int dev)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
		.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	};
	return prop;
}

static size_t granularity(void)
{
	CUmemAllocationProp prop = device_prop(0);
	size_t gran = 0;

	if (cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM))
		return 2 * MIB;
	return gran;
}

static CUmemAccessDesc rw_access(int dev)
{
	CUmemAccessDesc desc = {
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	return desc;
}

/* A reservation of @chunks granules with one allocation of @alloc_chunks. */
struct vmm {
	size_t gran;
	CUdeviceptr va;
	CUmemGenericAllocationHandle handle;
};

static CUresult vmm_setup(struct vmm *v, size_t chunks, size_t alloc_chunks)
{
	CUmemAllocationProp prop = device_prop(0);
	CUresult res;

	v->gran = granularity();
	res = cuMemAddressReserve(&v->va, chunks * v->gran, 0, 0, 0);
	if (res)
		return res;
	return cuMemCreate(&v->handle, alloc_chunks * v->gran, &prop, 0);
}

/* A mapped, accessible allocation of one granule at v->va. */
static CUresult vmm_mapped(struct vmm *v)
{
	CUmemAccessDesc desc = rw_access(0);
	CUresult res = vmm_setup(v, 1, 1);

	if (!res)
		res = cuMemMap(v->va, v->gran, 0, v->handle, 0);
	if (!res)
		res = cuMemSetAccess(v->va, v->gran, &desc, 1);
	return res;
}

/*
 * The graphics interoperability functions of cudaGL.h, cudaEGL.h and
 * cudaVDPAU.h, and cudaProfiler.h's cuProfilerInitialize: cuda.h does not
 * declare them, and the runtime asks cuGetProcAddress for them at start,
 * so the probes find them as it does (version 13000) and call them through
 * their PFN types' parameters, spelled here without the graphics headers.
 * The machine that records has no X server, EGL display or VDPAU device.
 */
typedef unsigned int probe_gluint;
/* CUeglFrame: three plane pointers, eight 32-bit fields, the format. */
struct probe_egl_frame {
	void *planes[3];
	unsigned int fields[9];
};

static void *interop_fn(const char *name)
{
	CUdriverProcAddressQueryResult found;
	void *fn = NULL;

	if (cuGetProcAddress_v2(name, &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT,
				&found) != CUDA_SUCCESS ||
	    found != CU_GET_PROC_ADDRESS_SUCCESS)
		return NULL;
	return fn;
}

/* @fn's address, or the probe answers that cuGetProcAddress has none. */
#define INTEROP(type, fn, name)						\
	__typeof__(type) fn = (__typeof__(type))interop_fn(name);	\
	do {								\
		if (!fn) {						\
			say(CUDA_ERROR_NOT_FOUND, "%s not found", name); \
			return;						\
		}							\
	} while (0)

static void interop_gl_init(void)
{
	INTEROP(CUresult (*)(void), fn, "cuGLInit");

	SAY(fn());
}

static void interop_gl_get_devices(void)
{
	INTEROP(CUresult (*)(unsigned int *, CUdevice *, unsigned int, int),
		fn, "cuGLGetDevices");
	unsigned int count = 77;
	CUdevice devs[8];

	SAYV(fn(&count, devs, 8, 1 /* CU_GL_DEVICE_LIST_ALL */),
	     "count=%u", count);
}

static void interop_gl_ctx_create(void)
{
	INTEROP(CUresult (*)(CUcontext *, unsigned int, CUdevice), fn,
		"cuGLCtxCreate");
	CUcontext ctx = NULL;

	SAYV(fn(&ctx, 0, 0), "ctx=%s", ctx ? "set" : "NULL");
}

static void interop_gl_buffer_objects(void)
{
	INTEROP(CUresult (*)(probe_gluint), reg, "cuGLRegisterBufferObject");
	INTEROP(CUresult (*)(probe_gluint), unreg,
		"cuGLUnregisterBufferObject");
	INTEROP(CUresult (*)(probe_gluint), unmap, "cuGLUnmapBufferObject");
	INTEROP(CUresult (*)(probe_gluint, CUstream), unmap_async,
		"cuGLUnmapBufferObjectAsync");
	INTEROP(CUresult (*)(probe_gluint, unsigned int), flags,
		"cuGLSetBufferObjectMapFlags");
	CUresult res = reg(1);

	SAYV(res, "unregister=%d unmap=%d unmap_async=%d map_flags=%d",
	     (int)unreg(1), (int)unmap(1), (int)unmap_async(1, NULL),
	     (int)flags(1, 0));
}

static void interop_gl_map(void)
{
	INTEROP(CUresult (*)(CUdeviceptr *, size_t *, probe_gluint), map,
		"cuGLMapBufferObject");
	INTEROP(CUresult (*)(CUdeviceptr *, size_t *, probe_gluint, CUstream),
		map_async, "cuGLMapBufferObjectAsync");
	CUdeviceptr dptr = 0;
	size_t size = 0;
	CUresult res = map(&dptr, &size, 1);

	SAYV(res, "async=%d dptr=%s", (int)map_async(&dptr, &size, 1, NULL),
	     dptr ? "set" : "0");
}

static void interop_graphics_gl_register(void)
{
	INTEROP(CUresult (*)(CUgraphicsResource *, probe_gluint, unsigned int),
		buffer, "cuGraphicsGLRegisterBuffer");
	INTEROP(CUresult (*)(CUgraphicsResource *, probe_gluint, unsigned int,
			     unsigned int),
		image, "cuGraphicsGLRegisterImage");
	CUgraphicsResource resource = NULL;
	CUresult res = buffer(&resource, 1, 0);

	SAYV(res, "image=%d resource=%s",
	     (int)image(&resource, 1, 0x0de1 /* GL_TEXTURE_2D */, 0),
	     resource ? "set" : "NULL");
}

static void interop_graphics_egl(void)
{
	INTEROP(CUresult (*)(CUgraphicsResource *, void *, unsigned int),
		image, "cuGraphicsEGLRegisterImage");
	INTEROP(CUresult (*)(struct probe_egl_frame *, CUgraphicsResource,
			     unsigned int, unsigned int),
		frame, "cuGraphicsResourceGetMappedEglFrame");
	CUgraphicsResource resource = NULL;
	struct probe_egl_frame f;
	CUresult res;

	memset(&f, 0, sizeof(f));
	res = image(&resource, (void *)0x10, 0);

	SAYV(res, "mapped_frame=%d", (int)frame(&f, NULL, 0, 0));
}

/* Connecting to a stream that is not an EGLStream, and with no connection. */
static void interop_egl_connect(void)
{
	INTEROP(CUresult (*)(void **, void *), consumer,
		"cuEGLStreamConsumerConnect");
	INTEROP(CUresult (*)(void **, void *, unsigned int), consumer_flags,
		"cuEGLStreamConsumerConnectWithFlags");
	INTEROP(CUresult (*)(void **, void *, int, int), producer,
		"cuEGLStreamProducerConnect");
	void *conn = NULL;
	CUresult res = consumer(&conn, (void *)0x10);

	SAYV(res, "flags=%d producer=%d null_conn=%d/%d/%d",
	     (int)consumer_flags(&conn, (void *)0x10, 0),
	     (int)producer(&conn, (void *)0x10, 64, 64),
	     (int)consumer(NULL, NULL), (int)consumer_flags(NULL, NULL, 0),
	     (int)producer(NULL, NULL, 0, 0));
}

/* The calls on a connection that was never made. */
static void interop_egl_frames(void)
{
	INTEROP(CUresult (*)(void **), consumer_disconnect,
		"cuEGLStreamConsumerDisconnect");
	INTEROP(CUresult (*)(void **), producer_disconnect,
		"cuEGLStreamProducerDisconnect");
	INTEROP(CUresult (*)(void **, CUgraphicsResource *, CUstream *,
			     unsigned int),
		acquire, "cuEGLStreamConsumerAcquireFrame");
	INTEROP(CUresult (*)(void **, CUgraphicsResource, CUstream *), release,
		"cuEGLStreamConsumerReleaseFrame");
	INTEROP(CUresult (*)(void **, struct probe_egl_frame, CUstream *),
		present, "cuEGLStreamProducerPresentFrame");
	INTEROP(CUresult (*)(void **, struct probe_egl_frame *, CUstream *),
		give_back, "cuEGLStreamProducerReturnFrame");
	CUgraphicsResource resource = NULL;
	struct probe_egl_frame f;
	CUstream stream = NULL;
	void *conn = NULL;
	CUresult res;

	memset(&f, 0, sizeof(f));
	res = consumer_disconnect(&conn);

	SAYV(res, "producer_disconnect=%d acquire=%d release=%d present=%d return=%d",
	     (int)producer_disconnect(&conn),
	     (int)acquire(&conn, &resource, &stream, 0),
	     (int)release(&conn, NULL, &stream),
	     (int)present(&conn, f, &stream),
	     (int)give_back(&conn, &f, &stream));
}

/*
 * Without VDPAU's function to find its others: the driver calls the one it
 * is given (0x10 crashes it), so the probe gives none.
 */
static void interop_vdpau(void)
{
	INTEROP(CUresult (*)(CUdevice *, uint32_t, void *), get_device,
		"cuVDPAUGetDevice");
	INTEROP(CUresult (*)(CUcontext *, unsigned int, CUdevice, uint32_t,
			     void *),
		ctx_create, "cuVDPAUCtxCreate");
	CUcontext ctx = NULL;
	CUdevice dev = -1;
	CUresult res = get_device(&dev, 1, NULL);

	SAYV(res, "dev=%d ctx_create=%d", (int)dev,
	     (int)ctx_create(&ctx, 0, 0, 1, NULL));
}

/* Surfaces of a VDPAU device there is none of. */
static void interop_vdpau_surfaces(void)
{
	INTEROP(CUresult (*)(CUgraphicsResource *, uint32_t, unsigned int),
		video, "cuGraphicsVDPAURegisterVideoSurface");
	INTEROP(CUresult (*)(CUgraphicsResource *, uint32_t, unsigned int),
		output, "cuGraphicsVDPAURegisterOutputSurface");
	CUgraphicsResource resource = NULL;
	CUresult res = video(&resource, 1, 0);

	SAYV(res, "output=%d resource=%s", (int)output(&resource, 1, 0),
	     resource ? "set" : "NULL");
}

static void interop_profiler_initialize(void)
{
	INTEROP(CUresult (*)(const char *, const char *, int), fn,
		"cuProfilerInitialize");
	CUresult res = fn(NULL, NULL, 0);

	SAYV(res, "with_files=%d", (int)fn("/nonexistent", "/tmp/profile", 0));
}

/* cuGLGetDevices's oldest ABI, 4.1's, and what older versions find. */
static void interop_gl_versions(void)
{
	static const int versions[] = { 4000, 4010, 6050, 13000 };
	CUdriverProcAddressQueryResult found[4];
	void *fn;
	int i;

	for (i = 0; i < 4; i++) {
		fn = NULL;
		if (cuGetProcAddress_v2("cuGLGetDevices", &fn, versions[i],
					CU_GET_PROC_ADDRESS_DEFAULT, &found[i]))
			found[i] = -1;
	}
	say(CUDA_SUCCESS, "found=%d/%d/%d/%d", found[0], found[1], found[2],
	    found[3]);
}

/* Probes marked NO_CONTEXT run with cuInit done and no current context. */
enum probe_setup { WITH_CONTEXT, NO_CONTEXT, NO_INIT };

struct probe {
	const char *name;
	void (*run)(void);
	enum probe_setup setup;
};

/* --- initialization, versions, entry points ---------------------------- */

static void init_bad_flags(void) { SAY(cuInit(1)); }
static void count_before_init(void)
{
	int n = -1;

	SAYV(cuDeviceGetCount(&n), "count=%d", n);
}
static void driver_version_null(void) { SAY(cuDriverGetVersion(NULL)); }

static void procaddr_v2_unknown(void)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = &fn;
	CUresult res = cuGetProcAddress("cuNoSuchEntryPoint", &fn, 12000, 0,
					&status);

	say(res, "status=%d fn=%s", (int)status, fn ? "set" : "NULL");
}

/* The 11.3 four-argument form, as NVSHMEM calls it. */
static void procaddr_v1_unknown(void)
{
	CUresult (*v1)(const char *, void **, int, cuuint64_t);
	CUdriverProcAddressQueryResult status;
	void *fn = NULL, *probe_fn = &probe_fn;
	CUresult res;

	NEED(cuGetProcAddress("cuGetProcAddress", &fn, 11030, 0, &status));
	if (!fn) {
		say(CUDA_ERROR_NOT_FOUND, "no v1 function");
		return;
	}
	v1 = (CUresult (*)(const char *, void **, int, cuuint64_t))fn;
	res = v1("cuNoSuchEntryPoint", &probe_fn, 12000, 0);
	say(res, "fn=%s", probe_fn == &probe_fn ? "untouched" :
		 probe_fn ? "set" : "NULL");
}

static void procaddr_known(void)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = NULL;
	CUresult res = cuGetProcAddress("cuMemCreate", &fn, 12000, 0, &status);

	say(res, "status=%d fn=%s", (int)status, fn ? "set" : "NULL");
}

static void procaddr_too_old(void)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = &fn;
	CUresult res = cuGetProcAddress("cuMemCreate", &fn, 10000, 0, &status);

	say(res, "status=%d fn=%s", (int)status, fn ? "set" : "NULL");
}

static void procaddr_ptds(void)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = NULL, *legacy = NULL;
	CUresult res;

	NEED(cuGetProcAddress("cuStreamSynchronize", &legacy, 12000,
			      CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status));
	res = cuGetProcAddress("cuStreamSynchronize", &fn, 12000,
			       CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
			       &status);
	say(res, "status=%d distinct=%d", (int)status,
	    fn && legacy && fn != legacy);
}

static void procaddr_bad_flags(void)
{
	CUdriverProcAddressQueryResult status = -1;
	void *fn = NULL;

	SAY(cuGetProcAddress("cuMemCreate", &fn, 12000, 1ULL << 40, &status));
}

/* --- devices --------------------------------------------------------- */

static void device_get_negative(void)
{
	CUdevice dev;

	SAY(cuDeviceGet(&dev, -1));
}

static void device_name_zero_len(void)
{
	char name[8];

	SAY(cuDeviceGetName(name, 0, 0));
}

static void attribute_bad(void)
{
	int v;

	SAY(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, 0));
}

static void attribute(CUdevice_attribute attr)
{
	int v = -7;

	SAYV(cuDeviceGetAttribute(&v, attr, 0), "value=%d", v);
}

#define ATTRIBUTE_PROBE(fn, attr) \
	static void fn(void) { attribute(CU_DEVICE_ATTRIBUTE_##attr); }

ATTRIBUTE_PROBE(attr_vmm, VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED)
ATTRIBUTE_PROBE(attr_posix_fd, HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED)
ATTRIBUTE_PROBE(attr_unified, UNIFIED_ADDRESSING)
ATTRIBUTE_PROBE(attr_map_host, CAN_MAP_HOST_MEMORY)
ATTRIBUTE_PROBE(attr_memops64, CAN_USE_64_BIT_STREAM_MEM_OPS)
ATTRIBUTE_PROBE(attr_wait_nor, CAN_USE_STREAM_WAIT_VALUE_NOR)
ATTRIBUTE_PROBE(attr_pools, MEMORY_POOLS_SUPPORTED)
ATTRIBUTE_PROBE(attr_host_numa, HOST_NUMA_ID)
ATTRIBUTE_PROBE(attr_priorities, STREAM_PRIORITIES_SUPPORTED)
ATTRIBUTE_PROBE(attr_cc_major, COMPUTE_CAPABILITY_MAJOR)
ATTRIBUTE_PROBE(attr_integrated, INTEGRATED)

/* --- contexts ------------------------------------------------------- */

static void ctx_current_none(void)
{
	CUcontext ctx = (CUcontext)&ctx;

	SAYV(cuCtxGetCurrent(&ctx), "ctx=%s", ctx ? "set" : "NULL");
}

static void ctx_sync_none(void) { SAY(cuCtxSynchronize()); }

static void ctx_get_flags_primary(void)
{
	unsigned int flags = 12345;

	SAYV(cuCtxGetFlags(&flags), "flags=%u", flags);
}

static void ctx_set_flags_sync_memops(void)
{
	unsigned int flags = 0;

	NEED(cuCtxSetFlags(CU_CTX_SYNC_MEMOPS));
	SAYV(cuCtxGetFlags(&flags), "flags=%u", flags);
}

static void ctx_set_flags_bad(void) { SAY(cuCtxSetFlags(0x10000)); }

static void ctx_priority_range(void)
{
	int least = 99, greatest = 99;

	SAYV(cuCtxGetStreamPriorityRange(&least, &greatest),
	    "least=%d greatest=%d", least, greatest);
}

/* --- the VMM core --------------------------------------------------- */

static void gran_host_numa(void)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_HOST_NUMA, .id = 0 },
	};
	size_t gran = 0;

	SAYV(cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM),
	    "granularity=%zu", gran);
}

static void create_host_numa(void)
{
	CUmemAllocationProp prop = {
		.type = CU_MEM_ALLOCATION_TYPE_PINNED,
		.location = { .type = CU_MEM_LOCATION_TYPE_HOST_NUMA, .id = 0 },
	};
	CUmemGenericAllocationHandle handle;

	SAY(cuMemCreate(&handle, 2 * MIB, &prop, 0));
}

static void gran_bad_location(void)
{
	CUmemAllocationProp prop = device_prop(0);
	size_t gran;

	prop.location.id = 4096;
	SAY(cuMemGetAllocationGranularity(&gran, &prop,
					  CU_MEM_ALLOC_GRANULARITY_MINIMUM));
}

static void create_zero(void)
{
	CUmemAllocationProp prop = device_prop(0);
	CUmemGenericAllocationHandle handle;

	SAY(cuMemCreate(&handle, 0, &prop, 0));
}

static void create_unaligned(void)
{
	CUmemAllocationProp prop = device_prop(0);
	CUmemGenericAllocationHandle handle;

	SAY(cuMemCreate(&handle, granularity() + 4096, &prop, 0));
}

static void create_bad_flags(void)
{
	CUmemAllocationProp prop = device_prop(0);
	CUmemGenericAllocationHandle handle;

	SAY(cuMemCreate(&handle, granularity(), &prop, 1));
}

static void create_bad_device(void)
{
	CUmemAllocationProp prop = device_prop(4096);
	CUmemGenericAllocationHandle handle;

	SAY(cuMemCreate(&handle, granularity(), &prop, 0));
}

static void release_twice(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemRelease(v.handle));
	SAY(cuMemRelease(v.handle));
}

static void reserve_zero(void)
{
	CUdeviceptr va;

	SAY(cuMemAddressReserve(&va, 0, 0, 0, 0));
}

static void reserve_unaligned(void)
{
	CUdeviceptr va;

	SAY(cuMemAddressReserve(&va, granularity() + 4096, 0, 0, 0));
}

static void reserve_bad_alignment(void)
{
	CUdeviceptr va;

	SAY(cuMemAddressReserve(&va, granularity(), 3 * MIB, 0, 0));
}

static void reserve_flags(void)
{
	CUdeviceptr va;

	SAY(cuMemAddressReserve(&va, granularity(), 0, 0, 1));
}

static void free_partial(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 2, 1));
	SAY(cuMemAddressFree(v.va, v.gran));
}

static void map_whole(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemMap(v.va, v.gran, 0, v.handle, 0));
}

static void map_partial(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 2, 2));
	SAY(cuMemMap(v.va, v.gran, 0, v.handle, 0));
}

static void map_at_offset(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 2, 2));
	SAY(cuMemMap(v.va, v.gran, v.gran, v.handle, 0));
}

static void map_larger(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 2, 1));
	SAY(cuMemMap(v.va, 2 * v.gran, 0, v.handle, 0));
}

static void map_twice(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemMap(v.va, v.gran, 0, v.handle, 0));
	SAY(cuMemMap(v.va, v.gran, 0, v.handle, 0));
}

static void map_flags(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemMap(v.va, v.gran, 0, v.handle, 1));
}

static void map_released(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemRelease(v.handle));
	SAY(cuMemMap(v.va, v.gran, 0, v.handle, 0));
}

static void map_unreserved(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemAddressFree(v.va, v.gran));
	SAY(cuMemMap(v.va, v.gran, 0, v.handle, 0));
}

static void access_ok(void)
{
	struct vmm v;

	SAY(vmm_mapped(&v));
}

static void access_bad_device(void)
{
	CUmemAccessDesc desc = rw_access(4096);
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemMap(v.va, v.gran, 0, v.handle, 0));
	SAY(cuMemSetAccess(v.va, v.gran, &desc, 1));
}

static void access_unmapped(void)
{
	CUmemAccessDesc desc = rw_access(0);
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemSetAccess(v.va, v.gran, &desc, 1));
}

static void access_zero_count(void)
{
	CUmemAccessDesc desc = rw_access(0);
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemMap(v.va, v.gran, 0, v.handle, 0));
	SAY(cuMemSetAccess(v.va, v.gran, &desc, 0));
}

static void access_bad_flags(void)
{
	CUmemAccessDesc desc = rw_access(0);
	struct vmm v;

	desc.flags = (CUmemAccess_flags)7;
	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemMap(v.va, v.gran, 0, v.handle, 0));
	SAY(cuMemSetAccess(v.va, v.gran, &desc, 1));
}

static void get_access(void)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	unsigned long long flags = 99;
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAYV(cuMemGetAccess(&flags, &loc, v.va), "flags=%llu", flags);
}

static void get_access_unmapped(void)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	unsigned long long flags = 99;
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAYV(cuMemGetAccess(&flags, &loc, v.va), "flags=%llu", flags);
}

static void unmap_nothing_mapped(void)
{
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemUnmap(v.va, v.gran));
}

static void unmap_partial(void)
{
	CUmemAccessDesc desc = rw_access(0);
	struct vmm v;

	NEED(vmm_setup(&v, 2, 2));
	NEED(cuMemMap(v.va, 2 * v.gran, 0, v.handle, 0));
	NEED(cuMemSetAccess(v.va, 2 * v.gran, &desc, 1));
	SAY(cuMemUnmap(v.va, v.gran));
}

static void unmap_whole(void)
{
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAY(cuMemUnmap(v.va, v.gran));
}

static void retain_unmapped(void)
{
	CUmemGenericAllocationHandle handle;
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemRetainAllocationHandle(&handle, (void *)(uintptr_t)v.va));
}

static void retain_mapped(void)
{
	CUmemGenericAllocationHandle handle = 0;
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAYV(cuMemRetainAllocationHandle(&handle, (void *)(uintptr_t)v.va),
	    "same=%d", handle == v.handle);
}

static void export_fd(void)
{
	struct vmm v;
	int fd = -1;

	NEED(vmm_setup(&v, 1, 1));
	SAYV(cuMemExportToShareableHandle(&fd, v.handle,
					 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
	    "fd=%s", fd >= 0 ? "valid" : "none");
}

static void export_not_requested(void)
{
	CUmemAllocationProp prop = device_prop(0);
	CUmemGenericAllocationHandle handle;
	int fd = -1;

	prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
	NEED(cuMemCreate(&handle, granularity(), &prop, 0));
	SAY(cuMemExportToShareableHandle(&fd, handle,
					 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
}

static void export_flags(void)
{
	struct vmm v;
	int fd = -1;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemExportToShareableHandle(&fd, v.handle,
					 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
}

static void import_not_cumc_fd(void)
{
	CUmemGenericAllocationHandle handle;
	int fd = open("/dev/null", O_RDONLY);

	SAY(cuMemImportFromShareableHandle(&handle, (void *)(uintptr_t)fd,
					   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
}

static void import_round_trip(void)
{
	CUmemGenericAllocationHandle handle;
	struct vmm v;
	int fd = -1;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuMemExportToShareableHandle(&fd, v.handle,
					  CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
	SAY(cuMemImportFromShareableHandle(&handle, (void *)(uintptr_t)fd,
					   CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
}

static void props_from_handle(void)
{
	CUmemAllocationProp prop;
	struct vmm v;

	memset(&prop, 0xff, sizeof(prop));
	NEED(vmm_setup(&v, 1, 1));
	SAYV(cuMemGetAllocationPropertiesFromHandle(&prop, v.handle),
	    "type=%d loc=%d id=%d handles=%d", prop.type, prop.location.type,
	    prop.location.id, prop.requestedHandleTypes);
}

/* --- copies and sets ----------------------------------------------- */

static void copy_round_trip(void)
{
	unsigned int in[64], out[64] = { 0 };
	struct vmm v;
	int i;

	for (i = 0; i < 64; i++)
		in[i] = 0x9e3779b9u * i;
	NEED(vmm_mapped(&v));
	NEED(cuMemcpyHtoD(v.va, in, sizeof(in)));
	SAYV(cuMemcpyDtoH(out, v.va, sizeof(out)), "same=%d",
	    !memcmp(in, out, sizeof(in)));
}

static void copy_zero_bytes(void)
{
	char byte;
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAY(cuMemcpyHtoD(v.va, &byte, 0));
}

static void copy_unmapped(void)
{
	char buf[16] = { 0 };
	struct vmm v;

	NEED(vmm_setup(&v, 1, 1));
	SAY(cuMemcpyHtoD(v.va, buf, sizeof(buf)));
}

static void copy_past_end(void)
{
	static char buf[8192];
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAY(cuMemcpyHtoD(v.va + v.gran - 4096, buf, sizeof(buf)));
}

static void memset_d32_misaligned(void)
{
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAY(cuMemsetD32(v.va + 2, 0x1234, 4));
}

static void memset_d32(void)
{
	unsigned int out[4] = { 0 };
	struct vmm v;

	NEED(vmm_mapped(&v));
	NEED(cuMemsetD32(v.va, 0xdeadbeef, 4));
	SAYV(cuMemcpyDtoH(out, v.va, sizeof(out)), "word=%#x", out[3]);
}

/* --- plain and host allocations ------------------------------------ */

static void alloc_zero(void)
{
	CUdeviceptr p = 0;

	SAY(cuMemAlloc(&p, 0));
}

static void alloc_free(void)
{
	CUdeviceptr p = 0;

	NEED(cuMemAlloc(&p, 4096));
	SAY(cuMemFree(p));
}

static void free_null(void) { SAY(cuMemFree(0)); }

static void free_twice(void)
{
	CUdeviceptr p = 0;

	NEED(cuMemAlloc(&p, 4096));
	NEED(cuMemFree(p));
	SAY(cuMemFree(p));
}

static void free_interior(void)
{
	CUdeviceptr p = 0;

	NEED(cuMemAlloc(&p, 8192));
	SAY(cuMemFree(p + 4096));
}

static void free_vmm_mapping(void)
{
	struct vmm v;

	NEED(vmm_mapped(&v));
	SAY(cuMemFree(v.va));
}

static void alloc_range(void)
{
	CUdeviceptr p = 0, base = 0;
	size_t size = 0;

	NEED(cuMemAlloc(&p, 12345));
	SAYV(cuMemGetAddressRange(&base, &size, p + 100), "base_is_p=%d size=%zu",
	    base == p, size);
}

static void alloc_pointer_type(void)
{
	unsigned int type = 0;
	CUdeviceptr p = 0;

	NEED(cuMemAlloc(&p, 4096));
	SAYV(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p),
	    "type=%u", type);
}

static void alloc_copy(void)
{
	unsigned int in = 0xfeedf00d, out = 0;
	CUdeviceptr p = 0;

	NEED(cuMemAlloc(&p, 4096));
	NEED(cuMemcpyHtoD(p, &in, sizeof(in)));
	SAYV(cuMemcpyDtoH(&out, p, sizeof(out)), "same=%d", in == out);
}

static void host_alloc(void)
{
	void *p = NULL;

	NEED(cuMemAllocHost(&p, 4096));
	SAY(cuMemFreeHost(p));
}

static void host_alloc_bad_flags(void)
{
	void *p = NULL;

	SAY(cuMemHostAlloc(&p, 4096, 0x100));
}

static void host_alloc_flags(void)
{
	unsigned int flags = 0;
	void *p = NULL;

	NEED(cuMemHostAlloc(&p, 4096, CU_MEMHOSTALLOC_DEVICEMAP |
			    CU_MEMHOSTALLOC_PORTABLE));
	SAYV(cuMemHostGetFlags(&flags, p), "flags=%u", flags);
}

static void host_device_pointer(void)
{
	CUdeviceptr d = 0;
	void *p = NULL;

	NEED(cuMemAllocHost(&p, 4096));
	SAYV(cuMemHostGetDevicePointer(&d, p, 0), "same=%d",
	    d == (CUdeviceptr)(uintptr_t)p);
}

static void host_device_pointer_flags(void)
{
	CUdeviceptr d = 0;
	void *p = NULL;

	NEED(cuMemAllocHost(&p, 4096));
	SAY(cuMemHostGetDevicePointer(&d, p, 1));
}

static void host_pointer_type(void)
{
	unsigned int type = 0;
	void *p = NULL;

	NEED(cuMemAllocHost(&p, 4096));
	SAYV(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
				  (CUdeviceptr)(uintptr_t)p), "type=%u", type);
}

static void free_host_unknown(void)
{
	static char buf[64];

	SAY(cuMemFreeHost(buf));
}

static void pointer_set_sync_memops(void)
{
	CUdeviceptr p = 0;
	int one = 1;

	NEED(cuMemAlloc(&p, 4096));
	SAY(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p));
}

static void pointer_set_other(void)
{
	CUdeviceptr p = 0;
	int one = 1;

	NEED(cuMemAlloc(&p, 4096));
	SAY(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
}

/* --- peers ----------------------------------------------------------- */

static void peer_self(void)
{
	int can = -1;

	SAYV(cuDeviceCanAccessPeer(&can, 0, 0), "can=%d", can);
}

static void peer_bad_device(void)
{
	int can = -1;

	SAY(cuDeviceCanAccessPeer(&can, 0, 4096));
}

static void peer_enable_self(void)
{
	CUcontext ctx;

	NEED(cuCtxGetCurrent(&ctx));
	SAY(cuCtxEnablePeerAccess(ctx, 0));
}

static void peer_disable_self(void)
{
	CUcontext ctx;

	NEED(cuCtxGetCurrent(&ctx));
	SAY(cuCtxDisablePeerAccess(ctx));
}

static void p2p_attr_self(void)
{
	int v = -1;

	SAYV(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
				    0, 0), "value=%d", v);
}

/* --- streams ----------------------------------------------------------- */

static void stream_bad_flags(void)
{
	CUstream s;

	SAY(cuStreamCreate(&s, 0x10));
}

static void stream_query_idle(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	SAY(cuStreamQuery(s));
}

static void stream_flags(void)
{
	unsigned int flags = 99;
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	SAYV(cuStreamGetFlags(s, &flags), "flags=%u", flags);
}

static void stream_priority_clamped(void)
{
	int prio = 99;
	CUstream s;

	NEED(cuStreamCreateWithPriority(&s, 0, -100));
	SAYV(cuStreamGetPriority(s, &prio), "priority=%d", prio);
}

static void stream_legacy_flags(void)
{
	unsigned int flags = 99;

	SAYV(cuStreamGetFlags(CU_STREAM_LEGACY, &flags), "flags=%u", flags);
}

static void stream_sync_null(void) { SAY(cuStreamSynchronize(NULL)); }

static void stream_destroy_twice(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	NEED(cuStreamDestroy(s));
	SAY(cuStreamQuery(CU_STREAM_PER_THREAD));
}

static void host_func_mark(void *arg)
{
	*(volatile int *)arg = 1;
}

static void stream_host_func(void)
{
	static volatile int ran;
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	NEED(cuLaunchHostFunc(s, host_func_mark, (void *)&ran));
	SAYV(cuStreamSynchronize(s), "ran=%d", ran);
}

static void stream_host_func_null(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	SAY(cuLaunchHostFunc(s, NULL, NULL));
}

static void stream_memset_async(void)
{
	unsigned int out = 0;
	struct vmm v;
	CUstream s;

	NEED(vmm_mapped(&v));
	NEED(cuStreamCreate(&s, 0));
	NEED(cuMemsetD32Async(v.va, 0x5a5a5a5a, v.gran / 4, s));
	NEED(cuStreamSynchronize(s));
	SAYV(cuMemcpyDtoH(&out, v.va + v.gran - 4, 4), "word=%#x", out);
}

static void stream_copy_async_unmapped(void)
{
	char buf[16] = { 0 };
	struct vmm v;
	CUstream s;

	NEED(vmm_setup(&v, 1, 1));
	NEED(cuStreamCreate(&s, 0));
	SAY(cuMemcpyHtoDAsync(v.va, buf, sizeof(buf), s));
}

static void write_value_then_wait(void)
{
	cuuint32_t word = 0;
	struct vmm v;
	CUstream s;

	NEED(vmm_mapped(&v));
	NEED(cuStreamCreate(&s, 0));
	NEED(cuStreamWriteValue32(s, v.va, 7, 0));
	NEED(cuStreamWaitValue32(s, v.va, 7, CU_STREAM_WAIT_VALUE_EQ));
	NEED(cuStreamSynchronize(s));
	SAYV(cuMemcpyDtoH(&word, v.va, 4), "word=%u", word);
}

static void write_value64(void)
{
	cuuint64_t word = 0;
	struct vmm v;
	CUstream s;

	NEED(vmm_mapped(&v));
	NEED(cuStreamCreate(&s, 0));
	NEED(cuStreamWriteValue64(s, v.va, 0x123456789abcULL, 0));
	NEED(cuStreamSynchronize(s));
	SAYV(cuMemcpyDtoH(&word, v.va, 8), "word=%#llx", (unsigned long long)word);
}

static void wait_value_bad_flags(void)
{
	struct vmm v;
	CUstream s;

	NEED(vmm_mapped(&v));
	NEED(cuStreamCreate(&s, 0));
	SAY(cuStreamWaitValue32(s, v.va, 1, 0x100));
}

static void write_value_misaligned(void)
{
	struct vmm v;
	CUstream s;

	NEED(vmm_mapped(&v));
	NEED(cuStreamCreate(&s, 0));
	SAY(cuStreamWriteValue32(s, v.va + 2, 1, 0));
}

static void wait_value_nor_blocks(void)
{
	struct vmm v;
	CUstream s;
	CUresult res;

	/* ~(0xffffffff | 0) == 0: the wait cannot be met yet. */
	NEED(vmm_mapped(&v));
	NEED(cuMemsetD32(v.va, 0xffffffff, 1));
	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamWaitValue32(s, v.va, 0, CU_STREAM_WAIT_VALUE_NOR));
	res = cuStreamQuery(s);
	NEED(cuMemsetD32(v.va, 0, 1));
	NEED(cuStreamSynchronize(s));
	SAY(res);
}

static void batch_memop_empty(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	SAY(cuStreamBatchMemOp(s, 0, NULL, 0));
}

static void host_memop(void)
{
	unsigned int *word = NULL;
	CUstream s;

	NEED(cuMemHostAlloc((void **)&word, 4096, CU_MEMHOSTALLOC_DEVICEMAP));
	NEED(cuStreamCreate(&s, 0));
	NEED(cuStreamWriteValue32(s, (CUdeviceptr)(uintptr_t)word, 42, 0));
	SAYV(cuStreamSynchronize(s), "word=%u", *word);
}

/* --- events ------------------------------------------------------------ */

static void event_bad_flags(void)
{
	CUevent e;

	SAY(cuEventCreate(&e, 0x40));
}

static void event_interprocess_timing(void)
{
	CUevent e;

	SAY(cuEventCreate(&e, CU_EVENT_INTERPROCESS));
}

static void event_query_unrecorded(void)
{
	CUevent e;

	NEED(cuEventCreate(&e, 0));
	SAY(cuEventQuery(e));
}

static void event_sync_unrecorded(void)
{
	CUevent e;

	NEED(cuEventCreate(&e, 0));
	SAY(cuEventSynchronize(e));
}

static void event_elapsed_unrecorded(void)
{
	CUevent a, b;
	float ms;

	NEED(cuEventCreate(&a, 0));
	NEED(cuEventCreate(&b, 0));
	SAY(cuEventElapsedTime(&ms, a, b));
}

static void event_elapsed_no_timing(void)
{
	CUevent a, b;
	float ms;

	NEED(cuEventCreate(&a, CU_EVENT_DISABLE_TIMING));
	NEED(cuEventCreate(&b, 0));
	NEED(cuEventRecord(a, NULL));
	NEED(cuEventRecord(b, NULL));
	NEED(cuEventSynchronize(b));
	SAY(cuEventElapsedTime(&ms, a, b));
}

static void event_elapsed(void)
{
	CUevent a, b;
	float ms = -1;

	NEED(cuEventCreate(&a, 0));
	NEED(cuEventCreate(&b, 0));
	NEED(cuEventRecord(a, NULL));
	NEED(cuEventRecord(b, NULL));
	NEED(cuEventSynchronize(b));
	SAYV(cuEventElapsedTime(&ms, a, b), "nonnegative=%d", ms >= 0);
}

static void event_elapsed_null(void)
{
	CUevent a;

	NEED(cuEventCreate(&a, 0));
	NEED(cuEventRecord(a, NULL));
	NEED(cuEventSynchronize(a));
	SAY(cuEventElapsedTime(NULL, a, a));
}

static void event_record_bad_flags(void)
{
	CUevent e;

	NEED(cuEventCreate(&e, 0));
	SAY(cuEventRecordWithFlags(e, NULL, 0x10));
}

static void event_wait_pending(void)
{
	CUstream blocked, waiter;
	struct vmm v;
	CUevent e;
	CUresult res;

	NEED(vmm_mapped(&v));
	NEED(cuMemsetD32(v.va, 0, 1));
	NEED(cuStreamCreate(&blocked, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamCreate(&waiter, CU_STREAM_NON_BLOCKING));
	NEED(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	NEED(cuStreamWaitValue32(blocked, v.va, 1, CU_STREAM_WAIT_VALUE_GEQ));
	NEED(cuEventRecord(e, blocked));
	NEED(cuStreamWaitEvent(waiter, e, 0));
	res = cuStreamQuery(waiter);
	NEED(cuMemsetD32(v.va, 1, 1));
	NEED(cuStreamSynchronize(waiter));
	SAY(res);
}

/* --- memory pools ------------------------------------------------------ */

static void pool_default(void)
{
	CUmemoryPool pool = NULL;

	SAYV(cuDeviceGetDefaultMemPool(&pool, 0), "pool=%s", pool ? "set" : "NULL");
}

static void pool_threshold_default(void)
{
	CUmemoryPool pool;
	cuuint64_t v = 99;

	NEED(cuDeviceGetDefaultMemPool(&pool, 0));
	SAYV(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v),
	    "threshold=%llu", (unsigned long long)v);
}

static void pool_reuse_default(void)
{
	CUmemoryPool pool;
	int a = 9, b = 9, c = 9;

	NEED(cuDeviceGetDefaultMemPool(&pool, 0));
	NEED(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES, &a));
	NEED(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &b));
	SAYV(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES, &c),
	    "reuse=%d%d%d", a, b, c);
}

static CUmemPoolProps pool_props(CUmemAllocationHandleType type)
{
	CUmemPoolProps props = {
		.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
		.handleTypes = type,
		.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
	};
	return props;
}

static void pool_create_bad_device(void)
{
	CUmemPoolProps props = pool_props(CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool pool;

	props.location.id = 4096;
	SAY(cuMemPoolCreate(&pool, &props));
}

static void pool_create_bad_type(void)
{
	CUmemPoolProps props = pool_props(CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool pool;

	props.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
	SAY(cuMemPoolCreate(&pool, &props));
}

static void pool_alloc_async(void)
{
	CUmemPoolProps props = pool_props(CU_MEM_HANDLE_TYPE_NONE);
	unsigned int in = 0xabad1dea, out = 0;
	CUmemoryPool pool;
	CUdeviceptr p;
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	NEED(cuMemPoolCreate(&pool, &props));
	NEED(cuMemAllocFromPoolAsync(&p, 4096, pool, s));
	NEED(cuMemcpyHtoDAsync(p, &in, 4, s));
	NEED(cuMemcpyDtoHAsync(&out, p, 4, s));
	NEED(cuMemFreeAsync(p, s));
	NEED(cuStreamSynchronize(s));
	SAYV(cuMemPoolDestroy(pool), "same=%d", in == out);
}

static void pool_alloc_zero(void)
{
	CUdeviceptr p;
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	SAY(cuMemAllocAsync(&p, 0, s));
}

static void pool_used_after_free(void)
{
	CUmemPoolProps props = pool_props(CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool pool;
	cuuint64_t used = 99, reserved = 0;
	CUdeviceptr p;
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	NEED(cuMemPoolCreate(&pool, &props));
	NEED(cuMemAllocFromPoolAsync(&p, 1 << 20, pool, s));
	NEED(cuMemFreeAsync(p, s));
	NEED(cuStreamSynchronize(s));
	NEED(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
	NEED(cuMemPoolTrimTo(pool, 0));
	SAYV(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
	    "used=%llu reserved_after_trim=%llu", (unsigned long long)used,
	    (unsigned long long)reserved);
}

static void pool_high_reset_nonzero(void)
{
	CUmemoryPool pool;
	cuuint64_t v = 5;

	NEED(cuDeviceGetDefaultMemPool(&pool, 0));
	SAY(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &v));
}

static void pool_get_access(void)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUmemAccess_flags flags = 99;
	CUmemoryPool pool;

	NEED(cuDeviceGetDefaultMemPool(&pool, 0));
	SAYV(cuMemPoolGetAccess(&flags, pool, &loc), "flags=%d", flags);
}

static void pool_export_none(void)
{
	CUmemPoolProps props = pool_props(CU_MEM_HANDLE_TYPE_NONE);
	CUmemoryPool pool;
	int fd = -1;

	NEED(cuMemPoolCreate(&pool, &props));
	SAY(cuMemPoolExportToShareableHandle(&fd, pool,
					     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
}

static void pool_export_fd(void)
{
	CUmemPoolProps props = pool_props(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	CUmemoryPool pool;
	int fd = -1;

	NEED(cuMemPoolCreate(&pool, &props));
	SAYV(cuMemPoolExportToShareableHandle(&fd, pool,
					     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
	    "fd=%s", fd >= 0 ? "valid" : "none");
}

static void pool_destroy_default(void)
{
	CUmemoryPool pool;

	NEED(cuDeviceGetDefaultMemPool(&pool, 0));
	SAY(cuMemPoolDestroy(pool));
}

/* --- device code ------------------------------------------------------- */

static void module_load_garbage(void)
{
	static const char image[] = "this is not a cubin";
	CUmodule mod;

	SAY(cuModuleLoadData(&mod, image));
}

static void module_load_missing_file(void)
{
	CUmodule mod;

	SAY(cuModuleLoad(&mod, "/nonexistent/kernel.cubin"));
}

static void launch_null_function(void)
{
	SAY(cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
}

/* --- graphs and stream capture ----------------------------------------- */

static void CUDA_CB graph_nop(void *arg) { (void)arg; }

static void graph_create_flags(void)
{
	CUgraph g;

	SAY(cuGraphCreate(&g, 1));
}

/* A graph of two empty nodes a -> b. */
static CUresult graph_pair(CUgraph *g, CUgraphNode *a, CUgraphNode *b)
{
	CUresult res = cuGraphCreate(g, 0);

	if (!res)
		res = cuGraphAddEmptyNode(a, *g, NULL, 0);
	if (!res)
		res = cuGraphAddEmptyNode(b, *g, a, 1);
	return res;
}

static void graph_dep_twice(void)
{
	CUgraphNode a, b;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	SAY(cuGraphAddDependencies(g, &a, &b, NULL, 1));
}

static void graph_dep_self(void)
{
	CUgraphNode a, b;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	SAY(cuGraphAddDependencies(g, &a, &a, NULL, 1));
}

static void graph_remove_missing(void)
{
	CUgraphNode a, b;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	SAY(cuGraphRemoveDependencies(g, &b, &a, NULL, 1));
}

static void graph_dep_other_graph(void)
{
	CUgraphNode a, b, other;
	CUgraph g, h;

	NEED(graph_pair(&g, &a, &b));
	NEED(cuGraphCreate(&h, 0));
	NEED(cuGraphAddEmptyNode(&other, h, NULL, 0));
	SAY(cuGraphAddDependencies(g, &other, &b, NULL, 1));
}

static void graph_instantiate_cycle(void)
{
	CUDA_GRAPH_INSTANTIATE_PARAMS ip = { 0 };
	CUgraphNode a, b;
	CUgraphExec exec;
	CUgraph g;
	CUresult res;

	NEED(graph_pair(&g, &a, &b));
	res = cuGraphAddDependencies(g, &b, &a, NULL, 1);
	if (res) {
		say(res, "adding the cycle");
		return;
	}
	SAYV(cuGraphInstantiateWithParams(&exec, g, &ip), "result=%d err_node=%s",
	     (int)ip.result_out, ip.hErrNode_out == a ? "a" :
	     ip.hErrNode_out == b ? "b" : ip.hErrNode_out ? "other" : "NULL");
}

static void graph_instantiate_bad_flags(void)
{
	CUgraphExec exec;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphInstantiateWithFlags(&exec, g, 1ULL << 40));
}

static void graph_instantiate_upload_flag(void)
{
	CUgraphExec exec;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphInstantiateWithFlags(&exec, g,
					CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD));
}

static void graph_instantiate_device_launch(void)
{
	CUgraphExec exec;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphInstantiateWithFlags(&exec, g,
				CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH));
}

static void graph_memset_node(unsigned int elem, size_t width)
{
	CUDA_MEMSET_NODE_PARAMS p = {
		.value = 1, .elementSize = elem, .width = width, .height = 1,
	};
	CUgraphNode node;
	CUdeviceptr dev;
	CUcontext ctx;
	CUgraph g;

	NEED(cuCtxGetCurrent(&ctx));
	NEED(cuMemAlloc(&dev, 4096));
	NEED(cuGraphCreate(&g, 0));
	p.dst = dev;
	SAY(cuGraphAddMemsetNode(&node, g, NULL, 0, &p, ctx));
}

static void graph_memset_elem3(void) { graph_memset_node(3, 16); }
static void graph_memset_zero_width(void) { graph_memset_node(1, 0); }

static void graph_child_self(void)
{
	CUgraphNode node;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddChildGraphNode(&node, g, NULL, 0, g));
}

static void graph_host_null_fn(void)
{
	CUDA_HOST_NODE_PARAMS p = { 0 };
	CUgraphNode node;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddHostNode(&node, g, NULL, 0, &p));
}

static void graph_params_wrong_type(void)
{
	CUDA_HOST_NODE_PARAMS p;
	CUgraphNode a, b;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	SAY(cuGraphHostNodeGetParams(a, &p));
}

static void graph_edges_one_array(void)
{
	CUgraphNode a, b, from[2];
	size_t n = 2;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	SAYV(cuGraphGetEdges(g, from, NULL, NULL, &n), "n=%zu", n);
}

static void graph_nodes_short_array(void)
{
	CUgraphNode a, b, nodes[1];
	size_t n = 1;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	SAYV(cuGraphGetNodes(g, nodes, &n), "n=%zu", n);
}

static void graph_find_in_clone_missing(void)
{
	CUgraphNode a, b, found, other;
	CUgraph g, h, copy;

	NEED(graph_pair(&g, &a, &b));
	NEED(cuGraphCreate(&h, 0));
	NEED(cuGraphAddEmptyNode(&other, h, NULL, 0));
	NEED(cuGraphClone(&copy, g));
	SAY(cuGraphNodeFindInClone(&found, other, copy));
}

static void graph_enable_host_node(void)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = graph_nop };
	CUgraphNode node;
	CUgraphExec exec;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddHostNode(&node, g, NULL, 0, &p));
	NEED(cuGraphInstantiateWithFlags(&exec, g, 0));
	SAY(cuGraphNodeSetEnabled(exec, node, 0));
}

static void graph_exec_host_wrong_type(void)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = graph_nop };
	CUgraphNode a, b;
	CUgraphExec exec;
	CUgraph g;

	NEED(graph_pair(&g, &a, &b));
	NEED(cuGraphInstantiateWithFlags(&exec, g, 0));
	SAY(cuGraphExecHostNodeSetParams(exec, a, &p));
}

static void graph_user_object_flags0(void)
{
	CUuserObject obj;
	static int x;

	SAY(cuUserObjectCreate(&obj, &x, graph_nop, 1, 0));
}

static void graph_mem_set_current(void)
{
	cuuint64_t v = 0;

	SAY(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
					 &v));
}

static void graph_mem_set_high_nonzero(void)
{
	cuuint64_t v = 1;

	SAY(cuDeviceSetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
					 &v));
}

static void graph_mem_get_used(void)
{
	cuuint64_t v = 77;

	SAYV(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
					  &v), "value=%llu",
	     (unsigned long long)v);
}

static void capture_legacy(void)
{
	SAY(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL));
}

static void capture_end_not_capturing(void)
{
	CUstream s;
	CUgraph g;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	SAY(cuStreamEndCapture(s, &g));
}

static void capture_begin_twice(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	SAY(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
}

static void capture_bad_mode(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	SAY(cuStreamBeginCapture(s, (CUstreamCaptureMode)7));
}

static const char *result_name(CUresult res)
{
	const char *name = NULL;

	return cuGetErrorName(res, &name) || !name ? "?" : name;
}

/* @call on a capturing stream s, then what ending the capture answers. */
#define CAPTURE_THEN_END(s, call)					\
	do {								\
		CUstreamCaptureStatus st = -1;				\
		CUresult r = (call), is;				\
		CUgraph g = NULL;					\
									\
		is = cuStreamIsCapturing(s, &st);			\
		say(r, "status=%d(%s) end=%s", (int)st,			\
		    result_name(is),					\
		    result_name(cuStreamEndCapture(s, &g)));		\
	} while (0)

static void capture_sync(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CAPTURE_THEN_END(s, cuStreamSynchronize(s));
}

static void capture_query(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CAPTURE_THEN_END(s, cuStreamQuery(s));
}

static void capture_legacy_is_capturing(void)
{
	CUstreamCaptureStatus st = -1;
	CUstream s;
	CUgraph g;
	CUresult r;

	NEED(cuStreamCreate(&s, 0));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	r = cuStreamIsCapturing(NULL, &st);
	say(r, "status=%d end=%s", (int)st,
	    result_name(cuStreamEndCapture(s, &g)));
}

static void capture_legacy_host_func(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, 0));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CAPTURE_THEN_END(s, cuLaunchHostFunc(NULL, graph_nop, NULL));
}

static void capture_callback(void)
{
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CAPTURE_THEN_END(s, cuStreamAddCallback(s,
				(CUstreamCallback)(void (*)(void))graph_nop,
				NULL, 0));
}

static void capture_write_value(void)
{
	CUdeviceptr dev;
	CUstream s;

	NEED(cuMemAlloc(&dev, 64));
	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CAPTURE_THEN_END(s, cuStreamWriteValue32(s, dev, 1, 0));
}

static void capture_alloc_async(void)
{
	CUdeviceptr dev;
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	CAPTURE_THEN_END(s, cuMemAllocAsync(&dev, 4096, s));
}

/* A second stream forked through an event and not joined back. */
static void capture_unjoined(void)
{
	CUstream s1, s2;
	CUevent ev;
	CUgraph g;

	NEED(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	NEED(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	NEED(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
	NEED(cuLaunchHostFunc(s1, graph_nop, NULL));
	NEED(cuEventRecord(ev, s1));
	NEED(cuStreamWaitEvent(s2, ev, 0));
	NEED(cuLaunchHostFunc(s2, graph_nop, NULL));
	SAY(cuStreamEndCapture(s1, &g));
}

static void capture_unmatched(void)
{
	CUstream s1, s2;
	CUevent ev;
	CUgraph g;
	CUresult r;

	NEED(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	NEED(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	NEED(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
	NEED(cuEventRecord(ev, s1));
	NEED(cuStreamWaitEvent(s2, ev, 0));
	r = cuStreamEndCapture(s2, &g);
	say(r, "origin_end=%s", result_name(cuStreamEndCapture(s1, &g)));
}

/* An event recorded, and completed, before the capture began. */
static void capture_wait_outside_event(void)
{
	CUstream s1, s2;
	CUevent ev;

	NEED(cuStreamCreate(&s1, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
	NEED(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	NEED(cuEventRecord(ev, s2));
	NEED(cuStreamSynchronize(s2));
	NEED(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED));
	CAPTURE_THEN_END(s1, cuStreamWaitEvent(s1, ev, 0));
}

static void capture_event_query(void)
{
	CUstream s;
	CUevent ev;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
	NEED(cuEventRecord(ev, s));
	CAPTURE_THEN_END(s, cuEventQuery(ev));
}

static void capture_info_idle(void)
{
	CUstreamCaptureStatus st = -1;
	cuuint64_t id = 77;
	size_t n = 77;
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	SAYV(cuStreamGetCaptureInfo(s, &st, &id, NULL, NULL, NULL, &n),
	     "status=%d id=%llu n=%zu", (int)st, (unsigned long long)id, n);
}

static void capture_exchange_bad_mode(void)
{
	CUstreamCaptureMode mode = (CUstreamCaptureMode)7;

	SAYV(cuThreadExchangeStreamCaptureMode(&mode), "mode=%d", (int)mode);
}

static void capture_destroy_graph(void)
{
	CUstreamCaptureStatus st;
	CUstream s;
	CUgraph g = NULL;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
	NEED(cuStreamGetCaptureInfo(s, &st, NULL, &g, NULL, NULL, NULL));
	CAPTURE_THEN_END(s, cuGraphDestroy(g));
}

/* --- graph memory nodes ------------------------------------------------ */

static CUDA_MEM_ALLOC_NODE_PARAMS mem_node_params(size_t size)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = {
		.poolProps = {
			.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
			.location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
		},
		.bytesize = size,
	};
	return p;
}

/* A new graph holding one allocation node of @p, its dptr filled in. */
static CUresult graph_with_alloc(CUgraph *g, CUgraphNode *a,
				 CUDA_MEM_ALLOC_NODE_PARAMS *p)
{
	CUresult r = cuGraphCreate(g, 0);

	return r ? r : cuGraphAddMemAllocNode(a, *g, NULL, 0, p);
}

static void graphmem_alloc(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAYV(cuGraphAddMemAllocNode(&n, g, NULL, 0, &p), "dptr=%s",
	     p.dptr ? "set" : "0");
}

static void graphmem_alloc_zero(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(0);
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddMemAllocNode(&n, g, NULL, 0, &p));
}

static void graphmem_alloc_host(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode n;
	CUgraph g;

	p.poolProps.location.type = CU_MEM_LOCATION_TYPE_HOST;
	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddMemAllocNode(&n, g, NULL, 0, &p));
}

static void graphmem_alloc_bad_device(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode n;
	CUgraph g;

	p.poolProps.location.id = 999;
	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddMemAllocNode(&n, g, NULL, 0, &p));
}

static void graphmem_get_params(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB + 1), q;
	CUgraphNode n;
	CUgraph g;

	memset(&q, 0, sizeof(q));
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddMemAllocNode(&n, g, NULL, 0, &p));
	SAYV(cuGraphMemAllocNodeGetParams(n, &q),
	     "bytesize=%zu same_dptr=%d loc=%d/%d access=%zu",
	     q.bytesize, q.dptr == p.dptr, (int)q.poolProps.location.type,
	     q.poolProps.location.id, q.accessDescCount);
}

static void graphmem_free_unknown(void)
{
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddMemFreeNode(&n, g, NULL, 0, (CUdeviceptr)0x1234000));
}

static void graphmem_free_no_dependency(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a, f;
	CUgraph g;

	NEED(graph_with_alloc(&g, &a, &p));
	SAY(cuGraphAddMemFreeNode(&f, g, NULL, 0, p.dptr));
}

static void graphmem_free_twice(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a, f1, f2;
	CUgraph g;

	NEED(graph_with_alloc(&g, &a, &p));
	NEED(cuGraphAddMemFreeNode(&f1, g, &a, 1, p.dptr));
	SAY(cuGraphAddMemFreeNode(&f2, g, &f1, 1, p.dptr));
}

static void graphmem_free_params(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUdeviceptr back = 0;
	CUgraphNode a, f;
	CUgraph g;

	NEED(graph_with_alloc(&g, &a, &p));
	NEED(cuGraphAddMemFreeNode(&f, g, &a, 1, p.dptr));
	SAYV(cuGraphMemFreeNodeGetParams(f, &back), "same=%d", back == p.dptr);
}

/* A graph allocating @size bytes, not freeing them, instantiated. */
static CUresult graphmem_exec(CUgraphExec *exec, CUdeviceptr *dptr,
			      unsigned long long flags)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a;
	CUgraph g;
	CUresult r;

	r = cuGraphCreate(&g, 0);
	if (!r)
		r = cuGraphAddMemAllocNode(&a, g, NULL, 0, &p);
	if (!r)
		r = cuGraphInstantiateWithFlags(exec, g, flags);
	*dptr = p.dptr;
	return r;
}

static void graphmem_relaunch_live(void)
{
	CUgraphExec exec;
	CUdeviceptr d;
	CUresult r;

	NEED(graphmem_exec(&exec, &d, 0));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	r = cuGraphLaunch(exec, NULL);
	say(r, "sync=%s", result_name(cuStreamSynchronize(NULL)));
}

static void graphmem_relaunch_after_free(void)
{
	CUgraphExec exec;
	CUdeviceptr d;

	NEED(graphmem_exec(&exec, &d, 0));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	NEED(cuMemFreeAsync(d, NULL));
	SAY(cuGraphLaunch(exec, NULL));
}

static void graphmem_free_sync(void)
{
	CUgraphExec exec;
	CUdeviceptr d;

	NEED(graphmem_exec(&exec, &d, 0));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	SAY(cuMemFree(d));
}

static void graphmem_auto_free(void)
{
	CUgraphExec exec;
	CUdeviceptr d;

	NEED(graphmem_exec(&exec, &d,
			  CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	SAY(cuGraphLaunch(exec, NULL));
}

static void graphmem_used_after_launch(void)
{
	cuuint64_t used = 77, reserved = 77, high = 77;
	CUgraphExec exec;
	CUdeviceptr d;

	NEED(graphmem_exec(&exec, &d, 0));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	NEED(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
					  &reserved));
	NEED(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
					  &high));
	SAYV(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
					  &used), "used=%llu reserved=%llu high=%llu",
	     (unsigned long long)used, (unsigned long long)reserved,
	     (unsigned long long)high);
}

static void graphmem_used_after_free(void)
{
	cuuint64_t used = 77, reserved = 77;
	CUgraphExec exec;
	CUdeviceptr d;

	NEED(graphmem_exec(&exec, &d, 0));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	NEED(cuMemFreeAsync(d, NULL));
	NEED(cuStreamSynchronize(NULL));
	NEED(cuDeviceGraphMemTrim(0));
	NEED(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
					  &reserved));
	SAYV(cuDeviceGetGraphMemAttribute(0, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
					  &used), "used=%llu reserved=%llu",
	     (unsigned long long)used, (unsigned long long)reserved);
}

static void graphmem_instantiate_twice(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphExec e1, e2;
	CUgraphNode a, f;
	CUgraph g;

	NEED(graph_with_alloc(&g, &a, &p));
	NEED(cuGraphAddMemFreeNode(&f, g, &a, 1, p.dptr));
	NEED(cuGraphInstantiateWithFlags(&e1, g, 0));
	SAY(cuGraphInstantiateWithFlags(&e2, g, 0));
}

static void graphmem_in_child(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a, c;
	CUgraph g, child;

	NEED(cuGraphCreate(&child, 0));
	NEED(cuGraphAddMemAllocNode(&a, child, NULL, 0, &p));
	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddChildGraphNode(&c, g, NULL, 0, child));
}

static void graphmem_remove_edge(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a, f;
	CUgraph g;

	NEED(graph_with_alloc(&g, &a, &p));
	NEED(cuGraphAddMemFreeNode(&f, g, &a, 1, p.dptr));
	SAY(cuGraphRemoveDependencies(g, &a, &f, NULL, 1));
}

/* A memory node added to the graph a child node already holds. */
static void graphmem_add_to_child(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraph g, child, held;
	CUgraphNode e, c, a;

	NEED(cuGraphCreate(&child, 0));
	NEED(cuGraphAddEmptyNode(&e, child, NULL, 0));
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddChildGraphNode(&c, g, NULL, 0, child));
	NEED(cuGraphChildGraphNodeGetGraph(c, &held));
	SAY(cuGraphAddMemAllocNode(&a, held, NULL, 0, &p));
}

static void graphmem_clone(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a;
	CUgraph g, copy;

	NEED(graph_with_alloc(&g, &a, &p));
	SAY(cuGraphClone(&copy, g));
}

static void graphmem_destroy_node(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = mem_node_params(MIB);
	CUgraphNode a;
	CUgraph g;

	NEED(graph_with_alloc(&g, &a, &p));
	SAY(cuGraphDestroyNode(a));
}

static void graphmem_captured(void)
{
	CUDA_MEM_ALLOC_NODE_PARAMS q;
	CUgraphNodeType type = -1;
	CUgraphNode nodes[4];
	size_t n = 4;
	CUdeviceptr d;
	CUstream s;
	CUgraph g;

	memset(&q, 0, sizeof(q));
	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	NEED(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	NEED(cuMemAllocAsync(&d, 4096, s));
	NEED(cuMemFreeAsync(d, s));
	NEED(cuStreamEndCapture(s, &g));
	NEED(cuGraphGetNodes(g, nodes, &n));
	NEED(cuGraphNodeGetType(nodes[0], &type));
	SAYV(cuGraphMemAllocNodeGetParams(nodes[0], &q),
	     "n=%zu type=%d bytesize=%zu same_dptr=%d", n, (int)type,
	     q.bytesize, q.dptr == d);
}

/* --- the generic builder, conditional nodes ---------------------------- */

static void gnode_empty(void)
{
	CUgraphNodeParams np;
	CUgraphNodeType type = -1;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_EMPTY;
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddNode(&n, g, NULL, NULL, 0, &np));
	SAYV(cuGraphNodeGetType(n, &type), "type=%d", (int)type);
}

static void gnode_bad_type(void)
{
	CUgraphNodeParams np;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	np.type = (CUgraphNodeType)99;
	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddNode(&n, g, NULL, NULL, 0, &np));
}

static void gnode_reserved(void)
{
	CUgraphNodeParams np;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_EMPTY;
	np.reserved0[0] = 1;
	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphAddNode(&n, g, NULL, NULL, 0, &np));
}

static void gnode_memset(void)
{
	CUDA_MEMSET_NODE_PARAMS q;
	CUgraphNodeParams np;
	CUdeviceptr d;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	memset(&q, 0, sizeof(q));
	NEED(cuMemAlloc(&d, 4096));
	np.type = CU_GRAPH_NODE_TYPE_MEMSET;
	np.memset.dst = d;
	np.memset.elementSize = 4;
	np.memset.width = 16;
	np.memset.height = 1;
	np.memset.value = 7;
	np.memset.ctx = NULL;
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddNode(&n, g, NULL, NULL, 0, &np));
	SAYV(cuGraphMemsetNodeGetParams(n, &q), "width=%zu value=%u",
	     q.width, q.value);
}

static void gnode_set_wrong_type(void)
{
	CUgraphNodeParams np;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddEmptyNode(&n, g, NULL, 0));
	np.type = CU_GRAPH_NODE_TYPE_HOST;
	np.host.fn = graph_nop;
	SAY(cuGraphNodeSetParams(n, &np));
}

static void gnode_set_host(void)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = graph_nop };
	CUgraphNodeParams np;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddHostNode(&n, g, NULL, 0, &p));
	np.type = CU_GRAPH_NODE_TYPE_HOST;
	np.host.fn = graph_nop;
	np.host.userData = &np;
	SAY(cuGraphNodeSetParams(n, &np));
}

static void gnode_set_empty(void)
{
	CUgraphNodeParams np;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddEmptyNode(&n, g, NULL, 0));
	np.type = CU_GRAPH_NODE_TYPE_EMPTY;
	SAY(cuGraphNodeSetParams(n, &np));
}

static void gnode_exec_set_host(void)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = graph_nop };
	CUgraphNodeParams np;
	CUgraphExec exec;
	CUgraphNode n;
	CUgraph g;

	memset(&np, 0, sizeof(np));
	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddHostNode(&n, g, NULL, 0, &p));
	NEED(cuGraphInstantiateWithFlags(&exec, g, 0));
	np.type = CU_GRAPH_NODE_TYPE_HOST;
	np.host.fn = graph_nop;
	SAY(cuGraphExecNodeSetParams(exec, n, &np));
}

/* A conditional node's parameters, in the current context. */
static CUresult cond_params(CUgraphNodeParams *np, CUgraphConditionalHandle h,
			    CUgraphConditionalNodeType type, unsigned int size)
{
	CUcontext ctx;
	CUresult r = cuCtxGetCurrent(&ctx);

	memset(np, 0, sizeof(*np));
	np->type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
	np->conditional.handle = h;
	np->conditional.type = type;
	np->conditional.size = size;
	np->conditional.ctx = ctx;
	return r;
}

static CUresult cond_node(CUgraph g, CUgraphConditionalHandle h,
			  CUgraphConditionalNodeType type, unsigned int size,
			  CUgraphNode *n, CUgraph **bodies)
{
	CUgraphNodeParams np;
	CUresult r = cond_params(&np, h, type, size);

	if (r)
		return r;
	r = cuGraphAddNode(n, g, NULL, NULL, 0, &np);
	if (bodies)
		*bodies = np.conditional.phGraph_out;
	return r;
}

static CUresult cond_handle(CUgraph g, unsigned int dflt, unsigned int flags,
			    CUgraphConditionalHandle *h)
{
	CUcontext ctx;
	CUresult r;

	r = cuCtxGetCurrent(&ctx);
	return r ? r : cuGraphConditionalHandleCreate(h, g, ctx, dflt, flags);
}

static void cond_handle_bad_flags(void)
{
	CUgraphConditionalHandle h;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cond_handle(g, 0, 6, &h));
}

static void cond_handle_null_ctx(void)
{
	CUgraphConditionalHandle h;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	SAY(cuGraphConditionalHandleCreate(&h, g, NULL, 0, 0));
}

static void cond_if(void)
{
	CUgraphConditionalHandle h;
	CUgraph g, *bodies = NULL;
	CUgraphNode n;
	size_t count = 77;

	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, 0, 0, &h));
	NEED(cond_node(g, h, CU_GRAPH_COND_TYPE_IF, 1, &n, &bodies));
	SAYV(cuGraphGetNodes(bodies ? bodies[0] : NULL, NULL, &count),
	     "bodies=%s nodes=%zu", bodies ? "set" : "none", count);
}

static void cond_if_size3(void)
{
	CUgraphConditionalHandle h;
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, 0, 0, &h));
	SAY(cond_node(g, h, CU_GRAPH_COND_TYPE_IF, 3, &n, NULL));
}

static void cond_while_size2(void)
{
	CUgraphConditionalHandle h;
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, 0, 0, &h));
	SAY(cond_node(g, h, CU_GRAPH_COND_TYPE_WHILE, 2, &n, NULL));
}

static void cond_switch_size0(void)
{
	CUgraphConditionalHandle h;
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, 0, 0, &h));
	SAY(cond_node(g, h, CU_GRAPH_COND_TYPE_SWITCH, 0, &n, NULL));
}

static void cond_handle_other_graph(void)
{
	CUgraphConditionalHandle h;
	CUgraphNode n;
	CUgraph g, other;

	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphCreate(&other, 0));
	NEED(cond_handle(other, 0, 0, &h));
	SAY(cond_node(g, h, CU_GRAPH_COND_TYPE_IF, 1, &n, NULL));
}

static void cond_body_host_node(void)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = graph_nop };
	CUgraphConditionalHandle h;
	CUgraph g, *bodies = NULL;
	CUgraphNode n, hn;
	CUgraphExec exec;
	CUresult r;

	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, 0, 0, &h));
	NEED(cond_node(g, h, CU_GRAPH_COND_TYPE_IF, 1, &n, &bodies));
	r = cuGraphAddHostNode(&hn, bodies[0], NULL, 0, &p);
	say(r, "instantiate=%s",
	    result_name(cuGraphInstantiateWithFlags(&exec, g, 0)));
}

/*
 * A conditional node whose body sets a word: what the word holds after
 * one launch says whether the body ran.
 */
static void cond_run(CUgraphConditionalNodeType type, unsigned int size,
		     unsigned int dflt, unsigned int flags, unsigned int body)
{
	CUDA_MEMSET_NODE_PARAMS ms = {
		.elementSize = 4, .width = 1, .height = 1, .value = 5,
	};
	CUgraphConditionalHandle h;
	CUgraph g, *bodies = NULL;
	CUgraphNode n, m;
	CUgraphExec exec;
	unsigned int word = 77;
	CUcontext ctx;
	CUdeviceptr d;

	NEED(cuCtxGetCurrent(&ctx));
	NEED(cuMemAlloc(&d, 4));
	NEED(cuMemsetD32(d, 0, 1));
	ms.dst = d;
	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, dflt, flags, &h));
	NEED(cond_node(g, h, type, size, &n, &bodies));
	NEED(cuGraphAddMemsetNode(&m, bodies[body], NULL, 0, &ms, ctx));
	NEED(cuGraphInstantiateWithFlags(&exec, g, 0));
	NEED(cuGraphLaunch(exec, NULL));
	NEED(cuStreamSynchronize(NULL));
	SAYV(cuMemcpyDtoH(&word, d, 4), "word=%u", word);
}

static void cond_if_default1(void)
{
	cond_run(CU_GRAPH_COND_TYPE_IF, 1, 1, CU_GRAPH_COND_ASSIGN_DEFAULT, 0);
}

static void cond_if_default0(void)
{
	cond_run(CU_GRAPH_COND_TYPE_IF, 1, 0, CU_GRAPH_COND_ASSIGN_DEFAULT, 0);
}

static void cond_if_else_default0(void)
{
	cond_run(CU_GRAPH_COND_TYPE_IF, 2, 0, CU_GRAPH_COND_ASSIGN_DEFAULT, 1);
}

static void cond_if_default1_no_assign(void)
{
	cond_run(CU_GRAPH_COND_TYPE_IF, 1, 1, 0, 0);
}

static void cond_while_default0(void)
{
	cond_run(CU_GRAPH_COND_TYPE_WHILE, 1, 0, CU_GRAPH_COND_ASSIGN_DEFAULT, 0);
}

static void cond_switch_default2(void)
{
	cond_run(CU_GRAPH_COND_TYPE_SWITCH, 3, 2, CU_GRAPH_COND_ASSIGN_DEFAULT, 2);
}

/* New parameters for a conditional node: in its graph, then in an exec. */
static void cond_set_params(int in_exec)
{
	CUgraphConditionalHandle h;
	CUgraphNodeParams np;
	CUgraphExec exec;
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	NEED(cond_handle(g, 0, 0, &h));
	NEED(cond_node(g, h, CU_GRAPH_COND_TYPE_IF, 1, &n, NULL));
	NEED(cond_params(&np, h, CU_GRAPH_COND_TYPE_IF, 1));
	if (!in_exec) {
		SAY(cuGraphNodeSetParams(n, &np));
		return;
	}
	NEED(cuGraphInstantiate(&exec, g, 0));
	SAY(cuGraphExecNodeSetParams(exec, n, &np));
}

static void cond_set_params_graph(void) { cond_set_params(0); }
static void cond_set_params_exec(void) { cond_set_params(1); }

static void cond_switch_default_out(void)
{
	cond_run(CU_GRAPH_COND_TYPE_SWITCH, 3, 5, CU_GRAPH_COND_ASSIGN_DEFAULT, 2);
}

/* --- kernel node attributes -------------------------------------------- */

static const char empty_kernel_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry nothing()\n{\n\tret;\n}\n";

static CUresult kernel_node(CUgraph g, CUgraphNode *n)
{
	CUDA_KERNEL_NODE_PARAMS p;
	CUmodule mod;
	CUfunction f;
	CUresult r;

	memset(&p, 0, sizeof(p));
	r = cuModuleLoadData(&mod, empty_kernel_ptx);
	if (!r)
		r = cuModuleGetFunction(&f, mod, "nothing");
	if (r)
		return r;
	p.func = f;
	p.gridDimX = p.gridDimY = p.gridDimZ = 1;
	p.blockDimX = p.blockDimY = p.blockDimZ = 1;
	return cuGraphAddKernelNode(n, g, NULL, 0, &p);
}

static void kattr_priority(void)
{
	CUkernelNodeAttrValue v;
	CUgraphNode n;
	CUgraph g;

	memset(&v, 0x5a, sizeof(v));
	NEED(cuGraphCreate(&g, 0));
	NEED(kernel_node(g, &n));
	SAYV(cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v),
	     "priority=%d", v.priority);
}

static void kattr_cooperative(void)
{
	CUkernelNodeAttrValue v;
	CUgraphNode n;
	CUgraph g;

	memset(&v, 0x5a, sizeof(v));
	NEED(cuGraphCreate(&g, 0));
	NEED(kernel_node(g, &n));
	SAYV(cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &v),
	     "cooperative=%d", v.cooperative);
}

static void kattr_cluster(void)
{
	CUkernelNodeAttrValue v;
	CUgraphNode n;
	CUgraph g;

	memset(&v, 0x5a, sizeof(v));
	NEED(cuGraphCreate(&g, 0));
	NEED(kernel_node(g, &n));
	SAYV(cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION,
					   &v), "cluster=%u,%u,%u",
	     v.clusterDim.x, v.clusterDim.y, v.clusterDim.z);
}

static void kattr_set_priority(void)
{
	CUkernelNodeAttrValue v, back;
	CUgraphNode n;
	CUgraph g;

	memset(&v, 0, sizeof(v));
	memset(&back, 0x5a, sizeof(back));
	v.priority = -3;
	NEED(cuGraphCreate(&g, 0));
	NEED(kernel_node(g, &n));
	NEED(cuGraphKernelNodeSetAttribute(n, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
	SAYV(cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_PRIORITY, &back),
	     "priority=%d", back.priority);
}

static void kattr_bad_id(void)
{
	CUkernelNodeAttrValue v;
	CUgraphNode n;
	CUgraph g;

	memset(&v, 0, sizeof(v));
	NEED(cuGraphCreate(&g, 0));
	NEED(kernel_node(g, &n));
	SAY(cuGraphKernelNodeGetAttribute(n, (CUkernelNodeAttrID)999, &v));
}

static void kattr_on_host_node(void)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = graph_nop };
	CUkernelNodeAttrValue v;
	CUgraphNode n;
	CUgraph g;

	NEED(cuGraphCreate(&g, 0));
	NEED(cuGraphAddHostNode(&n, g, NULL, 0, &p));
	SAY(cuGraphKernelNodeGetAttribute(n, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
}

static void kattr_copy(void)
{
	CUkernelNodeAttrValue v, back;
	CUgraphNode a, b;
	CUgraph g;

	memset(&v, 0, sizeof(v));
	memset(&back, 0x5a, sizeof(back));
	v.priority = -2;
	NEED(cuGraphCreate(&g, 0));
	NEED(kernel_node(g, &a));
	NEED(kernel_node(g, &b));
	NEED(cuGraphKernelNodeSetAttribute(a, CU_LAUNCH_ATTRIBUTE_PRIORITY, &v));
	NEED(cuGraphKernelNodeCopyAttributes(b, a));
	SAYV(cuGraphKernelNodeGetAttribute(b, CU_LAUNCH_ATTRIBUTE_PRIORITY, &back),
	     "priority=%d", back.priority);
}

/* --- what a capture forbids elsewhere, by mode ------------------------- */

/* Begin capturing a new stream in @mode; @s receives it. */
static CUresult capture_in_mode(CUstream *s, CUstreamCaptureMode mode)
{
	CUresult r = cuStreamCreate(s, CU_STREAM_NON_BLOCKING);

	return r ? r : cuStreamBeginCapture(*s, mode);
}

#define CAPMODE_CALL(mode, call)					\
	do {								\
		CUstream s;						\
									\
		NEED(capture_in_mode(&s, mode));			\
		CAPTURE_THEN_END(s, call);				\
	} while (0)

static void capmode_global_malloc(void)
{
	CUdeviceptr d;

	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL, cuMemAlloc(&d, 64));
}

static void capmode_thread_local_malloc(void)
{
	CUdeviceptr d;

	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, cuMemAlloc(&d, 64));
}

static void capmode_relaxed_malloc(void)
{
	CUdeviceptr d;

	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_RELAXED, cuMemAlloc(&d, 64));
}

static void capmode_global_free(void)
{
	CUdeviceptr d;

	NEED(cuMemAlloc(&d, 64));
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL, cuMemFree(d));
}

static void capmode_relaxed_free(void)
{
	CUdeviceptr d;

	NEED(cuMemAlloc(&d, 64));
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_RELAXED, cuMemFree(d));
}

static void capmode_global_malloc_host(void)
{
	void *p;

	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL, cuMemAllocHost(&p, 64));
}

static void capmode_global_memcpy(void)
{
	char buf[64] = { 0 };
	CUdeviceptr d;

	NEED(cuMemAlloc(&d, 64));
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL, cuMemcpyHtoD(d, buf, 64));
}

static void capmode_relaxed_memcpy(void)
{
	char buf[64] = { 0 };
	CUdeviceptr d;

	NEED(cuMemAlloc(&d, 64));
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_RELAXED, cuMemcpyHtoD(d, buf, 64));
}

static void capmode_global_ctx_sync(void)
{
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL, cuCtxSynchronize());
}

static void capmode_relaxed_ctx_sync(void)
{
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_RELAXED, cuCtxSynchronize());
}

static void capmode_global_event_sync(void)
{
	CUevent ev;

	NEED(cuEventCreate(&ev, 0));
	NEED(cuEventRecord(ev, NULL));
	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL, cuEventSynchronize(ev));
}

static void capmode_global_vmm_reserve(void)
{
	CUdeviceptr va;

	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL,
		     cuMemAddressReserve(&va, granularity(), 0, 0, 0));
}

static void capmode_global_stream_create(void)
{
	CUstream other;

	CAPMODE_CALL(CU_STREAM_CAPTURE_MODE_GLOBAL,
		     cuStreamCreate(&other, CU_STREAM_NON_BLOCKING));
}

static void capmode_exchange_relaxed(void)
{
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
	CUdeviceptr d;
	CUstream s;

	NEED(capture_in_mode(&s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	NEED(cuThreadExchangeStreamCaptureMode(&mode));
	CAPTURE_THEN_END(s, cuMemAlloc(&d, 64));
}

struct capmode_thread {
	CUcontext ctx;
	CUresult res;
};

static void *capmode_other_thread(void *arg)
{
	struct capmode_thread *t = arg;
	CUdeviceptr d;

	t->res = cuCtxSetCurrent(t->ctx);
	if (!t->res)
		t->res = cuMemAlloc(&d, 64);
	return NULL;
}

/* cuMemAlloc in another thread while this one captures in @mode. */
static void capmode_threaded(CUstreamCaptureMode mode)
{
	struct capmode_thread t = { .res = CUDA_ERROR_UNKNOWN };
	pthread_t thread;
	CUstream s;

	NEED(cuCtxGetCurrent(&t.ctx));
	NEED(capture_in_mode(&s, mode));
	if (pthread_create(&thread, NULL, capmode_other_thread, &t)) {
		say(CUDA_ERROR_UNKNOWN, "in setup: pthread_create");
		return;
	}
	pthread_join(thread, NULL);
	CAPTURE_THEN_END(s, t.res);
}

static void capmode_global_other_thread(void)
{
	capmode_threaded(CU_STREAM_CAPTURE_MODE_GLOBAL);
}

static void capmode_thread_local_other_thread(void)
{
	capmode_threaded(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
}

static void capmode_captured_memset_params(void)
{
	CUDA_MEMSET_NODE_PARAMS q;
	CUgraphNodeType type = -1;
	CUgraphNode nodes[2];
	size_t n = 2;
	CUdeviceptr d;
	CUstream s;
	CUgraph g;

	memset(&q, 0, sizeof(q));
	NEED(cuMemAlloc(&d, 4096));
	NEED(capture_in_mode(&s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	NEED(cuMemsetD32Async(d, 9, 16, s));
	NEED(cuStreamEndCapture(s, &g));
	NEED(cuGraphGetNodes(g, nodes, &n));
	NEED(cuGraphNodeGetType(nodes[0], &type));
	SAYV(cuGraphMemsetNodeGetParams(nodes[0], &q),
	     "n=%zu type=%d dst=%d elem=%u width=%zu height=%zu value=%u",
	     n, (int)type, q.dst == d, q.elementSize, q.width, q.height,
	     q.value);
}

static void capmode_captured_memcpy_params(void)
{
	CUDA_MEMCPY3D q;
	CUgraphNodeType type = -1;
	CUgraphNode nodes[2];
	char buf[256];
	size_t n = 2;
	CUdeviceptr d;
	CUstream s;
	CUgraph g;

	memset(&q, 0, sizeof(q));
	NEED(cuMemAlloc(&d, 4096));
	NEED(capture_in_mode(&s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	NEED(cuMemcpyHtoDAsync(d, buf, sizeof(buf), s));
	NEED(cuStreamEndCapture(s, &g));
	NEED(cuGraphGetNodes(g, nodes, &n));
	NEED(cuGraphNodeGetType(nodes[0], &type));
	SAYV(cuGraphMemcpyNodeGetParams(nodes[0], &q),
	     "n=%zu type=%d src=%d/%d dst=%d/%d width=%zu height=%zu depth=%zu",
	     n, (int)type, (int)q.srcMemoryType, q.srcHost == buf,
	     (int)q.dstMemoryType, q.dstDevice == d, q.WidthInBytes,
	     q.Height, q.Depth);
}

static void capmode_captured_kernel_params(void)
{
	CUDA_KERNEL_NODE_PARAMS q;
	CUgraphNodeType type = -1;
	CUgraphNode nodes[2];
	size_t n = 2;
	CUmodule mod;
	CUfunction f;
	CUstream s;
	CUgraph g;

	memset(&q, 0, sizeof(q));
	NEED(cuModuleLoadData(&mod, empty_kernel_ptx));
	NEED(cuModuleGetFunction(&f, mod, "nothing"));
	NEED(capture_in_mode(&s, CU_STREAM_CAPTURE_MODE_GLOBAL));
	NEED(cuLaunchKernel(f, 2, 1, 1, 32, 1, 1, 0, s, NULL, NULL));
	NEED(cuStreamEndCapture(s, &g));
	NEED(cuGraphGetNodes(g, nodes, &n));
	NEED(cuGraphNodeGetType(nodes[0], &type));
	SAYV(cuGraphKernelNodeGetParams(nodes[0], &q),
	     "n=%zu type=%d func=%d grid=%u block=%u shmem=%u",
	     n, (int)type, q.func == f, q.gridDimX, q.blockDimX,
	     q.sharedMemBytes);
}

/* --- arrays, row copies, texture and surface objects --------------- */

static CUresult make_array(CUarray *a, size_t w, size_t h, size_t d,
			   CUarray_format f, unsigned int ch, unsigned int flags)
{
	CUDA_ARRAY3D_DESCRIPTOR desc = {
		.Width = w, .Height = h, .Depth = d, .Format = f,
		.NumChannels = ch, .Flags = flags,
	};

	return cuArray3DCreate(a, &desc);
}

static void array_create(size_t w, size_t h, size_t d, CUarray_format f,
			 unsigned int ch, unsigned int flags)
{
	CUarray a = (CUarray)0x5a5a;

	SAYV(make_array(&a, w, h, d, f, ch, flags), "handle=%s",
	     a == (CUarray)0x5a5a ? "untouched" : a ? "set" : "NULL");
}

static void array_1d_with_depth(void)
{
	array_create(8, 0, 2, CU_AD_FORMAT_FLOAT, 1, 0);
}

static void array_layered_no_depth(void)
{
	array_create(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED);
}

static void array_three_channels(void)
{
	array_create(8, 8, 0, CU_AD_FORMAT_FLOAT, 3, 0);
}

static void array_norm_channels(void)
{
	array_create(8, 8, 0, CU_AD_FORMAT_UNORM_INT8X2, 4, 0);
}

static void array_bc1(void)
{
	array_create(8, 8, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0);
}

static void array_sparse(void)
{
	array_create(64, 64, 0, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_SPARSE);
}

static void array_unknown_flag(void)
{
	array_create(8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0x200);
}

static void array_too_wide(void)
{
	array_create(131073, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0);
}

static void array_desc2d_of_3d(void)
{
	CUDA_ARRAY_DESCRIPTOR d = { 0 };
	CUarray a;

	NEED(make_array(&a, 5, 6, 7, CU_AD_FORMAT_HALF, 2, 0));
	SAYV(cuArrayGetDescriptor(&d, a), "w=%zu h=%zu ch=%u", d.Width,
	     d.Height, d.NumChannels);
}

static void array_destroy_twice(void)
{
	CUarray a;

	NEED(make_array(&a, 8, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	NEED(cuArrayDestroy(a));
	SAY(cuArrayDestroy(a));
}

static void array_sparse_attribute(void)
{
	int v = -1;

	SAYV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED, 0),
	     "value=%d", v);
}

/* A 2D host to array copy of 4 rows of 32 bytes, changed by @edit. */
static void copy2d_case(void (*edit)(CUDA_MEMCPY2D *c))
{
	static unsigned char host[4096];
	CUDA_MEMCPY2D c = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = host,
		.srcPitch = 32,
		.dstMemoryType = CU_MEMORYTYPE_ARRAY,
		.WidthInBytes = 32, .Height = 4,
	};
	CUarray a;

	NEED(make_array(&a, 8, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	c.dstArray = a;
	edit(&c);
	SAY(cuMemcpy2D(&c));
}

static void edit_none(CUDA_MEMCPY2D *c) { (void)c; }
static void edit_pitch_short(CUDA_MEMCPY2D *c) { c->srcXInBytes = 1; }
static void edit_one_row_no_pitch(CUDA_MEMCPY2D *c)
{
	c->srcPitch = 0;
	c->Height = 1;
}
static void edit_array_x_unaligned(CUDA_MEMCPY2D *c)
{
	c->dstXInBytes = 2;
	c->WidthInBytes = 28;
}
static void edit_array_width_partial(CUDA_MEMCPY2D *c) { c->WidthInBytes = 30; }
static void edit_array_past_rows(CUDA_MEMCPY2D *c) { c->dstY = 1; }
static void edit_bad_type(CUDA_MEMCPY2D *c) { c->srcMemoryType = (CUmemorytype)7; }
static void edit_null_host(CUDA_MEMCPY2D *c) { c->srcHost = NULL; }
static void edit_huge_pitch(CUDA_MEMCPY2D *c) { c->srcPitch = (size_t)1 << 31; }
static void edit_zero_height(CUDA_MEMCPY2D *c)
{
	c->Height = 0;
	c->srcHost = NULL;
}

static void copy2d_ok(void) { copy2d_case(edit_none); }
static void copy2d_pitch_short(void) { copy2d_case(edit_pitch_short); }
static void copy2d_one_row_no_pitch(void) { copy2d_case(edit_one_row_no_pitch); }
static void copy2d_array_x_unaligned(void) { copy2d_case(edit_array_x_unaligned); }
static void copy2d_array_width_partial(void) { copy2d_case(edit_array_width_partial); }
static void copy2d_array_past_rows(void) { copy2d_case(edit_array_past_rows); }
static void copy2d_bad_type(void) { copy2d_case(edit_bad_type); }
static void copy2d_null_host(void) { copy2d_case(edit_null_host); }
static void copy2d_huge_pitch(void) { copy2d_case(edit_huge_pitch); }
static void copy2d_zero_height(void) { copy2d_case(edit_zero_height); }

static void copy3d_lod(void)
{
	static unsigned char host[64], back[64];
	CUDA_MEMCPY3D c = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = host,
		.srcPitch = 8, .srcHeight = 2, .srcLOD = 1,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = back,
		.dstPitch = 8, .dstHeight = 2,
		.WidthInBytes = 8, .Height = 2, .Depth = 2,
	};

	SAY(cuMemcpy3D(&c));
}

static void copy3d_short_slice(void)
{
	static unsigned char host[64], back[64];
	CUDA_MEMCPY3D c = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = host,
		.srcPitch = 8, .srcHeight = 1,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = back,
		.dstPitch = 8, .dstHeight = 2,
		.WidthInBytes = 8, .Height = 2, .Depth = 2,
	};

	SAY(cuMemcpy3D(&c));
}

static void atoh_past_end(void)
{
	unsigned char host[64];
	CUarray a;

	NEED(make_array(&a, 8, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	SAY(cuMemcpyAtoH(host, a, 1, 32));
}

/* A byte-offset copy from a 4x4 FLOAT array holding bytes 0..63 by rows. */
static void atoh_2d(size_t offset)
{
	CUDA_MEMCPY2D c = { 0 };
	unsigned char host[64], back[8] = { 0 };
	CUarray a;
	int i;

	for (i = 0; i < 64; i++)
		host[i] = (unsigned char)i;
	NEED(make_array(&a, 4, 4, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = host;
	c.srcPitch = 16;
	c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c.dstArray = a;
	c.WidthInBytes = 16;
	c.Height = 4;
	NEED(cuMemcpy2D(&c));
	SAYV(cuMemcpyAtoH(back, a, offset, 8), "bytes=%u,%u", back[0], back[7]);
}

/* Are the byte-offset copies on a 2D array linear over its rows? */
static void atoh_2d_linear(void) { atoh_2d(20); }
/* Inside the first row of a 2D array. */
static void atoh_2d_first_row(void) { atoh_2d(4); }

/*
 * The unit of a copy's width on a block-compressed array: a BC1 array of
 * 8x8 texels is 2x2 blocks of 8 bytes, so a row of blocks is 16 bytes.
 */
static void bc1_copy(size_t width_bytes, size_t height)
{
	unsigned char host[256] = { 0 };
	CUDA_MEMCPY2D c = { 0 };
	CUarray a;

	NEED(make_array(&a, 8, 8, 0, CU_AD_FORMAT_BC1_UNORM, 4, 0));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = host;
	c.srcPitch = width_bytes;
	c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c.dstArray = a;
	c.WidthInBytes = width_bytes;
	c.Height = height;
	SAY(cuMemcpy2D(&c));
}

static void bc1_copy_block_rows(void) { bc1_copy(16, 2); }
static void bc1_copy_texel_rows(void) { bc1_copy(16, 8); }
static void bc1_copy_texel_width(void) { bc1_copy(32, 2); }

static void memset2d_pitch_short(void)
{
	CUdeviceptr p;

	NEED(cuMemAlloc(&p, 4096));
	SAY(cuMemsetD2D8(p, 10, 1, 11, 2));
}

static void memset2d16_unaligned(void)
{
	CUdeviceptr p;

	NEED(cuMemAlloc(&p, 4096));
	SAY(cuMemsetD2D16(p + 1, 64, 1, 2, 2));
}

static void memset2d32_pitch_odd(void)
{
	CUdeviceptr p;

	NEED(cuMemAlloc(&p, 4096));
	SAY(cuMemsetD2D32(p, 38, 1, 2, 2));
}

/* Texture and surface references: deprecated, still declared by CUDA 13. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void texref_create(void)
{
	CUtexref t = NULL;

	SAYV(cuTexRefCreate(&t), "ref=%s", t ? "set" : "NULL");
}

static void surfref_get_array_null(void)
{
	CUarray a = NULL;

	SAY(cuSurfRefGetArray(&a, NULL));
}
#pragma GCC diagnostic pop

/* A texture object over a 2D float array, its descriptors changed by @edit. */
static void texobj_case(void (*edit)(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t))
{
	CUDA_RESOURCE_DESC r = { 0 };
	CUDA_TEXTURE_DESC t = { 0 };
	CUtexObject o = 0;
	CUarray a;

	NEED(make_array(&a, 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	r.resType = CU_RESOURCE_TYPE_ARRAY;
	r.res.array.hArray = a;
	edit(&r, &t);
	SAYV(cuTexObjectCreate(&o, &r, &t, NULL), "object=%s",
	     o ? "nonzero" : "0");
}

static void tex_none(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t)
{
	(void)r;
	(void)t;
}
static void tex_bad_type(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t)
{
	(void)t;
	r->resType = (CUresourcetype)9;
}
static void tex_flags_nonzero(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t)
{
	(void)t;
	r->flags = 1;
}
static void tex_bad_filter(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t)
{
	(void)r;
	t->filterMode = (CUfilter_mode)5;
}
static void tex_bad_address(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t)
{
	(void)r;
	t->addressMode[0] = (CUaddress_mode)9;
}
static void tex_linear_unaligned(CUDA_RESOURCE_DESC *r, CUDA_TEXTURE_DESC *t)
{
	CUdeviceptr p;

	(void)t;
	if (cuMemAlloc(&p, 4096))
		return;
	r->resType = CU_RESOURCE_TYPE_LINEAR;
	r->res.linear.devPtr = p + 4;
	r->res.linear.format = CU_AD_FORMAT_FLOAT;
	r->res.linear.numChannels = 1;
	r->res.linear.sizeInBytes = 256;
}

static void texobj_ok(void) { texobj_case(tex_none); }
static void texobj_bad_type(void) { texobj_case(tex_bad_type); }
static void texobj_flags_nonzero(void) { texobj_case(tex_flags_nonzero); }
static void texobj_bad_filter(void) { texobj_case(tex_bad_filter); }
static void texobj_bad_address(void) { texobj_case(tex_bad_address); }
static void texobj_linear_unaligned(void) { texobj_case(tex_linear_unaligned); }

static void texobj_null_texdesc(void)
{
	CUDA_RESOURCE_DESC r = { 0 };
	CUtexObject o = 0;
	CUarray a;

	NEED(make_array(&a, 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	r.resType = CU_RESOURCE_TYPE_ARRAY;
	r.res.array.hArray = a;
	SAY(cuTexObjectCreate(&o, &r, NULL, NULL));
}

static void texobj_get_desc_round_trip(void)
{
	CUDA_RESOURCE_DESC r = { 0 }, back;
	CUDA_TEXTURE_DESC t = { 0 }, tback;
	CUDA_RESOURCE_VIEW_DESC vback;
	CUtexObject o;
	CUresult vres;
	CUarray a;

	NEED(make_array(&a, 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	r.resType = CU_RESOURCE_TYPE_ARRAY;
	r.res.array.hArray = a;
	t.filterMode = CU_TR_FILTER_MODE_LINEAR;
	t.flags = CU_TRSF_NORMALIZED_COORDINATES;
	NEED(cuTexObjectCreate(&o, &r, &t, NULL));
	memset(&back, 0xff, sizeof(back));
	memset(&tback, 0xff, sizeof(tback));
	NEED(cuTexObjectGetResourceDesc(&back, o));
	NEED(cuTexObjectGetTextureDesc(&tback, o));
	vres = cuTexObjectGetResourceViewDesc(&vback, o);
	SAYV(cuTexObjectDestroy(o),
	     "type=%d array=%d flags=%u filter=%d tflags=%u view=%d",
	     back.resType, back.res.array.hArray == a, back.flags,
	     tback.filterMode, tback.flags, vres);
}

static void texobj_destroy_zero(void) { SAY(cuTexObjectDestroy(0)); }
static void surfobj_destroy_zero(void) { SAY(cuSurfObjectDestroy(0)); }

/* The view a texture object made without one answers. */
static void texobj_view_unset(void)
{
	CUDA_RESOURCE_DESC r = { 0 };
	CUDA_TEXTURE_DESC t = { 0 };
	CUDA_RESOURCE_VIEW_DESC v;
	CUtexObject o;
	CUarray a;

	NEED(make_array(&a, 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	r.resType = CU_RESOURCE_TYPE_ARRAY;
	r.res.array.hArray = a;
	NEED(cuTexObjectCreate(&o, &r, &t, NULL));
	memset(&v, 0xff, sizeof(v));
	SAYV(cuTexObjectGetResourceViewDesc(&v, o),
	     "format=%d size=%zux%zux%zu levels=%u-%u layers=%u-%u",
	     (int)v.format, v.width, v.height, v.depth, v.firstMipmapLevel,
	     v.lastMipmapLevel, v.firstLayer, v.lastLayer);
}

static void texobj_get_unknown(void)
{
	CUDA_RESOURCE_DESC r;

	SAY(cuTexObjectGetResourceDesc(&r, 0x12345));
}

static void surfobj_case(unsigned int flags)
{
	CUDA_RESOURCE_DESC r = { 0 };
	CUsurfObject o = 0;
	CUarray a;

	NEED(make_array(&a, 8, 8, 0, CU_AD_FORMAT_FLOAT, 1, flags));
	r.resType = CU_RESOURCE_TYPE_ARRAY;
	r.res.array.hArray = a;
	SAYV(cuSurfObjectCreate(&o, &r), "object=%s", o ? "nonzero" : "0");
}

static void surfobj_ok(void) { surfobj_case(CUDA_ARRAY3D_SURFACE_LDST); }
static void surfobj_no_ldst(void) { surfobj_case(0); }

static void surfobj_linear(void)
{
	CUDA_RESOURCE_DESC r = { 0 };
	CUsurfObject o = 0;
	CUdeviceptr p;

	NEED(cuMemAlloc(&p, 4096));
	r.resType = CU_RESOURCE_TYPE_LINEAR;
	r.res.linear.devPtr = p;
	r.res.linear.format = CU_AD_FORMAT_FLOAT;
	r.res.linear.numChannels = 1;
	r.res.linear.sizeInBytes = 256;
	SAY(cuSurfObjectCreate(&o, &r));
}

static void mipmap_levels_zero(void)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUmipmappedArray m;

	SAY(cuMipmappedArrayCreate(&m, &d, 0));
}

static void mipmap_level_past(void)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUmipmappedArray m;
	CUarray level;
	CUDA_ARRAY3D_DESCRIPTOR ld = { 0 };
	CUresult past;

	NEED(cuMipmappedArrayCreate(&m, &d, 3));
	past = cuMipmappedArrayGetLevel(&level, m, 3);
	SAYV(cuMipmappedArrayGetLevel(&level, m, 2), "past=%d", past);
	if (!strncmp(answer, "CUDA_SUCCESS", 12) &&
	    !cuArray3DGetDescriptor(&ld, level))
		SAYV(cuArrayDestroy(level), "past=%d level2=%zux%zu destroy",
		     past, ld.Width, ld.Height);
}

static void mipmap_too_many_levels(void)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUmipmappedArray m;

	SAY(cuMipmappedArrayCreate(&m, &d, 8));
}

/* How many levels a chain of a 64x64 array asked for @asked has. */
static void mipmap_count_levels(unsigned int asked)
{
	CUDA_ARRAY3D_DESCRIPTOR d = { 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0 };
	CUmipmappedArray m;
	CUarray level;
	unsigned int n = 0;

	NEED(cuMipmappedArrayCreate(&m, &d, asked));
	while (n < 16 && !cuMipmappedArrayGetLevel(&level, m, n))
		n++;
	SAYV(cuMipmappedArrayDestroy(m), "levels=%u", n);
}

static void mipmap_levels_made_zero(void) { mipmap_count_levels(0); }
static void mipmap_levels_made_past(void) { mipmap_count_levels(8); }

static void array_memory_requirements(void)
{
	CUDA_ARRAY_MEMORY_REQUIREMENTS req = { 0 };
	CUarray a;

	NEED(make_array(&a, 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	SAYV(cuArrayGetMemoryRequirements(&req, a, 0), "size=%zu align=%zu",
	     req.size, req.alignment);
}

static void array_get_plane(void)
{
	CUarray a, p = NULL;

	NEED(make_array(&a, 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	SAY(cuArrayGetPlane(&p, a, 0));
}

static void array_sparse_properties(void)
{
	CUDA_ARRAY_SPARSE_PROPERTIES sp;
	CUarray a;

	NEED(make_array(&a, 64, 64, 0, CU_AD_FORMAT_FLOAT, 1, 0));
	SAY(cuArrayGetSparseProperties(&sp, a));
}

static void external_memory_null(void)
{
	CUexternalMemory m;

	SAY(cuImportExternalMemory(&m, NULL));
}

static void external_memory_bad_fd(void)
{
	CUDA_EXTERNAL_MEMORY_HANDLE_DESC d = { 0 };
	CUexternalMemory m;

	d.type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD;
	d.handle.fd = -1;
	d.size = 4096;
	SAY(cuImportExternalMemory(&m, &d));
}

static void graphics_unregister_null(void)
{
	SAY(cuGraphicsUnregisterResource(NULL));
}

static void tensormap_tiled(void)
{
	CUtensorMap map;
	CUdeviceptr p;
	cuuint64_t dims[2] = { 64, 64 }, strides[1] = { 256 };
	cuuint32_t box[2] = { 16, 16 }, elem[2] = { 1, 1 };

	NEED(cuMemAlloc(&p, 64 * 256));
	SAY(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
				   (void *)p, dims, strides, box, elem,
				   CU_TENSOR_MAP_INTERLEAVE_NONE,
				   CU_TENSOR_MAP_SWIZZLE_NONE,
				   CU_TENSOR_MAP_L2_PROMOTION_NONE,
				   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

static void tensormap_stride_unaligned(void)
{
	CUtensorMap map;
	CUdeviceptr p;
	cuuint64_t dims[2] = { 64, 64 }, strides[1] = { 260 };
	cuuint32_t box[2] = { 16, 16 }, elem[2] = { 1, 1 };

	NEED(cuMemAlloc(&p, 64 * 512));
	SAY(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2,
				   (void *)p, dims, strides, box, elem,
				   CU_TENSOR_MAP_INTERLEAVE_NONE,
				   CU_TENSOR_MAP_SWIZZLE_NONE,
				   CU_TENSOR_MAP_L2_PROMOTION_NONE,
				   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
}

static void memcpy_batch_zero(void)
{
	size_t fail = 7;

	SAYV(cuMemcpyBatchAsync(NULL, NULL, NULL, 0, NULL, NULL, 0, 0),
	     "fail=%zu", fail);
}

/* --- managed memory, legacy IPC, context settings ----------------------- */

static void ctx_limit(CUlimit limit)
{
	size_t value = 7;

	SAYV(cuCtxGetLimit(&value, limit), "value=%zu", value);
}

static void ctx_limit_stack(void) { ctx_limit(CU_LIMIT_STACK_SIZE); }
static void ctx_limit_printf(void) { ctx_limit(CU_LIMIT_PRINTF_FIFO_SIZE); }
static void ctx_limit_heap(void) { ctx_limit(CU_LIMIT_MALLOC_HEAP_SIZE); }
static void ctx_limit_sync_depth(void) { ctx_limit(CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH); }
static void ctx_limit_pending(void) { ctx_limit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT); }
static void ctx_limit_l2_fetch(void) { ctx_limit(CU_LIMIT_MAX_L2_FETCH_GRANULARITY); }
static void ctx_limit_l2_persisting(void) { ctx_limit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE); }
static void ctx_limit_shmem(void) { ctx_limit(CU_LIMIT_SHMEM_SIZE); }
static void ctx_limit_cig(void) { ctx_limit(CU_LIMIT_CIG_ENABLED); }
static void ctx_limit_cig_fallback(void) { ctx_limit(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED); }

static void ctx_api_version(void)
{
	unsigned int version = 7;
	CUcontext ctx;

	NEED(cuCtxGetCurrent(&ctx));
	SAYV(cuCtxGetApiVersion(ctx, &version), "version=%u", version);
}

/* A buffer too short for the id: what is written into it, and the answer. */
static void device_pci_bus_id_short(void)
{
	char id[16];

	memset(id, 'x', sizeof(id));
	SAYV(cuDeviceGetPCIBusId(id, 5, 0), "written=%zu",
	     strnlen(id, sizeof(id)));
}

static void managed_flags_zero(void)
{
	CUdeviceptr p = 0;

	SAYV(cuMemAllocManaged(&p, 4096, 0), "ptr=%s", p ? "set" : "untouched");
}

/* Preferred location host: the location and its id read back. */
static void managed_preferred_host(void)
{
	CUmemLocation host = { .type = CU_MEM_LOCATION_TYPE_HOST };
	int loc = 7, id = 7;
	CUdeviceptr p;

	NEED(cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	NEED(cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
	NEED(cuMemRangeGetAttribute(&loc, sizeof(loc),
				    CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION,
				    p, 4096));
	SAYV(cuMemRangeGetAttribute(&id, sizeof(id),
				    CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID,
				    p, 4096), "location=%d id=%d", loc, id);
}

static void managed_last_prefetch_none(void)
{
	CUdeviceptr p;
	int id = 7;

	NEED(cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	SAYV(cuMemRangeGetAttribute(&id, sizeof(id),
				    CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
				    p, 4096), "id=%d", id);
}

static void managed_advise_sizes(void)
{
	CUmemLocation host = { .type = CU_MEM_LOCATION_TYPE_HOST };
	CUresult odd, zero;
	CUdeviceptr p;

	NEED(cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	odd = cuMemAdvise(p, 4097, CU_MEM_ADVISE_SET_READ_MOSTLY, host);
	zero = cuMemAdvise(p, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, host);
	SAYV(odd, "zero=%d", (int)zero);
}

static void managed_attach_bad(void)
{
	CUresult flags, length, interior;
	CUdeviceptr p;

	NEED(cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	flags = cuStreamAttachMemAsync(NULL, p, 0, 4);
	length = cuStreamAttachMemAsync(NULL, p, 100, CU_MEM_ATTACH_GLOBAL);
	interior = cuStreamAttachMemAsync(NULL, p + 64, 0, CU_MEM_ATTACH_GLOBAL);
	SAYV(flags, "length=%d interior=%d", (int)length, (int)interior);
}

/* Managed-memory calls on cuMemAlloc memory. */
static void managed_calls_on_plain(void)
{
	CUmemLocation host = { .type = CU_MEM_LOCATION_TYPE_HOST };
	CUdeviceptr q;
	CUresult advise;
	int v = 7;

	NEED(cuMemAlloc(&q, 64));
	advise = cuMemAdvise(q, 4, CU_MEM_ADVISE_SET_READ_MOSTLY, host);
	SAYV(cuMemRangeGetAttribute(&v, sizeof(v),
				    CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, q, 4),
	     "advise=%d", (int)advise);
}

static void managed_pointer_attributes(void)
{
	unsigned int type = 7, ipc = 7;
	CUdeviceptr p;
	void *host = NULL;

	NEED(cuMemAllocManaged(&p, 4096, CU_MEM_ATTACH_GLOBAL));
	NEED(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p));
	NEED(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, p));
	SAYV(cuPointerGetAttribute(&ipc,
				   CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
				   p), "type=%u host=%s ipc=%u", type,
	     host == (void *)p ? "same" : "other", ipc);
}

static void ipc_open_own(void)
{
	CUipcMemHandle handle;
	CUdeviceptr q, opened = 0;
	unsigned int ipc = 7;

	NEED(cuMemAlloc(&q, 64));
	NEED(cuPointerGetAttribute(&ipc,
				   CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
				   q));
	NEED(cuIpcGetMemHandle(&handle, q));
	SAYV(cuIpcOpenMemHandle(&opened, handle,
				CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS),
	     "ipc=%u opened=%s", ipc, opened ? "set" : "untouched");
}

static void ipc_interior(void)
{
	CUipcMemHandle handle;
	CUdeviceptr q;

	NEED(cuMemAlloc(&q, 64));
	SAY(cuIpcGetMemHandle(&handle, q + 8));
}

static void ipc_event_not_interprocess(void)
{
	CUipcEventHandle h;
	CUevent e;

	NEED(cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	SAY(cuIpcGetEventHandle(&h, e));
}

static void ipc_event_open_own(void)
{
	CUipcEventHandle h;
	CUevent e, opened = NULL;

	NEED(cuEventCreate(&e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
	NEED(cuIpcGetEventHandle(&h, e));
	SAYV(cuIpcOpenEventHandle(&opened, h), "event=%s",
	     opened ? "set" : "untouched");
}

static const char module_variable_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .global .align 4 .u32 counter[16];\n"
	".visible .global .align 4 .u32 other[16];\n";

/* What the pointer queries say of an address inside a module's variable. */
static void module_variable_pointer(void)
{
	CUdeviceptr p, start = 0, base = 0;
	size_t bytes, size = 0, range = 0;
	unsigned int type = 7, ipc = 7;
	CUmodule mod;

	NEED(cuModuleLoadData(&mod, module_variable_ptx));
	NEED(cuModuleGetGlobal(&p, &bytes, mod, "counter"));
	NEED(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p + 4));
	NEED(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
				   p + 4));
	NEED(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, p + 4));
	NEED(cuMemGetAddressRange(&base, &range, p + 4));
	SAYV(cuPointerGetAttribute(&ipc,
				   CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
				   p + 4),
	     "type=%u bytes=%zu start=var%+lld size=%zu range=var%+lld,%zu ipc=%u",
	     type, bytes, (long long)(start - p), size,
	     (long long)(base - p), range, ipc);
}

static void module_variable_ipc(void)
{
	CUipcMemHandle h;
	CUdeviceptr p;
	size_t bytes;
	CUmodule mod;

	NEED(cuModuleLoadData(&mod, module_variable_ptx));
	NEED(cuModuleGetGlobal(&p, &bytes, mod, "counter"));
	SAY(cuIpcGetMemHandle(&h, p));
}

static void module_loading_mode(void)
{
	CUmoduleLoadingMode mode = 7;

	SAYV(cuModuleGetLoadingMode(&mode), "mode=%d", (int)mode);
}

/* The shared memory bank configuration: deprecated, still declared by CUDA 13. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void ctx_shared_config(void)
{
	CUsharedconfig config = 7;
	CUfunc_cache cache = 7;

	NEED(cuCtxGetCacheConfig(&cache));
	SAYV(cuCtxGetSharedMemConfig(&config), "shared=%d cache=%d",
	     (int)config, (int)cache);
}
#pragma GCC diagnostic pop

/* Every atomic operation's capabilities between the device and the host. */
static void device_host_atomic_caps(void)
{
	CUatomicOperation ops[CU_ATOMIC_OPERATION_MAX];
	unsigned int caps[CU_ATOMIC_OPERATION_MAX];
	char text[160];
	int i, n = 0;

	for (i = 0; i < CU_ATOMIC_OPERATION_MAX; i++) {
		ops[i] = (CUatomicOperation)i;
		caps[i] = 0xdead;
	}
	SAYV(cuDeviceGetHostAtomicCapabilities(caps, ops, CU_ATOMIC_OPERATION_MAX,
					       0), "%s", "");
	for (i = 0; i < CU_ATOMIC_OPERATION_MAX; i++)
		n += snprintf(text + n, sizeof(text) - n, "%s%#x", i ? "," : "",
			      caps[i]);
	strncat(answer, text, sizeof(answer) - strlen(answer) - 1);
}

static void device_host_atomic_caps_bad(void)
{
	CUatomicOperation op = CU_ATOMIC_OPERATION_MAX;
	unsigned int cap = 0xdead;
	CUresult zero = cuDeviceGetHostAtomicCapabilities(&cap, &op, 0, 0);

	SAYV(cuDeviceGetHostAtomicCapabilities(&cap, &op, 1, 0),
	     "zero_count=%d cap=%#x", (int)zero, cap);
}

static void device_p2p_atomic_caps_same(void)
{
	CUatomicOperation op = CU_ATOMIC_OPERATION_INTEGER_ADD;
	unsigned int cap = 0xdead;

	SAYV(cuDeviceGetP2PAtomicCapabilities(&cap, &op, 1, 0, 0), "cap=%#x",
	     cap);
}

/* A new stream's attributes, and one that is not a stream attribute. */
static void stream_attributes_default(void)
{
	CUstreamAttrValue sync, prio, domain, bad;
	CUresult r_prio, r_domain, r_bad;
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	memset(&sync, 0x5a, sizeof(sync));
	memset(&prio, 0x5a, sizeof(prio));
	memset(&domain, 0x5a, sizeof(domain));
	r_prio = cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &prio);
	r_domain = cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN,
					&domain);
	r_bad = cuStreamGetAttribute(s, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &bad);
	SAYV(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY,
				  &sync),
	     "sync=%d priority=%d/%d domain=%d/%d cooperative=%d",
	     (int)sync.syncPolicy, (int)r_prio, prio.priority, (int)r_domain,
	     (int)domain.memSyncDomain, (int)r_bad);
}

static void stream_attribute_set_priority(void)
{
	CUstreamAttrValue v = { .priority = -1 }, back;
	CUresult set;
	CUstream s;

	NEED(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	set = cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v);
	memset(&back, 0x5a, sizeof(back));
	SAYV(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &back),
	     "set=%d priority=%d", (int)set, back.priority);
}

static const struct probe probes[] = {
	{ "init.bad_flags", init_bad_flags, NO_INIT },
	{ "init.count_before_init", count_before_init, NO_INIT },
	{ "init.driver_version_null", driver_version_null, NO_INIT },
	{ "procaddr.v2_unknown", procaddr_v2_unknown, NO_INIT },
	{ "procaddr.v1_unknown", procaddr_v1_unknown, NO_INIT },
	{ "procaddr.known", procaddr_known, NO_INIT },
	{ "procaddr.too_old", procaddr_too_old, NO_INIT },
	{ "procaddr.ptds_distinct", procaddr_ptds, NO_INIT },
	{ "procaddr.bad_flags", procaddr_bad_flags, NO_INIT },
	{ "device.get_negative", device_get_negative, NO_CONTEXT },
	{ "device.name_zero_len", device_name_zero_len, NO_CONTEXT },
	{ "device.attribute_bad", attribute_bad, NO_CONTEXT },
	{ "attr.vmm", attr_vmm, NO_CONTEXT },
	{ "attr.posix_fd", attr_posix_fd, NO_CONTEXT },
	{ "attr.unified_addressing", attr_unified, NO_CONTEXT },
	{ "attr.can_map_host_memory", attr_map_host, NO_CONTEXT },
	{ "attr.stream_mem_ops_64", attr_memops64, NO_CONTEXT },
	{ "attr.stream_wait_value_nor", attr_wait_nor, NO_CONTEXT },
	{ "attr.memory_pools", attr_pools, NO_CONTEXT },
	{ "attr.host_numa_id", attr_host_numa, NO_CONTEXT },
	{ "attr.stream_priorities", attr_priorities, NO_CONTEXT },
	{ "attr.compute_capability_major", attr_cc_major, NO_CONTEXT },
	{ "attr.integrated", attr_integrated, NO_CONTEXT },
	{ "ctx.current_none", ctx_current_none, NO_CONTEXT },
	{ "ctx.synchronize_none", ctx_sync_none, NO_CONTEXT },
	{ "ctx.get_flags_primary", ctx_get_flags_primary, WITH_CONTEXT },
	{ "ctx.set_flags_sync_memops", ctx_set_flags_sync_memops, WITH_CONTEXT },
	{ "ctx.set_flags_bad", ctx_set_flags_bad, WITH_CONTEXT },
	{ "ctx.stream_priority_range", ctx_priority_range, WITH_CONTEXT },
	{ "vmm.granularity_host_numa", gran_host_numa, WITH_CONTEXT },
	{ "vmm.create_host_numa", create_host_numa, WITH_CONTEXT },
	{ "vmm.granularity_bad_location", gran_bad_location, WITH_CONTEXT },
	{ "vmm.create_zero", create_zero, WITH_CONTEXT },
	{ "vmm.create_unaligned", create_unaligned, WITH_CONTEXT },
	{ "vmm.create_bad_flags", create_bad_flags, WITH_CONTEXT },
	{ "vmm.create_bad_device", create_bad_device, WITH_CONTEXT },
	{ "vmm.release_twice", release_twice, WITH_CONTEXT },
	{ "vmm.reserve_zero", reserve_zero, WITH_CONTEXT },
	{ "vmm.reserve_unaligned", reserve_unaligned, WITH_CONTEXT },
	{ "vmm.reserve_bad_alignment", reserve_bad_alignment, WITH_CONTEXT },
	{ "vmm.reserve_flags", reserve_flags, WITH_CONTEXT },
	{ "vmm.address_free_partial", free_partial, WITH_CONTEXT },
	{ "vmm.map_whole", map_whole, WITH_CONTEXT },
	{ "vmm.map_partial", map_partial, WITH_CONTEXT },
	{ "vmm.map_at_offset", map_at_offset, WITH_CONTEXT },
	{ "vmm.map_larger", map_larger, WITH_CONTEXT },
	{ "vmm.map_twice", map_twice, WITH_CONTEXT },
	{ "vmm.map_flags", map_flags, WITH_CONTEXT },
	{ "vmm.map_released", map_released, WITH_CONTEXT },
	{ "vmm.map_unreserved", map_unreserved, WITH_CONTEXT },
	{ "vmm.set_access", access_ok, WITH_CONTEXT },
	{ "vmm.set_access_bad_device", access_bad_device, WITH_CONTEXT },
	{ "vmm.set_access_unmapped", access_unmapped, WITH_CONTEXT },
	{ "vmm.set_access_zero_count", access_zero_count, WITH_CONTEXT },
	{ "vmm.set_access_bad_flags", access_bad_flags, WITH_CONTEXT },
	{ "vmm.get_access", get_access, WITH_CONTEXT },
	{ "vmm.get_access_unmapped", get_access_unmapped, WITH_CONTEXT },
	{ "vmm.unmap_nothing_mapped", unmap_nothing_mapped, WITH_CONTEXT },
	{ "vmm.unmap_partial", unmap_partial, WITH_CONTEXT },
	{ "vmm.unmap_whole", unmap_whole, WITH_CONTEXT },
	{ "vmm.retain_unmapped", retain_unmapped, WITH_CONTEXT },
	{ "vmm.retain_mapped", retain_mapped, WITH_CONTEXT },
	{ "vmm.export_fd", export_fd, WITH_CONTEXT },
	{ "vmm.export_not_requested", export_not_requested, WITH_CONTEXT },
	{ "vmm.export_flags", export_flags, WITH_CONTEXT },
	{ "vmm.import_not_cumc_fd", import_not_cumc_fd, WITH_CONTEXT },
	{ "vmm.import_round_trip", import_round_trip, WITH_CONTEXT },
	{ "vmm.properties_from_handle", props_from_handle, WITH_CONTEXT },
	{ "copy.round_trip", copy_round_trip, WITH_CONTEXT },
	{ "copy.zero_bytes", copy_zero_bytes, WITH_CONTEXT },
	{ "copy.unmapped", copy_unmapped, WITH_CONTEXT },
	{ "copy.past_end", copy_past_end, WITH_CONTEXT },
	{ "copy.memset_d32_misaligned", memset_d32_misaligned, WITH_CONTEXT },
	{ "copy.memset_d32", memset_d32, WITH_CONTEXT },
	{ "alloc.zero", alloc_zero, WITH_CONTEXT },
	{ "alloc.free", alloc_free, WITH_CONTEXT },
	{ "alloc.free_null", free_null, WITH_CONTEXT },
	{ "alloc.free_twice", free_twice, WITH_CONTEXT },
	{ "alloc.free_interior", free_interior, WITH_CONTEXT },
	{ "alloc.free_vmm_mapping", free_vmm_mapping, WITH_CONTEXT },
	{ "alloc.address_range", alloc_range, WITH_CONTEXT },
	{ "alloc.pointer_type", alloc_pointer_type, WITH_CONTEXT },
	{ "alloc.copy", alloc_copy, WITH_CONTEXT },
	{ "host.alloc_free", host_alloc, WITH_CONTEXT },
	{ "host.alloc_bad_flags", host_alloc_bad_flags, WITH_CONTEXT },
	{ "host.get_flags", host_alloc_flags, WITH_CONTEXT },
	{ "host.device_pointer", host_device_pointer, WITH_CONTEXT },
	{ "host.device_pointer_flags", host_device_pointer_flags, WITH_CONTEXT },
	{ "host.pointer_type", host_pointer_type, WITH_CONTEXT },
	{ "host.free_unknown", free_host_unknown, WITH_CONTEXT },
	{ "pointer.set_sync_memops", pointer_set_sync_memops, WITH_CONTEXT },
	{ "pointer.set_other", pointer_set_other, WITH_CONTEXT },
	{ "peer.can_access_self", peer_self, NO_CONTEXT },
	{ "peer.can_access_bad_device", peer_bad_device, NO_CONTEXT },
	{ "peer.enable_self", peer_enable_self, WITH_CONTEXT },
	{ "peer.disable_self", peer_disable_self, WITH_CONTEXT },
	{ "peer.p2p_attribute_self", p2p_attr_self, NO_CONTEXT },
	{ "stream.create_bad_flags", stream_bad_flags, WITH_CONTEXT },
	{ "stream.query_idle", stream_query_idle, WITH_CONTEXT },
	{ "stream.get_flags", stream_flags, WITH_CONTEXT },
	{ "stream.priority_clamped", stream_priority_clamped, WITH_CONTEXT },
	{ "stream.legacy_flags", stream_legacy_flags, WITH_CONTEXT },
	{ "stream.synchronize_null", stream_sync_null, WITH_CONTEXT },
	{ "stream.per_thread_query", stream_destroy_twice, WITH_CONTEXT },
	{ "stream.host_func", stream_host_func, WITH_CONTEXT },
	{ "stream.host_func_null", stream_host_func_null, WITH_CONTEXT },
	{ "stream.memset_async", stream_memset_async, WITH_CONTEXT },
	{ "stream.copy_async_unmapped", stream_copy_async_unmapped, WITH_CONTEXT },
	{ "memop.write_then_wait", write_value_then_wait, WITH_CONTEXT },
	{ "memop.write_value64", write_value64, WITH_CONTEXT },
	{ "memop.wait_bad_flags", wait_value_bad_flags, WITH_CONTEXT },
	{ "memop.write_misaligned", write_value_misaligned, WITH_CONTEXT },
	{ "memop.wait_nor_blocks", wait_value_nor_blocks, WITH_CONTEXT },
	{ "memop.batch_empty", batch_memop_empty, WITH_CONTEXT },
	{ "memop.host_memory", host_memop, WITH_CONTEXT },
	{ "event.create_bad_flags", event_bad_flags, WITH_CONTEXT },
	{ "event.interprocess_needs_no_timing", event_interprocess_timing, WITH_CONTEXT },
	{ "event.query_unrecorded", event_query_unrecorded, WITH_CONTEXT },
	{ "event.synchronize_unrecorded", event_sync_unrecorded, WITH_CONTEXT },
	{ "event.elapsed_unrecorded", event_elapsed_unrecorded, WITH_CONTEXT },
	{ "event.elapsed_disable_timing", event_elapsed_no_timing, WITH_CONTEXT },
	{ "event.elapsed", event_elapsed, WITH_CONTEXT },
	{ "event.elapsed_null", event_elapsed_null, WITH_CONTEXT },
	{ "event.record_bad_flags", event_record_bad_flags, WITH_CONTEXT },
	{ "event.wait_pending", event_wait_pending, WITH_CONTEXT },
	{ "pool.default", pool_default, WITH_CONTEXT },
	{ "pool.release_threshold_default", pool_threshold_default, WITH_CONTEXT },
	{ "pool.reuse_default", pool_reuse_default, WITH_CONTEXT },
	{ "pool.create_bad_device", pool_create_bad_device, WITH_CONTEXT },
	{ "pool.create_bad_type", pool_create_bad_type, WITH_CONTEXT },
	{ "pool.alloc_copy_free", pool_alloc_async, WITH_CONTEXT },
	{ "pool.alloc_zero", pool_alloc_zero, WITH_CONTEXT },
	{ "pool.used_after_free_and_trim", pool_used_after_free, WITH_CONTEXT },
	{ "pool.high_reset_nonzero", pool_high_reset_nonzero, WITH_CONTEXT },
	{ "pool.get_access", pool_get_access, WITH_CONTEXT },
	{ "pool.export_none", pool_export_none, WITH_CONTEXT },
	{ "pool.export_fd", pool_export_fd, WITH_CONTEXT },
	{ "pool.destroy_default", pool_destroy_default, WITH_CONTEXT },
	{ "module.load_garbage", module_load_garbage, WITH_CONTEXT },
	{ "module.load_missing_file", module_load_missing_file, WITH_CONTEXT },
	{ "launch.null_function", launch_null_function, WITH_CONTEXT },
	{ "array.create_1d_with_depth", array_1d_with_depth, WITH_CONTEXT },
	{ "array.create_layered_no_depth", array_layered_no_depth, WITH_CONTEXT },
	{ "array.create_three_channels", array_three_channels, WITH_CONTEXT },
	{ "array.create_norm_channels", array_norm_channels, WITH_CONTEXT },
	{ "array.create_bc1", array_bc1, WITH_CONTEXT },
	{ "array.create_sparse", array_sparse, WITH_CONTEXT },
	{ "array.create_unknown_flag", array_unknown_flag, WITH_CONTEXT },
	{ "array.create_too_wide", array_too_wide, WITH_CONTEXT },
	{ "array.descriptor_2d_of_3d", array_desc2d_of_3d, WITH_CONTEXT },
	{ "array.destroy_twice", array_destroy_twice, WITH_CONTEXT },
	{ "array.sparse_attribute", array_sparse_attribute, WITH_CONTEXT },
	{ "array.memory_requirements", array_memory_requirements, WITH_CONTEXT },
	{ "array.get_plane_not_planar", array_get_plane, WITH_CONTEXT },
	{ "array.sparse_properties_dense", array_sparse_properties, WITH_CONTEXT },
	{ "copy2d.ok", copy2d_ok, WITH_CONTEXT },
	{ "copy2d.pitch_short", copy2d_pitch_short, WITH_CONTEXT },
	{ "copy2d.one_row_no_pitch", copy2d_one_row_no_pitch, WITH_CONTEXT },
	{ "copy2d.array_x_unaligned", copy2d_array_x_unaligned, WITH_CONTEXT },
	{ "copy2d.array_width_partial", copy2d_array_width_partial, WITH_CONTEXT },
	{ "copy2d.array_past_rows", copy2d_array_past_rows, WITH_CONTEXT },
	{ "copy2d.bad_memory_type", copy2d_bad_type, WITH_CONTEXT },
	{ "copy2d.null_host", copy2d_null_host, WITH_CONTEXT },
	{ "copy2d.huge_pitch", copy2d_huge_pitch, WITH_CONTEXT },
	{ "copy2d.zero_height", copy2d_zero_height, WITH_CONTEXT },
	{ "copy3d.lod", copy3d_lod, WITH_CONTEXT },
	{ "copy3d.short_slice", copy3d_short_slice, WITH_CONTEXT },
	{ "copy.atoh_past_end", atoh_past_end, WITH_CONTEXT },
	{ "copy.atoh_2d_linear", atoh_2d_linear, WITH_CONTEXT },
	{ "copy.atoh_2d_first_row", atoh_2d_first_row, WITH_CONTEXT },
	{ "copy.bc1_block_rows", bc1_copy_block_rows, WITH_CONTEXT },
	{ "copy.bc1_texel_rows", bc1_copy_texel_rows, WITH_CONTEXT },
	{ "copy.bc1_texel_width", bc1_copy_texel_width, WITH_CONTEXT },
	{ "copy.memset2d_pitch_short", memset2d_pitch_short, WITH_CONTEXT },
	{ "copy.memset2d16_unaligned", memset2d16_unaligned, WITH_CONTEXT },
	{ "copy.memset2d32_pitch_odd", memset2d32_pitch_odd, WITH_CONTEXT },
	{ "texref.create", texref_create, WITH_CONTEXT },
	{ "texref.surfref_get_array_null", surfref_get_array_null, WITH_CONTEXT },
	{ "texobj.create", texobj_ok, WITH_CONTEXT },
	{ "texobj.bad_resource_type", texobj_bad_type, WITH_CONTEXT },
	{ "texobj.resource_flags", texobj_flags_nonzero, WITH_CONTEXT },
	{ "texobj.bad_filter", texobj_bad_filter, WITH_CONTEXT },
	{ "texobj.bad_address_mode", texobj_bad_address, WITH_CONTEXT },
	{ "texobj.linear_unaligned", texobj_linear_unaligned, WITH_CONTEXT },
	{ "texobj.null_texture_desc", texobj_null_texdesc, WITH_CONTEXT },
	{ "texobj.descriptors", texobj_get_desc_round_trip, WITH_CONTEXT },
	{ "texobj.destroy_zero", texobj_destroy_zero, WITH_CONTEXT },
	{ "texobj.view_unset", texobj_view_unset, WITH_CONTEXT },
	{ "surfobj.destroy_zero", surfobj_destroy_zero, WITH_CONTEXT },
	{ "texobj.get_unknown", texobj_get_unknown, WITH_CONTEXT },
	{ "surfobj.create", surfobj_ok, WITH_CONTEXT },
	{ "surfobj.no_surface_flag", surfobj_no_ldst, WITH_CONTEXT },
	{ "surfobj.linear", surfobj_linear, WITH_CONTEXT },
	{ "mipmap.levels_zero", mipmap_levels_zero, WITH_CONTEXT },
	{ "mipmap.levels", mipmap_level_past, WITH_CONTEXT },
	{ "mipmap.too_many_levels", mipmap_too_many_levels, WITH_CONTEXT },
	{ "mipmap.levels_made_zero", mipmap_levels_made_zero, WITH_CONTEXT },
	{ "mipmap.levels_made_past", mipmap_levels_made_past, WITH_CONTEXT },
	{ "external.import_null", external_memory_null, WITH_CONTEXT },
	{ "external.import_bad_fd", external_memory_bad_fd, WITH_CONTEXT },
	{ "graphics.unregister_null", graphics_unregister_null, WITH_CONTEXT },
	{ "tensormap.tiled", tensormap_tiled, WITH_CONTEXT },
	{ "tensormap.stride_unaligned", tensormap_stride_unaligned, WITH_CONTEXT },
	{ "copy.batch_zero", memcpy_batch_zero, WITH_CONTEXT },
	{ "graph.create_flags", graph_create_flags, WITH_CONTEXT },
	{ "graph.dep_twice", graph_dep_twice, WITH_CONTEXT },
	{ "graph.dep_self", graph_dep_self, WITH_CONTEXT },
	{ "graph.remove_missing", graph_remove_missing, WITH_CONTEXT },
	{ "graph.dep_other_graph", graph_dep_other_graph, WITH_CONTEXT },
	{ "graph.instantiate_cycle", graph_instantiate_cycle, WITH_CONTEXT },
	{ "graph.instantiate_bad_flags", graph_instantiate_bad_flags, WITH_CONTEXT },
	{ "graph.instantiate_upload_flag", graph_instantiate_upload_flag, WITH_CONTEXT },
	{ "graph.instantiate_device_launch", graph_instantiate_device_launch, WITH_CONTEXT },
	{ "graph.memset_elem3", graph_memset_elem3, WITH_CONTEXT },
	{ "graph.memset_zero_width", graph_memset_zero_width, WITH_CONTEXT },
	{ "graph.child_self", graph_child_self, WITH_CONTEXT },
	{ "graph.host_null_fn", graph_host_null_fn, WITH_CONTEXT },
	{ "graph.params_wrong_type", graph_params_wrong_type, WITH_CONTEXT },
	{ "graph.edges_one_array", graph_edges_one_array, WITH_CONTEXT },
	{ "graph.nodes_short_array", graph_nodes_short_array, WITH_CONTEXT },
	{ "graph.find_in_clone_missing", graph_find_in_clone_missing, WITH_CONTEXT },
	{ "graph.enable_host_node", graph_enable_host_node, WITH_CONTEXT },
	{ "graph.exec_host_wrong_type", graph_exec_host_wrong_type, WITH_CONTEXT },
	{ "graph.user_object_flags0", graph_user_object_flags0, WITH_CONTEXT },
	{ "graph.mem_set_current", graph_mem_set_current, WITH_CONTEXT },
	{ "graph.mem_set_high_nonzero", graph_mem_set_high_nonzero, WITH_CONTEXT },
	{ "graph.mem_get_used", graph_mem_get_used, WITH_CONTEXT },
	{ "capture.legacy", capture_legacy, WITH_CONTEXT },
	{ "capture.end_not_capturing", capture_end_not_capturing, WITH_CONTEXT },
	{ "capture.begin_twice", capture_begin_twice, WITH_CONTEXT },
	{ "capture.bad_mode", capture_bad_mode, WITH_CONTEXT },
	{ "capture.sync", capture_sync, WITH_CONTEXT },
	{ "capture.query", capture_query, WITH_CONTEXT },
	{ "capture.legacy_is_capturing", capture_legacy_is_capturing, WITH_CONTEXT },
	{ "capture.legacy_host_func", capture_legacy_host_func, WITH_CONTEXT },
	{ "capture.callback", capture_callback, WITH_CONTEXT },
	{ "capture.write_value", capture_write_value, WITH_CONTEXT },
	{ "capture.alloc_async", capture_alloc_async, WITH_CONTEXT },
	{ "capture.unjoined", capture_unjoined, WITH_CONTEXT },
	{ "capture.unmatched", capture_unmatched, WITH_CONTEXT },
	{ "capture.wait_outside_event", capture_wait_outside_event, WITH_CONTEXT },
	{ "capture.event_query", capture_event_query, WITH_CONTEXT },
	{ "capture.info_idle", capture_info_idle, WITH_CONTEXT },
	{ "capture.exchange_bad_mode", capture_exchange_bad_mode, WITH_CONTEXT },
	{ "capture.destroy_graph", capture_destroy_graph, WITH_CONTEXT },
	{ "graphmem.alloc", graphmem_alloc, WITH_CONTEXT },
	{ "graphmem.alloc_zero", graphmem_alloc_zero, WITH_CONTEXT },
	{ "graphmem.alloc_host", graphmem_alloc_host, WITH_CONTEXT },
	{ "graphmem.alloc_bad_device", graphmem_alloc_bad_device, WITH_CONTEXT },
	{ "graphmem.get_params", graphmem_get_params, WITH_CONTEXT },
	{ "graphmem.free_unknown", graphmem_free_unknown, WITH_CONTEXT },
	{ "graphmem.free_no_dependency", graphmem_free_no_dependency, WITH_CONTEXT },
	{ "graphmem.free_twice", graphmem_free_twice, WITH_CONTEXT },
	{ "graphmem.free_params", graphmem_free_params, WITH_CONTEXT },
	{ "graphmem.relaunch_live", graphmem_relaunch_live, WITH_CONTEXT },
	{ "graphmem.relaunch_after_free", graphmem_relaunch_after_free, WITH_CONTEXT },
	{ "graphmem.free_sync", graphmem_free_sync, WITH_CONTEXT },
	{ "graphmem.auto_free", graphmem_auto_free, WITH_CONTEXT },
	{ "graphmem.used_after_launch", graphmem_used_after_launch, WITH_CONTEXT },
	{ "graphmem.used_after_free", graphmem_used_after_free, WITH_CONTEXT },
	{ "graphmem.instantiate_twice", graphmem_instantiate_twice, WITH_CONTEXT },
	{ "graphmem.in_child", graphmem_in_child, WITH_CONTEXT },
	{ "graphmem.remove_edge", graphmem_remove_edge, WITH_CONTEXT },
	{ "graphmem.add_to_child", graphmem_add_to_child, WITH_CONTEXT },
	{ "graphmem.clone", graphmem_clone, WITH_CONTEXT },
	{ "graphmem.destroy_node", graphmem_destroy_node, WITH_CONTEXT },
	{ "graphmem.captured", graphmem_captured, WITH_CONTEXT },
	{ "graph.node.empty", gnode_empty, WITH_CONTEXT },
	{ "graph.node.bad_type", gnode_bad_type, WITH_CONTEXT },
	{ "graph.node.reserved", gnode_reserved, WITH_CONTEXT },
	{ "graph.node.memset", gnode_memset, WITH_CONTEXT },
	{ "graph.node.set_wrong_type", gnode_set_wrong_type, WITH_CONTEXT },
	{ "graph.node.set_host", gnode_set_host, WITH_CONTEXT },
	{ "graph.node.set_empty", gnode_set_empty, WITH_CONTEXT },
	{ "graph.node.exec_set_host", gnode_exec_set_host, WITH_CONTEXT },
	{ "graph.cond.handle_bad_flags", cond_handle_bad_flags, WITH_CONTEXT },
	{ "graph.cond.handle_null_ctx", cond_handle_null_ctx, WITH_CONTEXT },
	{ "graph.cond.if", cond_if, WITH_CONTEXT },
	{ "graph.cond.if_size3", cond_if_size3, WITH_CONTEXT },
	{ "graph.cond.while_size2", cond_while_size2, WITH_CONTEXT },
	{ "graph.cond.switch_size0", cond_switch_size0, WITH_CONTEXT },
	{ "graph.cond.handle_other_graph", cond_handle_other_graph, WITH_CONTEXT },
	{ "graph.cond.body_host_node", cond_body_host_node, WITH_CONTEXT },
	{ "graph.cond.if_default1", cond_if_default1, WITH_CONTEXT },
	{ "graph.cond.if_default0", cond_if_default0, WITH_CONTEXT },
	{ "graph.cond.if_else_default0", cond_if_else_default0, WITH_CONTEXT },
	{ "graph.cond.if_default1_no_assign", cond_if_default1_no_assign, WITH_CONTEXT },
	{ "graph.cond.while_default0", cond_while_default0, WITH_CONTEXT },
	{ "graph.cond.switch_default2", cond_switch_default2, WITH_CONTEXT },
	{ "graph.cond.switch_default_out", cond_switch_default_out, WITH_CONTEXT },
	{ "graph.cond.set_params_graph", cond_set_params_graph, WITH_CONTEXT },
	{ "graph.cond.set_params_exec", cond_set_params_exec, WITH_CONTEXT },
	{ "graph.kernel_attr.priority", kattr_priority, WITH_CONTEXT },
	{ "graph.kernel_attr.cooperative", kattr_cooperative, WITH_CONTEXT },
	{ "graph.kernel_attr.cluster", kattr_cluster, WITH_CONTEXT },
	{ "graph.kernel_attr.set_priority", kattr_set_priority, WITH_CONTEXT },
	{ "graph.kernel_attr.bad_id", kattr_bad_id, WITH_CONTEXT },
	{ "graph.kernel_attr.on_host_node", kattr_on_host_node, WITH_CONTEXT },
	{ "graph.kernel_attr.copy", kattr_copy, WITH_CONTEXT },
	{ "capture.mode.global_malloc", capmode_global_malloc, WITH_CONTEXT },
	{ "capture.mode.thread_local_malloc", capmode_thread_local_malloc, WITH_CONTEXT },
	{ "capture.mode.relaxed_malloc", capmode_relaxed_malloc, WITH_CONTEXT },
	{ "capture.mode.global_free", capmode_global_free, WITH_CONTEXT },
	{ "capture.mode.relaxed_free", capmode_relaxed_free, WITH_CONTEXT },
	{ "capture.mode.global_malloc_host", capmode_global_malloc_host, WITH_CONTEXT },
	{ "capture.mode.global_memcpy", capmode_global_memcpy, WITH_CONTEXT },
	{ "capture.mode.relaxed_memcpy", capmode_relaxed_memcpy, WITH_CONTEXT },
	{ "capture.mode.global_ctx_sync", capmode_global_ctx_sync, WITH_CONTEXT },
	{ "capture.mode.relaxed_ctx_sync", capmode_relaxed_ctx_sync, WITH_CONTEXT },
	{ "capture.mode.global_event_sync", capmode_global_event_sync, WITH_CONTEXT },
	{ "capture.mode.global_vmm_reserve", capmode_global_vmm_reserve, WITH_CONTEXT },
	{ "capture.mode.global_stream_create", capmode_global_stream_create, WITH_CONTEXT },
	{ "capture.mode.exchange_relaxed", capmode_exchange_relaxed, WITH_CONTEXT },
	{ "capture.mode.global_other_thread", capmode_global_other_thread, WITH_CONTEXT },
	{ "capture.mode.thread_local_other_thread", capmode_thread_local_other_thread, WITH_CONTEXT },
	{ "capture.mode.captured_memset_params", capmode_captured_memset_params, WITH_CONTEXT },
	{ "capture.mode.captured_memcpy_params", capmode_captured_memcpy_params, WITH_CONTEXT },
	{ "capture.mode.captured_kernel_params", capmode_captured_kernel_params, WITH_CONTEXT },
	{ "ctx.limit_stack", ctx_limit_stack, WITH_CONTEXT },
	{ "ctx.limit_printf_fifo", ctx_limit_printf, WITH_CONTEXT },
	{ "ctx.limit_malloc_heap", ctx_limit_heap, WITH_CONTEXT },
	{ "ctx.limit_sync_depth", ctx_limit_sync_depth, WITH_CONTEXT },
	{ "ctx.limit_pending_launches", ctx_limit_pending, WITH_CONTEXT },
	{ "ctx.limit_l2_fetch", ctx_limit_l2_fetch, WITH_CONTEXT },
	{ "ctx.limit_l2_persisting", ctx_limit_l2_persisting, WITH_CONTEXT },
	{ "ctx.limit_shmem", ctx_limit_shmem, WITH_CONTEXT },
	{ "ctx.limit_cig", ctx_limit_cig, WITH_CONTEXT },
	{ "ctx.limit_cig_fallback", ctx_limit_cig_fallback, WITH_CONTEXT },
	{ "ctx.api_version", ctx_api_version, WITH_CONTEXT },
	{ "ctx.shared_and_cache_config", ctx_shared_config, WITH_CONTEXT },
	{ "device.pci_bus_id_short", device_pci_bus_id_short, WITH_CONTEXT },
	{ "managed.flags_zero", managed_flags_zero, WITH_CONTEXT },
	{ "managed.preferred_host", managed_preferred_host, WITH_CONTEXT },
	{ "managed.last_prefetch_none", managed_last_prefetch_none, WITH_CONTEXT },
	{ "managed.advise_sizes", managed_advise_sizes, WITH_CONTEXT },
	{ "managed.attach_bad", managed_attach_bad, WITH_CONTEXT },
	{ "managed.calls_on_plain", managed_calls_on_plain, WITH_CONTEXT },
	{ "managed.pointer_attributes", managed_pointer_attributes, WITH_CONTEXT },
	{ "ipc.open_own", ipc_open_own, WITH_CONTEXT },
	{ "ipc.interior", ipc_interior, WITH_CONTEXT },
	{ "ipc.event_not_interprocess", ipc_event_not_interprocess, WITH_CONTEXT },
	{ "ipc.event_open_own", ipc_event_open_own, WITH_CONTEXT },
	{ "module.variable_pointer", module_variable_pointer, WITH_CONTEXT },
	{ "module.variable_ipc", module_variable_ipc, WITH_CONTEXT },
	{ "module.loading_mode", module_loading_mode, WITH_CONTEXT },
	{ "device.host_atomic_caps", device_host_atomic_caps, WITH_CONTEXT },
	{ "device.host_atomic_caps_bad", device_host_atomic_caps_bad, WITH_CONTEXT },
	{ "device.p2p_atomic_caps_same", device_p2p_atomic_caps_same, WITH_CONTEXT },
	{ "stream.attributes_default", stream_attributes_default, WITH_CONTEXT },
	{ "stream.attribute_set_priority", stream_attribute_set_priority, WITH_CONTEXT },
	{ "interop.gl_init", interop_gl_init, WITH_CONTEXT },
	{ "interop.gl_get_devices", interop_gl_get_devices, WITH_CONTEXT },
	{ "interop.gl_get_devices_no_ctx", interop_gl_get_devices, NO_CONTEXT },
	{ "interop.gl_ctx_create", interop_gl_ctx_create, WITH_CONTEXT },
	{ "interop.gl_buffer_objects", interop_gl_buffer_objects, WITH_CONTEXT },
	{ "interop.gl_map", interop_gl_map, WITH_CONTEXT },
	{ "interop.graphics_gl_register", interop_graphics_gl_register, WITH_CONTEXT },
	{ "interop.graphics_egl", interop_graphics_egl, WITH_CONTEXT },
	{ "interop.egl_connect", interop_egl_connect, WITH_CONTEXT },
	{ "interop.egl_connect_no_ctx", interop_egl_connect, NO_CONTEXT },
	{ "interop.egl_frames", interop_egl_frames, WITH_CONTEXT },
	{ "interop.vdpau", interop_vdpau, WITH_CONTEXT },
	{ "interop.vdpau_surfaces", interop_vdpau_surfaces, WITH_CONTEXT },
	{ "interop.profiler_initialize", interop_profiler_initialize, WITH_CONTEXT },
	{ "interop.gl_versions", interop_gl_versions, WITH_CONTEXT },
};

#define NUM_PROBES (sizeof(probes) / sizeof(probes[0]))

/* In the child: set up, run, write the answer to @out. */
static void probe_child(const struct probe *p, int out)
{
	CUcontext ctx;
	CUresult res = CUDA_SUCCESS;

	alarm(PROBE_TIMEOUT_S);
	if (p->setup != NO_INIT)
		res = cuInit(0);
	if (!res && p->setup == WITH_CONTEXT) {
		res = cuDevicePrimaryCtxRetain(&ctx, 0);
		if (!res)
			res = cuCtxSetCurrent(ctx);
	}
	if (res)
		say(res, "in setup");
	else
		p->run();
	if (write(out, answer, strlen(answer)) < 0)
		_exit(2);
	_exit(0);
}

/* How the child ended when it did not answer. */
static void describe_end(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		snprintf(buf, len, "hang");
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "signal %d", WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(buf, len, "unresolved symbol");
	else
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
}

static int run_probe(const struct probe *p)
{
	char buf[sizeof(answer)] = "";
	int pipefd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(pipefd[0]);
		probe_child(p, pipefd[1]);
	}
	close(pipefd[1]);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (n <= 0)
		describe_end(status, buf, sizeof(buf));
	else
		buf[n] = '\0';
	printf("%s = %s\n", p->name, buf);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: probe [--list] [NAME...]\n"
		"Runs every probe (or those named), one line each:\n"
		"  <probe> = <CUresult name>[ <what the call returned>]\n");
}

int main(int argc, char **argv)
{
	size_t i;
	int a;

	if (argc > 1 && !strcmp(argv[1], "--list")) {
		for (i = 0; i < NUM_PROBES; i++)
			puts(probes[i].name);
		return 0;
	}
	if (argc > 1 && argv[1][0] == '-') {
		usage();
		return 2;
	}
	for (i = 0; i < NUM_PROBES; i++) {
		if (argc > 1) {
			for (a = 1; a < argc; a++)
				if (!strcmp(argv[a], probes[i].name))
					break;
			if (a == argc)
				continue;
		}
		if (run_probe(&probes[i]))
			return 1;
	}
	return 0;
}
