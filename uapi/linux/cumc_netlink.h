/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cumc: the generic netlink control plane.
 *
 * Family CUMC_GENL_NAME, version CUMC_GENL_VERSION, one multicast group
 * CUMC_GENL_MCGRP_MONITOR for events. Every attribute of every command and
 * event lives in one attribute space, CUMC_A_*; nested attributes use their
 * own spaces, named below. See Documentation/control-plane.md.
 *
 * Reading (the *_GET commands, subscribing to the monitor group) needs no
 * privilege. Commands that change state (FAULT_SET, FM_SET, FM_RESPOND) need
 * CAP_NET_ADMIN and fail with EPERM without it.
 */
#ifndef _UAPI_LINUX_CUMC_NETLINK_H
#define _UAPI_LINUX_CUMC_NETLINK_H

#define CUMC_GENL_NAME "cumc"
#define CUMC_GENL_VERSION 1
#define CUMC_GENL_MCGRP_MONITOR "monitor"

/*
 * Commands. The *_NTF values are events, only ever sent by the kernel to
 * the monitor group; sending one is refused with EOPNOTSUPP.
 *
 * DEV_GET     dump: one message per device: DEV_ORDINAL, DEV_UUID,
 *             DEV_NAME, DEV_PCI_BUS, DEV_MEM_TOTAL, DEV_MEM_FREE,
 *             DEV_BACKEND, DEV_LOST (flag, once the device fell off the bus),
 *             FABRIC_STATE, and for a GPU of a multi-node fabric
 *             FABRIC_NODE (the node that owns it), FABRIC_CLUSTER_UUID,
 *             FABRIC_CLIQUE_ID
 * MC_GET      dump: one message per live multicast object: MC_ID,
 *             MC_TEAM_SIZE, MC_LENGTH, MC_STATE, MC_FM_PENDING (flag, set
 *             while an external fabric manager's answer is awaited), and a
 *             MC_MEMBER (nested, CUMC_MEMBER_A_*) per member, each holding
 *             a MEMBER_BIND (nested, CUMC_BIND_A_*) per binding
 * STATS_GET   dump: one message per device (with DEV_ORDINAL), then one
 *             fabric-wide (without), each with the STAT_* counters
 * FAULT_SET   admin: arm or clear (FAULT_MODE OFF) one fault: FAULT_TYPE,
 *             FAULT_MODE, FAULT_VALUE (N for EVERY_NTH, percent for
 *             PROBABILITY), DEV_ORDINAL (absent: fabric-wide)
 * FAULT_GET   dump: every armed fault: FAULT_TYPE, FAULT_MODE, FAULT_VALUE,
 *             DEV_ORDINAL (absent: fabric-wide), FAULT_HITS
 * FM_SET      admin: FM_MODE and/or FM_TIMEOUT_MS; replies with both
 * FM_GET      do: replies FM_MODE, FM_TIMEOUT_MS
 * FM_RESPOND  admin: FM_REQ_ID and FM_RESULT answer a TEAM_SETUP_REQ_NTF.
 *             ENOENT: no such request (never sent, or its object is gone,
 *             in which case the answer is dropped); EALREADY: answered
 *             already
 *
 * Events (all but DEVICE_LOST_NTF carry MC_ID):
 * MC_CREATE_NTF        a multicast object was created (+ TEAM_SIZE, LENGTH)
 * TEAM_READY_NTF       its team is set up: binds and maps may proceed
 * TEAM_FAILED_NTF      its team failed: binds and maps fail with EIO
 * BIND_NTF, UNBIND_NTF memory bound or unbound: DEV_ORDINAL, BIND_MC_OFFSET,
 *                      BIND_LENGTH
 * MC_DELETE_NTF        the object was freed
 * TEAM_SETUP_REQ_NTF   external mode: the team is complete and asks the
 *                      fabric manager to set it up (+ FM_REQ_ID, TEAM_SIZE,
 *                      LENGTH); answer with FM_RESPOND
 * DEVICE_LOST_NTF      a device fell off the bus (DEV_ORDINAL); its teams
 *                      fail next (TEAM_FAILED_NTF)
 * NODE_LOST_NTF        a node of the IMEX domain was lost (IMEX_NODE): its
 *                      GPUs are lost to this node (Documentation/multinode.md)
 *
 * The node and its IMEX daemon (Documentation/multinode.md):
 * FABRIC_GET           do: this node's fabric identity: FABRIC_NODE,
 *                      FABRIC_CLUSTER_UUID, FABRIC_CLIQUE_ID, FABRIC_STATE,
 *                      IMEX_ATTACHED (flag, while a daemon is attached)
 * IMEX_ATTACH          admin: the sending socket becomes the node's IMEX
 *                      daemon until it closes; EBUSY while another is
 *                      attached. The kernel then sends it IMEX_CALL_REQ.
 * IMEX_CALL_REQ        kernel to the attached socket only (unicast): run
 *                      call IMEX_OP with IMEX_PAYLOAD on node IMEX_NODE and
 *                      answer with IMEX_CALL_RESPOND quoting IMEX_REQ_ID;
 *                      IMEX_REQ_ID 0 wants no answer. Both are opaque to
 *                      the daemon: it carries them to the node's daemon.
 * IMEX_CALL            admin, on the node the call is for: run it for
 *                      caller node IMEX_NODE; replies IMEX_RESULT and, on
 *                      success, IMEX_PAYLOAD (possibly empty)
 * IMEX_CALL_RESPOND    admin: IMEX_REQ_ID, IMEX_RESULT, IMEX_PAYLOAD (the
 *                      IMEX_CALL's reply, or a result of the daemon's own:
 *                      EHOSTUNREACH, the node is not in the domain;
 *                      EHOSTDOWN, it is lost). ENOENT: no such request
 *                      (answered, timed out or never sent)
 * IMEX_NODE_LOST       admin: node IMEX_NODE is lost (its VM or its daemon
 *                      stopped answering): its GPUs are lost here, what it
 *                      imported from here is released, calls to it fail
 * IMEX_NODE_JOIN       admin: node IMEX_NODE's daemon connected and proved
 *                      it holds the domain's secret: its GPUs lost with it
 *                      serve new imports and teams again (what was made of
 *                      them before stays lost); nothing when none was lost
 * DEV_SET              admin: one device's (DEV_ORDINAL) or, without it,
 *                      every device's conditions, as a sick fabric shows
 *                      them (Documentation/scenarios.md): FABRIC_STATE
 *                      held at NOT_STARTED or IN_PROGRESS (COMPLETED lets
 *                      go: the device shows its own state again),
 *                      FABRIC_HEALTH_MASK (NVML's healthMask bits),
 *                      DEV_MULTICAST 0 or 1; DEV_RESET first drops every
 *                      condition set before. Given attributes only; none
 *                      changes unless all are valid
 * FABRIC_SET           admin: the fabric's FABRIC_MC_LIMIT
 */
enum cumc_nl_cmd {
	CUMC_CMD_UNSPEC,
	CUMC_CMD_DEV_GET,
	CUMC_CMD_MC_GET,
	CUMC_CMD_STATS_GET,
	CUMC_CMD_FAULT_SET,
	CUMC_CMD_FAULT_GET,
	CUMC_CMD_FM_SET,
	CUMC_CMD_FM_GET,
	CUMC_CMD_FM_RESPOND,
	CUMC_CMD_MC_CREATE_NTF,
	CUMC_CMD_TEAM_READY_NTF,
	CUMC_CMD_TEAM_FAILED_NTF,
	CUMC_CMD_BIND_NTF,
	CUMC_CMD_UNBIND_NTF,
	CUMC_CMD_MC_DELETE_NTF,
	CUMC_CMD_TEAM_SETUP_REQ_NTF,
	CUMC_CMD_DEVICE_LOST_NTF,
	CUMC_CMD_FABRIC_GET,
	CUMC_CMD_IMEX_ATTACH,
	CUMC_CMD_IMEX_CALL_REQ,
	CUMC_CMD_IMEX_CALL,
	CUMC_CMD_IMEX_CALL_RESPOND,
	CUMC_CMD_IMEX_NODE_LOST,
	CUMC_CMD_NODE_LOST_NTF,
	CUMC_CMD_IMEX_NODE_JOIN,
	CUMC_CMD_DEV_SET,
	CUMC_CMD_FABRIC_SET,

	__CUMC_CMD_MAX,
	CUMC_CMD_MAX = __CUMC_CMD_MAX - 1
};

enum cumc_nl_attr {
	CUMC_A_UNSPEC,
	CUMC_A_PAD,
	CUMC_A_DEV_ORDINAL,		/* u32 */
	CUMC_A_DEV_UUID,		/* binary, 16 bytes */
	CUMC_A_DEV_NAME,		/* string */
	CUMC_A_DEV_PCI_BUS,		/* u32 */
	CUMC_A_DEV_MEM_TOTAL,		/* u64, bytes */
	CUMC_A_DEV_MEM_FREE,		/* u64, bytes */
	CUMC_A_MC_ID,			/* u32, stable while the object lives */
	CUMC_A_MC_TEAM_SIZE,		/* u32 */
	CUMC_A_MC_LENGTH,		/* u64, bytes per member */
	CUMC_A_MC_STATE,		/* u32, enum cumc_team_state_uapi */
	CUMC_A_MC_FM_PENDING,		/* flag */
	CUMC_A_MC_MEMBER,		/* nested CUMC_MEMBER_A_*, repeated */
	CUMC_A_BIND_MC_OFFSET,		/* u64 (events) */
	CUMC_A_BIND_LENGTH,		/* u64 (events) */
	CUMC_A_STAT_OBJECTS,		/* u64, live allocations + multicast objects */
	CUMC_A_STAT_BOUND_BYTES,	/* u64, bytes bound now */
	CUMC_A_STAT_BINDS,		/* u64, binds ever done */
	CUMC_A_STAT_MAPS,		/* u64, maps ever done */
	CUMC_A_STAT_WAITS,		/* u64, binds/maps that waited for a team */
	CUMC_A_STAT_FAULTS,		/* u64, faults injected */
	CUMC_A_FAULT_TYPE,		/* u32, enum cumc_fault_type */
	CUMC_A_FAULT_MODE,		/* u32, enum cumc_fault_mode */
	CUMC_A_FAULT_VALUE,		/* u32 */
	CUMC_A_FAULT_HITS,		/* u64 */
	CUMC_A_FM_MODE,			/* u32, enum cumc_fm_mode */
	CUMC_A_FM_TIMEOUT_MS,		/* u32, 1 to 3600000 */
	CUMC_A_FM_REQ_ID,		/* u32 */
	CUMC_A_FM_RESULT,		/* u32, enum cumc_fm_result */
	CUMC_A_DEV_BACKEND,		/* string: "pci" or "system" */
	CUMC_A_DEV_LOST,		/* flag: the device fell off the bus */
	CUMC_A_FABRIC_NODE,		/* u32, this node's index in the fabric */
	CUMC_A_FABRIC_CLUSTER_UUID,	/* binary, 16 bytes */
	CUMC_A_FABRIC_CLIQUE_ID,	/* u32 */
	CUMC_A_FABRIC_STATE,		/* u32, enum cumc_fabric_state */
	CUMC_A_IMEX_ATTACHED,		/* flag */
	CUMC_A_IMEX_REQ_ID,		/* u32 */
	CUMC_A_IMEX_NODE,		/* u32, a node's index in the fabric */
	CUMC_A_IMEX_OP,			/* u32, opaque to the daemon */
	CUMC_A_IMEX_PAYLOAD,		/* binary, at most CUMC_IMEX_PAYLOAD_MAX */
	CUMC_A_IMEX_RESULT,		/* u32, 0 or a positive errno */
	CUMC_A_FAULT_DELAY_MS,		/* u32, 1 to 3600000: FABRIC_STALL's length */
	CUMC_A_FABRIC_HEALTH_MASK,	/* u32, NVML's nvmlGpuFabricInfo healthMask */
	CUMC_A_FABRIC_STATE_HELD,	/* flag (DEV_GET): FABRIC_STATE is held */
	CUMC_A_DEV_MULTICAST,		/* u32, 0 or 1: the device can join teams */
	CUMC_A_DEV_RESET,		/* flag (DEV_SET): drop every condition */
	CUMC_A_FABRIC_MC_LIMIT,		/* u32, 1 to 65536: teams set up at once */
	CUMC_A_FABRIC_MC_TEAMS,		/* u32 (FABRIC_GET): teams set up now */

	__CUMC_A_MAX,
	CUMC_A_MAX = __CUMC_A_MAX - 1
};

enum cumc_nl_member_attr {
	CUMC_MEMBER_A_UNSPEC,
	CUMC_MEMBER_A_PAD,
	CUMC_MEMBER_A_DEVICE,		/* u32 */
	CUMC_MEMBER_A_BIND,		/* nested CUMC_BIND_A_*, repeated */

	__CUMC_MEMBER_A_MAX,
	CUMC_MEMBER_A_MAX = __CUMC_MEMBER_A_MAX - 1
};

enum cumc_nl_bind_attr {
	CUMC_BIND_A_UNSPEC,
	CUMC_BIND_A_PAD,
	CUMC_BIND_A_MC_OFFSET,		/* u64 */
	CUMC_BIND_A_LENGTH,		/* u64 */
	CUMC_BIND_A_MEM_OFFSET,		/* u64 */

	__CUMC_BIND_A_MAX,
	CUMC_BIND_A_MAX = __CUMC_BIND_A_MAX - 1
};

/*
 * Injectable faults, and what the user of libcumc sees (Documentation/
 * faults.md):
 * FABRIC_NOT_READY      team setup is never answered: binds and maps of the
 *                       team fail with ETIMEDOUT (CUDA_ERROR_SYSTEM_NOT_READY)
 * FABRIC_ILLEGAL_STATE  team setup fails: EIO (CUDA_ERROR_ILLEGAL_STATE)
 * BIND_NO_RESOURCES     a bind fails with ENOSPC (CUDA_ERROR_OUT_OF_MEMORY)
 * MEM_EXHAUSTED         an allocation fails with ENOSPC (OUT_OF_MEMORY)
 * IMPORT_NOT_PERMITTED  an import fails with EPERM (NOT_PERMITTED)
 * IMEX_SEND             a message of the kernel's to its IMEX daemon is
 *                       refused, as by a full socket buffer: the kernel
 *                       sends it again later, in order
 * REMOTE_LATE           a call this node runs for another node (an import,
 *                       a team's join, bind, activation) answers after
 *                       this node's fm_timeout_ms and one second more
 * ADD_DEVICE            a device's join to a team fails with EIO
 *                       (CUDA_ERROR_ILLEGAL_STATE); the team stays forming
 * UNBIND_INVALID        an unbind fails with EINVAL (INVALID_VALUE) and
 *                       unbinds nothing
 * FABRIC_STALL          the fabric manager answers a team's setup after
 *                       FAULT_DELAY_MS (default 7000): binds and maps
 *                       waiting past fm_timeout_ms get ETIMEDOUT
 *                       (SYSTEM_NOT_READY), and the team is ready once
 *                       the stall ends
 */
enum cumc_fault_type {
	CUMC_FAULT_FABRIC_NOT_READY,
	CUMC_FAULT_FABRIC_ILLEGAL_STATE,
	CUMC_FAULT_BIND_NO_RESOURCES,
	CUMC_FAULT_MEM_EXHAUSTED,
	CUMC_FAULT_IMPORT_NOT_PERMITTED,
	CUMC_FAULT_IMEX_SEND,
	CUMC_FAULT_REMOTE_LATE,
	CUMC_FAULT_ADD_DEVICE,
	CUMC_FAULT_UNBIND_INVALID,
	CUMC_FAULT_FABRIC_STALL,

	CUMC_FAULT_NR
};

/* ONCE disarms itself after its hit; EVERY_NTH hits calls N, 2N, ... */
enum cumc_fault_mode {
	CUMC_FAULT_MODE_OFF,
	CUMC_FAULT_MODE_ONCE,
	CUMC_FAULT_MODE_EVERY_NTH,
	CUMC_FAULT_MODE_PROBABILITY,
};

/* The most bytes an IMEX call or its answer carries. */
#define CUMC_IMEX_PAYLOAD_MAX 16384

/*
 * A GPU's fabric state, with the values of NVML's nvmlGpuFabricState_t: a
 * GPU of a multi-node fabric (its PCI identity names a cluster) is
 * COMPLETED, any other NOT_SUPPORTED, unless DEV_SET holds it at
 * NOT_STARTED or IN_PROGRESS: then teams with it as a member are never set
 * up (binds and maps wait, then get ETIMEDOUT), as while a fabric manager
 * has not finished.
 */

/* FABRIC_MC_LIMIT's default: GB200 NVL72's multicast teams per rack. */
#define CUMC_FABRIC_MC_LIMIT_DEFAULT 1024
enum cumc_fabric_state {
	CUMC_FABRIC_STATE_NOT_SUPPORTED,
	CUMC_FABRIC_STATE_NOT_STARTED,
	CUMC_FABRIC_STATE_IN_PROGRESS,
	CUMC_FABRIC_STATE_COMPLETED,
};

enum cumc_fm_mode {
	CUMC_FM_MODE_KERNEL,	/* the in-kernel fabric manager, the default */
	CUMC_FM_MODE_EXTERNAL,	/* a daemon answers TEAM_SETUP_REQ_NTF */
};

enum cumc_fm_result {
	CUMC_FM_RESULT_OK,
	CUMC_FM_RESULT_FAIL,
};

#endif /* _UAPI_LINUX_CUMC_NETLINK_H */
