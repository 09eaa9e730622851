/* Diagnostics on stderr; the only place that formats error prefixes. */
#include "log.h"

#include <stdio.h>

static int level = LOG_WARN;
static unsigned nerrors;

void log_set_level(int l)
{
	level = l;
}

int log_get_level(void)
{
	return level;
}

unsigned log_error_count(void)
{
	return nerrors;
}

static void vlog(int l, const char *prefix, const char *fmt, va_list ap)
{
	if (l > level)
		return;
	fputs("ibscan: ", stderr);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define DEFINE_LOG(fn, l, prefix)                 \
	void fn(const char *fmt, ...)             \
	{                                         \
		va_list ap;                       \
		va_start(ap, fmt);                \
		vlog(l, prefix, fmt, ap);         \
		va_end(ap);                       \
	}

void log_error(const char *fmt, ...)
{
	va_list ap;

	nerrors++;
	va_start(ap, fmt);
	vlog(LOG_ERROR, "error: ", fmt, ap);
	va_end(ap);
}

DEFINE_LOG(log_warn, LOG_WARN, "warning: ")
DEFINE_LOG(log_info, LOG_INFO, "")
DEFINE_LOG(log_debug, LOG_DEBUG, "debug: ")
DEFINE_LOG(log_trace, LOG_TRACE, "trace: ")
DEFINE_LOG(log_hint, LOG_ERROR, "hint: ")
