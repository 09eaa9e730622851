/*
 * `ibscan counters`: every port's PMA counters (errors, data in bytes,
 * packets), read once or twice --interval apart for deltas and rates.
 */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../fabric/check/health.h"
#include "../fabric/session.h"

#include <string.h>
#include <time.h>

enum {
	OPT_RESET = OPT_CMD_BASE,
	OPT_INTERVAL,
	/* health's own options: taken only to say whose they are */
	OPT_BASELINE,
	OPT_RAILS,
	OPT_FAT_TREE,
	OPT_PLAN,
	OPT_ROUTING,
	OPT_STATE,
};

/* Rows without help are health's (and the checks group's): listed only to say so. */
const struct cli_opt counters_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_SHARED("format", OPT_FORMAT, "F", "text (default), json or prom"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_OWN("interval", OPT_INTERVAL, "S", "read twice, S seconds apart: deltas and rates"),
	CLI_RESET_ROW,
	CLI_OWN("baseline", OPT_BASELINE, "FILE", NULL),
	CLI_THRESHOLDS_ROW(NULL),
	CLI_THRESHOLD_ROW(NULL),
	CLI_NO_COUNTERS_ROW(NULL),
	CLI_OWN("rails", OPT_RAILS, "SPEC", NULL),
	CLI_OWN("fat-tree", OPT_FAT_TREE, NULL, NULL),
	CLI_OWN("plan", OPT_PLAN, "FILE", NULL),
	CLI_OWN("routing", OPT_ROUTING, NULL, NULL),
	CLI_OWN("state", OPT_STATE, "FILE", NULL),
	CLI_END,
};

struct counters_args {
	const struct cmd_desc *cmd;
	struct cli_common *c;
};

static int counters_opt(int opt, const char *arg, void *ctx)
{
	struct counters_args *a = ctx;
	const struct cli_opt *o;
	unsigned s;

	for (o = counters_opts; o->name; o++)
		if (o->id == opt && o->kind == CLI_K_OWN && !o->help) {
			cli_usage_error(a->cmd, "--%s is an option of 'ibscan health'", o->name);
			return -1;
		}
	switch (opt) {
	case OPT_RESET:
		a->c->reset_counters = true;
		return 1;
	case OPT_INTERVAL:
		if (!cli_parse_uint(arg, 1, 3600, &s)) {
			cli_usage_error(a->cmd, "--interval wants seconds from 1 to 3600 (counters only), not '%s'", arg);
			return -1;
		}
		a->c->interval_s = s;
		return 1;
	}
	return 0;
}

/* The walk with the counters read, the checks the view marks ports by, the rendering; the exit status. */
static int run_counters(struct cli_run *cr, struct cli_common *c, enum cli_fmt fmt)
{
	struct ibs_thresholds thr;
	struct ibs_fabric *f;
	struct ibs_run run;
	struct ibs_findings fs;
	struct ibs_health_opts ho;
	int rc;

	c->want_counters = true;
	c->needs = IBS_LACK_PMA;
	c->ext_counters = true;
	rc = cli_walk(cr, c, &f, &run);
	if (rc)
		return rc;
	ibs_thresholds_default(&thr);
	memset(&ho, 0, sizeof(ho));
	ho.thresholds = &thr;
	ho.counters = true;
	ho.interval = c->interval_s > 0;
	ho.now = (int64_t)time(NULL);
	ibs_health_check(f, &run, &ho, &fs);
	rc = cli_render(c, &(const struct cli_render){ .view = CLI_V_COUNTERS, .fmt = fmt, .f = f, .run = &run, .fs = &fs });
	if (rc == EXIT_OK && f->partial && !run.no_lids)
		cli_report_partial(c, f, &run);
	if (rc == EXIT_OK && (f->partial || run.no_lids))
		rc = EXIT_RUNTIME;
	cli_say_no_lids(&run);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	ibs_run_free(&run);
	return rc;
}

int cmd_counters(int argc, char **argv)
{
	struct cli_common c;
	struct counters_args a = { .cmd = cmd_find(argv[0]), .c = &c };
	enum cli_fmt fmt = CLI_F_TEXT;
	const struct cli_file none[] = { { NULL, NULL } };
	int rc;

	rc = cli_parse(a.cmd, &c, argc, argv, counters_opt, &a);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(a.cmd, "unexpected argument '%s'", argv[optind]);
	if (cli_format(a.cmd, &c, &fmt) != CLI_PARSED)
		return EXIT_USAGE;
	if (c.interval_s && c.interval_s + 1 >= c.deadline_s)
		return cli_usage_error(a.cmd, "--interval %.0f does not fit in --deadline %.3g", c.interval_s,
				       c.deadline_s);
	if (cli_check_outputs(&c, none) != CLI_PARSED)
		return EXIT_USAGE;
	{
		struct cli_run cr = CLI_RUN_INIT;
		return cli_run_end(&cr, run_counters(&cr, &c, fmt));
	}
}
