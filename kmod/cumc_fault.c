// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: the failures users meet on real fabrics (fabric manager
 * down, team setup failed, fabric out of resources, device memory full,
 * importer not permitted, a join or an unbind refused, a fabric manager
 * answering late), on demand, per device or fabric-wide.
 *
 * A site asks cumk_fault_hit() whether to fail; the device's entry is
 * consulted first, then the fabric-wide one.
 */
#include <linux/random.h>
#include <linux/spinlock.h>

#include "cumc_compat.h"
#include "cumc_internal.h"
#include "cumc_trace.h"

/**
 * struct cumk_fault - one armed fault
 * @mode: enum cumc_fault_mode
 * @value: N of EVERY_NTH, percent of PROBABILITY
 * @calls: calls seen while armed, for EVERY_NTH
 * @hits: faults injected
 * @delay_ms: FABRIC_STALL's length; 0 for the other kinds
 */
struct cumk_fault {
	u32 mode;
	u32 value;
	u64 calls;
	u64 hits;
	u32 delay_ms;
};

/* Slot CUMC_MAX_DEVICES is the fabric-wide entry. */
#define CUMK_FAULT_FABRIC CUMC_MAX_DEVICES

static DEFINE_SPINLOCK(cumk_fault_lock); /* protects cumk_faults; a leaf */
static struct cumk_fault cumk_faults[CUMC_FAULT_NR][CUMC_MAX_DEVICES + 1];

/*
 * Arm (or disarm) @type for @device, or fabric-wide when negative.
 * @delay_ms is FABRIC_STALL's length (0: its default); no other kind has
 * one.
 */
int cumk_fault_set(enum cumc_fault_type type, s32 device,
		   enum cumc_fault_mode mode, u32 value, u32 delay_ms)
{
	struct cumk_fault *f;
	u32 slot;

	if (type >= CUMC_FAULT_NR || mode > CUMC_FAULT_MODE_PROBABILITY)
		return -EINVAL;
	if ((mode == CUMC_FAULT_MODE_EVERY_NTH && !value) ||
	    (mode == CUMC_FAULT_MODE_PROBABILITY && (!value || value > 100)))
		return -EINVAL;
	if (delay_ms && type != CUMC_FAULT_FABRIC_STALL)
		return -EINVAL;
	if (type == CUMC_FAULT_FABRIC_STALL && !delay_ms)
		delay_ms = CUMK_FAULT_STALL_DEFAULT_MS;
	if (device < 0)
		slot = CUMK_FAULT_FABRIC;
	else if (cumk_device_find(device))
		slot = device;
	else
		return -ENODEV;
	spin_lock(&cumk_fault_lock);
	f = &cumk_faults[type][slot];
	f->mode = mode;
	f->value = value;
	f->calls = 0;
	f->delay_ms = delay_ms;
	if (mode == CUMC_FAULT_MODE_OFF)
		f->hits = 0;
	spin_unlock(&cumk_fault_lock);
	return 0;
}

static bool cumk_fault_eval(struct cumk_fault *f)
{
	bool hit;

	switch (f->mode) {
	case CUMC_FAULT_MODE_ONCE:
		f->mode = CUMC_FAULT_MODE_OFF;
		hit = true;
		break;
	case CUMC_FAULT_MODE_EVERY_NTH:
		hit = ++f->calls % f->value == 0;
		break;
	case CUMC_FAULT_MODE_PROBABILITY:
		hit = cumk_random_below(100) < f->value;
		break;
	default:
		hit = false;
	}
	if (hit)
		f->hits++;
	return hit;
}

/* A hit's delay, if @delay_ms is not NULL, is read with the hit. */
static bool cumk_fault_hit_slot(enum cumc_fault_type type, u32 slot,
				struct cumk_device *dev, u32 *delay_ms)
{
	u64 hits;
	bool hit;

	spin_lock(&cumk_fault_lock);
	hit = cumk_fault_eval(&cumk_faults[type][slot]);
	hits = cumk_faults[type][slot].hits;
	if (hit && delay_ms)
		*delay_ms = cumk_faults[type][slot].delay_ms;
	spin_unlock(&cumk_fault_lock);
	if (!hit)
		return false;
	cumk_stat_add(dev, CUMK_STAT_FAULTS, 1);
	trace_cumc_fault(type, slot == CUMK_FAULT_FABRIC ? -1 : (s32)slot,
			 hits);
	return true;
}

/* Whether the site should fail now; counts the fault when it should. */
bool cumk_fault_hit(enum cumc_fault_type type, struct cumk_device *dev)
{
	/* Another node's GPU has no entry of its own here. */
	if (dev && !dev->remote &&
	    cumk_fault_hit_slot(type, dev->ordinal, dev, NULL))
		return true;
	return cumk_fault_hit_slot(type, CUMK_FAULT_FABRIC, NULL, NULL);
}

/*
 * A team fault: any member's entry, then the fabric-wide one, once; the
 * entry that hit gives its delay to @delay_ms, when not NULL.
 */
bool cumk_fault_hit_mc_delay(enum cumc_fault_type type, struct cumk_mc *mc,
			     u32 *delay_ms)
{
	struct cumk_device *dev;
	u32 i;

	for (i = 0; i < mc->team.num_members; i++) {
		dev = mc->members[i].dev;
		if (!dev->remote &&
		    cumk_fault_hit_slot(type, dev->ordinal, dev, delay_ms))
			return true;
	}
	return cumk_fault_hit_slot(type, CUMK_FAULT_FABRIC, NULL, delay_ms);
}

bool cumk_fault_hit_mc(enum cumc_fault_type type, struct cumk_mc *mc)
{
	return cumk_fault_hit_mc_delay(type, mc, NULL);
}

/* The @index'th armed fault or one with hits, or -ENOENT past the last. */
int cumk_fault_get(unsigned int index, struct cumk_fault_info *info)
{
	unsigned int type, slot, n = 0;
	struct cumk_fault *f;

	spin_lock(&cumk_fault_lock);
	for (type = 0; type < CUMC_FAULT_NR; type++) {
		for (slot = 0; slot <= CUMK_FAULT_FABRIC; slot++) {
			f = &cumk_faults[type][slot];
			if (f->mode == CUMC_FAULT_MODE_OFF && !f->hits)
				continue;
			if (n++ != index)
				continue;
			info->type = type;
			info->device = slot == CUMK_FAULT_FABRIC ? -1 : slot;
			info->mode = f->mode;
			info->value = f->value;
			info->hits = f->hits;
			info->delay_ms = f->delay_ms;
			spin_unlock(&cumk_fault_lock);
			return 0;
		}
	}
	spin_unlock(&cumk_fault_lock);
	return -ENOENT;
}
