/*
 * Unicast routes through the switches' linear forwarding tables, read with
 * directed-route SMPs along the walk's paths; and the SA's PathRecord.
 */
#ifndef IBSCAN_ROUTE_H
#define IBSCAN_ROUTE_H

#include "../model/model.h"
#include "../../core/mad/engine.h"

struct ibs_hop {
	const struct ibs_node *node;  /* a switch on the way */
	uint8_t in_port;              /* 0 for the first node when it is the source */
	uint8_t out_port;             /* from its LFT */
};

enum ibs_route_result {
	IBS_ROUTE_OK,
	IBS_ROUTE_HOLE,      /* a switch has no entry for the LID */
	IBS_ROUTE_LOOP,      /* a switch came up twice */
	IBS_ROUTE_DEAD_END,  /* the LFT points at a port without a cable */
	IBS_ROUTE_WRONG,     /* arrived at a CA or router that does not own the LID */
	IBS_ROUTE_UNREAD,    /* an LFT block could not be read */
};

struct ibs_route {
	const struct ibs_node *src;
	uint8_t src_port;
	uint16_t dlid;
	const struct ibs_node *dst;   /* who owns dlid (NULL if nobody in the model) */
	uint8_t dst_port;
	struct ibs_hop *hops;
	size_t n_hops;
	enum ibs_route_result result;
	char *why;                    /* for anything but OK */
};

const char *ibs_route_result_str(enum ibs_route_result r);
/*
 * An endpoint given as a LID, a node or port GUID ("0x..."), or a name (the
 * node-name-map name, the description, or its first word as in "node0001
 * mlx5_0"): the node, the port meant and its LID. *msg says why not.
 */
enum ibs_err ibs_fabric_resolve(const struct ibs_fabric *f, const char *spec, const struct ibs_node **node,
				uint8_t *port, uint16_t *lid, char **msg);
/* Trace from src (port src_port: a CA port, or 0 for a switch) to dlid. */
enum ibs_err ibs_route_trace(struct ibs_engine *e, const struct ibs_fabric *f, const struct ibs_node *src,
			     uint8_t src_port, uint16_t dlid, struct ibs_route *out);
void ibs_route_free(struct ibs_route *r);

/* Every switch's LFT: lft[i] for LIDs 0..n-1 (0xff: no entry). */
struct ibs_lft {
	const struct ibs_node *node;
	uint8_t *ports;
	size_t n;
	bool ok;
};
enum ibs_err ibs_read_lfts(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_lft **out, size_t *n);
void ibs_lfts_free(struct ibs_lft *v, size_t n);

/*
 * What switches' SLtoVLMappingTables say (IBA 14.2.5.8): the VL a packet
 * of each SL leaves by, for each (in-port, out-port) pair read. Only the
 * pairs routes use between switches are asked (ibs_sl2vl_pairs): out-ports
 * cabled to a switch, in-ports a route to some LID enters by. One MAD a
 * pair gives all 16 SLs.
 */
#define IBS_VL_UNREAD 0xff
struct ibs_sl2vl {
	const struct ibs_node *node;
	unsigned np;        /* num_ports + 1 */
	uint8_t *vl;        /* vl[(in * np + out) * 16 + sl], IBS_VL_UNREAD where not asked or not answered */
	uint64_t *want;     /* the pairs to ask: bit in * np + out */
	size_t asked, answered;
};
struct ibs_sl2vls {
	struct ibs_sl2vl *v; /* every switch, in fabric order */
	size_t n;
	size_t asked, answered;
	bool not_held;       /* a replayed capture holds no SLtoVLMappingTable: none asked */
};
/*
 * The (in, out) pairs the routes of lfts use at each switch, into *out
 * (allocated); no MADs. With want_out, only the out-ports it says yes to.
 */
typedef bool (*ibs_want_out_fn)(void *ctx, const struct ibs_node *sw, unsigned out_port);
void ibs_sl2vl_pairs(const struct ibs_fabric *f, const struct ibs_lft *lfts, size_t n, ibs_want_out_fn want_out,
		     void *ctx, struct ibs_sl2vls *out);
/* Ask every pair of t, LID-routed where the LFT reads are (within the per-switch cap). */
enum ibs_err ibs_read_sl2vl(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_sl2vls *t);
/* The VL of sl from in to out at switch v, or IBS_VL_UNREAD. */
static inline uint8_t ibs_sl2vl_get(const struct ibs_sl2vl *v, uint8_t in, uint8_t out, uint8_t sl)
{
	return v && in < v->np && out < v->np ? v->vl[((size_t)in * v->np + out) * 16 + (sl & 15)] : IBS_VL_UNREAD;
}
void ibs_sl2vls_free(struct ibs_sl2vls *t);

/* The SL the SA's PathRecord gives the path from slid to dlid (asked: ibs_query_path_sls). */
struct ibs_path_sl {
	uint16_t slid, dlid;
	uint8_t sl;
	bool answered;
};
/*
 * One PathRecord Get (SLID, DLID) for each of v[0..n-1], all through the
 * engine (its window, the per-node cap at the SM's LID): the answered ones'
 * SL into v, their count into *answered.
 */
enum ibs_err ibs_query_path_sls(struct ibs_engine *e, const struct ibs_fabric *f, struct ibs_path_sl *v, size_t n,
				size_t *answered);

/* One PathRecord from the SA at the local port's SM LID. */
enum ibs_err ibs_query_path(struct ibs_engine *e, const struct ibs_fabric *f, uint16_t slid, uint16_t dlid,
			    struct ibs_path_record *out, enum ibs_outcome *outcome, uint16_t *status);

#endif
