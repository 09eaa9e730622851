/* The fabric model and the small vocabulary used to print it. */
#include "model.h"
#include "../core/base/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	free(f->hash);
	free(f);
}

static size_t guid_slot(uint64_t guid, size_t cap)
{
	/* Fibonacci hashing: GUIDs are often sequential. */
	return (size_t)((guid * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void hash_insert(struct ibs_node **tab, size_t cap, struct ibs_node *n)
{
	size_t s = guid_slot(n->ni.node_guid, cap);

	while (tab[s]) {
		if (tab[s]->ni.node_guid == n->ni.node_guid) {
			struct ibs_node *t = tab[s];
			while (t->next_same_guid)
				t = t->next_same_guid;
			t->next_same_guid = n;
			return;
		}
		s = (s + 1) & (cap - 1);
	}
	tab[s] = n;
}

static void hash_grow(struct ibs_fabric *f)
{
	size_t cap = f->hash_cap ? f->hash_cap * 2 : 256, i;
	struct ibs_node **tab = xcalloc(cap, sizeof(*tab));

	for (i = 0; i < f->hash_cap; i++) {
		if (f->hash[i]) {
			size_t s = guid_slot(f->hash[i]->ni.node_guid, cap);
			while (tab[s])
				s = (s + 1) & (cap - 1);
			tab[s] = f->hash[i];
		}
	}
	free(f->hash);
	f->hash = tab;
	f->hash_cap = cap;
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
	/* Keep the table at most half full. */
	if (f->n_nodes * 2 > f->hash_cap)
		hash_grow(f);
	hash_insert(f->hash, f->hash_cap, n);
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
	size_t s;

	if (!f->hash_cap)
		return NULL;
	s = guid_slot(guid, f->hash_cap);
	while (f->hash[s]) {
		if (f->hash[s]->ni.node_guid == guid)
			return f->hash[s];
		s = (s + 1) & (f->hash_cap - 1);
	}
	return NULL;
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

void ibs_node_set_error(struct ibs_node *n, const char *fmt, ...)
{
	va_list ap;

	if (n->error)
		return;
	va_start(ap, fmt);
	n->error = xvasprintf(fmt, ap);
	va_end(ap);
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

const char *ibs_port_state_str(unsigned s)
{
	static const char *const v[] = { "NoChange", "Down", "Init", "Armed", "Active" };
	return s < 5 ? v[s] : "Unknown";
}

const char *ibs_phys_state_str(unsigned s)
{
	static const char *const v[] = { "NoChange", "Sleep", "Polling", "Disabled",
					 "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
					 "PhyTest" };
	return s < 8 ? v[s] : "Unknown";
}

const char *ibs_width_str(unsigned w)
{
	switch (w) {
	case 1:
		return "1x";
	case 2:
		return "4x";
	case 4:
		return "8x";
	case 8:
		return "12x";
	case 16:
		return "2x";
	default:
		return "?";
	}
}

unsigned ibs_width_lanes(unsigned w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

const char *ibs_speed_str(unsigned speed, unsigned ext)
{
	switch (ext) {
	case 1:
		return "FDR";
	case 2:
		return "EDR";
	case 4:
		return "HDR";
	case 8:
		return "NDR";
	default:
		break;
	}
	switch (speed) {
	case 1:
		return "SDR";
	case 2:
		return "DDR";
	case 4:
		return "QDR";
	default:
		return "?";
	}
}

unsigned ibs_speed_mbps(unsigned speed, unsigned ext)
{
	switch (ext) {
	case 1:
		return 14062;
	case 2:
		return 25781;
	case 4:
		return 53125;
	case 8:
		return 106250;
	default:
		break;
	}
	switch (speed) {
	case 1:
		return 2500;
	case 2:
		return 5000;
	case 4:
		return 10000;
	default:
		return 0;
	}
}

const char *ibs_node_type_str(unsigned t)
{
	switch (t) {
	case IBS_NODE_CA:
		return "ca";
	case IBS_NODE_SWITCH:
		return "switch";
	case IBS_NODE_ROUTER:
		return "router";
	default:
		return "unknown";
	}
}

const char *ibs_mtu_str(unsigned m)
{
	static const char *const v[] = { "?", "256", "512", "1024", "2048", "4096" };
	return m < 6 ? v[m] : "?";
}

const char *ibs_sm_state_str(unsigned s)
{
	static const char *const v[] = { "not-active", "discovering", "standby", "master" };
	return s < 4 ? v[s] : "unknown";
}

bool ibs_port_is_up(const struct ibs_port *p)
{
	return p->valid && (p->pi.phys_state == 5 || p->pi.state >= 2);
}

void ibs_port_active_rate(const struct ibs_port *p, struct ibs_link_rate *r)
{
	memset(r, 0, sizeof(*r));
	if (!p->valid)
		return;
	r->width = p->pi.width_active;
	r->speed_ext = p->pi.speed_ext_active;
	r->speed = r->speed_ext ? 0 : p->pi.speed_active;
}

static unsigned best_width(unsigned mask)
{
	/* Rank by lanes: 12x > 8x > 4x > 2x > 1x. */
	static const unsigned order[] = { 8, 4, 2, 16, 1 };
	unsigned i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (mask & order[i])
			return order[i];
	return 0;
}

bool ibs_link_best_rate(const struct ibs_port *a, const struct ibs_port *b, struct ibs_link_rate *r)
{
	unsigned w, s, x;

	memset(r, 0, sizeof(*r));
	if (!a->valid || !b->valid)
		return false;
	w = (a->pi.width_enabled & a->pi.width_supported) & (b->pi.width_enabled & b->pi.width_supported);
	s = (a->pi.speed_enabled & a->pi.speed_supported) & (b->pi.speed_enabled & b->pi.speed_supported);
	x = (a->pi.speed_ext_enabled & a->pi.speed_ext_supported) &
	    (b->pi.speed_ext_enabled & b->pi.speed_ext_supported);
	r->width = best_width(w);
	if (x) {
		unsigned bit;
		for (bit = 8; bit; bit >>= 1)
			if (x & bit) {
				r->speed_ext = bit;
				break;
			}
	} else {
		unsigned bit;
		for (bit = 4; bit; bit >>= 1)
			if (s & bit) {
				r->speed = bit;
				break;
			}
	}
	return r->width && (r->speed || r->speed_ext);
}

/* The best rate one port supports and has enabled. */
static void port_best(const struct ibs_port *p, struct ibs_link_rate *r)
{
	unsigned bit;

	memset(r, 0, sizeof(*r));
	r->width = best_width(p->pi.width_enabled & p->pi.width_supported);
	for (bit = 8; bit; bit >>= 1)
		if (p->pi.speed_ext_enabled & p->pi.speed_ext_supported & bit) {
			r->speed_ext = bit;
			return;
		}
	for (bit = 4; bit; bit >>= 1)
		if (p->pi.speed_enabled & p->pi.speed_supported & bit) {
			r->speed = bit;
			return;
		}
}

bool ibs_link_degraded(const struct ibs_port *a, const struct ibs_port *b, const char **why)
{
	struct ibs_link_rate best, act, ba, bb;
	unsigned lanes, mbps;

	if (!ibs_link_best_rate(a, b, &best))
		return false;
	ibs_port_active_rate(a, &act);
	if (a->pi.state != 4 && a->pi.phys_state != 5)
		return false;
	lanes = ibs_width_lanes(act.width);
	mbps = ibs_speed_mbps(act.speed, act.speed_ext);
	/* Trained below what both ends allow: a bad lane, cable or connector. */
	if (lanes < ibs_width_lanes(best.width)) {
		if (why)
			*why = "width";
		return true;
	}
	if (mbps < ibs_speed_mbps(best.speed, best.speed_ext)) {
		if (why)
			*why = "speed";
		return true;
	}
	/*
	 * Held down by one end: one port allows less than the other, so the link
	 * runs at the lower (e.g. a port narrowed to 1x facing a 4x port).
	 */
	port_best(a, &ba);
	port_best(b, &bb);
	if (lanes < ibs_width_lanes(ba.width) || lanes < ibs_width_lanes(bb.width)) {
		if (why)
			*why = "width";
		return true;
	}
	if (mbps < ibs_speed_mbps(ba.speed, ba.speed_ext) || mbps < ibs_speed_mbps(bb.speed, bb.speed_ext)) {
		if (why)
			*why = "speed";
		return true;
	}
	return false;
}

void ibs_fabric_fix_inferred(struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		const struct ibs_port *p0 = ibs_node_port(n, 0);
		struct ibs_port *pt;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			const struct ibs_port *far;
			if (!pt->inferred)
				continue;
			/* The far end's words, now that its extended speeds are settled. */
			far = pt->peer ? ibs_node_port(pt->peer, pt->peer_port) : NULL;
			if (far && far->valid) {
				pt->pi.state = far->pi.state;
				pt->pi.phys_state = far->pi.phys_state;
				pt->pi.width_active = far->pi.width_active;
				pt->pi.speed_active = far->pi.speed_active;
				pt->pi.speed_ext_active = far->pi.speed_ext_active;
			}
			/* A switch port's LID and LMC are port 0's (IBA 14.2.5.6). */
			if (p0 && p0->valid) {
				pt->pi.lid = p0->pi.lid;
				pt->pi.lmc = p0->pi.lmc;
				pt->pi.sm_lid = p0->pi.sm_lid;
			}
		}
	}
}

void ibs_fabric_fix_ext_speeds(struct ibs_fabric *f)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		bool sw = n->ni.node_type == IBS_NODE_SWITCH;
		const struct ibs_port *p0 = ibs_node_port(n, 0);
		/* IBA 14.2.5.6: a switch's CapabilityMask is valid on port 0 only. */
		uint32_t sw_cap = sw && p0 && p0->valid ? p0->pi.cap_mask : 0;
		struct ibs_port *pt;
		for (pt = n->ports; pt < ibs_node_ports_end(n); pt++) {
			uint32_t cap = sw ? sw_cap : pt->pi.cap_mask;
			if (pt->valid && !pt->inferred && !(cap & IBS_CAP_EXT_SPEEDS))
				pt->pi.speed_ext_active = pt->pi.speed_ext_enabled = pt->pi.speed_ext_supported = 0;
		}
	}
}

unsigned ibs_port_state_code(const char *s)
{
	unsigned i;

	for (i = 1; i < 5; i++)
		if (!strcmp(s, ibs_port_state_str(i)))
			return i;
	return 0;
}

unsigned ibs_phys_state_code(const char *s)
{
	unsigned i;

	for (i = 1; i < 8; i++)
		if (!strcmp(s, ibs_phys_state_str(i)))
			return i;
	return 0;
}

unsigned ibs_width_code(const char *s)
{
	static const unsigned codes[] = { 1, 2, 4, 8, 16 };
	unsigned i;

	for (i = 0; i < 5; i++)
		if (!strcasecmp(s, ibs_width_str(codes[i])))
			return codes[i];
	return 0;
}

bool ibs_speed_code(const char *s, unsigned *speed, unsigned *ext)
{
	unsigned b;

	*speed = *ext = 0;
	for (b = 1; b <= 4; b <<= 1)
		if (!strcmp(s, ibs_speed_str(b, 0))) {
			*speed = b;
			return true;
		}
	for (b = 1; b <= 8; b <<= 1)
		if (!strcmp(s, ibs_speed_str(0, b))) {
			*ext = b;
			*speed = 4;
			return true;
		}
	if (!strcmp(s, "FDR10")) {
		*speed = 4;
		return true;
	}
	return false;
}

unsigned ibs_node_type_code(const char *s)
{
	unsigned i;

	for (i = 1; i <= 3; i++)
		if (!strcmp(s, ibs_node_type_str(i)))
			return i;
	return 0;
}

/*
 * The fastest speed and widest width the node runs, or supports and has
 * enabled, on any external port. Ports whose PortInfo was not read count
 * with what their link runs.
 */
static void node_best(const struct ibs_node *n, unsigned *mbps, unsigned *lanes)
{
	const struct ibs_port *pt;

	*mbps = *lanes = 0;
	for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
		struct ibs_link_rate r;
		unsigned m, l;
		if (!pt->valid)
			continue;
		if (pt->pi.phys_state == 5) {
			ibs_port_active_rate(pt, &r);
			if (ibs_speed_mbps(r.speed, r.speed_ext) > *mbps)
				*mbps = ibs_speed_mbps(r.speed, r.speed_ext);
			if (ibs_width_lanes(r.width) > *lanes)
				*lanes = ibs_width_lanes(r.width);
		}
		if (pt->inferred)
			continue;
		port_best(pt, &r);
		m = ibs_speed_mbps(r.speed, r.speed_ext);
		l = ibs_width_lanes(r.width);
		if (m > *mbps)
			*mbps = m;
		if (l > *lanes)
			*lanes = l;
	}
}

bool ibs_node_link_degraded(const struct ibs_node *na, uint8_t pa, const struct ibs_node *nb, uint8_t pb,
			    const char **why)
{
	const struct ibs_port *a = ibs_node_port(na, pa), *b = ibs_node_port(nb, pb);
	struct ibs_link_rate act;
	unsigned ma, mb, la, lb;

	if (!a || !b || !a->valid || !b->valid)
		return false;
	if (ibs_link_degraded(a, b, why) || ibs_link_degraded(b, a, why))
		return true;
	if (a->pi.state != 4 && a->pi.phys_state != 5)
		return false;
	/*
	 * Both nodes run faster links on other ports, so this one could too (a
	 * slowed link whose ends no longer advertise the faster speed, as ibsim
	 * and some firmware do after training down).
	 */
	ibs_port_active_rate(a, &act);
	node_best(na, &ma, &la);
	node_best(nb, &mb, &lb);
	if (ibs_width_lanes(act.width) < (la < lb ? la : lb)) {
		if (why)
			*why = "width";
		return true;
	}
	if (ibs_speed_mbps(act.speed, act.speed_ext) < (ma < mb ? ma : mb)) {
		if (why)
			*why = "speed";
		return true;
	}
	return false;
}
