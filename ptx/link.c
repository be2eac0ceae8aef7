// SPDX-License-Identifier: MIT
/*
 * The JIT linker's half of cumc_ptx.h.  cumc runs PTX, so linking is
 * joining texts: the inputs' PTX one after the other is one PTX text,
 * since a later .version, .target and .address_size only restate the
 * first (the module keeps the highest version), an .extern function is a
 * prototype its definition in another input fills, and an .extern
 * variable a declaration its definition gives storage to.  The parser
 * finds what a linker must refuse: a function, kernel or variable defined
 * twice, and a call or an .extern variable that no input defines.
 *
 * What the joined text would get wrong, a first pass of the lexer over
 * each input finds, and the joining rewrites: a module-scope function or
 * variable declared without .visible, .extern or .weak is its input's
 * own, which another input may declare again, so the names that another
 * input declares too are renamed in each input that has one of its own;
 * and a .weak definition that several inputs give (a template's
 * instance) is kept once, the others made .extern declarations of it.
 * Neither adds or removes a newline: the parser's lines stay the inputs'.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image.h"
#include "lex.h"
#include "parse.h"
#include "strmap.h"

enum cumc_ptx_status cumc_ptx_link_input(const void *image, size_t len,
					 unsigned int max_arch, char **text,
					 size_t *text_len, char *log,
					 size_t log_size)
{
	struct cumc_ptx_module *module;
	enum cumc_ptx_status st;

	st = ptx_image_text(image, len, max_arch, text, text_len, log,
			    log_size);
	if (st != CUMC_PTX_OK)
		return st;
	st = ptx_parse(*text, *text_len, true, &module, log, log_size);
	if (st != CUMC_PTX_OK) {
		free(*text);
		return st;
	}
	ptx_module_free(module);
	return CUMC_PTX_OK;
}

/* The parser's "line N:" in the joined text, made the input's own. */
static void log_input_line(char *log, size_t log_size, char *const *texts,
			   const size_t *lens, unsigned int count)
{
	unsigned int line, i, lines;
	char *msg;
	int at = 0;

	if (!log_size || sscanf(log, "line %u: %n", &line, &at) != 1 || !at)
		return;
	for (i = 0; i + 1 < count; i++) {
		/* An input's lines, and the one its joining newline ends. */
		lines = 1;
		for (msg = texts[i]; (msg = memchr(msg, '\n', texts[i] + lens[i] -
						   msg)); msg++)
			lines++;
		if (line <= lines)
			break;
		line -= lines;
	}
	msg = strdup(log + at);
	if (msg)
		snprintf(log, log_size, "input %u, line %u: %s", i + 1, line,
			 msg);
	free(msg);
}

enum link_linkage { LINK_PRIVATE, LINK_VISIBLE, LINK_EXTERN, LINK_WEAK };

/* A module-scope declaration, as the first pass reads it. */
struct link_decl {
	enum link_linkage linkage;
	bool entry;
	bool func;		/* .func or .entry */
	bool storage;		/* .global or .const, not .shared */
	bool body;		/* a function's, not a prototype */
	const char *name;
	size_t len;
	size_t at;		/* the linkage directive */
	size_t init;		/* '=' or '{', else the ';' that ends it */
	size_t end;		/* past the ';' or '}' */
};

/* A .weak definition; dropped, it is made a declaration of the one kept. */
struct link_weak {
	unsigned int input;
	bool dropped;
	size_t at, init, end;
};

/* Where an input names one of its private functions or variables. */
struct link_use {
	size_t at;
	size_t len;
};

struct link_input {
	/* Its private names: how many '$' end the new name, or LINK_KEEP. */
	struct strmap privs;
	/* Their first characters and lengths (63: longer), to look up less. */
	uint64_t firsts[4], lens;
	struct link_use *uses;
	size_t nuses, uses_cap;
};

#define LINK_SHARED	0x80000000u	/* names: declared by two inputs */
#define LINK_KEEP	UINT32_MAX	/* privs: not renamed */
#define LINK_STRONG	UINT32_MAX	/* defs: a .visible definition */

struct link {
	char *const *texts;
	const size_t *lens;
	unsigned int count;
	struct link_input *in;
	/* Each module-scope name: the first input to declare it, from 1. */
	struct strmap names;
	/* Each .visible or .weak definition: LINK_STRONG or a weak[] index. */
	struct strmap defs;
	struct link_weak *weak;
	size_t nweak, weak_cap;
	char *out;		/* the joined text */
	size_t len, cap;
};

/* The first pass over one input. */
struct link_scan {
	struct link *lk;
	unsigned int input;
	const char *text;
	struct ptx_lexer lx;
	int err;
};

/* Room in *@p for @n elements of @size. */
static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap * 2 : 16;
	void *q;

	if (n <= *cap)
		return 0;
	q = realloc(*p, want * size);
	if (!q)
		return -1;
	*p = q;
	*cap = want;
	return 0;
}

static uint64_t len_bit(size_t len)
{
	return 1ull << (len < 63 ? len : 63);
}

/* Whether a word may be a private name: most words are registers. */
static bool maybe_private(const struct link_input *in, const char *s,
			  size_t len)
{
	unsigned char c = s[0];

	return (in->firsts[c / 64] >> c % 64 & 1) && (in->lens & len_bit(len));
}

/*
 * The next token.  The one it leaves is noted where it is a private name
 * of the input: references follow declarations in PTX, so all of them.
 */
static void scan_next(struct link_scan *sc)
{
	const struct ptx_lexer *lx = &sc->lx;
	struct link_input *in = &sc->lk->in[sc->input];
	uint32_t dollars;

	if (lx->tok == T_WORD && maybe_private(in, lx->text, lx->len) &&
	    ptx_strmap_get(&in->privs, lx->text, lx->len, &dollars)) {
		if (grow((void **)&in->uses, &in->uses_cap, in->nuses + 1,
			 sizeof(*in->uses)))
			sc->err = -1;
		else
			in->uses[in->nuses++] = (struct link_use) {
				.at = lx->text - sc->text, .len = lx->len };
	}
	ptx_lex_next(&sc->lx);
}

/* The offset past the token the lexer is at, which it leaves. */
static size_t scan_past(struct link_scan *sc)
{
	size_t end = sc->lx.text - sc->text + sc->lx.len;

	scan_next(sc);
	return end;
}

static bool scan_is(const struct link_scan *sc, const char *s)
{
	return ptx_lex_is(&sc->lx, s);
}

/* scan_is() for punctuation, which the skipping asks of every token. */
static bool scan_punct(const struct link_scan *sc, char c)
{
	return sc->lx.tok == T_PUNCT && sc->lx.text[0] == c;
}

static bool scan_end(const struct link_scan *sc)
{
	return sc->lx.tok == T_EOF;
}

/* From an @open token past its matching @close; the offset past it. */
static size_t skip_group(struct link_scan *sc, char open, char close)
{
	unsigned int depth = 0;

	while (!scan_end(sc)) {
		if (scan_punct(sc, open))
			depth++;
		else if (scan_punct(sc, close) && !--depth)
			return scan_past(sc);
		scan_next(sc);
	}
	return sc->lx.text - sc->text;
}

static void skip_to(struct link_scan *sc, char c, char or)
{
	while (!scan_end(sc) && !scan_punct(sc, c) && !scan_punct(sc, or))
		scan_next(sc);
}

/*
 * The name the lexer is at.  A private one is the input's from here on,
 * in the declaration itself too (a recursive call, an initializer).
 */
static void scan_name(struct link_scan *sc, struct link_decl *d)
{
	struct link_input *in = &sc->lk->in[sc->input];

	if (sc->lx.tok != T_WORD)
		return;
	d->name = sc->lx.text;
	d->len = sc->lx.len;
	if (d->linkage == LINK_PRIVATE && !d->entry) {
		if (ptx_strmap_put(&in->privs, d->name, d->len, LINK_KEEP))
			sc->err = -1;
		in->firsts[(unsigned char)d->name[0] / 64] |=
			1ull << (unsigned char)d->name[0] % 64;
		in->lens |= len_bit(d->len);
	}
	scan_next(sc);
}

/* [.align N] .type name[N] [= init]; after .global, .const or .shared */
static void scan_var(struct link_scan *sc, struct link_decl *d)
{
	while (!scan_end(sc) && !scan_punct(sc, ';') &&
	       (sc->lx.tok != T_WORD || sc->lx.text[0] == '.'))
		scan_next(sc);
	scan_name(sc, d);
	skip_to(sc, '=', ';');
	d->init = sc->lx.text - sc->text;
	skip_to(sc, ';', ';');
	d->end = scan_past(sc);
}

/* [(results)] name(params) [directives] ; or { body }, after .func/.entry */
static void scan_func(struct link_scan *sc, struct link_decl *d)
{
	if (scan_punct(sc, '('))
		skip_group(sc, '(', ')');
	scan_name(sc, d);
	skip_to(sc, '{', ';');
	d->init = sc->lx.text - sc->text;
	d->body = scan_punct(sc, '{');
	d->end = d->body ? skip_group(sc, '{', '}') : scan_past(sc);
}

/* Reads the directive the lexer is at; whether it declared a name. */
static bool scan_directive(struct link_scan *sc, struct link_decl *d)
{
	d->entry = scan_is(sc, ".entry");
	d->func = d->entry || scan_is(sc, ".func");
	d->storage = scan_is(sc, ".global") || scan_is(sc, ".const");
	if (d->func) {
		scan_next(sc);
		scan_func(sc, d);
	} else if (d->storage || scan_is(sc, ".shared")) {
		scan_next(sc);
		scan_var(sc, d);
	} else if (scan_punct(sc, '{')) {	/* a .section's */
		skip_group(sc, '{', '}');
	} else {
		scan_next(sc);
	}
	return d->name;
}

static bool scan_linkage(const struct link_scan *sc, enum link_linkage *l)
{
	if (scan_is(sc, ".visible"))
		*l = LINK_VISIBLE;
	else if (scan_is(sc, ".extern"))
		*l = LINK_EXTERN;
	else if (scan_is(sc, ".weak"))
		*l = LINK_WEAK;
	else
		return false;
	return true;
}

/*
 * A .visible or .weak definition: the first .weak one of a name is kept
 * unless a .visible one comes, and the others are dropped.  Two .visible
 * ones are left for the parser to refuse.
 */
static int note_definition(struct link *lk, unsigned int input,
			   const struct link_decl *d)
{
	bool weak = d->linkage == LINK_WEAK;
	uint32_t kept, me = weak ? lk->nweak : LINK_STRONG;

	if (weak) {
		if (grow((void **)&lk->weak, &lk->weak_cap, lk->nweak + 1,
			 sizeof(*lk->weak)))
			return -1;
		lk->weak[lk->nweak++] = (struct link_weak) {
			.input = input, .at = d->at, .init = d->init,
			.end = d->end };
	}
	if (!ptx_strmap_get(&lk->defs, d->name, d->len, &kept))
		return ptx_strmap_put(&lk->defs, d->name, d->len, me);
	if (weak) {
		lk->weak[me].dropped = true;
	} else if (kept != LINK_STRONG) {
		lk->weak[kept].dropped = true;
		return ptx_strmap_set(&lk->defs, d->name, d->len, LINK_STRONG);
	}
	return 0;
}

static int note_decl(struct link *lk, unsigned int input,
		     const struct link_decl *d)
{
	uint32_t first;

	if (!ptx_strmap_get(&lk->names, d->name, d->len, &first)) {
		if (ptx_strmap_put(&lk->names, d->name, d->len, input + 1))
			return -1;
	} else if ((first & ~LINK_SHARED) != input + 1 &&
		   ptx_strmap_set(&lk->names, d->name, d->len,
				  first | LINK_SHARED)) {
		return -1;
	}
	/* A kernel is found by its name, whatever its linkage. */
	if (!d->entry && (d->linkage == LINK_VISIBLE ||
			  d->linkage == LINK_WEAK) && (d->body || d->storage))
		return note_definition(lk, input, d);
	return 0;
}

/*
 * The first pass: an input's module-scope names, where it uses its
 * private ones and its .weak definitions.
 */
static int scan_input(struct link *lk, unsigned int input)
{
	struct link_scan sc = { .lk = lk, .input = input,
				.text = lk->texts[input] };
	struct link_decl d = { 0 };

	ptx_lex_init(&sc.lx, sc.text, lk->lens[input]);
	while (!scan_end(&sc) && !sc.err) {
		if (scan_linkage(&sc, &d.linkage)) {
			d.at = sc.lx.text - sc.text;
			scan_next(&sc);
			continue;
		}
		if (scan_directive(&sc, &d) && note_decl(lk, input, &d))
			return -1;
		memset(&d, 0, sizeof(d));
	}
	return sc.err;
}

/*
 * The '$'s after name$cumcN (N the input, from 1) that make a name no
 * input declares: PTX names may have '$', so one might have that one.
 */
static int private_dollars(const struct link *lk, const char *name,
			   unsigned int input, uint32_t *dollars)
{
	char *s = malloc(strlen(name) + 16), *more;
	uint32_t first;
	size_t len;

	if (!s)
		return -1;
	len = sprintf(s, "%s$cumc%u", name, input + 1);
	for (*dollars = 0; ptx_strmap_get(&lk->names, s, len, &first);
	     ++*dollars) {
		more = realloc(s, len + 2);
		if (!more) {
			free(s);
			return -1;
		}
		s = more;
		s[len++] = '$';
	}
	free(s);
	return 0;
}

/*
 * An input's private names that another input declares too are renamed;
 * the others keep theirs, so that cumc_ptx_global_find() finds a
 * variable of one input by its name as in that input's own module.
 */
static int name_privates(struct link *lk, unsigned int input)
{
	struct strmap *privs = &lk->in[input].privs;
	struct strmap_slot *s;
	uint32_t first;
	size_t i;

	for (i = 0; i < privs->cap; i++) {
		s = &privs->slots[i];
		if (s->key && ptx_strmap_get(&lk->names, s->key, s->len,
					     &first) && (first & LINK_SHARED) &&
		    private_dollars(lk, s->key, input, &s->value))
			return -1;
	}
	return 0;
}

static int emit(struct link *lk, const char *s, size_t n)
{
	size_t cap = lk->cap + lk->cap / 8 + n + 1;
	char *out;

	/* Room for the NUL; renamed names lengthen the text a little. */
	if (lk->len + n >= lk->cap) {
		out = realloc(lk->out, cap);
		if (!out)
			return -1;
		lk->out = out;
		lk->cap = cap;
	}
	memcpy(lk->out + lk->len, s, n);
	lk->len += n;
	return 0;
}

/* The newlines of dropped text, so that the lines after it keep theirs. */
static int emit_lines(struct link *lk, const char *s, size_t n)
{
	const char *nl;

	while ((nl = memchr(s, '\n', n))) {
		if (emit(lk, "\n", 1))
			return -1;
		n -= nl + 1 - s;
		s = nl + 1;
	}
	return 0;
}

static int emit_private(struct link *lk, const char *name, size_t len,
			unsigned int input, uint32_t dollars)
{
	char suffix[16];
	int n = snprintf(suffix, sizeof(suffix), "$cumc%u", input + 1);

	if (emit(lk, name, len) || emit(lk, suffix, n))
		return -1;
	while (dollars--)
		if (emit(lk, "$", 1))
			return -1;
	return 0;
}

/* One input in the second pass, which the first pass's offsets drive. */
struct link_join {
	unsigned int input;
	const char *text;
	size_t done;		/* what is emitted */
	size_t use;		/* the next of the input's uses */
};

/* The input's text up to @to, its private names renamed. */
static int join_until(struct link *lk, struct link_join *j, size_t to)
{
	const struct link_input *in = &lk->in[j->input];
	const struct link_use *u;
	uint32_t dollars;

	for (; j->use < in->nuses && in->uses[j->use].at < to; j->use++) {
		u = &in->uses[j->use];
		/* Before done: in a dropped definition. */
		if (u->at < j->done ||
		    !ptx_strmap_get(&in->privs, j->text + u->at, u->len,
				    &dollars) || dollars == LINK_KEEP)
			continue;
		if (emit(lk, j->text + j->done, u->at - j->done) ||
		    emit_private(lk, j->text + u->at, u->len, j->input,
				 dollars))
			return -1;
		j->done = u->at + u->len;
	}
	if (emit(lk, j->text + j->done, to - j->done))
		return -1;
	j->done = to;
	return 0;
}

/*
 * A dropped .weak definition becomes the declaration its header makes
 * with .extern, without its initializer or body but for their newlines.
 */
static int join_drop(struct link *lk, struct link_join *j,
		     const struct link_weak *w)
{
	if (join_until(lk, j, w->at) || emit(lk, ".extern", 7))
		return -1;
	j->done = w->at + strlen(".weak");
	if (join_until(lk, j, w->init) || emit(lk, ";", 1) ||
	    emit_lines(lk, j->text + w->init, w->end - w->init))
		return -1;
	j->done = w->end;
	return 0;
}

/* The second pass: an input's text, rewritten where the first said. */
static int join_input(struct link *lk, unsigned int input, size_t *weak)
{
	struct link_join j = { .input = input, .text = lk->texts[input] };
	const struct link_weak *w;

	for (; *weak < lk->nweak && lk->weak[*weak].input == input; ++*weak) {
		w = &lk->weak[*weak];
		if (w->dropped && join_drop(lk, &j, w))
			return -1;
	}
	return join_until(lk, &j, lk->lens[input]);
}

static int link_join(struct link *lk)
{
	unsigned int i;
	size_t weak = 0;

	lk->in = calloc(lk->count ? lk->count : 1, sizeof(*lk->in));
	if (!lk->in)
		return -1;
	for (i = 0; i < lk->count; i++)
		if (scan_input(lk, i))
			return -1;
	for (i = 0; i < lk->count; i++)
		if (name_privates(lk, i))
			return -1;
	for (i = 0; i < lk->count; i++)
		lk->cap += lk->lens[i] + 1;
	lk->out = malloc(++lk->cap);
	if (!lk->out)
		return -1;
	for (i = 0; i < lk->count; i++)
		if ((i && emit(lk, "\n", 1)) || join_input(lk, i, &weak))
			return -1;
	return 0;
}

static void link_free(struct link *lk)
{
	unsigned int i;

	for (i = 0; lk->in && i < lk->count; i++) {
		ptx_strmap_clear(&lk->in[i].privs);
		free(lk->in[i].uses);
	}
	free(lk->in);
	ptx_strmap_clear(&lk->names);
	ptx_strmap_clear(&lk->defs);
	free(lk->weak);
}

enum cumc_ptx_status ptx_link_join(char *const *texts, const size_t *lens,
				   unsigned int count, char **image,
				   size_t *len)
{
	struct link lk = { .texts = texts, .lens = lens, .count = count };

	if (link_join(&lk)) {
		link_free(&lk);
		free(lk.out);
		return CUMC_PTX_ENOMEM;
	}
	link_free(&lk);
	lk.out[lk.len] = '\0';
	*image = lk.out;
	*len = lk.len;
	return CUMC_PTX_OK;
}

enum cumc_ptx_status cumc_ptx_link(char *const *texts, const size_t *lens,
				   unsigned int count, char **image,
				   size_t *len, char *log, size_t log_size)
{
	struct cumc_ptx_module *module;
	enum cumc_ptx_status st;
	size_t at;
	char *out;

	st = ptx_link_join(texts, lens, count, &out, &at);
	if (st != CUMC_PTX_OK)
		return st;
	st = ptx_parse(out, at, false, &module, log, log_size);
	if (st != CUMC_PTX_OK) {
		log_input_line(log, log_size, texts, lens, count);
		free(out);
		return st;
	}
	ptx_module_free(module);
	*image = out;
	*len = at;
	return CUMC_PTX_OK;
}
