/* Unit tests of the link probe's out-of-band codec (core/probe/oob.c): round trips, malformed and hostile bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/oob_hello.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/ping.h"

/* Decoding fails with a message containing want. */
static void decode_fails(const uint8_t *buf, size_t len, const char *want)
{
	struct ibs_oob_msg m;
	char *msg = NULL;

	assert_int_equal(ibs_oob_decode(buf, len, &m, &msg), IBS_E_MALFORMED);
	assert_non_null(msg);
	if (!strstr(msg, want))
		fail_msg("'%s' lacks '%s'", msg, want);
	free(msg);
}

static void test_roundtrip(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG];
	struct ibs_oob_msg in, out;
	enum ibs_oob_type t;
	char *msg = NULL;
	size_t n;

	(void)state;
	for (t = IBS_OOB_HELLO; t <= IBS_OOB_HELLO_REPLY; t++) {
		oob_hello(&in, t);
		n = ibs_oob_encode(&in, buf);
		assert_int_equal(n, IBS_OOB_HDR_LEN + IBS_OOB_HELLO_LEN);
		assert_memory_equal(buf, "IBSP", 4);
		assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
		assert_int_equal(out.type, t);
		assert_memory_equal(&out.hello, &in.hello, sizeof(in.hello));
	}
	memset(&in, 0, sizeof(in));
	in.type = IBS_OOB_KEEPALIVE;
	n = ibs_oob_encode(&in, buf);
	assert_int_equal(n, IBS_OOB_HDR_LEN);
	assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
	assert_int_equal(out.type, IBS_OOB_KEEPALIVE);
	in.type = IBS_OOB_DONE;
	n = ibs_oob_encode(&in, buf);
	assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
	assert_int_equal(out.type, IBS_OOB_DONE);
	in.type = IBS_OOB_ERROR;
	snprintf(in.text, sizeof(in.text), "RTR failed: Network is unreachable");
	n = ibs_oob_encode(&in, buf);
	assert_int_equal(ibs_oob_decode(buf, n, &out, &msg), IBS_OK);
	assert_string_equal(out.text, "RTR failed: Network is unreachable");
	assert_null(msg);
}

static void test_malformed(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG + 64], save[IBS_OOB_MAX_MSG];
	size_t n;

	(void)state;
	n = oob_encode_hello(buf);
	memcpy(save, buf, n);
	/* Not ours at all. */
	memcpy(buf, "GET / HTTP/1.1\r\n", 16);
	decode_fails(buf, 16, "not an ibscan probe: the peer's first bytes are 0x47455420");
	memcpy(buf, save, n);
	/* Another protocol version. */
	buf[5] = 3;
	decode_fails(buf, n, "the peer speaks probe protocol version 3, this ibscan speaks version 2");
	/* Version 1 did not carry --sl and --tclass: an old peer is named as one. */
	buf[5] = 1;
	decode_fails(buf, n, "the peer speaks probe protocol version 1, this ibscan speaks version 2");
	memcpy(buf, save, n);
	buf[7] = 9;
	decode_fails(buf, n, "unknown message type 9");
	memcpy(buf, save, n);
	/* Oversized: refused from the header alone. */
	buf[8] = 0x40;
	decode_fails(buf, IBS_OOB_HDR_LEN, "oversized message: the peer announces 1073741888 bytes (at most 256)");
	memcpy(buf, save, n);
	buf[11] = 63;
	decode_fails(buf, n, "malformed hello message: 63 bytes of payload");
	memcpy(buf, save, n);
	/* Truncated: fewer bytes than the header, or than the header announces. */
	decode_fails(buf, 7, "truncated message: 7 bytes");
	decode_fails(buf, n - 1, "truncated hello message: 75 of 76 bytes");
	/* Trailing bytes. */
	buf[n] = 0;
	decode_fails(buf, n + 1, "1 stray bytes after a hello message");
	/* Keepalive and done carry nothing; an error carries 1 to 256 bytes. */
	memcpy(buf, save, n);
	buf[7] = IBS_OOB_KEEPALIVE;
	decode_fails(buf, n, "malformed keepalive message: 64 bytes of payload");
	buf[7] = IBS_OOB_ERROR;
	buf[11] = 0;
	decode_fails(buf, IBS_OOB_HDR_LEN, "malformed error message: 0 bytes of payload");
}

/* Every hello field out of its range is refused, by name. */
static void test_hello_fields(void **state)
{
	static const struct {
		unsigned off, len;
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, 1, 4, "operation 4" },
		{ 1, 1, 8, "flags 8" },
		{ 2, 1, 0, "link layer 0" },
		{ 2, 1, 3, "link layer 3" },
		{ 3, 1, 0, "path MTU 0" },
		{ 3, 1, 6, "path MTU 6" },
		{ 4, 4, 0, "iterations 0" },
		{ 4, 4, IBS_PING_MAX_ITERS + 1ull, "iterations 10000001" },
		{ 8, 4, 0, "size 0" },
		{ 8, 4, IBS_PING_MAX_SIZE + 1ull, "size 16777217" },
		{ 12, 4, 0, "timeout 0" },
		{ 20, 4, 1, "QPN 1" },
		{ 20, 4, 0x1000000, "QPN 16777216" },
		{ 24, 4, 0x1000000, "PSN 16777216" },
		{ 29, 1, 3, "GID type 3" },
		{ 30, 1, 16, "service level 16" },
		{ 60, 4, 4, "buffer length 4" },
		{ 60, 4, 4095, "buffer length 4095" }, /* shorter than the size */
	};
	uint8_t buf[IBS_OOB_MAX_MSG], save[IBS_OOB_MAX_MSG];
	size_t n, i, k;

	(void)state;
	n = oob_encode_hello(save);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *p = buf + IBS_OOB_HDR_LEN + cases[i].off;
		char want[96];
		memcpy(buf, save, n);
		for (k = 0; k < cases[i].len; k++)
			p[k] = (uint8_t)(cases[i].v >> (8 * (cases[i].len - 1 - k)));
		snprintf(want, sizeof(want), "malformed hello: %s out of range", cases[i].want);
		decode_fails(buf, n, want);
	}
}

/* An error text is shown to the operator: control bytes never get through. */
static void test_error_text_sanitized(void **state)
{
	uint8_t buf[IBS_OOB_MAX_MSG];
	struct ibs_oob_msg m;
	char *msg = NULL;

	(void)state;
	memcpy(buf, "IBSP\0\2\0\5\0\0\0\x08", 12);
	memcpy(buf + 12, "a\x1b[2Jb\n\xff", 8);
	assert_int_equal(ibs_oob_decode(buf, 20, &m, &msg), IBS_OK);
	assert_string_equal(m.text, "a\\x1b[2Jb\\x0a\\xff");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_hello_fields),
		cmocka_unit_test(test_error_text_sanitized),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("oob", tests, NULL, NULL);
}
