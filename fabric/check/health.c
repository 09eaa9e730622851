/*
 * Health checks over the model (docs/checks.md). Each check adds findings;
 * the verdict is the worst severity found, except that a run which did not
 * finish, or found nothing, is UNKNOWN: an incomplete look cannot say OK.
 */
#include "health.h"
#include "../model/names.h"
#include "../model/rate.h"
#include "diff.h"
#include "../model/hosts.h"
#include "rails.h"
#include "fattree.h"
#include "plan.h"
#include "../../core/base/strbuf.h"
#include "../../core/base/xalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define add ibs_health_add

/* ---- checks ---- */

static const char *nm(const struct ibs_node *n)
{
	return ibs_node_name(n);
}

static void check_links(const struct ibs_fabric *f, struct ibs_findings *fs)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			unsigned p = pt->num;
			const char *why;
			if (!pt->valid)
				continue;
			/* Physically up but not Active: the SM has not finished bringing it up. */
			if (ibs_portinfo_linkup(&pt->pi) && (pt->pi.state == IBS_PORT_INIT || pt->pi.state == IBS_PORT_ARMED))
				add(fs, CK_LINK_DOWN, IBS_SEV_CRITICAL, n, (uint8_t)p,
				    "%s port %u is LinkUp but %s: the subnet manager has not made it Active", nm(n), p,
				    ibs_port_state_str(pt->pi.state));
			/* A cable between two ports of one switch carries nothing anywhere. */
			if (pt->peer == n && pt->peer_port > p)
				add(fs, CK_LINK_SELF_LOOP, IBS_SEV_WARNING, n, (uint8_t)p,
				    "%s port %u is cabled to port %u of the same switch", nm(n), p, pt->peer_port);
			/* Each cable once, from its lower end. */
			if (pt->peer && (pt->peer->index > n->index || (pt->peer == n && pt->peer_port > p)) &&
			    ibs_node_link_degraded(n, (uint8_t)p, pt->peer, pt->peer_port, &why)) {
				struct ibs_link_rate act;
				ibs_port_active_rate(pt, &act);
				add(fs, CK_LINK_DEGRADED, IBS_SEV_WARNING, n, (uint8_t)p,
				    "%s port %u to %s port %u runs %s%s: its %s is below what both ends support and "
				    "enable",
				    nm(n), p, nm(pt->peer), pt->peer_port, ibs_width_str(act.width),
				    ibs_speed_str(act.speed, act.speed_ext), why);
			}
			/*
			 * Each end that holds its link down by what it enables: one finding on
			 * that end (informational, docs/checks.md).
			 */
			if (pt->peer) {
				const struct ibs_port *q = ibs_node_port(pt->peer, pt->peer_port);
				if (q && ibs_link_held_down(pt, q, &why)) {
					struct ibs_link_rate act;
					ibs_port_active_rate(pt, &act);
					add(fs, CK_LINK_HELD_DOWN, IBS_SEV_OK, n, (uint8_t)p,
					    "%s port %u runs %s%s to %s port %u: its enabled %s holds the link below "
					    "what both ends support",
					    nm(n), p, ibs_width_str(act.width), ibs_speed_str(act.speed, act.speed_ext),
					    nm(pt->peer), pt->peer_port, why);
				}
			}
		}
	}
}

/* "; PortRcvErrorDetails: LocalPhysical 700" where d's details were read and name a reason, else "" (in buf). */
static const char *why_counted(const struct ibs_port_counters *c, const struct ibs_counter_def *d, char *buf)
{
	int k = ibs_counter_det(d);
	char s[200];

	buf[0] = 0;
	if (k >= 0 && ibs_port_details_str(c, (unsigned)k, s, sizeof(s)))
		snprintf(buf, 256, "; %s: %s", ibs_det_attr_name((unsigned)k), s);
	return buf;
}

/*
 * counters.congested: the share of the time the port had data to send and
 * sent none, over the two readings of --interval (since < 0) or since the
 * last run (health --state, the exporter's last sweep), where
 * PortSamplesControl gave the tick; and per VL, where both readings have
 * PortVLXmitWaitCounters (the state keeps them). One finding per port,
 * when the port's share or a VL's is above the threshold, naming each VL
 * above it, and each VL whose counter stopped at 65535 (its share
 * unknown); its value is the highest of these shares. True where both
 * readings have the VL counters and one of them is saturated.
 */
static bool check_congested(const struct ibs_node *n, const struct ibs_port *pt, const struct ibs_port_counters *c,
			    double since, const struct ibs_health_opts *o, struct ibs_findings *fs)
{
	double tick_s, share, dt = since < 0 ? ibs_port_counters_elapsed(c) : since, top, vs;
	const struct ibs_counter_def *d = ibs_counter_find("PortXmitWait");
	double thr = (double)o->thresholds->congested;
	const char *when = since < 0 ? "" : " since the last run";
	struct ibs_finding *x;
	struct strbuf vls = STRBUF_INIT, sat = STRBUF_INIT, what = STRBUF_INIT;
	uint64_t w = 0, vw;
	unsigned vl;
	bool port_known, saturated, both = dt > 0 && c->prev_vl_ok && c->det[IBS_DET_VL_WAIT].state == IBS_DET_OK;
	char why[192];

	port_known = ibs_xmit_wait_share(n, pt, c, dt, &tick_s, &share, why, sizeof(why));
	top = port_known ? share : 0;
	for (vl = 0; vl < IBS_N_VL; vl++)
		if (both && ibs_xmit_wait_vl_saturated(c, vl))
			sb_addf(&sat, "%sVL%u", sat.len ? ", " : "", vl);
		else if (ibs_xmit_wait_vl_share(n, pt, c, dt, vl, &vw, &vs) && vs * 100.0 > thr) {
			sb_addf(&vls, "%sVL%u %.1f%%", vls.len ? ", " : "", vl, vs * 100.0);
			if (vs > top)
				top = vs;
		}
	if (top * 100.0 > thr) {
		ibs_port_counter_delta(c, d, &w);
		if (port_known && share * 100.0 > thr)
			sb_addf(&what,
				"waited %.1f%% of the time with data to send (PortXmitWait rose by %" PRIu64
				" ticks of %.3g ns%s in %.0f s%s; threshold %" PRIu64 "%%%s%s",
				share * 100.0, w, tick_s * 1e9,
				ibs_xmit_wait_tick_documented(n, c) ? "" : " (assumed: the IBA's rule)", dt, when,
				o->thresholds->congested, vls.len ? "; by VL above it: " : "", sb_str(&vls));
		else
			sb_addf(&what,
				"waited with data to send on VLs above the threshold of %" PRIu64
				"%% of the time (PortVLXmitWaitCounters in %.0f s%s: %s",
				o->thresholds->congested, dt, when, sb_str(&vls));
		if (sat.len)
			sb_addf(&what, "; %s at 65535 (saturated: share unknown; clear with --reset-counters)",
				sb_str(&sat));
		x = add(fs, CK_CONGESTED, IBS_SEV_WARNING, n, pt->num, "%s port %u: %s)", nm(n), pt->num, sb_str(&what));
		x->counter = d;
		x->value = (uint64_t)(top * 100.0);
		x->threshold = o->thresholds->congested;
	}
	saturated = sat.len > 0;
	sb_free(&vls);
	sb_free(&what);
	sb_free(&sat);
	return saturated;
}

static void check_counters(const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_health_opts *o,
			   struct ibs_findings *fs)
{
	size_t i, k;
	struct ibs_port_counters prev;
	const struct ibs_port_counters *cmp;
	double since = 0;
	char *note = NULL, when[64], sat_at[160];
	unsigned n_sat = 0;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			unsigned p = pt->num;
			note = NULL;
			if (!pt->ctr)
				continue;
			/*
			 * A port no GMP reaches is link.down's (a LinkUp port not Active, or its
			 * peer), one by a shared LID identity.duplicate_lid's: not a PMA's silence.
			 */
			if (!pt->ctr->ok && !run->no_lids && pt->ctr->not_read != IBS_CTR_NOT_ACTIVE &&
			    pt->ctr->not_read != IBS_CTR_PEER_NOT_ACTIVE && pt->ctr->not_read != IBS_CTR_SHARED_LID)
				add(fs, CK_PARTIAL, IBS_SEV_WARNING, n, (uint8_t)p, "%s port %u: %s%s%s", nm(n), p,
				    pt->ctr->not_read ? "counters not read: " : "PMA did not answer PortCounters (",
				    pt->ctr->not_read ? ibs_port_counters_why(n, pt) : ibs_outcome_str(pt->ctr->outcome),
				    pt->ctr->not_read ? "" : ")");
			if (!pt->ctr->ok)
				continue;
			/*
			 * The earlier reading a rise is judged against: the last run's (health
			 * --state, the exporter's last sweep), or this run's first one
			 * (counters --interval); with neither, the totals.
			 */
			cmp = NULL;
			if (o->state) {
				if (ibs_state_compare(o->state, n, pt, o->now, &prev, &since, &note))
					cmp = &prev;
			} else if (o->interval && (since = ibs_port_counters_elapsed(pt->ctr)) > 0) {
				cmp = pt->ctr;
			}
			if (note) {
				fs->notes = xgrow(fs->notes, &fs->notes_cap, fs->n_notes + 1, sizeof(*fs->notes));
				fs->notes[fs->n_notes++] = note;
			}
			/* "since the last run (60 s ago" or "in the 5.0 s between the two readings" */
			if (cmp == &prev)
				snprintf(when, sizeof(when), "since the last run (%.0f s ago", since);
			else if (cmp)
				snprintf(when, sizeof(when), "in the %.3g s between the two readings (", since);
			for (k = 0; k < ibs_n_counter_defs; k++) {
				const struct ibs_counter_def *d = &ibs_counter_defs[k];
				uint64_t v = ibs_counter_get(&pt->ctr->c, d);
				struct ibs_finding *x;
				char det[256];
				if (!d->error)
					continue;
				/*
				 * Judged by the rise since the earlier reading: a port clean since then
				 * is quiet. A counter stopped at its maximum hides its rise: its total.
				 */
				if (cmp && ibs_port_counter_delta(cmp, d, &v)) {
					if (d->offset == offsetof(struct ibs_pma_counters, link_downed) && v) {
						x = add(fs, CK_LINK_FLAPPED, IBS_SEV_WARNING, n, (uint8_t)p,
							"%s port %u went down %" PRIu64 " time%s %s%sLinkDownedCounter %" PRIu64
							" to %" PRIu64 ")",
							nm(n), p, v, v == 1 ? "" : "s", when, cmp == &prev ? "; " : "",
							ibs_counter_get(&cmp->prev, d), ibs_counter_get(&pt->ctr->c, d));
						x->counter = d;
						x->value = v;
						x->threshold = 0;
						continue;
					}
					if (v <= o->thresholds->t[k])
						continue;
					x = add(fs, CK_COUNTERS, IBS_SEV_WARNING, n, (uint8_t)p,
						"%s port %u: %s rose by %" PRIu64 " %s%sthreshold %" PRIu64 "%s)", nm(n), p,
						d->name, v, when, cmp == &prev ? "; " : "", o->thresholds->t[k],
						why_counted(pt->ctr, d, det));
				} else {
					if (v <= o->thresholds->t[k])
						continue;
					x = add(fs, CK_COUNTERS, IBS_SEV_WARNING, n, (uint8_t)p,
						"%s port %u: %s is %" PRIu64 " (threshold %" PRIu64 "%s)", nm(n), p, d->name, v,
						o->thresholds->t[k], why_counted(pt->ctr, d, det));
				}
				x->counter = d;
				x->value = v;
				x->threshold = o->thresholds->t[k];
			}
			if (check_congested(n, pt, cmp ? cmp : pt->ctr, cmp == &prev ? since : -1, o, fs) && !n_sat++)
				snprintf(sat_at, sizeof(sat_at), "%s port %u", nm(n), p);
		}
	}
	/* Said once, not per port: on a busy fabric that has run long, most waiting ports' VLs are at 65535. */
	if (n_sat && o->state) {
		fs->notes = xgrow(fs->notes, &fs->notes_cap, fs->n_notes + 1, sizeof(*fs->notes));
		fs->notes[fs->n_notes++] = xasprintf(
			"PortVLXmitWaitCounters at 65535 (saturated, 16 bits) on %u port%s (%s%s): no share for "
			"those VLs until the counters are cleared (ibscan clears them only with --reset-counters)",
			n_sat, n_sat == 1 ? "" : "s", sat_at, n_sat > 1 ? ", ..." : "");
	}
}

struct pg {
	uint64_t g;
	const struct ibs_node *n;
	uint8_t p;
	size_t pos;
};

/* By GUID, then in the order the ports were found. */
static int pg_cmp(const void *a, const void *b)
{
	const struct pg *x = a, *y = b;

	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void check_identity(const struct ibs_fabric *f, struct ibs_findings *fs)
{
	struct lidref {
		uint16_t lid, span;
		const struct ibs_node *n;
		uint8_t p;
	} *v = NULL;
	size_t nv = 0, cap = 0, i, j;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i], *m;
		const struct ibs_port *pt;
		/* Duplicate node GUIDs: the walker kept them apart; report each extra node. */
		m = ibs_fabric_find_guid(f, n->ni.node_guid);
		if (m != n) {
			char pa[256], pb[256];
			struct ibs_finding *x = add(fs, CK_DUP_GUID, IBS_SEV_CRITICAL, n, 0,
						    "node GUID 0x%016" PRIx64 " is used by two nodes: %s at path %s and %s at path %s",
						    n->ni.node_guid, nm(m), ibs_addr_str(&m->path, pa, sizeof(pa)), nm(n),
						    ibs_addr_str(&n->path, pb, sizeof(pb)));
			x->peer = m;
		}
		for (pt = ibs_node_ports_from(n, ibs_node_first_port(n)); pt < ibs_node_ports_end(n); pt++) {
			unsigned p = pt->num;
			if (!pt->valid)
				continue;
			if (n->ni.node_type == IBS_NODE_SWITCH && p != 0)
				continue;
			if (ibs_portinfo_active(&pt->pi) && pt->pi.lid == 0)
				add(fs, CK_LID_ZERO, IBS_SEV_CRITICAL, n, (uint8_t)p, "%s port %u is Active with LID 0",
				    nm(n), p);
			if (pt->pi.lid) {
				v = xgrow(v, &cap, nv + 1, sizeof(*v));
				v[nv].lid = pt->pi.lid;
				v[nv].span = (uint16_t)(1u << (pt->pi.lmc & 7));
				v[nv].n = n;
				v[nv].p = (uint8_t)p;
				nv++;
			}
		}
	}
	/*
	 * Duplicate LIDs: overlapping LID ranges (LMC included). Each port is
	 * reported once, against the first port before it that holds one of its
	 * LIDs: a table over the 16-bit LID space, not a comparison of every pair
	 * (a capture can claim one LID for every node).
	 */
	{
		uint32_t *holder = xcalloc(65536, sizeof(*holder)); /* index + 1 into v, 0: free */
		for (j = 0; j < nv; j++) {
			uint32_t l, hit = 0;
			for (l = v[j].lid; l < (uint32_t)v[j].lid + v[j].span && l < 65536; l++) {
				uint32_t h = holder[l];
				if (h && !hit && !(v[h - 1].n == v[j].n && v[j].n->ni.node_type == IBS_NODE_SWITCH))
					hit = h;
				if (!h)
					holder[l] = (uint32_t)j + 1;
			}
			if (hit) {
				const struct lidref *o = &v[hit - 1];
				struct ibs_finding *x = add(fs, CK_DUP_LID, IBS_SEV_CRITICAL, v[j].n, v[j].p,
							    "LID %u of %s port %u is also LID of %s port %u", v[j].lid,
							    nm(v[j].n), v[j].p, nm(o->n), o->p);
				x->peer = o->n;
				x->peer_port = o->p;
				x->lid = v[j].lid;
			}
		}
		free(holder);
	}
	free(v);
	/*
	 * Duplicate port GUIDs across nodes (CA and router ports; switch ports
	 * share port 0's). Sorted by GUID, each port is reported once, against
	 * the first port before it on a node of another NodeGUID.
	 */
	{
		struct pg *g = NULL;
		size_t ng = 0, gc = 0, k;
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			const struct ibs_port *pt;
			for (pt = ibs_node_ports_from(n, ibs_node_first_port(n)); pt < ibs_node_ports_end(n); pt++) {
				if (!pt->guid || (n->ni.node_type == IBS_NODE_SWITCH && pt->num))
					continue;
				g = xgrow(g, &gc, ng + 1, sizeof(*g));
				g[ng].g = pt->guid;
				g[ng].n = n;
				g[ng].p = pt->num;
				g[ng].pos = ng;
				ng++;
			}
		}
		if (ng)
			qsort(g, ng, sizeof(*g), pg_cmp);
		for (i = 0; i < ng; i = k) {
			/* One GUID: the first port, and the first whose node has another NodeGUID. */
			const struct pg *first = &g[i], *other = NULL;
			for (k = i; k < ng && g[k].g == g[i].g; k++) {
				const struct pg *o = g[k].n->ni.node_guid != first->n->ni.node_guid ? first : other;
				if (o && o != &g[k]) {
					struct ibs_finding *x = add(fs, CK_DUP_PORT_GUID, IBS_SEV_CRITICAL, g[k].n, g[k].p,
								    "port GUID 0x%016" PRIx64 " of %s port %u is also on %s port %u",
								    g[k].g, nm(g[k].n), g[k].p, nm(o->n), o->p);
					x->guid = g[k].g;
					x->peer = o->n;
					x->peer_port = o->p;
				}
				if (!other && g[k].n->ni.node_guid != first->n->ni.node_guid)
					other = &g[k];
			}
		}
		free(g);
	}
}

/*
 * CAs whose description names no host (a factory or distribution default,
 * fabric/model/hosts.c) and that no node-name-map entry names: Slurm, MPI and the
 * drawing cannot tell which server they are in.
 */
static void check_default_desc(const struct ibs_fabric *f, struct ibs_findings *fs)
{
	struct ibs_hosts hs;
	size_t i;

	ibs_fabric_hosts(f, &hs);
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_host *h = ibs_host_of(&hs, n);
		if (!h || ibs_ca_names_host(n))
			continue;
		add(fs, CK_DEFAULT_DESC, IBS_SEV_WARNING, n, 0,
		    "CA 0x%016" PRIx64 " \"%s\" names no host (%s): Slurm and MPI jobs cannot place it; listed as "
		    "%s; run rdma-ndd on its host or give it a --node-name-map entry",
		    n->ni.node_guid, n->desc ? n->desc : "", ibs_desc_default(n->desc), h->name);
	}
	ibs_hosts_free(&hs);
}

static void check_sm(const struct ibs_fabric *f, struct ibs_findings *fs)
{
	size_t i, masters = 0;
	const struct ibs_sm *master_by_lid = NULL;

	for (i = 0; i < f->n_sms; i++) {
		const struct ibs_sm *s = &f->sms[i];
		if (s->lid == f->local.sm_lid)
			master_by_lid = s;
		if (s->ok && ibs_sminfo_master(&s->info))
			masters++;
	}
	if (!f->local.sm_lid) {
		add(fs, CK_SM_NONE, IBS_SEV_CRITICAL, NULL, 0,
		    "no subnet manager: the local port has SM LID 0 (no SM has swept the subnet)");
	} else if (!master_by_lid) {
		struct ibs_finding *x = add(fs, CK_SM_UNREACHABLE, IBS_SEV_CRITICAL, NULL, 0,
					    "the master SM (LID %u, as the local port knows it) is not in the fabric",
					    f->local.sm_lid);
		x->lid = f->local.sm_lid;
	} else if (!master_by_lid->ok) {
		struct ibs_finding *x = add(fs, CK_SM_UNREACHABLE, IBS_SEV_CRITICAL, master_by_lid->node,
					    master_by_lid->port, "the master SM at LID %u (%s) does not answer SMInfo (%s)",
					    f->local.sm_lid, nm(master_by_lid->node), ibs_outcome_str(master_by_lid->outcome));
		x->lid = f->local.sm_lid;
	} else if (masters == 0) {
		add(fs, CK_SM_NONE, IBS_SEV_CRITICAL, master_by_lid->node, master_by_lid->port,
		    "no SM is in MASTER state (the SM at LID %u says %s)", f->local.sm_lid,
		    ibs_sm_state_str(master_by_lid->info.state));
	}
	if (masters > 1) {
		for (i = 0; i < f->n_sms; i++) {
			const struct ibs_sm *s = &f->sms[i];
			if (s->ok && ibs_sminfo_master(&s->info) && s != master_by_lid) {
				struct ibs_finding *x = add(fs, CK_SM_MULTI, IBS_SEV_CRITICAL, s->node, s->port,
							    "%s port %u (LID %u) is a second master SM", nm(s->node),
							    s->port, s->lid);
				x->guid = s->port_guid;
			}
		}
	}
}

static void check_drift(const struct ibs_fabric *f, const struct ibs_fabric *base, struct ibs_findings *fs)
{
	struct ibs_diff d;
	size_t i;

	ibs_diff_fabrics(base, f, &d);
	for (i = 0; i < d.n; i++) {
		const struct ibs_change *c = &d.v[i];
		struct ibs_finding *x;
		switch (c->kind) {
		case IBS_CHG_NODE_REMOVED:
			/* The node is the baseline's: it is not in the fabric any more. */
			x = add(fs, CK_DRIFT_MISSING, IBS_SEV_CRITICAL, c->node, 0, "%s %s (0x%016" PRIx64 ") is missing",
				ibs_node_type_str(c->node->ni.node_type), nm(c->node), c->node->ni.node_guid);
			x->lid = 0;
			break;
		case IBS_CHG_NODE_ADDED:
			add(fs, CK_DRIFT_NEW, IBS_SEV_WARNING, c->node, 0, "%s %s (0x%016" PRIx64 ") is new",
			    ibs_node_type_str(c->node->ni.node_type), nm(c->node), c->node->ni.node_guid);
			break;
		case IBS_CHG_LINK_REMOVED: {
			/* The baseline says linked; now it is not: down (or its node is gone). */
			const struct ibs_node *now = ibs_fabric_find_guid(f, c->node->ni.node_guid);
			const struct ibs_port *pt = now ? ibs_node_port(now, c->port) : NULL;
			x = add(fs, CK_LINK_DOWN, IBS_SEV_CRITICAL, now ? now : c->node, c->port,
				"%s port %u was linked to %s port %u and is now %s", nm(c->node), c->port, nm(c->was),
				c->was_port,
				pt && pt->valid ? ibs_phys_state_str(pt->pi.phys_state) : "unreachable");
			x->guid = c->node->ni.node_guid;
			x->peer = c->was;
			x->peer_port = c->was_port;
			break;
		}
		case IBS_CHG_LINK_ADDED:
			break; /* a new cable is not a problem */
		case IBS_CHG_LINK_MOVED:
			x = add(fs, CK_DRIFT_MOVED, IBS_SEV_WARNING, c->node, c->port,
				"%s port %u moved from %s port %u to %s port %u", nm(c->node), c->port, nm(c->was),
				c->was_port, nm(c->now), c->now_port);
			break;
		case IBS_CHG_STATE:
			break; /* a port not Active is link.down already */
		case IBS_CHG_WIDTH:
		case IBS_CHG_SPEED:
			add(fs, CK_DRIFT_RATE, IBS_SEV_WARNING, c->node, c->port, "%s port %u %s changed from %s to %s",
			    nm(c->node), c->port, c->kind == IBS_CHG_WIDTH ? "width" : "speed", c->before, c->after);
			break;
		}
	}
	ibs_diff_free(&d);
}

static void check_partial(const struct ibs_fabric *f, struct ibs_findings *fs)
{
	size_t i;

	for (i = 0; i < f->n_errors; i++) {
		const struct ibs_walk_error *e = &f->errors[i];
		char path[256];
		if (e->attr_id == IBS_ATTR_SM_INFO)
			continue; /* the sm checks say it */
		if (e->unreachable && e->node)
			add(fs, CK_PARTIAL, IBS_SEV_WARNING, e->node, e->port,
			    "nothing answers behind %s port %u (path %s): %s", nm(e->node), e->port,
			    ibs_addr_str(&e->path, path, sizeof(path)), ibs_outcome_str(e->outcome));
		else if (e->node)
			add(fs, CK_PARTIAL, IBS_SEV_WARNING, e->node, e->port, "%s: %s %s", nm(e->node),
			    ibs_attr_name(e->mgmt_class, e->attr_id), ibs_outcome_str(e->outcome));
	}
}

static int finding_cmp(const void *a, const void *b)
{
	const struct ibs_finding *x = a, *y = b;

	if (x->severity != y->severity)
		return x->severity > y->severity ? -1 : 1;
	if (x->check != y->check)
		return x->check < y->check ? -1 : 1;
	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return strcmp(x->message, y->message);
}

void ibs_health_check(const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_health_opts *o,
		      struct ibs_findings *fs)
{
	size_t i;

	bool sm = !(run->lacks & IBS_LACK_SMINFO), counters = o->counters && !(run->lacks & IBS_LACK_PMA);

	memset(fs, 0, sizeof(*fs));
	fs->state_used = o->state != NULL;
	if (o->state && !o->state->present && counters) {
		fs->notes = xgrow(fs->notes, &fs->notes_cap, 1, sizeof(*fs->notes));
		fs->notes[fs->n_notes++] = xstrdup("no earlier readings (the first run): counters judged on their totals");
	}
	check_links(f, fs);
	if (counters)
		check_counters(f, run, o, fs);
	check_identity(f, fs);
	check_default_desc(f, fs);
	if (sm)
		check_sm(f, fs);
	if (o->baseline)
		check_drift(f, o->baseline, fs);
	check_partial(f, fs);
	if (o->rails) {
		struct ibs_hosts hosts;
		ibs_fabric_hosts(f, &hosts);
		ibs_check_rails(f, &hosts, o->rails, fs);
		ibs_hosts_free(&hosts);
	}
	if (o->fat_tree)
		ibs_check_fat_tree(f, fs);
	if (o->plan)
		ibs_check_plan(f, o->plan, fs);
	if (o->routes)
		ibs_health_routes(o->routes, o->thresholds, fs);
	if (fs->n)
		qsort(fs->v, fs->n, sizeof(*fs->v), finding_cmp);
	fs->verdict = IBS_SEV_OK;
	for (i = 0; i < fs->n; i++)
		if (fs->v[i].severity > fs->verdict)
			fs->verdict = fs->v[i].severity;
	if (run->aborted) {
		fs->verdict = IBS_SEV_UNKNOWN;
		fs->verdict_reason = xasprintf("the walk stopped early: %s", run->abort_reason);
	} else if (!f->n_nodes) {
		fs->verdict = IBS_SEV_UNKNOWN;
		fs->verdict_reason = xstrdup("nothing was found");
	} else if (o->counters && run->no_lids && fs->verdict < IBS_SEV_CRITICAL) {
		fs->verdict = IBS_SEV_UNKNOWN;
		fs->verdict_reason = xstrdup("error counters could not be read: no port has a LID (is a subnet manager running?)");
	} else if (o->routes && fs->routing_unread && fs->verdict < IBS_SEV_CRITICAL) {
		fs->verdict = IBS_SEV_UNKNOWN;
		fs->verdict_reason = xasprintf("routing checks incomplete: %zu forwarding tables missing or incomplete",
					       fs->routing_unread);
	} else if ((!sm || counters != o->counters) && fs->verdict < IBS_SEV_CRITICAL) {
		/* A check that could not run cannot say OK: the source holds nothing for it. */
		fs->verdict = IBS_SEV_UNKNOWN;
		fs->verdict_reason = xstrdup(sm ? "error-counter checks not run: the source holds no PortCounters"
					     : counters == o->counters
						     ? "SM checks not run: the source holds no SMInfo"
						     : "SM and error-counter checks not run: the source holds no SMInfo or PortCounters");
	}
}
