/*
 * Last words of output files (out.h): what a run cut short by a signal, the
 * watchdog or running out of memory leaves where its outputs were going.
 * ibs_out_fatal runs in a signal handler: it reads only what was set before
 * an output was registered, and calls only async-signal-safe functions.
 */
#define _GNU_SOURCE
#include "out.h"
#include "out_int.h"
#include "xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* health's verdict and --record's capture: a run has at most a few. */
#define MAX_FATAL 4
static struct ibs_out *volatile registered[MAX_FATAL];

static void remember(struct ibs_out *o, int mode)
{
	size_t i;

	if (!o->fp || o->fatal)
		return;
	/* An unnamed file is put in place by linking it at a name chosen now, then renaming that. */
	if (o->kind == OUT_REPLACE && !o->tmp && out_temp_name(&o->fatal_tmp) != 0)
		return;
	snprintf(o->proc, sizeof(o->proc), "/proc/self/fd/%d", o->fd);
	o->fatal = mode;
	for (i = 0; i < MAX_FATAL; i++)
		if (!registered[i]) {
			registered[i] = o; /* last: the handler sees o only once all of it is set */
			return;
		}
	o->fatal = OUT_FATAL_NONE;
}

void ibs_out_last_words(struct ibs_out *o, char *const texts[IBS_N_FATAL], const size_t lens[IBS_N_FATAL])
{
	size_t i;

	for (i = 0; i < IBS_N_FATAL; i++) {
		o->texts[i] = xmalloc(lens[i] ? lens[i] : 1);
		memcpy(o->texts[i], texts[i], lens[i]);
		o->text_len[i] = lens[i];
	}
	remember(o, OUT_FATAL_TEXTS);
}

void ibs_out_keep_on_fatal(struct ibs_out *o)
{
	remember(o, OUT_FATAL_KEEP);
}

void out_fatal_forget(struct ibs_out *o)
{
	size_t i;

	o->state = 2;
	for (i = 0; i < MAX_FATAL; i++)
		if (registered[i] == o)
			registered[i] = NULL;
	for (i = 0; i < IBS_N_FATAL; i++) {
		free(o->texts[i]);
		o->texts[i] = NULL;
	}
	free(o->fatal_tmp);
	o->fatal_tmp = NULL;
	o->fatal = OUT_FATAL_NONE;
}

/* ---- from here on, async-signal-safe only ---- */

static int pwrite_all(int fd, const char *b, size_t n, off_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, b, n, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
		off += w;
	}
	return 0;
}

/* A pipe, a FIFO, a device: written from its offset. */
static void write_all(int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		b += w;
		n -= (size_t)w;
	}
}

/* The first n bytes of src into dst, which is cut to n: a hard-linked file rewritten in place. */
static void copy_into(int src, int dst, off_t n)
{
	char b[4096];
	off_t off = 0;

	while (off < n) {
		ssize_t r = pread(src, b, n - off < (off_t)sizeof(b) ? (size_t)(n - off) : sizeof(b), off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || pwrite_all(dst, b, (size_t)r, off) != 0)
			return;
		off += r;
	}
	/* Best effort from a dying process: nothing is left to report a failure to. */
	if (ftruncate(dst, n) == 0)
		(void)fsync(dst);
}

/* An unnamed temporary file linked at o->fatal_tmp (or already there, linked by the commit under way). */
static int linked(struct ibs_out *o)
{
	struct stat a, b;

	if (o->tmp)
		return 0;
	if (out_link_at(o->fd, o->proc, o->dir, o->fatal_tmp) == 0)
		return 0;
	if (errno != EEXIST || fstat(o->fd, &a) != 0 || fstatat(o->dir, o->fatal_tmp, &b, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino ? 0 : -1;
}

static void place(struct ibs_out *o, enum ibs_fatal cause)
{
	bool direct = o->kind == OUT_STDOUT || o->kind == OUT_DIRECT;
	off_t size;
	struct stat st;

	if (o->state == 2 || !o->fatal)
		return;
	if (o->state == 0 && o->fatal == OUT_FATAL_TEXTS) {
		/* Written in place: only where nothing went yet, or the reader would get half of each. */
		if (direct) {
			if (o->written == 0)
				write_all(o->fd, o->texts[cause], o->text_len[cause]);
			return;
		}
		if (ftruncate(o->fd, 0) != 0 || pwrite_all(o->fd, o->texts[cause], o->text_len[cause], 0) != 0)
			return;
	} else if (o->state == 0 && !direct && ftruncate(o->fd, o->mark) != 0) {
		return;
	}
	if (direct)
		return;
	if (o->kind == OUT_INPLACE) {
		size = fstat(o->fd, &st) == 0 ? st.st_size : 0;
		copy_into(o->fd, o->dst, size);
		return;
	}
	if (linked(o) == 0)
		(void)renameat(o->dir, o->tmp ? o->tmp : o->fatal_tmp, o->dir, o->name);
}

void ibs_out_fatal(enum ibs_fatal cause)
{
	int e = errno;
	size_t i;

	if ((unsigned)cause >= IBS_N_FATAL)
		cause = IBS_FATAL_SIGTERM;
	for (i = 0; i < MAX_FATAL; i++) {
		struct ibs_out *o = registered[i];
		if (o)
			place(o, cause);
	}
	errno = e;
}
