/*
 * `ibscan diff A B`: two topologies (ibscan JSON, ibnetdiscover netfile or
 * cache, or `live`); exit 1 when they differ. `diff PLAN.csv B`: B against
 * a cabling plan by names (fabric/check/plan.h).
 */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "signals.h"
#include "../core/base/log.h"
#include "../core/base/text.h"
#include "../fabric/check/diff.h"
#include "../fabric/load/load.h"
#include "../fabric/check/plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int get(struct cli_run *cr, const struct cli_common *c, const char *what, struct ibs_fabric **f)
{
	char *msg = NULL;
	struct ibs_run run;
	int rc;

	if (!strcmp(what, "live")) {
		rc = cli_walk(cr, c, f, &run);
		if (rc == EXIT_OK)
			ibs_run_free(&run); /* a diff is about the fabrics only */
		if (rc == EXIT_OK && (*f)->partial) {
			log_error("the live walk is partial: a diff against it would report what is unreachable as removed");
			ibs_fabric_free(*f);
			*f = NULL;
			return EXIT_RUNTIME;
		}
		return rc;
	}
	if (ibs_fabric_load(what, f, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	/* A saved partial walk misleads as a partial live one does. */
	if ((*f)->partial) {
		log_error("'%s' holds a partial walk: a diff against it would report what that walk missed as added",
			  what);
		ibs_fabric_free(*f);
		*f = NULL;
		return EXIT_RUNTIME;
	}
	return cli_name_nodes(cr, c, *f);
}

/* Whether A names a cabling plan (a .csv file) rather than a topology. */
static bool is_plan(const char *a)
{
	size_t n = strlen(a);

	return n > 4 && !strcasecmp(a + n - 4, ".csv");
}

/* `diff PLAN.csv SOURCE`: the source against the plan by names; exit 1 when it is not as planned. */
static int diff_plan(struct cli_run *cr, struct cli_common *c, const char *pa, const char *src, bool json)
{
	struct ibs_plan *plan = NULL;
	struct ibs_fabric *b = NULL;
	struct ibs_findings fs;
	struct cli_render r = { .view = CLI_V_PLAN_DIFF, .fmt = json ? CLI_F_JSON : CLI_F_TEXT };
	char *msg = NULL, *an, *bn;
	int rc;

	if (ibs_plan_load(pa, &plan, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	rc = get(cr, c, src, &b);
	if (rc) {
		ibs_plan_free(plan);
		return rc;
	}
	sig_disarm_watchdog();
	memset(&fs, 0, sizeof(fs));
	ibs_check_plan(b, plan, &fs);
	r.a = an = ibs_text_clean(pa, strlen(pa));
	r.b = bn = ibs_text_clean(src, strlen(src));
	r.fs = &fs;
	rc = cli_render(c, &r);
	if (rc == EXIT_OK && fs.n)
		rc = EXIT_FINDINGS;
	free(an);
	free(bn);
	ibs_findings_free(&fs);
	ibs_fabric_free(b);
	ibs_plan_free(plan);
	return rc;
}

const struct cli_opt diff_opts[] = { CLI_TEXT("options:\n"), CLI_VIEW_ROWS, CLI_END };

int cmd_diff(int argc, char **argv)
{
	const struct cmd_desc *cmd = cmd_find("diff");
	struct cli_common c;
	struct ibs_fabric *a = NULL, *b = NULL;
	struct ibs_diff d;
	struct cli_render r = { .view = CLI_V_DIFF };
	struct cli_run cr = CLI_RUN_INIT;
	bool json;
	char *an, *bn;
	int rc;

	rc = cli_parse(cmd, &c, argc, argv, NULL, NULL);
	if (rc != CLI_PARSED)
		return rc;
	if (argc - optind != 2)
		return cli_usage_error(cmd, "want two topologies to compare (files, or 'live')");
	rc = cli_text_or_json(cmd, &c, &json);
	if (rc != CLI_PARSED)
		return rc;
	if (is_plan(argv[optind])) {
		const struct cli_file in[] = { { "PLAN", argv[optind] },
					       { "SOURCE", strcmp(argv[optind + 1], "live") ? argv[optind + 1] : NULL },
					       { NULL, NULL } };
		if (strcmp(argv[optind + 1], "live") && cli_given_with(&c, CLI_F_LIVE))
			return cli_usage_error(cmd, "--%s is about reading the fabric, and the source is not 'live'",
					       cli_given_with(&c, CLI_F_LIVE));
		rc = cli_check_outputs(&c, in);
		if (rc != CLI_PARSED)
			return rc;
		return cli_run_end(&cr, diff_plan(&cr, &c, argv[optind], argv[optind + 1], json));
	}
	if (!strcmp(argv[optind], "live") && !strcmp(argv[optind + 1], "live"))
		return cli_usage_error(cmd, "at most one side can be 'live'");
	if (strcmp(argv[optind], "live") && strcmp(argv[optind + 1], "live") && cli_given_with(&c, CLI_F_LIVE))
		return cli_usage_error(cmd, "--%s is about reading the fabric, and neither side is 'live'",
				       cli_given_with(&c, CLI_F_LIVE));
	{
		const struct cli_file in[] = { { "A", strcmp(argv[optind], "live") ? argv[optind] : NULL },
					       { "B", strcmp(argv[optind + 1], "live") ? argv[optind + 1] : NULL },
					       { NULL, NULL } };
		rc = cli_check_outputs(&c, in);
		if (rc != CLI_PARSED)
			return rc;
	}
	/* The file first: the walk ends the watchdog's cover (cli_walk_end), and reading a file may block. */
	if (strcmp(argv[optind], "live")) {
		rc = get(&cr, &c, argv[optind], &a);
		if (rc == EXIT_OK)
			rc = get(&cr, &c, argv[optind + 1], &b);
	} else {
		rc = get(&cr, &c, argv[optind + 1], &b);
		if (rc == EXIT_OK)
			rc = get(&cr, &c, argv[optind], &a);
	}
	if (rc) {
		ibs_fabric_free(a);
		ibs_fabric_free(b);
		return cli_run_end(&cr, rc);
	}
	sig_disarm_watchdog(); /* the inputs are read (cli_parse armed it): writing -o waits as sort -o does */
	ibs_diff_fabrics(a, b, &d);
	r.fmt = json ? CLI_F_JSON : CLI_F_TEXT;
	/* The names are shown as given, cleaned as every string ibscan prints (a file name may hold ESC). */
	r.a = an = ibs_text_clean(argv[optind], strlen(argv[optind]));
	r.b = bn = ibs_text_clean(argv[optind + 1], strlen(argv[optind + 1]));
	r.diff = &d;
	rc = cli_render(&c, &r);
	free(an);
	free(bn);
	if (rc == EXIT_OK && d.n)
		rc = EXIT_FINDINGS;
	ibs_diff_free(&d);
	ibs_fabric_free(a);
	ibs_fabric_free(b);
	return cli_run_end(&cr, rc);
}
