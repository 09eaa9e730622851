/* The replay index of a capture's text laid out straight into two unlinked temporary files (index.h). */
#define _GNU_SOURCE /* O_TMPFILE, mkostemp */
#include "index.h"
#include "index_int.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct tbuild {
	FILE *xf, *rf;     /* attempts; response bytes */
	struct slot *tab;  /* at most half full, grown as attempts come */
	uint32_t *last;    /* per slot: the last attempt of its request */
	size_t slots, n;
	uint64_t resp_len;
	uint32_t *links;   /* pairs (attempt, the next one of its request), set once the attempts are written */
	size_t nlinks, linkcap;
};

/*
 * The table is mapped, not malloc'd: glibc raises its threshold for
 * mapping a block to the size of a mapped block freed, and the walk's own
 * large blocks would then stay in the heap after use (5 MB more at 27k nodes).
 */
static void *tb_map(size_t n)
{
	void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		xalloc_die();
	return m;
}

static void tb_unmap(void *m, size_t n)
{
	if (m)
		munmap(m, n);
}

static void tb_grow(struct tbuild *b)
{
	size_t ns = b->slots ? b->slots * 2 : 1024, i;
	struct slot *nt = tb_map(ns * sizeof(*nt));
	uint32_t *nl = tb_map(ns * sizeof(*nl));

	for (i = 0; i < ns; i++)
		nt[i].first = UINT32_MAX;
	for (i = 0; i < b->slots; i++) {
		size_t s;
		if (b->tab[i].first == UINT32_MAX)
			continue;
		for (s = (size_t)(b->tab[i].key >> 20) & (ns - 1); nt[s].first != UINT32_MAX; s = (s + 1) & (ns - 1))
			;
		nt[s] = b->tab[i];
		nl[s] = b->last[i];
	}
	tb_unmap(b->tab, b->slots * sizeof(*b->tab));
	tb_unmap(b->last, b->slots * sizeof(*b->last));
	b->tab = nt;
	b->last = nl;
	b->slots = ns;
}

/* One exchange of the text: its attempt and response bytes written, its request's chain extended. */
static enum ibs_err tb_add(void *ctx, const struct ibs_cap_exchange *e, char **msg)
{
	static const uint8_t zeros[8];
	struct tbuild *b = ctx;
	struct ibs_capidx_x x;
	uint64_t key = ibs_capidx_key(&e->addr, e->req);
	size_t s;

	if (b->n >= UINT32_MAX / 2)
		return capidx_bad(msg, "too many exchanges for a replay index");
	if (b->n + 1 > b->slots / 2)
		tb_grow(b);
	for (s = (size_t)(key >> 20) & (b->slots - 1); b->tab[s].first != UINT32_MAX && b->tab[s].key != key;
	     s = (s + 1) & (b->slots - 1))
		;
	memset(&x, 0, sizeof(x));
	x.key = key;
	x.resp_off = b->resp_len;
	x.resp_len = (uint16_t)e->resp_len;
	x.resp_n = (uint16_t)capidx_stored(e);
	x.next = x.prev = UINT32_MAX;
	x.outcome = (uint8_t)e->outcome;
	x.status = (uint16_t)e->status;
	if (b->tab[s].first == UINT32_MAX) {
		b->tab[s].key = key;
		b->tab[s].first = (uint32_t)b->n;
	} else {
		x.prev = b->last[s];
		b->links = xgrow(b->links, &b->linkcap, b->nlinks + 2, sizeof(*b->links));
		b->links[b->nlinks++] = b->last[s];
		b->links[b->nlinks++] = (uint32_t)b->n;
	}
	b->tab[s].count++;
	b->last[s] = (uint32_t)b->n;
	fwrite(&x, sizeof(x), 1, b->xf);
	fwrite(e->resp, 1, x.resp_n, b->rf);
	fwrite(zeros, 1, capidx_pad8(x.resp_n) - x.resp_n, b->rf);
	b->resp_len += capidx_pad8(x.resp_n);
	b->n++;
	return IBS_OK;
}

/* An unlinked file in $TMPDIR (else /tmp), read and written through *rd and *wr; false with errno set. */
static bool tmp_file(const char *dir, int *rd, FILE **wr)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) {
		char *path = xasprintf("%s/ibscan-replay-XXXXXX", dir);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
		free(path);
	}
	if (fd < 0)
		return false;
	*rd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	*wr = *rd >= 0 ? fdopen(fd, "w") : NULL;
	if (!*wr) {
		int e = errno;
		if (*rd >= 0)
			close(*rd);
		close(fd);
		errno = e;
		return false;
	}
	return true;
}

static bool write_at(int fd, const void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = pwrite(fd, (const uint8_t *)buf + done, n - done, (off_t)(off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = EIO;
			return false;
		}
		done += (size_t)w;
	}
	return true;
}

enum ibs_err ibs_capidx_build_tmp(const char *cap_path, struct ibs_capidx **out, bool *tmp_failed, char **msg)
{
	const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct tbuild b;
	struct ibs_capture *head = NULL;
	struct ibs_capidx *ix;
	int xr = -1, rr = -1, err = 0;
	enum ibs_err rc;
	bool ok;
	size_t i;

	*out = NULL;
	*msg = NULL;
	*tmp_failed = false;
	memset(&b, 0, sizeof(b));
	if (!tmp_file(dir, &xr, &b.xf) || !tmp_file(dir, &rr, &b.rf)) {
		err = errno;
		goto tmp_fail;
	}
	tb_grow(&b);
	rc = ibs_capture_scan(cap_path, tb_add, &b, &head, msg);
	if (rc) {
		fclose(b.xf);
		fclose(b.rf);
		close(xr);
		close(rr);
		tb_unmap(b.tab, b.slots * sizeof(*b.tab));
		tb_unmap(b.last, b.slots * sizeof(*b.last));
		free(b.links);
		return rc;
	}
	/* The attempts written, link each to the next of its request, then the table after them. */
	ok = fflush(b.xf) == 0 && !ferror(b.xf) && fflush(b.rf) == 0 && !ferror(b.rf);
	for (i = 0; ok && i < b.nlinks; i += 2)
		ok = write_at(xr, &b.links[i + 1], sizeof(uint32_t),
			      (uint64_t)b.links[i] * sizeof(struct ibs_capidx_x) + offsetof(struct ibs_capidx_x, next));
	ok = ok && write_at(xr, b.tab, b.slots * sizeof(*b.tab), (uint64_t)b.n * sizeof(struct ibs_capidx_x));
	if (!ok)
		err = errno;
	/* The first failure names the cause: a write, else a close (a full disk may show only there). */
	if (fclose(b.xf) && ok) {
		ok = false;
		err = errno;
	}
	if (fclose(b.rf) && ok) {
		ok = false;
		err = errno;
	}
	b.xf = b.rf = NULL;
	tb_unmap(b.last, b.slots * sizeof(*b.last));
	free(b.links);
	if (!ok) {
		tb_unmap(b.tab, b.slots * sizeof(*b.tab));
		ibs_capture_free(head);
		goto tmp_fail;
	}
	ix = xcalloc(1, sizeof(*ix));
	ix->head = head;
	ix->h.n_x = b.n;
	ix->h.slots = b.slots;
	ix->h.x_off = 0;
	ix->h.tab_off = (uint64_t)b.n * sizeof(struct ibs_capidx_x);
	ix->h.resp_off = 0;
	ix->h.resp_len = b.resp_len;
	tb_unmap(b.tab, b.slots * sizeof(*b.tab));
	capidx_read_files(ix, xr, ix->h.tab_off + b.slots * sizeof(struct slot), rr, b.resp_len);
	*out = ix;
	return IBS_OK;
tmp_fail:
	if (b.xf)
		fclose(b.xf);
	if (b.rf)
		fclose(b.rf);
	if (xr >= 0)
		close(xr);
	if (rr >= 0)
		close(rr);
	*tmp_failed = true;
	*msg = xasprintf("cannot write a temporary index in %s: %s", dir, strerror(err ? err : EIO));
	return IBS_E_IO;
}
