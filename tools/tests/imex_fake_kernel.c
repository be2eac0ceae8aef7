// SPDX-License-Identifier: MIT
/*
 * A kernel for cumc-imex's tests on the host (imex_kernel.h): linked in
 * place of imex_kernel.c, it makes build/tests/cumc-imex-fake, a daemon
 * that needs no module. tools/tests/test-imex-mesh.sh drives it.
 *
 * Environment:
 *   CUMC_FAKE_NODE     this node's index (required)
 *   CUMC_FAKE_CLUSTER  the cluster UUID, 32 hex digits
 *   CUMC_FAKE_CTL      a FIFO: each line written to it is an IMEX_CALL_REQ,
 *                      "call REQ_ID NODE OP [PAYLOAD]", PAYLOAD being hex
 *                      digits, '-' (present, empty) or xN (N bytes of a
 *                      pattern); none: no IMEX_PAYLOAD
 *   CUMC_FAKE_ATTACH   an errno IMEX_ATTACH fails with
 *
 * What the daemon does to the kernel goes to stdout, a line each:
 *   fake: respond REQ_ID RESULT PAYLOAD     IMEX_CALL_RESPOND
 *   fake: call from NODE op OP PAYLOAD      IMEX_CALL (run, then answered
 *                                           as its op says, below)
 *   fake: lost NODE                         IMEX_NODE_LOST
 *   fake: joined NODE                       IMEX_NODE_JOIN
 * PAYLOAD is "none", LEN:HEX up to 32 bytes, or LEN:sum=N past that (a
 * checksum that sees the order of the bytes).
 *
 * IMEX_CALL by op: 1 echoes its payload (result 0); 2 answers the errno
 * in its payload's first byte, no payload; 3 fails the command itself
 * with EPERM; 4 answers CUMC_IMEX_PAYLOAD_MAX bytes of the pattern; 5
 * takes as many tenths of a second as its payload's first byte says, as a
 * long kernel call does, then echoes its payload; any other EOPNOTSUPP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imex_kernel.h"

struct imex_kernel {
	int fd;
	imex_call_req_fn fn;
	void *arg;
	char line[2 * CUMC_IMEX_PAYLOAD_MAX + 128];
	size_t len;
	uint8_t payload[CUMC_IMEX_PAYLOAD_MAX + 1];
};

static void pattern(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 7 + i / 251 + 3);
}

static void show(const char *what, const struct imex_data *d)
{
	uint32_t sum = 0;
	uint32_t i;

	if (!d || !d->present) {
		printf("%s none\n", what);
	} else if (d->length <= 32) {
		printf("%s %u:", what, d->length);
		for (i = 0; i < d->length; i++)
			printf("%02x", d->bytes[i]);
		printf("\n");
	} else {
		for (i = 0; i < d->length; i++)
			sum = sum * 31 + d->bytes[i];
		printf("%s %u:sum=%u\n", what, d->length, sum);
	}
	fflush(stdout);
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* One control line: "call REQ NODE OP [PAYLOAD]". */
static void control(struct imex_kernel *k, const char *line)
{
	struct imex_call_req req = { 0 };
	char arg[sizeof(k->line)] = "";
	size_t i, n;

	if (sscanf(line, "call %u %u %u %s", &req.req_id, &req.node, &req.op,
		   arg) < 3) {
		printf("fake: bad control line '%s'\n", line);
		fflush(stdout);
		return;
	}
	req.payload.bytes = k->payload;
	if (arg[0] == 'x') {
		n = strtoul(arg + 1, NULL, 10);
		if (n > CUMC_IMEX_PAYLOAD_MAX)
			n = CUMC_IMEX_PAYLOAD_MAX;
		pattern(k->payload, n);
		req.payload.present = true;
		req.payload.length = n;
	} else if (arg[0]) {
		n = strcmp(arg, "-") ? strlen(arg) / 2 : 0;
		for (i = 0; i < n && i < CUMC_IMEX_PAYLOAD_MAX; i++)
			k->payload[i] = hex(arg[2 * i]) << 4 | hex(arg[2 * i + 1]);
		req.payload.present = true;
		req.payload.length = i;
	}
	k->fn(k, &req, k->arg);
}

struct imex_kernel *imex_kernel_open(struct imex_identity *id,
				     imex_call_req_fn fn, void *arg)
{
	const char *node = getenv("CUMC_FAKE_NODE");
	const char *cluster = getenv("CUMC_FAKE_CLUSTER");
	const char *ctl = getenv("CUMC_FAKE_CTL");
	const char *attach = getenv("CUMC_FAKE_ATTACH");
	struct imex_kernel *k;
	int i;

	if (!node || !ctl) {
		fprintf(stderr, "cumc-imex: fake: set CUMC_FAKE_NODE and CUMC_FAKE_CTL\n");
		return NULL;
	}
	if (attach && atoi(attach) == EBUSY) {
		fprintf(stderr, "cumc-imex: another IMEX daemon is attached to this node's kernel\n");
		return NULL;
	} else if (attach) {
		fprintf(stderr, "cumc-imex: IMEX_ATTACH: %s\n", strerror(atoi(attach)));
		return NULL;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	k->fd = open(ctl, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0) {
		fprintf(stderr, "cumc-imex: fake: %s: %s\n", ctl, strerror(errno));
		free(k);
		return NULL;
	}
	k->fn = fn;
	k->arg = arg;
	id->node = strtoul(node, NULL, 0);
	if (!cluster)
		cluster = "00112233445566778899aabbccddeeff";
	for (i = 0; i < 16; i++)
		id->cluster_uuid[i] = hex(cluster[2 * i]) << 4 |
				      hex(cluster[2 * i + 1]);
	return k;
}

void imex_kernel_close(struct imex_kernel *k)
{
	if (!k)
		return;
	close(k->fd);
	free(k);
}

int imex_kernel_fd(const struct imex_kernel *k)
{
	return k->fd;
}

int imex_kernel_receive(struct imex_kernel *k)
{
	ssize_t n = read(k->fd, k->line + k->len, sizeof(k->line) - 1 - k->len);
	char *nl;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	k->len += n;
	k->line[k->len] = '\0';
	while ((nl = strchr(k->line, '\n'))) {
		*nl = '\0';
		control(k, k->line);
		k->len -= nl + 1 - k->line;
		memmove(k->line, nl + 1, k->len + 1);
	}
	if (k->len == sizeof(k->line) - 1)
		k->len = 0;
	return 0;
}

int imex_kernel_call(struct imex_kernel *k, uint32_t caller, uint32_t op,
		     const struct imex_data *payload, struct imex_reply *reply)
{
	char what[64];

	(void)k;
	snprintf(what, sizeof(what), "fake: call from %u op %u", caller, op);
	show(what, payload);
	memset(&reply->payload, 0, sizeof(reply->payload));
	reply->payload.bytes = reply->buf;
	reply->result = 0;
	switch (op) {
	case 1:
		reply->payload.present = payload->present;
		reply->payload.length = payload->length;
		memcpy(reply->buf, payload->bytes, payload->length);
		break;
	case 2:
		reply->result = payload->length ? payload->bytes[0] : 0;
		break;
	case 3:
		return -EPERM;
	case 4:
		reply->payload.present = true;
		reply->payload.length = CUMC_IMEX_PAYLOAD_MAX;
		pattern(reply->buf, CUMC_IMEX_PAYLOAD_MAX);
		break;
	case 5:
		if (payload->length)
			usleep(payload->bytes[0] * 100000);
		reply->payload.present = payload->present;
		reply->payload.length = payload->length;
		memcpy(reply->buf, payload->bytes, payload->length);
		break;
	default:
		reply->result = EOPNOTSUPP;
		break;
	}
	return 0;
}

int imex_kernel_respond(struct imex_kernel *k, uint32_t req_id,
			uint32_t result, const struct imex_data *payload)
{
	char what[64];

	(void)k;
	snprintf(what, sizeof(what), "fake: respond %u %u", req_id, result);
	show(what, payload);
	return 0;
}

int imex_kernel_node_lost(struct imex_kernel *k, uint32_t node)
{
	(void)k;
	printf("fake: lost %u\n", node);
	fflush(stdout);
	return 0;
}

int imex_kernel_node_join(struct imex_kernel *k, uint32_t node)
{
	(void)k;
	printf("fake: joined %u\n", node);
	fflush(stdout);
	return 0;
}
