/*
 * Unit tests of the probe's client (core/probe/client.c): a listener of an
 * older protocol that closes the setup connection is named as such.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/probe_pair.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/tcp.h"

/* A listener of version 1: drops this hello (its own warning names both versions) and closes. */
static void *old_listener_main(void *arg)
{
	int fd = *(int *)arg;
	uint8_t hdr[IBS_OOB_HDR_LEN];

	if (read(fd, hdr, sizeof(hdr)) == (ssize_t)sizeof(hdr) && hdr[5] != 1)
		ibs_tcp_close(fd, 200);
	else
		close(fd);
	return NULL;
}

static void test_old_listener(void **state)
{
	struct side c;
	pthread_t th;
	int sv[2];

	(void)state;
	side_opts(&c, IBS_OP_SEND, false, 10, 64);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(pthread_create(&th, NULL, old_listener_main, &sv[1]), 0);
	assert_int_equal(ibs_ping_open(&fake_verbs, &c.o, &c.p), IBS_OK);
	c.rc = ibs_ping_client_fd(c.p, sv[0], "listener", &c.res);
	side_finish(&c);
	close(sv[0]);
	pthread_join(th, NULL);
	assert_int_equal(c.rc, IBS_E_TRANSPORT);
	assert_int_equal(c.step, IBS_STEP_EXCHANGE);
	has_text(c.err, "the listener listener closed the setup connection without answering the hello");
	has_text(c.hint, "an ibscan speaking probe protocol version 1 (this one speaks 2) does so");
	side_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_old_listener, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("probe_client", tests, NULL, NULL);
}
