/* `ibscan topology`, `nodes`, `links` and `sm`: views of one walk of the fabric. */
#include "cli.h"
#include "cmds.h"
#include "../core/base/log.h"
#include "../output/draw.h"
#include "../output/render.h"

#include <stdlib.h>
#include <string.h>

enum view { VIEW_TOPOLOGY, VIEW_NODES, VIEW_LINKS, VIEW_SM };
/* In the order of the formats in the command table (main.c). */
enum fmt { FMT_TEXT, FMT_JSON, FMT_DOT, FMT_SVG, FMT_NETFILE, FMT_SLURM };

/* topology's own help; -o, --format and --json are the shared options, described here. */
const struct cli_opt topology_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_SHARED("format", OPT_FORMAT, "F",
		   "text (default), json, netfile (ibnetdiscover format),\n"
		   "slurm (topology.conf for Slurm's topology/tree plugin),\n"
		   "dot (the Graphviz drawing) or svg (the drawing laid out)"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_END,
};

/* nodes, links and sm: text or JSON. */
const struct cli_opt view_opts[] = { CLI_TEXT("options:\n"), CLI_VIEW_ROWS, CLI_END };

struct job {
	enum view view;
	enum fmt fmt;
	const struct ibs_fabric *f;
	const struct ibs_run *run;
};

static int write_view(FILE *out, void *ctx)
{
	struct job *j = ctx;
	struct emit *e;
	int rc;

	if (j->fmt == FMT_NETFILE)
		return render_netfile(out, j->f);
	if (j->fmt == FMT_SLURM)
		return render_slurm(out, j->f);
	e = emit_new_stream(j->fmt == FMT_JSON ? EMIT_JSON : EMIT_TEXT, out);
	switch (j->view) {
	case VIEW_TOPOLOGY:
		render_topology(e, j->f, j->run);
		break;
	case VIEW_NODES:
		render_nodes(e, j->f, j->run);
		break;
	case VIEW_LINKS:
		render_links(e, j->f, j->run);
		break;
	case VIEW_SM:
		render_sm(e, j->f, j->run);
		break;
	}
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

static int run_view(int argc, char **argv, enum view view)
{
	const struct cmd_desc *cmd = cmd_find(argv[0]);
	struct cli_common c;
	struct ibs_fabric *f;
	struct ibs_run run;
	struct job j;
	int rc, st;

	rc = cli_parse(cmd, &c, argc, argv, NULL, NULL);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	j.view = view;
	rc = cli_format(cmd, &c, &st);
	if (rc != CLI_PARSED)
		return rc;
	j.fmt = (enum fmt)st; /* in the order of the command's formats (main.c) */
	/* The SM view is SMInfo: without it there is nothing to show. */
	if (view == VIEW_SM)
		c.needs = IBS_LACK_SMINFO;
	rc = cli_check_outputs(&c, NULL);
	if (rc != CLI_PARSED)
		return rc;
	rc = cli_walk(&c, &f, &run);
	if (rc)
		return rc;
	j.f = f;
	j.run = &run;
	if (j.fmt == FMT_DOT || j.fmt == FMT_SVG) {
		struct render_draw_opts o = { NULL, c.group_hosts };
		st = cli_write_drawing(&c, f, &o, j.fmt == FMT_SVG);
	} else {
		st = cli_write_output(&c, write_view, &j);
	}
	if (st == EXIT_OK && f->partial) {
		cli_report_partial(f, &run);
		st = EXIT_RUNTIME;
	}
	ibs_fabric_free(f);
	ibs_run_free(&run);
	return st;
}

int cmd_topology(int argc, char **argv)
{
	return run_view(argc, argv, VIEW_TOPOLOGY);
}

int cmd_nodes(int argc, char **argv)
{
	return run_view(argc, argv, VIEW_NODES);
}

int cmd_links(int argc, char **argv)
{
	return run_view(argc, argv, VIEW_LINKS);
}

int cmd_sm(int argc, char **argv)
{
	return run_view(argc, argv, VIEW_SM);
}
