/* What a capture holds, counted for `ibscan capture info`: exchanges by kind and outcome, nodes, targets. */
#include "stats.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

uint16_t ibs_capture_resp_status(const struct ibs_cap_exchange *x)
{
	struct ibs_mad_hdr h;

	if (x->outcome != IBS_CAP_RESP || ibs_mad_decode_hdr(x->resp, x->resp_len, &h) != IBS_OK)
		return 0;
	return ibs_mad_status(&h);
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static size_t uniq_u64(uint64_t *v, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), u64_cmp);
	for (i = 1; i < n; i++)
		if (v[i] != v[k])
			v[++k] = v[i];
	return k + 1;
}

/* FNV-1a over an address, to count distinct targets. */
static uint64_t addr_key(const struct ibs_addr *a)
{
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned i;

#define MIX(byte) (h = (h ^ (uint8_t)(byte)) * 0x100000001b3ull)
	MIX(a->lid >> 8);
	MIX(a->lid);
	MIX(a->lid ? 0 : a->hops);
	for (i = 1; !a->lid && i <= a->hops; i++)
		MIX(a->path[i]);
#undef MIX
	return h;
}

/* What ibs_capture_stats counts an exchange as, in the low two bits of its kind key. */
enum { ST_RESP, ST_BAD_STATUS, ST_ERROR, ST_NONE };

void ibs_capture_stats(const struct ibs_capture *c, struct ibs_capture_stats *st)
{
	size_t i, j, cap_k = 0, cap_g = 0;
	uint64_t *addrs = xcalloc(c->n ? c->n : 1, sizeof(*addrs));
	/* class, attribute, method and outcome of each exchange: sorted, they count by kind. */
	uint64_t *kinds = xcalloc(c->n ? c->n : 1, sizeof(*kinds));

	struct ibs_cap_exchange ex, *x = &ex;
	size_t pos = 0;

	memset(st, 0, sizeof(*st));
	for (i = 0; ibs_capture_next(c, &pos, x); i++) {
		struct ibs_mad_hdr h;
		uint16_t status = ibs_capture_resp_status(x);
		unsigned what = x->outcome == IBS_CAP_RESP ? (status ? ST_BAD_STATUS : ST_RESP)
							   : x->outcome == IBS_CAP_ERROR ? ST_ERROR : ST_NONE;

		ibs_mad_decode_hdr(x->req, x->req_len, &h);
		kinds[i] = ((uint64_t)h.mgmt_class << 24 | (uint64_t)h.attr_id << 8 | h.method) << 2 | what;
		addrs[i] = addr_key(&x->addr);
		if (x->outcome == IBS_CAP_RESP && !status && h.attr_id == IBS_ATTR_NODE_INFO &&
		    (h.mgmt_class == IBS_CLASS_SMI_DR || h.mgmt_class == IBS_CLASS_SMI)) {
			struct ibs_nodeinfo ni;
			if (ibs_decode_nodeinfo(x->resp, x->resp_len, &ni) == IBS_OK) {
				st->node_guids = xgrow(st->node_guids, &cap_g, st->n_node_guids + 1, sizeof(uint64_t));
				st->node_guids[st->n_node_guids++] = ni.node_guid;
			}
		}
	}
	if (c->n)
		qsort(kinds, c->n, sizeof(*kinds), u64_cmp);
	for (i = 0; i < c->n; i = j) {
		struct ibs_capture_kind *k;
		uint64_t kk = kinds[i] >> 2;

		st->kinds = xgrow(st->kinds, &cap_k, st->n_kinds + 1, sizeof(*st->kinds));
		k = &st->kinds[st->n_kinds++];
		memset(k, 0, sizeof(*k));
		k->mgmt_class = (uint8_t)(kk >> 24);
		k->attr_id = (uint16_t)(kk >> 8);
		k->method = (uint8_t)kk;
		for (j = i; j < c->n && kinds[j] >> 2 == kk; j++) {
			size_t *one[] = { &k->resp, &k->bad_status, &k->error, &k->none };
			size_t *all[] = { &st->resp, &st->bad_status, &st->error, &st->none };
			++*one[kinds[j] & 3];
			++*all[kinds[j] & 3];
			k->count++;
		}
		st->exchanges += k->count;
	}
	free(kinds);
	st->n_node_guids = uniq_u64(st->node_guids, st->n_node_guids);
	st->targets = uniq_u64(addrs, c->n);
	free(addrs);
}

void ibs_capture_stats_free(struct ibs_capture_stats *st)
{
	free(st->kinds);
	free(st->node_guids);
	memset(st, 0, sizeof(*st));
}
