/*
 * Unit tests of how the two sides of a probe connect (core/probe/connect.c)
 * over the fake verbs: how the queue pair is addressed (LID, GRH, RoCE
 * GIDs, the path MTU), RTR and RTS failures, peers that cannot be talked
 * to (link layer, RoCE version, address family, another subnet), and the
 * service level and traffic class both ends agree on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/probe_pair.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/tcp.h"

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
	side_finish(c);
	close(sv[0]);
	pthread_join(th, NULL);
}

static void shape_roce_peer(struct ibs_oob_hello *h)
{
	static const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 6 };

	memcpy(h->gid, v4, 16);
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
				side_opts(&c, op, bw, bw ? 200 : 50, op == IBS_OP_ATOMIC ? 8 : 65536);
				side_opts(&s, op, false, 0, 0);
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

static void test_rtr_rts_failures(void **state)
{
	struct script sc;
	struct side c;

	(void)state;
	/* InfiniBand: addressed by LID. */
	fv_fail(FV_RTR, EINVAL, 0);
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, NULL, &sc);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_RTR);
	has_text(c.err, "RTR failed: remote LID 42, QPN 0x999: Invalid argument");
	has_text(c.hint, "Active with a LID");
	has_text(sc.told, "RTR failed: remote LID 42"); /* the peer learns why */
	side_free(&c);
	/* RoCE: addressed by GID. */
	fv_reset();
	roce_table();
	fv_fail(FV_RTR, ENETUNREACH, 0);
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_roce_peer, &sc);
	assert_int_equal(c.step, IBS_STEP_RTR);
	has_text(c.err, "RTR failed: remote GID 0000:0000:0000:0000:0000:ffff:c0a8:0a06 unreachable from GID index 3 "
			"(Network is unreachable)");
	has_text(c.hint, "on RoCE try --gid-index N (ibscan local lists them");
	side_free(&c);
	fv_reset();
	fv_fail(FV_RTS, EINVAL, 0);
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, NULL, &sc);
	assert_int_equal(c.step, IBS_STEP_RTS);
	has_text(c.err, "RTS failed: Invalid argument");
	side_free(&c);
}

/* Peers that cannot be talked to are refused before RTR, saying why. */
static void test_peer_mismatch(void **state)
{
	struct script sc;
	struct side c;

	(void)state;
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_ethernet, &sc);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has_text(c.err, "the peer listener uses an Ethernet (RoCE) port and this host fake0 port 1 is InfiniBand");
	side_free(&c);
	fv_reset();
	roce_table();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_v1, &sc);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has_text(c.err, "this host uses a RoCE v2 GID (index 3) and the peer listener a IB/RoCE v1 GID (index 2)");
	has_text(c.hint, "--gid-index");
	side_free(&c);
	fv_reset();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_other_test, &sc);
	has_text(c.err, "the listener listener answered for another test (send, 7 x 64 bytes)");
	side_free(&c);
	fv_reset();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	run_scripted(&c, shape_no_lid, &sc);
	has_text(c.err, "the peer listener has no unicast LID (0x0)");
	has_text(c.hint, "subnet manager");
	side_free(&c);
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
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	/* The listener follows the client into IPv6: its link-local v2 GID. */
	check_pair(&c, &s);
	assert_int_equal(s.res.local.gid_index, 1);
	has_text(s.res.gid_choice, "RoCE v2, link-local, as the peer's GID");
	side_free(&c);
	side_free(&s);
	fv_reset();
	roce_table();
	memset(fv.port[1].gids, 0, sizeof(fv.port[1].gids));
	fv_set_gid(1, 1, v6, IBS_GID_ROCE_V2);
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	s.o.gid_index = 3;
	run_pair(&c, &s);
	assert_int_equal(s.step, IBS_STEP_EXCHANGE);
	has_text(s.err,
		 "this host uses an IPv4 GID (index 3, 0000:0000:0000:0000:0000:ffff:c0a8:0a05) and the peer client an "
		 "IPv6 GID (index 1, 2001:0db8:0000:0000:0000:0000:0000:0006)");
	has_text(s.hint, "one address family");
	has_text(c.err, "refused the probe: this host uses an IPv4 GID");
	side_free(&c);
	side_free(&s);
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
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
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
	side_opts(&c, IBS_OP_WRITE, false, 20, 64);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
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
	side_opts(&c, IBS_OP_READ, false, 20, 64);
	side_opts(&s, IBS_OP_READ, false, 0, 0);
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
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
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
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.tclass = 104;
	s.o.tclass = 96;
	c.o.tclass_set = s.o.tclass_set = true;
	run_pair(&c, &s);
	assert_int_equal(s.rc, IBS_E_INVAL);
	assert_false(s.accepted);
	has_text(s.err, "the client asks for --tclass 104 and this listener was started with --tclass 96");
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has_text(c.err, "the listener listener refused the probe: the client asks for --tclass 104 and this listener was "
			"started with --tclass 96");
	assert_int_equal(fv.calls[FV_RTR], 0);
	side_free(&c);
	side_free(&s);
	fv_reset();
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	c.o.sl = 0;
	s.o.sl = 2;
	c.o.sl_set = s.o.sl_set = true;
	run_pair(&c, &s);
	assert_int_equal(s.rc, IBS_E_INVAL);
	has_text(c.err, "the client asks for --sl 0 and this listener was started with --sl 2");
	side_free(&c);
	side_free(&s);
}

/* InfiniBand across subnets: refused without --dlid; with the router's LID, through it; a wrong one is lost. */
static void test_subnets(void **state)
{
	struct side c, s;

	(void)state;
	fv.port[0].gids[0].gid[1] = 0xc0; /* the listener's subnet prefix: fec0:: */
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	/* The listener sees the hello first, refuses and tells the client. */
	assert_int_equal(s.rc, IBS_E_INVAL);
	assert_int_equal(s.step, IBS_STEP_EXCHANGE);
	has_text(s.err, "is in another InfiniBand subnet (its GID fe80:0000:0000:0000:0002:c903:000a:0001, this port's "
			"fec0:0000:0000:0000:0002:c903:000a:0000): its LID 8 means nothing here");
	has_text(s.hint, "--dlid");
	assert_int_not_equal(c.rc, IBS_OK);
	has_text(c.err, "the listener listener refused the probe: the peer client is in another InfiniBand subnet");
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[0].gids[0].gid[1] = 0xc0;
	fv.router_lid = 99;
	side_opts(&c, IBS_OP_READ, false, 20, 64);
	side_opts(&s, IBS_OP_READ, false, 0, 0);
	c.o.dlid = s.o.dlid = 99;
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	assert_int_equal(s.rc, IBS_OK);
	assert_true(c.res.use_grh);
	has_text(c.res.gid_choice, "the router's LID (--dlid)");
	assert_int_equal(fv.last_rtr.remote_lid, 99);
	side_free(&c);
	side_free(&s);
	fv_reset();
	fv.port[0].gids[0].gid[1] = 0xc0;
	fv.router_lid = 99;
	side_opts(&c, IBS_OP_READ, false, 20, 64);
	side_opts(&s, IBS_OP_READ, false, 0, 0);
	c.o.dlid = s.o.dlid = 98;
	run_pair_lost(&c, &s);
	/* RoCE routes by IP: --dlid is refused at open. */
	fv_reset();
	roce_table();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.dlid = 99;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_INVAL);
	side_finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has_text(c.err, "--dlid is for InfiniBand across subnets, and fake0 port 1 is Ethernet (RoCE)");
	side_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_addressing, side_setup),
		cmocka_unit_test_setup(test_rtr_rts_failures, side_setup),
		cmocka_unit_test_setup(test_peer_mismatch, side_setup),
		cmocka_unit_test_setup(test_gid_family, side_setup),
		cmocka_unit_test_setup(test_qos_carried, side_setup),
		cmocka_unit_test_setup(test_subnets, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_connect", tests, NULL, NULL);
}
