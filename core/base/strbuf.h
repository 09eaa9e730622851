/* A growable string buffer for data of unbounded size. */
#ifndef IBSCAN_STRBUF_H
#define IBSCAN_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf; /* always NUL-terminated once anything was added */
	size_t len;
	size_t cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_add(struct strbuf *sb, const char *s, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_reset(struct strbuf *sb);
const char *sb_str(const struct strbuf *sb);
char *sb_detach(struct strbuf *sb);
void sb_free(struct strbuf *sb);

#endif
