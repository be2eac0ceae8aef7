// SPDX-License-Identifier: GPL-2.0
/*
 * A device's conditions (CUMC_CMD_DEV_SET): what a sick fabric shows of a
 * GPU, on an administrator's demand (Documentation/faults.md): its fabric
 * state held at NOT_STARTED or IN_PROGRESS (teams with it as a member are
 * never set up), NVML's health mask overridden, multicast off (it cannot
 * join teams, and reports no CUMC_CAP_MULTICAST).
 *
 * They live in the device (struct cumk_device's @cond), under
 * cumk_cond_lock, a leaf: readers take a snapshot under it. Nothing is
 * allocated: a device keeps its conditions past its loss, as it keeps its
 * ordinal (DEV_GET still lists it, DEV_SET may still reset it), and they
 * go with it at module unload. A GPU hot-plugged again is a new device,
 * with a new ordinal and no condition.
 */
#include <linux/lockdep.h>
#include <linux/spinlock.h>

#include "cumc_internal.h"

static DEFINE_SPINLOCK(cumk_cond_lock); /* protects every device's cond */

static void cumk_cond_apply_locked(struct cumk_device *dev,
				   const struct cumk_cond_change *c)
{
	struct cumk_cond *cond = &dev->cond;

	lockdep_assert_held(&cumk_cond_lock);
	if (c->reset)
		memset(cond, 0, sizeof(*cond));
	if (c->set_state)
		cond->held_state = c->held_state;
	if (c->set_health_mask) {
		cond->health_mask_set = true;
		cond->health_mask = c->health_mask;
	}
	if (c->set_multicast)
		cond->no_multicast = !c->multicast;
}

/* @c, checked by the caller, on @dev; all of it at once for readers. */
void cumk_cond_apply(struct cumk_device *dev, const struct cumk_cond_change *c)
{
	spin_lock(&cumk_cond_lock);
	cumk_cond_apply_locked(dev, c);
	spin_unlock(&cumk_cond_lock);
}

/* A consistent copy of @dev's conditions. */
void cumk_cond_read(struct cumk_device *dev, struct cumk_cond *out)
{
	spin_lock(&cumk_cond_lock);
	*out = dev->cond;
	spin_unlock(&cumk_cond_lock);
}

/* Whether @dev's fabric state is held short of COMPLETED. */
bool cumk_cond_fabric_held(struct cumk_device *dev)
{
	struct cumk_cond cond;

	cumk_cond_read(dev, &cond);
	return cond.held_state != CUMC_FABRIC_STATE_NOT_SUPPORTED;
}

/* Whether @dev may join multicast teams. */
bool cumk_cond_multicast(struct cumk_device *dev)
{
	struct cumk_cond cond;

	cumk_cond_read(dev, &cond);
	return !cond.no_multicast;
}
