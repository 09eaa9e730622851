/*
 * GIDs (IBA 4.1.1) as the probe and the host view both see them: their
 * type, two tests of their address, their text, and how good each is for
 * RoCE traffic. Pure functions of the 16 bytes and the type: no device is
 * asked.
 */
#ifndef IBSCAN_GID_H
#define IBSCAN_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* GID types as libibverbs and sysfs (gid_attrs/types) name them. */
enum ibs_gid_type { IBS_GID_UNKNOWN = 0, IBS_GID_IB_ROCE_V1 = 1, IBS_GID_ROCE_V2 = 2 };

/* An IPv4-mapped GID (::ffff:a.b.c.d), as RoCE gives an interface's IPv4 address. */
static inline bool ibs_gid_is_v4mapped(const uint8_t gid[16])
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return !memcmp(gid, pfx, sizeof(pfx));
}

static inline bool ibs_gid_is_zero(const uint8_t gid[16])
{
	unsigned i;

	for (i = 0; i < 16; i++)
		if (gid[i])
			return false;
	return true;
}

/* A GID as the kernel prints it: eight groups of four hex digits (40 bytes with the NUL). */
void ibs_gid_str(const uint8_t gid[16], char *buf, size_t len);
/* The IPv4 address of an IPv4-mapped GID ("192.168.1.5"); false when it is not one. */
bool ibs_gid_ipv4(const uint8_t gid[16], char *buf, size_t len);

/* "RoCE v2", "IB/RoCE v1", as sysfs and show_gids name them; NULL for unknown. */
const char *ibs_gid_type_name(enum ibs_gid_type t);
/* The type sysfs gid_attrs/types names (NULL or anything else: unknown). */
enum ibs_gid_type ibs_gid_type_parse(const char *s);

/*
 * A link-local address: fe80::/10, or an IPv4-mapped 169.254.0.0/16 (what
 * an interface configures itself when DHCP fails; perftest ranks it so too).
 */
bool ibs_gid_is_link_local(const uint8_t gid[16]);

/*
 * How well a (non-zero) GID suits a RoCE port, 0 best: RoCE v2 with a
 * global IPv4-mapped address first (routable, what most RoCE fabrics are
 * set up for), then RoCE v2 with a global IPv6 address, RoCE v2 link-local
 * (IPv4 169.254/16, then IPv6 fe80::/10), a global IPv4 address of unknown
 * type, RoCE v1 with a global IPv4 address, anything else last. *why says
 * why (a static string). The probe chooses its GID by this rank where the
 * setup connection does not decide, and the host view shows which GID the
 * probe would choose by it.
 */
int ibs_gid_rank(const uint8_t gid[16], enum ibs_gid_type type, const char **why);

#endif
