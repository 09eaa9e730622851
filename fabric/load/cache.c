/*
 * `ibscan topology --load-cache FILE`: read a cache written by
 * `ibnetdiscover --cache` with libibnetdisc and turn it into the same model a
 * live walk builds. libibnetdisc keeps each node's NodeInfo, SwitchInfo and
 * PortInfo as raw SMP data, which our decoders read. The cache does not
 * keep DR paths, so they are rebuilt breadth-first from the node the cache
 * was taken from, lowest port first (the order the walker uses).
 * libibnetdisc merges nodes that share a GUID: a cache cannot show them.
 */
#include "cache.h"
#include "filekind.h"
#include "../walk/speeds.h"
#include "../../core/base/xalloc.h"

#include <errno.h>
#include <infiniband/ibnetdisc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Put SMP attribute data where our decoders expect it, in a whole MAD. */
static void as_mad(const uint8_t *data, uint8_t *mad)
{
	memset(mad, 0, IBS_MAD_SIZE);
	memcpy(mad + IBS_SMP_DATA_OFFS, data, IBS_SMP_DATA_SIZE);
}

struct cmap {
	ibnd_node_t *in;
	struct ibs_node *out;
};

static int cmap_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct cmap *)a)->in, y = (uintptr_t)((const struct cmap *)b)->in;

	return x < y ? -1 : x > y;
}

/* Our node for libibnetdisc's, in a map sorted by cmap_cmp. */
static struct ibs_node *lookup(const struct cmap *m, size_t n, const ibnd_node_t *in)
{
	struct cmap key = { (ibnd_node_t *)in, NULL };
	const struct cmap *hit = n ? bsearch(&key, m, n, sizeof(*m), cmap_cmp) : NULL;

	return hit ? hit->out : NULL;
}

enum ibs_err ibs_fabric_load_cache(const char *path, struct ibs_fabric **out, char **msg)
{
	ibnd_fabric_t *fab;
	ibnd_node_t *in;
	struct ibs_fabric *f;
	struct cmap *map = NULL;
	size_t n = 0, cap = 0, i, head;
	struct stat st;
	uint8_t mad[IBS_MAD_SIZE];
	FILE *probe;
	char magic[4];

	*out = NULL;
	/* libibnetdisc says little about files it cannot read: check first. */
	probe = fopen(path, "rb");
	if (!probe) {
		*msg = xasprintf("cannot open '%s': %s", path, strerror(errno));
		return IBS_E_IO;
	}
	if (fstat(fileno(probe), &st) != 0 || !S_ISREG(st.st_mode) || fread(magic, 1, 4, probe) != 4) {
		fclose(probe);
		*msg = xasprintf("'%s' is not an ibnetdiscover cache file", path);
		return IBS_E_INPUT;
	}
	fclose(probe);
	/* A file given to the wrong option: say what it is and what reads it. */
	if (memcmp(magic, IBS_CACHE_MAGIC_LE, 4) && memcmp(magic, IBS_CACHE_MAGIC_BE, 4) &&
	    (*msg = ibs_file_kind_msg(path, ibs_file_kind_path(path), "an ibnetdiscover cache")))
		return IBS_E_INPUT;
	if ((uintmax_t)st.st_size > IBS_CACHE_MAX_BYTES) {
		*msg = xasprintf("'%s' is larger than the limit of %zu bytes", path, IBS_CACHE_MAX_BYTES);
		return IBS_E_INPUT;
	}
	fab = ibnd_load_fabric(path, 0);
	if (!fab) {
		*msg = xasprintf("'%s' is not a readable ibnetdiscover cache file (libibnetdisc refused it)", path);
		return IBS_E_INPUT;
	}
	f = ibs_fabric_new();
	for (in = fab->nodes; in; in = in->next) {
		struct ibs_nodeinfo ni;
		struct ibs_addr none;
		struct ibs_node *nd;
		struct ibs_portset have;
		int p;

		as_mad(in->info, mad);
		if (ibs_decode_nodeinfo(mad, sizeof(mad), &ni) != IBS_OK || ni.num_ports != in->numports) {
			*msg = xasprintf("'%s': node 0x%016llx has unusable NodeInfo", path, (unsigned long long)in->guid);
			ibs_fabric_free(f);
			free(map);
			ibnd_destroy_fabric(fab);
			return IBS_E_INPUT;
		}
		ibs_addr_dr(&none, NULL, 0);
		/* Records for the ports the cache holds, not for every port the node declares. */
		memset(&have, 0, sizeof(have));
		for (p = 0; p <= in->numports; p++)
			if (in->ports && in->ports[p])
				ibs_portset_add(&have, (unsigned)p);
		nd = ibs_fabric_add_node_ports(f, &ni, &none, &have);
		ibs_node_set_desc(nd, in->nodedesc, strnlen(in->nodedesc, sizeof(in->nodedesc)));
		if (ni.node_type == IBS_NODE_SWITCH) {
			as_mad(in->switchinfo, mad);
			nd->has_si = ibs_decode_switchinfo(mad, sizeof(mad), &nd->si) == IBS_OK;
		}
		for (p = 0; p <= in->numports; p++) {
			ibnd_port_t *ip = in->ports ? in->ports[p] : NULL;
			struct ibs_port *pt = ibs_node_port(nd, (unsigned)p);
			if (!ip || !pt)
				continue;
			as_mad(ip->info, mad);
			pt->valid = ibs_decode_portinfo(mad, sizeof(mad), &pt->pi) == IBS_OK;
			pt->guid = ip->guid;
			/* Switch ports carry port 0's LID; the cache keeps it on the node. */
			if (ni.node_type == IBS_NODE_SWITCH)
				pt->pi.lid = in->smalid ? in->smalid : pt->pi.lid;
		}
		map = xgrow(map, &cap, n + 1, sizeof(*map));
		map[n].in = in;
		map[n].out = nd;
		n++;
	}
	if (n)
		qsort(map, n, sizeof(*map), cmap_cmp);
	for (i = 0; i < n; i++) {
		ibnd_node_t *a = map[i].in;
		int p;
		for (p = 1; p <= a->numports; p++) {
			ibnd_port_t *ip = a->ports ? a->ports[p] : NULL;
			struct ibs_node *b;
			if (!ip || !ip->remoteport || !ip->remoteport->node)
				continue;
			b = lookup(map, n, ip->remoteport->node);
			if (b && ip->remoteport->portnum >= 1 && ip->remoteport->portnum <= b->ni.num_ports)
				ibs_fabric_connect(map[i].out, (uint8_t)p, b, (uint8_t)ip->remoteport->portnum);
		}
	}
	/* Local port and DR paths: breadth-first from the node the cache was taken on. */
	if (fab->from_node) {
		struct ibs_node *root = lookup(map, n, fab->from_node), **queue;
		size_t tail = 0;
		bool *seen = xcalloc(f->n_nodes, sizeof(*seen));

		f->local.port = fab->from_portnum;
		snprintf(f->local.ca, sizeof(f->local.ca), "cache");
		queue = xmalloc(f->n_nodes * sizeof(*queue));
		if (root) {
			const struct ibs_port *lp = fab->from_portnum >= 0 && fab->from_portnum <= root->ni.num_ports
							    ? ibs_node_port(root, (unsigned)fab->from_portnum)
							    : NULL;
			f->local.node_guid = root->ni.node_guid;
			f->local.port_guid = root->ni.port_guid;
			f->local.node_type = root->ni.node_type;
			if (lp && lp->valid) {
				f->local.lid = lp->pi.lid;
				f->local.sm_lid = lp->pi.sm_lid;
			}
			root->entry_port = (uint8_t)fab->from_portnum;
			seen[root->index] = true;
			queue[tail++] = root;
		}
		for (head = 0; head < tail; head++) {
			struct ibs_node *a = queue[head];
			const struct ibs_port *pt;
			if (a->ni.node_type != IBS_NODE_SWITCH && a != root)
				continue;
			for (pt = ibs_node_ports_from(a, 1); pt < ibs_node_ports_end(a); pt++) {
				struct ibs_node *b = pt->peer;
				if (!b || seen[b->index])
					continue;
				if (a != root || a->ni.node_type == IBS_NODE_SWITCH || pt->num == a->entry_port) {
					if (!ibs_addr_dr_extend(&b->path, &a->path, pt->num))
						continue;
					b->level = b->path.hops;
					b->entry_port = pt->peer_port;
					seen[b->index] = true;
					queue[tail++] = b;
				}
			}
		}
		free(queue);
		free(seen);
	}
	free(map);
	ibnd_destroy_fabric(fab);
	ibs_fabric_fix_ext_speeds(f);
	ibs_fabric_sort(f);
	*out = f;
	return IBS_OK;
}
