/*
 * What the link probe's files share (not for use outside core/probe; the
 * probe's API is ping.h): the probe object (probe.c), the state of the run
 * with one peer, and the steps each file provides. The probe owns its
 * device, PD and the run's buffers, MR, CQ and QP; a run's are released by
 * ping_run_free() before the next peer's.
 */
#ifndef IBSCAN_PROBE_H
#define IBSCAN_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "oob.h"
#include "ping.h"
#include "verbs.h"

#define RECV_TAG ((uint64_t)1 << 63)
#define MAX_TX_DEPTH 128       /* sends in flight in a bandwidth run */
#define MAX_RX_DEPTH 512       /* receives posted ahead in a send bandwidth run */
#define MAX_RD_DEPTH 16        /* RDMA reads/atomics in flight */
#define INLINE_SEND 236        /* latency runs: sends of at most this many bytes go inline (perftest's default) */
#define INLINE_WRITE 220       /* and RDMA writes */
#define SIGNAL_EVERY 100       /* bandwidth runs: one signaled work request in this many (perftest's cq_mod) */
#define ACK_TIMEOUT 14         /* Local ACK Timeout: 4.096 us << 14 = 67 ms per try (perftest's default) */
#define RETRY_CNT 7            /* transport retries before RETRY_EXC_ERR */
/*
 * How long the hardware retries before it reports RETRY_EXC_ERR: retry_cnt
 * + 1 tries of the Local ACK Timeout, which the IBA lets a device stretch up
 * to four times (0.54 to 2.1 s with the values above).
 */
#define RETRY_MAX_MS (4 * (RETRY_CNT + 1) * (4096ull << ACK_TIMEOUT) / 1000000)
#define FINISH_TIMEOUT_MS 1000 /* telling a peer why we stop: best effort */

/* One measured run: the test, its buffers and queue pair. */
struct ping_run {
	enum ibs_ping_op op;
	bool bw;
	unsigned iters, size;
	unsigned timeout_ms;
	unsigned session_ms;  /* --deadline: the whole session with this peer */
	uint64_t session_end; /* when it ends, whatever the peer sends */
	int fd;
	const char *peer;
	uint8_t *buf; /* send region at 0, exposed (receive) region at stride */
	size_t buflen, stride;
	struct ibs_vmr *mr;
	uint32_t lkey, rkey;
	double reg_us;
	struct ibs_vcq *cq;
	struct ibs_vqp *qp;
	uint32_t qpn, psn;
	/* The service level and traffic class both ends use (ping_qos): given on either side, or 0. */
	unsigned sl, tclass;
	bool sl_set, tclass_set;
	unsigned tx_depth, rx_depth, rd_resp;
	unsigned signal_every; /* 1 but in bandwidth runs: the sends a completion is asked for */
	unsigned inline_len;   /* sends and writes of at most this many bytes go inline; 0: none */
	uint32_t mtu_check;    /* the path-MTU write's bytes while it is in flight, else 0 */
	uint64_t send_done, recv_done, recv_posted, recv_target;
	struct ibs_oob_hello peer_hello;
	unsigned mtu;
	unsigned ka_ms; /* keepalive interval while the listener is passive (client), 0: none */
	uint64_t next_ka;
};

struct ibs_ping {
	const struct ibs_verbs_ops *ops;
	struct ibs_ping_opts o;
	char *ca;
	struct ibs_vdev *dev;
	struct ibs_vdev_info info;
	struct ibs_vpd *pd;
	struct ibs_ping_gid *gids; /* RoCE without --gid-index: the port's GIDs, to choose from per peer */
	unsigned n_gids;
	int gid_index;
	enum ibs_gid_type gid_type;
	uint8_t gid[16];
	char gid_netdev[IBS_NETDEV_LEN];
	bool use_grh;
	char *gid_choice;
	struct ibs_ping_setup_end setup; /* the current peer's setup connection */
	struct ping_run r;
	enum ibs_ping_step step;
	char *err, *hint;
};

/* want, at most limit (0: no limit). */
static inline unsigned ping_cap(unsigned want, unsigned limit)
{
	return limit && want > limit ? limit : want;
}

/* error.c */
/* Keep what failed (msg and hint owned; hint may be NULL) for the result. */
void ping_set_error(struct ibs_ping *p, enum ibs_ping_step step, char *msg, char *hint);
/* Record and report a failure: the step, what failed and why, and a hint (owned, may be NULL). */
enum ibs_err __attribute__((format(printf, 5, 6)))
ping_fail(struct ibs_ping *p, enum ibs_ping_step step, enum ibs_err rc, char *hint, const char *fmt, ...);
/* What a completion status means, and a hint (NULL when none) for the operator. */
const char *ping_wc_text(unsigned status, const char **hint);

/* probe.c */
/* Release the run's QP, CQ, MR and buffers: the probe is ready for another peer. */
void ping_run_free(struct ibs_ping *p);
/* A new run with the peer on fd: its timeouts from the options, its session deadline from now. */
void ping_run_init(struct ibs_ping *p, int fd, const char *peer);

/* gid.c */
/* At open: the GID --gid-index names, LID routing on InfiniBand, or the RoCE port's table (and its best GID). */
enum ibs_err ping_read_gids(struct ibs_ping *p);
/* For one peer: the setup connection's local end (fd), and on RoCE the GID it names (peer: its hello, listener). */
/* Before each peer a listener serves: the GID table again (see gid.c); an error when --gid-index's entry moved. */
enum ibs_err ping_reread_gids(struct ibs_ping *p);
void ping_pick_gid(struct ibs_ping *p, int fd, const struct ibs_oob_hello *peer);

/* setup.c */
/* Buffers, MR, CQ, QP to INIT, receives posted (if this side receives): everything before the hello. */
enum ibs_err ping_setup(struct ibs_ping *p, struct ping_run *r, bool receives);
/* Post the next receive buffer. */
enum ibs_err ping_post_recv(struct ibs_ping *p, struct ping_run *r);

/* connect.c */
/* The hello (or its reply) that describes this side's QP and buffer for the peer. */
void ping_make_hello(const struct ibs_ping *p, const struct ping_run *r, enum ibs_oob_type type, struct ibs_oob_msg *m);
/* Can these two ports talk at all? Checked on both sides before RTR. */
enum ibs_err ping_check_peer(struct ibs_ping *p, const struct ibs_oob_hello *h, const char *peer);
/*
 * The listener: the SL and traffic class of the run from the client's hello
 * and its own options; an error (*why, owned) when both were given and differ.
 */
enum ibs_err ping_qos_listener(const struct ibs_ping *p, struct ping_run *r, const struct ibs_oob_hello *h,
			       char **why);
/* The client: take the values its options left unset from the hello reply. */
enum ibs_err ping_qos_client(struct ibs_ping *p, struct ping_run *r, const struct ibs_oob_hello *h, const char *peer);
/* RTR with the peer's address, then RTS. */
enum ibs_err ping_connect_qp(struct ibs_ping *p, struct ping_run *r, const struct ibs_oob_hello *h);

/* session.c */
/*
 * The wait allowed now: --timeout, cut to what is left of the session. Each
 * message restarts --timeout, so without the session's own end a peer that
 * trickles keepalives would hold the listener and its pinned buffers forever.
 */
int ping_wait_ms(const struct ping_run *r);
/* The session's --deadline has passed. */
bool ping_session_over(const struct ping_run *r);
/* The session passed --deadline: stop, and (tell: here, not by the caller) tell the peer why. */
enum ibs_err ping_session_expired(struct ibs_ping *p, struct ping_run *r, enum ibs_ping_step step, bool tell);
/* Send a keepalive now and schedule the next. */
enum ibs_err ping_keepalive(struct ibs_ping *p, struct ping_run *r, uint64_t now);
/* Tell the peer why this side stops (best effort: it may be gone). */
void ping_tell_peer(struct ibs_ping *p, struct ping_run *r);
/* If the peer has already said why it stopped, the text (owned), else NULL. */
char *ping_peer_says(struct ping_run *r);
/* The peer closed its setup connection (its process ended), with nothing left unread before the close. */
bool ping_peer_closed(struct ping_run *r);
/* Wait for the peer's DONE (skipping keepalives), or its reason for stopping; answer: send DONE back. */
enum ibs_err ping_await_done(struct ibs_ping *p, struct ping_run *r, enum ibs_ping_step step, bool answer);

/* run.c */
/* The byte at i of what the listener exposes for RDMA reads. */
uint8_t ping_pattern(size_t i);
/* The client's round trips, one at a time: lat[i] gets each one's time in ns. */
enum ibs_err ping_client_latency(struct ibs_ping *p, struct ping_run *r, uint64_t *lat);
/* The client's bandwidth run: up to tx_depth operations in flight. */
enum ibs_err ping_client_bw(struct ibs_ping *p, struct ping_run *r);
/* What the data says after a run: a read brings the listener's pattern, atomics count. */
enum ibs_err ping_client_verify(struct ibs_ping *p, struct ping_run *r);
/*
 * One RDMA write of the path MTU's size: a 64-byte probe fits in any MTU,
 * real traffic does not, and a switch that carries less drops it here.
 */
enum ibs_err ping_client_mtu_check(struct ibs_ping *p, struct ping_run *r);
/* The listener's side of a run; for reads, atomics and RDMA write bandwidth it has nothing to do. */
enum ibs_err ping_server_run(struct ibs_ping *p, struct ping_run *r);

/* result.c */
/* Latency statistics of n round trips (sorts lat); half: one-way is half the round trip. */
void ping_latency_stats(struct ibs_ping_result *res, uint64_t *lat, unsigned n, bool half);
/* What both ends used, into res. */
void ping_fill_result(const struct ibs_ping *p, const struct ping_run *r, bool server, const char *peer,
		      struct ibs_ping_result *res);

#endif
