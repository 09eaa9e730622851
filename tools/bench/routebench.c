/*
 * make bench: the route check's analysis alone (fabric/check/routecheck.h) on a
 * 3-level fat tree built in memory at the size of the 27,000-node bench
 * fabric (radix 48: 42 pods of 24 leaves and 24 spines, 576 cores, 24,192
 * hosts), with d-mod-k up/down tables written here. Prints pairs, the CPU
 * time, the cost per pair and per destination, and the peak RSS; fails
 * unless every route arrives, none is non-minimal and there is no cycle.
 * Usage: routebench [PODS]   (default 42)
 */
#include "../../fabric/check/routecheck.h"
#include "../../core/base/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define K 24 /* half the radix */

static struct ibs_node *add(struct ibs_fabric *f, uint8_t type, unsigned ports, uint64_t guid, uint16_t lid)
{
	struct ibs_nodeinfo ni = { .node_type = type, .num_ports = (uint8_t)ports, .node_guid = guid };
	struct ibs_addr a;
	struct ibs_node *n;
	unsigned p;

	ibs_addr_dr(&a, NULL, 0);
	n = ibs_fabric_add_node(f, &ni, &a);
	for (p = 0; p <= ports; p++) {
		n->ports[p].valid = true;
		n->ports[p].pi.state = 4;
	}
	n->ports[type == IBS_NODE_SWITCH ? 0 : 1].pi.lid = lid;
	n->has_si = type == IBS_NODE_SWITCH;
	return n;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned pods = argc > 1 ? (unsigned)atoi(argv[1]) : 42, p, i, j, c, h;
	unsigned nleaf = pods * K, nspine = pods * K, ncore = K * K, nhost = nleaf * K;
	unsigned nsw = nleaf + nspine + ncore, top = nhost + nsw;
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node **leaf, **spine, **core;
	struct ibs_lft *l;
	struct ibs_routecheck rc;
	struct rusage ru;
	double t0, t1;
	uint16_t lid;

	if (pods < 1 || pods > 47 || top >= 0xc000) {
		fprintf(stderr, "routebench: PODS from 1 to 47\n");
		return 2;
	}
	leaf = xcalloc(nleaf, sizeof(*leaf));
	spine = xcalloc(nspine, sizeof(*spine));
	core = xcalloc(ncore, sizeof(*core));
	/* LIDs: hosts 1..nhost, then leaves, spines, cores. */
	lid = (uint16_t)(nhost + 1);
	for (i = 0; i < nleaf; i++)
		leaf[i] = add(f, IBS_NODE_SWITCH, 2 * K, 0x100000000ull + i, lid++);
	for (i = 0; i < nspine; i++)
		spine[i] = add(f, IBS_NODE_SWITCH, 2 * K, 0x200000000ull + i, lid++);
	for (i = 0; i < ncore; i++)
		core[i] = add(f, IBS_NODE_SWITCH, pods, 0x300000000ull + i, lid++);
	for (h = 0; h < nhost; h++) {
		struct ibs_node *n = add(f, IBS_NODE_CA, 1, 0x400000000ull + h, (uint16_t)(h + 1));
		ibs_fabric_connect(leaf[h / K], (uint8_t)(1 + h % K), n, 1);
	}
	/* Leaf (p, i) port K+1+j -- spine (p, j) port 1+i; spine (p, j) port K+1+c -- core (j, c) port 1+p. */
	for (p = 0; p < pods; p++)
		for (i = 0; i < K; i++)
			for (j = 0; j < K; j++)
				ibs_fabric_connect(leaf[p * K + i], (uint8_t)(K + 1 + j), spine[p * K + j], (uint8_t)(1 + i));
	for (p = 0; p < pods; p++)
		for (j = 0; j < K; j++)
			for (c = 0; c < K; c++)
				ibs_fabric_connect(spine[p * K + j], (uint8_t)(K + 1 + c), core[j * K + c], (uint8_t)(1 + p));
	ibs_fabric_sort(f);
	/* d-mod-k: up by the LID, down by where it lives. */
	l = xcalloc(nsw, sizeof(*l));
	for (i = 0; i < nsw; i++) {
		l[i].node = i < nleaf ? leaf[i] : i < nleaf + nspine ? spine[i - nleaf] : core[i - nleaf - nspine];
		l[i].n = top + 1;
		l[i].ok = true;
		l[i].ports = xmalloc(top + 1);
		memset(l[i].ports, 0xff, top + 1);
	}
	for (lid = 1; lid <= top; lid++) {
		/* Where the LID lives: its pod, leaf in pod, spine or core position (-1: none). */
		int dp = -1, dl = -1, dj = -1, dc = -1;
		unsigned u = lid - 1, upj = lid % K, upc = (lid / K) % K;
		if (u < nhost) {
			dp = (int)(u / K / K), dl = (int)(u / K % K);
		} else if ((u -= nhost) < nleaf) {
			dp = (int)(u / K), dl = (int)(u % K);
		} else if ((u -= nleaf) < nspine) {
			dp = (int)(u / K), dj = (int)(u % K);
		} else {
			u -= nspine;
			dj = (int)(u / K), dc = (int)(u % K);
		}
		if (dj >= 0)
			upj = (unsigned)dj;
		if (dc >= 0)
			upc = (unsigned)dc;
		for (p = 0; p < pods; p++)
			for (i = 0; i < K; i++) {
				uint8_t *t = l[p * K + i].ports;
				if ((int)p == dp && (int)i == dl && dj < 0)
					t[lid] = lid <= nhost ? (uint8_t)(1 + (lid - 1) % K) : 0;
				else
					t[lid] = (uint8_t)(K + 1 + upj);
			}
		for (p = 0; p < pods; p++)
			for (j = 0; j < K; j++) {
				uint8_t *t = l[nleaf + p * K + j].ports;
				if ((int)p == dp && dj == (int)j && dc < 0)
					t[lid] = 0;
				else if ((int)p == dp && dl >= 0)
					t[lid] = (uint8_t)(1 + dl);
				else
					t[lid] = (uint8_t)(K + 1 + upc);
			}
		for (j = 0; j < K; j++)
			for (c = 0; c < K; c++) {
				uint8_t *t = l[nleaf + nspine + j * K + c].ports;
				if (dc >= 0 && (int)j == dj && (int)c == dc)
					t[lid] = 0;
				else if (dp >= 0)
					t[lid] = (uint8_t)(1 + dp); /* down to spine (dp, j), which goes on as it must */
				else
					t[lid] = (uint8_t)(1 + (lid % pods)); /* to another core: via some spine in column j */
			}
	}
	t0 = cpu_s();
	ibs_routecheck(f, l, nsw, &rc);
	t1 = cpu_s();
	getrusage(RUSAGE_SELF, &ru);
	printf("routebench: %zu nodes (%u switches, %u hosts), %llu destinations, %llu pairs, %llu ok, "
	       "%llu non-minimal, %zu findings, %zu cycles, %llu dependencies\n",
	       f->n_nodes, nsw, nhost, (unsigned long long)rc.dests, (unsigned long long)rc.pairs,
	       (unsigned long long)rc.ok, (unsigned long long)rc.non_minimal, rc.n, rc.n_cycles,
	       (unsigned long long)rc.deps);
	printf("routebench: analysis %.2f s CPU, %.1f ns per pair, %.1f us per destination, max RSS %ld MiB\n",
	       t1 - t0, (t1 - t0) * 1e9 / (double)(rc.pairs ? rc.pairs : 1),
	       (t1 - t0) * 1e6 / (double)(rc.dests ? rc.dests : 1), ru.ru_maxrss / 1024);
	if (rc.n || rc.n_cycles || rc.ok != rc.pairs) {
		fprintf(stderr, "routebench: the tables are wrong or the check is\n");
		return 1;
	}
	return 0;
}
