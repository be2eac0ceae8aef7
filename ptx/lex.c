// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "lex.h"

void ptx_lex_init(struct ptx_lexer *lx, const char *text, size_t len)
{
	lx->p = text;
	lx->end = text + len;
	lx->line = 1;
	ptx_lex_next(lx);
}

static void skip_line(struct ptx_lexer *lx)
{
	while (lx->p < lx->end && *lx->p != '\n')
		lx->p++;
}

/* Skips white space and comments; 0 at the end of the text. */
static int skip_space(struct ptx_lexer *lx)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\n') {
			lx->line++;
			lx->p++;
		} else if (isspace((unsigned char)c) || c == '\0') {
			lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			skip_line(lx);
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			lx->p += 2;
			while (lx->p + 1 < lx->end &&
			       !(lx->p[0] == '*' && lx->p[1] == '/')) {
				lx->line += *lx->p == '\n';
				lx->p++;
			}
			lx->p = lx->p + 2 <= lx->end ? lx->p + 2 : lx->end;
		} else {
			return 1;
		}
	}
	return 0;
}

/* ASCII as PTX has it, not the locale's: the lexer's hottest test. */
static const bool word_chars[256] = {
	['a' ... 'z'] = true, ['A' ... 'Z'] = true, ['0' ... '9'] = true,
	['_'] = true, ['$'] = true, ['%'] = true, ['.'] = true,
};

static bool word_char(char c)
{
	return word_chars[(unsigned char)c];
}

static void lex_word(struct ptx_lexer *lx)
{
	const char *s = lx->p;

	while (lx->p < lx->end && (word_char(*lx->p) ||
	       (*lx->p == ':' && lx->p + 1 < lx->end && lx->p[1] == ':')))
		lx->p += *lx->p == ':' ? 2 : 1;
	lx->tok = T_WORD;
	lx->text = s;
	lx->len = lx->p - s;
}

/* Integers (decimal, hex, octal, binary, U suffix), 0f/0d floats, 1.5e3. */
static void lex_number(struct ptx_lexer *lx)
{
	const char *s = lx->p;

	while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) ||
				   *lx->p == '.' ||
				   ((*lx->p == '+' || *lx->p == '-') &&
				    (lx->p[-1] == 'e' || lx->p[-1] == 'E') &&
				    !(s[0] == '0' && lx->p - s > 1 &&
				      (s[1] == 'x' || s[1] == 'X' ||
				       s[1] == 'f' || s[1] == 'F' ||
				       s[1] == 'd' || s[1] == 'D')))))
		lx->p++;
	lx->tok = T_NUMBER;
	lx->text = s;
	lx->len = lx->p - s;
}

static void lex_string(struct ptx_lexer *lx)
{
	const char *s = lx->p++;

	while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n')
		lx->p++;
	if (lx->p < lx->end && *lx->p == '"')
		lx->p++;
	lx->tok = T_STRING;
	lx->text = s;
	lx->len = lx->p - s;
}

/* Debug directives end at the end of their line, not at a semicolon. */
static int line_directive(const struct ptx_lexer *lx)
{
	return lx->tok == T_WORD &&
	       ((lx->len == 4 && !memcmp(lx->text, ".loc", 4)) ||
		(lx->len == 5 && !memcmp(lx->text, ".file", 5)));
}

void ptx_lex_next(struct ptx_lexer *lx)
{
	for (;;) {
		if (!skip_space(lx)) {
			lx->tok = T_EOF;
			lx->text = lx->p;
			lx->len = 0;
			lx->tok_line = lx->line;
			return;
		}
		lx->tok_line = lx->line;
		if (isdigit((unsigned char)*lx->p))
			lex_number(lx);
		else if (word_char(*lx->p))
			lex_word(lx);
		else if (*lx->p == '"')
			lex_string(lx);
		else if (strchr(",;:[]{}()<>+-!@|=", *lx->p)) {
			lx->tok = T_PUNCT;
			lx->text = lx->p++;
			lx->len = 1;
		} else {
			lx->tok = T_BAD;
			lx->text = lx->p++;
			lx->len = 1;
		}
		if (!line_directive(lx))
			return;
		skip_line(lx);
	}
}
