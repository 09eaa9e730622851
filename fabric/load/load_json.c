/* Loading ibscan's own `topology --json` output (docs/json-schema.md) into the model, every field checked. */
#include "load.h"
#include "../model/names.h"
#include "../../core/base/text.h"
#include "../../core/base/xalloc.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static enum ibs_err jfail(char **msg, const char *name, size_t idx, const char *why)
{
	*msg = xasprintf("%s: node %zu: %s", name, idx, why);
	return IBS_E_INPUT;
}

/* A GUID string, "0x" and 1 to 16 hex digits (core/base/text.h: no sign, no blanks). */
static bool jguid(json_t *v, uint64_t *out)
{
	const char *s = json_string_value(v);

	return s && ibs_guid_parse_all(s, out);
}

/* An optional GUID: absent or null leaves *out as it is; anything else must be a GUID. */
static bool jguid_opt(json_t *v, uint64_t *out)
{
	return !v || json_is_null(v) || jguid(v, out);
}

static bool juint(json_t *v, uint64_t max, uint64_t *out)
{
	json_int_t i;

	if (!json_is_integer(v))
		return false;
	i = json_integer_value(v);
	if (i < 0 || (uint64_t)i > max)
		return false;
	*out = (uint64_t)i;
	return true;
}

/* Absent, null, or an integer from 0 to max. */
static bool jopt_uint(json_t *v, uint64_t max)
{
	uint64_t u;

	return !v || json_is_null(v) || juint(v, max, &u);
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Node i's own fields (not its ports); false with *why when one is missing or bad. */
static bool jnode(json_t *n, size_t i, size_t nn, struct ibs_nodeinfo *ni, struct ibs_addr *path, const char **why)
{
	uint64_t v;
	const char *t = jstr(n, "type"), *dp = jstr(n, "dr_path");

	memset(ni, 0, sizeof(*ni));
	if (!json_is_object(n) || !jguid(json_object_get(n, "guid"), &ni->node_guid)) {
		*why = "missing or bad \"guid\" (want " IBS_GUID_WANT ")";
		return false;
	}
	if (!t || !(ni->node_type = (uint8_t)ibs_node_type_code(t))) {
		*why = "missing or bad \"type\"";
		return false;
	}
	if (!juint(json_object_get(n, "num_ports"), 254, &v)) {
		*why = "missing or bad \"num_ports\"";
		return false;
	}
	ni->num_ports = (uint8_t)v;
	if (!juint(json_object_get(n, "index"), nn - 1, &v) || v != i) {
		*why = "\"index\" must be its position";
		return false;
	}
	if (!jguid_opt(json_object_get(n, "system_image_guid"), &ni->system_image_guid) ||
	    !jguid_opt(json_object_get(n, "port_guid"), &ni->port_guid)) {
		*why = "bad \"system_image_guid\" or \"port_guid\" (want " IBS_GUID_WANT ")";
		return false;
	}
	if (juint(json_object_get(n, "vendor_id"), 0xffffff, &v))
		ni->vendor_id = (uint32_t)v;
	if (juint(json_object_get(n, "device_id"), 0xffff, &v))
		ni->device_id = (uint16_t)v;
	ibs_addr_dr(path, NULL, 0);
	if (dp && ibs_addr_parse(path, dp) != IBS_OK) {
		*why = "bad \"dr_path\"";
		return false;
	}
	return true;
}

/*
 * Port p of node i: its number and, when cabled, the peer's index and port,
 * checked against the declared port counts (nports[]); false with *why.
 */
static bool jport(json_t *p, const uint8_t *nports, size_t i, size_t nn, uint64_t *num, bool *cabled, uint64_t *pi,
		  uint64_t *pp, const char **why)
{
	json_t *pr = json_object_get(p, "peer");
	uint64_t g;

	if (!juint(json_object_get(p, "port"), nports[i], num)) {
		*why = "a port number is missing or out of range";
		return false;
	}
	if (!jguid_opt(json_object_get(p, "guid"), &g)) {
		*why = "a port has a bad \"guid\" (want " IBS_GUID_WANT ")";
		return false;
	}
	/* Optional, but when there, what a LID and an LMC can be (null: not known). */
	if (!jopt_uint(json_object_get(p, "lid"), 0xffff) || !jopt_uint(json_object_get(p, "lmc"), 7)) {
		*why = "a port has a bad \"lid\" (0 to 65535) or \"lmc\" (0 to 7)";
		return false;
	}
	*cabled = json_is_object(pr);
	if (!*cabled)
		return true;
	if (!juint(json_object_get(pr, "index"), nn ? nn - 1 : 0, pi) || !nn || !juint(json_object_get(pr, "port"), 254, pp)) {
		*why = "a peer has a bad index or port";
		return false;
	}
	if (*pp < 1 || *pp > nports[*pi]) {
		*why = "a peer port is out of range";
		return false;
	}
	if (*pi == i && *pp == *num) {
		*why = "a port is its own peer";
		return false;
	}
	return true;
}

/*
 * Nodes get records only for the ports the file lists or cables to (the
 * declared num_ports costs nothing), so the document is read in four passes:
 * nodes checked, ports checked and collected per node, nodes made, ports
 * filled in and cabled.
 */
enum ibs_err ibs_fabric_parse_json(const char *name, const char *buf, size_t len, struct ibs_fabric **out, char **msg)
{
	json_error_t err;
	json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err), *nodes, *n;
	struct ibs_fabric *f = NULL;
	struct ibs_node **byidx = NULL;
	struct ibs_portset *have = NULL;
	uint8_t *nports = NULL;
	size_t i, nn;
	const char *why;
	enum ibs_err rc = IBS_E_INPUT;

	*out = NULL;
	if (!root) {
		*msg = xasprintf("%s:%d: not valid JSON: %s", name, err.line, err.text);
		return IBS_E_INPUT;
	}
	if (!jstr(root, "schema") || strcmp(jstr(root, "schema"), "ibscan.topology/1")) {
		*msg = xasprintf("%s: not an ibscan topology (want \"schema\": \"ibscan.topology/1\", from "
				 "'ibscan topology --json')", name);
		json_decref(root);
		return IBS_E_INPUT;
	}
	nodes = json_object_get(root, "nodes");
	if (!json_is_array(nodes) || json_array_size(nodes) > IBS_TOPO_MAX_NODES) {
		*msg = xasprintf("%s: \"nodes\" is not an array of at most %d nodes", name, IBS_TOPO_MAX_NODES);
		json_decref(root);
		return IBS_E_INPUT;
	}
	nn = json_array_size(nodes);
	nports = xcalloc(nn ? nn : 1, sizeof(*nports));
	have = xcalloc(nn ? nn : 1, sizeof(*have));
	json_array_foreach(nodes, i, n) {
		struct ibs_nodeinfo ni;
		struct ibs_addr path;
		if (!jnode(n, i, nn, &ni, &path, &why)) {
			rc = jfail(msg, name, i, why);
			goto fail;
		}
		nports[i] = ni.num_ports;
	}
	json_array_foreach(nodes, i, n) {
		json_t *ports = json_object_get(n, "ports"), *p;
		size_t k;
		uint64_t num, pi, pp;
		bool cabled;

		uint8_t listed[256 / 8] = { 0 };

		/* A nodes-only document has no ports, and so no links. */
		json_array_foreach(ports, k, p) {
			if (!jport(p, nports, i, nn, &num, &cabled, &pi, &pp, &why)) {
				rc = jfail(msg, name, i, why);
				goto fail;
			}
			if (listed[num / 8] & (1u << (num % 8))) {
				rc = jfail(msg, name, i, "a port is listed twice");
				goto fail;
			}
			listed[num / 8] |= (uint8_t)(1u << (num % 8));
			ibs_portset_add(&have[i], (unsigned)num);
			if (cabled)
				ibs_portset_add(&have[pi], (unsigned)pp);
		}
	}
	f = ibs_fabric_new();
	byidx = xcalloc(nn ? nn : 1, sizeof(*byidx));
	json_array_foreach(nodes, i, n) {
		struct ibs_nodeinfo ni;
		struct ibs_addr path;
		const char *desc = jstr(n, "description");

		jnode(n, i, nn, &ni, &path, &why);
		byidx[i] = ibs_fabric_add_node_ports(f, &ni, &path, &have[i]);
		if (desc)
			ibs_node_set_desc(byidx[i], desc, strlen(desc));
	}
	json_array_foreach(nodes, i, n) {
		json_t *ports = json_object_get(n, "ports"), *p;
		size_t k;

		json_array_foreach(ports, k, p) {
			struct ibs_port *pt;
			uint64_t v, num, pi, pp;
			const char *s;
			unsigned sp, ex;
			bool cabled;

			jport(p, nports, i, nn, &num, &cabled, &pi, &pp, &why);
			pt = ibs_node_port(byidx[i], (unsigned)num);
			if ((s = jstr(p, "state"))) {
				pt->valid = true;
				pt->pi.state = (uint8_t)ibs_port_state_code(s);
				if ((s = jstr(p, "phys_state")))
					pt->pi.phys_state = (uint8_t)ibs_phys_state_code(s);
				if (juint(json_object_get(p, "lid"), 0xffff, &v))
					pt->pi.lid = (uint16_t)v;
				if (juint(json_object_get(p, "lmc"), 7, &v))
					pt->pi.lmc = (uint8_t)v;
				if ((s = jstr(p, "width")))
					pt->pi.width_active = (uint8_t)ibs_width_code(s);
				if ((s = jstr(p, "speed")) && ibs_speed_code(s, &sp, &ex)) {
					pt->pi.speed_active = (uint8_t)sp;
					pt->pi.speed_ext_active = (uint8_t)ex;
				}
			}
			jguid_opt(json_object_get(p, "guid"), &pt->guid); /* checked by jport() */
			if (cabled)
				ibs_fabric_connect(byidx[i], (uint8_t)num, byidx[pi], (uint8_t)pp);
		}
	}
	{
		json_t *local = json_object_get(root, "local");
		uint64_t v;
		if (json_is_object(local)) {
			if (!jguid_opt(json_object_get(local, "node_guid"), &f->local.node_guid) ||
			    !jguid_opt(json_object_get(local, "port_guid"), &f->local.port_guid)) {
				*msg = xasprintf("%s: \"local\" has a bad GUID (want " IBS_GUID_WANT ")", name);
				rc = IBS_E_INPUT;
				goto fail;
			}
			if (juint(json_object_get(local, "lid"), 0xffff, &v))
				f->local.lid = (uint16_t)v;
			if (juint(json_object_get(local, "sm_lid"), 0xffff, &v))
				f->local.sm_lid = (uint16_t)v;
		}
		f->partial = json_is_true(json_object_get(root, "partial"));
	}
	free(byidx);
	free(have);
	free(nports);
	json_decref(root);
	ibs_fabric_sort(f);
	*out = f;
	return IBS_OK;
fail:
	free(byidx);
	free(have);
	free(nports);
	json_decref(root);
	ibs_fabric_free(f);
	return rc;
}
