/*
 * Health, counters and diff views. Text and JSON through the emitter; the
 * Prometheus exposition format (for node_exporter's textfile collector) is
 * written directly, every metric with HELP and TYPE.
 */
#include "health.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/counters.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static size_t link_count(const struct ibs_fabric *f)
{
	struct ibs_link *v;
	size_t n = ibs_fabric_links(f, &v);

	free(v);
	return n;
}

char *health_status_line(const struct ibs_fabric *f, const struct ibs_findings *fs)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	bool any = false;

	sb_addf(&sb, "IBSCAN %s - ", ibs_severity_str(fs->verdict));
	if (fs->verdict_reason) {
		sb_adds(&sb, fs->verdict_reason);
		any = true;
	}
	for (i = 0; i < ibs_n_checks; i++) {
		if (!fs->count[i])
			continue;
		sb_addf(&sb, "%s%zu %s", any ? ", " : "", fs->count[i],
			fs->count[i] == 1 ? ibs_checks[i].unit : ibs_checks[i].units);
		any = true;
	}
	if (!any)
		sb_addf(&sb, "%zu nodes, %zu links, no findings", f ? f->n_nodes : 0, f ? link_count(f) : 0);
	sb_adds(&sb, " |");
	for (i = 0; i < ibs_n_checks; i++)
		sb_addf(&sb, " %s=%zu", ibs_checks[i].perf, fs->count[i]);
	sb_addf(&sb, " nodes=%zu links=%zu", f ? f->n_nodes : 0, f ? link_count(f) : 0);
	return sb_detach(&sb);
}

static void ref(struct emit *e, const char *key, const struct ibs_node *n, unsigned port, const char *text)
{
	if (!n) {
		emit_null(e, key, NULL);
		return;
	}
	emit_obj_open(e, key);
	emit_str(e, "name", text, ibs_node_name(n));
	emit_guid(e, "guid", " %s", n->ni.node_guid);
	emit_uint(e, "port", port ? "[%" PRIu64 "]" : NULL, port);
	emit_obj_close(e);
}

void render_health(struct emit *e, const struct ibs_fabric *f, const struct ibs_findings *fs)
{
	char *line = health_status_line(f, fs);
	size_t i;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_HEALTH_SCHEMA);
	emit_str(e, "status", NULL, ibs_severity_str(fs->verdict));
	emit_uint(e, "exit_code", NULL, fs->verdict);
	emit_str(e, "summary", "%s\n", line);
	emit_str(e, "reason", NULL, fs->verdict_reason);
	emit_obj_open(e, "counts");
	for (i = 0; i < ibs_n_checks; i++)
		emit_uint(e, ibs_checks[i].id, NULL, fs->count[i]);
	emit_obj_close(e);
	emit_uint(e, "nodes", NULL, f ? f->n_nodes : 0);
	emit_uint(e, "links", NULL, f ? link_count(f) : 0);
	emit_bool(e, "partial", NULL, f ? f->partial : true);
	emit_arr_open(e, "findings");
	for (i = 0; i < fs->n; i++) {
		const struct ibs_finding *x = &fs->v[i];
		emit_obj_open(e, NULL);
		emit_str(e, "severity", "%-8s", ibs_severity_str(x->severity));
		emit_str(e, "check", " %s:", x->check->id);
		emit_str(e, "message", " %s", x->message);
		emit_text(e, "\n        ");
		ref(e, "node", x->node, x->port, "node \"%s\"");
		if (!x->node)
			emit_text(e, "fabric");
		emit_guid(e, "guid", x->node || !x->guid ? NULL : " %s", x->guid);
		emit_uint(e, "lid", x->lid ? " LID %" PRIu64 : NULL, x->lid);
		emit_uint(e, "port", NULL, x->port);
		emit_text(e, x->peer ? ", peer " : "");
		ref(e, "peer", x->peer, x->peer_port, "\"%s\"");
		if (x->counter) {
			emit_str(e, "counter", NULL, x->counter->name);
			emit_uint(e, "value", NULL, x->value);
			emit_uint(e, "threshold", NULL, x->threshold);
		} else {
			emit_null(e, "counter", NULL);
			emit_null(e, "value", NULL);
			emit_null(e, "threshold", NULL);
		}
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
	free(line);
}

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

static void port_labels(struct strbuf *sb, const struct ibs_node *n, unsigned p)
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
	sb_addc(sb, '}');
}

static void metric_head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	sb_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Per-port counter metrics: error counters, XmitWait, data in bytes, packets. */
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
				if (!c || !c->ok)
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
				if (k >= 2 && pt->pi.phys_state != 5)
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

int render_health_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_findings *fs)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	metric_head(&sb, "ibscan_up", "gauge", "Whether ibscan could look at the fabric (1) or not (0).");
	sb_addf(&sb, "ibscan_up %d\n", f && !run->aborted ? 1 : 0);
	metric_head(&sb, "ibscan_health_status", "gauge", "Verdict: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.");
	sb_addf(&sb, "ibscan_health_status %d\n", fs ? (int)fs->verdict : 3);
	if (fs) {
		metric_head(&sb, "ibscan_findings", "gauge", "Findings per check (docs/checks.md).");
		for (i = 0; i < ibs_n_checks; i++)
			sb_addf(&sb, "ibscan_findings{check=\"%s\"} %zu\n", ibs_checks[i].id, fs->count[i]);
	}
	if (f) {
		metric_head(&sb, "ibscan_nodes", "gauge", "Nodes found.");
		sb_addf(&sb, "ibscan_nodes %zu\n", f->n_nodes);
		metric_head(&sb, "ibscan_links", "gauge", "Links found.");
		sb_addf(&sb, "ibscan_links %zu\n", link_count(f));
		metric_head(&sb, "ibscan_partial", "gauge", "Whether part of the fabric could not be read (1).");
		sb_addf(&sb, "ibscan_partial %d\n", f->partial ? 1 : 0);
		prom_ports(&sb, f);
		if (run->counters_read)
			prom_counters(&sb, f);
	}
	return flush(out, &sb);
}

int render_counters_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run)
{
	struct strbuf sb = STRBUF_INIT;

	metric_head(&sb, "ibscan_up", "gauge", "Whether ibscan could look at the fabric (1) or not (0).");
	sb_addf(&sb, "ibscan_up %d\n", f && !run->aborted ? 1 : 0);
	if (f)
		prom_counters(&sb, f);
	return flush(out, &sb);
}

void render_counters(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run)
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
	emit_text(e, "%s\n", run->no_lids ? " (no port has a LID: is a subnet manager running?)" : "");
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
				if (run->no_lids || !ibs_port_pma_lid(n, pt))
					emit_str(e, "error", " not read: %s\n", "the port has no LID");
				else
					emit_str(e, "error", " no answer: %s\n", ibs_outcome_str(c->outcome));
				emit_null(e, "extended", NULL);
				emit_null(e, "counters", NULL);
				emit_null(e, "deltas", NULL);
				emit_obj_close(e);
				continue;
			}
			emit_null(e, "error", NULL);
			emit_bool(e, "extended", NULL, c->extended);
			emit_uint(e, "xmit_bytes", " xmit %" PRIu64 " B", c->c.xmit_data * 4);
			emit_uint(e, "rcv_bytes", " rcv %" PRIu64 " B", c->c.rcv_data * 4);
			emit_uint(e, "xmit_packets", NULL, c->c.xmit_pkts);
			emit_uint(e, "rcv_packets", NULL, c->c.rcv_pkts);
			emit_obj_open(e, "counters");
			for (k = 0; k < ibs_n_counter_defs; k++) {
				uint64_t v = ibs_counter_get(&c->c, &ibs_counter_defs[k]);
				emit_uint(e, ibs_counter_defs[k].name, NULL, v);
				if (v)
					emit_text(e, " %s=%" PRIu64, ibs_counter_defs[k].name, v);
			}
			emit_obj_close(e);
			/* Over the time between this port's two answers, not the nominal interval. */
			dt = ibs_port_counters_elapsed(c);
			if (dt > 0) {
				/* Deltas of 32-bit counters may wrap; report what the subtraction gives. */
				uint64_t dx = (c->c.xmit_data - c->prev.xmit_data) * 4, dr = (c->c.rcv_data - c->prev.rcv_data) * 4;
				emit_obj_open(e, "deltas");
				emit_double(e, "seconds", NULL, dt);
				emit_uint(e, "xmit_bytes", NULL, dx);
				emit_uint(e, "rcv_bytes", NULL, dr);
				emit_double(e, "xmit_bytes_per_s", " | %.0f B/s out", (double)dx / dt);
				emit_double(e, "rcv_bytes_per_s", ", %.0f B/s in", (double)dr / dt);
				emit_text(e, " over %.3f s", dt);
				for (k = 0; k < ibs_n_counter_defs; k++) {
					uint64_t d = ibs_counter_get(&c->c, &ibs_counter_defs[k]) -
						     ibs_counter_get(&c->prev, &ibs_counter_defs[k]);
					emit_uint(e, ibs_counter_defs[k].name, d ? ", +%" PRIu64 : NULL, d);
					if (d)
						emit_text(e, " %s", ibs_counter_defs[k].name);
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
	emit_obj_close(e);
}

void render_diff(struct emit *e, const char *a_name, const char *b_name, const struct ibs_diff *d)
{
	size_t i;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_DIFF_SCHEMA);
	emit_str(e, "a", "--- %s\n", a_name);
	emit_str(e, "b", "+++ %s\n", b_name);
	emit_bool(e, "equal", d->n ? NULL : "no differences\n", d->n == 0);
	emit_arr_open(e, "changes");
	for (i = 0; i < d->n; i++) {
		const struct ibs_change *c = &d->v[i];
		emit_obj_open(e, NULL);
		emit_str(e, "kind", "%-14s", ibs_change_kind_str(c->kind));
		ref(e, "node", c->node, c->port, " \"%s\"");
		emit_str(e, "type", NULL, ibs_node_type_str(c->node->ni.node_type));
		emit_uint(e, "port", NULL, c->port);
		emit_text(e, c->was ? " was " : "");
		ref(e, "was", c->was, c->was_port, "\"%s\"");
		emit_text(e, c->now ? " now " : "");
		ref(e, "now", c->now, c->now_port, "\"%s\"");
		emit_str(e, "before", c->before ? " %s" : NULL, c->before);
		emit_str(e, "after", c->after ? " -> %s" : NULL, c->after);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}
