/*
 * The fabric model: nodes, ports, links, the subnet manager and what could
 * not be reached. Ownership: the fabric owns every node, port, error and SM
 * record; lookups return borrowed pointers valid until ibs_fabric_free().
 * Nodes are never merged by GUID: two nodes that report the same GUID are two
 * nodes here (duplicate GUIDs are a health finding, not something to hide).
 */
#ifndef IBSCAN_MODEL_H
#define IBSCAN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../core/base/htab.h"
#include "../../core/mad/mad.h"
#include "../../core/mad/transport.h"

struct ibs_node;

/* What the port's PMA said (fabric/walk/counters.c). */
/* Why a port's counters were not asked for (struct ibs_port_counters.not_read). */
enum ibs_ctr_skip {
	IBS_CTR_ASKED = 0,
	IBS_CTR_NO_LID,          /* the PMA's port has no LID */
	IBS_CTR_NOT_ACTIVE,      /* the PMA's port is not Active: no GMP reaches it (IBA 7.2, 14.2.5.6) */
	IBS_CTR_MOVED,           /* --interval: the LID of the first reading now leads elsewhere */
	IBS_CTR_PEER_NOT_ACTIVE, /* a remote CA's port: the switch port its cable goes to is not Active (state) */
	IBS_CTR_SHARED_LID,      /* another node holds the PMA's LID too: a GMP to it reaches either */
};

/*
 * A port's PortRcvErrorDetails ([IBS_DET_RCV]), PortXmitDiscardDetails
 * ([IBS_DET_XMIT]) or PortVLXmitWaitCounters ([IBS_DET_VL_WAIT]) in one
 * reading: asked only where the summary counter (PortRcvErrors,
 * PortXmitDiscards, PortXmitWait) moved (fabric/walk/counters_details.c).
 * The first IBS_N_DET are rendered as details; PortSamplesControl
 * ([IBS_DET_PSC], for PortXmitWait's tick) is asked the same way, only
 * where PortXmitWait rose between the two readings of --interval, and
 * rendered as the share of the time the port waited.
 */
enum { IBS_DET_RCV = 0, IBS_DET_XMIT = 1, IBS_DET_VL_WAIT = 2, IBS_N_DET = 3, IBS_DET_PSC = 3, IBS_N_DET_ALL = 4 };
enum ibs_det_state {
	IBS_DET_NOT_ASKED = 0, /* the summary counter did not move */
	IBS_DET_WAITING,       /* for the answer to another port of the same PMA (does it have them?) */
	IBS_DET_ASKED,         /* in flight */
	IBS_DET_OK,            /* answered: the port's details hold it */
	IBS_DET_FAILED,        /* asked, not answered (outcome, status) */
	IBS_DET_SKIPPED,       /* not asked: the PMA failed the same request for another port (outcome, status) */
};
struct ibs_port_det {
	uint8_t state;            /* enum ibs_det_state */
	enum ibs_outcome outcome; /* FAILED, SKIPPED */
	uint16_t status;
};

struct ibs_port_counters {
	bool ok;                  /* PortCounters answered */
	bool extended;            /* 64-bit data counters from PortCountersExtended */
	bool ext_errors;          /* the error counters and XmitWait are PortCountersExtended's 64-bit ones too */
	uint8_t not_read;         /* enum ibs_ctr_skip: no request went out, and why */
	uint8_t state;            /* with IBS_CTR_NOT_ACTIVE: the PortState of the PMA's port (PEER_: of its peer) */
	bool no_xmit_wait;        /* ClassPortInfo says the PMA does not count PortXmitWait: c.xmit_wait is no reading */
	enum ibs_outcome outcome; /* when !ok */
	uint16_t status;
	struct ibs_pma_counters c;
	uint64_t t_ns;            /* when the answer holding the data counters arrived (CLOCK_MONOTONIC) */
	bool have_prev;           /* an earlier reading, for --interval */
	bool prev_extended;       /* its data counters were PortCountersExtended's */
	bool prev_ext_errors;     /* its error counters were too */
	struct ibs_pma_counters prev;
	uint64_t prev_t_ns;
	/* The earlier reading's PortVLXmitWaitCounters, where it had them (the state, the exporter's last sweep). */
	bool prev_vl_ok;
	uint64_t prev_vl[IBS_N_VL];
	struct ibs_port_det det[IBS_N_DET_ALL];
	struct ibs_pma_details d; /* the members of the attributes in state IBS_DET_OK (psc_tick: [IBS_DET_PSC]) */
};

enum ibs_node_det { IBS_NODE_DET_UNKNOWN = 0, IBS_NODE_DET_PROBING, IBS_NODE_DET_HAS, IBS_NODE_DET_LACKS };

struct ibs_port {
	uint8_t num;
	bool valid;               /* PortInfo was received from this port */
	struct ibs_portinfo pi;
	uint64_t guid;            /* port GUID (switch ports share port 0's) */
	uint64_t *gids;           /* GUIDInfo entries (GID = prefix + guid), n_gids of them */
	unsigned n_gids;
	struct ibs_node *peer;    /* the other end of the cable, or NULL */
	uint8_t peer_port;
	struct ibs_addr path;     /* DR path used to query this port */
	char *error;              /* why PortInfo/GUIDInfo is missing, or NULL (ibs_set_error) */
	uint32_t error_rank;
	struct ibs_port_counters *ctr; /* NULL until counters are read */
};

struct ibs_node {
	size_t index;             /* position after ibs_fabric_sort() */
	struct ibs_nodeinfo ni;
	char *desc;               /* NodeDescription, cleaned (core/base/text.h); NULL when unknown */
	struct ibs_switchinfo si;
	bool has_si;
	struct ibs_addr path;     /* the DR path that first reached it */
	uint8_t entry_port;       /* the port that path enters through */
	unsigned level;           /* hops from the local node */
	/*
	 * The node's port records, sorted by number. A walked node has one for
	 * every port 0..num_ports (then ports[p] is port p); a node loaded from
	 * a file has only those the file lists or cables to, so that a file
	 * declaring 254 ports per node costs what it lists. Outside the walker,
	 * find port p with ibs_node_port() and iterate from ibs_node_ports_from().
	 */
	struct ibs_port *ports;
	unsigned n_ports;
	char *name;               /* from --node-name-map, or NULL */
	char *error;              /* the error about this node that ranks first, or NULL (ibs_set_error) */
	uint32_t error_rank;
	char guid_name[20];       /* "0x%016x", the name of last resort */
	uint16_t pma_capmask;     /* PMA ClassPortInfo CapabilityMask, when read */
	uint32_t pma_capmask2;    /* and its CapabilityMask2 (27 bits) */
	bool pma_cpi_ok;
	/* Whether its PMA answers each details attribute, learnt in this reading (enum ibs_node_det). */
	uint8_t pma_det[IBS_N_DET_ALL];
	enum ibs_outcome pma_det_outcome[IBS_N_DET_ALL]; /* how it failed, with IBS_NODE_DET_LACKS */
	uint16_t pma_det_status[IBS_N_DET_ALL];
	struct ibs_node *next_same_guid;
	struct ibs_node *last_same_guid; /* on the first of a GUID's chain: its last, so adding is O(1) */
};

/* Something the walk could not get: a neighbour or an attribute. */
struct ibs_walk_error {
	struct ibs_addr path;
	struct ibs_node *node;    /* the node it was about, or the node it was reached from */
	uint8_t port;             /* port on that node, or 0 */
	uint8_t mgmt_class;
	uint16_t attr_id;
	uint32_t attr_mod;
	enum ibs_outcome outcome;
	uint16_t status;
	bool unreachable;         /* a neighbour behind node/port could not be discovered */
};

struct ibs_sm {
	struct ibs_node *node;
	uint8_t port;
	uint16_t lid;
	uint64_t port_guid;
	bool ok;                  /* SMInfo answered */
	struct ibs_sminfo info;
	enum ibs_outcome outcome;
	uint16_t status;
};

struct ibs_fabric {
	struct ibs_local_port local;
	struct ibs_node **nodes;
	size_t n_nodes, cap_nodes;
	struct ibs_walk_error *errors;
	size_t n_errors, cap_errors;
	struct ibs_sm *sms;
	size_t n_sms, cap_sms;
	bool partial;             /* something could not be reached or read (why the run stopped: run.h) */
	/* By node GUID: the first node of each GUID; later ones chained from it (next_same_guid). */
	struct ibs_htab by_guid;
};

struct ibs_link {
	struct ibs_node *a;
	uint8_t pa;
	struct ibs_node *b;
	uint8_t pb;
};

/* A set of port numbers (0..255): which port records a loaded node gets. */
struct ibs_portset {
	uint64_t w[4];
};

static inline void ibs_portset_add(struct ibs_portset *s, unsigned p)
{
	s->w[(p >> 6) & 3] |= 1ull << (p & 63);
}

struct ibs_fabric *ibs_fabric_new(void);
void ibs_fabric_free(struct ibs_fabric *f);
/* A node with a record for every port 0..num_ports (the walker's). */
struct ibs_node *ibs_fabric_add_node(struct ibs_fabric *f, const struct ibs_nodeinfo *ni,
				     const struct ibs_addr *path);
/* A node with records for the ports in *ports only (those above num_ports left out). */
struct ibs_node *ibs_fabric_add_node_ports(struct ibs_fabric *f, const struct ibs_nodeinfo *ni,
					   const struct ibs_addr *path, const struct ibs_portset *ports);

/* Port p of n, or NULL when n has no record of it (only loaded nodes lack some). */
struct ibs_port *ibs_node_port_find(const struct ibs_node *n, unsigned p);
static inline struct ibs_port *ibs_node_port(const struct ibs_node *n, unsigned p)
{
	if (p < n->n_ports && n->ports[p].num == p)
		return &n->ports[p];
	return ibs_node_port_find(n, p);
}
/* The first record of a port numbered from or above; ibs_node_ports_end(n) when none. */
struct ibs_port *ibs_node_ports_from(const struct ibs_node *n, unsigned from);
static inline struct ibs_port *ibs_node_ports_end(const struct ibs_node *n)
{
	return n->n_ports ? n->ports + n->n_ports : n->ports; /* ports is NULL when there are none */
}
/* First node with this GUID (then node->next_same_guid), or NULL. */
struct ibs_node *ibs_fabric_find_guid(const struct ibs_fabric *f, uint64_t guid);
/* The port owning this LID (LMC range included), or NULL. */
struct ibs_port *ibs_fabric_find_lid(const struct ibs_fabric *f, uint16_t lid, struct ibs_node **node);
/*
 * Who holds each unicast LID: [lid] is the node's index + 1, IBS_LID_SHARED
 * where two or more nodes hold it, 0 where none (a switch by its port 0, a
 * CA or router by each port's LMC range). IBS_LID_UNICAST_END entries; the
 * caller frees it. A LID-routed MAD to a shared LID reaches whichever node
 * the forwarding tables lead to.
 */
#define IBS_LID_UNICAST_END 0xc000
#define IBS_LID_SHARED UINT32_MAX
uint32_t *ibs_fabric_lid_owners(const struct ibs_fabric *f);
/* Cable a's port pa to b's port pb; false (and nothing done) when either has no record. */
bool ibs_fabric_connect(struct ibs_node *a, uint8_t pa, struct ibs_node *b, uint8_t pb);
struct ibs_walk_error *ibs_fabric_add_error(struct ibs_fabric *f);
struct ibs_sm *ibs_fabric_add_sm(struct ibs_fabric *f);
/* Sort nodes by GUID then DR path and number them; links and output follow this order. */
void ibs_fabric_sort(struct ibs_fabric *f);
/* Every link once, from the lower (index, port) end; returns the count. Caller frees *out. */
size_t ibs_fabric_links(const struct ibs_fabric *f, struct ibs_link **out);
/* How many links ibs_fabric_links would list. */
size_t ibs_fabric_n_links(const struct ibs_fabric *f);
/*
 * Keep the error of lowest rank in *error: which of a node's or port's
 * failed reads completes first depends on timing (a replay answers at
 * once), what is said about it must not. Ranks: IBS_RANK(attribute,
 * modifier), the reads' fixed order.
 */
void ibs_set_error(char **error, uint32_t *rank, uint32_t new_rank, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
enum { IBS_RANK_PORTINFO = 0, IBS_RANK_GUIDINFO = 1, IBS_RANK_NODEDESC = 0, IBS_RANK_SWITCHINFO = 1 };
#define IBS_RANK(what, mod) ((uint32_t)(what) << 24 | ((uint32_t)(mod) & 0xffffff))
/* Set the description from untrusted bytes: cleaned, at most IBS_NODE_DESC_TEXT bytes kept. */
void ibs_node_set_desc(struct ibs_node *n, const char *raw, size_t len);

/* The node's LID: port 0's for switches, else the lowest valid port's. */
uint16_t ibs_node_lid(const struct ibs_node *n);
/* The LID at the far end of p's cable (a switch's port 0 LID), or 0. */
uint16_t ibs_port_peer_lid(const struct ibs_port *p);
/* First port number that exists on the node (0 for switches, 1 otherwise). */
static inline unsigned ibs_node_first_port(const struct ibs_node *n)
{
	return n->ni.node_type == IBS_NODE_SWITCH ? 0 : 1;
}
/* The display name: node-name-map entry, else the description, else the GUID. */
const char *ibs_node_name(const struct ibs_node *n);

/* Port is physically linked (LinkUp) or at least not Down. */
bool ibs_port_is_up(const struct ibs_port *p);

#endif
