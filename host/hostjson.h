/* Reading a host view back from `ibscan local --json` (for `ibscan fleet`). */
#ifndef IBSCAN_HOSTJSON_H
#define IBSCAN_HOSTJSON_H

#include <stddef.h>

#include "../core/base/err.h"
#include "hostinfo.h"

#define IBS_HOSTJSON_MAX_BYTES (16 * 1024 * 1024) /* one host's document, at most */

/*
 * Parse an ibscan.local/1 document (name is for messages). IBS_E_INPUT with
 * *msg ("FILE: device 2: ...") when it is not one, or a field is of the
 * wrong type or out of bounds.
 */
enum ibs_err ibs_host_parse_json(const char *name, const char *buf, size_t len, struct ibs_host **out, char **msg);

#endif
