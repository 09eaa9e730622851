/*
 * Test doubles for the transport: a scripted transport whose answers the test
 * decides request by request (delay, drop, duplicate, bad status), and an
 * in-process fabric of switches and CAs that answers directed-route SMPs the
 * way an SMA does (IBA 14.2.2), built with libibmad's field encoders.
 */
#ifndef IBSCAN_FAKE_TRANSPORT_H
#define IBSCAN_FAKE_TRANSPORT_H

#include <errno.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/mad/transport.h"
#include "../../core/base/xalloc.h"
#include "../../fabric/walk.h"

struct fake_pkt {
	struct ibs_packet pkt;
	uint64_t due_ns;
};

struct fake {
	struct ibs_transport t;
	/* Decide what happens to a request; push answers with fake_answer(). */
	void (*on_send)(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad);
	void *ctx;
	struct fake_pkt *q;
	size_t n, cap;
	unsigned sent, max_inflight_seen, inflight;
	bool dead; /* recv fails: the device went away */
	/* Optional: an errno for a request the kernel refuses to send (IBS_E_SEND), or 0 to send it. */
	int (*refuse)(struct fake *f, const struct ibs_mad_req *req);
	bool send_dead; /* every send fails: the device went away (IBS_E_TRANSPORT) */
	unsigned refused;
	unsigned shuffle; /* nonzero: deliver the packets that are due in an order drawn from this seed */
	unsigned overtaken; /* deliveries that overtook an earlier packet (with shuffle) */
	struct ibs_local_port local;
	/* Nonzero: the host stalls this long once, just after a poll found nothing (once a packet was delivered). */
	unsigned stall_ms;
	unsigned delivered;
};

static inline uint64_t fake_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Queue a packet for delivery after delay_ms. */
static inline void fake_push(struct fake *f, const uint8_t *mad, size_t len, int status, unsigned delay_ms)
{
	f->q = xgrow(f->q, &f->cap, f->n + 1, sizeof(*f->q));
	memset(&f->q[f->n], 0, sizeof(f->q[0]));
	memcpy(f->q[f->n].pkt.mad, mad, len > IBS_MAD_SIZE ? IBS_MAD_SIZE : len);
	f->q[f->n].pkt.len = len;
	f->q[f->n].pkt.status = status;
	f->q[f->n].due_ns = fake_now() + (uint64_t)delay_ms * 1000000ull;
	f->n++;
}

/* Turn a request into its response with the given status and attribute data (64 bytes). */
static inline void fake_make_resp(const uint8_t *req, uint16_t status, const uint8_t *data, uint8_t *out)
{
	memcpy(out, req, IBS_MAD_SIZE);
	mad_set_field(out, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE & 0x7f);
	mad_set_field(out, 0, IB_MAD_RESPONSE_F, 1);
	if (mad_get_field(out, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS) {
		mad_set_field(out, 0, IB_DRSMP_STATUS_F, status);
		mad_set_field(out, 0, IB_DRSMP_DIRECTION_F, 1);
	} else {
		mad_set_field(out, 0, IB_MAD_STATUS_F, status);
	}
	if (data)
		memcpy(out + IBS_SMP_DATA_OFFS, data, IBS_SMP_DATA_SIZE);
}

static inline void fake_answer(struct fake *f, const uint8_t *req, uint16_t status, const uint8_t *data,
			       unsigned delay_ms)
{
	uint8_t out[IBS_MAD_SIZE];
	fake_make_resp(req, status, data, out);
	fake_push(f, out, IBS_MAD_SIZE, 0, delay_ms);
}

static inline enum ibs_err fake_send(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad,
				     int *cause)
{
	struct fake *f = (struct fake *)t;
	if (f->send_dead) {
		*cause = EIO;
		return IBS_E_TRANSPORT;
	}
	if (f->refuse && (*cause = f->refuse(f, req)) != 0) {
		f->refused++;
		return IBS_E_SEND;
	}
	f->sent++;
	f->inflight++;
	if (f->inflight > f->max_inflight_seen)
		f->max_inflight_seen = f->inflight;
	f->on_send(f, req, mad);
	return IBS_OK;
}

static inline enum ibs_err fake_recv(struct ibs_transport *t, struct ibs_packet *pkt, int ms)
{
	struct fake *f = (struct fake *)t;
	uint64_t end = fake_now() + (uint64_t)(ms > 0 ? ms : 0) * 1000000ull;

	if (f->dead)
		return IBS_E_TRANSPORT;
	for (;;) {
		uint64_t now = fake_now(), next = UINT64_MAX;
		size_t i, best = SIZE_MAX;
		size_t due = 0;
		for (i = 0; i < f->n; i++) {
			if (f->q[i].due_ns <= now && (best == SIZE_MAX || f->q[i].due_ns < f->q[best].due_ns))
				best = i;
			due += f->q[i].due_ns <= now;
			if (f->q[i].due_ns < next)
				next = f->q[i].due_ns;
		}
		if (f->shuffle && due > 1) {
			/* Any of the due packets, by a small LCG: answers overtake each other. */
			size_t k;
			f->shuffle = f->shuffle * 1103515245u + 12345u;
			k = (f->shuffle >> 16) % due;
			for (i = 0; i < f->n; i++)
				if (f->q[i].due_ns <= now && k-- == 0) {
					f->overtaken += i != best;
					best = i;
					break;
				}
		}
		if (best != SIZE_MAX) {
			*pkt = f->q[best].pkt;
			memmove(&f->q[best], &f->q[best + 1], (f->n - best - 1) * sizeof(*f->q));
			f->n--;
			if (f->inflight)
				f->inflight--;
			f->delivered++;
			return IBS_OK;
		}
		if (now >= end) {
			if (f->stall_ms && f->delivered) {
				struct timespec st = { (time_t)(f->stall_ms / 1000), (long)(f->stall_ms % 1000) * 1000000L };
				f->stall_ms = 0;
				nanosleep(&st, NULL);
			}
			return IBS_E_AGAIN;
		}
		{
			uint64_t until = next < end ? next : end;
			struct timespec ts = { 0, (long)(until - now) };
			if (until - now >= 1000000000ull) {
				ts.tv_sec = (time_t)((until - now) / 1000000000ull);
				ts.tv_nsec = (long)((until - now) % 1000000000ull);
			}
			nanosleep(&ts, NULL);
		}
	}
}

static inline void fake_expire(struct ibs_transport *t, const struct ibs_mad_req *req, uint32_t tid)
{
	struct fake *f = (struct fake *)t;
	(void)req;
	(void)tid;
	if (f->inflight)
		f->inflight--;
}

static inline enum ibs_err fake_local(struct ibs_transport *t, struct ibs_local_port *out)
{
	*out = ((struct fake *)t)->local;
	return IBS_OK;
}

static inline void fake_close(struct ibs_transport *t)
{
	struct fake *f = (struct fake *)t;
	free(f->q);
	f->q = NULL;
	f->n = f->cap = 0;
}

static const struct ibs_transport_ops fake_ops = {
	.name = "fake",
	.send = fake_send,
	.recv = fake_recv,
	.expire = fake_expire,
	.local_port = fake_local,
	.close = fake_close,
};

static inline void fake_init(struct fake *f, void (*on_send)(struct fake *, const struct ibs_mad_req *, const uint8_t *),
			     void *ctx)
{
	memset(f, 0, sizeof(*f));
	f->t.ops = &fake_ops;
	f->t.priv = f;
	f->on_send = on_send;
	f->ctx = ctx;
	strcpy(f->local.ca, "fake0");
	f->local.port = 1;
}

/* ---- an in-process fabric ---- */

#define FF_MAX_NODES 64
#define FF_MAX_PORTS 36
#define FF_MAX_ALIASES 31

struct ff_node {
	int type; /* IB_NODE_CA / IB_NODE_SWITCH / IB_NODE_ROUTER */
	int nports;
	uint64_t guid;
	uint64_t pguid;                   /* switches: port 0 GUID (the node GUID unless changed) */
	char desc[64];
	int peer[FF_MAX_PORTS + 1];      /* node index + 1, 0 = none */
	int peer_port[FF_MAX_PORTS + 1];
	int lid;
	bool dead;                        /* answers nothing */
	uint16_t bad_status_attr;         /* answer this attribute with status 0x1c */
	bool down[FF_MAX_PORTS + 1];      /* cable present but port Down (no link) */
	uint8_t state[FF_MAX_PORTS + 1];  /* PortState of a linked port if not 0 (e.g. 3: Armed) */
	/* A flapping cable: PortInfo of the port reads Down this many more times, while SMPs still pass. */
	unsigned down_reads[FF_MAX_PORTS + 1];
	uint8_t lft[128];                 /* switches: egress port per LID (0xff: none) */
	/*
	 * PortInfo:CapabilityMask of every port, 0 for 0x02010048. A switch
	 * answers it on its external ports too, where IBA 14.2.5.6 leaves the
	 * field undefined (port 0's is the switch's).
	 */
	uint32_t capmask;
	/* LinkSpeedActive of linked ports (0 for 1: SDR) and LinkSpeedExtActive (e.g. 1: FDR). */
	uint8_t speed_active, speed_ext_active;
	uint16_t fdb_top;                 /* switches: SwitchInfo:LinearFDBTop, 0 for 127 */
	/*
	 * GUIDInfo (IBA 14.2.5.5) of CA ports and switch port 0: guid_cap
	 * entries (0 means 1: the port GUID alone), entry 0 the port GUID,
	 * then the alias GUIDs assigned so far (0: a free entry).
	 */
	unsigned guid_cap;
	uint64_t alias[FF_MAX_ALIASES];
};

struct ff {
	struct ff_node n[FF_MAX_NODES];
	int count;
	int root; /* where the fake device sits */
	int root_port;
	unsigned delay_ms;
	unsigned shuffle; /* passed to struct fake */
	unsigned overtaken; /* from struct fake, after a walk */
	/* Deterministic loss: SMPs whose DR path starts with one of these come back with status 110. */
	struct {
		uint8_t hops;
		uint8_t path[8];
	} drop[4];
	unsigned n_drop;
	int refuse_node;        /* node index + 1 that refuses (status 110) its first refuse_count SMPs */
	unsigned refuse_count, refused;
	int mute_node;          /* node index + 1 that never answers these attributes (status 110) */
	uint16_t mute_attr[4];
	unsigned n_mute;
	/* Optional: called before node `node` answers req (by LID or directed route): the test may change the fabric. */
	void (*hook)(struct ff *ff, int node, const struct ibs_mad_req *req);
	void *hook_ctx;
	unsigned by_lid; /* LID-routed SMPs answered */
	unsigned port0_delay_ms; /* switches answer PortInfo of port 0 this much later */
};

/*
 * The forwarding tables a subnet manager would set: each switch sends each
 * LID out of the port that starts a shortest path to a node holding it
 * (the nearest holder, the first found on a tie), 0 for its own LID.
 */
static inline void ff_route_lfts(struct ff *ff)
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
static inline int ff_lid_route(const struct ff *ff, unsigned lid, int *in_port)
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
static inline void ff_drop_path(struct ff *ff, const uint8_t *path)
{
	unsigned k = ff->n_drop++;
	for (ff->drop[k].hops = 0; path[ff->drop[k].hops]; ff->drop[k].hops++)
		ff->drop[k].path[ff->drop[k].hops] = path[ff->drop[k].hops];
}

static inline int ff_add(struct ff *ff, int type, int nports, uint64_t guid, const char *desc)
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

static inline void ff_link(struct ff *ff, int a, int pa, int b, int pb)
{
	ff->n[a].peer[pa] = b + 1;
	ff->n[a].peer_port[pa] = pb;
	ff->n[b].peer[pb] = a + 1;
	ff->n[b].peer_port[pb] = pa;
}

static inline uint64_t ff_port_guid(const struct ff_node *n, int port)
{
	return n->type == IB_NODE_SWITCH ? n->pguid : n->pguid + (uint64_t)port;
}

static inline void ff_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
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
		if (n->type != IB_NODE_SWITCH || mod > 1) {
			fake_answer(f, mad, 0x1c, NULL, dl);
			return;
		}
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

/*
 * Walk ff's fabric through a fake transport (window 8, 100 ms, 1 retry)
 * into a new fabric and *run (ibs_run_free it); NULL if the walk failed.
 */
static inline struct ibs_fabric *ff_walk(struct ff *ff, struct ibs_run *run)
{
	struct fake f;
	struct ibs_engine_opts o = { .window = 8, .timeout_ms = 100, .retries = 1, .deadline_ms = 10000 };
	struct ibs_walk_opts wo = { .gids = true, .sm = true };
	struct ibs_engine *e;
	struct ibs_fabric *fab = ibs_fabric_new();
	enum ibs_err rc;

	fake_init(&f, ff_on_send, ff);
	e = ibs_engine_new(&f.t, &o);
	memset(run, 0, sizeof(*run));
	rc = ibs_walk(e, fab, run, &wo);
	ibs_engine_free(e);
	fake_close(&f.t);
	if (rc != IBS_OK) {
		ibs_fabric_free(fab);
		return NULL;
	}
	return fab;
}

#endif
