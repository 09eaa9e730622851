/*
 * The link probe (`ibscan ping`): an RC queue pair taken through INIT, RTR
 * and RTS over the verbs ops table (verbs.h), the out-of-band exchange with
 * the peer (oob.h), then timed send/recv, RDMA write, RDMA read or atomic
 * round trips, or a bandwidth run. Every wait has a deadline. A failure is
 * logged where it is detected, naming the step, with a hint; the caller gets
 * the code and can read the step and message back (ibs_ping_failed_step).
 */
#ifndef IBSCAN_PING_H
#define IBSCAN_PING_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/err.h"
#include "verbs.h"

#define IBS_PING_DEFAULT_ITERS 1000
#define IBS_PING_DEFAULT_SIZE 64
#define IBS_PING_DEFAULT_BW_SIZE 65536 /* --bw, as ib_write_bw: 64-byte messages would measure the message rate */
#define IBS_PING_DEFAULT_TIMEOUT_MS 5000
#define IBS_PING_DEFAULT_SESSION_MS 300000 /* --deadline: as the fabric commands' default */
#define IBS_PING_ATOMIC_SIZE 8
/* Limits a peer may ask for: they bound what a listener pins and allocates (oob.c refuses more). */
#define IBS_PING_MAX_ITERS 10000000u
#define IBS_PING_MAX_SIZE (16u << 20)
#define IBS_PING_MAX_TIMEOUT_MS 600000u

/* What a probe measures. */
enum ibs_ping_op { IBS_OP_SEND, IBS_OP_WRITE, IBS_OP_READ, IBS_OP_ATOMIC, IBS_OP__COUNT };
/* "send", "write", "read", "atomic": as --op takes them. */
const char *ibs_ping_op_name(enum ibs_ping_op op);

enum ibs_ping_step {
	IBS_STEP_NONE,
	IBS_STEP_OPEN,     /* device and port */
	IBS_STEP_GID,      /* choosing the GID */
	IBS_STEP_PD,
	IBS_STEP_MR,       /* allocating and registering the buffers */
	IBS_STEP_CQ,
	IBS_STEP_QP,
	IBS_STEP_INIT,
	IBS_STEP_CONNECT,  /* TCP: waiting for or reaching the peer */
	IBS_STEP_EXCHANGE, /* the out-of-band hello */
	IBS_STEP_RTR,
	IBS_STEP_RTS,
	IBS_STEP_RUN,      /* the measured operations */
	IBS_STEP_FINISH,   /* the closing handshake */
};

const char *ibs_ping_step_name(enum ibs_ping_step s);
/* "RETRY_EXC_ERR" and friends: enum ibv_wc_status names without the IBV_WC_ prefix. */
const char *ibs_wc_status_name(unsigned status);

struct ibs_ping_opts {
	const char *ca;    /* NULL: the first device with an active port */
	unsigned port;     /* 0: its first active port */
	int gid_index;     /* -1: chosen (RoCE) or none (InfiniBand, which uses LIDs) */
	enum ibs_ping_op op;
	bool bw;
	unsigned iters, timeout_ms;
	unsigned size; /* bytes per operation; 0: the default (64, with bw 64 KiB as ib_write_bw, atomic 8) */
	/*
	 * The whole session with one peer, from its connection (accepted or
	 * made) to the end, whatever the peer sends: --timeout bounds each wait
	 * and restarts with every message, this does not. 0: the default.
	 */
	unsigned session_ms;
	const char *sysfs; /* where sysfs is (NULL: /sys): GID types and interfaces libibverbs cannot tell */
	unsigned sl;         /* service level, 0..15 (InfiniBand: the SL-to-VL map's input; RoCE: the PCP) */
	unsigned pkey_index; /* the P_Key table entry the queue pair uses */
	unsigned tclass;     /* GRH traffic class, 0..255 (RoCE v2: DSCP << 2 | ECN) */
	/*
	 * --sl and --tclass were given: a value one side was given is the one
	 * both use (it travels in the hello and its reply); two different ones
	 * are refused by the listener. Unset, each is 0 unless the peer's says otherwise.
	 */
	bool sl_set, tclass_set;
	unsigned dlid;       /* InfiniBand: the LID packets go to, the router's across subnets; 0: the peer's */
};

/* One end of the connection, as exchanged. */
struct ibs_ping_end {
	enum ibs_link_layer link_layer;
	uint16_t lid;
	uint32_t qpn, psn;
	int gid_index;
	enum ibs_gid_type gid_type;
	uint8_t gid[16];
	unsigned mtu; /* active MTU, 1..5 */
	uint64_t addr;
	uint32_t rkey, len;
};

struct ibs_ping_result {
	bool server;
	char *peer;   /* "addr:port" */
	char *device;
	unsigned port;
	enum ibs_ping_op op;
	bool bw;
	unsigned iters, size;
	bool use_grh;
	char *gid_choice;   /* why this GID */
	char *gid_netdev;   /* RoCE: the local GID's network interface; NULL when unknown */
	char *setup_addr;   /* the TCP setup connection's local address; NULL when it has none */
	unsigned sl, pkey_index, tclass, dlid; /* as the options gave them (dlid 0: the peer's LID) */
	/* How it was measured, as perftest does: */
	unsigned inline_len;   /* sends or writes carried inline, their bytes (0: from the buffer) */
	unsigned signal_every; /* one work request in this many asks for a completion */
	unsigned in_flight;    /* work requests posted ahead at most */
	struct ibs_ping_end local, remote;
	unsigned mtu; /* the path MTU used, 1..5 */
	struct {
		uint64_t bytes;
		double reg_us;
		uint32_t lkey, rkey;
	} mr;
	bool measured;    /* the client measured what follows; a listener does not */
	bool has_latency; /* latency runs */
	bool half_rtt;    /* send and write: one-way latency is half the round trip */
	double lat_min_us, lat_median_us, lat_p99_us, lat_max_us, lat_mean_us;
	double elapsed_s, msg_rate, gbit_s;
	uint64_t bytes;
	unsigned dropped; /* listener: peers dropped (malformed, silent) before this probe */
};

void ibs_ping_result_free(struct ibs_ping_result *r);

/* A GID table entry for ibs_ping_choose_gid. */
struct ibs_ping_gid {
	unsigned index;
	uint8_t gid[16];
	enum ibs_gid_type type;
	char netdev[IBS_NETDEV_LEN]; /* "" when unknown */
};

/* The local end of the TCP setup connection, as RoCE sees it. */
struct ibs_ping_setup_end {
	bool known;                  /* false: no IP address (a socket pair) */
	uint8_t gid[16];             /* its address as a GID (IPv4-mapped for IPv4) */
	char text[48];               /* the address as text */
	char ifname[IBS_NETDEV_LEN]; /* the interface that holds it; "" when none does */
};

/*
 * The GID a RoCE port should use for one connection: the entry whose
 * address is the setup connection's local address (and whose interface
 * holds it, where both are known), RoCE v2 before v1; else, given the
 * peer's GID (the listener), the best of the same address family and (where
 * both are known) type; else the best of the table. "Best": the rank of
 * ibs_gid_rank (core/base/gid.h). Returns a position in t, or -1; *why says
 * why (owned by the caller; NULL when -1). setup and peer may be NULL.
 */
int ibs_ping_choose_gid(const struct ibs_ping_gid *t, unsigned n, const struct ibs_ping_setup_end *setup,
			const struct ibs_ping_gid *peer, char **why);

struct ibs_ping;

/*
 * Open the device and port, choose the GID, allocate the PD: what either role
 * needs first. *out is set even on failure (for the step and message): close it.
 */
enum ibs_err ibs_ping_open(const struct ibs_verbs_ops *ops, const struct ibs_ping_opts *o, struct ibs_ping **out);
const struct ibs_vdev_info *ibs_ping_device(const struct ibs_ping *p);
/* Client: connect to host:port within the timeout, then ibs_ping_client_fd. */
enum ibs_err ibs_ping_client(struct ibs_ping *p, const char *host, unsigned tcp_port, struct ibs_ping_result *r);
/* Client over a connected socket; peer names it in messages. */
enum ibs_err ibs_ping_client_fd(struct ibs_ping *p, int fd, const char *peer, struct ibs_ping_result *r);
/*
 * Listener: serve one peer over a connected socket. A peer that breaks the
 * protocol before a valid hello is dropped (a warning) and *accepted stays
 * false; after it, the probe's outcome is the result.
 */
enum ibs_err ibs_ping_serve_fd(struct ibs_ping *p, int fd, const char *peer, struct ibs_ping_result *r,
			       bool *accepted);
/*
 * Listener: accept on lfd, one peer at a time, until a probe completes (or
 * fails after its hello), dropping peers that break the protocol or stay
 * silent for the timeout. wait_ms bounds the wait for peers (negative: none).
 */
enum ibs_err ibs_ping_serve(struct ibs_ping *p, int lfd, int wait_ms, struct ibs_ping_result *r);
void ibs_ping_close(struct ibs_ping *p);

/* The last failure: its step, message and hint (NULL when none). */
enum ibs_ping_step ibs_ping_failed_step(const struct ibs_ping *p);
const char *ibs_ping_error(const struct ibs_ping *p);
const char *ibs_ping_hint(const struct ibs_ping *p);

#endif
