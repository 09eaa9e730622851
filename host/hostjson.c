/*
 * A host view read back from `ibscan local --json` (ibscan.local/1), for
 * `ibscan fleet`: untrusted input, bounded as sysfs is (hostinfo.c), every
 * field type-checked; a field that is absent or null is unknown, as in sysfs.
 */
#include "hostjson.h"
#include "sysfs.h"
#include "../core/base/xalloc.h"
#include "../core/mad/mad.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVS 1024
#define MAX_PORTS 256
#define MAX_GIDS 4096
#define MAX_STR 4096
#define MAX_IPOIB 64

/* A string field (copied), NULL when absent or null; false when of another type or too long. */
static bool jstr(json_t *o, const char *k, char **out)
{
	json_t *v = json_object_get(o, k);

	*out = NULL;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_string(v) || json_string_length(v) > MAX_STR || strlen(json_string_value(v)) != json_string_length(v))
		return false;
	*out = xstrdup(json_string_value(v));
	return true;
}

/* A number field at most max, -1 when absent or null; false when of another type or out of range. */
static bool jnum(json_t *o, const char *k, int64_t max, int64_t *out)
{
	json_t *v = json_object_get(o, k);

	*out = -1;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return false;
	*out = json_integer_value(v);
	return true;
}

static bool jreal(json_t *o, const char *k, double *out)
{
	json_t *v = json_object_get(o, k);

	*out = -1;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_number(v) || !(json_number_value(v) >= 0 && json_number_value(v) <= 1e6))
		return false;
	*out = json_number_value(v);
	return true;
}

static bool jguid(json_t *o, const char *k, bool *has, uint64_t *out)
{
	const char *s = json_string_value(json_object_get(o, k));
	char *end;

	*has = false;
	*out = 0;
	if (!s)
		return !json_object_get(o, k) || json_is_null(json_object_get(o, k));
	if (strncmp(s, "0x", 2) || strlen(s) != 18)
		return false;
	*out = strtoull(s + 2, &end, 16);
	*has = !*end;
	return *has;
}

static int state_num(const char *s)
{
	/* sysfs's words for PortState; the kernel adds ACTIVE_DEFER after Active. */
	static const char *const names[] = {
		[IBS_PORT_NOP] = "NOP",     [IBS_PORT_DOWN] = "DOWN",     [IBS_PORT_INIT] = "INIT",
		[IBS_PORT_ARMED] = "ARMED", [IBS_PORT_ACTIVE] = "ACTIVE", [IBS_PORT_ACTIVE + 1] = "ACTIVE_DEFER",
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

static const char *load_port(json_t *jp, struct ibs_host_port *p)
{
	json_t *gids = json_object_get(jp, "gids"), *g, *ipoib;
	int64_t v;
	size_t i;

	memset(p, 0, sizeof(*p));
	p->rate_gbps = p->lid = p->sm_lid = p->lmc = -1;
	p->probe_gid = -1;
	if (!json_is_object(jp) || !jnum(jp, "port", 254, &v) || v < 1)
		return "a port without a number from 1 to 254";
	p->num = (unsigned)v;
	if (!jstr(jp, "state", &p->state) || !jstr(jp, "phys_state", &p->phys_state) ||
	    !jstr(jp, "link_layer", &p->link_layer) || !jstr(jp, "rate", &p->rate) || !jstr(jp, "width", &p->width) ||
	    !jstr(jp, "speed", &p->speed) || !jstr(jp, "netdev", &p->netdev) || !jreal(jp, "rate_gbps", &p->rate_gbps) ||
	    !jnum(jp, "lid", 0xffff, &p->lid) || !jnum(jp, "sm_lid", 0xffff, &p->sm_lid) || !jnum(jp, "lmc", 7, &p->lmc) ||
	    !jguid(jp, "port_guid", &p->has_port_guid, &p->port_guid))
		return "a port field of the wrong type";
	p->state_num = state_num(p->state);
	if (gids && !json_is_null(gids) && (!json_is_array(gids) || json_array_size(gids) > MAX_GIDS))
		return "\"gids\" is not an array of at most 4096 entries";
	p->gids = xcalloc(json_array_size(gids) ? json_array_size(gids) : 1, sizeof(*p->gids));
	json_array_foreach(gids, i, g) {
		struct ibs_host_gid *x = &p->gids[p->n_gids];
		const char *text = json_string_value(json_object_get(g, "gid"));
		if (!json_is_object(g) || !jnum(g, "index", 0xffff, &v) || v < 0 || !text ||
		    !ibs_sysfs_parse_gid(text, x->gid))
			return "a GID without an index or a GID the kernel would print";
		x->index = (unsigned)v;
		p->n_gids++;
		if (!jstr(g, "type", &x->type) || !jstr(g, "netdev", &x->netdev))
			return "a GID field of the wrong type";
		if (p->n_gids > 1 && x->index <= p->gids[p->n_gids - 2].index)
			return "GIDs not in ascending index order";
	}
	if (!jnum(jp, "probe_gid_index", 0xffff, &v))
		return "a port field of the wrong type";
	for (i = 0; v >= 0 && i < p->n_gids; i++)
		if (p->gids[i].index == (unsigned)v)
			p->probe_gid = (int)i;
	if (v >= 0 && p->probe_gid < 0)
		return "\"probe_gid_index\" names no GID of the port";
	ipoib = json_object_get(jp, "ipoib");
	if (ipoib && !json_is_null(ipoib) && (!json_is_array(ipoib) || json_array_size(ipoib) > MAX_IPOIB))
		return "\"ipoib\" is not an array of at most 64 interfaces";
	p->ipoib = xcalloc(json_array_size(ipoib) ? json_array_size(ipoib) : 1, sizeof(*p->ipoib));
	json_array_foreach(ipoib, i, g) {
		struct ibs_host_ipoib *n = &p->ipoib[p->n_ipoib++];
		if (!json_is_object(g) || !jstr(g, "name", &n->name) || !n->name || !jstr(g, "operstate", &n->operstate))
			return "an IPoIB interface without a name";
	}
	return NULL;
}

static const char *load_dev(json_t *jd, struct ibs_host_dev *d)
{
	json_t *pci = json_object_get(jd, "pci"), *ports = json_object_get(jd, "ports"), *jp;
	char *sriov = NULL, *known_by = NULL;
	size_t i;
	const char *why;

	memset(d, 0, sizeof(*d));
	d->vendor_id = d->device_id = d->sriov_totalvfs = d->sriov_numvfs = -1;
	d->numa_node = d->pcie_width = d->pcie_max_width = -1;
	d->pcie_speed = d->pcie_max_speed = -1;
	if (!json_is_object(jd) || !jstr(jd, "name", &d->name) || !d->name || !*d->name || strlen(d->name) > 64)
		return "a device without a name (of at most 64 bytes)";
	if (!jguid(jd, "node_guid", &d->has_node_guid, &d->node_guid) ||
	    !jguid(jd, "system_image_guid", &d->has_sys_guid, &d->sys_image_guid) || !jstr(jd, "node_type", &d->node_type) ||
	    !jstr(jd, "fw_ver", &d->fw_ver) || !jstr(jd, "board_id", &d->board_id) || !jstr(jd, "hca_type", &d->hca_type) ||
	    !jstr(jd, "node_desc", &d->node_desc))
		return "a device field of the wrong type";
	if (pci && !json_is_null(pci)) {
		if (!json_is_object(pci) || !jstr(pci, "address", &d->pci) || !jnum(pci, "vendor_id", 0xffff, &d->vendor_id) ||
		    !jnum(pci, "device_id", 0xffff, &d->device_id) || !jstr(pci, "sriov", &sriov) ||
		    !jstr(pci, "physfn", &d->physfn) || !jnum(pci, "sriov_numvfs", 0xffff, &d->sriov_numvfs) ||
		    !jnum(pci, "sriov_totalvfs", 0xffff, &d->sriov_totalvfs) || !jnum(pci, "numa_node", 4095, &d->numa_node) ||
		    !jnum(pci, "link_width", 32, &d->pcie_width) || !jnum(pci, "max_link_width", 32, &d->pcie_max_width) ||
		    !jreal(pci, "link_speed_gts", &d->pcie_speed) || !jreal(pci, "max_link_speed_gts", &d->pcie_max_speed) ||
		    !jstr(pci, "vf_known_by", &known_by)) {
			free(sriov);
			free(known_by);
			return "a \"pci\" field of the wrong type";
		}
		d->sriov = !sriov ? IBS_SRIOV_NONE : !strcmp(sriov, "pf") ? IBS_SRIOV_PF : !strcmp(sriov, "vf") ? IBS_SRIOV_VF
													  : IBS_SRIOV_NONE;
		d->vf_by_id = d->sriov == IBS_SRIOV_VF && known_by && !strcmp(known_by, "device_id");
		free(sriov);
		free(known_by);
	}
	if (!json_is_array(ports) || json_array_size(ports) > MAX_PORTS)
		return "\"ports\" is not an array of at most 256 ports";
	d->ports = xcalloc(json_array_size(ports) ? json_array_size(ports) : 1, sizeof(*d->ports));
	json_array_foreach(ports, i, jp) {
		why = load_port(jp, &d->ports[d->n_ports++]);
		if (why)
			return why;
	}
	return NULL;
}

enum ibs_err ibs_host_parse_json(const char *name, const char *buf, size_t len, struct ibs_host **out, char **msg)
{
	json_error_t err;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err), *devs, *jd;
	struct ibs_host *h;
	const char *why = NULL;
	size_t i;

	*out = NULL;
	if (!root) {
		*msg = xasprintf("%s:%d: not valid JSON: %s", name, err.line, err.text);
		return IBS_E_INPUT;
	}
	if (!json_is_object(root) || !json_string_value(json_object_get(root, "schema")) ||
	    strcmp(json_string_value(json_object_get(root, "schema")), "ibscan.local/1")) {
		*msg = xasprintf("%s: not a host view (want \"schema\": \"ibscan.local/1\", from 'ibscan local --json')", name);
		json_decref(root);
		return IBS_E_INPUT;
	}
	devs = json_object_get(root, "devices");
	if (!json_is_array(devs) || json_array_size(devs) > MAX_DEVS) {
		*msg = xasprintf("%s: \"devices\" is not an array of at most %d devices", name, MAX_DEVS);
		json_decref(root);
		return IBS_E_INPUT;
	}
	h = xcalloc(1, sizeof(*h));
	if (json_is_integer(json_object_get(root, "numa_nodes")) && json_integer_value(json_object_get(root, "numa_nodes")) >= 0 &&
	    json_integer_value(json_object_get(root, "numa_nodes")) <= 4096)
		h->n_numa_nodes = (size_t)json_integer_value(json_object_get(root, "numa_nodes"));
	h->devs = xcalloc(json_array_size(devs) ? json_array_size(devs) : 1, sizeof(*h->devs));
	json_array_foreach(devs, i, jd) {
		why = load_dev(jd, &h->devs[h->n_devs++]);
		if (why) {
			*msg = xasprintf("%s: device %zu: %s", name, i, why);
			break;
		}
	}
	json_decref(root);
	if (why) {
		ibs_host_free(h);
		return IBS_E_INPUT;
	}
	*out = h;
	return IBS_OK;
}
