/*
 * Is the fabric routed right: every source CA port to every destination LID
 * through the switches' forwarding tables (as `routes --dump` reads them),
 * with unreachable destinations, routes over ports that are not Active,
 * dead ends, forwarding loops, hop counts against the topology's minimum,
 * per-port balance by tier, routes that are not up/down, and the cycles of
 * the channel dependency graph (credit loops).
 *
 * The work is per destination, not per pair: each switch's next hop toward
 * one LID is resolved once (memoised along chains), and the sources cabled
 * to a switch are weighted in at once. Memory is linear in the fabric.
 * Ownership: the result owns its arrays; node pointers are borrowed from
 * the fabric and valid until ibs_fabric_free().
 */
#ifndef IBSCAN_ROUTECHECK_H
#define IBSCAN_ROUTECHECK_H

#include "../model/model.h"
#include "../walk/route.h"

enum ibs_rc_kind {
	IBS_RC_UNREACHABLE, /* no entry, entry 255, out of range, port 0 of a switch that does not own it */
	IBS_RC_DOWN_PORT,   /* the table sends it out of a port that is not Active (or has no cable) */
	IBS_RC_DEAD_END,    /* it arrives at a CA or router that does not own the LID */
	IBS_RC_LOOP,        /* a switch comes up twice */
	IBS_RC_KINDS,
};

const char *ibs_rc_kind_str(enum ibs_rc_kind k);

/* Where the routes of `pairs` source ports to one LID go wrong. */
struct ibs_rc_finding {
	enum ibs_rc_kind kind;
	uint16_t dlid;
	const struct ibs_node *dst;  /* who owns dlid */
	const struct ibs_node *node; /* the switch where it happens (a loop: the switch seen twice; a source port not Active: the CA) */
	uint8_t port;                /* the port it leaves by (the table's entry for an unreachable one) */
	const struct ibs_node *at;   /* a dead end: the CA it arrives at */
	uint64_t pairs;
};

/* One link of a credit loop: the channel out of node's port, on VL vl. */
struct ibs_rc_chan {
	const struct ibs_node *node;
	uint8_t port;
	uint8_t vl;
};

/* A cycle of channel dependencies, its links in order; scc is how many channels its strongly connected part holds. */
struct ibs_rc_cycle {
	struct ibs_rc_chan *links;
	size_t n;
	size_t scc;
	uint16_t sls; /* with the SA's SLs: the SLs of the routes that make its dependencies (bit per SL); else 0 */
};

enum ibs_rc_role { IBS_RC_NONE, IBS_RC_HOST, IBS_RC_UP, IBS_RC_DOWN, IBS_RC_SIDE };
const char *ibs_rc_role_str(enum ibs_rc_role r);

struct ibs_rc_group {
	unsigned ports;
	uint32_t min, max;
	double mean;
	bool unbalanced; /* up: max > min + 1 (check_lft_balance's rule); down: so among parallel cables to one switch */
};

struct ibs_rc_switch {
	const struct ibs_node *node;
	unsigned level;       /* fabric/model/levels.h: 1 leaf, 2 spine ... */
	unsigned n_ports;     /* entries in lids, routes, role: ports 0..num_ports */
	uint32_t *lids;       /* CA destination LIDs (LMC ranges included) the table sends out of each port */
	uint64_t *routes;     /* source-to-LID routes that leave by each port */
	uint8_t *role;        /* enum ibs_rc_role of each port */
	bool *cyclic;         /* the channel out of each port (on some VL) is in a strongly connected part with a cycle */
	struct ibs_rc_group up, down;
	uint64_t *job;        /* with ibs_rc_opts.job: routes among the job's CAs leaving by each port */
	uint64_t *job_in;     /* with ibs_rc_opts.job: those entering by each port from the job's CA cabled to it */
};

struct ibs_routecheck {
	uint64_t sources;     /* CA ports with a LID and a cable */
	uint64_t dests;       /* destination LIDs (CA and switch, each LID of an LMC range) */
	uint64_t pairs, ok;
	uint64_t bad[IBS_RC_KINDS]; /* pairs by what went wrong */
	uint64_t *hist;       /* hist[h]: routes of h links */
	size_t n_hist;
	unsigned min_hops, max_hops;
	double mean_hops;
	uint64_t minimal_known; /* routes to CAs whose topological minimum is known (switch LIDs are not compared) */
	uint64_t non_minimal;   /* routes longer than the topology's shortest path */
	uint64_t not_updown;    /* routes that go down a tier and then up again */
	struct ibs_rc_finding *v; /* sorted by kind, LID, switch */
	size_t n;
	struct ibs_rc_switch *sw; /* every switch with a table, in fabric order */
	size_t n_sw;
	size_t unread;          /* switches whose table is missing or incomplete */
	unsigned max_level;
	/*
	 * The channel dependency graph: a channel is a link on a VL. Each route's
	 * SL is the SA's (ibs_rc_opts.sls, every pair asked answered) or SL 0
	 * (sl0_assumed, and sl_why says why). With the switches' SL2VL tables
	 * (ibs_rc_opts.vls, every pair answered: vl_read) the VL of each hop is
	 * theirs for the route's SL; else one VL per link, and vl_why says why.
	 */
	uint64_t channels, deps;
	struct ibs_rc_cycle *cycles;
	size_t n_cycles;
	bool sl0_assumed;
	bool vl_read;
	unsigned n_vls;         /* VLs in the graph (1 without the tables) */
	size_t vl_pairs;        /* (in, out) pairs asked / answered */
	size_t vl_answered;
	size_t vl_incomplete;   /* switches that left a pair unanswered */
	const char *vl_why;     /* static text: why the tables were not used, or NULL */
	size_t sl_pairs;        /* (source port, LID) PathRecords asked / answered */
	size_t sl_answered;
	uint16_t sl_mask;       /* the SLs the routes are on (bit per SL): 1 (SL 0) when assumed */
	const char *sl_why;     /* static text: why SL 0 was assumed, or NULL */
	struct ibs_path_sl *paths; /* the sl_pairs PathRecords asked, by (dlid, slid), with the SA's answers; owned */
	/* With ibs_rc_opts.through: host-to-host routes crossing the link, by node index (CAs only). */
	uint64_t *thr_from, *thr_to;
	uint64_t thr_routes;
	/* With ibs_rc_opts.job: routes among the job's CAs. */
	uint64_t job_routes;
	size_t job_cas;
};

/* What to trace besides the check itself. */
struct ibs_rc_opts {
	const struct ibs_node *through; /* routes crossing the cable at through's port through_port (either way) */
	uint8_t through_port;
	const bool *job;                /* by node index: the CAs of a job, whose routes among themselves are counted */
	bool all_hosts;                 /* without job: the job is every CA and router (ibs_rc_all_hosts), the heat map's */
	const struct ibs_sl2vls *vls;   /* the switches' SL2VL tables (ibs_sl2vl_pairs of the same lfts), or NULL */
	/* The SA's SLs of the pairs ibs_rc_sl_pairs chose, sorted by (dlid, slid) as it gives them; other pairs SL 0. */
	const struct ibs_path_sl *sls;
	size_t n_sls;
	struct ibs_routecheck *cycle_sls; /* a check with the same opts: its cycles' sls are filled in */
	/* ibs_rc_sl_pairs: the pairs whose routes cross a cyclic channel of sl_pairs_of, into *sl_pairs (unsorted). */
	const struct ibs_routecheck *sl_pairs_of;
	struct ibs_path_sl **sl_pairs;
	size_t *n_sl_pairs;
};

/*
 * Bounded: more pairs than this to ask the SA for, and every route is
 * taken to be on SL 0 (with the reason), not asked one PathRecord each.
 */
#define IBS_RC_MAX_PATHRECORDS 20000
/*
 * The (source port base LID, destination LID) pairs whose routes cross a
 * channel in a part of rc's graph with a cycle (rc: a check on one VL of
 * the same lfts): only their SLs can make or break a cycle. Sorted by
 * (dlid, slid), into *out (caller frees).
 */
void ibs_rc_sl_pairs(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, const struct ibs_routecheck *rc,
		     struct ibs_path_sl **out, size_t *n_out);

/*
 * Check every route of f through the tables lfts (n of them, from
 * ibs_read_lfts). Never fails: what cannot be known is counted.
 */
void ibs_routecheck(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, struct ibs_routecheck *out);
/* The same, tracing what o asks for (o may be NULL). */
/* A job of every CA and router (by node index, for ibs_rc_opts.job): the heat map's routes among all hosts. Caller frees. */
bool *ibs_rc_all_hosts(const struct ibs_fabric *f);
void ibs_routecheck_opts(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, const struct ibs_rc_opts *o,
			 struct ibs_routecheck *out);
void ibs_routecheck_free(struct ibs_routecheck *rc);
/* Whether the channel out of sw's port out is in a part of the graph with a cycle (an ibs_want_out_fn; ctx: the check). */
bool ibs_rc_cyclic_out(void *ctx, const struct ibs_node *sw, unsigned out);

/* The monitoring-plugin verdict: CRITICAL for a finding or a credit loop, WARNING for imbalance or up/down turns. */
enum ibs_rc_status { IBS_RC_OK, IBS_RC_WARNING, IBS_RC_CRITICAL, IBS_RC_UNKNOWN };
enum ibs_rc_status ibs_routecheck_status(const struct ibs_routecheck *rc);
const char *ibs_rc_status_str(enum ibs_rc_status s);
/* Switches whose uplinks are unbalanced (check_lft_balance's rule: max > min + 1); the verdict's WARNING. */
size_t ibs_routecheck_unbalanced(const struct ibs_routecheck *rc);

/* fabric/check/routecdg.c: the cycles of a dependency graph, internal to the check. */
struct ibs_rc_cdg;
/* A graph of the channels of n_sw switches on nvl VLs (0..nvl-1). */
struct ibs_rc_cdg *ibs_rc_cdg_new(const struct ibs_fabric *f, const int32_t *swidx, size_t n_sw,
				  const struct ibs_node *const *sws, unsigned nvl);
/* A route enters switch k on in_port on VL in_vl and leaves on out_port on VL out_vl (both ports to switches). */
void ibs_rc_cdg_add(struct ibs_rc_cdg *g, int32_t k, uint8_t in_port, uint8_t in_vl, uint8_t out_port, uint8_t out_vl);
/* Find the cycles (one per strongly connected part with a cycle) into rc; frees g. */
void ibs_rc_cdg_finish(struct ibs_rc_cdg *g, struct ibs_routecheck *rc);

#endif
