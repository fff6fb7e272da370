#include <stdbool.h>

#include "scenario/lexer.h"

static bool is_word_char(char ch)
{
	unsigned char c = (unsigned char)ch;	/* UTF-8 bytes are word characters */

	return c > ' ' && c != '#' && c != '|' && c != ':' && c != ',' && c != '"' && c != 0x7f;
}

int npg_lex_line(const char *line, size_t len, struct npg_token *toks, int max,
		 int *err_col, const char **err_msg)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		char c = line[i];
		struct npg_token t = { .start = line + i, .len = 1, .col = (int)i + 1 };

		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '#')
			break;
		if ((unsigned char)c < ' ' || c == 0x7f) {
			*err_col = (int)i + 1;
			*err_msg = "control character in scenario text";
			return -1;
		}
		if (c == '=' && i + 1 < len && line[i + 1] == '>') {
			t.kind = NPG_TOK_ARROW;
			t.len = 2;
		} else if (c == '|') {
			t.kind = NPG_TOK_PIPE;
		} else if (c == ':') {
			t.kind = NPG_TOK_COLON;
		} else if (c == ',') {
			t.kind = NPG_TOK_COMMA;
		} else if (c == '"') {
			size_t j = i + 1;

			while (j < len && line[j] != '"')
				j++;
			if (j >= len) {
				*err_col = (int)i + 1;
				*err_msg = "unterminated string";
				return -1;
			}
			t.kind = NPG_TOK_STRING;
			t.start = line + i + 1;
			t.len = j - i - 1;
			i = j + 1;
			goto push;
		} else {
			size_t j = i;

			while (j < len && is_word_char(line[j]) &&
			       !(line[j] == '=' && j + 1 < len && line[j + 1] == '>'))
				j++;
			t.kind = NPG_TOK_WORD;
			t.len = j - i;
			i = j;
			goto push;
		}
		i += t.len;
push:
		if (n == max) {
			*err_col = t.col;
			*err_msg = "too many tokens on one line";
			return -1;
		}
		toks[n++] = t;
	}
	return n;
}
