/* SPDX-License-Identifier: MIT */
/*
 * cumcctl's commands that live in files of their own.
 */
#ifndef CUMCCTL_H
#define CUMCCTL_H

/* cumcctl batch: the ioctl UAPI one operation a line (cumcctl_batch.c). */
int cumcctl_batch(int argc, char **argv);

#endif /* CUMCCTL_H */
