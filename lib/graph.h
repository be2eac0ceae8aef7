/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs: their definition (graph_core.c), the entry points that
 * build and query them (graph.c; the generic builder in graph_params.c,
 * conditional nodes in graph_cond.c, kernel node attributes in
 * graph_attr.c), instantiation and launch (graph_exec.c), graph memory
 * (graph_mem.c), and stream capture (stream.c, whose captured items
 * become nodes through
 * libcumc_graph_add_captured()).
 *
 * A CUgraph is a pointer to a struct libcumc_graph, a CUgraphNode one to
 * a node, a CUuserObject one to a user object; each is looked up in the
 * registry before it is used, so garbage and destroyed handles answer
 * CUDA_ERROR_INVALID_VALUE rather than crash.  One lock guards every
 * graph, node and user object; stream.c calls in here with the streams'
 * lock held, so nothing in here takes that lock.
 */
#ifndef _CUMC_LIB_GRAPH_H
#define _CUMC_LIB_GRAPH_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "stream.h"

struct libcumc_graph;

/*
 * A captured stream item (stream.h): run again at each launch of a graph
 * that holds it, by the graphs and executables that share it; its fini is
 * called with the last reference.
 */
struct libcumc_captured {
	atomic_uint refs;
	struct libcumc_work *work;
};

/* A kernel node's launch, its arguments copied. */
struct libcumc_kernel_node {
	CUDA_KERNEL_NODE_PARAMS params;	/* kernelParams: args, extra: NULL */
	unsigned char *arg_buf;
	size_t arg_size;
	void **args;
	unsigned int num_args;
};

/* A user object: its destructor runs when its count drops to 0. */
struct libcumc_user_object {
	struct libcumc_user_object *next;	/* in the registry */
	unsigned int count;
	void *ptr;
	CUhostFn destroy;
};

/* References a graph holds on a user object. */
struct libcumc_graph_ref {
	struct libcumc_user_object *obj;
	unsigned int count;
};

/*
 * A conditional node: its bodies, graphs of its own (CUgraph handles to
 * registered, embedded graphs), and its condition's value.  Device code
 * never sets a condition in cumc, so the value is the handle's default
 * at every launch.
 */
struct libcumc_cond_node {
	CUgraphConditionalHandle handle;
	CUgraphConditionalNodeType type;
	unsigned int size;
	unsigned int value;
	CUcontext ctx;
	CUgraph *bodies;		/* size of them, owned */
};

/* A conditional handle of a graph (cuGraphConditionalHandleCreate). */
struct libcumc_cond_handle {
	CUgraphConditionalHandle id;
	CUcontext ctx;
	unsigned int value;		/* the default */
	unsigned int flags;
};

/* The kernel node attributes are indexed by their CUlaunchAttributeID. */
#define CUMC_KERNEL_NODE_ATTRS \
	(CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT + 1)

/*
 * An allocation or free node's part: the graph allocation it names
 * (graph_mem.c), which it holds a reference on.  The node's copies and
 * its end reach graph_mem.c through @ops, so that graph_core.c, which
 * graph_mem.c calls, calls nothing there.
 */
struct libcumc_graph_alloc;
struct libcumc_mem_node_ops {
	void (*copied)(struct libcumc_graph_node *copy);	/* lock held */
	void (*destroyed)(struct libcumc_graph_node *node);	/* lock held */
};
struct libcumc_mem_node {
	struct libcumc_graph_alloc *alloc;
	const struct libcumc_mem_node_ops *ops;
};

struct libcumc_graph_node {
	struct libcumc_graph_node *next;	/* in its graph's order of adding */
	struct libcumc_graph *graph;
	CUgraphNodeType type;
	/* The node it was cloned from (cuGraphNodeFindInClone), not held. */
	struct libcumc_graph_node *origin;
	struct libcumc_graph_node **deps;	/* its incoming edges */
	size_t num_deps;
	size_t max_deps;
	bool disabled;				/* in an executable only */
	size_t mark;				/* scratch, lock held */
	union libcumc_node_data {
		CUDA_HOST_NODE_PARAMS host;
		struct {
			CUDA_MEMSET_NODE_PARAMS params;
			CUcontext ctx;
		} memset;
		struct {
			CUDA_MEMCPY3D params;
			CUcontext ctx;
		} memcpy;
		struct libcumc_kernel_node kernel;
		/* paramArray: the node's own copy */
		CUDA_BATCH_MEM_OP_NODE_PARAMS batch;
		CUevent event;
		struct libcumc_graph *child;	/* owned: a clone */
		struct libcumc_cond_node cond;
		struct libcumc_mem_node mem;
	} u;
	/* A kernel node's attributes (graph_attr.c), all zero at first. */
	CUlaunchAttributeValue kernel_attrs[CUMC_KERNEL_NODE_ATTRS];
	/*
	 * Made by a stream capture from an item that cannot be a node of its
	 * own parameters: it runs @captured, whatever its type; u holds its
	 * parameters, to be read only, when @described (a host node's, a
	 * kernel node's, its kernelParams pointing into the item).
	 */
	bool is_captured;
	bool described;
	struct libcumc_captured *captured;
};

struct libcumc_graph {
	struct libcumc_graph *next;		/* in the registry */
	struct libcumc_graph_node *nodes, *last;
	size_t num_nodes;
	bool registered;			/* a CUgraph handle names it */
	bool capturing;				/* a stream capture's, ongoing */
	bool embedded;				/* a child graph node's */
	/* A conditional node's body: that node, not held; else NULL. */
	const struct libcumc_graph_node *owner;
	/* Its conditional handles, as many as created. */
	struct libcumc_cond_handle *handles;
	size_t num_handles;
	/* The user objects it holds: object and count, as many as added. */
	struct libcumc_graph_ref *refs;
	size_t num_refs;
};

/*
 * The lock of every graph, node and user object.  Unlocking runs the
 * destructors of the user objects released meanwhile, outside it, since
 * they may call the driver API.
 */
void libcumc_graphs_lock(void);
void libcumc_graphs_unlock(void);

/* The live user object @handle names (lock held), or NULL. */
struct libcumc_user_object *libcumc_user_object_find(CUuserObject handle);
/* Drops @count references of @obj (lock held). */
void libcumc_user_object_put(struct libcumc_user_object *obj,
			     unsigned int count);
/* Registers @obj (lock held). */
void libcumc_user_object_add(struct libcumc_user_object *obj);
/* @graph takes @count references of @obj, already counted (lock held). */
CUresult libcumc_graph_hold(struct libcumc_graph *graph,
			    struct libcumc_user_object *obj,
			    unsigned int count);

/* A new empty graph, registered when @handle (a CUgraph) is asked. */
struct libcumc_graph *libcumc_graph_new(bool handle);
/* Frees @node, which no longer is in a graph (lock held). */
void libcumc_node_destroy(struct libcumc_graph_node *node);
/*
 * Releases what parameters @u of a node of @type hold (kernel arguments,
 * operations, graphs), lock held.
 */
void libcumc_node_params_free(CUgraphNodeType type,
			      union libcumc_node_data *u);
/* The bodies of @node, a conditional node, name it their owner. */
void libcumc_node_adopt(struct libcumc_graph_node *node);
/* A CUgraph handle names @graph from now on (lock held). */
void libcumc_graph_register(struct libcumc_graph *graph);
/* Frees @graph, its nodes and its references (lock held). */
void libcumc_graph_free(struct libcumc_graph *graph);
/* The live graph @handle names (lock held), or NULL. */
struct libcumc_graph *libcumc_graph_find(CUgraph handle);
/* The live node @handle names in a registered graph (lock held), or NULL. */
struct libcumc_graph_node *libcumc_node_find(CUgraphNode handle);

/*
 * The nodes of @graph that @count handles name, in a malloc'd *@out
 * (NULL for none), lock held; INVALID_VALUE for a handle that names none
 * (a NULL array with a count too).
 */
CUresult libcumc_graph_nodes_of(const struct libcumc_graph *graph,
				const CUgraphNode *handles, size_t count,
				struct libcumc_graph_node ***out);

/*
 * A new node of @type in @graph after @deps (lock held; the parameters
 * are the caller's to fill in).  CUDA_ERROR_INVALID_VALUE when a
 * dependency is not a node of @graph or is named twice.
 */
CUresult libcumc_graph_add(struct libcumc_graph *graph, CUgraphNodeType type,
			   struct libcumc_graph_node *const *deps,
			   size_t num_deps, struct libcumc_graph_node **node);

/*
 * A captured item as a node after @deps (the streams' lock and this one
 * held).  A memset or memcpy item that describes itself becomes a node
 * like cuGraphAddMemsetNode's and cuGraphAddMemcpyNode's, for @ctx, and
 * @work stays the caller's; any other becomes a node that takes @work
 * (is_captured), which has no dependencies left, with the parameters it
 * describes.
 */
CUresult libcumc_graph_add_captured(struct libcumc_graph *graph,
				    struct libcumc_work *work, CUcontext ctx,
				    struct libcumc_graph_node *const *deps,
				    size_t num_deps,
				    struct libcumc_graph_node **node);

/* Marks each node of @graph with its position in its list (lock held). */
void libcumc_graph_number(const struct libcumc_graph *graph);

/* Whether @to depends on @from, directly or not (lock held). */
bool libcumc_node_reaches(const struct libcumc_graph_node *from,
			  const struct libcumc_graph_node *to);

/*
 * A copy of @graph, unregistered, its nodes' origins set to @graph's
 * (lock held); NULL when memory runs out.
 */
struct libcumc_graph *libcumc_graph_clone(const struct libcumc_graph *graph);

/*
 * @graph's nodes, each after its dependencies (lock held): *@order is
 * malloc'd, *@count long.  CUDA_ERROR_INVALID_VALUE for a cycle, whose
 * last added node *@cycle names when @cycle is not NULL.
 */
CUresult libcumc_graph_order(const struct libcumc_graph *graph,
			     struct libcumc_graph_node ***order,
			     size_t *count,
			     struct libcumc_graph_node **cycle);

/*
 * Whether the @count edges' data @data (NULL: all default) is the default
 * (capture.c): cumc's edges carry no data, anything else is refused.
 */
bool libcumc_edges_default(const CUgraphEdgeData *data, size_t count);
/*
 * The first steps of every cuGraphAdd*Node (graph.c), lock held: the
 * graph, the output and the dependencies, then a new node of @type.
 */
CUresult libcumc_node_begin(CUgraphNode *phGraphNode, CUgraph hGraph,
			    const CUgraphNode *dependencies,
			    size_t numDependencies, CUgraphNodeType type,
			    struct libcumc_graph_node **node);
/*
 * The node @hNode names, of @type, lock held on success (graph.c); a
 * node holding captured work answers CUDA_ERROR_NOT_SUPPORTED, unless it
 * is to be @read and its item described its parameters.
 */
CUresult libcumc_node_params(CUgraphNode hNode, CUgraphNodeType type,
			     bool read, struct libcumc_graph_node **out);
/*
 * The node of an executable instantiated from @hNode, of @type and not
 * made by a capture, the executables' lock held on success (graph_exec.c),
 * and that lock's release.
 */
CUresult libcumc_exec_node_get(CUgraphExec hGraphExec, CUgraphNode hNode,
			       CUgraphNodeType type,
			       struct libcumc_graph_node **node);
void libcumc_exec_node_put(void);
/*
 * What adding an external semaphore node answers (graph_extsem.c): such
 * nodes are never made.
 */
CUresult libcumc_semaphore_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    const CUexternalSemaphore *sems,
				    const void *params, unsigned int count);
/*
 * A conditional node's parameters checked against @hGraph's handles and
 * its bodies made (graph_cond.c), the lock not held.
 */
CUresult libcumc_cond_params_make(CUgraph hGraph,
				  const CUDA_CONDITIONAL_NODE_PARAMS *p,
				  union libcumc_node_data *u);
/*
 * The body a launch of @cond runs, NULL for none (graph_cond.c); a
 * WHILE node with a non-zero condition never stops, which
 * libcumc_cond_check() refuses at instantiation.
 */
struct libcumc_graph *libcumc_cond_body(const struct libcumc_cond_node *cond);
/*
 * Whether cumc can run @graph's conditional nodes, nested ones included
 * (lock held): CUDA_ERROR_NOT_SUPPORTED for a WHILE node whose condition
 * starts non-zero, *@err_node naming it.
 */
CUresult libcumc_cond_check(const struct libcumc_graph *graph,
			    struct libcumc_graph_node **err_node);
/* Whether @graph holds an allocation or a free node (lock held). */
bool libcumc_graph_has_mem(const struct libcumc_graph *graph);

/*
 * Graph memory (graph_mem.c; Documentation/api.md, "Graphs and stream
 * capture").  Its own lock comes after the streams' and this one.
 *
 * cuGraphAddMemAllocNode and cuGraphAddMemFreeNode, which the generic
 * builder calls too (lock not held).
 */
CUresult libcumc_mem_alloc_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams);
CUresult libcumc_mem_free_node_add(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   size_t numDependencies, CUdeviceptr dptr);
/*
 * @exec (graph_exec.c's, a token here) is instantiated from @graph, or
 * its copy @graph goes: one executable at a time may hold the memory
 * nodes of a graph (NOT_SUPPORTED).  Lock held.
 */
CUresult libcumc_graph_mem_instantiate(const struct libcumc_graph *graph,
				       const void *exec);
void libcumc_graph_mem_uninstantiate(const struct libcumc_graph *graph,
				     const void *exec);
/*
 * Before a launch of @graph (an executable's) on @stream: INVALID_VALUE
 * for an allocation of a previous launch not freed, which @auto_free
 * frees first instead, or for a free of an allocation not made.
 */
CUresult libcumc_graph_mem_launch(struct libcumc_stream *stream,
				  const struct libcumc_graph *graph,
				  bool auto_free);
/* An allocation or free node's turn in a launch on @stream. */
CUresult libcumc_graph_mem_submit(struct libcumc_stream *stream,
				  const struct libcumc_graph_node *node);
/*
 * The stream-ordered allocator's calls on graph allocations, and while
 * @stream captures (mempool_alloc.c, alloc.c): an allocation node whose
 * address is *@dptr, a free node; a free queued on @stream, or made once
 * the allocation has run (cuMemFree).  CUDA_ERROR_NOT_FOUND for an
 * address that is no graph allocation's, outside a capture.
 */
CUresult libcumc_graph_mem_capture_alloc(struct libcumc_stream *stream,
					 size_t bytesize, CUdeviceptr *dptr);
CUresult libcumc_graph_mem_capture_free(struct libcumc_stream *stream,
					CUdeviceptr dptr);
CUresult libcumc_graph_mem_free_on(struct libcumc_stream *stream,
				   CUdeviceptr dptr);
CUresult libcumc_graph_mem_free_now(CUdeviceptr dptr);

/* A reference on @captured, and its release (the last frees it). */
void libcumc_captured_get(struct libcumc_captured *captured);
void libcumc_captured_put(struct libcumc_captured *captured);

/*
 * What a node's parameters must be (graph.c): INVALID_VALUE otherwise
 * (a memcpy node's, cuMemcpy3D's errors).  A kernel node's are
 * copied into @k, which libcumc_kernel_params_free() releases.
 */
CUresult libcumc_memset_params_check(const CUDA_MEMSET_NODE_PARAMS *p);
CUresult libcumc_memcpy_params_check(const CUDA_MEMCPY3D *p);
/* A batch node's parameters checked, with a copy of their operations. */
CUresult libcumc_batch_params_copy(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p,
				   CUDA_BATCH_MEM_OP_NODE_PARAMS *copy);
/* The same copy, unchecked (graph_core.c): the parameters of a node. */
CUresult libcumc_batch_params_dup(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p,
				  CUDA_BATCH_MEM_OP_NODE_PARAMS *copy);
CUresult libcumc_kernel_params_copy(const CUDA_KERNEL_NODE_PARAMS *p,
				    struct libcumc_kernel_node *k);
void libcumc_kernel_params_free(struct libcumc_kernel_node *k);

/*
 * The entry points no cuda.h declares by these names: the per-thread
 * default stream flavours, and the older ABIs of names today's headers
 * map to newer functions (the older names are given their symbols here).
 */
CUresult CUDAAPI cuGraphAddNode_v1(CUgraphNode *phGraphNode, CUgraph hGraph,
				   const CUgraphNode *dependencies,
				   size_t numDependencies,
				   CUgraphNodeParams *nodeParams)
	__asm__("cuGraphAddNode");
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec *phGraphExec,
				       CUgraph hGraph, CUgraphNode *phErrorNode,
				       char *logBuffer, size_t bufferSize);
CUresult CUDAAPI cuGraphInstantiate_v1(CUgraphExec *phGraphExec,
				       CUgraph hGraph, CUgraphNode *phErrorNode,
				       char *logBuffer, size_t bufferSize)
	__asm__("cuGraphInstantiate");
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec,
			CUgraph hGraph,
			CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams);
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream hStream,
					      CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamBeginCapture_v1(CUstream hStream)
	__asm__("cuStreamBeginCapture");
CUresult CUDAAPI cuStreamBeginCapture_ptsz(CUstream hStream);
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				const CUgraphEdgeData **edgeData_out,
				size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out, CUgraph *graph_out,
				const CUgraphNode **dependencies_out,
				size_t *numDependencies_out);
CUresult CUDAAPI cuStreamGetCaptureInfo_v1(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out)
	__asm__("cuStreamGetCaptureInfo");
CUresult CUDAAPI cuStreamBeginCaptureToGraph_ptsz(CUstream hStream,
				CUgraph hGraph,
				const CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies,
				CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream,
				CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies, unsigned int flags);
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_v1(CUstream hStream,
				CUgraphNode *dependencies,
				size_t numDependencies, unsigned int flags)
	__asm__("cuStreamUpdateCaptureDependencies");
CUresult CUDAAPI cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream,
				CUgraphNode *dependencies,
				size_t numDependencies, unsigned int flags);
CUresult CUDAAPI cuStreamGetCaptureInfo_ptsz(CUstream hStream,
				CUstreamCaptureStatus *captureStatus_out,
				cuuint64_t *id_out);

#endif /* _CUMC_LIB_GRAPH_H */
