/*
 * Unit tests of the link probe (core/probe, through ping.h, and its
 * rendering by output/ping.c) over the fake verbs: both sides of a probe
 * run in this process (the listener in a thread, the out-of-band exchange
 * over a socket pair or loopback TCP); every --op and --bw, lost and
 * failed completions, each failing setup step, peers that do not fit, a
 * peer that would hold the listener forever. The GID choice alone is
 * test_probe_gid.c's.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <math.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/fake_verbs.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/base/round.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/tcp.h"
#include "../../core/probe/ping.h"
#include "../../output/ping.h"

struct side {
	struct ibs_ping_opts o;
	struct ibs_ping *p;
	int fd;
	enum ibs_err rc;
	bool accepted;
	struct ibs_ping_result res;
	enum ibs_ping_step step;
	char *err, *hint;
};

static void opts(struct side *s, enum ibs_ping_op op, bool bw, unsigned iters, unsigned size)
{
	memset(s, 0, sizeof(*s));
	s->o.gid_index = -1;
	s->o.op = op;
	s->o.bw = bw;
	s->o.iters = iters;
	s->o.size = size;
	s->o.timeout_ms = 5000;
	s->fd = -1;
}

/* Keep what failed, then close. */
static void finish(struct side *s)
{
	if (s->p) {
		s->step = ibs_ping_failed_step(s->p);
		s->err = ibs_ping_error(s->p) ? xstrdup(ibs_ping_error(s->p)) : NULL;
		s->hint = ibs_ping_hint(s->p) ? xstrdup(ibs_ping_hint(s->p)) : NULL;
	}
	ibs_ping_close(s->p);
	s->p = NULL;
}

static void side_free(struct side *s)
{
	ibs_ping_result_free(&s->res);
	free(s->err);
	free(s->hint);
}

static void has(const char *s, const char *want)
{
	if (!s || !strstr(s, want))
		fail_msg("'%s' lacks '%s'", s ? s : "(null)", want);
}

static void *serve_main(void *arg)
{
	struct side *s = arg;

	s->rc = ibs_ping_serve_fd(s->p, s->fd, "client", &s->res, &s->accepted);
	close(s->fd);
	return NULL;
}

/* Both sides, the listener in a thread; the devices are opened listener first. */
static void run_pair_then(struct side *c, struct side *s, void (*change)(void));

static void run_pair(struct side *c, struct side *s)
{
	run_pair_then(c, s, NULL);
}

static int setup(void **state)
{
	(void)state;
	fv_reset();
	return 0;
}

/* A client and a listener over a socket pair; change(), if any, runs between the listener's open and its peer. */
static void run_pair_then(struct side *c, struct side *s, void (*change)(void))
{
	pthread_t th;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	s->fd = sv[1];
	c->fd = sv[0];
	s->rc = ibs_ping_open(&fake_verbs, &s->o, &s->p);
	assert_int_equal(s->rc, IBS_OK);
	if (change)
		change();
	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	assert_int_equal(pthread_create(&th, NULL, serve_main, s), 0);
	if (c->rc == IBS_OK)
		c->rc = ibs_ping_client_fd(c->p, c->fd, "listener", &c->res);
	finish(c);
	close(c->fd);
	pthread_join(th, NULL);
	finish(s);
	assert_false(fv.overrun);
}

/* Every port RoCE with an empty GID table. */
static void roce_ports(void)
{
	unsigned i;

	for (i = 0; i < FV_PORTS; i++) {
		fv.port[i].ll = IBS_LL_ETH;
		memset(fv.port[i].gids, 0, sizeof(fv.port[i].gids));
	}
}

/* Port n (the n-th device opened): fe80::...:3c10+n and 192.168.10.5+n, each as RoCE v1 and v2. */
static void roce_table(void)
{
	uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x0e, 0x42, 0xa1, 0xff, 0xfe, 0x5b, 0x3c, 0x10 };
	uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 5 };
	unsigned i;

	roce_ports();
	for (i = 0; i < FV_PORTS; i++) {
		ll[15] = (uint8_t)(0x10 + i);
		v4[15] = (uint8_t)(5 + i);
		fv_set_gid(i, 0, ll, IBS_GID_IB_ROCE_V1);
		fv_set_gid(i, 1, ll, IBS_GID_ROCE_V2);
		fv_set_gid(i, 2, v4, IBS_GID_IB_ROCE_V1);
		fv_set_gid(i, 3, v4, IBS_GID_ROCE_V2);
		/* 4 and up stay empty, as unused entries of a real table do. */
	}
}

static void check_latency(const struct ibs_ping_result *r)
{
	assert_true(r->measured);
	assert_true(r->has_latency);
	assert_true(r->lat_min_us >= 0);
	assert_true(r->lat_min_us <= r->lat_median_us);
	assert_true(r->lat_median_us <= r->lat_p99_us);
	assert_true(r->lat_p99_us <= r->lat_max_us);
	assert_true(r->lat_mean_us >= r->lat_min_us && r->lat_mean_us <= r->lat_max_us);
	assert_true(r->elapsed_s > 0);
	assert_true(r->msg_rate > 0);
}

/* The two results describe the same connection from both ends. */
static void check_pair(const struct side *c, const struct side *s)
{
	assert_int_equal(c->rc, IBS_OK);
	assert_int_equal(s->rc, IBS_OK);
	assert_true(s->accepted);
	assert_false(c->res.server);
	assert_true(s->res.server);
	assert_false(s->res.measured);
	assert_int_equal(c->res.local.qpn, s->res.remote.qpn);
	assert_int_equal(c->res.remote.qpn, s->res.local.qpn);
	assert_int_equal(c->res.local.psn, s->res.remote.psn);
	assert_int_equal(c->res.remote.rkey, s->res.mr.rkey);
	assert_int_equal(c->res.mtu, 5);
	assert_true(c->res.mr.bytes >= 2 * c->res.size);
	assert_true(c->res.mr.reg_us >= 0);
	assert_int_equal(c->res.op, s->res.op);
	assert_int_equal(c->res.iters, s->res.iters);
}

/* The listener's port (opened first): its IPv4 address moves from index 3 to 5, as after a DHCP renew. */
static void move_v4_entry(void)
{
	uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 5 };
	uint8_t none[16] = { 0 };

	fv_set_gid(0, 3, none, IBS_GID_ROCE_V2);
	fv_set_gid(0, 5, v4, IBS_GID_ROCE_V2);
}

/* The listener's index 3 now holds another address. */
static void change_v4_entry(void)
{
	uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 99 };

	fv_set_gid(0, 3, v4, IBS_GID_ROCE_V2);
}

/*
 * The GID table changes while a listener runs: it reads it again for each
 * peer. Without --gid-index it uses the entry that holds its address now;
 * with --gid-index an entry that changed refuses the peer, saying so, where
 * it went on with a GID its port no longer has.
 */
static void test_listener_gid_table_changed(void **state)
{
	struct side c, s;

	(void)state;
	roce_table();
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair_then(&c, &s, move_v4_entry);
	check_pair(&c, &s);
	assert_int_equal(s.res.local.gid_index, 5);
	assert_int_equal(c.res.remote.gid_index, 5);
	side_free(&c);
	side_free(&s);

	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	s.o.gid_index = 3;
	run_pair_then(&c, &s, change_v4_entry);
	assert_int_equal(s.rc, IBS_E_INVAL);
	assert_int_equal(s.step, IBS_STEP_GID);
	has(s.err, "the GID table changed: index 3 of fake0 port 1 now holds 0000:0000:0000:0000:0000:ffff:c0a8:0a63");
	has(s.err, "(0000:0000:0000:0000:0000:ffff:c0a8:0a05 when the listener started)");
	has(s.hint, "leave --gid-index out");
	assert_int_not_equal(c.rc, IBS_OK);
	side_free(&c);
	side_free(&s);
}

/* Latency runs of every operation, end to end. */
static void test_latency_every_op(void **state)
{
	enum ibs_ping_op op;

	(void)state;
	for (op = IBS_OP_SEND; op < IBS_OP__COUNT; op++) {
		struct side c, s;
		fv_reset();
		opts(&c, op, false, 500, 100);
		opts(&s, op, false, 0, 0);
		run_pair(&c, &s);
		check_pair(&c, &s);
		check_latency(&c.res);
		/* Ping-pongs report half the round trip; reads and atomics the whole operation. */
		assert_int_equal(c.res.half_rtt, op == IBS_OP_SEND || op == IBS_OP_WRITE);
		assert_int_equal(c.res.size, op == IBS_OP_ATOMIC ? 8 : 100);
		assert_int_equal(c.res.bytes, 500ull * c.res.size);
		assert_false(c.res.use_grh);
		side_free(&c);
		side_free(&s);
	}
}

/* Bandwidth runs of every operation: more operations than queue depths, so queues wrap and refill. */
static void test_bandwidth_every_op(void **state)
{
	enum ibs_ping_op op;

	(void)state;
	for (op = IBS_OP_SEND; op < IBS_OP__COUNT; op++) {
		struct side c, s;
		fv_reset();
		opts(&c, op, true, 3000, 4096);
		opts(&s, op, false, 0, 0);
		run_pair(&c, &s);
		check_pair(&c, &s);
		assert_true(c.res.measured);
		assert_false(c.res.has_latency);
		assert_true(c.res.gbit_s > 0);
		assert_true(c.res.bw);
		assert_true(s.res.bw);
		/* perftest's selective signalling: one completion in 100, and the last (atomics: one more add). */
		/* ... and the path-MTU write. */
		assert_int_equal(fv.signaled, op == IBS_OP_ATOMIC ? 32 : 31);
		assert_false(fv.overrun);
		side_free(&c);
		side_free(&s);
	}
}

static unsigned run_size; /* the size inline_run's client measured */

/* Run a pair of this op and size; returns the client's result's inline bytes, with fv.inlined of fv.posts inline. */
static unsigned inline_run(enum ibs_ping_op op, bool bw, unsigned size)
{
	struct side c, s;
	unsigned n;

	opts(&c, op, bw, 20, size);
	opts(&s, op, false, 0, 0);
	run_pair(&c, &s);
	check_pair(&c, &s);
	n = c.res.inline_len;
	run_size = c.res.size;
	assert_int_equal(s.res.inline_len, bw ? 0 : n);
	side_free(&c);
	side_free(&s);
	return n;
}

/*
 * perftest's methods: latency sends up to 236 bytes and writes up to 220
 * go inline, both ways; a device that carries less (or none) gets them from
 * the buffer; bandwidth runs do not inline.
 */
static void test_inline(void **state)
{
	(void)state;
	assert_int_equal(inline_run(IBS_OP_SEND, false, 236), 236);
	assert_int_equal(fv.inlined, 40);
	assert_int_equal(fv.posts, 41); /* the path-MTU write is not inline */
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_WRITE, false, 220), 220);
	assert_int_equal(fv.inlined, fv.posts - 1);
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_SEND, false, 237), 0);
	assert_int_equal(fv.inlined, 0);
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_READ, false, 64), 0);
	assert_int_equal(inline_run(IBS_OP_WRITE, true, 64), 0);
	assert_int_equal(fv.inlined, 0);
	/* No --size: 64 bytes, and 64 KiB for bandwidth, as ib_write_bw. */
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_WRITE, false, 0), 64);
	assert_int_equal(run_size, 64);
	fv_reset();
	assert_int_equal(inline_run(IBS_OP_WRITE, true, 0), 0);
	assert_int_equal(run_size, 65536);
	fv_reset();
	fv.port[0].max_inline = fv.port[1].max_inline = 0; /* no inline at all: create_qp refuses any */
	assert_int_equal(inline_run(IBS_OP_SEND, false, 64), 0);
	assert_int_equal(fv.inlined, 0);
	/*
	 * A provider that gives more than asked (rxe writes back its whole
	 * capacity, also when none was asked): what is reported is what the
	 * probe sends inline, never the capacity. Atomics and reads, never.
	 */
	fv_reset();
	fv.port[0].inline_writeback = fv.port[1].inline_writeback = true;
	assert_int_equal(inline_run(IBS_OP_ATOMIC, false, 8), 0);
	assert_int_equal(fv.inlined, 0);
	fv_reset();
	fv.port[0].inline_writeback = fv.port[1].inline_writeback = true;
	assert_int_equal(inline_run(IBS_OP_READ, false, 64), 0);
	fv_reset();
	fv.port[0].inline_writeback = fv.port[1].inline_writeback = true;
	assert_int_equal(inline_run(IBS_OP_SEND, false, 64), 64);
}

/* RoCE: the GID is chosen (RoCE v2 with IPv4) and the QP is addressed by it. */
static void test_roce_gid(void **state)
{
	struct side c, s;

	(void)state;
	roce_table();
	opts(&c, IBS_OP_SEND, false, 50, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	check_pair(&c, &s);
	assert_true(c.res.use_grh);
	assert_int_equal(c.res.local.gid_index, 3);
	assert_int_equal(c.res.remote.gid_index, 3);
	assert_int_equal(c.res.local.gid_type, IBS_GID_ROCE_V2);
	assert_string_equal(c.res.gid_choice, "RoCE v2 with an IPv4 address");
	assert_true(fv.last_rtr.use_grh);
	assert_int_equal(fv.last_rtr.sgid_index, 3);
	assert_int_equal(fv.last_rtr.remote_gid[15], 5);
	side_free(&c);
	side_free(&s);
	/* --gid-index overrides the choice; an empty entry is refused. */
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.gid_index = 4;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_INVAL);
	finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has(c.err, "GID index 4 of fake0 port 1 is empty");
	has(c.hint, "'ibscan local' lists the GID table");
	side_free(&c);
	/* Past the table's end it is out of range, not empty. */
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.gid_index = FV_GIDS;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_INVAL);
	finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has(c.err, "--gid-index 8 is out of range: fake0 port 1 has 8 GID entries (0-7)");
	side_free(&c);
	/* No usable GID at all. */
	fv_reset();
	roce_ports();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has(c.err, "no usable GID on fake0 port 1");
	side_free(&c);
}

/* A latency pair of 20 operations: the client's outcome, its error and hint (NULL: not looked at). */
static void pair_expect(enum ibs_ping_op op, unsigned size, enum ibs_err want, const char *err, const char *hint)
{
	struct side c, s;

	opts(&c, op, false, 20, size);
	opts(&s, op, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, want);
	if (err)
		has(c.err, err);
	if (hint)
		has(c.hint, hint);
	side_free(&c);
	side_free(&s);
}

/*
 * What the path does to a probe: each port has its own MTU and the probe
 * runs at the smaller (a listener at 4096 would send 4096-byte packets the
 * client's 2048 port drops); a switch at a smaller MTU, or different P_Keys
 * at the two ends, make the peer's port drop the packets: RETRY_EXC_ERR.
 */
static void test_path(void **state)
{
	struct side c, s;

	(void)state;
	fv.port[1].mtu = 4; /* the client's port: 2048 */
	opts(&c, IBS_OP_SEND, false, 20, 4096);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_int_equal(c.res.mtu, 4);
	assert_int_equal(s.res.mtu, 4);
	side_free(&c);
	side_free(&s);
	/*
	 * A switch at 1024 between two 4096 ports: 1024-byte writes pass, the
	 * one message of the path MTU does not, and the probe fails saying so.
	 */
	fv_reset();
	fv.fabric_mtu = 3;
	pair_expect(IBS_OP_WRITE, 1024, IBS_E_STATUS,
		    "the path-MTU message (one RDMA write of 4096 bytes, after 20 operations that passed) completed with "
		    "status RETRY_EXC_ERR",
		    "both ports allow 4096-byte packets but something on the path carries less");
	/*
	 * The same with a --timeout shorter than the hardware's retries (rxe
	 * retries for ever on it): the message names the path-MTU write, not
	 * the run's operation, nor an index past --iters.
	 */
	fv_reset();
	fv.fabric_mtu = 3;
	fv.speedup = 1; /* the retries take their real 2 s: the timeout comes first */
	opts(&c, IBS_OP_WRITE, false, 20, 1024);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	c.o.timeout_ms = 300;
	s.o.timeout_ms = 600;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_TIMEOUT);
	has(c.err, "the path-MTU message (one RDMA write of 4096 bytes, after 20 operations that passed) did not complete "
		   "within 300 ms (--timeout)");
	assert_null(strstr(c.err, "of 20"));
	has(c.hint, "both ports allow 4096-byte packets but something on the path carries less");
	side_free(&c);
	side_free(&s);
	/* The same for a 64-byte ping-pong, which alone fits in any MTU. */
	fv_reset();
	fv.fabric_mtu = 4;
	pair_expect(IBS_OP_SEND, 64, IBS_E_STATUS, "the path-MTU message (one RDMA write of 4096 bytes", NULL);
	/* Ports at 1024: the path MTU is 1024, which the switch carries. */
	fv_reset();
	fv.fabric_mtu = 3;
	fv.port[0].mtu = fv.port[1].mtu = 3;
	pair_expect(IBS_OP_SEND, 64, IBS_OK, NULL, NULL);
	fv_reset();
	fv.fabric_mtu = 3;
	opts(&c, IBS_OP_WRITE, false, 20, 2048);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	s.o.timeout_ms = 500; /* the listener waits on its CQ: it hears why only at its timeout */
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	has(c.err, "RDMA write 1 of 20 completed with status RETRY_EXC_ERR");
	has(c.hint, "an MTU the path does not carry");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[0].pkey = 0x8001; /* the listener in another partition */
	opts(&c, IBS_OP_READ, false, 20, 64);
	opts(&s, IBS_OP_READ, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	has(c.err, "RDMA read 1 of 20 completed with status RETRY_EXC_ERR");
	side_free(&c);
	side_free(&s);
}

/*
 * Every operation, latency and bandwidth, 64 KiB messages, where each is
 * addressed another way: InfiniBand through a GRH (--gid-index 0), RoCE v1
 * GIDs (--gid-index 2), ports at 1024 and 256 bytes (the path MTU is the
 * smaller, each message 256 packets).
 */
static void test_addressing(void **state)
{
	enum ibs_ping_op op;
	unsigned how, bw;

	(void)state;
	for (how = 0; how < 3; how++)
		for (bw = 0; bw < 2; bw++)
			for (op = IBS_OP_SEND; op < IBS_OP__COUNT; op++) {
				struct side c, s;
				fv_reset();
				if (how == 1)
					roce_table();
				if (how == 2) {
					fv.port[0].mtu = 3;
					fv.port[1].mtu = 1;
				}
				opts(&c, op, bw, bw ? 200 : 50, op == IBS_OP_ATOMIC ? 8 : 65536);
				opts(&s, op, false, 0, 0);
				c.o.gid_index = s.o.gid_index = how == 0 ? 0 : how == 1 ? 2 : -1;
				run_pair(&c, &s);
				if (c.rc || s.rc)
					fail_msg("%s%s, addressing %u: %s / %s", ibs_ping_op_name(op),
						 bw ? " bandwidth" : "", how, c.err ? c.err : "", s.err ? s.err : "");
				assert_int_equal(fv.last_rtr.use_grh, how < 2);
				assert_int_equal(fv.last_rtr.sgid_index, how == 1 ? 2 : 0);
				assert_int_equal(c.res.mtu, how == 2 ? 1 : 5);
				side_free(&c);
				side_free(&s);
			}
}

/* A requester that gets fetched values big-endian (ConnectX-3, MOFED's reply-BE mode) still counts right. */
static void test_atomic_big_endian(void **state)
{
	unsigned bw;

	(void)state;
	for (bw = 0; bw < 2; bw++) {
		struct side c, s;
		fv_reset();
		fv.port[1].atomic_be = true;
		opts(&c, IBS_OP_ATOMIC, bw, 300, 8);
		opts(&s, IBS_OP_ATOMIC, false, 0, 0);
		run_pair(&c, &s);
		check_pair(&c, &s);
		side_free(&c);
		side_free(&s);
	}
}

/* A completion that never comes: the deadline ends the run with a clear error on both sides. */
static void test_lost_completion(void **state)
{
	struct side c, s;
	uint64_t t0 = ibs_mono_ns();

	(void)state;
	fv.lose_from = 7; /* the client's 4th send, as posts alternate */
	opts(&c, IBS_OP_SEND, false, 100, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.timeout_ms = s.o.timeout_ms = 500;
	run_pair(&c, &s);
	assert_true((ibs_mono_ns() - t0) / 1000000 < 20000);
	assert_int_equal(c.rc, IBS_E_TIMEOUT);
	assert_int_equal(c.step, IBS_STEP_RUN);
	/* 500 ms is shorter than the hardware's retries (0.54 to 2.1 s): the peer stopped answering. */
	has(c.err, "the peer stopped answering: no completion within 500 ms (--timeout, shorter than the "
		   "transport's own retries): send 4 of 100");
	has(c.hint, "above 2147 ms");
	assert_true(s.accepted);
	assert_int_not_equal(s.rc, IBS_OK);
	assert_int_equal(s.step, IBS_STEP_RUN);
	side_free(&c);
	side_free(&s);
	/* Longer: the hardware would have said RETRY_EXC_ERR had the request left; nothing came at all. */
	fv_reset();
	fv.lose_from = 7;
	opts(&c, IBS_OP_SEND, false, 100, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.timeout_ms = s.o.timeout_ms = 2200;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_TIMEOUT);
	has(c.err, "no completion within 2200 ms (--timeout): send 4 of 100");
	assert_null(strstr(c.err, "stopped answering"));
	has(c.hint, "did not leave this host");
	/*
	 * The listener had every request of its own completed and waited for
	 * the client's 4th message: it says nothing came from the peer, never
	 * that its own request did not leave (or the client says why first).
	 */
	assert_int_equal(s.rc, IBS_E_TIMEOUT);
	if (!strstr(s.err, "the peer says:")) {
		has(s.err, "nothing arrived from the peer within 2200 ms (--timeout): send 4 of 100");
		assert_null(strstr(s.hint, "did not leave this host"));
	}
	side_free(&c);
	side_free(&s);
}

/* A completion with an error status: named, with a hint; the listener is told why. */
static void test_error_completion(void **state)
{
	struct side c, s;

	(void)state;
	fv.err_at = 5;
	fv.err_status = IBS_WC_RETRY_EXC_ERR;
	opts(&c, IBS_OP_READ, false, 100, 64);
	opts(&s, IBS_OP_READ, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	assert_int_equal(c.step, IBS_STEP_RUN);
	has(c.err, "RDMA read 5 of 100 completed with status RETRY_EXC_ERR (transport retry counter exceeded; "
		   "vendor error 0x81)");
	has(c.hint, "on RoCE try --gid-index N");
	assert_int_equal(s.rc, IBS_E_TRANSPORT);
	has(s.err, "the peer client stopped: RDMA read 5 of 100 completed with status RETRY_EXC_ERR");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.err_at = 2;
	fv.err_status = IBS_WC_REM_ACCESS_ERR;
	opts(&c, IBS_OP_WRITE, true, 100, 64);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_E_STATUS);
	has(c.err, "status REM_ACCESS_ERR (remote access error");
	has(c.hint, "rkey");
	side_free(&c);
	side_free(&s);
	assert_string_equal(ibs_wc_status_name(IBS_WC_WR_FLUSH_ERR), "WR_FLUSH_ERR");
	assert_string_equal(ibs_wc_status_name(99), "UNKNOWN");
}

/* A client with no listener behind its socket: it gets as far as its own setup. */
static void client_alone(struct side *c)
{
	int sv[2];

	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	if (c->rc == IBS_OK) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		c->rc = ibs_ping_client_fd(c->p, sv[0], "listener", &c->res);
		close(sv[0]);
		close(sv[1]);
	}
	finish(c);
}

/* The client's device fails one setup step: the step is named, with its hint. */
static void client_setup_fails(enum fv_op op, int err, enum ibs_ping_step step, enum ibs_err want, const char *msg,
			       const char *hint)
{
	struct side c;

	fv_reset();
	fv_fail(op, err, 0);
	opts(&c, IBS_OP_SEND, false, 10, 64);
	client_alone(&c);
	assert_int_equal(c.rc, want);
	assert_int_equal(c.step, step);
	has(c.err, msg);
	if (hint)
		has(c.hint, hint);
	else
		assert_null(c.hint);
	side_free(&c);
}

static void test_setup_failures(void **state)
{
	(void)state;
	client_setup_fails(FV_OPEN, ENODEV, IBS_STEP_OPEN, IBS_E_NODEV,
			   "no RDMA device found (the kernel has no RDMA support", "ibscan local");
	client_setup_fails(FV_OPEN, EACCES, IBS_STEP_OPEN, IBS_E_PERM, "cannot open fake0: Permission denied",
			   "/dev/infiniband/uverbs");
	client_setup_fails(FV_PD, ENOMEM, IBS_STEP_PD, IBS_E_TRANSPORT, "cannot allocate a protection domain on fake0",
			   NULL);
	client_setup_fails(FV_MR, ENOMEM, IBS_STEP_MR, IBS_E_TRANSPORT,
			   "memory registration of 8192 bytes failed: Cannot allocate memory",
			   "registered memory is pinned and counts against RLIMIT_MEMLOCK");
	client_setup_fails(FV_MR, EPERM, IBS_STEP_MR, IBS_E_TRANSPORT, "Operation not permitted", "ulimit -l");
	/* CQ and QP rings are pinned too: an unprivileged host's 64 KiB limit fails there first. */
	client_setup_fails(FV_CQ, ENOMEM, IBS_STEP_CQ, IBS_E_TRANSPORT, "cannot create a completion queue",
			   "completion queue ring is pinned and counts against RLIMIT_MEMLOCK");
	client_setup_fails(FV_CQ, EINVAL, IBS_STEP_CQ, IBS_E_TRANSPORT, "cannot create a completion queue", NULL);
	client_setup_fails(FV_QP, ENOMEM, IBS_STEP_QP, IBS_E_TRANSPORT, "cannot create the RC queue pair",
			   "queue pair's rings are pinned and count against RLIMIT_MEMLOCK");
	client_setup_fails(FV_QP, ENOMEM, IBS_STEP_QP, IBS_E_TRANSPORT, "cannot create the RC queue pair",
			   "out of queue pairs");
	client_setup_fails(FV_INIT, EINVAL, IBS_STEP_INIT, IBS_E_TRANSPORT,
			   "INIT failed: Invalid argument (fake0 port 1)", "check the port");
	assert_string_equal(ibs_ping_step_name(IBS_STEP_MR), "MR");
	assert_string_equal(ibs_ping_step_name(IBS_STEP_EXCHANGE), "exchange");
	assert_string_equal(ibs_ping_step_name((enum ibs_ping_step)99), "?");
}

static void test_open_failures(void **state)
{
	struct side c;
	unsigned i;

	(void)state;
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.ca = "mlx5_9";
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	finish(&c);
	has(c.err, "no RDMA device named 'mlx5_9'");
	side_free(&c);
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.port = 2;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	finish(&c);
	has(c.err, "fake0 has no port 2 (it has 1)");
	side_free(&c);
	for (i = 0; i < FV_PORTS; i++)
		fv.port[i].state = 2;
	opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	finish(&c);
	has(c.err, "fake0 port 1 is not active (state INIT)");
	has(c.hint, "no subnet manager");
	side_free(&c);
	/* An iWARP port reads Ethernet and active: refused at open, not at RTR with a hint blaming the GID. */
	fv_reset();
	fv.port[0].ll = IBS_LL_ETH;
	fv.port[0].iwarp = true;
	opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	finish(&c);
	assert_int_equal(c.step, IBS_STEP_OPEN);
	has(c.err, "fake0 is an iWARP device");
	has(c.hint, "rdma_cm");
	side_free(&c);
}

/* A scripted listener: answers a hello with a reply the test shaped, then records what it is told. */
struct script {
	int fd;
	struct ibs_oob_msg reply;
	void (*shape)(struct ibs_oob_hello *h);
	char told[IBS_OOB_TEXT_SHOWN + 1];
};

static void *script_main(void *arg)
{
	struct script *s = arg;
	struct ibs_oob_msg m;
	char *msg = NULL;

	if (ibs_oob_recv(s->fd, 2000, &m, &msg) == IBS_OK) {
		s->reply = m;
		s->reply.type = IBS_OOB_HELLO_REPLY;
		s->reply.hello.qpn = 0x999;
		s->reply.hello.psn = 0x42;
		s->reply.hello.lid = 42;
		s->reply.hello.gid[0] = 0xfe;
		s->reply.hello.gid[1] = 0x80;
		s->reply.hello.gid[15] = 0x99;
		if (s->shape)
			s->shape(&s->reply.hello);
		ibs_oob_send(s->fd, &s->reply, 2000, &msg);
		if (ibs_oob_recv(s->fd, 2000, &m, &msg) == IBS_OK && m.type == IBS_OOB_ERROR)
			snprintf(s->told, sizeof(s->told), "%s", m.text);
	}
	free(msg);
	close(s->fd);
	return NULL;
}

static void run_scripted(struct side *c, void (*shape)(struct ibs_oob_hello *h), struct script *sc)
{
	pthread_t th;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(sc, 0, sizeof(*sc));
	sc->fd = sv[1];
	sc->shape = shape;
	assert_int_equal(pthread_create(&th, NULL, script_main, sc), 0);
	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	if (c->rc == IBS_OK)
		c->rc = ibs_ping_client_fd(c->p, sv[0], "listener", &c->res);
	finish(c);
	close(sv[0]);
	pthread_join(th, NULL);
}

static void shape_roce_peer(struct ibs_oob_hello *h)
{
	static const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 6 };

	memcpy(h->gid, v4, 16);
}

static void test_rtr_rts_failures(void **state)
{
	struct script sc;
	struct side c;

	(void)state;
	/* InfiniBand: addressed by LID. */
	fv_fail(FV_RTR, EINVAL, 0);
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, NULL, &sc);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_RTR);
	has(c.err, "RTR failed: remote LID 42, QPN 0x999: Invalid argument");
	has(c.hint, "Active with a LID");
	has(sc.told, "RTR failed: remote LID 42"); /* the peer learns why */
	side_free(&c);
	/* RoCE: addressed by GID. */
	fv_reset();
	roce_table();
	fv_fail(FV_RTR, ENETUNREACH, 0);
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_roce_peer, &sc);
	assert_int_equal(c.step, IBS_STEP_RTR);
	has(c.err, "RTR failed: remote GID 0000:0000:0000:0000:0000:ffff:c0a8:0a06 unreachable from GID index 3 "
		   "(Network is unreachable)");
	has(c.hint, "on RoCE try --gid-index N (ibscan local lists them");
	side_free(&c);
	fv_reset();
	fv_fail(FV_RTS, EINVAL, 0);
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, NULL, &sc);
	assert_int_equal(c.step, IBS_STEP_RTS);
	has(c.err, "RTS failed: Invalid argument");
	side_free(&c);
}

static void shape_ethernet(struct ibs_oob_hello *h)
{
	h->link_layer = IBS_LL_ETH;
}

static void shape_v1(struct ibs_oob_hello *h)
{
	shape_roce_peer(h);
	h->gid_type = IBS_GID_IB_ROCE_V1;
	h->gid_index = 2;
}

static void shape_other_test(struct ibs_oob_hello *h)
{
	h->iters = 7;
}

static void shape_no_lid(struct ibs_oob_hello *h)
{
	h->lid = 0;
}

/* Peers that cannot be talked to are refused before RTR, saying why. */
static void test_peer_mismatch(void **state)
{
	struct script sc;
	struct side c;

	(void)state;
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_ethernet, &sc);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has(c.err, "the peer listener uses an Ethernet (RoCE) port and this host fake0 port 1 is InfiniBand");
	side_free(&c);
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_v1, &sc);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has(c.err, "this host uses a RoCE v2 GID (index 3) and the peer listener a IB/RoCE v1 GID (index 2)");
	has(c.hint, "--gid-index");
	side_free(&c);
	fv_reset();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_other_test, &sc);
	has(c.err, "the listener listener answered for another test (send, 7 x 64 bytes)");
	side_free(&c);
	fv_reset();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_no_lid, &sc);
	has(c.err, "the peer listener has no unicast LID (0x0)");
	has(c.hint, "subnet manager");
	side_free(&c);
}

/* The listener's own setup fails: the client hears why. */
static void test_listener_fails(void **state)
{
	struct side c, s;

	(void)state;
	fv_fail(FV_MR, ENOMEM, 1); /* the client registers first, then the listener */
	opts(&c, IBS_OP_SEND, false, 10, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(s.rc, IBS_E_TRANSPORT);
	assert_int_equal(s.step, IBS_STEP_MR);
	has(s.hint, "RLIMIT_MEMLOCK");
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has(c.err, "the listener listener refused the probe: memory registration of 8192 bytes failed");
	side_free(&c);
	side_free(&s);
	/* A listener without atomics refuses an atomic probe; a client without them does not start one. */
	fv_reset();
	fv.port[0].no_atomics = true;
	opts(&c, IBS_OP_ATOMIC, false, 10, 8);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_false(s.accepted);
	assert_int_equal(s.rc, IBS_E_INVAL);
	has(c.err, "refused the probe: the listener's device does not support atomic operations");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[1].no_atomics = true;
	opts(&c, IBS_OP_ATOMIC, false, 10, 8);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.step, IBS_STEP_OPEN);
	has(c.err, "fake0 does not support atomic operations");
	assert_false(s.accepted);
	side_free(&c);
	side_free(&s);
}

struct listener {
	struct ibs_ping *p;
	int lfd, wait_ms;
	enum ibs_err rc;
	struct ibs_ping_result res;
};

static void *listen_main(void *arg)
{
	struct listener *l = arg;

	l->rc = ibs_ping_serve(l->p, l->lfd, l->wait_ms, &l->res);
	return NULL;
}

/*
 * The listener over loopback TCP serves one peer at a time: a silent peer is
 * dropped after --timeout, a stranger at once, and then a real probe runs.
 */
static void test_listener_drops_bad_peers(void **state)
{
	struct listener l;
	struct side c, s;
	pthread_t th;
	char *msg = NULL;
	unsigned port = 0;
	int silent, stranger;
	uint64_t t0;

	(void)state;
	memset(&l, 0, sizeof(l));
	opts(&s, IBS_OP_SEND, false, 0, 0);
	s.o.timeout_ms = 300;
	assert_int_equal(ibs_ping_open(&fake_verbs, &s.o, &l.p), IBS_OK);
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &l.lfd, &port, &msg), IBS_OK);
	l.wait_ms = 10000;
	assert_int_equal(pthread_create(&th, NULL, listen_main, &l), 0);
	t0 = ibs_mono_ns();
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &silent, &msg), IBS_OK);
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &stranger, &msg), IBS_OK);
	assert_int_equal(send(stranger, "GET / HTTP/1.0\r\n\r\n", 18, MSG_NOSIGNAL), 18);
	opts(&c, IBS_OP_WRITE, false, 200, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client(c.p, "127.0.0.1", port, &c.res);
	finish(&c);
	pthread_join(th, NULL);
	/* The silent peer held the listener for its timeout, not longer. */
	assert_true((ibs_mono_ns() - t0) / 1000000 >= 250);
	assert_true((ibs_mono_ns() - t0) / 1000000 < 30000);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(l.rc, IBS_OK);
	assert_int_equal(l.res.dropped, 2);
	assert_true(l.res.server);
	check_latency(&c.res);
	close(silent);
	close(stranger);
	side_free(&c);
	ibs_ping_result_free(&l.res);
	/* Nobody comes: --wait ends the listener. */
	l.wait_ms = 100;
	l.rc = ibs_ping_serve(l.p, l.lfd, l.wait_ms, &l.res);
	assert_int_equal(l.rc, IBS_E_TIMEOUT);
	assert_int_equal(ibs_ping_failed_step(l.p), IBS_STEP_CONNECT);
	has(ibs_ping_error(l.p), "no probe arrived within 0.1 s (--wait)");
	close(l.lfd);
	ibs_ping_close(l.p);
	/* Nobody listens: the client names the step and says what to start. */
	opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client(c.p, "127.0.0.1", port, &c.res);
	finish(&c);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_CONNECT);
	has(c.err, "Connection refused");
	has(c.hint, "start 'ibscan ping --listen' on 127.0.0.1 first");
	side_free(&c);
	/* An IPv6 address: the hint says what may hear IPv4 only (an IPv4 --bind, a host without IPv6). */
	opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client(c.p, "::1", port, &c.res);
	finish(&c);
	assert_int_equal(c.step, IBS_STEP_CONNECT);
	has(c.hint, "start 'ibscan ping --listen' on ::1 first (same --tcp-port; a listener given an IPv4 --bind, or on a "
		    "host without IPv6, hears IPv4 only)");
	side_free(&c);
	assert_false(fv.overrun);
}

static unsigned mrs_registered(void)
{
	unsigned i, n = 0;

	pthread_mutex_lock(&fv.mu);
	for (i = 0; i < FV_MAX_MRS; i++)
		n += fv.mrs[i] != NULL;
	pthread_mutex_unlock(&fv.mu);
	return n;
}

/*
 * After a valid hello, a peer that trickles keepalives (each well within
 * --timeout, which every message restarts) is cut off at the session's
 * --deadline: the listener tells it why, fails, and unpins its buffers.
 */
static void test_listener_session_deadline(void **state)
{
	struct listener l;
	struct ibs_oob_msg m, ka;
	struct ibs_ping_opts o;
	pthread_t th;
	char *msg = NULL;
	unsigned port = 0, sent = 0, pinned;
	bool told = false;
	uint64_t t0, ms;
	int fd, i;

	(void)state;
	memset(&l, 0, sizeof(l));
	memset(&o, 0, sizeof(o));
	o.gid_index = -1;
	o.timeout_ms = 300;
	o.session_ms = 1000;
	assert_int_equal(ibs_ping_open(&fake_verbs, &o, &l.p), IBS_OK);
	assert_int_equal(ibs_tcp_listen("127.0.0.1", 0, &l.lfd, &port, &msg), IBS_OK);
	l.wait_ms = 10000;
	assert_int_equal(pthread_create(&th, NULL, listen_main, &l), 0);
	t0 = ibs_mono_ns();
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &fd, &msg), IBS_OK);
	/* A valid hello for an RDMA read run: the listener has nothing to do but wait on TCP. */
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_HELLO;
	m.hello.op = IBS_OP_READ;
	m.hello.link_layer = IBS_LL_IB;
	m.hello.mtu = 5;
	m.hello.iters = 10;
	m.hello.size = 4096;
	m.hello.timeout_ms = 300;
	m.hello.lid = 42;
	m.hello.qpn = 0x999;
	m.hello.psn = 0x42;
	m.hello.rd_atomic = 1;
	m.hello.len = 4096;
	assert_int_equal(ibs_oob_send(fd, &m, 2000, &msg), IBS_OK);
	if (ibs_oob_recv(fd, 2000, &m, &msg) != IBS_OK || m.type != IBS_OOB_HELLO_REPLY)
		fail_msg("no hello reply: %s %s", msg ? msg : "", m.type == IBS_OOB_ERROR ? m.text : "");
	pinned = mrs_registered();
	assert_true(pinned > 0);
	/* A keepalive every 100 ms, for up to 10 s, until the listener speaks or hangs up. */
	memset(&ka, 0, sizeof(ka));
	ka.type = IBS_OOB_KEEPALIVE;
	for (i = 0; i < 100; i++) {
		struct pollfd pfd = { fd, POLLIN, 0 };
		if (poll(&pfd, 1, 100) > 0) {
			if (ibs_oob_recv(fd, 1000, &m, &msg) == IBS_OK && m.type == IBS_OOB_ERROR) {
				told = true;
				has(m.text, "did not end within --deadline 1 s");
			}
			break;
		}
		if (ibs_oob_send(fd, &ka, 1000, &msg) != IBS_OK)
			break;
		sent++;
	}
	ms = (ibs_mono_ns() - t0) / 1000000;
	free(msg);
	close(fd); /* ends the listener even if the deadline did not */
	pthread_join(th, NULL);
	assert_true(told);
	assert_true(sent >= 5); /* the peer kept the connection busy past --timeout several times */
	assert_true(ms >= 900);
	assert_true(ms < 5000);
	assert_int_equal(l.rc, IBS_E_DEADLINE);
	assert_int_equal(ibs_ping_failed_step(l.p), IBS_STEP_FINISH);
	has(ibs_ping_error(l.p), "the probe session with 127.0.0.1:");
	has(ibs_ping_hint(l.p), "--deadline");
	assert_int_equal(mrs_registered(), 0);
	close(l.lfd);
	ibs_ping_close(l.p);
	assert_false(fv.overrun);
}

/* A result rendered as text or JSON (owned by the caller). */
static char *render(const struct ibs_ping_result *r, enum emit_mode mode)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct emit *e = emit_new(mode);

	render_ping(e, r);
	assert_int_equal(emit_write(e, m), 0);
	emit_free(e);
	fclose(m);
	return buf;
}

static json_t *render_json(const struct ibs_ping_result *r)
{
	char *buf = render(r, EMIT_JSON);
	json_error_t jerr;
	json_t *j = json_loads(buf, 0, &jerr);

	if (!j)
		fail_msg("not JSON: %s: %s", jerr.text, buf);
	free(buf);
	return j;
}

/* Both sides over loopback TCP (127.0.0.1): the listener in a thread, through ibs_ping_serve and ibs_ping_client. */
/* The listener on addr (a loopback address), the client connecting to it over TCP. */
static void run_loopback_at(struct side *c, struct side *s, const char *addr)
{
	struct listener l;
	pthread_t th;
	char *msg = NULL;
	unsigned port = 0;

	memset(&l, 0, sizeof(l));
	assert_int_equal(ibs_ping_open(&fake_verbs, &s->o, &l.p), IBS_OK);
	assert_int_equal(ibs_tcp_listen(addr, 0, &l.lfd, &port, &msg), IBS_OK);
	l.wait_ms = 10000;
	assert_int_equal(pthread_create(&th, NULL, listen_main, &l), 0);
	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	if (c->rc == IBS_OK)
		c->rc = ibs_ping_client(c->p, addr, port, &c->res);
	finish(c);
	pthread_join(th, NULL);
	close(l.lfd);
	s->rc = l.rc;
	s->accepted = l.rc == IBS_OK;
	s->res = l.res;
	s->p = l.p;
	finish(s);
	assert_false(fv.overrun);
}

static void run_loopback(struct side *c, struct side *s)
{
	run_loopback_at(c, s, "127.0.0.1");
}

/* Every port: ::ffff:127.0.0.1 as RoCE v1 (4) and v2 (5) on netdev lo, beside roce_table's entries on eth0. */
static void loopback_gids(const char *netdev)
{
	static const uint8_t lo[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 };
	unsigned i, k;

	roce_table();
	for (i = 0; i < FV_PORTS; i++) {
		fv_set_gid(i, 4, lo, IBS_GID_IB_ROCE_V1);
		fv_set_gid(i, 5, lo, IBS_GID_ROCE_V2);
		for (k = 0; k < 6; k++)
			snprintf(fv.port[i].gids[k].netdev, IBS_NETDEV_LEN, "%s", k >= 4 ? netdev : "eth0");
	}
}

/*
 * End to end over loopback TCP: each side takes the GID of the address its
 * setup connection uses (127.0.0.1, on lo), found with getsockname and
 * getifaddrs, not the best-ranked one (index 3); where no GID of the port has
 * that address on that interface, the rank decides and the result says why.
 */
static void test_setup_connection_gid(void **state)
{
	static const uint8_t lo2[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 2 };
	struct side c, s;
	unsigned i;
	char *buf;
	json_t *j;

	(void)state;
	loopback_gids("lo");
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_loopback(&c, &s);
	check_pair(&c, &s);
	assert_int_equal(c.res.local.gid_index, 5);
	assert_int_equal(s.res.local.gid_index, 5);
	assert_int_equal(fv.last_rtr.sgid_index, 5);
	assert_string_equal(c.res.gid_choice, "the setup connection's address 127.0.0.1 on lo, RoCE v2");
	assert_string_equal(s.res.gid_choice, "the setup connection's address 127.0.0.1 on lo, RoCE v2");
	assert_string_equal(c.res.setup_addr, "127.0.0.1");
	assert_string_equal(c.res.gid_netdev, "lo");
	buf = render(&c.res, EMIT_TEXT);
	has(buf, "addressed by GID (the setup connection's address 127.0.0.1 on lo, RoCE v2)");
	free(buf);
	j = render_json(&s.res);
	assert_string_equal(json_string_value(json_object_get(j, "gid_netdev")), "lo");
	assert_string_equal(json_string_value(json_object_get(j, "setup_address")), "127.0.0.1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "local"), "gid_index")), 5);
	json_decref(j);
	side_free(&c);
	side_free(&s);
	fv_reset();
	loopback_gids("eth9");
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_loopback(&c, &s);
	check_pair(&c, &s);
	assert_int_equal(c.res.local.gid_index, 3);
	assert_string_equal(c.res.gid_choice, "RoCE v2 with an IPv4 address; the setup connection's address 127.0.0.1 on "
					      "lo is on no GID of this port");
	assert_string_equal(c.res.gid_netdev, "eth0");
	side_free(&c);
	side_free(&s);
	/*
	 * A host with several addresses: the listener on 127.0.0.2 (an address
	 * no interface lists: its GID's interface is not compared) takes that
	 * GID; the client, whose connection leaves from 127.0.0.1, takes lo's.
	 */
	fv_reset();
	loopback_gids("lo");
	for (i = 0; i < FV_PORTS; i++)
		fv_set_gid(i, 6, lo2, IBS_GID_ROCE_V2);
	opts(&c, IBS_OP_WRITE, false, 20, 64);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_loopback_at(&c, &s, "127.0.0.2");
	check_pair(&c, &s);
	assert_int_equal(s.res.local.gid_index, 6);
	assert_string_equal(s.res.gid_choice, "the setup connection's address 127.0.0.2, RoCE v2");
	assert_int_equal(c.res.local.gid_index, 5);
	assert_int_equal(c.res.remote.gid_index, 6);
	side_free(&c);
	side_free(&s);
}

/* A file under root, its folders made as needed. */
static void put_file(const char *root, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel), *p;
	FILE *f;

	for (p = path + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0700);
		*p = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(path);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* A sysfs tree for fake0 port 1, as roce_table's entries: even indexes RoCE v1, odd v2, all on eth0. */
static char *gid_attrs_tree(void)
{
	char *root = xstrdup("/tmp/ibscan-test-sysfs-XXXXXX");
	unsigned i;

	assert_non_null(mkdtemp(root));
	for (i = 0; i < 4; i++) {
		char rel[128];
		snprintf(rel, sizeof(rel), "class/infiniband/fake0/ports/1/gid_attrs/types/%u", i);
		put_file(root, rel, i % 2 ? "RoCE v2\n" : "IB/RoCE v1\n");
		snprintf(rel, sizeof(rel), "class/infiniband/fake0/ports/1/gid_attrs/ndevs/%u", i);
		put_file(root, rel, "eth0\n");
	}
	return root;
}

/*
 * rdma-core before 32 cannot tell GID types: behind a router (fv.routed),
 * a client that ranks its GIDs without types takes the first IPv4 one, a
 * RoCE v1 entry, and its packets never arrive (issue 16). The probe reads
 * the types from sysfs as libibverbs does, and takes the v2 entry; with
 * the types known, a v1 client meeting a v2 listener is refused before RTR.
 */
static void test_old_rdma_core(void **state)
{
	char *tree = gid_attrs_tree(), *empty = xstrdup("/tmp/ibscan-test-nosysfs-XXXXXX");
	struct side c, s;
	unsigned with_sysfs;

	(void)state;
	assert_non_null(mkdtemp(empty));
	for (with_sysfs = 0; with_sysfs < 2; with_sysfs++) {
		fv_reset();
		roce_table();
		fv.routed = true;
		fv.port[1].gid_types_unknown = true; /* the client's */
		opts(&c, IBS_OP_SEND, false, 20, 64);
		opts(&s, IBS_OP_SEND, false, 0, 0);
		c.o.sysfs = s.o.sysfs = with_sysfs ? tree : empty;
		s.o.timeout_ms = 500;
		run_pair(&c, &s);
		if (!with_sysfs) {
			assert_int_equal(c.rc, IBS_E_STATUS);
			has(c.err, "completed with status RETRY_EXC_ERR");
		} else {
			check_pair(&c, &s);
			assert_int_equal(c.res.local.gid_index, 3);
			assert_int_equal(c.res.local.gid_type, IBS_GID_ROCE_V2);
			assert_string_equal(c.res.gid_netdev, "eth0");
		}
		side_free(&c);
		side_free(&s);
		/* A v1 client and a v2 listener: refused when the types are known, RETRY_EXC_ERR when not. */
		fv_reset();
		roce_table();
		fv.routed = true;
		fv.port[1].gid_types_unknown = true;
		opts(&c, IBS_OP_SEND, false, 20, 64);
		opts(&s, IBS_OP_SEND, false, 0, 0);
		c.o.sysfs = s.o.sysfs = with_sysfs ? tree : empty;
		c.o.gid_index = 2;
		s.o.gid_index = 3;
		s.o.timeout_ms = 500;
		run_pair(&c, &s);
		if (with_sysfs) {
			assert_int_equal(c.step, IBS_STEP_EXCHANGE);
			has(c.err,
			    "refused the probe: this host uses a RoCE v2 GID (index 3) and the peer client a IB/RoCE "
			    "v1 GID (index 2)");
			has(s.hint, "the same RoCE version");
		} else {
			has(c.err, "completed with status RETRY_EXC_ERR");
		}
		side_free(&c);
		side_free(&s);
	}
	nftw(tree, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	rmdir(empty);
	free(tree);
	free(empty);
}

/* An IPv4 GID at one end and an IPv6 one at the other: refused, as perftest does. */
static void test_gid_family(void **state)
{
	static const uint8_t v6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6 };
	struct side c, s;

	(void)state;
	roce_table();
	memset(fv.port[1].gids, 0, sizeof(fv.port[1].gids));
	fv_set_gid(1, 1, v6, IBS_GID_ROCE_V2); /* the client: IPv6 only */
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	/* The listener follows the client into IPv6: its link-local v2 GID. */
	check_pair(&c, &s);
	assert_int_equal(s.res.local.gid_index, 1);
	has(s.res.gid_choice, "RoCE v2, link-local, as the peer's GID");
	side_free(&c);
	side_free(&s);
	fv_reset();
	roce_table();
	memset(fv.port[1].gids, 0, sizeof(fv.port[1].gids));
	fv_set_gid(1, 1, v6, IBS_GID_ROCE_V2);
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	s.o.gid_index = 3;
	run_pair(&c, &s);
	assert_int_equal(s.step, IBS_STEP_EXCHANGE);
	has(s.err, "this host uses an IPv4 GID (index 3, 0000:0000:0000:0000:0000:ffff:c0a8:0a05) and the peer client an "
		   "IPv6 GID (index 1, 2001:0db8:0000:0000:0000:0000:0000:0006)");
	has(s.hint, "one address family");
	has(c.err, "refused the probe: this host uses an IPv4 GID");
	side_free(&c);
	side_free(&s);
}

/* The result renders with every key present, in both formats. */
/* The client's packets go nowhere: RETRY_EXC_ERR (the listener hears why at its timeout). */
static void run_pair_lost(struct side *c, struct side *s)
{
	s->o.timeout_ms = 500;
	run_pair(c, s);
	assert_int_equal(c->rc, IBS_E_STATUS);
	has(c->err, "completed with status RETRY_EXC_ERR");
	side_free(c);
	side_free(s);
}

/*
 * --sl, --tclass and --pkey-index reach the queue pair; a P_Key index the
 * table lacks fails INIT as on mlx5; the partition is the entry's, not entry 0's.
 */
static void test_qos_options(void **state)
{
	struct side c, s;

	(void)state;
	fv.port[0].pkey = 0x8001; /* entry 0 of the listener: another partition */
	fv.port[0].pkey_more[1] = 0xffff;
	fv.port[1].pkey_more[1] = 0x7fff; /* a limited member: reaches the listener's full one */
	opts(&c, IBS_OP_WRITE, false, 20, 64);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	c.o.pkey_index = s.o.pkey_index = 2;
	c.o.sl = s.o.sl = 5;
	c.o.gid_index = s.o.gid_index = 0; /* a GRH, for the traffic class */
	c.o.tclass = s.o.tclass = 106;     /* DSCP 26, ECN 2 */
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_int_equal(fv.last_rtr.sl, 5);
	assert_int_equal(fv.last_rtr.traffic_class, 106);
	assert_int_equal(c.res.pkey_index, 2);
	side_free(&c);
	side_free(&s);
	/* Entry 0, as before the option: the partitions differ and nothing arrives. */
	fv_reset();
	fv.port[0].pkey = 0x8001;
	opts(&c, IBS_OP_WRITE, false, 20, 64);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_pair_lost(&c, &s);
	fv_reset();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.pkey_index = FV_PKEYS;
	client_alone(&c);
	/* Past the table: refused before any connection, with the table's length. */
	assert_int_equal(c.rc, IBS_E_INVAL);
	assert_int_equal(c.step, IBS_STEP_INIT);
	has(c.err, "--pkey-index 4 is out of range: fake0 port 1 has 4 P_Key entries (0-3)");
	side_free(&c);
	/* Inside it, an entry the device refuses at INIT: the hint asks about the entry. */
	fv_reset();
	fv_fail(FV_INIT, EINVAL, 0);
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.pkey_index = 3;
	client_alone(&c);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_INIT);
	has(c.hint, "P_Key at index 3 of the port's table (--pkey-index)");
	side_free(&c);
}

/*
 * The client's --sl and --tclass travel in its hello: the listener's queue
 * pair answers in the same service level and traffic class (its RTR's
 * address vector: the SL on InfiniBand, the GRH's traffic class on RoCE).
 * A value only one side was given is what both use; two different ones
 * are refused, naming both.
 */
static void test_qos_carried(void **state)
{
	struct side c, s;

	(void)state;
	/* RoCE: the listener was given nothing, its replies go in the client's class. */
	roce_table();
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.tclass = 106; /* DSCP 26, ECN 2 */
	c.o.tclass_set = true;
	c.o.sl = 3;
	c.o.sl_set = true;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_true(fv.rtr[0].use_grh); /* port 0: the listener's, opened first */
	assert_int_equal(fv.rtr[0].traffic_class, 106);
	assert_int_equal(fv.rtr[0].sl, 3);
	assert_int_equal(fv.rtr[1].traffic_class, 106);
	assert_int_equal(fv.rtr[1].sl, 3);
	assert_int_equal(s.res.tclass, 106); /* the listener's result says what it used */
	assert_int_equal(s.res.sl, 3);
	side_free(&c);
	side_free(&s);
	/* InfiniBand, routed by LID: the SL alone. */
	fv_reset();
	opts(&c, IBS_OP_WRITE, false, 20, 64);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	c.o.sl = 5;
	c.o.sl_set = true;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_false(fv.rtr[0].use_grh);
	assert_int_equal(fv.rtr[0].sl, 5);
	assert_int_equal(fv.rtr[1].sl, 5);
	side_free(&c);
	side_free(&s);
	/* Only the listener was given one: the client takes it from the reply. */
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_READ, false, 20, 64);
	opts(&s, IBS_OP_READ, false, 0, 0);
	s.o.tclass = 104;
	s.o.tclass_set = true;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_int_equal(fv.rtr[0].traffic_class, 104);
	assert_int_equal(fv.rtr[1].traffic_class, 104);
	assert_int_equal(c.res.tclass, 104);
	side_free(&c);
	side_free(&s);
	/* Both given, the same: fine. */
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.tclass = s.o.tclass = 104;
	c.o.tclass_set = s.o.tclass_set = true;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_int_equal(fv.rtr[0].traffic_class, 104);
	side_free(&c);
	side_free(&s);
	/* Both given, different: refused before any queue pair connects, naming both values. */
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.tclass = 104;
	s.o.tclass = 96;
	c.o.tclass_set = s.o.tclass_set = true;
	run_pair(&c, &s);
	assert_int_equal(s.rc, IBS_E_INVAL);
	assert_false(s.accepted);
	has(s.err, "the client asks for --tclass 104 and this listener was started with --tclass 96");
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has(c.err, "the listener listener refused the probe: the client asks for --tclass 104 and this listener was "
		   "started with --tclass 96");
	assert_int_equal(fv.calls[FV_RTR], 0);
	side_free(&c);
	side_free(&s);
	fv_reset();
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.sl = 0;
	s.o.sl = 2;
	c.o.sl_set = s.o.sl_set = true;
	run_pair(&c, &s);
	assert_int_equal(s.rc, IBS_E_INVAL);
	has(c.err, "the client asks for --sl 0 and this listener was started with --sl 2");
	side_free(&c);
	side_free(&s);
}

/* A client of probe protocol version 1 (before --sl and --tclass travelled): refused in words it can read. */
static void test_old_client(void **state)
{
	struct side s;
	struct ibs_oob_msg m;
	uint8_t buf[IBS_OOB_MAX_MSG];
	pthread_t th;
	ssize_t n;
	size_t len;
	int sv[2];

	(void)state;
	opts(&s, IBS_OP_SEND, false, 0, 0);
	assert_int_equal(ibs_ping_open(&fake_verbs, &s.o, &s.p), IBS_OK);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	s.fd = sv[1];
	assert_int_equal(pthread_create(&th, NULL, serve_main, &s), 0);
	/* A version 1 hello: the same 64 bytes, bytes 30-31 reserved (zero). */
	memset(&m, 0, sizeof(m));
	m.type = IBS_OOB_HELLO;
	m.hello.op = IBS_OP_SEND;
	m.hello.link_layer = IBS_LL_IB;
	m.hello.mtu = 5;
	m.hello.iters = 10;
	m.hello.size = 64;
	m.hello.timeout_ms = 300;
	m.hello.lid = 42;
	m.hello.qpn = 0x999;
	m.hello.len = 64;
	len = ibs_oob_encode(&m, buf);
	buf[4] = 0;
	buf[5] = 1;
	assert_int_equal(write(sv[0], buf, len), (ssize_t)len);
	/* What comes back is framed as version 1, so that ibscan reads it: an error, and why. */
	n = read(sv[0], buf, sizeof(buf) - 1);
	assert_true(n > IBS_OOB_HDR_LEN);
	assert_memory_equal(buf, "IBSP\0\1\0\5", 8);
	assert_int_equal(buf[8] << 24 | buf[9] << 16 | buf[10] << 8 | buf[11], n - IBS_OOB_HDR_LEN);
	buf[n] = 0;
	has((char *)buf + IBS_OOB_HDR_LEN,
	    "this listener speaks probe protocol version 2 and the client version 1: run the same ibscan version on "
	    "both hosts");
	close(sv[0]);
	pthread_join(th, NULL);
	finish(&s);
	assert_false(s.accepted);
	has(s.err, "the peer speaks probe protocol version 1, this ibscan speaks version 2");
	side_free(&s);
}

/* A listener of version 1: drops this hello (its own warning names both versions) and closes. */
static void *old_listener_main(void *arg)
{
	int fd = *(int *)arg;
	uint8_t hdr[IBS_OOB_HDR_LEN];

	if (read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) && hdr[5] != 1)
		ibs_tcp_close(fd, 200);
	else
		close(fd);
	return NULL;
}

static void test_old_listener(void **state)
{
	struct side c;
	pthread_t th;
	int sv[2];

	(void)state;
	opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pthread_create(&th, NULL, old_listener_main, &sv[1]), 0);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client_fd(c.p, sv[0], "listener", &c.res);
	finish(&c);
	close(sv[0]);
	pthread_join(th, NULL);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has(c.err, "the listener listener closed the setup connection without answering the hello");
	has(c.hint, "an ibscan speaking probe protocol version 1 (this one speaks 2) does so");
	side_free(&c);
}

/* InfiniBand across subnets: refused without --dlid; with the router's LID, through it; a wrong one is lost. */
static void test_subnets(void **state)
{
	struct side c, s;

	(void)state;
	fv.port[0].gids[0].gid[1] = 0xc0; /* the listener's subnet prefix: fec0:: */
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	/* The listener sees the hello first, refuses and tells the client. */
	assert_int_equal(s.rc, IBS_E_INVAL);
	assert_int_equal(s.step, IBS_STEP_EXCHANGE);
	has(s.err, "is in another InfiniBand subnet (its GID fe80:0000:0000:0000:0002:c903:000a:0001, this port's "
		   "fec0:0000:0000:0000:0002:c903:000a:0000): its LID 8 means nothing here");
	has(s.hint, "--dlid");
	assert_int_not_equal(c.rc, IBS_OK);
	has(c.err, "the listener listener refused the probe: the peer client is in another InfiniBand subnet");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[0].gids[0].gid[1] = 0xc0;
	fv.router_lid = 99;
	opts(&c, IBS_OP_READ, false, 20, 64);
	opts(&s, IBS_OP_READ, false, 0, 0);
	c.o.dlid = s.o.dlid = 99;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_true(c.res.use_grh);
	has(c.res.gid_choice, "the router's LID (--dlid)");
	assert_int_equal(fv.last_rtr.remote_lid, 99);
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[0].gids[0].gid[1] = 0xc0;
	fv.router_lid = 99;
	opts(&c, IBS_OP_READ, false, 20, 64);
	opts(&s, IBS_OP_READ, false, 0, 0);
	c.o.dlid = s.o.dlid = 98;
	run_pair_lost(&c, &s);
	/* RoCE routes by IP: --dlid is refused at open. */
	fv_reset();
	roce_table();
	opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.dlid = 99;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_INVAL);
	finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has(c.err, "--dlid is for InfiniBand across subnets, and fake0 port 1 is Ethernet (RoCE)");
	side_free(&c);
}

static void test_render(void **state)
{
	struct side c, s;
	char *buf;
	size_t i;
	json_t *j;
	static const char *const keys[] = { "schema",         "role",       "peer",          "op",         "bandwidth",
					    "iterations",     "size",       "device",        "port",       "addressing",
					    "gid_choice",     "gid_netdev", "setup_address", "sl",         "pkey_index",
					    "traffic_class",  "dlid",       "path_mtu",      "method",     "local",
					    "remote",         "memory",     "dropped_peers", "latency_us", "elapsed_s",
					    "messages_per_s", "gbit_per_s", "bytes" };

	(void)state;
	opts(&c, IBS_OP_SEND, false, 20, 64);
	opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	j = render_json(&c.res);
	assert_int_equal(json_object_size(j), sizeof(keys) / sizeof(keys[0]));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_object_get(j, keys[i]))
			fail_msg("key '%s' missing", keys[i]);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), IBS_PING_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(j, "role")), "client");
	assert_true(json_is_object(json_object_get(j, "latency_us")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "latency_us"), "kind")),
			    "half_round_trip");
	json_decref(j);
	/* The listener's view has no measurements: null, not absent. */
	j = render_json(&s.res);
	assert_int_equal(json_object_size(j), sizeof(keys) / sizeof(keys[0]));
	assert_true(json_is_null(json_object_get(j, "latency_us")));
	assert_true(json_is_null(json_object_get(j, "gbit_per_s")));
	json_decref(j);
	buf = render(&c.res, EMIT_TEXT);
	has(buf, "probe of listener: send latency, 20 x 64 bytes, from fake0 port 1");
	has(buf, "latency in us (half_round_trip): min ");
	has(buf, "memory: 8192 bytes registered in ");
	free(buf);
	side_free(&c);
	side_free(&s);
}

/* Significant digits of the number after "key": " in JSON text s (leading and trailing zeros aside). */
static int json_sig_digits(const char *s, const char *key, int *decimals)
{
	char pat[64];
	const char *p, *first = NULL, *last = NULL;
	int n = 0, dec = -1;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(s, pat);
	if (!p)
		fail_msg("no %s in %s", pat, s);
	for (p += strlen(pat); *p && strchr("0123456789.-", *p); p++) {
		if (*p == '.') {
			dec = 0;
			continue;
		}
		if (dec >= 0)
			dec++;
		if (*p >= '1' && *p <= '9') {
			if (!first)
				first = p;
			last = p;
		}
	}
	for (p = first; p && p <= last; p++)
		n += *p >= '0' && *p <= '9';
	if (decimals)
		*decimals = dec < 0 ? 0 : dec;
	return n;
}

/* Measured figures carry what the measurement holds (docs/json-schema.md), in JSON and text alike. */
static void test_render_rounding(void **state)
{
	static const char *const times[] = { "min", "median", "p99", "max", "mean", "register_us" };
	struct side c, s;
	char *buf;
	size_t i;
	int dec;

	(void)state;
	assert_true(ibs_round_sig(12345678, 4) == 12350000);
	assert_true(ibs_round_sig(-0.0012345, 2) == -0.0012);
	assert_true(ibs_round_sig(9.9996, 4) == 10);
	assert_true(ibs_round_dec(2.0 / 3, 3) == 0.667);
	assert_true(ibs_round_dec(0.5, 0) == 1);
	assert_true(isnan(ibs_round_sig(NAN, 4)) && isinf(ibs_round_dec(INFINITY, 3)) && ibs_round_sig(0, 4) == 0);

	/* A real run with the fake verbs: times to 1 ns, rates to 4 digits. */
	opts(&c, IBS_OP_WRITE, false, 7, 64);
	opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	c.res.lat_mean_us += 1.0 / 3; /* whatever the fake's clock gave, a quotient with 17 digits */
	buf = render(&c.res, EMIT_JSON);
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		json_sig_digits(buf, times[i], &dec);
		if (dec > 3)
			fail_msg("%s has %d decimals (finer than 1 ns): %s", times[i], dec, buf);
	}
	json_sig_digits(buf, "elapsed_s", &dec);
	assert_true(dec <= 9);
	assert_true(json_sig_digits(buf, "gbit_per_s", NULL) <= 4);
	assert_true(json_sig_digits(buf, "messages_per_s", NULL) <= 4);
	free(buf);

	/* Figures as the soft-RoCE guests gave them: each rounded by its rule, text and JSON the same digits. */
	c.res.lat_min_us = 1.2345678901234;
	c.res.lat_median_us = 2.0 / 3;
	c.res.lat_p99_us = 1234.5678901;
	c.res.lat_max_us = 5000.0004999;
	c.res.lat_mean_us = 10.0 / 3;
	c.res.mr.reg_us = 12.345678901;
	c.res.elapsed_s = 0.0123456789012345;
	c.res.msg_rate = 7 / c.res.elapsed_s;
	c.res.gbit_s = 0.017123456789012345;
	buf = render(&c.res, EMIT_JSON);
	has(buf, "\"min\": 1.235,");
	has(buf, "\"median\": 0.667,");
	has(buf, "\"p99\": 1234.568,");
	has(buf, "\"max\": 5000.0,");
	has(buf, "\"mean\": 3.333\n");
	has(buf, "\"register_us\": 12.346,");
	has(buf, "\"elapsed_s\": 0.012345679,");
	has(buf, "\"messages_per_s\": 567.0,");
	has(buf, "\"gbit_per_s\": 0.01712,");
	free(buf);
	buf = render(&c.res, EMIT_TEXT);
	has(buf, "min 1.235, median 0.667, p99 1234.568, max 5000.000, mean 3.333\n");
	has(buf, "registered in 12.346 us");
	has(buf, "in 0.012345679 s: 567 per second, 0.01712 Gb/s");
	free(buf);
	/* 500 ns elapsed resolves 3 digits of a rate, not 4. */
	c.res.elapsed_s = 5e-7;
	c.res.gbit_s = 1.23456;
	buf = render(&c.res, EMIT_JSON);
	has(buf, "\"gbit_per_s\": 1.23,");
	free(buf);
	side_free(&c);
	side_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_latency_every_op, setup),
		cmocka_unit_test_setup(test_bandwidth_every_op, setup),
		cmocka_unit_test_setup(test_roce_gid, setup),
		cmocka_unit_test_setup(test_listener_gid_table_changed, setup),
		cmocka_unit_test_setup(test_path, setup),
		cmocka_unit_test_setup(test_addressing, setup),
		cmocka_unit_test_setup(test_atomic_big_endian, setup),
		cmocka_unit_test_setup(test_lost_completion, setup),
		cmocka_unit_test_setup(test_error_completion, setup),
		cmocka_unit_test_setup(test_setup_failures, setup),
		cmocka_unit_test_setup(test_open_failures, setup),
		cmocka_unit_test_setup(test_rtr_rts_failures, setup),
		cmocka_unit_test_setup(test_peer_mismatch, setup),
		cmocka_unit_test_setup(test_listener_fails, setup),
		cmocka_unit_test_setup(test_listener_drops_bad_peers, setup),
		cmocka_unit_test_setup(test_listener_session_deadline, setup),
		cmocka_unit_test_setup(test_setup_connection_gid, setup),
		cmocka_unit_test_setup(test_old_rdma_core, setup),
		cmocka_unit_test_setup(test_gid_family, setup),
		cmocka_unit_test_setup(test_inline, setup),
		cmocka_unit_test_setup(test_qos_options, setup),
		cmocka_unit_test_setup(test_qos_carried, setup),
		cmocka_unit_test_setup(test_old_client, setup),
		cmocka_unit_test_setup(test_old_listener, setup),
		cmocka_unit_test_setup(test_subnets, setup),
		cmocka_unit_test_setup(test_render, setup),
		cmocka_unit_test_setup(test_render_rounding, setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
