/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What handles name: the object every kind embeds, its reference and charge,
 * and the fabric export table (cumc_object.c).
 */
#ifndef _CUMK_OBJECT_H
#define _CUMK_OBJECT_H

#include <linux/kref.h>
#include <linux/types.h>

struct cumk_usage;

enum cumk_object_type {
	CUMK_OBJ_ANY = 0,	/* only as a lookup filter */
	CUMK_OBJ_MEM,
	CUMK_OBJ_MC,
};

#define CUMK_FABRIC_SECRET_LEN 32
#define CUMK_NO_CHANNEL (-1)

struct cumk_object;

/**
 * struct cumk_object_ops - what differs between kinds of object
 * @destroy: frees the containing object at the last cumk_object_put()
 * @publish: makes a new object visible beyond its creator's handle (the
 *           control plane, events) once its creation can no longer fail;
 *           may be NULL
 */
struct cumk_object_ops {
	void (*destroy)(struct cumk_object *obj);
	void (*publish)(struct cumk_object *obj);
};

/**
 * struct cumk_object - what a handle names
 * @type: enum cumk_object_type, fixed at creation
 * @handle_types: enum cumc_handle_types it may be exported as
 * @ref: one per handle, mapping, exported fd or other holder
 * @ops: its kind's operations
 * @fabric_id: its entry in the fabric export table, 0 until first exported
 *             as a fabric handle; set once under cumk_fabric_lock
 * @fabric_channel: the IMEX channel of that export
 * @fabric_secret: the random part of its fabric handle
 * @usage: the creator's, charged one object (and for a multicast object one
 *         address range) until the object is freed; holds a reference
 */
struct cumk_object {
	enum cumk_object_type type;
	u32 handle_types;
	struct kref ref;
	const struct cumk_object_ops *ops;
	u32 fabric_id;
	int fabric_channel;
	u8 fabric_secret[CUMK_FABRIC_SECRET_LEN];
	struct cumk_usage *usage;
};

/* cumc_object.c: what handles name, and the fabric export table */
int cumk_object_charge(struct cumk_usage *usage, struct cumk_object *obj);
void cumk_object_uncharge(struct cumk_object *obj);
void cumk_object_init(struct cumk_object *obj, enum cumk_object_type type,
		      u32 handle_types, const struct cumk_object_ops *ops);
void cumk_object_put(struct cumk_object *obj);
int cumk_object_fabric_publish(struct cumk_object *obj, int channel);
void cumk_object_fabric_init(void);
void cumk_object_fabric_handle(struct cumk_object *obj, u8 *out);
bool cumk_object_fabric_origin(const u8 *handle, u32 *node, int *channel);
struct cumk_object *cumk_object_fabric_lookup(const u8 *handle);

#endif /* _CUMK_OBJECT_H */
