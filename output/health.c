/* `ibscan health` in text and JSON through the emitter: the monitoring-plugin status line, then the findings. */
#include "health.h"
#include "portref.h"
#include "../core/base/strbuf.h"

#include <inttypes.h>
#include <stdlib.h>

char *render_health_status_line(const struct ibs_fabric *f, const struct ibs_findings *fs)
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
		sb_addf(&sb, "%zu nodes, %zu links, no findings", f ? f->n_nodes : 0, f ? ibs_fabric_n_links(f) : 0);
	sb_adds(&sb, " |");
	for (i = 0; i < ibs_n_checks; i++)
		if (!ibs_checks[i].routing || fs->routing)
			sb_addf(&sb, " %s=%zu", ibs_checks[i].perf, fs->count[i]);
	sb_addf(&sb, " nodes=%zu links=%zu", f ? f->n_nodes : 0, f ? ibs_fabric_n_links(f) : 0);
	return sb_detach(&sb);
}

void render_findings(struct emit *e, const struct ibs_findings *fs, bool counters_only)
{
	size_t i;

	emit_arr_open(e, "findings");
	for (i = 0; i < fs->n; i++) {
		const struct ibs_finding *x = &fs->v[i];
		if (counters_only && !ibs_check_of_counters(x->check))
			continue;
		emit_obj_open(e, NULL);
		emit_str(e, "severity", "%-8s", ibs_severity_str(x->severity));
		emit_str(e, "check", " %s:", x->check->id);
		emit_str(e, "message", " %s", x->message);
		emit_text(e, "\n        ");
		render_port_ref(e, "node", x->node, x->port, "node \"%s\"");
		if (!x->node)
			emit_text(e, "fabric");
		emit_guid(e, "guid", x->node || !x->guid ? NULL : " %s", x->guid);
		emit_uint(e, "lid", x->lid ? " LID %" PRIu64 : NULL, x->lid);
		emit_uint(e, "port", NULL, x->port);
		emit_text(e, x->peer ? ", peer " : "");
		render_port_ref(e, "peer", x->peer, x->peer_port, "\"%s\"");
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
}

void render_health(struct emit *e, const struct ibs_fabric *f, const struct ibs_findings *fs)
{
	char *line = render_health_status_line(f, fs);
	size_t i;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_HEALTH_SCHEMA);
	emit_str(e, "status", NULL, ibs_severity_str(fs->verdict));
	emit_uint(e, "exit_code", NULL, fs->verdict);
	emit_str(e, "summary", "%s\n", line);
	emit_str(e, "reason", NULL, fs->verdict_reason);
	emit_obj_open(e, "counts");
	for (i = 0; i < ibs_n_checks; i++)
		if (!ibs_checks[i].routing || fs->routing)
			emit_uint(e, ibs_checks[i].id, NULL, fs->count[i]);
	emit_obj_close(e);
	emit_uint(e, "nodes", NULL, f ? f->n_nodes : 0);
	emit_uint(e, "links", NULL, f ? ibs_fabric_n_links(f) : 0);
	emit_bool(e, "partial", NULL, f ? f->partial : true);
	render_findings(e, fs, false);
	/* health --state only: what could not be compared with the last run (also said on stderr). */
	if (fs->state_used) {
		emit_obj_open(e, "state");
		emit_arr_open(e, "notes");
		for (i = 0; i < fs->n_notes; i++)
			emit_str(e, NULL, NULL, fs->notes[i]);
		emit_arr_close(e);
		emit_obj_close(e);
	}
	emit_obj_close(e);
	free(line);
}
