/*
 * Unit tests of the GID the probe uses (core/probe/gid.c,
 * ibs_ping_choose_gid): the best-ranked entry of a port's table, or the
 * one of the setup connection's local address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/probe/ping.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose_gid),
		cmocka_unit_test(test_choose_gid_by_setup),
	};
	return cmocka_run_group_tests_name("probe_gid", tests, NULL, NULL);
}
