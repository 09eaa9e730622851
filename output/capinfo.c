/* `ibscan capture info`: what a capture holds, as text or JSON. */
#include "capinfo.h"
#include "../core/capture/stats.h"

#include <inttypes.h>

void render_capture_info(struct emit *e, const char *path, const struct ibs_capture *c)
{
	struct ibs_capture_stats st;
	size_t i;

	ibs_capture_stats(c, &st);
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_CAPINFO_SCHEMA);
	emit_str(e, "file", "capture %s", path);
	emit_str(e, "tool", " (%s)\n", c->tool ? c->tool : NULL);
	emit_obj_open(e, "local");
	emit_str(e, "ca", "local port: %s", c->local.ca);
	emit_uint(e, "port", " port %" PRIu64, (uint64_t)c->local.port);
	emit_guid(e, "node_guid", ", node %s", c->local.node_guid);
	emit_guid(e, "port_guid", ", port GUID %s", c->local.port_guid);
	emit_uint(e, "lid", ", LID %" PRIu64, c->local.lid);
	emit_uint(e, "sm_lid", ", SM LID %" PRIu64 "\n", c->local.sm_lid);
	emit_obj_close(e);
	emit_uint(e, "format", "format %" PRIu64, (uint64_t)c->version);
	if (c->version < 2)
		emit_null(e, "complete", ": whole or cut short, it cannot tell (format 1 has no end record)\n");
	else if (c->ended)
		emit_bool(e, "complete", ": complete (the recording ended with its end record)\n", true);
	else
		emit_bool(e, "complete", ": cut short (no end record: stopped by a signal, a crash or a full disk before "
			  "the recording ended; what it holds is whole)\n", false);
	emit_obj_open(e, "totals");
	emit_uint(e, "exchanges", "%" PRIu64 " exchanges:", st.exchanges);
	emit_uint(e, "responses", " %" PRIu64 " answered", st.resp);
	emit_uint(e, "bad_status", ", %" PRIu64 " bad status", st.bad_status);
	emit_uint(e, "errors", ", %" PRIu64 " undeliverable", st.error);
	emit_uint(e, "no_answer", ", %" PRIu64 " no answer", st.none);
	emit_uint(e, "targets", "; %" PRIu64 " distinct addresses", st.targets);
	emit_uint(e, "nodes", ", %" PRIu64 " nodes touched\n", st.n_node_guids);
	emit_obj_close(e);
	emit_text(e, "\n%-7s %-22s %-8s %7s %7s %6s %6s %6s\n", "class", "attribute", "method", "count", "ok",
		  "status", "undel", "none");
	emit_arr_open(e, "by_kind");
	for (i = 0; i < st.n_kinds; i++) {
		const struct ibs_capture_kind *k = &st.kinds[i];
		emit_obj_open(e, NULL);
		emit_str(e, "class", "%-7s", ibs_class_name(k->mgmt_class));
		emit_str(e, "attribute", " %-22s", ibs_attr_name(k->mgmt_class, k->attr_id));
		emit_uint(e, "attribute_id", NULL, k->attr_id);
		emit_str(e, "method", " %-8s", ibs_method_name(k->method));
		emit_uint(e, "count", " %7" PRIu64, k->count);
		emit_uint(e, "responses", " %7" PRIu64, k->resp);
		emit_uint(e, "bad_status", " %6" PRIu64, k->bad_status);
		emit_uint(e, "errors", " %6" PRIu64, k->error);
		emit_uint(e, "no_answer", " %6" PRIu64 "\n", k->none);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_text(e, "\nnodes touched (NodeGUIDs answered):\n");
	emit_arr_open(e, "node_guids");
	for (i = 0; i < st.n_node_guids; i++)
		emit_guid(e, NULL, "  %s\n", st.node_guids[i]);
	emit_arr_close(e);
	emit_obj_close(e);
	ibs_capture_stats_free(&st);
}
