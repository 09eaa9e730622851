/* Which file is read through a mapping now, for the one line a SIGBUS says (mapping.h). */
#include "mapping.h"
#include "xalloc.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* A capture's mapping is let go of before its index is mapped: two deep is plenty. */
#define MAX_DEPTH 2
static char *said[MAX_DEPTH];
static size_t said_len[MAX_DEPTH];
static volatile sig_atomic_t depth;

void ibs_mapping_begin(const char *path, const char *why)
{
	char *m = xasprintf("ibscan: error: %s: %s\n", path, why);

	if (depth >= MAX_DEPTH) {
		free(m);
		return;
	}
	said[depth] = m;
	said_len[depth] = strlen(m);
	depth++; /* last: a handler sees the line only once it is whole */
}

void ibs_mapping_end(void)
{
	if (!depth)
		return;
	depth--;
	free(said[depth]);
	said[depth] = NULL;
}

const char *ibs_mapping_said(size_t *len)
{
	sig_atomic_t d = depth;

	if (!d)
		return NULL;
	*len = said_len[d - 1];
	return said[d - 1];
}
