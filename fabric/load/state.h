/*
 * `health --state FILE`: the last run's counter readings (per port: node
 * GUID, port, LID, counters, time), so that the next run judges what
 * changed since, not lifetime totals. The file format is docs/checks.md's
 * "health --state". The state owns its entries; nothing here prints.
 */
#ifndef IBSCAN_STATE_H
#define IBSCAN_STATE_H

#include "../model/model.h"
#include "../../core/base/err.h"

/* Bounds on what is read and written: a state larger than this is refused. */
#define IBS_STATE_MAX_BYTES (64u << 20)
#define IBS_STATE_MAX_PORTS 262144u

struct ibs_state_port {
	uint64_t guid;     /* node GUID */
	uint8_t port;
	uint16_t lid;      /* the LID its PMA was read at */
	bool ext_errors;   /* the error counters were PortCountersExtended's 64-bit ones */
	int64_t t;         /* when it was read, seconds since the epoch */
	struct ibs_pma_counters c;
	bool has_vl;       /* PortVLXmitWaitCounters were read then (where PortXmitWait moved) */
	uint16_t vl[IBS_N_VL];
};

struct ibs_state {
	bool present;                /* a file was there (false: the first run) */
	struct ibs_state_port *v;    /* sorted by GUID, then port */
	size_t n;
	size_t *by_lid;              /* indexes of v sorted by LID, then port */
};

/*
 * Read path into *st. A missing file is the first run (st->present false,
 * IBS_OK). A file another user owns, or one that its group or others may
 * write, is refused (its readings could be anyone's), as is one over the
 * bounds or malformed; *msg says why, naming the file (and line).
 */
enum ibs_err ibs_state_load(const char *path, struct ibs_state *st, char **msg);
/* The same from a buffer (name for messages): the parser, for tests and fuzzing. */
enum ibs_err ibs_state_parse(const char *name, const char *buf, size_t len, struct ibs_state *st, char **msg);
void ibs_state_free(struct ibs_state *st);

/* The earlier reading of node GUID guid port port, or NULL. */
const struct ibs_state_port *ibs_state_find(const struct ibs_state *st, uint64_t guid, uint8_t port);

/*
 * How port p of node n compares with its earlier reading in st: true, with
 * *prev a copy of p->ctr holding that reading as its first one (have_prev,
 * for ibs_port_counter_delta) and *since the seconds since it, when the
 * two can be compared; false, with *note saying why not (the caller's to
 * free; NULL when there is nothing to say: no reading now, or no state
 * file at all), when they cannot: no earlier reading of this port, its LID
 * moved, another node's port had its LID, or a counter went down (cleared
 * by someone since). Then its counters are judged as they read now.
 */
bool ibs_state_compare(const struct ibs_state *st, const struct ibs_node *n, const struct ibs_port *p, int64_t now,
		       struct ibs_port_counters *prev, double *since, char **note);

/*
 * Make the readings in st each port's first one: for every port of f whose
 * counters were read, where ibs_state_compare says the two can be compared,
 * p->ctr gets that reading as its prev (have_prev, prev_t_ns the seconds
 * since it before t_ns), so that ibs_port_counter_delta, the XmitWait rate
 * and share are over the time since; every other port gets none. The state
 * keeps no data counters: their deltas stay unknown. For the exporter,
 * whose st is its last sweep's.
 */
void ibs_state_apply(const struct ibs_state *st, struct ibs_fabric *f, int64_t now);

/*
 * The state to write after this run: every port of f whose counters were
 * read now, at time now, and the earlier readings in old (may be NULL) of
 * ports not read this time (a port down at this run keeps its reading, so
 * that its flap shows when it is back), up to IBS_STATE_MAX_PORTS. Returns
 * the text (the caller's), *len bytes.
 */
char *ibs_state_format(const struct ibs_fabric *f, const struct ibs_state *old, int64_t now, size_t *len);

#endif
