/*
 * One gzip member (RFC 1952) made of a small text that changes every time
 * and a large one deflated once: the large one's raw deflate stream
 * (gz_tail) is kept, and each response deflates only its head, ends that
 * with a sync flush (byte-aligned, not final) and appends the kept stream
 * and a trailer whose CRC-32 is combined from the two (zlib's
 * crc32_combine). The exporter's /metrics: its own status lines per
 * scrape, the sweep's metrics compressed once per sweep.
 */
#ifndef IBSCAN_GZIP_H
#define IBSCAN_GZIP_H

#include <stddef.h>
#include <stdint.h>

/* The tail: raw deflate data ending with the final block, its text's CRC-32 and length. */
struct gz_tail {
	unsigned char *data;
	size_t len;
	uint32_t crc;
	size_t text_len;
};

/* Deflate text[0..len) as a tail (free with gz_tail_free). 0, or -1 where zlib failed. */
int gz_tail_make(const char *text, size_t len, struct gz_tail *out);
void gz_tail_free(struct gz_tail *t);

/*
 * A member's start: the gzip header and head[0..len) deflated, flushed to
 * a byte boundary (final where tail is NULL: then the member's trailer is
 * appended too, and *out is the whole member). Returns the bytes
 * (malloc'ed) and their count in *out_len; NULL where zlib failed.
 * Where tail is given, send the result, tail->data, then gz_trailer's 8
 * bytes.
 */
unsigned char *gz_head(const char *head, size_t len, const struct gz_tail *tail, size_t *out_len,
		       unsigned char trailer[8]);

#endif
