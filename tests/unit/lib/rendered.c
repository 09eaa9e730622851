/* The renderers' tests' fabric and their output as strings (rendered.h). */
#include "rendered.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../../output/topo.h"

struct ibs_fabric *rendered_2sw(void)
{
	static struct ff ff;
	struct ibs_fabric *f;

	ff_2sw2ca(&ff);
	f = ff_walk(&ff, NULL);
	assert_non_null(f);
	return f;
}

FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	return m->f;
}

char *mem_take(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	m->f = NULL;
	return m->buf;
}

char *emitted(struct emit *e)
{
	struct mem m;

	assert_int_equal(emit_write(e, mem_open(&m)), 0);
	emit_free(e);
	return mem_take(&m);
}

char *rendered_topology(const struct ibs_fabric *f, enum emit_mode mode)
{
	struct emit *e = emit_new(mode);

	render_topology(e, f, &(const struct ibs_run){ 0 });
	return emitted(e);
}
