/*
 * A verbs test double for the link probe that fails where a ConnectX with
 * rdma-core fails: an in-process fabric of ports (one per device opened, each
 * with its own LID, typed GID table, active MTU and P_Key) whose RC queue pairs
 * reach each other only through the address, PSNs, path MTU and P_Key they
 * were given, check queue pair and memory access as a responder does, and
 * complete asynchronously (a progress step on every poll), with the statuses
 * hardware gives. What it checks, and the sources, are in docs/reliability.md
 * ("The verbs test double"). Faults are injected per operation: a setup call
 * failing with an errno, work requests lost, or one completing with an error
 * status. It also checks the engine: posting beyond a queue's depth, or
 * overrunning a completion queue, is recorded as a bug (fv.overrun).
 */
#ifndef IBSCAN_FAKE_VERBS_H
#define IBSCAN_FAKE_VERBS_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../core/probe/verbs.h"
#include "../../../core/base/xalloc.h"

enum fv_op { FV_OPEN, FV_PD, FV_MR, FV_CQ, FV_QP, FV_INIT, FV_RTR, FV_RTS, FV__OPS };

#define FV_PORTS 8 /* devices opened between two fv_reset() calls */
#define FV_GIDS 8  /* GID table entries per port (gid_tbl_len) */
#define FV_PKEYS 4 /* P_Key table entries per port: INIT with an index beyond fails EINVAL, as on mlx5 */
#define FV_MAX_QPS 16
#define FV_MAX_MRS 64

struct fv_gid {
	uint8_t gid[16]; /* all zero: an empty entry */
	enum ibs_gid_type type;
	char netdev[IBS_NETDEV_LEN]; /* RoCE: its interface ("" unknown) */
};

/* One port of the fabric: the n-th device opened since fv_reset() is port[n]. */
struct fv_port {
	enum ibs_link_layer ll;
	unsigned state; /* IBA PortState: 4 Active */
	uint16_t lid;
	unsigned mtu; /* active MTU, 1..5 (256..4096 bytes) */
	struct fv_gid gids[FV_GIDS];
	uint16_t pkey;                    /* P_Key table entry 0, the one queue pairs use by default */
	uint16_t pkey_more[FV_PKEYS - 1]; /* entries 1..: 0 is an empty entry, which matches nothing */
	bool no_atomics;
	/*
	 * Fetched atomic values land in the requester's buffer big-endian
	 * (ConnectX-3, or MOFED's "atomic reply BE" mode); else in host order,
	 * as upstream mlx5 sets every device that advertises atomics.
	 */
	bool atomic_be;
	/*
	 * rdma-core before 32 (no _ibv_query_gid_ex): query_gid says every
	 * type is unknown and gid_netdev knows no interface; packets keep their type.
	 */
	bool gid_types_unknown;
	/* Bytes a queue pair may carry inline: asking more fails create_qp with EINVAL (0: no inline at all). */
	unsigned max_inline;
	/* create_qp writes back the port's whole max_inline whatever was asked (rxe: 0 asked, more given). */
	bool inline_writeback;
	/* An iWARP device (Chelsio, Intel irdma in iWARP mode): Ethernet link layer, TCP transport, no RoCE. */
	bool iwarp;
};

/* The fake fabric's state: tests read and set it (between fv_reset() and the run). */
struct fv_state {
	pthread_mutex_t mu;
	struct ibs_vqp *qps[FV_MAX_QPS];
	struct ibs_vmr *mrs[FV_MAX_MRS];
	/* From here on, set by fv_reset(). */
	uint32_t next_qpn, next_key;
	unsigned opens;
	struct fv_port port[FV_PORTS];
	unsigned fabric_mtu; /* a switch on every path carries at most this MTU (1..5); 0: no limit */
	bool routed;         /* RoCE ports in different IP subnets: v1 frames (Ethernet only) do not cross */
	/*
	 * InfiniBand: an IB router at this LID (0: none). Ports whose GID 0
	 * prefixes differ are in different subnets: a packet reaches the other
	 * only sent to the router's LID with a GRH naming one of its GIDs.
	 */
	uint16_t router_lid;
	unsigned speedup; /* transport and RNR timers run this many times faster than hardware's */
	/* Faults: op fails with err once `skip` calls of it have succeeded. */
	int fail_err[FV__OPS];
	unsigned fail_skip[FV__OPS], calls[FV__OPS];
	unsigned posts;     /* post_send calls, both sides */
	unsigned signaled;  /* of which signaled */
	unsigned inlined;   /* of which inline */
	unsigned lose_from; /* this post and all later ones are never transmitted (0: never) */
	unsigned err_at;    /* this post completes with err_status (0: never) */
	unsigned err_status;
	bool overrun; /* the engine overfilled a queue */
	struct ibs_qp_conn last_rtr;
	/* Each port's last RTR, whole (address vector: SL, GRH traffic class...): rtr[n] is port[n]'s. */
	struct ibs_qp_conn rtr[FV_PORTS];
};

extern struct fv_state fv;

/* Every port InfiniBand and Active, LID 7 + n, MTU 4096, P_Key 0xffff, GID 0 fe80::2:c903:a:n. */
void fv_reset(void);

/* Entry index of port's GID table. */
void fv_set_gid(unsigned port, unsigned index, const uint8_t gid[16], enum ibs_gid_type type);

/* op fails with err once skip calls of it have succeeded (fv.fail_err, fv.fail_skip). */
void fv_fail(enum fv_op op, int err, unsigned skip);

/* The monotonic clock, in ns. */
uint64_t fv_now(void);

/* As the kernel's GID cache (since 5.10): EINVAL beyond the table, ENODATA for an empty entry. */
int fv_query_gid(struct ibs_vdev *d, unsigned index, uint8_t gid[16], enum ibs_gid_type *type);

/* The verbs ops table over the fake fabric, for ibs_ping_open(). */
extern const struct ibs_verbs_ops fake_verbs;

#endif
