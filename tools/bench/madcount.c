/*
 * LD_PRELOAD shim for benchmarks: counts umad_send() calls of any
 * libibumad program (ibscan, ibnetdiscover, ibqueryerrors) and prints the
 * count to stderr at exit as "madcount: N". Not part of ibscan.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long sent;

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries);

static void report(void)
{
	fprintf(stderr, "madcount: %lu\n", sent);
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	static int (*real)(int, int, void *, int, int, int);

	if (!real) {
		real = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
		atexit(report);
	}
	sent++;
	return real(fd, agentid, umad, length, timeout_ms, retries);
}
