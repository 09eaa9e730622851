/* `ibscan counters` in text and JSON through the emitter: each port's PMA counters, or why they could not be read. */
#include "counters.h"
#include "health.h"
#include "../fabric/walk/counters.h"

#include <inttypes.h>

/* A data delta of `words` 4-octet words, or null where it cannot be known (ibs_port_data_delta). */
static void bytes_or_null(struct emit *e, const char *key, bool known, uint64_t words)
{
	if (known)
		emit_uint(e, key, NULL, words * 4);
	else
		emit_null(e, key, NULL);
}

/* Its rate over dt seconds, likewise (text: fmt, or null_fmt where unknown). */
static void rate_or_null(struct emit *e, const char *key, const char *fmt, const char *null_fmt, bool known,
			 uint64_t words, double dt)
{
	if (known)
		emit_double(e, key, fmt, (double)words * 4 / dt);
	else
		emit_null(e, key, null_fmt);
}

/* In text, after PortRcvErrors or PortXmitDiscards: why it counted, where that was asked. */
static void details_text(struct emit *e, const struct ibs_port_counters *c, const struct ibs_counter_def *d)
{
	int k = ibs_counter_det(d);
	char buf[256];
	const char *why;

	if (k < 0)
		return;
	if (ibs_port_details_str(c, (unsigned)k, buf, sizeof(buf)))
		emit_text(e, " (%s)", buf);
	else if ((why = ibs_port_details_why(c, (unsigned)k, buf, sizeof(buf))))
		emit_text(e, " (%s)", why);
}

/*
 * In JSON, each port's "rcv_error_details" and "xmit_discard_details": null
 * where not asked (the summary counter did not move), else an object with
 * "error" (null, or why the attribute is unknown) and each member by its IBA
 * name (null where unknown).
 */
static void details_json(struct emit *e, const struct ibs_port_counters *c, unsigned k)
{
	size_t i;
	char buf[256];
	const char *why;

	if (c->det[k].state == IBS_DET_NOT_ASKED) {
		emit_null(e, ibs_det_key(k), NULL);
		return;
	}
	emit_obj_open(e, ibs_det_key(k));
	why = ibs_port_details_why(c, k, buf, sizeof(buf));
	if (why)
		emit_str(e, "error", NULL, why);
	else
		emit_null(e, "error", NULL);
	for (i = 0; i < ibs_n_detail_defs; i++) {
		if (ibs_detail_defs[i].det != k)
			continue;
		if (c->det[k].state == IBS_DET_OK)
			emit_uint(e, ibs_detail_defs[i].name, NULL, ibs_detail_get(&c->d, &ibs_detail_defs[i]));
		else
			emit_null(e, ibs_detail_defs[i].name, NULL);
	}
	emit_obj_close(e);
}

/*
 * In the deltas, "vl_xmit_wait_share": null unless both readings hold the
 * port's PortVLXmitWaitCounters (--interval reads them twice where the PMA
 * counts PortXmitWait), else each VL's share of dt (0 where it did not
 * rise, null where unknown) and "saturated", the VLs whose 16-bit counter
 * stopped at 65535 in either reading: their share stays unknown until the
 * counters are cleared. Text: the VLs that waited, and the saturated ones.
 */
static void vl_shares(struct emit *e, const struct ibs_node *n, const struct ibs_port *pt,
		      const struct ibs_port_counters *c, double dt)
{
	unsigned vl, nsat = 0;
	uint64_t ticks;
	double share;
	char key[24], fmt[48];
	bool any = false;

	if (!c->prev_vl_ok || c->det[IBS_DET_VL_WAIT].state != IBS_DET_OK) {
		emit_null(e, "vl_xmit_wait_share", NULL);
		return;
	}
	emit_obj_open(e, "vl_xmit_wait_share");
	for (vl = 0; vl < IBS_N_VL; vl++) {
		snprintf(key, sizeof(key), "PortVLXmitWait%u", vl);
		if (!ibs_xmit_wait_vl_share(n, pt, c, dt, vl, &ticks, &share)) {
			emit_null(e, key, NULL);
			continue;
		}
		snprintf(fmt, sizeof(fmt), "%sVL%u %%.3g", any ? ", " : ", by VL: ", vl);
		emit_double(e, key, share > 0 ? fmt : NULL, share);
		any |= share > 0;
	}
	emit_arr_open(e, "saturated");
	for (vl = 0; vl < IBS_N_VL; vl++)
		if (ibs_xmit_wait_vl_saturated(c, vl))
			emit_uint(e, NULL, nsat++ ? ", VL%" PRIu64 : ", VL%" PRIu64, vl);
	emit_arr_close(e);
	if (nsat)
		emit_text(e, " %s at 65535 (saturated: share unknown; clear with --reset-counters)",
			  nsat > 1 ? "are" : "is");
	emit_obj_close(e);
}

/* Whether fs has a finding the counters view lists. */
static bool text_findings(const struct ibs_findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (ibs_check_of_counters(fs->v[i].check))
			return true;
	return false;
}

void render_counters(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run,
		     const struct ibs_findings *fs)
{
	size_t i, k;
	const struct ibs_port *pt;
	unsigned nports = 0, nok = 0;

	for (i = 0; i < f->n_nodes; i++)
		for (pt = ibs_node_ports_from(f->nodes[i], 1); pt < ibs_node_ports_end(f->nodes[i]); pt++)
			if (pt->ctr) {
				nports++;
				nok += pt->ctr->ok;
			}
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_COUNTERS_SCHEMA);
	emit_uint(e, "ports", "counters: %" PRIu64 " ports", nports);
	emit_uint(e, "answered", ", %" PRIu64 " answered", nok);
	emit_double(e, "interval_s", run->interval_s > 0 ? ", read again %.3g s after the first reading" : NULL,
		    run->interval_s);
	emit_bool(e, "partial", NULL, f->partial);
	emit_text(e, "%s\n", run->local_state  ? " (the local port is not Active: no GMP leaves it)"
			      : run->no_lids ? " (no port has a LID: is a subnet manager running?)"
					     : "");
	emit_arr_open(e, "ports_counters");
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			const struct ibs_port_counters *c = pt->ctr;
			unsigned p = pt->num;
			double dt;
			if (!c)
				continue;
			emit_obj_open(e, NULL);
			emit_guid(e, "guid", "%s", n->ni.node_guid);
			emit_uint(e, "port", "[%2" PRIu64 "]", p);
			emit_str(e, "name", " %-24s", ibs_node_name(n));
			if (!c->ok) {
				const char *why = ibs_port_counters_why(n, pt);
				if (why)
					emit_str(e, "error", " not read: %s\n", why);
				else if (run->no_lids)
					emit_str(e, "error", " not read: %s\n", "the port has no LID");
				else
					emit_str(e, "error", " no answer: %s\n", ibs_outcome_str(c->outcome));
				emit_null(e, "extended", NULL);
				emit_null(e, "extended_errors", NULL);
				emit_null(e, "counters", NULL);
				for (k = 0; k < IBS_N_DET; k++)
					emit_null(e, ibs_det_key((unsigned)k), NULL);
				emit_null(e, "deltas", NULL);
				emit_obj_close(e);
				continue;
			}
			emit_null(e, "error", NULL);
			emit_bool(e, "extended", NULL, c->extended);
			emit_bool(e, "extended_errors", NULL, c->ext_errors);
			emit_uint(e, "xmit_bytes", " xmit %" PRIu64 " B", c->c.xmit_data * 4);
			emit_uint(e, "rcv_bytes", " rcv %" PRIu64 " B", c->c.rcv_data * 4);
			emit_uint(e, "xmit_packets", NULL, c->c.xmit_pkts);
			emit_uint(e, "rcv_packets", NULL, c->c.rcv_pkts);
			emit_obj_open(e, "counters");
			for (k = 0; k < ibs_n_counter_defs; k++) {
				uint64_t v = ibs_counter_get(&c->c, &ibs_counter_defs[k]);
				if (!ibs_counter_known(c, &ibs_counter_defs[k])) {
					emit_null(e, ibs_counter_defs[k].name, NULL);
					continue;
				}
				emit_uint(e, ibs_counter_defs[k].name, NULL, v);
				/* With --interval the VLs are read where PortXmitWait is 0 too: said only where it counted. */
				if (v) {
					emit_text(e, " %s=%" PRIu64, ibs_counter_defs[k].name, v);
					details_text(e, c, &ibs_counter_defs[k]);
				}
			}
			emit_obj_close(e);
			for (k = 0; k < IBS_N_DET; k++)
				details_json(e, c, (unsigned)k);
			/* Over the time between this port's two answers, not the nominal interval. */
			dt = ibs_port_counters_elapsed(c);
			if (dt > 0) {
				/* Unknown (null) where a counter saturated, was cleared, or changed width. */
				uint64_t dx, dr, d;
				bool kx = ibs_port_data_delta(c, true, &dx), kr = ibs_port_data_delta(c, false, &dr);
				emit_obj_open(e, "deltas");
				emit_double(e, "seconds", NULL, dt);
				bytes_or_null(e, "xmit_bytes", kx, dx);
				bytes_or_null(e, "rcv_bytes", kr, dr);
				rate_or_null(e, "xmit_bytes_per_s", " | %.0f B/s out", " | %s B/s out", kx, dx, dt);
				rate_or_null(e, "rcv_bytes_per_s", ", %.0f B/s in", ", %s B/s in", kr, dr, dt);
				emit_text(e, " over %.3f s", dt);
				/*
				 * Congestion as the share of the time the port waited, where
				 * PortSamplesControl gave the tick; else only as a rate of
				 * ticks, and why there is no share (no tick is assumed).
				 */
				{
					double tps, tick_s, share;
					char why[192];
					bool rate = ibs_port_xmit_wait_rate(c, &tps);
					bool known = ibs_port_xmit_wait_share(n, pt, &tick_s, &share, why, sizeof(why));
					if (rate)
						emit_double(e, "xmit_wait_ticks_per_s", tps > 0 ? ", PortXmitWait %.0f ticks/s" : NULL,
							    tps);
					else
						emit_null(e, "xmit_wait_ticks_per_s", NULL);
					if (tick_s > 0) {
						bool doc = ibs_xmit_wait_tick_documented(n, c);
						emit_double(e, "xmit_wait_tick_s", " (tick %.3g s", tick_s);
						emit_bool(e, "xmit_wait_tick_assumed", doc ? ")" : ", assumed: the IBA's rule)", !doc);
					} else {
						emit_null(e, "xmit_wait_tick_s", NULL);
						emit_null(e, "xmit_wait_tick_assumed", NULL);
					}
					if (known)
						emit_double(e, "xmit_wait_share", share > 0 ? ", waiting %.3g of the time" : NULL,
							    share);
					else
						emit_null(e, "xmit_wait_share", NULL);
					if (rate && tps > 0 && !known)
						emit_text(e, " (no share: %s)", why);
				}
				vl_shares(e, n, pt, c, dt);
				for (k = 0; k < ibs_n_counter_defs; k++) {
					if (!ibs_counter_known(c, &ibs_counter_defs[k])) {
						emit_null(e, ibs_counter_defs[k].name, NULL);
					} else if (!ibs_port_counter_delta(c, &ibs_counter_defs[k], &d)) {
						emit_null(e, ibs_counter_defs[k].name, NULL);
						emit_text(e, ", +? %s", ibs_counter_defs[k].name);
					} else {
						emit_uint(e, ibs_counter_defs[k].name, d ? ", +%" PRIu64 : NULL, d);
						if (d)
							emit_text(e, " %s", ibs_counter_defs[k].name);
					}
				}
				emit_obj_close(e);
			} else {
				emit_null(e, "deltas", NULL);
			}
			emit_text(e, "\n");
			emit_obj_close(e);
		}
	}
	emit_arr_close(e);
	/* What the readings say, judged as health judges them (fabric/check/health.c). */
	if (fs && text_findings(fs))
		emit_text(e, "findings:\n");
	if (fs)
		render_findings(e, fs, true);
	else
		emit_null(e, "findings", NULL);
	emit_obj_close(e);
}
