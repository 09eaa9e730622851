/* The recorder: a transport wrapper that writes every exchange through it to a capture as it happens. */
#include "recorder.h"
#include "../base/clock.h"
#include "../base/log.h"
#include "../base/out.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef IBSCAN_VERSION
#define IBSCAN_VERSION "0.0.0"
#endif

struct rec_pending {
	uint32_t tid;
	struct ibs_mad_req req;
	uint8_t mad[IBS_MAD_SIZE];
	uint64_t t;
	bool used;
};

struct rec_priv {
	struct ibs_transport *inner;
	struct ibs_out out; /* the capture, put in place when the recording ends */
	FILE *f;            /* out's stream while recording, else NULL */
	char *path;
	bool times;
	bool failed;
	uint64_t start;
	struct rec_pending *p;
	size_t n, cap;
};

static void rec_write(struct rec_priv *r, struct rec_pending *p, enum ibs_cap_outcome oc, const struct ibs_packet *pkt)
{
	uint64_t t = p->t - r->start;

	if (r->failed || !r->f)
		return;
	ibs_capture_write_exchange(r->f, &p->req, p->mad, r->times ? &t : NULL, oc, pkt);
	/* Whole so far: a run cut short (a signal, out of memory) keeps the capture up to here, without its end record. */
	if (ibs_out_mark(&r->out) != 0 || ferror(r->f)) {
		log_error("cannot write capture '%s': %s", r->path, strerror(r->out.err ? r->out.err : errno));
		r->failed = true;
	}
}

static struct rec_pending *rec_find(struct rec_priv *r, uint32_t tid)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->p[i].used && r->p[i].tid == tid)
			return &r->p[i];
	return NULL;
}

static void rec_done(struct rec_priv *r, struct rec_pending *p)
{
	p->used = false;
	while (r->n && !r->p[r->n - 1].used)
		r->n--;
}

static enum ibs_err rec_send(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad, int *cause)
{
	struct rec_priv *r = t->priv;
	struct rec_pending *p = NULL;
	struct ibs_mad_hdr h;
	size_t i;
	enum ibs_err rc;

	ibs_mad_decode_hdr(mad, IBS_MAD_SIZE, &h);
	for (i = 0; i < r->n; i++)
		if (!r->p[i].used) {
			p = &r->p[i];
			break;
		}
	if (!p) {
		r->p = xgrow(r->p, &r->cap, r->n + 1, sizeof(*r->p));
		p = &r->p[r->n++];
	}
	p->used = true;
	p->tid = (uint32_t)h.tid;
	p->req = *req;
	p->req.data = NULL;
	memcpy(p->mad, mad, IBS_MAD_SIZE);
	p->t = r->times ? ibs_mono_ns() : 0;
	rc = r->inner->ops->send(r->inner, req, mad, cause);
	if (rc)
		rec_done(r, p);
	return rc;
}

static enum ibs_err rec_recv(struct ibs_transport *t, struct ibs_packet *pkt, int ms)
{
	struct rec_priv *r = t->priv;
	enum ibs_err rc = r->inner->ops->recv(r->inner, pkt, ms);
	struct ibs_mad_hdr h;
	struct rec_pending *p;

	if (rc != IBS_OK || ibs_mad_decode_hdr(pkt->mad, pkt->len, &h) != IBS_OK)
		return rc;
	p = rec_find(r, (uint32_t)h.tid);
	if (p) {
		rec_write(r, p, pkt->status ? IBS_CAP_ERROR : IBS_CAP_RESP, pkt);
		rec_done(r, p);
	}
	return rc;
}

static void rec_expire(struct ibs_transport *t, const struct ibs_mad_req *req, uint32_t tid)
{
	struct rec_priv *r = t->priv;
	struct rec_pending *p = rec_find(r, tid);

	(void)req;
	if (p) {
		rec_write(r, p, IBS_CAP_NONE, NULL);
		rec_done(r, p);
	}
	if (r->inner->ops->expire)
		r->inner->ops->expire(r->inner, req, tid);
}

static enum ibs_err rec_local(struct ibs_transport *t, struct ibs_local_port *out)
{
	struct rec_priv *r = t->priv;
	return ibs_transport_local_port(r->inner, out);
}

static const struct ibs_transport_ops rec_ops;

enum ibs_err ibs_recorder_end(struct ibs_transport *t)
{
	struct rec_priv *r;
	size_t i;

	if (t->ops != &rec_ops)
		return IBS_OK;
	r = t->priv;
	if (r->f) {
		/* Whatever was still in flight never got an answer. */
		for (i = 0; i < r->n; i++)
			if (r->p[i].used)
				rec_write(r, &r->p[i], IBS_CAP_NONE, NULL);
		/* The recording ended here, not cut short: a reader can tell (ibs_capture_cut_short). */
		ibs_capture_write_end(r->f);
		r->f = NULL;
		/* Put in place (renamed over the old capture) only now: a reader of the old one reads it whole. */
		if (r->failed)
			ibs_out_abort(&r->out);
		else if (ibs_out_commit(&r->out) != IBS_OK)
			r->failed = true; /* said there */
	}
	return r->failed ? IBS_E_IO : IBS_OK;
}

static void rec_close(struct ibs_transport *t)
{
	struct rec_priv *r = t->priv;

	ibs_recorder_end(t);
	ibs_transport_close(r->inner);
	free(r->p);
	free(r->path);
	free(r);
	free(t);
}

static const struct ibs_transport_ops rec_ops = {
	.name = "recorder",
	.send = rec_send,
	.recv = rec_recv,
	.expire = rec_expire,
	.local_port = rec_local,
	.close = rec_close,
};

enum ibs_err ibs_recorder_wrap(struct ibs_transport *inner, const char *path, bool times,
			       const struct ibs_local_port *lp, const struct ibs_capture_engine *eng,
			       struct ibs_transport **out)
{
	struct rec_priv *r = xcalloc(1, sizeof(*r));
	struct ibs_transport *t;

	*out = NULL;
	/* As -o: a new file in the capture's directory, never through a link another user planted (ibs_out). */
	if (ibs_out_open(&r->out, path) != IBS_OK) {
		free(r);
		return IBS_E_IO;
	}
	r->f = r->out.fp;
	ibs_capture_write_header(r->f, "ibscan " IBSCAN_VERSION, lp, eng);
	if (ibs_out_mark(&r->out) != 0) {
		log_error("cannot write capture '%s': %s", path, strerror(r->out.err ? r->out.err : errno));
		ibs_out_abort(&r->out);
		free(r);
		return IBS_E_IO;
	}
	ibs_out_keep_on_fatal(&r->out);
	r->inner = inner;
	r->path = xstrdup(path);
	r->times = times;
	r->start = ibs_mono_ns();
	t = xcalloc(1, sizeof(*t));
	t->ops = &rec_ops;
	t->priv = r;
	*out = t;
	return IBS_OK;
}
