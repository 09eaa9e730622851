/* The fabric model: its containers, lookups by GUID and LID, sorting and links. */
#include "model.h"
#include "../../core/base/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ibs_fabric *ibs_fabric_new(void)
{
	return xcalloc(1, sizeof(struct ibs_fabric));
}

static void node_free(struct ibs_node *n)
{
	unsigned i;

	for (i = 0; i < n->n_ports; i++) {
		free(n->ports[i].gids);
		free(n->ports[i].error);
		free(n->ports[i].ctr);
	}
	free(n->ports);
	free(n->name);
	free(n->desc);
	free(n->error);
	free(n);
}

void ibs_fabric_free(struct ibs_fabric *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->n_nodes; i++)
		node_free(f->nodes[i]);
	free(f->nodes);
	free(f->errors);
	free(f->sms);
	ibs_htab_free(&f->by_guid);
	free(f);
}

static bool same_guid(const void *entry, const void *key)
{
	return ((const struct ibs_node *)entry)->ni.node_guid == *(const uint64_t *)key;
}

static void index_guid(struct ibs_fabric *f, struct ibs_node *n)
{
	struct ibs_node *first = ibs_htab_find(&f->by_guid, ibs_hash_u64(n->ni.node_guid), same_guid, &n->ni.node_guid);

	if (first) {
		/* Appended at the chain's end, found from its first in O(1): duplicates cost no walk. */
		struct ibs_node *t = first->last_same_guid ? first->last_same_guid : first;
		t->next_same_guid = n;
		first->last_same_guid = n;
		return;
	}
	ibs_htab_add(&f->by_guid, ibs_hash_u64(n->ni.node_guid), n);
}

static struct ibs_node *add_node(struct ibs_fabric *f, const struct ibs_nodeinfo *ni, const struct ibs_addr *path,
				 const struct ibs_portset *ports)
{
	struct ibs_node *n = xcalloc(1, sizeof(*n));
	unsigned i;

	n->ni = *ni;
	ibs_guid_str(ni->node_guid, n->guid_name);
	n->path = *path;
	n->entry_port = ni->local_port;
	n->level = path->hops;
	if (!ports) {
		n->n_ports = (unsigned)ni->num_ports + 1;
		n->ports = xcalloc(n->n_ports, sizeof(*n->ports));
		for (i = 0; i < n->n_ports; i++)
			n->ports[i].num = (uint8_t)i;
	} else {
		for (i = 0; i <= ni->num_ports; i++)
			n->n_ports += ports->w[i >> 6] >> (i & 63) & 1;
		n->ports = n->n_ports ? xcalloc(n->n_ports, sizeof(*n->ports)) : NULL;
		n->n_ports = 0;
		for (i = 0; i <= ni->num_ports; i++)
			if (ports->w[i >> 6] >> (i & 63) & 1)
				n->ports[n->n_ports++].num = (uint8_t)i;
	}
	f->nodes = xgrow(f->nodes, &f->cap_nodes, f->n_nodes + 1, sizeof(*f->nodes));
	n->index = f->n_nodes;
	f->nodes[f->n_nodes++] = n;
	index_guid(f, n);
	return n;
}

struct ibs_node *ibs_fabric_add_node(struct ibs_fabric *f, const struct ibs_nodeinfo *ni,
				     const struct ibs_addr *path)
{
	return add_node(f, ni, path, NULL);
}

struct ibs_node *ibs_fabric_add_node_ports(struct ibs_fabric *f, const struct ibs_nodeinfo *ni,
					   const struct ibs_addr *path, const struct ibs_portset *ports)
{
	return add_node(f, ni, path, ports);
}

struct ibs_port *ibs_node_ports_from(const struct ibs_node *n, unsigned from)
{
	size_t lo = 0, hi = n->n_ports;

	if (!hi)
		return n->ports;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (n->ports[mid].num < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return &n->ports[lo];
}

struct ibs_port *ibs_node_port_find(const struct ibs_node *n, unsigned p)
{
	struct ibs_port *pt = ibs_node_ports_from(n, p);

	return pt < ibs_node_ports_end(n) && pt->num == p ? pt : NULL;
}

struct ibs_node *ibs_fabric_find_guid(const struct ibs_fabric *f, uint64_t guid)
{
	return ibs_htab_find(&f->by_guid, ibs_hash_u64(guid), same_guid, &guid);
}

struct ibs_port *ibs_fabric_find_lid(const struct ibs_fabric *f, uint16_t lid, struct ibs_node **node)
{
	size_t i;

	if (!lid)
		return NULL;
	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		struct ibs_port *pt;
		for (pt = ibs_node_ports_from(n, ibs_node_first_port(n)); pt < ibs_node_ports_end(n); pt++) {
			unsigned span;
			if (!pt->valid || !pt->pi.lid)
				continue;
			if (n->ni.node_type == IBS_NODE_SWITCH && pt->num != 0)
				continue;
			span = 1u << (pt->pi.lmc & 7);
			if (lid >= pt->pi.lid && lid < pt->pi.lid + span) {
				if (node)
					*node = n;
				return pt;
			}
		}
	}
	return NULL;
}

uint32_t *ibs_fabric_lid_owners(const struct ibs_fabric *f)
{
	uint32_t *own = xcalloc(IBS_LID_UNICAST_END, sizeof(*own));
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		uint32_t me = (uint32_t)n->index + 1;
		for (pt = ibs_node_ports_from(n, ibs_node_first_port(n)); pt < ibs_node_ports_end(n); pt++) {
			unsigned l;
			if (!pt->valid || !pt->pi.lid || (n->ni.node_type == IBS_NODE_SWITCH && pt->num != 0))
				continue;
			for (l = pt->pi.lid; l < pt->pi.lid + (1u << (pt->pi.lmc & 7)) && l < IBS_LID_UNICAST_END; l++)
				own[l] = !own[l] || own[l] == me ? me : IBS_LID_SHARED;
		}
	}
	return own;
}

bool ibs_fabric_connect(struct ibs_node *a, uint8_t pa, struct ibs_node *b, uint8_t pb)
{
	struct ibs_port *x = ibs_node_port(a, pa), *y = ibs_node_port(b, pb);

	if (!x || !y)
		return false;
	x->peer = b;
	x->peer_port = pb;
	y->peer = a;
	y->peer_port = pa;
	return true;
}

struct ibs_walk_error *ibs_fabric_add_error(struct ibs_fabric *f)
{
	f->errors = xgrow(f->errors, &f->cap_errors, f->n_errors + 1, sizeof(*f->errors));
	memset(&f->errors[f->n_errors], 0, sizeof(f->errors[0]));
	return &f->errors[f->n_errors++];
}

struct ibs_sm *ibs_fabric_add_sm(struct ibs_fabric *f)
{
	f->sms = xgrow(f->sms, &f->cap_sms, f->n_sms + 1, sizeof(*f->sms));
	memset(&f->sms[f->n_sms], 0, sizeof(f->sms[0]));
	return &f->sms[f->n_sms++];
}

static int path_cmp(const struct ibs_addr *a, const struct ibs_addr *b)
{
	unsigned i, n = a->hops < b->hops ? a->hops : b->hops;

	if (a->hops != b->hops)
		return a->hops < b->hops ? -1 : 1;
	for (i = 1; i <= n; i++)
		if (a->path[i] != b->path[i])
			return a->path[i] < b->path[i] ? -1 : 1;
	return 0;
}

static int node_cmp(const void *x, const void *y)
{
	const struct ibs_node *a = *(struct ibs_node *const *)x, *b = *(struct ibs_node *const *)y;

	if (a->ni.node_guid != b->ni.node_guid)
		return a->ni.node_guid < b->ni.node_guid ? -1 : 1;
	return path_cmp(&a->path, &b->path);
}

static int err_cmp(const void *x, const void *y)
{
	const struct ibs_walk_error *a = x, *b = y;
	int c = path_cmp(&a->path, &b->path);

	if (c)
		return c;
	if (a->attr_id != b->attr_id)
		return a->attr_id < b->attr_id ? -1 : 1;
	if (a->attr_mod != b->attr_mod)
		return a->attr_mod < b->attr_mod ? -1 : 1;
	return 0;
}

static int sm_cmp(const void *x, const void *y)
{
	const struct ibs_sm *a = x, *b = y;

	if (a->port_guid != b->port_guid)
		return a->port_guid < b->port_guid ? -1 : 1;
	return a->port < b->port ? -1 : a->port > b->port;
}

void ibs_fabric_sort(struct ibs_fabric *f)
{
	size_t i;

	if (f->n_nodes)
		qsort(f->nodes, f->n_nodes, sizeof(*f->nodes), node_cmp);
	for (i = 0; i < f->n_nodes; i++)
		f->nodes[i]->index = i;
	if (f->n_errors)
		qsort(f->errors, f->n_errors, sizeof(*f->errors), err_cmp);
	if (f->n_sms)
		qsort(f->sms, f->n_sms, sizeof(*f->sms), sm_cmp);
}

size_t ibs_fabric_links(const struct ibs_fabric *f, struct ibs_link **out)
{
	struct ibs_link *v = NULL;
	size_t n = 0, cap = 0, i;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *a = f->nodes[i];
		struct ibs_port *pt;
		for (pt = ibs_node_ports_from(a, 1); pt < ibs_node_ports_end(a); pt++) {
			if (!pt->peer)
				continue;
			if (pt->peer->index < a->index ||
			    (pt->peer == a && pt->peer_port < pt->num))
				continue;
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			v[n].a = a;
			v[n].pa = pt->num;
			v[n].b = pt->peer;
			v[n].pb = pt->peer_port;
			n++;
		}
	}
	*out = v;
	return n;
}

size_t ibs_fabric_n_links(const struct ibs_fabric *f)
{
	struct ibs_link *v;
	size_t n = ibs_fabric_links(f, &v);

	free(v);
	return n;
}

void ibs_set_error(char **error, uint32_t *rank, uint32_t new_rank, const char *fmt, ...)
{
	va_list ap;

	if (*error && *rank <= new_rank)
		return;
	free(*error);
	va_start(ap, fmt);
	*error = xvasprintf(fmt, ap);
	va_end(ap);
	*rank = new_rank;
}

void ibs_node_set_desc(struct ibs_node *n, const char *raw, size_t len)
{
	char buf[IBS_NODE_DESC_TEXT + 1];

	ibs_text_clean_buf(buf, sizeof(buf), raw, len);
	free(n->desc);
	n->desc = xstrdup(buf);
}

uint16_t ibs_node_lid(const struct ibs_node *n)
{
	const struct ibs_port *pt;

	for (pt = ibs_node_ports_from(n, ibs_node_first_port(n)); pt < ibs_node_ports_end(n); pt++)
		if (pt->valid)
			return pt->pi.lid;
	return 0;
}

uint16_t ibs_port_peer_lid(const struct ibs_port *p)
{
	const struct ibs_node *peer = p->peer;
	const struct ibs_port *far;

	if (!peer)
		return 0;
	if (peer->ni.node_type == IBS_NODE_SWITCH)
		return ibs_node_lid(peer);
	far = ibs_node_port(peer, p->peer_port);
	return far && far->valid ? far->pi.lid : 0;
}

const char *ibs_node_name(const struct ibs_node *n)
{
	if (n->name)
		return n->name;
	if (n->desc && n->desc[0])
		return n->desc;
	return n->guid_name;
}

bool ibs_port_is_up(const struct ibs_port *p)
{
	return p->valid && (ibs_portinfo_linkup(&p->pi) || p->pi.state >= IBS_PORT_INIT);
}
