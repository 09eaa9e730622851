/*
 * One small hash table for the whole tree: open addressing with linear
 * probing over pointers to the caller's entries, kept at most half full, so
 * lookups stay O(1) on any input (the model's GUIDs, the Slurm writer's
 * names). The caller gives each entry's hash (the table keeps it beside the
 * pointer: growing never calls back) and says when an entry matches a key.
 */
#ifndef IBSCAN_HTAB_H
#define IBSCAN_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibs_htab_slot {
	void *entry; /* NULL: empty */
	uint64_t hash;
};

struct ibs_htab {
	struct ibs_htab_slot *v;
	size_t cap, n; /* cap: 0 or a power of two */
};

#define IBS_HTAB_INIT { NULL, 0, 0 }

/* The entry of hash h that match(entry, key) accepts, or NULL. */
void *ibs_htab_find(const struct ibs_htab *t, uint64_t h, bool (*match)(const void *entry, const void *key),
		    const void *key);
/* Add entry under hash h (the caller has checked it is not there, or wants it twice). */
void ibs_htab_add(struct ibs_htab *t, uint64_t h, void *entry);
/* Free the table (not the entries). */
void ibs_htab_free(struct ibs_htab *t);

/* Hashes for keys: a 64-bit number (GUIDs, often sequential) and a string (FNV-1a). */
uint64_t ibs_hash_u64(uint64_t x);
uint64_t ibs_hash_str(const char *s);

#endif
