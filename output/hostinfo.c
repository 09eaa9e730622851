/*
 * `ibscan local`: every RDMA device, port, GID and IPoIB interface of this
 * host, one render function per object for text and JSON alike.
 */
#include "hostinfo.h"

#include <inttypes.h>
#include <stdio.h>

/* A number that may be unknown (negative): JSON null, text nullfmt (which gets "-"). */
static void opt_uint(struct emit *e, const char *key, const char *fmt, const char *nullfmt, int64_t v)
{
	if (v < 0)
		emit_null(e, key, nullfmt);
	else
		emit_uint(e, key, fmt, (uint64_t)v);
}

/* PCIe GT/s (JSON only), null when unknown. */
static void opt_gts(struct emit *e, const char *key, double v)
{
	if (v < 0)
		emit_null(e, key, NULL);
	else
		emit_double(e, key, NULL, v);
}

static void render_gid(struct emit *e, const struct ibs_host_gid *g, bool probe)
{
	char gid[48], v4[16];
	bool is_v4 = ibs_gid_ipv4(g->gid, v4, sizeof(v4));

	ibs_gid_str(g->gid, gid, sizeof(gid));
	emit_obj_open(e, NULL);
	emit_uint(e, "index", "    %5" PRIu64, g->index);
	emit_str(e, "gid", "  %s", gid);
	emit_str(e, "type", "  %-10s", g->type);
	/* No padding at the end of a line. */
	emit_str(e, "netdev", is_v4 || probe ? "  %-10s" : "  %s", g->netdev);
	emit_str(e, "ipv4", is_v4 ? "  %s" : NULL, is_v4 ? v4 : NULL);
	emit_text(e, "%s\n", probe ? "  <- ibscan ping's choice" : "");
	emit_obj_close(e);
}

static void render_ipoib(struct emit *e, const struct ibs_host_ipoib *n, bool first)
{
	emit_obj_open(e, NULL);
	emit_str(e, "name", first ? " %s" : ", %s", n->name);
	emit_str(e, "operstate", " (%s)", n->operstate);
	emit_obj_close(e);
}

static void render_port(struct emit *e, const struct ibs_host_port *p)
{
	size_t i;

	emit_obj_open(e, NULL);
	emit_uint(e, "port", "  port %" PRIu64 ":", p->num);
	emit_str(e, "state", " %s", p->state);
	emit_str(e, "phys_state", " (%s)", p->phys_state);
	emit_str(e, "link_layer", ", %s", p->link_layer);
	emit_str(e, "rate", ", %s\n", p->rate);
	if (p->rate_gbps >= 0)
		emit_double(e, "rate_gbps", NULL, p->rate_gbps);
	else
		emit_null(e, "rate_gbps", NULL);
	emit_str(e, "width", NULL, p->width);
	emit_str(e, "speed", NULL, p->speed);
	opt_uint(e, "lid", "    LID %" PRIu64, "    LID %s", p->lid);
	opt_uint(e, "sm_lid", ", SM LID %" PRIu64, ", SM LID %s", p->sm_lid);
	opt_uint(e, "lmc", ", LMC %" PRIu64 "\n", ", LMC %s\n", p->lmc);
	if (p->probe_gid >= 0)
		emit_uint(e, "probe_gid_index", NULL, p->gids[p->probe_gid].index);
	else
		emit_null(e, "probe_gid_index", NULL);
	if (p->has_port_guid)
		emit_guid(e, "port_guid", NULL, p->port_guid);
	else
		emit_null(e, "port_guid", NULL);
	emit_str(e, "netdev", NULL, p->netdev);
	if (p->n_ipoib)
		emit_text(e, "    IPoIB:");
	emit_arr_open(e, "ipoib");
	for (i = 0; i < p->n_ipoib; i++)
		render_ipoib(e, &p->ipoib[i], i == 0);
	emit_arr_close(e);
	if (p->n_ipoib)
		emit_text(e, "\n");
	if (p->n_gids)
		emit_text(e, "    %5s  %-39s  %-10s  %-10s  %s\n", "index", "GID", "type", "netdev", "IPv4");
	else
		emit_text(e, "    GIDs: none\n");
	emit_arr_open(e, "gids");
	for (i = 0; i < p->n_gids; i++)
		render_gid(e, &p->gids[i], (int)i == p->probe_gid);
	emit_arr_close(e);
	emit_obj_close(e);
}

static void render_pci(struct emit *e, const struct ibs_host_dev *d)
{
	static const char *const role[] = { NULL, "pf", "vf" };

	emit_obj_open(e, "pci");
	emit_str(e, "address", d->pci ? "  PCI %s" : "  no PCI function", d->pci);
	opt_uint(e, "vendor_id", " (%04" PRIx64, d->pci ? " (%s" : NULL, d->vendor_id);
	opt_uint(e, "device_id", ":%04" PRIx64 ")", d->pci ? ":%s)" : NULL, d->device_id);
	emit_str(e, "sriov", NULL, role[d->sriov]);
	switch (d->sriov) {
	case IBS_SRIOV_PF:
		emit_text(e, ", SR-IOV physical function");
		opt_uint(e, "sriov_numvfs", ": %" PRIu64, ": %s", d->sriov_numvfs);
		opt_uint(e, "sriov_totalvfs", " of %" PRIu64 " VFs enabled", " of %s VFs enabled", d->sriov_totalvfs);
		emit_str(e, "physfn", NULL, NULL);
		emit_str(e, "vf_known_by", NULL, NULL);
		break;
	case IBS_SRIOV_VF:
		emit_text(e, ", SR-IOV virtual function");
		emit_null(e, "sriov_numvfs", NULL);
		emit_null(e, "sriov_totalvfs", NULL);
		emit_str(e, "physfn", d->physfn ? " of %s" : NULL, d->physfn);
		emit_str(e, "vf_known_by", d->vf_by_id ? " (known by its device ID: passed through into a VM?)" : NULL,
			 d->vf_by_id ? "device_id" : "physfn");
		break;
	case IBS_SRIOV_NONE:
	default:
		emit_null(e, "sriov_numvfs", NULL);
		emit_null(e, "sriov_totalvfs", NULL);
		emit_null(e, "physfn", NULL);
		emit_null(e, "vf_known_by", NULL);
		break;
	}
	opt_uint(e, "numa_node", NULL, NULL, d->numa_node);
	opt_uint(e, "link_width", NULL, NULL, d->pcie_width);
	opt_uint(e, "max_link_width", NULL, NULL, d->pcie_max_width);
	opt_gts(e, "link_speed_gts", d->pcie_speed);
	opt_gts(e, "max_link_speed_gts", d->pcie_max_speed);
	emit_text(e, "\n");
	emit_obj_close(e);
}

static void render_dev(struct emit *e, const struct ibs_host_dev *d)
{
	size_t i;

	emit_obj_open(e, NULL);
	emit_str(e, "name", "%s:", d->name);
	emit_str(e, "node_type", " %s", d->node_type);
	if (d->has_node_guid)
		emit_guid(e, "node_guid", ", node GUID %s", d->node_guid);
	else
		emit_null(e, "node_guid", ", node GUID %s");
	if (d->has_sys_guid)
		emit_guid(e, "system_image_guid", ", system image GUID %s\n", d->sys_image_guid);
	else
		emit_null(e, "system_image_guid", ", system image GUID %s\n");
	emit_str(e, "fw_ver", "  firmware %s", d->fw_ver);
	emit_str(e, "board_id", ", board %s", d->board_id);
	emit_str(e, "hca_type", ", HCA %s", d->hca_type);
	emit_str(e, "node_desc", ", description \"%s\"\n", d->node_desc);
	render_pci(e, d);
	emit_arr_open(e, "ports");
	for (i = 0; i < d->n_ports; i++)
		render_port(e, &d->ports[i]);
	emit_arr_close(e);
	emit_obj_close(e);
}

void render_local(struct emit *e, const struct ibs_host *h)
{
	size_t i;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_LOCAL_SCHEMA);
	emit_uint(e, "numa_nodes", NULL, h->n_numa_nodes);
	emit_arr_open(e, "devices");
	for (i = 0; i < h->n_devs; i++) {
		if (i)
			emit_text(e, "\n");
		render_dev(e, &h->devs[i]);
	}
	emit_arr_close(e);
	emit_obj_close(e);
}
