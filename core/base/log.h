/* Diagnostics on stderr in git's style: "ibscan: error: ...". */
#ifndef IBSCAN_LOG_H
#define IBSCAN_LOG_H

#include <stdarg.h>

enum log_level { LOG_QUIET = -1, LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG, LOG_TRACE };

void log_set_level(int level);
int log_get_level(void);
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Count of errors logged so far (tests and exit status use it). */
unsigned log_error_count(void);

#endif
