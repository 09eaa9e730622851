/* `ibscan local --check`: the host's rails against its profile (or against each other), as findings. */
#define _GNU_SOURCE
#include "hostcheck.h"
#include "../core/base/gid.h"
#include "../core/mad/mad.h"
#include "../core/base/xalloc.h"

#include <fnmatch.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *ibs_hc_sev_str(enum ibs_hc_sev s)
{
	static const char *const n[] = { "OK", "WARNING", "CRITICAL", "UNKNOWN" };
	return s <= IBS_HC_UNKNOWN ? n[s] : "UNKNOWN";
}

static void add(struct ibs_hostcheck *hc, enum ibs_hc_sev sev, const char *check, const char *dev, unsigned port,
		const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void add(struct ibs_hostcheck *hc, enum ibs_hc_sev sev, const char *check, const char *dev, unsigned port,
		const char *fmt, ...)
{
	struct ibs_hc_finding *f;
	va_list ap;

	hc->findings = xrealloc(hc->findings, (hc->n_findings + 1) * sizeof(*hc->findings));
	f = &hc->findings[hc->n_findings++];
	f->sev = sev;
	f->check = check;
	f->dev = dev ? xstrdup(dev) : NULL;
	f->port = port;
	va_start(ap, fmt);
	f->msg = xvasprintf(fmt, ap);
	va_end(ap);
	hc->counts[sev]++;
	if (sev > hc->verdict)
		hc->verdict = sev;
}

/* Whether DEV:PORT matches one of the patterns ("DEV" for every port, "DEV:PORT" for one); *hit marks it used. */
static bool matches(char **pat, size_t n, const char *dev, unsigned port, bool *hit)
{
	size_t i;
	bool any = false;

	for (i = 0; i < n; i++) {
		const char *colon = strrchr(pat[i], ':');
		char *d = colon ? xstrndup(pat[i], (size_t)(colon - pat[i])) : xstrdup(pat[i]);
		bool ok = !fnmatch(d, dev, 0) && (!colon || (unsigned)strtoul(colon + 1, NULL, 10) == port);
		free(d);
		if (ok) {
			any = true;
			if (hit)
				hit[i] = true;
		}
	}
	return any;
}

static bool is_active(const struct ibs_host_port *p)
{
	return p->state_num == IBS_PORT_ACTIVE && p->phys_state && !strcmp(p->phys_state, "LinkUp");
}

static bool is_roce(const struct ibs_host_port *p)
{
	return p->link_layer && !strcmp(p->link_layer, "Ethernet");
}

/* The lowest index holding a RoCE v2 GID with an IPv4 address (what NCCL_IB_GID_INDEX should be), or -1. */
static int lowest_v2_ipv4(const struct ibs_host_port *p)
{
	size_t i;
	char v4[16];

	for (i = 0; i < p->n_gids; i++)
		if (p->gids[i].type && !strcmp(p->gids[i].type, "RoCE v2") && ibs_gid_ipv4(p->gids[i].gid, v4, sizeof(v4)))
			return (int)p->gids[i].index;
	return -1;
}

static bool has_v2_ipv4_at(const struct ibs_host_port *p, int index)
{
	size_t i;
	char v4[16];

	for (i = 0; i < p->n_gids; i++)
		if ((int)p->gids[i].index == index && p->gids[i].type && !strcmp(p->gids[i].type, "RoCE v2") &&
		    ibs_gid_ipv4(p->gids[i].gid, v4, sizeof(v4)))
			return true;
	return false;
}

static void pick_rails(struct ibs_hostcheck *hc, const struct ibs_host *h, const struct ibs_host_profile *p)
{
	bool *hit = xcalloc(p->n_rails ? p->n_rails : 1, sizeof(*hit));
	size_t i, j;

	for (i = 0; i < h->n_devs; i++) {
		const struct ibs_host_dev *d = &h->devs[i];
		for (j = 0; j < d->n_ports; j++) {
			const struct ibs_host_port *pt = &d->ports[j];
			struct ibs_rail *r;
			if (matches(p->ignore, p->n_ignore, d->name, pt->num, NULL) ||
			    matches(p->storage, p->n_storage, d->name, pt->num, NULL))
				continue;
			/* Named rails are rails whatever their state; otherwise a rail is what carries traffic now. */
			if (p->n_rails ? !matches(p->rails, p->n_rails, d->name, pt->num, hit) : !is_active(pt))
				continue;
			hc->rails = xrealloc(hc->rails, (hc->n_rails + 1) * sizeof(*hc->rails));
			r = &hc->rails[hc->n_rails++];
			r->dev = d;
			r->port = pt;
			r->active = is_active(pt);
			r->v2_gid = is_roce(pt) ? lowest_v2_ipv4(pt) : -1;
			hc->n_active += r->active;
		}
	}
	for (i = 0; i < p->n_rails; i++)
		if (!hit[i])
			add(hc, IBS_HC_CRITICAL, "rail.missing", NULL, 0, "rail %s named by the profile: no such device or port",
			    p->rails[i]);
	free(hit);
}

/* The value most rails have (ties: the first rail's); strings compared, NULL never counted. */
static const char *majority(const struct ibs_hostcheck *hc, const char *(*get)(const struct ibs_rail *))
{
	const char *best = NULL;
	size_t i, j, bestn = 0;

	for (i = 0; i < hc->n_rails; i++) {
		const char *v = get(&hc->rails[i]);
		size_t n = 0;
		if (!v)
			continue;
		for (j = 0; j < hc->n_rails; j++)
			n += get(&hc->rails[j]) && !strcmp(get(&hc->rails[j]), v);
		if (n > bestn) {
			bestn = n;
			best = v;
		}
	}
	return best;
}

static const char *get_ll(const struct ibs_rail *r)
{
	return r->port->link_layer;
}

static const char *get_fw(const struct ibs_rail *r)
{
	return r->dev->fw_ver;
}

/* The GID index the RoCE rails share, or a refusal naming the rail whose index differs. */
static void check_gids(struct ibs_hostcheck *hc, const struct ibs_host_profile *p)
{
	size_t i, j, n_roce = 0;
	int want = p->gid_index;

	hc->gid_index = -1;
	for (i = 0; i < hc->n_rails; i++) {
		const struct ibs_rail *r = &hc->rails[i];
		if (!is_roce(r->port))
			continue;
		n_roce++;
		if (r->v2_gid < 0) {
			add(hc, IBS_HC_CRITICAL, "gid.missing", r->dev->name, r->port->num,
			    "%s port %u has no RoCE v2 GID with an IPv4 address (NCCL finds no GID to use)", r->dev->name,
			    r->port->num);
			if (!hc->gid_refusal)
				hc->gid_refusal = xasprintf("%s port %u has no RoCE v2 GID with an IPv4 address", r->dev->name,
							    r->port->num);
		}
	}
	if (!n_roce)
		return;
	if (want < 0) {
		/* No index given: the one most rails have (ties: the lowest). */
		size_t best = 0;
		for (i = 0; i < hc->n_rails; i++) {
			size_t n = 0;
			if (hc->rails[i].v2_gid < 0)
				continue;
			for (j = 0; j < hc->n_rails; j++)
				n += hc->rails[j].v2_gid == hc->rails[i].v2_gid;
			if (n > best || (n == best && hc->rails[i].v2_gid < want)) {
				best = n;
				want = hc->rails[i].v2_gid;
			}
		}
	}
	if (want < 0)
		return;
	for (i = 0; i < hc->n_rails; i++) {
		const struct ibs_rail *r = &hc->rails[i];
		if (!is_roce(r->port) || r->v2_gid < 0)
			continue;
		if (p->gid_index >= 0 ? !has_v2_ipv4_at(r->port, want) : r->v2_gid != want) {
			add(hc, IBS_HC_CRITICAL, "gid.index", r->dev->name, r->port->num,
			    "%s port %u has its RoCE v2 IPv4 GID at index %d, %s %d", r->dev->name, r->port->num, r->v2_gid,
			    p->gid_index >= 0 ? "the profile says" : "the other rails at", want);
			if (!hc->gid_refusal)
				hc->gid_refusal = xasprintf("%s port %u has its RoCE v2 IPv4 GID at index %d, %s %d: no "
							    "single NCCL_IB_GID_INDEX",
							    r->dev->name, r->port->num, r->v2_gid,
							    p->gid_index >= 0 ? "the profile says" : "the other rails at",
							    want);
		}
	}
	if (!hc->gid_refusal)
		hc->gid_index = want;
}

static void check_rails(struct ibs_hostcheck *hc, const struct ibs_host_profile *p, size_t numa_nodes)
{
	const char *fw = p->firmware ? p->firmware : majority(hc, get_fw);
	size_t i;

	hc->link_layer = p->link_layer ? p->link_layer : majority(hc, get_ll);
	hc->want_ports = p->ports >= 0 ? p->ports : (int)hc->n_rails;
	hc->min_rate = p->min_rate;
	if (p->min_rate < 0)
		for (i = 0; i < hc->n_rails; i++)
			if (hc->rails[i].active && hc->rails[i].port->rate_gbps > hc->min_rate)
				hc->min_rate = hc->rails[i].port->rate_gbps;
	if (!hc->n_rails)
		add(hc, IBS_HC_CRITICAL, "rail.count", NULL, 0, "no rail: %s",
		    p->n_rails ? "no device the profile names" : "no device has an Active port");
	else if ((int)hc->n_active < hc->want_ports)
		add(hc, IBS_HC_CRITICAL, "rail.count", NULL, 0, "%zu of %d rail ports Active", hc->n_active, hc->want_ports);
	for (i = 0; i < hc->n_rails; i++) {
		const struct ibs_rail *r = &hc->rails[i];
		const char *dn = r->dev->name;
		unsigned pn = r->port->num;
		if (!r->active)
			add(hc, IBS_HC_CRITICAL, "port.state", dn, pn, "%s port %u is %s (%s), not ACTIVE (LinkUp)", dn, pn,
			    r->port->state ? r->port->state : "in an unknown state",
			    r->port->phys_state ? r->port->phys_state : "unknown");
		else if (hc->min_rate > 0 && r->port->rate_gbps >= 0 && r->port->rate_gbps < hc->min_rate)
			add(hc, IBS_HC_WARNING, "port.rate", dn, pn, "%s port %u runs at %g Gb/s, below %g%s", dn, pn,
			    r->port->rate_gbps, hc->min_rate, p->min_rate < 0 ? " (the fastest rail's)" : "");
		if (hc->link_layer && (!r->port->link_layer || strcmp(r->port->link_layer, hc->link_layer)))
			add(hc, IBS_HC_CRITICAL, "port.link_layer", dn, pn, "%s port %u is %s, the %s %s", dn, pn,
			    r->port->link_layer ? r->port->link_layer : "of an unknown link layer",
			    p->link_layer ? "profile says" : "other rails are", hc->link_layer);
		if (fw && (!r->dev->fw_ver || strcmp(r->dev->fw_ver, fw)) && (i == 0 || r->dev != hc->rails[i - 1].dev))
			add(hc, IBS_HC_WARNING, "firmware", dn, 0, "%s runs firmware %s, the %s %s", dn,
			    r->dev->fw_ver ? r->dev->fw_ver : "(unknown)", p->firmware ? "profile says" : "other rails",
			    fw);
		/* One NUMA node (or none known): nothing to choose, so numa_node -1 says nothing. */
		if (p->numa && numa_nodes > 1 && r->dev->pci && r->dev->numa_node < 0 && (i == 0 || r->dev != hc->rails[i - 1].dev))
			add(hc, IBS_HC_WARNING, "numa.unknown", dn, 0,
			    "%s: NUMA node unknown (numa_node -1) on a host of %zu NUMA nodes: GPU and NIC affinity cannot be "
			    "chosen", dn, numa_nodes);
	}
	check_gids(hc, p);
}

/* Every device not ignored: SR-IOV GUIDs, ports Disabled or Polling, PCIe training. */
static void check_devices(struct ibs_hostcheck *hc, const struct ibs_host *h, const struct ibs_host_profile *p)
{
	size_t i, j, k;

	for (i = 0; i < h->n_devs; i++) {
		const struct ibs_host_dev *d = &h->devs[i];
		if (matches(p->ignore, p->n_ignore, d->name, 0, NULL))
			continue;
		if (d->sriov == IBS_SRIOV_VF && (!d->has_node_guid || !d->node_guid))
			add(hc, IBS_HC_CRITICAL, "vf.guid", d->name, 0,
			    "%s is a VF with node GUID %s: set one (ip link set PF vf N node_guid ...)", d->name,
			    d->has_node_guid ? "0000:0000:0000:0000" : "unknown");
		for (j = 0; j < d->n_ports; j++) {
			const struct ibs_host_port *pt = &d->ports[j];
			bool rail = false;
			if (matches(p->ignore, p->n_ignore, d->name, pt->num, NULL))
				continue;
			for (k = 0; k < hc->n_rails; k++)
				rail |= hc->rails[k].port == pt;
			if (d->sriov == IBS_SRIOV_VF && !is_roce(pt) && (!pt->has_port_guid || !pt->port_guid))
				add(hc, IBS_HC_CRITICAL, "vf.guid", d->name, pt->num,
				    "%s port %u is a VF port with port GUID 0: the subnet manager cannot bring it up", d->name,
				    pt->num);
			if (!rail && pt->phys_state && (!strcmp(pt->phys_state, "Disabled") || !strcmp(pt->phys_state, "Polling")))
				add(hc, IBS_HC_WARNING, "port.disabled", d->name, pt->num, "%s port %u is %s", d->name, pt->num,
				    pt->phys_state);
		}
		if (!p->pcie || !d->pci || d->sriov == IBS_SRIOV_VF)
			continue; /* a VF's link is its PF's */
		if ((d->pcie_width >= 0 && d->pcie_max_width > 0 && d->pcie_width < d->pcie_max_width) ||
		    (d->pcie_speed > 0 && d->pcie_max_speed > 0 && d->pcie_speed < d->pcie_max_speed))
			add(hc, IBS_HC_WARNING, "pcie.degraded", d->name, 0,
			    "%s: PCIe link x%lld at %g GT/s, the device can x%lld at %g GT/s", d->name,
			    (long long)d->pcie_width, d->pcie_speed, (long long)d->pcie_max_width, d->pcie_max_speed);
	}
}

struct ibs_hostcheck *ibs_hostcheck_run(const struct ibs_host *h, const struct ibs_host_profile *p)
{
	struct ibs_hostcheck *hc = xcalloc(1, sizeof(*hc));

	hc->gid_index = -1;
	hc->min_rate = -1;
	pick_rails(hc, h, p);
	check_rails(hc, p, h->n_numa_nodes);
	check_devices(hc, h, p);
	return hc;
}

void ibs_hostcheck_free(struct ibs_hostcheck *hc)
{
	size_t i;

	if (!hc)
		return;
	for (i = 0; i < hc->n_findings; i++) {
		free(hc->findings[i].dev);
		free(hc->findings[i].msg);
	}
	free(hc->findings);
	free(hc->rails);
	free(hc->gid_refusal);
	free(hc);
}
