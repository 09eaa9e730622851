/*
 * Replay index images (see index.h; layout in docs/capture-format.md).
 *
 *   header (136 bytes) | capture header text | attempts[n] | table[slots] | response bytes
 *
 * Every section starts on an 8-byte boundary. The table is open addressing
 * on the request key (at most half full); each used slot names the first
 * attempt of its request, and attempts of one request are chained forward
 * in file order. The checksum covers every byte, the header too (with the
 * checksum field as zero), so a damaged index is refused before any of it
 * is believed.
 *
 * This file hashes and builds an index and writes it; index_read.c checks
 * one and answers from it.
 */
#include "index.h"
#include "index_int.h"
#include "../base/out.h"
#include "../base/log.h"
#include "../base/mapping.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(struct hdr) == 136, "index header is 136 bytes");
_Static_assert(sizeof(struct ibs_capidx_x) == 32, "index attempts are 32 bytes");
_Static_assert(sizeof(struct slot) == 16, "index slots are 16 bytes");

static inline uint64_t rotl(uint64_t v, int r)
{
	return (v << r) | (v >> (64 - r));
}

static inline uint64_t mix(uint64_t h, uint64_t w)
{
	h ^= rotl(w * 0xc2b2ae3d27d4eb4full, 31) * 0x9e3779b97f4a7c15ull;
	return rotl(h, 27) * 0x9e3779b97f4a7c15ull + 0x85ebca77c2b2ae63ull;
}

static inline uint64_t final(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/*
 * Four lanes, so that the multiplies of neighbouring words overlap instead
 * of waiting for each other: a key is computed for every MAD replayed.
 */
uint64_t ibs_capidx_key(const struct ibs_addr *a, const uint8_t mad[IBS_MAD_SIZE])
{
	uint64_t l[4] = { 0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull };
	uint8_t w[64] = { 0 };
	unsigned i;

	if (!a->lid)
		memcpy(w, a->path + 1, a->hops < 63 ? a->hops : 63);
	l[0] = mix(l[0], (uint64_t)a->lid << 8 | (a->lid ? 0 : a->hops));
	for (i = 0; !a->lid && i < 64 && i < a->hops; i += 8)
		l[1] = mix(l[1], load64(w + i));
	/* Word 1 (bytes 8-15) is the TID: it never takes part. */
	l[2] = mix(l[2], load64(mad));
	l[3] = mix(l[3], load64(mad + 16));
	l[0] = mix(l[0], load64(mad + 24));
	l[1] = mix(l[1], load64(mad + 32));
	l[2] = mix(l[2], load64(mad + 40));
	l[3] = mix(l[3], load64(mad + 48));
	l[0] = mix(l[0], load64(mad + 56));
	for (i = 64; i < IBS_MAD_SIZE; i += 32) {
		l[0] = mix(l[0], load64(mad + i));
		l[1] = mix(l[1], load64(mad + i + 8));
		l[2] = mix(l[2], load64(mad + i + 16));
		l[3] = mix(l[3], load64(mad + i + 24));
	}
	return final(l[0] ^ rotl(l[1], 15) ^ rotl(l[2], 31) ^ rotl(l[3], 47));
}

/*
 * Over whole 8-byte words (every section is padded to 8), four lanes. With
 * ix (a mapped index), the pages read are let go of every megabyte.
 */
static uint64_t checksum(const struct ibs_capidx *ix, const uint8_t *p, size_t n)
{
	uint64_t l[4] = { 0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull };
	size_t i;

	for (i = 0; i + 32 <= n; i += 32) {
		if (ix && i && !(i & SETTLE_BYTES_MASK))
			capidx_settle(ix);
		l[0] = mix(l[0], load64(p + i));
		l[1] = mix(l[1], load64(p + i + 8));
		l[2] = mix(l[2], load64(p + i + 16));
		l[3] = mix(l[3], load64(p + i + 24));
	}
	for (; i + 8 <= n; i += 8)
		l[0] = mix(l[0], load64(p + i));
	return final(l[0] ^ rotl(l[1], 15) ^ rotl(l[2], 31) ^ rotl(l[3], 47) ^ n);
}

/* The whole image's checksum: the header with its checksum field as zero, then the rest. */
uint64_t capidx_image_checksum(const struct ibs_capidx *ix, const struct hdr *h, const uint8_t *body, size_t n)
{
	struct hdr z = *h;

	z.checksum = 0;
	return final(mix(checksum(NULL, (const uint8_t *)&z, sizeof(z)), checksum(ix, body, n)));
}

#define SAMPLE_BLOCK 4096
#define SAMPLE_BLOCKS 64

/*
 * A hash of the bytes of a capture of size bytes: every block of 4 KiB of
 * one up to 64 blocks long, else 64 blocks spread evenly over it, the first
 * and the last among them (256 KiB read, whatever the size). Each block is
 * hashed with its offset and length, zeros after its end to a whole word.
 */
static bool sample_hash(int fd, uint64_t size, uint64_t *out)
{
	uint64_t h = 0x510e527fade682d1ull, k, n = (size + SAMPLE_BLOCK - 1) / SAMPLE_BLOCK;
	uint8_t b[SAMPLE_BLOCK];

	if (n > SAMPLE_BLOCKS)
		n = SAMPLE_BLOCKS;
	for (k = 0; k < n; k++) {
		uint64_t off = size <= (uint64_t)SAMPLE_BLOCKS * SAMPLE_BLOCK ? k * SAMPLE_BLOCK
									   : (size - SAMPLE_BLOCK) * k / (SAMPLE_BLOCKS - 1);
		size_t len = size - off < SAMPLE_BLOCK ? (size_t)(size - off) : SAMPLE_BLOCK, got = 0;
		memset(b, 0, sizeof(b));
		while (got < len) {
			ssize_t r = pread(fd, b + got, len - got, (off_t)(off + got));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				if (!r)
					errno = EIO; /* shorter than it said: changing as it is read */
				return false;
			}
			got += (size_t)r;
		}
		h = mix(h, off);
		h = mix(h, checksum(NULL, b, (len + 7) & ~(size_t)7) ^ len);
	}
	*out = final(h ^ size);
	return true;
}

bool ibs_capidx_src_of(const char *cap_path, struct ibs_capidx_src *src)
{
	struct stat st;
	int fd = -1, e;
	bool ok;

	memset(src, 0, sizeof(*src));
	/* Only a regular file is opened and sampled: opening a FIFO would take a reader from its writer. */
	if (stat(cap_path, &st) != 0)
		return false;
	if (S_ISREG(st.st_mode) && ((fd = open(cap_path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 || fstat(fd, &st) != 0)) {
		e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
		return false;
	}
	src->size = (uint64_t)st.st_size;
	src->ino = (uint64_t)st.st_ino;
	src->mtime_s = (int64_t)st.st_mtim.tv_sec;
	src->mtime_ns = (int64_t)st.st_mtim.tv_nsec;
	src->uid = (uint32_t)st.st_uid;
	ok = fd < 0 || !S_ISREG(st.st_mode) || sample_hash(fd, src->size, &src->sample);
	e = errno;
	if (fd >= 0)
		close(fd);
	errno = e;
	return ok;
}


enum ibs_err ibs_capidx_build(const struct ibs_capture *c, const struct ibs_capidx_src *src, struct ibs_capidx **out,
			      char **msg)
{
	struct hdr h;
	struct slot *tab;
	struct ibs_capidx_x *xs;
	uint32_t *last;
	size_t i, text_len, resp_len = 0, slots, total;
	char *text = ibs_capture_header_text(c, &text_len);
	uint8_t *buf;
	enum ibs_err rc;

	struct ibs_cap_exchange one, *e = &one;
	size_t pos = 0;

	while (ibs_capture_next(c, &pos, e))
		resp_len += capidx_pad8(capidx_stored(e));
	for (slots = 64; slots < c->n * 2; slots *= 2)
		;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, MAGIC, sizeof(MAGIC));
	h.version = IBS_CAPIDX_VERSION;
	h.endian = ENDIAN_MARK;
	if (src) {
		h.cap_size = src->size;
		h.cap_ino = src->ino;
		h.cap_mtime_s = src->mtime_s;
		h.cap_mtime_ns = src->mtime_ns;
		h.cap_sample = src->sample;
	}
	h.n_x = c->n;
	h.slots = slots;
	h.text_off = sizeof(h);
	h.text_len = text_len;
	h.x_off = h.text_off + capidx_pad8(text_len);
	h.tab_off = h.x_off + c->n * sizeof(*xs);
	h.resp_off = h.tab_off + slots * sizeof(*tab);
	h.resp_len = resp_len;
	total = h.resp_off + resp_len;
	h.file_size = total;

	buf = xcalloc(1, total);
	memcpy(buf + h.text_off, text, text_len);
	free(text);
	xs = (struct ibs_capidx_x *)(buf + h.x_off);
	tab = (struct slot *)(buf + h.tab_off);
	for (i = 0; i < slots; i++)
		tab[i].first = UINT32_MAX;
	last = xmalloc(slots * sizeof(*last));
	resp_len = 0;
	pos = 0;
	for (i = 0; ibs_capture_next(c, &pos, e); i++) {
		uint64_t key = ibs_capidx_key(&e->addr, e->req);
		size_t s = (size_t)(key >> 20) & (slots - 1);

		while (tab[s].first != UINT32_MAX && tab[s].key != key)
			s = (s + 1) & (slots - 1);
		xs[i].key = key;
		xs[i].resp_off = resp_len;
		xs[i].resp_len = (uint16_t)e->resp_len;
		xs[i].resp_n = (uint16_t)capidx_stored(e);
		xs[i].next = xs[i].prev = UINT32_MAX;
		xs[i].outcome = (uint8_t)e->outcome;
		xs[i].status = (uint16_t)e->status;
		memcpy(buf + h.resp_off + resp_len, e->resp, xs[i].resp_n);
		resp_len += capidx_pad8(xs[i].resp_n);
		if (tab[s].first == UINT32_MAX) {
			tab[s].key = key;
			tab[s].first = (uint32_t)i;
		} else {
			xs[last[s]].next = (uint32_t)i;
			xs[i].prev = last[s];
		}
		tab[s].count++;
		last[s] = (uint32_t)i;
	}
	free(last);
	memcpy(buf, &h, sizeof(h));
	ibs_capidx_seal(buf, total);
	/* The builder's work passes the reader's checks too, or it is a bug. */
	rc = ibs_capidx_from_mem(buf, total, true, NULL, out, msg);
	if (rc) {
		char *why = *msg;
		*msg = xasprintf("internal error: a built index fails its own check: %s", why);
		free(why);
		free(buf);
	}
	return rc;
}

void ibs_capidx_seal(void *buf, size_t len)
{
	struct hdr h;
	uint64_t sum;

	if (len < sizeof(struct hdr))
		return;
	memcpy(&h, buf, sizeof(h));
	sum = capidx_image_checksum(NULL, &h, (const uint8_t *)buf + sizeof(struct hdr), len - sizeof(struct hdr));
	memcpy((uint8_t *)buf + offsetof(struct hdr, checksum), &sum, sizeof(sum));
}

enum ibs_err ibs_capidx_write(const struct ibs_capidx *ix, const char *path, char **msg)
{
	struct ibs_out o;
	enum ibs_err rc;

	/* ibs_out says what failed, with the reason; a failed write shows at commit. */
	*msg = NULL;
	if ((rc = ibs_out_open(&o, path)) != IBS_OK)
		return rc;
	/* Replay believes an index only where no one but its owner may write it. */
	ibs_out_restrict(&o, S_IWGRP | S_IWOTH);
	fwrite(ix->buf, 1, ix->len, o.fp);
	return ibs_out_commit(&o);
}
