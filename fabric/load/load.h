/*
 * Loading a saved topology into the model, for baselines and diffs: ibscan's
 * own `topology --json` output, an ibnetdiscover topology file (netfile), or
 * an `ibnetdiscover --cache` file.
 * Both are untrusted input: size limits, every field checked, errors name
 * the file (and the line, for netfiles).
 */
#ifndef IBSCAN_LOAD_H
#define IBSCAN_LOAD_H

#include "../model/model.h"

#define IBS_TOPO_MAX_BYTES ((size_t)512 << 20)
#define IBS_TOPO_MAX_NODES 1000000 /* nodes in one saved topology, at most */

/* A cache when the file starts with its magic number, JSON when with '{', else netfile. */
enum ibs_err ibs_fabric_load(const char *path, struct ibs_fabric **out, char **msg);
enum ibs_err ibs_fabric_parse_json(const char *name, const char *buf, size_t len, struct ibs_fabric **out, char **msg);
enum ibs_err ibs_fabric_parse_netfile(const char *name, const char *buf, size_t len, struct ibs_fabric **out,
				      char **msg);

#endif
