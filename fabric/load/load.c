/* Loading a saved topology: tell a cache, ibscan JSON and a netfile apart by their first bytes, and hand the file to its loader. */
#include "load.h"
#include "cache.h"
#include "../../core/base/file.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum ibs_err ibs_fabric_load(const char *path, struct ibs_fabric **out, char **msg)
{
	char *buf;
	size_t n, i = 0;
	enum ibs_err rc;

	*out = NULL;
	rc = ibs_read_file(path, IBS_TOPO_MAX_BYTES, &buf, &n, msg);
	if (rc)
		return rc;
	while (i < n && isspace((unsigned char)buf[i]))
		i++;
	if (n >= 4 && (!memcmp(buf, IBS_CACHE_MAGIC_LE, 4) || !memcmp(buf, IBS_CACHE_MAGIC_BE, 4))) {
		free(buf);
		return ibs_fabric_load_cache(path, out, msg);
	}
	if (i < n && buf[i] == '{')
		rc = ibs_fabric_parse_json(path, buf, n, out, msg);
	else
		rc = ibs_fabric_parse_netfile(path, buf, n, out, msg);
	free(buf);
	return rc;
}
