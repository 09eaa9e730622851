/*
 * Test preload: malloc, calloc and realloc refuse any request larger than
 * IBS_T_NOMEM bytes (ENOMEM), as a machine out of memory would refuse the
 * large ones first. The release build only: ASan has its own allocator.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t m, size_t n);
void *__libc_realloc(void *p, size_t n);

static size_t limit(void)
{
	static size_t max;
	const char *s;

	if (!max) {
		s = getenv("IBS_T_NOMEM");
		max = s && *s ? (size_t)strtoull(s, NULL, 10) : SIZE_MAX;
	}
	return max;
}

void *malloc(size_t n)
{
	if (n > limit()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t m, size_t n)
{
	if (n && m > limit() / n) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(m, n);
}

void *realloc(void *p, size_t n)
{
	if (n > limit()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}
