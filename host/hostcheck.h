/*
 * Whether this host is ready for GPU jobs (`ibscan local --check`, and
 * `--nccl-env`): its rails (the RDMA ports NCCL uses) against a profile of
 * what they should be, or against what the host's own rails agree on. Data
 * only: findings with a severity, the rails and the GID index they share.
 */
#ifndef IBSCAN_HOSTCHECK_H
#define IBSCAN_HOSTCHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/base/err.h"
#include "hostinfo.h"

/* Bounds on a profile file (untrusted input). */
#define IBS_PROFILE_MAX_BYTES (64 * 1024)
#define IBS_PROFILE_MAX_LINE 1024
#define IBS_PROFILE_MAX_NAMES 256 /* patterns in one of rails, storage, ignore */

/* What a host should be; every field unset (NULL, -1) is derived from the host itself. */
struct ibs_host_profile {
	char **rails, **storage, **ignore; /* fnmatch patterns "DEV" or "DEV:PORT" */
	size_t n_rails, n_storage, n_ignore;
	int ports;          /* rail ports that must be Active, -1: every rail port found */
	double min_rate;    /* Gb/s, negative: the fastest rail port's rate */
	char *link_layer;   /* "InfiniBand" or "Ethernet", NULL: the rails' majority */
	int gid_index;      /* RoCE: the index every rail's v2 IPv4 GID must have, -1: whatever they share */
	char *firmware;     /* every rail's fw_ver, NULL: the rails agree */
	char *socket_ifname; /* NCCL_SOCKET_IFNAME, NULL: the rails' netdevs */
	bool pcie, numa;    /* check PCIe link training and the NUMA node (default yes) */
};

/* Parse a profile (name is for messages: "FILE:LINE: ..."). IBS_E_INPUT with *msg when bad. */
enum ibs_err ibs_host_profile_parse(const char *name, const char *buf, size_t len, struct ibs_host_profile **out,
				    char **msg);
/* The defaults: every field derived from the host. */
struct ibs_host_profile *ibs_host_profile_new(void);
void ibs_host_profile_free(struct ibs_host_profile *p);

enum ibs_hc_sev { IBS_HC_OK, IBS_HC_WARNING, IBS_HC_CRITICAL, IBS_HC_UNKNOWN };
const char *ibs_hc_sev_str(enum ibs_hc_sev s);

struct ibs_hc_finding {
	enum ibs_hc_sev sev;
	const char *check; /* "port.state", ... (docs/checks.md) */
	char *dev;         /* device, or NULL */
	unsigned port;     /* 0: the device (or the host) */
	char *msg;
};

/* One rail: a port NCCL should use. Pointers borrowed from the host. */
struct ibs_rail {
	const struct ibs_host_dev *dev;
	const struct ibs_host_port *port;
	int v2_gid; /* RoCE: the lowest RoCE v2 IPv4 GID's index, -1 none */
	bool active; /* ACTIVE and LinkUp */
};

struct ibs_hostcheck {
	struct ibs_rail *rails;
	size_t n_rails, n_active;
	int want_ports;
	double min_rate;        /* what the rails were held to, negative: nothing to hold them to */
	const char *link_layer; /* the rails' (borrowed), or NULL */
	int gid_index;          /* RoCE rails: the index they all share, -1 none */
	char *gid_refusal;      /* RoCE rails without one shared v2 IPv4 GID index: why (names the device), or NULL */
	struct ibs_hc_finding *findings;
	size_t n_findings;
	size_t counts[4]; /* findings per severity */
	enum ibs_hc_sev verdict;
};

/* Check h against p. The result borrows h (and its strings) and must be freed before it. */
struct ibs_hostcheck *ibs_hostcheck_run(const struct ibs_host *h, const struct ibs_host_profile *p);
void ibs_hostcheck_free(struct ibs_hostcheck *hc);

#endif
