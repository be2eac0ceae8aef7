// SPDX-License-Identifier: MIT
/*
 * CUDA graphs and stream capture (runs in the VM): graphs of host, set,
 * copy, event, child graph, kernel and memory nodes built, queried,
 * changed, instantiated and launched, their nodes run after their
 * dependencies and not before the launch; graph memory's lifetime and
 * accounting; stream capture of copies, sets, host functions, kernels
 * and stream-ordered allocations, forked to a second stream and joined
 * back through events, its nodes read back as the calls that made them;
 * the capture errors and modes; user objects' lifetimes; the generic
 * builder (cuGraphAddNode and its setters), conditional nodes (IF,
 * WHILE, SWITCH on their default values) and kernel node attributes;
 * garbage handles and bad arguments refused with nothing changed.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "stream_gate.h"
#include "vmm.h"

#define DATA PTX_TEST_DATA

static void setup(void)
{
	ck_assert_int_eq(cuInit(0), CUDA_SUCCESS);
	vmm_use_device(0);
}

static CUgraphNode add_host(CUgraph g, const CUgraphNode *deps, size_t n,
			    struct order_item *it)
{
	CUDA_HOST_NODE_PARAMS p = { .fn = log_fn, .userData = it };
	CUgraphNode node;

	ck_assert_int_eq(cuGraphAddHostNode(&node, g, deps, n, &p), CUDA_SUCCESS);
	return node;
}

static cuuint64_t graph_mem(CUgraphMem_attribute attr)
{
	cuuint64_t v = ~0ULL;

	ck_assert_int_eq(cuDeviceGetGraphMemAttribute(0, attr, &v),
			 CUDA_SUCCESS);
	return v;
}

/* What a graph allocation of up to 32 MiB counts, as driver 580 counts it. */
enum { UNIT = 32 << 20 };

static CUDA_MEM_ALLOC_NODE_PARAMS alloc_params(size_t bytesize)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = {
		.poolProps = {
			.allocType = CU_MEM_ALLOCATION_TYPE_PINNED,
			.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		},
		.bytesize = bytesize,
	};

	return p;
}

START_TEST(graph_calls_need_init)
{
	CUstreamCaptureStatus status;
	CUgraph g;

	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_ERROR_NOT_INITIALIZED);
	ck_assert_int_eq(cuStreamGetCaptureInfo(NULL, &status, NULL, NULL, NULL,
						NULL, NULL),
			 CUDA_ERROR_NOT_INITIALIZED);
}
END_TEST

/*
 * A diamond a -> (b, c) -> d: a first, d last, on each of two launches;
 * nothing runs before the launch.
 */
START_TEST(host_nodes_run_after_their_dependencies)
{
	struct order_log log = { 0 };
	struct order_item it[4];
	CUgraphNode a, b, c, d, deps[2], nodes[5], from[5], to[5];
	CUgraphNodeType type;
	CUgraphExec exec;
	size_t n, run;
	CUstream s;
	CUgraph g;
	int i;

	for (i = 0; i < 4; i++)
		it[i] = (struct order_item){ &log, i };
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	a = add_host(g, NULL, 0, &it[0]);
	b = add_host(g, &a, 1, &it[1]);
	c = add_host(g, &a, 1, &it[2]);
	deps[0] = b;
	deps[1] = c;
	d = add_host(g, deps, 2, &it[3]);

	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	n = 5;
	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	ck_assert_ptr_null(nodes[4]);
	n = 1;
	ck_assert_int_eq(cuGraphGetRootNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_ptr_eq(nodes[0], a);
	ck_assert_int_eq(cuGraphGetEdges(g, NULL, NULL, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	n = 5;
	ck_assert_int_eq(cuGraphGetEdges(g, from, to, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(cuGraphNodeGetDependencies(d, NULL, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(cuGraphNodeGetDependentNodes(a, NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(cuGraphNodeGetType(d, &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_HOST);

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 0);
	s = stream_new(0);
	for (run = 0; run < 2; run++)
		ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 8);
	for (run = 0; run < 2; run++) {
		int base = 4 * run;

		ck_assert_int_eq(order_position(&log, 0, base), base);
		ck_assert_int_eq(order_position(&log, 3, base), base + 3);
	}
	/* The executable is a copy: changing the graph leaves it alone. */
	ck_assert_int_eq(cuGraphDestroyNode(d), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 12);
	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

START_TEST(edges_added_and_removed_with_checks)
{
	struct order_log log = { 0 };
	struct order_item it = { &log, 0 };
	CUgraphEdgeData data = { .type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC };
	CUDA_GRAPH_INSTANTIATE_PARAMS ip = { 0 };
	CUgraphNode a, b, other, got;
	CUgraphExec exec;
	CUgraph g, h;
	size_t n;

	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&a, g, NULL, 0), CUDA_SUCCESS);
	b = add_host(g, NULL, 0, &it);
	ck_assert_int_eq(cuGraphAddEmptyNode(&other, h, NULL, 0), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphAddDependencies(g, &a, &b, NULL, 1), CUDA_SUCCESS);
	/* Twice, to itself, across graphs, non-default data: refused. */
	ck_assert_int_eq(cuGraphAddDependencies(g, &a, &b, NULL, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddDependencies(g, &a, &a, NULL, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddDependencies(g, &other, &b, NULL, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddDependencies(g, &b, &a, &data, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphGetEdges(g, NULL, NULL, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	/* Dependency edges under the nodes' own queries. */
	n = 1;
	ck_assert_int_eq(cuGraphNodeGetDependencies(b, &got, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(got, a);

	/* A cycle cannot be instantiated: its last added node is named. */
	ck_assert_int_eq(cuGraphAddDependencies(g, &b, &a, NULL, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphInstantiateWithParams(&exec, g, &ip),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(ip.result_out, CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
	ck_assert_ptr_eq(ip.hErrNode_out, b);
	ck_assert_int_eq(cuGraphRemoveDependencies(g, &b, &a, NULL, 1),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphRemoveDependencies(g, &b, &a, NULL, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);

	/* Destroying a node takes its edges with it. */
	ck_assert_int_eq(cuGraphDestroyNode(a), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphGetEdges(g, NULL, NULL, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(cuGraphNodeGetDependencies(b, NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(h), CUDA_SUCCESS);
}
END_TEST

START_TEST(garbage_and_destroyed_handles_refused)
{
	static const uintptr_t garbage[] = { 1, 0x1234, 0xdeadbeef };
	CUDA_HOST_NODE_PARAMS hp = { 0 };
	CUgraphNodeType type;
	CUgraphNode node, dead;
	CUgraphExec exec;
	CUgraph g;
	size_t i, n;

	for (i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		CUgraph bad = (CUgraph)garbage[i];
		CUgraphNode badn = (CUgraphNode)garbage[i];

		ck_assert_int_eq(cuGraphDestroy(bad), CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphGetNodes(bad, NULL, &n),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphAddEmptyNode(&node, bad, NULL, 0),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphNodeGetType(badn, &type),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphDestroyNode(badn), CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphInstantiate(&exec, bad, 0),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphLaunch((CUgraphExec)garbage[i], NULL),
				 CUDA_ERROR_INVALID_VALUE);
		ck_assert_int_eq(cuGraphExecDestroy((CUgraphExec)garbage[i]),
				 CUDA_ERROR_INVALID_VALUE);
	}
	ck_assert_int_eq(cuGraphCreate(NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphCreate(&g, 1), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddHostNode(&node, g, NULL, 0, &hp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddEmptyNode(&dead, g, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&node, g, NULL, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphDestroyNode(dead), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&node, g, &dead, 1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphNodeGetType(dead, &type), CUDA_ERROR_INVALID_VALUE);
	/* A node of one type has no parameters of another. */
	ck_assert_int_eq(cuGraphAddEmptyNode(&node, g, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphHostNodeGetParams(node, &hp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphNodeGetType(node, &type), CUDA_ERROR_INVALID_VALUE);
}
END_TEST

/* A 2D set, then a copy of its rows to the host; both changed and run again. */
START_TEST(memset_and_memcpy_nodes_move_bytes)
{
	enum { W = 16, H = 4, PITCH = 64 };
	unsigned char host[H * W];
	CUDA_MEMSET_NODE_PARAMS sp = {
		.pitch = PITCH, .value = 0x5a, .elementSize = 1,
		.width = W, .height = H,
	};
	CUDA_MEMCPY3D cp = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcPitch = PITCH,
		.dstMemoryType = CU_MEMORYTYPE_HOST, .dstHost = host,
		.dstPitch = W, .WidthInBytes = W, .Height = H, .Depth = 1,
	};
	CUDA_MEMSET_NODE_PARAMS got;
	CUgraphNode set, copy;
	CUgraphExec exec;
	CUdeviceptr dev;
	CUcontext ctx;
	CUstream s;
	CUgraph g;
	int i;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dev, PITCH * H), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, PITCH * H), CUDA_SUCCESS);
	sp.dst = dev;
	cp.srcDevice = dev;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	sp.elementSize = 3;
	ck_assert_int_eq(cuGraphAddMemsetNode(&set, g, NULL, 0, &sp, ctx),
			 CUDA_ERROR_INVALID_VALUE);
	sp.elementSize = 1;
	ck_assert_int_eq(cuGraphAddMemsetNode(&set, g, NULL, 0, &sp, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemcpyNode(&copy, g, &set, 1, &cp, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphMemsetNodeGetParams(set, &got), CUDA_SUCCESS);
	ck_assert_uint_eq(got.value, 0x5a);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	s = stream_new(CU_STREAM_NON_BLOCKING);
	memset(host, 0, sizeof(host));
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	for (i = 0; i < H * W; i++)
		ck_assert_uint_eq(host[i], 0x5a);
	/* Bytes between the rows were left alone. */
	ck_assert_uint_eq(vmm_bytes(dev)[W], 0);

	/* New parameters reach a new instantiation, not the old one. */
	sp.value = 0x17;
	ck_assert_int_eq(cuGraphMemsetNodeSetParams(set, &sp), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(host[0], 0x5a);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(host[H * W - 1], 0x17);

	/* Disabled, the set does nothing. */
	ck_assert_int_eq(cuMemsetD8(dev, 0, PITCH * H), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphNodeSetEnabled(exec, set, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(host[0], 0);

	/* Checked as cuMemcpy3D checks: no array, a pitch short of a row. */
	cp.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	ck_assert_int_eq(cuGraphMemcpyNodeSetParams(copy, &cp),
			 CUDA_ERROR_INVALID_HANDLE);
	cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	cp.srcPitch = W - 1;
	ck_assert_int_eq(cuGraphMemcpyNodeSetParams(copy, &cp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/*
 * Memcpy nodes copy what cuMemcpy3D copies, arrays included, and read a
 * host source when they run, not when they are added.
 */
START_TEST(memcpy_nodes_copy_arrays_and_read_the_host_at_launch)
{
	enum { W = 32, H = 8, PITCH = 64 };
	CUDA_ARRAY3D_DESCRIPTOR desc = {
		.Width = W, .Height = H, .Format = CU_AD_FORMAT_UNSIGNED_INT8,
		.NumChannels = 1,
	};
	unsigned char host[H][W];
	CUDA_MEMCPY3D in = {
		.srcMemoryType = CU_MEMORYTYPE_HOST, .srcHost = host,
		.srcPitch = W, .dstMemoryType = CU_MEMORYTYPE_ARRAY,
		.WidthInBytes = W, .Height = H, .Depth = 1,
	};
	CUDA_MEMCPY3D out = {
		.srcMemoryType = CU_MEMORYTYPE_ARRAY,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstPitch = PITCH,
		.WidthInBytes = W, .Height = H, .Depth = 1,
	};
	CUDA_MEMCPY3D got;
	CUgraphNode to_array, from_array;
	CUgraphExec exec;
	CUdeviceptr dev;
	CUcontext ctx;
	CUarray array;
	CUstream s;
	CUgraph g;
	int x, y;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuArray3DCreate(&array, &desc), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dev, PITCH * H), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, PITCH * H), CUDA_SUCCESS);
	in.dstArray = array;
	out.srcArray = array;
	out.dstDevice = dev;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemcpyNode(&to_array, g, NULL, 0, &in, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemcpyNode(&from_array, g, &to_array, 1,
					      &out, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphMemcpyNodeGetParams(from_array, &got),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(got.srcArray, array);
	/* A row past the array's. */
	out.Height = H + 1;
	ck_assert_int_eq(cuGraphMemcpyNodeSetParams(from_array, &out),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	s = stream_new(CU_STREAM_NON_BLOCKING);
	memset(host, 0x21, sizeof(host));
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	memset(host, 0x42, sizeof(host));
	host[H - 1][W - 1] = 0x43;
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			ck_assert_uint_eq(vmm_bytes(dev)[y * PITCH + x],
					  host[y][x]);
	/* The pitch's padding is left alone. */
	ck_assert_uint_eq(vmm_bytes(dev)[W], 0);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuArrayDestroy(array), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/* vecAdd as a kernel node; its arguments are copied when it is added. */
START_TEST(kernel_node_runs_ptx)
{
	enum { N = 300 };
	float a[N], b[N], c[N];
	size_t size = sizeof(a);
	CUdeviceptr da, db, dc;
	CUDA_KERNEL_NODE_PARAMS kp = { 0 }, got;
	CUgraphNode node;
	CUgraphExec exec;
	CUfunction f;
	CUmodule mod;
	CUgraph g;
	int n = N, i;
	void *args[] = { &da, &db, &dc, &n };

	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/vecadd.ptx"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "vecAdd"), CUDA_SUCCESS);
	for (i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
	}
	ck_assert_int_eq(cuMemAlloc(&da, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&db, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dc, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(da, a, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(db, b, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dc, 0, size), CUDA_SUCCESS);
	kp.func = f;
	kp.gridDimX = (N + 127) / 128;
	kp.gridDimY = kp.gridDimZ = 1;
	kp.blockDimX = 128;
	kp.blockDimY = kp.blockDimZ = 1;
	kp.kernelParams = args;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	kp.blockDimY = 0;
	ck_assert_int_eq(cuGraphAddKernelNode(&node, g, NULL, 0, &kp),
			 CUDA_ERROR_INVALID_VALUE);
	kp.blockDimY = 1;
	ck_assert_int_eq(cuGraphAddKernelNode(&node, g, NULL, 0, &kp),
			 CUDA_SUCCESS);
	n = 0;	/* the node kept N */
	ck_assert_int_eq(cuGraphKernelNodeGetParams(node, &got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got.func, f);
	ck_assert_int_eq(*(int *)got.kernelParams[3], N);
	/* Refused parameters leave the node as it was. */
	kp.gridDimX = 0;
	ck_assert_int_eq(cuGraphKernelNodeSetParams(node, &kp),
			 CUDA_ERROR_INVALID_VALUE);
	kp.gridDimX = (N + 127) / 128;
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(c, dc, size), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(c[i], 3.0f * i);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(da), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(db), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dc), CUDA_SUCCESS);
}
END_TEST

START_TEST(child_graphs_and_clones)
{
	struct order_log log = { 0 };
	struct order_item it[2] = { { &log, 1 }, { &log, 2 } };
	CUgraphNode first, child_node, found, inner;
	CUgraph g, child, copy, embedded;
	CUgraphExec exec;
	size_t n;

	ck_assert_int_eq(cuGraphCreate(&child, 0), CUDA_SUCCESS);
	inner = add_host(child, NULL, 0, &it[1]);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	first = add_host(g, NULL, 0, &it[0]);
	ck_assert_int_eq(cuGraphAddChildGraphNode(&child_node, g, &first, 1, g),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddChildGraphNode(&child_node, g, &first, 1,
						  child),
			 CUDA_SUCCESS);
	/* The node holds a copy: the child graph may go. */
	ck_assert_int_eq(cuGraphDestroy(child), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphChildGraphNodeGetGraph(child_node, &embedded),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphGetNodes(embedded, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(cuGraphDestroy(embedded), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuGraphClone(&copy, g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphNodeFindInClone(&found, child_node, copy),
			 CUDA_SUCCESS);
	ck_assert_ptr_ne(found, child_node);
	ck_assert_int_eq(cuGraphNodeFindInClone(&found, inner, copy),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphInstantiate(&exec, copy, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 2);
	ck_assert_int_eq(log.seen[0], 1);
	ck_assert_int_eq(log.seen[1], 2);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(copy), CUDA_SUCCESS);
}
END_TEST

static void CUDA_CB wait_flag_fn(void *arg)
{
	atomic_int *flag = arg;

	while (!atomic_load(flag))
		;
}

/*
 * An event record node in one graph releases the wait node of another,
 * launched on a second stream: its host node runs only after the first
 * graph's gate opened.
 */
START_TEST(event_nodes_order_two_streams)
{
	atomic_int gate = 0;
	struct order_log log = { 0 };
	struct order_item it = { &log, 7 };
	CUDA_HOST_NODE_PARAMS hp = { .fn = wait_flag_fn, .userData = &gate };
	CUgraphNode gate_node, rec, wait, after;
	CUgraphExec e1, e2;
	CUstream s1, s2;
	CUgraph g1, g2;
	CUevent ev, got;

	ev = event_new(CU_EVENT_DISABLE_TIMING);
	s1 = stream_new(CU_STREAM_NON_BLOCKING);
	s2 = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuGraphCreate(&g1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddHostNode(&gate_node, g1, NULL, 0, &hp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEventRecordNode(&rec, g1, &gate_node, 1, ev),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphEventRecordNodeGetEvent(rec, &got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got, ev);
	ck_assert_int_eq(cuGraphCreate(&g2, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEventWaitNode(&wait, g2, NULL, 0,
						 (CUevent)0x1234),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddEventWaitNode(&wait, g2, NULL, 0, ev),
			 CUDA_SUCCESS);
	after = add_host(g2, &wait, 1, &it);
	(void)after;
	ck_assert_int_eq(cuGraphInstantiate(&e1, g1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&e2, g2, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(e1, s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(e2, s2), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamQuery(s2), CUDA_ERROR_NOT_READY);
	ck_assert_int_eq(atomic_load(&log.next), 0);
	atomic_store(&gate, 1);
	ck_assert_int_eq(cuStreamSynchronize(s2), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 1);
	ck_assert_int_eq(cuGraphExecDestroy(e1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(e2), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g2), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s2), CUDA_SUCCESS);
}
END_TEST

static void CUDA_CB count_fn(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

/*
 * What a captured stream is given does not run: it becomes nodes, which
 * run at each launch of the graph.
 */
START_TEST(capture_makes_nodes_that_run_at_launch)
{
	atomic_int count = 0;
	CUstreamCaptureStatus status;
	CUDA_HOST_NODE_PARAMS host;
	CUDA_MEMSET_NODE_PARAMS set;
	CUDA_MEMCPY3D copy;
	const CUgraphNode *deps;
	const CUgraphEdgeData *edges;
	CUgraphNode nodes[4];
	CUgraphNodeType type;
	cuuint64_t id;
	CUdeviceptr dev;
	CUgraphExec exec;
	CUgraph g, live;
	unsigned int v;
	CUstream s;
	size_t n;

	ck_assert_int_eq(cuMemAlloc(&dev, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(dev, 0, 1024), CUDA_SUCCESS);
	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_NONE);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
	ck_assert_int_eq(cuMemsetD32Async(dev, 0xabcd, 1024, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetCaptureInfo(s, &status, &id, &live, &deps,
						&edges, &n),
			 CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(cuGraphNodeGetType(deps[0], &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_HOST);
	ck_assert_uint_eq(edges[0].type, CU_GRAPH_DEPENDENCY_TYPE_DEFAULT);
	ck_assert_int_eq(cuMemcpyDtoHAsync(&v, dev + 40, sizeof(v), s),
			 CUDA_SUCCESS);
	/* Nothing ran. */
	ck_assert_int_eq(atomic_load(&count), 0);
	ck_assert_uint_eq(((volatile unsigned int *)vmm_ptr(dev))[0], 0);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	ck_assert_ptr_eq(g, live);
	ck_assert_int_eq(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_NONE);

	n = 4;
	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(cuGraphNodeGetType(nodes[0], &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_MEMSET);
	ck_assert_int_eq(cuGraphNodeGetType(nodes[2], &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_MEMCPY);
	ck_assert_int_eq(cuGraphNodeGetDependencies(nodes[2], NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	/* Captured nodes read back as the calls that made them. */
	ck_assert_int_eq(cuGraphHostNodeGetParams(nodes[1], &host),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(host.fn, count_fn);
	ck_assert_ptr_eq(host.userData, &count);
	ck_assert_int_eq(cuGraphHostNodeSetParams(nodes[1], &host),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphMemsetNodeGetParams(nodes[0], &set),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(set.dst, dev);
	ck_assert_uint_eq(set.value, 0xabcd);
	ck_assert_uint_eq(set.elementSize, 4);
	ck_assert_uint_eq(set.width, 1024);
	ck_assert_uint_eq(set.height, 1);
	ck_assert_int_eq(cuGraphMemcpyNodeGetParams(nodes[2], &copy),
			 CUDA_SUCCESS);
	ck_assert_int_eq(copy.srcMemoryType, CU_MEMORYTYPE_DEVICE);
	ck_assert_uint_eq(copy.srcDevice, dev + 40);
	ck_assert_int_eq(copy.dstMemoryType, CU_MEMORYTYPE_HOST);
	ck_assert_ptr_eq(copy.dstHost, &v);
	ck_assert_uint_eq(copy.WidthInBytes, sizeof(v));
	ck_assert_uint_eq(copy.Height, 1);
	ck_assert_uint_eq(copy.Depth, 1);

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	v = 0;
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&count), 2);
	ck_assert_uint_eq(v, 0xabcd);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/* A second stream joins through an event and must be joined back. */
START_TEST(capture_forks_and_joins_through_events)
{
	atomic_int count = 0;
	CUgraphNode nodes[4];
	CUevent fork, join;
	CUstream s1, s2;
	CUgraphExec exec;
	CUgraph g;
	size_t n;

	fork = event_new(CU_EVENT_DISABLE_TIMING);
	join = event_new(CU_EVENT_DISABLE_TIMING);
	s1 = stream_new(CU_STREAM_NON_BLOCKING);
	s2 = stream_new(CU_STREAM_NON_BLOCKING);

	ck_assert_int_eq(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(fork, s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s2, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	/* s2's node not joined back: the capture fails. */
	ck_assert_int_eq(cuStreamEndCapture(s2, &g),
			 CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
	ck_assert_int_eq(cuStreamEndCapture(s1, &g),
			 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ck_assert_ptr_null(g);

	ck_assert_int_eq(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(fork, s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s2, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s1, &g),
			 CUDA_ERROR_STREAM_CAPTURE_UNJOINED);

	ck_assert_int_eq(cuStreamBeginCapture(s1, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(fork, s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(s2, fork, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s2, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(join, s2), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(s1, join, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s1, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s1, &g), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&count), 0);

	/* a -> (b on s2, c on s1) -> d */
	n = 4;
	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(cuGraphNodeGetDependentNodes(nodes[0], NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(cuGraphNodeGetDependencies(nodes[3], NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s1), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&count), 4);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s1), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s2), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(fork), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(join), CUDA_SUCCESS);
}
END_TEST

/*
 * A capture into a graph of the caller's, after one of its nodes; the
 * capture's dependencies replaced and added to.
 */
START_TEST(capture_into_a_graph_with_dependencies_changed)
{
	atomic_int count = 0;
	CUstreamCaptureStatus status;
	const CUgraphNode *deps;
	CUgraphNode root, nodes[4], got[2];
	CUgraph g, ended;
	CUstream s;
	size_t n;

	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&root, g, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamUpdateCaptureDependencies(s, &root, NULL, 1, 0),
			 CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuStreamBeginCaptureToGraph(s, g, &root, NULL, 1,
					CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	/* The graph is the capture's until it ends. */
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuGraphDestroyNode(root), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamGetCaptureInfo(s, &status, NULL, NULL, &deps,
						NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_eq(deps[0], root);
	ck_assert_int_eq(cuLaunchHostFunc(s, count_fn, &count), CUDA_SUCCESS);
	/* Set to nothing: the next node is a root. */
	ck_assert_int_eq(cuStreamUpdateCaptureDependencies(s, NULL, NULL, 0,
				CU_STREAM_SET_CAPTURE_DEPENDENCIES),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchHostFunc(s, count_fn, &count), CUDA_SUCCESS);
	/* Add the root back: the next node follows both. */
	ck_assert_int_eq(cuStreamUpdateCaptureDependencies(s, &root, NULL, 1,
				CU_STREAM_ADD_CAPTURE_DEPENDENCIES),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamUpdateCaptureDependencies(s, &root, NULL, 1, 5),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuLaunchHostFunc(s, count_fn, &count), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s, &ended), CUDA_SUCCESS);
	ck_assert_ptr_eq(ended, g);

	n = 4;
	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	n = 2;
	ck_assert_int_eq(cuGraphNodeGetDependencies(nodes[1], got, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_eq(got[0], root);
	ck_assert_int_eq(cuGraphNodeGetDependencies(nodes[2], NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(cuGraphNodeGetDependencies(nodes[3], NULL, NULL, &n),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

START_TEST(capture_refuses_what_cannot_be_captured)
{
	atomic_int count = 0;
	CUstreamCaptureStatus status;
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
	CUstream s, blocking;
	CUevent ev;
	CUgraph g;

	s = stream_new(CU_STREAM_NON_BLOCKING);
	blocking = stream_new(0);
	ck_assert_int_eq(cuStreamBeginCapture(NULL, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	ck_assert_int_eq(cuStreamBeginCapture(s, 7), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_ERROR_ILLEGAL_STATE);

	/* Waiting for a captured stream invalidates the capture. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s),
			 CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	ck_assert_int_eq(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
	ck_assert_int_eq(cuLaunchHostFunc(s, count_fn, &count),
			 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ck_assert_int_eq(cuStreamEndCapture(s, &g),
			 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

	/* The legacy stream cannot wait for a blocking stream capturing. */
	ck_assert_int_eq(cuStreamBeginCapture(blocking,
					      CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamIsCapturing(NULL, &status),
			 CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
	ck_assert_int_eq(cuLaunchHostFunc(NULL, count_fn, &count),
			 CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
	ck_assert_int_eq(cuStreamEndCapture(blocking, &g),
			 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&count), 0);

	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(mode, CU_STREAM_CAPTURE_MODE_RELAXED);
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(NULL),
			 CUDA_ERROR_INVALID_VALUE);
	/* Any value is exchanged, as NVIDIA's driver does; a capture checks. */
	mode = (CUstreamCaptureMode)7;
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(mode, CU_STREAM_CAPTURE_MODE_GLOBAL);
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(mode, 7);

	/* The graph of a capture under way is not the caller's to destroy. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamGetCaptureInfo(s, &status, NULL, &g, NULL,
						NULL, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_ERROR_ILLEGAL_STATE);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);

	/* Querying an event recorded by the capture invalidates it. */
	ck_assert_int_eq(cuEventCreate(&ev, CU_EVENT_DISABLE_TIMING),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_ERROR_CAPTURED_EVENT);
	ck_assert_int_eq(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
	ck_assert_int_eq(cuStreamEndCapture(s, &g),
			 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

	/* So does waiting for one recorded, and completed, before it began. */
	ck_assert_int_eq(cuEventRecord(ev, blocking), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWaitEvent(s, ev, 0),
			 CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
	ck_assert_int_eq(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
	ck_assert_int_eq(status, CU_STREAM_CAPTURE_STATUS_INVALIDATED);
	ck_assert_int_eq(cuStreamEndCapture(s, &g),
			 CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(blocking), CUDA_SUCCESS);
}
END_TEST

/*
 * Captured copies and sets are nodes of their own parameters, 2D ones
 * included; a host source is read at each launch, not at the capture.
 */
START_TEST(captured_copies_read_the_host_at_launch)
{
	unsigned char src[16];
	CUDA_MEMCPY2D rows = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcPitch = 8,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstPitch = 64,
		.WidthInBytes = 8, .Height = 2,
	};
	CUDA_MEMSET_NODE_PARAMS set;
	CUDA_MEMCPY3D copy;
	CUgraphNode nodes[4];
	CUgraphNodeType type;
	CUgraphExec exec;
	CUdeviceptr dev;
	CUstream s;
	CUgraph g;
	size_t n = 4;
	int i;

	ck_assert_int_eq(cuMemAlloc(&dev, 4096), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, 4096), CUDA_SUCCESS);
	rows.srcDevice = dev;
	rows.dstDevice = dev + 1024;
	s = stream_new(CU_STREAM_NON_BLOCKING);
	memset(src, 0x11, sizeof(src));
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoDAsync(dev, src, sizeof(src), s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpy2DAsync(&rows, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD2D8Async(dev + 2048, 64, 0x7, 16, 2, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(dev)[0], 0);

	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(cuGraphMemcpyNodeGetParams(nodes[0], &copy),
			 CUDA_SUCCESS);
	ck_assert_int_eq(copy.srcMemoryType, CU_MEMORYTYPE_HOST);
	ck_assert_ptr_eq(copy.srcHost, src);
	ck_assert_uint_eq(copy.dstDevice, dev);
	ck_assert_uint_eq(copy.WidthInBytes, sizeof(src));
	ck_assert_int_eq(cuGraphMemcpyNodeGetParams(nodes[1], &copy),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(copy.srcDevice, dev);
	ck_assert_uint_eq(copy.srcPitch, 8);
	ck_assert_uint_eq(copy.dstDevice, dev + 1024);
	ck_assert_uint_eq(copy.dstPitch, 64);
	ck_assert_uint_eq(copy.WidthInBytes, 8);
	ck_assert_uint_eq(copy.Height, 2);
	ck_assert_int_eq(cuGraphNodeGetType(nodes[2], &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_MEMSET);
	ck_assert_int_eq(cuGraphMemsetNodeGetParams(nodes[2], &set),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(set.dst, dev + 2048);
	ck_assert_uint_eq(set.pitch, 64);
	ck_assert_uint_eq(set.value, 0x7);
	ck_assert_uint_eq(set.elementSize, 1);
	ck_assert_uint_eq(set.width, 16);
	ck_assert_uint_eq(set.height, 2);

	for (i = 0; i < 16; i++)
		src[i] = i + 1;
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	for (i = 0; i < 16; i++) {
		ck_assert_uint_eq(vmm_bytes(dev)[i], i + 1);
		ck_assert_uint_eq(vmm_bytes(dev + 1024)[i / 8 * 64 + i % 8],
				  i + 1);
		ck_assert_uint_eq(vmm_bytes(dev + 2048)[i], 0x7);
		ck_assert_uint_eq(vmm_bytes(dev + 2048 + 64)[i], 0x7);
	}
	ck_assert_uint_eq(vmm_bytes(dev + 2048)[16], 0);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/*
 * A captured launch reads back as the launch: its function, grid and
 * the arguments it was given, which later changes to the caller's do not
 * reach; the node runs the launch at each graph launch.
 */
START_TEST(captured_kernel_reads_back_its_launch)
{
	enum { N = 32 };
	float a[N], b[N], c[N];
	CUDA_KERNEL_NODE_PARAMS got;
	CUdeviceptr da, db, dc;
	CUgraphExec exec;
	CUgraphNode node;
	CUfunction f;
	CUmodule mod;
	CUstream s;
	CUgraph g;
	size_t size = sizeof(a), one = 1;
	int n = N, i;
	void *args[] = { &da, &db, &dc, &n };

	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/vecadd.ptx"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "vecAdd"), CUDA_SUCCESS);
	for (i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 10 * i;
	}
	ck_assert_int_eq(cuMemAlloc(&da, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&db, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dc, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(da, a, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(db, b, size), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dc, 0, size), CUDA_SUCCESS);
	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuLaunchKernel(f, 1, 1, 1, N, 1, 1, 0, s, args, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	n = 0;
	ck_assert_int_eq(cuGraphGetNodes(g, &node, &one), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphKernelNodeGetParams(node, &got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got.func, f);
	ck_assert_uint_eq(got.gridDimX, 1);
	ck_assert_uint_eq(got.blockDimX, N);
	ck_assert_uint_eq(got.blockDimY, 1);
	ck_assert_uint_eq(got.sharedMemBytes, 0);
	ck_assert_ptr_null(got.extra);
	ck_assert_uint_eq(*(CUdeviceptr *)got.kernelParams[0], da);
	ck_assert_uint_eq(*(CUdeviceptr *)got.kernelParams[2], dc);
	ck_assert_int_eq(*(int *)got.kernelParams[3], N);
	/* It runs the captured launch: its parameters stay as they are. */
	ck_assert_int_eq(cuGraphKernelNodeSetParams(node, &got),
			 CUDA_ERROR_NOT_SUPPORTED);

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoH(c, dc, size), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(c[i], 11.0f * i);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(da), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(db), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dc), CUDA_SUCCESS);
}
END_TEST

/* What another thread does, in its capture mode, during a capture. */
struct other_thread {
	CUcontext ctx;
	CUstreamCaptureMode mode;
	CUstream end;			/* the capture it ends, if any */
	CUresult alloc_res, end_res;
	CUgraph graph;
};

static void *other_thread_fn(void *arg)
{
	struct other_thread *o = arg;
	CUdeviceptr dev;

	ck_assert_int_eq(cuCtxSetCurrent(o->ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&o->mode),
			 CUDA_SUCCESS);
	o->alloc_res = cuMemAlloc(&dev, 4096);
	if (o->alloc_res == CUDA_SUCCESS)
		ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
	if (o->end)
		o->end_res = cuStreamEndCapture(o->end, &o->graph);
	return NULL;
}

static struct other_thread other_thread_run(CUstreamCaptureMode mode,
					    CUstream end)
{
	struct other_thread o = { .mode = mode, .end = end };
	pthread_t thread;

	ck_assert_int_eq(cuCtxGetCurrent(&o.ctx), CUDA_SUCCESS);
	ck_assert_int_eq(pthread_create(&thread, NULL, other_thread_fn, &o), 0);
	ck_assert_int_eq(pthread_join(thread, NULL), 0);
	return o;
}

/* The capture's status and the end's answer, then no capture left. */
static void end_capture_expect(CUstream s, CUstreamCaptureStatus status,
			       CUresult end)
{
	CUstreamCaptureStatus now;
	CUgraph g;

	ck_assert_int_eq(cuStreamIsCapturing(s, &now), CUDA_SUCCESS);
	ck_assert_int_eq(now, status);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), end);
	if (end == CUDA_SUCCESS)
		ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
}

/*
 * The potentially unsafe calls (cuThreadExchangeStreamCaptureMode):
 * refused, and the capture invalidated, while a capture the calling
 * thread's mode heeds runs; a capture not RELAXED ends on its thread.
 */
START_TEST(capture_modes_refuse_unsafe_calls)
{
	CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
	unsigned int word = 0;
	struct other_thread o;
	CUdeviceptr dev;
	CUstream s;
	CUevent ev;

	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuMemAlloc(&dev, 4096), CUDA_SUCCESS);

	/* This thread's GLOBAL capture. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dev, 4096),
			 CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
			   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ev = event_new(CU_EVENT_DISABLE_TIMING);
	ck_assert_int_eq(cuEventRecord(ev, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev),
			 CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
			   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	/* A synchronous copy is not one, as on driver 580 (conformance/). */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(dev, &word, sizeof(word)), CUDA_SUCCESS);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_ACTIVE, CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s,
					CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
			   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

	/* This thread RELAXED, or the capture RELAXED: allowed. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(dev, &word, sizeof(word)), CUDA_SUCCESS);
	ck_assert_int_eq(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
	ck_assert_int_eq(mode, CU_STREAM_CAPTURE_MODE_RELAXED);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_ACTIVE, CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyHtoD(dev, &word, sizeof(word)), CUDA_SUCCESS);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_ACTIVE, CUDA_SUCCESS);

	/* Another thread heeds a GLOBAL capture in GLOBAL mode only. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	o = other_thread_run(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL, NULL);
	ck_assert_int_eq(o.alloc_res, CUDA_SUCCESS);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_ACTIVE, CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s,
					CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
			 CUDA_SUCCESS);
	o = other_thread_run(CU_STREAM_CAPTURE_MODE_GLOBAL, NULL);
	ck_assert_int_eq(o.alloc_res, CUDA_SUCCESS);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_ACTIVE, CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	o = other_thread_run(CU_STREAM_CAPTURE_MODE_GLOBAL, NULL);
	ck_assert_int_eq(o.alloc_res, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
			   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

	/* Ended on another thread: only a RELAXED capture. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	o = other_thread_run(CU_STREAM_CAPTURE_MODE_RELAXED, s);
	ck_assert_int_eq(o.end_res, CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
	ck_assert_ptr_null(o.graph);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
			   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	o = other_thread_run(CU_STREAM_CAPTURE_MODE_RELAXED, s);
	ck_assert_int_eq(o.end_res, CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(o.graph), CUDA_SUCCESS);

	/* Waiting for an event the capture recorded conflicts in any mode. */
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuEventRecord(ev, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(ev), CUDA_ERROR_CAPTURED_EVENT);
	end_capture_expect(s, CU_STREAM_CAPTURE_STATUS_INVALIDATED,
			   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

/*
 * cuMemAllocAsync and cuMemFreeAsync on a capturing stream become an
 * allocation and a free node; the address is the node's.
 */
START_TEST(capture_makes_memory_nodes)
{
	enum { N = 4096 };
	unsigned int host[N / 4];
	CUDA_MEM_ALLOC_NODE_PARAMS got;
	CUgraphNode nodes[4];
	CUgraphNodeType type;
	CUdeviceptr dev, plain, freed;
	CUgraphExec exec;
	CUstream s;
	CUgraph g;
	size_t n = 4;
	int i;

	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuMemAllocAsync(&plain, 64, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAllocAsync(&dev, N, s), CUDA_SUCCESS);
	ck_assert_uint_ne(dev, 0);
	ck_assert_int_eq(cuMemsetD32Async(dev, 0x5eed, N / 4, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemcpyDtoHAsync(host, dev, N, s), CUDA_SUCCESS);
	/* Only graph memory is freed by a capture. */
	ck_assert_int_eq(cuMemFreeAsync(plain, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFreeAsync(dev, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 4);
	ck_assert_int_eq(cuGraphNodeGetType(nodes[0], &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	ck_assert_int_eq(cuGraphMemAllocNodeGetParams(nodes[0], &got),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(got.dptr, dev);
	ck_assert_uint_eq(got.bytesize, N);
	ck_assert_int_eq(got.poolProps.location.id, 0);
	ck_assert_int_eq(cuGraphMemFreeNodeGetParams(nodes[3], &freed),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(freed, dev);

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	memset(host, 0, sizeof(host));
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	for (i = 0; i < N / 4; i++)
		ck_assert_uint_eq(host[i], 0x5eed);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), UNIT);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeAsync(plain, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

typedef CUresult (CUDAAPI *instantiate_v2_fn)(CUgraphExec *, CUgraph,
					      CUgraphNode *, char *, size_t);

START_TEST(instantiate_forms_and_flags)
{
	CUDA_GRAPH_INSTANTIATE_PARAMS ip = {
		.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD,
	};
	CUDA_MEMSET_NODE_PARAMS set = {
		.value = 1, .elementSize = 1, .width = 16, .height = 1,
	};
	instantiate_v2_fn old;
	CUdriverProcAddressQueryResult found;
	CUgraphNode err = (CUgraphNode)1, node;
	CUgraph device_graph;
	CUgraphExec exec;
	CUdeviceptr dev;
	CUcontext ctx;
	cuuint64_t flags;
	char log[8] = "x";
	CUgraph g;

	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 1ull << 40),
			 CUDA_ERROR_INVALID_VALUE);
	/* Device launch wants a kernel, memcpy or memset node; cumc has none. */
	ck_assert_int_eq(cuGraphInstantiate(&exec, g,
					    CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dev, 16), CUDA_SUCCESS);
	set.dst = dev;
	ck_assert_int_eq(cuGraphCreate(&device_graph, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemsetNode(&node, device_graph, NULL, 0, &set,
					      ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, device_graph,
					    CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphDestroy(device_graph), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g,
				CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecGetFlags(exec, &flags), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH);
	ck_assert_int_eq(cuGraphUpload(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphInstantiateWithParams(&exec, g, &ip),
			 CUDA_SUCCESS);
	ck_assert_int_eq(ip.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);

	ck_assert_int_eq(cuGetProcAddress("cuGraphInstantiate", (void **)&old,
					  11000, 0, &found),
			 CUDA_SUCCESS);
	ck_assert_int_eq(old(&exec, g, &err, log, sizeof(log)), CUDA_SUCCESS);
	ck_assert_ptr_null(err);
	ck_assert_str_eq(log, "");
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
}
END_TEST

/*
 * An executable's nodes take new parameters for later launches; the
 * graph's stay as they were.
 */
START_TEST(executable_nodes_take_new_parameters)
{
	struct order_log log = { 0 };
	struct order_item it[2] = { { &log, 1 }, { &log, 2 } };
	CUDA_HOST_NODE_PARAMS hp = { .fn = log_fn, .userData = &it[1] }, got;
	CUDA_MEMSET_NODE_PARAMS sp = {
		.value = 9, .elementSize = 4, .width = 4, .height = 1,
	};
	CUgraphNode host, set, rec;
	CUgraphExec exec;
	CUdeviceptr dev;
	CUcontext ctx;
	CUevent ev, other;
	CUgraph g;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dev, 16), CUDA_SUCCESS);
	ev = event_new(0);
	other = event_new(0);
	sp.dst = dev;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	host = add_host(g, NULL, 0, &it[0]);
	ck_assert_int_eq(cuGraphAddMemsetNode(&set, g, &host, 1, &sp, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEventRecordNode(&rec, g, &set, 1, ev),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphExecHostNodeSetParams(exec, host, &hp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecHostNodeSetParams(exec, set, &hp),
			 CUDA_ERROR_INVALID_VALUE);
	sp.value = 11;
	ck_assert_int_eq(cuGraphExecMemsetNodeSetParams(exec, set, &sp, ctx),
			 CUDA_SUCCESS);
	sp.elementSize = 3;
	ck_assert_int_eq(cuGraphExecMemsetNodeSetParams(exec, set, &sp, ctx),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecEventRecordNodeSetEvent(exec, rec, other),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecEventRecordNodeSetEvent(exec, host, other),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventSynchronize(other), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 1);
	ck_assert_int_eq(log.seen[0], 2);
	ck_assert_uint_eq(((volatile unsigned int *)vmm_ptr(dev))[3], 11);
	/* The graph's node kept its function. */
	ck_assert_int_eq(cuGraphHostNodeGetParams(host, &got), CUDA_SUCCESS);
	ck_assert_ptr_eq(got.userData, &it[0]);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(other), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/* A set node, then a host node after it: the shape every graph here has. */
static CUgraph set_then_host(CUdeviceptr dev, unsigned int value,
			     struct order_item *it, CUgraphNode *set)
{
	CUDA_MEMSET_NODE_PARAMS sp = {
		.dst = dev, .value = value, .elementSize = 4, .width = 1,
		.height = 1,
	};
	CUcontext ctx;
	CUgraph g;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemsetNode(set, g, NULL, 0, &sp, ctx),
			 CUDA_SUCCESS);
	add_host(g, set, 1, it);
	return g;
}

/*
 * An executable takes the parameters of a graph of its shape; a graph of
 * another shape or other node types is refused, naming why.
 */
START_TEST(executable_updated_from_a_graph_of_its_shape)
{
	struct order_log log = { 0 };
	struct order_item it[2] = { { &log, 1 }, { &log, 2 } };
	CUgraphExecUpdateResultInfo info;
	CUgraphNode set1, set2, extra, empty;
	CUgraph g1, g2, child;
	CUgraphExec exec;
	CUdeviceptr dev;

	ck_assert_int_eq(cuMemAlloc(&dev, 4), CUDA_SUCCESS);
	g1 = set_then_host(dev, 1, &it[0], &set1);
	g2 = set_then_host(dev, 2, &it[1], &set2);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecUpdate(exec, g2, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecUpdate(exec, g2, &info), CUDA_SUCCESS);
	ck_assert_int_eq(info.result, CU_GRAPH_EXEC_UPDATE_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(*(volatile unsigned int *)vmm_ptr(dev), 2);
	ck_assert_int_eq(log.seen[0], 2);
	/* The executable's nodes keep the names of g1's. */
	ck_assert_int_eq(cuGraphNodeSetEnabled(exec, set1, 0), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphAddEmptyNode(&extra, g2, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecUpdate(exec, g2, &info),
			 CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	ck_assert_int_eq(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
	ck_assert_int_eq(cuGraphDestroyNode(extra), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroyNode(set2), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&empty, g2, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecUpdate(exec, g2, &info),
			 CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	ck_assert_int_eq(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);

	/* A child graph node's graph replaced in an executable. */
	ck_assert_int_eq(cuGraphCreate(&child, 0), CUDA_SUCCESS);
	add_host(child, NULL, 0, &it[0]);
	ck_assert_int_eq(cuGraphAddChildGraphNode(&extra, g1, NULL, 0, child),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecChildGraphNodeSetParams(exec, set1, child),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphDestroy(child), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&child, 0), CUDA_SUCCESS);
	add_host(child, NULL, 0, &it[1]);
	add_host(child, NULL, 0, &it[1]);
	ck_assert_int_eq(cuGraphExecChildGraphNodeSetParams(exec, extra, child),
			 CUDA_SUCCESS);
	atomic_store(&log.next, 0);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&log.next), 3);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(child), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g2), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/*
 * A batch of memory operations as a node, its operations copied when it is
 * added; a captured cuStreamWriteValue32 becomes such a node too.
 */
START_TEST(batch_mem_op_nodes_write_at_launch)
{
	CUstreamBatchMemOpParams op = { 0 };
	CUDA_BATCH_MEM_OP_NODE_PARAMS bp = { .count = 1, .paramArray = &op }, got;
	volatile unsigned int *words;
	CUgraphNodeType type;
	CUgraphNode node, nodes[2];
	CUgraphExec exec;
	CUdeviceptr dev;
	CUstream s;
	CUgraph g;
	size_t n;

	ck_assert_int_eq(cuCtxGetCurrent(&bp.ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dev, 64), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, 64), CUDA_SUCCESS);
	words = vmm_ptr(dev);
	op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	op.writeValue.address = dev;
	op.writeValue.value = 7;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	bp.flags = 1;
	ck_assert_int_eq(cuGraphAddBatchMemOpNode(&node, g, NULL, 0, &bp),
			 CUDA_ERROR_INVALID_VALUE);
	bp.flags = 0;
	ck_assert_int_eq(cuGraphAddBatchMemOpNode(&node, g, NULL, 0, &bp),
			 CUDA_SUCCESS);
	op.writeValue.value = 9;
	ck_assert_int_eq(cuGraphBatchMemOpNodeGetParams(node, &got), CUDA_SUCCESS);
	ck_assert_ptr_ne(got.paramArray, &op);
	ck_assert_uint_eq(got.paramArray[0].writeValue.value, 7);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(words[0], 7);
	ck_assert_int_eq(cuGraphExecBatchMemOpNodeSetParams(exec, node, &bp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(words[0], 9);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);

	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamWriteValue32(s, dev + 4, 5, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
	ck_assert_uint_eq(words[1], 0);
	n = 2;
	ck_assert_int_eq(cuGraphGetNodes(g, nodes, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(cuGraphNodeGetType(nodes[0], &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(words[1], 5);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

START_TEST(dot_print_shows_nodes_and_edges)
{
	char path[] = "/tmp/test_graph_dot_XXXXXX", text[512];
	CUgraphNode a, b;
	CUgraph g;
	size_t len;
	FILE *f;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&a, g, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&b, g, &a, 1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDebugDotPrint(g, NULL, 0), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphDebugDotPrint(g, "/nonexistent/dir/x.dot", 0),
			 CUDA_ERROR_OPERATING_SYSTEM);
	ck_assert_int_eq(cuGraphDebugDotPrint(g, path, 0), CUDA_SUCCESS);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = '\0';
	fclose(f);
	unlink(path);
	ck_assert_ptr_nonnull(strstr(text, "digraph"));
	ck_assert_ptr_nonnull(strstr(text, "\"0\" -> \"1\""));
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
}
END_TEST

static atomic_int destroyed;

static void CUDA_CB destroy_fn(void *arg)
{
	atomic_fetch_add(&destroyed, *(int *)arg);
}

/* The destructor runs once the last reference, the graph's, is gone. */
START_TEST(user_objects_live_as_long_as_their_holders)
{
	static int one = 1;
	CUuserObject obj;
	CUgraphExec exec;
	CUgraph g;

	atomic_store(&destroyed, 0);
	ck_assert_int_eq(cuUserObjectCreate(&obj, &one, destroy_fn, 1, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuUserObjectCreate(&obj, &one, destroy_fn, 1,
					    CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphRetainUserObject(g, obj, 1, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuUserObjectRelease(obj, 1), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&destroyed), 0);
	/* The executable holds the graph's references too. */
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&destroyed), 0);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&destroyed), 1);
	ck_assert_int_eq(cuUserObjectRetain(obj, 1), CUDA_ERROR_INVALID_VALUE);

	/* MOVE hands the caller's reference over. */
	ck_assert_int_eq(cuUserObjectCreate(&obj, &one, destroy_fn, 2,
					    CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphRetainUserObject(g, obj, 2,
						 CU_GRAPH_USER_OBJECT_MOVE),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphReleaseUserObject(g, obj, 3),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphReleaseUserObject(g, obj, 1), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&destroyed), 1);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&destroyed), 2);
}
END_TEST

/* alloc -> set -> copy to the host -> free, run twice. */
START_TEST(memory_nodes_allocate_and_free_in_the_graph)
{
	enum { N = 1000 };
	CUDA_MEM_ALLOC_NODE_PARAMS p = alloc_params(N), got;
	CUDA_MEMSET_NODE_PARAMS sp = {
		.value = 7, .elementSize = 1, .width = N, .height = 1,
	};
	CUDA_MEMCPY3D cp = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE,
		.dstMemoryType = CU_MEMORYTYPE_HOST,
		.WidthInBytes = N, .Height = 1, .Depth = 1,
	};
	unsigned char host[N];
	CUgraphNode alloc, set, copy, release, other;
	CUgraphExec exec, second;
	CUgraphNodeType type;
	CUdeviceptr freed;
	CUcontext ctx;
	CUstream s;
	CUgraph g, c;
	int i, run;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemAllocNode(&alloc, g, NULL, 0, &p),
			 CUDA_SUCCESS);
	ck_assert_uint_ne(p.dptr, 0);
	ck_assert_int_eq(cuGraphNodeGetType(alloc, &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
	ck_assert_int_eq(cuGraphMemAllocNodeGetParams(alloc, &got), CUDA_SUCCESS);
	ck_assert_uint_eq(got.dptr, p.dptr);
	ck_assert_uint_eq(got.bytesize, N);
	ck_assert_int_eq(got.poolProps.location.id, 0);
	ck_assert_uint_eq(got.accessDescCount, 0);
	sp.dst = p.dptr;
	cp.srcDevice = p.dptr;
	cp.dstHost = host;
	ck_assert_int_eq(cuGraphAddMemsetNode(&set, g, &alloc, 1, &sp, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemcpyNode(&copy, g, &set, 1, &cp, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemFreeNode(&release, g, &copy, 1, p.dptr),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphMemFreeNodeGetParams(release, &freed),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(freed, p.dptr);
	ck_assert_int_eq(cuGraphMemFreeNodeGetParams(alloc, &freed),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphMemAllocNodeGetParams(release, &got),
			 CUDA_ERROR_INVALID_VALUE);
	/* Freed once, by one graph; only an allocation node's address. */
	ck_assert_int_eq(cuGraphAddMemFreeNode(&other, g, &release, 1, p.dptr),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphCreate(&c, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemFreeNode(&other, c, NULL, 0, p.dptr),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddMemFreeNode(&other, c, NULL, 0, p.dptr + 8),
			 CUDA_ERROR_INVALID_VALUE);

	/* What graphs with memory nodes cannot do (cuda.h; driver 580's answers). */
	ck_assert_int_eq(cuGraphClone(&c, g), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphAddChildGraphNode(&other, c, NULL, 0, g),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphDestroyNode(copy), CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphRemoveDependencies_v2(g, &set, &copy, NULL, 1),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphDestroy(c), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&second, g, 0),
			 CUDA_ERROR_NOT_SUPPORTED);
	s = stream_new(CU_STREAM_NON_BLOCKING);
	for (run = 0; run < 2; run++) {
		memset(host, 0, sizeof(host));
		ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
		ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
		for (i = 0; i < N; i++)
			ck_assert_uint_eq(host[i], 7);
	}
	/* Freed in its graph: neither used nor the program's to free. */
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), UNIT);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), UNIT);
	ck_assert_int_eq(cuMemFreeAsync(p.dptr, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuMemFree(p.dptr), CUDA_ERROR_INVALID_VALUE);

	/* Trimmed, the memory goes; a launch maps it again. */
	ck_assert_int_eq(cuDeviceGraphMemTrim(0), CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), 0);
	memset(host, 0, sizeof(host));
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(host[N - 1], 7);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), UNIT);

	/* One executable at a time. */
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&second, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(second), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	/* Its memory went with its last node. */
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), 0);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

/*
 * Not freed in its graph, the allocation outlives the launch until the
 * program frees it, and the graph cannot run again meanwhile.
 */
START_TEST(unfreed_graph_memory_outlives_its_launch)
{
	enum { N = 4096 };
	CUDA_MEM_ALLOC_NODE_PARAMS p = alloc_params(N);
	CUDA_MEMSET_NODE_PARAMS sp = {
		.value = 0x3c, .elementSize = 1, .width = N, .height = 1,
	};
	CUgraphNode alloc, set, release;
	CUgraphExec exec, frees, autofree;
	cuuint64_t zero = 0;
	CUcontext ctx;
	CUstream s;
	CUgraph g, f;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemAllocNode(&alloc, g, NULL, 0, &p),
			 CUDA_SUCCESS);
	sp.dst = p.dptr;
	ck_assert_int_eq(cuGraphAddMemsetNode(&set, g, &alloc, 1, &sp, ctx),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	s = stream_new(CU_STREAM_NON_BLOCKING);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	/* Stream work after the launch may use it. */
	ck_assert_int_eq(cuMemsetD8Async(p.dptr + N - 1, 0x11, 1, s),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(p.dptr)[0], 0x3c);
	ck_assert_uint_eq(vmm_bytes(p.dptr)[N - 1], 0x11);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), UNIT);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_ERROR_INVALID_VALUE);

	/* cuMemFreeAsync frees it, once; the graph may run again. */
	ck_assert_int_eq(cuMemFreeAsync(p.dptr, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFreeAsync(p.dptr, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);

	/* So does another graph's free node, which runs after it only. */
	ck_assert_int_eq(cuGraphCreate(&f, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemFreeNode(&release, f, NULL, 0, p.dptr),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemFreeNode(&release, g, &set, 1, p.dptr),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphInstantiate(&frees, f, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(frees, s), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(frees, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);

	/* And cuMemFree, which waits for the allocation to have run. */
	ck_assert_int_eq(cuGraphLaunch(exec, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(p.dptr), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(p.dptr), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), UNIT);
	ck_assert_int_eq(cuDeviceSetGraphMemAttribute(0,
				CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), 0);

	/* AUTO_FREE_ON_LAUNCH frees what the last launch left. */
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiateWithFlags(&autofree, g,
			CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH |
			CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphInstantiateWithFlags(&autofree, g,
			CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(autofree, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(autofree, s), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(s), CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), UNIT);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_HIGH), UNIT);

	/* Its graph and executables gone, the memory is still the program's. */
	ck_assert_int_eq(cuGraphExecDestroy(autofree), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(frees), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(f), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(p.dptr)[1], 0x3c);
	ck_assert_int_eq(cuMemFree(p.dptr), CUDA_SUCCESS);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT), 0);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT), 0);
	ck_assert_uint_eq(graph_mem(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH), UNIT);
	ck_assert_int_eq(cuStreamDestroy(s), CUDA_SUCCESS);
}
END_TEST

START_TEST(memory_node_parameters_checked)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = alloc_params(64);
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 0 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READ,
	};
	CUgraphNode node, child;
	CUgraph g, embedded;
	size_t n;

	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddMemAllocNode(NULL, g, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.bytesize = 0;
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = alloc_params(64);
	p.poolProps.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	/* Graph memory is device memory, as driver 580 answers. */
	p = alloc_params(64);
	p.poolProps.location.type = CU_MEM_LOCATION_TYPE_HOST;
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_ERROR_NOT_SUPPORTED);
	p = alloc_params(64);
	p.poolProps.location.id = 99;
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = alloc_params(64);
	p.accessDescs = &desc;
	p.accessDescCount = vmm_device_count() + 1;
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	/* The owner keeps read-write access. */
	p.accessDescCount = 1;
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 0);

	/* No memory nodes in a child graph node's graph. */
	ck_assert_int_eq(cuGraphCreate(&embedded, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddChildGraphNode(&child, g, NULL, 0, embedded),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(embedded), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphChildGraphNodeGetGraph(child, &embedded),
			 CUDA_SUCCESS);
	p = alloc_params(64);
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, embedded, NULL, 0, &p),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);

	ck_assert_int_eq(cuDeviceGetGraphMemAttribute(99,
				CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
				&(cuuint64_t){ 0 }),
			 CUDA_ERROR_INVALID_DEVICE);
	ck_assert_int_eq(cuDeviceGetGraphMemAttribute(0, 9, &(cuuint64_t){ 0 }),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceSetGraphMemAttribute(0,
				CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
				&(cuuint64_t){ 1 }),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceSetGraphMemAttribute(0,
				CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
				&(cuuint64_t){ 0 }),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuDeviceGraphMemTrim(99), CUDA_ERROR_INVALID_DEVICE);
}
END_TEST

/* A peer named by the node's access descriptors may use the memory. */
START_TEST(memory_node_grants_peer_access)
{
	CUDA_MEM_ALLOC_NODE_PARAMS p = alloc_params(64);
	CUmemAccessDesc desc = {
		.location = { CU_MEM_LOCATION_TYPE_DEVICE, 1 },
		.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	};
	CUmemLocation peer = { CU_MEM_LOCATION_TYPE_DEVICE, 1 };
	CUmemLocation third = { CU_MEM_LOCATION_TYPE_DEVICE, 2 };
	unsigned long long flags;
	CUDA_MEM_ALLOC_NODE_PARAMS got;
	CUgraphNode node;
	CUgraph g;

	ck_assert_int_ge(vmm_device_count(), 3);
	p.accessDescs = &desc;
	p.accessDescCount = 1;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddMemAllocNode(&node, g, NULL, 0, &p),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphMemAllocNodeGetParams(node, &got), CUDA_SUCCESS);
	ck_assert_uint_eq(got.accessDescCount, 1);
	ck_assert_ptr_ne(got.accessDescs, &desc);
	ck_assert_int_eq(got.accessDescs[0].location.id, 1);
	ck_assert_int_eq(cuMemGetAccess(&flags, &peer, p.dptr), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	ck_assert_int_eq(cuMemGetAccess(&flags, &third, p.dptr), CUDA_SUCCESS);
	ck_assert_uint_eq(flags, CU_MEM_ACCESS_FLAGS_PROT_NONE);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
}
END_TEST

/* No semaphore can be imported, so no semaphore node is ever made. */
START_TEST(semaphore_nodes_refused)
{
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sig = { 0 };
	CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS wait = { 0 };
	CUexternalSemaphore sem = (CUexternalSemaphore)0x1000;
	CUDA_EXT_SEM_SIGNAL_NODE_PARAMS sp = { &sem, &sig, 1 }, sp_out;
	CUDA_EXT_SEM_WAIT_NODE_PARAMS wp = { &sem, &wait, 1 }, wp_out;
	CUgraphNode node = NULL, empty, garbage = (CUgraphNode)&sem;
	CUgraphExec exec;
	CUgraph g;
	size_t n;

	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddExternalSemaphoresSignalNode(&node, g, NULL,
								0, &sp),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuGraphAddExternalSemaphoresWaitNode(&node, g, NULL, 0,
							      &wp),
			 CUDA_ERROR_INVALID_HANDLE);
	/* The graph, the dependencies, the output and the arrays first. */
	ck_assert_int_eq(cuGraphAddExternalSemaphoresSignalNode(&node, NULL,
								NULL, 0, &sp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddExternalSemaphoresWaitNode(&node, g,
							      &garbage, 1, &wp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddExternalSemaphoresWaitNode(NULL, g, NULL, 0,
							      &wp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddExternalSemaphoresSignalNode(&node, g, NULL,
								0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	sp.numExtSems = 0;
	ck_assert_int_eq(cuGraphAddExternalSemaphoresSignalNode(&node, g, NULL,
								0, &sp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(node);
	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 0);

	/* A node of another type is none of these. */
	ck_assert_int_eq(cuGraphAddEmptyNode(&empty, g, NULL, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExternalSemaphoresSignalNodeGetParams(empty,
								      &sp_out),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExternalSemaphoresSignalNodeSetParams(empty,
								      &sp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExternalSemaphoresWaitNodeGetParams(empty,
								    &wp_out),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExternalSemaphoresWaitNodeSetParams(empty, &wp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecExternalSemaphoresSignalNodeSetParams(exec,
								empty, &sp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecExternalSemaphoresWaitNodeSetParams(exec,
								empty, &wp),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
}
END_TEST

/* A 1-byte set of @dev to @value as the generic builder's parameters. */
static CUgraphNodeParams memset_params(CUdeviceptr dev, unsigned int value)
{
	CUgraphNodeParams p = { .type = CU_GRAPH_NODE_TYPE_MEMSET };
	CUcontext ctx;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	p.memset = (CUDA_MEMSET_NODE_PARAMS_v2){
		.dst = dev, .value = value, .elementSize = 1, .width = 1,
		.height = 1, .ctx = ctx,
	};
	return p;
}

static void launch_once(CUgraph g)
{
	CUgraphExec exec;

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
}

typedef CUresult (CUDAAPI *add_node_v1_fn)(CUgraphNode *phGraphNode,
					   CUgraph hGraph,
					   const CUgraphNode *dependencies,
					   size_t numDependencies,
					   CUgraphNodeParams *nodeParams);

/*
 * cuGraphAddNode makes each node type its own cuGraphAdd*Node makes, in
 * order; what it refuses leaves the graph as it was.
 */
START_TEST(generic_builder_adds_each_type)
{
	struct order_log log = { 0 };
	struct order_item it = { &log, 7 };
	CUgraphNodeParams p = { .type = CU_GRAPH_NODE_TYPE_HOST };
	CUexternalSemaphore sem = (CUexternalSemaphore)0x1000;
	CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS sig = { 0 };
	CUstreamBatchMemOpParams op = { 0 };
	CUgraphEdgeData edge = { .type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC };
	CUgraphNode host, set, empty, rec, child_node, batch, node = NULL;
	CUgraph g, child, embedded;
	CUgraphNodeType type;
	add_node_v1_fn add_v1;
	CUdeviceptr dev;
	CUevent ev;
	size_t n;

	ck_assert_int_eq(cuMemAlloc(&dev, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventCreate(&ev, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	p.host = (CUDA_HOST_NODE_PARAMS_v2){ .fn = log_fn, .userData = &it };
	ck_assert_int_eq(cuGraphAddNode(&host, g, NULL, NULL, 0, &p),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphNodeGetType(host, &type), CUDA_SUCCESS);
	ck_assert_int_eq(type, CU_GRAPH_NODE_TYPE_HOST);
	p = memset_params(dev, 0x33);
	ck_assert_int_eq(cuGraphAddNode(&set, g, &host, NULL, 1, &p),
			 CUDA_SUCCESS);
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_EMPTY };
	ck_assert_int_eq(cuGetProcAddress("cuGraphAddNode", (void **)&add_v1,
					  12020, 0, NULL),
			 CUDA_SUCCESS);
	ck_assert_int_eq(add_v1(&empty, g, &set, 1, &p), CUDA_SUCCESS);
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_EVENT_RECORD };
	p.eventRecord.event = ev;
	ck_assert_int_eq(cuGraphAddNode(&rec, g, &empty, NULL, 1, &p),
			 CUDA_SUCCESS);
	op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
	op.writeValue.address = dev + 4;
	op.writeValue.value = 0x44;
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP };
	p.memOp = (CUDA_BATCH_MEM_OP_NODE_PARAMS_v2){
		.count = 1, .paramArray = &op,
	};
	ck_assert_int_eq(cuGraphAddNode(&batch, g, &rec, NULL, 1, &p),
			 CUDA_SUCCESS);

	/* A child graph moved into the node goes with it. */
	ck_assert_int_eq(cuGraphCreate(&child, 0), CUDA_SUCCESS);
	p = memset_params(dev + 8, 0x55);
	ck_assert_int_eq(cuGraphAddNode(&node, child, NULL, NULL, 0, &p),
			 CUDA_SUCCESS);
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_GRAPH };
	p.graph = (CUDA_CHILD_GRAPH_NODE_PARAMS){
		.graph = child, .ownership = CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE,
	};
	ck_assert_int_eq(cuGraphAddNode(&child_node, g, &batch, NULL, 1, &p),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphChildGraphNodeGetGraph(child_node, &embedded),
			 CUDA_SUCCESS);
	ck_assert_ptr_eq(embedded, child);
	ck_assert_int_eq(cuGraphDestroy(child), CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);

	/* Refused, with nothing added. */
	node = NULL;
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_EMPTY };
	ck_assert_int_eq(cuGraphAddNode(&node, g, &host, &edge, 1, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.reserved0[1] = 1;
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_HOST };
	p.host.fn = log_fn;
	p.reserved1[2] = 1;	/* past the host member */
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_MEM_ALLOC };
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = (CUgraphNodeParams){ .type = (CUgraphNodeType)99 };
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = memset_params(dev, 0x33);
	p.memset.elementSize = 3;
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL };
	p.extSemSignal = (CUDA_EXT_SEM_SIGNAL_NODE_PARAMS_v2){
		.extSemArray = &sem, .paramsArray = &sig, .numExtSems = 1,
	};
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_HANDLE);
	ck_assert_int_eq(cuGraphAddNode(&node, NULL, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(node);
	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 6);

	launch_once(g);
	ck_assert_int_eq(atomic_load(&log.next), 1);
	ck_assert_int_eq(log.seen[0], 7);
	ck_assert_uint_eq(vmm_bytes(dev)[0], 0x33);
	ck_assert_uint_eq(vmm_bytes(dev)[4], 0x44);
	ck_assert_uint_eq(vmm_bytes(dev)[8], 0x55);
	ck_assert_int_eq(cuEventQuery(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuEventDestroy(ev), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/*
 * Memory nodes through the builder: the allocation's address written back
 * to the caller's parameters, the free of it after it, launched; their
 * parameters do not change (NOT_SUPPORTED), as their own calls have none.
 */
START_TEST(generic_builder_memory_nodes)
{
	CUDA_MEM_ALLOC_NODE_PARAMS own = alloc_params(4096), got;
	CUgraphNodeParams p = { .type = CU_GRAPH_NODE_TYPE_MEM_ALLOC };
	CUgraphNode alloc, freed;
	cuuint64_t used = 1;
	CUdeviceptr back = 0;
	CUgraph g;

	p.alloc.poolProps = own.poolProps;
	p.alloc.bytesize = own.bytesize;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddNode(&alloc, g, NULL, NULL, 0, &p),
			 CUDA_SUCCESS);
	ck_assert_uint_ne(p.alloc.dptr, 0);
	ck_assert_int_eq(cuGraphMemAllocNodeGetParams(alloc, &got),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(got.dptr, p.alloc.dptr);
	ck_assert_uint_eq(got.bytesize, 4096);
	ck_assert_int_eq(cuGraphNodeSetParams(alloc, &p),
			 CUDA_ERROR_NOT_SUPPORTED);

	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_MEM_FREE };
	p.free.dptr = got.dptr + 64;	/* not the allocation's start */
	ck_assert_int_eq(cuGraphAddNode(&freed, g, &alloc, NULL, 1, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.free.dptr = got.dptr;
	ck_assert_int_eq(cuGraphAddNode(&freed, g, &alloc, NULL, 1, &p),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphMemFreeNodeGetParams(freed, &back),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(back, got.dptr);

	launch_once(g);
	ck_assert_int_eq(cuDeviceGetGraphMemAttribute(0,
				CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used),
			 CUDA_SUCCESS);
	ck_assert_uint_eq(used, 0);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
}
END_TEST

/*
 * cuGraphNodeSetParams changes a graph's node, cuGraphExecNodeSetParams
 * an executable's copy; refused parameters change neither.
 */
START_TEST(generic_setters_change_nodes)
{
	CUgraphNodeParams p = memset_params(0, 0x11), host = {
		.type = CU_GRAPH_NODE_TYPE_HOST,
	};
	CUgraphNode set;
	CUgraphExec exec;
	CUdeviceptr dev;
	CUgraph g;

	ck_assert_int_eq(cuMemAlloc(&dev, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, 4), CUDA_SUCCESS);
	p.memset.dst = dev;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddNode(&set, g, NULL, NULL, 0, &p),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);

	p.memset.value = 0x22;
	ck_assert_int_eq(cuGraphNodeSetParams(set, &p), CUDA_SUCCESS);
	host.host.fn = count_fn;
	ck_assert_int_eq(cuGraphNodeSetParams(set, &host),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecNodeSetParams(exec, set, &host),
			 CUDA_ERROR_INVALID_VALUE);
	p.memset.width = 0;
	ck_assert_int_eq(cuGraphNodeSetParams(set, &p),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphExecNodeSetParams(exec, set, &p),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphNodeSetParams(NULL, &p),
			 CUDA_ERROR_INVALID_VALUE);

	/* The executable still sets 0x11; a new one 0x22. */
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(dev)[0], 0x11);
	launch_once(g);
	ck_assert_uint_eq(vmm_bytes(dev)[0], 0x22);

	p.memset.width = 1;
	p.memset.value = 0x33;
	p.memset.dst = dev + 1;
	ck_assert_int_eq(cuGraphExecNodeSetParams(exec, set, &p), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_uint_eq(vmm_bytes(dev)[1], 0x33);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/* A conditional node of @type after @deps, with @size bodies. */
static CUgraphNode add_cond(CUgraph g, const CUgraphNode *deps, size_t n,
			    CUgraphConditionalHandle handle,
			    CUgraphConditionalNodeType type, unsigned int size,
			    CUgraph **bodies)
{
	CUgraphNodeParams p = { .type = CU_GRAPH_NODE_TYPE_CONDITIONAL };
	CUgraphNode node;

	p.conditional = (CUDA_CONDITIONAL_NODE_PARAMS){
		.handle = handle, .type = type, .size = size,
	};
	ck_assert_int_eq(cuGraphAddNode(&node, g, deps, NULL, n, &p),
			 CUDA_SUCCESS);
	ck_assert_ptr_nonnull(p.conditional.phGraph_out);
	*bodies = p.conditional.phGraph_out;
	return node;
}

/* A body of one 1-byte set of @dev to @value. */
static void body_sets(CUgraph body, CUdeviceptr dev, unsigned int value)
{
	CUgraphNodeParams p = memset_params(dev, value);
	CUgraphNode node;

	ck_assert_int_eq(cuGraphAddNode(&node, body, NULL, NULL, 0, &p),
			 CUDA_SUCCESS);
}

/* The calling thread's current context, which handles are made for. */
static CUcontext current_ctx(void)
{
	CUcontext ctx = NULL;

	ck_assert_int_eq(cuCtxGetCurrent(&ctx), CUDA_SUCCESS);
	return ctx;
}

/*
 * A WHILE node whose condition is 0 after a host node that counts the
 * launches: the host node runs at each launch, the body never.  A body
 * runs no host node.
 */
START_TEST(conditional_while_of_zero_never_runs)
{
	CUDA_HOST_NODE_PARAMS hp = { .fn = count_fn };
	CUgraphConditionalHandle handle;
	CUgraphNode counter, node;
	CUgraph g, *bodies;
	CUgraphExec exec;
	CUdeviceptr dev;
	atomic_int count = 0;
	int run;

	hp.userData = &count;
	ck_assert_int_eq(cuMemAlloc(&dev, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, 4), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddHostNode(&counter, g, NULL, 0, &hp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&handle, g, current_ctx(), 0,
					CU_GRAPH_COND_ASSIGN_DEFAULT),
			 CUDA_SUCCESS);
	add_cond(g, &counter, 1, handle, CU_GRAPH_COND_TYPE_WHILE, 1, &bodies);
	body_sets(bodies[0], dev, 0xee);
	/* A body takes a host node, as driver 580; instantiation does not. */
	ck_assert_int_eq(cuGraphAddHostNode(&node, bodies[0], NULL, 0, &hp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphDestroyNode(node), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(bodies[0]), CUDA_ERROR_INVALID_VALUE);

	ck_assert_int_eq(cuGraphInstantiate(&exec, g, 0), CUDA_SUCCESS);
	for (run = 0; run < 3; run++)
		ck_assert_int_eq(cuGraphLaunch(exec, NULL), CUDA_SUCCESS);
	ck_assert_int_eq(cuStreamSynchronize(NULL), CUDA_SUCCESS);
	ck_assert_int_eq(atomic_load(&count), 3);
	ck_assert_uint_eq(vmm_bytes(dev)[0], 0);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/*
 * IF runs its first body for a non-zero default, its second (else) for
 * 0; SWITCH the body of its default, none past the last; nested in a
 * body, a node takes a handle of the enclosing graph.
 */
START_TEST(conditional_if_and_switch_pick_by_default)
{
	CUgraphConditionalHandle one, zero, two, nine;
	CUgraph g, *if_one, *if_zero, *sw, *sw_none, *nested;
	CUdeviceptr dev;
	CUgraph copy;
	int i;

	ck_assert_int_eq(cuMemAlloc(&dev, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD8(dev, 0, 16), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&one, g, current_ctx(), 1,
					CU_GRAPH_COND_ASSIGN_DEFAULT),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&zero, g, current_ctx(), 0, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&two, g, current_ctx(), 2,
					CU_GRAPH_COND_ASSIGN_DEFAULT),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&nine, g, current_ctx(), 9,
					CU_GRAPH_COND_ASSIGN_DEFAULT),
			 CUDA_SUCCESS);
	ck_assert_uint_ne(one, zero);

	add_cond(g, NULL, 0, one, CU_GRAPH_COND_TYPE_IF, 2, &if_one);
	body_sets(if_one[0], dev + 0, 1);
	body_sets(if_one[1], dev + 1, 1);
	add_cond(g, NULL, 0, zero, CU_GRAPH_COND_TYPE_IF, 2, &if_zero);
	body_sets(if_zero[0], dev + 2, 1);
	body_sets(if_zero[1], dev + 3, 1);
	add_cond(g, NULL, 0, two, CU_GRAPH_COND_TYPE_SWITCH, 3, &sw);
	for (i = 0; i < 3; i++)
		body_sets(sw[i], dev + 4 + i, 1);
	add_cond(g, NULL, 0, nine, CU_GRAPH_COND_TYPE_SWITCH, 2, &sw_none);
	body_sets(sw_none[0], dev + 7, 1);
	body_sets(sw_none[1], dev + 8, 1);
	/* A conditional node in a body, on a handle of the outer graph. */
	add_cond(if_one[0], NULL, 0, one, CU_GRAPH_COND_TYPE_IF, 1, &nested);
	body_sets(nested[0], dev + 9, 1);

	/* A clone carries the bodies. */
	ck_assert_int_eq(cuGraphClone(&copy, g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	launch_once(copy);
	ck_assert_uint_eq(vmm_bytes(dev)[0], 1);
	ck_assert_uint_eq(vmm_bytes(dev)[1], 0);
	ck_assert_uint_eq(vmm_bytes(dev)[2], 0);
	ck_assert_uint_eq(vmm_bytes(dev)[3], 1);
	ck_assert_uint_eq(vmm_bytes(dev)[4], 0);
	ck_assert_uint_eq(vmm_bytes(dev)[5], 0);
	ck_assert_uint_eq(vmm_bytes(dev)[6], 1);
	ck_assert_uint_eq(vmm_bytes(dev)[7], 0);
	ck_assert_uint_eq(vmm_bytes(dev)[8], 0);
	ck_assert_uint_eq(vmm_bytes(dev)[9], 1);
	ck_assert_int_eq(cuGraphDestroy(copy), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dev), CUDA_SUCCESS);
}
END_TEST

/* What conditional handles and nodes refuse; nothing is added. */
START_TEST(conditional_refusals)
{
	CUgraphNodeParams p = { .type = CU_GRAPH_NODE_TYPE_CONDITIONAL };
	CUDA_GRAPH_INSTANTIATE_PARAMS ip = { 0 };
	CUgraphExecUpdateResultInfo info;
	CUgraphConditionalHandle handle, other, forever;
	CUgraph g, h, *bodies;
	CUgraphNode node = NULL, loop;
	CUgraphExec exec;
	size_t n;

	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(NULL, g, current_ctx(), 0, 0),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&handle, g, current_ctx(), 0, 2),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&handle, NULL, current_ctx(), 0,
							0),
			 CUDA_ERROR_INVALID_VALUE);
	/* No current-context fallback, as driver 580 answers. */
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&handle, g, NULL, 0, 0),
			 CUDA_ERROR_INVALID_CONTEXT);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&handle, g, current_ctx(), 0, 0),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&other, h, current_ctx(), 0, 0),
			 CUDA_SUCCESS);

	p.conditional = (CUDA_CONDITIONAL_NODE_PARAMS){
		.handle = other, .type = CU_GRAPH_COND_TYPE_IF, .size = 1,
	};
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.conditional.handle = handle;
	p.conditional.size = 3;
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.conditional.type = CU_GRAPH_COND_TYPE_WHILE;
	p.conditional.size = 2;
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.conditional.type = CU_GRAPH_COND_TYPE_SWITCH;
	p.conditional.size = 0;
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	p.conditional.type = (CUgraphConditionalNodeType)7;
	p.conditional.size = 1;
	ck_assert_int_eq(cuGraphAddNode(&node, g, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_ptr_null(node);
	ck_assert_ptr_null(p.conditional.phGraph_out);
	ck_assert_int_eq(cuGraphGetNodes(g, NULL, &n), CUDA_SUCCESS);
	ck_assert_uint_eq(n, 0);

	/* Its parameters do not change. */
	node = add_cond(g, NULL, 0, handle, CU_GRAPH_COND_TYPE_IF, 1, &bodies);
	p.conditional.type = CU_GRAPH_COND_TYPE_IF;
	ck_assert_int_eq(cuGraphNodeSetParams(node, &p),
			 CUDA_ERROR_NOT_SUPPORTED);

	/* A child graph holds no conditional node. */
	p = (CUgraphNodeParams){ .type = CU_GRAPH_NODE_TYPE_GRAPH };
	p.graph.graph = g;
	ck_assert_int_eq(cuGraphAddNode(&node, h, NULL, NULL, 0, &p),
			 CUDA_ERROR_INVALID_VALUE);

	/* A WHILE whose condition starts non-zero would never end. */
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&forever, g, current_ctx(), 1,
					CU_GRAPH_COND_ASSIGN_DEFAULT),
			 CUDA_SUCCESS);
	loop = add_cond(g, NULL, 0, forever, CU_GRAPH_COND_TYPE_WHILE, 1,
			&bodies);
	ck_assert_int_eq(cuGraphInstantiateWithParams(&exec, g, &ip),
			 CUDA_ERROR_NOT_SUPPORTED);
	ck_assert_int_eq(ip.result_out,
			 CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED);
	ck_assert_ptr_eq(ip.hErrNode_out, loop);

	/* Nor can an update bring one in. */
	ck_assert_int_eq(cuGraphDestroy(h), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphCreate(&h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphConditionalHandleCreate(&other, h, current_ctx(), 0, 0),
			 CUDA_SUCCESS);
	add_cond(h, NULL, 0, other, CU_GRAPH_COND_TYPE_IF, 1, &bodies);
	add_cond(h, NULL, 0, other, CU_GRAPH_COND_TYPE_WHILE, 1, &bodies);
	ck_assert_int_eq(cuGraphInstantiate(&exec, h, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphExecUpdate(exec, g, &info),
			 CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
	ck_assert_int_eq(info.result, CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED);
	ck_assert_ptr_eq(info.errorNode, loop);
	ck_assert_int_eq(cuGraphExecDestroy(exec), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(h), CUDA_SUCCESS);
}
END_TEST

/*
 * Kernel node attributes are kept, read back, copied and cloned;
 * COOPERATIVE launches vecAdd cooperatively.
 */
START_TEST(kernel_node_attributes_kept)
{
	enum { N = 64 };
	CUDA_KERNEL_NODE_PARAMS kp = {
		.gridDimX = 1, .gridDimY = 1, .gridDimZ = 1,
		.blockDimX = N, .blockDimY = 1, .blockDimZ = 1,
	};
	CUkernelNodeAttrValue v = { 0 }, got;
	CUgraphNode k1, k2, empty, found;
	CUdeviceptr da, db, dc;
	CUgraph g, copy;
	CUfunction f;
	CUmodule mod;
	float c[N];
	int n = N, i;
	void *args[] = { &da, &db, &dc, &n };

	ck_assert_int_eq(cuModuleLoad(&mod, DATA "/vecadd.ptx"), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleGetFunction(&f, mod, "vecAdd"), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&da, sizeof(c)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&db, sizeof(c)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemAlloc(&dc, sizeof(c)), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(da, 0x3f800000, N), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemsetD32(db, 0x40000000, N), CUDA_SUCCESS);
	kp.func = f;
	kp.kernelParams = args;
	ck_assert_int_eq(cuGraphCreate(&g, 0), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddKernelNode(&k1, g, NULL, 0, &kp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddKernelNode(&k2, g, &k1, 1, &kp),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphAddEmptyNode(&empty, g, NULL, 0), CUDA_SUCCESS);

	ck_assert_int_eq(cuGraphKernelNodeGetAttribute(k1,
				CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &got),
			 CUDA_SUCCESS);
	ck_assert_int_eq(got.priority, 0);
	v.priority = -3;
	ck_assert_int_eq(cuGraphKernelNodeSetAttribute(k1,
				CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &v),
			 CUDA_SUCCESS);
	v.cooperative = 1;
	ck_assert_int_eq(cuGraphKernelNodeSetAttribute(k1,
				CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &v),
			 CUDA_SUCCESS);
	memset(&v, 0, sizeof(v));
	v.accessPolicyWindow.hitRatio = 2.0f;
	ck_assert_int_eq(cuGraphKernelNodeSetAttribute(k1,
				CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW,
				&v),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphKernelNodeSetAttribute(k1,
			CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
			&v),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphKernelNodeGetAttribute(empty,
				CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &got),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphKernelNodeGetAttribute(k1,
				CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, NULL),
			 CUDA_ERROR_INVALID_VALUE);
	memset(&v, 0, sizeof(v));
	v.deviceUpdatableKernelNode.deviceUpdatable = 1;
	ck_assert_int_eq(cuGraphKernelNodeSetAttribute(k1,
			CU_KERNEL_NODE_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE,
			&v),
			 CUDA_ERROR_NOT_SUPPORTED);

	ck_assert_int_eq(cuGraphKernelNodeCopyAttributes(k2, k1), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphKernelNodeCopyAttributes(empty, k1),
			 CUDA_ERROR_INVALID_VALUE);
	ck_assert_int_eq(cuGraphKernelNodeGetAttribute(k2,
				CU_KERNEL_NODE_ATTRIBUTE_PRIORITY, &got),
			 CUDA_SUCCESS);
	ck_assert_int_eq(got.priority, -3);
	/* New parameters leave the attributes. */
	ck_assert_int_eq(cuGraphKernelNodeSetParams(k2, &kp), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphClone(&copy, g), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphNodeFindInClone(&found, k2, copy),
			 CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphKernelNodeGetAttribute(found,
				CU_KERNEL_NODE_ATTRIBUTE_COOPERATIVE, &got),
			 CUDA_SUCCESS);
	ck_assert_int_eq(got.cooperative, 1);

	launch_once(copy);
	ck_assert_int_eq(cuMemcpyDtoH(c, dc, sizeof(c)), CUDA_SUCCESS);
	for (i = 0; i < N; i++)
		ck_assert_float_eq(c[i], 3.0f);
	ck_assert_int_eq(cuGraphDestroy(copy), CUDA_SUCCESS);
	ck_assert_int_eq(cuGraphDestroy(g), CUDA_SUCCESS);
	ck_assert_int_eq(cuModuleUnload(mod), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(da), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(db), CUDA_SUCCESS);
	ck_assert_int_eq(cuMemFree(dc), CUDA_SUCCESS);
}
END_TEST

static Suite *graph_suite(void)
{
	Suite *s = suite_create("graph");
	TCase *build = tcase_create("build and launch");
	TCase *capture = tcase_create("stream capture");

	check_add_uninit(s, graph_calls_need_init);
	tcase_add_checked_fixture(build, setup, NULL);
	tcase_add_test(build, host_nodes_run_after_their_dependencies);
	tcase_add_test(build, edges_added_and_removed_with_checks);
	tcase_add_test(build, garbage_and_destroyed_handles_refused);
	tcase_add_test(build, memset_and_memcpy_nodes_move_bytes);
	tcase_add_test(build, memcpy_nodes_copy_arrays_and_read_the_host_at_launch);
	tcase_add_test(build, kernel_node_runs_ptx);
	tcase_add_test(build, child_graphs_and_clones);
	tcase_add_test(build, event_nodes_order_two_streams);
	tcase_add_test(build, instantiate_forms_and_flags);
	tcase_add_test(build, executable_nodes_take_new_parameters);
	tcase_add_test(build, executable_updated_from_a_graph_of_its_shape);
	tcase_add_test(build, batch_mem_op_nodes_write_at_launch);
	tcase_add_test(build, dot_print_shows_nodes_and_edges);
	tcase_add_test(build, user_objects_live_as_long_as_their_holders);
	tcase_add_test(build, memory_nodes_allocate_and_free_in_the_graph);
	tcase_add_test(build, unfreed_graph_memory_outlives_its_launch);
	tcase_add_test(build, memory_node_parameters_checked);
	tcase_add_test(build, memory_node_grants_peer_access);
	tcase_add_test(build, semaphore_nodes_refused);
	tcase_add_test(build, generic_builder_adds_each_type);
	tcase_add_test(build, generic_builder_memory_nodes);
	tcase_add_test(build, generic_setters_change_nodes);
	tcase_add_test(build, conditional_while_of_zero_never_runs);
	tcase_add_test(build, conditional_if_and_switch_pick_by_default);
	tcase_add_test(build, conditional_refusals);
	tcase_add_test(build, kernel_node_attributes_kept);
	suite_add_tcase(s, build);
	tcase_add_checked_fixture(capture, setup, NULL);
	tcase_add_test(capture, capture_makes_nodes_that_run_at_launch);
	tcase_add_test(capture, capture_forks_and_joins_through_events);
	tcase_add_test(capture, capture_into_a_graph_with_dependencies_changed);
	tcase_add_test(capture, capture_refuses_what_cannot_be_captured);
	tcase_add_test(capture, captured_copies_read_the_host_at_launch);
	tcase_add_test(capture, captured_kernel_reads_back_its_launch);
	tcase_add_test(capture, capture_modes_refuse_unsafe_calls);
	tcase_add_test(capture, capture_makes_memory_nodes);
	suite_add_tcase(s, capture);
	return s;
}

int main(void)
{
	return check_run_forked(graph_suite());
}
