/*
 * The ibnetdiscover topology format ("netfile"), which ibsim loads. The local
 * node comes first because ibsim attaches clients to the first node of the
 * file; then switches, CAs and routers, each by GUID. Node ids are
 * "S-<guid>" / "H-<guid>" / "R-<guid>" as ibnetdiscover writes them, with a
 * "-<n>" suffix for the second and later nodes sharing a GUID.
 */
#include "netfile.h"
#include "../fabric/model/names.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Per node (by index): how many nodes before it share its GUID. Found once, by sorting. */
struct guid_at {
	uint64_t guid;
	size_t index;
};

static int by_guid_then_index(const void *a, const void *b)
{
	const struct guid_at *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static unsigned *dup_ordinals(const struct ibs_fabric *f)
{
	struct guid_at *g = xcalloc(f->n_nodes + 1, sizeof(*g));
	unsigned *dup = xcalloc(f->n_nodes + 1, sizeof(*dup));
	size_t i;

	/* A node's index is its place in f->nodes (ibs_fabric_add_node, ibs_fabric_sort). */
	for (i = 0; i < f->n_nodes; i++)
		g[i] = (struct guid_at){ f->nodes[i]->ni.node_guid, i };
	qsort(g, f->n_nodes, sizeof(*g), by_guid_then_index);
	for (i = 1; i < f->n_nodes; i++)
		if (g[i].guid == g[i - 1].guid)
			dup[g[i].index] = dup[g[i - 1].index] + 1;
	free(g);
	return dup;
}

static char *node_id(const unsigned *dups, const struct ibs_node *n)
{
	char t = n->ni.node_type == IBS_NODE_SWITCH ? 'S' : n->ni.node_type == IBS_NODE_ROUTER ? 'R' : 'H';
	unsigned dup = dups[n->index];

	if (dup)
		return xasprintf("%c-%016" PRIx64 "-%u", t, n->ni.node_guid, dup);
	return xasprintf("%c-%016" PRIx64, t, n->ni.node_guid);
}

/*
 * A name inside a "..." comment, as ibsim's parser (ibsim/sim_net.c) reads
 * it. Names are cleaned when they enter (no newline or control character
 * is left); here '"' would end the string, and '=' anywhere after a port's
 * peer is read as a port option ("w=", "s=", "e=") that fails the whole
 * file: both become \xNN like the cleaner's escapes. ibsim reads lines of
 * at most 255 bytes and keeps 63 bytes of a description: longer names are
 * cut to NETFILE_DESC_MAX, at a character boundary, so every line fits.
 */
#define NETFILE_DESC_MAX 128

static char *safe_desc(const struct ibs_node *n)
{
	const char *s = ibs_node_name(n);
	struct strbuf sb = STRBUF_INIT;

	for (; *s; s++) {
		size_t before = sb.len;
		if (*s == '"' || *s == '=')
			sb_addf(&sb, "\\x%02x", (unsigned char)*s);
		else
			sb_addc(&sb, *s);
		if (sb.len > NETFILE_DESC_MAX) {
			/* Drop what did not fit, and the start of a character it cut. */
			ibs_text_cut(sb.buf, before);
			sb.len = strlen(sb.buf);
			break;
		}
	}
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}

static void rate(const struct ibs_port *p, char *buf, size_t len)
{
	if (p->valid)
		snprintf(buf, len, "%s%s", ibs_width_str(p->pi.width_active),
			 ibs_speed_str(p->pi.speed_active, p->pi.speed_ext_active));
	else
		snprintf(buf, len, "4xSDR");
}

static void write_node(FILE *out, const unsigned *dups, const struct ibs_node *n)
{
	char *id = node_id(dups, n), *desc = safe_desc(n), r[32];
	const char *type = n->ni.node_type == IBS_NODE_SWITCH ? "Switch" : n->ni.node_type == IBS_NODE_ROUTER ? "Rt" : "Ca";
	const struct ibs_port *pt, *p0 = ibs_node_port(n, 0);

	fprintf(out, "vendid=0x%x\ndevid=0x%x\nsysimgguid=0x%" PRIx64 "\n", n->ni.vendor_id, n->ni.device_id,
		n->ni.system_image_guid);
	if (n->ni.node_type == IBS_NODE_SWITCH) {
		fprintf(out, "switchguid=0x%" PRIx64 "(%" PRIx64 ")\n", n->ni.node_guid, n->ni.port_guid);
		fprintf(out, "Switch\t%u \"%s\"\t\t# \"%s\" %s port 0 lid %u lmc %u\n", n->ni.num_ports, id, desc,
			n->has_si && n->si.enhanced_port0 ? "enhanced" : "base", ibs_node_lid(n),
			p0 && p0->valid ? p0->pi.lmc : 0);
	} else {
		fprintf(out, "%s=0x%" PRIx64 "\n", n->ni.node_type == IBS_NODE_ROUTER ? "rtguid" : "caguid",
			n->ni.node_guid);
		fprintf(out, "%s\t%u \"%s\"\t\t# \"%s\"\n", type, n->ni.num_ports, id, desc);
	}
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		const struct ibs_node *peer = pt->peer;
		const struct ibs_port *far = peer ? ibs_node_port(peer, pt->peer_port) : NULL;
		unsigned p = pt->num;
		char *pid, *pdesc;
		uint16_t plid;

		if (!peer)
			continue;
		pid = node_id(dups, peer);
		pdesc = safe_desc(peer);
		rate(pt, r, sizeof(r));
		plid = ibs_port_peer_lid(pt);
		if (n->ni.node_type == IBS_NODE_SWITCH) {
			fprintf(out, "[%u]\t\"%s\"[%u]", p, pid, pt->peer_port);
			if (peer->ni.node_type != IBS_NODE_SWITCH)
				fprintf(out, "(%" PRIx64 ") ", far ? far->guid : 0);
			fprintf(out, "\t\t# \"%s\" lid %u %s\n", pdesc, plid, r);
		} else {
			fprintf(out, "[%u](%" PRIx64 ") \t\"%s\"[%u]", p, pt->guid, pid, pt->peer_port);
			if (peer->ni.node_type != IBS_NODE_SWITCH)
				fprintf(out, "(%" PRIx64 ") ", far ? far->guid : 0);
			fprintf(out, "\t\t# lid %u lmc %u \"%s\" lid %u %s\n", pt->valid ? pt->pi.lid : 0,
				pt->valid ? pt->pi.lmc : 0, pdesc, plid, r);
		}
		free(pid);
		free(pdesc);
	}
	fputc('\n', out);
	free(desc);
	free(id);
}

int render_netfile(FILE *out, const struct ibs_fabric *f)
{
	const struct ibs_node *local = NULL;
	unsigned *dups = dup_ordinals(f);
	size_t i;
	int pass;

	fprintf(out, "#\n# Topology file: generated by ibscan\n#\n");
	if (f->partial)
		fprintf(out, "# PARTIAL: %zu parts of the fabric could not be reached or read\n", f->n_errors);
	fputc('\n', out);
	for (i = 0; i < f->n_nodes; i++)
		if (f->nodes[i]->path.hops == 0)
			local = f->nodes[i];
	if (local)
		write_node(out, dups, local);
	for (pass = 0; pass < 3; pass++) {
		static const unsigned order[] = { IBS_NODE_SWITCH, IBS_NODE_CA, IBS_NODE_ROUTER };
		for (i = 0; i < f->n_nodes; i++)
			if (f->nodes[i] != local && f->nodes[i]->ni.node_type == order[pass])
				write_node(out, dups, f->nodes[i]);
	}
	free(dups);
	return ferror(out) ? -1 : 0;
}
