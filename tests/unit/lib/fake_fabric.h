/*
 * An in-process fabric of switches and CAs for the unit tests: it answers
 * directed-route and LID-routed SMPs through a fake transport the way an
 * SMA does (IBA 14.2.2), built with libibmad's field encoders.
 */
#ifndef IBSCAN_FAKE_FABRIC_H
#define IBSCAN_FAKE_FABRIC_H

#include "fake_transport.h"

#define FF_MAX_NODES 64
#define FF_MAX_PORTS 36
#define FF_MAX_ALIASES 31

struct ff_node {
	int type; /* IB_NODE_CA / IB_NODE_SWITCH / IB_NODE_ROUTER */
	int nports;
	uint64_t guid;
	uint64_t pguid; /* switches: port 0 GUID (the node GUID unless changed) */
	char desc[64];
	int peer[FF_MAX_PORTS + 1]; /* node index + 1, 0 = none */
	int peer_port[FF_MAX_PORTS + 1];
	int lid;
	bool dead;                       /* answers nothing */
	uint16_t bad_status_attr;        /* answer this attribute with status 0x1c */
	bool down[FF_MAX_PORTS + 1];     /* cable present but port Down (no link) */
	uint8_t state[FF_MAX_PORTS + 1]; /* PortState of a linked port if not 0 (e.g. 3: Armed) */
	/* A flapping cable: PortInfo of the port reads Down this many more times, while SMPs still pass. */
	unsigned down_reads[FF_MAX_PORTS + 1];
	uint8_t lft[128]; /* switches: egress port per LID (0xff: none) */
	/*
	 * PortInfo:CapabilityMask of every port, 0 for 0x02010048. A switch
	 * answers it on its external ports too, where IBA 14.2.5.6 leaves the
	 * field undefined (port 0's is the switch's).
	 */
	uint32_t capmask;
	/* LinkSpeedActive of linked ports (0 for 1: SDR) and LinkSpeedExtActive (e.g. 1: FDR). */
	uint8_t speed_active, speed_ext_active;
	uint16_t fdb_top; /* switches: SwitchInfo:LinearFDBTop, 0 for 127 */
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
	unsigned shuffle;   /* passed to struct fake */
	unsigned overtaken; /* from struct fake, after a walk */
	/* Deterministic loss: SMPs whose DR path starts with one of these come back with status 110. */
	struct {
		uint8_t hops;
		uint8_t path[8];
	} drop[4];
	unsigned n_drop;
	int refuse_node; /* node index + 1 that refuses (status 110) its first refuse_count SMPs */
	unsigned refuse_count, refused;
	int mute_node; /* node index + 1 that never answers these attributes (status 110) */
	uint16_t mute_attr[4];
	unsigned n_mute;
	/* Optional: called before node `node` answers req (by LID or directed route): the test may change the fabric. */
	void (*hook)(struct ff *ff, int node, const struct ibs_mad_req *req);
	void *hook_ctx;
	unsigned by_lid;         /* LID-routed SMPs answered */
	unsigned port0_delay_ms; /* switches answer PortInfo of port 0 this much later */
};

/*
 * The forwarding tables a subnet manager would set: each switch sends each
 * LID out of the port that starts a shortest path to a node holding it
 * (the nearest holder, the first found on a tie), 0 for its own LID.
 */
void ff_route_lfts(struct ff *ff);

/* Lose every SMP whose DR path starts with the ports in path (0-terminated). */
void ff_drop_path(struct ff *ff, const uint8_t *path);

/* A node added to ff (index returned), its LID its index + 1, not cabled. */
int ff_add(struct ff *ff, int type, int nports, uint64_t guid, const char *desc);

/* A cable between port pa of node a and port pb of node b. */
void ff_link(struct ff *ff, int a, int pa, int b, int pb);

/* The fake's on_send for a fabric (fake_init(f, ff_on_send, ff)): the SMA answers of the node reached. */
void ff_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad);

#endif
