/* The fabric as a cabling plan (CSV: start device, start port, end device, end port, rate). */
#include "plan.h"
#include "../fabric/model/names.h"
#include "../fabric/model/rate.h"

#include <stdlib.h>
#include <string.h>

/* A CSV field: quoted when it holds a comma, a quote or leading/trailing blanks. */
static void field(FILE *out, const char *s)
{
	size_t n = strlen(s);

	if (!strpbrk(s, ",\"#") && (!n || (s[0] != ' ' && s[n - 1] != ' '))) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

int render_plan(FILE *out, const struct ibs_fabric *f)
{
	struct ibs_link *l = NULL;
	size_t n = ibs_fabric_links(f, &l), i;

	fputs("StartDevice,StartPort,EndDevice,EndPort,LinkSpeed\n", out);
	for (i = 0; i < n; i++) {
		const struct ibs_port *p = ibs_node_port(l[i].a, l[i].pa);
		struct ibs_link_rate r = { 0 };
		if (p && p->valid)
			ibs_port_active_rate(p, &r);
		field(out, ibs_node_name(l[i].a));
		fprintf(out, ",%u,", l[i].pa);
		field(out, ibs_node_name(l[i].b));
		fprintf(out, ",%u,", l[i].pb);
		if (r.width)
			fprintf(out, "%s%s", ibs_width_str(r.width), ibs_speed_str(r.speed, r.speed_ext));
		fputc('\n', out);
	}
	free(l);
	return ferror(out) ? -1 : 0;
}

void render_plan_diff(struct emit *e, const char *plan_name, const char *src_name, const struct ibs_findings *fs)
{
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_PLAN_DIFF_SCHEMA);
	emit_str(e, "plan", "--- %s (plan)\n", plan_name);
	emit_str(e, "source", "+++ %s\n", src_name);
	emit_bool(e, "equal", fs->n ? NULL : "cabled as planned\n", fs->n == 0);
	emit_arr_open(e, "findings");
	for (size_t i = 0; i < fs->n; i++) {
		emit_obj_open(e, NULL);
		emit_str(e, "check", "%-15s", fs->v[i].check->id);
		emit_str(e, "message", " %s\n", fs->v[i].message);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}
