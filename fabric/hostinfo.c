/* The host view: RDMA devices, ports, GID tables and IPoIB interfaces read from sysfs, as untrusted input. */
#define _GNU_SOURCE
#include "hostinfo.h"
#include "../core/base/gid.h"
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

/* Bounds on what one host may list: far above real machines, low enough to stay quick on a hostile tree. */
#define MAX_DEVS 1024
#define MAX_PORTS 256
#define MAX_GIDS 4096
#define MAX_NETDEVS 4096

/* ---- parsers ---- */

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

/* ---- reading sysfs ---- */

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

static char *__attribute__((format(printf, 1, 2))) attr(const char *fmt, ...)
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
static int64_t attr_num(uint64_t max, char *s)
{
	uint64_t v;
	int64_t r = -1;

	if (s && ibs_sysfs_parse_uint(s, max, &v))
		r = (int64_t)v;
	free(s);
	return r;
}

/* The target of a symlink, fully resolved, or NULL. */
static char *__attribute__((format(printf, 1, 2))) resolve(const char *fmt, ...)
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

static char *pci_name(const char *resolved)
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
static char **list_dir(const char *path, size_t max, size_t *n)
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

static void free_list(char **v, size_t n)
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
static unsigned *list_indices(const char *path, size_t max, unsigned limit, size_t *n)
{
	size_t i, k = 0, m;
	char **names = list_dir(path, max, &m);
	unsigned *v = xcalloc(m ? m : 1, sizeof(*v));

	for (i = 0; i < m; i++)
		if (parse_index(names[i], limit, &v[k]))
			k++;
	free_list(names, m);
	qsort(v, k, sizeof(*v), cmp_uint);
	*n = k;
	return v;
}

/* ---- the model ---- */

static void load_gids(const char *dir, struct ibs_host_port *p)
{
	size_t i, n;
	char *path = xasprintf("%s/gids", dir);
	unsigned *idx = list_indices(path, MAX_GIDS, 0xffff, &n);
	size_t cap = 0;

	free(path);
	for (i = 0; i < n; i++) {
		struct ibs_host_gid g;
		char *s = attr("%s/gids/%u", dir, idx[i]);
		memset(&g, 0, sizeof(g));
		/* Empty entries are all zeros; show_gids skips them too. */
		if (!s || !ibs_sysfs_parse_gid(s, g.gid) || ibs_gid_is_zero(g.gid)) {
			free(s);
			continue;
		}
		free(s);
		g.index = idx[i];
		g.type = attr("%s/gid_attrs/types/%u", dir, idx[i]);
		g.netdev = attr("%s/gid_attrs/ndevs/%u", dir, idx[i]);
		p->gids = xgrow(p->gids, &cap, p->n_gids + 1, sizeof(*p->gids));
		p->gids[p->n_gids++] = g;
	}
	free(idx);
}

static enum ibs_gid_type gid_type(const char *s)
{
	return !s			? IBS_GID_UNKNOWN
	       : !strcmp(s, "RoCE v2")	? IBS_GID_ROCE_V2
	       : !strcmp(s, "IB/RoCE v1") ? IBS_GID_IB_ROCE_V1
					: IBS_GID_UNKNOWN;
}

/* What `ibscan ping` would choose on this port: the first GID of the best rank (core/base/gid.h). */
static void probe_gid(struct ibs_host_port *p)
{
	const char *why;
	int best = -1, r;
	size_t i;

	p->probe_gid = -1;
	if (!p->link_layer || strcmp(p->link_layer, "Ethernet"))
		return;
	for (i = 0; i < p->n_gids; i++) {
		r = ibs_gid_rank(p->gids[i].gid, gid_type(p->gids[i].type), &why);
		if (best < 0 || r < best) {
			best = r;
			p->probe_gid = (int)i;
		}
	}
}

static void load_port(const char *devdir, unsigned port, struct ibs_host_port *p)
{
	char *dir = xasprintf("%s/ports/%u", devdir, port);
	char *s;
	unsigned w;
	int num;

	memset(p, 0, sizeof(*p));
	p->num = port;
	p->state_num = -1;
	p->rate_gbps = -1;
	s = attr("%s/state", dir);
	if (!s || !ibs_sysfs_parse_enum(s, &p->state_num, &p->state))
		p->state_num = -1;
	free(s);
	s = attr("%s/phys_state", dir);
	if (!s || !ibs_sysfs_parse_enum(s, &num, &p->phys_state))
		p->phys_state = NULL;
	free(s);
	p->rate = attr("%s/rate", dir);
	if (p->rate && ibs_sysfs_parse_rate(p->rate, &p->rate_gbps, &w, &p->speed))
		p->width = xasprintf("%ux", w);
	else
		p->rate_gbps = -1;
	p->lid = attr_num(0xffff, attr("%s/lid", dir));
	p->sm_lid = attr_num(0xffff, attr("%s/sm_lid", dir));
	p->lmc = attr_num(7, attr("%s/lid_mask_count", dir));
	p->link_layer = attr("%s/link_layer", dir);
	load_gids(dir, p);
	probe_gid(p);
	free(dir);
}

/* Known Mellanox/NVIDIA virtual function device IDs (the mlx4 and mlx5 drivers' PCI tables). */
static bool known_vf_id(int64_t vendor, int64_t device)
{
	static const int64_t vf_ids[] = { 0x1004, 0x1012, 0x1014, 0x1016, 0x1018, 0x101a, 0x101c, 0x101e, 0xa2d3 };
	size_t i;

	if (vendor != 0x15b3)
		return false;
	for (i = 0; i < sizeof(vf_ids) / sizeof(vf_ids[0]); i++)
		if (device == vf_ids[i])
			return true;
	return false;
}

static void load_pci(struct ibs_host_dev *d, const char *pcidir)
{
	char *s;

	d->vendor_id = d->device_id = d->sriov_totalvfs = d->sriov_numvfs = -1;
	d->pci = pci_name(pcidir);
	if (!d->pci)
		return;
	d->vendor_id = attr_num(0xffff, attr("%s/vendor", pcidir));
	d->device_id = attr_num(0xffff, attr("%s/device", pcidir));
	s = resolve("%s/physfn", pcidir);
	if (s) {
		d->sriov = IBS_SRIOV_VF;
		d->physfn = pci_name(s);
		free(s);
		return;
	}
	d->sriov_totalvfs = attr_num(0xffff, attr("%s/sriov_totalvfs", pcidir));
	if (d->sriov_totalvfs >= 0) {
		d->sriov = IBS_SRIOV_PF;
		d->sriov_numvfs = attr_num(0xffff, attr("%s/sriov_numvfs", pcidir));
	} else if (known_vf_id(d->vendor_id, d->device_id)) {
		d->sriov = IBS_SRIOV_VF;
		d->vf_by_id = true;
	}
}

static int cmp_ipoib(const void *a, const void *b)
{
	return strverscmp(((const struct ibs_host_ipoib *)a)->name, ((const struct ibs_host_ipoib *)b)->name);
}

/*
 * IPoIB interfaces: type 32 (ARPHRD_INFINIBAND) on the same PCI function.
 * The port is dev_port + 1 (the kernel's IPoIB sets it since 4.x), else
 * dev_id + 1 (older kernels).
 */
static void load_ipoib(const char *root, struct ibs_host_dev *d, const char *pcidir)
{
	char *path = xasprintf("%s/class/net", root);
	size_t i, j, n;
	char **names = list_dir(path, MAX_NETDEVS, &n);

	free(path);
	for (i = 0; i < n && pcidir; i++) {
		char *type = attr("%s/class/net/%s/type", root, names[i]);
		char *dev;
		int64_t port;
		bool ib = type && !strcmp(type, "32");

		free(type);
		if (!ib)
			continue;
		dev = resolve("%s/class/net/%s/device", root, names[i]);
		if (!dev || strcmp(dev, pcidir)) {
			free(dev);
			continue;
		}
		free(dev);
		port = attr_num(254, attr("%s/class/net/%s/dev_port", root, names[i]));
		if (port < 0)
			port = attr_num(254, attr("%s/class/net/%s/dev_id", root, names[i]));
		port = port < 0 ? 1 : port + 1;
		for (j = 0; j < d->n_ports; j++) {
			struct ibs_host_port *p = &d->ports[j];
			if (p->num != (unsigned)port)
				continue;
			p->ipoib = xrealloc(p->ipoib, (p->n_ipoib + 1) * sizeof(*p->ipoib));
			p->ipoib[p->n_ipoib].name = xstrdup(names[i]);
			p->ipoib[p->n_ipoib].operstate = attr("%s/class/net/%s/operstate", root, names[i]);
			p->n_ipoib++;
			qsort(p->ipoib, p->n_ipoib, sizeof(*p->ipoib), cmp_ipoib);
			break;
		}
	}
	free_list(names, n);
}

static void load_dev(const char *root, const char *name, struct ibs_host_dev *d)
{
	char *dir = xasprintf("%s/class/infiniband/%s", root, name);
	char *s, *path, *pcidir;
	unsigned *ports;
	size_t i, n;
	int num;

	memset(d, 0, sizeof(*d));
	d->name = xstrdup(name);
	s = attr("%s/node_guid", dir);
	d->has_node_guid = s && ibs_sysfs_parse_guid(s, &d->node_guid);
	free(s);
	s = attr("%s/sys_image_guid", dir);
	d->has_sys_guid = s && ibs_sysfs_parse_guid(s, &d->sys_image_guid);
	free(s);
	s = attr("%s/node_type", dir);
	if (s && !ibs_sysfs_parse_enum(s, &num, &d->node_type))
		d->node_type = NULL;
	free(s);
	d->fw_ver = attr("%s/fw_ver", dir);
	d->board_id = attr("%s/board_id", dir);
	d->hca_type = attr("%s/hca_type", dir);
	d->node_desc = attr("%s/node_desc", dir);
	pcidir = resolve("%s/device", dir);
	load_pci(d, pcidir);
	path = xasprintf("%s/ports", dir);
	ports = list_indices(path, MAX_PORTS, 255, &n);
	free(path);
	d->ports = xcalloc(n ? n : 1, sizeof(*d->ports));
	for (i = 0; i < n; i++)
		if (ports[i] > 0)
			load_port(dir, ports[i], &d->ports[d->n_ports++]);
	free(ports);
	if (d->pci)
		load_ipoib(root, d, pcidir);
	free(pcidir);
	free(dir);
}

enum ibs_err ibs_host_load(const char *root, struct ibs_host **out, char **msg)
{
	struct ibs_host *h;
	struct stat st;
	char *path, **names;
	size_t i, n;

	*out = NULL;
	if (stat(root, &st)) {
		*msg = xasprintf("cannot read sysfs root '%s': %s", root, strerror(errno));
		return IBS_E_IO;
	}
	if (!S_ISDIR(st.st_mode)) {
		*msg = xasprintf("cannot read sysfs root '%s': not a directory", root);
		return IBS_E_IO;
	}
	path = xasprintf("%s/class/infiniband", root);
	names = list_dir(path, MAX_DEVS, &n);
	h = xcalloc(1, sizeof(*h));
	h->devs = xcalloc(n ? n : 1, sizeof(*h->devs));
	for (i = 0; i < n; i++) {
		char *d = xasprintf("%s/%s", path, names[i]);
		bool dir = stat(d, &st) == 0 && S_ISDIR(st.st_mode);
		free(d);
		if (dir)
			load_dev(root, names[i], &h->devs[h->n_devs++]);
	}
	free_list(names, n);
	if (!h->n_devs) {
		*msg = xasprintf("no RDMA device found under %s", path);
		free(path);
		ibs_host_free(h);
		return IBS_E_NODEV;
	}
	free(path);
	*out = h;
	return IBS_OK;
}

void ibs_host_free(struct ibs_host *h)
{
	size_t i, j, k;

	if (!h)
		return;
	for (i = 0; i < h->n_devs; i++) {
		struct ibs_host_dev *d = &h->devs[i];
		for (j = 0; j < d->n_ports; j++) {
			struct ibs_host_port *p = &d->ports[j];
			for (k = 0; k < p->n_gids; k++) {
				free(p->gids[k].type);
				free(p->gids[k].netdev);
			}
			for (k = 0; k < p->n_ipoib; k++) {
				free(p->ipoib[k].name);
				free(p->ipoib[k].operstate);
			}
			free(p->gids);
			free(p->ipoib);
			free(p->state);
			free(p->phys_state);
			free(p->rate);
			free(p->width);
			free(p->speed);
			free(p->link_layer);
		}
		free(d->ports);
		free(d->name);
		free(d->node_type);
		free(d->fw_ver);
		free(d->board_id);
		free(d->hca_type);
		free(d->node_desc);
		free(d->pci);
		free(d->physfn);
	}
	free(h->devs);
	free(h);
}
