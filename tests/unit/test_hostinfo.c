/* Unit tests of the host view: sysfs parsers, the fixture machines, hostile trees, text and JSON rendering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../core/base/log.h"
#include "../../core/base/xalloc.h"
#include "../../host/hostinfo.h"
#include "../../output/hostinfo.h"

static char *fixture(const char *name)
{
	const char *root = getenv("IBSCAN_ROOT");
	return xasprintf("%s/fixtures/sysfs/%s", root ? root : ".", name);
}

static struct ibs_host *load(const char *name)
{
	char *path = fixture(name), *msg = NULL;
	struct ibs_host *h = NULL;

	assert_int_equal(ibs_host_load(path, &h, &msg), IBS_OK);
	assert_null(msg);
	assert_non_null(h);
	free(path);
	return h;
}

static char *render(const struct ibs_host *h, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct emit *e = emit_new(json ? EMIT_JSON : EMIT_TEXT);

	render_local(e, h);
	assert_int_equal(emit_write(e, m), 0);
	emit_free(e);
	fclose(m);
	return buf;
}

static void test_parse_guid_gid(void **state)
{
	uint64_t g;
	uint8_t gid[16];

	(void)state;
	assert_true(ibs_sysfs_parse_guid("b859:9f03:00d4:c3a8", &g));
	assert_true(g == 0xb8599f0300d4c3a8ull);
	assert_true(ibs_sysfs_parse_guid("0:0:0:1", &g));
	assert_true(g == 1);
	assert_false(ibs_sysfs_parse_guid("b859:9f03:00d4", &g));
	assert_false(ibs_sysfs_parse_guid("b859:9f03:00d4:c3a8:", &g));
	assert_false(ibs_sysfs_parse_guid("b8599:9f03:00d4:c3a8", &g));
	assert_false(ibs_sysfs_parse_guid("xyz0:9f03:00d4:c3a8", &g));
	assert_false(ibs_sysfs_parse_guid("", &g));
	assert_true(ibs_sysfs_parse_gid("fe80:0000:0000:0000:b859:9f03:00d4:c3a8", gid));
	assert_int_equal(gid[0], 0xfe);
	assert_int_equal(gid[15], 0xa8);
	assert_true(ibs_sysfs_parse_gid("0000:0000:0000:0000:0000:ffff:c0a8:0a05", gid));
	assert_true(ibs_gid_is_v4mapped(gid));
	assert_false(ibs_sysfs_parse_gid("fe80:0000:0000:0000:b859:9f03:00d4", gid));
	assert_false(ibs_sysfs_parse_gid("fe80:0000:0000:0000:b859:9f03:00d4:c3a8:0000:0000:0000:0000:0000", gid));
	assert_false(ibs_sysfs_parse_gid("garbage", gid));
}

static void test_parse_enum_uint(void **state)
{
	char *name = NULL;
	uint64_t v;
	int n;

	(void)state;
	assert_true(ibs_sysfs_parse_enum("4: ACTIVE", &n, &name));
	assert_int_equal(n, 4);
	assert_string_equal(name, "ACTIVE");
	free(name);
	assert_true(ibs_sysfs_parse_enum("5: LinkUp", &n, &name));
	assert_string_equal(name, "LinkUp");
	free(name);
	assert_false(ibs_sysfs_parse_enum("ACTIVE", &n, &name));
	assert_false(ibs_sysfs_parse_enum("4:", &n, &name));
	assert_false(ibs_sysfs_parse_enum("4 ACTIVE", &n, &name));
	assert_false(ibs_sysfs_parse_enum("99999999999: X", &n, &name));
	assert_true(ibs_sysfs_parse_uint("0x5", 0xffff, &v));
	assert_int_equal(v, 5);
	assert_true(ibs_sysfs_parse_uint("0xffff", 0xffff, &v));
	assert_true(ibs_sysfs_parse_uint("12", 0xffff, &v));
	assert_int_equal(v, 12);
	assert_false(ibs_sysfs_parse_uint("0x10000", 0xffff, &v));
	assert_false(ibs_sysfs_parse_uint("0x", 0xffff, &v));
	assert_false(ibs_sysfs_parse_uint("-1", 0xffff, &v));
	assert_false(ibs_sysfs_parse_uint("1a", 0xffff, &v));
	assert_false(ibs_sysfs_parse_uint("99999999999999999999999", UINT64_MAX, &v));
}

static void test_parse_rate(void **state)
{
	static const struct {
		const char *s;
		double gbps;
		unsigned width;
		const char *speed;
	} ok[] = {
		{ "100 Gb/sec (4X EDR)", 100, 4, "EDR" }, { "2.5 Gb/sec (1X SDR)", 2.5, 1, "SDR" },
		{ "56 Gb/sec (4X FDR)", 56, 4, "FDR" },	  { "40 Gb/sec (4X FDR10)", 40, 4, "FDR10" },
		{ "400 Gb/sec (4X NDR)", 400, 4, "NDR" }, { "10 Gb/sec (4X)", 10, 4, NULL },
		{ "300 Gb/sec (12X EDR)", 300, 12, "EDR" },
	};
	static const char *const bad[] = { "", "100", "100 Gb/sec", "100 Gb/sec (4X EDR", "100 Gb/sec (X EDR)",
					   "100 Gb/sec (4 EDR)", "1e3 Gb/sec (4X EDR)", "-1 Gb/sec (4X EDR)",
					   "100 Gb/sec (4X EDR) trailing", "100. Gb/sec (4X EDR)",
					   "100 Gb/sec (4X ABCDEFGHIJKLMNOPQRSTUVWXYZ)", "nan Gb/sec (4X EDR)" };
	double g;
	unsigned w;
	char *sp;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		sp = NULL;
		assert_true(ibs_sysfs_parse_rate(ok[i].s, &g, &w, &sp));
		assert_true(g == ok[i].gbps);
		assert_int_equal(w, ok[i].width);
		if (ok[i].speed)
			assert_string_equal(sp, ok[i].speed);
		else
			assert_null(sp);
		free(sp);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sp = NULL;
		assert_false(ibs_sysfs_parse_rate(bad[i], &g, &w, &sp));
		assert_null(sp);
	}
}

/* An InfiniBand HCA with IPoIB. */
static void test_ib_ipoib(void **state)
{
	struct ibs_host *h = load("ib-ipoib");
	const struct ibs_host_dev *d;
	const struct ibs_host_port *p;
	char gid[48];

	(void)state;
	assert_int_equal(h->n_devs, 1);
	d = &h->devs[0];
	assert_string_equal(d->name, "mlx5_0");
	assert_true(d->has_node_guid && d->node_guid == 0xb8599f0300d4c3a8ull);
	assert_true(d->has_sys_guid && d->sys_image_guid == 0xb8599f0300d4c3a8ull);
	assert_string_equal(d->fw_ver, "16.35.2000");
	assert_string_equal(d->board_id, "MT_0000000010");
	assert_string_equal(d->node_type, "CA");
	assert_string_equal(d->pci, "0000:3b:00.0");
	assert_int_equal(d->vendor_id, 0x15b3);
	assert_int_equal(d->device_id, 0x1017);
	assert_int_equal(d->sriov, IBS_SRIOV_NONE);
	assert_int_equal(d->n_ports, 1);
	p = &d->ports[0];
	assert_int_equal(p->num, 1);
	assert_int_equal(p->state_num, 4);
	assert_string_equal(p->state, "ACTIVE");
	assert_string_equal(p->phys_state, "LinkUp");
	assert_string_equal(p->rate, "100 Gb/sec (4X EDR)");
	assert_true(p->rate_gbps == 100);
	assert_string_equal(p->width, "4x");
	assert_string_equal(p->speed, "EDR");
	assert_int_equal(p->lid, 5);
	assert_int_equal(p->sm_lid, 1);
	assert_int_equal(p->lmc, 0);
	assert_string_equal(p->link_layer, "InfiniBand");
	/* Seven of the eight entries are all zeros: skipped like show_gids does. */
	assert_int_equal(p->n_gids, 1);
	ibs_gid_str(p->gids[0].gid, gid, sizeof(gid));
	assert_string_equal(gid, "fe80:0000:0000:0000:b859:9f03:00d4:c3a8");
	assert_string_equal(p->gids[0].type, "IB/RoCE v1");
	assert_null(p->gids[0].netdev);
	assert_int_equal(p->probe_gid, -1);
	assert_int_equal(p->n_ipoib, 1);
	assert_string_equal(p->ipoib[0].name, "ib0");
	assert_string_equal(p->ipoib[0].operstate, "up");
	ibs_host_free(h);
}

/* A RoCE NIC: v1 and v2 GIDs with netdevs, IPv4-mapped ones decoded, the probe's choice. */
static void test_roce(void **state)
{
	struct ibs_host *h = load("roce");
	const struct ibs_host_dev *d = &h->devs[0];
	const struct ibs_host_port *p = &d->ports[0];
	static const char *const types[] = { "IB/RoCE v1", "RoCE v2" };
	char v4[16];
	size_t i;

	(void)state;
	assert_string_equal(p->link_layer, "Ethernet");
	assert_int_equal(p->n_gids, 6);
	assert_int_equal(p->n_ipoib, 0);
	for (i = 0; i < p->n_gids; i++) {
		assert_int_equal(p->gids[i].index, i);
		assert_string_equal(p->gids[i].type, types[i % 2]);
		assert_string_equal(p->gids[i].netdev, i < 4 ? "ens1f0" : "ens1f0.100");
	}
	assert_false(ibs_gid_ipv4(p->gids[0].gid, v4, sizeof(v4)));
	assert_true(ibs_gid_ipv4(p->gids[3].gid, v4, sizeof(v4)));
	assert_string_equal(v4, "192.168.10.5");
	assert_true(ibs_gid_ipv4(p->gids[4].gid, v4, sizeof(v4)));
	assert_string_equal(v4, "10.10.0.5");
	/* RoCE v2 with an IPv4 address, the lowest such index. */
	assert_int_equal(p->probe_gid, 3);
	assert_int_equal(d->sriov, IBS_SRIOV_PF);
	assert_int_equal(d->sriov_totalvfs, 8);
	assert_int_equal(d->sriov_numvfs, 0);
	assert_string_equal(p->width, "1x");
	ibs_host_free(h);
}

/* Two ports on one PCI function, port 2 down; IPoIB mapped by dev_port. */
static void test_dualport_down(void **state)
{
	struct ibs_host *h = load("dualport-down");
	const struct ibs_host_dev *d = &h->devs[0];

	(void)state;
	assert_string_equal(d->name, "mlx4_0");
	assert_int_equal(d->n_ports, 2);
	assert_string_equal(d->ports[0].state, "ACTIVE");
	assert_int_equal(d->ports[0].lid, 0x11);
	assert_string_equal(d->ports[1].state, "DOWN");
	assert_int_equal(d->ports[1].state_num, 1);
	assert_string_equal(d->ports[1].phys_state, "Polling");
	assert_int_equal(d->ports[1].lid, 0);
	assert_int_equal(d->ports[0].n_ipoib, 1);
	assert_string_equal(d->ports[0].ipoib[0].name, "ib0");
	assert_int_equal(d->ports[1].n_ipoib, 1);
	assert_string_equal(d->ports[1].ipoib[0].name, "ib1");
	assert_string_equal(d->ports[1].ipoib[0].operstate, "down");
	assert_true(d->sys_image_guid == 0x0002c9030010a1b3ull);
	ibs_host_free(h);
}

/* The link is up but no subnet manager configured the port. */
static void test_noactive(void **state)
{
	struct ibs_host *h = load("noactive");
	const struct ibs_host_port *p = &h->devs[0].ports[0];
	char *text;

	(void)state;
	assert_int_equal(p->state_num, 2);
	assert_string_equal(p->state, "INIT");
	assert_string_equal(p->phys_state, "LinkUp");
	assert_int_equal(p->lid, 0xffff);
	assert_int_equal(p->sm_lid, 0);
	text = render(h, false);
	assert_non_null(strstr(text, "port 1: INIT (LinkUp), InfiniBand, 200 Gb/sec (4X HDR)"));
	assert_non_null(strstr(text, "LID 65535, SM LID 0"));
	free(text);
	ibs_host_free(h);
}

/* SR-IOV as the hypervisor sees it: a PF with VFs enabled, and a VF with its physfn link. */
static void test_sriov(void **state)
{
	struct ibs_host *h = load("sriov");
	const struct ibs_host_dev *pf, *vf;

	(void)state;
	assert_int_equal(h->n_devs, 2);
	pf = &h->devs[0];
	vf = &h->devs[1];
	assert_string_equal(pf->name, "mlx5_0");
	assert_int_equal(pf->sriov, IBS_SRIOV_PF);
	assert_int_equal(pf->sriov_numvfs, 2);
	assert_int_equal(pf->sriov_totalvfs, 8);
	assert_string_equal(vf->name, "mlx5_2");
	assert_string_equal(vf->pci, "0000:3b:00.1");
	assert_int_equal(vf->sriov, IBS_SRIOV_VF);
	assert_false(vf->vf_by_id);
	assert_string_equal(vf->physfn, "0000:3b:00.0");
	assert_int_equal(vf->sriov_totalvfs, -1);
	/* ib0 sits on the PF's PCI function, not on the VF's. */
	assert_int_equal(pf->ports[0].n_ipoib, 1);
	assert_int_equal(vf->ports[0].n_ipoib, 0);
	ibs_host_free(h);
}

/* Inside a VM: a VF passed through has no physfn link; its device ID says what it is. */
static void test_vm_vf(void **state)
{
	struct ibs_host *h = load("vm-vf");
	const struct ibs_host_dev *d = &h->devs[0];
	char *text;

	(void)state;
	assert_int_equal(d->sriov, IBS_SRIOV_VF);
	assert_true(d->vf_by_id);
	assert_null(d->physfn);
	assert_string_equal(d->pci, "0000:00:05.0");
	text = render(h, false);
	assert_non_null(strstr(text, "SR-IOV virtual function (known by its device ID"));
	free(text);
	ibs_host_free(h);
}

static void test_empty_and_missing(void **state)
{
	char *path = fixture("empty"), *msg = NULL, *want;
	struct ibs_host *h = NULL;

	(void)state;
	assert_int_equal(ibs_host_load(path, &h, &msg), IBS_E_NODEV);
	assert_null(h);
	want = xasprintf("no RDMA device found under %s/class/infiniband", path);
	assert_string_equal(msg, want);
	free(want);
	free(msg);
	msg = NULL;
	free(path);
	assert_int_equal(ibs_host_load("/nonexistent/sysfs", &h, &msg), IBS_E_IO);
	assert_non_null(strstr(msg, "cannot read sysfs root '/nonexistent/sysfs': No such file or directory"));
	free(msg);
}

static void put(const char *dir, const char *rel, const char *data, size_t len)
{
	char *p = xasprintf("%s/%s", dir, rel), *d = xstrdup(p), *s;
	FILE *f;

	for (s = d + strlen(dir) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(d, 0755);
		*s = '/';
	}
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(d);
	free(p);
}

#define PUTS(dir, rel, s) put(dir, rel, s, strlen(s))

/*
 * A hostile tree: an oversized attribute, a FIFO where a file should be
 * (must not hang), control bytes, odd entry names, a symlink loop, a
 * malformed GID and rate, a regular file posing as a device. Everything
 * odd reads as unknown; nothing crashes or blocks.
 */
static void test_hostile_tree(void **state)
{
	char tmpl[] = "/tmp/ibscan-sysfs.XXXXXX";
	char *dir = mkdtemp(tmpl), *big, *p, *msg = NULL, *json;
	const char *dev = "class/infiniband/evil0";
	struct ibs_host *h = NULL;
	const struct ibs_host_dev *d;
	const struct ibs_host_port *pt;
	json_error_t jerr;
	json_t *j;
	time_t t0;

	(void)state;
	assert_non_null(dir);
	big = xmalloc(IBS_SYSFS_ATTR_MAX + 100);
	memset(big, 'A', IBS_SYSFS_ATTR_MAX + 100);
	p = xasprintf("%s/node_desc", dev);
	put(dir, p, big, IBS_SYSFS_ATTR_MAX + 100);
	free(p);
	free(big);
	PUTS(dir, "class/infiniband/evil0/board_id", "MT_\x01\x1b[31mred\xff\n");
	put(dir, "class/infiniband/evil0/hca_type", "MT\0NUL", 6);
	PUTS(dir, "class/infiniband/evil0/node_type", "1: CA\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/state", "4: ACTIVE\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/rate", "fast\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/lid", "0x10000\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/gids/0", "fe80::1\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/gids/1", "not a gid\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/gids/01", "fe80::2\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/gids/abc", "fe80::3\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/gids/99999999", "fe80::4\n");
	PUTS(dir, "class/infiniband/evil0/ports/1/gid_attrs/types/0", "RoCE v2\n");
	PUTS(dir, "class/infiniband/evil0/ports/0x2/state", "4: ACTIVE\n");
	PUTS(dir, "class/infiniband/notadir", "x");
	p = xasprintf("%s/%s/node_guid", dir, dev);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	p = xasprintf("%s/%s/device", dir, dev);
	assert_int_equal(symlink("device", p), 0);
	free(p);
	p = xasprintf("%s/%s/ports/1/link_layer", dir, dev);
	assert_int_equal(symlink("/dev/zero", p), 0);
	free(p);

	t0 = time(NULL);
	assert_int_equal(ibs_host_load(dir, &h, &msg), IBS_OK);
	assert_true(time(NULL) - t0 < 5);
	assert_int_equal(h->n_devs, 1);
	d = &h->devs[0];
	assert_string_equal(d->name, "evil0");
	assert_false(d->has_node_guid);    /* a FIFO */
	assert_null(d->node_desc);         /* too long */
	assert_null(d->fw_ver);            /* absent */
	assert_null(d->hca_type);          /* a NUL byte */
	/* Cleaned as every string is (core/base/text.h): escaped visibly, never passed on. */
	assert_string_equal(d->board_id, "MT_\\x01\\x1b[31mred\\xff");
	assert_null(d->pci);               /* a symlink loop */
	assert_int_equal(d->n_ports, 1);   /* "0x2" is no port number */
	pt = &d->ports[0];
	assert_string_equal(pt->rate, "fast");
	assert_true(pt->rate_gbps < 0);
	assert_null(pt->width);
	assert_int_equal(pt->lid, -1);
	assert_null(pt->link_layer);       /* not a regular file */
	assert_int_equal(pt->n_gids, 1);
	assert_int_equal(pt->gids[0].index, 0);
	assert_string_equal(pt->gids[0].type, "RoCE v2");
	/* Every string is cleaned, so JSON is valid UTF-8. */
	json = render(h, true);
	j = json_loads(json, 0, &jerr);
	assert_non_null(j);
	json_decref(j);
	free(json);
	ibs_host_free(h);
	p = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
	free(p);
}

static void check_keys(json_t *o, const char *const *keys, size_t n)
{
	size_t i;

	assert_true(json_is_object(o));
	assert_int_equal(json_object_size(o), n);
	for (i = 0; i < n; i++)
		if (!json_object_get(o, keys[i]))
			fail_msg("key '%s' missing", keys[i]);
}

/* JSON: the schema, every documented key present (null when unknown), GUIDs as strings. */
/*
 * soft-RoCE (rxe) as the real-RDMA tier shows it: fw_ver exists but is
 * empty, board_id and hca_type are absent. Empty reads as unknown, as
 * absent does: "firmware -", never "firmware ,", and null in JSON.
 */
static void test_empty_firmware(void **state)
{
	char tmpl[] = "/tmp/ibscan-sysfs.XXXXXX";
	char *dir = mkdtemp(tmpl), *msg = NULL, *out, *cmd;
	struct ibs_host *h = NULL;

	(void)state;
	assert_non_null(dir);
	PUTS(dir, "class/infiniband/rxe0/fw_ver", "\n");
	PUTS(dir, "class/infiniband/rxe0/node_type", "1: CA\n");
	PUTS(dir, "class/infiniband/rxe0/node_desc", "rxe\n");
	PUTS(dir, "class/infiniband/rxe0/ports/1/state", "4: ACTIVE\n");
	assert_int_equal(ibs_host_load(dir, &h, &msg), IBS_OK);
	assert_null(h->devs[0].fw_ver);
	out = render(h, false);
	assert_null(strstr(out, "firmware ,"));
	assert_non_null(strstr(out, "  firmware -, board -, HCA -, description \"rxe\"\n"));
	free(out);
	out = render(h, true);
	assert_non_null(strstr(out, "\"fw_ver\": null"));
	free(out);
	ibs_host_free(h);
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void test_json_all_fixtures(void **state)
{
	static const char *const fixtures[] = { "ib-ipoib",	"roce",		"dualport-down", "noactive",
						"sriov",	"vm-vf",	"gpu-h100",	 "gpu-gidmix",
						"gpu-container", "gpu-linklocal", "gpu-rocep",	 "gpu-ionic",	 "gpu-bond",
						"gpu-degraded" };
	static const char *const dev_keys[] = { "name",	   "node_type", "node_guid", "system_image_guid", "fw_ver",
						"board_id", "hca_type",	 "node_desc", "pci",		    "ports" };
	static const char *const pci_keys[] = { "address",	   "vendor_id", "device_id", "sriov",
						"sriov_numvfs", "sriov_totalvfs", "physfn",	 "vf_known_by",
						"numa_node",	"link_width",	  "max_link_width", "link_speed_gts",
						"max_link_speed_gts" };
	static const char *const port_keys[] = { "port",   "state", "phys_state", "link_layer",      "rate",
						  "rate_gbps", "width", "speed",      "lid",	       "sm_lid",
						  "lmc",    "probe_gid_index", "port_guid", "netdev", "ipoib", "gids" };
	static const char *const gid_keys[] = { "index", "gid", "type", "netdev", "ipv4" };
	static const char *const ipoib_keys[] = { "name", "operstate" };
	size_t f, i, k, g;

	(void)state;
	for (f = 0; f < sizeof(fixtures) / sizeof(fixtures[0]); f++) {
		struct ibs_host *h = load(fixtures[f]);
		char *s = render(h, true);
		json_error_t err;
		json_t *j = json_loads(s, 0, &err), *dev, *port, *x;

		assert_non_null(j);
		assert_string_equal(json_string_value(json_object_get(j, "schema")), IBS_LOCAL_SCHEMA);
		assert_int_equal(json_array_size(json_object_get(j, "devices")), h->n_devs);
		json_array_foreach(json_object_get(j, "devices"), i, dev) {
			const char *guid = json_string_value(json_object_get(dev, "node_guid"));
			check_keys(dev, dev_keys, sizeof(dev_keys) / sizeof(dev_keys[0]));
			check_keys(json_object_get(dev, "pci"), pci_keys, sizeof(pci_keys) / sizeof(pci_keys[0]));
			assert_non_null(guid);
			assert_int_equal(strlen(guid), 18);
			assert_memory_equal(guid, "0x", 2);
			json_array_foreach(json_object_get(dev, "ports"), k, port) {
				check_keys(port, port_keys, sizeof(port_keys) / sizeof(port_keys[0]));
				assert_true(json_is_integer(json_object_get(port, "lid")));
				json_array_foreach(json_object_get(port, "gids"), g, x)
					check_keys(x, gid_keys, sizeof(gid_keys) / sizeof(gid_keys[0]));
				json_array_foreach(json_object_get(port, "ipoib"), g, x)
					check_keys(x, ipoib_keys, sizeof(ipoib_keys) / sizeof(ipoib_keys[0]));
			}
		}
		json_decref(j);
		free(s);
		ibs_host_free(h);
	}
}

static void test_text(void **state)
{
	struct ibs_host *h = load("roce");
	char *s = render(h, false);

	(void)state;
	assert_non_null(strstr(s, "mlx5_0: CA, node GUID 0x0c42a103005b3c10"));
	assert_non_null(strstr(s, "PCI 0000:5e:00.0 (15b3:1015), SR-IOV physical function: 0 of 8 VFs enabled"));
	assert_non_null(strstr(s, "port 1: ACTIVE (LinkUp), Ethernet, 25 Gb/sec (1X EDR)"));
	assert_non_null(strstr(s, "3  0000:0000:0000:0000:0000:ffff:c0a8:0a05  RoCE v2     ens1f0      192.168.10.5  "
				  "<- ibscan ping's choice\n"));
	assert_null(strstr(s, " \n")); /* no trailing blanks */
	free(s);
	ibs_host_free(h);
}

/*
 * The RoCE fixture with its port Down (the netdev is down): no GID is the
 * probe's choice, in the text or in JSON, since `ibscan ping` cannot use a
 * port that is not Active.
 */
static void test_roce_down_no_probe_choice(void **state)
{
	char tmpl[] = "/tmp/ibscan-hostinfo-XXXXXX", *src = fixture("roce"), *cmd, *msg = NULL, *out;
	struct ibs_host *h = NULL;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	cmd = xasprintf("cp -a '%s/.' '%s/'", src, tmpl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	cmd = xasprintf("%s/devices/pci0000:5d/0000:5d:00.0/0000:5e:00.0/infiniband/mlx5_0/ports/1/state", tmpl);
	assert_non_null(fp = fopen(cmd, "w"));
	fputs("1: DOWN\n", fp);
	assert_int_equal(fclose(fp), 0);
	free(cmd);
	assert_int_equal(ibs_host_load(tmpl, &h, &msg), IBS_OK);
	assert_int_equal(h->devs[0].ports[0].state_num, 1);
	assert_int_equal(h->devs[0].ports[0].n_gids, 6);
	assert_int_equal(h->devs[0].ports[0].probe_gid, -1);
	out = render(h, false);
	assert_null(strstr(out, "choice"));
	free(out);
	out = render(h, true);
	assert_non_null(strstr(out, "\"probe_gid_index\": null"));
	free(out);
	ibs_host_free(h);
	cmd = xasprintf("rm -rf '%s'", tmpl);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_guid_gid),
		cmocka_unit_test(test_roce_down_no_probe_choice),
		cmocka_unit_test(test_parse_enum_uint),
		cmocka_unit_test(test_parse_rate),
		cmocka_unit_test(test_ib_ipoib),
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_dualport_down),
		cmocka_unit_test(test_noactive),
		cmocka_unit_test(test_sriov),
		cmocka_unit_test(test_vm_vf),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_hostile_tree),
		cmocka_unit_test(test_empty_firmware),
		cmocka_unit_test(test_json_all_fixtures),
		cmocka_unit_test(test_text),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("hostinfo", tests, NULL, NULL);
}
