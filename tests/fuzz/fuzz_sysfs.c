/* libFuzzer target: the parsers of sysfs attribute text (GUIDs, GIDs, "N: NAME" enums, rates, numbers). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../host/hostinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first byte picks the parser; the rest is the attribute text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *name = NULL, *speed = NULL, out[64];
	uint8_t gid[16];
	uint64_t v;
	double gbps;
	unsigned width;
	int num;

	if (size < 1 || size > IBS_SYSFS_ATTR_MAX + 1)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] % 5) {
	case 0:
		ibs_sysfs_parse_guid(s, &v);
		break;
	case 1:
		if (ibs_sysfs_parse_gid(s, gid)) {
			ibs_gid_str(gid, out, sizeof(out));
			ibs_gid_ipv4(gid, out, sizeof(out));
		}
		break;
	case 2:
		if (ibs_sysfs_parse_enum(s, &num, &name) && (!name || num < 0 || num > 255))
			abort();
		break;
	case 3:
		if (ibs_sysfs_parse_rate(s, &gbps, &width, &speed) && (gbps < 0 || width > 64))
			abort();
		break;
	default:
		if (ibs_sysfs_parse_uint(s, 0xffff, &v) && v > 0xffff)
			abort();
		break;
	}
	free(name);
	free(speed);
	free(s);
	return 0;
}
