/*
 * Rail-optimized cabling, checked with no plan: HCA k of every server of a
 * scalable unit goes to the rail-k leaf. A CA's host and device come from
 * its node-name-map entry or its NodeDescription, "HOST DEVICE" (rdma-ndd's
 * "%h %d", e.g. "dgx001 mlx5_3"); the host as fabric/model/hosts.h groups CAs.
 * A rail is a device name (port 2 of a device is the rail "DEVICE/2").
 *
 * A leaf's rail is the rail most of its host cables are on; a scalable
 * unit is a set of hosts and leaves joined by host cables. Findings
 * (docs/checks.md): rail.miscabled (a cable on a leaf of another rail),
 * rail.collision (a host's second rail on a leaf that already has one of
 * its rails), rail.missing (a host without a rail that most hosts of its
 * scalable unit have), each naming host, device, leaf and port, and the
 * cable to swap or move.
 */
#ifndef IBSCAN_RAILS_H
#define IBSCAN_RAILS_H

#include <stdbool.h>
#include <stddef.h>

#include "findings.h"
#include "../model/hosts.h"

#define IBS_RAILS_MAX_BYTES (64u << 10) /* a rails spec or file */
#define IBS_RAILS_MAX_ITEMS 1024

/* Which devices are compute rails. */
struct ibs_rails;

/*
 * A spec: "all" (every device), or items separated by commas: a device
 * ("mlx5_0", "ib0"), a range of numbered devices ("mlx5_0-3"), or numbers
 * and ranges that take the prefix of the item before them ("mlx5_0-3,6-9":
 * mlx5_0..mlx5_3 and mlx5_6..mlx5_9). "@FILE" reads the items from a file
 * (separated by commas, spaces or lines, '#' comments). *msg says what is
 * wrong (with file:line for a file); caller frees.
 */
enum ibs_err ibs_rails_parse(const char *spec, struct ibs_rails **out, char **msg);
/* The items of a file's text, for the loader, tests and fuzzing; name is used in messages. */
enum ibs_err ibs_rails_parse_text(const char *name, const char *buf, size_t len, struct ibs_rails **out,
				  char **msg);
bool ibs_rails_has(const struct ibs_rails *r, const char *device);
void ibs_rails_free(struct ibs_rails *r);

/*
 * The device a CA names: the second word of its node-name-map entry, else
 * of its NodeDescription; copied into buf (size len); false when it names none.
 */
bool ibs_ca_device(const struct ibs_node *n, char *buf, size_t len);

/* rail.miscabled, rail.collision and rail.missing for the devices r names. */
void ibs_check_rails(const struct ibs_fabric *f, const struct ibs_hosts *hosts, const struct ibs_rails *r,
		     struct ibs_findings *fs);

#endif
