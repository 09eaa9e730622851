/*
 * Test preload: a host without rdma-core's libibverbs (or, with
 * NOLIB=NAME, without the library whose file name holds NAME, such as
 * libgvc). dlopen of it fails as the loader's would for a missing file;
 * every other dlopen goes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	const char *no = getenv("NOLIB");

	if (file && strstr(file, no && *no ? no : "libibverbs"))
		return NULL;
	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	return real(file, mode);
}
