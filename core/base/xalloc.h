/* Allocation helpers that end the process with one message on out-of-memory. */
#ifndef IBSCAN_XALLOC_H
#define IBSCAN_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow *p (holding *cap elements of size sz) so that it holds at least need. */
void *xgrow(void *p, size_t *cap, size_t need, size_t sz);
/* Out of memory somewhere else (open_memstream, say): say so and exit 3. */
_Noreturn void xalloc_die(void);
/* Called once on out-of-memory, after the message and before the exit (cmd/: the outputs' last words). */
void xalloc_on_die(void (*fn)(void));
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
