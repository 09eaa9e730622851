/* Unit tests of the fat-tree structure checks (fabric/check/fattree.c) on hand-built two-tier fabrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_railnet.h"
#include "../../fabric/check/fattree.h"
#include "../../fabric/check/health.h"

static struct railnet rn;

static void tree_of(struct ibs_findings *fs)
{
	struct ibs_fabric *f = rn_fabric(&rn);

	memset(fs, 0, sizeof(*fs));
	ibs_check_fat_tree(f, fs);
	for (size_t i = 0; i < fs->n; i++)
		fs->v[i].node = fs->v[i].peer = NULL;
	ibs_fabric_free(f);
}

/* Exactly one finding, of check id, saying want. */
static void expect_one(const struct ibs_findings *fs, const char *id, const char *want)
{
	for (size_t i = 0; i < fs->n; i++)
		print_message("  %s: %s\n", fs->v[i].check->id, fs->v[i].message);
	assert_int_equal(fs->n, 1);
	assert_string_equal(fs->v[0].check->id, id);
	assert_string_equal(fs->v[0].message, want);
}

/* 8 leaves, 2 spines, 1 or 2 cables per pair, one rate: a fat tree. */
static void test_tree_healthy(void **state)
{
	struct ibs_findings fs;

	(void)state;
	for (unsigned par = 1; par <= 2; par++) {
		rn_init(&rn, 2, 8, 4, 2, par);
		tree_of(&fs);
		assert_int_equal(fs.n, 0);
		ibs_findings_free(&fs);
	}
}

/* A leaf-spine cable pulled: one fabric.asymmetric naming both and the count (not also the degrees). */
static void test_tree_cable_missing(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn.port[0][RN_LEAF_UP].guid = 0;
	tree_of(&fs);
	expect_one(&fs, "fabric.asymmetric",
		   "leaf su1-r0 has no cable to spine spine1: expected 1, as between the other leaves and spines");
	ibs_findings_free(&fs);

	rn_init(&rn, 2, 8, 4, 2, 2);
	rn.port[5][RN_LEAF_UP + 3].guid = 0; /* the second cable of su2-r1 to spine2 */
	tree_of(&fs);
	expect_one(&fs, "fabric.asymmetric",
		   "leaf su2-r1 has 1 cable to spine spine2: expected 2, as between the other leaves and spines");
	ibs_findings_free(&fs);
}

/* A cable from leaf to leaf. */
static void test_tree_leaf_to_leaf(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn.port[0][12] = (struct rn_end){ rn_leaf_guid(1), 12 };
	rn.port[1][12] = (struct rn_end){ rn_leaf_guid(0), 12 };
	tree_of(&fs);
	expect_one(&fs, "fabric.misplaced",
		   "leaf su1-r0 port 12 is cabled to leaf su1-r1 port 12: a fat tree cables a tier only to the tiers "
		   "above and below it");
	ibs_findings_free(&fs);
}

/* A host on a spine: the host cable is the finding, not eight leaf-to-leaf cables. */
static void test_tree_host_on_spine(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn.spine_host_port = 30;
	tree_of(&fs);
	expect_one(&fs, "fabric.misplaced",
		   "host dgx999 mlx5_0 is cabled to spine1 port 30, a spine (cabled to leaves only): move it to a "
		   "free port of a leaf");
	ibs_findings_free(&fs);
}

/* One leaf-spine cable at QDR among EDR ones. */
static void test_tree_rate(void **state)
{
	struct ibs_findings fs;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	rn.slow_leaf = 2;
	rn.slow_port = RN_LEAF_UP + 1;
	tree_of(&fs);
	expect_one(&fs, "fabric.rate", "su1-r2 port 18 to spine2 port 3 runs 4xQDR, unlike the other leaf-spine cables");
	ibs_findings_free(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_healthy),
		cmocka_unit_test(test_tree_cable_missing),
		cmocka_unit_test(test_tree_leaf_to_leaf),
		cmocka_unit_test(test_tree_host_on_spine),
		cmocka_unit_test(test_tree_rate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
