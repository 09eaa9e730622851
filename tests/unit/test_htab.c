/* core/base/htab.c: the one hash table (the model's GUIDs, the Slurm writer's names). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/base/htab.h"

struct item {
	uint64_t key;
	int id;
};

static bool same_key(const void *entry, const void *key)
{
	return ((const struct item *)entry)->key == *(const uint64_t *)key;
}

/* Every entry found again after the table grew many times; absent keys are not found. */
static void test_find_after_growth(void **state)
{
	enum { N = 20000 };
	struct ibs_htab t = IBS_HTAB_INIT;
	struct item *v = calloc(N, sizeof(*v));
	uint64_t k;
	int i;

	(void)state;
	assert_null(ibs_htab_find(&t, 1, same_key, &(uint64_t){ 1 }));
	for (i = 0; i < N; i++) {
		v[i].key = 0x0002c90300000000ull + (uint64_t)i; /* sequential, as GUIDs are */
		v[i].id = i;
		ibs_htab_add(&t, ibs_hash_u64(v[i].key), &v[i]);
	}
	assert_int_equal(t.n, N);
	assert_true(t.cap >= 2 * t.n); /* at most half full */
	for (i = 0; i < N; i++) {
		k = v[i].key;
		struct item *e = ibs_htab_find(&t, ibs_hash_u64(k), same_key, &k);
		assert_non_null(e);
		assert_int_equal(e->id, i);
	}
	k = 0x0002c90300000000ull + N;
	assert_null(ibs_htab_find(&t, ibs_hash_u64(k), same_key, &k));
	ibs_htab_free(&t);
	assert_int_equal(t.cap, 0);
	free(v);
}

/* Entries whose hashes are equal are told apart by the match, whatever their order. */
static void test_equal_hashes(void **state)
{
	struct ibs_htab t = IBS_HTAB_INIT;
	struct item v[100];
	uint64_t k;
	int i;

	(void)state;
	for (i = 0; i < 100; i++) {
		v[i].key = (uint64_t)i * 7919;
		v[i].id = i;
		ibs_htab_add(&t, 42, &v[i]);
	}
	for (i = 99; i >= 0; i--) {
		k = (uint64_t)i * 7919;
		assert_ptr_equal(ibs_htab_find(&t, 42, same_key, &k), &v[i]);
	}
	k = 3;
	assert_null(ibs_htab_find(&t, 42, same_key, &k));
	ibs_htab_free(&t);
}

/* The string hash is FNV-1a (64-bit): the published test values. */
static void test_hash_str(void **state)
{
	(void)state;
	assert_true(ibs_hash_str("") == 0xcbf29ce484222325ull);
	assert_true(ibs_hash_str("a") == 0xaf63dc4c8601ec8cull);
	assert_true(ibs_hash_str("foobar") == 0x85944171f73967e8ull);
	assert_true(ibs_hash_u64(1) != ibs_hash_u64(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_after_growth),
		cmocka_unit_test(test_equal_hashes),
		cmocka_unit_test(test_hash_str),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
