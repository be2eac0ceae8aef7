// SPDX-License-Identifier: GPL-2.0
/*
 * A command's struct between the caller and the module: read in before
 * the command runs, answered after.
 *
 * A struct of exactly the kernel's size, as every caller built against
 * these headers passes, is read a word at a time in one user access
 * window (cumc_ioctl.c holds every command's struct to whole words), and
 * an answer of whole words is written the same way. copy_from_user() and
 * copy_to_user() of a size known only at run time check the stack
 * object's bounds and start a string copy: half a null system call of
 * every ioctl in the VM (Documentation/performance.md). Other sizes take
 * the general copies.
 */
#include <linux/uaccess.h>

#include "cumc_internal.h"

int cumk_ucmd_read(struct cumk_ucmd *ucmd, unsigned int size)
{
	const u64 __user *from = ucmd->ubuffer;
	u64 *to = ucmd->cmd;
	unsigned int i;

	if (ucmd->user_size != size)
		return copy_struct_from_user(ucmd->cmd, size, ucmd->ubuffer,
					     ucmd->user_size);
	if (!user_access_begin(from, size))
		return -EFAULT;
	for (i = 0; i < size / sizeof(u64); i++)
		unsafe_get_user(to[i], &from[i], err_fault);
	user_access_end();
	return 0;

err_fault:
	user_access_end();
	return -EFAULT;
}

int cumk_ucmd_respond(struct cumk_ucmd *ucmd, size_t cmd_len)
{
	size_t len = min_t(size_t, ucmd->user_size, cmd_len);
	u64 __user *to = ucmd->ubuffer;
	const u64 *from = ucmd->cmd;
	size_t i;

	if (len % sizeof(u64))
		return copy_to_user(to, from, len) ? -EFAULT : 0;
	if (!user_access_begin(to, len))
		return -EFAULT;
	for (i = 0; i < len / sizeof(u64); i++)
		unsafe_put_user(from[i], &to[i], err_fault);
	user_access_end();
	return 0;

err_fault:
	user_access_end();
	return -EFAULT;
}
