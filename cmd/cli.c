/* Option parsing, help and output shared by the commands. */
#include "cli.h"
#include "signals.h"
#include "../core/capture/index.h"
#include "../output/draw.h"
#include "../core/mad/engine.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_common_init(struct cli_common *c)
{
	memset(c, 0, sizeof(*c));
	cli_opts_defaults(c); /* each from its option's row */
}

int cli_bad_option(const struct cmd_desc *cmd, char **argv, int opt)
{
	const char *arg = argv[optind - 1];

	if (opt == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", arg);
	if (optopt && optopt < 256 && optopt != '?')
		return cli_usage_error(cmd, "unknown option '-%c'", optopt);
	return cli_usage_error(cmd, "unknown option '%s'", arg);
}

int cli_common_opt(const struct cmd_desc *cmd, struct cli_common *c, int opt, const char *arg)
{
	return cli_opt_apply(cmd, CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW | CLI_G_HOST, c, opt, arg);
}

int cli_parse(const struct cmd_desc *cmd, struct cli_common *c, int argc, char **argv,
	      int (*own)(int opt, const char *arg, void *ctx), void *ctx)
{
	struct cli_getopt g; /* getopt keeps no pointer into it past the loop */
	const struct cli_opt *o;
	int opt, rc;

	cli_common_init(c);
	cli_getopt_build(&g, cmd->opt_groups, cmd->opts);
	/*
	 * A command that reads the fabric ends within its --deadline (plus the
	 * watchdog's grace) from the start, input files included: a FIFO with
	 * no writer given as --baseline or --node-name-map blocked for ever.
	 * Files read while the options are parsed (--thresholds) get the default.
	 */
	if (cmd->opt_groups & CLI_G_FABRIC)
		sig_arm_watchdog(c->deadline_s);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, g.shortopts, g.v, NULL)) != -1) {
		if (opt == 'h')
			return cli_print_help(cmd);
		o = cli_own_find(cmd->opts, opt);
		if (!o || o->kind == CLI_K_SHARED)
			rc = cli_common_opt(cmd, c, opt, optarg);
		else if (o->kind == CLI_K_OWN)
			rc = own ? own(opt, optarg, ctx) : 0;
		else
			rc = cli_own_apply(cmd, o, ctx, optarg);
		if (rc < 0)
			return EXIT_USAGE;
		if (rc == 0)
			return cli_bad_option(cmd, argv, opt);
	}
	if (cmd->opt_groups & CLI_G_FABRIC)
		sig_arm_watchdog(c->deadline_s);
	return CLI_PARSED;
}

int cli_print_help(const struct cmd_desc *cmd)
{
	int n = printf("usage: ibscan %s ", cmd->name);

	cli_help_wrap(stdout, cmd->usage, n, n);
	putchar('\n');
	cli_help_wrap(stdout, cmd->summary, 0, 0);
	putchar('\n');
	cli_opts_help(stdout, cmd->opts, cmd->opt_groups);
	return EXIT_OK;
}

unsigned cli_deadline_ms(const struct cli_common *c)
{
	return (unsigned)ceil(c->deadline_s * 1000.0);
}

int cli_write_output(const struct cli_common *c, int (*fn)(FILE *out, void *ctx), void *ctx)
{
	struct ibs_out own, *o = c->out ? c->out : &own;
	enum ibs_err rc;

	if (c->out && !c->out->fp)
		return EXIT_RUNTIME; /* written (or given up) already */
	if (!c->out && ibs_out_open(&own, c->output))
		return EXIT_RUNTIME;
	/* A renderer fails only when a write does: commit then names the file and the reason. */
	if (fn(o->fp, ctx) != 0 && !o->err) {
		ibs_out_abort(o);
		log_error("cannot write %s", c->output ? c->output : "standard output");
		return EXIT_RUNTIME;
	}
	rc = ibs_out_commit(o);
	sig_end_on_epipe(o->err);
	return rc ? EXIT_RUNTIME : EXIT_OK;
}

int cli_check_outputs(const struct cli_common *c, const struct cli_file *more)
{
	const struct cli_file out[] = { { "-o", c->output && strcmp(c->output, "-") ? c->output : NULL },
					{ "--record", c->record } };
	char *idx = c->replay ? xasprintf("%s%s", c->replay, IBS_CAPIDX_SUFFIX) : NULL;
	const struct cli_file in[] = { { "--replay", c->replay },
				       { "the index of --replay", idx },
				       { "--load-cache", c->load_cache },
				       { "--node-name-map", c->namemap } };
	size_t i, j, n_more = 0;
	int rc = CLI_PARSED;

	while (more && more[n_more].what)
		n_more++;
	/* Standard input ('-') is read once; libibnetdisc opens --load-cache by name, so never it. */
	if (c->load_cache && !strcmp(c->load_cache, "-")) {
		log_error("--load-cache needs a file name: the cache is opened by name, not read from standard input");
		rc = EXIT_USAGE;
	}
	/* '-' is standard output for -o; a capture there would be mixed into the view. */
	if (c->record && !strcmp(c->record, "-")) {
		log_error("--record needs a file name: the capture cannot share standard output with the view");
		rc = EXIT_USAGE;
	}
	for (i = 0; i < 4 + n_more && rc == CLI_PARSED; i++) {
		const struct cli_file *a = i < 4 ? &in[i] : &more[i - 4];
		for (j = i + 1; j < 4 + n_more && a->path && !strcmp(a->path, "-") && rc == CLI_PARSED; j++) {
			const struct cli_file *b = j < 4 ? &in[j] : &more[j - 4];
			if (b->path && !strcmp(b->path, "-")) {
				log_error("standard input can be read once: '-' is given as %s and as %s", a->what, b->what);
				rc = EXIT_USAGE;
			}
		}
	}
	for (i = 0; i < 2 && rc == CLI_PARSED; i++) {
		if (!out[i].path)
			continue;
		for (j = 0; j < 4 + n_more && rc == CLI_PARSED; j++) {
			const struct cli_file *f = j < 4 ? &in[j] : &more[j - 4];
			if (f->path && strcmp(f->path, "-") && ibs_same_file(out[i].path, f->path)) {
				log_error("refusing to write '%s' (%s): it is the input '%s' (%s)", out[i].path, out[i].what,
					  f->path, f->what);
				rc = EXIT_USAGE;
			}
		}
	}
	if (rc == CLI_PARSED && out[0].path && out[1].path && ibs_same_file(out[0].path, out[1].path)) {
		log_error("refusing to write '%s' (-o): it is also the output '%s' (--record)", out[0].path, out[1].path);
		rc = EXIT_USAGE;
	}
	free(idx);
	return rc;
}
