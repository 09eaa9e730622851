/* The probe's GID: the one --gid-index names, LID routing on InfiniBand, or on RoCE the best of the port's table. */
#include "probe.h"
#include "../base/gid.h"
#include "../base/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define MAX_GIDS 1024 /* GID table entries looked at, at most */

int ibs_ping_choose_gid(const struct ibs_ping_gid *t, unsigned n, const char **why)
{
	int best = -1, best_rank = 99;
	const char *w, *best_why = NULL;
	unsigned i;

	for (i = 0; i < n; i++) {
		int r;
		if (ibs_gid_is_zero(t[i].gid))
			continue;
		r = ibs_gid_rank(t[i].gid, t[i].type, &w);
		if (r < best_rank) {
			best = (int)i;
			best_rank = r;
			best_why = w;
		}
	}
	*why = best_why;
	return best;
}

enum ibs_err ping_choose_gid(struct ibs_ping *p)
{
	const struct ibs_vdev_info *d = &p->info;
	struct ibs_ping_gid *t;
	unsigned i, n = 0, len = d->gid_tbl_len < MAX_GIDS ? d->gid_tbl_len : MAX_GIDS;
	int k;

	if (p->o.gid_index >= 0) {
		uint8_t g[16];
		enum ibs_gid_type ty;
		if (p->ops->query_gid(p->dev, (unsigned)p->o.gid_index, g, &ty) || ibs_gid_is_zero(g))
			return ping_fail(p, IBS_STEP_GID, IBS_E_INVAL,
					 xstrdup("'ibscan local' lists the GID table of every port"),
					 "GID index %d of %s port %u is empty", p->o.gid_index, d->name, d->port);
		p->gid_index = p->o.gid_index;
		memcpy(p->gid, g, 16);
		p->gid_type = ty;
		p->use_grh = true;
		p->gid_choice = "given with --gid-index";
		return IBS_OK;
	}
	if (d->link_layer == IBS_LL_IB) {
		/* InfiniBand routes on LIDs; GID 0 (the port GUID) is shown for reference. */
		p->gid_index = 0;
		if (p->ops->query_gid(p->dev, 0, p->gid, &p->gid_type))
			memset(p->gid, 0, sizeof(p->gid));
		p->use_grh = false;
		p->gid_choice = "InfiniBand: addressed by LID";
		return IBS_OK;
	}
	t = xcalloc(len ? len : 1, sizeof(*t));
	for (i = 0; i < len; i++) {
		t[n].index = i;
		if (p->ops->query_gid(p->dev, i, t[n].gid, &t[n].type) == 0 && !ibs_gid_is_zero(t[n].gid))
			n++;
	}
	k = ibs_ping_choose_gid(t, n, &p->gid_choice);
	if (k < 0) {
		free(t);
		return ping_fail(p, IBS_STEP_GID, IBS_E_NODEV,
				 xstrdup("RoCE needs an address on the port's network interface (IPv4, or at least an "
					 "IPv6 link-local one); 'ibscan local' shows the GID table"),
				 "no usable GID on %s port %u", d->name, d->port);
	}
	p->gid_index = (int)t[k].index;
	memcpy(p->gid, t[k].gid, 16);
	p->gid_type = t[k].type;
	p->use_grh = true;
	free(t);
	return IBS_OK;
}
