/*
 * Test preload: a replay index (or, with CUTIDX_SUFFIX=.cap, a capture)
 * changed in place by another program while ibscan uses it. Whoever maps a
 * file whose name ends in ".idx" (CUTIDX_SUFFIX)
 * - sees it cut to nothing right after mapping it, as if another program
 *   had copied over it in place (the next read of the mapping raises
 *   SIGBUS); or, with REWIDX="OFFSET=HEX[,...]" set,
 * - has those bytes written into it at those offsets (from the start of the
 *   file) at the first clock_gettime() after mapping it: the replay's engine
 *   starting, once the index has passed its checks; with REWIDX=cut, it is
 *   cut to nothing then instead (replay reads it, no longer mapped).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static char mapped[4096]; /* the index to rewrite at the next clock_gettime(), or "" */

static void rewrite(void)
{
	const char *spec = getenv("REWIDX");
	int fd = open(mapped, O_WRONLY);

	mapped[0] = '\0';
	if (fd < 0) {
		perror("cutidx: open");
		return;
	}
	if (!strcmp(spec, "cut")) {
		if (ftruncate(fd, 0) != 0)
			perror("cutidx: ftruncate");
		close(fd);
		return;
	}
	while (*spec) {
		char *end;
		long long off = strtoll(spec, &end, 0);
		unsigned char b[64];
		size_t nb = 0;

		if (*end != '=')
			break;
		spec = end + 1;
		while (nb < sizeof(b) && sscanf(spec, "%2hhx", &b[nb]) == 1) {
			nb++;
			spec += 2;
		}
		if (pwrite(fd, b, nb, (off_t)off) != (ssize_t)nb)
			perror("cutidx: pwrite");
		if (*spec != ',')
			break;
		spec++;
	}
	close(fd);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*real)(void *, size_t, int, int, int, off_t);
	const char *suffix = getenv("CUTIDX_SUFFIX") ? getenv("CUTIDX_SUFFIX") : ".idx";
	size_t sl = strlen(suffix);
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
	if (n > (ssize_t)sl) {
		path[n] = '\0';
		if (strcmp(path + n - sl, suffix))
			return m;
		if (getenv("REWIDX"))
			memcpy(mapped, path, (size_t)n + 1);
		else if (truncate(path, 0) != 0)
			perror("cutidx: truncate");
	}
	return m;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);

	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	if (mapped[0])
		rewrite();
	return real(clk, ts);
}
