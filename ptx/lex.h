/* SPDX-License-Identifier: MIT */
/*
 * The PTX lexer: words (identifiers, opcodes with their modifiers,
 * directives, registers: letters, digits, _ $ % . and ::), numbers and
 * punctuation.  Comments and the line-oriented debug directives (.loc,
 * .file) are skipped.
 */
#ifndef _CUMC_PTX_LEX_H
#define _CUMC_PTX_LEX_H

#include <stddef.h>
#include <string.h>

enum ptx_tok {
	T_EOF,
	T_WORD,
	T_NUMBER,
	T_STRING,
	T_PUNCT,	/* one character: , ; : [ ] { } ( ) < > + - ! @ | = */
	T_BAD,
};

struct ptx_lexer {
	const char *p;
	const char *end;
	unsigned int line;
	/* The current token. */
	enum ptx_tok tok;
	const char *text;
	size_t len;
	unsigned int tok_line;
};

void ptx_lex_init(struct ptx_lexer *lx, const char *text, size_t len);
void ptx_lex_next(struct ptx_lexer *lx);
/* Whether the word @w of @len bytes is @s, measured no further than @len. */
static inline int ptx_word_is(const char *s, const char *w, size_t len)
{
	if (!len)
		return !*s;
	/* Most words of the decoder's lists differ in their first byte. */
	return *s == *w && !strncmp(s + 1, w + 1, len - 1) && s[len] == '\0';
}

/*
 * Whether the current token is @s (a word or a punctuation).  Inline: the
 * parser asks it of every token with string constants, whose lengths the
 * compiler then knows (most of a large module's load went to strlen).
 */
static inline int ptx_lex_is(const struct ptx_lexer *lx, const char *s)
{
	size_t n = strlen(s);

	return (lx->tok == T_WORD || lx->tok == T_PUNCT) && lx->len == n &&
	       !memcmp(lx->text, s, n);
}

#endif
