/*
 * Where a path to be written leads, found one component at a time from a
 * directory descriptor: a symlink is followed only where the kernel's
 * fs.protected_symlinks rule would follow it, whatever that sysctl says.
 */
#ifndef IBSCAN_PATH_H
#define IBSCAN_PATH_H

#include <sys/stat.h>

enum ibs_where_kind {
	IBS_WHERE_NEW,  /* nothing there yet: name would be made in dir */
	IBS_WHERE_FILE, /* a file of any type but a symlink: st */
	IBS_WHERE_PROC, /* a symlink in /proc: an open file (/dev/stdout, /proc/self/fd/N), st of the link */
};

struct ibs_where {
	enum ibs_where_kind kind;
	int dir;         /* an O_PATH descriptor of the directory that holds name */
	char *name;      /* one component (no '/'), "." for a path that names a directory */
	struct stat st;  /* the entry itself (not followed), unless IBS_WHERE_NEW */
	struct stat dst; /* the directory */
};

/*
 * Resolve path: 0, or an errno. Every directory on the way is opened from
 * the one before it with O_NOFOLLOW, so that what is checked is what is
 * used. A symlink on the way (or at the end) is followed when its owner is
 * this process's, when its directory is not both sticky and world-writable,
 * or when the directory's owner owns it too (the kernel's rule, which
 * protects root from links other users plant in /tmp); else EACCES, with
 * *why (owned) the one-line reason. A symlink in procfs (a magic link to an
 * open file) is passed through to the kernel: no user can plant one there.
 */
int ibs_where_resolve(const char *path, struct ibs_where *w, char **why);
void ibs_where_free(struct ibs_where *w);

/*
 * A regular file or FIFO that exists in a sticky world-writable directory
 * is written only by its owner or the directory's owner, as the kernel's
 * fs.protected_regular and fs.protected_fifos rules have it for `sort -o`
 * and a shell's `>`: 0, or EACCES with *why (owned) the reason.
 */
int ibs_where_may_write(const struct ibs_where *w, char **why);

#endif
