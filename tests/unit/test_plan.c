/* Unit tests of the cabling plan: the CSV reader (untrusted input) and the comparison by names (fabric/check/plan.c). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_railnet.h"
#include "../../fabric/check/health.h"
#include "../../fabric/check/plan.h"
#include "../../output/plan.h"

static struct railnet rn;

/* The plan written from rn as it is now (topology --format plan). */
static struct ibs_plan *plan_now(void)
{
	struct ibs_fabric *f = rn_fabric(&rn);
	struct ibs_plan *p = NULL;
	char *buf = NULL, *msg = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(render_plan(m, f), 0);
	fclose(m);
	if (ibs_plan_parse("plan.csv", buf, len, &p, &msg))
		fail_msg("%s", msg);
	free(buf);
	ibs_fabric_free(f);
	return p;
}

static void check(const struct ibs_plan *p, struct ibs_findings *fs)
{
	struct ibs_fabric *f = rn_fabric(&rn);

	memset(fs, 0, sizeof(*fs));
	ibs_check_plan(f, p, fs);
	for (size_t i = 0; i < fs->n; i++) {
		print_message("  %s: %s\n", fs->v[i].check->id, fs->v[i].message);
		fs->v[i].node = fs->v[i].peer = NULL;
	}
	ibs_fabric_free(f);
}

static bool has(const struct ibs_findings *fs, const char *id, const char *msg)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].check->id, id) && !strcmp(fs->v[i].message, msg))
			return true;
	return false;
}

static void test_plan_matches_itself(void **state)
{
	struct ibs_plan *p;
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	p = plan_now();
	assert_int_equal(p->n, 2 * 4 * (8 + 2)); /* 64 host cables, 16 leaf-spine */
	check(p, &fs);
	assert_int_equal(fs.n, 0);
	ibs_findings_free(&fs);
	ibs_plan_free(p);
}

/* Each cable moved is one plan.miscabled that says where its end goes. */
static void test_plan_moved(void **state)
{
	struct ibs_plan *p;
	struct ibs_findings fs;
	size_t line;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	p = plan_now();
	for (line = 0; line < p->n; line++)
		if (!strcmp(p->v[line].a, "su1-r3") && p->v[line].pa == 4)
			break;
	assert_true(line < p->n);
	rn_swap(&rn, 3, 4, 2, 12);
	check(p, &fs);
	assert_int_equal(fs.n, 1);
	{
		char *want = NULL;
		assert_true(asprintf(&want, "dgx004 mlx5_3 port 1 is cabled to su1-r2 port 12, the plan says su1-r3 port 4 "
				     "(line %zu): move that end from su1-r2 port 12 to su1-r3 port 4",
				     p->v[line].line) > 0);
		assert_true(has(&fs, "plan.miscabled", want));
		free(want);
	}
	ibs_findings_free(&fs);

	/* Two crossed: two findings, one per cable. */
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn_swap(&rn, 1, 3, 2, 3);
	check(p, &fs);
	assert_int_equal(fs.n, 2);
	assert_int_equal(fs.count[fs.v[0].check - ibs_checks], 2);
	assert_string_equal(fs.v[0].check->id, "plan.miscabled");
	ibs_findings_free(&fs);
	ibs_plan_free(p);
}

static void test_plan_missing_extra(void **state)
{
	struct ibs_plan *p;
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	p = plan_now();
	rn.port[0][RN_LEAF_UP].guid = 0; /* su1-r0 to spine1 pulled */
	rn.port[4][20] = (struct rn_end){ rn_leaf_guid(5), 20 }; /* su2-r0 to su2-r1: not planned */
	check(p, &fs);
	assert_int_equal(fs.n, 2);
	assert_int_equal(fs.v[0].check->id[5], 'm');
	for (size_t i = 0; i < fs.n; i++)
		assert_true(!strcmp(fs.v[i].check->id, "plan.missing") || !strcmp(fs.v[i].check->id, "plan.extra"));
	assert_true(has(&fs, "plan.extra",
			"su2-r0 port 20 to su2-r1 port 20 is not in the plan: remove it, or add it to the plan"));
	ibs_findings_free(&fs);
	ibs_plan_free(p);
}

static void test_plan_csv(void **state)
{
	static const char good[] = "\xef\xbb\xbfStart Device,Start Port,End Device,End Port,Link Type\n"
				   "# a comment\n\n"
				   "\"leaf, one\",Port 1,dgx001 mlx5_0,1,4xndr\r\n"
				   "  leaf2 , p2 , \"say \"\"hi\"\"\" , 3 , switch_to_host\n"
				   "leaf3,3,h,4\n";
	static const char *const bad[][2] = {
		{ "a,1,b\n", "p.csv:1: 3 fields: a cable is start device, start port, end device, end port (and optionally its rate)" },
		{ "a,1,b,1\n\"a,1,b,1\n", "p.csv:2: a quoted field is not closed on its line" },
		{ "a,1,b,1\na,x,b,1\n", "p.csv:2: port 'x' is not a number from 1 to 255" },
		{ "a,1,b,256\n", "p.csv:1: port '256' is not a number from 1 to 255" },
		{ "a,1,,1\n", "p.csv:1: an empty device name" },
		{ "a,1,b\"c,1\n", "p.csv:1: a quote inside an unquoted field" },
		{ "\"a\"x,1,b,1\n", "p.csv:1: text after a quoted field" },
		{ "a,1,b,1\n\na\0,1,b,1\n", "p.csv:3: a NUL byte: not a text file" },
	};
	struct ibs_plan *p = NULL;
	char *msg = NULL, *longrow;
	size_t i;

	(void)state;
	assert_int_equal(ibs_plan_parse("p.csv", good, strlen(good), &p, &msg), IBS_OK);
	assert_int_equal(p->n, 3);
	assert_string_equal(p->v[0].a, "leaf, one");
	assert_int_equal(p->v[0].pa, 1);
	assert_string_equal(p->v[0].rate, "4xNDR");
	assert_int_equal(p->v[0].line, 4);
	assert_string_equal(p->v[1].a, "leaf2");
	assert_string_equal(p->v[1].b, "say \"hi\"");
	assert_int_equal(p->v[1].pa, 2);
	assert_string_equal(p->v[1].rate, ""); /* NDT's link type is no rate */
	assert_int_equal(p->v[2].pb, 4);
	ibs_plan_free(p);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i][0]);
		if (i == 7)
			len = 20;
		assert_int_equal(ibs_plan_parse("p.csv", bad[i][0], len, &p, &msg), IBS_E_INPUT);
		assert_null(p);
		assert_string_equal(msg, bad[i][1]);
		free(msg);
	}
	longrow = malloc(IBS_PLAN_MAX_LINE + 10);
	memset(longrow, 'a', IBS_PLAN_MAX_LINE + 9);
	longrow[IBS_PLAN_MAX_LINE + 9] = 0;
	assert_int_equal(ibs_plan_parse("p.csv", longrow, strlen(longrow), &p, &msg), IBS_E_INPUT);
	assert_string_equal(msg, "p.csv:1: a row longer than 4096 bytes");
	free(msg);
	free(longrow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_matches_itself),
		cmocka_unit_test(test_plan_moved),
		cmocka_unit_test(test_plan_missing_extra),
		cmocka_unit_test(test_plan_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
