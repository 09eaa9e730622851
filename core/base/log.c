/* Diagnostics on stderr; the only place that formats error prefixes. */
#include "log.h"
#include "text.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void vlog(int l, const char *prefix, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));

static void vlog(int l, const char *prefix, const char *fmt, va_list ap)
{
	char *raw, *shown;

	if (l > level)
		return;
	/* Messages quote files and answers (a parser's complaint, a name): never pass their bytes to a terminal. */
	raw = xvasprintf(fmt, ap);
	shown = ibs_text_clean(raw, strlen(raw));
	fprintf(stderr, "ibscan: %s%s\n", prefix, shown);
	free(shown);
	free(raw);
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
