/*
 * The walker's own state and the functions its parts share. Calls go one
 * way, down: walk.c runs the levels and calls the others; walk_query.c
 * sends the queries and takes their answers (the LID's confirming and
 * closing NodeInfos too); walk_lid.c judges whose answers a LID brings and
 * keeps what a node got by it; walk_path.c knows the ways into each node
 * (its directed routes and its LID). None calls a file above it.
 * Not for use outside the walker.
 */
#ifndef IBSCAN_WALK_INT_H
#define IBSCAN_WALK_INT_H

#include "../model/model.h"
#include "run.h"
#include "../../core/mad/engine.h"

struct ibs_walk_opts;

#define MAX_PATHS 4  /* paths a query tries: the first one and up to three others */
#define MAX_VIAS 2   /* other nodes one level up kept per node, besides the first */

struct probe {
	struct ibs_node *from; /* NULL for the local node */
	uint8_t port;
	struct ibs_addr path;
	bool last_chance;      /* asked in the re-sweep: a failure is final */
	bool ok;
	struct ibs_nodeinfo ni;
	enum ibs_outcome outcome;
	uint16_t status;
};

#define NO_NODE UINT32_MAX

/*
 * Other ways into a node, besides the path that first reached it: cables
 * from other nodes one level up (same path length), and one more cable from
 * the node that first reached it. Indexed by the node's index while walking,
 * and naming nodes by theirs (f->nodes is in that order until the end).
 */
struct uplinks {
	uint32_t via[MAX_VIAS];
	uint32_t parent;  /* the node that first reached it, or NO_NODE */
	uint8_t via_port[MAX_VIAS];
	uint8_t n_via;
	uint8_t parallel; /* another port of the parent cabled here, or 0 */
	bool port0_settled; /* a switch's port 0 PortInfo came, or failed for good: its capability mask is known */
	uint8_t lid_state; /* LID_UNKNOWN, LID_CONFIRMED (a LID-routed NodeInfo named this node), ... */
	uint16_t lid_pending; /* LID-routed queries about it not answered yet */
	uint32_t lid_reads;   /* answers it got by LID since its last confirmation: index + 1 in w->reads, or 0 */
};

/*
 * LID_CLOSING: its LID-routed reads are in and the closing NodeInfo is out;
 * LID_REFUSED: by directed route only (the LID named another node, or moved).
 */
enum { LID_UNKNOWN, LID_CONFIRMED, LID_CLOSING, LID_REFUSED };

/* An answer a node got by LID, kept until a closing NodeInfo says the LID still led there. */
struct lid_read {
	uint32_t next;  /* the node's next one: index + 1, or 0 */
	uint32_t probe; /* the query's probe (SMInfo: the SM's index) */
	uint32_t mod;
	uint32_t err;   /* the walk error its answer added: index + 1 in f->errors, or 0 */
	uint16_t attr;
	uint16_t lid;   /* the LID it was asked by */
	uint8_t port;
};
#define LID_DUP UINT32_MAX /* in lid_owner: two nodes claim the LID */

struct walker {
	struct ibs_engine *e;
	struct ibs_fabric *f;
	struct ibs_run *run;
	const struct ibs_walk_opts *o;
	bool gids;                 /* o->gids, for the queries (walk_query.c sees no walk.h) */
	struct ibs_node **level;   /* nodes whose details to read */
	size_t n_level, cap_level;
	struct port_task {
		struct ibs_node *node;
		uint8_t port;
		struct ibs_node *from; /* the cable into it: from's port */
		uint8_t from_port;
	} *tasks;                  /* extra CA ports reached by another cable */
	size_t n_tasks, cap_tasks;
	struct probe *probes;
	size_t n_probes, cap_probes;
	struct uplinks *up;
	size_t n_up, cap_up;       /* zeroed as nodes come: spare capacity stays untouched */
	struct qctx **deferred;    /* queries that failed along every path: for the re-sweep */
	size_t n_deferred, cap_deferred;
	struct port_ref {
		struct ibs_node *node;
		uint8_t port;
	} *reprobe;                /* probes that failed along every path: for the re-sweep */
	size_t n_reprobe, cap_reprobe;
	uint64_t resweeps;         /* queries asked again at the end */
	struct ibs_node *root;     /* the local node, once it answered */
	bool lid_route;            /* LID-routed SMPs to nodes whose LID is known */
	unsigned lid_good, lid_bad; /* LID-routed queries answered that way, and not */
	uint32_t *lid_owner;       /* by unicast LID: the index + 1 of the node that claims it, or LID_DUP */
	struct lid_read *reads;    /* see uplinks.lid_reads; free ones chained from free_read */
	size_t n_reads, cap_reads;
	uint32_t free_read;        /* index + 1, or 0 */
	struct qctx *free_ctx;
	bool stopped;              /* the engine runs no more: what fails now may ask nothing more */
};

struct qctx {
	struct walker *w;
	union {
		struct ibs_node *node; /* what the answer is about */
		struct qctx *next;     /* on the walker's free list */
	};
	/*
	 * Where the query goes: the paths into `base`, each extended by port
	 * `ext` when it is not 0; or, when is_fixed, only the path `fixed`
	 * (which outlives the query). The first of them is the path the model
	 * reports (query_canon).
	 */
	union {
		struct ibs_node *base;
		const struct ibs_addr *fixed;
	};
	uint32_t probe;         /* index in the walker's probes, or in the fabric's SMs */
	uint32_t mod;
	uint16_t attr;
	uint8_t port;
	uint8_t ext;
	bool is_fixed;
	bool last_chance;       /* in the re-sweep: a failure now is final */
	bool lead;              /* the node's first PortInfo: the rest waits for its LID */
	uint16_t lid;           /* path 0 is this LID (LID-routed), the DR paths follow; 0: DR only */
};

/* A query's context, and back to the free list (walk_query.c). */
struct qctx *walk_qctx(struct walker *w, struct ibs_node *n, uint8_t port);
void walk_qctx_put(struct qctx *c);

/* The ways into a node (walk_path.c): its directed routes, and the LID it may be asked by. */
struct uplinks *walk_uplinks(struct walker *w, const struct ibs_node *n);
void walk_add_uplink(struct walker *w, struct ibs_node *n, uint8_t k, struct ibs_node *from, uint8_t port);
/* Path i of a query, for the engine's retries (ibs_path_fn); path 0 is the one the model reports. */
bool walk_query_path(void *ctx, unsigned i, struct ibs_addr *out);
/* The query's own directed-route path: what the model keeps. */
void walk_query_canon(struct qctx *c, struct ibs_addr *out);
/* The nodes an attempt to a is served by, for the engine's per-node cap (ibs_route_fn). */
unsigned walk_route(void *ctx, const struct ibs_addr *a, uint32_t *keys, unsigned max);
/* Port p of n says its LID: note who claims which LID. */
void walk_lid_claim(struct walker *w, const struct ibs_node *n, const struct ibs_port *p);
/* The LID n may be asked by, confirmed or not (0: none; always 0 for a CA or router). */
uint16_t walk_node_lid(struct walker *w, const struct ibs_node *n);
/* The LID to query c's node by (LID-routed), or 0: by directed route. */
uint16_t walk_lid_for(const struct qctx *c);

/* Whose answers a LID brings (walk_lid.c): it judges, walk_query.c asks. */
/* The confirming NodeInfo by LID answered (r): n's LID is confirmed, or refused. */
void walk_lid_confirmed(struct walker *w, struct ibs_node *n, const struct ibs_mad_req *req,
			const struct ibs_mad_result *r);
/*
 * Did this LID-routed answer come from the node asked? False when it did
 * not (a PortInfo with another LID, a GUIDInfo with another port GUID): the
 * node's LID is then refused and the caller asks again by directed route.
 */
bool walk_lid_answer_ok(struct qctx *c, const struct ibs_mad_req *req, const struct ibs_portinfo *pi,
			const uint64_t *guids);
/* Keep what u's node got by LID (rd), until the closing NodeInfo. */
void walk_lid_keep(struct walker *w, struct uplinks *u, const struct lid_read *rd);
/* Forget what u's node got by LID: its answers stand, or have been asked again. */
void walk_lid_forget(struct walker *w, struct uplinks *u);
/*
 * n's LID led elsewhere: refuse it, and undo what n got by it since its
 * last confirmation (the model's fields and the walk errors). Returns the
 * first of those reads (w->reads, chained by next), to ask again.
 */
uint32_t walk_lid_undo(struct walker *w, struct ibs_node *n);
/* Whether read rd of the chain from head is asked again itself, not by its port's PortInfo answer. */
bool walk_lid_ask_again(const struct walker *w, uint32_t head, const struct lid_read *rd);
/*
 * The closing NodeInfo by LID answered (r, not aborted): true when it
 * named n (what n got by LID stands); false, said why, when n's reads are
 * to be undone and asked again by directed route.
 */
bool walk_lid_closed(struct walker *w, struct ibs_node *n, const struct ibs_mad_req *req, const struct ibs_mad_result *r);

/* Queries and their answers (walk_query.c). */
ibs_mad_cb walk_handler(uint16_t attr);
void walk_send_query(struct qctx *c);
void walk_query(struct qctx *c, struct ibs_node *base, uint8_t ext, const struct ibs_addr *fixed, uint16_t attr,
		uint32_t mod);
void walk_query_port(struct walker *w, struct ibs_node *n, uint8_t port, struct ibs_node *base, uint8_t ext);
/* The rest of a node's details, once its first PortInfo (and so its LID) is in. */
void walk_read_rest(struct walker *w, struct ibs_node *n);
void walk_record_error(struct walker *w, const struct ibs_mad_req *req, const struct ibs_addr *path,
		       struct ibs_node *n, uint8_t port, const struct ibs_mad_result *r, bool unreachable);

#endif
