/* SPDX-License-Identifier: MIT */
/*
 * Test helper: make a GPU fall off the bus. Inside scripts/vm-run, the
 * command's environment names the VM's control channel (CUMC_VM_CONTROL, a
 * serial port); a line "unplug <pci address>" asks QEMU, through vm-run,
 * to device_del that GPU, and the answer "ok" comes once the guest has
 * removed it (its driver's remove() has returned), else "error <why>".
 * The one copy for the library's tests and the module's selftests.
 */
#ifndef CUMC_TESTS_UNPLUG_H
#define CUMC_TESTS_UNPLUG_H

#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

/* How long an unplug may take under TCG before the test gives up. */
#define UNPLUG_TIMEOUT_MS 120000

/* Whether this run can unplug GPUs at all. */
static inline const char *unplug_channel(void)
{
	return getenv("CUMC_VM_CONTROL");
}

/*
 * Whether the GPU at PCI @domain, @bus, @device (function 0) is a PCI
 * device the cumc driver has bound; its address as sysfs spells it, and as
 * unplug_gpu() takes it, goes to @pci.
 */
static inline bool unplug_pci_bound(unsigned int domain, unsigned int bus,
				    unsigned int device, char *pci, size_t len)
{
	char path[96];

	snprintf(pci, len, "%04x:%02x:%02x.0", domain, bus, device);
	snprintf(path, sizeof(path), "/sys/bus/pci/drivers/cumc/%s", pci);
	return access(path, F_OK) == 0;
}

/* Read one line of the answer, with the time left of @deadline_ms. */
static inline int unplug_read_line(int fd, char *buf, size_t len,
				   int timeout_ms)
{
	size_t n = 0;

	while (n + 1 < len) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char c;

		if (poll(&p, 1, timeout_ms) != 1 || read(fd, &c, 1) != 1)
			return -1;
		if (c == '\r')
			continue;
		if (c == '\n')
			break;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return 0;
}

/*
 * Unplug the GPU at PCI address @pci (e.g. "0000:00:11.0"): 0 once it is
 * gone, -1 with the reason in @why otherwise.
 */
static inline int unplug_gpu(const char *pci, char *why, size_t why_len)
{
	const char *path = unplug_channel();
	char line[256];
	struct termios t;
	int fd, ret = -1;

	snprintf(why, why_len, "no control channel");
	if (!path)
		return -1;
	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	tcflush(fd, TCIOFLUSH);
	snprintf(line, sizeof(line), "unplug %s\n", pci);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line)) {
		snprintf(why, why_len, "cannot write the request");
	} else if (unplug_read_line(fd, line, sizeof(line), UNPLUG_TIMEOUT_MS)) {
		snprintf(why, why_len, "no answer");
	} else if (strcmp(line, "ok")) {
		snprintf(why, why_len, "%s", line);
	} else {
		ret = 0;
	}
	close(fd);
	return ret;
}

#endif /* CUMC_TESTS_UNPLUG_H */
