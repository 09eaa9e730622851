/*
 * Test preload: whoever maps a file whose name ends in ".idx" sees it cut to
 * nothing right after mapping it, as if another program had copied over it
 * in place. The next read of the mapping raises SIGBUS.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	char link[64], path[4096];
	ssize_t n;
	void *m;

	if (!real)
		real = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	m = real(addr, len, prot, flags, fd, off);
	if (m == MAP_FAILED || fd < 0)
		return m;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 4) {
		path[n] = '\0';
		if (!strcmp(path + n - 4, ".idx") && truncate(path, 0) != 0)
			perror("cutidx: truncate");
	}
	return m;
}
