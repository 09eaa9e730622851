/* MAD fields learnt from libibmad's field tables, then read and written without it where a field is one run of bits (see field.h). */
#include "field.h"

struct ibs_fast_field ibs_fast_fields[IB_FIELD_LAST_];

uint64_t ibs_field_lib_get(const uint8_t *b, enum MAD_FIELDS f, bool wide)
{
	void *p = (void *)(uintptr_t)b; /* libibmad only reads here */

	return wide ? mad_get_field64(p, 0, f) : mad_get_field(p, 0, f);
}

void ibs_field_learn(enum MAD_FIELDS f, bool wide)
{
	struct ibs_fast_field *ff = &ibs_fast_fields[f];
	uint8_t z[IBS_FIELD_BUF] = { 0 };
	unsigned first = 0, last = 0, i, k;
	uint64_t v;

	ff->state = 2;
	if (wide)
		mad_set_field64(z, 0, f, ~0ull);
	else
		mad_set_field(z, 0, f, ~0u);
	while (first < IBS_FIELD_BUF && !z[first])
		first++;
	for (i = first; i < IBS_FIELD_BUF; i++)
		if (z[i])
			last = i;
	if (first == IBS_FIELD_BUF || last - first >= 8)
		return;
	if (first > IBS_FIELD_BUF - 8)
		first = IBS_FIELD_BUF - 8;
	v = ibs_load_be64(z + first);
	ff->first = (uint8_t)first;
	ff->rshift = (uint8_t)__builtin_ctzll(v);
	ff->mask = v >> ff->rshift;
	if (ff->mask & (ff->mask + 1))
		return; /* not one run of bits */
	for (k = 0; k < 3; k++) {
		uint8_t t[IBS_FIELD_BUF];
		for (i = 0; i < IBS_FIELD_BUF; i++)
			t[i] = (uint8_t)(k == 0 ? 0xff : (i * 37u + k * 101u) ^ (i >> 3) * 13u);
		if ((ibs_load_be64(t + first) >> ff->rshift & ff->mask) != ibs_field_lib_get(t, f, wide))
			return;
	}
	ff->state = 1;
}

static inline void store_be64(uint8_t *b, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(b, &v, 8);
}

bool ibs_field_set(uint8_t *b, enum MAD_FIELDS f, bool wide, uint64_t val)
{
	const struct ibs_fast_field *ff = &ibs_fast_fields[f];
	uint64_t v;

	if (ff->state == 0)
		ibs_field_learn(f, wide);
	if (ff->state != 1)
		return false;
	v = ibs_load_be64(b + ff->first) & ~(ff->mask << ff->rshift);
	store_be64(b + ff->first, v | (val & ff->mask) << ff->rshift);
	return true;
}
