/*
 * Tree levels of a fabric's switches, shared by the Slurm view and the
 * drawing. A leaf is a switch with a host (a CA that is not a SHARP
 * aggregation node) cabled to it: level 1. Any other switch's level is 1 +
 * the lowest level among the switches cabled to it, i.e. breadth-first
 * distance from the nearest leaf: on a fat tree leaves 1, spines 2, cores 3.
 * Switches that no host can be reached from, and every CA and router, have
 * level 0.
 */
#ifndef IBSCAN_LEVELS_H
#define IBSCAN_LEVELS_H

#include <stdbool.h>

#include "model.h"

/* SHARP aggregation nodes inside switches show up as CAs; they are not hosts. */
bool ibs_is_aggregation_node(const struct ibs_node *n);

/*
 * Every node's level, indexed by node->index (f->n_nodes entries, caller
 * frees); *max_level is the highest (0 when there is no leaf).
 */
unsigned *ibs_fabric_levels(const struct ibs_fabric *f, unsigned *max_level);

#endif
