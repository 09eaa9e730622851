/* Reading sysfs as untrusted input: its attribute files (bounded, regular files only, cleaned), directories and symlinks, and the parsers of attribute text. */
#define _GNU_SOURCE
#include "sysfs.h"
#include "../core/base/text.h"
#include "../core/base/xalloc.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool ibs_sysfs_parse_guid(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned group, digits;

	for (group = 0; group < 4; group++) {
		unsigned g = 0;
		for (digits = 0; ibs_hexval(*s) >= 0; s++, digits++) {
			if (digits == 4)
				return false;
			g = g << 4 | (unsigned)ibs_hexval(*s);
		}
		if (digits == 0)
			return false;
		v = v << 16 | g;
		if (group < 3 && *s++ != ':')
			return false;
	}
	if (*s)
		return false;
	*out = v;
	return true;
}

bool ibs_sysfs_parse_gid(const char *s, uint8_t gid[16])
{
	struct in6_addr a;

	if (strlen(s) > INET6_ADDRSTRLEN)
		return false;
	if (inet_pton(AF_INET6, s, &a) != 1)
		return false;
	memcpy(gid, a.s6_addr, 16);
	return true;
}

bool ibs_sysfs_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	unsigned base = 10;
	int d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		d = ibs_hexval(*s);
		if (d < 0 || (unsigned)d >= base)
			return false;
		if (v > (max - (uint64_t)d) / base)
			return false;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return true;
}

bool ibs_sysfs_parse_enum(const char *s, int *num, char **name)
{
	uint64_t v = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > 255)
			return false;
	}
	if (*p++ != ':')
		return false;
	while (*p == ' ')
		p++;
	if (!*p)
		return false;
	*num = (int)v;
	*name = xstrdup(p);
	return true;
}

/*
 * The kernel's rate_show() (drivers/infiniband/core/sysfs.c) prints
 * "%d%s Gb/sec (%dX%s)": the rate, ".5" for SDR/DDR fractions, the width and
 * the speed name with a leading space.
 */
bool ibs_sysfs_parse_rate(const char *s, double *gbps, unsigned *width, char **speed)
{
	const char *p = s, *sp;
	uint64_t whole = 0, w = 0;
	double frac = 0, scale = 0.1;
	size_t n;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > 1000000)
			return false;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (strncmp(p, " Gb/sec (", 9))
		return false;
	p += 9;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		w = w * 10 + (uint64_t)(*p - '0');
		if (w > 64)
			return false;
	}
	if (*p++ != 'X')
		return false;
	sp = NULL;
	if (*p == ' ') {
		sp = ++p;
		while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			p++;
		if (p == sp || p - sp > 16)
			return false;
	}
	if (p[0] != ')' || p[1])
		return false;
	n = sp ? (size_t)(p - sp) : 0;
	*gbps = (double)whole + frac;
	*width = (unsigned)w;
	*speed = sp ? xstrndup(sp, n) : NULL;
	return true;
}

/*
 * One attribute: a regular file (O_NONBLOCK: a FIFO planted in a tree must
 * not hang us), at most IBS_SYSFS_ATTR_MAX bytes, no NUL, trailing white
 * space trimmed. NULL when any of that fails, as for an absent file.
 */
static char *read_path(const char *path)
{
	struct stat st;
	char *buf, *clean;
	size_t n = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	buf = xmalloc(IBS_SYSFS_ATTR_MAX + 2);
	for (;;) {
		r = read(fd, buf + n, IBS_SYSFS_ATTR_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		if (n > IBS_SYSFS_ATTR_MAX)
			break;
	}
	close(fd);
	/* An error (the kernel answers EINVAL for an empty GID's type), or too long. */
	if (r < 0 || n > IBS_SYSFS_ATTR_MAX || memchr(buf, '\0', n)) {
		free(buf);
		return NULL;
	}
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		n--;
	/* Shown to people and put in JSON: cleaned like every string ibscan takes in. */
	clean = ibs_text_clean(buf, n);
	free(buf);
	return clean;
}

char *ibs_sysfs_attr(const char *fmt, ...)
{
	va_list ap;
	char *path, *v;

	va_start(ap, fmt);
	path = xvasprintf(fmt, ap);
	va_end(ap);
	v = read_path(path);
	free(path);
	return v;
}

/* An attribute parsed as an unsigned number, or -1. */
int64_t ibs_sysfs_attr_num(uint64_t max, char *s)
{
	uint64_t v;
	int64_t r = -1;

	if (s && ibs_sysfs_parse_uint(s, max, &v))
		r = (int64_t)v;
	free(s);
	return r;
}

/* The target of a symlink, fully resolved, or NULL. */
char *ibs_sysfs_resolve(const char *fmt, ...)
{
	va_list ap;
	char *path, *r;

	va_start(ap, fmt);
	path = xvasprintf(fmt, ap);
	va_end(ap);
	r = realpath(path, NULL);
	free(path);
	return r;
}

/* "0000:3b:00.0": a PCI domain (4 to 8 hex digits), bus, device, function. */
static bool is_pci_addr(const char *s)
{
	size_t i, d = 0;

	while (ibs_hexval(s[d]) >= 0)
		d++;
	if (d < 4 || d > 8 || s[d] != ':')
		return false;
	s += d + 1;
	for (i = 0; i < 2; i++)
		if (ibs_hexval(s[i]) < 0)
			return false;
	if (s[2] != ':' || ibs_hexval(s[3]) < 0 || ibs_hexval(s[4]) < 0 || s[5] != '.' || s[6] < '0' || s[6] > '7' || s[7])
		return false;
	return true;
}

char *ibs_sysfs_pci_name(const char *resolved)
{
	const char *b;

	if (!resolved)
		return NULL;
	b = strrchr(resolved, '/');
	b = b ? b + 1 : resolved;
	return is_pci_addr(b) ? xstrdup(b) : NULL;
}

static bool name_ok(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

static int cmp_vers(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of a directory (printable names only, at most max), in natural order. */
char **ibs_sysfs_list_dir(const char *path, size_t max, size_t *n)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)) && *n < max) {
		if (!name_ok(e->d_name))
			continue;
		v = xgrow(v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_vers);
	return v;
}

void ibs_sysfs_free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* "0", "1", "17": decimal without leading zeros, at most limit. */
static bool parse_index(const char *s, unsigned limit, unsigned *out)
{
	uint64_t v;

	if ((s[0] == '0' && s[1]) || s[0] < '0' || s[0] > '9' || !ibs_sysfs_parse_uint(s, limit, &v))
		return false;
	*out = (unsigned)v;
	return true;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Entries named by a number (ports, GID indices), ascending. */
unsigned *ibs_sysfs_list_indices(const char *path, size_t max, unsigned limit, size_t *n)
{
	size_t i, k = 0, m;
	char **names = ibs_sysfs_list_dir(path, max, &m);
	unsigned *v = xcalloc(m ? m : 1, sizeof(*v));

	for (i = 0; i < m; i++)
		if (parse_index(names[i], limit, &v[k]))
			k++;
	ibs_sysfs_free_list(names, m);
	qsort(v, k, sizeof(*v), cmp_uint);
	*n = k;
	return v;
}
