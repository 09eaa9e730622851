/* Reading untrusted input files with a size limit, and writing outputs atomically. */
#ifndef IBSCAN_FILE_H
#define IBSCAN_FILE_H

#include <stddef.h>
#include <stdio.h>

#include "err.h"

/*
 * Read all of path ("-" is stdin) into a NUL-terminated buffer; more than
 * max bytes is an error (a regular file is refused from its size). A pipe or
 * device is read only up to the first piece holding a NUL byte: callers read
 * text and refuse NUL bytes, so that /dev/zero is refused at once.
 */
enum ibs_err ibs_read_file(const char *path, size_t max, char **buf, size_t *len, char **msg);

/*
 * An output destination: stdout, or a file written through a temporary file
 * in the same directory and renamed into place on commit, so that a reader
 * never sees half of it.
 */
struct ibs_out {
	FILE *fp;
	char *path;  /* final path, or NULL for stdout */
	char *tmp;   /* temporary path */
};

enum ibs_err ibs_out_open(struct ibs_out *o, const char *path);
/* Flush, check for write errors, fsync and rename; on error the temp file is removed. */
enum ibs_err ibs_out_commit(struct ibs_out *o);
void ibs_out_abort(struct ibs_out *o);

#endif
