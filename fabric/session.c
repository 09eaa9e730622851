/* One look at a fabric: open its source, build the engine, run the walk and the reads, release it all. */
#include "session.h"
#include "load/cache.h"
#include "load/filekind.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"
#include "../core/capture/format.h"
#include "../core/capture/recorder.h"
#include "../core/capture/replay.h"

#include <stdlib.h>
#include <string.h>

struct ibs_session {
	struct ibs_session_opts o;
	struct ibs_transport *t;  /* NULL for a cache, and once ended */
	struct ibs_engine *e;
	struct ibs_fabric *f;
	struct ibs_run run;
	enum ibs_err rc;          /* the first step that failed */
	bool reused;              /* the fabric was walked before (o.walked): no walk */
};

/* What a capture may lack, how to tell, and which runs record it. */
static const struct {
	unsigned bit;
	uint8_t mgmt_class;
	uint16_t attr_id;
	const char *recorded_by;
} lack_defs[] = {
	{ IBS_LACK_SMINFO, IBS_CLASS_SMI_DR, IBS_ATTR_SM_INFO, "every walk" },
	{ IBS_LACK_PMA, IBS_CLASS_PMA, IBS_ATTR_PORT_COUNTERS, "'ibscan counters' or 'ibscan health'" },
	{ IBS_LACK_LFT, IBS_CLASS_SMI_DR, IBS_ATTR_LFT, "'ibscan route' or 'ibscan routes --dump'" },
	{ IBS_LACK_SA, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD, "'ibscan path'" },
	{ IBS_LACK_GUIDINFO, IBS_CLASS_SMI_DR, IBS_ATTR_GUID_INFO, "a walk with --gids" },
};

/*
 * What the replayed capture lacks. Every walk asks for SMInfo, and a master
 * that did not answer is a finding, not something the capture lacks.
 */
static unsigned replay_lacks(struct ibs_transport *t)
{
	unsigned lacks = 0;
	size_t i;

	for (i = 0; i < sizeof(lack_defs) / sizeof(lack_defs[0]); i++)
		if (lack_defs[i].bit != IBS_LACK_SMINFO &&
		    !ibs_replay_holds(t, lack_defs[i].mgmt_class, lack_defs[i].attr_id))
			lacks |= lack_defs[i].bit;
	return lacks;
}

/* Refuse, in one line, a source that lacks what the caller needs: IBS_OK when it has it all. */
static enum ibs_err refuse_lacking(const struct ibs_session_opts *o, unsigned lacks)
{
	unsigned miss = lacks & o->needs;
	size_t i;

	for (i = 0; i < sizeof(lack_defs) / sizeof(lack_defs[0]); i++) {
		if (!(miss & lack_defs[i].bit))
			continue;
		if (o->src.cache) {
			log_error("'%s' is an ibnetdiscover cache: it holds no %s; use a live fabric, or --replay a capture",
				  o->src.cache, ibs_lack_str(lack_defs[i].bit));
			return IBS_E_INVAL;
		}
		log_error("capture '%s' holds no %s; %s records them", o->src.replay, ibs_lack_str(lack_defs[i].bit),
			  lack_defs[i].recorded_by);
		return IBS_E_INPUT;
	}
	return IBS_OK;
}

/* An ibnetdiscover cache: the whole fabric at once, no MADs. */
static enum ibs_err open_cache(struct ibs_session *s)
{
	char *msg = NULL;
	enum ibs_err rc = ibs_fabric_load_cache(s->o.src.cache, &s->f, &msg);

	if (rc) {
		log_error("%s", msg);
		free(msg);
		return rc;
	}
	/* ibnetdiscover caches what it walked: NodeInfo, NodeDescription, SwitchInfo, PortInfo. */
	s->run.lacks = IBS_LACK_ALL;
	return refuse_lacking(&s->o, s->run.lacks);
}

/* A capture answers: the engine as recorded, unless the user said otherwise. */
static enum ibs_err open_replay(struct ibs_session *s, struct ibs_engine_opts *eo)
{
	struct ibs_capture_engine ce;
	enum ibs_file_kind k = ibs_file_kind_path(s->o.src.replay);
	char *msg = k == IBS_FK_CAPTURE ? NULL : ibs_file_kind_msg(s->o.src.replay, k, "an ibscan capture");
	enum ibs_err rc;

	/* A saved topology or another tool's output given to --replay: say what it is and what reads it. */
	if (msg) {
		log_error("%s", msg);
		free(msg);
		return IBS_E_INPUT;
	}
	rc = ibs_replay_open(s->o.src.replay, s->o.src.replay_strict, &s->t, &ce);
	if (rc)
		return rc;
	/* Replay as recorded: the same retries and window give the same walk. */
	if (ce.present) {
		if (!s->o.window_set)
			eo->window = ce.window;
		if (!s->o.timeout_set)
			eo->timeout_ms = ce.timeout_ms;
		if (!s->o.retries_set)
			eo->retries = ce.retries;
	}
	if (!ibs_replay_holds(s->t, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO)) {
		log_error("capture '%s' holds no NodeInfo answer: there is no walk to replay", s->o.src.replay);
		return IBS_E_INPUT;
	}
	s->run.lacks = replay_lacks(s->t);
	return refuse_lacking(&s->o, s->run.lacks);
}

/* A device, a capture, and the recorder around either; then the engine. */
static enum ibs_err open_mads(struct ibs_session *s)
{
	struct ibs_engine_opts eo = s->o.engine;
	enum ibs_err rc;

	eo.backoff_us = 0;
	if (s->o.src.replay) {
		rc = open_replay(s, &eo);
	} else {
		struct ibs_umad_opts uo = { s->o.src.ca, s->o.src.port, (int)eo.timeout_ms };
		rc = ibs_umad_open(&uo, &s->t);
		eo.mkey = s->o.src.mkey;
		/* A replay answers at once whatever the timing: back off only on a live fabric. */
		eo.backoff_us = IBS_ENGINE_DEFAULT_BACKOFF_US;
	}
	if (rc)
		return rc;
	if (s->o.src.record) {
		struct ibs_local_port lp;
		struct ibs_capture_engine ce = { true, eo.window, eo.timeout_ms, eo.retries };
		struct ibs_transport *rec;
		ibs_transport_local_port(s->t, &lp);
		rc = ibs_recorder_wrap(s->t, s->o.src.record, s->o.src.record_times, &lp, &ce, &rec);
		if (rc)
			return rc;
		s->t = rec;
	}
	if (s->o.walked) {
		s->f = s->o.walked; /* ours from now on */
		s->o.walked = NULL;
		s->reused = true;
	} else {
		s->f = ibs_fabric_new();
	}
	ibs_transport_local_port(s->t, &s->f->local);
	s->e = ibs_engine_new(s->t, &eo);
	return IBS_OK;
}

enum ibs_err ibs_session_open(const struct ibs_session_opts *o, struct ibs_session **out)
{
	struct ibs_session *s = xcalloc(1, sizeof(*s));
	enum ibs_err rc;

	s->o = *o;
	if (o->walked && (o->src.cache || o->src.replay)) {
		s->o.walked = NULL;
		ibs_fabric_free(o->walked);
		log_error("a fabric walked before can only be read again live");
		ibs_session_close(s);
		*out = NULL;
		return IBS_E_INVAL;
	}
	rc = o->src.cache ? open_cache(s) : open_mads(s);
	if (rc) {
		ibs_session_close(s);
		s = NULL;
	}
	*out = s;
	return rc;
}

/* Keep the first failure: it stops the run. */
static enum ibs_err step(struct ibs_session *s, enum ibs_err rc)
{
	if (rc != IBS_OK && s->rc == IBS_OK)
		s->rc = rc;
	return rc;
}

/* The node-name map's names, once the nodes are known: route and path find nodes by the names shown. */
static void name_nodes(struct ibs_session *s)
{
	if (s->o.names && s->f)
		ibs_namemap_apply(s->o.names, s->f);
	ibs_namemap_free(s->o.names);
	s->o.names = NULL;
}

enum ibs_err ibs_session_walk(struct ibs_session *s, const struct ibs_walk_opts *wo)
{
	enum ibs_err rc = s->rc;

	if (!s->rc && s->e && !s->reused)
		rc = step(s, ibs_walk(s->e, s->f, &s->run, wo));
	name_nodes(s);
	return rc;
}

enum ibs_err ibs_session_read_counters(struct ibs_session *s, const struct ibs_counter_opts *co, double interval_s)
{
	if (s->rc || !s->e || (s->run.lacks & IBS_LACK_PMA))
		return s->rc;
	if (interval_s > 0)
		return step(s, ibs_read_counters_interval(s->e, s->f, &s->run, co, interval_s));
	if (s->reused) {
		/* Read before: its LIDs may lead elsewhere now, and that reading is each port's first. */
		struct ibs_counter_opts again = *co;
		again.again = true;
		return step(s, ibs_read_counters(s->e, s->f, &s->run, &again));
	}
	return step(s, ibs_read_counters(s->e, s->f, &s->run, co));
}

enum ibs_err ibs_session_read_lfts(struct ibs_session *s, struct ibs_lft **out, size_t *n)
{
	if (s->rc || !s->e)
		return s->rc ? s->rc : IBS_E_INVAL;
	return step(s, ibs_read_lfts(s->e, s->f, out, n));
}

/* The SA's SL of each pair of v (n of them), or why not (static text). */
static const char *ask_sls(struct ibs_session *s, struct ibs_path_sl *v, size_t n, enum ibs_err *rc)
{
	size_t answered;

	if (!n)
		return NULL;
	if (!s->f->local.sm_lid)
		return "no subnet administrator to ask (SM LID 0)";
	if (!ibs_replay_holds(s->t, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD))
		return "the capture holds no PathRecord";
	if (n > IBS_RC_MAX_PATHRECORDS)
		return "more pairs cross a cycle than the PathRecords ibscan asks for (20000)";
	*rc = step(s, ibs_query_path_sls(s->e, s->f, v, n, &answered));
	return NULL;
}

enum ibs_err ibs_session_routecheck(struct ibs_session *s, const struct ibs_lft *lfts, size_t n,
				    const struct ibs_rc_opts *base, struct ibs_routecheck *out)
{
	struct ibs_rc_opts o;
	struct ibs_sl2vls t;
	struct ibs_path_sl *sls = NULL;
	size_t n_sls = 0;
	const char *sl_why = NULL;
	enum ibs_err rc = IBS_OK;

	memset(&o, 0, sizeof(o));
	if (base) {
		o.through = base->through;
		o.through_port = base->through_port;
		o.job = base->job;
		o.all_hosts = base->all_hosts;
	}
	ibs_routecheck_opts(s->f, lfts, n, &o, out);
	if (!out->n_cycles) {
		out->vl_why = "no cycle even on one VL, so none on any: SL2VL not needed";
		out->sl_why = "no cycle even on one VL, so none on any SL: PathRecords not needed";
		return IBS_OK;
	}
	if (s->rc || !s->e)
		return s->rc ? s->rc : IBS_OK; /* nothing to ask (a failed walk, or a saved one): "SL2VL not read" */
	ibs_sl2vl_pairs(s->f, lfts, n, ibs_rc_cyclic_out, out, &t);
	ibs_rc_sl_pairs(s->f, lfts, n, out, &sls, &n_sls);
	if (!ibs_replay_holds(s->t, IBS_CLASS_SMI_DR, IBS_ATTR_SL2VL))
		t.not_held = true;
	else
		rc = step(s, ibs_read_sl2vl(s->e, s->f, &t));
	if (!rc && !t.not_held)
		sl_why = ask_sls(s, sls, n_sls, &rc);
	else
		sl_why = t.not_held ? "the capture holds no SL2VL" : "SL2VL not read";
	ibs_routecheck_free(out);
	o.vls = &t;
	if (!sl_why && !rc) {
		o.sls = sls;
		o.n_sls = n_sls;
	}
	ibs_routecheck_opts(s->f, lfts, n, &o, out);
	if (sl_why)
		out->sl_why = sl_why;
	if (!out->sl0_assumed && out->n_cycles) {
		/* Which SLs make each cycle: the same check again, told the cycles. */
		struct ibs_routecheck again;
		o.cycle_sls = out;
		ibs_routecheck_opts(s->f, lfts, n, &o, &again);
		ibs_routecheck_free(&again);
	}
	ibs_sl2vls_free(&t);
	free(sls);
	return rc;
}

enum ibs_err ibs_session_trace_route(struct ibs_session *s, const struct ibs_node *src, uint8_t src_port,
				     uint16_t dlid, struct ibs_route *out)
{
	if (s->rc || !s->e)
		return s->rc ? s->rc : IBS_E_INVAL;
	return step(s, ibs_route_trace(s->e, s->f, src, src_port, dlid, out));
}

enum ibs_err ibs_session_query_path(struct ibs_session *s, uint16_t slid, uint16_t dlid,
				    struct ibs_path_record *out, enum ibs_outcome *outcome, uint16_t *status)
{
	enum ibs_err rc;

	if (s->rc || !s->e)
		return s->rc ? s->rc : IBS_E_INVAL;
	rc = ibs_query_path(s->e, s->f, slid, dlid, out, outcome, status);
	if (rc == IBS_E_DEADLINE || rc == IBS_E_TRANSPORT)
		step(s, rc);
	return rc;
}

enum ibs_err ibs_session_status(const struct ibs_session *s)
{
	return s->rc;
}

struct ibs_fabric *ibs_session_fabric(struct ibs_session *s)
{
	return s->f;
}

enum ibs_err ibs_session_end(struct ibs_session *s)
{
	const struct ibs_engine_stats *st = &s->run.stats;

	if (s->e) {
		if (s->reused)
			s->run.stats = *ibs_engine_stats(s->e); /* no walk took them */
		if (s->rc != IBS_OK && !s->run.aborted) {
			ibs_run_abort(&s->run, s->rc);
			s->f->partial = true;
		}
		log_info("%zu nodes, %llu MADs sent, %llu received, %llu retries (%llu along another path), "
			 "%llu timeouts, %llu bad status in %llu ms",
			 s->f->n_nodes, (unsigned long long)st->sent, (unsigned long long)st->received,
			 (unsigned long long)st->retries, (unsigned long long)st->other_paths,
			 (unsigned long long)st->timeouts, (unsigned long long)st->bad_status,
			 (unsigned long long)ibs_engine_elapsed_ms(s->e));
		ibs_engine_free(s->e);
		s->e = NULL;
		s->run.replay_misses = ibs_replay_misses(s->t);
		s->run.record_failed = ibs_recorder_end(s->t) != IBS_OK;
		ibs_transport_close(s->t);
		s->t = NULL;
	}
	name_nodes(s);
	return s->rc;
}

void ibs_session_take(struct ibs_session *s, struct ibs_fabric **f, struct ibs_run *run)
{
	*f = s->f;
	*run = s->run;
	s->f = NULL;
	memset(&s->run, 0, sizeof(s->run));
}

void ibs_session_close(struct ibs_session *s)
{
	if (!s)
		return;
	ibs_engine_free(s->e);
	if (s->t)
		ibs_transport_close(s->t);
	ibs_fabric_free(s->f);
	ibs_run_free(&s->run);
	ibs_namemap_free(s->o.names);
	ibs_fabric_free(s->o.walked); /* taken over but never reached open_mads */
	free(s);
}
