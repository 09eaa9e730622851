/* Bounded reading of untrusted input files. */
#include "file.h"
#include "xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum ibs_err ibs_read_file(const char *path, size_t max, char **buf, size_t *len, char **msg)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	char *b = NULL;
	size_t n = 0, cap = 0;
	bool regular = false;

	*buf = NULL;
	*len = 0;
	if (!f) {
		*msg = xasprintf("cannot open '%s': %s", path, strerror(errno));
		return errno == ENOENT || errno == EACCES ? IBS_E_IO : IBS_E_IO;
	}
	{
		/* Refuse an oversized regular file before reading any of it. */
		struct stat st;
		if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
			regular = true;
			if ((uintmax_t)st.st_size > max) {
				*msg = xasprintf("'%s' is larger than the limit of %zu bytes", path, max);
				goto fail_input;
			}
			/* Read in one piece, with room for EOF to show. */
			cap = (size_t)st.st_size + 2;
			b = xmalloc(cap);
		}
	}
	/*
	 * A pipe, a device or a file still growing: read at most one byte past
	 * the limit, into a buffer never larger than the limit allows. A stream
	 * is cut after the first piece that holds a NUL byte: what is read this
	 * way is text whose parser refuses NUL bytes, so /dev/zero is refused at
	 * once rather than after the limit.
	 */
	for (;;) {
		size_t r, want;
		if (cap - n < 2) {
			size_t top = max < SIZE_MAX - 2 ? max + 2 : SIZE_MAX;
			cap = cap >= 32768 ? cap * 2 : 65536;
			if (cap > top)
				cap = top;
			b = xrealloc(b, cap);
		}
		want = cap - n - 1;
		if (want > max + 1 - n)
			want = max + 1 - n;
		r = fread(b + n, 1, want, f);
		n += r;
		if (n > max && !(!regular && memchr(b + n - r, '\0', r))) {
			*msg = xasprintf("'%s' is larger than the limit of %zu bytes", path, max);
			goto fail_input;
		}
		if (r == 0 || (!regular && memchr(b + n - r, '\0', r)))
			break;
	}
	if (ferror(f)) {
		*msg = xasprintf("cannot read '%s': %s", path, strerror(errno));
		free(b);
		if (f != stdin)
			fclose(f);
		return IBS_E_IO;
	}
	if (f != stdin)
		fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return IBS_OK;
fail_input:
	free(b);
	if (f != stdin)
		fclose(f);
	return IBS_E_INPUT;
}
