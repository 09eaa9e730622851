/*
 * Untrusted text: the one function that cleans every string ibscan takes in
 * (NodeDescriptions from the wire, captures, baselines, caches, node-name
 * maps, sysfs), the one strict GUID parser for everything read from a file
 * or a command line (docs/reliability.md describes both), and the one way
 * GUIDs are written.
 */
#ifndef IBSCAN_TEXT_H
#define IBSCAN_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A cleaned string is at most this many times longer than its input. */
#define IBS_TEXT_GROWTH 4

/*
 * Clean s[0..len): valid UTF-8 that can be shown stays as it is (non-ASCII
 * letters included); everything else is escaped visibly, never passed on:
 *   - a byte that is not part of valid UTF-8 (or a NUL): \xNN (NN >= 80, or 00)
 *   - an ASCII control character (tab, newline, ESC ... and DEL): \xNN
 *   - a code point that is a C1 control (U+0080..U+009F), a bidi control or
 *     another invisible format character (U+200B..U+200F, U+202A..U+202E,
 *     U+2060..U+206F, U+FEFF ...), a line or paragraph separator or a
 *     noncharacter: \u{hex}
 * The result holds only printable characters: no byte below 0x20, no 0x7f,
 * no C1 control in either form, and it is valid UTF-8. Cleaning is
 * idempotent. The escapes are for people: a string that literally holds
 * "\x1b" looks the same as one that held ESC.
 */
char *ibs_text_clean(const char *s, size_t len);
/*
 * The same into out[cap] (cap >= 1), NUL-terminated, keeping only whole
 * characters and whole escapes; returns the length written. For fixed-size
 * fields and for inputs that must be cut (e.g. a description of any length).
 */
size_t ibs_text_clean_buf(char *out, size_t cap, const char *s, size_t len);
/* True when s is what ibs_text_clean() returns for it (for tests and fuzzing). */
bool ibs_text_is_clean(const char *s);
/* Cut s (a cleaned string) to at most max bytes at a character boundary. */
void ibs_text_cut(char *s, size_t max);

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if none; *cp gets its code point. */
size_t ibs_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* The value of a hex digit, or -1. */
int ibs_hexval(char c);

/* The line (from 1) of text buf that at points into: for errors that name FILE:LINE. */
unsigned ibs_text_line_of(const char *buf, const char *at);

/* The hex digits alone, without "0x" (ibnetdiscover writes port GUIDs and node ids so). */
#define IBS_GUID_BARE 1u
/*
 * A GUID at s: "0x" (or "0X") and 1 to 16 hex digits, or with IBS_GUID_BARE
 * the digits alone. No sign, no blanks, no overflow (strtoull takes all
 * three). Returns the first character after the GUID, or NULL when s does
 * not start with one; the caller says what may follow.
 */
const char *ibs_guid_parse(const char *s, unsigned flags, uint64_t *out);
/* The whole of s is one GUID in "0x" form. */
bool ibs_guid_parse_all(const char *s, uint64_t *out);
/* "0x" and 16 hex digits, as ibscan writes every GUID. */
#define IBS_GUID_STR_LEN 19
char *ibs_guid_str(uint64_t guid, char buf[IBS_GUID_STR_LEN]);
/* For messages: what a GUID must look like. */
#define IBS_GUID_WANT "0x and 1 to 16 hex digits"

#endif
