// SPDX-License-Identifier: GPL-2.0
/*
 * Per-client and per-user quotas.
 *
 * Every client has a usage record: handles in its table, objects it
 * created, address ranges it holds (reservations, multicast objects), bytes
 * mapped in its reservations, bytes it bound into multicast objects, and
 * how many mappings (member views included) and bindings it made. A charge
 * that would take a count over its module parameter fails the call with
 * EDQUOT before anything changes.
 *
 * A process may open /dev/cumc as often as RLIMIT_NOFILE lets it, so each
 * client's record is charged again to its opener's user (struct
 * cumk_user, by real uid, as the kernel's own user_struct counts processes):
 * one record per uid, shared by all of its clients, with limits of its own
 * (max_user_*). Clients opened with CAP_SYS_ADMIN are counted there but not
 * limited. The module's 65535 address ranges (cumc_vm.c) are shared by all
 * users: the unprivileged may take all but reserved_address_ranges of them,
 * and past that get ENOSPC, so that root can still reserve.
 *
 * A charge goes with what was charged and is returned to the client that
 * paid for it, whoever lets it go: an allocation imported by another client
 * is uncharged from its creator's record when the last holder releases it,
 * a binding from its binder's when the multicast object drops it. Such
 * things may outlive their client, so they hold a reference on the record,
 * which outlives the client's file as long as anything charged to it does,
 * and the record holds its user's. Limits are checked when charging only:
 * lowering one leaves what is charged in place and refuses new charges
 * until usage is below it.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/moduleparam.h>
#include <linux/refcount.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uidgid.h>

#include "cumc_internal.h"

/**
 * struct cumk_quota - one limit, a module parameter
 * @limit: what one client (or one user) may have charged at a time
 * @max: the largest value the parameter accepts
 */
struct cumk_quota {
	u64 limit;
	u64 max;
};

/**
 * struct cumk_user - what is charged to all clients one user opened
 * @node: its entry in cumk_users, under cumk_users_lock
 * @ref: one per usage record of its clients
 * @uid: the real uid of the openers
 * @used: enum cumk_quota_type counts, atomic: no lock
 */
struct cumk_user {
	struct hlist_node node;
	refcount_t ref;
	kuid_t uid;
	atomic64_t used[CUMK_QUOTA_NR];
};

/*
 * Users with a live record, by uid. A spinlock: the last put of a record
 * may come from wherever an object is let go.
 */
static DEFINE_HASHTABLE(cumk_users, 6);
static DEFINE_SPINLOCK(cumk_users_lock);

/*
 * Far above what NCCL or PyTorch reach (thousands of allocations, tens of
 * GiB mapped), low enough that one client cannot take all of the 65535
 * address ranges or an unbounded amount of kernel memory.
 */
static struct cumk_quota cumk_quotas[CUMK_QUOTA_NR] = {
	[CUMK_QUOTA_HANDLES] = { 1U << 18, U32_MAX },
	[CUMK_QUOTA_OBJECTS] = { 1U << 17, U32_MAX },
	[CUMK_QUOTA_RANGES] = { 8192, CUMK_VM_MAX_SLOTS },
	[CUMK_QUOTA_MAPPED] = { 1ULL << 42, 1ULL << 62 },
	[CUMK_QUOTA_BOUND] = { 1ULL << 42, 1ULL << 62 },
	[CUMK_QUOTA_MAPPINGS] = { 1U << 19, U32_MAX },
	[CUMK_QUOTA_BINDINGS] = { 1U << 18, U32_MAX },
};

/*
 * One user's: room for a job of several processes, each of one client, a
 * kernel memory footprint of tens of MiB per limit (Documentation/
 * security.md), a quarter of the address ranges.
 */
static struct cumk_quota cumk_user_quotas[CUMK_QUOTA_NR] = {
	[CUMK_QUOTA_HANDLES] = { 1U << 19, U32_MAX },
	[CUMK_QUOTA_OBJECTS] = { 1U << 18, U32_MAX },
	[CUMK_QUOTA_RANGES] = { 16384, CUMK_VM_MAX_SLOTS },
	[CUMK_QUOTA_MAPPED] = { 1ULL << 44, 1ULL << 62 },
	[CUMK_QUOTA_BOUND] = { 1ULL << 44, 1ULL << 62 },
	[CUMK_QUOTA_MAPPINGS] = { 1U << 19, U32_MAX },
	[CUMK_QUOTA_BINDINGS] = { 1U << 18, U32_MAX },
};

/* Address ranges only the privileged may take. */
static struct cumk_quota cumk_reserved_ranges = { 1024, CUMK_VM_MAX_SLOTS - 1 };

/* Address ranges the unprivileged hold, all users together. */
static atomic64_t cumk_shared_ranges = ATOMIC64_INIT(0);

static int cumk_quota_set(const char *val, const struct kernel_param *kp)
{
	struct cumk_quota *q = kp->arg;
	u64 limit;
	int ret;

	ret = kstrtoull(val, 0, &limit);
	if (ret)
		return ret;
	if ((!limit && q != &cumk_reserved_ranges) || limit > q->max)
		return -EINVAL;
	WRITE_ONCE(q->limit, limit);
	return 0;
}

static int cumk_quota_get(char *buf, const struct kernel_param *kp)
{
	struct cumk_quota *q = kp->arg;

	return sysfs_emit(buf, "%llu\n", READ_ONCE(q->limit));
}

static const struct kernel_param_ops cumk_quota_ops = {
	.set = cumk_quota_set,
	.get = cumk_quota_get,
};

module_param_cb(max_handles, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_HANDLES], 0644);
MODULE_PARM_DESC(max_handles,
		 "Handles one client may hold, imports and retains included, 1 to 2^32-1 (default 262144)");
module_param_cb(max_objects, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_OBJECTS], 0644);
MODULE_PARM_DESC(max_objects,
		 "Allocations and multicast objects one client may have created and not yet freed, 1 to 2^32-1 (default 131072)");
module_param_cb(max_address_ranges, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_RANGES], 0644);
MODULE_PARM_DESC(max_address_ranges,
		 "Reservations plus multicast objects of one client, of the module's 65535, 1 to 65535 (default 8192)");
module_param_cb(max_mapped_bytes, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_MAPPED], 0644);
MODULE_PARM_DESC(max_mapped_bytes,
		 "Bytes one client may have mapped in its reservations, 1 to 2^62 (default 4 TiB)");
module_param_cb(max_bound_bytes, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_BOUND], 0644);
MODULE_PARM_DESC(max_bound_bytes,
		 "Bytes one client may have bound into multicast objects, 1 to 2^62 (default 4 TiB)");
module_param_cb(max_mappings, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_MAPPINGS], 0644);
MODULE_PARM_DESC(max_mappings,
		 "Mappings and member views one client may have, 1 to 2^32-1 (default 524288)");
module_param_cb(max_bindings, &cumk_quota_ops,
		&cumk_quotas[CUMK_QUOTA_BINDINGS], 0644);
MODULE_PARM_DESC(max_bindings,
		 "Bindings into multicast objects one client may have made, 1 to 2^32-1 (default 262144)");

module_param_cb(max_user_handles, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_HANDLES], 0644);
MODULE_PARM_DESC(max_user_handles,
		 "Handles all clients of one user may hold, 1 to 2^32-1 (default 524288)");
module_param_cb(max_user_objects, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_OBJECTS], 0644);
MODULE_PARM_DESC(max_user_objects,
		 "Allocations and multicast objects all clients of one user may have, 1 to 2^32-1 (default 262144)");
module_param_cb(max_user_address_ranges, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_RANGES], 0644);
MODULE_PARM_DESC(max_user_address_ranges,
		 "Reservations plus multicast objects of all clients of one user, 1 to 65535 (default 16384)");
module_param_cb(max_user_mapped_bytes, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_MAPPED], 0644);
MODULE_PARM_DESC(max_user_mapped_bytes,
		 "Bytes all clients of one user may have mapped, 1 to 2^62 (default 16 TiB)");
module_param_cb(max_user_bound_bytes, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_BOUND], 0644);
MODULE_PARM_DESC(max_user_bound_bytes,
		 "Bytes all clients of one user may have bound, 1 to 2^62 (default 16 TiB)");
module_param_cb(max_user_mappings, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_MAPPINGS], 0644);
MODULE_PARM_DESC(max_user_mappings,
		 "Mappings and member views of all clients of one user, 1 to 2^32-1 (default 524288)");
module_param_cb(max_user_bindings, &cumk_quota_ops,
		&cumk_user_quotas[CUMK_QUOTA_BINDINGS], 0644);
MODULE_PARM_DESC(max_user_bindings,
		 "Bindings all clients of one user may have made, 1 to 2^32-1 (default 262144)");
module_param_cb(reserved_address_ranges, &cumk_quota_ops,
		&cumk_reserved_ranges, 0644);
MODULE_PARM_DESC(reserved_address_ranges,
		 "Address ranges of the module's 65535 that only CAP_SYS_ADMIN may take, 0 to 65534 (default 1024)");

static void cumk_user_put(struct cumk_user *user)
{
	int i;

	/* Under the lock: a lookup may not revive a record going away. */
	spin_lock(&cumk_users_lock);
	if (!refcount_dec_and_test(&user->ref)) {
		spin_unlock(&cumk_users_lock);
		return;
	}
	hash_del(&user->node);
	spin_unlock(&cumk_users_lock);
	for (i = 0; i < CUMK_QUOTA_NR; i++)
		WARN_ON_ONCE(atomic64_read(&user->used[i]));
	kfree(user);
}

static struct cumk_user *cumk_user_find(kuid_t uid)
{
	struct cumk_user *user;

	lockdep_assert_held(&cumk_users_lock);
	hash_for_each_possible(cumk_users, user, node, __kuid_val(uid))
		if (uid_eq(user->uid, uid) && refcount_inc_not_zero(&user->ref))
			return user;
	return NULL;
}

/* The record of @uid, with a new reference: found, or made. */
static struct cumk_user *cumk_user_get(kuid_t uid)
{
	struct cumk_user *user, *found;

	spin_lock(&cumk_users_lock);
	found = cumk_user_find(uid);
	spin_unlock(&cumk_users_lock);
	if (found)
		return found;
	user = kzalloc(sizeof(*user), CUMK_GFP);
	if (!user)
		return NULL;
	refcount_set(&user->ref, 1);
	user->uid = uid;
	spin_lock(&cumk_users_lock);
	found = cumk_user_find(uid);
	if (!found)
		hash_add(cumk_users, &user->node, __kuid_val(uid));
	spin_unlock(&cumk_users_lock);
	if (found) {
		kfree(user);
		return found;
	}
	return user;
}

/* Lines of debugfs's users: uid, then usage. */
void cumk_users_show(struct seq_file *m)
{
	static const char *const names[CUMK_QUOTA_NR] = {
		"handles", "objects", "ranges", "mapped", "bound",
		"mappings", "bindings",
	};
	struct cumk_user *user;
	int bkt, i;

	spin_lock(&cumk_users_lock);
	seq_printf(m, "shared_ranges %lld\n",
		   (long long)atomic64_read(&cumk_shared_ranges));
	hash_for_each(cumk_users, bkt, user, node) {
		seq_printf(m, "%u", from_kuid(&init_user_ns, user->uid));
		for (i = 0; i < CUMK_QUOTA_NR; i++)
			seq_printf(m, " %s %lld", names[i],
				   (long long)atomic64_read(&user->used[i]));
		seq_putc(m, '\n');
	}
	spin_unlock(&cumk_users_lock);
}

/*
 * A new usage record; with @opener, charged again to the calling process's
 * user and privileged if it has CAP_SYS_ADMIN (we are in its open()).
 */
struct cumk_usage *cumk_usage_create(bool opener)
{
	struct cumk_usage *usage;

	usage = kzalloc(sizeof(*usage), CUMK_GFP);
	if (!usage)
		return NULL;
	if (opener) {
		usage->user = cumk_user_get(current_uid());
		if (!usage->user) {
			kfree(usage);
			return NULL;
		}
		usage->privileged = ns_capable_noaudit(&init_user_ns,
						       CAP_SYS_ADMIN);
	} else {
		usage->privileged = true;
	}
	kref_init(&usage->ref);
	atomic_inc(&cumk_live_usages);
	return usage;
}

struct cumk_usage *cumk_usage_get(struct cumk_usage *usage)
{
	kref_get(&usage->ref);
	return usage;
}

static void cumk_usage_release(struct kref *ref)
{
	struct cumk_usage *usage = container_of(ref, struct cumk_usage, ref);
	int i;

	/* Everything charged holds a reference: nothing may be left. */
	for (i = 0; i < CUMK_QUOTA_NR; i++)
		WARN_ON_ONCE(atomic64_read(&usage->used[i]));
	if (usage->user)
		cumk_user_put(usage->user);
	atomic_dec(&cumk_live_usages);
	kfree(usage);
}

void cumk_usage_put(struct cumk_usage *usage)
{
	kref_put(&usage->ref, cumk_usage_release);
}

/* Add @n to @used unless that passes @limit. */
static bool cumk_count_charge(atomic64_t *used, u64 limit, u64 n)
{
	s64 cur = atomic64_read(used);

	do {
		if (n > limit || cur > limit - n)
			return false;
	} while (!atomic64_try_cmpxchg(used, &cur, cur + n));
	return true;
}

static void cumk_count_uncharge(atomic64_t *used, u64 n)
{
	WARN_ON_ONCE(atomic64_sub_return(n, used) < 0);
}

/* Whether @usage's address ranges come from the pool shared by all. */
static bool cumk_usage_shares_ranges(struct cumk_usage *usage,
				     enum cumk_quota_type quota)
{
	return quota == CUMK_QUOTA_RANGES && !usage->privileged;
}

/*
 * Charge @n of @quota to the client and its user: -EDQUOT when that would
 * pass the client's or the user's limit, -ENOSPC when the unprivileged
 * would take address ranges kept for the privileged.
 */
int cumk_usage_charge(struct cumk_usage *usage, enum cumk_quota_type quota,
		      u64 n)
{
	struct cumk_user *user = usage->user;
	u64 pool;

	if (!cumk_count_charge(&usage->used[quota],
			       READ_ONCE(cumk_quotas[quota].limit), n))
		return -EDQUOT;
	if (!user)
		return 0;
	if (!cumk_count_charge(&user->used[quota],
			       usage->privileged ? U64_MAX :
			       READ_ONCE(cumk_user_quotas[quota].limit), n))
		goto err_client;
	if (cumk_usage_shares_ranges(usage, quota)) {
		pool = CUMK_VM_MAX_SLOTS -
		       min_t(u64, READ_ONCE(cumk_reserved_ranges.limit),
			     CUMK_VM_MAX_SLOTS);
		if (!cumk_count_charge(&cumk_shared_ranges, pool, n)) {
			cumk_count_uncharge(&user->used[quota], n);
			cumk_count_uncharge(&usage->used[quota], n);
			return -ENOSPC;
		}
	}
	return 0;

err_client:
	cumk_count_uncharge(&usage->used[quota], n);
	return -EDQUOT;
}

void cumk_usage_uncharge(struct cumk_usage *usage, enum cumk_quota_type quota,
			 u64 n)
{
	struct cumk_user *user = usage->user;

	if (user) {
		if (cumk_usage_shares_ranges(usage, quota))
			cumk_count_uncharge(&cumk_shared_ranges, n);
		cumk_count_uncharge(&user->used[quota], n);
	}
	cumk_count_uncharge(&usage->used[quota], n);
}

u64 cumk_usage_read(struct cumk_usage *usage, enum cumk_quota_type quota)
{
	return atomic64_read(&usage->used[quota]);
}

/* Whether @a and @b are the same client's or clients of the same user. */
bool cumk_usage_same_user(struct cumk_usage *a, struct cumk_usage *b)
{
	return a == b || (a->user && a->user == b->user);
}

/* Whether @usage is a client's that @uid opened. */
bool cumk_usage_owned_by(struct cumk_usage *usage, kuid_t uid)
{
	return usage->user && uid_eq(usage->user->uid, uid);
}

/* Two charges, or neither: a count of things and the bytes they cover. */
static int cumk_usage_charge_two(struct cumk_usage *usage,
				 enum cumk_quota_type count,
				 enum cumk_quota_type bytes, u64 length)
{
	int ret;

	ret = cumk_usage_charge(usage, count, 1);
	if (ret)
		return ret;
	ret = cumk_usage_charge(usage, bytes, length);
	if (ret)
		cumk_usage_uncharge(usage, count, 1);
	return ret;
}

/* A mapping of @length bytes: one of max_mappings, @length of mapped. */
int cumk_usage_charge_mapping(struct cumk_usage *usage, u64 length)
{
	return cumk_usage_charge_two(usage, CUMK_QUOTA_MAPPINGS,
				     CUMK_QUOTA_MAPPED, length);
}

void cumk_usage_uncharge_mapping(struct cumk_usage *usage, u64 length)
{
	cumk_usage_uncharge(usage, CUMK_QUOTA_MAPPED, length);
	cumk_usage_uncharge(usage, CUMK_QUOTA_MAPPINGS, 1);
}

/* A binding of @length bytes: one of max_bindings, @length of bound. */
int cumk_usage_charge_bind(struct cumk_usage *usage, u64 length)
{
	return cumk_usage_charge_two(usage, CUMK_QUOTA_BINDINGS,
				     CUMK_QUOTA_BOUND, length);
}

void cumk_usage_uncharge_bind(struct cumk_usage *usage, u64 length)
{
	cumk_usage_uncharge(usage, CUMK_QUOTA_BOUND, length);
	cumk_usage_uncharge(usage, CUMK_QUOTA_BINDINGS, 1);
}
