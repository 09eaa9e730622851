/* A gzip member from a per-response head and a tail deflated once (gzip.h). */
#include "gzip.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/*
 * Raw deflate (no zlib or gzip wrapper: windowBits -15) at level 1: on the
 * 2,900-node tree's 48 MB page 0.2 s for 3.1 MB, where the default level 6
 * takes 1.0 s for 2.7 MB (docs/exporter.md), once per sweep.
 */
static int raw_init(z_stream *z)
{
	memset(z, 0, sizeof(*z));
	return deflateInit2(z, Z_BEST_SPEED, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
}

/* Deflate in[0..len) into buf from *at (buf grown as needed), ending with flush; 0 or -1. */
static int deflate_into(z_stream *z, const char *in, size_t len, int flush, unsigned char **buf, size_t *cap, size_t *at)
{
	int rc, f;
	size_t room;

	z->next_in = (unsigned char *)in;
	z->avail_in = 0;
	for (;;) {
		/* zlib counts in uInt: a large text goes in pieces (next_in moves on by itself). */
		if (!z->avail_in && len) {
			z->avail_in = len > (1u << 30) ? 1u << 30 : (uInt)len;
			len -= z->avail_in;
		}
		f = len ? Z_NO_FLUSH : flush;
		if (*cap - *at < 64) {
			*cap = *cap * 2 + 4096;
			*buf = xrealloc(*buf, *cap);
		}
		room = *cap - *at;
		z->next_out = *buf + *at;
		z->avail_out = room > (1u << 30) ? 1u << 30 : (uInt)room;
		rc = deflate(z, f);
		*at = (size_t)(z->next_out - *buf);
		if (rc == Z_STREAM_ERROR)
			return -1;
		/* Done: the stream ended (Z_FINISH), or all input in and the flush complete (room left over). */
		if (f == flush && (flush == Z_FINISH ? rc == Z_STREAM_END : !z->avail_in && z->avail_out))
			return 0;
	}
}

int gz_tail_make(const char *text, size_t len, struct gz_tail *out)
{
	z_stream z;
	size_t cap, at = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (raw_init(&z))
		return -1;
	cap = deflateBound(&z, (uLong)len) + 64;
	out->data = xmalloc(cap);
	rc = deflate_into(&z, text, len, Z_FINISH, &out->data, &cap, &at);
	deflateEnd(&z);
	if (rc) {
		gz_tail_free(out);
		return -1;
	}
	out->len = at;
	out->crc = (uint32_t)crc32_z(0, (const unsigned char *)text, len);
	out->text_len = len;
	return 0;
}

void gz_tail_free(struct gz_tail *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

static void le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

unsigned char *gz_head(const char *head, size_t len, const struct gz_tail *tail, size_t *out_len,
		       unsigned char trailer[8])
{
	/* ID1 ID2, CM deflate, no flags, MTIME 0 (none), XFL 0, OS 3 (Unix): RFC 1952 2.3. */
	static const unsigned char hdr[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
	z_stream z;
	size_t cap = len + 128, at = sizeof(hdr);
	unsigned char *buf;
	uint32_t crc = (uint32_t)crc32_z(0, (const unsigned char *)head, len);
	uint64_t total = len;
	int rc;

	if (raw_init(&z))
		return NULL;
	buf = xmalloc(cap);
	memcpy(buf, hdr, sizeof(hdr));
	/* A sync flush ends the head on a byte boundary with no final block: the tail's blocks follow. */
	rc = deflate_into(&z, head, len, tail ? Z_SYNC_FLUSH : Z_FINISH, &buf, &cap, &at);
	deflateEnd(&z);
	if (rc) {
		free(buf);
		return NULL;
	}
	if (tail) {
		crc = (uint32_t)crc32_combine(crc, tail->crc, (z_off_t)tail->text_len);
		total += tail->text_len;
	}
	le32(trailer, crc);
	le32(trailer + 4, (uint32_t)total); /* ISIZE: the length modulo 2^32 */
	if (!tail) {
		buf = xrealloc(buf, at + 8);
		memcpy(buf + at, trailer, 8);
		at += 8;
	}
	*out_len = at;
	return buf;
}
