/*
 * The Prometheus text exposition format (for node_exporter's textfile
 * collector) of `ibscan health` and `ibscan counters`, written directly,
 * every metric with HELP and TYPE.
 */
#include "prom.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/walk/counters.h"
#include "../fabric/model/rate.h"

#include <inttypes.h>
#include <stdlib.h>

/* Prometheus label values: escape backslash, double quote and newline. */
static void label(struct strbuf *sb, const char *k, const char *v, bool comma)
{
	sb_addf(sb, "%s%s=\"", comma ? "," : "", k);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			sb_addc(sb, '\\');
		if (*v == '\n')
			sb_adds(sb, "\\n");
		else
			sb_addc(sb, *v);
	}
	sb_addc(sb, '"');
}

/* A port's labels, and one more (key=val) where key is not NULL. */
static void port_labels_with(struct strbuf *sb, const struct ibs_node *n, unsigned p, const char *key, const char *val)
{
	const struct ibs_port *pt = ibs_node_port(n, p);
	char g[24], pn[8];

	snprintf(g, sizeof(g), "0x%016" PRIx64, n->ni.node_guid);
	snprintf(pn, sizeof(pn), "%u", p);
	sb_addc(sb, '{');
	label(sb, "guid", g, false);
	label(sb, "port", pn, true);
	label(sb, "name", ibs_node_name(n), true);
	if (pt && pt->peer) {
		char *peer = xasprintf("%s[%u]", ibs_node_name(pt->peer), pt->peer_port);
		label(sb, "peer", peer, true);
		free(peer);
	} else {
		label(sb, "peer", "", true);
	}
	if (key)
		label(sb, key, val, true);
	sb_addc(sb, '}');
}

static void port_labels(struct strbuf *sb, const struct ibs_node *n, unsigned p)
{
	port_labels_with(sb, n, p, NULL, NULL);
}

static void metric_head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	sb_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Per-port counter metrics: error counters, XmitWait, data in bytes, packets. */
/*
 * counters --interval (or the exporter's last two sweeps): PortXmitWait
 * ticks per second between each port's two readings, and (share) the share of that time the port waited, where
 * PortSamplesControl gave the tick (docs/checks.md): gauges, each only
 * where some port has it.
 */
static void prom_xmit_wait(struct strbuf *sb, const struct ibs_fabric *f, bool share)
{
	const char *name = share ? "ibscan_port_xmit_wait_share" : "ibscan_port_xmit_wait_ticks_per_second";
	const struct ibs_port *pt;
	bool head = false;
	size_t i;
	double v, tick_s;
	char why[192];
	static const char share_help[] =
		"Share of the time between the two readings (counters --interval; the exporter: its last two sweeps) "
		"that the port had data to send and sent none (PortXmitWait x PortSamplesControl's tick / seconds, 0 to 1; "
		"the tick and whether its rule is assumed: ibscan_port_xmit_wait_tick_seconds).";
	static const char rate_help[] = "PortXmitWait ticks per second between the two readings (counters --interval; "
					"the exporter: its last two sweeps).";

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			if (!pt->ctr || !(share ? ibs_port_xmit_wait_share(n, pt, &tick_s, &v, why, sizeof(why))
						: ibs_port_xmit_wait_rate(pt->ctr, &v)))
				continue;
			if (!head)
				metric_head(sb, name, "gauge", share ? share_help : rate_help);
			head = true;
			sb_adds(sb, name);
			port_labels(sb, n, pt->num);
			sb_addf(sb, " %.6g\n", v);
		}
	}
}

/*
 * The basis of the shares above and below: each port's PortXmitWait tick
 * in seconds, where PortSamplesControl was read (ports whose PortXmitWait
 * rose), with rule "documented" (NVIDIA's switch rules) or "assumed" (the
 * IBA's rule read as it is): as JSON's xmit_wait_tick_s and
 * xmit_wait_tick_assumed. An info-style gauge, so that the share's own
 * series stay one per port (docs/checks.md).
 */
static void prom_xmit_wait_tick(struct strbuf *sb, const struct ibs_fabric *f)
{
	static const char name[] = "ibscan_port_xmit_wait_tick_seconds";
	const struct ibs_port *pt;
	bool head = false;
	size_t i;
	double tick_s;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			if (!ibs_port_xmit_wait_tick(n, pt, pt->ctr, &tick_s))
				continue;
			if (!head)
				metric_head(sb, name, "gauge",
					    "One PortXmitWait tick of the port (PortSamplesControl's Tick and the link speed), "
					    "the basis of its xmit_wait shares; rule: documented (the vendor's published rule) "
					    "or assumed (the IBA's rule, no vendor document).");
			head = true;
			sb_adds(sb, name);
			port_labels_with(sb, n, pt->num, "rule",
					 ibs_xmit_wait_tick_documented(n, pt->ctr) ? "documented" : "assumed");
			sb_addf(sb, " %.6g\n", tick_s);
		}
	}
}

/*
 * The share of the time between the two readings each VL had data to send
 * and sent none (ibs_xmit_wait_vl_share: both readings hold the port's
 * PortVLXmitWaitCounters, as the exporter's last two sweeps and health
 * --state's can): a gauge with a vl label, only where some VL has it.
 */
static void prom_vl_xmit_wait_share(struct strbuf *sb, const struct ibs_fabric *f)
{
	static const char name[] = "ibscan_port_vl_xmit_wait_share";
	const struct ibs_port *pt;
	bool head = false;
	unsigned vl;
	size_t i;
	uint64_t ticks;
	double v;
	char vls[4];

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
			for (vl = 0; pt->ctr && vl < IBS_N_VL; vl++) {
				if (!ibs_xmit_wait_vl_share(n, pt, pt->ctr, ibs_port_counters_elapsed(pt->ctr), vl, &ticks, &v))
					continue;
				if (!head)
					metric_head(sb, name, "gauge",
						    "Share of the time between the two readings (the exporter: its last two sweeps) "
						    "that the VL had data to send and sent none (PortVLXmitWaitCounters x "
						    "PortSamplesControl's tick / seconds, 0 to 1; the tick: "
						    "ibscan_port_xmit_wait_tick_seconds).");
				head = true;
				snprintf(vls, sizeof(vls), "%u", vl);
				sb_adds(sb, name);
				port_labels_with(sb, n, pt->num, "vl", vls);
				sb_addf(sb, " %.6g\n", v);
			}
	}
}

/*
 * The VLs whose PortVLXmitWaitCounters stopped at 65535 (16 bits) in
 * either reading: their rise, so their share, stays unknown until the
 * counters are cleared (ibscan does only with --reset-counters). A gauge
 * at 1 per such VL, where some port has one.
 */
static void prom_vl_saturated(struct strbuf *sb, const struct ibs_fabric *f)
{
	static const char name[] = "ibscan_port_vl_xmit_wait_saturated";
	const struct ibs_port *pt;
	bool head = false;
	unsigned vl;
	size_t i;
	char vls[4];

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++)
			for (vl = 0; vl < IBS_N_VL; vl++) {
				if (!ibs_xmit_wait_vl_saturated(pt->ctr, vl))
					continue;
				if (!head)
					metric_head(
						sb, name, "gauge",
						"1: the VL's PortVLXmitWaitCounters is at 65535 (16 bits, saturated): its "
						"share is unknown until the counters are cleared (--reset-counters).");
				head = true;
				snprintf(vls, sizeof(vls), "%u", vl);
				sb_adds(sb, name);
				port_labels_with(sb, n, pt->num, "vl", vls);
				sb_adds(sb, " 1\n");
			}
	}
}

/*
 * PortRcvErrorDetails and PortXmitDiscardDetails, one series per reason,
 * and PortVLXmitWaitCounters, one per VL, for the ports whose details were
 * read (PortRcvErrors, PortXmitDiscards or PortXmitWait moved): each family
 * only where some port has it, so that a clean fabric's exposition does not
 * change.
 */
static void prom_details(struct strbuf *sb, const struct ibs_fabric *f)
{
	unsigned k;
	size_t i, r;
	const struct ibs_port *pt;
	char name[64], help[160];

	for (k = 0; k < IBS_N_DET; k++) {
		bool head = false;
		snprintf(name, sizeof(name), "ibscan_port_%s_total", ibs_det_key(k));
		snprintf(help, sizeof(help), "PMA %s of the port, by %s (read only where %s moved).",
			 ibs_det_attr_name(k), k == IBS_DET_VL_WAIT ? "VL, in ticks" : "reason", ibs_det_summary(k)->name);
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
				if (!pt->ctr || !pt->ctr->ok || pt->ctr->det[k].state != IBS_DET_OK)
					continue;
				if (!head)
					metric_head(sb, name, "counter", help);
				head = true;
				for (r = 0; r < ibs_n_detail_defs; r++) {
					if (ibs_detail_defs[r].det != k)
						continue;
					sb_adds(sb, name);
					port_labels_with(sb, n, pt->num, ibs_det_label(k), ibs_detail_defs[r].key);
					sb_addf(sb, " %" PRIu64 "\n", ibs_detail_get(&pt->ctr->d, &ibs_detail_defs[r]));
				}
			}
		}
	}
}

static void prom_counters(struct strbuf *sb, const struct ibs_fabric *f)
{
	static const struct {
		const char *suffix, *help;
		size_t off;
		unsigned mult;
	} data[] = {
		{ "xmit_bytes_total", "Bytes sent (PortXmitData x 4).", offsetof(struct ibs_pma_counters, xmit_data), 4 },
		{ "rcv_bytes_total", "Bytes received (PortRcvData x 4).", offsetof(struct ibs_pma_counters, rcv_data), 4 },
		{ "xmit_packets_total", "Packets sent.", offsetof(struct ibs_pma_counters, xmit_pkts), 1 },
		{ "rcv_packets_total", "Packets received.", offsetof(struct ibs_pma_counters, rcv_pkts), 1 },
	};
	size_t k, i;
	const struct ibs_port *pt;

	for (k = 0; k < ibs_n_counter_defs + 4; k++) {
		char name[96], help[160];
		if (k < ibs_n_counter_defs) {
			snprintf(name, sizeof(name), "ibscan_port_%s_total", ibs_counter_defs[k].key);
			snprintf(help, sizeof(help), "PMA %s of the port (%s).", ibs_counter_defs[k].name,
				 ibs_counter_defs[k].error ? "an error counter" : "congestion, not an error");
		} else {
			snprintf(name, sizeof(name), "ibscan_port_%s", data[k - ibs_n_counter_defs].suffix);
			snprintf(help, sizeof(help), "%s", data[k - ibs_n_counter_defs].help);
		}
		metric_head(sb, name, "counter", help);
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
				const struct ibs_port_counters *c = pt->ctr;
				uint64_t v;
				if (!c || !c->ok || (k < ibs_n_counter_defs && !ibs_counter_known(c, &ibs_counter_defs[k])))
					continue;
				if (k < ibs_n_counter_defs)
					v = ibs_counter_get(&c->c, &ibs_counter_defs[k]);
				else
					v = *(const uint64_t *)((const char *)&c->c + data[k - ibs_n_counter_defs].off) *
					    data[k - ibs_n_counter_defs].mult;
				sb_adds(sb, name);
				port_labels(sb, n, pt->num);
				sb_addf(sb, " %" PRIu64 "\n", v);
			}
		}
	}
	prom_xmit_wait(sb, f, false);
	prom_xmit_wait(sb, f, true);
	prom_vl_xmit_wait_share(sb, f);
	prom_xmit_wait_tick(sb, f);
	prom_vl_saturated(sb, f);
	prom_details(sb, f);
	metric_head(sb, "ibscan_port_counters_ok", "gauge", "Whether the port's PMA answered PortCounters (1) or not (0).");
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			if (!pt->ctr)
				continue;
			sb_adds(sb, "ibscan_port_counters_ok");
			port_labels(sb, n, pt->num);
			sb_addf(sb, " %d\n", pt->ctr->ok ? 1 : 0);
		}
	}
}

static void prom_ports(struct strbuf *sb, const struct ibs_fabric *f)
{
	size_t i;
	const struct ibs_port *pt;
	int k;

	for (k = 0; k < 4; k++) {
		static const char *const names[] = { "ibscan_port_state", "ibscan_port_phys_state",
						     "ibscan_port_width_lanes", "ibscan_port_lane_speed_mbps" };
		static const char *const helps[] = {
			"Port state (1 Down, 2 Init, 3 Armed, 4 Active).",
			"Physical port state (2 Polling, 3 Disabled, 5 LinkUp, ...).",
			"Active link width in lanes.",
			"Active lane speed in Mb/s (SDR 2500 ... NDR 106250).",
		};
		metric_head(sb, names[k], "gauge", helps[k]);
		for (i = 0; i < f->n_nodes; i++) {
			const struct ibs_node *n = f->nodes[i];
			for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
				uint64_t v;
				if (!pt->valid)
					continue;
				if (k >= 2 && !ibs_portinfo_linkup(&pt->pi))
					continue;
				v = k == 0 ? pt->pi.state
				    : k == 1 ? pt->pi.phys_state
				    : k == 2 ? ibs_width_lanes(pt->pi.width_active)
					     : ibs_speed_mbps(pt->pi.speed_active, pt->pi.speed_ext_active);
				sb_adds(sb, names[k]);
				port_labels(sb, n, pt->num);
				sb_addf(sb, " %" PRIu64 "\n", v);
			}
		}
	}
}

static int flush(FILE *out, struct strbuf *sb)
{
	int rc = sb->len && fwrite(sb->buf, 1, sb->len, out) != sb->len ? -1 : 0;

	sb_free(sb);
	return rc || ferror(out) ? -1 : 0;
}

/* ibscan_findings per check; counters_only: the checks judged from counter readings (`counters`). */
static void prom_findings(struct strbuf *sb, const struct ibs_findings *fs, bool counters_only)
{
	size_t i;

	metric_head(sb, "ibscan_findings", "gauge", "Findings per check (docs/checks.md).");
	for (i = 0; i < ibs_n_checks; i++)
		if ((!ibs_checks[i].routing || fs->routing) && (!counters_only || ibs_check_of_counters(&ibs_checks[i])))
			sb_addf(sb, "ibscan_findings{check=\"%s\"} %zu\n", ibs_checks[i].id, fs->count[i]);
}

int render_health_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_findings *fs)
{
	struct strbuf sb = STRBUF_INIT;

	metric_head(&sb, "ibscan_up", "gauge", "Whether ibscan could look at the fabric (1) or not (0).");
	sb_addf(&sb, "ibscan_up %d\n", f && !run->aborted ? 1 : 0);
	metric_head(&sb, "ibscan_health_status", "gauge", "Verdict: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.");
	sb_addf(&sb, "ibscan_health_status %d\n", fs ? (int)fs->verdict : 3);
	if (fs)
		prom_findings(&sb, fs, false);
	if (f) {
		metric_head(&sb, "ibscan_nodes", "gauge", "Nodes found.");
		sb_addf(&sb, "ibscan_nodes %zu\n", f->n_nodes);
		metric_head(&sb, "ibscan_links", "gauge", "Links found.");
		sb_addf(&sb, "ibscan_links %zu\n", ibs_fabric_n_links(f));
		metric_head(&sb, "ibscan_partial", "gauge", "Whether part of the fabric could not be read (1).");
		sb_addf(&sb, "ibscan_partial %d\n", f->partial ? 1 : 0);
		prom_ports(&sb, f);
		if (run->counters_read)
			prom_counters(&sb, f);
	}
	return flush(out, &sb);
}

int render_counters_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run,
			 const struct ibs_findings *fs)
{
	struct strbuf sb = STRBUF_INIT;

	metric_head(&sb, "ibscan_up", "gauge", "Whether ibscan could look at the fabric (1) or not (0).");
	sb_addf(&sb, "ibscan_up %d\n", f && !run->aborted ? 1 : 0);
	if (fs)
		prom_findings(&sb, fs, true);
	if (f)
		prom_counters(&sb, f);
	return flush(out, &sb);
}

char *render_exporter_status(const struct prom_sweep_status *st, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	metric_head(&sb, "ibscan_last_sweep_success", "gauge",
		    "Whether the latest sweep completed (1); 0: the metrics below are the older sweep's.");
	sb_addf(&sb, "ibscan_last_sweep_success %d\n", st->last_ok ? 1 : 0);
	metric_head(&sb, "ibscan_exporter_sweeps_total", "counter", "Sweeps started since the exporter started.");
	sb_addf(&sb, "ibscan_exporter_sweeps_total %llu\n", st->sweeps);
	metric_head(&sb, "ibscan_exporter_sweep_failures_total", "counter", "Sweeps that did not complete.");
	sb_addf(&sb, "ibscan_exporter_sweep_failures_total %llu\n", st->failures);
	metric_head(&sb, "ibscan_last_sweep_duration_seconds", "gauge", "How long the latest sweep took, served or not.");
	sb_addf(&sb, "ibscan_last_sweep_duration_seconds %.6f\n", st->last_duration_s);
	if (!st->have_data) {
		metric_head(&sb, "ibscan_up", "gauge", "Whether ibscan could look at the fabric (1) or not (0).");
		sb_adds(&sb, "ibscan_up 0\n");
	} else {
		metric_head(&sb, "ibscan_sweep_duration_seconds", "gauge", "How long the sweep served took.");
		sb_addf(&sb, "ibscan_sweep_duration_seconds %.6f\n", st->duration_s);
		metric_head(&sb, "ibscan_sweep_timestamp_seconds", "gauge", "When the sweep served ended (Unix time).");
		sb_addf(&sb, "ibscan_sweep_timestamp_seconds %.3f\n", st->timestamp_s);
		metric_head(&sb, "ibscan_sweep_age_seconds", "gauge", "Seconds since the sweep served ended.");
		sb_addf(&sb, "ibscan_sweep_age_seconds %.3f\n", st->age_s);
		metric_head(&sb, "ibscan_sweep_full_walk", "gauge",
			    "Whether the sweep served walked the fabric (1) or read the counters only (0).");
		sb_addf(&sb, "ibscan_sweep_full_walk %d\n", st->full_walk ? 1 : 0);
	}
	*len = sb.len;
	s = sb_detach(&sb);
	return s ? s : xstrdup("");
}
