/* SPDX-License-Identifier: MIT */
/*
 * A strict dotenv parser.  Grammar, one entry per line:
 *
 *	[ws] [export ws+] KEY [ws] = [ws] VALUE [ws] [# comment]
 *
 * KEY is [A-Za-z_][A-Za-z0-9_]*.  VALUE is unquoted (literal up to the end
 * of the line or to a '#' preceded by whitespace, trailing whitespace
 * trimmed), '...' (literal, may span lines) or "..." (escapes \n \" \\ only,
 * may span lines).  Blank lines and '#' comment lines are skipped; a UTF-8
 * BOM at the start is skipped; "\r\n" ends a line like "\n".  Nothing is
 * ever expanded.  Error reasons are static strings and never quote a value.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "landrun/lib/util.h"
#include "landrun/policy/dotenv.h"

struct lr_dotenv_parser {
	const char *p;
	const char *end;
	unsigned line;
	char *scratch;		/* decoded double-quoted values, len + 1 bytes */
	size_t scratch_size;
	struct lr_dotenv_error *err;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_key_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_key_char(char c)
{
	return is_key_start(c) || (c >= '0' && c <= '9');
}

/* Does Q start a line ending ("\n", "\r\n", a final "\r", or the end)? */
static bool at_eol(const struct lr_dotenv_parser *ps, const char *q)
{
	if (q >= ps->end || *q == '\n')
		return true;
	return *q == '\r' && (q + 1 == ps->end || q[1] == '\n');
}

static const char *skip_blanks(const struct lr_dotenv_parser *ps, const char *q)
{
	while (q < ps->end && is_blank(*q))
		q++;
	return q;
}

static const char *find_eol(const struct lr_dotenv_parser *ps, const char *q)
{
	while (!at_eol(ps, q))
		q++;
	return q;
}

/* Move past the line ending at Q (which must be at_eol()). */
static void consume_eol(struct lr_dotenv_parser *ps, const char *q)
{
	if (q < ps->end && *q == '\r')
		q++;
	if (q < ps->end && *q == '\n') {
		q++;
		ps->line++;
	}
	ps->p = q;
}

static int fail(struct lr_dotenv_parser *ps, unsigned line, const char *reason)
{
	ps->err->line = line;
	ps->err->reason = reason;
	return -EINVAL;
}

static unsigned count_newlines(const char *a, const char *b)
{
	unsigned n = 0;

	for (; a < b; a++)
		if (*a == '\n')
			n++;
	return n;
}

/* After a closing quote: only blanks and an optional comment. */
static int finish_quoted(struct lr_dotenv_parser *ps, const char *q, unsigned start)
{
	q = skip_blanks(ps, q);
	if (q < ps->end && *q == '#')
		q = find_eol(ps, q);
	if (!at_eol(ps, q))
		return fail(ps, start, "unexpected characters after closing quote");
	consume_eol(ps, q);
	return 0;
}

static int parse_single(struct lr_dotenv_parser *ps, const char *q, const char **val,
			size_t *vlen, unsigned start)
{
	const char *close = memchr(q + 1, '\'', (size_t)(ps->end - (q + 1)));

	if (!close)
		return fail(ps, start, "unterminated single quote");
	*val = q + 1;
	*vlen = (size_t)(close - (q + 1));
	ps->line += count_newlines(q + 1, close);
	return finish_quoted(ps, close + 1, start);
}

static int parse_double(struct lr_dotenv_parser *ps, const char *q, const char **val,
			size_t *vlen, unsigned start)
{
	size_t n = 0;

	if (!ps->scratch) {
		ps->scratch = malloc(ps->scratch_size);
		if (!ps->scratch)
			return -ENOMEM;
	}
	for (q++; q < ps->end && *q != '"'; q++) {
		if (*q != '\\') {
			if (*q == '\n')
				ps->line++;
			ps->scratch[n++] = *q;
			continue;
		}
		if (++q >= ps->end)
			break;
		switch (*q) {
		case 'n':
			ps->scratch[n++] = '\n';
			break;
		case '"':
		case '\\':
			ps->scratch[n++] = *q;
			break;
		default:
			return fail(ps, start, "invalid escape in double quotes");
		}
	}
	if (q >= ps->end)
		return fail(ps, start, "unterminated double quote");
	*val = ps->scratch;
	*vlen = n;
	return finish_quoted(ps, q + 1, start);
}

static void parse_unquoted(struct lr_dotenv_parser *ps, const char *q, const char **val,
			   size_t *vlen)
{
	const char *eol = find_eol(ps, q);
	const char *stop = eol;

	for (const char *c = q; c < eol; c++) {
		/* q follows the '=', so c[-1] is always in the buffer */
		if (*c == '#' && is_blank(c[-1])) {
			stop = c;
			break;
		}
	}
	while (stop > q && is_blank(stop[-1]))
		stop--;
	*val = q;
	*vlen = (size_t)(stop - q);
	consume_eol(ps, eol);
}

/* Parse one entry (or blank / comment line) starting at ps->p. */
static int parse_line(struct lr_dotenv_parser *ps, struct lr_kvlist *out)
{
	unsigned start = ps->line;
	const char *q = skip_blanks(ps, ps->p);
	const char *key, *val;
	size_t keylen, vlen;
	int r;

	if (q < ps->end && *q == '#')
		q = find_eol(ps, q);
	if (at_eol(ps, q)) {
		consume_eol(ps, q);
		return 0;
	}

	if ((size_t)(ps->end - q) >= 6 && memcmp(q, "export", 6) == 0 &&
	    (at_eol(ps, q + 6) || is_blank(q[6])))
		q = skip_blanks(ps, q + 6);

	key = q;
	while (q < ps->end && is_key_char(*q))
		q++;
	keylen = (size_t)(q - key);
	q = skip_blanks(ps, q);
	if (q >= ps->end || *q != '=') {
		const char *eol = find_eol(ps, q);

		if (memchr(q, '=', (size_t)(eol - q)))
			return fail(ps, start, "invalid variable name");
		return fail(ps, start, "missing '='");
	}
	if (keylen == 0 || !is_key_start(key[0]))
		return fail(ps, start, "invalid variable name");

	q = skip_blanks(ps, q + 1);
	if (q < ps->end && *q == '\'')
		r = parse_single(ps, q, &val, &vlen, start);
	else if (q < ps->end && *q == '"')
		r = parse_double(ps, q, &val, &vlen, start);
	else {
		parse_unquoted(ps, q, &val, &vlen);
		r = 0;
	}
	if (r < 0)
		return r;
	return lr_kvlist_set(out, key, keylen, val, vlen);
}

int lr_dotenv_parse(const char *buf, size_t len, struct lr_kvlist *out,
		    struct lr_dotenv_error *err)
{
	struct lr_dotenv_error dummy;
	struct lr_dotenv_parser ps = {
		.p = buf,
		.end = buf + len,
		.line = 1,
		.scratch_size = len + 1,
		.err = err ? err : &dummy,
	};
	const char *nul;
	int r = 0;

	ps.err->line = 0;
	ps.err->reason = NULL;

	nul = memchr(buf, '\0', len);
	if (nul)
		return fail(&ps, 1 + count_newlines(buf, nul), "NUL byte");

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		ps.p += 3;

	while (ps.p < ps.end) {
		r = parse_line(&ps, out);
		if (r < 0)
			break;
	}

	if (ps.scratch) {
		explicit_bzero(ps.scratch, ps.scratch_size);
		free(ps.scratch);
	}
	return r;
}

/* Read all of FD (expected to hold about SIZE bytes) into a fresh buffer. */
static int read_all(int fd, size_t size, char **bufp, size_t *lenp)
{
	size_t cap = size + 1, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			/* the file grew since fstat(); never realloc secrets */
			size_t ncap = cap * 2 > LR_DOTENV_MAX_SIZE + 1 ?
				LR_DOTENV_MAX_SIZE + 1 : cap * 2;
			char *nbuf;

			if (cap > LR_DOTENV_MAX_SIZE) {
				explicit_bzero(buf, len);
				free(buf);
				return -EFBIG;
			}
			nbuf = malloc(ncap);
			if (!nbuf) {
				explicit_bzero(buf, len);
				free(buf);
				return -ENOMEM;
			}
			memcpy(nbuf, buf, len);
			explicit_bzero(buf, len);
			free(buf);
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			explicit_bzero(buf, len);
			free(buf);
			return -e;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > LR_DOTENV_MAX_SIZE) {
		explicit_bzero(buf, len);
		free(buf);
		return -EFBIG;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

int lr_dotenv_load(const char *path, struct lr_kvlist *out, struct lr_dotenv_error *err)
{
	struct lr_dotenv_error dummy;
	_cleanup_close_ int fd = -1;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (!err)
		err = &dummy;
	err->line = 0;
	err->reason = NULL;

	fd = lr_open_regular(path, &st);
	if (fd == -EISDIR || fd == -EINVAL) {
		err->reason = "not a regular file";
		return -EINVAL;
	}
	if (fd < 0)
		return fd;
	if (st.st_size > LR_DOTENV_MAX_SIZE) {
		err->reason = "file too large";
		return -EFBIG;
	}
	r = read_all(fd, (size_t)st.st_size, &buf, &len);
	if (r < 0) {
		if (r == -EFBIG)
			err->reason = "file too large";
		return r;
	}
	r = lr_dotenv_parse(buf, len, out, err);
	explicit_bzero(buf, len);
	free(buf);
	return r;
}
