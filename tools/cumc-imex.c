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

#include "imex_config.h"
#include "imex_kernel.h"
#include "imex_wire.h"
#include "imex_worker.h"

#ifndef CUMC_VERSION
#define CUMC_VERSION "unknown"
#endif

/* How often a peer not connected is tried again. */
#define RECONNECT_MS 500
/* A peer whose output waits past this is too slow: its connection goes. */
#define OUT_MAX (256 * IMEX_WIRE_MSG_MAX)
/* The longest poll: timers are looked at least this often. */
#define POLL_MAX_MS 1000
#define WHY_MAX 160

enum peer_state {
	PEER_IDLE,		/* no connection */
	PEER_CONNECTING,	/* ours, connect() in progress */
	PEER_HELLO,		/* connected, its HELLO not yet in */
	PEER_UP,
};

/* Every address of the node list but this node's own. */
struct peer {
	struct in_addr addr;
	char name[INET_ADDRSTRLEN];
	bool ours;		/* a higher address: this node connects */
	enum peer_state state;
	int fd;
	unsigned long gen;	/* counts connections */
	uint32_t node;		/* its index, once PEER_UP */
	uint64_t since;		/* the connection's start */
	uint64_t last_rx, last_ping, next_connect;
	uint8_t *in;		/* IMEX_WIRE_MSG_MAX bytes */
	size_t in_len;
	uint8_t *out;		/* out[out_off, out_len) waits to be sent */
	size_t out_off, out_len, out_cap;
	char why[WHY_MAX];	/* the failure last logged: each once */
};

/* A node ever connected; peer NULL once lost. */
struct node_rec {
	uint32_t node;
	struct peer *peer;
};

/* A call sent to a node, its answer awaited. */
struct pending {
	uint32_t req_id;
	uint32_t node;
};

static volatile sig_atomic_t stopping;

static struct {
	struct imex_config cfg;
	struct imex_identity id;
	struct imex_kernel *kernel;
	struct in_addr self;
	char self_name[INET_ADDRSTRLEN];
	int listen_fd;
	struct peer *peers;
	size_t n_peers;
	struct node_rec *nodes;
	size_t n_nodes, cap_nodes;
	struct pending *pending;
	size_t n_pending, cap_pending;
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
	(void)sig;
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

static struct node_rec *find_node(uint32_t node)
{
	size_t i;

	for (i = 0; i < d.n_nodes; i++)
		if (d.nodes[i].node == node)
			return &d.nodes[i];
	return NULL;
}

static struct node_rec *add_node(uint32_t node)
{
	struct node_rec *n = find_node(node);

	if (n)
		return n;
	if (d.n_nodes == d.cap_nodes) {
		size_t cap = d.cap_nodes ? 2 * d.cap_nodes : 16;

		n = realloc(d.nodes, cap * sizeof(*n));
		if (!n)
			return NULL;
		d.nodes = n;
		d.cap_nodes = cap;
	}
	n = &d.nodes[d.n_nodes++];
	n->node = node;
	n->peer = NULL;
	return n;
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

/* @p's node is lost: the kernel is told, its calls fail. */
static void node_lost(struct peer *p, const char *why)
{
	struct node_rec *n = find_node(p->node);
	size_t i;
	int err;

	say("node %u lost (%s: %s)", p->node, p->name, why);
	if (n)
		n->peer = NULL;
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

/* The connection of @p ends, for what @fmt says. */
static void __attribute__((format(printf, 2, 3)))
peer_drop(struct peer *p, const char *fmt, ...)
{
	bool was_up = p->state == PEER_UP;
	char why[WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->state = PEER_IDLE;
	p->in_len = 0;
	p->out_off = p->out_len = 0;
	p->next_connect = now_ms() + RECONNECT_MS;
	if (was_up)
		node_lost(p, why);
	else
		note(p, "%s", why);
}

/* Send what waits, as much as the socket takes: false if @p dropped. */
static bool peer_flush(struct peer *p)
{
	ssize_t n;

	if (p->state == PEER_CONNECTING)
		return true;
	while (p->out_off < p->out_len) {
		n = send(p->fd, p->out + p->out_off, p->out_len - p->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (n < 0) {
			peer_drop(p, "send: %s", strerror(errno));
			return false;
		}
		p->out_off += n;
	}
	p->out_off = p->out_len = 0;
	return true;
}

/* Queue @m for @p and send what can be: false if @p dropped. */
static bool peer_send(struct peer *p, const struct imex_msg *m)
{
	size_t need = IMEX_WIRE_HDR_LEN + m->length;
	ssize_t n;

	if (p->out_off && p->out_len + need > p->out_cap) {
		memmove(p->out, p->out + p->out_off, p->out_len - p->out_off);
		p->out_len -= p->out_off;
		p->out_off = 0;
	}
	if (p->out_len + need > OUT_MAX) {
		peer_drop(p, "%zu bytes wait to be sent: too slow", p->out_len);
		return false;
	}
	if (p->out_len + need > p->out_cap) {
		size_t cap = p->out_cap ? p->out_cap : IMEX_WIRE_MSG_MAX;
		uint8_t *out;

		while (cap < p->out_len + need)
			cap *= 2;
		out = realloc(p->out, cap);
		if (!out) {
			peer_drop(p, "out of memory");
			return false;
		}
		p->out = out;
		p->out_cap = cap;
	}
	n = imex_wire_encode(p->out + p->out_len, p->out_cap - p->out_len, m);
	if (n < 0) {
		say("%s: cannot encode a %s: %s", p->name,
		    imex_wire_type_name(m->type), strerror(-n));
		return true;
	}
	p->out_len += n;
	return peer_flush(p);
}

static bool send_hello(struct peer *p)
{
	struct imex_msg m = {
		.type = IMEX_MSG_HELLO,
		.flags = IMEX_WIRE_F_PAYLOAD,
		.length = IMEX_WIRE_UUID_LEN,
		.src_node = d.id.node,
		.payload = d.id.cluster_uuid,
	};

	return peer_send(p, &m);
}

/* A new connection of @p on @fd, in @state. */
static void peer_start(struct peer *p, int fd, enum peer_state state)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	p->fd = fd;
	p->state = state;
	p->gen++;
	p->since = now_ms();
	p->in_len = 0;
	p->out_off = p->out_len = 0;
	send_hello(p);
}

static void peer_connect(struct peer *p)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
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
		peer_start(p, fd, PEER_HELLO);
	} else if (errno == EINPROGRESS) {
		peer_start(p, fd, PEER_CONNECTING);
	} else {
		note(p, "connect: %s", strerror(errno));
		close(fd);
	}
}

static void connect_done(struct peer *p)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (err) {
		peer_drop(p, "connect: %s", strerror(err));
		return;
	}
	p->state = PEER_HELLO;
	peer_flush(p);
}

static void hello(struct peer *p, const struct imex_msg *m)
{
	struct node_rec *n;
	char ours[37], theirs[37];

	if (p->state == PEER_UP) {
		peer_drop(p, "a second HELLO");
		return;
	}
	if (memcmp(m->payload, d.id.cluster_uuid, IMEX_WIRE_UUID_LEN)) {
		uuid_str(m->payload, theirs);
		uuid_str(d.id.cluster_uuid, ours);
		peer_drop(p, "refused: cluster %s, not this node's %s", theirs,
			  ours);
		return;
	}
	if (m->src_node == d.id.node) {
		peer_drop(p, "refused: it says it is node %u, this node",
			  m->src_node);
		return;
	}
	n = find_node(m->src_node);
	if (n && n->peer && n->peer != p) {
		peer_drop(p, "refused: it says it is node %u, connected from %s",
			  m->src_node, n->peer->name);
		return;
	}
	n = add_node(m->src_node);
	if (!n) {
		peer_drop(p, "out of memory");
		return;
	}
	n->peer = p;
	p->node = m->src_node;
	p->state = PEER_UP;
	p->last_ping = now_ms();
	p->why[0] = '\0';
	say("node %u connected (%s)", p->node, p->name);
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
	if (!job->req_id || p->gen != job->gen || p->state != PEER_UP)
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
	peer_send(p, &r);
}

/* The worker's jobs done, in the order they came. */
static void jobs_done(void)
{
	struct imex_job *job;

	while ((job = imex_worker_take())) {
		if (job->is_call)
			answer_call(job);
		else
			respond(job->req_id, job->result, &job->in);
		free(job);
	}
}

/* A job for the worker, of a message from @p; NULL when out of memory. */
static struct imex_job *job_of(struct peer *p, const struct imex_msg *m)
{
	struct imex_data in = {
		.present = m->flags & IMEX_WIRE_F_PAYLOAD,
		.length = m->length,
		.bytes = m->payload,
	};
	struct imex_job *job = imex_job_new(&in);

	if (!job) {
		say("out of memory for node %u's %s %u", p->node,
		    imex_wire_type_name(m->type), m->req_id);
		return NULL;
	}
	job->peer = p;
	job->gen = p->gen;
	job->node = p->node;
	job->op = m->op;
	job->req_id = m->req_id;
	job->result = m->result;
	return job;
}

/* A CALL from @p's node: the worker runs it; answered once done. */
static void run_call(struct peer *p, const struct imex_msg *m)
{
	struct imex_job *job = job_of(p, m);
	struct imex_msg r = {
		.type = IMEX_MSG_REPLY, .req_id = m->req_id, .result = ENOMEM,
		.src_node = d.id.node, .dst_node = p->node, .op = m->op,
	};

	if (!job) {
		if (m->req_id)
			peer_send(p, &r);
		return;
	}
	job->is_call = true;
	imex_worker_push(job);
}

/*
 * The answer to a call of this node's: to the kernel, but only after the
 * calls @p sent before it, which it must not overtake (an origin's
 * changes to a team, then its answer to a bind).
 */
static void reply(struct peer *p, const struct imex_msg *m)
{
	struct imex_job *job;

	/* Not waited for: answered EHOSTDOWN before, or never asked. */
	if (!pending_take(m->req_id, p->node))
		return;
	job = job_of(p, m);
	if (!job) {
		respond(m->req_id, ENOMEM, NULL);
		return;
	}
	imex_worker_push(job);
}

/* One message from @p. */
static void handle(struct peer *p, const struct imex_msg *m)
{
	if (m->type == IMEX_MSG_HELLO) {
		hello(p, m);
		return;
	}
	if (p->state != PEER_UP) {
		peer_drop(p, "a %s before HELLO", imex_wire_type_name(m->type));
		return;
	}
	if (m->src_node != p->node ||
	    (m->type != IMEX_MSG_PING && m->dst_node != d.id.node)) {
		peer_drop(p, "a %s from node %u to node %u on node %u's connection",
			  imex_wire_type_name(m->type), m->src_node,
			  m->dst_node, p->node);
		return;
	}
	if (m->type == IMEX_MSG_CALL)
		run_call(p, m);
	else if (m->type == IMEX_MSG_REPLY)
		reply(p, m);
}

static void peer_read(struct peer *p)
{
	unsigned long gen = p->gen;
	struct imex_msg m;
	size_t off = 0;
	ssize_t n;

	n = recv(p->fd, p->in + p->in_len, IMEX_WIRE_MSG_MAX - p->in_len,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		peer_drop(p, "%s", n ? strerror(errno) : "connection closed");
		return;
	}
	p->in_len += n;
	p->last_rx = now_ms();
	while (p->gen == gen && p->fd >= 0) {
		n = imex_wire_decode(p->in + off, p->in_len - off, &m);
		if (!n)
			break;
		if (n == -EPROTONOSUPPORT) {
			peer_drop(p, "refused: protocol version %u, not %u",
				  m.version, IMEX_WIRE_VERSION);
			return;
		}
		if (n < 0) {
			peer_drop(p, "garbage received: %s", strerror(-n));
			return;
		}
		off += n;
		handle(p, &m);
	}
	if (p->gen == gen && p->fd >= 0) {
		memmove(p->in, p->in + off, p->in_len - off);
		p->in_len -= off;
	}
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
		/* It started again: its old connection is gone. */
		if (p->state != PEER_IDLE)
			peer_drop(p, "replaced by a new connection");
		peer_start(p, fd, PEER_HELLO);
	}
}

/* IMEX_CALL_REQ: carry it to its node's daemon, or answer it here. */
static void call_req(struct imex_kernel *k, const struct imex_call_req *req,
		     void *arg)
{
	struct node_rec *n = find_node(req->node);
	uint32_t result;

	(void)arg;
	d.kernel = k;
	if (req->node == d.id.node) {
		result = EINVAL;
	} else if (!n) {
		result = EHOSTUNREACH;
	} else if (!n->peer) {
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
		peer_send(n->peer, &m);
		return;
	}
	if (req->req_id)
		respond(req->req_id, result, NULL);
}

/* Connect, ping, time out: answers the ms until the next timer. */
static int timers(void)
{
	uint64_t now = now_ms(), next = now + POLL_MAX_MS, t;
	struct imex_msg ping = { .type = IMEX_MSG_PING, .src_node = d.id.node };
	size_t i;

	for (i = 0; i < d.n_peers; i++) {
		struct peer *p = &d.peers[i];

		if (p->state == PEER_IDLE && p->ours && now >= p->next_connect)
			peer_connect(p);
		/* Deadlines, not differences: a connection just made is newer than now. */
		if ((p->state == PEER_CONNECTING || p->state == PEER_HELLO) &&
		    now >= p->since + d.cfg.peer_timeout_ms)
			peer_drop(p, p->state == PEER_CONNECTING ?
				  "connect: timed out" : "no HELLO in time");
		/*
		 * Silent, or this daemon did not read: it may have stalled
		 * (stopped, a loaded host). What waits in the socket counts.
		 */
		if (p->state == PEER_UP &&
		    now >= p->last_rx + d.cfg.peer_timeout_ms)
			peer_read(p);
		if (p->state == PEER_UP &&
		    now >= p->last_rx + d.cfg.peer_timeout_ms)
			peer_drop(p, "silent for %llu ms",
				  (unsigned long long)(now - p->last_rx));
		if (p->state == PEER_UP &&
		    now >= p->last_ping + d.cfg.heartbeat_ms) {
			p->last_ping = now;
			peer_send(p, &ping);
		}
		switch (p->state) {
		case PEER_IDLE:
			t = p->ours ? p->next_connect : next;
			break;
		case PEER_CONNECTING:
		case PEER_HELLO:
			t = p->since + d.cfg.peer_timeout_ms;
			break;
		default:
			t = p->last_ping + d.cfg.heartbeat_ms;
			if (p->last_rx + d.cfg.peer_timeout_ms < t)
				t = p->last_rx + d.cfg.peer_timeout_ms;
			break;
		}
		if (t < next)
			next = t;
	}
	return next > now ? (int)(next - now) : 0;
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
		inet_ntop(AF_INET, &p->addr, p->name, sizeof(p->name));
		p->ours = ntohl(p->addr.s_addr) > ntohl(d.self.s_addr);
		p->fd = -1;
		p->in = malloc(IMEX_WIRE_MSG_MAX);
		if (!p->in)
			return -1;
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
	size_t nfds = 3 + d.n_peers, n = 0, i;
	struct pollfd fds[nfds];
	struct peer *owner[nfds];
	unsigned long gen[nfds];
	struct timespec ts = { timeout / 1000, (timeout % 1000) * 1000000L };
	int ret;

	fds[n++] = (struct pollfd){ imex_kernel_fd(d.kernel), POLLIN, 0 };
	fds[n++] = (struct pollfd){ d.listen_fd, POLLIN, 0 };
	fds[n++] = (struct pollfd){ imex_worker_fd(), POLLIN, 0 };
	for (i = 0; i < d.n_peers; i++) {
		struct peer *p = &d.peers[i];

		if (p->fd < 0)
			continue;
		owner[n] = p;
		gen[n] = p->gen;
		fds[n++] = (struct pollfd){
			p->fd,
			p->state == PEER_CONNECTING ? POLLOUT :
			POLLIN | (p->out_len > p->out_off ? POLLOUT : 0),
			0
		};
	}
	ret = ppoll(fds, n, &ts, mask);
	if (ret < 0 && errno != EINTR) {
		say("ppoll: %s", strerror(errno));
		return -1;
	}
	if (ret < 0)
		return timers();
	if (fds[0].revents && imex_kernel_receive(d.kernel))
		return -1;
	if (fds[1].revents)
		accept_all();
	if (fds[2].revents)
		jobs_done();
	for (i = 3; i < n; i++) {
		struct peer *p = owner[i];

		/* What earlier ones did may have ended this connection. */
		if (!fds[i].revents || p->gen != gen[i] || p->fd != fds[i].fd)
			continue;
		if (p->state == PEER_CONNECTING) {
			connect_done(p);
			continue;
		}
		if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
			peer_read(p);
		if (p->gen == gen[i] && p->fd >= 0 &&
		    (fds[i].revents & POLLOUT))
			peer_flush(p);
	}
	return timers();
}

static void shut_down(void)
{
	size_t i;

	for (i = 0; i < d.n_peers; i++) {
		if (d.peers[i].fd >= 0)
			close(d.peers[i].fd);
		free(d.peers[i].in);
		free(d.peers[i].out);
	}
	free(d.peers);
	free(d.nodes);
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
	sigprocmask(SIG_BLOCK, &block, &mask);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGINT);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
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
