/*
 * `ibscan report`: one walk (with counters and health checks) written as a
 * self-contained HTML page. Exit codes as topology's: the findings are in
 * the page, not in the status (that is `ibscan health`'s job).
 */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"
#include "../fabric/check/health.h"
#include "../fabric/walk/route.h"
#include "../fabric/check/routecheck.h"
#include "../fabric/session.h"
#include "../output/report.h"
#include "../output/svg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { OPT_ROUTING = OPT_CMD_BASE };

struct ropts {
	const struct cmd_desc *cmd;
	bool routing; /* --routing: read every forwarding table: the route.* findings and the heat map */
	struct ibs_thresholds thr;
	struct cli_checks chk; /* a refused thresholds file (said) ends the report with EXIT_RUNTIME */
	enum render_draw_panels panels; /* --panels */
};

static int own_opt(int opt, const char *arg, void *ctx)
{
	struct ropts *o = ctx;
	int taken = cli_checks_opt(o->cmd, &o->chk, opt, arg);

	if (taken)
		return taken;
	switch (opt) {
	case OPT_ROUTING:
		o->routing = true;
		return 1;
	case OPT_FORMAT:
	case OPT_JSON:
		cli_usage_error(o->cmd, "a report is HTML only (for JSON: 'ibscan topology --json', 'ibscan health --json')");
		return -1;
	default:
		return 0;
	}
}

/* When the data were taken: now, or SOURCE_DATE_EPOCH (reproducible output, as build tools honour it). */
static time_t report_time(void)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (s && *s) {
		v = strtoll(s, &end, 10);
		if (!*end && v >= 0)
			return (time_t)v;
		log_warn("SOURCE_DATE_EPOCH '%s' is not a count of seconds: the current time is used", s);
	}
	return time(NULL);
}

/* --format and --json are refused (own_opt): a report is HTML. */
const struct cli_opt report_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_SHARED("output", 'o', "FILE", "write the page there (default: standard output), replaced atomically"),
	CLI_NO_COUNTERS_ROW("do not read PMA counters (no counter findings, no counters in the page)"),
	CLI_THRESHOLDS_ROW("counter thresholds, one Name=N per line (as health)"),
	CLI_THRESHOLD_ROW(CLI_THRESHOLD_HELP),
	CLI_OWN("routing", OPT_ROUTING, NULL,
		"read every forwarding table: the route.* checks in the findings,\n"
		"the map coloured by the routes crossing each cable"),
	CLI_OWN("format", OPT_FORMAT, "F", NULL),
	CLI_OWN("json", OPT_JSON, NULL, NULL),
	CLI_END,
};

int cmd_report(int argc, char **argv)
{
	struct ropts o;
	struct cli_common c;
	struct ibs_fabric *f;
	struct ibs_findings fs;
	struct ibs_health_opts ho;
	struct report_in in;
	struct render_draw_opts dopts;
	struct render_drawing drawing;
	char *svg, *why = NULL;
	size_t svg_len;
	struct ibs_run run;
	struct cli_run cr = CLI_RUN_INIT;
	char where[128];
	struct ibs_lft *lfts = NULL;
	size_t n_lfts = 0;
	struct ibs_routecheck rcheck;
	struct ibs_rc_opts ro;
	bool have_rc = false;
	int rc, st;

	memset(&o, 0, sizeof(o));
	o.cmd = cmd_find(argv[0]);
	o.chk.thr = &o.thr;
	o.chk.counters = true;
	ibs_thresholds_default(&o.thr);
	rc = cli_parse(o.cmd, &c, argc, argv, own_opt, &o);
	if (rc != CLI_PARSED)
		return rc;
	if (o.chk.thr_bad)
		return EXIT_RUNTIME;
	if (optind < argc)
		return cli_usage_error(o.cmd, "unexpected argument '%s'", argv[optind]);
	rc = cli_draw_panels(o.cmd, &c, &o.panels);
	if (rc != CLI_PARSED)
		return rc;
	{
		const struct cli_file more[] = { { "--thresholds", o.chk.thresholds }, { NULL, NULL } };
		rc = cli_check_outputs(&c, more);
		if (rc != CLI_PARSED)
			return rc;
	}
	c.want_counters = o.chk.counters;
	c.ext_counters = o.chk.counters;
	if (o.routing)
		c.needs |= IBS_LACK_LFT;
	/* Every CA in the job: the routes among all hosts per cable, for the map (as topology --heat). */
	memset(&ro, 0, sizeof(ro));
	ro.all_hosts = true;
	rc = cli_walk_tables(&cr, &c, o.routing, &f, &run, &lfts, &n_lfts, &ro, o.routing ? &rcheck : NULL);
	if (rc) {
		ibs_lfts_free(lfts, n_lfts);
		return cli_run_end(&cr, rc);
	}
	memset(&ho, 0, sizeof(ho));
	ho.thresholds = &o.thr;
	ho.counters = c.want_counters; /* as health: checks that could not run make the verdict UNKNOWN */
	if (o.routing && !run.aborted) {
		have_rc = true;
		ho.routes = &rcheck;
	} else if (o.routing) {
		ibs_routecheck_free(&rcheck); /* a walk cut short: no route check on the page */
	}
	ibs_health_check(f, &run, &ho, &fs);

	memset(&in, 0, sizeof(in));
	in.f = f;
	in.run = &run;
	in.fs = &fs;
	if (c.replay) {
		in.source_kind = "replay";
		in.source = c.replay;
	} else if (c.load_cache) {
		in.source_kind = "cache";
		in.source = c.load_cache;
	} else {
		in.source_kind = "live";
		snprintf(where, sizeof(where), "%s port %u", f->local.ca, (unsigned)f->local.port);
		in.source = where;
	}
	in.when = report_time();
	in.counters = run.counters_read && !run.no_lids; /* no LID: no PMA could be asked */
	/* The map: the drawing of `topology --format svg`, findings on it. */
	memset(&dopts, 0, sizeof(dopts));
	dopts.fs = &fs;
	dopts.group_min = c.group_hosts;
	dopts.panels = o.panels;
	dopts.heat = have_rc ? &rcheck : NULL;
	in.routes = have_rc ? &rcheck : NULL;
	in.lfts = lfts;
	in.n_lfts = n_lfts;
	memset(&drawing, 0, sizeof(drawing));
	svg = render_svg_string(f, &dopts, &drawing, &svg_len, &why);
	if (!svg) {
		log_error("cannot lay out the map: %s (the page is written without it)", why ? why : "Graphviz failed");
		free(why);
	}
	in.svg = svg;
	in.drawing = svg ? &drawing : NULL;
	{
		struct cli_render r = { .view = CLI_V_REPORT, .fmt = CLI_F_HTML, .report = &in };
		st = cli_render(&c, &r);
	}
	if (st == EXIT_OK && !svg)
		st = EXIT_RUNTIME;
	if (st == EXIT_OK && f->partial) {
		cli_report_partial(&c, f, &run);
		st = EXIT_RUNTIME;
	}
	free(svg);
	render_drawing_free(&drawing);
	ibs_findings_free(&fs);
	if (have_rc)
		ibs_routecheck_free(&rcheck);
	ibs_lfts_free(lfts, n_lfts);
	ibs_fabric_free(f);
	ibs_run_free(&run);
	return cli_run_end(&cr, st);
}
