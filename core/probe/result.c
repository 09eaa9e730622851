/* The probe's result: what both ends used and, for the client, the latency and rate it measured. */
#include "probe.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void ping_latency_stats(struct ibs_ping_result *res, uint64_t *lat, unsigned n, bool half)
{
	double div = half ? 2000.0 : 1000.0, sum = 0;
	size_t k;
	unsigned i;

	qsort(lat, n, sizeof(*lat), cmp_u64);
	for (i = 0; i < n; i++)
		sum += (double)lat[i];
	res->has_latency = true;
	res->half_rtt = half;
	res->lat_min_us = (double)lat[0] / div;
	res->lat_max_us = (double)lat[n - 1] / div;
	res->lat_median_us = n % 2 ? (double)lat[n / 2] / div : ((double)lat[n / 2 - 1] + (double)lat[n / 2]) / 2 / div;
	/* Nearest rank. */
	k = (size_t)((99ull * n + 99) / 100);
	res->lat_p99_us = (double)lat[k ? k - 1 : 0] / div;
	res->lat_mean_us = sum / n / div;
}

void ping_fill_result(const struct ibs_ping *p, const struct ping_run *r, bool server, const char *peer,
		      struct ibs_ping_result *res)
{
	const struct ibs_oob_hello *h = &r->peer_hello;

	res->server = server;
	res->peer = xstrdup(peer ? peer : "?");
	res->device = xstrdup(p->info.name ? p->info.name : "?");
	res->port = p->info.port;
	res->op = r->op;
	res->bw = r->bw;
	res->iters = r->iters;
	res->size = r->op == IBS_OP_ATOMIC ? IBS_PING_ATOMIC_SIZE : r->size;
	res->use_grh = p->use_grh;
	res->gid_choice = xstrdup(p->gid_choice ? p->gid_choice : "?");
	res->gid_netdev = p->gid_netdev[0] ? xstrdup(p->gid_netdev) : NULL;
	res->setup_addr = p->setup.known ? xstrdup(p->setup.text) : NULL;
	res->sl = r->sl;
	res->pkey_index = p->o.pkey_index;
	res->tclass = r->tclass;
	res->dlid = p->o.dlid;
	res->inline_len = r->inline_len;
	res->signal_every = r->signal_every ? r->signal_every : 1;
	res->in_flight = r->bw ? r->tx_depth : 1;
	res->local.link_layer = p->info.link_layer;
	res->local.lid = p->info.lid;
	res->local.qpn = r->qpn;
	res->local.psn = r->psn;
	res->local.gid_index = p->gid_index;
	res->local.gid_type = p->gid_type;
	memcpy(res->local.gid, p->gid, 16);
	res->local.mtu = p->info.active_mtu;
	res->local.addr = (uint64_t)(uintptr_t)(r->buf + r->stride);
	res->local.rkey = r->rkey;
	res->local.len = (uint32_t)r->stride;
	res->remote.link_layer = (enum ibs_link_layer)h->link_layer;
	res->remote.lid = h->lid;
	res->remote.qpn = h->qpn;
	res->remote.psn = h->psn;
	res->remote.gid_index = h->gid_index;
	res->remote.gid_type = (enum ibs_gid_type)h->gid_type;
	memcpy(res->remote.gid, h->gid, 16);
	res->remote.mtu = h->mtu;
	res->remote.addr = h->addr;
	res->remote.rkey = h->rkey;
	res->remote.len = h->len;
	res->mtu = r->mtu;
	res->mr.bytes = r->buflen;
	res->mr.reg_us = r->reg_us;
	res->mr.lkey = r->lkey;
	res->mr.rkey = r->rkey;
}

void ibs_ping_result_free(struct ibs_ping_result *r)
{
	free(r->peer);
	free(r->device);
	free(r->gid_choice);
	free(r->gid_netdev);
	free(r->setup_addr);
	memset(r, 0, sizeof(*r));
}
