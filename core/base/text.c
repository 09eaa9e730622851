/* Untrusted text: cleaning every string that enters ibscan; GUIDs parsed strictly and written one way (text.h). */
#include "text.h"
#include "xalloc.h"

#include <stdio.h>
#include <string.h>

size_t ibs_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c;

	if (!n)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/*
 * Code points never shown as they are: controls (C0, DEL, C1), and what
 * draws nothing yet changes how the text around it reads: Unicode's format
 * characters (category Cf: soft hyphen, bidi controls and isolates, zero
 * widths, invisible operators, BOM, tags ...), the line and paragraph
 * separators (a newline to some consumers) and the noncharacters.
 */
static const struct {
	uint32_t lo, hi;
} hidden_ranges[] = {
	{ 0x0000, 0x001f },   { 0x007f, 0x009f },   { 0x00ad, 0x00ad },   { 0x0600, 0x0605 },
	{ 0x061c, 0x061c },   { 0x06dd, 0x06dd },   { 0x070f, 0x070f },   { 0x0890, 0x0891 },
	{ 0x08e2, 0x08e2 },   { 0x180e, 0x180e },   { 0x200b, 0x200f },   { 0x2028, 0x202e },
	{ 0x2060, 0x206f },   { 0xfdd0, 0xfdef },   { 0xfeff, 0xfeff },   { 0xfff9, 0xfffb },
	{ 0x110bd, 0x110bd }, { 0x110cd, 0x110cd }, { 0x13430, 0x1343f }, { 0x1bca0, 0x1bca3 },
	{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe007f },
};

static bool hidden(uint32_t cp)
{
	size_t i;

	if ((cp & 0xfffe) == 0xfffe) /* U+FFFE, U+FFFF and their kin in every plane */
		return true;
	for (i = 0; i < sizeof(hidden_ranges) / sizeof(hidden_ranges[0]); i++)
		if (cp >= hidden_ranges[i].lo && cp <= hidden_ranges[i].hi)
			return true;
	return false;
}

/*
 * One unit of s[0..n) (n > 0): a character kept as it is (*keep, its bytes
 * are the output), or its escape written to esc. Returns the bytes consumed;
 * *olen gets the output length.
 */
static size_t unit(const unsigned char *s, size_t n, char esc[16], bool *keep, size_t *olen)
{
	uint32_t cp;
	size_t l = ibs_utf8_decode(s, n, &cp);

	*keep = false;
	if (!l || cp < 0x80) {
		if (l && !hidden(cp)) {
			*keep = true;
			*olen = 1;
			return 1;
		}
		*olen = (size_t)snprintf(esc, 16, "\\x%02x", s[0]);
		return 1;
	}
	if (hidden(cp)) {
		*olen = (size_t)snprintf(esc, 16, "\\u{%x}", (unsigned)cp);
		return l;
	}
	*keep = true;
	*olen = l;
	return l;
}

size_t ibs_text_clean_buf(char *out, size_t cap, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0;

	while (len) {
		char esc[16];
		bool keep;
		size_t olen, used = unit(p, len, esc, &keep, &olen);

		if (o + olen + 1 > cap)
			break;
		memcpy(out + o, keep ? (const char *)p : esc, olen);
		o += olen;
		p += used;
		len -= used;
	}
	out[o] = '\0';
	return o;
}

char *ibs_text_clean(const char *s, size_t len)
{
	size_t cap = len * IBS_TEXT_GROWTH + 1;
	char *out = xmalloc(cap);

	return xrealloc(out, ibs_text_clean_buf(out, cap, s, len) + 1);
}

bool ibs_text_is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		char esc[16];
		bool keep;
		size_t olen, used = unit(p, n, esc, &keep, &olen);

		if (!keep)
			return false;
		p += used;
		n -= used;
	}
	return true;
}

void ibs_text_cut(char *s, size_t max)
{
	size_t n = strlen(s);

	if (n <= max)
		return;
	/* Back off continuation bytes: the cut falls before a whole character. */
	while (max && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	s[max] = '\0';
}

unsigned ibs_text_line_of(const char *buf, const char *at)
{
	unsigned ln = 1;

	for (; buf < at; buf++)
		ln += *buf == '\n';
	return ln;
}

int ibs_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

const char *ibs_guid_parse(const char *s, unsigned flags, uint64_t *out)
{
	uint64_t g = 0;
	size_t n = 0;
	int d;

	if (!(flags & IBS_GUID_BARE)) {
		if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return NULL;
		s += 2;
	}
	while ((d = ibs_hexval(s[n])) >= 0) {
		if (++n > 16)
			return NULL;
		g = g << 4 | (uint64_t)d;
	}
	if (!n)
		return NULL;
	*out = g;
	return s + n;
}

bool ibs_guid_parse_all(const char *s, uint64_t *out)
{
	uint64_t g;
	const char *end = ibs_guid_parse(s, 0, &g);

	if (!end || *end)
		return false;
	*out = g;
	return true;
}

char *ibs_guid_str(uint64_t guid, char buf[IBS_GUID_STR_LEN])
{
	static const char hex[] = "0123456789abcdef";
	int i;

	buf[0] = '0';
	buf[1] = 'x';
	for (i = 0; i < 16; i++)
		buf[2 + i] = hex[(guid >> (60 - 4 * i)) & 15];
	buf[18] = '\0';
	return buf;
}
