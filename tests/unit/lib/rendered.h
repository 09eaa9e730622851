/*
 * What the renderers' tests share: the fabric they render (ff_2sw2ca,
 * walked) and a renderer's output as a string, through a memory stream or
 * an emitter.
 */
#ifndef IBSCAN_TEST_RENDERED_H
#define IBSCAN_TEST_RENDERED_H

#include <stdio.h>

#include "fabrics.h"
#include "../../../output/emit.h"

/* ff_2sw2ca walked with FF_WALK_DEFAULT (a failed walk fails the test); the caller frees it. */
struct ibs_fabric *rendered_2sw(void);

/* A stream into memory: mem_open, write to the FILE, then mem_take closes it and hands the text over (free it). */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};
FILE *mem_open(struct mem *m);
char *mem_take(struct mem *m);

/* What e holds, written out (emit_write must succeed); e is freed. */
char *emitted(struct emit *e);

/* f's topology view (render_topology, an empty run) in text or JSON. */
char *rendered_topology(const struct ibs_fabric *f, enum emit_mode mode);

#endif
