/*
 * Unit tests of the probe object (core/probe/probe.c): opening a device
 * and port through the verbs ops table (the fake verbs), and what it
 * refuses there: no such device or port, a port not active, iWARP.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/probe_pair.h"
#include "../../core/base/log.h"

static void test_open_failures(void **state)
{
	struct side c;
	unsigned i;

	(void)state;
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.ca = "mlx5_9";
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	side_finish(&c);
	has_text(c.err, "no RDMA device named 'mlx5_9'");
	side_free(&c);
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	c.o.port = 2;
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	side_finish(&c);
	has_text(c.err, "fake0 has no port 2 (it has 1)");
	side_free(&c);
	for (i = 0; i < FV_PORTS; i++)
		fv.port[i].state = 2;
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	side_finish(&c);
	has_text(c.err, "fake0 port 1 is not active (state INIT)");
	has_text(c.hint, "no subnet manager");
	side_free(&c);
	/* An iWARP port reads Ethernet and active: refused at open, not at RTR with a hint blaming the GID. */
	fv_reset();
	fv.port[0].ll = IBS_LL_ETH;
	fv.port[0].iwarp = true;
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_E_NODEV);
	side_finish(&c);
	assert_int_equal(c.step, IBS_STEP_OPEN);
	has_text(c.err, "fake0 is an iWARP device");
	has_text(c.hint, "rdma_cm");
	side_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_open_failures, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
