/*
 * The probe's default listener on a host without IPv6 (booted with
 * ipv6.disable=1: socket(AF_INET6) fails with EAFNOSUPPORT). This file's
 * socket() stands in for libc's in this binary only and refuses AF_INET6
 * as such a kernel does; the listener must then hear every IPv4 address
 * and say so, and still report a taken port as taken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../core/probe/tcp.h"

static unsigned v6_refused;

int socket(int domain, int type, int protocol)
{
	if (domain == AF_INET6) {
		v6_refused++;
		errno = EAFNOSUPPORT;
		return -1;
	}
	return (int)syscall(SYS_socket, domain, type, protocol);
}

static void test_listen_without_ipv6(void **state)
{
	char *msg = NULL, *peer = NULL, *where;
	unsigned port = 0, port2 = 0;
	int lfd, lfd2 = -1, cfd, sfd;

	(void)state;
	assert_int_equal(ibs_tcp_listen(NULL, 0, &lfd, &port, &msg), IBS_OK);
	assert_true(v6_refused > 0); /* it did try IPv6 first */
	where = ibs_tcp_listen_where(lfd);
	assert_string_equal(where, "0.0.0.0 (every IPv4 address)");
	free(where);
	assert_int_equal(ibs_tcp_connect("127.0.0.1", port, 2000, &cfd, &msg), IBS_OK);
	assert_int_equal(ibs_tcp_accept(lfd, 2000, &sfd, &peer, &msg), IBS_OK);
	assert_non_null(strstr(peer, "127.0.0.1:"));
	free(peer);
	close(sfd);
	close(cfd);
	/* The same port again: taken, and said so. */
	assert_int_equal(ibs_tcp_listen(NULL, port, &lfd2, &port2, &msg), IBS_E_TRANSPORT);
	assert_non_null(strstr(msg, "cannot listen on 0.0.0.0 port"));
	assert_non_null(strstr(msg, "Address already in use"));
	free(msg);
	close(lfd);
	/* An IPv6 address asked for by name is refused with the kernel's reason, not replaced by IPv4. */
	msg = NULL;
	assert_int_equal(ibs_tcp_listen("::1", 0, &lfd2, &port2, &msg), IBS_E_TRANSPORT);
	assert_non_null(strstr(msg, "cannot listen on ::1 port 0: Address family not supported"));
	free(msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen_without_ipv6),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
