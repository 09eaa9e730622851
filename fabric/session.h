/*
 * A session: one look at a fabric from one source. It opens the source a
 * description names (a live port, a capture to replay, an ibnetdiscover
 * cache), refuses one that lacks what the caller needs, wraps the
 * recorder around it, builds the engine (a replay inherits the engine
 * settings it was recorded with), and runs on it the walk, the counter
 * reads (once or twice, an interval apart) and the route queries.
 *
 * Life: ibs_session_open, ibs_session_walk, any of the reads, then
 * ibs_session_end (the run's verdict and statistics; the device or the
 * capture is closed), then ibs_session_take for the fabric and the run,
 * and ibs_session_close, which releases whatever is still held.
 *
 * The first step that fails stops the run: the steps after it do nothing
 * and return that failure, and ibs_session_end marks the run aborted.
 *
 * Ownership: the session owns its transport, engine, fabric, run and
 * node-name map until ibs_session_take hands the fabric and the run over.
 */
#ifndef IBSCAN_SESSION_H
#define IBSCAN_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "walk/counters.h"
#include "model/model.h"
#include "load/namemap.h"
#include "walk/route.h"
#include "check/routecheck.h"
#include "walk/run.h"
#include "walk/walk.h"
#include "../core/mad/engine.h"

/* Where the fabric comes from: one of a live port, a capture, a cache. */
struct ibs_source {
	const char *ca;         /* live: this CA (NULL: the first with an active IB port) */
	int port;               /* live: this port of it (0: its first active port) */
	const char *replay;     /* a capture to answer from instead of a device */
	bool replay_strict;     /* a request the capture lacks is an error */
	const char *cache;      /* an 'ibnetdiscover --cache' file: no MADs at all */
	const char *record;     /* record every MAD exchanged into this capture */
	bool record_times;
	uint64_t mkey;          /* live: the M_Key every SMP carries (--m-key) */
};

struct ibs_session_opts {
	struct ibs_source src;
	/* window, timeout, retries, deadline (the session sets the backoff: a live fabric only). */
	struct ibs_engine_opts engine;
	/* Given by the user: a replayed capture's recorded settings do not replace them. */
	bool window_set, timeout_set, retries_set;
	/* IBS_LACK_* the caller cannot do without: a source that lacks one is refused. */
	unsigned needs;
	/* Applied to the fabric once walked (or NULL), before any query; the session frees it. */
	struct ibs_namemap *names;
	/*
	 * A fabric walked before on this same source (live only), or NULL: the
	 * session takes it over, ibs_session_walk does not walk again, and the
	 * reads run on it (the exporter's counters-only sweeps). Its counters
	 * are read anew; its topology is as that walk left it. The session
	 * owns it from ibs_session_open on, even when the open fails.
	 */
	struct ibs_fabric *walked;
};

struct ibs_session;

/*
 * Open the source o describes. IBS_OK with *out set; otherwise *out is
 * NULL, the reason was logged, and the result says whose fault it was:
 * IBS_E_INVAL when a cache cannot give what o->needs (the request makes
 * no sense), anything else when the source failed or a capture lacks it.
 */
enum ibs_err ibs_session_open(const struct ibs_session_opts *o, struct ibs_session **out);

/* Walk the fabric (a cache was read at open: nothing to do), then name its nodes from the map. */
enum ibs_err ibs_session_walk(struct ibs_session *s, const struct ibs_walk_opts *wo);
/*
 * Read every port's counters, twice interval_s apart when interval_s > 0
 * (ibs_read_counters_interval); nothing when the source has no counters.
 */
enum ibs_err ibs_session_read_counters(struct ibs_session *s, const struct ibs_counter_opts *co, double interval_s);
/* Every switch's forwarding table (ibs_read_lfts). */
enum ibs_err ibs_session_read_lfts(struct ibs_session *s, struct ibs_lft **out, size_t *n);
/*
 * routes --check on the tables lfts, into *out (ibs_routecheck_free). When
 * the channel dependency graph has a cycle on one VL, the switches' SL2VL
 * are read, only for the pairs whose out-channel is in a part with a cycle
 * (no other can make or break one), and the SA's PathRecord SL of each
 * (source port, LID) pair whose route crosses such a channel (one Get
 * each, at most IBS_RC_MAX_PATHRECORDS), and the check is done again with
 * them; without a cycle on one VL there is none on any VL or SL, and
 * nothing is read. A capture that holds no SL2VL (or no PathRecord) is
 * not asked: SL 0 is assumed, and the check says why. base (may be NULL)
 * gives --through, the job or all_hosts; a failed or saved walk reads
 * nothing (SL2VL and PathRecords "not read"). Shared by routes --check,
 * health --routing and report --routing (cli_walk_tables).
 */
enum ibs_err ibs_session_routecheck(struct ibs_session *s, const struct ibs_lft *lfts, size_t n,
				    const struct ibs_rc_opts *base, struct ibs_routecheck *out);
/* Trace a route from src to dlid (ibs_route_trace). */
enum ibs_err ibs_session_trace_route(struct ibs_session *s, const struct ibs_node *src, uint8_t src_port,
				     uint16_t dlid, struct ibs_route *out);
/*
 * One PathRecord (ibs_query_path). An SA that refuses or does not answer
 * is the query's result, not the run's: only a stopped engine (deadline,
 * transport) stops the run.
 */
enum ibs_err ibs_session_query_path(struct ibs_session *s, uint16_t slid, uint16_t dlid,
				    struct ibs_path_record *out, enum ibs_outcome *outcome, uint16_t *status);

/* IBS_OK while every step so far ran to the end; else the first failure. */
enum ibs_err ibs_session_status(const struct ibs_session *s);
/* The fabric so far (the session's). */
struct ibs_fabric *ibs_session_fabric(struct ibs_session *s);

/*
 * End the run: mark it aborted if a step failed, log the engine's
 * statistics, close the engine and the source, and name the nodes from
 * the map if no walk did. Returns ibs_session_status.
 */
enum ibs_err ibs_session_end(struct ibs_session *s);
/* Hand the fabric and the run to the caller (ibs_fabric_free, ibs_run_free). */
void ibs_session_take(struct ibs_session *s, struct ibs_fabric **f, struct ibs_run *run);
/* Release everything the session still holds; s may be NULL. */
void ibs_session_close(struct ibs_session *s);

#endif
