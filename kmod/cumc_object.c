// SPDX-License-Identifier: GPL-2.0
/*
 * Objects: what a handle names (allocations, multicast objects), counted
 * by every holder, charged to their creator, and found by fabric handles.
 *
 * The fabric export table maps a fabric id to its object without holding
 * a reference: the object removes its entry as it dies, and a lookup takes
 * a reference only while the object is still alive. Its xa_lock orders the
 * two.
 */
#include <linux/random.h>
#include <crypto/algapi.h>

#include "cumc_internal.h"

#define CUMK_FABRIC_MAGIC 0x464d5543 /* "CUMF" */

/*
 * The layout of the 64 bytes of a fabric handle; no kernel pointer in it.
 * @instance tells handles of this module load from those of an earlier
 * one; @node is the exporting node: another node's handle is imported
 * through the IMEX daemons (cumc_remote.c).
 */
struct cumk_fabric_handle {
	__le32 magic;
	__le32 channel;
	__le64 instance;
	__le64 id;
	u8 secret[CUMK_FABRIC_SECRET_LEN];
	__le32 node;
	u8 zero[4];
};

static_assert(sizeof(struct cumk_fabric_handle) == CUMC_FABRIC_HANDLE_SIZE);

static u64 cumk_fabric_instance;

/*
 * Fabric id -> struct cumk_object *, without a reference. Nodes are
 * charged to the memory cgroup of the exporter that made the array grow.
 */
static DEFINE_XARRAY_FLAGS(cumk_fabric_exports,
			  XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
static u32 cumk_next_fabric_id; /* under cumk_fabric_exports' lock */
/* Serializes the first export of an object as a fabric handle. */
static DEFINE_MUTEX(cumk_fabric_lock);

void cumk_object_init(struct cumk_object *obj, enum cumk_object_type type,
		      u32 handle_types, const struct cumk_object_ops *ops)
{
	obj->type = type;
	obj->handle_types = handle_types;
	kref_init(&obj->ref);
	obj->ops = ops;
}

/* Charge @obj, being created, to its creator's @usage: one object. */
int cumk_object_charge(struct cumk_usage *usage, struct cumk_object *obj)
{
	int ret;

	ret = cumk_usage_charge(usage, CUMK_QUOTA_OBJECTS, 1);
	if (ret)
		return ret;
	obj->usage = cumk_usage_get(usage);
	return 0;
}

/* Return an object's charge to its creator, who may have closed meanwhile. */
static void cumk_usage_return_object(struct cumk_usage *usage)
{
	cumk_usage_uncharge(usage, CUMK_QUOTA_OBJECTS, 1);
	cumk_usage_put(usage);
}

/* For a creation that fails before the object is initialised. */
void cumk_object_uncharge(struct cumk_object *obj)
{
	cumk_usage_return_object(obj->usage);
}

static void cumk_object_release(struct kref *ref)
{
	struct cumk_object *obj = container_of(ref, struct cumk_object, ref);
	struct cumk_usage *usage = obj->usage;

	/* Its fabric handle stops resolving before the object goes. */
	if (obj->fabric_id)
		xa_erase(&cumk_fabric_exports, obj->fabric_id);
	obj->ops->destroy(obj);
	/* Only once the object is gone may its creator make another. */
	cumk_usage_return_object(usage);
}

void cumk_object_put(struct cumk_object *obj)
{
	kref_put(&obj->ref, cumk_object_release);
}

/*
 * Give @obj a fabric id and secret, once: the first export decides the
 * IMEX channel its fabric handle is valid on.
 */
int cumk_object_fabric_publish(struct cumk_object *obj, int channel)
{
	int ret = 0;

	mutex_lock(&cumk_fabric_lock);
	if (!obj->fabric_id) {
		get_random_bytes(obj->fabric_secret, sizeof(obj->fabric_secret));
		obj->fabric_channel = channel;
		ret = xa_alloc_cyclic(&cumk_fabric_exports, &obj->fabric_id, obj,
				      xa_limit_32b, &cumk_next_fabric_id,
				      CUMK_GFP);
		ret = ret < 0 ? ret : 0;
	}
	mutex_unlock(&cumk_fabric_lock);
	return ret;
}

/*
 * A new reference on the live object exported as @id with @secret on
 * @channel, or NULL: a forged handle and a dead object look the same.
 */
static struct cumk_object *cumk_object_fabric_get(u32 id, const u8 *secret,
						  int channel)
{
	struct cumk_object *obj;

	xa_lock(&cumk_fabric_exports);
	obj = xa_load(&cumk_fabric_exports, id);
	if (obj && (crypto_memneq(obj->fabric_secret, secret,
				  sizeof(obj->fabric_secret)) ||
		    obj->fabric_channel != channel ||
		    !kref_get_unless_zero(&obj->ref)))
		obj = NULL;
	xa_unlock(&cumk_fabric_exports);
	return obj;
}

void cumk_object_fabric_init(void)
{
	get_random_bytes(&cumk_fabric_instance, sizeof(cumk_fabric_instance));
}

/* The fabric handle of @obj, published already, into @out. */
void cumk_object_fabric_handle(struct cumk_object *obj, u8 *out)
{
	struct cumk_fabric_handle fh = {
		.magic = cpu_to_le32(CUMK_FABRIC_MAGIC),
		.channel = cpu_to_le32(obj->fabric_channel),
		.instance = cpu_to_le64(cumk_fabric_instance),
		.id = cpu_to_le64(obj->fabric_id),
		.node = cpu_to_le32(cumk_node_index()),
	};

	memcpy(fh.secret, obj->fabric_secret, sizeof(fh.secret));
	memcpy(out, &fh, sizeof(fh));
}

/*
 * Whether @handle is shaped as this module's fabric handles are, on any
 * node; if so, the node that exported it and on which IMEX channel.
 */
bool cumk_object_fabric_origin(const u8 *handle, u32 *node, int *channel)
{
	struct cumk_fabric_handle fh;
	u64 id;

	memcpy(&fh, handle, sizeof(fh));
	id = le64_to_cpu(fh.id);
	if (le32_to_cpu(fh.magic) != CUMK_FABRIC_MAGIC || !id ||
	    id > U32_MAX || memchr_inv(fh.zero, 0, sizeof(fh.zero)))
		return false;
	*node = le32_to_cpu(fh.node);
	*channel = le32_to_cpu(fh.channel);
	return true;
}

/* A new reference on the live object this node exported as @handle, or NULL. */
struct cumk_object *cumk_object_fabric_lookup(const u8 *handle)
{
	struct cumk_fabric_handle fh;
	u32 node;
	int channel;

	if (!cumk_object_fabric_origin(handle, &node, &channel) ||
	    node != cumk_node_index())
		return NULL;
	memcpy(&fh, handle, sizeof(fh));
	if (le64_to_cpu(fh.instance) != cumk_fabric_instance)
		return NULL;
	return cumk_object_fabric_get(le64_to_cpu(fh.id), fh.secret, channel);
}
