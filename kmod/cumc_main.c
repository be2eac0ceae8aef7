// SPDX-License-Identifier: GPL-2.0
/*
 * cumc: a software NVLink multicast fabric.
 *
 * The module simulates GPUs on a multicast-capable fabric and offers them
 * through /dev/cumc, whose ioctls libcumc turns into the CUDA driver API's
 * virtual memory and multicast entry points.
 */
#include <linux/miscdevice.h>
#include <linux/module.h>

#include "cumc_internal.h"

static int cumk_fops_open(struct inode *inode, struct file *filp)
{
	struct cumk_client *client;

	client = cumk_client_create();
	if (IS_ERR(client))
		return PTR_ERR(client);
	filp->private_data = client;
	cumk_vm_open(filp);
	return 0;
}

/* Each close(): the client's empty arenas here go, and their hold on it. */
static int cumk_fops_flush(struct file *filp, fl_owner_t id)
{
	cumk_va_flush(filp->private_data);
	return 0;
}

static int cumk_fops_release(struct inode *inode, struct file *filp)
{
	cumk_client_destroy(filp->private_data);
	return 0;
}

static const struct file_operations cumk_fops = {
	.owner = THIS_MODULE,
	.open = cumk_fops_open,
	.flush = cumk_fops_flush,
	.release = cumk_fops_release,
	.mmap = cumk_vm_mmap,
	.get_unmapped_area = cumk_vm_get_unmapped_area,
	.unlocked_ioctl = cumk_fops_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice cumk_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "cumc",
	.fops = &cumk_fops,
	.mode = 0666,
};

static int __init cumk_init(void)
{
	int ret;

	ret = cumk_vm_init();
	if (ret)
		return ret;
	ret = cumk_team_wq_init();
	if (ret)
		goto err_vm;
	ret = cumk_sharing_init();
	if (ret)
		goto err_team;
	cumk_debugfs_init();
	ret = cumk_remote_init();
	if (ret)
		goto err_debugfs;
	/* Objects shareable across nodes are the multi-node code's kind. */
	cumk_mc_set_origin_kind(&cumk_remote_mc_origin);
	/* Before the device: every object's events need the family. */
	ret = cumk_netlink_init();
	if (ret)
		goto err_remote;
	/*
	 * PCI devices first: system-memory ones, on cumc's bus, stand in when
	 * there are none.
	 */
	ret = cumk_pci_init();
	if (ret)
		goto err_netlink;
	ret = cumk_bus_init(cumk_num_devices() > 0);
	if (ret)
		goto err_pci;
	ret = misc_register(&cumk_miscdev);
	if (ret)
		goto err_bus;
	return 0;

err_bus:
	cumk_bus_exit();
err_pci:
	cumk_pci_exit();
err_netlink:
	cumk_netlink_exit();
	cumk_imex_exit();
err_remote:
	cumk_remote_exit();
err_debugfs:
	cumk_debugfs_exit();
	cumk_sharing_exit();
err_team:
	cumk_team_wq_exit();
err_vm:
	cumk_vm_exit();
	cumk_devices_exit();
	return ret;
}

static void __exit cumk_exit(void)
{
	misc_deregister(&cumk_miscdev);
	/* Before the devices and the family: a freed object uses both. */
	cumk_mc_exit();
	cumk_team_wq_exit();
	cumk_bus_exit();
	cumk_pci_exit();
	cumk_netlink_exit();
	cumk_imex_exit();
	cumk_remote_exit();
	cumk_debugfs_exit();
	cumk_sharing_exit();
	cumk_vm_exit();
	cumk_devices_exit();
}

module_init(cumk_init);
module_exit(cumk_exit);

MODULE_DESCRIPTION("cumc: simulated GPUs on a software NVLink multicast fabric");
MODULE_LICENSE("GPL");
/* The Makefile's VERSION, through kmod/Kbuild. */
MODULE_VERSION(CUMK_VERSION);
