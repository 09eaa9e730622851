/* Unit tests of Slurm's block topology (output/slurm_block.c) on a hand-built rail-optimized fabric. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fake_railnet.h"
#include "../../output/slurm.h"

static char *block_text(const struct railnet *rn, bool yaml)
{
	struct ibs_fabric *f = rn_fabric(rn);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(render_slurm_block(m, f, yaml), 0);
	fclose(m);
	ibs_fabric_free(f);
	return buf;
}

/* Two scalable units of 8 servers on 4 rail leaves each: two blocks of 8, whatever rails they are on. */
static void test_block_units(void **state)
{
	static struct railnet rn;
	char *t;

	(void)state;
	rn_init(&rn, 2, 8, 4, 2, 1);
	t = block_text(&rn, false);
	assert_non_null(strstr(t, "\nBlockName=block1 Nodes=dgx[001-008]  # 8 hosts, 4 leaves from su1-r0\n"
				  "BlockName=block2 Nodes=dgx[009-016]  # 8 hosts, 4 leaves from su2-r0\n"));
	assert_non_null(strstr(t, "(ibscan topology --format slurm-block): 2 blocks, 16 hosts.\n"));
	free(t);
	t = block_text(&rn, true);
	assert_non_null(strstr(t, "---\n- topology: ibscan-block\n  cluster_default: true\n  block:\n    blocks:\n"
				  "      - block: block1  # 8 hosts, 4 leaves from su1-r0\n        nodes: dgx[001-008]\n"
				  "      - block: block2  # 8 hosts, 4 leaves from su2-r0\n        nodes: dgx[009-016]\n"));
	free(t);

	/* One rail of dgx003 on unit 2's leaf: the units are joined, one block (the cable that says so is rail.miscabled's). */
	rn_swap(&rn, 1, 3, 5, 12);
	t = block_text(&rn, false);
	assert_non_null(strstr(t, "\nBlockName=block1 Nodes=dgx[001-016]  # 16 hosts, 8 leaves from su1-r0\n"));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_block_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
