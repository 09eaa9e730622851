/*
 * The data path of a run: posting the operations, polling their completions
 * under deadlines, and checking what the data says.
 */
#include "probe.h"
#include "../base/clock.h"
#include "../base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *ibs_ping_op_name(enum ibs_ping_op op)
{
	static const char *const names[IBS_OP__COUNT] = { "send", "write", "read", "atomic" };
	return (unsigned)op < IBS_OP__COUNT ? names[op] : "unknown";
}

static const char *op_verb(enum ibs_ping_op op)
{
	static const char *const v[] = { "send", "RDMA write", "RDMA read", "atomic fetch-and-add" };
	return (unsigned)op < IBS_OP__COUNT ? v[op] : "?";
}

static enum ibs_err wc_failed(struct ibs_ping *p, struct ping_run *r, const struct ibs_wc *wc)
{
	unsigned st = wc->status;
	const char *hint;
	const char *text = ping_wc_text(st, &hint);
	char *said = ping_peer_says(r);
	enum ibs_err rc;

	if (r->mtu_check) {
		rc = ping_fail(p, IBS_STEP_RUN, IBS_E_STATUS,
			       xasprintf("both ports allow %u-byte packets but something on the path carries less "
					 "(a switch port's MTU, the partition's MTU in opensm, the Ethernet MTU on RoCE): "
					 "real traffic of that size is lost the same way",
					 r->mtu_check),
			       "the path-MTU message (one RDMA write of %u bytes, after %u operations that passed) "
			       "completed with status %s (%s; vendor error 0x%x)%s%s",
			       r->mtu_check, r->iters, ibs_wc_status_name(st), text, wc->vendor_err,
			       said ? "; the peer says: " : "", said ? said : "");
		free(said);
		return rc;
	}
	rc = ping_fail(p, IBS_STEP_RUN, IBS_E_STATUS, hint ? xstrdup(hint) : NULL,
		       "%s %" PRIu64 " of %u completed with status %s (%s; vendor error 0x%x)%s%s",
		       wc->wr_id & RECV_TAG ? "receive" : op_verb(r->op), (uint64_t)((wc->wr_id & ~RECV_TAG) + 1), r->iters,
		       ibs_wc_status_name(st), text, wc->vendor_err, said ? "; the peer says: " : "", said ? said : "");
	free(said);
	return rc;
}

/*
 * Nothing completed within --timeout. Shorter than the hardware's own
 * retries, the transport has not given up yet: the peer stopped answering.
 * Longer, the hardware would have reported RETRY_EXC_ERR had it sent
 * anything: the work request never left, or its completion was lost.
 */
/*
 * Nothing completed by the deadline. awaiting_peer: every work request of
 * this side had completed and what was missing was the peer's (a receive,
 * or its RDMA write's flag): the peer stopped sending, which says nothing
 * about this host's requests.
 */
static enum ibs_err no_completion(struct ibs_ping *p, struct ping_run *r, uint64_t iter, bool awaiting_peer)
{
	char *said = ping_peer_says(r);
	bool early = r->timeout_ms < RETRY_MAX_MS;
	enum ibs_err rc;

	if (r->mtu_check) {
		/* The one message of the path MTU, after the run passed (soft-RoCE retries it for ever). */
		rc = ping_fail(p, IBS_STEP_RUN, IBS_E_TIMEOUT,
			       xasprintf("both ports allow %u-byte packets but something on the path carries less "
					 "(a switch port's MTU, the partition's MTU in opensm, the Ethernet MTU on RoCE): "
					 "real traffic of that size is lost the same way",
					 r->mtu_check),
			       "the path-MTU message (one RDMA write of %u bytes, after %u operations that passed) "
			       "did not complete within %u ms (--timeout)%s%s",
			       r->mtu_check, r->iters, r->timeout_ms, said ? "; the peer says: " : "", said ? said : "");
		free(said);
		return rc;
	}
	if (iter >= r->iters) {
		/* After the run: the one more fetch-and-add that shows the count (bandwidth atomics). */
		rc = ping_fail(p, IBS_STEP_RUN, IBS_E_TIMEOUT, NULL,
			       "%sno completion within %u ms (--timeout): the count check (one more atomic fetch-and-add, "
			       "after %u operations that passed)%s%s",
			       early ? "the peer stopped answering: " : "", r->timeout_ms, r->iters,
			       said ? "; the peer says: " : "", said ? said : "");
		free(said);
		return rc;
	}
	if (awaiting_peer) {
		bool closed = !said && ping_peer_closed(r);
		rc = ping_fail(p, IBS_STEP_RUN, IBS_E_TIMEOUT,
			       closed ? xstrdup("the peer's process ended (its setup connection closed) before the run "
						"did: see its own output for why")
				      : xstrdup("the peer stopped sending: its process or host went away, its port went "
						"down, or the network drops packets"),
			       "nothing arrived from the peer within %u ms (--timeout): %s %" PRIu64 " of %u%s%s",
			       r->timeout_ms, op_verb(r->op), iter + 1, r->iters, said ? "; the peer says: " : "",
			       said ? said : "");
		free(said);
		return rc;
	}
	rc = ping_fail(p, IBS_STEP_RUN, IBS_E_TIMEOUT,
		       early ? xasprintf("the peer's host or its port went away, or the network drops packets; a "
					 "--timeout above %llu ms lets the hardware's retries end it with RETRY_EXC_ERR; on "
					 "RoCE check that both hosts use GIDs of the same type and subnet (--gid-index, "
					 "'ibscan local')",
					 RETRY_MAX_MS)
			     : xasprintf("the hardware's retries (up to %llu ms) reported nothing either: the work "
					 "request did not leave this host, or its completion was lost; raise --timeout for a "
					 "slow path",
					 RETRY_MAX_MS),
		       "%sno completion within %u ms (--timeout%s): %s %" PRIu64 " of %u%s%s",
		       early ? "the peer stopped answering: " : "", r->timeout_ms,
		       early ? ", shorter than the transport's own retries" : "", op_verb(r->op), iter + 1, r->iters,
		       said ? "; the peer says: " : "", said ? said : "");
	free(said);
	return rc;
}

/*
 * Poll the CQ until want_send send and want_recv receive completions have
 * arrived (and *flag equals val, for RDMA write round trips), within the
 * timeout. Receives are reposted as they complete.
 */
static enum ibs_err wait_for(struct ibs_ping *p, struct ping_run *r, uint64_t want_send, uint64_t want_recv,
			     const volatile uint8_t *flag, uint8_t val, uint64_t iter)
{
	uint64_t now, deadline = ibs_mono_ns() + (uint64_t)r->timeout_ms * 1000000ull;
	struct ibs_wc wc[16];

	if (deadline > r->session_end)
		deadline = r->session_end;
	int i, n;

	for (;;) {
		if (r->send_done >= want_send && r->recv_done >= want_recv && (!flag || *flag == val))
			return IBS_OK;
		n = p->ops->poll_cq(r->cq, 16, wc);
		if (n < 0)
			return ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "polling the completion queue failed: %s",
					 strerror(-n));
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBS_WC_SUCCESS)
				return wc_failed(p, r, &wc[i]);
			if (!(wc[i].wr_id & RECV_TAG)) {
				/* A queue pair completes in order: a signaled one means those before it are done. */
				if (wc[i].wr_id + 1 > r->send_done)
					r->send_done = wc[i].wr_id + 1;
				continue;
			}
			r->recv_done++;
			if (wc[i].byte_len != r->size)
				return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
						 "received a message of %u bytes, expected %u", wc[i].byte_len, r->size);
			if (r->recv_posted < r->recv_target && ping_post_recv(p, r))
				return IBS_E_TRANSPORT;
		}
		if (n)
			continue;
		now = ibs_mono_ns();
		if (r->ka_ms && now >= r->next_ka && ping_keepalive(p, r, now))
			return IBS_E_TRANSPORT;
		if (now >= deadline && ping_session_over(r))
			return ping_session_expired(p, r, IBS_STEP_RUN, false);
		if (now >= deadline)
			return no_completion(p, r, iter, r->send_done >= want_send);
	}
}

static enum ibs_err post(struct ibs_ping *p, struct ping_run *r, uint64_t i)
{
	const struct ibs_oob_hello *h = &r->peer_hello;
	struct ibs_send_wr w;
	int e;

	memset(&w, 0, sizeof(w));
	w.wr_id = i;
	w.signaled = r->signal_every <= 1 || i % r->signal_every == r->signal_every - 1 || i + 1 >= r->iters;
	w.lkey = r->lkey;
	w.length = r->size;
	w.addr = r->buf;
	w.inline_data = r->inline_len && (r->op == IBS_OP_SEND || r->op == IBS_OP_WRITE);
	w.remote_addr = h->addr;
	w.rkey = h->rkey;
	switch (r->op) {
	case IBS_OP_SEND:
		w.opcode = IBS_WR_SEND;
		break;
	case IBS_OP_WRITE:
		w.opcode = IBS_WR_RDMA_WRITE;
		break;
	case IBS_OP_READ:
		w.opcode = IBS_WR_RDMA_READ;
		w.addr = r->buf + r->stride;
		break;
	case IBS_OP_ATOMIC:
	default:
		w.opcode = IBS_WR_FETCH_ADD;
		w.addr = r->buf + r->stride;
		w.length = IBS_PING_ATOMIC_SIZE;
		w.add = 1;
		break;
	}
	e = p->ops->post_send(r->qp, &w);
	if (e)
		return ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "posting %s %" PRIu64 " of %u failed: %s",
				 op_verb(r->op), i + 1, r->iters, strerror(e));
	return IBS_OK;
}

static uint8_t seq_byte(uint64_t i)
{
	return (uint8_t)(i % 255 + 1);
}

/* The atomic counter, in either byte order: some HCAs do atomics big-endian. */
static bool counter_is(uint64_t v, uint64_t want)
{
	return v == want || __builtin_bswap64(v) == want;
}

uint8_t ping_pattern(size_t i)
{
	return (uint8_t)(i * 31 + 7);
}

enum ibs_err ping_client_latency(struct ibs_ping *p, struct ping_run *r, uint64_t *lat)
{
	volatile uint8_t *flag = r->buf + r->stride + r->size - 1;
	uint64_t i, t0;
	enum ibs_err rc;

	for (i = 0; i < r->iters; i++) {
		if (r->op == IBS_OP_WRITE)
			r->buf[r->size - 1] = seq_byte(i);
		t0 = ibs_mono_ns();
		rc = post(p, r, i);
		if (!rc && r->op == IBS_OP_SEND)
			rc = wait_for(p, r, i + 1, i + 1, NULL, 0, i);
		else if (!rc && r->op == IBS_OP_WRITE)
			rc = wait_for(p, r, i, 0, flag, seq_byte(i), i);
		else if (!rc)
			rc = wait_for(p, r, i + 1, 0, NULL, 0, i);
		if (rc)
			return rc;
		lat[i] = ibs_mono_ns() - t0;
		if (r->op == IBS_OP_ATOMIC) {
			uint64_t v;
			memcpy(&v, r->buf + r->stride, sizeof(v));
			if (!counter_is(v, i))
				return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
						 "atomic fetch-and-add %" PRIu64 " returned %" PRIu64 ", expected %" PRIu64, i + 1,
						 v, i);
		}
	}
	if (r->op == IBS_OP_WRITE)
		return wait_for(p, r, r->iters, 0, NULL, 0, r->iters - 1);
	return IBS_OK;
}

enum ibs_err ping_client_bw(struct ibs_ping *p, struct ping_run *r)
{
	uint64_t posted = 0;
	enum ibs_err rc;

	while (r->send_done < r->iters) {
		while (posted < r->iters && posted - r->send_done < r->tx_depth) {
			rc = post(p, r, posted);
			if (rc)
				return rc;
			posted++;
		}
		rc = wait_for(p, r, r->send_done + 1, 0, NULL, 0, r->send_done);
		if (rc)
			return rc;
	}
	return IBS_OK;
}

/* What the data says after a run: a read brings the listener's pattern, atomics count. */
enum ibs_err ping_client_verify(struct ibs_ping *p, struct ping_run *r)
{
	size_t i;

	if (r->op == IBS_OP_READ) {
		for (i = 0; i < r->size; i++)
			if (r->buf[r->stride + i] != ping_pattern(i))
				return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
						 "RDMA read returned wrong data at byte %zu: 0x%02x, expected 0x%02x", i,
						 r->buf[r->stride + i], ping_pattern(i));
	}
	if (r->op == IBS_OP_ATOMIC && r->bw) {
		/* Bandwidth completions land in any order: one more add shows the count. */
		uint64_t v;
		enum ibs_err rc = post(p, r, r->iters);
		if (!rc)
			rc = wait_for(p, r, r->iters + 1ull, 0, NULL, 0, r->iters);
		if (rc)
			return rc;
		memcpy(&v, r->buf + r->stride, sizeof(v));
		if (!counter_is(v, r->iters))
			return ping_fail(p, IBS_STEP_RUN, IBS_E_MALFORMED, NULL,
					 "after %u atomic fetch-and-adds the counter is %" PRIu64, r->iters, v);
	}
	return IBS_OK;
}

enum ibs_err ping_client_mtu_check(struct ibs_ping *p, struct ping_run *r)
{
	const struct ibs_oob_hello *h = &r->peer_hello;
	uint32_t len = r->mtu >= 1 && r->mtu <= 5 ? 128u << r->mtu : 0;
	uint64_t id = (uint64_t)r->iters + 1; /* after the run's, and the atomic count's, work requests */
	struct ibs_send_wr w;
	enum ibs_err rc;
	int e;

	if (!len || h->len < len || r->stride < len)
		return IBS_OK; /* a peer that exposes less (an older ibscan): nothing to write into */
	memset(&w, 0, sizeof(w));
	w.wr_id = id;
	w.opcode = IBS_WR_RDMA_WRITE;
	w.addr = r->buf;
	w.length = len;
	w.lkey = r->lkey;
	w.remote_addr = h->addr;
	w.rkey = h->rkey;
	w.signaled = true;
	e = p->ops->post_send(r->qp, &w);
	if (e)
		return ping_fail(p, IBS_STEP_RUN, IBS_E_TRANSPORT, NULL, "posting the path-MTU message (%u bytes) failed: %s",
				 len, strerror(e));
	r->mtu_check = len;
	rc = wait_for(p, r, id + 1, 0, NULL, 0, id);
	r->mtu_check = 0;
	return rc;
}

/* The listener's side of a run; for reads, atomics and RDMA write bandwidth it has nothing to do. */
enum ibs_err ping_server_run(struct ibs_ping *p, struct ping_run *r)
{
	volatile uint8_t *flag = r->buf + r->stride + r->size - 1;
	enum ibs_err rc = IBS_OK;
	uint64_t i;

	if (r->op == IBS_OP_SEND && r->bw) {
		while (!rc && r->recv_done < r->iters)
			rc = wait_for(p, r, 0, r->recv_done + 1, NULL, 0, r->recv_done);
		return rc;
	}
	if (r->bw || (r->op != IBS_OP_SEND && r->op != IBS_OP_WRITE))
		return IBS_OK;
	for (i = 0; i < r->iters && !rc; i++) {
		if (r->op == IBS_OP_SEND)
			rc = wait_for(p, r, i, i + 1, NULL, 0, i);
		else
			rc = wait_for(p, r, i, 0, flag, seq_byte(i), i);
		if (rc)
			break;
		if (r->op == IBS_OP_WRITE)
			r->buf[r->size - 1] = seq_byte(i);
		rc = post(p, r, i);
	}
	if (!rc)
		rc = wait_for(p, r, r->iters, 0, NULL, 0, r->iters - 1);
	return rc;
}
