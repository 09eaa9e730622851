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
	uint64_t id;         /* this request's number (0 once released): its earlier attempts know it by this */
	int slot;
	bool paths;          /* other paths may be asked of e->paths */
	uint8_t path_i;      /* the path of the current attempt */
	uint8_t round;       /* rounds over the paths before the current one (retries are at most 100) */
	uint64_t deadline; /* on the wire: end of this attempt; backing off: when to resend */
	uint64_t sent_at;  /* on the wire: when this attempt went out */
	struct pend *next, *prev;
};

/*
 * An earlier attempt whose timeout passed but which may still be answered:
 * the kernel keeps a send on its wait list for the timeout it was sent
 * with (timeout_ms, the cap) and delivers a late answer by TID. It keeps
 * its slot (so its TID still matches) and its load at the nodes on its way
 * (they may still be serving it) until it is answered, the kernel says it
 * gave up, or the cap has passed since it was sent.
 */
struct ghost {
	struct pend *p;  /* the request (its own if p->id == id, else long completed) */
	uint64_t id;
	uint32_t tid;
	uint64_t end;    /* sent_at + timeout_ms */
	bool live;
	int next, prev;  /* the list of live ghosts, by end */
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
	struct pend **slots;      /* the current attempt in each slot (n_slots of them) */
	struct ghost *ghosts;     /* an earlier attempt in each slot, if live */
	unsigned n_slots;
	int ghost_head, ghost_tail; /* live ghosts by end; -1: none */
	size_t n_ghosts;
	uint64_t next_id;
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

/* The round-trip times that answers to this class follow. */
struct ibs_rtt *eng_rtt_of(struct ibs_engine *e, uint8_t mgmt_class);
/* An SMInfo request: answered by the SM process, with the SA's timing (engine.c). */
bool eng_is_sminfo(const struct ibs_mad_req *r);
/* Take p off the wire (if there) and report its outcome (engine.c). */
void eng_complete(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status, const uint8_t *mad,
		  size_t len);
/*
 * p's current attempt failed, seen at now: the next path, a new round, or
 * complete as failed. lingers: it timed out here and may still be answered.
 */
void eng_retry_or_fail(struct ibs_engine *e, struct pend *p, enum ibs_outcome oc, uint16_t status, uint64_t now,
		       bool lingers);
/* Handle one received packet (engine_recv.c). */
void eng_handle_packet(struct ibs_engine *e, const struct ibs_packet *pkt);
/* The current attempt of p (on the wire) becomes a ghost: off the wire, slot and loads kept. */
void eng_to_ghost(struct ibs_engine *e, struct pend *p);
/* Ghost s is over (answered, given up by the kernel, or its time is up): slot and loads free. */
void eng_ghost_end(struct ibs_engine *e, int s, bool tell_transport);
/* End the ghosts whose time is up at now. */
void eng_ghosts_expire(struct ibs_engine *e, uint64_t now);
/* A slot that holds neither a current attempt nor a ghost (the oldest ghost is ended if need be). */
int eng_free_slot(struct ibs_engine *e);
/* Take p off whichever list it waits on (queue, backing off, a node's waiters, the wire). */
void eng_detach(struct ibs_engine *e, struct pend *p);

#endif
