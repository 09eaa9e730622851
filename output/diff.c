/* `ibscan diff` in text and JSON through the emitter: the changes between two fabrics, unified-diff style in text. */
#include "diff.h"
#include "portref.h"
#include "../fabric/model/names.h"

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
		render_port_ref(e, "node", c->node, c->port, " \"%s\"");
		emit_str(e, "type", NULL, ibs_node_type_str(c->node->ni.node_type));
		emit_uint(e, "port", NULL, c->port);
		emit_text(e, c->was ? " was " : "");
		render_port_ref(e, "was", c->was, c->was_port, "\"%s\"");
		emit_text(e, c->now ? " now " : "");
		render_port_ref(e, "now", c->now, c->now_port, "\"%s\"");
		emit_str(e, "before", c->before ? " %s" : NULL, c->before);
		emit_str(e, "after", c->after ? " -> %s" : NULL, c->after);
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}
