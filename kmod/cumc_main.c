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

static int cumc_fops_open(struct inode *inode, struct file *filp)
{
	struct cumc_client *client;

	client = cumc_client_create();
	if (IS_ERR(client))
		return PTR_ERR(client);
	filp->private_data = client;
	cumc_vm_open(filp);
	return 0;
}

static int cumc_fops_release(struct inode *inode, struct file *filp)
{
	cumc_client_destroy(filp->private_data);
	return 0;
}

static const struct file_operations cumc_fops = {
	.owner = THIS_MODULE,
	.open = cumc_fops_open,
	.release = cumc_fops_release,
	.mmap = cumc_vm_mmap,
	.get_unmapped_area = cumc_vm_get_unmapped_area,
	.unlocked_ioctl = cumc_fops_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice cumc_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "cumc",
	.fops = &cumc_fops,
	.mode = 0666,
};

static int __init cumc_init(void)
{
	int ret;

	ret = cumc_devices_init();
	if (ret)
		return ret;
	ret = cumc_vm_init();
	if (ret)
		goto err_devices;
	ret = cumc_sharing_init();
	if (ret)
		goto err_vm;
	cumc_debugfs_init();
	/* Before the device: every object's events need the family. */
	ret = cumc_netlink_init();
	if (ret)
		goto err_debugfs;
	ret = misc_register(&cumc_miscdev);
	if (ret)
		goto err_netlink;
	return 0;

err_netlink:
	cumc_netlink_exit();
err_debugfs:
	cumc_debugfs_exit();
	cumc_sharing_exit();
err_vm:
	cumc_vm_exit();
err_devices:
	cumc_devices_exit();
	return ret;
}

static void __exit cumc_exit(void)
{
	misc_deregister(&cumc_miscdev);
	cumc_netlink_exit();
	cumc_debugfs_exit();
	cumc_sharing_exit();
	cumc_vm_exit();
	cumc_devices_exit();
}

module_init(cumc_init);
module_exit(cumc_exit);

MODULE_DESCRIPTION("cumc: simulated GPUs on a software NVLink multicast fabric");
MODULE_LICENSE("GPL");
