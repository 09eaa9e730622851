/* `ibscan topology`, `nodes`, `links` and `sm`: views of one walk of the fabric. */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"

#include <stdlib.h>
#include <string.h>

/* topology's own help; -o, --format and --json are the shared options, described here. */
const struct cli_opt topology_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_SHARED("format", OPT_FORMAT, "F",
		   "text (default), json, netfile (ibnetdiscover format),\n"
		   "slurm (topology.conf for Slurm's topology/tree plugin),\n"
		   "slurm-block (topology.conf for topology/block: a block\n"
		   "per scalable unit), slurm-yaml (the same as topology.yaml),\n"
		   "plan (the cabling plan, CSV, that health --plan checks),\n"
		   "dot (the Graphviz drawing) or svg (the drawing laid out)"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_END,
};

/* nodes, links and sm: text or JSON. */
const struct cli_opt view_opts[] = { CLI_TEXT("options:\n"), CLI_VIEW_ROWS, CLI_END };

static int run_view(int argc, char **argv, enum cli_view view)
{
	const struct cmd_desc *cmd = cmd_find(argv[0]);
	struct cli_common c;
	struct ibs_fabric *f;
	struct ibs_run run;
	struct cli_render r = { .view = view };
	int rc, st;

	rc = cli_parse(cmd, &c, argc, argv, NULL, NULL);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	rc = cli_format(cmd, &c, &r.fmt);
	if (rc != CLI_PARSED)
		return rc;
	/* The SM view is SMInfo: without it there is nothing to show. */
	if (view == CLI_V_SM)
		c.needs = IBS_LACK_SMINFO;
	rc = cli_check_outputs(&c, NULL);
	if (rc != CLI_PARSED)
		return rc;
	rc = cli_walk(&c, &f, &run);
	if (rc)
		return rc;
	r.f = f;
	r.run = &run;
	st = cli_render(&c, &r);
	if (st == EXIT_OK && f->partial) {
		cli_report_partial(&c, f, &run);
		st = EXIT_RUNTIME;
	}
	ibs_fabric_free(f);
	ibs_run_free(&run);
	return st;
}

int cmd_topology(int argc, char **argv)
{
	return run_view(argc, argv, CLI_V_TOPOLOGY);
}

int cmd_nodes(int argc, char **argv)
{
	return run_view(argc, argv, CLI_V_NODES);
}

int cmd_links(int argc, char **argv)
{
	return run_view(argc, argv, CLI_V_LINKS);
}

int cmd_sm(int argc, char **argv)
{
	return run_view(argc, argv, CLI_V_SM);
}
