/* `ibscan fleet`: each host's check, and the hosts that differ from the majority in what should be the same. */
#define _GNU_SOURCE
#include "fleet.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

struct ibs_fleet *ibs_fleet_new(void)
{
	struct ibs_fleet *f = xcalloc(1, sizeof(*f));
	static const struct {
		const char *name;
		enum ibs_hc_sev sev;
	} props[FP_N] = {
		[FP_DEVICES] = { "devices", IBS_HC_CRITICAL },	 [FP_RAILS] = { "rails", IBS_HC_CRITICAL },
		[FP_LINK_LAYER] = { "link_layer", IBS_HC_CRITICAL }, [FP_GID_INDEX] = { "gid_index", IBS_HC_CRITICAL },
		[FP_RATES] = { "rates", IBS_HC_WARNING },	 [FP_FIRMWARE] = { "firmware", IBS_HC_WARNING },
	};
	size_t i;

	for (i = 0; i < FP_N; i++) {
		f->props[i].name = props[i].name;
		f->props[i].sev = props[i].sev;
	}
	return f;
}

void ibs_fleet_add(struct ibs_fleet *f, const char *name, struct ibs_host *h, const char *error)
{
	struct ibs_fleet_host *x;
	const char *base = strrchr(name, '/');
	size_t n;

	f->hosts = xrealloc(f->hosts, (f->n_hosts + 1) * sizeof(*f->hosts));
	x = &f->hosts[f->n_hosts++];
	memset(x, 0, sizeof(*x));
	base = base ? base + 1 : name;
	n = strlen(base);
	x->name = n > 5 && !strcmp(base + n - 5, ".json") ? xstrndup(base, n - 5) : xstrdup(base);
	x->h = h;
	x->error = error ? xstrdup(error) : NULL;
}

/* "A,B,C": each distinct value once, in order; with counted, how many of each ("400x7,200x1"). */
static void add_distinct(struct strbuf *sb, char **v, size_t n, bool counted)
{
	size_t i, j, k;

	for (i = 0; i < n; i++) {
		size_t c = 0;
		for (j = 0; j < i && strcmp(v[j], v[i]); j++)
			;
		if (j < i)
			continue;
		for (k = 0; k < n; k++)
			c += !strcmp(v[k], v[i]);
		sb_addf(sb, "%s%s", sb->len ? "," : "", v[i]);
		if (counted)
			sb_addf(sb, "x%zu", c);
	}
}

static void host_values(struct ibs_fleet_host *x)
{
	const struct ibs_hostcheck *hc = x->hc;
	struct strbuf sb = STRBUF_INIT;
	char **v = xcalloc(hc->n_rails + 1, sizeof(*v));
	size_t i, n = 0;

	for (i = 0; i < x->h->n_devs; i++)
		sb_addf(&sb, "%s%s", i ? "," : "", x->h->devs[i].name);
	x->value[FP_DEVICES] = sb_detach(&sb);
	for (i = 0; i < hc->n_rails; i++)
		sb_addf(&sb, "%s%s:%u", i ? "," : "", hc->rails[i].dev->name, hc->rails[i].port->num);
	x->value[FP_RAILS] = sb_detach(&sb);
	x->value[FP_LINK_LAYER] = xstrdup(hc->link_layer ? hc->link_layer : "-");
	x->value[FP_GID_INDEX] = hc->gid_refusal	? xstrdup("none shared")
				 : hc->gid_index >= 0 ? xasprintf("%d", hc->gid_index)
						      : xstrdup("-");
	for (i = 0; i < hc->n_rails; i++)
		v[n++] = hc->rails[i].port->rate_gbps >= 0 ? xasprintf("%g", hc->rails[i].port->rate_gbps) : xstrdup("?");
	add_distinct(&sb, v, n, true);
	x->value[FP_RATES] = sb_detach(&sb);
	for (i = 0; i < n; i++)
		free(v[i]);
	for (i = n = 0; i < hc->n_rails; i++)
		if (!i || hc->rails[i].dev != hc->rails[i - 1].dev)
			v[n++] = xstrdup(hc->rails[i].dev->fw_ver ? hc->rails[i].dev->fw_ver : "?");
	add_distinct(&sb, v, n, false);
	x->value[FP_FIRMWARE] = sb_detach(&sb);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void ibs_fleet_compare(struct ibs_fleet *f, const struct ibs_host_profile *p)
{
	size_t i, j, k;

	for (i = 0; i < f->n_hosts; i++) {
		struct ibs_fleet_host *x = &f->hosts[i];
		if (!x->h) {
			f->n_unreadable++;
			continue;
		}
		x->hc = ibs_hostcheck_run(x->h, p);
		host_values(x);
		f->counts[x->hc->verdict]++;
		if (x->hc->verdict > f->verdict)
			f->verdict = x->hc->verdict;
	}
	for (k = 0; k < FP_N; k++) {
		struct ibs_fleet_prop *pr = &f->props[k];
		/* The majority: the value most hosts have; a tie goes to the first host's. */
		for (i = 0; i < f->n_hosts; i++) {
			size_t n = 0;
			if (!f->hosts[i].h)
				continue;
			for (j = 0; j < f->n_hosts; j++)
				n += f->hosts[j].h && !strcmp(f->hosts[j].value[k], f->hosts[i].value[k]);
			if (n > pr->n_majority) {
				pr->n_majority = n;
				pr->majority = f->hosts[i].value[k];
			}
		}
		for (i = 0; i < f->n_hosts; i++) {
			struct ibs_fleet_host *x = &f->hosts[i];
			if (!x->h || !strcmp(x->value[k], pr->majority))
				continue;
			pr->n_odd++;
			x->differs = true;
			if (pr->sev > f->verdict)
				f->verdict = pr->sev;
		}
	}
	for (i = 0; i < f->n_hosts; i++)
		f->n_differ += f->hosts[i].differs;
	if (f->n_unreadable || f->n_hosts == f->n_unreadable)
		f->verdict = IBS_HC_UNKNOWN;
}

void ibs_fleet_free(struct ibs_fleet *f)
{
	size_t i, k;

	if (!f)
		return;
	for (i = 0; i < f->n_hosts; i++) {
		struct ibs_fleet_host *x = &f->hosts[i];
		ibs_hostcheck_free(x->hc);
		ibs_host_free(x->h);
		for (k = 0; k < FP_N; k++)
			free(x->value[k]);
		free(x->name);
		free(x->error);
	}
	free(f->hosts);
	free(f);
}
