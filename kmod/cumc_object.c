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

	ret = cumk_usage_charge(usage, CUMC_QUOTA_OBJECTS, 1);
	if (ret)
		return ret;
	obj->usage = cumk_usage_get(usage);
	return 0;
}

/* Return an object's charge to its creator, who may have closed meanwhile. */
static void cumk_usage_return_object(struct cumk_usage *usage)
{
	cumk_usage_uncharge(usage, CUMC_QUOTA_OBJECTS, 1);
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
				      CUMC_GFP);
		ret = ret < 0 ? ret : 0;
	}
	mutex_unlock(&cumk_fabric_lock);
	return ret;
}

/*
 * A new reference on the live object exported as @id with @secret on
 * @channel, or NULL: a forged handle and a dead object look the same.
 */
struct cumk_object *cumk_object_fabric_get(u32 id, const u8 *secret,
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
