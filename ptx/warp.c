// SPDX-License-Identifier: MIT
/*
 * Warp operations: shfl.sync, vote.sync, match.sync, redux.sync,
 * activemask and bar.warp.sync (__syncwarp).  A thread reaching one keeps its sources in its
 * struct ptx_thread and waits (TS_WARP), as at a barrier of the lanes its
 * membermask names; when the last of them arrives at the same
 * instruction, the operation is computed for all of them at once and
 * they go on.  Lanes that exited, or that the CTA does not have (a last
 * partial warp), are left out of the membermask, so a full mask in a
 * partial warp completes.  activemask names no lanes: it completes when
 * no lane of the warp can run any more (every one waits at a warp
 * operation or a barrier, or exited) and answers the lanes waiting at
 * that same activemask, the lanes a GPU would run it with.  Time-slicing
 * does not matter: lanes arrive in any order, in any slice.
 */
#include "exec.h"

static void put(uint64_t *regs, const struct ptx_operand *o, uint64_t v,
		unsigned int size)
{
	if (o->kind == PO_REG)
		regs[o->reg] = size >= 8 ? v : v & ((1ull << (size * 8)) - 1);
}

/* shfl.sync for lane @l of @group: the source lane's value, and p. */
static uint64_t shfl(const struct ptx_insn *in, const struct ptx_thread *lanes,
		     uint32_t group, unsigned int l, bool *p)
{
	const struct ptx_thread *t = &lanes[l];
	int b = t->wv[1] & 0x1f, c = t->wv[2] & 0x1f;
	int seg = (t->wv[2] >> 8) & 0x1f;
	int lane = l, max = (lane & seg) | (c & ~seg), min = lane & seg;
	int j;

	switch (in->wmode) {
	case WM_UP:
		j = lane - b;
		*p = j >= max;
		break;
	case WM_DOWN:
		j = lane + b;
		*p = j <= max;
		break;
	case WM_BFLY:
		j = lane ^ b;
		*p = j <= max;
		break;
	default:	/* idx */
		j = min | (b & ~seg);
		*p = j <= max;
		break;
	}
	if (!*p)
		j = lane;
	/* A source lane not taking part: undefined in the ISA; its own. */
	if (j < 0 || j >= PTX_WARP_SIZE || !(group >> j & 1))
		j = lane;
	return lanes[j].wv[0];
}

static uint32_t redux(const struct ptx_insn *in,
		      const struct ptx_thread *lanes, uint32_t group)
{
	bool first = true, sgn = in->type.cls == PC_S;
	uint32_t r = 0;
	unsigned int l;

	for (l = 0; l < PTX_WARP_SIZE; l++) {
		uint32_t v = lanes[l].wv[0];

		if (!(group >> l & 1))
			continue;
		if (first) {
			r = v;
			first = false;
			continue;
		}
		switch (in->aop) {
		case AOP_ADD: r += v; break;
		case AOP_AND: r &= v; break;
		case AOP_OR: r |= v; break;
		case AOP_XOR: r ^= v; break;
		case AOP_MIN:
			if (sgn ? (int32_t)v < (int32_t)r : v < r)
				r = v;
			break;
		default:	/* max */
			if (sgn ? (int32_t)v > (int32_t)r : v > r)
				r = v;
			break;
		}
	}
	return r;
}

/* Computes @in for the lanes of @group and lets them go. */
static void complete(struct ptx_cta *cta, unsigned int base, uint32_t group,
		     const struct ptx_insn *in)
{
	struct ptx_thread *lanes = &cta->threads[base];
	uint32_t ballot = 0, red = 0;
	unsigned int l, m;

	for (l = 0; l < PTX_WARP_SIZE; l++)
		if ((group >> l & 1) && lanes[l].wv[0])
			ballot |= 1u << l;
	if (in->op == OP_REDUX)
		red = redux(in, lanes, group);
	for (l = 0; l < PTX_WARP_SIZE; l++) {
		uint64_t *regs;
		uint64_t d = 0;
		bool p = false;

		if (!(group >> l & 1))
			continue;
		regs = lanes[l].regs;
		switch (in->op) {
		case OP_SHFL:
			d = shfl(in, lanes, group, l, &p);
			break;
		case OP_VOTE:
			if (in->wmode == WM_BALLOT)
				d = ballot;
			else if (in->wmode == WM_ALL)
				d = ballot == group;
			else if (in->wmode == WM_ANY)
				d = ballot != 0;
			else
				d = !ballot || ballot == group;
			break;
		case OP_MATCH:
			p = true;
			for (m = 0; m < PTX_WARP_SIZE; m++) {
				if (!(group >> m & 1))
					continue;
				if (lanes[m].wv[0] == lanes[l].wv[0])
					d |= 1u << m;
				else
					p = false;
			}
			if (in->wmode == WM_ALL)
				d = p ? group : 0;
			break;
		case OP_REDUX:
			d = red;
			break;
		case OP_WARPSYNC:
			lanes[l].pc++;
			lanes[l].state = TS_RUN;
			continue;
		default:	/* activemask */
			d = group;
			break;
		}
		put(regs, &in->o[0], d, in->op == OP_VOTE &&
		    in->wmode != WM_BALLOT ? 1 : in->type.size);
		if (in->nopnd > 1 && (in->op == OP_SHFL || in->op == OP_MATCH))
			put(regs, &in->o[1], p, 1);
		lanes[l].pc++;
		lanes[l].state = TS_RUN;
	}
}

int ptx_warp_check(struct ptx_cta *cta, unsigned int warp)
{
	unsigned int base = warp * PTX_WARP_SIZE;
	unsigned int n = cta->nthreads - base, l, m;
	struct ptx_thread *lanes = &cta->threads[base];
	uint32_t present = 0, blocked = 0;
	int released = 0;

	if (n > PTX_WARP_SIZE)
		n = PTX_WARP_SIZE;
	for (l = 0; l < n; l++) {
		if (lanes[l].state == TS_EXITED)
			continue;
		present |= 1u << l;
		if (lanes[l].state != TS_RUN)
			blocked |= 1u << l;
	}
	for (l = 0; l < n; l++) {
		const struct ptx_thread *t = &lanes[l];
		const struct ptx_insn *in;
		uint32_t group = 0;
		bool ok = true;

		if (t->state != TS_WARP)
			continue;
		in = &t->fn->insns[t->pc];
		if (in->op == OP_ACTIVEMASK) {
			if (blocked != present)
				continue;
			for (m = 0; m < n; m++)
				if (lanes[m].state == TS_WARP &&
				    lanes[m].fn == t->fn && lanes[m].pc == t->pc)
					group |= 1u << m;
		} else {
			group = (t->wmask & present) | 1u << l;
			/* Every lane named, and every lane they name, here. */
			for (m = 0; m < n && ok; m++)
				if (group >> m & 1)
					ok = lanes[m].state == TS_WARP &&
					     lanes[m].fn == t->fn &&
					     lanes[m].pc == t->pc &&
					     !(lanes[m].wmask & present &
					       ~group);
			if (!ok)
				continue;
		}
		complete(cta, base, group, in);
		released = 1;
		blocked &= ~group;
	}
	return released;
}
