/* The hash table (see htab.h). */
#include "htab.h"
#include "xalloc.h"

#include <stdlib.h>

/* The slot a hash starts from: its top bits (the multiplicative hashes put their best bits there). */
static size_t home(uint64_t h, size_t cap)
{
	return (size_t)(h >> 32 ^ h) & (cap - 1);
}

void *ibs_htab_find(const struct ibs_htab *t, uint64_t h, bool (*match)(const void *entry, const void *key),
		    const void *key)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = home(h, t->cap); t->v[i].entry; i = (i + 1) & (t->cap - 1))
		if (t->v[i].hash == h && match(t->v[i].entry, key))
			return t->v[i].entry;
	return NULL;
}

static void put(struct ibs_htab_slot *v, size_t cap, uint64_t h, void *entry)
{
	size_t i = home(h, cap);

	while (v[i].entry)
		i = (i + 1) & (cap - 1);
	v[i].entry = entry;
	v[i].hash = h;
}

void ibs_htab_add(struct ibs_htab *t, uint64_t h, void *entry)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		struct ibs_htab_slot *v = xcalloc(cap, sizeof(*v));
		for (i = 0; i < t->cap; i++)
			if (t->v[i].entry)
				put(v, cap, t->v[i].hash, t->v[i].entry);
		free(t->v);
		t->v = v;
		t->cap = cap;
	}
	put(t->v, t->cap, h, entry);
	t->n++;
}

void ibs_htab_free(struct ibs_htab *t)
{
	free(t->v);
	t->v = NULL;
	t->cap = t->n = 0;
}

uint64_t ibs_hash_u64(uint64_t x)
{
	/* Fibonacci hashing: sequential GUIDs spread over the whole table. */
	return x * 0x9e3779b97f4a7c15ull;
}

uint64_t ibs_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}
