/*
 * Test preload: a host without rdma-core's libibverbs. dlopen of it fails
 * as the loader's would for a missing file; every other dlopen goes through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>

void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);

	if (file && strstr(file, "libibverbs"))
		return NULL;
	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	return real(file, mode);
}
