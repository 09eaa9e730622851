/*
 * Comparing two models of a fabric (a baseline and now): nodes added and
 * removed, cables added, removed and moved, port state and rate changes.
 * Data only: output/ renders it, cmd/ picks the exit code.
 */
#ifndef IBSCAN_DIFF_H
#define IBSCAN_DIFF_H

#include "../model/model.h"

enum ibs_change_kind {
	IBS_CHG_NODE_REMOVED,
	IBS_CHG_NODE_ADDED,
	IBS_CHG_LINK_REMOVED,
	IBS_CHG_LINK_ADDED,
	IBS_CHG_LINK_MOVED,
	IBS_CHG_STATE,
	IBS_CHG_WIDTH,
	IBS_CHG_SPEED,
};

struct ibs_change {
	enum ibs_change_kind kind;
	const struct ibs_node *node;   /* the node it is about (in A for removals, else in B) */
	uint8_t port;
	/* Cables: the far end before (A) and after (B); NULL where there was none. */
	const struct ibs_node *was;
	uint8_t was_port;
	const struct ibs_node *now;
	uint8_t now_port;
	/* State/width/speed: the words before and after (static strings). */
	const char *before, *after;
};

struct ibs_diff {
	struct ibs_change *v;
	size_t n, cap;
};

const char *ibs_change_kind_str(enum ibs_change_kind k);
/* a is the baseline (before), b is now (after). */
void ibs_diff_fabrics(const struct ibs_fabric *a, const struct ibs_fabric *b, struct ibs_diff *out);
void ibs_diff_free(struct ibs_diff *d);

#endif
