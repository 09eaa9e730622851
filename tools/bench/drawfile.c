/*
 * The fabric drawing of a saved topology, for the drawing tests on generated
 * fabrics of any size (tests/cli/t_drawscale.sh) without a simulator: reads
 * an ibnetdiscover topology file, a `topology --json` or an ibnetdiscover
 * cache (fabric/load/load.c) and writes what `ibscan topology --format dot|svg`
 * would write for it, with the default options (hosts grouped; --panels as
 * ibscan's). Not part of ibscan.
 *
 *   drawfile dot|svg FILE OUT [--panels rail|su|none]
 */
#include "../../fabric/load/load.h"
#include "../../output/dot.h"
#include "../../output/draw.h"
#include "../../output/svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct render_draw_opts o = { .fs = NULL, .group_min = RENDER_DRAW_GROUP_DEFAULT, .heat = NULL };
	struct ibs_fabric *f = NULL;
	char *msg = NULL, *err = NULL;
	FILE *out;
	int rc;

	if (argc == 6 && !strcmp(argv[4], "--panels") && render_draw_panels_parse(argv[5], &o.panels))
		argc = 4;
	if (argc != 4 || (strcmp(argv[1], "dot") && strcmp(argv[1], "svg"))) {
		fprintf(stderr, "usage: drawfile dot|svg FILE OUT [--panels rail|su|none]\n");
		return 2;
	}
	if (ibs_fabric_load(argv[2], &f, &msg)) {
		fprintf(stderr, "drawfile: %s\n", msg ? msg : "cannot load");
		return 3;
	}
	out = fopen(argv[3], "w");
	if (!out) {
		perror(argv[3]);
		return 3;
	}
	rc = !strcmp(argv[1], "dot") ? render_dot(out, f, &o) : render_svg(out, f, &o, &err);
	if (err)
		fprintf(stderr, "drawfile: %s\n", err);
	if (fclose(out))
		rc = -1;
	free(msg);
	free(err);
	ibs_fabric_free(f);
	return rc ? 3 : 0;
}
