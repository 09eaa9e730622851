/* Human-readable names for enum ibs_err. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const msgs[IBS_E__COUNT] = {
	[IBS_OK] = "success",
	[IBS_E_AGAIN] = "no data yet",
	[IBS_E_NODEV] = "no InfiniBand device found",
	[IBS_E_PERM] = "permission denied",
	[IBS_E_TRANSPORT] = "transport failure",
	[IBS_E_SEND] = "the MAD could not be sent",
	[IBS_E_TIMEOUT] = "timed out",
	[IBS_E_DEADLINE] = "global deadline expired",
	[IBS_E_STATUS] = "bad MAD status",
	[IBS_E_MALFORMED] = "malformed response",
	[IBS_E_INPUT] = "bad input",
	[IBS_E_IO] = "input/output error",
	[IBS_E_INVAL] = "invalid argument",
	[IBS_E_NOTFOUND] = "not found",
	[IBS_E_PARTIAL] = "partial result",
};

const char *ibs_strerror(enum ibs_err e)
{
	if ((unsigned)e >= IBS_E__COUNT || !msgs[e])
		return "unknown error";
	return msgs[e];
}

void ibs_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ibscan: BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
