/* The host view: the model of this host's RDMA devices, ports, GID tables and IPoIB interfaces, built from sysfs (read through sysfs.c). */
#define _GNU_SOURCE
#include "hostinfo.h"
#include "sysfs.h"
#include "../core/base/gid.h"
#include "../core/mad/mad.h"
#include "../core/base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Bounds on what one host may list: far above real machines, low enough to stay quick on a hostile tree. */
#define MAX_DEVS 1024
#define MAX_PORTS 256
#define MAX_GIDS 4096
#define MAX_NETDEVS 4096

static void load_gids(const char *dir, struct ibs_host_port *p)
{
	size_t i, n;
	char *path = xasprintf("%s/gids", dir);
	unsigned *idx = ibs_sysfs_list_indices(path, MAX_GIDS, 0xffff, &n);
	size_t cap = 0;

	free(path);
	for (i = 0; i < n; i++) {
		struct ibs_host_gid g;
		char *s = ibs_sysfs_attr("%s/gids/%u", dir, idx[i]);
		memset(&g, 0, sizeof(g));
		/* Empty entries are all zeros; show_gids skips them too. */
		if (!s || !ibs_sysfs_parse_gid(s, g.gid) || ibs_gid_is_zero(g.gid)) {
			free(s);
			continue;
		}
		free(s);
		g.index = idx[i];
		g.type = ibs_sysfs_attr("%s/gid_attrs/types/%u", dir, idx[i]);
		g.netdev = ibs_sysfs_attr("%s/gid_attrs/ndevs/%u", dir, idx[i]);
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

/* What `ibscan ping` would choose on this port, if Active: the first GID of the best rank (core/base/gid.h). */
static void probe_gid(struct ibs_host_port *p)
{
	const char *why;
	int best = -1, r;
	size_t i;

	p->probe_gid = -1;
	/* A port that is not Active carries no traffic: ping cannot use any of its GIDs. */
	if (!p->link_layer || strcmp(p->link_layer, "Ethernet") || p->state_num != IBS_PORT_ACTIVE)
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
	s = ibs_sysfs_attr("%s/state", dir);
	if (!s || !ibs_sysfs_parse_enum(s, &p->state_num, &p->state))
		p->state_num = -1;
	free(s);
	s = ibs_sysfs_attr("%s/phys_state", dir);
	if (!s || !ibs_sysfs_parse_enum(s, &num, &p->phys_state))
		p->phys_state = NULL;
	free(s);
	p->rate = ibs_sysfs_attr("%s/rate", dir);
	if (p->rate && ibs_sysfs_parse_rate(p->rate, &p->rate_gbps, &w, &p->speed))
		p->width = xasprintf("%ux", w);
	else
		p->rate_gbps = -1;
	p->lid = ibs_sysfs_attr_num(0xffff, ibs_sysfs_attr("%s/lid", dir));
	p->sm_lid = ibs_sysfs_attr_num(0xffff, ibs_sysfs_attr("%s/sm_lid", dir));
	p->lmc = ibs_sysfs_attr_num(7, ibs_sysfs_attr("%s/lid_mask_count", dir));
	p->link_layer = ibs_sysfs_attr("%s/link_layer", dir);
	load_gids(dir, p);
	probe_gid(p);
	if (p->n_gids && p->gids[0].index == 0) {
		size_t i;
		p->has_port_guid = true;
		for (i = 8; i < 16; i++)
			p->port_guid = p->port_guid << 8 | p->gids[0].gid[i];
	}
	/* ibdev2netdev reads gid_attrs/ndevs/0 of a RoCE port; in a container entry 0 may be gone, so the lowest one set. */
	if (p->link_layer && !strcmp(p->link_layer, "Ethernet")) {
		size_t i;
		for (i = 0; i < p->n_gids && !p->netdev; i++)
			if (p->gids[i].netdev)
				p->netdev = xstrdup(p->gids[i].netdev);
	}
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

/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s PCIe" (consumed): GT/s, or -1 ("Unknown", odd text). */
static double pcie_speed(char *s)
{
	double v = -1;
	char *end;

	if (s && *s >= '0' && *s <= '9') {
		v = strtod(s, &end);
		if (end == s || strncmp(end, " GT/s", 5) || !(v > 0 && v < 1000))
			v = -1;
	}
	free(s);
	return v;
}

static void load_pci(struct ibs_host_dev *d, const char *pcidir)
{
	char *s;

	d->vendor_id = d->device_id = d->sriov_totalvfs = d->sriov_numvfs = -1;
	d->numa_node = d->pcie_width = d->pcie_max_width = -1;
	d->pcie_speed = d->pcie_max_speed = -1;
	d->pci = ibs_sysfs_pci_name(pcidir);
	if (!d->pci)
		return;
	/* "-1" (no NUMA information) reads as unknown, as a missing file does. */
	d->numa_node = ibs_sysfs_attr_num(4095, ibs_sysfs_attr("%s/numa_node", pcidir));
	d->pcie_width = ibs_sysfs_attr_num(32, ibs_sysfs_attr("%s/current_link_width", pcidir));
	d->pcie_max_width = ibs_sysfs_attr_num(32, ibs_sysfs_attr("%s/max_link_width", pcidir));
	d->pcie_speed = pcie_speed(ibs_sysfs_attr("%s/current_link_speed", pcidir));
	d->pcie_max_speed = pcie_speed(ibs_sysfs_attr("%s/max_link_speed", pcidir));
	d->vendor_id = ibs_sysfs_attr_num(0xffff, ibs_sysfs_attr("%s/vendor", pcidir));
	d->device_id = ibs_sysfs_attr_num(0xffff, ibs_sysfs_attr("%s/device", pcidir));
	s = ibs_sysfs_resolve("%s/physfn", pcidir);
	if (s) {
		d->sriov = IBS_SRIOV_VF;
		d->physfn = ibs_sysfs_pci_name(s);
		free(s);
		return;
	}
	d->sriov_totalvfs = ibs_sysfs_attr_num(0xffff, ibs_sysfs_attr("%s/sriov_totalvfs", pcidir));
	if (d->sriov_totalvfs >= 0) {
		d->sriov = IBS_SRIOV_PF;
		d->sriov_numvfs = ibs_sysfs_attr_num(0xffff, ibs_sysfs_attr("%s/sriov_numvfs", pcidir));
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
	char **names = ibs_sysfs_list_dir(path, MAX_NETDEVS, &n);

	free(path);
	for (i = 0; i < n && pcidir; i++) {
		char *type = ibs_sysfs_attr("%s/class/net/%s/type", root, names[i]);
		char *dev;
		int64_t port;
		bool ib = type && !strcmp(type, "32");

		free(type);
		if (!ib)
			continue;
		dev = ibs_sysfs_resolve("%s/class/net/%s/device", root, names[i]);
		if (!dev || strcmp(dev, pcidir)) {
			free(dev);
			continue;
		}
		free(dev);
		port = ibs_sysfs_attr_num(254, ibs_sysfs_attr("%s/class/net/%s/dev_port", root, names[i]));
		if (port < 0)
			port = ibs_sysfs_attr_num(254, ibs_sysfs_attr("%s/class/net/%s/dev_id", root, names[i]));
		port = port < 0 ? 1 : port + 1;
		for (j = 0; j < d->n_ports; j++) {
			struct ibs_host_port *p = &d->ports[j];
			if (p->num != (unsigned)port)
				continue;
			p->ipoib = xrealloc(p->ipoib, (p->n_ipoib + 1) * sizeof(*p->ipoib));
			p->ipoib[p->n_ipoib].name = xstrdup(names[i]);
			p->ipoib[p->n_ipoib].operstate = ibs_sysfs_attr("%s/class/net/%s/operstate", root, names[i]);
			p->n_ipoib++;
			qsort(p->ipoib, p->n_ipoib, sizeof(*p->ipoib), cmp_ipoib);
			free(p->netdev);
			p->netdev = xstrdup(p->ipoib[0].name);
			break;
		}
	}
	ibs_sysfs_free_list(names, n);
}

/* An attribute whose file is empty (rxe's fw_ver) reads as unknown, as one that is absent. */
static char *attr_nonempty(char *s)
{
	if (s && !*s) {
		free(s);
		return NULL;
	}
	return s;
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
	s = ibs_sysfs_attr("%s/node_guid", dir);
	d->has_node_guid = s && ibs_sysfs_parse_guid(s, &d->node_guid);
	free(s);
	s = ibs_sysfs_attr("%s/sys_image_guid", dir);
	d->has_sys_guid = s && ibs_sysfs_parse_guid(s, &d->sys_image_guid);
	free(s);
	s = ibs_sysfs_attr("%s/node_type", dir);
	if (s && !ibs_sysfs_parse_enum(s, &num, &d->node_type))
		d->node_type = NULL;
	free(s);
	d->fw_ver = attr_nonempty(ibs_sysfs_attr("%s/fw_ver", dir));
	d->board_id = attr_nonempty(ibs_sysfs_attr("%s/board_id", dir));
	d->hca_type = attr_nonempty(ibs_sysfs_attr("%s/hca_type", dir));
	d->node_desc = ibs_sysfs_attr("%s/node_desc", dir);
	pcidir = ibs_sysfs_resolve("%s/device", dir);
	load_pci(d, pcidir);
	path = xasprintf("%s/ports", dir);
	ports = ibs_sysfs_list_indices(path, MAX_PORTS, 255, &n);
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
	names = ibs_sysfs_list_dir(path, MAX_DEVS, &n);
	h = xcalloc(1, sizeof(*h));
	h->devs = xcalloc(n ? n : 1, sizeof(*h->devs));
	for (i = 0; i < n; i++) {
		char *d = xasprintf("%s/%s", path, names[i]);
		bool dir = stat(d, &st) == 0 && S_ISDIR(st.st_mode);
		free(d);
		if (dir)
			load_dev(root, names[i], &h->devs[h->n_devs++]);
	}
	ibs_sysfs_free_list(names, n);
	free(path);
	path = xasprintf("%s/devices/system/node", root);
	names = ibs_sysfs_list_dir(path, MAX_DEVS, &n);
	for (i = 0; i < n; i++)
		h->n_numa_nodes += !strncmp(names[i], "node", 4) && names[i][4] >= '0' && names[i][4] <= '9';
	ibs_sysfs_free_list(names, n);
	free(path);
	path = xasprintf("%s/class/infiniband", root);
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
			free(p->netdev);
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
