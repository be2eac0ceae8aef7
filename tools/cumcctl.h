/* SPDX-License-Identifier: MIT */
/*
 * cumcctl's commands that live in files of their own.
 */
#ifndef CUMCCTL_H
#define CUMCCTL_H

#include <stdbool.h>

struct json_object;

/* cumcctl batch: the ioctl UAPI one operation a line (cumcctl_batch.c). */
int cumcctl_batch(int argc, char **argv);

/* cumcctl scenario: the catalogue of reports (cumcctl_scenario.c). */
int cumcctl_scenario(int argc, char **argv, bool json);

/* One command line, OBJECT [COMMAND [ARGS]]: its exit status (cumcctl.c). */
int cumcctl_run(int argc, char **argv);
/* @o as -j or -p asked (cumcctl.c). */
void cumcctl_json_print(struct json_object *o);

#endif /* CUMCCTL_H */
