/* Output files written as `sort -o` and `curl -o` do (out.h), placed through directory descriptors. */
#define _GNU_SOURCE
#include "out.h"
#include "out_int.h"
#include "log.h"
#include "path.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* N when name in the directory dst is /proc/<this process>/fd/N (/dev/stdout, /dev/fd/N), else -1. */
static int own_descriptor(const char *name, const struct stat *dst)
{
	struct stat self;
	char *end;
	long n;

	if (name[0] < '0' || name[0] > '9')
		return -1;
	errno = 0;
	n = strtol(name, &end, 10);
	if (errno || *end || n > INT_MAX)
		return -1;
	/* The directory the walk reached is our own fd directory (held open, so the same inode). */
	if (stat("/proc/self/fd", &self) != 0 || self.st_dev != dst->st_dev || self.st_ino != dst->st_ino)
		return -1;
	return (int)n;
}

/* The stream's writes: every byte, or the first error kept in o->err. */
static ssize_t out_write(void *cookie, const char *buf, size_t n)
{
	struct ibs_out *o = cookie;
	size_t off = 0;

	while (off < n) {
		ssize_t w = write(o->fd, buf + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!o->err)
				o->err = w < 0 ? errno : EIO;
			return off ? (ssize_t)off : -1;
		}
		off += (size_t)w;
		o->written += w;
	}
	return (ssize_t)n;
}

/* The descriptor is closed by ibs_out itself, where its error can be reported. */
static int out_close(void *cookie)
{
	(void)cookie;
	return 0;
}

static void out_free(struct ibs_out *o)
{
	out_fatal_forget(o);
	if (o->tmp)
		unlinkat(o->dir, o->tmp, 0);
	if (o->kind != OUT_STDOUT && o->fd >= 0)
		close(o->fd);
	if (o->dst >= 0)
		close(o->dst);
	if (o->dir >= 0)
		close(o->dir);
	free(o->path);
	free(o->name);
	free(o->tmp);
	o->path = o->name = o->tmp = NULL;
	o->fd = o->dst = o->dir = -1;
	o->fp = NULL;
}

static enum ibs_err out_fail(struct ibs_out *o, const char *what, int err)
{
	log_error("cannot %s '%s': %s", what, o->path, strerror(err));
	out_free(o);
	o->err = err;
	return IBS_E_IO;
}

/* A rule of the kernel's refused the path: said in one line, with the rule. */
static enum ibs_err out_refuse(struct ibs_out *o, char *why)
{
	log_error("refusing to write '%s': %s", o->path, why);
	free(why);
	out_free(o);
	o->err = EACCES;
	return IBS_E_IO;
}

/* OUT_TMP_PREFIX and 8 random letters or digits. */
int out_temp_name(char **name)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[8];
	char suffix[sizeof(r) + 1];
	size_t i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return errno ? errno : EIO;
	for (i = 0; i < sizeof(r); i++)
		suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
	suffix[sizeof(r)] = '\0';
	*name = xasprintf(OUT_TMP_PREFIX "%s", suffix);
	return 0;
}

/*
 * A file in dir with nothing pointing at it yet: O_TMPFILE, else a short
 * hidden name (*name). Its mode is set here, as readable as the umask says:
 * a named one is made 0600, and an open() wrapper may drop the mode
 * argument of O_TMPFILE (libumad2sim's passes it only with O_CREAT: files
 * came out 0000).
 */
static int new_temp(int dir, char **name)
{
	int fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666), tries, e;
	mode_t um;

	*name = NULL;
	if (fd < 0 && (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	for (tries = 0; fd < 0 && tries < 100; tries++) {
		if ((e = out_temp_name(name)) != 0) {
			errno = e;
			return -1;
		}
		fd = openat(dir, *name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			e = errno;
			free(*name);
			*name = NULL;
			errno = e;
			if (e != EEXIST)
				return -1;
		}
	}
	if (fd < 0)
		return -1;
	um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		e = errno;
		close(fd);
		if (*name)
			unlinkat(dir, *name, 0);
		free(*name);
		*name = NULL;
		errno = e;
		return -1;
	}
	return fd;
}

/* The replaced file's owner, group and permission bits, as far as this process may give them. */
static int keep_attrs(int fd, const struct stat *st)
{
	mode_t mode = st->st_mode & 0777;

	if (fchown(fd, st->st_uid, st->st_gid) != 0 && fchown(fd, (uid_t)-1, st->st_gid) != 0)
		mode &= ~(mode_t)070; /* another group now: its members get nothing the old one had */
	return fchmod(fd, mode) != 0 ? errno : 0;
}

/* A device, FIFO, socket or /proc descriptor link: opened and written where it is. */
static enum ibs_err open_direct(struct ibs_out *o, const struct ibs_where *w)
{
	int own = w->kind == IBS_WHERE_PROC ? own_descriptor(o->name, &w->dst) : -1;
	struct stat st;

	o->kind = OUT_DIRECT;
	/* Our own descriptor is written as it is (its offset, its O_APPEND): as the shell set it up. */
	if (own >= 0)
		o->fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
	else if (w->kind == IBS_WHERE_PROC) /* the kernel follows its own link: /proc is not sticky */
		o->fd = openat(o->dir, o->name, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_APPEND);
	else
		o->fd = openat(o->dir, o->name, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	if (o->fd < 0)
		return out_fail(o, "open", errno);
	/* Swapped for a regular file since it was looked at: that one would be overwritten in place. */
	if (w->kind == IBS_WHERE_FILE && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode))
		return out_fail(o, "write", EAGAIN);
	return IBS_OK;
}

enum ibs_err ibs_out_open(struct ibs_out *o, const char *path)
{
	static const cookie_io_functions_t io = { NULL, out_write, NULL, out_close };
	struct ibs_where w;
	char *why = NULL;
	int e;

	memset(o, 0, sizeof(*o));
	o->fd = o->dst = o->dir = -1;
	if (!path || !strcmp(path, "-")) {
		/* What was printed before comes first. */
		fflush(stdout);
		o->kind = OUT_STDOUT;
		o->fd = STDOUT_FILENO;
		o->path = xstrdup("standard output");
		goto stream;
	}
	o->path = xstrdup(path);
	e = ibs_where_resolve(path, &w, &why);
	if (!e)
		e = ibs_where_may_write(&w, &why);
	/* From here the directory and the name are o's, freed with it. */
	o->dir = w.dir;
	o->name = w.name;
	w.dir = -1;
	w.name = NULL;
	if (why)
		return out_refuse(o, why);
	if (e)
		return out_fail(o, "write", e);
	if (w.kind == IBS_WHERE_PROC || (w.kind == IBS_WHERE_FILE && !S_ISREG(w.st.st_mode))) {
		if (open_direct(o, &w) != IBS_OK)
			return IBS_E_IO;
		goto stream;
	}
	if (w.kind == IBS_WHERE_FILE) {
		if (faccessat(o->dir, o->name, W_OK, AT_EACCESS) != 0)
			return out_fail(o, "write", errno);
		if (w.st.st_nlink > 1) {
			struct stat now;
			o->dst = openat(o->dir, o->name, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
			if (o->dst < 0)
				return out_fail(o, "write", errno);
			if (fstat(o->dst, &now) != 0 || now.st_ino != w.st.st_ino || now.st_dev != w.st.st_dev)
				return out_fail(o, "write", EAGAIN);
		}
	}
	o->kind = o->dst >= 0 ? OUT_INPLACE : OUT_REPLACE;
	o->fd = new_temp(o->dir, &o->tmp);
	if (o->fd < 0) {
		e = errno;
		out_fail(o, "write", e);
		if (e == EACCES || e == EPERM)
			log_hint("-o replaces a file through a new one in the same directory, which must be "
				 "writable for that");
		return IBS_E_IO;
	}
	if (o->kind == OUT_INPLACE && o->tmp) {
		/* It only holds the output until it is copied: no name needed. */
		unlinkat(o->dir, o->tmp, 0);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (o->kind == OUT_REPLACE && w.kind == IBS_WHERE_FILE) {
		e = keep_attrs(o->fd, &w.st);
		if (e)
			return out_fail(o, "write", e);
	}
stream:
	o->fp = fopencookie(o, "w", io);
	if (!o->fp)
		return out_fail(o, "write", errno);
	setvbuf(o->fp, NULL, _IOFBF, 65536);
	return IBS_OK;
}

int out_link_at(int fd, const char *proc, int dir, const char *name)
{
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc link works for the file's opener. */
	if (linkat(fd, "", dir, name, AT_EMPTY_PATH) == 0 || linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	return errno;
}

/*
 * Name o's O_TMPFILE file in its directory (o->tmp): at the name its last
 * words chose (a fatal end meanwhile links it there too), else at a short
 * random one. 0 or an errno.
 */
static int link_temp(struct ibs_out *o)
{
	char proc[32], *name;
	int tries, e;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	if (o->fatal_tmp) {
		if ((e = out_link_at(o->fd, proc, o->dir, o->fatal_tmp)) != 0)
			return e;
		o->tmp = xstrdup(o->fatal_tmp);
		return 0;
	}
	for (tries = 0; tries < 100; tries++) {
		if ((e = out_temp_name(&name)) != 0)
			return e;
		if ((e = out_link_at(o->fd, proc, o->dir, name)) == 0) {
			o->tmp = name;
			return 0;
		}
		free(name);
		if (e != EEXIST)
			return e;
	}
	return EEXIST;
}

/* Rename the finished file over the target, in its directory; 0 or an errno. */
static int replace(struct ibs_out *o)
{
	int e = 0, dfd;

	if (fsync(o->fd) != 0)
		e = errno;
	if (!e && !o->tmp)
		e = link_temp(o);
	if (!e && renameat(o->dir, o->tmp, o->dir, o->name) != 0)
		e = errno;
	if (!e) {
		free(o->tmp);
		o->tmp = NULL;
		/* The rename itself on disk (best effort: not every file system can, nor every directory be read). */
		dfd = openat(o->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	return e;
}

/*
 * Copy the finished output into a hard-linked file: space first (so a full
 * disk leaves it whole), then the bytes, then the length. 0 or an errno;
 * *touched once the file itself was written.
 */
static int copy_in_place(struct ibs_out *o, bool *touched)
{
	off_t n = lseek(o->fd, 0, SEEK_END), off = 0;
	char *buf;
	int e = 0;

	*touched = false;
	if (n < 0 || lseek(o->fd, 0, SEEK_SET) < 0)
		return errno;
	if (n > 0 && fallocate(o->dst, FALLOC_FL_KEEP_SIZE, 0, n) != 0 && errno != EOPNOTSUPP && errno != ENOSYS)
		return errno;
	buf = xmalloc(65536);
	*touched = true;
	while (!e && off < n) {
		ssize_t r = read(o->fd, buf, 65536), w = 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;
			break;
		}
		while (w < r) {
			ssize_t k = pwrite(o->dst, buf + w, (size_t)(r - w), off + w);
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				e = k < 0 ? errno : EIO;
				break;
			}
			w += k;
		}
		off += w;
	}
	free(buf);
	if (!e && ftruncate(o->dst, n) != 0)
		e = errno;
	if (!e && fsync(o->dst) != 0)
		e = errno;
	return e;
}

enum ibs_err ibs_out_commit(struct ibs_out *o)
{
	bool touched = false;
	int e;

	if (!o->fp)
		return IBS_E_IO;
	if (fflush(o->fp) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	fclose(o->fp);
	o->fp = NULL;
	e = o->err;
	/* Complete: a fatal end from here puts this in place, not the last words. */
	if (!e)
		o->state = 1;
	if (!e && o->kind == OUT_REPLACE)
		e = replace(o);
	else if (!e && o->kind == OUT_INPLACE)
		e = copy_in_place(o, &touched);
	if (!e && o->kind != OUT_STDOUT && close(o->fd) != 0)
		e = errno;
	o->fd = o->kind == OUT_STDOUT ? o->fd : -1;
	if (!e && o->dst >= 0 && close(o->dst) != 0)
		e = errno;
	o->dst = -1;
	o->err = e;
	if (e && e != EPIPE && o->kind == OUT_STDOUT)
		log_error("cannot write to standard output: %s", strerror(e));
	else if (e && e != EPIPE)
		log_error("cannot write '%s': %s%s", o->path, strerror(e),
			  touched ? " (it has other hard links, so it was rewritten in place: it may be incomplete)" : "");
	out_free(o);
	return e ? IBS_E_IO : IBS_OK;
}

int ibs_out_mark(struct ibs_out *o)
{
	if (fflush(o->fp) != 0 || o->err) {
		if (!o->err)
			o->err = errno ? errno : EIO;
		return -1;
	}
	o->mark = o->written;
	return 0;
}

int ibs_out_restrict(struct ibs_out *o, mode_t bits)
{
	struct stat st;

	if (o->kind != OUT_REPLACE)
		return 0;
	if (fstat(o->fd, &st) != 0 || fchmod(o->fd, st.st_mode & 07777 & ~bits) != 0)
		return errno;
	return 0;
}

void ibs_out_abort(struct ibs_out *o)
{
	if (o->fp)
		fclose(o->fp);
	out_free(o);
}

/*
 * What a path would write to: an existing file's device and inode (as the
 * kernel opens it), or for a new name, its directory's and the name.
 */
static bool identity(const char *path, struct stat *st, char **name)
{
	struct ibs_where w;
	char *why = NULL;
	bool ok;

	*name = NULL;
	if (stat(path, st) == 0)
		return true;
	if (errno != ENOENT || ibs_where_resolve(path, &w, &why) != 0) {
		free(why);
		return false;
	}
	ok = w.kind == IBS_WHERE_NEW;
	if (ok) {
		*st = w.dst;
		*name = xstrdup(w.name);
	}
	ibs_where_free(&w);
	return ok;
}

bool ibs_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *na, *nb;
	bool same;

	if (!identity(a, &sa, &na))
		return false;
	if (!identity(b, &sb, &nb)) {
		free(na);
		return false;
	}
	same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && !na == !nb && (!na || !strcmp(na, nb));
	free(na);
	free(nb);
	return same;
}
