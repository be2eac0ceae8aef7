/* SPDX-License-Identifier: MIT */
/*
 * Streams as host work queues (stream.c), for the entry points that put
 * work on a stream: copies and sets (copy.c), events (event.c), stream
 * memory operations (stream_memop.c), host functions, kernels (launch.c)
 * and stream-ordered frees (mempool_alloc.c).  The library reaches
 * streams only through these functions, never through the cuStream*
 * entry points.
 *
 * Each stream runs its work items in order on a worker thread of its own,
 * started with the first item.  An item may depend on items of other
 * streams, named by (stream, ticket): the ticket of an item is its number
 * in its stream's order, counting from 1, and the stream has completed
 * ticket T once its first T items have run.  The legacy default stream's
 * implicit synchronization with blocking streams is such dependencies,
 * added when an item is submitted; so is cuStreamWaitEvent.
 */
#ifndef _CUMC_LIB_STREAM_H
#define _CUMC_LIB_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

struct libcumc_stream;
struct libcumc_graph;
struct libcumc_graph_node;

/* A dependency: @stream must have completed @ticket. */
struct libcumc_dep {
	struct libcumc_stream *stream;	/* holds a reference */
	uint64_t ticket;
};

/*
 * One item of a stream's work.  Callers allocate it with
 * libcumc_work_alloc() inside a larger structure of their own (the work
 * first) and hand it to libcumc_stream_submit(), which owns it from then
 * on: the worker frees it once it has run, after calling @fini.
 */
/* What a stream capture makes of an item (stream.c). */
enum libcumc_capture_as {
	CUMC_CAPTURE_UNSUPPORTED = 0,	/* nothing: the capture fails */
	CUMC_CAPTURE_NODE,		/* a node of its node_type */
	CUMC_CAPTURE_MARKER,		/* an event record: a point to wait for */
	CUMC_CAPTURE_JOIN,		/* a wait: its dependencies join */
};

/* A node's parameters, by its type, as a captured item tells them. */
union libcumc_node_params {
	CUDA_HOST_NODE_PARAMS host;
	CUDA_MEMSET_NODE_PARAMS memset;
	CUDA_MEMCPY3D memcpy;
	CUDA_KERNEL_NODE_PARAMS kernel;
};

struct libcumc_work {
	struct libcumc_work *next;
	enum libcumc_capture_as capture_as;
	/*
	 * A wait for an event (CUMC_CAPTURE_JOIN): with no dependencies left,
	 * the event was recorded outside any capture, which a capture refuses.
	 */
	bool waits_event;
	CUgraphNodeType node_type;
	/*
	 * The parameters of the node a capture makes of the item (of
	 * node_type), or NULL when they cannot be told: the node then runs
	 * the item again.  A memset or memcpy node described holds them as
	 * cuGraphAddMemsetNode's and cuGraphAddMemcpyNode's do and lets the
	 * item go; a host or kernel node keeps running the item, the
	 * parameters there to be read (a kernel's arguments are the item's).
	 */
	void (*describe)(const struct libcumc_work *work,
			 union libcumc_node_params *params);
	/*
	 * Makes the node a capture makes of the item itself, instead of
	 * describe's way (graph_mem.c's allocations and frees: nodes of
	 * their own parameters, which let the item go), the graphs' lock
	 * held.  NULL: describe's way.
	 */
	CUresult (*capture_node)(struct libcumc_work *work,
				 struct libcumc_graph *graph,
				 struct libcumc_graph_node *const *deps,
				 size_t num_deps,
				 struct libcumc_graph_node **node);
	/* Runs on the worker; an error is latched on the stream. NULL: none. */
	CUresult (*run)(struct libcumc_work *work);
	/*
	 * Releases what the item holds, once it has run or failed to be
	 * submitted; never with the streams' lock held.
	 */
	void (*fini)(struct libcumc_work *work);
	struct libcumc_dep *deps;
	unsigned int num_deps;
	unsigned int max_deps;
};

/* A zeroed item of @size bytes (>= sizeof(struct libcumc_work)), or NULL. */
struct libcumc_work *libcumc_work_alloc(size_t size,
					CUresult (*run)(struct libcumc_work *));
/* Frees an item never submitted, after calling its fini. */
void libcumc_work_free(struct libcumc_work *work);
/*
 * Whether @ticket of @stream has completed: CUDA_SUCCESS or
 * CUDA_ERROR_NOT_READY; CUDA_ERROR_CAPTURED_EVENT for a point of a capture
 * still running, which that invalidates, as NVIDIA's driver does.
 */
CUresult libcumc_ticket_status(struct libcumc_stream *stream, uint64_t ticket);
/* Makes @work wait for @ticket of @stream (a reference is taken). */
CUresult libcumc_work_add_dep(struct libcumc_work *work,
			      struct libcumc_stream *stream, uint64_t ticket);

/*
 * The stream a caller names, with a reference: NULL is the legacy default
 * stream of the current context, or the calling thread's per-thread
 * default stream when @ptds (the _ptds/_ptsz entry points);
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD name those explicitly.
 * Implicit streams are created on first use.  CUDA_ERROR_INVALID_HANDLE
 * for anything else that is not a live stream; for the implicit ones
 * CUDA_ERROR_INVALID_CONTEXT (no current context) or
 * CUDA_ERROR_CONTEXT_IS_DESTROYED.
 */
CUresult libcumc_stream_get(CUstream handle, bool ptds,
			    struct libcumc_stream **stream);
/*
 * libcumc_stream_get() for the entry points that answer
 * CUDA_ERROR_NOT_INITIALIZED before cuInit whatever stream they name.
 */
CUresult libcumc_stream_get_initialized(CUstream handle, bool ptds,
					struct libcumc_stream **stream);
void libcumc_stream_put(struct libcumc_stream *stream);
void libcumc_stream_ref(struct libcumc_stream *stream);

/*
 * Queues @work on @stream after the implicit dependencies of the legacy
 * stream; *@ticket (may be NULL) tells its ticket.  @work is consumed,
 * also on failure.
 */
CUresult libcumc_stream_submit(struct libcumc_stream *stream,
			       struct libcumc_work *work, uint64_t *ticket);

/* Whether @stream has completed @ticket; waiting until it has. */
bool libcumc_stream_done(struct libcumc_stream *stream, uint64_t ticket);
void libcumc_stream_wait(struct libcumc_stream *stream, uint64_t ticket);

/*
 * Waits until everything submitted to @stream so far has run, and for the
 * legacy stream also the work of every blocking stream of its context
 * submitted so far; answers the stream's latched error.
 */
CUresult libcumc_stream_sync(struct libcumc_stream *stream);

/*
 * A synchronous operation ordered as work of the default stream (legacy,
 * or per-thread when @ptds): waits for what that stream's next item would
 * wait for, then runs @op(@arg) on the calling thread.
 */
CUresult libcumc_stream_run_sync(bool ptds, CUresult (*op)(void *arg),
				 void *arg);

/* The context and device of @stream, its latched error. */
CUcontext libcumc_stream_ctx(const struct libcumc_stream *stream);
CUdevice libcumc_stream_dev(const struct libcumc_stream *stream);
CUresult libcumc_stream_error(struct libcumc_stream *stream);

/*
 * What cuStreamQuery answers: CUDA_ERROR_NOT_READY while work it would
 * wait for runs, else the stream's latched error.
 */
CUresult libcumc_stream_query(struct libcumc_stream *stream);

/*
 * Stream capture (stream.c; Documentation/api.md, "Graphs and stream
 * capture").  Begin: @stream captures from now on into @graph, after its
 * nodes @deps, or when @graph is NULL into a new graph
 * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED for the legacy stream,
 * CUDA_ERROR_ILLEGAL_STATE when it captures already,
 * CUDA_ERROR_INVALID_VALUE for a graph not live, capturing already or a
 * child node's, or dependencies not its nodes).  End: the graph (graph.h)
 * @stream began, which the caller gets, registered; the capture ends for
 * every stream in it, also on failure: CUDA_ERROR_ILLEGAL_STATE (not
 * capturing), CUDA_ERROR_STREAM_CAPTURE_UNMATCHED (another stream began
 * it) or CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD (another thread began it,
 * not RELAXED): it is invalidated; CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
 * CUDA_ERROR_STREAM_CAPTURE_UNJOINED (a stream forked from it has work
 * not joined back).  Update: the nodes @stream's next item depends on
 * become @deps (@set) or gain them; CUDA_ERROR_ILLEGAL_STATE,
 * CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, CUDA_ERROR_INVALID_VALUE (not
 * nodes of the capture's graph).
 */
CUresult libcumc_capture_begin(struct libcumc_stream *stream,
			       CUstreamCaptureMode mode, CUgraph graph,
			       const CUgraphNode *deps, size_t num_deps);
CUresult libcumc_capture_end(struct libcumc_stream *stream,
			     struct libcumc_graph **graph);
CUresult libcumc_capture_update(struct libcumc_stream *stream,
				const CUgraphNode *deps, size_t num_deps,
				bool set);

/*
 * Where @stream stands: status NONE when it does not capture; the
 * legacy stream answers CUDA_ERROR_STREAM_CAPTURE_IMPLICIT while a
 * blocking stream of its context captures.  deps and edges stay valid
 * until the stream's next captured item.
 */
struct libcumc_capture_info {
	CUstreamCaptureStatus status;
	unsigned long long id;
	struct libcumc_graph *graph;
	struct libcumc_graph_node *const *deps;
	const CUgraphEdgeData *edges;
	size_t num_deps;
};
CUresult libcumc_capture_info(struct libcumc_stream *stream,
			      struct libcumc_capture_info *info);

/*
 * The calling thread's capture mode becomes @mode; the one it had is
 * returned (cuThreadExchangeStreamCaptureMode).
 */
CUstreamCaptureMode libcumc_capture_mode_exchange(CUstreamCaptureMode mode);
/*
 * What a potentially unsafe call answers first (cuMemAlloc, cuMemFree,
 * cuCtxSynchronize, cuEventSynchronize: see "Graphs and stream capture"
 * in Documentation/api.md):
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED while a capture the calling
 * thread's mode heeds is under way, which that invalidates; else
 * CUDA_SUCCESS.
 */
CUresult libcumc_capture_unsafe_check(void);

/* Queues @fn(@user_data) on @stream, as cuLaunchHostFunc does. */
CUresult libcumc_stream_host_fn(struct libcumc_stream *stream, CUhostFn fn,
				void *user_data);

/*
 * A stream of @ctx as cuStreamCreateWithPriority makes one for the
 * current context (cuGreenCtxStreamCreate's, of a context not current).
 */
CUresult libcumc_stream_create_in(CUcontext ctx, CUdevice dev,
				  unsigned int flags, int priority,
				  CUstream *phStream);
/* The legacy default stream of the live context @ctx, with a reference. */
CUresult libcumc_stream_legacy_of(CUcontext ctx,
				  struct libcumc_stream **stream);
/*
 * Queues on @stream an item that waits for everything submitted so far
 * to every other stream of its context, non-blocking ones included.
 */
CUresult libcumc_stream_join_ctx(struct libcumc_stream *stream);
/*
 * The live streams of @ctx, each with a reference; *@list (NULL when
 * there are none) is the caller's to free.
 */
CUresult libcumc_streams_of_ctx(CUcontext ctx, struct libcumc_stream ***list,
				size_t *count);

/* cuCtxSynchronize: waits for every stream of @ctx; the first error. */
CUresult libcumc_streams_sync_ctx(CUcontext ctx);
/* @ctx was destroyed: its streams are, their work still completes. */
void libcumc_streams_ctx_gone(CUcontext ctx);
/* Streams of contexts no longer live are destroyed (primary release). */
void libcumc_streams_reap(void);

/*
 * Whether [addr, addr + len) is mapped throughout with @need access, or
 * is host memory CUDA knows of, or lies in a variable of a loaded module
 * (copy.c); *@multicast as below.
 */
CUresult libcumc_span_check(const struct libcumc_driver *drv,
			    CUdeviceptr addr, size_t len,
			    enum cumc_access need, bool *multicast);

/*
 * A CU_MEMORYTYPE_UNIFIED address of a copy (copy.c): *@device when it is
 * in one of this client's reservations (mapped or not: the copy's checks
 * say) or in a module's variable; any other address is host memory.
 */
CUresult libcumc_unified_is_device(const struct libcumc_driver *drv,
				   CUdeviceptr addr, bool *device);

/* What a copy or a set writes (copy.c). */
struct libcumc_store {
	const void *src;	/* the bytes to copy, or NULL for a pattern */
	__u32 pattern;		/* repeated every elem_size bytes */
	unsigned int elem_size;	/* 1, 2 or 4 */
};

/* @len bytes of @what at @dst, memory the CPU may write as it is. */
void libcumc_store_plain(void *dst, size_t len, const struct libcumc_store *what);

/*
 * @len bytes of @what at the device range @dst, checked first as
 * libcumc_span_check does; a multicast range is written in every member.
 */
CUresult libcumc_store_device(const struct libcumc_driver *drv,
			      CUdeviceptr dst, size_t len,
			      const struct libcumc_store *what);

/*
 * Whether a stream memory operation may target the naturally aligned
 * word [addr, addr + size) (stream_memop.c): mapped device memory with
 * read access (a wait) or read-write access (@write), or host memory
 * CUDA knows of (host_mem.h), writable for a write.  Multicast
 * addresses take writes only; *@multicast tells whether it is one.
 * CUDA_ERROR_INVALID_VALUE otherwise.
 */
CUresult libcumc_memop_target_check(const struct libcumc_driver *drv,
				    CUdeviceptr addr, unsigned int size,
				    bool write, bool *multicast);

/*
 * Queue a set of @count elements of @elem_size bytes on @stream, as
 * cuMemsetD*Async does (copy.c).
 */
CUresult libcumc_set_on(struct libcumc_stream *stream, CUdeviceptr dst,
			__u32 pattern, unsigned int elem_size, size_t count);

/*
 * What a memcpy node's parameters must be (copy3d.c): cuMemcpy3D's
 * checks, device memory aside (it may be mapped later); and the node's
 * copy queued on @stream, as cuMemcpy3DAsync queues one but reading a
 * host source only when the item runs.
 */
CUresult libcumc_copy3d_params_check(const CUDA_MEMCPY3D *p);
CUresult libcumc_copy3d_on(struct libcumc_stream *stream,
			   const CUDA_MEMCPY3D *p);

/*
 * Whether cuStreamBatchMemOp would take these operations, and queue them
 * on @stream as it does (stream_memop.c).
 */
CUresult libcumc_batch_check(unsigned int count,
			     const CUstreamBatchMemOpParams *paramArray,
			     unsigned int flags);
CUresult libcumc_batch_on(struct libcumc_stream *stream, unsigned int count,
			  const CUstreamBatchMemOpParams *paramArray,
			  unsigned int flags);

/*
 * Whether @v is a value the launch attribute @attr takes on a stream, or
 * a kernel node (stream.c): the L2 window and the memory domains checked.
 */
bool libcumc_stream_attr_valid(CUstreamAttrID attr,
			       const CUstreamAttrValue *v);

/* Record @event on @stream, make @stream wait for @event (event.c). */
CUresult libcumc_event_record_on(struct libcumc_stream *stream,
				 CUevent event);
CUresult libcumc_event_wait_on(struct libcumc_stream *stream, CUevent event);
/* Whether @event names a live event (event.c). */
bool libcumc_event_live(CUevent event);
/* The context @event was created in; CUDA_ERROR_INVALID_HANDLE. */
CUresult libcumc_event_ctx(CUevent event, CUcontext *ctx);

/* The _ptds/_ptsz entry points, which no cuda.h declares by that name. */
CUresult CUDAAPI cuStreamGetPriority_ptsz(CUstream hStream, int *priority);
CUresult CUDAAPI cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags);
CUresult CUDAAPI cuStreamIsCapturing_ptsz(CUstream hStream,
					  CUstreamCaptureStatus *captureStatus);
CUresult CUDAAPI cuStreamGetId_ptsz(CUstream hStream,
				    unsigned long long *streamId);
CUresult CUDAAPI cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device);
CUresult CUDAAPI cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx);
CUresult CUDAAPI cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx,
					CUgreenCtx *pGreenCtx);
CUresult CUDAAPI cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent,
					unsigned int Flags);
CUresult CUDAAPI cuStreamAddCallback_ptsz(CUstream hStream,
					  CUstreamCallback callback,
					  void *userData, unsigned int flags);
CUresult CUDAAPI cuStreamQuery_ptsz(CUstream hStream);
CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream hStream);
CUresult CUDAAPI cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn,
				       void *userData);
CUresult CUDAAPI cuStreamAttachMemAsync_ptsz(CUstream hStream,
					     CUdeviceptr dptr, size_t length,
					     unsigned int flags);
CUresult CUDAAPI cuStreamGetAttribute_ptsz(CUstream hStream,
					   CUstreamAttrID attr,
					   CUstreamAttrValue *value_out);
CUresult CUDAAPI cuStreamSetAttribute_ptsz(CUstream hStream,
					   CUstreamAttrID attr,
					   const CUstreamAttrValue *value);
CUresult CUDAAPI cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src);
CUresult CUDAAPI cuMemBatchDecompressAsync_ptsz(
	CUmemDecompressParams *paramsArray, size_t count, unsigned int flags,
	size_t *errorIndex, CUstream stream);

CUresult CUDAAPI cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice,
				      const void *srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice,
				      size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice,
				      CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc,
				    size_t N);
CUresult CUDAAPI cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us,
				     size_t N);
CUresult CUDAAPI cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui,
				     size_t N);
CUresult CUDAAPI cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src,
			       size_t ByteCount);
CUresult CUDAAPI cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src,
				    size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice,
					   const void *srcHost,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoHAsync_v2_ptsz(void *dstHost,
					   CUdeviceptr srcDevice,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice,
					   CUdeviceptr srcDevice,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc,
				      size_t N, CUstream hStream);
CUresult CUDAAPI cuMemsetD16Async_ptsz(CUdeviceptr dstDevice,
				       unsigned short us, size_t N,
				       CUstream hStream);
CUresult CUDAAPI cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui,
				       size_t N, CUstream hStream);

CUresult CUDAAPI cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
CUresult CUDAAPI cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream,
					     unsigned int flags);

CUresult CUDAAPI cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr,
					     cuuint32_t value,
					     unsigned int flags);
CUresult CUDAAPI cuStreamWaitValue64_v2_ptsz(CUstream stream, CUdeviceptr addr,
					     cuuint64_t value,
					     unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue32_v2_ptsz(CUstream stream,
					      CUdeviceptr addr,
					      cuuint32_t value,
					      unsigned int flags);
CUresult CUDAAPI cuStreamWriteValue64_v2_ptsz(CUstream stream,
					      CUdeviceptr addr,
					      cuuint64_t value,
					      unsigned int flags);
CUresult CUDAAPI cuStreamBatchMemOp_v2_ptsz(CUstream stream,
					    unsigned int count,
					    CUstreamBatchMemOpParams *paramArray,
					    unsigned int flags);

/* The same, of the row copies and 2D sets (copy3d.c). */
CUresult CUDAAPI cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *pCopy);
CUresult CUDAAPI cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *pCopy);
CUresult CUDAAPI cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *pCopy);
CUresult CUDAAPI cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *pCopy);
CUresult CUDAAPI cuMemcpyPeer_ptds(CUdeviceptr dstDevice, CUcontext dstContext,
				   CUdeviceptr srcDevice, CUcontext srcContext,
				   size_t ByteCount);
CUresult CUDAAPI cuMemcpyPeerAsync_ptsz(CUdeviceptr dstDevice,
					CUcontext dstContext,
					CUdeviceptr srcDevice,
					CUcontext srcContext, size_t ByteCount,
					CUstream hStream);
CUresult CUDAAPI cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *pCopy,
					 CUstream hStream);
CUresult CUDAAPI cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *pCopy,
					 CUstream hStream);
CUresult CUDAAPI cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *pCopy,
					  CUstream hStream);
CUresult CUDAAPI cuMemcpyAtoH_v2_ptds(void *dstHost, CUarray srcArray,
				      size_t srcOffset, size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset,
				      const void *srcHost, size_t ByteCount);
CUresult CUDAAPI cuMemcpyAtoD_v2_ptds(CUdeviceptr dstDevice, CUarray srcArray,
				      size_t srcOffset, size_t ByteCount);
CUresult CUDAAPI cuMemcpyDtoA_v2_ptds(CUarray dstArray, size_t dstOffset,
				      CUdeviceptr srcDevice, size_t ByteCount);
CUresult CUDAAPI cuMemcpyAtoA_v2_ptds(CUarray dstArray, size_t dstOffset,
				      CUarray srcArray, size_t srcOffset,
				      size_t ByteCount);
CUresult CUDAAPI cuMemcpyHtoAAsync_v2_ptsz(CUarray dstArray, size_t dstOffset,
					   const void *srcHost,
					   size_t ByteCount, CUstream hStream);
CUresult CUDAAPI cuMemcpyAtoHAsync_v2_ptsz(void *dstHost, CUarray srcArray,
					   size_t srcOffset, size_t ByteCount,
					   CUstream hStream);
CUresult CUDAAPI cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch,
				      unsigned char uc, size_t Width,
				      size_t Height);
CUresult CUDAAPI cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch,
				       unsigned short us, size_t Width,
				       size_t Height);
CUresult CUDAAPI cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch,
				       unsigned int ui, size_t Width,
				       size_t Height);
CUresult CUDAAPI cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch,
					unsigned char uc, size_t Width,
					size_t Height, CUstream hStream);
CUresult CUDAAPI cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice,
					 size_t dstPitch, unsigned short us,
					 size_t Width, size_t Height,
					 CUstream hStream);
CUresult CUDAAPI cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice,
					 size_t dstPitch, unsigned int ui,
					 size_t Width, size_t Height,
					 CUstream hStream);
CUresult CUDAAPI cuGraphicsMapResources_ptsz(unsigned int count,
					     CUgraphicsResource *resources,
					     CUstream hStream);
CUresult CUDAAPI cuGraphicsUnmapResources_ptsz(unsigned int count,
					       CUgraphicsResource *resources,
					       CUstream hStream);
CUresult CUDAAPI cuSignalExternalSemaphoresAsync_ptsz(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream);
CUresult CUDAAPI cuWaitExternalSemaphoresAsync_ptsz(
		const CUexternalSemaphore *extSemArray,
		const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray,
		unsigned int numExtSems, CUstream stream);
CUresult CUDAAPI cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *dsts, CUdeviceptr *srcs,
					    size_t *sizes, size_t count,
					    CUmemcpyAttributes *attrs,
					    size_t *attrsIdxs, size_t numAttrs,
					    CUstream hStream);
CUresult CUDAAPI cuMemcpy3DBatchAsync_v2_ptsz(size_t numOps,
					      CUDA_MEMCPY3D_BATCH_OP *opList,
					      unsigned long long flags,
					      CUstream hStream);
CUresult CUDAAPI cuMemMapArrayAsync_ptsz(CUarrayMapInfo *mapInfoList,
					 unsigned int count, CUstream hStream);

#endif /* _CUMC_LIB_STREAM_H */
