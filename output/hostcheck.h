/* The renderers of `ibscan local --check` (text, JSON, Prometheus) and `--nccl-env`. */
#ifndef IBSCAN_OUTPUT_HOSTCHECK_H
#define IBSCAN_OUTPUT_HOSTCHECK_H

#include <stdio.h>

#include "emit.h"
#include "../host/hostcheck.h"

#define IBS_LOCALCHECK_SCHEMA "ibscan.localcheck/1"

/* "IBSCAN LOCAL CRITICAL - ... | rails=8 ..." (the caller frees). */
char *render_hostcheck_status_line(const struct ibs_hostcheck *hc);
void render_hostcheck(struct emit *e, const struct ibs_hostcheck *hc);
/* 0, or -1 when writing failed. */
int render_hostcheck_prom(FILE *out, const struct ibs_hostcheck *hc);
/* The UNKNOWN verdict when the check could not run (fmt 0 text, 1 JSON, 2 prom): 0, or -1 when writing failed. */
int render_hostcheck_unknown(FILE *out, int fmt, const char *why);
/*
 * NCCL_IB_HCA, NCCL_IB_GID_INDEX, NCCL_SOCKET_IFNAME, UCX_NET_DEVICES as
 * NAME=value lines (for `set -a; . FILE` or /etc/nccl.conf). The caller
 * has refused already when hc->gid_refusal is set or there is no rail.
 */
int render_nccl_env(FILE *out, const struct ibs_hostcheck *hc, const char *socket_ifname);

#endif
