/* Unit tests of the recorder (core/capture/recorder.c): what it records replays as the walk it saw. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/captures.h"
#include "../../core/capture/format.h"
#include "../../core/capture/replay.h"

static void test_record_then_replay(void **state)
{
	char path[] = "/tmp/ibscan-test-capXXXXXX";
	int fd = mkstemp(path);
	struct ibs_transport *rp;
	char *live, *replayed, *msg = NULL;
	struct ibs_capture *c;
	struct ibs_cap_exchange x;
	size_t i, none = 0, resp = 0, pos = 0;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	live = cap_record(path);
	assert_non_null(strstr(live, "\"partial\": true"));

	assert_int_equal(ibs_capture_load(path, &c, &msg), IBS_OK);
	assert_true(c->local.node_guid == 0x200000);
	assert_int_equal(c->local.lid, 1);
	for (i = 0; ibs_capture_next(c, &pos, &x); i++) {
		none += x.outcome == IBS_CAP_NONE;
		resp += x.outcome == IBS_CAP_RESP;
	}
	assert_int_equal(i, c->n);
	assert_int_equal(none, 4); /* the dead CA: first attempt and one retry, twice (the re-sweep) */
	assert_true(resp > 20);
	ibs_capture_free(c);

	assert_int_equal(ibs_replay_open(path, false, &rp, NULL), IBS_OK);
	replayed = cap_walk_json(rp);
	ibs_transport_close(rp);
	assert_string_equal(live, replayed);
	free(live);
	free(replayed);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_then_replay),
	};
	return cmocka_run_group_tests_name("recorder", tests, NULL, NULL);
}
