/*
 * The ib-node-name-map file of infiniband-diags: one `GUID "name"` per line,
 * '#' comments. Parsed as untrusted input, with limits: a GUID is "0x" and 1
 * to 16 hex digits, a name is one word or in double quotes and only a
 * comment may follow it; names are cleaned (core/base/text.h); a GUID named twice
 * keeps its first name, with a warning.
 */
#ifndef IBSCAN_NAMEMAP_H
#define IBSCAN_NAMEMAP_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/base/err.h"

struct ibs_namemap;

#define IBS_NAMEMAP_MAX_BYTES (64u << 20)
#define IBS_NAMEMAP_MAX_LINE 4096

/* Load path; on error *msg gets "file:line: reason" (caller frees). */
enum ibs_err ibs_namemap_load(const char *path, struct ibs_namemap **out, char **msg);
/* Parse a buffer (for tests and fuzzing); name is used in messages. */
enum ibs_err ibs_namemap_parse(const char *name, const char *buf, size_t len, struct ibs_namemap **out,
			       char **msg);
const char *ibs_namemap_get(const struct ibs_namemap *m, uint64_t guid);
size_t ibs_namemap_count(const struct ibs_namemap *m);
/* Entry i (0 .. count-1, by GUID): its name, and its GUID in *guid. */
const char *ibs_namemap_entry(const struct ibs_namemap *m, size_t i, uint64_t *guid);
/* What the map's file got wrong without being refused ("file:line: ..."), e.g. a GUID named twice. */
size_t ibs_namemap_warnings(const struct ibs_namemap *m, const char *const **out);
void ibs_namemap_free(struct ibs_namemap *m);

struct ibs_fabric;
/* Set node->name for every node whose GUID the map names. */
void ibs_namemap_apply(const struct ibs_namemap *m, struct ibs_fabric *f);

#endif
