/* The renderer of `ibscan diff` (text and JSON). */
#ifndef IBSCAN_OUT_DIFF_H
#define IBSCAN_OUT_DIFF_H

#include "emit.h"
#include "../fabric/check/diff.h"

#define IBS_DIFF_SCHEMA "ibscan.diff/1"

void render_diff(struct emit *e, const char *a_name, const char *b_name, const struct ibs_diff *d);

#endif
