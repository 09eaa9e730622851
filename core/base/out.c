/* Output files written as `sort -o` and `curl -o` do (out.h). */
#define _GNU_SOURCE
#include "out.h"
#include "log.h"
#include "xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

enum out_kind {
	OUT_STDOUT,  /* fd 1 */
	OUT_DIRECT,  /* a device, FIFO, socket or /proc descriptor link, written in place */
	OUT_REPLACE, /* a temporary file renamed over the target */
	OUT_INPLACE, /* a temporary file copied into a hard-linked target */
};

/* Where a path leads, symlinks followed. */
enum out_dest {
	DEST_NEW,        /* nothing there yet */
	DEST_REGULAR,    /* a regular file */
	DEST_SPECIAL,    /* a device, FIFO, socket or directory */
	DEST_DESCRIPTOR, /* a link in /proc: an open file of some process */
};

#define OUT_TMP_PREFIX ".ibscan." /* short: a 255-byte name still has room beside it */
#define MAX_LINKS 40		  /* as the kernel's own limit on symlinks followed */

static char *dir_of(const char *path)
{
	const char *s = strrchr(path, '/');

	if (!s)
		return xstrdup(".");
	if (s == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(s - path));
}

static bool in_procfs(const char *path)
{
	char *dir = dir_of(path);
	struct statfs sf;
	bool r = statfs(dir, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;

	free(dir);
	return r;
}

/* A symlink's text, of any length; NULL with errno set on failure. */
static char *read_link(const char *path)
{
	size_t cap = 256;
	char *b = NULL;

	for (;;) {
		ssize_t n;
		b = xrealloc(b, cap);
		n = readlink(path, b, cap);
		if (n < 0) {
			int e = errno;
			free(b);
			errno = e;
			return NULL;
		}
		if ((size_t)n < cap) {
			b[n] = '\0';
			return b;
		}
		cap *= 2;
	}
}

/*
 * Follow path's symlinks one at a time to the file a write must reach:
 * *target (owned) and, unless DEST_NEW, its *st (lstat). Returns the kind,
 * or -1 with errno set.
 */
static int resolve(const char *path, char **target, struct stat *st)
{
	char *cur = xstrdup(path);
	int hops;

	for (hops = 0; hops <= MAX_LINKS; hops++) {
		char *link, *next;
		if (lstat(cur, st) != 0) {
			if (errno != ENOENT)
				break;
			*target = cur;
			return DEST_NEW;
		}
		if (!S_ISLNK(st->st_mode)) {
			*target = cur;
			return S_ISREG(st->st_mode) ? DEST_REGULAR : DEST_SPECIAL;
		}
		/* /dev/stdout leads to /proc/self/fd/1: what it names is open, not a place to replace. */
		if (in_procfs(cur)) {
			*target = cur;
			return DEST_DESCRIPTOR;
		}
		link = read_link(cur);
		if (!link)
			break;
		if (link[0] == '/') {
			next = link;
		} else {
			char *dir = dir_of(cur);
			next = xasprintf("%s/%s", dir, link);
			free(dir);
			free(link);
		}
		free(cur);
		cur = next;
	}
	if (hops > MAX_LINKS)
		errno = ELOOP;
	{
		int e = errno;
		free(cur);
		errno = e;
	}
	return -1;
}

/* N when link is /proc/<this process>/fd/N (/dev/stdout, /dev/fd/N), else -1. */
static int own_descriptor(const char *link)
{
	const char *base = strrchr(link, '/');
	char *dir, *real, *mine;
	char *end;
	long n;
	int fd = -1;

	if (!base || !base[1])
		return -1;
	n = strtol(base + 1, &end, 10);
	if (*end || base[1] < '0' || base[1] > '9' || n > INT_MAX)
		return -1;
	dir = dir_of(link);
	real = realpath(dir, NULL);
	mine = xasprintf("/proc/%ld/fd", (long)getpid());
	if (real && !strcmp(real, mine))
		fd = (int)n;
	free(dir);
	free(real);
	free(mine);
	return fd;
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
	if (o->tmp)
		unlink(o->tmp);
	if (o->kind != OUT_STDOUT && o->fd >= 0)
		close(o->fd);
	if (o->dst >= 0)
		close(o->dst);
	free(o->path);
	free(o->target);
	free(o->tmp);
	o->path = o->target = o->tmp = NULL;
	o->fd = o->dst = -1;
	o->fp = NULL;
}

static enum ibs_err out_fail(struct ibs_out *o, const char *what, int err)
{
	log_error("cannot %s '%s': %s", what, o->path, strerror(err));
	out_free(o);
	o->err = err;
	return IBS_E_IO;
}

/*
 * A file in dir with nothing pointing at it yet: O_TMPFILE, else a short
 * hidden name (*name). Its mode is set here, as readable as the umask says:
 * mkostemp makes 0600, and an open() wrapper may drop the mode argument of
 * O_TMPFILE (libumad2sim's passes it only with O_CREAT: files came out 0000).
 */
static int new_temp(const char *dir, char **name)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
	mode_t um;

	*name = NULL;
	if (fd < 0 && (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (fd < 0) {
		*name = xasprintf("%s/" OUT_TMP_PREFIX "XXXXXX", dir);
		fd = mkostemp(*name, O_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			free(*name);
			*name = NULL;
			errno = e;
			return -1;
		}
	}
	um = umask(0);
	umask(um);
	if (fchmod(fd, 0666 & ~um) != 0) {
		int e = errno;
		close(fd);
		if (*name)
			unlink(*name);
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

enum ibs_err ibs_out_open(struct ibs_out *o, const char *path)
{
	static const cookie_io_functions_t io = { NULL, out_write, NULL, out_close };
	struct stat st;
	char *dir;
	int dest;

	memset(o, 0, sizeof(*o));
	o->fd = o->dst = -1;
	if (!path || !strcmp(path, "-")) {
		/* What was printed before comes first. */
		fflush(stdout);
		o->kind = OUT_STDOUT;
		o->fd = STDOUT_FILENO;
		o->path = xstrdup("standard output");
		goto stream;
	}
	o->path = xstrdup(path);
	dest = resolve(path, &o->target, &st);
	if (dest < 0)
		return out_fail(o, "write", errno);
	if (dest == DEST_SPECIAL || dest == DEST_DESCRIPTOR) {
		int own = dest == DEST_DESCRIPTOR ? own_descriptor(o->target) : -1;
		o->kind = OUT_DIRECT;
		/* Our own descriptor is written as it is (its offset, its O_APPEND): as the shell set it up. */
		if (own >= 0)
			o->fd = fcntl(own, F_DUPFD_CLOEXEC, 0);
		else
			o->fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC | (dest == DEST_DESCRIPTOR ? O_APPEND : 0));
		if (o->fd < 0)
			return out_fail(o, "open", errno);
		/* Swapped for a regular file since lstat: that one would be overwritten in place. */
		if (dest == DEST_SPECIAL && fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode))
			return out_fail(o, "write", EAGAIN);
		goto stream;
	}
	if (dest == DEST_REGULAR) {
		if (faccessat(AT_FDCWD, o->target, W_OK, AT_EACCESS) != 0)
			return out_fail(o, "write", errno);
		if (st.st_nlink > 1) {
			struct stat now;
			o->dst = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			if (o->dst < 0)
				return out_fail(o, "write", errno);
			if (fstat(o->dst, &now) != 0 || now.st_ino != st.st_ino || now.st_dev != st.st_dev)
				return out_fail(o, "write", EAGAIN);
		}
	}
	o->kind = o->dst >= 0 ? OUT_INPLACE : OUT_REPLACE;
	dir = dir_of(o->target);
	o->fd = new_temp(dir, &o->tmp);
	free(dir);
	if (o->fd < 0) {
		int e = errno;
		out_fail(o, "write", e);
		if (e == EACCES || e == EPERM)
			log_hint("-o replaces a file through a new one in the same directory, which must be "
				 "writable for that");
		return IBS_E_IO;
	}
	if (o->kind == OUT_INPLACE && o->tmp) {
		/* It only holds the output until it is copied: no name needed. */
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (o->kind == OUT_REPLACE && dest == DEST_REGULAR) {
		int e = keep_attrs(o->fd, &st);
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

/* Name an O_TMPFILE file in dir, at a short random name; *name owned. Returns 0 or an errno. */
static int link_temp(int fd, const char *dir, char **name)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	char proc[64];
	int tries;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	for (tries = 0; tries < 100; tries++) {
		unsigned char r[8];
		char suffix[sizeof(r) + 1];
		size_t i;
		if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
			return errno ? errno : EIO;
		for (i = 0; i < sizeof(r); i++)
			suffix[i] = chars[r[i] % (sizeof(chars) - 1)];
		suffix[sizeof(r)] = '\0';
		*name = xasprintf("%s/" OUT_TMP_PREFIX "%s", dir, suffix);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc link works for the file's opener. */
		if (linkat(fd, "", AT_FDCWD, *name, AT_EMPTY_PATH) == 0 ||
		    linkat(AT_FDCWD, proc, AT_FDCWD, *name, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		free(*name);
		*name = NULL;
		if (errno != EEXIST)
			return errno;
	}
	return EEXIST;
}

/* Rename the finished file over the target; 0 or an errno. */
static int replace(struct ibs_out *o)
{
	char *dir = dir_of(o->target);
	int e = 0, dfd;

	if (fsync(o->fd) != 0)
		e = errno;
	if (!e && !o->tmp)
		e = link_temp(o->fd, dir, &o->tmp);
	if (!e && rename(o->tmp, o->target) != 0)
		e = errno;
	if (!e) {
		free(o->tmp);
		o->tmp = NULL;
		/* The rename itself on disk (best effort: not every file system can). */
		dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	free(dir);
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

void ibs_out_abort(struct ibs_out *o)
{
	if (o->fp)
		fclose(o->fp);
	out_free(o);
}

/* What a path would write to: a file's device and inode, or for a new name, its directory's and the name. */
static bool identity(const char *path, struct stat *st, char **name)
{
	char *target, *dir;
	int dest = resolve(path, &target, st);
	bool ok;

	*name = NULL;
	if (dest < 0)
		return false;
	if (dest != DEST_NEW) {
		ok = stat(target, st) == 0;
		free(target);
		return ok;
	}
	dir = dir_of(target);
	ok = stat(dir, st) == 0;
	if (ok)
		*name = xstrdup(strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	free(dir);
	free(target);
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
