/*
 * `ibscan fleet`: many hosts' views (`ibscan local --json`) side by side.
 * Each host is checked as `local --check` checks it, and each property that
 * should be the same cluster-wide (devices, rails, link layer, RoCE GID
 * index, rates, firmware) is compared with the majority's value. Data only.
 */
#ifndef IBSCAN_FLEET_H
#define IBSCAN_FLEET_H

#include <stddef.h>

#include "hostcheck.h"
#include "hostinfo.h"

enum ibs_fleet_prop_id { FP_DEVICES, FP_RAILS, FP_LINK_LAYER, FP_GID_INDEX, FP_RATES, FP_FIRMWARE, FP_N };

struct ibs_fleet_host {
	char *name;               /* the file's name without directory and ".json" */
	struct ibs_host *h;       /* NULL: the file could not be read */
	char *error;              /* why not, or NULL */
	struct ibs_hostcheck *hc; /* its own check (NULL when unreadable) */
	char *value[FP_N];        /* each property, as text */
	bool differs;
};

struct ibs_fleet_prop {
	const char *name;    /* "gid_index", ... */
	enum ibs_hc_sev sev; /* of a host that differs */
	const char *majority; /* the value most hosts have (borrowed from a host), or NULL */
	size_t n_majority;
	size_t n_odd;         /* hosts with another value */
};

/* The fleet owns its hosts, their views and checks. */
struct ibs_fleet {
	struct ibs_fleet_host *hosts;
	size_t n_hosts, n_unreadable, n_differ;
	struct ibs_fleet_prop props[FP_N];
	size_t counts[4]; /* hosts by their own verdict */
	enum ibs_hc_sev verdict;
};

struct ibs_fleet *ibs_fleet_new(void);
/* Add a host: h (taken over), or NULL with why it could not be read. */
void ibs_fleet_add(struct ibs_fleet *f, const char *name, struct ibs_host *h, const char *error);
/* Check every host against p, compare them, and set the verdict. */
void ibs_fleet_compare(struct ibs_fleet *f, const struct ibs_host_profile *p);
void ibs_fleet_free(struct ibs_fleet *f);

#endif
