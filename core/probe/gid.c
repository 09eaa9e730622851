/*
 * The probe's GID: the one --gid-index names, LID routing on InfiniBand, or
 * on RoCE the entry of the port's table that the setup connection's address
 * names (else the best-ranked one); GID types and interfaces libibverbs
 * cannot tell are read from sysfs, as libibverbs itself does.
 */
#include "probe.h"
#include "tcp.h"
#include "../base/file.h"
#include "../base/gid.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GIDS 1024 /* GID table entries looked at, at most */

/* The position of the best-ranked entry of t that keep() accepts, or -1; *why: its rank's reason. */
static int best(const struct ibs_ping_gid *t, unsigned n, const void *ctx,
		bool (*keep)(const struct ibs_ping_gid *g, const void *ctx), const char **why)
{
	int k = -1, best_rank = 99;
	const char *w;
	unsigned i;

	*why = NULL;
	for (i = 0; i < n; i++) {
		int r;
		if (ibs_gid_is_zero(t[i].gid) || (keep && !keep(&t[i], ctx)))
			continue;
		r = ibs_gid_rank(t[i].gid, t[i].type, &w);
		if (r < best_rank) {
			k = (int)i;
			best_rank = r;
			*why = w;
		}
	}
	return k;
}

/* The setup connection's address, on the interface that holds it where both are known. */
static bool is_setup_addr(const struct ibs_ping_gid *g, const void *ctx)
{
	const struct ibs_ping_setup_end *s = ctx;

	return !memcmp(g->gid, s->gid, 16) && (!g->netdev[0] || !s->ifname[0] || !strcmp(g->netdev, s->ifname));
}

/* The peer's address family, and its type where both are known: RoCE routes neither IPv4 to IPv6 nor v1 to v2. */
static bool fits_peer(const struct ibs_ping_gid *g, const void *ctx)
{
	const struct ibs_ping_gid *peer = ctx;

	return ibs_gid_is_v4mapped(g->gid) == ibs_gid_is_v4mapped(peer->gid) &&
	       (!g->type || !peer->type || g->type == peer->type);
}

int ibs_ping_choose_gid(const struct ibs_ping_gid *t, unsigned n, const struct ibs_ping_setup_end *setup,
			const struct ibs_ping_gid *peer, char **why)
{
	const char *w;
	char *off = NULL;
	int k;

	*why = NULL;
	if (setup && setup->known) {
		k = best(t, n, setup, is_setup_addr, &w);
		if (k >= 0) {
			*why = xasprintf("the setup connection's address %s%s%s, %s", setup->text,
					 t[k].netdev[0] ? " on " : "", t[k].netdev,
					 t[k].type ? ibs_gid_type_name(t[k].type) : "type unknown");
			return k;
		}
		off = xasprintf("; the setup connection's address %s%s%s is on no GID of this port", setup->text,
				setup->ifname[0] ? " on " : "", setup->ifname);
	}
	k = peer && !ibs_gid_is_zero(peer->gid) ? best(t, n, peer, fits_peer, &w) : -1;
	if (k >= 0)
		*why = xasprintf("%s, as the peer's GID%s", w, off ? off : "");
	else if ((k = best(t, n, NULL, NULL, &w)) >= 0)
		*why = xasprintf("%s%s", w, off ? off : "");
	free(off);
	return k;
}

/* One attribute of GID entry g from sysfs (ports/N/gid_attrs/DIR/INDEX), trimmed; NULL when unreadable. */
static char *gid_attr(const struct ibs_ping *p, const char *dir, unsigned index)
{
	char *path = xasprintf("%s/class/infiniband/%s/ports/%u/gid_attrs/%s/%u", p->o.sysfs ? p->o.sysfs : "/sys",
			       p->info.name, p->info.port, dir, index);
	char *buf = NULL, *msg = NULL;
	size_t len = 0;

	/* The kernel answers EINVAL for an empty entry's type: no value, as for an absent file. */
	if (ibs_read_file(path, 4096, &buf, &len, &msg) != IBS_OK || memchr(buf, '\0', len)) {
		free(buf);
		buf = NULL;
	}
	while (buf && len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		buf[--len] = '\0';
	free(msg);
	free(path);
	return buf;
}

/*
 * Entry index of the port's table, with its type and interface. rdma-core
 * before 32 (no _ibv_query_gid_ex) cannot tell the type, and without it
 * the interface: both are read from sysfs then, as libibverbs does.
 */
static int read_gid(struct ibs_ping *p, unsigned index, struct ibs_ping_gid *g)
{
	char *s;
	size_t i;
	int e;

	memset(g, 0, sizeof(*g));
	g->index = index;
	e = p->ops->query_gid(p->dev, index, g->gid, &g->type);
	if (e || ibs_gid_is_zero(g->gid))
		return e ? e : ENODATA;
	if (p->info.link_layer != IBS_LL_ETH)
		return 0;
	if (!g->type && (s = gid_attr(p, "types", index))) {
		g->type = ibs_gid_type_parse(s);
		free(s);
	}
	if (p->ops->gid_netdev(p->dev, index, g->netdev) && (s = gid_attr(p, "ndevs", index))) {
		/* A name an interface can have, or none. */
		for (i = 0; s[i] && s[i] > ' ' && s[i] < 0x7f && s[i] != '/'; i++)
			;
		if (!s[i] && i < IBS_NETDEV_LEN)
			memcpy(g->netdev, s, i + 1);
		free(s);
	}
	return 0;
}

static void use_gid(struct ibs_ping *p, const struct ibs_ping_gid *g, char *why)
{
	p->gid_index = (int)g->index;
	memcpy(p->gid, g->gid, 16);
	p->gid_type = g->type;
	memcpy(p->gid_netdev, g->netdev, IBS_NETDEV_LEN);
	free(p->gid_choice);
	p->gid_choice = why;
}

enum ibs_err ping_read_gids(struct ibs_ping *p)
{
	const struct ibs_vdev_info *d = &p->info;
	unsigned i, len = d->gid_tbl_len < MAX_GIDS ? d->gid_tbl_len : MAX_GIDS;
	struct ibs_ping_gid g;
	char *why;
	int k;

	if (p->o.dlid && d->link_layer != IBS_LL_IB)
		return ping_fail(p, IBS_STEP_GID, IBS_E_INVAL,
				 xstrdup("RoCE routes by IP address: leave --dlid out"),
				 "--dlid is for InfiniBand across subnets, and %s port %u is Ethernet (RoCE)", d->name, d->port);
	/* An index past the table is out of range, not an empty entry: say how long the table is. */
	if (d->pkey_tbl_len && p->o.pkey_index >= d->pkey_tbl_len)
		return ping_fail(p, IBS_STEP_INIT, IBS_E_INVAL,
				 xstrdup("'ibv_devinfo -v' shows the port's pkey_tbl_len"),
				 "--pkey-index %u is out of range: %s port %u has %u P_Key %s (%s%u)", p->o.pkey_index,
				 d->name, d->port, d->pkey_tbl_len, d->pkey_tbl_len == 1 ? "entry" : "entries",
				 d->pkey_tbl_len == 1 ? "only index " : "0-", d->pkey_tbl_len - 1);
	if (p->o.gid_index >= 0 && d->gid_tbl_len && (unsigned)p->o.gid_index >= d->gid_tbl_len)
		return ping_fail(p, IBS_STEP_GID, IBS_E_INVAL,
				 xstrdup("'ibscan local' lists the GID table of every port"),
				 "--gid-index %d is out of range: %s port %u has %u GID %s (%s%u)", p->o.gid_index, d->name,
				 d->port, d->gid_tbl_len, d->gid_tbl_len == 1 ? "entry" : "entries",
				 d->gid_tbl_len == 1 ? "only index " : "0-", d->gid_tbl_len - 1);
	if (p->o.gid_index >= 0) {
		if (read_gid(p, (unsigned)p->o.gid_index, &g))
			return ping_fail(p, IBS_STEP_GID, IBS_E_INVAL,
					 xstrdup("'ibscan local' lists the GID table of every port"),
					 "GID index %d of %s port %u is empty", p->o.gid_index, d->name, d->port);
		use_gid(p, &g, xstrdup("given with --gid-index"));
		p->use_grh = true;
		return IBS_OK;
	}
	if (d->link_layer == IBS_LL_IB) {
		/* InfiniBand routes on LIDs; GID 0 (the port GUID) is shown for reference. */
		if (read_gid(p, 0, &g))
			memset(g.gid, 0, sizeof(g.gid));
		/* Across subnets: to the router's LID, which forwards by the GRH's destination GID. */
		p->use_grh = p->o.dlid != 0;
		use_gid(p, &g, xstrdup(p->use_grh ? "InfiniBand across subnets: the router's LID (--dlid), GID 0"
						  : "InfiniBand: addressed by LID"));
		return IBS_OK;
	}
	p->gids = xcalloc(len ? len : 1, sizeof(*p->gids));
	for (i = 0; i < len; i++)
		if (read_gid(p, i, &p->gids[p->n_gids]) == 0)
			p->n_gids++;
	k = ibs_ping_choose_gid(p->gids, p->n_gids, NULL, NULL, &why);
	if (k < 0)
		return ping_fail(p, IBS_STEP_GID, IBS_E_NODEV,
				 xstrdup("RoCE needs an address on the port's network interface (IPv4, or at least an "
					 "IPv6 link-local one); 'ibscan local' shows the GID table"),
				 "no usable GID on %s port %u", d->name, d->port);
	use_gid(p, &p->gids[k], why);
	p->use_grh = true;
	return IBS_OK;
}

/*
 * A listener serves peer after peer for as long as it runs, and the kernel
 * reuses RoCE GID indices (a DHCP renew, a bond failover, a VLAN added or
 * removed): before each peer the table is read again. With --gid-index the
 * entry must still hold what it held at start, or the peer is refused: the
 * GID table changed. Without it the choice is made again from the table as
 * it is now. InfiniBand GIDs (the port GUID's) do not move.
 */
enum ibs_err ping_reread_gids(struct ibs_ping *p)
{
	const struct ibs_vdev_info *d = &p->info;
	unsigned i, len = d->gid_tbl_len < MAX_GIDS ? d->gid_tbl_len : MAX_GIDS;
	struct ibs_ping_gid g;

	if (d->link_layer != IBS_LL_ETH)
		return IBS_OK;
	if (p->o.gid_index >= 0) {
		char was[48], now[48];
		bool empty = read_gid(p, (unsigned)p->o.gid_index, &g) != 0;
		if (!empty && !memcmp(g.gid, p->gid, 16) && g.type == p->gid_type)
			return IBS_OK;
		ibs_gid_str(p->gid, was, sizeof(was));
		if (empty)
			snprintf(now, sizeof(now), "nothing");
		else
			ibs_gid_str(g.gid, now, sizeof(now));
		return ping_fail(p, IBS_STEP_GID, IBS_E_INVAL,
				 xstrdup("'ibscan local' shows the table now; give the index of the address to use, or "
					 "leave --gid-index out and the listener chooses for each peer"),
				 "the GID table changed: index %d of %s port %u now holds %s (%s when the listener started)",
				 p->o.gid_index, d->name, d->port, now, was);
	}
	if (!p->gids)
		return IBS_OK;
	p->n_gids = 0;
	for (i = 0; i < len; i++)
		if (read_gid(p, i, &p->gids[p->n_gids]) == 0)
			p->n_gids++;
	return IBS_OK;
}

void ping_pick_gid(struct ibs_ping *p, int fd, const struct ibs_oob_hello *peer)
{
	struct ibs_ping_setup_end *s = &p->setup;
	struct ibs_ping_gid pg;
	char *why;
	int k;

	memset(s, 0, sizeof(*s));
	s->known = ibs_tcp_local_end(fd, s->gid, s->text, sizeof(s->text), s->ifname, sizeof(s->ifname));
	if (!p->gids)
		return; /* InfiniBand, or --gid-index */
	if (peer) {
		memset(&pg, 0, sizeof(pg));
		memcpy(pg.gid, peer->gid, 16);
		pg.type = (enum ibs_gid_type)peer->gid_type;
	}
	k = ibs_ping_choose_gid(p->gids, p->n_gids, s, peer ? &pg : NULL, &why);
	if (k >= 0)
		use_gid(p, &p->gids[k], why);
	log_info("GID index %d (%s): %s", p->gid_index, p->gid_netdev[0] ? p->gid_netdev : "interface unknown",
		 p->gid_choice);
}
