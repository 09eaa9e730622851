/*
 * sysfs as untrusted input: an attribute is a regular file of at most
 * IBS_SYSFS_ATTR_MAX bytes without NUL, trailing white space trimmed and
 * cleaned like every string ibscan takes in; anything else reads as absent
 * (NULL or -1), never as an error.
 */
#ifndef IBSCAN_SYSFS_H
#define IBSCAN_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IBS_SYSFS_ATTR_MAX 4096 /* bytes of one attribute file, at most */

/* The attribute at the formatted path, or NULL (caller frees). */
char *ibs_sysfs_attr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* s (consumed: freed) parsed as an unsigned number at most max, or -1. */
int64_t ibs_sysfs_attr_num(uint64_t max, char *s);
/* The target of the symlink at the formatted path, fully resolved, or NULL (caller frees). */
char *ibs_sysfs_resolve(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The PCI address ("0000:3b:00.0") that ends a resolved path, or NULL (caller frees). */
char *ibs_sysfs_pci_name(const char *resolved);
/* A directory's printable entries (at most max) in natural order; free with ibs_sysfs_free_list. */
char **ibs_sysfs_list_dir(const char *path, size_t max, size_t *n);
void ibs_sysfs_free_list(char **v, size_t n);
/* A directory's entries named by a decimal number at most limit (ports, GID indices), ascending (caller frees). */
unsigned *ibs_sysfs_list_indices(const char *path, size_t max, unsigned limit, size_t *n);

/* Parsers of sysfs attribute text (exposed for tests and fuzzing); false when malformed. */
/* "b859:9f03:00d4:c3a8" (node_guid, sys_image_guid) */
bool ibs_sysfs_parse_guid(const char *s, uint64_t *out);
/* "fe80:0000:0000:0000:b859:9f03:00d4:c3a8" (ports/N/gids/I) */
bool ibs_sysfs_parse_gid(const char *s, uint8_t gid[16]);
/* "4: ACTIVE" (state, phys_state, node_type): *name is allocated */
bool ibs_sysfs_parse_enum(const char *s, int *num, char **name);
/* "100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)": *speed is allocated (NULL when absent) */
bool ibs_sysfs_parse_rate(const char *s, double *gbps, unsigned *width, char **speed);
/* "0x5" or "12", at most max */
bool ibs_sysfs_parse_uint(const char *s, uint64_t max, uint64_t *out);

#endif
