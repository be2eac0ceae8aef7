// SPDX-License-Identifier: GPL-2.0
/*
 * Clients and their handle tables.
 *
 * A handle is (client tag << 32) | id: the id indexes the client's table,
 * the tag makes another client's handle miss instead of naming an object
 * of ours that happens to have the same id. Ids are allocated cyclically so
 * that a released handle is not soon reissued as a different object.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "cumc_internal.h"

/*
 * Tags of live clients; allocated cyclically like handle ids. Nodes are
 * charged to the memory cgroup of the opener that made the array grow.
 */
static DEFINE_XARRAY_FLAGS(cumk_clients, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
static u32 cumk_next_client_tag;

struct cumk_client *cumk_client_create(void)
{
	struct cumk_client *client;
	int ret;

	client = kzalloc(sizeof(*client), CUMK_GFP);
	if (!client)
		return ERR_PTR(-ENOMEM);
	client->usage = cumk_usage_create(true);
	if (!client->usage) {
		ret = -ENOMEM;
		goto err_free_client;
	}
	xa_init_flags(&client->handles, XA_FLAGS_ALLOC1 | XA_FLAGS_ACCOUNT);
	mutex_init(&client->reserve_lock);
	mutex_init(&client->arenas_lock);
	INIT_LIST_HEAD(&client->arenas);
	spin_lock_init(&client->pending_lock);
	client->channel = CUMK_NO_CHANNEL;
	ret = xa_alloc_cyclic(&cumk_clients, &client->tag, client,
			      xa_limit_32b, &cumk_next_client_tag,
			      CUMK_GFP);
	if (ret < 0)
		goto err_put_usage;
	atomic_inc(&cumk_live_clients);
	return client;

err_put_usage:
	cumk_usage_put(client->usage);
err_free_client:
	kfree(client);
	return ERR_PTR(ret);
}

/**
 * struct cumk_handle - an entry of a client's handle table
 * @obj: the object; the entry holds one reference on it
 * @refs: releases the handle takes before it goes: one, plus one for each
 *        time CUMC_VA_QUERY retained it again; under the table's xa_lock
 */
struct cumk_handle {
	struct cumk_object *obj;
	u32 refs;
};

/* The file is gone: drop every handle it still had. */
void cumk_client_destroy(struct cumk_client *client)
{
	struct cumk_handle *h;
	unsigned long id;

	xa_for_each(&client->handles, id, h) {
		cumk_object_put(h->obj);
		kfree(h);
		cumk_usage_uncharge(client->usage, CUMK_QUOTA_HANDLES, 1);
	}
	xa_destroy(&client->handles);
	xa_erase(&cumk_clients, client->tag);
	atomic_dec(&cumk_live_clients);
	mutex_destroy(&client->reserve_lock);
	/* Each arena's VMA held the file: all of them are gone. */
	WARN_ON(!list_empty(&client->arenas));
	mutex_destroy(&client->arenas_lock);
	kfree(client->spare_va);
	kfree(client->spare_mapping);
	cumk_usage_put(client->usage);
	kfree(client);
}

static u64 cumk_handle_value(struct cumk_client *client, u32 id)
{
	return (u64)client->tag << 32 | id;
}

/*
 * Reserve a new handle for @obj: charged, with an id no lookup finds until
 * cumk_handle_finalize(). Takes over the caller's reference on @obj on
 * success.
 */
int cumk_handle_reserve(struct cumk_client *client, struct cumk_object *obj,
			struct cumk_handle_reservation *res, u64 *handle)
{
	struct cumk_handle *h;
	int ret;

	ret = cumk_usage_charge(client->usage, CUMK_QUOTA_HANDLES, 1);
	if (ret)
		return ret;
	h = kmalloc(sizeof(*h), CUMK_GFP);
	if (!h) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	h->obj = obj;
	h->refs = 1;
	/* A NULL entry of an ALLOC array is a reservation: lookups miss it. */
	ret = xa_alloc_cyclic(&client->handles, &res->id, NULL, xa_limit_32b,
			      &client->next_id, CUMK_GFP);
	if (ret < 0)
		goto err_free;
	res->h = h;
	res->obj = obj;
	res->created = false;
	*handle = cumk_handle_value(client, res->id);
	return 0;

err_free:
	kfree(h);
err_uncharge:
	cumk_usage_uncharge(client->usage, CUMK_QUOTA_HANDLES, 1);
	return ret;
}

/*
 * The handle this client has for @obj, counted once more, as the real
 * driver's cuMemRetainAllocationHandle answers; a new one, reserved, when
 * it has none. Takes over the caller's reference on @obj on success. An
 * existing handle is counted at once: aborting takes the count back.
 */
int cumk_handle_retain(struct cumk_client *client, struct cumk_object *obj,
		       struct cumk_handle_reservation *res, u64 *handle)
{
	XA_STATE(xas, &client->handles, 0);
	struct cumk_handle *h;
	int ret = -ENOENT;

	xa_lock(&client->handles);
	xas_for_each(&xas, h, ULONG_MAX) {
		/* Index 0 reads as a busy (zero) entry in an ALLOC1 array. */
		if (xas_retry(&xas, h) || h->obj != obj)
			continue;
		if (h->refs == U32_MAX) {
			ret = -EOVERFLOW;
		} else {
			h->refs++;
			res->h = NULL;
			res->id = xas.xa_index;
			res->obj = obj;
			*handle = cumk_handle_value(client, res->id);
			ret = 0;
		}
		break;
	}
	xa_unlock(&client->handles);
	if (ret == -ENOENT)
		return cumk_handle_reserve(client, obj, res, handle);
	if (!ret)
		cumk_object_put(obj);
	return ret;
}

/* Release handle @id once; its entry goes with its last release. */
static int cumk_handle_drop(struct cumk_client *client, u32 id)
{
	struct cumk_handle *h;
	bool last = false;

	/*
	 * Whether this release is the last is decided under the lock: once
	 * it is dropped, a concurrent last release may free @h.
	 */
	xa_lock(&client->handles);
	h = xa_load(&client->handles, id);
	if (h) {
		last = !--h->refs;
		if (last)
			__xa_erase(&client->handles, id);
	}
	xa_unlock(&client->handles);
	if (!h)
		return -ENOENT;
	if (last) {
		cumk_object_put(h->obj);
		kfree(h);
		cumk_usage_uncharge(client->usage, CUMK_QUOTA_HANDLES, 1);
	}
	return 0;
}

/* The answer reached the caller: the handle becomes valid. Cannot fail. */
void cumk_handle_finalize(struct cumk_client *client,
			  struct cumk_handle_reservation *res)
{
	struct cumk_object *obj = res->obj;
	void *old;

	if (!obj)
		return;
	res->obj = NULL;
	if (!res->h)
		return;
	/* Before the handle is valid, while only we can release the object. */
	if (res->created && obj->ops->publish)
		obj->ops->publish(obj);
	/* Storing over a reservation allocates nothing. */
	old = xa_store(&client->handles, res->id, res->h, CUMK_GFP);
	WARN_ON(old);
}

/* The answer did not reach the caller: as if the handle had never been. */
void cumk_handle_abort(struct cumk_client *client,
		       struct cumk_handle_reservation *res)
{
	struct cumk_object *obj = res->obj;

	if (!obj)
		return;
	res->obj = NULL;
	if (!res->h) {
		cumk_handle_drop(client, res->id);
		return;
	}
	xa_erase(&client->handles, res->id);
	kfree(res->h);
	cumk_usage_uncharge(client->usage, CUMK_QUOTA_HANDLES, 1);
	cumk_object_put(obj);
}

static bool cumk_handle_split(struct cumk_client *client, u64 handle, u32 *id)
{
	*id = lower_32_bits(handle);
	return upper_32_bits(handle) == client->tag && *id;
}

/* A new reference on what @handle names, if it is of @type (or any). */
struct cumk_object *cumk_handle_get(struct cumk_client *client, u64 handle,
				    enum cumk_object_type type)
{
	struct cumk_object *obj = NULL;
	struct cumk_handle *h;
	u32 id;

	if (!cumk_handle_split(client, handle, &id))
		return ERR_PTR(-ENOENT);
	xa_lock(&client->handles);
	h = xa_load(&client->handles, id);
	if (h && (type == CUMK_OBJ_ANY || h->obj->type == type)) {
		obj = h->obj;
		kref_get(&obj->ref);
	}
	xa_unlock(&client->handles);
	return obj ? obj : ERR_PTR(-ENOENT);
}

int cumk_handle_ioctl_release(struct cumk_ucmd *ucmd)
{
	struct cumc_release *cmd = ucmd->cmd;
	u32 id;

	if (cmd->flags)
		return -EOPNOTSUPP;
	if (!cumk_handle_split(ucmd->client, cmd->handle, &id))
		return -ENOENT;
	return cumk_handle_drop(ucmd->client, id);
}

/* One line per live client for debugfs: its tag, then its usage. */
void cumk_clients_show(struct seq_file *m)
{
	struct cumk_client *client;
	unsigned long tag;

	/* A client leaves the array before it is freed: the lock pins it. */
	xa_lock(&cumk_clients);
	xa_for_each(&cumk_clients, tag, client)
		seq_printf(m, "%lu handles %llu objects %llu ranges %llu mapped %llu bound %llu\n",
			   tag,
			   cumk_usage_read(client->usage, CUMK_QUOTA_HANDLES),
			   cumk_usage_read(client->usage, CUMK_QUOTA_OBJECTS),
			   cumk_usage_read(client->usage, CUMK_QUOTA_RANGES),
			   cumk_usage_read(client->usage, CUMK_QUOTA_MAPPED),
			   cumk_usage_read(client->usage, CUMK_QUOTA_BOUND));
	xa_unlock(&cumk_clients);
}
