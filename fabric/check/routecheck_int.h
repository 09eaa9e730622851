/* The route check's state, shared by routecheck.c and routetrace.c (--through, --nodes); internal. */
#ifndef IBSCAN_ROUTECHECK_INT_H
#define IBSCAN_ROUTECHECK_INT_H

#include "../model/model.h"

/* Not routecheck.h: it is the unit that includes this one (tests/cli/layers.py: no include cycles). */
struct ibs_lft;
struct ibs_routecheck;
struct ibs_rc_opts;
struct ibs_rc_cdg;
struct ibs_sl2vl;
struct ibs_path_sl;

/* A switch's state toward one destination: enum ibs_rc_kind, or these. */
enum { IBS_RC_VL_DROP = 15 }; /* SL2VL's VL 15: the packet is dropped */
enum { R_OK = 4 /* IBS_RC_KINDS, checked in routecheck.c */, R_STACK = 0xfd, R_UNKNOWN = 0xfe };
enum { F_UP = 1, F_BAD = 2 };
enum { NH_DOWN = -1, NH_CA = -2 }; /* struct st's nh[] besides a switch number */ /* the route from here goes up somewhere; it goes down and then up */

struct dest {
	uint16_t lid;
	const struct ibs_node *node;
	uint8_t port;
	int32_t att;  /* the switch it hangs off (itself for a switch), or -1 */
	bool ca;
	bool src;     /* its port is also a source */
};

struct st {
	const struct ibs_fabric *f;
	struct ibs_routecheck *rc;
	size_t S;
	const struct ibs_node **sws;
	const struct ibs_lft **lft;
	int32_t *swidx;     /* node index -> switch number, or -1 */
	unsigned *level;    /* by node index */
	uint32_t *nsrc;     /* source ports cabled to each switch */
	int32_t *nh;        /* next hop of switch k's port e: nh[nhbase[k] + e] (next_hops()) */
	size_t *nhbase;
	/* Per destination. */
	uint8_t *res, *outp, *flag;
	uint16_t *hops;
	int32_t *nxt, *term, *stack, *dist, *queue;
	uint64_t *cnt, *fcount;
	int32_t *touched;
	size_t ntouched, capf;
	uint32_t *bucket, *order;
	struct ibs_rc_cdg *cdg;
	const struct ibs_sl2vl **vl;   /* switch k's SL2VL (NULL: one VL) */
	uint16_t *srcvl;               /* the VLs routes from the CAs at switch k leave port e on: srcvl[nhbase[k] + e] */
	uint16_t *vmask;               /* per destination: the VLs on the channel switch k sends it out by, vmask[k * nsl + sl] */
	unsigned nsl;                  /* 16 with the SA's SLs, else 1 (SL 0) */
	/* ibs_rc_sl_pairs: the pairs whose routes cross a channel in a cyclic part of prev's graph */
	const struct ibs_routecheck *prev;
	struct ibs_path_sl *want;
	size_t n_want, cap_want;
	uint64_t hop_sum;
	bool have_min;
	/* --through and --nodes */
	const struct ibs_rc_opts *o;
	size_t *sbase;                 /* sources cabled to switch k: src[sbase[k] .. sbase[k + 1]] */
	const struct ibs_port **src;
	const struct ibs_node **src_node;
	uint32_t *njob;                /* the job's sources cabled to each switch */
	uint64_t *okd;                 /* the job's CA destination LIDs each switch routes (R_OK) */
	uint64_t *own;                 /* per source: its own LIDs among those (not routes from it) */
	bool *cross;
	size_t n_ok;
};

static inline bool is_sw(const struct ibs_node *n)
{
	return n && n->ni.node_type == IBS_NODE_SWITCH;
}

static inline bool port_active(const struct ibs_port *p)
{
	return !p || !p->valid || ibs_portinfo_active(&p->pi); /* an unread port is not held against the route */
}

/* The switch CA port p is a route source at (a LID and a cable to a switch): its number, or -1. */
static inline int32_t source_switch(const struct st *t, const struct ibs_port *p)
{
	return p->valid && p->pi.lid && is_sw(p->peer) ? t->swidx[p->peer->index] : -1;
}

/* Whether source port p routes at all: it and its switch's end are Active. */
static inline bool source_active(const struct ibs_port *p)
{
	return ibs_portinfo_active(&p->pi) && port_active(ibs_node_port(p->peer, p->peer_port));
}

/* routecheck_vl.c: the VL a route of SL sl leaves switch k by, from in to out (0 with one VL; IBS_RC_VL_DROP for VL 15). */
uint8_t ibs_rc_vl_at(const struct st *t, int32_t k, uint8_t in, uint8_t out, uint8_t sl);
/* The SA's SLs and switches' SL2VL tables of o (may be NULL) into t: t->vl, t->srcvl, t->vmask, the vl_ and sl_ figures. */
void ibs_rc_use_vls(struct st *t, const struct ibs_rc_opts *o);
/* Toward d: the VLs (per SL) the routes from the CAs at OK switch k leave it on (t->vmask). */
void ibs_rc_vl_sources(struct st *t, int32_t k, const struct dest *d);
/* The routes of switch s go on from nx (entered by port in): their dependencies there, per SL. */
void ibs_rc_vl_carry(struct st *t, int32_t s, int32_t nx, uint8_t in);
/* ibs_rc_sl_pairs: the pairs toward d whose routes cross a cyclic channel of t->prev. */
void ibs_rc_want_sls(struct st *t, const struct dest *d);
/* routecheck_balance.c: ports by role and the spread of CA LIDs over the uplinks and the downlinks. */
void ibs_rc_balance(struct st *t);

/* routetrace.c */
void ibs_rc_sources(struct st *t);
void ibs_rc_through(struct st *t, const struct dest *d);
void ibs_rc_job(struct st *t, const struct dest *d);
/* After the last destination: each job source's routes out of its CA (job_in). */
void ibs_rc_job_finish(struct st *t);

#endif
