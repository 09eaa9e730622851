/* Reading untrusted input files with a size limit. */
#ifndef IBSCAN_FILE_H
#define IBSCAN_FILE_H

#include <stddef.h>

#include "err.h"

/*
 * Read all of path ("-" is stdin) into a NUL-terminated buffer; more than
 * max bytes is an error (a regular file is refused from its size). A pipe or
 * device is read only up to the first piece holding a NUL byte: callers read
 * text and refuse NUL bytes, so that /dev/zero is refused at once.
 */
enum ibs_err ibs_read_file(const char *path, size_t max, char **buf, size_t *len, char **msg);

#endif
