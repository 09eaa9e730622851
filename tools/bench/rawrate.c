/*
 * Benchmark helper (not part of ibscan): the fabric's raw MAD rate, the
 * ceiling for any walk. Sends N directed-route NodeInfo queries to the
 * local node through ibscan's own engine with a given window and prints
 * "rawrate: N MADs in S s = R MADs/s".
 * Usage: rawrate [N] [WINDOW]
 */
#include "../../core/mad/engine.h"
#include "../../core/mad/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned long ok;

static void cb(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	(void)ctx;
	(void)req;
	ok += r->outcome == IBS_MAD_OK;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000, i;
	unsigned window = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 32;
	struct ibs_umad_opts uo = { NULL, 0, 1000 };
	struct ibs_engine_opts eo = { .window = window, .timeout_ms = 1000, .retries = 2, .deadline_ms = 600000 };
	struct ibs_transport *t;
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	struct timespec t0, t1;
	double s;

	if (ibs_umad_open(&uo, &t))
		return 3;
	e = ibs_engine_new(t, &eo);
	ibs_addr_dr(&a, NULL, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	for (i = 0; i < n; i++)
		ibs_engine_submit(e, &req, cb, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ibs_engine_run(e);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("rawrate: %lu MADs in %.3f s = %.0f MADs/s (window %u)\n", ok, s, (double)ok / s, window);
	ibs_engine_free(e);
	ibs_transport_close(t);
	return ok == n ? 0 : 1;
}
