// SPDX-License-Identifier: MIT
/*
 * The graphs' registry and structure (graph.h): graphs, their nodes and
 * edges, clones, a topological order, the user objects graphs hold.
 * Nothing here reaches a stream: stream.c calls in while capturing.
 */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "log.h"

static pthread_mutex_t libcumc_graphs_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_graph *libcumc_graphs;
static struct libcumc_user_object *libcumc_user_objects;
/* User objects whose count reached 0, to destroy once unlocked. */
static struct libcumc_user_object *libcumc_user_objects_dead;

void libcumc_graphs_lock(void)
{
	pthread_mutex_lock(&libcumc_graphs_mutex);
}

void libcumc_graphs_unlock(void)
{
	struct libcumc_user_object *dead = libcumc_user_objects_dead, *next;

	libcumc_user_objects_dead = NULL;
	pthread_mutex_unlock(&libcumc_graphs_mutex);
	for (; dead; dead = next) {
		next = dead->next;
		dead->destroy(dead->ptr);
		free(dead);
	}
}

struct libcumc_user_object *libcumc_user_object_find(CUuserObject handle)
{
	struct libcumc_user_object *obj;

	for (obj = libcumc_user_objects; obj; obj = obj->next)
		if ((CUuserObject)obj == handle)
			return obj;
	return NULL;
}

void libcumc_user_object_add(struct libcumc_user_object *obj)
{
	obj->next = libcumc_user_objects;
	libcumc_user_objects = obj;
}

void libcumc_user_object_put(struct libcumc_user_object *obj,
			     unsigned int count)
{
	struct libcumc_user_object **link;

	obj->count -= count;
	if (obj->count)
		return;
	for (link = &libcumc_user_objects; *link != obj; link = &(*link)->next)
		;
	*link = obj->next;
	obj->next = libcumc_user_objects_dead;
	libcumc_user_objects_dead = obj;
}

CUresult libcumc_graph_hold(struct libcumc_graph *graph,
			    struct libcumc_user_object *obj,
			    unsigned int count)
{
	struct libcumc_graph_ref *refs;
	size_t i;

	for (i = 0; i < graph->num_refs; i++)
		if (graph->refs[i].obj == obj) {
			graph->refs[i].count += count;
			return CUDA_SUCCESS;
		}
	refs = reallocarray(graph->refs, graph->num_refs + 1, sizeof(*refs));
	if (!refs)
		return CUDA_ERROR_OUT_OF_MEMORY;
	graph->refs = refs;
	refs[graph->num_refs++] = (struct libcumc_graph_ref){ obj, count };
	return CUDA_SUCCESS;
}

CUresult libcumc_batch_params_dup(const CUDA_BATCH_MEM_OP_NODE_PARAMS *p,
				  CUDA_BATCH_MEM_OP_NODE_PARAMS *copy)
{
	CUstreamBatchMemOpParams *ops;

	ops = calloc(p->count ? p->count : 1, sizeof(*ops));
	if (!ops)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (p->count)
		memcpy(ops, p->paramArray, p->count * sizeof(*ops));
	*copy = *p;
	copy->paramArray = ops;
	return CUDA_SUCCESS;
}

void libcumc_captured_get(struct libcumc_captured *captured)
{
	atomic_fetch_add(&captured->refs, 1);
}

void libcumc_captured_put(struct libcumc_captured *captured)
{
	struct libcumc_work *work = captured->work;

	if (atomic_fetch_sub(&captured->refs, 1) != 1)
		return;
	/* stream.c dropped the item's dependencies when it captured it. */
	if (work->fini)
		work->fini(work);
	free(work->deps);
	free(work);
	free(captured);
}

void libcumc_graph_register(struct libcumc_graph *graph)
{
	graph->registered = true;
	graph->next = libcumc_graphs;
	libcumc_graphs = graph;
}

struct libcumc_graph *libcumc_graph_new(bool handle)
{
	struct libcumc_graph *graph = calloc(1, sizeof(*graph));

	if (graph && handle)
		libcumc_graph_register(graph);
	return graph;
}

void libcumc_node_params_free(CUgraphNodeType type,
			      union libcumc_node_data *u)
{
	unsigned int i;

	if (type == CU_GRAPH_NODE_TYPE_KERNEL) {
		free(u->kernel.arg_buf);
		free(u->kernel.args);
	} else if (type == CU_GRAPH_NODE_TYPE_GRAPH) {
		libcumc_graph_free(u->child);
	} else if (type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP) {
		free(u->batch.paramArray);
	} else if (type == CU_GRAPH_NODE_TYPE_CONDITIONAL && u->cond.bodies) {
		for (i = 0; i < u->cond.size; i++)
			if (u->cond.bodies[i])
				libcumc_graph_free((struct libcumc_graph *)
						   u->cond.bodies[i]);
		free(u->cond.bodies);
	}
}

void libcumc_node_destroy(struct libcumc_graph_node *node)
{
	if (node->is_captured)
		libcumc_captured_put(node->captured);
	else if (node->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
		 node->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
		node->u.mem.ops->destroyed(node);
	else
		libcumc_node_params_free(node->type, &node->u);
	free(node->deps);
	free(node);
}

void libcumc_node_adopt(struct libcumc_graph_node *node)
{
	unsigned int i;

	for (i = 0; i < node->u.cond.size; i++)
		((struct libcumc_graph *)node->u.cond.bodies[i])->owner = node;
}

void libcumc_graph_free(struct libcumc_graph *graph)
{
	struct libcumc_graph_node *node, *next;
	struct libcumc_graph **link;
	size_t i;

	if (graph->registered) {
		for (link = &libcumc_graphs; *link != graph;
		     link = &(*link)->next)
			;
		*link = graph->next;
	}
	for (node = graph->nodes; node; node = next) {
		next = node->next;
		libcumc_node_destroy(node);
	}
	for (i = 0; i < graph->num_refs; i++)
		libcumc_user_object_put(graph->refs[i].obj,
					graph->refs[i].count);
	free(graph->refs);
	free(graph->handles);
	free(graph);
}

struct libcumc_graph *libcumc_graph_find(CUgraph handle)
{
	struct libcumc_graph *graph;

	for (graph = libcumc_graphs; graph; graph = graph->next)
		if ((CUgraph)graph == handle)
			return graph;
	return NULL;
}

struct libcumc_graph_node *libcumc_node_find(CUgraphNode handle)
{
	struct libcumc_graph_node *node;
	struct libcumc_graph *graph;

	if (!handle)
		return NULL;
	for (graph = libcumc_graphs; graph; graph = graph->next)
		for (node = graph->nodes; node; node = node->next)
			if ((CUgraphNode)node == handle)
				return node;
	return NULL;
}

CUresult libcumc_graph_nodes_of(const struct libcumc_graph *graph,
				       const CUgraphNode *handles, size_t count,
				       struct libcumc_graph_node ***out)
{
	struct libcumc_graph_node **nodes, *node;
	size_t i;

	*out = NULL;
	if (!count)
		return CUDA_SUCCESS;
	if (!handles)
		return CUDA_ERROR_INVALID_VALUE;
	nodes = calloc(count, sizeof(*nodes));
	if (!nodes)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < count; i++) {
		for (node = graph->nodes; node; node = node->next)
			if ((CUgraphNode)node == handles[i])
				break;
		if (!node) {
			free(nodes);
			return CUDA_ERROR_INVALID_VALUE;
		}
		nodes[i] = node;
	}
	*out = nodes;
	return CUDA_SUCCESS;
}

static CUresult libcumc_node_add_dep(struct libcumc_graph_node *node,
				     struct libcumc_graph_node *dep)
{
	struct libcumc_graph_node **deps;

	if (node->num_deps == node->max_deps) {
		size_t max = node->max_deps ? 2 * node->max_deps : 4;

		deps = reallocarray(node->deps, max, sizeof(*deps));
		if (!deps)
			return CUDA_ERROR_OUT_OF_MEMORY;
		node->deps = deps;
		node->max_deps = max;
	}
	node->deps[node->num_deps++] = dep;
	return CUDA_SUCCESS;
}

static void libcumc_graph_append(struct libcumc_graph *graph,
				 struct libcumc_graph_node *node)
{
	node->graph = graph;
	if (graph->last)
		graph->last->next = node;
	else
		graph->nodes = node;
	graph->last = node;
	graph->num_nodes++;
}

CUresult libcumc_graph_add(struct libcumc_graph *graph, CUgraphNodeType type,
			   struct libcumc_graph_node *const *deps,
			   size_t num_deps, struct libcumc_graph_node **out)
{
	struct libcumc_graph_node *node;
	size_t i, j;

	for (i = 0; i < num_deps; i++) {
		if (!deps[i] || deps[i]->graph != graph)
			return CUDA_ERROR_INVALID_VALUE;
		for (j = 0; j < i; j++)
			if (deps[j] == deps[i])
				return CUDA_ERROR_INVALID_VALUE;
	}
	node = calloc(1, sizeof(*node));
	if (!node)
		return CUDA_ERROR_OUT_OF_MEMORY;
	node->type = type;
	for (i = 0; i < num_deps; i++)
		if (libcumc_node_add_dep(node, deps[i]) != CUDA_SUCCESS) {
			free(node->deps);
			free(node);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	libcumc_graph_append(graph, node);
	*out = node;
	return CUDA_SUCCESS;
}

/* A described memset or memcpy item as a node of its own parameters. */
static CUresult libcumc_graph_add_described(struct libcumc_graph *graph,
					    const struct libcumc_work *work,
					    CUcontext ctx,
					    struct libcumc_graph_node *const *deps,
					    size_t num_deps,
					    struct libcumc_graph_node **node)
{
	union libcumc_node_params params = { 0 };
	CUresult res;

	work->describe(work, &params);
	res = libcumc_graph_add(graph, work->node_type, deps, num_deps, node);
	if (res != CUDA_SUCCESS)
		return res;
	if (work->node_type == CU_GRAPH_NODE_TYPE_MEMSET) {
		(*node)->u.memset.params = params.memset;
		(*node)->u.memset.ctx = ctx;
	} else {
		(*node)->u.memcpy.params = params.memcpy;
		(*node)->u.memcpy.ctx = ctx;
	}
	return CUDA_SUCCESS;
}

bool libcumc_graph_has_mem(const struct libcumc_graph *graph)
{
	const struct libcumc_graph_node *node;

	for (node = graph->nodes; node; node = node->next)
		if (node->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
		    node->type == CU_GRAPH_NODE_TYPE_MEM_FREE)
			return true;
	return false;
}

CUresult libcumc_graph_add_captured(struct libcumc_graph *graph,
				    struct libcumc_work *work, CUcontext ctx,
				    struct libcumc_graph_node *const *deps,
				    size_t num_deps,
				    struct libcumc_graph_node **node)
{
	struct libcumc_captured *captured;
	union libcumc_node_params params = { 0 };
	CUresult res;

	if (work->capture_node)
		return work->capture_node(work, graph, deps, num_deps, node);
	if (work->describe && (work->node_type == CU_GRAPH_NODE_TYPE_MEMSET ||
			       work->node_type == CU_GRAPH_NODE_TYPE_MEMCPY))
		return libcumc_graph_add_described(graph, work, ctx, deps,
						   num_deps, node);
	captured = calloc(1, sizeof(*captured));
	if (!captured)
		return CUDA_ERROR_OUT_OF_MEMORY;
	res = libcumc_graph_add(graph, work->node_type, deps, num_deps, node);
	if (res != CUDA_SUCCESS) {
		free(captured);
		return res;
	}
	atomic_init(&captured->refs, 1);
	captured->work = work;
	(*node)->captured = captured;
	(*node)->is_captured = true;
	if (!work->describe)
		return CUDA_SUCCESS;
	work->describe(work, &params);
	if (work->node_type == CU_GRAPH_NODE_TYPE_HOST)
		(*node)->u.host = params.host;
	else if (work->node_type == CU_GRAPH_NODE_TYPE_KERNEL)
		(*node)->u.kernel.params = params.kernel;
	else
		return CUDA_SUCCESS;
	(*node)->described = true;
	return CUDA_SUCCESS;
}

static bool libcumc_node_reaches_depth(const struct libcumc_graph_node *from,
				       const struct libcumc_graph_node *to,
				       size_t budget)
{
	size_t i;

	if (from == to)
		return true;
	if (!budget)
		return false;
	for (i = 0; i < to->num_deps; i++)
		if (libcumc_node_reaches_depth(from, to->deps[i], budget - 1))
			return true;
	return false;
}

bool libcumc_node_reaches(const struct libcumc_graph_node *from,
			  const struct libcumc_graph_node *to)
{
	/* A path is never longer than the graph has nodes. */
	return libcumc_node_reaches_depth(from, to, to->graph->num_nodes);
}

/* A conditional node's bodies, copied; nothing is left on failure. */
static CUresult libcumc_cond_copy(struct libcumc_graph_node *copy,
				  const struct libcumc_graph_node *node)
{
	const struct libcumc_cond_node *cond = &node->u.cond;
	unsigned int i;

	copy->u.cond.bodies = calloc(cond->size, sizeof(CUgraph));
	if (!copy->u.cond.bodies)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (i = 0; i < cond->size; i++) {
		copy->u.cond.bodies[i] = (CUgraph)libcumc_graph_clone(
				(const struct libcumc_graph *)cond->bodies[i]);
		if (!copy->u.cond.bodies[i]) {
			libcumc_node_params_free(node->type, &copy->u);
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
	}
	libcumc_node_adopt(copy);
	return CUDA_SUCCESS;
}

/*
 * The node's parameters, copied (the kernel's arguments, a child graph,
 * conditional bodies), and its kernel attributes.
 */
static CUresult libcumc_node_copy_params(struct libcumc_graph_node *copy,
					 const struct libcumc_graph_node *node)
{
	const struct libcumc_kernel_node *k = &node->u.kernel;
	struct libcumc_kernel_node *kc = &copy->u.kernel;
	unsigned int i;

	copy->u = node->u;
	copy->is_captured = node->is_captured;
	copy->captured = node->captured;
	copy->described = node->described;
	copy->disabled = node->disabled;
	memcpy(copy->kernel_attrs, node->kernel_attrs,
	       sizeof(copy->kernel_attrs));
	if (node->is_captured) {
		libcumc_captured_get(node->captured);
		return CUDA_SUCCESS;
	}
	if (node->type == CU_GRAPH_NODE_TYPE_GRAPH) {
		copy->u.child = libcumc_graph_clone(node->u.child);
		return copy->u.child ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (node->type == CU_GRAPH_NODE_TYPE_BATCH_MEM_OP)
		return libcumc_batch_params_dup(&node->u.batch, &copy->u.batch);
	if (node->type == CU_GRAPH_NODE_TYPE_CONDITIONAL)
		return libcumc_cond_copy(copy, node);
	if (node->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC ||
	    node->type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
		node->u.mem.ops->copied(copy);
		return CUDA_SUCCESS;
	}
	if (node->type != CU_GRAPH_NODE_TYPE_KERNEL)
		return CUDA_SUCCESS;
	kc->arg_buf = malloc(k->arg_size ? k->arg_size : 1);
	kc->args = calloc(k->num_args ? k->num_args : 1, sizeof(void *));
	if (!kc->arg_buf || !kc->args) {
		free(kc->arg_buf);
		free(kc->args);
		kc->arg_buf = NULL;
		kc->args = NULL;
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	memcpy(kc->arg_buf, k->arg_buf, k->arg_size);
	for (i = 0; i < k->num_args; i++)
		kc->args[i] = kc->arg_buf +
			      ((unsigned char *)k->args[i] - k->arg_buf);
	kc->params.kernelParams = kc->args;
	return CUDA_SUCCESS;
}

void libcumc_graph_number(const struct libcumc_graph *graph)
{
	struct libcumc_graph_node *node;
	size_t i = 0;

	for (node = graph->nodes; node; node = node->next)
		node->mark = i++;
}

struct libcumc_graph *libcumc_graph_clone(const struct libcumc_graph *graph)
{
	struct libcumc_graph *copy = libcumc_graph_new(false);
	struct libcumc_graph_node **map = NULL, *node, *c;
	size_t i, n = 0;

	if (!copy)
		return NULL;
	map = calloc(graph->num_nodes ? graph->num_nodes : 1, sizeof(*map));
	if (!map)
		goto err_free;
	libcumc_graph_number(graph);
	for (node = graph->nodes; node; node = node->next) {
		c = calloc(1, sizeof(*c));
		if (!c)
			goto err_free;
		c->type = node->type;
		c->origin = node;
		if (libcumc_node_copy_params(c, node) != CUDA_SUCCESS) {
			free(c);
			goto err_free;
		}
		libcumc_graph_append(copy, c);
		map[n++] = c;
	}
	for (node = graph->nodes, n = 0; node; node = node->next, n++)
		for (i = 0; i < node->num_deps; i++)
			if (libcumc_node_add_dep(map[n],
				map[node->deps[i]->mark]))
				goto err_free;
	if (graph->num_handles) {
		copy->handles = calloc(graph->num_handles,
				       sizeof(*copy->handles));
		if (!copy->handles)
			goto err_free;
		memcpy(copy->handles, graph->handles,
		       graph->num_handles * sizeof(*copy->handles));
		copy->num_handles = graph->num_handles;
	}
	for (i = 0; i < graph->num_refs; i++) {
		if (libcumc_graph_hold(copy, graph->refs[i].obj,
				       graph->refs[i].count) != CUDA_SUCCESS)
			goto err_free;
		graph->refs[i].obj->count += graph->refs[i].count;
	}
	free(map);
	return copy;
err_free:
	free(map);
	libcumc_graph_free(copy);
	return NULL;
}

/* Whether @node depends on itself: it is on a cycle (lock held). */
static bool libcumc_node_on_cycle(const struct libcumc_graph_node *node)
{
	size_t i;

	for (i = 0; i < node->num_deps; i++)
		if (libcumc_node_reaches(node, node->deps[i]))
			return true;
	return false;
}

/*
 * The last added node of @graph on a cycle, which NVIDIA's driver names
 * too (graph.instantiate_cycle in conformance/); @placed tells the nodes
 * that are not (lock held).
 */
static struct libcumc_graph_node *
libcumc_graph_cycle_node(const struct libcumc_graph *graph, const bool *placed)
{
	struct libcumc_graph_node *node, *found = NULL;
	size_t i;

	for (node = graph->nodes, i = 0; node; node = node->next, i++)
		if (!placed[i] && libcumc_node_on_cycle(node))
			found = node;
	return found;
}

CUresult libcumc_graph_order(const struct libcumc_graph *graph,
			     struct libcumc_graph_node ***order,
			     size_t *count,
			     struct libcumc_graph_node **cycle)
{
	struct libcumc_graph_node **out, *node;
	size_t n = 0, i, placed_before;
	bool *placed;

	out = calloc(graph->num_nodes ? graph->num_nodes : 1, sizeof(*out));
	placed = calloc(graph->num_nodes ? graph->num_nodes : 1,
			sizeof(*placed));
	if (!out || !placed) {
		free(out);
		free(placed);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	libcumc_graph_number(graph);
	/* Passes over the nodes, each placing those whose deps are placed. */
	do {
		placed_before = n;
		for (node = graph->nodes, i = 0; node; node = node->next, i++) {
			size_t d;

			if (placed[i])
				continue;
			for (d = 0; d < node->num_deps; d++)
				if (!placed[node->deps[d]->mark])
					break;
			if (d < node->num_deps)
				continue;
			placed[i] = true;
			out[n++] = node;
		}
	} while (n < graph->num_nodes && n > placed_before);
	if (n < graph->num_nodes && cycle)
		*cycle = libcumc_graph_cycle_node(graph, placed);
	free(placed);
	if (n < graph->num_nodes) {
		free(out);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*order = out;
	*count = n;
	return CUDA_SUCCESS;
}

/* A forked child forgets its parent's graphs, as it does its streams. */
static void libcumc_graphs_forget_parent(void)
{
	libcumc_graphs = NULL;
	libcumc_user_objects = NULL;
	libcumc_user_objects_dead = NULL;
	pthread_mutex_init(&libcumc_graphs_mutex, NULL);
}

__attribute__((constructor)) static void libcumc_graphs_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_graphs_forget_parent);
}
