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

static void settle(const struct ibs_capidx *ix);

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
			settle(ix);
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
static uint64_t image_checksum(const struct ibs_capidx *ix, const struct hdr *h, const uint8_t *body, size_t n)
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
	sum = image_checksum(NULL, &h, (const uint8_t *)buf + sizeof(struct hdr), len - sizeof(struct hdr));
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

enum ibs_err capidx_bad(char **msg, const char *why, ...)
{
	va_list ap;

	va_start(ap, why);
	*msg = xvasprintf(why, ap);
	va_end(ap);
	return IBS_E_INPUT;
}

/* off + n within len, and off aligned to 8. */
static bool section_ok(uint64_t off, uint64_t n, uint64_t elem, size_t len)
{
	if (off % 8 || off > len)
		return false;
	if (elem && n > (len - off) / elem)
		return false;
	return elem ? true : n <= len - off;
}

/* An attempt as the header allows it: offsets, lengths and chain links (forward only). */
static bool attempt_ok(const struct hdr *h, uint64_t i, const struct ibs_capidx_x *x)
{
	return x->outcome <= IBS_CAP_NONE && x->resp_len <= IBS_MAD_SIZE && x->resp_n <= x->resp_len &&
	       x->resp_off <= h->resp_len && x->resp_n <= h->resp_len - x->resp_off &&
	       (x->prev == UINT32_MAX || x->prev < i) && (x->next == UINT32_MAX || (x->next > i && x->next < h->n_x));
}

static enum ibs_err check(struct ibs_capidx *ix, const struct ibs_capidx_src *src, char **msg)
{
	const struct hdr *h = &ix->h;
	char *hmsg = NULL;
	size_t i;

	if (ix->len < sizeof(*h))
		return capidx_bad(msg, "not an ibscan replay index");
	memcpy(&ix->h, ix->buf, sizeof(ix->h));
	if (memcmp(h->magic, MAGIC, sizeof(MAGIC)))
		return capidx_bad(msg, "not an ibscan replay index");
	if (h->endian != ENDIAN_MARK)
		return capidx_bad(msg, "written on a machine of the other byte order");
	if (h->version != IBS_CAPIDX_VERSION)
		return capidx_bad(msg, "index version %u is not supported (this ibscan reads version %d)", h->version,
			   IBS_CAPIDX_VERSION);
	if (h->file_size != ix->len)
		return capidx_bad(msg, "truncated or extended: %zu bytes where the header says %llu", ix->len,
			   (unsigned long long)h->file_size);
	if (image_checksum(ix, h, ix->buf + sizeof(*h), ix->len - sizeof(*h)) != h->checksum)
		return capidx_bad(msg, "checksum mismatch: the index is damaged");
	if (src && (h->cap_size != src->size || h->cap_ino != src->ino || h->cap_mtime_s != src->mtime_s ||
		    h->cap_mtime_ns != src->mtime_ns)) {
		*msg = xasprintf("stale: the capture changed after the index was written");
		return IBS_E_NOTFOUND;
	}
	if (src && h->cap_sample != src->sample) {
		*msg = xasprintf("stale: the capture's bytes changed after the index was written (its size, inode "
				 "and time did not)");
		return IBS_E_NOTFOUND;
	}
	if (h->n_x >= UINT32_MAX || h->slots < 64 || h->slots & (h->slots - 1) || h->slots / 2 < h->n_x ||
	    h->text_off != sizeof(*h) || !section_ok(h->text_off, h->text_len, 0, ix->len) ||
	    h->x_off != sizeof(*h) + capidx_pad8(h->text_len) ||
	    !section_ok(h->x_off, h->n_x, sizeof(struct ibs_capidx_x), ix->len) ||
	    h->tab_off != h->x_off + h->n_x * sizeof(struct ibs_capidx_x) ||
	    !section_ok(h->tab_off, h->slots, sizeof(struct slot), ix->len) ||
	    h->resp_off != h->tab_off + h->slots * sizeof(struct slot) ||
	    !section_ok(h->resp_off, h->resp_len, 0, ix->len) || h->resp_off + h->resp_len != ix->len)
		return capidx_bad(msg, "inconsistent section layout");
	ix->x = (const struct ibs_capidx_x *)(ix->buf + h->x_off);
	ix->tab = (const struct slot *)(ix->buf + h->tab_off);
	ix->resp = ix->buf + h->resp_off;
	for (i = 0; i < h->n_x; i++) {
		if (!(i * sizeof(struct ibs_capidx_x) & SETTLE_BYTES_MASK))
			settle(ix);
		if (!attempt_ok(h, i, &ix->x[i]))
			return capidx_bad(msg, "attempt %zu is inconsistent", i);
	}
	for (i = 0; i < h->slots; i++) {
		const struct slot *s = &ix->tab[i];
		if (!(i * sizeof(*s) & SETTLE_BYTES_MASK))
			settle(ix);
		if (s->first != UINT32_MAX && s->first >= h->n_x)
			return capidx_bad(msg, "table slot %zu is inconsistent", i);
	}
	/* The header text is a capture with no exchanges. */
	if (ibs_capture_parse("index header", (const char *)ix->buf + h->text_off, h->text_len, &ix->head, &hmsg)) {
		enum ibs_err rc = capidx_bad(msg, "bad capture header: %s", hmsg);
		free(hmsg);
		return rc;
	}
	if (ix->head->n)
		return capidx_bad(msg, "bad capture header: it holds exchanges");
	settle(ix);
	return IBS_OK;
}

/* An image in memory (own: freed with the index) or mapped (unmapped with it). */
static enum ibs_err load(const void *buf, size_t len, bool own, bool mapped, const struct ibs_capidx_src *src,
			 struct ibs_capidx **out, char **msg)
{
	struct ibs_capidx *ix = xcalloc(1, sizeof(*ix));
	enum ibs_err rc;

	*out = NULL;
	*msg = NULL;
	ix->buf = buf;
	ix->len = len;
	ix->own = own;
	ix->mapped = mapped;
	/* The header is read in place: the buffer must be 8-byte aligned. */
	if ((uintptr_t)buf % 8)
		rc = capidx_bad(msg, "misaligned buffer");
	else
		rc = check(ix, src, msg);
	if (rc) {
		ix->own = ix->mapped = false;
		ibs_capidx_free(ix);
		return rc;
	}
	*out = ix;
	return IBS_OK;
}

enum ibs_err ibs_capidx_from_mem(const void *buf, size_t len, bool own, const struct ibs_capidx_src *src,
				 struct ibs_capidx **out, char **msg)
{
	return load(buf, len, own, false, src, out, msg);
}

/*
 * The index is checked through a mapping, a megabyte at a time, its pages
 * let go of as the checks move on (copying the 65 MB of the largest one
 * was a sixth of its replay). Then it is unmapped and read (fetch): replay
 * holds two small windows of it, never the index. A file cut short in
 * place by someone else raises SIGBUS on the next read of a lost page
 * while mapped (the command line turns that into a message, cmd/signals.c)
 * and a short read after; `capture index` itself replaces by rename.
 */
static struct window *window_on(int fd, uint64_t end, size_t cap)
{
	struct window *w = xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->end = end;
	w->cap = cap;
	return w;
}

void capidx_read_files(struct ibs_capidx *ix, int xfd, uint64_t xend, int rfd, uint64_t rend)
{
	if (ix->mapped)
		munmap((void *)ix->buf, ix->len);
	else if (ix->own)
		free((void *)ix->buf);
	ix->buf = NULL;
	ix->own = ix->mapped = false;
	ix->x = NULL;
	ix->tab = NULL;
	ix->resp = NULL;
	ix->wx = window_on(xfd, xend, WINDOW_X_BYTES);
	ix->wr = window_on(rfd, rend, WINDOW_RESP_BYTES);
}

enum ibs_err ibs_capidx_open(const char *path, const struct ibs_capidx_src *src, struct ibs_capidx **out,
			     char **msg)
{
	struct stat st;
	void *m;
	enum ibs_err rc;
	/* O_NONBLOCK: a FIFO planted where the index would be must be refused below, not block open(). */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rfd;

	*out = NULL;
	*msg = NULL;
	if (fd < 0) {
		*msg = xasprintf("cannot open: %s", strerror(errno));
		return IBS_E_IO;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*msg = xasprintf("not a regular file");
		close(fd);
		return IBS_E_IO;
	}
	/* Whoever may write the index decides what replay says: only we, or the capture's owner, may. */
	if (st.st_uid != geteuid() && (!src || st.st_uid != src->uid)) {
		*msg = xasprintf("not trusted: it belongs to uid %u, neither this user (uid %u) nor the capture's owner "
				 "(uid %u)",
				 (unsigned)st.st_uid, (unsigned)geteuid(), src ? (unsigned)src->uid : (unsigned)geteuid());
		close(fd);
		return IBS_E_NOTFOUND;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		*msg = xasprintf("not trusted: its group or others may write it (mode %04o)", (unsigned)(st.st_mode & 07777));
		close(fd);
		return IBS_E_NOTFOUND;
	}
	if ((uint64_t)st.st_size < sizeof(struct hdr) || (uint64_t)st.st_size > IBS_CAPIDX_MAX_BYTES) {
		close(fd);
		return capidx_bad(msg, "%lld bytes is not the size of an index", (long long)st.st_size);
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		*msg = xasprintf("cannot map: %s", strerror(errno));
		close(fd);
		return IBS_E_IO;
	}
	ibs_mapping_begin(path, "the replay index was cut short while in use (replaced in place?); run again");
	rc = load(m, (size_t)st.st_size, false, true, src, out, msg);
	ibs_mapping_end();
	if (rc) {
		munmap(m, (size_t)st.st_size);
		close(fd);
		return rc;
	}
	/* Checked: from now on it is read, not mapped. */
	rfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (rfd < 0) {
		*msg = xasprintf("cannot open it twice: %s", strerror(errno));
		ibs_capidx_free(*out);
		*out = NULL;
		close(fd);
		return IBS_E_IO;
	}
	capidx_read_files(*out, fd, (uint64_t)st.st_size, rfd, (uint64_t)st.st_size);
	return IBS_OK;
}

/* Unmodified private pages of a file: dropped, they are read again from the page cache when touched. */
static void settle(const struct ibs_capidx *ix)
{
	if (ix->mapped)
		(void)madvise((void *)ix->buf, ix->len, MADV_DONTNEED);
}

void ibs_capidx_free(struct ibs_capidx *ix)
{
	if (!ix)
		return;
	ibs_capture_free(ix->head);
	if (ix->wx) {
		close(ix->wx->fd);
		free(ix->wx->b);
	}
	if (ix->wr) {
		close(ix->wr->fd);
		free(ix->wr->b);
	}
	free(ix->wx);
	free(ix->wr);
	if (ix->mapped)
		munmap((void *)ix->buf, ix->len);
	else if (ix->own)
		free((void *)ix->buf);
	free(ix);
}

const struct ibs_capture *ibs_capidx_header(const struct ibs_capidx *ix)
{
	return ix->head;
}

size_t ibs_capidx_count(const struct ibs_capidx *ix)
{
	return (size_t)ix->h.n_x;
}

size_t ibs_capidx_size(const struct ibs_capidx *ix)
{
	return ix->len;
}

/* n bytes at off of the file, all of them, else *msg says why. */
static enum ibs_err read_at(int fd, void *dst, size_t n, uint64_t off, char **msg)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (uint8_t *)dst + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return capidx_bad(msg, "cannot read it: %s", strerror(errno));
		if (r == 0)
			return capidx_bad(msg, "cut short (nothing at byte %llu)", (unsigned long long)(off + got));
		got += (size_t)r;
	}
	return IBS_OK;
}

/*
 * n bytes at off of the image into dst. A file is read, not mapped: pages
 * of a mapping stay resident until let go of, and a fault maps a whole
 * folio of the page cache (64 KB and more), so reading about randomly
 * through a mapping held megabytes where the walk needs a few bytes.
 */
static enum ibs_err fetch(const struct ibs_capidx *ix, struct window *w, bool alone, uint64_t off, size_t n,
			  void *dst, char **msg)
{
	enum ibs_err rc;
	uint64_t start;
	size_t want;

	if (ix->buf) {
		memcpy(dst, ix->buf + off, n);
		__asm__ __volatile__("" ::: "memory"); /* the copy is what is checked and used */
		return IBS_OK;
	}
	if (alone) /* the table: looked up anywhere */
		return read_at(w->fd, dst, n, off, msg);
	if (!(off >= w->off && off - w->off + n <= w->n)) {
		/*
		 * Just past its end: the window moves on, keeping half of it
		 * behind. Elsewhere, a read by itself; but where reads keep
		 * missing it, the window goes there.
		 */
		if (w->n && !(off >= w->off + w->n && off < w->off + w->n + w->cap / 4) && ++w->missed < 8)
			return read_at(w->fd, dst, n, off, msg);
		w->missed = 0;
		start = off > w->cap / 2 ? off - w->cap / 2 : 0;
		want = start < w->end ? (size_t)(w->end - start) : 0;
		if (want > w->cap)
			want = w->cap;
		if (want < off - start + n)
			return read_at(w->fd, dst, n, off, msg);
		if (!w->b)
			w->b = xmalloc(w->cap);
		w->n = 0;
		if ((rc = read_at(w->fd, w->b, want, start, msg)) != IBS_OK)
			return rc;
		w->off = start;
		w->n = want;
	}
	w->missed = 0;
	memcpy(dst, w->b + (off - w->off), n);
	return IBS_OK;
}

enum ibs_err ibs_capidx_first(const struct ibs_capidx *ix, uint64_t key, uint32_t *first, char **msg)
{
	size_t mask = (size_t)ix->h.slots - 1, s = (size_t)(key >> 20) & mask, probes;
	struct slot sl;
	enum ibs_err rc;

	*first = UINT32_MAX;
	/* At most half the slots were used when it was checked; a changed table still ends in slots probes. */
	for (probes = 0; probes <= mask; probes++) {
		if ((rc = fetch(ix, ix->wx, true, ix->h.tab_off + s * sizeof(sl), sizeof(sl), &sl, msg)) != IBS_OK)
			return rc;
		if (sl.first == UINT32_MAX)
			return IBS_OK;
		if (sl.key == key) {
			if (sl.first >= ix->h.n_x)
				return capidx_bad(msg, "table slot %zu is inconsistent", s);
			*first = sl.first;
			return IBS_OK;
		}
		s = (s + 1) & mask;
	}
	return IBS_OK;
}

enum ibs_err ibs_capidx_get(const struct ibs_capidx *ix, uint32_t i, struct ibs_capidx_x *x, char **msg)
{
	enum ibs_err rc;

	if (i >= ix->h.n_x)
		return capidx_bad(msg, "attempt %u is beyond the %llu it holds", i, (unsigned long long)ix->h.n_x);
	if ((rc = fetch(ix, ix->wx, false, ix->h.x_off + (uint64_t)i * sizeof(*x), sizeof(*x), x, msg)) != IBS_OK)
		return rc;
	if (!attempt_ok(&ix->h, i, x))
		return capidx_bad(msg, "attempt %u is inconsistent", i);
	return IBS_OK;
}

enum ibs_err ibs_capidx_resp(const struct ibs_capidx *ix, const struct ibs_capidx_x *x, uint8_t out[IBS_MAD_SIZE],
			     char **msg)
{
	/* x was checked by ibs_capidx_get: resp_n <= 256 and its bytes lie in the section. */
	return fetch(ix, ix->wr, false, ix->h.resp_off + x->resp_off, x->resp_n, out, msg);
}
