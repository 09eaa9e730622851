/*
 * `ibscan health` (monitoring-plugin exit codes: 0 OK, 1 WARNING, 2 CRITICAL,
 * 3 UNKNOWN). `ibscan counters` is cmd/counters.c.
 */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"
#include "../fabric/check/health.h"
#include "../fabric/load/load.h"
#include "../fabric/check/plan.h"
#include "../fabric/check/rails.h"
#include "../fabric/walk/route.h"
#include "../fabric/check/routecheck.h"
#include "../fabric/session.h"
#include "../fabric/load/state.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum {
	OPT_BASELINE = OPT_CMD_BASE,
	OPT_RESET,
	OPT_INTERVAL,
	OPT_RAILS,
	OPT_FAT_TREE,
	OPT_PLAN,
	OPT_ROUTING,
	OPT_STATE,
};

/*
 * UNKNOWN, and why, as health says it in fmt (the status line, JSON,
 * ibscan_up 0, a drawing of the status line), in memory. Where a drawing
 * cannot be made (no libgvc for SVG), the status line: never nothing.
 */
static char *unknown_doc(const struct cli_common *c, enum cli_fmt fmt, const char *why, size_t *len)
{
	struct cli_render r = { .view = CLI_V_HEALTH, .fmt = fmt };
	struct ibs_findings fs;
	char *doc;

	memset(&fs, 0, sizeof(fs));
	fs.verdict = IBS_SEV_UNKNOWN;
	fs.verdict_reason = (char *)why; /* borrowed: fs is not freed */
	r.fs = &fs;
	doc = cli_render_mem(c, &r, len);
	if (!doc) {
		r.fmt = CLI_F_TEXT;
		doc = cli_render_mem(c, &r, len);
	}
	if (!doc) {
		doc = xasprintf("IBSCAN UNKNOWN - %s\n", why);
		*len = strlen(doc);
	}
	return doc;
}

struct doc {
	char *b;
	size_t n;
};

static int write_doc(FILE *out, void *ctx)
{
	const struct doc *d = ctx;

	fwrite(d->b, 1, d->n, out);
	return ferror(out) ? -1 : 0;
}

/*
 * A failure before any finding: UNKNOWN, said the way the format says
 * things, where the output goes (-o too: a file that kept the last run's
 * "IBSCAN OK" or metrics would hide the failure from whoever reads it).
 */
static int unknown(const struct cli_common *c, enum cli_fmt fmt, const char *why)
{
	struct doc d;

	d.b = unknown_doc(c, fmt, why, &d.n);
	if (d.b)
		cli_write_output(c, write_doc, &d);
	free(d.b);
	return IBS_SEV_UNKNOWN;
}

/* What a health run cut short says, by how it was cut (enum ibs_fatal). */
static const char *const cut_short[IBS_N_FATAL] = {
	[IBS_FATAL_SIGINT] = "stopped by SIGINT before the run finished",
	[IBS_FATAL_SIGTERM] = "stopped by SIGTERM before the run finished",
	[IBS_FATAL_SIGHUP] = "stopped by SIGHUP before the run finished",
	[IBS_FATAL_WATCHDOG] = "no progress within --deadline plus 5 s grace: stopped",
	[IBS_FATAL_BUS] = "a file being read was cut short under it (SIGBUS): stopped",
	[IBS_FATAL_OOM] = "out of memory",
};

/*
 * The verdict's output (-o or standard output), opened before the walk
 * (and the watchdog) with its last words: whatever ends the run before the
 * verdict is written, the file it was told to write says UNKNOWN, in its
 * format, rather than keep the last run's verdict. 0, or -1 when -o cannot
 * be written (said).
 */
static int open_verdict(struct cli_common *c, enum cli_fmt fmt, struct ibs_out *o)
{
	char *texts[IBS_N_FATAL];
	size_t lens[IBS_N_FATAL], i;

	if (ibs_out_open(o, c->output) != IBS_OK)
		return -1;
	for (i = 0; i < IBS_N_FATAL; i++)
		texts[i] = unknown_doc(c, fmt, cut_short[i], &lens[i]);
	ibs_out_last_words(o, texts, lens);
	for (i = 0; i < IBS_N_FATAL; i++)
		free(texts[i]);
	c->out = o;
	return 0;
}

/* health speaks the monitoring-plugin language even about its own usage. */
static int usage_fail(const struct cmd_desc *cmd)
{
	if (!(cmd->flags & CMD_PLUGIN_EXIT))
		return EXIT_USAGE;
	printf("IBSCAN UNKNOWN - usage error (see 'ibscan help %s')\n", cmd->name);
	return IBS_SEV_UNKNOWN;
}

/* What health's own options set. */
struct health_args {
	const struct cmd_desc *cmd;
	struct cli_common *c;
	struct cli_checks chk; /* --thresholds, --threshold, --no-counters */
	const char *baseline, *state;
	bool routing; /* --routing: read every forwarding table and run the route.* checks */
	struct ibs_rails *rails; /* --rails, owned */
	bool rails_bad;          /* --rails @FILE could not be read (said) */
	bool fat_tree;
	const char *plan;        /* --plan FILE */
	const char *rails_file;  /* --rails @FILE: the file, an input never written over */
};

static int health_opt(int opt, const char *arg, void *ctx)
{
	struct health_args *h = ctx;
	char *msg = NULL;
	int taken;

	/* A refused thresholds file (said) makes the verdict UNKNOWN once the format and -o are known. */
	if ((taken = cli_checks_opt(h->cmd, &h->chk, opt, arg)) != 0)
		return taken;
	switch (opt) {
	case OPT_BASELINE:
		h->baseline = arg;
		return 1;
	case OPT_RAILS: {
		enum ibs_err e;
		ibs_rails_free(h->rails);
		h->rails = NULL;
		h->rails_file = arg[0] == '@' ? arg + 1 : NULL;
		if ((e = ibs_rails_parse(arg, &h->rails, &msg))) {
			/* A spec on the command line is a usage error; a file that cannot be read, UNKNOWN. */
			if (arg[0] != '@') {
				cli_usage_error(h->cmd, "%s", msg);
				free(msg);
				return -1;
			}
			log_error("%s", msg);
			free(msg);
			h->rails_bad = true;
		}
		return 1;
	}
	case OPT_FAT_TREE:
		h->fat_tree = true;
		return 1;
	case OPT_PLAN:
		h->plan = arg;
		return 1;
	case OPT_ROUTING:
		h->routing = true;
		return 1;
	case OPT_STATE:
		h->state = arg;
		return 1;
	case OPT_RESET:
		h->c->reset_counters = true;
		return 1;
	case OPT_INTERVAL:
		cli_usage_error(h->cmd, "--interval wants seconds from 1 to 3600 (counters only), not '%s'", arg);
		return -1;
	}
	return 0;
}

/* --interval is counters': taken to say so (health_opt). */
const struct cli_opt health_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_SHARED("format", OPT_FORMAT, "F",
		   "text (default: status line, then findings), json, prom, dot or svg\n"
		   "(the drawing with every finding on it)"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_OWN("baseline", OPT_BASELINE, "FILE", "compare with a saved 'topology --json', an ibnetdiscover netfile or cache"),
	CLI_THRESHOLDS_ROW("counter thresholds, one Name=N per line"),
	CLI_THRESHOLD_ROW(CLI_THRESHOLD_HELP),
	CLI_NO_COUNTERS_ROW("do not read PMA error counters"),
	CLI_OWN("rails", OPT_RAILS, "SPEC",
		"check rail-optimized cabling of these devices: all, mlx5_0-3,6-9\n"
		"or @FILE (hosts and devices from 'HOST DEVICE' descriptions)"),
	CLI_OWN("fat-tree", OPT_FAT_TREE, NULL, "check the fat-tree structure (tiers, equal cables and rates)"),
	CLI_OWN("plan", OPT_PLAN, "FILE", "compare with a cabling plan by names (CSV, UFM NDT columns)"),
	CLI_OWN("routing", OPT_ROUTING, NULL, "read every forwarding table and check the routes (route.* checks)"),
	CLI_OWN("state", OPT_STATE, "FILE", "judge counters by their rise since the last run's readings, kept in FILE"),
	CLI_RESET_ROW,
	CLI_OWN("interval", OPT_INTERVAL, "S", NULL),
	CLI_END,
};

/*
 * Write the state file as -o writes (replaced atomically; never writable
 * by group or others, which the next run would refuse). 0, or -1 (said).
 */
static int save_state(const char *path, const struct ibs_fabric *f, const struct ibs_state *old, int64_t now)
{
	struct ibs_out o;
	size_t len;
	char *text;
	int rc = 0;

	if (ibs_out_open(&o, path) != IBS_OK)
		return -1;
	text = ibs_state_format(f, old, now, &len);
	ibs_out_restrict(&o, S_IWGRP | S_IWOTH);
	if (fwrite(text, 1, len, o.fp) != len || ibs_out_commit(&o) != IBS_OK) {
		if (o.fp)
			ibs_out_abort(&o);
		log_error("the state file '%s' was not updated: the next run compares with the one before", path);
		rc = -1;
	}
	free(text);
	return rc;
}

/* Everything after the options: the inputs, the walk, the checks, the rendering; the exit status. */
static int run_checks(struct cli_run *cr, struct cli_common *c, const struct health_args *h, enum cli_fmt fmt)
{
	struct ibs_fabric *f = NULL, *base = NULL;
	struct ibs_plan *plan = NULL;
	struct ibs_run run;
	struct ibs_findings fs;
	struct ibs_health_opts ho;
	struct cli_render r;
	struct ibs_routecheck rcheck;
	struct ibs_lft *lfts = NULL;
	size_t n_lfts = 0;
	struct ibs_state st;
	struct ibs_rc_opts ro;
	bool rendered, heat;
	int rc;
	size_t i;
	char *msg = NULL;

	if (h->chk.thr_bad)
		return unknown(c, fmt, "bad thresholds file");
	if (h->rails_bad)
		return unknown(c, fmt, "bad rails file");
	if (h->plan && ibs_plan_load(h->plan, &plan, &msg)) {
		log_error("%s", msg);
		free(msg);
		return unknown(c, fmt, "the plan cannot be read");
	}
	memset(&st, 0, sizeof(st));
	if (h->state && ibs_state_load(h->state, &st, &msg)) {
		log_error("%s", msg);
		free(msg);
		ibs_plan_free(plan);
		return unknown(c, fmt, "the state file was refused (see the error above)");
	}
	if (h->baseline && ibs_fabric_load(h->baseline, &base, &msg)) {
		log_error("%s", msg);
		free(msg);
		ibs_plan_free(plan);
		ibs_state_free(&st);
		return unknown(c, fmt, "the baseline cannot be read");
	}
	/*
	 * A partial baseline (a walk that missed part of the fabric) cannot say
	 * what is missing now: a node it missed whose cable is pulled since
	 * would pass as OK. Refused, as diff refuses it.
	 */
	if (base && base->partial) {
		log_error("'%s' holds a partial walk: checked against it, what that walk missed could go missing "
			  "unseen (save the baseline from a whole walk)",
			  h->baseline);
		ibs_fabric_free(base);
		ibs_plan_free(plan);
		ibs_state_free(&st);
		return unknown(c, fmt, "the baseline holds a partial walk");
	}
	/* Nodes missing from the fabric are the baseline's: named by the same map. */
	if (base && cli_name_nodes(cr, c, base)) {
		ibs_fabric_free(base);
		ibs_plan_free(plan);
		ibs_state_free(&st);
		return unknown(c, fmt, "the node-name map cannot be read");
	}
	c->want_counters = h->chk.counters;
	/* Data counters matter for the metrics, not for findings. */
	c->ext_counters = fmt == CLI_F_PROM;
	/* --state judges PortXmitWait's rise since the last run as a share of the time: its tick. */
	c->want_tick = h->state != NULL;
	if (h->routing)
		c->needs |= IBS_LACK_LFT;
	/* A drawing gets the heat map: every CA in the job, the routes among all hosts per cable. */
	memset(&ro, 0, sizeof(ro));
	ro.all_hosts = heat = h->routing && (fmt == CLI_F_DOT || fmt == CLI_F_SVG);
	rc = cli_walk_tables(cr, c, h->routing, &f, &run, &lfts, &n_lfts, &ro, h->routing ? &rcheck : NULL);
	if (rc) {
		ibs_fabric_free(base);
		ibs_plan_free(plan);
		ibs_state_free(&st);
		return unknown(c, fmt, "the fabric could not be read (see the error above)");
	}
	memset(&ho, 0, sizeof(ho));
	ho.thresholds = h->chk.thr;
	ho.baseline = base;
	ho.counters = c->want_counters;
	ho.rails = h->rails;
	ho.fat_tree = h->fat_tree;
	ho.plan = plan;
	if (h->routing)
		ho.routes = &rcheck;
	ho.state = h->state ? &st : NULL;
	ho.now = (int64_t)time(NULL);
	ibs_health_check(f, &run, &ho, &fs);
	for (i = 0; i < fs.n_notes; i++)
		log_warn("%s: %s", h->state, fs.notes[i]);
	memset(&r, 0, sizeof(r));
	r.view = CLI_V_HEALTH;
	r.fmt = fmt;
	r.f = f;
	r.run = &run;
	r.fs = &fs;
	r.heat = heat ? &rcheck : NULL;
	rc = cli_render(c, &r);
	rendered = rc == EXIT_OK;
	rc = rc == EXIT_OK ? (int)fs.verdict : IBS_SEV_UNKNOWN;
	/*
	 * The readings are kept once the verdict is out: a run whose verdict
	 * was lost leaves the older state, so that its rises are said again.
	 * An UNKNOWN verdict about something else (a forwarding table missing
	 * under --routing) still keeps counters that were read.
	 */
	if (h->state && rendered && run.counters_read && !run.aborted &&
	    save_state(h->state, f, &st, ho.now))
		rc = IBS_SEV_UNKNOWN;
	ibs_state_free(&st);
	cli_say_no_lids(&run);
	ibs_findings_free(&fs);
	if (h->routing)
		ibs_routecheck_free(&rcheck);
	ibs_lfts_free(lfts, n_lfts);
	ibs_fabric_free(f);
	ibs_run_free(&run);
	ibs_fabric_free(base);
	ibs_plan_free(plan);
	return rc;
}

static int run_args(int argc, char **argv, struct health_args *hp)
{
	const struct cmd_desc *cmd = hp->cmd;
	struct cli_common c;
	struct health_args h;
	struct ibs_out verdict;
	struct cli_run cr = CLI_RUN_INIT;
	enum cli_fmt fmt = CLI_F_TEXT;
	int rc;

	hp->c = &c;
	rc = cli_parse(cmd, &c, argc, argv, health_opt, hp);
	h = *hp;
	if (rc == EXIT_USAGE)
		return usage_fail(cmd);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc) {
		cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
		return usage_fail(cmd);
	}
	if (cli_format(cmd, &c, &fmt) != CLI_PARSED)
		return usage_fail(cmd);
	if (!h.chk.counters && c.reset_counters) {
		cli_usage_error(cmd, "--reset-counters clears the counters once read: --no-counters reads none");
		return usage_fail(cmd);
	}
	if (h.state && !h.chk.counters) {
		cli_usage_error(cmd, "--state keeps counter readings: --no-counters reads none");
		return usage_fail(cmd);
	}
	{
		const struct cli_file in[] = { { "--baseline", h.baseline }, { "--thresholds", h.chk.thresholds },
					       { "--plan", h.plan }, { "--state", h.state },
					       { "--rails", h.rails_file }, { NULL, NULL } };
		const char *other[] = { h.baseline, h.chk.thresholds, h.plan, h.rails_file,
					c.replay,   c.namemap,    c.load_cache };
		size_t i;
		if (cli_check_outputs(&c, in) != CLI_PARSED)
			return usage_fail(cmd);
		/* The state is written too: never over an input. */
		for (i = 0; h.state && i < sizeof(other) / sizeof(other[0]); i++)
			if (other[i] && strcmp(other[i], "-") && ibs_same_file(h.state, other[i])) {
				cli_usage_error(cmd, "--state '%s' is an input of this run too", h.state);
				return usage_fail(cmd);
			}
	}
	if (open_verdict(&c, fmt, &verdict) != 0)
		return IBS_SEV_UNKNOWN;
	rc = run_checks(&cr, &c, &h, fmt);
	/* Nothing written (a drawing that could not be laid out): UNKNOWN, not the last run's verdict. */
	if (verdict.fp) {
		unknown(&c, fmt, "the verdict could not be written in the format asked");
		rc = IBS_SEV_UNKNOWN;
	}
	if (verdict.fp)
		ibs_out_abort(&verdict); /* nothing could be written at all: said */
	return cli_run_end(&cr, rc);
}

int cmd_health(int argc, char **argv)
{
	struct ibs_thresholds thr;
	struct health_args h = { .cmd = cmd_find(argv[0]), .chk = { .thr = &thr, .counters = true } };
	int rc;

	ibs_thresholds_default(&thr);
	rc = run_args(argc, argv, &h);
	ibs_rails_free(h.rails);
	return rc;
}
