/* The capture tests' walk, recording and index (captures.h). */
#include "captures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../../core/capture/index.h"
#include "../../../core/capture/recorder.h"
#include "../../../output/topo.h"

static struct ff ff;

static void build(void)
{
	ff_2sw4ca(&ff);
	ff.n[5].dead = true; /* one dead target, so timeouts are recorded too */
	ff.n[1].bad_status_attr = IB_ATTR_SWITCH_INFO;
}

char *cap_walk_json(struct ibs_transport *t)
{
	static const struct ff_walk_opts o = { .eo = CAP_ENGINE, .wo = CAP_WALK, .local_port = true };
	struct ibs_fabric *f;
	struct emit *em = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(fb_walk_transport(t, &o, &f, NULL), IBS_OK);
	render_topology(em, f, &(const struct ibs_run){ 0 });
	emit_write(em, m);
	fclose(m);
	emit_free(em);
	ibs_fabric_free(f);
	return buf;
}

char *cap_record(const char *path)
{
	struct fake f;
	struct ibs_transport *rec;
	char *live;

	build();
	fake_init(&f, ff_on_send, &ff);
	f.local.lid = 1;
	f.local.node_guid = 0x200000;
	assert_int_equal(ibs_recorder_wrap(&f.t, path, false, &f.local, NULL, &rec), IBS_OK);
	live = cap_walk_json(rec);
	ibs_transport_close(rec);
	return live;
}

void cap_write_index(const char *path, const char *ipath)
{
	struct ibs_capidx_src src;
	struct ibs_capture *c;
	struct ibs_capidx *ix;
	char *msg = NULL;

	assert_true(ibs_capidx_src_of(path, &src));
	assert_int_equal(ibs_capture_load(path, &c, &msg), IBS_OK);
	assert_int_equal(ibs_capidx_build(c, &src, &ix, &msg), IBS_OK);
	assert_int_equal(ibs_capidx_count(ix), c->n);
	assert_int_equal(ibs_capidx_write(ix, ipath, &msg), IBS_OK);
	ibs_capidx_free(ix);
	ibs_capture_free(c);
}
