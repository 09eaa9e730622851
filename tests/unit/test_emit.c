/* Unit tests of the emitter (output/emit.c): JSON escaping and numbers, text formats, a renderer's BUG. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../output/emit.h"

static void test_json_escaping(void **state)
{
	struct emit *e = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	json_t *j;
	json_error_t err;

	(void)state;
	emit_obj_open(e, NULL);
	emit_str(e, "bad", NULL, "a\xff\xc3(\"q\"\\\t\x01\xc3\xa9");
	emit_arr_open(e, "empty");
	emit_arr_close(e);
	emit_obj_open(e, "o");
	emit_obj_close(e);
	emit_double(e, "d", NULL, 2.0);
	emit_double(e, "us", NULL, 2249.316);
	emit_double(e, "tenth", NULL, 0.1);
	emit_double(e, "third", NULL, 1.0 / 3);
	emit_uint(e, "big", NULL, 0xf452140300200001ull);
	emit_obj_close(e);
	assert_int_equal(emit_write(e, m), 0);
	fclose(m);
	emit_free(e);
	assert_non_null(strstr(buf, "\"empty\": [],\n  \"o\": {},\n  \"d\": 2.0,\n"));
	/* The shortest form that reads back as the same double: never 2249.3159999999998. */
	assert_non_null(strstr(buf, "\"us\": 2249.316,\n  \"tenth\": 0.1,\n  \"third\": 0.3333333333333333,\n"));
	assert_non_null(strstr(buf, "\"big\": 17605155896464244737\n}\n"));
	assert_non_null(strstr(buf, "\"a\\ufffd\\ufffd("));
	/* And a JSON parser agrees. */
	j = json_loads(buf, JSON_DECODE_INT_AS_REAL, &err);
	assert_non_null(j);
	/* Invalid bytes became U+FFFD; quotes, backslash, tab, control and UTF-8 survive. */
	assert_string_equal(json_string_value(json_object_get(j, "bad")),
			    "a\xef\xbf\xbd\xef\xbf\xbd(\"q\"\\\t\x01\xc3\xa9");
	json_decref(j);
	free(buf);
}

/* The emitter's own formatting of printf formats agrees with snprintf. */
#define SAME_AS_PRINTF(fmt, ...)                                                  \
	do {                                                                      \
		struct emit *e_ = emit_new(EMIT_TEXT);                            \
		char want_[512], *got_ = NULL;                                    \
		size_t glen_ = 0;                                                 \
		FILE *m_ = open_memstream(&got_, &glen_);                         \
		snprintf(want_, sizeof(want_), fmt, __VA_ARGS__);                 \
		emit_text(e_, fmt, __VA_ARGS__);                                  \
		assert_int_equal(emit_write(e_, m_), 0);                          \
		fclose(m_);                                                       \
		emit_free(e_);                                                    \
		assert_string_equal(got_, want_);                                 \
		free(got_);                                                       \
	} while (0)

static void test_text_formats(void **state)
{
	(void)state;
	SAME_AS_PRINTF("plain %s and %s.", "a", "");
	SAME_AS_PRINTF("[%2u] [%-3s] [%3s] [%-6s|", 7u, "4x", "HDR", "Active");
	SAME_AS_PRINTF("%5lu %3lu %llu %zu", 65535ul, 1234ul, 18446744073709551615ull, (size_t)0);
	SAME_AS_PRINTF("%d %d %5d %-5d| %05d %ld", 0, -42, -42, -42, -42, (long)-9223372036854775807L - 1);
	SAME_AS_PRINTF("%x %08x %016lx %04x:%04x", 0xabcu, 0xdeadu, 0x0002c90300e10001ul, 0xfe80u, 0u);
	SAME_AS_PRINTF("100%% %c%c done", 'o', 'k');
	SAME_AS_PRINTF("%-40s|%40s|", "a long enough field of text", "right");
	/* Outside the subset: handed to vsnprintf whole. */
	SAME_AS_PRINTF("%.3f %5.1s %+d %#x %e", 2.0 / 3, "abc", 5, 255u, 1e10);
	SAME_AS_PRINTF("%s %.2f", "mixed", 1.5);
}

/* A renderer that nests too deep is a programmer error: output/ never exits, it aborts (BUG) saying where. */
static void test_emit_bug_aborts(void **state)
{
	int fds[2], st;
	char msg[256] = "";
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct emit *e = emit_new(EMIT_JSON);
		dup2(fds[1], 2);
		for (int i = 0; i < 40; i++)
			emit_obj_open(e, "x");
		_exit(0);
	}
	close(fds[1]);
	/* To the end: stderr is unbuffered, so the message comes in several writes. */
	for (size_t got = 0; got < sizeof(msg) - 1; got += (size_t)n) {
		n = read(fds[0], msg + got, sizeof(msg) - 1 - got);
		if (n <= 0)
			break;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGABRT);
	assert_non_null(strstr(msg, "ibscan: BUG: output/emit.c:"));
	assert_non_null(strstr(msg, "JSON nested deeper than 32"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_escaping),
		cmocka_unit_test(test_text_formats),
		cmocka_unit_test(test_emit_bug_aborts),
	};
	return cmocka_run_group_tests_name("emit", tests, NULL, NULL);
}
