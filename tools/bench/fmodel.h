/*
 * The fabric model behind tools/bench/fabricmodel.c, in plain C with no I/O and no
 * clock of its own (times are nanoseconds the caller passes in), so that a
 * unit test can drive it with a fake clock: an ibsim topology, the route of a
 * MAD through it, and a discrete-event simulation of hop latency, per-node
 * service one MAD at a time, bounded queues that drop, and the kernel's
 * timeout and resends of a request that got no answer.
 *
 * Ownership: fm_topo_parse() returns a topology the caller frees with
 * fm_topo_free(), after every model built on it. A model owns its requests;
 * a request id stays valid until fm_req_put().
 */
#ifndef IBSCAN_TOOLS_FMODEL_H
#define IBSCAN_TOOLS_FMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FM_MAX_HOPS 64      /* a directed route has at most 64 hops (IBA 14.2.2) */
#define FM_NO_LIMIT (-1)    /* fm_params.queue: queues never drop */
#define FM_NEVER UINT64_MAX /* "no such time" */

struct fm_topo;
struct fm_model;

/* Parse ibsim's topology format (ibnetdiscover's output format: Switch/Hca/Ca
 * lines, [port] "peer"[port] lines, "lid N" annotations). NULL on error, with
 * the reason ("line N: ...") in err. */
struct fm_topo *fm_topo_parse(const char *text, size_t len, char *err, size_t errlen);
void fm_topo_free(struct fm_topo *t);
int fm_topo_count(const struct fm_topo *t);
/* The node with this id ("S-leaf01"), else with this description; -1 if none. */
int fm_topo_find(const struct fm_topo *t, const char *name);
const char *fm_topo_id(const struct fm_topo *t, int node);
bool fm_topo_is_switch(const struct fm_topo *t, int node);

struct fm_params {
	uint64_t hop_ns;    /* one link: wire, serialisation, switch forwarding */
	uint64_t switch_ns; /* a switch's SMA/SMI (or PMA) serving one MAD */
	uint64_t ca_ns;     /* a channel adapter's SMA (or PMA, SA) serving one MAD */
	int queue;          /* MADs that may wait behind the one in service; FM_NO_LIMIT */
	uint32_t loss_ppm;  /* a MAD is lost on its way to its destination, this many in a million
			     * (a fixed pseudo-random sequence; counted as dropped) */
};

/* One node that serves a MAD on its way, and the links crossed to reach it. */
struct fm_stop {
	int32_t node;
	uint16_t hops;
};

/* The nodes that serve a request, in order; the last is its destination. */
struct fm_route {
	int nstops;
	int hops;     /* links from the sender to the destination */
	int dest;     /* -1: unknown (an unresolved LID) */
	bool resolved;
	struct fm_stop stop[FM_MAX_HOPS + 1];
};

enum fm_kind { FM_DR_SMP, FM_LID_SMP, FM_GMP, FM_KINDS };
enum fm_outcome { FM_ANSWERED, FM_TIMED_OUT };

/* local: the sender's node (where ibsim attached the tool). The model keeps t. */
struct fm_model *fm_new(const struct fm_topo *t, int local, const struct fm_params *p);
void fm_free(struct fm_model *m);

/* A directed-route SMP with initial path path[1..hops] (path[0] unused): every
 * switch it passes serves it (the SMI forwards it in firmware), and so does
 * its destination. A sender that is a CA hands it to its port without
 * serving it; a sender that is a switch serves it as the first hop. */
void fm_route_dr(const struct fm_model *m, const uint8_t *path, int hops, struct fm_route *r);
/* A LID-routed SMP or GMP: switches forward it in hardware (hops count for
 * latency only), its destination serves it. resolved is false, and the route
 * empty, when no node is known for the LID. */
void fm_route_lid(const struct fm_model *m, uint16_t lid, struct fm_route *r);
/* The LIDs lid .. lid + 2^lmc - 1 belong to node (seeded from the topology
 * file's annotations, then learnt from PortInfo answers). */
void fm_learn_lid(struct fm_model *m, uint16_t lid, unsigned lmc, int node);

/* A request sent at now, answered unless every node on its route accepts it
 * and it comes back; with timeout_ns > 0 it times out (as the kernel's MAD
 * layer does) timeout_ns after each attempt, is sent again up to retries
 * times, and then ends FM_TIMED_OUT; with 0 it waits for ever. tag is the
 * caller's, returned by fm_pop_done(). Returns the request id. */
int fm_send(struct fm_model *m, uint64_t now, enum fm_kind kind, const struct fm_route *r,
	    uint64_t timeout_ns, unsigned retries, uint64_t tag);
/* Run every event up to now. */
void fm_advance(struct fm_model *m, uint64_t now);
/* Run events in time order up to limit and stop at the first that ends a
 * request: returns the time the earliest unreported request ends, or
 * FM_NEVER if none ends by limit. For a caller that then waits until that
 * time (or limit) and sends nothing before: a request sent earlier would be
 * modelled after events it may have preceded (each node still serves one at
 * a time). */
uint64_t fm_run_until_done(struct fm_model *m, uint64_t limit);
/* The earliest time anything may happen (an event or an unreported end), without running it. */
uint64_t fm_next_time(struct fm_model *m);
/* The next request that ended at or before now, in the order they ended. */
bool fm_pop_done(struct fm_model *m, uint64_t now, int *req, uint64_t *tag, enum fm_outcome *out);
int fm_req_dest(const struct fm_model *m, int req);
/* When req ended (after fm_pop_done()). */
uint64_t fm_req_done_at(const struct fm_model *m, int req);
/* The caller is done with req (after fm_pop_done()). */
void fm_req_put(struct fm_model *m, int req);

struct fm_stats {
	uint64_t sent[FM_KINDS]; /* requests, by kind */
	uint64_t resent;         /* attempts after the first (the kernel's resends) */
	uint64_t dropped;        /* attempts dropped at a full queue */
	uint64_t timed_out;      /* requests that ended FM_TIMED_OUT */
	uint64_t unresolved;     /* LID-routed requests to a LID of no known node */
	unsigned max_busy;       /* most MADs one switch had in service and waiting at once */
	int max_node;            /* that switch (the first to reach it), -1 if none */
	unsigned max_out;        /* most requests in flight (sent, not ended) that one switch serves on their way */
	int max_out_node;        /* that switch, -1 if none */
};
void fm_stats(const struct fm_model *m, struct fm_stats *s);

struct fm_node_stats {
	uint64_t served;   /* MADs accepted (in service or queued) */
	uint64_t dropped;  /* MADs dropped at its full queue */
	unsigned max_busy; /* most in service and waiting at once */
	unsigned max_out;  /* most requests in flight that it serves on their way */
};
void fm_node_stats(const struct fm_model *m, int node, struct fm_node_stats *s);

#endif
