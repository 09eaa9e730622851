/* `ibscan fleet` as a monitoring-plugin verdict: the status line, each property's majority and the hosts that differ, then every host. */
#include "fleet.h"
#include "../core/base/strbuf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

char *render_fleet_status_line(const struct ibs_fleet *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t k;
	bool any = false;

	sb_addf(&sb, "IBSCAN FLEET %s - ", ibs_hc_sev_str(f->verdict));
	if (f->n_unreadable) {
		sb_addf(&sb, "%zu of %zu host files unreadable", f->n_unreadable, f->n_hosts);
		any = true;
	}
	if (f->n_differ) {
		sb_addf(&sb, "%s%zu of %zu hosts differ from the majority (", any ? ", " : "", f->n_differ, f->n_hosts);
		for (k = 0, any = false; k < FP_N; k++)
			if (f->props[k].n_odd) {
				sb_addf(&sb, "%s%s", any ? ", " : "", f->props[k].name);
				any = true;
			}
		sb_adds(&sb, ")");
	}
	if (f->counts[IBS_HC_CRITICAL] || f->counts[IBS_HC_WARNING]) {
		sb_addf(&sb, "%s%zu CRITICAL and %zu WARNING by their own check", any ? ", " : "",
			f->counts[IBS_HC_CRITICAL], f->counts[IBS_HC_WARNING]);
		any = true;
	}
	if (!any)
		sb_addf(&sb, f->n_hosts == 1 ? "%zu host" : "%zu hosts agree", f->n_hosts);
	sb_addf(&sb, " | hosts=%zu differ=%zu unreadable=%zu critical=%zu warning=%zu", f->n_hosts, f->n_differ,
		f->n_unreadable, f->counts[IBS_HC_CRITICAL], f->counts[IBS_HC_WARNING]);
	return sb_detach(&sb);
}

static void render_prop(struct emit *e, const struct ibs_fleet *f, size_t k)
{
	const struct ibs_fleet_prop *p = &f->props[k];
	size_t i;

	emit_obj_open(e, p->name);
	emit_text(e, "%-10s ", p->name);
	emit_str(e, "majority", "%s", p->majority);
	emit_uint(e, "hosts", " (%" PRIu64 " hosts)", p->n_majority);
	emit_str(e, "severity", NULL, ibs_hc_sev_str(p->n_odd ? p->sev : IBS_HC_OK));
	emit_text(e, "\n");
	emit_arr_open(e, "differ");
	for (i = 0; i < f->n_hosts; i++) {
		const struct ibs_fleet_host *x = &f->hosts[i];
		if (!x->h || !strcmp(x->value[k], p->majority))
			continue;
		emit_obj_open(e, NULL);
		emit_text(e, "  %-8s ", ibs_hc_sev_str(p->sev));
		emit_str(e, "host", "%s", x->name);
		emit_str(e, "value", ": %s\n", x->value[k]);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

static void render_host(struct emit *e, const struct ibs_fleet_host *x)
{
	size_t k, i;
	const char *worst = NULL;

	emit_obj_open(e, NULL);
	emit_str(e, "host", "  %-16s", x->name);
	emit_str(e, "status", " %-8s", x->hc ? ibs_hc_sev_str(x->hc->verdict) : "UNKNOWN");
	emit_bool(e, "differs", NULL, x->differs);
	emit_str(e, "error", x->error ? " %s" : NULL, x->error);
	if (x->hc) {
		emit_uint(e, "rails", " %" PRIu64 " rails", x->hc->n_rails);
		emit_uint(e, "rails_active", ", %" PRIu64 " Active", x->hc->n_active);
		/* The first of the worst findings, as the host's own status line says it. */
		for (i = 0, k = 0; i < x->hc->n_findings; i++)
			if (!worst || x->hc->findings[i].sev > x->hc->findings[k].sev) {
				worst = x->hc->findings[i].msg;
				k = i;
			}
		emit_str(e, "worst_finding", worst ? "; %s" : NULL, worst);
		emit_obj_open(e, "values");
		for (k = 0; k < FP_N; k++) {
			static const char *const keys[FP_N] = { "devices", "rails", "link_layer", "gid_index", "rates",
								 "firmware" };
			emit_str(e, keys[k], NULL, x->value[k]);
		}
		emit_obj_close(e);
	} else {
		emit_null(e, "rails", NULL);
		emit_null(e, "rails_active", NULL);
		emit_null(e, "worst_finding", NULL);
		emit_null(e, "values", NULL);
	}
	emit_text(e, "\n");
	emit_obj_close(e);
}

void render_fleet(struct emit *e, const struct ibs_fleet *f)
{
	char *line = render_fleet_status_line(f);
	size_t i, k;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_FLEET_SCHEMA);
	emit_str(e, "status", NULL, ibs_hc_sev_str(f->verdict));
	emit_uint(e, "exit_code", NULL, f->verdict);
	emit_str(e, "summary", "%s\n", line);
	emit_uint(e, "n_hosts", NULL, f->n_hosts);
	emit_uint(e, "n_differ", NULL, f->n_differ);
	emit_uint(e, "n_unreadable", NULL, f->n_unreadable);
	emit_obj_open(e, "properties");
	for (k = 0; k < FP_N && f->n_hosts > f->n_unreadable; k++)
		render_prop(e, f, k);
	emit_obj_close(e);
	emit_text(e, "hosts:\n");
	emit_arr_open(e, "hosts");
	for (i = 0; i < f->n_hosts; i++)
		render_host(e, &f->hosts[i]);
	emit_arr_close(e);
	emit_obj_close(e);
	free(line);
}
