/* SPDX-License-Identifier: MIT */
/*
 * cumc-imex's peer authentication: every daemon of an IMEX domain holds
 * the domain's secret (the key file IMEX_AUTH_SECRET_FILE names; see
 * imex_config.h), proves it to each peer when a connection starts, and
 * seals every message after that with a MAC. OpenSSL's libcrypto does the
 * cryptography: HMAC-SHA256, the random nonces, the comparison in
 * constant time. Nothing is encrypted: this is authentication, and
 * integrity of what follows it. Documentation/security.md has the threat
 * model.
 *
 * On a connection from the initiator I (the daemon that connected) to the
 * responder R, each end sends HELLO with a fresh random nonce of
 * IMEX_AUTH_NONCE_LEN bytes (imex_wire.h), then, once it has the other's
 * HELLO, AUTH with its proof:
 *
 *   T       = "cumc-imex 2" || cluster UUID (16 bytes) || I's node index
 *             (4, big-endian) || R's node index (4) || I's nonce || R's nonce
 *   proof_I = HMAC-SHA256(secret, "auth-ini" || T)
 *   proof_R = HMAC-SHA256(secret, "auth-rsp" || T)
 *
 * An end takes nothing from a connection but HELLO and one AUTH until the
 * other's proof checks. Both nonces and both indexes are in every proof,
 * so a proof is good for one connection, one direction and one pair of
 * nodes: replayed on another connection, reflected back, or sent for
 * another node, it fails. Each direction then has a key of its own,
 *
 *   key_I   = HMAC-SHA256(secret, "key--ini" || T)   (I to R)
 *   key_R   = HMAC-SHA256(secret, "key--rsp" || T)   (R to I)
 *
 * and every later message is sealed with HMAC-SHA256(key, seq || the
 * message's header and payload), seq counting that direction's sealed
 * messages from 0 (8 bytes, big-endian): a message changed, dropped,
 * replayed, reordered or moved to another connection fails its MAC, and
 * the connection goes.
 */
#ifndef IMEX_AUTH_H
#define IMEX_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "imex_wire.h"

#define IMEX_AUTH_NONCE_LEN IMEX_WIRE_NONCE_LEN
#define IMEX_AUTH_MAC_LEN IMEX_WIRE_TAG_LEN
/* A secret's bytes: at least 256 bits, as HMAC-SHA256's key. */
#define IMEX_AUTH_SECRET_MIN 32
#define IMEX_AUTH_SECRET_MAX 256

struct imex_secret {
	size_t len;
	uint8_t bytes[IMEX_AUTH_SECRET_MAX];
};

/* One connection's side of the handshake, then its two MACs' state. */
struct imex_auth {
	bool initiator;		/* this end connected */
	bool peer_known;	/* imex_auth_peer() was called */
	uint8_t cluster_uuid[IMEX_WIRE_UUID_LEN];
	uint32_t node_ini, node_rsp;
	uint8_t nonce_ini[IMEX_AUTH_NONCE_LEN];
	uint8_t nonce_rsp[IMEX_AUTH_NONCE_LEN];
	void *tx, *rx;		/* EVP_MAC_CTX, keyed by imex_auth_keys() */
	uint64_t tx_seq, rx_seq;
};

/*
 * Start @a for a connection of this node, @node, of cluster @uuid: a fresh
 * nonce, @a's own, in *@nonce. 0, or -EIO when no random bytes could be
 * had.
 */
int imex_auth_start(struct imex_auth *a, bool initiator, uint32_t node,
		    const uint8_t *uuid, const uint8_t **nonce);

/* The peer's HELLO: its node index and nonce. */
void imex_auth_peer(struct imex_auth *a, uint32_t node, const uint8_t *nonce);

/*
 * This end's proof (@mine) or the one the peer must send, into @proof of
 * IMEX_AUTH_MAC_LEN bytes: 0 or -EIO (libcrypto failed).
 */
int imex_auth_proof(const struct imex_auth *a, const struct imex_secret *s,
		    bool mine, uint8_t *proof);

/*
 * Whether @proof is the peer's good one; compared in constant time, and
 * never true before imex_auth_peer().
 */
bool imex_auth_check(const struct imex_auth *a, const struct imex_secret *s,
		     const uint8_t *proof);

/* The two directions' keys, once the peer's proof checked: 0 or -EIO. */
int imex_auth_keys(struct imex_auth *a, const struct imex_secret *s);

/*
 * Seal the @len bytes of a message (header and payload, as
 * imex_wire_encode() wrote them) with the next MAC of this direction, into
 * @tag: 0 or -EIO.
 */
int imex_auth_seal(struct imex_auth *a, const void *msg, size_t len,
		   uint8_t *tag);

/*
 * Whether @tag is the MAC the peer's next message, @len bytes, must have;
 * when it is, the next one is expected after it.
 */
bool imex_auth_open(struct imex_auth *a, const void *msg, size_t len,
		    const uint8_t *tag);

/* Free the MACs' state and wipe the nonces and keys; @a may start again. */
void imex_auth_end(struct imex_auth *a);

#endif /* IMEX_AUTH_H */
