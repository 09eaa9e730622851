/* Loading an ibnetdiscover topology file (netfile) into the model; errors name the file and line. */
#include "filekind.h"
#include "load.h"
#include "../model/names.h"
#include "../../core/base/log.h"
#include "../../core/base/text.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

struct nf_node {
	char *id;
	unsigned type, nports;
	uint64_t guid, sysguid;
	uint32_t vendor;
	uint16_t device;
	char *desc;               /* as the file has it: cleaned when the node is made */
	uint16_t lid;
	unsigned line;
	struct nf_port {
		unsigned port;
		char *peer_id;
		unsigned peer_port;
		uint64_t guid;
		uint16_t lid;
		unsigned width, speed, ext;
		unsigned line;
		struct nf_node *peer;
	} *ports;
	size_t n_ports, cap_ports;
	struct ibs_portset have; /* its ports the file lists, or cables to */
	struct ibs_node *made;
};

static enum ibs_err nfail(char **msg, const char *name, unsigned line, const char *why)
{
	*msg = xasprintf("%s:%u: %s", name, line, why);
	return IBS_E_INPUT;
}

/* "..." starting at *p; returns a copy and moves *p past it. */
static char *quoted(const char **p)
{
	const char *s = strchr(*p, '"'), *e;

	if (!s || !(e = strchr(s + 1, '"')))
		return NULL;
	*p = e + 1;
	return xstrndup(s + 1, (size_t)(e - s - 1));
}

/* The last "NxSPEED" token of a comment, as ibnetdiscover writes the link rate. */
static void parse_rate(const char *c, unsigned *w, unsigned *sp, unsigned *ex)
{
	const char *p = c;
	char tok[32];

	*w = *sp = *ex = 0;
	while (*p) {
		size_t n;
		while (*p && isspace((unsigned char)*p))
			p++;
		n = strcspn(p, " \t");
		if (n && n < sizeof(tok)) {
			unsigned width;
			char rest[16];
			memcpy(tok, p, n);
			tok[n] = '\0';
			if (sscanf(tok, "%ux%15s", &width, rest) == 2) {
				char ws[8];
				snprintf(ws, sizeof(ws), "%ux", width);
				if (ibs_width_code(ws) && ibs_speed_code(rest, sp, ex))
					*w = ibs_width_code(ws);
			}
		}
		p += n;
	}
}

static uint64_t guid_from_id(const char *id)
{
	const char *end;
	uint64_t g;

	if (strlen(id) != 18 || id[1] != '-' || !strchr("SHR", id[0]))
		return 0;
	end = ibs_guid_parse(id + 2, IBS_GUID_BARE, &g);
	return end && !*end ? g : 0;
}

/* The GUID of a "key=GUID" line as ibnetdiscover writes it: then nothing, a blank or "(port GUID)". */
static bool nf_guid(const char *s, uint64_t *out)
{
	const char *end = ibs_guid_parse(s, 0, out);

	return end && (!*end || isspace((unsigned char)*end) || *end == '(');
}

static void nf_free(struct nf_node *v, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i].n_ports; k++)
			free(v[i].ports[k].peer_id);
		free(v[i].ports);
		free(v[i].id);
		free(v[i].desc);
	}
	free(v);
}

/* Node ids sorted, then by position (the first of equal ids wins): peers are found by bsearch. */
struct nf_id {
	const char *id;
	size_t i;
};

static int nf_id_cmp(const void *a, const void *b)
{
	const struct nf_id *x = a, *y = b;
	int c = strcmp(x->id, y->id);

	return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

static struct nf_node *nf_find(struct nf_node *v, const struct nf_id *ord, size_t n, const char *id)
{
	size_t lo = 0, hi = n;

	/* The first entry whose id is not below id. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ord[mid].id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(ord[lo].id, id) ? &v[ord[lo].i] : NULL;
}

static unsigned uint_after(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	return p ? (unsigned)strtoul(p + strlen(key), NULL, 10) : 0;
}

/*
 * Lines of `ibnetdiscover -g` (grouping) that carry nothing the model keeps:
 * "Chassis 3 (guid 0x2c90300a00000)", "Non-Chassis Nodes", a Xsigo chassis's
 * "Hostname: NAME", and separator lines of '-', '=' or '*' that people put
 * between saved sections. The chassis a node belongs to is its system image
 * GUID, which its own sysimgguid= line gives.
 */
static bool grouping_line(const char *p)
{
	if (!strncmp(p, "Chassis ", 8) && isdigit((unsigned char)p[8]))
		return true;
	if (!strncmp(p, "Non-Chassis Nodes", 17) || !strncmp(p, "Hostname: ", 10))
		return true;
	return strlen(p) >= 3 && strspn(p, "-=* \t\r") == strlen(p);
}

/* Past "[ext N]", the external port number -g prints after an internal one; p itself when there is none. */
static const char *past_ext(const char *p)
{
	const char *q;

	if (strncmp(p, "[ext ", 5))
		return p;
	for (q = p + 5; isdigit((unsigned char)*q); q++)
		;
	return q > p + 5 && *q == ']' ? q + 1 : p;
}

/* The error for line ln, or for the whole file when it is some other tool's output. */
static enum ibs_err nfail_kind(char **msg, const char *name, unsigned line, const char *why, const char *buf,
			       size_t len)
{
	enum ibs_file_kind k = ibs_file_kind_of(buf, len);

	if (k != IBS_FK_NETFILE && (*msg = ibs_file_kind_msg(name, k, "an ibnetdiscover topology file")))
		return IBS_E_INPUT;
	return nfail(msg, name, line, why);
}

enum ibs_err ibs_fabric_parse_netfile(const char *name, const char *buf, size_t len, struct ibs_fabric **out,
				      char **msg)
{
	struct nf_node *v = NULL, *cur = NULL;
	size_t n = 0, cap = 0, pos = 0, i, k;
	struct nf_id *ord = NULL;
	unsigned ln = 0, n_diags = 0, first_diag = 0;
	uint64_t next_guid = 0, sysguid = 0;
	uint32_t vendor = 0;
	uint16_t device = 0;
	enum ibs_err rc = IBS_OK;
	struct ibs_fabric *f;
	char line[4096];

	*out = NULL;
	if (len && memchr(buf, '\0', len))
		return nfail(msg, name, ibs_text_line_of(buf, memchr(buf, '\0', len)),
			     "NUL byte: not a topology file (binary?)");
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos), *p;
		size_t ll = nl ? (size_t)(nl - s) : len - pos;

		ln++;
		pos += ll + (nl ? 1 : 0);
		if (ll >= sizeof(line)) {
			rc = nfail(msg, name, ln, "line too long");
			goto fail;
		}
		memcpy(line, s, ll);
		line[ll] = '\0';
		for (p = line; isspace((unsigned char)*p); p++)
			;
		if (!*p || *p == '#' || grouping_line(p))
			continue;
		/* A topology saved with 2>&1 holds what ibnetdiscover said on stderr: skipped, counted. */
		if (ibs_is_diags_line(p)) {
			if (!n_diags++)
				first_diag = ln;
			continue;
		}
		if (!strncmp(p, "vendid=", 7)) {
			vendor = (uint32_t)strtoul(p + 7, NULL, 0);
		} else if (!strncmp(p, "devid=", 6)) {
			device = (uint16_t)strtoul(p + 6, NULL, 0);
		} else if (!strncmp(p, "sysimgguid=", 11) || !strncmp(p, "switchguid=", 11) || !strncmp(p, "caguid=", 7) ||
			   !strncmp(p, "rtguid=", 7) || !strncmp(p, "hcaguids=", 9)) {
			if (!nf_guid(strchr(p, '=') + 1, !strncmp(p, "sys", 3) ? &sysguid : &next_guid)) {
				rc = nfail(msg, name, ln, "bad GUID (want " IBS_GUID_WANT ")");
				goto fail;
			}
		} else if (!strncmp(p, "Switch", 6) || !strncmp(p, "Ca", 2) || !strncmp(p, "Hca", 3) ||
			   !strncmp(p, "Rt", 2)) {
			char *end;
			const char *q = p;
			unsigned long np;
			char *id, *desc;

			while (*q && !isspace((unsigned char)*q))
				q++;
			np = strtoul(q, &end, 10);
			if (end == q || np < 1 || np > 254) {
				rc = nfail_kind(msg, name, ln, "node line: bad port count", buf, len);
				goto fail;
			}
			q = end;
			id = quoted(&q);
			if (!id) {
				rc = nfail(msg, name, ln, "node line: missing quoted node id");
				goto fail;
			}
			if (n >= IBS_TOPO_MAX_NODES) {
				free(id);
				rc = nfail(msg, name, ln, "too many nodes");
				goto fail;
			}
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			cur = &v[n++];
			memset(cur, 0, sizeof(*cur));
			cur->id = id;
			cur->line = ln;
			cur->type = p[0] == 'S' ? IBS_NODE_SWITCH : p[0] == 'R' ? IBS_NODE_ROUTER : IBS_NODE_CA;
			cur->nports = (unsigned)np;
			cur->guid = next_guid ? next_guid : guid_from_id(id);
			cur->sysguid = sysguid ? sysguid : cur->guid;
			cur->vendor = vendor;
			cur->device = device;
			if (!cur->guid) {
				rc = nfail(msg, name, ln, "node has no GUID (no switchguid=/caguid= line, and its id is not S-/H-<guid>)");
				goto fail;
			}
			if ((desc = strchr(q, '#'))) {
				const char *dq = desc;
				/* The LID follows the quoted description, which may hold " lid " itself. */
				cur->desc = quoted(&dq);
				cur->lid = (uint16_t)uint_after(cur->desc ? dq : desc, " lid ");
			}
			next_guid = sysguid = 0;
			vendor = device = 0;
		} else if (*p == '[') {
			struct nf_port *pt;
			char *end;
			const char *q = p + 1, *comment;
			unsigned long port = strtoul(q, &end, 10);

			if (!cur) {
				rc = nfail(msg, name, ln, "port line before any node line");
				goto fail;
			}
			if (end == q || *end != ']' || port < 1 || port > cur->nports) {
				rc = nfail(msg, name, ln, "port line: bad port number");
				goto fail;
			}
			cur->ports = xgrow(cur->ports, &cur->cap_ports, cur->n_ports + 1, sizeof(*cur->ports));
			pt = &cur->ports[cur->n_ports++];
			memset(pt, 0, sizeof(*pt));
			pt->port = (unsigned)port;
			pt->line = ln;
			q = past_ext(end + 1);
			if (*q == '(') {
				q = ibs_guid_parse(q + 1, IBS_GUID_BARE, &pt->guid);
				if (!q || *q != ')') {
					rc = nfail(msg, name, ln, "port line: bad (port GUID) (want 1 to 16 hex digits)");
					goto fail;
				}
				q++;
			}
			pt->peer_id = quoted(&q);
			if (!pt->peer_id || *q != '[') {
				rc = nfail(msg, name, ln, "port line: want [port] \"peer\"[port]");
				goto fail;
			}
			pt->peer_port = (unsigned)strtoul(q + 1, &end, 10);
			if (*end != ']' || pt->peer_port < 1 || pt->peer_port > 254) {
				rc = nfail(msg, name, ln, "port line: bad peer port number");
				goto fail;
			}
			if ((comment = strchr(past_ext(end + 1), '#'))) {
				parse_rate(comment, &pt->width, &pt->speed, &pt->ext);
				if (cur->type != IBS_NODE_SWITCH)
					pt->lid = (uint16_t)uint_after(comment, "# lid ");
			}
		} else {
			rc = nfail_kind(msg, name, ln, "unrecognised line (not ibnetdiscover topology format)", buf, len);
			goto fail;
		}
	}
	if (!n) {
		rc = n_diags ? nfail(msg, name, first_diag,
				     "no nodes, only ibnetdiscover's diagnostics: the walk that wrote it failed")
			     : nfail_kind(msg, name, ln ? ln : 1, "no nodes: not an ibnetdiscover topology file", buf, len);
		goto fail;
	}
	ord = xmalloc(n * sizeof(*ord));
	for (i = 0; i < n; i++) {
		ord[i].id = v[i].id;
		ord[i].i = i;
	}
	qsort(ord, n, sizeof(*ord), nf_id_cmp);
	/* Every cable's far end, and so which port records each node needs. */
	for (i = 0; i < n; i++) {
		if (v[i].type == IBS_NODE_SWITCH)
			ibs_portset_add(&v[i].have, 0);
		for (k = 0; k < v[i].n_ports; k++) {
			struct nf_port *np = &v[i].ports[k];
			struct nf_node *peer = nf_find(v, ord, n, np->peer_id);
			if (!peer || np->peer_port > peer->nports) {
				rc = nfail(msg, name, np->line, peer ? "peer port beyond the peer's port count"
								   : "peer node id not defined in the file");
				goto fail;
			}
			np->peer = peer;
			ibs_portset_add(&v[i].have, np->port);
			ibs_portset_add(&peer->have, np->peer_port);
		}
	}
	f = ibs_fabric_new();
	for (i = 0; i < n; i++) {
		struct ibs_nodeinfo ni;
		struct ibs_addr path;
		memset(&ni, 0, sizeof(ni));
		ni.node_type = (uint8_t)v[i].type;
		ni.num_ports = (uint8_t)v[i].nports;
		ni.node_guid = v[i].guid;
		ni.system_image_guid = v[i].sysguid;
		ni.port_guid = v[i].guid;
		ni.vendor_id = v[i].vendor;
		ni.device_id = v[i].device;
		ibs_addr_dr(&path, NULL, 0);
		v[i].made = ibs_fabric_add_node_ports(f, &ni, &path, &v[i].have);
		if (v[i].desc && v[i].desc[0])
			ibs_node_set_desc(v[i].made, v[i].desc, strlen(v[i].desc));
		if (v[i].type == IBS_NODE_SWITCH) {
			struct ibs_port *p0 = ibs_node_port(v[i].made, 0);
			p0->valid = true;
			p0->pi.lid = v[i].lid;
			p0->pi.state = IBS_PORT_ACTIVE;
			p0->pi.phys_state = IBS_PHYS_LINKUP;
		}
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < v[i].n_ports; k++) {
			struct nf_port *np = &v[i].ports[k];
			struct ibs_port *pt = ibs_node_port(v[i].made, np->port);
			/* A netfile lists only cables; a listed port was linked and Active. */
			pt->valid = true;
			pt->pi.state = IBS_PORT_ACTIVE;
			pt->pi.phys_state = IBS_PHYS_LINKUP;
			pt->pi.width_active = (uint8_t)np->width;
			pt->pi.speed_active = (uint8_t)np->speed;
			pt->pi.speed_ext_active = (uint8_t)np->ext;
			pt->pi.lid = v[i].type == IBS_NODE_SWITCH ? v[i].lid : np->lid;
			pt->guid = np->guid ? np->guid : v[i].guid;
			ibs_fabric_connect(v[i].made, (uint8_t)np->port, np->peer->made, (uint8_t)np->peer_port);
		}
	}
	nf_free(v, n);
	free(ord);
	ibs_fabric_sort(f);
	if (n_diags)
		log_warn("%s: skipped %u line%s that %s ibnetdiscover's diagnostics (its stderr, saved with 2>&1), "
			 "first at line %u", name, n_diags, n_diags == 1 ? "" : "s", n_diags == 1 ? "is" : "are",
			 first_diag);
	*out = f;
	return IBS_OK;
fail:
	nf_free(v, n);
	free(ord);
	return rc;
}
