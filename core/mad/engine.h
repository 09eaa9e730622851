/*
 * The asynchronous MAD engine: keeps up to `window` requests in flight on one
 * transport, matches responses on the low 32 bits of the TID, applies its own
 * per-MAD deadline and retries, and a global deadline for the whole run. A
 * request may have other paths to its target: each retry then takes the next
 * one, and the backoff comes between rounds over all of them. With a route
 * function and a cap, no node serves more than `max_per_node` requests in
 * flight at once (a directed-route SMP counts at every switch on its path
 * and at its destination, a LID-routed one at its destination only). Each
 * attempt's timeout follows the round-trip times of this run's answers from
 * its kind of agent (SMAs, the SA, PMAs).
 * A request always completes exactly once, through its callback, whatever
 * happens (answer, bad status, timeout, malformed response, abort).
 */
#ifndef IBSCAN_ENGINE_H
#define IBSCAN_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/err.h"
#include "mad.h"
#include "rtt.h"
#include "transport.h"

#define IBS_ENGINE_MAX_WINDOW 1024

struct ibs_engine_opts {
	unsigned window;      /* MADs in flight at most (1..IBS_ENGINE_MAX_WINDOW) */
	unsigned timeout_ms;  /* per attempt */
	unsigned retries;     /* extra attempts after the first (per path) */
	unsigned deadline_ms; /* for everything, from ibs_engine_new(); 0: none */
	unsigned backoff_us;  /* wait before retrying an attempt that failed fast: this, doubled
			       * per round, at most timeout_ms; 0: retry at once */
	unsigned max_per_node; /* requests in flight any one node serves (see ibs_route_fn); 0: no cap */
	bool fixed_timeout;   /* every attempt waits timeout_ms (no adaptive timeout, no doubling) */
	uint64_t mkey;        /* the M_Key every SMP carries (--m-key; 0: none), see ibs_mad_encode */
};

#define IBS_ENGINE_DEFAULT_WINDOW 32
#define IBS_ENGINE_DEFAULT_TIMEOUT_MS 500
#define IBS_ENGINE_DEFAULT_RETRIES 2
#define IBS_ENGINE_DEFAULT_BACKOFF_US 250
#define IBS_ENGINE_DEFAULT_MAX_PER_NODE 4
/* Adaptive timeouts: see rtt.h. */
/* A busy answer (IBA 13.4.7) waits at least this long, doubled per round, before going out again. */
#define IBS_ENGINE_BUSY_WAIT_US 1000
/* SMInfo's attempts (answered by the SM process, as sminfo waits for it): this long each, at least this many. */
#define IBS_ENGINE_SM_TIMEOUT_MS 1000
#define IBS_ENGINE_SM_ATTEMPTS 4
/* Nodes one request may count at (a path of 63 hops, and its destination). */
#define IBS_ENGINE_MAX_ROUTE 64

struct ibs_mad_result {
	enum ibs_outcome outcome;
	uint16_t status;       /* MAD status when outcome is IBS_MAD_STATUS */
	const uint8_t *mad;    /* the response, valid only during the callback */
	size_t len;
	unsigned attempts;
	int cause;             /* IBS_MAD_SEND_FAILED: the errno the send failed with (0: unknown) */
};

typedef void (*ibs_mad_cb)(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *res);

struct ibs_engine_stats {
	uint64_t submitted, sent, received, completed;
	uint64_t retries, timeouts, bad_status, malformed, unexpected, aborted;
	uint64_t late;        /* requests completed by an answer to an earlier attempt */
	uint64_t send_failed; /* requests the kernel refused to send */
	uint64_t backoffs;    /* retries that waited (backoff_us) before going out again */
	uint64_t other_paths; /* retries sent along another path than the request's first */
	uint64_t busy;        /* busy answers, each waited out before going out again */
	uint64_t capped;      /* times a request waited for a node at its cap (max_per_node) */
	unsigned max_at_node; /* the most requests in flight one node served at once */
	unsigned timeout_now_ms; /* the timeout of an SMP's first attempt as of now (adaptive) */
	uint64_t elapsed_ms; /* since the engine was created, as of the last progress call */
};

struct ibs_engine;

struct ibs_engine *ibs_engine_new(struct ibs_transport *t, const struct ibs_engine_opts *o);
/* Queue a request; the payload (req->data) is copied. cb runs from ibs_engine_run(). */
void ibs_engine_submit(struct ibs_engine *e, const struct ibs_mad_req *req, ibs_mad_cb cb, void *ctx);
/*
 * Path i to the target of a request submitted with ibs_engine_submit_paths
 * (ctx is the one given with it) into *out, or false (and *out untouched)
 * when it has no path i. Path 0 must be the request's own address, and a
 * request that has path i has every path below.
 */
typedef bool (*ibs_path_fn)(void *ctx, unsigned i, struct ibs_addr *out);
/* Who knows the other paths (one for the engine: the walker); NULL: nobody. */
void ibs_engine_set_paths(struct ibs_engine *e, ibs_path_fn path);
/*
 * ibs_engine_submit, for a target with other paths: a failed attempt goes
 * out again along the next path, asked of the ibs_path_fn only then
 * (nothing is asked about a request that succeeds); after the last one a
 * new round starts along path 0. A request that fails in retries + 1 rounds
 * completes as failed. The callback sees req->addr as the last attempt's path.
 * A path may be a LID: an SMP then goes LID-routed, directed-route otherwise.
 */
void ibs_engine_submit_paths(struct ibs_engine *e, const struct ibs_mad_req *req, ibs_mad_cb cb, void *ctx);
/*
 * The nodes a request occupies on its way, as small numbers (dense: they
 * index an array) into keys, at most max of them; ctx is the request's.
 */
typedef unsigned (*ibs_route_fn)(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max);
/* Who knows the routes (the walker); NULL: a request to a LID counts at that LID, one by DR nowhere. */
void ibs_engine_set_route(struct ibs_engine *e, ibs_route_fn route);
/* The timeout an SMP's first attempt gets now, in ms (adaptive, see above; the SA and PMAs have their own). */
unsigned ibs_engine_timeout_ms(const struct ibs_engine *e);
/*
 * Run until nothing is queued or in flight. IBS_OK, or IBS_E_DEADLINE /
 * IBS_E_TRANSPORT when the run was aborted (every request still completed,
 * as IBS_MAD_ABORTED). Once aborted, later runs abort at once.
 */
enum ibs_err ibs_engine_run(struct ibs_engine *e);
const struct ibs_engine_stats *ibs_engine_stats(const struct ibs_engine *e);
/* Milliseconds since the engine was created. */
uint64_t ibs_engine_elapsed_ms(const struct ibs_engine *e);
/* Milliseconds left before the global deadline (UINT64_MAX without one). */
uint64_t ibs_engine_remaining_ms(const struct ibs_engine *e);
/* Called at most every 200 ms while running. */
void ibs_engine_set_progress(struct ibs_engine *e, void (*fn)(void *ctx, const struct ibs_engine_stats *s),
			     void *ctx);
void ibs_engine_free(struct ibs_engine *e);

#endif
