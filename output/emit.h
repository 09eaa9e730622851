/*
 * One walk over the data, two renderings (iproute2's print_* idea): every
 * value is given once, with its JSON key and its text format. In text mode the
 * format is printed (or nothing when it is NULL); in JSON mode the value goes
 * under its key. So text and JSON cannot drift apart.
 */
#ifndef IBSCAN_EMIT_H
#define IBSCAN_EMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum emit_mode { EMIT_TEXT, EMIT_JSON };

struct emit;

/* Buffer the output; emit_write() writes it out. */
struct emit *emit_new(enum emit_mode mode);
/* Write to out as values are emitted; emit_write() then only reports errors. */
struct emit *emit_new_stream(enum emit_mode mode, FILE *out);
enum emit_mode emit_mode(const struct emit *e);
bool emit_is_json(const struct emit *e);
void emit_obj_open(struct emit *e, const char *key);
void emit_obj_close(struct emit *e);
void emit_arr_open(struct emit *e, const char *key);
void emit_arr_close(struct emit *e);
void emit_str(struct emit *e, const char *key, const char *fmt, const char *val);
void emit_uint(struct emit *e, const char *key, const char *fmt, uint64_t v);
void emit_int(struct emit *e, const char *key, const char *fmt, int64_t v);
void emit_double(struct emit *e, const char *key, const char *fmt, double v);
void emit_bool(struct emit *e, const char *key, const char *fmt, bool v);
/* JSON: "0x%016llx" string (jansson integers are signed 64-bit); text: fmt gets that string. */
void emit_guid(struct emit *e, const char *key, const char *fmt, uint64_t guid);
/* JSON: null; text: fmt gets "-". */
void emit_null(struct emit *e, const char *key, const char *fmt);
/* Text only. */
void emit_text(struct emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write what was buffered to out (streams: check for errors); 0, or -1 when writing failed. */
int emit_write(struct emit *e, FILE *out);
void emit_free(struct emit *e);

#endif
