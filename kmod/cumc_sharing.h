/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sharing objects between processes: exported fds, fabric handles and the
 * IMEX channels that gate them (cumc_sharing.c, cumc_channel.c).
 */
#ifndef _CUMK_SHARING_H
#define _CUMK_SHARING_H

struct cumk_ucmd;
struct file;

/* cumc_channel.c: the IMEX channel devices, under cumc's and NVIDIA's names */
int cumk_channel_init(void);
void cumk_channel_exit(void);
int cumk_channel_of_file(struct file *file);

/* cumc_sharing.c: exported fds, fabric handles and IMEX channels */
int cumk_sharing_init(void);
void cumk_sharing_exit(void);
int cumk_sharing_ioctl_export_fd(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_import_fd(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_attach_channel(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_export_fabric(struct cumk_ucmd *ucmd);
int cumk_sharing_ioctl_import_fabric(struct cumk_ucmd *ucmd);

#endif /* _CUMK_SHARING_H */
