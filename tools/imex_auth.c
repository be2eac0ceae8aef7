// SPDX-License-Identifier: MIT
/*
 * cumc-imex's peer authentication (imex_auth.h), on OpenSSL 3's libcrypto:
 * HMAC-SHA256 through EVP_MAC, nonces from RAND_bytes(), CRYPTO_memcmp()
 * for every comparison of a MAC.
 */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include "imex_auth.h"

#define LABEL_LEN 8
#define TRANSCRIPT_LEN (11 + IMEX_WIRE_UUID_LEN + 4 + 4 + \
			2 * IMEX_AUTH_NONCE_LEN)

/* HMAC-SHA256 keyed with @key, NULL when libcrypto fails. */
static EVP_MAC_CTX *mac_new(const uint8_t *key, size_t len)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						 (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC_CTX *ctx = NULL;
	EVP_MAC *mac;

	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (mac)
		ctx = EVP_MAC_CTX_new(mac);
	/* The context holds its own reference. */
	EVP_MAC_free(mac);
	if (ctx && !EVP_MAC_init(ctx, key, len, params)) {
		EVP_MAC_CTX_free(ctx);
		ctx = NULL;
	}
	return ctx;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* T, imex_auth.h's transcript, into @t of TRANSCRIPT_LEN bytes. */
static void transcript(const struct imex_auth *a, uint8_t *t)
{
	memcpy(t, "cumc-imex 2", 11);
	t += 11;
	memcpy(t, a->cluster_uuid, IMEX_WIRE_UUID_LEN);
	t += IMEX_WIRE_UUID_LEN;
	put32(t, a->node_ini);
	put32(t + 4, a->node_rsp);
	t += 8;
	memcpy(t, a->nonce_ini, IMEX_AUTH_NONCE_LEN);
	memcpy(t + IMEX_AUTH_NONCE_LEN, a->nonce_rsp, IMEX_AUTH_NONCE_LEN);
}

/* HMAC-SHA256(secret, @label || T) into @out: 0 or -EIO. */
static int derive(const struct imex_auth *a, const struct imex_secret *s,
		  const char *label, uint8_t *out)
{
	uint8_t t[TRANSCRIPT_LEN];
	EVP_MAC_CTX *ctx;
	size_t len = 0;
	int ok;

	if (!a->peer_known)
		return -EIO;
	ctx = mac_new(s->bytes, s->len);
	if (!ctx)
		return -EIO;
	transcript(a, t);
	ok = EVP_MAC_update(ctx, (const uint8_t *)label, LABEL_LEN) &&
	     EVP_MAC_update(ctx, t, sizeof(t)) &&
	     EVP_MAC_final(ctx, out, &len, IMEX_AUTH_MAC_LEN) &&
	     len == IMEX_AUTH_MAC_LEN;
	EVP_MAC_CTX_free(ctx);
	return ok ? 0 : -EIO;
}

int imex_auth_start(struct imex_auth *a, bool initiator, uint32_t node,
		    const uint8_t *uuid, const uint8_t **nonce)
{
	uint8_t *mine;

	imex_auth_end(a);
	a->initiator = initiator;
	memcpy(a->cluster_uuid, uuid, IMEX_WIRE_UUID_LEN);
	if (initiator) {
		a->node_ini = node;
		mine = a->nonce_ini;
	} else {
		a->node_rsp = node;
		mine = a->nonce_rsp;
	}
	if (RAND_bytes(mine, IMEX_AUTH_NONCE_LEN) != 1)
		return -EIO;
	*nonce = mine;
	return 0;
}

void imex_auth_peer(struct imex_auth *a, uint32_t node, const uint8_t *nonce)
{
	if (a->initiator) {
		a->node_rsp = node;
		memcpy(a->nonce_rsp, nonce, IMEX_AUTH_NONCE_LEN);
	} else {
		a->node_ini = node;
		memcpy(a->nonce_ini, nonce, IMEX_AUTH_NONCE_LEN);
	}
	a->peer_known = true;
}

int imex_auth_proof(const struct imex_auth *a, const struct imex_secret *s,
		    bool mine, uint8_t *proof)
{
	/* The initiator's own proof, or the one it waits for. */
	bool ini = a->initiator == mine;

	return derive(a, s, ini ? "auth-ini" : "auth-rsp", proof);
}

bool imex_auth_check(const struct imex_auth *a, const struct imex_secret *s,
		     const uint8_t *proof)
{
	uint8_t want[IMEX_AUTH_MAC_LEN];
	bool ok;

	if (imex_auth_proof(a, s, false, want))
		return false;
	ok = !CRYPTO_memcmp(want, proof, sizeof(want));
	OPENSSL_cleanse(want, sizeof(want));
	return ok;
}

int imex_auth_keys(struct imex_auth *a, const struct imex_secret *s)
{
	uint8_t ini[IMEX_AUTH_MAC_LEN], rsp[IMEX_AUTH_MAC_LEN];
	int err;

	err = derive(a, s, "key--ini", ini) ?: derive(a, s, "key--rsp", rsp);
	if (!err) {
		a->tx = mac_new(a->initiator ? ini : rsp, sizeof(ini));
		a->rx = mac_new(a->initiator ? rsp : ini, sizeof(ini));
		if (!a->tx || !a->rx)
			err = -EIO;
	}
	OPENSSL_cleanse(ini, sizeof(ini));
	OPENSSL_cleanse(rsp, sizeof(rsp));
	a->tx_seq = a->rx_seq = 0;
	return err;
}

/* The MAC of message number @seq, @len bytes at @msg, with @ctx's key. */
static int mac_message(EVP_MAC_CTX *ctx, uint64_t seq, const void *msg,
		       size_t len, uint8_t *tag)
{
	uint8_t s[8];
	size_t out = 0;

	put32(s, seq >> 32);
	put32(s + 4, seq);
	/* No key: the context keeps the one it was made with. */
	if (!ctx || !EVP_MAC_init(ctx, NULL, 0, NULL) ||
	    !EVP_MAC_update(ctx, s, sizeof(s)) ||
	    !EVP_MAC_update(ctx, msg, len) ||
	    !EVP_MAC_final(ctx, tag, &out, IMEX_AUTH_MAC_LEN) ||
	    out != IMEX_AUTH_MAC_LEN)
		return -EIO;
	return 0;
}

int imex_auth_seal(struct imex_auth *a, const void *msg, size_t len,
		   uint8_t *tag)
{
	int err = mac_message(a->tx, a->tx_seq, msg, len, tag);

	if (!err)
		a->tx_seq++;
	return err;
}

bool imex_auth_open(struct imex_auth *a, const void *msg, size_t len,
		    const uint8_t *tag)
{
	uint8_t want[IMEX_AUTH_MAC_LEN];

	if (mac_message(a->rx, a->rx_seq, msg, len, want) ||
	    CRYPTO_memcmp(want, tag, sizeof(want)))
		return false;
	a->rx_seq++;
	return true;
}

void imex_auth_end(struct imex_auth *a)
{
	EVP_MAC_CTX_free(a->tx);
	EVP_MAC_CTX_free(a->rx);
	OPENSSL_cleanse(a, sizeof(*a));
}
