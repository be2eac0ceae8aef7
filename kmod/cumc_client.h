/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Open files of /dev/cumc, their handle tables, and one ioctl call from its
 * dispatch to its answer (cumc_client.c, cumc_ucmd.c, cumc_ioctl.c).
 */
#ifndef _CUMK_CLIENT_H
#define _CUMK_CLIENT_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/xarray.h>
#include "cumc_object.h"

struct cumk_handle;
struct cumk_mapping;
struct cumk_usage;
struct cumk_va;
struct cumk_vm_request;
struct file;
struct seq_file;
struct task_struct;

/**
 * struct cumk_client - one open file of /dev/cumc
 * @handles: handle id -> struct cumk_handle, each holding a reference on
 *           its object; the xarray's own lock serializes changes
 * @next_id: where the cyclic search for a free handle id starts
 * @tag: the upper 32 bits of every handle this client issues, unique among
 *       live clients so that another client's handle never resolves here
 * @reserve_lock: one CUMC_VA_RESERVE at a time; taken before mmap_lock
 * @pending_lock: protects @pending and @pending_task
 * @pending: the mapping cumk_vm_map() is placing with vm_mmap()
 * @pending_task: the thread doing so; only its mmap may take @pending
 * @arenas_lock: protects @arenas; taken after mmap_lock (of any process:
 *               a forked child shares the client) and before cumk_arena.lock
 * @arenas: the shared struct cumk_arena of this client, in every process
 * @spare_va: a freed struct cumk_va kept for the next reservation, or
 *            NULL; exchanged atomically, freed with the client
 * @spare_mapping: the same for struct cumk_mapping and the next map
 * @channel: the IMEX channel attached, or CUMK_NO_CHANNEL; set once
 * @usage: what is charged to this client, and may outlive it
 */
struct cumk_client {
	struct xarray handles;
	u32 next_id;
	u32 tag;
	struct mutex reserve_lock; /* one cumk_vm_map() at a time */
	spinlock_t pending_lock; /* protects pending, pending_task */
	struct cumk_vm_request *pending;
	struct task_struct *pending_task;
	struct mutex arenas_lock; /* protects arenas */
	struct list_head arenas;
	struct cumk_va *spare_va;
	struct cumk_mapping *spare_mapping;
	int channel;
	struct cumk_usage *usage;
};

/**
 * struct cumk_handle_reservation - a handle given to a caller, not yet valid
 * @h: the new entry, NULL when an existing handle was retained
 * @id: its index in the client's table
 * @obj: the object; set while a reservation is pending
 * @created: @obj is new: publish it when the handle is finalized
 *
 * A command that answers a handle reserves it (cumk_handle_reserve() or
 * cumk_handle_retain()); the dispatcher finalizes it once the answer has
 * reached the caller, or aborts it. Until then nothing else sees it.
 */
struct cumk_handle_reservation {
	struct cumk_handle *h;
	u32 id;
	struct cumk_object *obj;
	bool created;
};

/**
 * struct cumk_ucmd - one ioctl call
 * @filp: the open file of /dev/cumc
 * @client: its client
 * @ubuffer: the caller's struct
 * @user_size: its size as the caller gave it
 * @cmd: the kernel's copy, the command's struct
 * @new_handle: the handle the command answers, if any
 * @undo: set by a command that made something other than a handle and
 *        answers it (a reservation): called when the answer cannot be
 *        written, to take it away again; it finds what the command made
 *        in @cmd, which still holds the answer. NULL: nothing to undo.
 */
struct cumk_ucmd {
	struct file *filp;
	struct cumk_client *client;
	void __user *ubuffer;
	u32 user_size;
	void *cmd;
	struct cumk_handle_reservation new_handle;
	void (*undo)(struct cumk_ucmd *ucmd);
};

/* cumc_ucmd.c: the command's struct, in; and back, no more than the caller has */
int cumk_ucmd_read(struct cumk_ucmd *ucmd, unsigned int size);
int cumk_ucmd_respond(struct cumk_ucmd *ucmd, size_t cmd_len);

/* cumc_client.c: open files and their handle tables */
struct cumk_client *cumk_client_create(void);
void cumk_client_destroy(struct cumk_client *client);
int cumk_handle_reserve(struct cumk_client *client, struct cumk_object *obj,
			struct cumk_handle_reservation *res, u64 *handle);
int cumk_handle_retain(struct cumk_client *client, struct cumk_object *obj,
		       struct cumk_handle_reservation *res, u64 *handle);
void cumk_handle_finalize(struct cumk_client *client,
			  struct cumk_handle_reservation *res);
void cumk_handle_abort(struct cumk_client *client,
		       struct cumk_handle_reservation *res);
struct cumk_object *cumk_handle_get(struct cumk_client *client, u64 handle,
				    enum cumk_object_type type);
int cumk_handle_ioctl_release(struct cumk_ucmd *ucmd);
void cumk_clients_show(struct seq_file *m);

/* A new handle for @obj, answered by @ucmd; takes over the reference. */
static inline int cumk_ucmd_new_handle(struct cumk_ucmd *ucmd,
				       struct cumk_object *obj, u64 *handle)
{
	return cumk_handle_reserve(ucmd->client, obj, &ucmd->new_handle,
				   handle);
}

/* The same for an object @ucmd created: published when it is finalized. */
static inline int cumk_ucmd_new_object(struct cumk_ucmd *ucmd,
				       struct cumk_object *obj, u64 *handle)
{
	int ret = cumk_ucmd_new_handle(ucmd, obj, handle);

	if (!ret)
		ucmd->new_handle.created = true;
	return ret;
}

/* cumc_ioctl.c: the dispatch table */
long cumk_fops_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _CUMK_CLIENT_H */
