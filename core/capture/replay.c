/*
 * The replay transport: answers each request from a capture's index (built
 * in memory from the text, or mapped from FILE.idx when that is fresh),
 * matching what was asked, never the TID.
 */
#include "replay.h"
#include "index.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct rp_priv {
	struct ibs_capidx *ix;
	char *path;
	char *ipath;          /* the index file mapped, or NULL (built from the text) */
	bool strict;
	uint64_t *used;       /* a bit per attempt: answered with already */
	uint32_t cursor;      /* the attempt after the last one answered with */
	size_t misses;        /* requests with no recorded answer left */
	struct ibs_packet *q; /* deliveries waiting for recv */
	size_t qh, qn, qcap;
	bool failed;
};

static void rp_push(struct rp_priv *p, const struct ibs_packet *pkt)
{
	if (p->qn == p->qcap) {
		size_t i, ncap = p->qcap ? p->qcap * 2 : 64;
		struct ibs_packet *nq = xmalloc(ncap * sizeof(*nq));
		for (i = 0; i < p->qn; i++)
			nq[i] = p->q[(p->qh + i) % p->qcap];
		free(p->q);
		p->q = nq;
		p->qh = 0;
		p->qcap = ncap;
	}
	p->q[(p->qh + p->qn) % p->qcap] = *pkt;
	p->qn++;
}

static bool used(const struct rp_priv *p, uint32_t i)
{
	return p->used[i / 64] >> (i % 64) & 1;
}

/* Attempt i is next for its request: unused, and the one before it used. */
static bool is_next(const struct rp_priv *p, const struct ibs_capidx_x *x, uint32_t i)
{
	return !used(p, i) && (x->prev == UINT32_MAX || used(p, x->prev));
}

/* The index changed under us since it was checked: end the replay, never read past it. */
static enum ibs_err rp_damaged(struct rp_priv *p, char *why)
{
	log_error("%s: the replay index changed while in use: %s", p->ipath ? p->ipath : p->path, why);
	free(why);
	p->failed = true;
	return IBS_E_TRANSPORT;
}

static enum ibs_err rp_send(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad, int *cause)
{
	struct rp_priv *p = t->priv;
	uint64_t key = ibs_capidx_key(&req->addr, mad);
	uint32_t i = UINT32_MAX;
	bool known = false;
	struct ibs_packet *pkt;
	struct ibs_capidx_x x;
	char *why = NULL;

	(void)cause; /* a replay refuses no send */
	if (p->failed)
		return IBS_E_TRANSPORT;
	/*
	 * A replay asks in the order it recorded: the attempt after the last
	 * one answered is nearly always the one. Else the table finds the
	 * request's first attempt, and its chain the first one not used yet.
	 * Every attempt is checked as it is read (ibs_capidx_get): chains only
	 * go forward, so this ends.
	 */
	if (p->cursor < ibs_capidx_count(p->ix)) {
		if (ibs_capidx_get(p->ix, p->cursor, &x, &why))
			return rp_damaged(p, why);
		if (x.key == key && is_next(p, &x, p->cursor))
			i = p->cursor;
	}
	if (i == UINT32_MAX) {
		if (ibs_capidx_first(p->ix, key, &i, &why))
			return rp_damaged(p, why);
		known = i != UINT32_MAX;
		while (i != UINT32_MAX && used(p, i)) {
			if (ibs_capidx_get(p->ix, i, &x, &why))
				return rp_damaged(p, why);
			i = x.next;
		}
	}
	if (i == UINT32_MAX) {
		char as[IBS_CAPTURE_ADDR_MAX];
		p->misses++;
		ibs_capture_addr_fmt(&req->addr, as, sizeof(as));
		if (p->strict) {
			log_error("replay: '%s' has no %sanswer for %s %s %s mod=%u addr=%s (--replay-strict)", p->path,
				  known ? "further " : "", ibs_class_name(req->mgmt_class),
				  ibs_method_name(req->method), ibs_attr_name(req->mgmt_class, req->attr_id),
				  req->attr_mod, as);
			p->failed = true;
			return IBS_E_TRANSPORT;
		}
		log_debug("replay: no answer for %s mod=%u addr=%s: a dead target",
			  ibs_attr_name(req->mgmt_class, req->attr_id), req->attr_mod, as);
	} else if (ibs_capidx_get(p->ix, i, &x, &why)) {
		return rp_damaged(p, why);
	}
	rp_push(p, &(struct ibs_packet){ .len = 0 });
	pkt = &p->q[(p->qh + p->qn - 1) % p->qcap];
	if (i == UINT32_MAX) {
		/* Like the simulator, give the request back as undeliverable at once. */
		memcpy(pkt->mad, mad, IBS_MAD_SIZE);
		pkt->len = IBS_MAD_SIZE;
		pkt->status = 110;
		return IBS_OK;
	}
	p->used[i / 64] |= 1ull << (i % 64);
	p->cursor = i + 1;
	/* x is a checked copy: resp_n <= resp_len <= 256, and its bytes lie in the index. */
	if (x.outcome == IBS_CAP_RESP || x.resp_len) {
		if (ibs_capidx_resp(p->ix, &x, pkt->mad, &why))
			return rp_damaged(p, why);
		memset(pkt->mad + x.resp_n, 0, IBS_MAD_SIZE - x.resp_n);
	} else {
		memcpy(pkt->mad, mad, IBS_MAD_SIZE); /* given back as sent */
	}
	pkt->len = x.outcome == IBS_CAP_RESP ? x.resp_len : IBS_MAD_SIZE;
	/* error and none both come back as a failed attempt, at once. */
	if (x.outcome != IBS_CAP_RESP)
		pkt->status = x.outcome == IBS_CAP_ERROR ? x.status : 110;
	if (pkt->len >= 16)
		memcpy(pkt->mad + IBS_MAD_TID_OFFS, mad + IBS_MAD_TID_OFFS, 8);
	return IBS_OK;
}

static enum ibs_err rp_recv(struct ibs_transport *t, struct ibs_packet *pkt, int ms)
{
	struct rp_priv *p = t->priv;

	(void)ms;
	if (p->failed)
		return IBS_E_TRANSPORT;
	if (!p->qn)
		return IBS_E_AGAIN;
	*pkt = p->q[p->qh];
	p->qh = (p->qh + 1) % p->qcap;
	p->qn--;
	return IBS_OK;
}

static enum ibs_err rp_local(struct ibs_transport *t, struct ibs_local_port *out)
{
	struct rp_priv *p = t->priv;

	*out = ibs_capidx_header(p->ix)->local;
	return IBS_OK;
}

static void rp_close(struct ibs_transport *t)
{
	struct rp_priv *p = t->priv;

	ibs_capidx_free(p->ix);
	free(p->used);
	free(p->q);
	free(p->path);
	free(p->ipath);
	free(p);
	free(t);
}

static const struct ibs_transport_ops replay_ops = {
	.name = "replay",
	.send = rp_send,
	.recv = rp_recv,
	.local_port = rp_local,
	.close = rp_close,
};

static bool smi(uint8_t mgmt_class)
{
	return mgmt_class == IBS_CLASS_SMI_DR || mgmt_class == IBS_CLASS_SMI;
}

size_t ibs_replay_misses(struct ibs_transport *t)
{
	return t->ops == &replay_ops ? ((struct rp_priv *)t->priv)->misses : 0;
}

bool ibs_replay_holds(struct ibs_transport *t, uint8_t mgmt_class, uint16_t attr_id)
{
	struct rp_priv *p = t->priv;
	size_t i, n;

	if (t->ops != &replay_ops)
		return true;
	n = ibs_capidx_count(p->ix);
	for (i = 0; i < n; i++) {
		struct ibs_capidx_x x;
		struct ibs_mad_hdr h;
		uint8_t resp[IBS_MAD_SIZE];
		char *why = NULL;
		if (ibs_capidx_get(p->ix, (uint32_t)i, &x, &why) || ibs_capidx_resp(p->ix, &x, resp, &why)) {
			/* A damaged index is not a capture that lacks answers: replay says what is wrong. */
			free(why);
			return true;
		}
		if (ibs_mad_decode_hdr(resp, x.resp_n, &h) != IBS_OK || h.attr_id != attr_id)
			continue;
		if (h.mgmt_class == mgmt_class || (smi(h.mgmt_class) && smi(mgmt_class)))
			return true;
	}
	return false;
}

/*
 * The index beside the capture, when it is there and belongs to this very
 * capture; NULL (with a warning when one was there but not usable) otherwise.
 */
static struct ibs_capidx *fresh_index(const char *path, char **ipath_out)
{
	struct ibs_capidx_src src;
	struct ibs_capidx *ix = NULL;
	char *ipath, *msg = NULL;
	enum ibs_err rc;

	if (!ibs_capidx_src_of(path, &src))
		return NULL; /* the text reader names the problem */
	ipath = xasprintf("%s%s", path, IBS_CAPIDX_SUFFIX);
	if (access(ipath, F_OK) != 0) {
		free(ipath);
		return NULL;
	}
	rc = ibs_capidx_open(ipath, &src, &ix, &msg);
	if (rc)
		log_warn("%s: %s; reading the capture itself (run 'ibscan capture index %s' to refresh it)", ipath,
			 msg, path);
	else
		log_debug("%s: replaying from the index (%zu attempts)", ipath, ibs_capidx_count(ix));
	free(msg);
	if (ix)
		*ipath_out = ipath;
	else
		free(ipath);
	return ix;
}

enum ibs_err ibs_replay_open(const char *path, bool strict, struct ibs_transport **out,
			     struct ibs_capture_engine *eng)
{
	char *ipath = NULL;
	struct ibs_capidx *ix = strcmp(path, "-") ? fresh_index(path, &ipath) : NULL;
	struct rp_priv *p;
	struct ibs_transport *t;

	*out = NULL;
	if (!ix && strcmp(path, "-")) {
		char *msg = NULL;
		bool tmp_failed;
		enum ibs_err rc = ibs_capidx_build_tmp(path, &ix, &tmp_failed, &msg);
		if (rc && !tmp_failed) {
			log_error("%s", msg);
			free(msg);
			return rc;
		}
		if (rc)
			log_debug("%s: %s; laying its answers out in memory", path, msg);
		free(msg);
	}
	if (!ix) {
		struct ibs_capture *c;
		char *msg = NULL;
		enum ibs_err rc = ibs_capture_load(path, &c, &msg);
		if (rc) {
			log_error("%s", msg);
			free(msg);
			return rc;
		}
		rc = ibs_capidx_build(c, NULL, &ix, &msg);
		ibs_capture_free(c);
		if (rc) {
			log_error("%s: %s", path, msg);
			free(msg);
			return rc;
		}
	}
	if (eng)
		*eng = ibs_capidx_header(ix)->engine;
	if (ibs_capture_cut_short(ibs_capidx_header(ix)))
		log_warn("%s: the recording was cut short (no end record): a replay of it ends where it stopped", path);
	p = xcalloc(1, sizeof(*p));
	p->ix = ix;
	p->path = xstrdup(path);
	p->ipath = ipath;
	p->strict = strict;
	p->used = xcalloc(ibs_capidx_count(ix) / 64 + 1, sizeof(*p->used));
	t = xcalloc(1, sizeof(*t));
	t->ops = &replay_ops;
	t->priv = p;
	*out = t;
	return IBS_OK;
}
