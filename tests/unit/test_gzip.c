/*
 * core/base/gzip.c: a gzip member made of a head deflated per response and
 * a tail deflated once must inflate, as one member with nothing left over,
 * to the head followed by the tail, whatever the head (the exporter's
 * /metrics: its status lines per scrape, the sweep's page once).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "../../core/base/gzip.h"

/* Inflate the gzip bytes in[0..n) (one member: windowBits 15 + 16) and check they are want[0..wlen) and end there. */
static void inflate_check(const unsigned char *in, size_t n, const char *want, size_t wlen)
{
	z_stream z;
	unsigned char *out = malloc(wlen + 16);
	int rc;

	memset(&z, 0, sizeof(z));
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)(wlen + 16);
	rc = inflate(&z, Z_FINISH);
	assert_int_equal(rc, Z_STREAM_END); /* the CRC-32 and ISIZE checked by zlib */
	assert_int_equal(z.avail_in, 0);    /* one member, nothing after it */
	assert_int_equal(z.total_out, wlen);
	assert_memory_equal(out, want, wlen);
	inflateEnd(&z);
	free(out);
}

/* A response: the head's bytes, the tail's, the trailer, in one buffer. */
static unsigned char *member(const char *head, const struct gz_tail *t, size_t *n)
{
	unsigned char trailer[8], *h, *all;
	size_t hl;

	h = gz_head(head, strlen(head), t, &hl, trailer);
	assert_non_null(h);
	if (!t) {
		*n = hl;
		return h;
	}
	all = malloc(hl + t->len + 8);
	memcpy(all, h, hl);
	memcpy(all + hl, t->data, t->len);
	memcpy(all + hl + t->len, trailer, 8);
	*n = hl + t->len + 8;
	free(h);
	return all;
}

static void test_head_and_tail(void **state)
{
	const char *heads[] = { "ibscan_sweep_age_seconds 1.5\n", "ibscan_sweep_age_seconds 61.25\n# more\n", "" };
	size_t len = 0, i, n;
	char *tail = NULL, *want;
	FILE *m = open_memstream(&tail, &len);
	struct gz_tail t;
	unsigned char *g;

	(void)state;
	/* A Prometheus page's shape: repetitive lines, 3 MB. */
	for (i = 0; i < 40000; i++)
		fprintf(m, "ibscan_port_xmit_wait_total{guid=\"0x%016zx\",port=\"%zu\",name=\"node%zu\",peer=\"\"} %zu\n",
			i / 36, i % 36 + 1, i / 36, i * 7919 % 100003);
	fclose(m);
	assert_int_equal(gz_tail_make(tail, len, &t), 0);
	assert_true(t.len < len / 4);
	for (i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		size_t hl = strlen(heads[i]);
		want = malloc(hl + len);
		memcpy(want, heads[i], hl);
		memcpy(want + hl, tail, len);
		g = member(heads[i], &t, &n);
		inflate_check(g, n, want, hl + len);
		free(g);
		free(want);
	}
	gz_tail_free(&t);
	free(tail);
}

/* No tail (before the first sweep): the head alone is the whole member. */
static void test_head_alone(void **state)
{
	const char *head = "ibscan_up 0\n";
	size_t n;
	unsigned char *g;

	(void)state;
	g = member(head, NULL, &n);
	inflate_check(g, n, head, strlen(head));
	free(g);
}

/* An empty tail (a page of no bytes) still makes one valid member. */
static void test_empty_tail(void **state)
{
	struct gz_tail t;
	size_t n;
	unsigned char *g;

	(void)state;
	assert_int_equal(gz_tail_make("", 0, &t), 0);
	g = member("x\n", &t, &n);
	inflate_check(g, n, "x\n", 2);
	free(g);
	gz_tail_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_head_and_tail),
		cmocka_unit_test(test_head_alone),
		cmocka_unit_test(test_empty_tail),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
