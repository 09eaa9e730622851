/*
 * The engine's own state, shared by core/mad/engine.c and engine_list.c only
 * (each includes engine.h first: including it here would make a cycle).
 */
#ifndef IBSCAN_ENGINE_INT_H
#define IBSCAN_ENGINE_INT_H

#include "rtt.h"

#define SLOT_BITS 10 /* IBS_ENGINE_MAX_WINDOW == 1 << SLOT_BITS */
#define SLOT_MASK ((1u << SLOT_BITS) - 1)

/*
 * Round-trip times are kept by the kind of agent that answers: SMAs (SMPs,
 * in switch and HCA firmware), the SA (a daemon on the SM's host) and the
 * rest (PMAs): one kind's times would cut another's answers off.
 */
enum { ENG_RTT_SMP, ENG_RTT_SA, ENG_RTT_GMP, ENG_RTT_KINDS };

struct pend {
	struct ibs_mad_req req;
	uint8_t *data; /* copy of req.data */
	ibs_mad_cb cb;
	void *ctx;
	unsigned attempts;
	int cause;           /* why the kernel refused to send it (IBS_MAD_SEND_FAILED) */
	uint32_t tid;
	int slot;
	bool paths;          /* other paths may be asked of e->paths */
	uint8_t path_i;      /* the path of the current attempt */
	uint8_t round;       /* rounds over the paths before the current one (retries are at most 100) */
	uint64_t deadline; /* on the wire: end of this attempt; backing off: when to resend */
	uint64_t sent_at;  /* on the wire: when this attempt went out */
	struct pend *next, *prev;
};

struct plist {
	struct pend *head, *tail;
	size_t n;
};

/* A node's requests in flight, and those waiting for it to have room. */
struct nodeload {
	unsigned load;
	bool woken; /* on the woken list: it has room and waiters */
	struct plist waiting;
};

struct ibs_engine {
	struct ibs_transport *t;
	struct ibs_engine_opts o;
	uint64_t start, deadline; /* ns, CLOCK_MONOTONIC; deadline 0: none */
	struct plist queue;       /* not yet sent (or waiting to be resent) */
	struct plist wire;        /* in flight, in send order */
	struct plist later;       /* backing off before a retry, by resend time */
	struct pend **slots;
	uint32_t seq;
	enum ibs_err failed;      /* sticky abort reason */
	struct ibs_engine_stats st;
	struct pend *freelist;
	ibs_path_fn paths;
	ibs_route_fn route;
	struct nodeload *nodes;   /* by route key */
	size_t n_nodes, cap_nodes;
	uint32_t *route_keys;     /* IBS_ENGINE_MAX_ROUTE per slot: the nodes its attempt counts at */
	uint8_t *route_n;         /* per slot: how many */
	uint32_t *woken;          /* keys with room and waiters */
	size_t n_woken, cap_woken;
	size_t n_waiting;
	struct ibs_rtt rtt[ENG_RTT_KINDS]; /* this run's round-trip times by kind of agent: the adaptive timeouts */
	void (*progress)(void *, const struct ibs_engine_stats *);
	void *progress_ctx;
	uint64_t last_progress;
	unsigned send_failures_said; /* send failures logged as warnings (a few, then with -v) */
};

void eng_pl_insert_after(struct plist *l, struct pend *q, struct pend *p);
void eng_pl_push(struct plist *l, struct pend *p);
void eng_pl_push_front(struct plist *l, struct pend *p);
void eng_pl_del(struct plist *l, struct pend *p);
/* Queue p to go out again at `when`, keeping l in time order. */
void eng_pl_insert_later(struct plist *l, struct pend *p, uint64_t when);
/* The load of node `key`, the array grown to hold it. */
struct nodeload *eng_nodeload(struct ibs_engine *e, uint32_t key);
/* The attempt in slot s ended: its nodes have room again; their waiters are woken. */
void eng_route_release(struct ibs_engine *e, int s);

#endif
