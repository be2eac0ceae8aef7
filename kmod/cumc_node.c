// SPDX-License-Identifier: GPL-2.0
/*
 * This node of a multi-node fabric (an NVL72 rack's compute tray): its
 * index among the fabric's nodes, which the administrator gives, and the
 * cluster and clique its GPUs belong to, which their PCI identities
 * declare (cumc_pci.c). A node's GPUs belong to one cluster: a GPU naming
 * another is refused. Documentation/multinode.md has the model.
 */
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "cumc_internal.h"

static unsigned int fabric_node;
module_param(fabric_node, uint, 0444);
MODULE_PARM_DESC(fabric_node,
		 "This node's index in a multi-node fabric, 0 to 143 (default 0)");

static DEFINE_MUTEX(cumk_node_lock); /* protects the cluster below */
static bool cumk_cluster_known;
static u8 cumk_cluster_uuid[16];
static u32 cumk_clique_id;

/*
 * How many times each other node was lost (cumc_loss.c counts, under its
 * lock, before it marks the node's GPUs): an answer of a node asked
 * before its latest loss describes what it let go of since.
 */
static atomic_t cumk_node_losses[CUMK_MAX_NODES];

u32 cumk_node_index(void)
{
	return fabric_node;
}

/*
 * A GPU of @cluster_uuid's clique @clique_id joins this node: the first
 * decides the node's cluster, the others must name the same (-EXDEV), and
 * the node's index must fit the fabric (-ERANGE).
 */
int cumk_node_join_cluster(const u8 *cluster_uuid, u32 clique_id)
{
	int ret = 0;

	if (fabric_node >= CUMK_MAX_NODES)
		return -ERANGE;
	mutex_lock(&cumk_node_lock);
	if (!cumk_cluster_known) {
		memcpy(cumk_cluster_uuid, cluster_uuid, sizeof(cumk_cluster_uuid));
		cumk_clique_id = clique_id;
		cumk_cluster_known = true;
	} else if (memcmp(cumk_cluster_uuid, cluster_uuid,
			  sizeof(cumk_cluster_uuid)) ||
		   cumk_clique_id != clique_id) {
		ret = -EXDEV;
	}
	mutex_unlock(&cumk_node_lock);
	return ret;
}

/* The node's cluster, once a GPU declared one; false before. */
bool cumk_node_cluster(u8 *cluster_uuid, u32 *clique_id)
{
	bool known;

	mutex_lock(&cumk_node_lock);
	known = cumk_cluster_known;
	if (known) {
		memcpy(cluster_uuid, cumk_cluster_uuid, sizeof(cumk_cluster_uuid));
		*clique_id = cumk_clique_id;
	}
	mutex_unlock(&cumk_node_lock);
	return known;
}

/* Count a loss of node @node; nodes beyond the fabric are never asked. */
void cumk_node_count_loss(u32 node)
{
	if (node < CUMK_MAX_NODES)
		atomic_inc(&cumk_node_losses[node]);
}

/* How many times node @node was lost so far. */
u32 cumk_node_loss_count(u32 node)
{
	return node < CUMK_MAX_NODES ? atomic_read(&cumk_node_losses[node]) : 0;
}

/* Whether this node is part of a multi-node fabric: a GPU declared one. */
bool cumk_node_in_fabric(void)
{
	u8 cluster_uuid[16];
	u32 clique_id;

	return cumk_node_cluster(cluster_uuid, &clique_id);
}
