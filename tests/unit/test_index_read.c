/* Unit tests of reading a replay index (core/capture/index_read.c): stale, damaged or not an index, replay reads the text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/captures.h"
#include "../../core/capture/index.h"
#include "../../core/capture/replay.h"
#include "../../core/base/file.h"

static char *replay_json(const char *path)
{
	struct ibs_transport *rp;
	char *out;

	if (ibs_replay_open(path, false, &rp, NULL) != IBS_OK)
		return NULL;
	out = cap_walk_json(rp);
	ibs_transport_close(rp);
	return out;
}

static void rewrite(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, text, len, 0), (ssize_t)len);
	close(fd);
}

static char *slurp(const char *path, size_t *len)
{
	char *buf, *msg = NULL;
	assert_int_equal(ibs_read_file(path, (size_t)1 << 30, &buf, len, &msg), IBS_OK);
	return buf;
}

static void test_index_replay(void **state)
{
	char path[] = "/tmp/ibscan-test-capXXXXXX", ipath[64], *live, *text, *out, *junk, *msg = NULL;
	int fd = mkstemp(path);
	struct ibs_capidx_src src;
	struct ibs_capidx *ix;
	struct timespec ts[2];
	size_t len, ilen;
	char *idx;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(ipath, sizeof(ipath), "%s%s", path, IBS_CAPIDX_SUFFIX);
	live = cap_record(path);
	text = slurp(path, &len);
	cap_write_index(path, ipath);
	assert_true(ibs_capidx_src_of(path, &src));

	/* The text replaced in place by junk of the same size and time: its bytes are sampled, the index is stale. */
	junk = xmalloc(len);
	memset(junk, '#', len);
	rewrite(path, junk, len);
	ts[0].tv_sec = ts[1].tv_sec = src.mtime_s;
	ts[0].tv_nsec = ts[1].tv_nsec = src.mtime_ns;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	{
		struct ibs_capidx_src now;
		assert_true(ibs_capidx_src_of(path, &now));
		assert_true(now.size == src.size && now.ino == src.ino && now.mtime_ns == src.mtime_ns);
		assert_int_equal(ibs_capidx_open(ipath, &now, &ix, &msg), IBS_E_NOTFOUND);
		assert_non_null(strstr(msg, "stale: the capture's bytes changed"));
		free(msg);
	}
	assert_null(replay_json(path));

	/* Another time: the index is stale, the junk text is read and refused. */
	ts[0].tv_sec = ts[1].tv_sec = src.mtime_s + 10;
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	assert_int_equal(ibs_capidx_open(ipath, (ibs_capidx_src_of(path, &src), &src), &ix, &msg), IBS_E_NOTFOUND);
	assert_non_null(strstr(msg, "stale"));
	free(msg);
	assert_null(replay_json(path));

	/* The real text back: the stale index is passed over and the text replays. */
	rewrite(path, text, len);
	out = replay_json(path);
	assert_string_equal(out, live);
	free(out);

	/* A damaged index is refused by its checksum, and replay reads the text. */
	cap_write_index(path, ipath);
	assert_true(ibs_capidx_src_of(path, &src));
	idx = slurp(ipath, &ilen);
	idx[ilen - 3] ^= 0x40;
	rewrite(ipath, idx, ilen);
	assert_int_equal(ibs_capidx_open(ipath, &src, &ix, &msg), IBS_E_INPUT);
	assert_string_equal(msg, "checksum mismatch: the index is damaged");
	free(msg);
	out = replay_json(path);
	assert_string_equal(out, live);
	free(out);

	/* Truncated, and not an index at all. */
	assert_int_equal(truncate(ipath, (off_t)ilen - 8), 0);
	assert_int_equal(ibs_capidx_open(ipath, &src, &ix, &msg), IBS_E_INPUT);
	assert_non_null(strstr(msg, "truncated or extended"));
	free(msg);
	assert_int_equal(ibs_capidx_open(path, &src, &ix, &msg), IBS_E_INPUT);
	assert_string_equal(msg, "not an ibscan replay index");
	free(msg);

	free(idx);
	free(junk);
	free(text);
	free(live);
	unlink(ipath);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index_replay),
	};
	return cmocka_run_group_tests_name("index_read", tests, NULL, NULL);
}
