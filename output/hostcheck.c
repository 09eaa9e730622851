/* `ibscan local --check` as a monitoring-plugin verdict (text, JSON, Prometheus), and `--nccl-env`. */
#include "hostcheck.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

char *render_hostcheck_status_line(const struct ibs_hostcheck *hc)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, first = hc->n_findings;

	sb_addf(&sb, "IBSCAN LOCAL %s - ", ibs_hc_sev_str(hc->verdict));
	/* The worst finding first: the line a pager shows. */
	for (i = 0; i < hc->n_findings; i++)
		if (first == hc->n_findings || hc->findings[i].sev > hc->findings[first].sev)
			first = i;
	if (first < hc->n_findings) {
		sb_adds(&sb, hc->findings[first].msg);
		if (hc->n_findings > 1)
			sb_addf(&sb, " (and %zu more)", hc->n_findings - 1);
	} else {
		sb_addf(&sb, "%zu rail port%s Active", hc->n_active, hc->n_active == 1 ? "" : "s");
		if (hc->link_layer)
			sb_addf(&sb, ", %s", hc->link_layer);
		if (hc->gid_index >= 0)
			sb_addf(&sb, ", RoCE v2 GID index %d", hc->gid_index);
		if (hc->min_rate > 0)
			sb_addf(&sb, ", at least %g Gb/s", hc->min_rate);
	}
	sb_addf(&sb, " | rails=%zu rails_active=%zu critical=%zu warning=%zu gid_index=%d", hc->n_rails, hc->n_active,
		hc->counts[IBS_HC_CRITICAL], hc->counts[IBS_HC_WARNING], hc->gid_index);
	return sb_detach(&sb);
}

static void render_rail(struct emit *e, const struct ibs_rail *r)
{
	emit_obj_open(e, NULL);
	emit_str(e, "device", "  %s", r->dev->name);
	emit_uint(e, "port", " port %" PRIu64 ":", r->port->num);
	emit_bool(e, "active", NULL, r->active);
	emit_str(e, "state", " %s", r->port->state);
	emit_str(e, "phys_state", " (%s)", r->port->phys_state);
	emit_str(e, "link_layer", ", %s", r->port->link_layer);
	if (r->port->rate_gbps >= 0)
		emit_double(e, "rate_gbps", ", %g Gb/s", r->port->rate_gbps);
	else
		emit_null(e, "rate_gbps", ", rate %s");
	if (r->v2_gid >= 0)
		emit_uint(e, "gid_index", ", RoCE v2 IPv4 GID %" PRIu64, (uint64_t)r->v2_gid);
	else
		emit_null(e, "gid_index", NULL);
	emit_str(e, "netdev", ", %s", r->port->netdev);
	emit_str(e, "fw_ver", NULL, r->dev->fw_ver);
	if (r->dev->numa_node >= 0)
		emit_uint(e, "numa_node", ", NUMA %" PRIu64, (uint64_t)r->dev->numa_node);
	else
		emit_null(e, "numa_node", NULL);
	emit_text(e, "\n");
	emit_obj_close(e);
}

void render_hostcheck(struct emit *e, const struct ibs_hostcheck *hc)
{
	char *line = render_hostcheck_status_line(hc);
	size_t i;

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_LOCALCHECK_SCHEMA);
	emit_str(e, "status", NULL, ibs_hc_sev_str(hc->verdict));
	emit_uint(e, "exit_code", NULL, hc->verdict);
	emit_str(e, "summary", "%s\n", line);
	emit_uint(e, "ports_wanted", NULL, hc->want_ports > 0 ? (uint64_t)hc->want_ports : 0);
	emit_str(e, "link_layer", NULL, hc->link_layer);
	if (hc->min_rate > 0)
		emit_double(e, "min_rate_gbps", NULL, hc->min_rate);
	else
		emit_null(e, "min_rate_gbps", NULL);
	if (hc->gid_index >= 0)
		emit_uint(e, "gid_index", NULL, (uint64_t)hc->gid_index);
	else
		emit_null(e, "gid_index", NULL);
	emit_obj_open(e, "counts");
	emit_uint(e, "critical", NULL, hc->counts[IBS_HC_CRITICAL]);
	emit_uint(e, "warning", NULL, hc->counts[IBS_HC_WARNING]);
	emit_obj_close(e);
	if (hc->n_findings)
		emit_text(e, "findings:\n");
	emit_arr_open(e, "findings");
	for (i = 0; i < hc->n_findings; i++) {
		const struct ibs_hc_finding *f = &hc->findings[i];
		emit_obj_open(e, NULL);
		emit_str(e, "severity", "  %-8s", ibs_hc_sev_str(f->sev));
		emit_str(e, "check", " %-15s", f->check);
		emit_str(e, "device", NULL, f->dev);
		if (f->port)
			emit_uint(e, "port", NULL, f->port);
		else
			emit_null(e, "port", NULL);
		emit_str(e, "message", " %s\n", f->msg);
		emit_obj_close(e);
	}
	emit_arr_close(e);
	emit_text(e, "rails (%zu):\n", hc->n_rails);
	emit_arr_open(e, "rails");
	for (i = 0; i < hc->n_rails; i++)
		render_rail(e, &hc->rails[i]);
	emit_arr_close(e);
	emit_obj_close(e);
	free(line);
}

/* A Prometheus label value: backslash, double quote and newline escaped. */
static void label(struct strbuf *sb, const char *k, const char *v, bool comma)
{
	sb_addf(sb, "%s%s=\"", comma ? "," : "", k);
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			sb_addc(sb, '\\');
		if (*v == '\n') {
			sb_adds(sb, "\\n");
			continue;
		}
		sb_addc(sb, *v);
	}
	sb_addc(sb, '"');
}

static void head(struct strbuf *sb, const char *name, const char *help)
{
	sb_addf(sb, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
}

static void rail_labels(struct strbuf *sb, const struct ibs_rail *r)
{
	char port[12];

	snprintf(port, sizeof(port), "%u", r->port->num);
	sb_adds(sb, "{");
	label(sb, "device", r->dev->name, false);
	label(sb, "port", port, true);
	sb_adds(sb, "}");
}

int render_hostcheck_prom(FILE *out, const struct ibs_hostcheck *hc)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;
	int rc;

	head(&sb, "ibscan_local_up", "Whether ibscan could read this host's RDMA devices (1) or not (0).");
	sb_adds(&sb, "ibscan_local_up 1\n");
	head(&sb, "ibscan_local_status", "The verdict of ibscan local --check: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.");
	sb_addf(&sb, "ibscan_local_status %d\n", (int)hc->verdict);
	head(&sb, "ibscan_local_findings", "Findings of ibscan local --check, by severity.");
	sb_addf(&sb, "ibscan_local_findings{severity=\"critical\"} %zu\n", hc->counts[IBS_HC_CRITICAL]);
	sb_addf(&sb, "ibscan_local_findings{severity=\"warning\"} %zu\n", hc->counts[IBS_HC_WARNING]);
	head(&sb, "ibscan_local_rails", "Rail ports: found, and of those Active (LinkUp).");
	sb_addf(&sb, "ibscan_local_rails{state=\"any\"} %zu\n", hc->n_rails);
	sb_addf(&sb, "ibscan_local_rails{state=\"active\"} %zu\n", hc->n_active);
	head(&sb, "ibscan_local_gid_index", "The RoCE v2 IPv4 GID index every rail shares (NCCL_IB_GID_INDEX), -1 none.");
	sb_addf(&sb, "ibscan_local_gid_index %d\n", hc->gid_index);
	head(&sb, "ibscan_local_rail_active", "Whether the rail port is ACTIVE and LinkUp (1) or not (0).");
	for (i = 0; i < hc->n_rails; i++) {
		sb_adds(&sb, "ibscan_local_rail_active");
		rail_labels(&sb, &hc->rails[i]);
		sb_addf(&sb, " %d\n", hc->rails[i].active ? 1 : 0);
	}
	head(&sb, "ibscan_local_rail_rate_gbps", "The rail port's rate in Gb/s, -1 unknown.");
	for (i = 0; i < hc->n_rails; i++) {
		sb_adds(&sb, "ibscan_local_rail_rate_gbps");
		rail_labels(&sb, &hc->rails[i]);
		sb_addf(&sb, " %g\n", hc->rails[i].port->rate_gbps);
	}
	head(&sb, "ibscan_local_rail_gid_index", "The rail port's lowest RoCE v2 IPv4 GID index, -1 none.");
	for (i = 0; i < hc->n_rails; i++) {
		sb_adds(&sb, "ibscan_local_rail_gid_index");
		rail_labels(&sb, &hc->rails[i]);
		sb_addf(&sb, " %d\n", hc->rails[i].v2_gid);
	}
	rc = fputs(sb_str(&sb), out) == EOF ? -1 : 0;
	sb_free(&sb);
	return rc;
}

/* RoCE: the netdev that holds the shared GID's address (a VLAN, a bond); else ibdev2netdev's (IPoIB on IB). */
static const char *rail_netdev(const struct ibs_hostcheck *hc, const struct ibs_rail *r)
{
	size_t k;

	for (k = 0; k < r->port->n_gids && hc->gid_index >= 0; k++)
		if ((int)r->port->gids[k].index == hc->gid_index && r->port->gids[k].netdev)
			return r->port->gids[k].netdev;
	return r->port->netdev;
}

/* "a,b,c" of the rails' "DEV:PORT" (ports true) or netdevs, each once, in rail order. */
static char *rail_list(const struct ibs_hostcheck *hc, bool ports)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j;

	for (i = 0; i < hc->n_rails; i++) {
		const struct ibs_rail *r = &hc->rails[i];
		const char *nd = rail_netdev(hc, r);
		bool dup = false;
		if (ports) {
			sb_addf(&sb, "%s%s:%u", sb.len ? "," : "", r->dev->name, r->port->num);
			continue;
		}
		for (j = 0; j < i && nd; j++)
			dup |= rail_netdev(hc, &hc->rails[j]) && !strcmp(rail_netdev(hc, &hc->rails[j]), nd);
		if (nd && !dup)
			sb_addf(&sb, "%s%s", sb.len ? "," : "", nd);
	}
	return sb_detach(&sb);
}

int render_nccl_env(FILE *out, const struct ibs_hostcheck *hc, const char *socket_ifname)
{
	char *hca = rail_list(hc, true), *nd = rail_list(hc, false);
	int rc = 0;

	/* "=" asks NCCL for exact names: without it mlx5_1 would also select mlx5_10 and mlx5_11. */
	if (fprintf(out, "# ibscan local --nccl-env: %zu rail port%s%s%s\n", hc->n_rails, hc->n_rails == 1 ? "" : "s",
		    hc->link_layer ? ", " : "", hc->link_layer ? hc->link_layer : "") < 0 ||
	    fprintf(out, "NCCL_IB_HCA==%s\n", hca) < 0)
		rc = -1;
	if (!rc && hc->gid_index >= 0 && fprintf(out, "NCCL_IB_GID_INDEX=%d\n", hc->gid_index) < 0)
		rc = -1;
	if (!rc && (socket_ifname || *nd) &&
	    fprintf(out, "NCCL_SOCKET_IFNAME=%s%s\n", socket_ifname ? "" : "=", socket_ifname ? socket_ifname : nd) < 0)
		rc = -1;
	if (!rc && fprintf(out, "UCX_NET_DEVICES=%s\n", hca) < 0)
		rc = -1;
	free(hca);
	free(nd);
	return rc;
}

int render_hostcheck_unknown(FILE *out, int fmt, const char *why)
{
	struct emit *e;
	int rc;

	if (fmt == 2)
		return fprintf(out,
			       "# HELP ibscan_local_up Whether ibscan could read this host's RDMA devices (1) or not (0).\n"
			       "# TYPE ibscan_local_up gauge\nibscan_local_up 0\n"
			       "# HELP ibscan_local_status The verdict of ibscan local --check: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.\n"
			       "# TYPE ibscan_local_status gauge\nibscan_local_status 3\n") < 0
			       ? -1
			       : 0;
	e = emit_new_stream(fmt == 1 ? EMIT_JSON : EMIT_TEXT, out);
	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_LOCALCHECK_SCHEMA);
	emit_str(e, "status", "IBSCAN LOCAL %s - ", "UNKNOWN");
	emit_uint(e, "exit_code", NULL, 3);
	emit_str(e, "reason", "%s\n", why);
	emit_obj_close(e);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}
