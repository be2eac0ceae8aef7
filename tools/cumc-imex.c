// SPDX-License-Identifier: MIT
/*
 * cumc-imex: the IMEX daemon of one node of a multi-node cumc fabric, as
 * nvidia-imex is on each node of an NVLink domain. It attaches to its
 * node's kernel (IMEX_ATTACH), connects to the daemons of the other nodes
 * of its node list over TCP, and relays the kernel's calls: an
 * IMEX_CALL_REQ for node N goes to N's daemon, which runs it there as an
 * IMEX_CALL and sends back the reply, which becomes IMEX_CALL_RESPOND
 * here. It knows nothing of what the calls mean. A peer whose connection
 * closes or that stays silent past PEER_TIMEOUT_MS is lost: the kernel is
 * told (IMEX_NODE_LOST) and the calls waiting on it fail with EHOSTDOWN.
 *
 * A connection carries nothing but the handshake (imex_auth.h) until the
 * peer proved it holds the domain's secret and is the node the node list
 * gives its address; every message after it is sealed. A live connection
 * is replaced only by one that completed the handshake; the node is then
 * lost and joins again (IMEX_NODE_JOIN), as one that reconnects does.
 * Another node's calls wait for the worker at most QUEUE_MAX at a time
 * per peer: past that its connection is not read until they are done.
 *
 * cumc-imex -c CONFIG; see man/cumc-imex.8, tools/imex_wire.h for the
 * protocol. One thread with non-blocking sockets and ppoll() keeps the
 * connections; the calls from other nodes run on a worker thread
 * (imex_worker.h), so that a long one holds back no heartbeat.
 * Exit status: 0 stopped by SIGTERM or SIGINT, 1 usage or configuration,
 * 2 the kernel refused, or a socket could not be set up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "imex_auth.h"
#include "imex_config.h"
#include "imex_kernel.h"
#include "imex_wire.h"
#include "imex_worker.h"

#ifndef CUMC_VERSION
#define CUMC_VERSION "unknown"
#endif

/* How often a peer not connected is tried again. */
#define RECONNECT_MS 500
/* A connection whose output waits past this is too slow: it goes. */
#define OUT_MAX (256 * IMEX_WIRE_MSG_MAX)
/* The longest poll: timers are looked at least this often. */
#define POLL_MAX_MS 1000
#define WHY_MAX 160
/*
 * Connections from one peer's address still in their handshake: a newer
 * one replaces the oldest, and none replaces the live one.
 */
#define PENDING_MAX 4
/*
 * A peer's calls queued for the worker or done and not yet answered: at
 * this many, its connection is not read until half of them are done.
 */
#define QUEUE_MAX 256

enum conn_state {
	CONN_CONNECTING,	/* ours, connect() in progress */
	CONN_HELLO,		/* connected, its HELLO not yet in */
	CONN_AUTH,		/* its HELLO in, its proof not yet */
	CONN_UP,		/* authenticated: its peer's live connection */
	CONN_CLOSED,		/* freed at the end of the round */
};

struct peer;

/* One TCP connection with a peer's address. */
struct conn {
	struct peer *peer;
	struct conn *next_closed;
	int fd;			/* -1 once closed */
	enum conn_state state;
	unsigned long gen;	/* unique among this daemon's connections */
	uint64_t since;		/* the connection's start */
	uint64_t last_rx, last_ping;
	struct imex_auth auth;
	uint8_t *in;		/* IMEX_WIRE_MSG_MAX bytes */
	size_t in_len;
	uint8_t *out;		/* out[out_off, out_len) waits to be sent */
	size_t out_off, out_len, out_cap;
};

/* Every node of the node list but this one. */
struct peer {
	struct in_addr addr;
	char name[INET_ADDRSTRLEN];
	uint32_t node;		/* its index, as the node list gives it */
	bool ours;		/* a higher address: this node connects */
	bool ever_up;
	struct conn *live;	/* CONN_UP, or NULL */
	struct conn *pending[PENDING_MAX];	/* in their handshake */
	uint64_t next_connect;
	unsigned int queued, queued_most;	/* its calls not answered */
	unsigned long calls, pauses;
	bool paused;		/* queued reached QUEUE_MAX: not read */
	char why[WHY_MAX];	/* the failure last logged: each once */
};

/* A call sent to a node, its answer awaited. */
struct pending {
	uint32_t req_id;
	uint32_t node;
};

static volatile sig_atomic_t stopping, report;

static struct {
	struct imex_config cfg;
	struct imex_identity id;
	struct imex_kernel *kernel;
	struct in_addr self;
	char self_name[INET_ADDRSTRLEN];
	int listen_fd;
	struct peer *peers;
	size_t n_peers;
	struct pending *pending;
	size_t n_pending, cap_pending;
	struct conn *closed;	/* to free at the end of the round */
	unsigned long next_gen;
	char refused[WHY_MAX];	/* the refused connection last logged */
} d = { .listen_fd = -1 };

static const char usage_text[] =
	"usage: cumc-imex -c CONFIG [-a ADDRESS]\n"
	"       cumc-imex --help | --version\n"
	"The IMEX daemon of a node of a multi-node cumc fabric: relays the\n"
	"kernel's calls to the other nodes' daemons (see cumc-imex(8)).\n"
	"  -c, --config CONFIG    the config file (IMEX_NODE_CONFIG_FILE=...)\n"
	"  -a, --address ADDRESS  this node's address in the node list (by\n"
	"                         default the one this host has)\n";

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		report = 1;
	else
		stopping = 1;
}

/* One line "cumc-imex: ..." on stderr, written at once. */
static void __attribute__((format(printf, 1, 2))) say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "cumc-imex: ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	strcat(line, "\n");
	fputs(line, stderr);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 8-4-4-4-12 hex digits, as libuuid writes them. */
static void uuid_str(const uint8_t *u, char *s)
{
	int i;

	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*s++ = '-';
		s += sprintf(s, "%02x", u[i]);
	}
}

static struct peer *find_peer_node(uint32_t node)
{
	size_t i;

	for (i = 0; i < d.n_peers; i++)
		if (d.peers[i].node == node)
			return &d.peers[i];
	return NULL;
}

static void respond(uint32_t req_id, uint32_t result,
		    const struct imex_data *payload)
{
	int err = imex_kernel_respond(d.kernel, req_id, result, payload);

	/* ENOENT: the kernel gave up on the request. */
	if (err && err != -ENOENT)
		say("request %u: IMEX_CALL_RESPOND: %s", req_id, strerror(-err));
}

static bool pending_add(uint32_t req_id, uint32_t node)
{
	size_t i;

	/* The kernel gave up on an id and used it again. */
	for (i = 0; i < d.n_pending; i++) {
		if (d.pending[i].req_id == req_id) {
			d.pending[i].node = node;
			return true;
		}
	}
	if (d.n_pending == d.cap_pending) {
		size_t cap = d.cap_pending ? 2 * d.cap_pending : 64;
		struct pending *p = realloc(d.pending, cap * sizeof(*p));

		if (!p)
			return false;
		d.pending = p;
		d.cap_pending = cap;
	}
	d.pending[d.n_pending].req_id = req_id;
	d.pending[d.n_pending++].node = node;
	return true;
}

/* Take request @req_id to @node off the list: whether it was there. */
static bool pending_take(uint32_t req_id, uint32_t node)
{
	size_t i;

	for (i = 0; i < d.n_pending; i++) {
		if (d.pending[i].req_id == req_id && d.pending[i].node == node) {
			d.pending[i] = d.pending[--d.n_pending];
			return true;
		}
	}
	return false;
}

/*
 * @p's node is lost with its live connection @gen: the kernel is told,
 * its calls fail, and what it sent that has not started is not run.
 */
static void node_lost(struct peer *p, unsigned long gen, const char *why)
{
	size_t i;
	int err;

	say("node %u lost (%s: %s)", p->node, p->name, why);
	imex_worker_cancel(p, gen);
	err = imex_kernel_node_lost(d.kernel, p->node);
	if (err)
		say("IMEX_NODE_LOST for node %u: %s", p->node, strerror(-err));
	for (i = 0; i < d.n_pending;) {
		if (d.pending[i].node == p->node) {
			uint32_t req_id = d.pending[i].req_id;

			d.pending[i] = d.pending[--d.n_pending];
			respond(req_id, EHOSTDOWN, NULL);
		} else {
			i++;
		}
	}
}

/* A failure to connect or to agree with @p, logged once until it changes. */
static void __attribute__((format(printf, 2, 3)))
note(struct peer *p, const char *fmt, ...)
{
	char why[WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!strcmp(why, p->why))
		return;
	strcpy(p->why, why);
	say("%s: %s", p->name, why);
}

/* The slot of @p's connections that holds @c, or NULL. */
static struct conn **pending_slot(struct peer *p, const struct conn *c)
{
	int i;

	for (i = 0; i < PENDING_MAX; i++)
		if (p->pending[i] == c)
			return &p->pending[i];
	return NULL;
}

/*
 * Connection @c ends, for what @fmt says; freed at the end of the round.
 * The live one takes its node with it.
 */
static void __attribute__((format(printf, 2, 3)))
conn_close(struct conn *c, const char *fmt, ...)
{
	struct peer *p = c->peer;
	struct conn **slot;
	char why[WHY_MAX];
	va_list ap;

	if (c->state == CONN_CLOSED)
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	close(c->fd);
	c->fd = -1;
	c->next_closed = d.closed;
	d.closed = c;
	if (p->live == c) {
		c->state = CONN_CLOSED;
		p->live = NULL;
		if (p->ours)
			p->next_connect = now_ms() + RECONNECT_MS;
		node_lost(p, c->gen, why);
		return;
	}
	c->state = CONN_CLOSED;
	slot = pending_slot(p, c);
	if (slot)
		*slot = NULL;
	if (p->ours)
		p->next_connect = now_ms() + RECONNECT_MS;
	note(p, "%s", why);
}

/* Free the connections closed this round. */
static void reap(void)
{
	struct conn *c;

	while ((c = d.closed)) {
		d.closed = c->next_closed;
		imex_auth_end(&c->auth);
		free(c->in);
		free(c->out);
		free(c);
	}
}

/* Send what waits, as much as the socket takes: false if @c closed. */
static bool conn_flush(struct conn *c)
{
	ssize_t n;

	if (c->state == CONN_CONNECTING || c->state == CONN_CLOSED)
		return c->state != CONN_CLOSED;
	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (n < 0) {
			conn_close(c, "send: %s", strerror(errno));
			return false;
		}
		c->out_off += n;
	}
	c->out_off = c->out_len = 0;
	return true;
}

/*
 * Queue @m for @c, sealed unless it is the handshake's, and send what can
 * be: false if @c closed.
 */
static bool conn_send(struct conn *c, const struct imex_msg *msg)
{
	struct imex_msg m = *msg;
	size_t need;
	ssize_t n;

	if (c->state == CONN_CLOSED)
		return false;
	if (m.type != IMEX_MSG_HELLO && m.type != IMEX_MSG_AUTH)
		m.flags |= IMEX_WIRE_F_SEALED;
	need = IMEX_WIRE_HDR_LEN + m.length + IMEX_WIRE_TAG_LEN;
	if (c->out_off && c->out_len + need > c->out_cap) {
		memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
		c->out_len -= c->out_off;
		c->out_off = 0;
	}
	if (c->out_len + need > OUT_MAX) {
		conn_close(c, "%zu bytes wait to be sent: too slow", c->out_len);
		return false;
	}
	if (c->out_len + need > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : IMEX_WIRE_MSG_MAX;
		uint8_t *out;

		while (cap < c->out_len + need)
			cap *= 2;
		out = realloc(c->out, cap);
		if (!out) {
			conn_close(c, "out of memory");
			return false;
		}
		c->out = out;
		c->out_cap = cap;
	}
	n = imex_wire_encode(c->out + c->out_len, c->out_cap - c->out_len, &m);
	if (n < 0) {
		say("%s: cannot encode a %s: %s", c->peer->name,
		    imex_wire_type_name(m.type), strerror(-n));
		return true;
	}
	if ((m.flags & IMEX_WIRE_F_SEALED) &&
	    imex_auth_seal(&c->auth, c->out + c->out_len,
			   n - IMEX_WIRE_TAG_LEN,
			   c->out + c->out_len + n - IMEX_WIRE_TAG_LEN)) {
		conn_close(c, "cannot seal a message (libcrypto)");
		return false;
	}
	c->out_len += n;
	return conn_flush(c);
}

/* A new connection with @p on @fd, in @state, its HELLO queued; or NULL. */
static struct conn *conn_start(struct peer *p, int fd, enum conn_state state)
{
	uint8_t hello[IMEX_WIRE_HELLO_LEN];
	struct imex_msg m = {
		.type = IMEX_MSG_HELLO,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = sizeof(hello),
		.src_node = d.id.node,
		.dst_node = p->node,
		.payload = hello,
	};
	const uint8_t *nonce;
	struct conn *c;
	int one = 1;

	c = calloc(1, sizeof(*c));
	if (c)
		c->in = malloc(IMEX_WIRE_MSG_MAX);
	if (!c || !c->in) {
		if (c)
			free(c);
		close(fd);
		note(p, "out of memory for a connection");
		return NULL;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->peer = p;
	c->fd = fd;
	c->state = state;
	c->gen = ++d.next_gen;
	c->since = now_ms();
	if (imex_auth_start(&c->auth, p->ours, d.id.node, d.id.cluster_uuid,
			    &nonce)) {
		c->state = CONN_HELLO;
		conn_close(c, "no random bytes for a nonce (libcrypto)");
		return NULL;
	}
	memcpy(hello, d.id.cluster_uuid, IMEX_WIRE_UUID_LEN);
	memcpy(hello + IMEX_WIRE_UUID_LEN, nonce, IMEX_WIRE_NONCE_LEN);
	conn_send(c, &m);
	return c;
}

static void conn_connect(struct peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct conn *c;
	int fd;

	p->next_connect = now_ms() + RECONNECT_MS;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		note(p, "socket: %s", strerror(errno));
		return;
	}
	/* From this node's own address: the one the peer knows it by. */
	sa.sin_addr = d.self;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		note(p, "bind to %s: %s", d.self_name, strerror(errno));
		close(fd);
		return;
	}
	sa.sin_addr = p->addr;
	sa.sin_port = htons(d.cfg.port);
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		c = conn_start(p, fd, CONN_HELLO);
	} else if (errno == EINPROGRESS) {
		c = conn_start(p, fd, CONN_CONNECTING);
	} else {
		note(p, "connect: %s", strerror(errno));
		close(fd);
		return;
	}
	if (c && c->state != CONN_CLOSED)
		p->pending[0] = c;
}

static void connect_done(struct conn *c)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (err) {
		conn_close(c, "connect: %s", strerror(err));
		return;
	}
	c->state = CONN_HELLO;
	conn_flush(c);
}

/* The peer's HELLO: who it says it is; this end's proof goes back. */
static void hello(struct conn *c, const struct imex_msg *m)
{
	struct peer *p = c->peer;
	uint8_t proof[IMEX_AUTH_MAC_LEN];
	struct imex_msg r = {
		.type = IMEX_MSG_AUTH,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = sizeof(proof),
		.src_node = d.id.node,
		.dst_node = p->node,
		.payload = proof,
	};
	char ours[37], theirs[37];

	if (c->state != CONN_HELLO) {
		conn_close(c, "a second HELLO");
		return;
	}
	if (memcmp(m->payload, d.id.cluster_uuid, IMEX_WIRE_UUID_LEN)) {
		uuid_str(m->payload, theirs);
		uuid_str(d.id.cluster_uuid, ours);
		conn_close(c, "refused: cluster %s, not this node's %s", theirs,
			   ours);
		return;
	}
	if (m->src_node == d.id.node) {
		conn_close(c, "refused: it says it is node %u, this node",
			   m->src_node);
		return;
	}
	/* An index goes with the address the node list gives it. */
	if (m->src_node != p->node) {
		conn_close(c, "refused: it says it is node %u, but the node list has %s as node %u",
			   m->src_node, p->name, p->node);
		return;
	}
	if (m->dst_node != d.id.node) {
		conn_close(c, "refused: it takes this node for node %u, not %u: the node lists differ",
			   m->dst_node, d.id.node);
		return;
	}
	imex_auth_peer(&c->auth, m->src_node,
		       m->payload + IMEX_WIRE_UUID_LEN);
	if (imex_auth_proof(&c->auth, &d.cfg.secret, true, proof)) {
		conn_close(c, "cannot make a proof (libcrypto)");
		return;
	}
	c->state = CONN_AUTH;
	conn_send(c, &r);
}

/*
 * @c completed the handshake: it becomes its peer's live connection. An
 * older live one, left by a daemon that restarted, goes, and its node
 * with it; the node joins again behind what the worker has queued.
 */
static void conn_up(struct conn *c)
{
	struct peer *p = c->peer;
	struct conn **slot = pending_slot(p, c);
	struct imex_job *job;
	struct imex_data none = { 0 };

	if (slot)
		*slot = NULL;
	if (p->live)
		conn_close(p->live, "replaced by a new connection that completed the handshake (the daemon restarted)");
	p->live = c;
	c->state = CONN_UP;
	c->last_rx = c->last_ping = now_ms();
	p->why[0] = '\0';
	p->ever_up = true;
	say("node %u connected (%s)", p->node, p->name);
	job = imex_job_new(&none);
	if (!job) {
		say("out of memory for node %u's IMEX_NODE_JOIN", p->node);
		return;
	}
	job->kind = IMEX_JOB_JOIN;
	job->peer = p;
	job->gen = c->gen;
	job->node = p->node;
	imex_worker_push(job);
}

/* The peer's AUTH: its proof, checked before anything else is taken. */
static void auth(struct conn *c, const struct imex_msg *m)
{
	if (c->state != CONN_AUTH) {
		conn_close(c, c->state == CONN_UP ? "a second AUTH" :
			   "an AUTH before HELLO");
		return;
	}
	if (m->src_node != c->peer->node || m->dst_node != d.id.node) {
		conn_close(c, "refused: an AUTH from node %u to node %u",
			   m->src_node, m->dst_node);
		return;
	}
	if (!imex_auth_check(&c->auth, &d.cfg.secret, m->payload)) {
		conn_close(c, "refused: a wrong proof (not this domain's secret)");
		return;
	}
	if (imex_auth_keys(&c->auth, &d.cfg.secret)) {
		conn_close(c, "cannot derive the keys (libcrypto)");
		return;
	}
	conn_up(c);
}

/* Send the answer to call @job of a peer, unless one-way or too late. */
static void answer_call(const struct imex_job *job)
{
	struct peer *p = job->peer;
	struct imex_msg r = {
		.type = IMEX_MSG_REPLY,
		.req_id = job->req_id,
		.src_node = d.id.node,
		.dst_node = job->node,
		.op = job->op,
	};

	/* Its connection ended meanwhile: the caller heard EHOSTDOWN. */
	if (!job->req_id || !p->live || p->live->gen != job->gen)
		return;
	if (job->err) {
		r.result = -job->err;
	} else {
		r.result = job->reply.result;
		if (job->reply.payload.present) {
			r.flags = IMEX_WIRE_F_PAYLOAD;
			r.length = job->reply.payload.length;
			r.payload = job->reply.payload.bytes;
		}
	}
	if (r.result > IMEX_WIRE_RESULT_MAX) {
		say("node %u's call %u: IMEX_CALL answered result %u, not an errno",
		    job->node, job->req_id, r.result);
		r.result = EPROTO;
		r.flags = 0;
		r.length = 0;
	}
	conn_send(p->live, &r);
}

static void conn_process(struct conn *c);

/* One of @p's calls is answered: its connection is read again at half. */
static void call_done(struct peer *p)
{
	p->queued--;
	if (!p->paused || p->queued > QUEUE_MAX / 2)
		return;
	p->paused = false;
	if (p->live) {
		/* Not read is not silent. */
		p->live->last_rx = now_ms();
		conn_process(p->live);
	}
}

/*
 * The kernel took @job's node back. Had its connection ended before,
 * IMEX_NODE_LOST may have reached the kernel first: it is told again.
 */
static void join_done(const struct imex_job *job)
{
	struct peer *p = job->peer;
	int err;

	if (p->live && p->live->gen == job->gen)
		return;
	err = imex_kernel_node_lost(d.kernel, p->node);
	if (err)
		say("IMEX_NODE_LOST for node %u: %s", p->node, strerror(-err));
}

/* The worker's jobs done, in the order they came. */
static void jobs_done(void)
{
	struct imex_job *job;
	int err;

	while ((job = imex_worker_take())) {
		if (job->kind == IMEX_JOB_CALL) {
			answer_call(job);
			call_done(job->peer);
		} else if (job->kind == IMEX_JOB_ANSWER) {
			respond(job->req_id, job->result, &job->in);
		} else if ((err = job->err)) {
			say("IMEX_NODE_JOIN for node %u: %s", job->node,
			    strerror(-err));
		} else if (!job->cancelled) {
			join_done(job);
		}
		imex_job_free(job);
	}
}

/* A job for the worker, of a message from @c; NULL when out of memory. */
static struct imex_job *job_of(struct conn *c, const struct imex_msg *m,
			       enum imex_job_kind kind)
{
	struct imex_data in = {
		.present = m->flags & IMEX_WIRE_F_PAYLOAD,
		.length = m->length,
		.bytes = m->payload,
	};
	struct imex_job *job = imex_job_new(&in);

	if (!job) {
		say("out of memory for node %u's %s %u", c->peer->node,
		    imex_wire_type_name(m->type), m->req_id);
		return NULL;
	}
	job->kind = kind;
	job->peer = c->peer;
	job->gen = c->gen;
	job->node = c->peer->node;
	job->op = m->op;
	job->req_id = m->req_id;
	job->result = m->result;
	return job;
}

/* A CALL from @c's node: the worker runs it; answered once done. */
static void run_call(struct conn *c, const struct imex_msg *m)
{
	struct peer *p = c->peer;
	struct imex_job *job = job_of(c, m, IMEX_JOB_CALL);
	struct imex_msg r = {
		.type = IMEX_MSG_REPLY, .req_id = m->req_id, .result = ENOMEM,
		.src_node = d.id.node, .dst_node = p->node, .op = m->op,
	};

	if (!job) {
		if (m->req_id)
			conn_send(c, &r);
		return;
	}
	imex_worker_push(job);
	p->calls++;
	if (++p->queued > p->queued_most)
		p->queued_most = p->queued;
	if (p->queued >= QUEUE_MAX && !p->paused) {
		p->paused = true;
		p->pauses++;
		if (p->pauses == 1)
			say("node %u: %u calls wait for this node's kernel: its connection is read again when half are done",
			    p->node, p->queued);
	}
}

/*
 * The answer to a call of this node's: to the kernel, but only after the
 * calls @c's node sent before it, which it must not overtake (an origin's
 * changes to a team, then its answer to a bind).
 */
static void reply(struct conn *c, const struct imex_msg *m)
{
	struct imex_job *job;

	/* Not waited for: answered EHOSTDOWN before, or never asked. */
	if (!pending_take(m->req_id, c->peer->node))
		return;
	job = job_of(c, m, IMEX_JOB_ANSWER);
	if (!job) {
		respond(m->req_id, ENOMEM, NULL);
		return;
	}
	imex_worker_push(job);
}

/* One message from @c, whose @len bytes are at @bytes. */
static void handle(struct conn *c, const struct imex_msg *m,
		   const uint8_t *bytes, size_t len)
{
	struct peer *p = c->peer;

	if (m->type == IMEX_MSG_HELLO) {
		hello(c, m);
		return;
	}
	if (m->type == IMEX_MSG_AUTH) {
		auth(c, m);
		return;
	}
	/* Nothing but the handshake from a peer not authenticated. */
	if (c->state != CONN_UP) {
		conn_close(c, "a %s before the handshake was done",
			   imex_wire_type_name(m->type));
		return;
	}
	if (!imex_auth_open(&c->auth, bytes, len - IMEX_WIRE_TAG_LEN, m->tag)) {
		conn_close(c, "a %s whose MAC is wrong",
			   imex_wire_type_name(m->type));
		return;
	}
	if (m->src_node != p->node || m->dst_node != d.id.node) {
		conn_close(c, "a %s from node %u to node %u on node %u's connection",
			   imex_wire_type_name(m->type), m->src_node,
			   m->dst_node, p->node);
		return;
	}
	if (m->type == IMEX_MSG_CALL)
		run_call(c, m);
	else if (m->type == IMEX_MSG_REPLY)
		reply(c, m);
}

/* Whether @c's messages are taken now: not while its peer is paused. */
static bool conn_reads(const struct conn *c)
{
	return c->state != CONN_CLOSED &&
	       (c->state != CONN_UP || !c->peer->paused);
}

/* The messages @c received and not yet taken, while it reads. */
static void conn_process(struct conn *c)
{
	struct imex_msg m;
	size_t off = 0;
	ssize_t n;

	while (conn_reads(c)) {
		n = imex_wire_decode(c->in + off, c->in_len - off, &m);
		if (!n)
			break;
		if (n == -EPROTONOSUPPORT) {
			conn_close(c, "refused: protocol version %u, not %u",
				   m.version, IMEX_WIRE_VERSION);
			return;
		}
		if (n < 0) {
			conn_close(c, "garbage received: %s", strerror(-n));
			return;
		}
		handle(c, &m, c->in + off, n);
		off += n;
	}
	if (c->state != CONN_CLOSED) {
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
	}
}

static void conn_read(struct conn *c)
{
	ssize_t n;

	if (!conn_reads(c))
		return;
	n = recv(c->fd, c->in + c->in_len, IMEX_WIRE_MSG_MAX - c->in_len,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		conn_close(c, "%s", n ? strerror(errno) : "connection closed");
		return;
	}
	c->in_len += n;
	c->last_rx = now_ms();
	conn_process(c);
}

static struct peer *find_peer(struct in_addr a)
{
	size_t i;

	for (i = 0; i < d.n_peers; i++)
		if (d.peers[i].addr.s_addr == a.s_addr)
			return &d.peers[i];
	return NULL;
}

/* A connection refused before it had a peer, logged once until it changes. */
static void refuse(int fd, const char *addr, const char *why)
{
	char line[WHY_MAX];

	close(fd);
	snprintf(line, sizeof(line), "refused a connection from %s: %s", addr,
		 why);
	if (strcmp(line, d.refused)) {
		strcpy(d.refused, line);
		say("%s", line);
	}
}

/*
 * A connection from @p's address: it waits for its handshake beside the
 * live one, which only a connection that completes it replaces; the
 * oldest of those waiting makes room.
 */
static void accept_from(struct peer *p, int fd)
{
	struct conn *c, *oldest = NULL;
	int i, free_slot = -1;

	for (i = 0; i < PENDING_MAX; i++) {
		if (!p->pending[i])
			free_slot = i;
		else if (!oldest || p->pending[i]->since < oldest->since)
			oldest = p->pending[i];
	}
	if (free_slot < 0) {
		conn_close(oldest, "a connection still in its handshake, replaced by a newer one");
		free_slot = pending_slot(p, NULL) - p->pending;
	}
	c = conn_start(p, fd, CONN_HELLO);
	if (c && c->state != CONN_CLOSED)
		p->pending[free_slot] = c;
}

static void accept_all(void)
{
	char name[INET_ADDRSTRLEN];
	struct sockaddr_in sa;
	socklen_t len;
	struct peer *p;
	int fd, i;

	for (i = 0; i < 16; i++) {
		len = sizeof(sa);
		fd = accept4(d.listen_fd, (struct sockaddr *)&sa, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				say("accept: %s", strerror(errno));
			return;
		}
		inet_ntop(AF_INET, &sa.sin_addr, name, sizeof(name));
		p = find_peer(sa.sin_addr);
		if (!p) {
			refuse(fd, name, "not in the node list");
			continue;
		}
		if (p->ours) {
			refuse(fd, name, "a higher address, this node connects to it");
			continue;
		}
		accept_from(p, fd);
	}
}

/* IMEX_CALL_REQ: carry it to its node's daemon, or answer it here. */
static void call_req(struct imex_kernel *k, const struct imex_call_req *req,
		     void *arg)
{
	struct peer *p = find_peer_node(req->node);
	uint32_t result;

	(void)arg;
	d.kernel = k;
	if (req->node == d.id.node) {
		result = EINVAL;
	} else if (!p || !p->ever_up) {
		result = EHOSTUNREACH;
	} else if (!p->live) {
		result = EHOSTDOWN;
	} else if (req->req_id && !pending_add(req->req_id, req->node)) {
		result = ENOMEM;
	} else {
		struct imex_msg m = {
			.type = IMEX_MSG_CALL,
			.flags = req->payload.present ? IMEX_WIRE_F_PAYLOAD : 0,
			.length = req->payload.length,
			.req_id = req->req_id,
			.src_node = d.id.node,
			.dst_node = req->node,
			.op = req->op,
			.payload = req->payload.bytes,
		};

		/* Dropped: node_lost() answered it EHOSTDOWN. */
		conn_send(p->live, &m);
		return;
	}
	if (req->req_id)
		respond(req->req_id, result, NULL);
}

/* @c's timers: its handshake's end, its silence, its heartbeat. */
static uint64_t conn_timers(struct conn *c, uint64_t now)
{
	struct imex_msg ping = {
		.type = IMEX_MSG_PING,
		.src_node = d.id.node,
		.dst_node = c->peer->node,
	};

	/* Deadlines, not differences: a connection just made is newer than now. */
	if (c->state != CONN_UP) {
		if (now >= c->since + d.cfg.peer_timeout_ms)
			conn_close(c, c->state == CONN_CONNECTING ?
				   "connect: timed out" : "no handshake in time");
		return c->since + d.cfg.peer_timeout_ms;
	}
	/* Not read while its calls wait: that is not silence. */
	if (c->peer->paused)
		c->last_rx = now;
	/*
	 * Silent, or this daemon did not read: it may have stalled (stopped,
	 * a loaded host). What waits in the socket counts.
	 */
	if (now >= c->last_rx + d.cfg.peer_timeout_ms)
		conn_read(c);
	if (c->state == CONN_UP && now >= c->last_rx + d.cfg.peer_timeout_ms)
		conn_close(c, "silent for %llu ms",
			   (unsigned long long)(now - c->last_rx));
	if (c->state == CONN_UP && now >= c->last_ping + d.cfg.heartbeat_ms) {
		c->last_ping = now;
		conn_send(c, &ping);
	}
	if (c->last_rx + d.cfg.peer_timeout_ms < c->last_ping + d.cfg.heartbeat_ms)
		return c->last_rx + d.cfg.peer_timeout_ms;
	return c->last_ping + d.cfg.heartbeat_ms;
}

/* Connect, ping, time out: answers the ms until the next timer. */
static int timers(void)
{
	uint64_t now = now_ms(), next = now + POLL_MAX_MS, t;
	size_t i;
	int j;

	for (i = 0; i < d.n_peers; i++) {
		struct peer *p = &d.peers[i];

		if (p->ours && !p->live && !p->pending[0] &&
		    now >= p->next_connect)
			conn_connect(p);
		if (p->ours && !p->live && !p->pending[0] &&
		    p->next_connect < next)
			next = p->next_connect;
		for (j = 0; j < PENDING_MAX; j++) {
			if (!p->pending[j])
				continue;
			t = conn_timers(p->pending[j], now);
			if (t < next)
				next = t;
		}
		if (p->live) {
			t = conn_timers(p->live, now);
			if (t < next)
				next = t;
		}
	}
	return next > now ? (int)(next - now) : 0;
}

/* What SIGUSR1 asks: each peer's connection and queue, a line each. */
static void print_report(void)
{
	size_t i;

	for (i = 0; i < d.n_peers; i++) {
		struct peer *p = &d.peers[i];

		say("node %u (%s): %s, %u calls queued (at most %u), %lu calls, not read %lu times",
		    p->node, p->name, p->live ? "connected" : "not connected",
		    p->queued, p->queued_most, p->calls, p->pauses);
	}
}

/* This node's address: @given, or the list's one this host has. */
static int find_self(const char *given)
{
	struct ifaddrs *ifa, *i;
	long found = -1, idx;

	if (given) {
		struct in_addr a;

		if (inet_pton(AF_INET, given, &a) != 1 ||
		    imex_config_find(&d.cfg, a) < 0) {
			say("%s: %s is not one of its addresses",
			    d.cfg.node_file, given);
			return -1;
		}
		d.self = a;
		inet_ntop(AF_INET, &d.self, d.self_name, sizeof(d.self_name));
		return 0;
	}
	if (getifaddrs(&ifa)) {
		say("getifaddrs: %s", strerror(errno));
		return -1;
	}
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
			continue;
		idx = imex_config_find(&d.cfg,
				       ((struct sockaddr_in *)i->ifa_addr)->sin_addr);
		if (idx < 0 || idx == found)
			continue;
		if (found >= 0) {
			char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

			inet_ntop(AF_INET, &d.cfg.nodes[found], a, sizeof(a));
			inet_ntop(AF_INET, &d.cfg.nodes[idx], b, sizeof(b));
			say("%s: %s and %s are both addresses of this host",
			    d.cfg.node_file, a, b);
			freeifaddrs(ifa);
			return -1;
		}
		found = idx;
	}
	freeifaddrs(ifa);
	if (found < 0) {
		say("%s: none of its %zu addresses is an address of this host",
		    d.cfg.node_file, d.cfg.n_nodes);
		return -1;
	}
	d.self = d.cfg.nodes[found];
	inet_ntop(AF_INET, &d.self, d.self_name, sizeof(d.self_name));
	return 0;
}

static int make_peers(void)
{
	size_t i;

	d.peers = calloc(d.cfg.n_nodes, sizeof(*d.peers));
	if (!d.peers)
		return -1;
	for (i = 0; i < d.cfg.n_nodes; i++) {
		struct peer *p = &d.peers[d.n_peers];

		if (d.cfg.nodes[i].s_addr == d.self.s_addr)
			continue;
		p->addr = d.cfg.nodes[i];
		p->node = d.cfg.node_ids[i];
		inet_ntop(AF_INET, &p->addr, p->name, sizeof(p->name));
		p->ours = ntohl(p->addr.s_addr) > ntohl(d.self.s_addr);
		d.n_peers++;
	}
	return 0;
}

static int listen_self(void)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_addr = d.self,
		.sin_port = htons(d.cfg.port),
	};
	int one = 1;

	d.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (d.listen_fd < 0 ||
	    setsockopt(d.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(d.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(d.listen_fd, 64)) {
		say("cannot listen on %s port %u: %s", d.self_name, d.cfg.port,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * One round: wait for sockets or the next timer, serve the sockets, then
 * the timers: after a stall (a stopped daemon, a loaded host) what the
 * peers sent is read before their silence is judged. Answers the ms to
 * wait in the next round, or -1 to stop.
 */
static int serve(const sigset_t *mask, int timeout)
{
	size_t nfds = 3 + d.n_peers * (1 + PENDING_MAX), n = 0, i;
	struct pollfd fds[nfds];
	struct conn *owner[nfds];
	struct timespec ts = { timeout / 1000, (timeout % 1000) * 1000000L };
	int ret, j;

	fds[n++] = (struct pollfd){ imex_kernel_fd(d.kernel), POLLIN, 0 };
	fds[n++] = (struct pollfd){ d.listen_fd, POLLIN, 0 };
	fds[n++] = (struct pollfd){ imex_worker_fd(), POLLIN, 0 };
	for (i = 0; i < d.n_peers; i++) {
		struct peer *p = &d.peers[i];

		for (j = -1; j < PENDING_MAX; j++) {
			struct conn *c = j < 0 ? p->live : p->pending[j];

			if (!c)
				continue;
			owner[n] = c;
			fds[n++] = (struct pollfd){
				c->fd,
				c->state == CONN_CONNECTING ? POLLOUT :
				(conn_reads(c) ? POLLIN : 0) |
				(c->out_len > c->out_off ? POLLOUT : 0),
				0
			};
		}
	}
	ret = ppoll(fds, n, &ts, mask);
	if (ret < 0 && errno != EINTR) {
		say("ppoll: %s", strerror(errno));
		return -1;
	}
	if (ret < 0)
		goto out;
	if (fds[0].revents && imex_kernel_receive(d.kernel))
		return -1;
	if (fds[1].revents)
		accept_all();
	if (fds[2].revents)
		jobs_done();
	for (i = 3; i < n; i++) {
		struct conn *c = owner[i];

		/* What earlier ones did may have closed it: freed only below. */
		if (!fds[i].revents || c->state == CONN_CLOSED)
			continue;
		if (c->state == CONN_CONNECTING) {
			connect_done(c);
			continue;
		}
		/* Not read while paused: an error ends it all the same. */
		if (!conn_reads(c) && (fds[i].revents & (POLLHUP | POLLERR))) {
			conn_close(c, "connection reset");
			continue;
		}
		if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
			conn_read(c);
		if (c->state != CONN_CLOSED && (fds[i].revents & POLLOUT))
			conn_flush(c);
	}
out:
	if (report) {
		report = 0;
		print_report();
	}
	ret = timers();
	reap();
	return ret;
}

static void shut_down(void)
{
	size_t i;
	int j;

	for (i = 0; i < d.n_peers; i++) {
		struct peer *p = &d.peers[i];

		/* No IMEX_NODE_LOST: the kernel detaches this daemon anyway. */
		for (j = -1; j < PENDING_MAX; j++) {
			struct conn *c = j < 0 ? p->live : p->pending[j];

			if (c) {
				close(c->fd);
				c->fd = -1;
				c->state = CONN_CLOSED;
				c->next_closed = d.closed;
				d.closed = c;
			}
		}
	}
	reap();
	free(d.peers);
	free(d.pending);
	if (d.listen_fd >= 0)
		close(d.listen_fd);
	imex_worker_stop();
	imex_kernel_close(d.kernel);
	imex_config_free(&d.cfg);
}

static const char *parse_args(int argc, char **argv, const char **address)
{
	const char *config = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (!strcmp(argv[i], "--version") ||
			   !strcmp(argv[i], "-V")) {
			printf("cumc-imex %s (protocol %d)\n", CUMC_VERSION,
			       IMEX_WIRE_VERSION);
			exit(0);
		} else if (i + 1 < argc && !config &&
			   (!strcmp(argv[i], "-c") ||
			    !strcmp(argv[i], "--config"))) {
			config = argv[++i];
		} else if (i + 1 < argc && !*address &&
			   (!strcmp(argv[i], "-a") ||
			    !strcmp(argv[i], "--address"))) {
			*address = argv[++i];
		} else {
			break;
		}
	}
	if (i < argc || !config) {
		fputs(usage_text, stderr);
		return NULL;
	}
	return config;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char err[IMEX_CONFIG_ERR_MAX];
	sigset_t block, mask;
	const char *config, *address = NULL;
	int status = 0, timeout = 0, ret;
	long idx;

	config = parse_args(argc, argv, &address);
	if (!config)
		return 1;
	if (imex_config_load(&d.cfg, config, err, sizeof(err))) {
		say("%s", err);
		return 1;
	}
	if (find_self(address) || make_peers()) {
		shut_down();
		return 1;
	}
	/* The signals stop the daemon only inside ppoll(): no race. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &mask);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGUSR1);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (listen_self()) {
		shut_down();
		return 2;
	}
	d.kernel = imex_kernel_open(&d.id, call_req, NULL);
	if (!d.kernel) {
		shut_down();
		return 2;
	}
	idx = imex_config_find(&d.cfg, d.self);
	if (d.cfg.node_ids[idx] != d.id.node) {
		say("%s: %s is node %u in the node list, but this node's kernel says it is node %u",
		    d.cfg.node_file, d.self_name, d.cfg.node_ids[idx],
		    d.id.node);
		shut_down();
		return 1;
	}
	/* After the signals are blocked: the worker never takes them. */
	ret = imex_worker_start(d.kernel);
	if (ret) {
		say("cannot start the worker thread: %s", strerror(-ret));
		shut_down();
		return 2;
	}
	say("ready (node %u, %zu nodes in the domain)", d.id.node,
	    d.cfg.n_nodes);
	/* The first round starts the connections at once. */
	while (!stopping && timeout >= 0)
		timeout = serve(&mask, timeout);
	if (timeout < 0)
		status = 2;
	if (stopping)
		say("stopping");
	shut_down();
	return status;
}
