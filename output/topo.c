/*
 * Text and JSON views of the fabric: topology, nodes, links and SM. Each
 * object is rendered by one function for both formats.
 */
#include "topo.h"
#include "../fabric/model/names.h"
#include "../fabric/model/rate.h"
#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void gid_str(uint64_t prefix, uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x", (unsigned)(prefix >> 48) & 0xffff,
		 (unsigned)(prefix >> 32) & 0xffff, (unsigned)(prefix >> 16) & 0xffff, (unsigned)prefix & 0xffff,
		 (unsigned)(guid >> 48) & 0xffff, (unsigned)(guid >> 32) & 0xffff, (unsigned)(guid >> 16) & 0xffff,
		 (unsigned)guid & 0xffff);
}

static void emit_widths(struct emit *e, const char *key, unsigned mask)
{
	static const unsigned codes[] = { 1, 16, 2, 4, 8 };
	unsigned i;

	emit_arr_open(e, key);
	for (i = 0; i < 5; i++)
		if (mask & codes[i])
			emit_str(e, NULL, NULL, ibs_width_str(codes[i]));
	emit_arr_close(e);
}

static void emit_speeds(struct emit *e, const char *key, unsigned mask, unsigned ext)
{
	unsigned b, i;

	emit_arr_open(e, key);
	for (b = 1; b <= 4; b <<= 1)
		if (mask & b)
			emit_str(e, NULL, NULL, ibs_speed_str(b, 0));
	for (i = 0; i < IBS_N_EXT_SPEEDS; i++)
		if (ext & ibs_ext_speeds[i])
			emit_str(e, NULL, NULL, ibs_speed_str(0, ibs_ext_speeds[i]));
	emit_arr_close(e);
}

static bool port_linked(const struct ibs_port *p)
{
	return p->valid && ibs_portinfo_linkup(&p->pi);
}

static void render_peer_ref(struct emit *e, const char *key, const struct ibs_node *n, unsigned port)
{
	emit_obj_open(e, key);
	emit_uint(e, "index", NULL, n->index);
	emit_guid(e, "guid", "%s", n->ni.node_guid);
	emit_uint(e, "port", "[%" PRIu64 "]", port);
	emit_str(e, "name", " \"%s\"", ibs_node_name(n));
	emit_obj_close(e);
}

static void render_port(struct emit *e, const struct ibs_node *n, const struct ibs_port *p)
{
	char gid[64];
	unsigned i;

	emit_obj_open(e, NULL);
	emit_uint(e, "port", "    [%2" PRIu64 "]", p->num);
	if (!p->valid) {
		emit_null(e, "guid", NULL);
		emit_null(e, "lid", NULL);
		emit_null(e, "lmc", NULL);
		emit_null(e, "state", NULL);
		emit_null(e, "phys_state", NULL);
		emit_null(e, "width", NULL);
		emit_null(e, "speed", NULL);
	} else {
		emit_guid(e, "guid", NULL, p->guid);
		emit_uint(e, "lid", NULL, p->pi.lid);
		emit_uint(e, "lmc", NULL, p->pi.lmc);
		emit_str(e, "state", " %-6s", ibs_port_state_str(p->pi.state));
		emit_str(e, "phys_state", port_linked(p) || p->num == 0 ? " %-9s" : " %s", ibs_phys_state_str(p->pi.phys_state));
		if (port_linked(p) && p->num) {
			emit_str(e, "width", " %3s", ibs_width_str(p->pi.width_active));
			emit_str(e, "speed", " %-3s", ibs_speed_str(p->pi.speed_active, p->pi.speed_ext_active));
		} else {
			emit_null(e, "width", NULL);
			emit_null(e, "speed", NULL);
		}
		if (p->num == 0 || n->ni.node_type != IBS_NODE_SWITCH)
			emit_text(e, " LID %u", p->pi.lid);
	}
	/* Always false since every port is read; kept so ibscan.topology/1 keeps its keys. */
	emit_bool(e, "inferred", NULL, false);
	if (!emit_is_json(e)) {
		/* The rest up to the peer is JSON only. */
	} else if (p->valid) {
		/* IBA 14.2.5.6: these are defined on a switch's port 0 only, not on its external ports. */
		bool ext = n->ni.node_type == IBS_NODE_SWITCH && p->num;
		emit_widths(e, "width_enabled", p->pi.width_enabled);
		emit_widths(e, "width_supported", p->pi.width_supported);
		emit_speeds(e, "speed_enabled", p->pi.speed_enabled, p->pi.speed_ext_enabled);
		emit_speeds(e, "speed_supported", p->pi.speed_supported, p->pi.speed_ext_supported);
		emit_uint(e, "mtu", NULL, strtoul(ibs_mtu_str(p->pi.neighbor_mtu), NULL, 10));
		emit_uint(e, "mtu_cap", NULL, strtoul(ibs_mtu_str(p->pi.mtu_cap), NULL, 10));
		if (ext) {
			emit_null(e, "capability_mask", NULL);
			emit_null(e, "sm_lid", NULL);
			emit_null(e, "guid_cap", NULL);
			emit_null(e, "gid_prefix", NULL);
		} else {
			snprintf(gid, sizeof(gid), "0x%08x", p->pi.cap_mask);
			emit_str(e, "capability_mask", NULL, gid);
			emit_uint(e, "sm_lid", NULL, p->pi.sm_lid);
			emit_uint(e, "guid_cap", NULL, p->pi.guid_cap);
			snprintf(gid, sizeof(gid), "0x%016" PRIx64, p->pi.gid_prefix);
			emit_str(e, "gid_prefix", NULL, gid);
		}
	} else {
		const char *k[] = { "width_enabled", "width_supported", "speed_enabled", "speed_supported", "mtu",
				    "mtu_cap", "capability_mask", "sm_lid", "guid_cap", "gid_prefix" };
		for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
			emit_null(e, k[i], NULL);
	}
	emit_arr_open(e, "gids");
	if (emit_is_json(e) && p->valid && (p->num == 0 || n->ni.node_type != IBS_NODE_SWITCH)) {
		if (p->n_gids) {
			for (i = 0; i < p->n_gids; i++) {
				if (!p->gids[i] && i)
					continue;
				gid_str(p->pi.gid_prefix, p->gids[i], gid, sizeof(gid));
				emit_str(e, NULL, NULL, gid);
			}
		} else if (p->guid) {
			gid_str(p->pi.gid_prefix, p->guid, gid, sizeof(gid));
			emit_str(e, NULL, NULL, gid);
		}
	}
	emit_arr_close(e);
	if (p->peer) {
		emit_text(e, " -> %s ", ibs_node_type_str(p->peer->ni.node_type));
		render_peer_ref(e, "peer", p->peer, p->peer_port);
		if (ibs_port_peer_lid(p))
			emit_text(e, " LID %u", ibs_port_peer_lid(p));
	} else {
		emit_null(e, "peer", NULL);
	}
	emit_str(e, "error", p->error ? " (%s)" : NULL, p->error);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void render_node(struct emit *e, const struct ibs_node *n, bool ports)
{
	char path[256];
	const struct ibs_port *pt;
	uint16_t lid = ibs_node_lid(n);

	emit_obj_open(e, NULL);
	emit_uint(e, "index", NULL, n->index);
	emit_str(e, "type", ports ? "%-6s" : "%-6s", ibs_node_type_str(n->ni.node_type));
	emit_guid(e, "guid", " %s", n->ni.node_guid);
	if (lid)
		emit_uint(e, "lid", ports ? " LID %" PRIu64 : " %5" PRIu64, lid);
	else
		emit_null(e, "lid", ports ? NULL : "     %s");
	emit_uint(e, "num_ports", ports ? ", %" PRIu64 " ports" : " %3" PRIu64, n->ni.num_ports);
	emit_str(e, "name", ports ? " \"%s\"" : "  \"%s\"", ibs_node_name(n));
	emit_str(e, "description", NULL, n->desc);
	emit_guid(e, "system_image_guid", NULL, n->ni.system_image_guid);
	emit_guid(e, "port_guid", NULL, n->ni.port_guid);
	emit_uint(e, "vendor_id", NULL, n->ni.vendor_id);
	emit_uint(e, "device_id", NULL, n->ni.device_id);
	emit_uint(e, "revision", NULL, n->ni.revision);
	emit_str(e, "dr_path", ports ? ", path %s" : NULL, ibs_addr_str(&n->path, path, sizeof(path)));
	emit_uint(e, "level", NULL, n->level);
	if (n->ni.node_type == IBS_NODE_SWITCH && n->has_si) {
		emit_bool(e, "enhanced_port0", NULL, n->si.enhanced_port0);
		emit_uint(e, "lft_top", NULL, n->si.lft_top);
	} else {
		emit_null(e, "enhanced_port0", NULL);
		emit_null(e, "lft_top", NULL);
	}
	emit_str(e, "error", n->error ? " (%s)" : NULL, n->error);
	emit_text(e, "\n");
	if (ports) {
		emit_arr_open(e, "ports");
		for (pt = ibs_node_ports_from(n, ibs_node_first_port(n)); pt < ibs_node_ports_end(n); pt++) {
			/* CA ports that no cable reached were never read. */
			if (!pt->valid && !pt->error && !pt->peer)
				continue;
			render_port(e, n, pt);
		}
		emit_arr_close(e);
		emit_text(e, "\n");
	}
	emit_obj_close(e);
}

static void render_local(struct emit *e, const struct ibs_fabric *f)
{
	emit_obj_open(e, "local");
	emit_str(e, "ca", "local port: %s", f->local.ca);
	emit_uint(e, "port", " port %" PRIu64, (uint64_t)f->local.port);
	emit_guid(e, "node_guid", ", node %s", f->local.node_guid);
	emit_guid(e, "port_guid", NULL, f->local.port_guid);
	emit_uint(e, "lid", ", LID %" PRIu64, f->local.lid);
	emit_uint(e, "sm_lid", ", SM LID %" PRIu64 "\n", f->local.sm_lid);
	emit_obj_close(e);
}

static void count_types(const struct ibs_fabric *f, size_t *sw, size_t *ca, size_t *rt)
{
	size_t i;

	*sw = *ca = *rt = 0;
	for (i = 0; i < f->n_nodes; i++) {
		switch (f->nodes[i]->ni.node_type) {
		case IBS_NODE_SWITCH:
			(*sw)++;
			break;
		case IBS_NODE_ROUTER:
			(*rt)++;
			break;
		default:
			(*ca)++;
		}
	}
}

static void render_summary(struct emit *e, const struct ibs_fabric *f, size_t nlinks)
{
	size_t sw, ca, rt;

	count_types(f, &sw, &ca, &rt);
	emit_obj_open(e, "summary");
	emit_uint(e, "nodes", "%" PRIu64 " nodes", f->n_nodes);
	emit_uint(e, "switches", " (%" PRIu64 " switches", sw);
	emit_uint(e, "cas", ", %" PRIu64 " CAs", ca);
	emit_uint(e, "routers", ", %" PRIu64 " routers)", rt);
	emit_uint(e, "links", ", %" PRIu64 " links", nlinks);
	emit_uint(e, "errors", f->n_errors ? ", %" PRIu64 " errors" : NULL, f->n_errors);
	emit_obj_close(e);
	emit_text(e, "%s\n", f->partial ? " [PARTIAL]" : "");
}

static void render_errors(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run)
{
	char path[256], buf[64];
	size_t i;

	emit_bool(e, "partial", NULL, f->partial);
	emit_str(e, "abort_reason", run->abort_reason ? "\nwalk stopped early: %s" : NULL, run->abort_reason);
	emit_uint(e, "aborted_queries", run->abort_reason ? "; %" PRIu64 " queries were cut off\n" : NULL, run->n_aborted);
	if (f->n_errors)
		emit_text(e, "\nnot reachable or not answering:\n");
	emit_arr_open(e, "errors");
	for (i = 0; i < f->n_errors; i++) {
		const struct ibs_walk_error *er = &f->errors[i];
		emit_obj_open(e, NULL);
		emit_str(e, "kind", "  %s", er->unreachable ? "unreachable" : "unanswered");
		emit_str(e, "dr_path", " path %s", ibs_addr_str(&er->path, path, sizeof(path)));
		if (er->node) {
			emit_guid(e, "node_guid", er->unreachable ? " behind %s" : " node %s", er->node->ni.node_guid);
			emit_str(e, "node_name", " \"%s\"", ibs_node_name(er->node));
		} else {
			emit_null(e, "node_guid", NULL);
			emit_null(e, "node_name", NULL);
		}
		emit_uint(e, "port", er->port ? " port %" PRIu64 : NULL, er->port);
		emit_str(e, "class", NULL, ibs_class_name(er->mgmt_class));
		emit_str(e, "attribute", ": %s", ibs_attr_name(er->mgmt_class, er->attr_id));
		emit_uint(e, "modifier", NULL, er->attr_mod);
		emit_str(e, "outcome", " %s", ibs_outcome_str(er->outcome));
		if (er->outcome == IBS_MAD_STATUS) {
			snprintf(buf, sizeof(buf), "0x%04x", er->status);
			emit_str(e, "status", " %s", buf);
			emit_str(e, "status_text", " (%s)", ibs_mad_status_str(er->status));
		} else {
			emit_null(e, "status", NULL);
			emit_null(e, "status_text", NULL);
		}
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
}

static void render_link(struct emit *e, const struct ibs_link *l)
{
	/* A link's two ends are port records. */
	const struct ibs_port *pa = ibs_node_port(l->a, l->pa), *pb = ibs_node_port(l->b, l->pb);
	const struct ibs_port *src = pa->valid ? pa : pb;
	const char *why = NULL;
	bool degraded = false;

	emit_obj_open(e, NULL);
	render_peer_ref(e, "a", l->a, l->pa);
	emit_text(e, " <-> ");
	render_peer_ref(e, "b", l->b, l->pb);
	if (src->valid) {
		emit_str(e, "width", " %s", ibs_width_str(src->pi.width_active));
		emit_str(e, "speed", "%s", ibs_speed_str(src->pi.speed_active, src->pi.speed_ext_active));
		emit_str(e, "state", " %s", ibs_port_state_str(pa->valid && pb->valid && pb->pi.state < pa->pi.state
								       ? pb->pi.state
								       : src->pi.state));
		degraded = ibs_node_link_degraded(l->a, l->pa, l->b, l->pb, &why);
	} else {
		emit_null(e, "width", NULL);
		emit_null(e, "speed", NULL);
		emit_null(e, "state", NULL);
	}
	emit_bool(e, "degraded", NULL, degraded);
	emit_str(e, "degraded_by", degraded ? " (degraded %s)" : NULL, degraded ? why : NULL);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static size_t render_links_array(struct emit *e, const struct ibs_fabric *f)
{
	struct ibs_link *v;
	size_t n = ibs_fabric_links(f, &v), i;

	emit_arr_open(e, "links");
	for (i = 0; i < n; i++)
		render_link(e, &v[i]);
	emit_arr_close(e);
	free(v);
	return n;
}

static void render_sm_list(struct emit *e, const struct ibs_fabric *f)
{
	size_t i;

	emit_obj_open(e, "sm");
	emit_uint(e, "master_lid", "subnet manager: LID %" PRIu64, f->local.sm_lid);
	emit_text(e, " (as the local port knows it)\n");
	emit_arr_open(e, "sms");
	for (i = 0; i < f->n_sms; i++) {
		const struct ibs_sm *s = &f->sms[i];
		emit_obj_open(e, NULL);
		emit_guid(e, "port_guid", "  SM port %s", s->port_guid);
		emit_guid(e, "node_guid", NULL, s->node->ni.node_guid);
		emit_str(e, "name", " \"%s\"", ibs_node_name(s->node));
		emit_uint(e, "port", " port %" PRIu64, s->port);
		emit_uint(e, "lid", " LID %" PRIu64, s->lid);
		if (s->ok) {
			emit_str(e, "state", " %s", ibs_sm_state_str(s->info.state));
			emit_uint(e, "priority", " priority %" PRIu64, s->info.priority);
			emit_guid(e, "sm_guid", NULL, s->info.guid);
			emit_uint(e, "activity_count", " activity %" PRIu64, s->info.act_count);
			emit_null(e, "error", NULL);
		} else {
			emit_null(e, "state", NULL);
			emit_null(e, "priority", NULL);
			emit_null(e, "sm_guid", NULL);
			emit_null(e, "activity_count", NULL);
			emit_str(e, "error", " SMInfo: %s", ibs_outcome_str(s->outcome));
		}
		emit_text(e, "\n");
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}

static void header(struct emit *e, const char *schema, const char *title, const struct ibs_fabric *f)
{
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, schema);
	emit_text(e, "%s: ", title);
	(void)f;
}

void render_topology(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run)
{
	size_t i;

	header(e, IBS_TOPOLOGY_SCHEMA, "topology", f);
	render_summary(e, f, ibs_fabric_n_links(f));
	render_local(e, f);
	emit_text(e, "\n");
	emit_arr_open(e, "nodes");
	for (i = 0; i < f->n_nodes; i++)
		render_node(e, f->nodes[i], true);
	emit_arr_close(e);
	if (emit_is_json(e))
		render_links_array(e, f);
	render_sm_list(e, f);
	render_errors(e, f, run);
	emit_obj_close(e);
}

void render_nodes(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run)
{
	size_t i;

	header(e, IBS_NODES_SCHEMA, "nodes", f);
	render_summary(e, f, ibs_fabric_n_links(f));
	emit_text(e, "%-6s %-18s %5s %3s  %s\n", "type", "guid", "lid", "prt", "name");
	emit_arr_open(e, "nodes");
	for (i = 0; i < f->n_nodes; i++)
		render_node(e, f->nodes[i], false);
	emit_arr_close(e);
	render_errors(e, f, run);
	emit_obj_close(e);
}

void render_links(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run)
{
	header(e, IBS_LINKS_SCHEMA, "links", f);
	render_summary(e, f, ibs_fabric_n_links(f));
	render_links_array(e, f);
	render_errors(e, f, run);
	emit_obj_close(e);
}

void render_sm(struct emit *e, const struct ibs_fabric *f, const struct ibs_run *run)
{
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_SM_SCHEMA);
	render_local(e, f);
	render_sm_list(e, f);
	render_errors(e, f, run);
	emit_obj_close(e);
}
