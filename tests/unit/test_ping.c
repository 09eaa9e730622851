/*
 * Unit tests of a probe's result rendered (output/ping.c) as text and
 * JSON, from real runs over the fake verbs: every key present, and each
 * figure rounded to what its measurement holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probe_pair.h"
#include "../../core/base/log.h"
#include "../../output/ping.h"

/* Significant digits of the number after "key": " in JSON text s (leading and trailing zeros aside). */
static int json_sig_digits(const char *s, const char *key, int *decimals)
{
	char pat[64];
	const char *p, *first = NULL, *last = NULL;
	int n = 0, dec = -1;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(s, pat);
	if (!p)
		fail_msg("no %s in %s", pat, s);
	for (p += strlen(pat); *p && strchr("0123456789.-", *p); p++) {
		if (*p == '.') {
			dec = 0;
			continue;
		}
		if (dec >= 0)
			dec++;
		if (*p >= '1' && *p <= '9') {
			if (!first)
				first = p;
			last = p;
		}
	}
	for (p = first; p && p <= last; p++)
		n += *p >= '0' && *p <= '9';
	if (decimals)
		*decimals = dec < 0 ? 0 : dec;
	return n;
}

/* The result renders with every key present, in both formats. */
static void test_render(void **state)
{
	struct side c, s;
	char *buf;
	size_t i;
	json_t *j;
	static const char *const keys[] = { "schema",         "role",       "peer",          "op",         "bandwidth",
					    "iterations",     "size",       "device",        "port",       "addressing",
					    "gid_choice",     "gid_netdev", "setup_address", "sl",         "pkey_index",
					    "traffic_class",  "dlid",       "path_mtu",      "method",     "local",
					    "remote",         "memory",     "dropped_peers", "latency_us", "elapsed_s",
					    "messages_per_s", "gbit_per_s", "bytes" };

	(void)state;
	side_opts(&c, IBS_OP_SEND, false, 20, 64);
	side_opts(&s, IBS_OP_SEND, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	j = ping_render_json(&c.res);
	assert_int_equal(json_object_size(j), sizeof(keys) / sizeof(keys[0]));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_object_get(j, keys[i]))
			fail_msg("key '%s' missing", keys[i]);
	assert_string_equal(json_string_value(json_object_get(j, "schema")), IBS_PING_SCHEMA);
	assert_string_equal(json_string_value(json_object_get(j, "role")), "client");
	assert_true(json_is_object(json_object_get(j, "latency_us")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "latency_us"), "kind")),
			    "half_round_trip");
	json_decref(j);
	/* The listener's view has no measurements: null, not absent. */
	j = ping_render_json(&s.res);
	assert_int_equal(json_object_size(j), sizeof(keys) / sizeof(keys[0]));
	assert_true(json_is_null(json_object_get(j, "latency_us")));
	assert_true(json_is_null(json_object_get(j, "gbit_per_s")));
	json_decref(j);
	buf = ping_render(&c.res, EMIT_TEXT);
	has_text(buf, "probe of listener: send latency, 20 x 64 bytes, from fake0 port 1");
	has_text(buf, "latency in us (half_round_trip): min ");
	has_text(buf, "memory: 8192 bytes registered in ");
	free(buf);
	side_free(&c);
	side_free(&s);
}

/* Measured figures carry what the measurement holds (docs/json-schema.md), in JSON and text alike. */
static void test_render_rounding(void **state)
{
	static const char *const times[] = { "min", "median", "p99", "max", "mean", "register_us" };
	struct side c, s;
	char *buf;
	size_t i;
	int dec;

	(void)state;
	/* A real run with the fake verbs: times to 1 ns, rates to 4 digits. */
	side_opts(&c, IBS_OP_WRITE, false, 7, 64);
	side_opts(&s, IBS_OP_WRITE, false, 0, 0);
	run_pair(&c, &s);
	assert_int_equal(c.rc, IBS_OK);
	c.res.lat_mean_us += 1.0 / 3; /* whatever the fake's clock gave, a quotient with 17 digits */
	buf = ping_render(&c.res, EMIT_JSON);
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		json_sig_digits(buf, times[i], &dec);
		if (dec > 3)
			fail_msg("%s has %d decimals (finer than 1 ns): %s", times[i], dec, buf);
	}
	json_sig_digits(buf, "elapsed_s", &dec);
	assert_true(dec <= 9);
	assert_true(json_sig_digits(buf, "gbit_per_s", NULL) <= 4);
	assert_true(json_sig_digits(buf, "messages_per_s", NULL) <= 4);
	free(buf);

	/* Figures as the soft-RoCE guests gave them: each rounded by its rule, text and JSON the same digits. */
	c.res.lat_min_us = 1.2345678901234;
	c.res.lat_median_us = 2.0 / 3;
	c.res.lat_p99_us = 1234.5678901;
	c.res.lat_max_us = 5000.0004999;
	c.res.lat_mean_us = 10.0 / 3;
	c.res.mr.reg_us = 12.345678901;
	c.res.elapsed_s = 0.0123456789012345;
	c.res.msg_rate = 7 / c.res.elapsed_s;
	c.res.gbit_s = 0.017123456789012345;
	buf = ping_render(&c.res, EMIT_JSON);
	has_text(buf, "\"min\": 1.235,");
	has_text(buf, "\"median\": 0.667,");
	has_text(buf, "\"p99\": 1234.568,");
	has_text(buf, "\"max\": 5000.0,");
	has_text(buf, "\"mean\": 3.333\n");
	has_text(buf, "\"register_us\": 12.346,");
	has_text(buf, "\"elapsed_s\": 0.012345679,");
	has_text(buf, "\"messages_per_s\": 567.0,");
	has_text(buf, "\"gbit_per_s\": 0.01712,");
	free(buf);
	buf = ping_render(&c.res, EMIT_TEXT);
	has_text(buf, "min 1.235, median 0.667, p99 1234.568, max 5000.000, mean 3.333\n");
	has_text(buf, "registered in 12.346 us");
	has_text(buf, "in 0.012345679 s: 567 per second, 0.01712 Gb/s");
	free(buf);
	/* 500 ns elapsed resolves 3 digits of a rate, not 4. */
	c.res.elapsed_s = 5e-7;
	c.res.gbit_s = 1.23456;
	buf = ping_render(&c.res, EMIT_JSON);
	has_text(buf, "\"gbit_per_s\": 1.23,");
	free(buf);
	side_free(&c);
	side_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_render, side_setup),
		cmocka_unit_test_setup(test_render_rounding, side_setup),
	};
	log_set_level(LOG_QUIET);
	return cmocka_run_group_tests_name("ping", tests, NULL, NULL);
}
