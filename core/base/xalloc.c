/* Allocation helpers: a CLI has nothing better to do on OOM than say so and stop. */
#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*on_die)(void);

void xalloc_on_die(void (*fn)(void))
{
	on_die = fn;
}

static _Noreturn void die(void)
{
	void (*fn)(void) = on_die;

	on_die = NULL; /* once: it may run out of memory itself */
	if (fn)
		fn();
	exit(3);
}

static void oom(size_t n)
{
	fprintf(stderr, "ibscan: fatal: out of memory allocating %zu bytes\n", n);
	die();
}

void xalloc_die(void)
{
	fprintf(stderr, "ibscan: fatal: out of memory\n");
	die();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom(nmemb * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t sz)
{
	size_t c = *cap;

	if (need <= c)
		return p;
	if (c < 8)
		c = 8;
	while (c < need) {
		if (c > SIZE_MAX / 2 / sz)
			oom(SIZE_MAX);
		c *= 2;
	}
	p = xrealloc(p, c * sz);
	*cap = c;
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0; /* a format error: an empty string rather than garbage */
	p = xmalloc((size_t)n + 1);
	p[0] = '\0';
	if (n)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = xvasprintf(fmt, ap);
	va_end(ap);
	return p;
}
