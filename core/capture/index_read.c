/*
 * Replay index images, checked and read (layout in docs/capture-format.md;
 * index.c builds them): every offset, length and chain link is checked
 * before any of it is believed, and an index too large to map is read
 * through windows of its file.
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
	if (capidx_image_checksum(ix, h, ix->buf + sizeof(*h), ix->len - sizeof(*h)) != h->checksum)
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
			capidx_settle(ix);
		if (!attempt_ok(h, i, &ix->x[i]))
			return capidx_bad(msg, "attempt %zu is inconsistent", i);
	}
	for (i = 0; i < h->slots; i++) {
		const struct slot *s = &ix->tab[i];
		if (!(i * sizeof(*s) & SETTLE_BYTES_MASK))
			capidx_settle(ix);
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
	capidx_settle(ix);
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
void capidx_settle(const struct ibs_capidx *ix)
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
