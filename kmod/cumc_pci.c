// SPDX-License-Identifier: GPL-2.0
/*
 * The PCI driver of cumc's GPUs: QEMU ivshmem devices whose shared memory
 * (BAR 2) starts with cumc's identity, written by whoever made the device
 * (scripts/vm-run). Each such device becomes a cumc device whose memory is
 * the rest of the BAR (cumc_bar.c); its removal is the GPU falling off the
 * bus (cumc_loss.c). ivshmem devices without the identity belong to someone
 * else and are left alone. Documentation/devices.md has the layout.
 */
#include <linux/io.h>
#include <linux/pci.h>
#include <linux/sizes.h>

#include "cumc_internal.h"

#define CUMK_PCI_VENDOR_REDHAT 0x1af4
#define CUMK_PCI_DEVICE_IVSHMEM 0x1110
#define CUMK_PCI_MEM_BAR 2
#define CUMK_PCI_MAGIC "cumc-gpu"
/* Version 2 adds the GPU's place in a multi-node fabric. */
#define CUMK_PCI_VERSION_SINGLE 1
#define CUMK_PCI_VERSION_FABRIC 2

/**
 * struct cumk_pci_identity - the start of a cumc GPU's BAR 2, little-endian
 * @magic: CUMK_PCI_MAGIC, not NUL-terminated
 * @version: CUMK_PCI_VERSION_*
 * @header_size: bytes the identity takes; memory starts at or after it
 * @mem_offset: where device memory starts in the BAR, page-aligned
 * @mem_size: bytes of device memory
 * @uuid: the GPU's UUID
 * @name: its product name, NUL-padded
 * @node: (version 2) the fabric node that owns the GPU
 * @clique_id: (version 2) its clique in the cluster
 * @cluster_uuid: (version 2) the fabric's cluster
 */
struct cumk_pci_identity {
	u8 magic[8];
	__le32 version;
	__le32 header_size;
	__le64 mem_offset;
	__le64 mem_size;
	u8 uuid[16];
	char name[64];
	__le32 node;
	__le32 clique_id;
	u8 cluster_uuid[16];
};

/* The bytes of a version 1 identity, which ends at the name. */
#define CUMK_PCI_IDENTITY_V1_SIZE offsetof(struct cumk_pci_identity, node)

/* Why the identity at the start of a BAR of @bar_len bytes is unusable. */
static const char *cumk_pci_identity_error(const struct cumk_pci_identity *id,
					   u64 bar_len)
{
	u64 header_size = le32_to_cpu(id->header_size);
	u64 mem_offset = le64_to_cpu(id->mem_offset);
	u64 mem_size = le64_to_cpu(id->mem_size);
	u64 granularity = cumk_device_granularity();
	/* Allocations start granule-aligned in the BAR: what that skips. */
	u64 skip = round_up(mem_offset, granularity) - mem_offset;

	u32 version = le32_to_cpu(id->version);

	if (version != CUMK_PCI_VERSION_SINGLE &&
	    version != CUMK_PCI_VERSION_FABRIC)
		return "an identity of an unknown version";
	if (header_size < (version == CUMK_PCI_VERSION_SINGLE ?
			   CUMK_PCI_IDENTITY_V1_SIZE : sizeof(*id)) ||
	    header_size > mem_offset)
		return "an identity whose size overlaps device memory";
	if (!PAGE_ALIGNED(mem_offset))
		return "device memory not aligned to a page in the BAR";
	if (mem_offset > bar_len || mem_size > bar_len - mem_offset)
		return "a BAR smaller than the device memory it declares";
	if (mem_size <= skip || mem_size - skip < granularity)
		return "less device memory than one granule";
	return NULL;
}

/* Read the identity, once: the device's memory is shared with the host. */
static int cumk_pci_read_identity(struct pci_dev *pdev,
				  struct cumk_pci_identity *id)
{
	resource_size_t start = pci_resource_start(pdev, CUMK_PCI_MEM_BAR);
	resource_size_t len = pci_resource_len(pdev, CUMK_PCI_MEM_BAR);
	void *head;

	if (!(pci_resource_flags(pdev, CUMK_PCI_MEM_BAR) & IORESOURCE_MEM) ||
	    len < PAGE_SIZE)
		return -ENODEV;
	head = memremap(start, PAGE_SIZE, MEMREMAP_WB);
	if (!head)
		return -ENOMEM;
	memcpy(id, head, sizeof(*id));
	memunmap(head);
	return memcmp(id->magic, CUMK_PCI_MAGIC, sizeof(id->magic)) ? -ENODEV : 0;
}

/*
 * A fabric GPU's cluster must be this node's; whether it is this node's
 * own GPU or another node's, which this node reaches through the fabric.
 */
static int cumk_pci_fabric_place(struct pci_dev *pdev,
				 const struct cumk_pci_identity *id,
				 bool *remote)
{
	int ret;

	*remote = false;
	if (le32_to_cpu(id->version) != CUMK_PCI_VERSION_FABRIC)
		return 0;
	ret = cumk_node_join_cluster(id->cluster_uuid,
				     le32_to_cpu(id->clique_id));
	if (ret == -EXDEV)
		dev_err(&pdev->dev, "cumc GPU of cluster %pUb clique %u, not this node's: ignored\n",
			id->cluster_uuid, le32_to_cpu(id->clique_id));
	else if (ret)
		dev_err(&pdev->dev, "cumc GPU of a fabric, but this node's index is out of range: ignored\n");
	*remote = le32_to_cpu(id->node) != cumk_node_index();
	return ret ? -ENODEV : 0;
}

static struct cumk_device *cumk_pci_create(struct pci_dev *pdev,
					   const struct cumk_pci_identity *id,
					   bool remote)
{
	resource_size_t start = pci_resource_start(pdev, CUMK_PCI_MEM_BAR);
	resource_size_t len = pci_resource_len(pdev, CUMK_PCI_MEM_BAR);
	u64 mem_offset = le64_to_cpu(id->mem_offset);
	struct cumk_device *dev;
	void *bar;

	/* Released with the device (pcim), after remove() let go of it. */
	bar = devm_memremap(&pdev->dev, start, len, MEMREMAP_WB);
	if (IS_ERR(bar))
		return ERR_CAST(bar);
	dev = cumk_bar_create(start + mem_offset, bar + mem_offset, mem_offset,
			      le64_to_cpu(id->mem_size), remote);
	if (IS_ERR(dev))
		return dev;
	dev->fabric = le32_to_cpu(id->version) == CUMK_PCI_VERSION_FABRIC;
	dev->node = dev->fabric ? le32_to_cpu(id->node) : cumk_node_index();
	dev->remote = remote;
	memcpy(dev->uuid, id->uuid, sizeof(dev->uuid));
	strscpy_pad(dev->name, id->name,
		    min(sizeof(dev->name), sizeof(id->name)));
	dev->pci_domain = pci_domain_nr(pdev->bus);
	dev->pci_bus = pdev->bus->number;
	dev->pci_device = PCI_SLOT(pdev->devfn);
	return dev;
}

static int cumk_pci_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct cumk_pci_identity id;
	struct cumk_device *dev;
	const char *error;
	bool remote;
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = cumk_pci_read_identity(pdev, &id);
	if (ret) {
		dev_info(&pdev->dev, "no cumc identity in BAR %d: not a cumc GPU, left alone\n",
			 CUMK_PCI_MEM_BAR);
		return ret;
	}
	error = cumk_pci_identity_error(&id,
					pci_resource_len(pdev, CUMK_PCI_MEM_BAR));
	if (error) {
		dev_err(&pdev->dev, "cumc GPU with %s: ignored\n", error);
		return -ENODEV;
	}
	ret = cumk_pci_fabric_place(pdev, &id, &remote);
	if (ret)
		return ret;
	/* Managed: pcim_enable_device() has the region released with it. */
	ret = pci_request_region(pdev, CUMK_PCI_MEM_BAR, KBUILD_MODNAME);
	if (ret)
		return ret;
	dev = cumk_pci_create(pdev, &id, remote);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	ret = cumk_device_add(dev);
	if (ret) {
		if (ret == -EEXIST)
			dev_err(&pdev->dev, "cumc GPU %pUb is present already: this one ignored\n",
				dev->uuid);
		dev->ops->release(dev);
		return ret == -EEXIST ? -ENODEV : ret;
	}
	pci_set_drvdata(pdev, dev);
	if (remote)
		dev_info(&pdev->dev, "cumc GPU %pUb of node %u: reachable through the fabric\n",
			 dev->uuid, dev->node);
	else
		dev_info(&pdev->dev, "cumc device %u: %s, %llu MiB of device memory\n",
			 dev->ordinal, dev->name, dev->mem_total >> 20);
	return 0;
}

static void cumk_pci_remove(struct pci_dev *pdev)
{
	cumk_loss_remove(&pdev->dev, pci_get_drvdata(pdev));
}

static const struct pci_device_id cumk_pci_ids[] = {
	{ PCI_DEVICE(CUMK_PCI_VENDOR_REDHAT, CUMK_PCI_DEVICE_IVSHMEM) },
	{ }
};
MODULE_DEVICE_TABLE(pci, cumk_pci_ids);

static struct pci_driver cumk_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = cumk_pci_ids,
	.probe = cumk_pci_probe,
	.remove = cumk_pci_remove,
};

/* Probes the devices present before it returns. */
int cumk_pci_init(void)
{
	return pci_register_driver(&cumk_pci_driver);
}

void cumk_pci_exit(void)
{
	pci_unregister_driver(&cumk_pci_driver);
}
