/*
 * MAD fields read and written at the cost of a load and a shift, their
 * places learnt from libibmad's own tables (field.c); for the codec files
 * of core/mad only (mad.c, smp.c, gmp.c).
 */
#ifndef IBSCAN_MAD_FIELD_H
#define IBSCAN_MAD_FIELD_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

/* The buffers fields are read from and written to hold a whole MAD (IBS_MAD_SIZE: mad.c checks they agree). */
#define IBS_FIELD_BUF 256

/*
 * Where each field lies is learnt from libibmad's own tables, never written
 * here: mad_set_field of all ones into a zeroed buffer shows the bits the
 * field owns. The result is then checked against mad_get_field on sample
 * buffers; a field whose bits are not one big-endian run within 8 bytes
 * keeps going through libibmad. (Field decoding was a fifth of the
 * instructions of a replay.)
 */
struct ibs_fast_field {
	uint8_t state; /* 0 not learnt yet, 1 fast, 2 through libibmad */
	uint8_t first; /* the 8 bytes from here hold the field */
	uint8_t rshift;
	uint64_t mask;
};

extern struct ibs_fast_field ibs_fast_fields[IB_FIELD_LAST_];

static inline uint64_t ibs_load_be64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return __builtin_bswap64(v);
}

/* Learn where f lies (ibs_fast_fields[f].state becomes 1 or 2). */
void ibs_field_learn(enum MAD_FIELDS f, bool wide);
/* f read through libibmad. */
uint64_t ibs_field_lib_get(const uint8_t *b, enum MAD_FIELDS f, bool wide);

/* b holds IBS_FIELD_BUF bytes. */
static inline uint64_t ibs_field_get(const uint8_t *b, enum MAD_FIELDS f, bool wide)
{
	const struct ibs_fast_field *ff = &ibs_fast_fields[f];

	if (__builtin_expect(ff->state == 1, 1))
		return ibs_load_be64(b + ff->first) >> ff->rshift & ff->mask;
	if (ff->state == 0) {
		ibs_field_learn(f, wide);
		return ibs_field_get(b, f, wide);
	}
	return ibs_field_lib_get(b, f, wide);
}

#define GET32(b, f) ((uint32_t)ibs_field_get((b), (f), false))
#define GET64(b, f) ibs_field_get((b), (f), true)

/* Write a field learnt fast; false when it is not (then use libibmad). b holds IBS_FIELD_BUF bytes. */
bool ibs_field_set(uint8_t *b, enum MAD_FIELDS f, bool wide, uint64_t val);

#endif
