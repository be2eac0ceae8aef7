// SPDX-License-Identifier: GPL-2.0
/*
 * IMEX channel devices. Having opened channelN is the permission to use
 * fabric handles of channel N (cumc_sharing.c attaches it to a client).
 *
 * Every channel has a device node under each name that software looks
 * for: cumc's own, /dev/cumc-imex-channels/channelN, and NVIDIA's,
 * /dev/nvidia-caps-imex-channels/channelN, whose major /proc/devices lists
 * as "nvidia-caps-imex-channels", as NVIDIA's driver registers it: setup
 * scripts read it there to mknod the nodes, container runtimes and the
 * Kubernetes DRA driver pass them on, and setup checks look for them. Both
 * nodes of a channel open the same channel; each has its own mode, so
 * each is a door an administrator opens on its own. Where NVIDIA's driver
 * is loaded those names are its own: nvidia_imex_channels=0 leaves them
 * to it.
 */
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>

#include "cumc_compat.h"
#include "cumc_internal.h"

static unsigned int imex_channels = 4;
module_param(imex_channels, uint, 0444);
MODULE_PARM_DESC(imex_channels, "Number of IMEX channels, 1 to 256 (default 4)");

static bool nvidia_imex_channels = true;
module_param(nvidia_imex_channels, bool, 0444);
MODULE_PARM_DESC(nvidia_imex_channels,
		 "Offer the channels under NVIDIA's names too, /dev/nvidia-caps-imex-channels/channelN (default 1; 0 where NVIDIA's driver is loaded)");

/* The channels under one name: a chrdev region, a class, their nodes. */
struct cumk_channel_names {
	const char *name;	/* in /proc/devices, and the class's */
	const char *dir;	/* of the nodes, under /dev */
	dev_t devt;
	struct class *class;
	struct cdev cdev;
};

static struct cumk_channel_names cumk_channels_cumc = {
	.name = "cumc-imex",
	.dir = "cumc-imex-channels",
};

static struct cumk_channel_names cumk_channels_nvidia = {
	.name = "nvidia-caps-imex-channels",
	.dir = "nvidia-caps-imex-channels",
};

static int cumk_channel_open(struct inode *inode, struct file *filp)
{
	return nonseekable_open(inode, filp);
}

static const struct file_operations cumk_channel_fops = {
	.owner = THIS_MODULE,
	.open = cumk_channel_open,
};

/*
 * The channel @file is open on, whichever name it was opened by (a node a
 * user made with mknod counts too), or -EBADFD when it is no channel.
 */
int cumk_channel_of_file(struct file *file)
{
	if (file->f_op != &cumk_channel_fops)
		return -EBADFD;
	return iminor(file_inode(file));
}

static char *cumk_channel_devnode(CUMK_DEVNODE_CONST struct device *dev,
				  umode_t *mode)
{
	const struct cumk_channel_names *names = dev_get_drvdata(dev);

	return kasprintf(GFP_KERNEL, "%s/%s", names->dir, dev_name(dev));
}

static void cumk_channel_names_del(struct cumk_channel_names *names,
				   unsigned int num_nodes)
{
	while (num_nodes--)
		device_destroy(names->class,
			       MKDEV(MAJOR(names->devt), num_nodes));
	cdev_del(&names->cdev);
	class_destroy(names->class);
	unregister_chrdev_region(names->devt, imex_channels);
}

static int cumk_channel_names_add(struct cumk_channel_names *names)
{
	unsigned int i;
	int ret;

	ret = alloc_chrdev_region(&names->devt, 0, imex_channels, names->name);
	if (ret)
		return ret;
	names->class = cumk_class_create(names->name);
	if (IS_ERR(names->class)) {
		ret = PTR_ERR(names->class);
		goto err_region;
	}
	names->class->devnode = cumk_channel_devnode;
	cdev_init(&names->cdev, &cumk_channel_fops);
	ret = cdev_add(&names->cdev, names->devt, imex_channels);
	if (ret)
		goto err_class;
	for (i = 0; i < imex_channels; i++) {
		struct device *dev;

		dev = device_create(names->class, NULL,
				    MKDEV(MAJOR(names->devt), i), names,
				    "channel%u", i);
		if (IS_ERR(dev)) {
			ret = PTR_ERR(dev);
			goto err_nodes;
		}
	}
	return 0;

err_nodes:
	while (i--)
		device_destroy(names->class, MKDEV(MAJOR(names->devt), i));
	cdev_del(&names->cdev);
err_class:
	class_destroy(names->class);
err_region:
	unregister_chrdev_region(names->devt, imex_channels);
	return ret;
}

int cumk_channel_init(void)
{
	int ret;

	if (imex_channels < 1 || imex_channels > 256)
		return -EINVAL;
	ret = cumk_channel_names_add(&cumk_channels_cumc);
	if (ret || !nvidia_imex_channels)
		return ret;
	ret = cumk_channel_names_add(&cumk_channels_nvidia);
	if (ret) {
		pr_err("cannot offer IMEX channels under NVIDIA's names (%d): load with nvidia_imex_channels=0 where NVIDIA's driver has them\n",
		       ret);
		cumk_channel_names_del(&cumk_channels_cumc, imex_channels);
	}
	return ret;
}

void cumk_channel_exit(void)
{
	if (nvidia_imex_channels)
		cumk_channel_names_del(&cumk_channels_nvidia, imex_channels);
	cumk_channel_names_del(&cumk_channels_cumc, imex_channels);
}
