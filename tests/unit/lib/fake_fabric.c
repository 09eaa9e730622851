/* The in-process fabric of fake_fabric.h: an SMA's answers from each node's state. */
#include "fake_fabric.h"

/*
 * The forwarding tables a subnet manager would set: each switch sends each
 * LID out of the port that starts a shortest path to a node holding it
 * (the nearest holder, the first found on a tie), 0 for its own LID.
 */
void ff_route_lfts(struct ff *ff)
{
	int s, i, k;

	for (s = 0; s < ff->count; s++) {
		int dist[FF_MAX_NODES], first[FF_MAX_NODES], q[FF_MAX_NODES], qh = 0, qt = 0;
		if (ff->n[s].type != IB_NODE_SWITCH)
			continue;
		memset(ff->n[s].lft, 0xff, sizeof(ff->n[s].lft));
		for (i = 0; i < ff->count; i++)
			dist[i] = -1;
		dist[s] = 0;
		first[s] = 0;
		q[qt++] = s;
		while (qh < qt) {
			int c = q[qh++];
			struct ff_node *cn = &ff->n[c];
			if (cn->lid > 0 && cn->lid < 128 && ff->n[s].lft[cn->lid] == 0xff)
				ff->n[s].lft[cn->lid] = (uint8_t)first[c];
			if (c != s && cn->type != IB_NODE_SWITCH)
				continue; /* CAs do not forward */
			for (k = 1; k <= cn->nports; k++) {
				int d = cn->peer[k] - 1;
				if (d < 0 || cn->down[k] || dist[d] >= 0)
					continue;
				dist[d] = dist[c] + 1;
				first[d] = c == s ? k : first[c];
				q[qt++] = d;
			}
		}
	}
}

/* Where a LID-routed SMP to lid ends (following the switches' tables), or -1; *in_port: the port it enters by. */
static int ff_lid_route(const struct ff *ff, unsigned lid, int *in_port)
{
	int cur = ff->root, hops;

	*in_port = ff->root_port;
	if (ff->n[cur].type != IB_NODE_SWITCH) {
		const struct ff_node *c = &ff->n[cur];
		if ((unsigned)c->lid == lid)
			return cur;
		if (!c->peer[ff->root_port] || c->down[ff->root_port])
			return -1;
		*in_port = c->peer_port[ff->root_port];
		cur = c->peer[ff->root_port] - 1;
	}
	for (hops = 0; hops < 64; hops++) {
		const struct ff_node *c = &ff->n[cur];
		int p;
		if (c->type != IB_NODE_SWITCH)
			return (unsigned)c->lid == lid ? cur : -1;
		p = lid < 128 ? c->lft[lid] : 0xff;
		if (p == 0)
			return cur;
		if (p == 0xff || p > c->nports || !c->peer[p] || c->down[p])
			return -1;
		*in_port = c->peer_port[p];
		cur = c->peer[p] - 1;
	}
	return -1;
}

/* Lose every SMP whose DR path starts with the ports in path (0-terminated). */
void ff_drop_path(struct ff *ff, const uint8_t *path)
{
	unsigned k = ff->n_drop++;
	for (ff->drop[k].hops = 0; path[ff->drop[k].hops]; ff->drop[k].hops++)
		ff->drop[k].path[ff->drop[k].hops] = path[ff->drop[k].hops];
}

int ff_add(struct ff *ff, int type, int nports, uint64_t guid, const char *desc)
{
	struct ff_node *n = &ff->n[ff->count];
	memset(n, 0, sizeof(*n));
	n->type = type;
	n->nports = nports;
	n->guid = guid;
	n->pguid = guid;
	snprintf(n->desc, sizeof(n->desc), "%s", desc);
	n->lid = ff->count + 1;
	memset(n->lft, 0xff, sizeof(n->lft));
	return ff->count++;
}

void ff_link(struct ff *ff, int a, int pa, int b, int pb)
{
	ff->n[a].peer[pa] = b + 1;
	ff->n[a].peer_port[pa] = pb;
	ff->n[b].peer[pb] = a + 1;
	ff->n[b].peer_port[pb] = pa;
}

static uint64_t ff_port_guid(const struct ff_node *n, int port)
{
	return n->type == IB_NODE_SWITCH ? n->pguid : n->pguid + (uint64_t)port;
}

void ff_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct ff *ff = f->ctx;
	int cur = ff->root, in_port = ff->root_port, i;
	uint8_t d[IBS_SMP_DATA_SIZE];
	struct ff_node *n;
	unsigned attr = req->attr_id, mod = req->attr_mod;
	/* With delay_ms set, answers come back shuffled (0..4 ms by request). */
	unsigned dl = ff->delay_ms ? (req->addr.hops * 7u + mod * 3u + attr + req->addr.path[req->addr.hops]) % 5u : 0;

	for (i = 0; i < (int)ff->n_drop; i++)
		if (req->addr.hops >= ff->drop[i].hops &&
		    !memcmp(req->addr.path + 1, ff->drop[i].path, ff->drop[i].hops)) {
			fake_push(f, mad, IBS_MAD_SIZE, 110, dl); /* lost on the way, as ibsim says so */
			return;
		}
	if (req->mgmt_class == IBS_CLASS_SMI) {
		/* LID-routed: wherever the forwarding tables send that LID. */
		cur = ff_lid_route(ff, req->addr.lid, &in_port);
		if (cur < 0) {
			fake_push(f, mad, IBS_MAD_SIZE, 110, dl);
			return;
		}
		ff->by_lid++;
	}
	/* Follow the initial path (IBA 14.2.2.1); the first hop leaves the local port. */
	for (i = 1; req->mgmt_class != IBS_CLASS_SMI && i <= req->addr.hops; i++) {
		int p = req->addr.path[i];
		struct ff_node *c = &ff->n[cur];
		if (i > 1 && c->type != IB_NODE_SWITCH)
			return; /* CAs do not forward: dropped */
		if (i == 1 && c->type != IB_NODE_SWITCH)
			p = ff->root_port;
		if (p < 1 || p > c->nports || !c->peer[p] || c->down[p]) {
			fake_push(f, mad, IBS_MAD_SIZE, 110, dl); /* undeliverable */
			return;
		}
		in_port = c->peer_port[p];
		cur = c->peer[p] - 1;
	}
	n = &ff->n[cur];
	if (ff->hook)
		ff->hook(ff, cur, req);
	if (n->dead)
		return;
	if (ff->refuse_node == cur + 1 && ff->refused < ff->refuse_count) {
		ff->refused++;
		fake_push(f, mad, IBS_MAD_SIZE, 110, dl);
		return;
	}
	for (i = 0; ff->mute_node == cur + 1 && i < (int)ff->n_mute; i++)
		if (ff->mute_attr[i] == attr) {
			fake_push(f, mad, IBS_MAD_SIZE, 110, dl);
			return;
		}
	memset(d, 0, sizeof(d));
	if (n->bad_status_attr == attr) {
		fake_answer(f, mad, 0x1c, NULL, dl);
		return;
	}
	switch (attr) {
	case IB_ATTR_NODE_INFO: {
		uint32_t v;
		uint64_t g;
		/* One field a line, its value beside it. */
		/* clang-format off */
		v = 1; mad_encode_field(d, IB_NODE_BASE_VERS_F, &v);
		v = 1; mad_encode_field(d, IB_NODE_CLASS_VERS_F, &v);
		v = (uint32_t)n->type; mad_encode_field(d, IB_NODE_TYPE_F, &v);
		v = (uint32_t)n->nports; mad_encode_field(d, IB_NODE_NPORTS_F, &v);
		g = n->pguid; mad_encode_field(d, IB_NODE_SYSTEM_GUID_F, &g);
		g = n->guid; mad_encode_field(d, IB_NODE_GUID_F, &g);
		g = ff_port_guid(n, in_port); mad_encode_field(d, IB_NODE_PORT_GUID_F, &g);
		v = (uint32_t)(n->type == IB_NODE_SWITCH ? in_port : in_port); mad_encode_field(d, IB_NODE_LOCAL_PORT_F, &v);
		v = 0x02c9; mad_encode_field(d, IB_NODE_VENDORID_F, &v);
		v = 0x1017; mad_encode_field(d, IB_NODE_DEVID_F, &v);
		/* clang-format on */
		break;
	}
	case IB_ATTR_NODE_DESC:
		memcpy(d, n->desc, strlen(n->desc));
		break;
	case IB_ATTR_SWITCH_INFO: {
		uint32_t v = 49151;
		if (n->type != IB_NODE_SWITCH) {
			fake_answer(f, mad, 0x0c, NULL, dl);
			return;
		}
		mad_encode_field(d, IB_SW_LINEAR_FDB_CAP_F, &v);
		v = n->fdb_top ? n->fdb_top : 127;
		mad_encode_field(d, IB_SW_LINEAR_FDB_TOP_F, &v);
		break;
	}
	case IB_ATTR_LINEARFORWTBL: {
		if (n->type != IB_NODE_SWITCH || mod * 64 > (n->fdb_top ? n->fdb_top : 127u)) {
			fake_answer(f, mad, 0x1c, NULL, dl);
			return;
		}
		if (mod > 1)
			memset(d, 0xff, 64); /* above the 128 LIDs it holds: no entry */
		else
			memcpy(d, n->lft + 64 * mod, 64);
		break;
	}
	case IB_ATTR_PORT_INFO: {
		uint32_t v;
		uint64_t g = 0xfe80000000000000ull;
		int p = (int)mod;
		bool up;
		if (p > n->nports || (p == 0 && n->type != IB_NODE_SWITCH)) {
			fake_answer(f, mad, 0x1c, NULL, dl);
			return;
		}
		up = p == 0 || (n->peer[p] && !n->down[p]);
		if (p == 0)
			dl += ff->port0_delay_ms;
		if (up && p > 0 && n->down_reads[p]) {
			n->down_reads[p]--;
			up = false;
		}
		mad_encode_field(d, IB_PORT_GID_PREFIX_F, &g);
		/* One field a line, its value beside it. */
		/* clang-format off */
		v = (uint32_t)n->lid; mad_encode_field(d, IB_PORT_LID_F, &v);
		v = 1; mad_encode_field(d, IB_PORT_SMLID_F, &v);
		v = (uint32_t)p; mad_encode_field(d, IB_PORT_LOCAL_PORT_F, &v);
		v = 2; mad_encode_field(d, IB_PORT_LINK_WIDTH_ENABLED_F, &v);
		v = 3; mad_encode_field(d, IB_PORT_LINK_WIDTH_SUPPORTED_F, &v);
		v = 2; mad_encode_field(d, IB_PORT_LINK_WIDTH_ACTIVE_F, &v);
		v = 1; mad_encode_field(d, IB_PORT_LINK_SPEED_SUPPORTED_F, &v);
		v = up && n->state[p] ? n->state[p] : up ? 4 : 1; mad_encode_field(d, IB_PORT_STATE_F, &v);
		v = up ? 5 : 2; mad_encode_field(d, IB_PORT_PHYS_STATE_F, &v);
		v = n->speed_active ? n->speed_active : 1; mad_encode_field(d, IB_PORT_LINK_SPEED_ACTIVE_F, &v);
		v = n->speed_ext_active; mad_encode_field(d, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, &v);
		v = 1; mad_encode_field(d, IB_PORT_LINK_SPEED_ENABLED_F, &v);
		v = 5; mad_encode_field(d, IB_PORT_MTU_CAP_F, &v);
		v = 5; mad_encode_field(d, IB_PORT_NEIGHBOR_MTU_F, &v);
		v = n->guid_cap ? n->guid_cap : 1; mad_encode_field(d, IB_PORT_GUID_CAP_F, &v);
		v = n->capmask ? n->capmask : 0x02010048u; mad_encode_field(d, IB_PORT_CAPMASK_F, &v);
		/* clang-format on */
		break;
	}
	case IB_ATTR_GUID_INFO: {
		/* Eight entries per block; a block past GUIDCap is a bad modifier. */
		unsigned cap = n->guid_cap ? n->guid_cap : 1, k;
		int p = n->type == IB_NODE_SWITCH ? 0 : in_port;
		if (mod * 8 >= cap) {
			fake_answer(f, mad, 0x1c, NULL, dl);
			return;
		}
		for (k = 0; k < 8 && mod * 8 + k < cap; k++) {
			unsigned e = mod * 8 + k;
			uint64_t g = e == 0 ? ff_port_guid(n, p) : e - 1 < FF_MAX_ALIASES ? n->alias[e - 1] : 0;
			mad_encode_field(d, (enum MAD_FIELDS)(IB_GI_GUID0_F + k), &g);
		}
		break;
	}
	case IB_ATTR_SMINFO: {
		uint64_t g = n->guid;
		uint32_t v = 3;
		mad_encode_field(d, IB_SMINFO_GUID_F, &g);
		mad_encode_field(d, IB_SMINFO_STATE_F, &v);
		v = 7;
		mad_encode_field(d, IB_SMINFO_PRIO_F, &v);
		break;
	}
	default:
		fake_answer(f, mad, 0x0c, NULL, dl);
		return;
	}
	fake_answer(f, mad, 0, d, dl);
}
