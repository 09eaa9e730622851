/*
 * Graphviz DOT: switches as boxes, CAs as ellipses, routers as diamonds;
 * edges labelled with port numbers and width/speed; links that are not Active
 * drawn red and dashed, degraded ones orange and bold. Works with `dot` on
 * small fabrics and `sfdp` on large ones (no rank constraints).
 */
#include "render.h"
#include "../fabric/names.h"
#include "../fabric/rate.h"

#include <inttypes.h>
#include <stdlib.h>

/* Inside a DOT string: escape quotes and backslashes; drop control characters. */
static void dot_esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fputc('\\', out);
		if (c >= 0x20)
			fputc(c, out);
	}
}

static void dot_str(FILE *out, const char *s)
{
	fputc('"', out);
	dot_esc(out, s);
	fputc('"', out);
}

int render_dot(FILE *out, const struct ibs_fabric *f)
{
	struct ibs_link *v;
	size_t n, i;

	fprintf(out, "graph ibscan {\n");
	fprintf(out, "\tgraph [overlap=false, splines=true, outputorder=edgesfirst];\n");
	fprintf(out, "\tnode [fontname=\"Helvetica\", fontsize=10];\n");
	fprintf(out, "\tedge [fontname=\"Helvetica\", fontsize=8];\n");
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *nd = f->nodes[i];
		uint16_t lid = ibs_node_lid(nd);
		const char *shape = "ellipse", *fill = "#e2f0d9";

		if (nd->ni.node_type == IBS_NODE_SWITCH) {
			shape = "box";
			fill = "#cfe2f3";
		} else if (nd->ni.node_type == IBS_NODE_ROUTER) {
			shape = "diamond";
			fill = "#fff2cc";
		}
		fprintf(out, "\tn%zu [shape=%s, style=filled, fillcolor=\"%s\", label=\"", nd->index, shape, fill);
		dot_esc(out, ibs_node_name(nd));
		fprintf(out, "\\n0x%016" PRIx64, nd->ni.node_guid);
		if (lid)
			fprintf(out, "\\nLID %u", lid);
		fputc('"', out);
		if (nd->error)
			fprintf(out, ", color=red");
		fprintf(out, "];\n");
	}
	n = ibs_fabric_links(f, &v);
	for (i = 0; i < n; i++) {
		/* A link's two ends are port records. */
		const struct ibs_port *pa = ibs_node_port(v[i].a, v[i].pa), *pb = ibs_node_port(v[i].b, v[i].pb);
		const struct ibs_port *src = pa->valid ? pa : pb;
		char label[64];
		const char *style = "";

		if (src->valid)
			snprintf(label, sizeof(label), "%u:%u %s%s", v[i].pa, v[i].pb, ibs_width_str(src->pi.width_active),
				 ibs_speed_str(src->pi.speed_active, src->pi.speed_ext_active));
		else
			snprintf(label, sizeof(label), "%u:%u", v[i].pa, v[i].pb);
		if (!src->valid || src->pi.state != 4 || (pa->valid && pb->valid && pb->pi.state != 4))
			style = ", color=red, style=dashed, penwidth=2";
		else if (ibs_node_link_degraded(v[i].a, v[i].pa, v[i].b, v[i].pb, NULL))
			style = ", color=orange, style=bold, penwidth=2";
		fprintf(out, "\tn%zu -- n%zu [label=", v[i].a->index, v[i].b->index);
		dot_str(out, label);
		fprintf(out, "%s];\n", style);
	}
	free(v);
	fprintf(out, "}\n");
	return ferror(out) ? -1 : 0;
}
