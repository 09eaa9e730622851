/* GIDs as text, their types' names, and their rank for RoCE traffic (see gid.h): one rule for the probe and the host view. */
#include "gid.h"

#include <stdio.h>
#include <string.h>

void ibs_gid_str(const uint8_t g[16], char *buf, size_t len)
{
	snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x", g[0], g[1], g[2],
		 g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

bool ibs_gid_ipv4(const uint8_t g[16], char *buf, size_t len)
{
	if (!ibs_gid_is_v4mapped(g))
		return false;
	snprintf(buf, len, "%u.%u.%u.%u", g[12], g[13], g[14], g[15]);
	return true;
}

const char *ibs_gid_type_name(enum ibs_gid_type t)
{
	return t == IBS_GID_ROCE_V2 ? "RoCE v2" : t == IBS_GID_IB_ROCE_V1 ? "IB/RoCE v1" : NULL;
}

enum ibs_gid_type ibs_gid_type_parse(const char *s)
{
	return !s ? IBS_GID_UNKNOWN : !strcmp(s, "RoCE v2") ? IBS_GID_ROCE_V2
		  : !strcmp(s, "IB/RoCE v1")		   ? IBS_GID_IB_ROCE_V1
							   : IBS_GID_UNKNOWN;
}

bool ibs_gid_is_link_local(const uint8_t gid[16])
{
	if (ibs_gid_is_v4mapped(gid))
		return gid[12] == 169 && gid[13] == 254; /* 169.254.0.0/16, RFC 3927 */
	return gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80; /* fe80::/10, RFC 4291 */
}

int ibs_gid_rank(const uint8_t gid[16], enum ibs_gid_type type, const char **why)
{
	bool v4 = ibs_gid_is_v4mapped(gid);
	bool ll = ibs_gid_is_link_local(gid);

	if (type == IBS_GID_ROCE_V2 && v4 && !ll)
		return *why = "RoCE v2 with an IPv4 address", 0;
	if (type == IBS_GID_ROCE_V2 && !ll)
		return *why = "RoCE v2 with a global IPv6 address", 1;
	if (type == IBS_GID_ROCE_V2 && v4)
		return *why = "RoCE v2 with a link-local IPv4 address (169.254/16)", 2;
	if (type == IBS_GID_ROCE_V2)
		return *why = "RoCE v2, link-local", 3;
	if (type == IBS_GID_UNKNOWN && v4 && !ll)
		return *why = "an IPv4 address (GID type unknown)", 4;
	if (v4 && !ll)
		return *why = "RoCE v1 with an IPv4 address", 5;
	return *why = "the first GID in the table", 6;
}
