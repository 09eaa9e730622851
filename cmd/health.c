/*
 * `ibscan health` (monitoring-plugin exit codes: 0 OK, 1 WARNING, 2 CRITICAL,
 * 3 UNKNOWN) and `ibscan counters`.
 */
#include "cli.h"
#include "cmds.h"
#include "../core/base/log.h"
#include "../fabric/health.h"
#include "../fabric/load.h"
#include "../output/draw.h"
#include "../output/health.h"

#include <stdlib.h>
#include <string.h>

enum { FMT_TEXT, FMT_JSON, FMT_PROM, FMT_DOT, FMT_SVG };

enum {
	OPT_BASELINE = OPT_CMD_BASE,
	OPT_THRESHOLDS,
	OPT_THRESHOLD,
	OPT_NO_COUNTERS,
	OPT_RESET,
	OPT_INTERVAL,
};

struct hjob {
	int fmt;
	const struct ibs_fabric *f;
	const struct ibs_findings *fs;
	bool counters_view;
};

static int write_health(FILE *out, void *ctx)
{
	struct hjob *j = ctx;
	struct emit *e;
	int rc;

	if (j->fmt == FMT_PROM)
		return j->counters_view ? render_counters_prom(out, j->f) : render_health_prom(out, j->f, j->fs);
	e = emit_new_stream(j->fmt == FMT_JSON ? EMIT_JSON : EMIT_TEXT, out);
	if (j->counters_view)
		render_counters(e, j->f);
	else
		render_health(e, j->f, j->fs);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

/* A failure before any finding: UNKNOWN, said the way the format says things. */
static int unknown(const struct cli_common *c, int fmt, const char *why)
{
	struct hjob j = { fmt, NULL, NULL, false };
	struct ibs_findings fs;

	if (fmt == FMT_PROM) {
		memset(&fs, 0, sizeof(fs));
		fs.verdict = IBS_SEV_UNKNOWN;
		j.fs = &fs;
		cli_write_output(c, write_health, &j);
	} else if (fmt == FMT_TEXT && !c->output) {
		printf("IBSCAN UNKNOWN - %s\n", why);
	}
	return IBS_SEV_UNKNOWN;
}

/* health speaks the monitoring-plugin language even about its own usage. */
static int usage_fail(bool counters_view)
{
	if (counters_view)
		return EXIT_USAGE;
	printf("IBSCAN UNKNOWN - usage error (see 'ibscan help health')\n");
	return IBS_SEV_UNKNOWN;
}

static int run(int argc, char **argv, bool counters_view)
{
	static const struct option opts[] = {
		CLI_FABRIC_OPTIONS, CLI_OUTPUT_OPTIONS, CLI_BASE_OPTIONS, CLI_DRAW_OPTIONS,
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "thresholds", required_argument, NULL, OPT_THRESHOLDS },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "no-counters", no_argument, NULL, OPT_NO_COUNTERS },
		{ "reset-counters", no_argument, NULL, OPT_RESET },
		{ "interval", required_argument, NULL, OPT_INTERVAL },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_desc *cmd = cmd_find(argv[0]);
	struct cli_common c;
	struct ibs_thresholds thr;
	struct ibs_fabric *f = NULL, *base = NULL;
	struct ibs_findings fs;
	struct ibs_health_opts ho;
	struct hjob j;
	enum ibs_err wrc;
	const char *baseline = NULL, *thresholds = NULL;
	bool counters = true;
	int opt, rc, fmt = FMT_TEXT;
	char *msg = NULL;

	cli_common_init(&c);
	ibs_thresholds_default(&thr);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":C:P:o:hvq", opts, NULL)) != -1) {
		if (counters_view && (opt == OPT_BASELINE || opt == OPT_THRESHOLDS || opt == OPT_THRESHOLD ||
				      opt == OPT_NO_COUNTERS || opt == OPT_GROUP_HOSTS || opt == OPT_ALL_HOSTS)) {
			cli_usage_error(cmd, "--%s is an option of 'ibscan health'",
					opt == OPT_BASELINE     ? "baseline"
					: opt == OPT_THRESHOLDS ? "thresholds"
					: opt == OPT_THRESHOLD  ? "threshold"
					: opt == OPT_GROUP_HOSTS ? "group-hosts"
					: opt == OPT_ALL_HOSTS  ? "all-hosts"
								: "no-counters");
			return usage_fail(counters_view);
		}
		switch (opt) {
		case 'h':
			return cli_print_help(cmd);
		case OPT_BASELINE:
			baseline = optarg;
			continue;
		case OPT_THRESHOLDS:
			thresholds = optarg;
			if (ibs_thresholds_load(optarg, &thr, &msg)) {
				log_error("%s", msg);
				free(msg);
				return counters_view ? EXIT_RUNTIME : unknown(&c, fmt, "bad thresholds file");
			}
			continue;
		case OPT_THRESHOLD:
			if (ibs_thresholds_set(&thr, optarg, &msg)) {
				cli_usage_error(cmd, "%s", msg);
				free(msg);
				return usage_fail(counters_view);
			}
			continue;
		case OPT_NO_COUNTERS:
			counters = false;
			continue;
		case OPT_RESET:
			c.reset_counters = true;
			continue;
		case OPT_INTERVAL: {
			unsigned s;
			if (!counters_view || !cli_parse_uint(optarg, 1, 3600, &s)) {
				cli_usage_error(cmd, "--interval wants seconds from 1 to 3600 (counters only), not '%s'", optarg);
				return usage_fail(counters_view);
			}
			c.interval_s = s;
			continue;
		}
		default:
			break;
		}
		rc = cli_common_opt(cmd, &c, opt, optarg);
		if (rc < 0)
			return usage_fail(counters_view);
		if (rc == 0) {
			cli_bad_option(cmd, argv, opt);
			return usage_fail(counters_view);
		}
	}
	if (optind < argc) {
		cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
		return usage_fail(counters_view);
	}
	if (c.format) {
		if (!strcmp(c.format, "text"))
			fmt = FMT_TEXT;
		else if (!strcmp(c.format, "json"))
			fmt = FMT_JSON;
		else if (!strcmp(c.format, "prom"))
			fmt = FMT_PROM;
		else if (!counters_view && !strcmp(c.format, "dot"))
			fmt = FMT_DOT;
		else if (!counters_view && !strcmp(c.format, "svg"))
			fmt = FMT_SVG;
		else {
			cli_usage_error(cmd, "unknown format '%s' (%s)", c.format,
					counters_view ? "text, json or prom" : "text, json, prom, dot or svg");
			return usage_fail(counters_view);
		}
	}
	if (c.interval_s && c.interval_s + 1 >= c.deadline_s) {
		cli_usage_error(cmd, "--interval %.0f does not fit in --deadline %.3g", c.interval_s, c.deadline_s);
		return usage_fail(counters_view);
	}
	{
		const struct cli_file in[] = { { "--baseline", baseline }, { "--thresholds", thresholds }, { NULL, NULL } };
		if (cli_check_outputs(&c, in) != CLI_PARSED)
			return usage_fail(counters_view);
	}
	if (baseline && ibs_fabric_load(baseline, &base, &msg)) {
		log_error("%s", msg);
		free(msg);
		return counters_view ? EXIT_RUNTIME : unknown(&c, fmt, "the baseline cannot be read");
	}
	/* Nodes missing from the fabric are the baseline's: named by the same map. */
	if (base && cli_name_nodes(&c, base)) {
		ibs_fabric_free(base);
		return unknown(&c, fmt, "the node-name map cannot be read");
	}
	c.want_counters = counters || counters_view;
	if (counters_view)
		c.needs = IBS_LACK_PMA;
	/* Data counters matter for the counters view and the metrics, not for findings. */
	c.ext_counters = counters_view || fmt == FMT_PROM;
	rc = cli_walk(&c, &f, &wrc);
	if (rc) {
		ibs_fabric_free(base);
		if (counters_view)
			return rc;
		return unknown(&c, fmt, "the fabric could not be read (see the error above)");
	}
	memset(&ho, 0, sizeof(ho));
	ho.thresholds = &thr;
	ho.baseline = base;
	ho.counters = c.want_counters;
	ho.no_lids = f->no_lids;
	ibs_health_check(f, &ho, &fs);
	j.fmt = fmt;
	j.f = f;
	j.fs = &fs;
	j.counters_view = counters_view;
	if (fmt == FMT_DOT || fmt == FMT_SVG) {
		struct render_draw_opts o = { &fs, c.group_hosts };
		rc = cli_write_drawing(&c, f, &o, fmt == FMT_SVG);
	} else {
		rc = cli_write_output(&c, write_health, &j);
	}
	if (counters_view) {
		if (rc == EXIT_OK && f->partial && !f->no_lids)
			cli_report_partial(f);
		if (rc == EXIT_OK && (f->partial || f->no_lids))
			rc = EXIT_RUNTIME;
	} else {
		rc = rc == EXIT_OK ? (int)fs.verdict : IBS_SEV_UNKNOWN;
	}
	if (f->no_lids)
		log_error("PMA counters could not be read: no port has a LID (is a subnet manager running?)");
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
	ibs_fabric_free(base);
	return rc;
}

int cmd_health(int argc, char **argv)
{
	return run(argc, argv, false);
}

int cmd_counters(int argc, char **argv)
{
	return run(argc, argv, true);
}
