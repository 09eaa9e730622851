/* Unit tests of the capture parser (core/capture/format_parse.c): exchanges, the tool line, cut short, bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>

#include "lib/captures.h"
#include "../../core/capture/index.h"
#include "../../core/capture/format.h"
#include "../../core/base/text.h"

/* Exchanges come back from their packed form as parsed: addresses, times, lengths, bytes. */
static void test_packed_exchanges(void **state)
{
	static const char text[] = HDR
		"x SMI-DR Get NodeInfo mod=0 addr=dr:0,1,2 t=5\n> " MADHEX "0000ff\n< resp len=100 0181810000\n"
		"x SMI Get NodeInfo mod=0 addr=lid:7\n> 0101010100\n< error 110 0102\n"
		"x SMI Get NodeInfo mod=0 addr=lid:9\n> 01010101\n< none\n";
	struct ibs_capture *c = NULL;
	struct ibs_cap_exchange x;
	char *msg = NULL;
	size_t pos = 0;
	uint8_t want[IBS_MAD_SIZE] = { 0x01, 0x81, 0x01, 0x01 };

	(void)state;
	assert_int_equal(ibs_capture_parse("c", text, strlen(text), &c, &msg), IBS_OK);
	assert_int_equal(c->n, 3);
	assert_true(ibs_capture_next(c, &pos, &x));
	assert_int_equal(x.line, 3);
	assert_int_equal(x.addr.lid, 0);
	assert_int_equal(x.addr.hops, 2);
	assert_int_equal(x.addr.path[1], 1);
	assert_int_equal(x.addr.path[2], 2);
	assert_true(x.time_ns == 5);
	assert_int_equal(x.req_len, IBS_MAD_SIZE);
	want[26] = 0xff;
	assert_memory_equal(x.req, want, IBS_MAD_SIZE);
	assert_int_equal(x.outcome, IBS_CAP_RESP);
	assert_int_equal(x.resp_len, 100);
	assert_int_equal(x.resp[1], 0x81);
	assert_int_equal(x.resp[2], 0x81);
	assert_int_equal(x.resp[3], 0);
	assert_int_equal(x.resp[99], 0);
	assert_true(ibs_capture_next(c, &pos, &x));
	assert_int_equal(x.addr.lid, 7);
	assert_int_equal(x.outcome, IBS_CAP_ERROR);
	assert_int_equal(x.status, 110);
	assert_int_equal(x.resp_len, 2);
	assert_int_equal(x.resp[1], 2);
	assert_true(ibs_capture_next(c, &pos, &x));
	assert_int_equal(x.addr.lid, 9);
	assert_int_equal(x.outcome, IBS_CAP_NONE);
	assert_int_equal(x.resp_len, 0);
	assert_false(ibs_capture_next(c, &pos, &x));
	ibs_capture_free(c);
}

/*
 * A tool line of control bytes grows four times when cleaned: cut where it
 * enters, it still fits a line when an index writes the header again, and
 * the index builds (it failed its own check before; found by the fuzzer).
 */
static void test_long_tool_line(void **state)
{
	size_t n = IBS_CAPTURE_MAX_LINE - 5, len, tl;
	char *text = malloc(n + 400), *p = text, *hdr;
	struct ibs_capture *c = NULL, *again = NULL;
	struct ibs_capidx *ix = NULL;
	char *msg = NULL;

	(void)state;
	p += sprintf(p, "ibscan-capture 1\ntool ");
	memset(p, 0x01, n);
	p += n;
	p += sprintf(p, "\n%s", HDR + strlen("ibscan-capture 1\n"));
	len = (size_t)(p - text);
	assert_int_equal(ibs_capture_parse("c", text, len, &c, &msg), IBS_OK);
	tl = strlen(c->tool);
	assert_true(tl < IBS_CAPTURE_TOOL_MAX && tl > IBS_CAPTURE_TOOL_MAX - 8);
	assert_true(ibs_text_is_clean(c->tool));
	assert_int_equal(strncmp(c->tool, "\\x01\\x01", 8), 0);
	assert_int_equal(tl % 4, 0); /* whole escapes only */
	hdr = ibs_capture_header_text(c, &len);
	assert_int_equal(ibs_capture_parse("hdr", hdr, len, &again, &msg), IBS_OK);
	assert_string_equal(again->tool, c->tool);
	assert_int_equal(ibs_capidx_build(c, NULL, &ix, &msg), IBS_OK);
	assert_string_equal(ibs_capidx_header(ix)->tool, c->tool);
	ibs_capidx_free(ix);
	ibs_capture_free(again);
	ibs_capture_free(c);
	free(hdr);
	free(text);
}

/*
 * Whole or cut short: a version 2 capture ends with its end record; without
 * it, it was cut short, and what it holds whole is read (a last line with
 * no newline may be cut in its hex: left out, as an exchange left
 * incomplete is); version 1 cannot tell.
 */
static void test_cut_short(void **state)
{
	static const struct {
		const char *text;
		int version;
		bool ended, cut;
		size_t n;
	} cases[] = {
		{ HDR2 REQ "< none\nend\n", 2, true, false, 1 },
		{ HDR2 REQ "< none\nend\n# a comment\n\n", 2, true, false, 1 },
		{ HDR2 REQ "< none\n", 2, false, true, 1 },
		{ HDR2 REQ "< none\n" REQ, 2, false, true, 1 },
		{ HDR2 REQ "< none\n" REQ "< resp 018101", 2, false, true, 1 },
		{ HDR2 REQ "< none\nend", 2, true, false, 1 },
		{ HDR REQ "< none\n", 1, false, false, 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_capture *c = NULL;
		char *msg = NULL;
		if (ibs_capture_parse("c", cases[i].text, strlen(cases[i].text), &c, &msg) != IBS_OK)
			fail_msg("case %zu: %s", i, msg);
		assert_int_equal(c->version, cases[i].version);
		assert_int_equal(c->ended, cases[i].ended);
		assert_int_equal(ibs_capture_cut_short(c), cases[i].cut);
		assert_int_equal(c->n, cases[i].n);
		ibs_capture_free(c);
	}
}

static void test_bad_captures(void **state)
{
	struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "", "c:1: empty file: not an ibscan capture" },
		{ "hello\n", "c:1: not an ibscan capture (no 'ibscan-capture N' header)" },
		{ "ibscan-capture 3\n", "c:1: capture format version 3 is not supported (this ibscan reads versions 1 to 2)" },
		{ "ibscan-capture 0\n", "c:1: capture format version 0 is not supported (this ibscan reads versions 1 to 2)" },
		/* The end record: version 2 only, after whole exchanges, and last. */
		{ HDR REQ "< none\nend\n", "c:6: unrecognised line" },
		{ HDR2 "end\n" REQ "< none\n", "c:4: a record after the end record" },
		{ HDR2 REQ "end\n", "c:5: the last exchange is incomplete before the end record" },
		{ "ibscan-capture 2\nend\n", "c:2: the end record before the 'local' line" },
		{ "ibscan-capture 1\n", "c:1: no 'local' line: truncated capture?" },
		{ "ibscan-capture 1\nlocal ca=x port=1\n", "c:2: local: missing or bad node_guid= (want 0x and 1 to 16 hex digits)" },
		/* strtoull takes a sign, decimal and octal: a GUID is written one way only. */
		{ "ibscan-capture 1\nlocal ca=x port=1 node_guid=12\n",
		  "c:2: local: missing or bad node_guid= (want 0x and 1 to 16 hex digits)" },
		{ "ibscan-capture 1\nlocal ca=x port=1 node_guid=0x1 port_guid=+0x5\n",
		  "c:2: local: missing or bad port_guid= (want 0x and 1 to 16 hex digits)" },
		{ HDR REQ, "c:4: truncated: the last exchange is incomplete" },
		{ HDR REQ "< resp 0g\n", "c:5: bad response bytes (hex of a MAD, at most 256 bytes)" },
		{ HDR REQ "< maybe\n", "c:5: outcome must be 'resp HEX', 'error N [HEX]' or 'none'" },
		{ HDR REQ "< error -1\n", "c:5: bad error status" },
		{ HDR "x SMI-DR Get NodeInfo mod=0 addr=dr:0,999\n", "c:3: missing or bad addr= (dr:0,1,... or lid:N)" },
		{ HDR "x SMI-DR Get NodeInfo mod=0 addr=lid:3\n> " MADHEX "\n< none\n",
		  "c:4: directed-route requests need a dr: address, others a lid:" },
		{ HDR "> " MADHEX "\n", "c:3: request line without an 'x' line before it" },
		{ HDR "garbage\n", "c:3: unrecognised line" },
		{ HDR "x SMI-DR Get NodeInfo mod=0 addr=dr:0\n> 0\n", "c:4: bad request bytes (hex of a MAD, at most 256 bytes)" },
		{ "ibscan-capture 1\n\x01\x02\0\0", "c:2: NUL byte: this is not a capture (binary file?)" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ibs_capture *c = NULL;
		char *msg = NULL;
		size_t len = strlen(cases[i].text);
		if (i == sizeof(cases) / sizeof(cases[0]) - 1)
			len += 2;
		assert_int_equal(ibs_capture_parse("c", cases[i].text, len, &c, &msg), IBS_E_INPUT);
		assert_null(c);
		assert_string_equal(msg, cases[i].msg);
		free(msg);
	}
	{
		/* A huge line is refused without reading it whole. */
		size_t n = IBS_CAPTURE_MAX_LINE * 4;
		char *big = xmalloc(n);
		struct ibs_capture *c = NULL;
		char *msg = NULL;
		memset(big, 'a', n);
		memcpy(big, "ibscan-capture 1\n", 17);
		assert_int_equal(ibs_capture_parse("c", big, n, &c, &msg), IBS_E_INPUT);
		assert_string_equal(msg, "c:2: line too long");
		free(msg);
		free(big);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packed_exchanges),
		cmocka_unit_test(test_long_tool_line),
		cmocka_unit_test(test_bad_captures),
		cmocka_unit_test(test_cut_short),
	};
	return cmocka_run_group_tests_name("format_parse", tests, NULL, NULL);
}
