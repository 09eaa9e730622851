/*
 * The fat-tree structure, checked with no plan (as ibdiagnet's fat-tree
 * check does): tiers from the topology (fabric/model/levels.h: leaves, spines,
 * cores); every switch of a tier has the same number of cables to each
 * switch it is cabled to in the tier above, and the top tier is cabled to
 * every switch below it; the switches of a tier have equal degrees; hosts
 * only on leaves; no cable inside a tier; one rate per tier. Findings
 * (docs/checks.md): fabric.asymmetric, fabric.misplaced, fabric.rate, each
 * naming the switches and the count or rate expected (the most common one).
 */
#ifndef IBSCAN_FATTREE_H
#define IBSCAN_FATTREE_H

#include "findings.h"

void ibs_check_fat_tree(const struct ibs_fabric *f, struct ibs_findings *fs);

#endif
