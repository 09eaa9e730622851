/* Where a path to be written leads, symlinks followed only where the kernel would follow them. */
#define _GNU_SOURCE
#include "path.h"
#include "strbuf.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#define MAX_LINKS 40 /* as the kernel's own limit on symlinks followed */

/* A symlink's text, of any length; NULL with errno set on failure. */
static char *link_text(int dir, const char *name)
{
	size_t cap = 256;
	char *b = NULL;

	for (;;) {
		ssize_t n;
		b = xrealloc(b, cap);
		n = readlinkat(dir, name, b, cap);
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

static bool in_procfs(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

static bool sticky_world_writable(const struct stat *dst)
{
	return (dst->st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);
}

/* The kernel's may_follow_link(): the link's owner is us, or the directory is not sticky and world-writable, or its owner owns the link. */
static bool may_follow(const struct stat *dst, const struct stat *link)
{
	return !sticky_world_writable(dst) || link->st_uid == geteuid() || link->st_uid == dst->st_uid;
}

/* Move on to the directory name in *dir (opened from it, never through a symlink). */
static int enter(int *dir, const char *name, int flags)
{
	int nd = openat(*dir, name, O_PATH | O_DIRECTORY | O_CLOEXEC | flags);

	if (nd < 0)
		return errno;
	close(*dir);
	*dir = nd;
	return 0;
}

int ibs_where_resolve(const char *path, struct ibs_where *w, char **why)
{
	char *rest = xstrdup(path), *comp = NULL;
	struct strbuf shown = STRBUF_INIT; /* the directory reached, as a path, for messages */
	size_t pos = 0;
	int hops = 0, e = 0;

	memset(w, 0, sizeof(*w));
	w->dir = -1;
	*why = NULL;
	if (!*path) {
		free(rest);
		return ENOENT;
	}
	w->dir = open(path[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (w->dir < 0) {
		e = errno;
		goto out;
	}
	sb_adds(&shown, path[0] == '/' ? "/" : "");
	for (;;) {
		struct stat st;
		size_t n;
		bool last;
		char *text, *next;

		while (rest[pos] == '/')
			pos++;
		free(comp);
		if (!rest[pos]) {
			/* Nothing after the last slash: the path names the directory reached. */
			comp = xstrdup(".");
			last = true;
		} else {
			n = strcspn(rest + pos, "/");
			comp = xstrndup(rest + pos, n);
			pos += n;
			/* A trailing slash makes it a directory to enter, then ".". */
			last = !rest[pos];
		}
		if (fstatat(w->dir, comp, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			e = errno;
			if (e == ENOENT && last) {
				e = 0;
				w->kind = IBS_WHERE_NEW;
				break;
			}
			goto out;
		}
		if (!S_ISLNK(st.st_mode)) {
			if (last) {
				w->kind = IBS_WHERE_FILE;
				w->st = st;
				break;
			}
			if ((e = enter(&w->dir, comp, O_NOFOLLOW)) != 0)
				goto out;
			sb_addf(&shown, "%s/", comp);
			continue;
		}
		if (in_procfs(w->dir)) {
			/* /proc/self, /proc/self/fd/N: the kernel's own links, which no user can plant. */
			if (last) {
				w->kind = IBS_WHERE_PROC;
				w->st = st;
				break;
			}
			if ((e = enter(&w->dir, comp, 0)) != 0)
				goto out;
			sb_addf(&shown, "%s/", comp);
			continue;
		}
		if (++hops > MAX_LINKS) {
			e = ELOOP;
			goto out;
		}
		if (fstat(w->dir, &w->dst) != 0) {
			e = errno;
			goto out;
		}
		if (!may_follow(&w->dst, &st)) {
			char *link = xasprintf("%s%s", sb_str(&shown), comp);
			bool itself = !strcmp(link, path);
			*why = xasprintf("%s%s%s belongs to uid %u, not to this user (uid %u) nor to the owner of its sticky "
					 "world-writable directory, so it is not followed (the kernel's fs.protected_symlinks rule)",
					 itself ? "it is a symlink that" : "the symlink '", itself ? "" : link,
					 itself ? "" : "' on its way", (unsigned)st.st_uid, (unsigned)geteuid());
			free(link);
			e = EACCES;
			goto out;
		}
		text = link_text(w->dir, comp);
		if (!text) {
			e = errno;
			goto out;
		}
		if (!*text) {
			free(text);
			e = ENOENT;
			goto out;
		}
		if (text[0] == '/') {
			int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (root < 0) {
				e = errno;
				free(text);
				goto out;
			}
			close(w->dir);
			w->dir = root;
			sb_reset(&shown);
			sb_adds(&shown, "/");
		}
		next = xasprintf("%s%s", text, rest + pos);
		free(text);
		free(rest);
		rest = next;
		pos = 0;
	}
	if (fstat(w->dir, &w->dst) != 0) {
		e = errno;
		goto out;
	}
	w->name = comp;
	comp = NULL;
out:
	free(comp);
	free(rest);
	sb_free(&shown);
	if (e)
		ibs_where_free(w);
	return e;
}

void ibs_where_free(struct ibs_where *w)
{
	if (w->dir >= 0)
		close(w->dir);
	free(w->name);
	w->dir = -1;
	w->name = NULL;
}

int ibs_where_may_write(const struct ibs_where *w, char **why)
{
	const char *rule;

	*why = NULL;
	if (w->kind != IBS_WHERE_FILE || !sticky_world_writable(&w->dst))
		return 0;
	if (S_ISREG(w->st.st_mode))
		rule = "fs.protected_regular";
	else if (S_ISFIFO(w->st.st_mode))
		rule = "fs.protected_fifos";
	else
		return 0;
	if (w->st.st_uid == geteuid() || w->st.st_uid == w->dst.st_uid)
		return 0;
	*why = xasprintf("it belongs to uid %u, not to this user (uid %u) nor to the owner of its sticky "
			 "world-writable directory (the kernel's %s rule)",
			 (unsigned)w->st.st_uid, (unsigned)geteuid(), rule);
	return EACCES;
}
