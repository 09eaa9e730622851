/*
 * Unit tests of the GID the probe uses (core/probe/gid.c): the choice
 * alone (ibs_ping_choose_gid: the best-ranked entry of a port's table, or
 * the one of the setup connection's local address), then both sides of a
 * probe over the fake verbs: the GID each takes and the QP is addressed
 * by, --gid-index, a table that changes under a listener, the setup
 * connection's address over loopback TCP, and GID types read from sysfs
 * where libibverbs cannot tell them.
 */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/probe_pair.h"
#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"
#include "../../core/probe/ping.h"
#include "../../core/probe/tcp.h"

static void gid_entry(struct ibs_ping_gid *g, unsigned index, const char *addr, enum ibs_gid_type type, const char *netdev)
{
	struct in6_addr a;

	memset(g, 0, sizeof(*g));
	assert_int_equal(inet_pton(AF_INET6, addr, &a), 1);
	g->index = index;
	memcpy(g->gid, a.s6_addr, 16);
	g->type = type;
	snprintf(g->netdev, sizeof(g->netdev), "%s", netdev);
}

static void setup_end(struct ibs_ping_setup_end *s, const char *gid, const char *text, const char *ifname)
{
	struct in6_addr a;

	memset(s, 0, sizeof(*s));
	assert_int_equal(inet_pton(AF_INET6, gid, &a), 1);
	s->known = true;
	memcpy(s->gid, a.s6_addr, 16);
	snprintf(s->text, sizeof(s->text), "%s", text);
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname);
}

static void test_choose_gid(void **state)
{
	static const struct {
		const char *gids[4];
		enum ibs_gid_type types[4];
		int want;
		const char *why;
	} cases[] = {
		{ { "fe80::1", "fe80::1", "::ffff:10.0.0.1", "::ffff:10.0.0.1" },
		  { IBS_GID_IB_ROCE_V1, IBS_GID_ROCE_V2, IBS_GID_IB_ROCE_V1, IBS_GID_ROCE_V2 },
		  3,
		  "RoCE v2 with an IPv4 address" },
		{ { "fe80::1", "fe80::1", NULL, NULL }, { IBS_GID_IB_ROCE_V1, IBS_GID_ROCE_V2 }, 1, "RoCE v2, link-local" },
		{ { "fe80::1", "2001:db8::1", "fe80::1", NULL },
		  { IBS_GID_IB_ROCE_V1, IBS_GID_ROCE_V2, IBS_GID_ROCE_V2 },
		  1,
		  "RoCE v2 with a global IPv6 address" },
		{ { "fe80::1", "::ffff:10.0.0.1", NULL, NULL },
		  { IBS_GID_IB_ROCE_V1, IBS_GID_IB_ROCE_V1 },
		  1,
		  "RoCE v1 with an IPv4 address" },
		{ { "::", "::ffff:10.0.0.1", NULL, NULL },
		  { IBS_GID_UNKNOWN, IBS_GID_UNKNOWN },
		  1,
		  "an IPv4 address (GID type unknown)" },
		{ { "fe80::1", NULL, NULL, NULL }, { IBS_GID_IB_ROCE_V1 }, 0, "the first GID in the table" },
		/* 169.254/16 is link-local: below a global IPv6 address, above fe80::/10. */
		{ { "::ffff:169.254.3.4", "2001:db8::1", NULL, NULL },
		  { IBS_GID_ROCE_V2, IBS_GID_ROCE_V2 },
		  1,
		  "RoCE v2 with a global IPv6 address" },
		{ { "fe80::1", "::ffff:169.254.3.4", NULL, NULL },
		  { IBS_GID_ROCE_V2, IBS_GID_ROCE_V2 },
		  1,
		  "RoCE v2 with a link-local IPv4 address (169.254/16)" },
		{ { "::ffff:169.254.3.4", "::ffff:10.0.0.1", NULL, NULL },
		  { IBS_GID_UNKNOWN, IBS_GID_UNKNOWN },
		  1,
		  "an IPv4 address (GID type unknown)" },
		{ { "::ffff:169.254.3.4", NULL, NULL, NULL }, { IBS_GID_IB_ROCE_V1 }, 0, "the first GID in the table" },
		{ { "::", "::", NULL, NULL }, { IBS_GID_ROCE_V2, IBS_GID_ROCE_V2 }, -1, NULL },
	};
	size_t i, k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_ping_gid t[4];
		char *why = NULL;
		unsigned n = 0;
		memset(t, 0, sizeof(t));
		for (k = 0; k < 4 && cases[i].gids[k]; k++, n++)
			gid_entry(&t[k], (unsigned)k, cases[i].gids[k], cases[i].types[k], "");
		assert_int_equal(ibs_ping_choose_gid(t, n, NULL, NULL, &why), cases[i].want);
		if (cases[i].why)
			assert_string_equal(why, cases[i].why);
		else
			assert_null(why);
		free(why);
	}
}

/*
 * The setup connection decides: a host with an address on the port and one
 * on a VLAN of it uses the GID of the address its TCP connection went out
 * from, on the interface that holds it; an address the port has on another
 * interface is not it. Without a match, the listener follows the peer's
 * address family and type, else the rank decides, and says so.
 */
static void test_choose_gid_by_setup(void **state)
{
	struct ibs_ping_gid t[6], peer;
	struct ibs_ping_setup_end setup;
	char *why = NULL;

	(void)state;
	gid_entry(&t[0], 0, "fe80::e42:a1ff:fe5b:3c10", IBS_GID_IB_ROCE_V1, "ens1f0");
	gid_entry(&t[1], 1, "fe80::e42:a1ff:fe5b:3c10", IBS_GID_ROCE_V2, "ens1f0");
	gid_entry(&t[2], 2, "::ffff:192.168.10.5", IBS_GID_IB_ROCE_V1, "ens1f0");
	gid_entry(&t[3], 3, "::ffff:192.168.10.5", IBS_GID_ROCE_V2, "ens1f0");
	gid_entry(&t[4], 4, "::ffff:192.168.100.5", IBS_GID_IB_ROCE_V1, "ens1f0.100");
	gid_entry(&t[5], 5, "::ffff:192.168.100.5", IBS_GID_ROCE_V2, "ens1f0.100");
	setup_end(&setup, "::ffff:192.168.100.5", "192.168.100.5", "ens1f0.100");
	assert_int_equal(ibs_ping_choose_gid(t, 6, &setup, NULL, &why), 5);
	assert_string_equal(why, "the setup connection's address 192.168.100.5 on ens1f0.100, RoCE v2");
	free(why);
	/* The same address held by another interface: not this port's. */
	setup_end(&setup, "::ffff:192.168.100.5", "192.168.100.5", "eno1");
	assert_int_equal(ibs_ping_choose_gid(t, 6, &setup, NULL, &why), 3);
	assert_string_equal(why, "RoCE v2 with an IPv4 address; the setup connection's address 192.168.100.5 on eno1 is "
				 "on no GID of this port");
	free(why);
	/* The interface unknown (no getifaddrs entry): the address decides. */
	setup_end(&setup, "::ffff:192.168.10.5", "192.168.10.5", "");
	assert_int_equal(ibs_ping_choose_gid(t, 6, &setup, NULL, &why), 3);
	assert_string_equal(why, "the setup connection's address 192.168.10.5 on ens1f0, RoCE v2");
	free(why);
	/* A management network: the listener follows the peer's family, IPv6 here. */
	setup_end(&setup, "::ffff:10.0.0.1", "10.0.0.1", "eno1");
	gid_entry(&peer, 1, "fe80::1", IBS_GID_ROCE_V2, "");
	assert_int_equal(ibs_ping_choose_gid(t, 6, &setup, &peer, &why), 1);
	assert_string_equal(why, "RoCE v2, link-local, as the peer's GID; the setup connection's address 10.0.0.1 on "
				 "eno1 is on no GID of this port");
	free(why);
	/* ... and its RoCE version, where both ends know it. */
	gid_entry(&peer, 2, "::ffff:192.168.10.6", IBS_GID_IB_ROCE_V1, "");
	assert_int_equal(ibs_ping_choose_gid(t, 6, NULL, &peer, &why), 2);
	assert_string_equal(why, "RoCE v1 with an IPv4 address, as the peer's GID");
	free(why);
	peer.type = IBS_GID_UNKNOWN;
	assert_int_equal(ibs_ping_choose_gid(t, 6, NULL, &peer, &why), 3);
	free(why);
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
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair_then(&c, &s, move_v4_entry);
	check_pair(&c, &s);
	assert_int_equal(s.res.local.gid_index, 5);
	assert_int_equal(c.res.remote.gid_index, 5);
	side_free(&c);
	side_free(&s);

	fv_reset();
	roce_table();
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	s.o.gid_index = 3;
	run_pair_then(&c, &s, change_v4_entry);
	assert_int_equal(s.rc, IBS_E_INVAL);
	assert_int_equal(s.step, IBS_STEP_GID);
	has_text(s.err,
		 "the GID table changed: index 3 of fake0 port 1 now holds 0000:0000:0000:0000:0000:ffff:c0a8:0a63");
	has_text(s.err, "(0000:0000:0000:0000:0000:ffff:c0a8:0a05 when the listener started)");
	has_text(s.hint, "leave --gid-index out");
	assert_int_not_equal(c.rc, IBS_OK);
	side_free(&c);
	side_free(&s);
}

/* RoCE: the GID is chosen (RoCE v2 with IPv4) and the QP is addressed by it. */
static void test_roce_gid(void **state)
{
	struct side c, s;

	(void)state;
	roce_table();
	side_opts(&c, IBS_OP_SEND, false, 50, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
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
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.gid_index = 4;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_INVAL);
	side_finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has_text(c.err, "GID index 4 of fake0 port 1 is empty");
	has_text(c.hint, "'ibscan local' lists the GID table");
	side_free(&c);
	/* Past the table's end it is out of range, not empty. */
	fv_reset();
	roce_table();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.gid_index = FV_GIDS;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_INVAL);
	side_finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has_text(c.err, "--gid-index 8 is out of range: fake0 port 1 has 8 GID entries (0-7)");
	side_free(&c);
	/* No usable GID at all. */
	fv_reset();
	roce_ports();
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	side_finish(&c);
	assert_int_equal(c.step, IBS_STEP_GID);
	has_text(c.err, "no usable GID on fake0 port 1");
	side_free(&c);
}

/* Both sides over loopback TCP (127.0.0.1): the listener in a thread, through ibs_ping_serve and ibs_ping_client. */
/* The listener on addr (a loopback address), the client connecting to it over TCP. */
static void run_loopback_at(struct side *c, struct side *s, const char *addr)
{
	struct ping_listener l;
	pthread_t th;
	char *msg = NULL;
	unsigned port = 0;

	memset(&l, 0, sizeof(l));
	assert_int_equal(ibs_ping_open(&fake_verbs, &s->o, &l.p), IBS_OK);
	assert_int_equal(ibs_tcp_listen(addr, 0, &l.lfd, &port, &msg), IBS_OK);
	l.wait_ms = 10000;
	assert_int_equal(pthread_create(&th, NULL, ping_listen_main, &l), 0);
	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	if (c->rc == IBS_OK)
		c->rc = ibs_ping_client(c->p, addr, port, &c->res);
	side_finish(c);
	pthread_join(th, NULL);
	close(l.lfd);
	s->rc = l.rc;
	s->accepted = l.rc == IBS_OK;
	s->res = l.res;
	s->p = l.p;
	side_finish(s);
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
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_loopback(&c, &s);
	check_pair(&c, &s);
	assert_int_equal(c.res.local.gid_index, 5);
	assert_int_equal(s.res.local.gid_index, 5);
	assert_int_equal(fv.last_rtr.sgid_index, 5);
	assert_string_equal(c.res.gid_choice, "the setup connection's address 127.0.0.1 on lo, RoCE v2");
	assert_string_equal(s.res.gid_choice, "the setup connection's address 127.0.0.1 on lo, RoCE v2");
	assert_string_equal(c.res.setup_addr, "127.0.0.1");
	assert_string_equal(c.res.gid_netdev, "lo");
	buf = ping_render(&c.res, EMIT_TEXT);
	has_text(buf, "addressed by GID (the setup connection's address 127.0.0.1 on lo, RoCE v2)");
	free(buf);
	j = ping_render_json(&s.res);
	assert_string_equal(json_string_value(json_object_get(j, "gid_netdev")), "lo");
	assert_string_equal(json_string_value(json_object_get(j, "setup_address")), "127.0.0.1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "local"), "gid_index")), 5);
	json_decref(j);
	side_free(&c);
	side_free(&s);
	fv_reset();
	loopback_gids("eth9");
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
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
	side_opts(&c, IBS_OP_WRITE, false, 20, 64);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
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
		side_opts(&c, IBS_OP_SEND, false, 20, 64);
		side_opts(&s, IBS_OP_SEND, false, 0, 0);
		c.o.sysfs = s.o.sysfs = with_sysfs ? tree : empty;
		s.o.timeout_ms = 500;
		run_pair(&c, &s);
		if (!with_sysfs) {
			assert_int_equal(c.rc, IBS_E_STATUS);
			has_text(c.err, "completed with status RETRY_EXC_ERR");
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
		side_opts(&c, IBS_OP_SEND, false, 20, 64);
		side_opts(&s, IBS_OP_SEND, false, 0, 0);
		c.o.sysfs = s.o.sysfs = with_sysfs ? tree : empty;
		c.o.gid_index = 2;
		s.o.gid_index = 3;
		s.o.timeout_ms = 500;
		run_pair(&c, &s);
		if (with_sysfs) {
			assert_int_equal(c.step, IBS_STEP_EXCHANGE);
			has_text(c.err,
				 "refused the probe: this host uses a RoCE v2 GID (index 3) and the peer client a IB/RoCE "
				 "v1 GID (index 2)");
			has_text(s.hint, "the same RoCE version");
		} else {
			has_text(c.err, "completed with status RETRY_EXC_ERR");
		}
		side_free(&c);
		side_free(&s);
	}
	nftw(tree, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	rmdir(empty);
	free(tree);
	free(empty);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_gid),
		cmocka_unit_test(test_choose_gid_by_setup),
		cmocka_unit_test_setup(test_roce_gid, side_setup),
		cmocka_unit_test_setup(test_listener_gid_table_changed, side_setup),
		cmocka_unit_test_setup(test_setup_connection_gid, side_setup),
		cmocka_unit_test_setup(test_old_rdma_core, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_gid", tests, NULL, NULL);
}
