/* `ibscan topology`, `nodes`, `links` and `sm`: views of one walk of the fabric. */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"
#include "../fabric/walk/route.h"
#include "../fabric/check/routecheck.h"
#include "../fabric/session.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_HEAT = OPT_CMD_BASE };

/* topology --heat routes: read every forwarding table and colour the drawing's cables by their routes. */
static int topology_opt(int opt, const char *arg, void *ctx)
{
	bool *heat = ctx;

	if (opt != OPT_HEAT)
		return 0;
	if (strcmp(arg, "routes")) {
		cli_usage_error(cmd_find("topology"), "--heat wants 'routes' (the routes crossing each cable), not '%s'",
				arg);
		return -1;
	}
	*heat = true;
	return 1;
}

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
	CLI_OWN("heat", OPT_HEAT, "routes",
		"dot and svg: colour each cable by the host-to-host routes\n"
		"crossing it (reads every switch's forwarding table)"),
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
	struct cli_run cr = CLI_RUN_INIT;
	struct ibs_lft *lfts = NULL;
	size_t n_lfts = 0;
	struct ibs_routecheck rcheck;
	bool heat = false, have_rc = false, *job = NULL;
	int rc, st;

	rc = cli_parse(cmd, &c, argc, argv, view == CLI_V_TOPOLOGY ? topology_opt : NULL, &heat);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	rc = cli_format(cmd, &c, &r.fmt);
	if (rc != CLI_PARSED)
		return rc;
	if (heat && r.fmt != CLI_F_DOT && r.fmt != CLI_F_SVG)
		return cli_usage_error(cmd, "--heat colours a drawing: give --format dot or svg");
	/* The SM view is SMInfo: without it there is nothing to show. */
	if (view == CLI_V_SM)
		c.needs = IBS_LACK_SMINFO;
	rc = cli_check_outputs(&c, NULL);
	if (rc != CLI_PARSED)
		return rc;
	if (heat)
		c.needs |= IBS_LACK_LFT;
	rc = cli_walk_tables(&cr, &c, heat, &f, &run, &lfts, &n_lfts, NULL, NULL);
	if (rc) {
		ibs_lfts_free(lfts, n_lfts);
		return cli_run_end(&cr, rc);
	}
	if (heat && !run.aborted) {
		/* Every CA is in the job: the routes among all hosts, per switch port either way. */
		struct ibs_rc_opts o = { .through = NULL, .through_port = 0, .job = NULL };
		job = ibs_rc_all_hosts(f);
		o.job = job;
		ibs_routecheck_opts(f, lfts, n_lfts, &o, &rcheck);
		have_rc = true;
		r.heat = &rcheck;
	}
	/* A walk cut short is drawn as far as it got, marked partial (then exit 3), never dropped. */
	if (heat && run.aborted)
		log_warn("the walk stopped early: the drawing has no heat map");
	r.f = f;
	r.run = &run;
	st = cli_render(&c, &r);
	if (st == EXIT_OK && f->partial) {
		cli_report_partial(&c, f, &run);
		st = EXIT_RUNTIME;
	}
	if (have_rc)
		ibs_routecheck_free(&rcheck);
	free(job);
	ibs_lfts_free(lfts, n_lfts);
	ibs_fabric_free(f);
	ibs_run_free(&run);
	return cli_run_end(&cr, st);
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
