/* Option parsing, help and output shared by the commands. */
#include "cli.h"
#include "signals.h"
#include "../core/capture/index.h"
#include "../core/mad/engine.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_common_init(struct cli_common *c)
{
	memset(c, 0, sizeof(*c));
	c->window = IBS_ENGINE_DEFAULT_WINDOW;
	c->timeout_ms = IBS_ENGINE_DEFAULT_TIMEOUT_MS;
	c->retries = IBS_ENGINE_DEFAULT_RETRIES;
	c->deadline_s = 300;
}

bool cli_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

int cli_text_or_json(const struct cmd_desc *cmd, const struct cli_common *c, bool *json)
{
	*json = c->format && !strcmp(c->format, "json");
	if (c->format && !*json && strcmp(c->format, "text"))
		return cli_usage_error(cmd, "unknown format '%s' (text or json)", c->format);
	return CLI_PARSED;
}

int cli_usage_error(const struct cmd_desc *cmd, const char *fmt, ...)
{
	va_list ap;

	fputs("ibscan: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (cmd)
		fprintf(stderr, "ibscan: hint: usage: ibscan %s %s (see 'ibscan help %s')\n", cmd->name, cmd->usage,
			cmd->name);
	else
		fputs("ibscan: hint: see 'ibscan --help'\n", stderr);
	return EXIT_USAGE;
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
	unsigned u;

	switch (opt) {
	case 'C':
		c->ca = arg;
		return 1;
	case 'P':
		if (!cli_parse_uint(arg, 0, 254, &u)) {
			cli_usage_error(cmd, "--port wants a port number, not '%s'", arg);
			return -1;
		}
		c->port = (int)u;
		return 1;
	case OPT_WINDOW:
		if (!cli_parse_uint(arg, 1, IBS_ENGINE_MAX_WINDOW, &c->window)) {
			cli_usage_error(cmd, "--window wants a number from 1 to %d, not '%s'", IBS_ENGINE_MAX_WINDOW, arg);
			return -1;
		}
		c->window_set = true;
		return 1;
	case OPT_TIMEOUT:
		if (!cli_parse_uint(arg, 1, 600000, &c->timeout_ms)) {
			cli_usage_error(cmd, "--timeout wants milliseconds from 1 to 600000, not '%s'", arg);
			return -1;
		}
		c->timeout_set = true;
		return 1;
	case OPT_RETRIES:
		if (!cli_parse_uint(arg, 0, 100, &c->retries)) {
			cli_usage_error(cmd, "--retries wants a number from 0 to 100, not '%s'", arg);
			return -1;
		}
		c->retries_set = true;
		return 1;
	case OPT_DEADLINE: {
		char *end;
		double d;
		errno = 0;
		d = strtod(arg, &end);
		if (errno || *end || end == arg || !(d > 0) || d > 86400 || isnan(d)) {
			cli_usage_error(cmd, "--deadline wants seconds (more than 0, at most 86400), not '%s'", arg);
			return -1;
		}
		c->deadline_s = d;
		c->deadline_set = true;
		return 1;
	}
	case OPT_NAMEMAP:
		c->namemap = arg;
		return 1;
	case 'o':
		c->output = arg;
		return 1;
	case OPT_FORMAT:
		c->format = arg;
		return 1;
	case OPT_JSON:
		c->format = "json";
		return 1;
	case OPT_PROGRESS:
		c->progress = true;
		return 1;
	case OPT_RECORD:
		c->record = arg;
		return 1;
	case OPT_RECORD_TIMES:
		c->record_times = true;
		return 1;
	case OPT_REPLAY:
		c->replay = arg;
		return 1;
	case OPT_REPLAY_STRICT:
		c->replay_strict = true;
		return 1;
	case OPT_GIDS:
		c->gids = true;
		return 1;
	case OPT_LOAD_CACHE:
		c->load_cache = arg;
		return 1;
	case 'v':
		log_set_level(log_get_level() + 1);
		return 1;
	case 'q':
		log_set_level(LOG_ERROR);
		return 1;
	default:
		return 0;
	}
}

int cli_parse(const struct cmd_desc *cmd, struct cli_common *c, int argc, char **argv, const char *shortopts,
	      const struct option *opts, int (*own)(int opt, const char *arg, void *ctx), void *ctx)
{
	int opt, rc;

	cli_common_init(c);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (opt == 'h')
			return cli_print_help(cmd);
		rc = own ? own(opt, optarg, ctx) : 0;
		if (rc == 0)
			rc = cli_common_opt(cmd, c, opt, optarg);
		if (rc < 0)
			return EXIT_USAGE;
		if (rc == 0)
			return cli_bad_option(cmd, argv, opt);
	}
	return CLI_PARSED;
}

int cli_print_help(const struct cmd_desc *cmd)
{
	printf("usage: ibscan %s %s\n\n%s\n\n%s", cmd->name, cmd->usage, cmd->summary, cmd->help);
	return EXIT_OK;
}

const char *cli_source_option(const struct cli_common *c)
{
	if (c->replay)
		return "--replay";
	if (c->load_cache)
		return "--load-cache";
	if (c->record)
		return "--record";
	if (c->ca)
		return "--ca";
	if (c->port)
		return "--port";
	if (c->gids)
		return "--gids";
	if (c->window_set)
		return "--window";
	if (c->timeout_set)
		return "--timeout";
	if (c->retries_set)
		return "--retries";
	if (c->deadline_set)
		return "--deadline";
	if (c->replay_strict)
		return "--replay-strict";
	if (c->record_times)
		return "--record-times";
	if (c->progress)
		return "--progress";
	return NULL;
}

int cli_write_output(const struct cli_common *c, int (*fn)(FILE *out, void *ctx), void *ctx)
{
	struct ibs_out o;
	enum ibs_err rc;

	if (ibs_out_open(&o, c->output))
		return EXIT_RUNTIME;
	/* A renderer fails only when a write does: commit then names the file and the reason. */
	if (fn(o.fp, ctx) != 0 && !o.err) {
		ibs_out_abort(&o);
		log_error("cannot write %s", c->output ? c->output : "standard output");
		return EXIT_RUNTIME;
	}
	rc = ibs_out_commit(&o);
	sig_end_on_epipe(o.err);
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
