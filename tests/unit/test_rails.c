/* Unit tests of the rail checks (fabric/check/rails.c) on hand-built rail-optimized fabrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_railnet.h"

#include <sys/mman.h>
#include <unistd.h>
#include "../../fabric/check/health.h"
#include "../../fabric/model/hosts.h"
#include "../../fabric/load/namemap.h"
#include "../../fabric/check/rails.h"

static struct railnet rn;

/* The rail findings of rn with the rails spec given. */
static void rails_of(const char *spec, struct ibs_findings *fs)
{
	struct ibs_fabric *f = rn_fabric(&rn);
	struct ibs_rails *r = NULL;
	struct ibs_hosts h;
	char *msg = NULL;

	assert_int_equal(ibs_rails_parse(spec, &r, &msg), IBS_OK);
	ibs_fabric_hosts(f, &h);
	memset(fs, 0, sizeof(*fs));
	ibs_check_rails(f, &h, r, fs);
	/* The messages outlive the fabric: the tests read only them and the check. */
	for (size_t i = 0; i < fs->n; i++)
		fs->v[i].node = fs->v[i].peer = NULL;
	ibs_hosts_free(&h);
	ibs_rails_free(r);
	ibs_fabric_free(f);
}

static size_t count(const struct ibs_findings *fs, const char *id)
{
	size_t n = 0;

	for (size_t i = 0; i < fs->n; i++)
		n += !strcmp(fs->v[i].check->id, id);
	return n;
}

static void dump(const struct ibs_findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		print_message("  %s: %s\n", fs->v[i].check->id, fs->v[i].message);
}

static bool has_msg(const struct ibs_findings *fs, const char *id, const char *want)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].check->id, id) && !strcmp(fs->v[i].message, want))
			return true;
	dump(fs);
	return false;
}

/* 2 units x 8 servers x 4 rails, 2 spines: cabled as designed, nothing to say. */
static void test_rails_healthy(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rails_of("all", &fs);
	if (fs.n)
		dump(&fs);
	assert_int_equal(fs.n, 0);
	ibs_findings_free(&fs);
}

/* dgx003's mlx5_1 and mlx5_2 crossed: two rail.miscabled, each with the one swap that fixes both. */
static void test_rails_crossed(void **state)
{
	static const char *const want[] = {
		"dgx003 mlx5_1 is cabled to leaf su1-r2 port 3, a leaf of rail mlx5_2 (7 of its 8 host cables): "
		"swap the cables of dgx003 mlx5_1 (leaf su1-r2 port 3) and dgx003 mlx5_2 (leaf su1-r1 port 3)",
		"dgx003 mlx5_2 is cabled to leaf su1-r1 port 3, a leaf of rail mlx5_1 (7 of its 8 host cables): "
		"swap the cables of dgx003 mlx5_1 (leaf su1-r2 port 3) and dgx003 mlx5_2 (leaf su1-r1 port 3)",
	};
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn_swap(&rn, 1, 3, 2, 3);
	rails_of("mlx5_0-3", &fs);
	assert_int_equal(count(&fs, "rail.miscabled"), 2);
	assert_int_equal(fs.n, 2);
	assert_true(has_msg(&fs, "rail.miscabled", want[0]));
	assert_true(has_msg(&fs, "rail.miscabled", want[1]));
	ibs_findings_free(&fs);
}

/* dgx012 (unit 2) mlx5_3 moved onto the leaf of its own mlx5_2: one rail.collision, moved back. */
static void test_rails_collision(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn_swap(&rn, 4 + 3, 4, 4 + 2, 12); /* leaf su2-r3 port 4 to the free port 12 of su2-r2 */
	rails_of("all", &fs);
	assert_int_equal(fs.n, 1);
	assert_true(has_msg(&fs, "rail.collision",
			    "dgx012 mlx5_3 is cabled to leaf su2-r2 port 12, where dgx012 mlx5_2 already is (port 4): "
			    "move dgx012 mlx5_3 from leaf su2-r2 port 12 to a free port of leaf su2-r3"));
	ibs_findings_free(&fs);
}

/*
 * dgx005's mlx5_1 unplugged: rail.missing says which leaf it goes to. Then
 * its mlx5_0 moved to that leaf too: a rail.miscabled that moves it back
 * (not a swap: nothing of dgx005 sits on mlx5_0's leaf).
 */
static void test_rails_missing_and_moved(void **state)
{
	struct ibs_findings fs;
	const char *missing = "dgx005 has no cable on rail mlx5_1, which 7 of the 8 hosts of its scalable unit have: "
			      "cable dgx005 mlx5_1 to a free port of leaf su1-r1";

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn.port[1][5].guid = 0;
	rails_of("all", &fs);
	assert_int_equal(fs.n, 1);
	assert_true(has_msg(&fs, "rail.missing", missing));
	ibs_findings_free(&fs);

	rn_swap(&rn, 0, 5, 1, 5);
	rails_of("all", &fs);
	assert_int_equal(fs.n, 2);
	assert_true(has_msg(&fs, "rail.missing", missing));
	assert_true(has_msg(&fs, "rail.miscabled",
			    "dgx005 mlx5_0 is cabled to leaf su1-r1 port 5, a leaf of rail mlx5_1 (7 of its 8 host cables): "
			    "move dgx005 mlx5_0 from leaf su1-r1 port 5 to a free port of leaf su1-r0"));
	ibs_findings_free(&fs);
}

/* Two rails of one host on a leaf that has no rail of its own (half and half): still a collision. */
static void test_rails_collision_no_majority(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 1, 2, 2, 2, 1);
	rn_swap(&rn, 1, 1, 0, 12); /* both servers' mlx5_1 onto leaf su1-r0, beside their mlx5_0 */
	rn_swap(&rn, 1, 2, 0, 13);
	rails_of("all", &fs);
	assert_int_equal(fs.n, 2);
	assert_int_equal(count(&fs, "rail.collision"), 2);
	assert_true(has_msg(&fs, "rail.collision",
			    "dgx001 mlx5_1 is cabled to leaf su1-r0 port 12, where dgx001 mlx5_0 already is (port 1): "
			    "move dgx001 mlx5_1 from leaf su1-r0 port 12 to a free port of a leaf of rail mlx5_1"));
	ibs_findings_free(&fs);
}

/* Devices left out of the rails are not checked: a crossed storage pair says nothing. */
static void test_rails_only_named(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 1, 8, 4, 2, 1);
	rn_swap(&rn, 2, 3, 3, 3);
	rails_of("mlx5_0-1", &fs);
	assert_int_equal(fs.n, 0);
	ibs_findings_free(&fs);
	rails_of("mlx5_0-1,3", &fs);
	/* mlx5_3 on a leaf whose other cables are mlx5_2, left out: that leaf has no rail to compare with. */
	assert_int_equal(fs.n, 0);
	ibs_findings_free(&fs);
	rails_of("mlx5_2,mlx5_3", &fs);
	assert_int_equal(count(&fs, "rail.miscabled"), 2);
	ibs_findings_free(&fs);
}

/*
 * Descriptions left at the firmware default name no host or device: the
 * rails come from a node-name map ("dgx003 mlx5_1") instead.
 */
static void test_rails_namemap(void **state)
{
	struct ibs_fabric *f;
	struct ibs_namemap *m = NULL;
	struct ibs_rails *r = NULL;
	struct ibs_hosts h;
	struct ibs_findings fs;
	char map[8192], *msg = NULL;
	size_t len = 0;

	(void)state;
	rn_init(&rn, 1, 8, 4, 2, 1);
	rn.default_desc = true;
	rn_swap(&rn, 1, 3, 2, 3);
	for (unsigned host = 0; host < 8; host++)
		for (unsigned d = 0; d < 4; d++)
			len += (size_t)snprintf(map + len, sizeof(map) - len, "0x%" PRIx64 " \"dgx%03u mlx5_%u\"\n",
						rn_ca_guid(host, d), host + 1, d);
	f = rn_fabric(&rn);
	assert_int_equal(ibs_rails_parse("all", &r, &msg), IBS_OK);
	/* Without the map: no CA names a host, nothing to check. */
	ibs_fabric_hosts(f, &h);
	memset(&fs, 0, sizeof(fs));
	ibs_check_rails(f, &h, r, &fs);
	assert_int_equal(fs.n, 0);
	ibs_hosts_free(&h);
	assert_int_equal(ibs_namemap_parse("map", map, len, &m, &msg), IBS_OK);
	ibs_namemap_apply(m, f);
	ibs_fabric_hosts(f, &h);
	ibs_check_rails(f, &h, r, &fs);
	assert_int_equal(count(&fs, "rail.miscabled"), 2);
	assert_int_equal(fs.n, 2);
	assert_non_null(strstr(fs.v[0].message, "swap the cables of dgx003 mlx5_1 (leaf su1-r2 port 3) and dgx003 mlx5_2 "
						"(leaf su1-r1 port 3)"));
	ibs_findings_free(&fs);
	ibs_hosts_free(&h);
	ibs_namemap_free(m);
	ibs_rails_free(r);
	ibs_fabric_free(f);
}

static void test_rails_spec(void **state)
{
	static const char *const bad[][2] = {
		{ "", "rails: names no device" },
		{ "6-9", "rails '6-9': a number with no numbered device before it to take the name from" },
		{ "mlx5_3-1", "rails 'mlx5_3-1': a range that ends below its start" },
		{ "mlx5_0-x", "rails 'mlx5_0-x': a range ends in a number of at most 5 digits (mlx5_0-3)" },
		{ "ib-3", "rails 'ib-3': a range needs a numbered device before '-' (mlx5_0-3)" },
		{ "mlx5 0", "rails 'mlx5 0': a device name has only letters, digits, '_', '.' and ':'" },
		{ "ib0,,", NULL },
	};
	struct ibs_rails *r = NULL;
	char *msg = NULL;
	size_t i;

	(void)state;
	assert_int_equal(ibs_rails_parse("mlx5_0-3,6-9", &r, &msg), IBS_OK);
	assert_true(ibs_rails_has(r, "mlx5_0"));
	assert_true(ibs_rails_has(r, "mlx5_3"));
	assert_true(ibs_rails_has(r, "mlx5_6"));
	assert_true(ibs_rails_has(r, "mlx5_9"));
	assert_false(ibs_rails_has(r, "mlx5_4"));
	assert_false(ibs_rails_has(r, "mlx5_10"));
	assert_false(ibs_rails_has(r, "mlx5_"));
	assert_false(ibs_rails_has(r, "mlx4_0"));
	ibs_rails_free(r);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		enum ibs_err rc = ibs_rails_parse(bad[i][0], &r, &msg);
		if (!bad[i][1]) {
			assert_int_equal(rc, IBS_OK);
			assert_true(ibs_rails_has(r, "ib0"));
			ibs_rails_free(r);
			continue;
		}
		assert_int_equal(rc, IBS_E_INPUT);
		assert_null(r);
		assert_string_equal(msg, bad[i][1]);
		free(msg);
	}
	/* A file: items on lines, '#' comments, errors with their line. */
	{
		static const char good[] = "# compute rails\nmlx5_0-3 mlx5_6-9\n\nmlx5_12 # and one more\n";
		static const char badf[] = "mlx5_0\n\nmlx5_9-2\n";
		assert_int_equal(ibs_rails_parse_text("r.txt", good, strlen(good), &r, &msg), IBS_OK);
		assert_true(ibs_rails_has(r, "mlx5_7"));
		assert_true(ibs_rails_has(r, "mlx5_12"));
		assert_false(ibs_rails_has(r, "mlx5_5"));
		ibs_rails_free(r);
		assert_int_equal(ibs_rails_parse_text("r.txt", badf, strlen(badf), &r, &msg), IBS_E_INPUT);
		assert_string_equal(msg, "r.txt:3: a range that ends below its start");
		free(msg);
		assert_int_equal(ibs_rails_parse_text("r.txt", "a\0b", 3, &r, &msg), IBS_E_INPUT);
		free(msg);
		assert_int_equal(ibs_rails_parse("@/nonexistent/rails", &r, &msg), IBS_E_IO);
		free(msg);
	}
}

/*
 * A rails file's bytes need not end in a NUL (ibs_rails_parse_text takes a
 * length, as the fuzzer gives it): an item that ends at the buffer's end
 * is read to that end and no further. The text is placed at the end of a
 * page followed by an inaccessible one, so any read past it faults (the
 * fuzzer's crash: strtoul ran past "6-6" at the end of the input).
 */
static void test_rails_file_not_terminated(void **state)
{
	static const char text[] = "#\nx05_1-3,6-9,01\n6-9\n6-6\n\nx02_1-6,6-9,00\n6-9\n6-6";
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = sizeof(text) - 1;
	struct ibs_rails *r = NULL;
	char *msg = NULL, *m;

	(void)state;
	m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + pg, pg, PROT_NONE), 0);
	memcpy(m + pg - n, text, n);
	assert_int_equal(ibs_rails_parse_text("f", m + pg - n, n, &r, &msg), IBS_OK);
	assert_true(ibs_rails_has(r, "x02_6"));
	assert_true(ibs_rails_has(r, "x05_9"));
	assert_false(ibs_rails_has(r, "x05_4"));
	ibs_rails_free(r);
	/* A range's end at the buffer's end, alone. */
	memcpy(m + pg - 8, "mlx5_1-3", 8);
	assert_int_equal(ibs_rails_parse_text("f", m + pg - 8, 8, &r, &msg), IBS_OK);
	assert_true(ibs_rails_has(r, "mlx5_3"));
	assert_false(ibs_rails_has(r, "mlx5_4"));
	ibs_rails_free(r);
	munmap(m, 2 * pg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rails_healthy),
		cmocka_unit_test(test_rails_crossed),
		cmocka_unit_test(test_rails_collision),
		cmocka_unit_test(test_rails_missing_and_moved),
		cmocka_unit_test(test_rails_only_named),
		cmocka_unit_test(test_rails_namemap),
		cmocka_unit_test(test_rails_collision_no_majority),
		cmocka_unit_test(test_rails_spec),
		cmocka_unit_test(test_rails_file_not_terminated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
