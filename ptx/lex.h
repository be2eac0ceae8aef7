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
/* Whether the current token is @s (a word or a punctuation). */
int ptx_lex_is(const struct ptx_lexer *lx, const char *s);

#endif
