// SPDX-License-Identifier: GPL-2.0
/*
 * Clients and their handle tables.
 *
 * A handle is (client tag << 32) | id: the id indexes the client's table,
 * the tag makes another client's handle miss instead of naming an object
 * of ours that happens to have the same id. Ids are allocated cyclically so
 * that a released handle is not soon reissued as a different object.
 */
#include <linux/slab.h>

#include "cumc_internal.h"

/* Tags of live clients; allocated cyclically like handle ids. */
static DEFINE_XARRAY_ALLOC1(cumc_clients);
static u32 cumc_next_client_tag;

void cumc_object_init(struct cumc_object *obj, enum cumc_object_type type,
		      u32 handle_types, void (*destroy)(struct cumc_object *obj))
{
	obj->type = type;
	obj->handle_types = handle_types;
	kref_init(&obj->ref);
	obj->destroy = destroy;
}

static void cumc_object_release(struct kref *ref)
{
	struct cumc_object *obj = container_of(ref, struct cumc_object, ref);

	cumc_fabric_unexport(obj);
	obj->destroy(obj);
}

void cumc_object_put(struct cumc_object *obj)
{
	kref_put(&obj->ref, cumc_object_release);
}

struct cumc_client *cumc_client_create(void)
{
	struct cumc_client *client;
	int ret;

	client = kzalloc(sizeof(*client), GFP_KERNEL_ACCOUNT);
	if (!client)
		return ERR_PTR(-ENOMEM);
	xa_init_flags(&client->handles, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	mutex_init(&client->reserve_lock);
	spin_lock_init(&client->pending_lock);
	client->channel = CUMC_NO_CHANNEL;
	ret = xa_alloc_cyclic(&cumc_clients, &client->tag, client,
			      xa_limit_32b, &cumc_next_client_tag, GFP_KERNEL);
	if (ret < 0) {
		kfree(client);
		return ERR_PTR(ret);
	}
	atomic_inc(&cumc_live_clients);
	return client;
}

/* The file is gone: drop every handle it still had. */
void cumc_client_destroy(struct cumc_client *client)
{
	struct cumc_object *obj;
	unsigned long id;

	xa_for_each(&client->handles, id, obj)
		cumc_object_put(obj);
	xa_destroy(&client->handles);
	xa_erase(&cumc_clients, client->tag);
	atomic_dec(&cumc_live_clients);
	mutex_destroy(&client->reserve_lock);
	kfree(client);
}

/* Takes over the caller's reference on @obj. */
int cumc_handle_insert(struct cumc_client *client, struct cumc_object *obj,
		       u64 *handle)
{
	u32 id;
	int ret;

	ret = xa_alloc_cyclic(&client->handles, &id, obj, xa_limit_32b,
			      &client->next_id, GFP_KERNEL_ACCOUNT);
	if (ret < 0)
		return ret;
	*handle = (u64)client->tag << 32 | id;
	return 0;
}

static bool cumc_handle_split(struct cumc_client *client, u64 handle, u32 *id)
{
	*id = lower_32_bits(handle);
	return upper_32_bits(handle) == client->tag && *id;
}

/* A new reference on what @handle names, if it is of @type (or any). */
struct cumc_object *cumc_handle_get(struct cumc_client *client, u64 handle,
				    enum cumc_object_type type)
{
	struct cumc_object *obj;
	u32 id;

	if (!cumc_handle_split(client, handle, &id))
		return ERR_PTR(-ENOENT);
	xa_lock(&client->handles);
	obj = xa_load(&client->handles, id);
	if (obj && (type == CUMC_OBJ_ANY || obj->type == type))
		kref_get(&obj->ref);
	else
		obj = NULL;
	xa_unlock(&client->handles);
	return obj ? obj : ERR_PTR(-ENOENT);
}

int cumc_handle_release(struct cumc_client *client, u64 handle)
{
	struct cumc_object *obj;
	u32 id;

	if (!cumc_handle_split(client, handle, &id))
		return -ENOENT;
	obj = xa_erase(&client->handles, id);
	if (!obj)
		return -ENOENT;
	cumc_object_put(obj);
	return 0;
}
