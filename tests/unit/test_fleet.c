/* Unit tests of `ibscan fleet`: host views read back from `local --json` (untrusted), and the majority comparison. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/base/xalloc.h"
#include "../../host/fleet.h"
#include "../../host/hostcheck.h"
#include "../../host/hostinfo.h"
#include "../../host/hostjson.h"
#include "../../output/emit.h"
#include "../../output/hostinfo.h"

static struct ibs_host *load(const char *name)
{
	const char *root = getenv("IBSCAN_ROOT");
	char *path = xasprintf("%s/fixtures/sysfs/%s", root ? root : ".", name), *msg = NULL;
	struct ibs_host *h = NULL;

	assert_int_equal(ibs_host_load(path, &h, &msg), IBS_OK);
	free(path);
	return h;
}

static char *to_json(const struct ibs_host *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct emit *e = emit_new_stream(EMIT_JSON, f);

	render_local(e, h);
	assert_int_equal(emit_write(e, f), 0);
	emit_free(e);
	fclose(f);
	return buf;
}

static struct ibs_host *from_json(const char *text)
{
	struct ibs_host *h = NULL;
	char *msg = NULL;

	if (ibs_host_parse_json("h.json", text, strlen(text), &h, &msg) != IBS_OK)
		fail_msg("refused: %s", msg);
	return h;
}

/* Read back, every fixture machine checks the same as from sysfs: rails, GID index, findings. */
static void test_roundtrip(void **state)
{
	static const char *const trees[] = { "gpu-h100",	"gpu-gidmix", "gpu-container", "gpu-linklocal", "gpu-rocep",
					     "gpu-bond",	"gpu-degraded", "roce",	  "ib-ipoib",	    "sriov",
					     "dualport-down", "vm-vf",	"noactive" };
	size_t t, i;

	(void)state;
	for (t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		struct ibs_host *a = load(trees[t]);
		char *json = to_json(a), *again;
		struct ibs_host *b = from_json(json);
		struct ibs_host_profile *p = ibs_host_profile_new();
		struct ibs_hostcheck *ca = ibs_hostcheck_run(a, p), *cb = ibs_hostcheck_run(b, p);

		/* Written again, the document is the same: nothing lost on the way. */
		again = to_json(b);
		if (strcmp(json, again))
			fail_msg("%s: the view read back renders differently", trees[t]);
		assert_int_equal(ca->n_rails, cb->n_rails);
		assert_int_equal(ca->gid_index, cb->gid_index);
		assert_int_equal(ca->verdict, cb->verdict);
		assert_int_equal(ca->n_findings, cb->n_findings);
		for (i = 0; i < ca->n_findings; i++)
			assert_string_equal(ca->findings[i].msg, cb->findings[i].msg);
		ibs_hostcheck_free(ca);
		ibs_hostcheck_free(cb);
		ibs_host_profile_free(p);
		free(json);
		free(again);
		ibs_host_free(a);
		ibs_host_free(b);
	}
}

static void expect_bad(const char *text, const char *want)
{
	struct ibs_host *h = NULL;
	char *msg = NULL;

	if (ibs_host_parse_json("h.json", text, strlen(text), &h, &msg) != IBS_E_INPUT)
		fail_msg("accepted: %s", text);
	assert_null(h);
	if (!strstr(msg, want))
		fail_msg("'%s': got '%s', want '%s'", text, msg, want);
	free(msg);
}

static void test_hostile(void **state)
{
	struct strbuf_like {
		char *s;
	} big;
	size_t i, off;

	(void)state;
	expect_bad("{", "h.json:1: not valid JSON");
	expect_bad("[]", "not a host view");
	expect_bad("{\"schema\":\"ibscan.topology/1\",\"devices\":[]}", "want \"schema\": \"ibscan.local/1\"");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"schema\":\"ibscan.local/1\",\"devices\":[]}", "not valid JSON");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":{}}", "\"devices\" is not an array");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[7]}", "device 0: a device without a name");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"\",\"ports\":[]}]}", "a device without a name");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"a\\u0000b\",\"ports\":[]}]}",
		   "not valid JSON: \\u0000 is not allowed");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"ports\":[{\"port\":1,\"probe_gid_index\":3}]}]}",
		   "\"probe_gid_index\" names no GID of the port");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"fw_ver\":7,\"ports\":[]}]}",
		   "a device field of the wrong type");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"node_guid\":\"0x12\",\"ports\":[]}]}",
		   "a device field of the wrong type");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"pci\":{\"numa_node\":-2},\"ports\":[]}]}",
		   "a \"pci\" field of the wrong type");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\"}]}", "\"ports\" is not an array");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"ports\":[{\"port\":0}]}]}",
		   "a port without a number from 1 to 254");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"ports\":[{\"port\":1,\"rate_gbps\":\"fast\"}]}]}",
		   "a port field of the wrong type");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"ports\":[{\"port\":1,\"gids\":[{\"index\":0,"
		   "\"gid\":\"fe80:zz\"}]}]}]}",
		   "a GID without an index or a GID");
	expect_bad("{\"schema\":\"ibscan.local/1\",\"devices\":[{\"name\":\"m\",\"ports\":[{\"port\":1,\"gids\":["
		   "{\"index\":3,\"gid\":\"fe80:0000:0000:0000:0000:0000:0000:0001\"},"
		   "{\"index\":3,\"gid\":\"fe80:0000:0000:0000:0000:0000:0000:0001\"}]}]}]}",
		   "GIDs not in ascending index order");
	/* More devices than any host has. */
	big.s = xmalloc(1100 * 40 + 100);
	off = (size_t)sprintf(big.s, "{\"schema\":\"ibscan.local/1\",\"devices\":[");
	for (i = 0; i < 1100; i++)
		off += (size_t)sprintf(big.s + off, "%s{\"name\":\"d%zu\",\"ports\":[]}", i ? "," : "", i);
	strcpy(big.s + off, "]}");
	expect_bad(big.s, "\"devices\" is not an array of at most 1024 devices");
	free(big.s);
}

/* Five hosts alike and one that differs: only that one is listed, under what differs. */
static void test_majority(void **state)
{
	struct ibs_fleet *f = ibs_fleet_new();
	struct ibs_host_profile *p = ibs_host_profile_new();
	char name[16];
	size_t i;

	(void)state;
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "d/n%zu.json", i);
		ibs_fleet_add(f, name, load("gpu-h100"), NULL);
	}
	ibs_fleet_add(f, "odd", load("gpu-gidmix"), NULL);
	ibs_fleet_add(f, "gone.json", NULL, "gone.json: No such file");
	ibs_fleet_compare(f, p);
	assert_string_equal(f->hosts[0].name, "n0");
	assert_int_equal(f->n_hosts, 7);
	assert_int_equal(f->n_unreadable, 1);
	assert_int_equal(f->n_differ, 1);
	assert_true(f->hosts[5].differs);
	assert_false(f->hosts[0].differs);
	assert_string_equal(f->props[FP_GID_INDEX].majority, "3");
	assert_int_equal(f->props[FP_GID_INDEX].n_majority, 5);
	assert_string_equal(f->hosts[5].value[FP_GID_INDEX], "none shared");
	assert_int_equal(f->props[FP_LINK_LAYER].n_odd, 0);
	assert_int_equal(f->props[FP_RAILS].n_odd, 1);
	assert_string_equal(f->props[FP_RATES].majority, "400x8,200x2");
	assert_int_equal(f->verdict, IBS_HC_UNKNOWN); /* an unreadable host file */
	ibs_fleet_free(f);
	/* Without the unreadable one: CRITICAL (the GID index and the rails differ). */
	f = ibs_fleet_new();
	for (i = 0; i < 3; i++)
		ibs_fleet_add(f, "n", load("gpu-h100"), NULL);
	ibs_fleet_compare(f, p);
	assert_int_equal(f->n_differ, 0);
	assert_int_equal(f->verdict, IBS_HC_WARNING); /* each host's own check: storage ports below the rails' rate */
	ibs_fleet_free(f);
	ibs_host_profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_majority),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
