/* Unit tests of `ibscan local --check`: the profile parser (untrusted input) and the checks on fixture machines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/base/xalloc.h"
#include "../../host/hostcheck.h"
#include "../../host/hostinfo.h"

static struct ibs_host *load(const char *name)
{
	const char *root = getenv("IBSCAN_ROOT");
	char *path = xasprintf("%s/fixtures/sysfs/%s", root ? root : ".", name), *msg = NULL;
	struct ibs_host *h = NULL;

	assert_int_equal(ibs_host_load(path, &h, &msg), IBS_OK);
	free(path);
	return h;
}

static struct ibs_host_profile *parse_ok(const char *text)
{
	struct ibs_host_profile *p = NULL;
	char *msg = NULL;

	if (ibs_host_profile_parse("p", text, strlen(text), &p, &msg) != IBS_OK)
		fail_msg("profile refused: %s", msg);
	return p;
}

/* The message of a refused profile (the caller frees). */
static char *parse_bad(const char *text, size_t len)
{
	struct ibs_host_profile *p = NULL;
	char *msg = NULL;

	assert_int_equal(ibs_host_profile_parse("p", text, len, &p, &msg), IBS_E_INPUT);
	assert_null(p);
	assert_non_null(msg);
	return msg;
}

static void expect_bad(const char *text, const char *want)
{
	char *msg = parse_bad(text, strlen(text));
	if (!strstr(msg, want))
		fail_msg("'%s': got '%s', want '%s'", text, msg, want);
	free(msg);
}

static void test_profile_parse(void **state)
{
	struct ibs_host_profile *p;

	(void)state;
	p = parse_ok("# comment\n\nrails mlx5_0 mlx5_[3-9]  # trailing\nstorage mlx5_1 mlx5_2\r\nports 8\n"
		     "min-rate 400\nlink-layer Ethernet\ngid-index 3\nfirmware 28.39.1002\nsocket-ifname =eno1\n"
		     "pcie no\nnuma off\nignore mlx5_10:2");
	assert_int_equal(p->n_rails, 2);
	assert_string_equal(p->rails[1], "mlx5_[3-9]");
	assert_int_equal(p->n_storage, 2);
	assert_string_equal(p->storage[1], "mlx5_2"); /* the \r of a CRLF file is not part of the name */
	assert_int_equal(p->ports, 8);
	assert_true(p->min_rate == 400);
	assert_string_equal(p->link_layer, "Ethernet");
	assert_int_equal(p->gid_index, 3);
	assert_string_equal(p->firmware, "28.39.1002");
	assert_string_equal(p->socket_ifname, "=eno1");
	assert_false(p->pcie);
	assert_false(p->numa);
	assert_string_equal(p->ignore[0], "mlx5_10:2");
	ibs_host_profile_free(p);
	p = parse_ok("");
	assert_int_equal(p->ports, -1);
	assert_int_equal(p->gid_index, -1);
	assert_true(p->pcie && p->numa);
	ibs_host_profile_free(p);
}

static void test_profile_errors(void **state)
{
	char *big, *msg;
	size_t i;

	(void)state;
	/* Each error names the file and the line. */
	expect_bad("rails mlx5_0\nbogus 1\n", "p:2: unknown key 'bogus'");
	expect_bad("ports 8\nports 9\n", "p:2: 'ports' given twice");
	expect_bad("ports\n", "p:1: 'ports' wants a value");
	expect_bad("ports 0\n", "p:1: ports wants a number from 1 to 1024, not '0'");
	expect_bad("ports -3\n", "not '-3'");
	expect_bad("ports 8x\n", "not '8x'");
	expect_bad("gid-index 65536\n", "gid-index wants a number from 0 to 65535");
	expect_bad("min-rate fast\n", "p:1: min-rate wants Gb/s");
	expect_bad("min-rate nan\n", "min-rate wants Gb/s");
	expect_bad("link-layer IB\n", "link-layer is InfiniBand or Ethernet, not 'IB'");
	expect_bad("pcie maybe\n", "pcie is yes or no");
	expect_bad("ports 8 9\n", "'ports' takes one value, not 2");
	expect_bad("\n\nrails mlx5_\x01\n", "p:3: a control or non-ASCII byte (0x01)");
	expect_bad("rails m\xc3\xa9\n", "non-ASCII byte (0xc3)");
	msg = parse_bad("rails a\0b\n", 10);
	assert_non_null(strstr(msg, "p:1: a control or non-ASCII byte (0x00)"));
	free(msg);
	/* Bounds: a line, a list, the file. */
	big = xmalloc(IBS_PROFILE_MAX_BYTES + 2);
	memset(big, 'a', IBS_PROFILE_MAX_LINE + 1);
	big[IBS_PROFILE_MAX_LINE + 1] = '\0';
	msg = parse_bad(big, strlen(big));
	assert_non_null(strstr(msg, "p:1: line longer than 1024 bytes"));
	free(msg);
	strcpy(big, "rails");
	for (i = 0; i <= IBS_PROFILE_MAX_NAMES; i++)
		strcat(big, " d");
	msg = parse_bad(big, strlen(big));
	assert_non_null(strstr(msg, "p:1: more than 256 names"));
	free(msg);
	memset(big, '\n', IBS_PROFILE_MAX_BYTES + 1);
	msg = parse_bad(big, IBS_PROFILE_MAX_BYTES + 1);
	assert_non_null(strstr(msg, "more than 65536 bytes"));
	free(msg);
	free(big);
	memset(big = xmalloc(80), 'x', 79);
	memcpy(big, "rails ", 6);
	big[79] = '\0';
	msg = parse_bad(big, strlen(big));
	assert_non_null(strstr(msg, "is not a device pattern"));
	free(msg);
	free(big);
}

static const struct ibs_hc_finding *find(const struct ibs_hostcheck *hc, const char *check, const char *dev)
{
	size_t i;

	for (i = 0; i < hc->n_findings; i++)
		if (!strcmp(hc->findings[i].check, check) && (!dev || (hc->findings[i].dev && !strcmp(hc->findings[i].dev, dev))))
			return &hc->findings[i];
	return NULL;
}

/* The H100 server with its profile: 8 rails, storage left out, OK; without it the storage ports are rails too. */
static void test_h100(void **state)
{
	struct ibs_host *h = load("gpu-h100");
	struct ibs_host_profile *p = parse_ok("rails mlx5_0 mlx5_[3-9]\nstorage mlx5_1 mlx5_2\nports 8\nmin-rate 400\n"
					      "link-layer Ethernet\ngid-index 3\n");
	struct ibs_hostcheck *hc = ibs_hostcheck_run(h, p);
	size_t i;

	(void)state;
	assert_int_equal(hc->verdict, IBS_HC_OK);
	assert_int_equal(hc->n_rails, 8);
	assert_int_equal(hc->n_active, 8);
	assert_int_equal(hc->gid_index, 3);
	for (i = 0; i < hc->n_rails; i++)
		assert_true(strcmp(hc->rails[i].dev->name, "mlx5_1") && strcmp(hc->rails[i].dev->name, "mlx5_2"));
	ibs_hostcheck_free(hc);
	ibs_host_profile_free(p);
	/* A profile that asks for more than the host has. */
	p = parse_ok("rails mlx5_0 mlx5_[3-9] mlx5_12\nports 9\nmin-rate 800\ngid-index 2\nfirmware 28.40.1000\n");
	hc = ibs_hostcheck_run(h, p);
	assert_int_equal(hc->verdict, IBS_HC_CRITICAL);
	assert_non_null(find(hc, "rail.missing", NULL));
	assert_non_null(strstr(find(hc, "rail.count", NULL)->msg, "8 of 9 rail ports Active"));
	assert_non_null(find(hc, "port.rate", "mlx5_0"));
	assert_non_null(find(hc, "firmware", "mlx5_9"));
	/* Index 2 holds the v1 entry of the IPv4 address: not what NCCL wants. */
	assert_non_null(strstr(find(hc, "gid.index", "mlx5_0")->msg, "at index 3, the profile says 2"));
	assert_int_equal(hc->gid_index, -1);
	assert_non_null(hc->gid_refusal);
	ibs_hostcheck_free(hc);
	ibs_host_profile_free(p);
	/* No profile: every Active port is a rail, held to the fastest rail's rate. */
	p = ibs_host_profile_new();
	hc = ibs_hostcheck_run(h, p);
	assert_int_equal(hc->n_rails, 10);
	assert_int_equal(hc->verdict, IBS_HC_WARNING);
	assert_non_null(find(hc, "port.rate", "mlx5_1"));
	assert_non_null(find(hc, "port.rate", "mlx5_2"));
	assert_int_equal(hc->counts[IBS_HC_WARNING], 2);
	ibs_hostcheck_free(hc);
	ibs_host_profile_free(p);
	ibs_host_free(h);
}

/* Each defect of gpu-degraded is found, with its severity; the cable-out rail is CRITICAL once named. */
static void test_degraded(void **state)
{
	struct ibs_host *h = load("gpu-degraded");
	struct ibs_host_profile *p = parse_ok("rails mlx5_[0-3]\n");
	struct ibs_hostcheck *hc = ibs_hostcheck_run(h, p);
	const struct ibs_hc_finding *f;

	(void)state;
	assert_int_equal(hc->verdict, IBS_HC_CRITICAL);
	assert_int_equal(hc->n_rails, 4);
	assert_int_equal(hc->n_active, 3);
	f = find(hc, "port.state", "mlx5_2");
	assert_non_null(f);
	assert_int_equal(f->sev, IBS_HC_CRITICAL);
	assert_string_equal(f->msg, "mlx5_2 port 1 is DOWN (Polling), not ACTIVE (LinkUp)");
	assert_non_null(strstr(find(hc, "rail.count", NULL)->msg, "3 of 4 rail ports Active"));
	f = find(hc, "port.rate", "mlx5_3");
	assert_int_equal(f->sev, IBS_HC_WARNING);
	assert_non_null(strstr(f->msg, "100 Gb/s, below 200"));
	f = find(hc, "pcie.degraded", "mlx5_1");
	assert_non_null(f);
	assert_string_equal(f->msg, "mlx5_1: PCIe link x16 at 16 GT/s, the device can x16 at 32 GT/s");
	assert_null(find(hc, "pcie.degraded", "mlx5_0"));
	assert_non_null(find(hc, "numa.unknown", "mlx5_0"));
	assert_null(find(hc, "numa.unknown", "mlx5_1"));
	assert_non_null(strstr(find(hc, "firmware", "mlx5_3")->msg, "28.38.1002, the other rails 28.39.1002"));
	/* The VF is not a rail here, but its zero GUIDs are still found. */
	f = find(hc, "vf.guid", "mlx5_4");
	assert_non_null(f);
	assert_int_equal(f->sev, IBS_HC_CRITICAL);
	assert_int_equal(f->port, 0);
	assert_int_equal(hc->findings[f - hc->findings + 1].port, 1);
	assert_string_equal(hc->findings[f - hc->findings + 1].check, "vf.guid");
	ibs_hostcheck_free(hc);
	ibs_host_profile_free(p);
	/* pcie no, numa no, and the VF ignored: only the port findings remain. */
	p = parse_ok("rails mlx5_[0-3]\npcie no\nnuma no\nignore mlx5_4\n");
	hc = ibs_hostcheck_run(h, p);
	assert_null(find(hc, "pcie.degraded", NULL));
	assert_null(find(hc, "numa.unknown", NULL));
	assert_null(find(hc, "vf.guid", NULL));
	assert_non_null(find(hc, "port.state", "mlx5_2"));
	ibs_hostcheck_free(hc);
	ibs_host_profile_free(p);
	ibs_host_free(h);
}

/* The GID index NCCL needs: one shared index, or a refusal naming the device that differs. */
static void test_gid_index(void **state)
{
	static const struct {
		const char *tree;
		int index;
		const char *refusal;
	} cases[] = {
		{ "gpu-h100", 3, NULL },
		{ "gpu-container", 7, NULL },
		{ "gpu-rocep", 3, NULL },
		{ "gpu-bond", 3, NULL },
		{ "roce", 3, NULL },
		{ "gpu-gidmix", -1, "mlx5_2 port 1 has its RoCE v2 IPv4 GID at index 5, the other rails at 3" },
		{ "gpu-linklocal", -1, "mlx5_0 port 1 has no RoCE v2 GID with an IPv4 address" },
		{ "ib-ipoib", -1, NULL }, /* InfiniBand: no GID index to give */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_host *h = load(cases[i].tree);
		struct ibs_host_profile *p = ibs_host_profile_new();
		struct ibs_hostcheck *hc = ibs_hostcheck_run(h, p);
		if (hc->gid_index != cases[i].index)
			fail_msg("%s: GID index %d, want %d", cases[i].tree, hc->gid_index, cases[i].index);
		if (cases[i].refusal ? !hc->gid_refusal || !strstr(hc->gid_refusal, cases[i].refusal) : hc->gid_refusal != NULL)
			fail_msg("%s: refusal '%s'", cases[i].tree, hc->gid_refusal ? hc->gid_refusal : "(none)");
		ibs_hostcheck_free(hc);
		ibs_host_profile_free(p);
		ibs_host_free(h);
	}
}

/* The host's own facts the checks stand on: NUMA nodes, PCIe link, port GUID, ibdev2netdev's netdev. */
static void test_host_facts(void **state)
{
	struct ibs_host *h = load("gpu-degraded");

	(void)state;
	assert_int_equal(h->n_numa_nodes, 2);
	assert_int_equal(h->devs[0].numa_node, -1);
	assert_int_equal(h->devs[1].numa_node, 0);
	assert_int_equal(h->devs[1].pcie_width, 16);
	assert_true(h->devs[1].pcie_speed == 16.0 && h->devs[1].pcie_max_speed == 32.0);
	assert_true(h->devs[0].ports[0].has_port_guid);
	assert_true(h->devs[0].ports[0].port_guid == 0x946dae0300002000ULL);
	assert_true(h->devs[4].ports[0].has_port_guid && h->devs[4].ports[0].port_guid == 0);
	assert_string_equal(h->devs[3].ports[0].netdev, "ib3");
	ibs_host_free(h);
	h = load("gpu-bond");
	assert_int_equal(h->n_numa_nodes, 0);
	assert_string_equal(h->devs[0].ports[0].netdev, "bond0");
	ibs_host_free(h);
	h = load("gpu-container");
	assert_false(h->devs[0].ports[0].has_port_guid); /* GID 0 is not the pod's */
	assert_string_equal(h->devs[0].ports[0].netdev, "net1");
	assert_int_equal(h->devs[0].pcie_width, -1);
	ibs_host_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_parse),
		cmocka_unit_test(test_profile_errors),
		cmocka_unit_test(test_h100),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_gid_index),
		cmocka_unit_test(test_host_facts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
