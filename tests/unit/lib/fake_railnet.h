/*
 * Rail-optimized fabrics written as ibnetdiscover text for the unit tests:
 * SU scalable units of SRV servers with RAILS rails each; leaf (u, r) takes
 * device mlx5_r of the unit's servers on ports 1..SRV and goes to every spine
 * on ports LEAF_UP.. (PAR cables per spine). Servers are dgx001.. across the
 * units, leaves su1-r0.., spines spine1... A test edits rn.port[][] (which
 * node and port each leaf port is cabled to) before rn_text().
 */
#ifndef IBSCAN_FAKE_RAILNET_H
#define IBSCAN_FAKE_RAILNET_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../fabric/load/load.h"

#define RN_MAX_LEAVES 16
#define RN_MAX_SPINES 8
#define RN_PORTS 32
#define RN_LEAF_UP 17 /* first leaf port to a spine */

struct rn_end {
	uint64_t guid; /* 0: nothing cabled */
	unsigned port;
};

struct railnet {
	unsigned su, srv, rails, spines, par;
	struct rn_end port[RN_MAX_LEAVES][RN_PORTS + 1]; /* leaf index u * rails + r */
	char leafname[RN_MAX_LEAVES][32];
	unsigned spine_host_port;      /* nonzero: host dgx999 cabled to spine1 on this port */
	unsigned slow_leaf, slow_port; /* nonzero slow_port: that leaf port runs 4xQDR */
	bool default_desc;             /* CAs describe themselves as the firmware does, naming no host */
};

/* The GUIDs: leaf l (u * rails + r), spine s (0-based). */
uint64_t rn_leaf_guid(unsigned l);
uint64_t rn_spine_guid(unsigned s);

/* Server h (0-based across units), device r. */
uint64_t rn_ca_guid(unsigned h, unsigned r);

/* The fabric cabled as the top of this file says. */
void rn_init(struct railnet *n, unsigned su, unsigned srv, unsigned rails, unsigned spines, unsigned par);

/* Swap what leaf ports (la, pa) and (lb, pb) are cabled to. */
void rn_swap(struct railnet *n, unsigned la, unsigned pa, unsigned lb, unsigned pb);

/* The fabric as ibnetdiscover text (caller frees). */
char *rn_text(const struct railnet *n);

/* The fabric loaded from rn_text() (aborts if the loader refuses it). */
struct ibs_fabric *rn_fabric(const struct railnet *n);

#endif
