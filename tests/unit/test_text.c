/* Unit tests of the untrusted-text cleaner and the strict GUID parser (core/base/text.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "../../core/base/text.h"

static char *clean(const char *s)
{
	return ibs_text_clean(s, strlen(s));
}

static void expect(const char *in, size_t len, const char *want)
{
	char *got = ibs_text_clean(in, len);

	assert_string_equal(got, want);
	assert_true(ibs_text_is_clean(got));
	free(got);
}

/*
 * An oracle that does not share the cleaner's code: the C library's UTF-8
 * decoder and its idea of printable (C.UTF-8 locale), plus the C1 range.
 */
static void assert_printable_utf8(const char *s)
{
	mbstate_t st;
	size_t n = strlen(s);

	memset(&st, 0, sizeof(st));
	while (n) {
		wchar_t wc;
		size_t l = mbrtowc(&wc, s, n, &st);
		assert_true(l != (size_t)-1 && l != (size_t)-2 && l != 0);
		assert_true(iswprint((wint_t)wc));
		assert_false(wc >= 0x80 && wc <= 0x9f);
		assert_false(wc == 0x202e || wc == 0x2066 || wc == 0x200b || wc == 0xfeff);
		s += l;
		n -= l;
	}
}

/* A literal and what cleaning it gives (the literal may hold NUL bytes). */
#define E(lit, want) expect(lit, sizeof(lit) - 1, want)

static void test_kept(void **state)
{
	(void)state;
	E("node0001 mlx5_0", "node0001 mlx5_0");
	/* Non-ASCII letters, CJK and a 4-byte character stay as they are. */
	E("Zürich-Köln \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x96\xa5", "Zürich-Köln \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x96\xa5");
	/* Printable ASCII punctuation, quotes and backslashes are the renderers' business. */
	E("a\"b\\c<script>&'=#", "a\"b\\c<script>&'=#");
}

static void test_escaped(void **state)
{
	(void)state;
	E("\x1b[31mred\a", "\\x1b[31mred\\x07");
	E("a\tb\nc\rd\x7f", "a\\x09b\\x0ac\\x0dd\\x7f");
	E("a\0b", "a\\x00b");
	/* Invalid UTF-8: a lone C1 byte, a stray continuation, a truncated sequence, an overlong. */
	E("\x9b" "2J", "\\x9b2J");
	E("\xff\xfe\x80", "\\xff\\xfe\\x80");
	E("\xe2\x80", "\\xe2\\x80");
	E("\xc0\xaf", "\\xc0\\xaf");
	E("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
	/* C1 controls in their UTF-8 form, bidi overrides and isolates, zero widths, BOM, separators, tags. */
	E("\xc2\x9b" "31m", "\\u{9b}31m");
	E("\xc2\x85", "\\u{85}");
	E("evil\xe2\x80\xaetxt.exe", "evil\\u{202e}txt.exe");
	E("\xe2\x81\xa6x\xe2\x81\xa9", "\\u{2066}x\\u{2069}");
	E("a\xe2\x80\x8b" "b\xef\xbb\xbf", "a\\u{200b}b\\u{feff}");
	E("\xe2\x80\xa8", "\\u{2028}");
	E("\xf3\xa0\x80\x81", "\\u{e0001}");
	E("\xef\xbf\xbf", "\\u{ffff}");
}

static void test_properties(void **state)
{
	unsigned char all[256 * 2];
	char *c, *again;
	size_t i;

	(void)state;
	/* Every byte value, in both orders: the result is printable UTF-8 and cleaning it again changes nothing. */
	for (i = 0; i < 256; i++) {
		all[i] = (unsigned char)i;
		all[511 - i] = (unsigned char)i;
	}
	c = ibs_text_clean((const char *)all, sizeof(all));
	assert_printable_utf8(c);
	assert_true(ibs_text_is_clean(c));
	assert_null(strchr(c, 0x1b));
	again = clean(c);
	assert_string_equal(again, c);
	assert_true(strlen(c) <= sizeof(all) * IBS_TEXT_GROWTH);
	free(again);
	free(c);
	assert_false(ibs_text_is_clean("\x1b"));
	assert_false(ibs_text_is_clean("\xc2\x9b"));
	assert_false(ibs_text_is_clean("\xff"));
	assert_true(ibs_text_is_clean("\\x1b"));
}

static void test_buf(void **state)
{
	char buf[8];

	(void)state;
	/* Only whole escapes and whole characters fit. */
	assert_int_equal(ibs_text_clean_buf(buf, sizeof(buf), "ab\x1b" "cd", 5), 7);
	assert_string_equal(buf, "ab\\x1bc");
	assert_int_equal(ibs_text_clean_buf(buf, sizeof(buf), "abcde\x1b", 6), 5);
	assert_string_equal(buf, "abcde");
	assert_int_equal(ibs_text_clean_buf(buf, sizeof(buf), "abcde\xc3\xbc", 7), 7);
	assert_string_equal(buf, "abcde\xc3\xbc");
	assert_int_equal(ibs_text_clean_buf(buf, sizeof(buf), "abcdef\xc3\xbc", 8), 6);
	assert_string_equal(buf, "abcdef");
	assert_int_equal(ibs_text_clean_buf(buf, 1, "abc", 3), 0);
	assert_string_equal(buf, "");
}

static void test_cut(void **state)
{
	char s[] = "ab\xc3\xbc" "cd";

	(void)state;
	ibs_text_cut(s, 3);
	assert_string_equal(s, "ab");
	ibs_text_cut(s, 10);
	assert_string_equal(s, "ab");
}

static void test_guid(void **state)
{
	static const char *const bad[] = {
		"-1", "0x-1", "0x +1", "0x+1", " 0x1", "0x", "x1", "1", "0x10000000000000000", "0x00000000000000001",
		"0x1 ", "0x1g", "", "0X", "0x0x1", "18446744073709551615",
	};
	uint64_t g = 7;
	const char *end;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(ibs_guid_parse_all(bad[i], &g));
		assert_int_equal(g, 7);
	}
	assert_true(ibs_guid_parse_all("0x0002c90300e10001", &g));
	assert_int_equal(g, 0x0002c90300e10001ull);
	assert_true(ibs_guid_parse_all("0XFFFFFFFFFFFFFFFF", &g));
	assert_int_equal(g, UINT64_MAX);
	assert_true(ibs_guid_parse_all("0x1", &g));
	assert_int_equal(g, 1);
	/* The caller judges what follows. */
	end = ibs_guid_parse("0x2c9(2c9a)", 0, &g);
	assert_non_null(end);
	assert_string_equal(end, "(2c9a)");
	end = ibs_guid_parse("2c9a)", IBS_GUID_BARE, &g);
	assert_non_null(end);
	assert_int_equal(g, 0x2c9a);
	assert_string_equal(end, ")");
	assert_null(ibs_guid_parse("-2c9a", IBS_GUID_BARE, &g));
	/* Bare: "0x1" is the digit 0 followed by "x1", which its caller refuses. */
	end = ibs_guid_parse("0x1", IBS_GUID_BARE, &g);
	assert_non_null(end);
	assert_string_equal(end, "x1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept),    cmocka_unit_test(test_escaped), cmocka_unit_test(test_properties),
		cmocka_unit_test(test_buf),     cmocka_unit_test(test_cut),     cmocka_unit_test(test_guid),
	};
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		return 1;
	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
