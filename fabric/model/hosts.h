/*
 * The servers behind the fabric's CAs: which CAs are one host, and what
 * that host is called. Slurm's topology.conf, the drawing and the report
 * name and count hosts from here, so they agree.
 *
 * A CA's host name is the first word of its node-name-map entry, else of
 * its NodeDescription when that names a host (rdma-ndd writes "HOSTNAME
 * DEVICE"); a description that is a factory or distribution default names
 * none (ibs_desc_default). CAs that share a system image GUID (the adapters
 * and functions of one server) or a host name are one host. A host none of
 * whose CAs names it is called "host-<system image GUID>", which stays the
 * same from walk to walk.
 */
#ifndef IBSCAN_HOSTS_H
#define IBSCAN_HOSTS_H

#include "model.h"

/*
 * Why desc names no host (the entry of the table in hosts.c it matches:
 * "empty", "the adapter firmware's default", ...), or NULL when it may
 * name one.
 */
const char *ibs_desc_default(const char *desc);

struct ibs_host {
	char *name;            /* owned */
	bool named;            /* some CA of it names it; false: "host-<GUID>" */
	uint64_t sysimg;       /* the lowest system image GUID among its CAs */
	size_t n_cas;
};

struct ibs_hosts {
	struct ibs_host *v;    /* sorted by name, numbers as numbers */
	size_t n;
	size_t *host_of;       /* node index -> host index + 1; 0 for switches, routers, SHARP nodes */
	size_t n_nodes;
};

/* The hosts of f (call after ibs_fabric_sort and after names are set); free with ibs_hosts_free. */
void ibs_fabric_hosts(const struct ibs_fabric *f, struct ibs_hosts *out);
/* The host of node n, or NULL when n is not a host's CA. */
const struct ibs_host *ibs_host_of(const struct ibs_hosts *h, const struct ibs_node *n);
/* Whether CA n names its host itself (a map entry, or a description that names one). */
bool ibs_ca_names_host(const struct ibs_node *n);
void ibs_hosts_free(struct ibs_hosts *h);

#endif
