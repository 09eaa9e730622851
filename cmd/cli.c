/* Option parsing and fabric access shared by the commands. */
#include "cli.h"
#include "../core/capture/index.h"
#include "../core/capture/format.h"
#include "../output/svg.h"
#include "../core/capture/recorder.h"
#include "../core/capture/replay.h"
#include "../core/mad/engine.h"
#include "../core/base/log.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/cache.h"
#include "../fabric/counters.h"
#include "../fabric/namemap.h"
#include "../fabric/walk.h"

#include <errno.h>
#include <signal.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cli_common_init(struct cli_common *c)
{
	memset(c, 0, sizeof(*c));
	c->window = IBS_ENGINE_DEFAULT_WINDOW;
	c->timeout_ms = IBS_ENGINE_DEFAULT_TIMEOUT_MS;
	c->retries = IBS_ENGINE_DEFAULT_RETRIES;
	c->deadline_s = 300;
	c->group_hosts = RENDER_DRAW_GROUP_DEFAULT;
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
	case OPT_GROUP_HOSTS:
		if (!cli_parse_uint(arg, 2, 100000, &c->group_hosts)) {
			cli_usage_error(cmd, "--group-hosts wants a number from 2 to 100000, not '%s'", arg);
			return -1;
		}
		return 1;
	case OPT_ALL_HOSTS:
		c->group_hosts = 0;
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

/*
 * Last-resort watchdog: the engine keeps every wait under --deadline, but a
 * device library can block before the engine runs (the simulator's shim
 * retries forever when no simulator listens). SIGALRM ends the run then.
 */
static void watchdog(int sig)
{
	static const char m[] = "ibscan: error: no progress within --deadline plus 5 s grace "
				"(is the device, or the simulator, answering?): stopped\n";
	(void)sig;
	if (write(STDERR_FILENO, m, sizeof(m) - 1) < 0)
		_exit(EXIT_RUNTIME);
	_exit(EXIT_RUNTIME);
}

static void arm_watchdog(double deadline_s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog;
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)ceil(deadline_s) + 5);
}

/*
 * Replay maps FILE.idx (core/capture/index.c). If someone cuts that file short in
 * place meanwhile (cp over it), reading a lost page raises SIGBUS: say so
 * and exit 3 rather than die without a word.
 */
static char *sigbus_msg;
static size_t sigbus_len;

static void on_sigbus(int sig)
{
	(void)sig;
	if (write(STDERR_FILENO, sigbus_msg, sigbus_len) < 0)
		_exit(EXIT_RUNTIME);
	_exit(EXIT_RUNTIME);
}

static void catch_sigbus(const char *capture)
{
	struct sigaction sa;

	/* Built now: a signal handler may only write what exists already. */
	free(sigbus_msg);
	sigbus_msg = xasprintf("ibscan: error: %s%s: the replay index was cut short while in use "
			       "(replaced in place?); run again\n",
			       capture, IBS_CAPIDX_SUFFIX);
	sigbus_len = strlen(sigbus_msg);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
}

/* What a capture may lack, how to tell, and which runs record it. */
static const struct {
	unsigned bit;
	uint8_t mgmt_class;
	uint16_t attr_id;
	const char *recorded_by;
} lack_defs[] = {
	{ IBS_LACK_SMINFO, IBS_CLASS_SMI_DR, IBS_ATTR_SM_INFO, "every walk" },
	{ IBS_LACK_PMA, IBS_CLASS_PMA, IBS_ATTR_PORT_COUNTERS, "'ibscan counters' or 'ibscan health'" },
	{ IBS_LACK_LFT, IBS_CLASS_SMI_DR, IBS_ATTR_LFT, "'ibscan route' or 'ibscan routes --dump'" },
	{ IBS_LACK_SA, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD, "'ibscan path'" },
	{ IBS_LACK_GUIDINFO, IBS_CLASS_SMI_DR, IBS_ATTR_GUID_INFO, "a walk with --gids" },
};

/*
 * What the replayed capture lacks. Every walk asks for SMInfo, and a master
 * that did not answer is a finding, not something the capture lacks.
 */
static unsigned replay_lacks(struct ibs_transport *t)
{
	unsigned lacks = 0;
	size_t i;

	for (i = 0; i < sizeof(lack_defs) / sizeof(lack_defs[0]); i++)
		if (lack_defs[i].bit != IBS_LACK_SMINFO &&
		    !ibs_replay_holds(t, lack_defs[i].mgmt_class, lack_defs[i].attr_id))
			lacks |= lack_defs[i].bit;
	return lacks;
}

/* Refuse, in one line, a source that lacks what the command needs: 0 when it has it all. */
static int refuse_lacking(const struct cli_common *c, unsigned lacks)
{
	unsigned miss = lacks & (c->needs | (c->gids ? IBS_LACK_GUIDINFO : 0) | (c->reset_counters ? IBS_LACK_PMA : 0));
	size_t i;

	for (i = 0; i < sizeof(lack_defs) / sizeof(lack_defs[0]); i++) {
		if (!(miss & lack_defs[i].bit))
			continue;
		if (c->load_cache) {
			log_error("'%s' is an ibnetdiscover cache: it holds no %s; use a live fabric, or --replay a capture",
				  c->load_cache, ibs_lack_str(lack_defs[i].bit));
			return EXIT_USAGE;
		}
		log_error("capture '%s' holds no %s; %s records them", c->replay, ibs_lack_str(lack_defs[i].bit),
			  lack_defs[i].recorded_by);
		return EXIT_RUNTIME;
	}
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

/* Options that the chosen source would silently ignore: a usage error (reported). */
static bool options_conflict(const struct cli_common *c)
{
	const char *src = c->replay ? "--replay" : "--load-cache";

	if ((c->replay != NULL) + (c->record != NULL) + (c->load_cache != NULL) > 1) {
		log_error("--replay, --record and --load-cache cannot be used together");
		return true;
	}
	if ((c->replay || c->load_cache) && (c->ca || c->port)) {
		log_error("%s reads no device: -C/--ca and -P/--port do not apply", src);
		return true;
	}
	if (c->load_cache && (c->window_set || c->timeout_set || c->retries_set || c->deadline_set)) {
		log_error("--load-cache sends no MADs: --window, --timeout, --retries and --deadline do not apply");
		return true;
	}
	if (c->replay_strict && !c->replay) {
		log_error("--replay-strict goes with --replay");
		return true;
	}
	if (c->record_times && !c->record) {
		log_error("--record-times goes with --record");
		return true;
	}
	return false;
}

/* Requests the last replay had no recorded answer for (cli_report_partial says so). */
static size_t replay_misses;

/*
 * "; not discovered: the node behind port P of 'NAME' (GUID), ..." for every
 * node a partial walk could not reach (they are named by where they are:
 * nothing of theirs answered), or "".
 */
static char *missing_nodes(const struct ibs_fabric *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < f->n_errors; i++) {
		const struct ibs_walk_error *er = &f->errors[i];
		if (ibs_walk_error_hides_neighbour(er))
			sb_addf(&sb, "%s the node behind port %u of '%s' (%s)", sb.len ? "," : "; not discovered:",
				er->port, ibs_node_name(er->node), er->node->guid_name);
	}
	return sb_detach(&sb);
}

void cli_report_partial(const struct ibs_fabric *f)
{
	size_t i, ports = 0, silent = 0;
	unsigned p;
	char *why, *missing = missing_nodes(f);

	for (i = 0; i < f->n_nodes; i++)
		for (p = 0; p <= f->nodes[i]->ni.num_ports; p++) {
			const struct ibs_port_counters *pc = f->nodes[i]->ports[p].ctr;
			ports += pc != NULL;
			silent += pc && !pc->ok;
		}
	if (f->aborted)
		why = xasprintf("the walk stopped early (%s)", f->abort_reason);
	else if (f->n_errors)
		why = xasprintf("%zu quer%s got no valid answer (listed in the output)", f->n_errors,
				f->n_errors == 1 ? "y" : "ies");
	else if (silent)
		why = xasprintf("the PMA of %zu of %zu ports did not answer (listed in the output)", silent, ports);
	else
		why = xstrdup("part of the fabric did not answer");
	if (replay_misses)
		log_error("the result is partial: %s; the capture held no answer for %zu of the requests (recorded by "
			  "another command, or with other options?)%s",
			  why, replay_misses, missing);
	else
		log_error("the result is partial: %s%s", why, missing);
	free(why);
	free(missing);
}

/* --node-name-map, if given: EXIT_OK with *map set (or NULL), or EXIT_RUNTIME (reported). */
static int load_namemap(const struct cli_common *c, struct ibs_namemap **map)
{
	static bool warned; /* diff and health --baseline name two fabrics with one map */
	char *msg = NULL;
	const char *const *warns;
	size_t i, n;

	*map = NULL;
	if (c->namemap && ibs_namemap_load(c->namemap, map, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	/* What the map got wrong without being refused (a GUID named twice), said once a run. */
	n = warned ? 0 : ibs_namemap_warnings(*map, &warns);
	for (i = 0; i < n; i++)
		log_warn("%s", warns[i]);
	warned = true;
	return EXIT_OK;
}

int cli_name_nodes(const struct cli_common *c, struct ibs_fabric *f)
{
	struct ibs_namemap *map;

	if (load_namemap(c, &map))
		return EXIT_RUNTIME;
	if (map) {
		ibs_namemap_apply(map, f);
		ibs_namemap_free(map);
	}
	return EXIT_OK;
}

struct progress {
	bool on;
	bool shown;
};

static void show_progress(void *ctx, const struct ibs_fabric *f, const struct ibs_engine_stats *s)
{
	struct progress *p = ctx;

	/* Only walks longer than a second deserve a progress line. */
	if (!p->on || s->elapsed_ms < 1000)
		return;
	fprintf(stderr, "\ribscan: walking: %zu nodes, %llu MADs sent, %llu timeouts ", f->n_nodes,
		(unsigned long long)s->sent, (unsigned long long)s->timeouts);
	p->shown = true;
}

int cli_walk(const struct cli_common *c, struct ibs_fabric **out, enum ibs_err *walk_rc)
{
	struct ibs_transport *t = NULL, *rec = NULL;
	struct ibs_engine_opts eo;
	struct ibs_engine *e;
	struct ibs_walk_opts wo;
	struct ibs_fabric *f;
	struct ibs_namemap *map = NULL;
	struct progress prog = { false, false };
	enum ibs_err rc;
	char *msg = NULL;

	unsigned lacks = 0;
	int st;

	*out = NULL;
	*walk_rc = IBS_OK;
	if (options_conflict(c))
		return EXIT_USAGE;
	if (load_namemap(c, &map))
		return EXIT_RUNTIME;
	memset(&eo, 0, sizeof(eo));
	eo.window = c->window;
	eo.timeout_ms = c->timeout_ms;
	eo.retries = c->retries;
	eo.deadline_ms = (unsigned)(c->deadline_s * 1000.0);
	if (c->load_cache) {
		rc = ibs_fabric_load_cache(c->load_cache, &f, &msg);
		if (rc) {
			log_error("%s", msg);
			free(msg);
			ibs_namemap_free(map);
			return EXIT_RUNTIME;
		}
		st = refuse_lacking(c, f->lacks);
		if (st) {
			ibs_fabric_free(f);
			ibs_namemap_free(map);
			return st;
		}
		if (map) {
			ibs_namemap_apply(map, f);
			ibs_namemap_free(map);
		}
		*out = f;
		return EXIT_OK;
	}
	arm_watchdog(c->deadline_s);
	if (c->replay) {
		struct ibs_capture_engine ce;
		catch_sigbus(c->replay);
		rc = ibs_replay_open(c->replay, c->replay_strict, &t, &ce);
		/* Replay as recorded: the same retries and window give the same walk. */
		if (!rc && ce.present) {
			if (!c->window_set)
				eo.window = ce.window;
			if (!c->timeout_set)
				eo.timeout_ms = ce.timeout_ms;
			if (!c->retries_set)
				eo.retries = ce.retries;
		}
		if (!rc && !ibs_replay_holds(t, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO)) {
			log_error("capture '%s' holds no NodeInfo answer: there is no walk to replay", c->replay);
			rc = IBS_E_INPUT;
			ibs_transport_close(t);
		}
		if (!rc) {
			lacks = replay_lacks(t);
			st = refuse_lacking(c, lacks);
			if (st) {
				ibs_transport_close(t);
				ibs_namemap_free(map);
				alarm(0);
				return st;
			}
		}
	} else {
		struct ibs_umad_opts uo = { c->ca, c->port, (int)c->timeout_ms };
		rc = ibs_umad_open(&uo, &t);
		/* A replay answers at once whatever the timing: back off only on a live fabric. */
		eo.backoff_us = IBS_ENGINE_DEFAULT_BACKOFF_US;
	}
	if (rc) {
		ibs_namemap_free(map);
		return EXIT_RUNTIME;
	}
	if (c->record) {
		struct ibs_local_port lp;
		struct ibs_capture_engine ce = { true, eo.window, eo.timeout_ms, eo.retries };
		ibs_transport_local_port(t, &lp);
		rc = ibs_recorder_wrap(t, c->record, c->record_times, &lp, &ce, &rec);
		if (rc) {
			ibs_transport_close(t);
			ibs_namemap_free(map);
			return EXIT_RUNTIME;
		}
		t = rec;
	}
	f = ibs_fabric_new();
	f->lacks = lacks;
	ibs_transport_local_port(t, &f->local);
	e = ibs_engine_new(t, &eo);
	memset(&wo, 0, sizeof(wo));
	wo.gids = c->gids;
	wo.sm = true;
	prog.on = c->progress || isatty(STDERR_FILENO);
	wo.progress = show_progress;
	wo.progress_ctx = &prog;
	rc = ibs_walk(e, f, &wo);
	if (rc == IBS_OK && c->want_counters && !(lacks & IBS_LACK_PMA)) {
		struct ibs_counter_opts co = { c->reset_counters, c->ext_counters };
		if (c->interval_s > 0)
			rc = ibs_read_counters_interval(e, f, &co, c->interval_s, &f->no_lids);
		else
			rc = ibs_read_counters(e, f, &co, &f->no_lids);
		f->counters_read = true;
	}
	if (rc == IBS_OK && c->after_walk && f->n_nodes)
		rc = c->after_walk(e, f, c->after_ctx);
	if (rc != IBS_OK && !f->aborted) {
		f->aborted = true;
		f->partial = true;
		f->abort_reason = xstrdup(rc == IBS_E_DEADLINE ? "the global deadline (--deadline) expired"
								 : "the transport failed");
	}
	if (prog.shown)
		fputs("\r\033[K", stderr);
	log_info("%zu nodes, %llu MADs sent, %llu received, %llu retries (%llu along another path), %llu timeouts, "
		 "%llu bad status in %llu ms",
		 f->n_nodes, (unsigned long long)f->stats.sent, (unsigned long long)f->stats.received,
		 (unsigned long long)f->stats.retries, (unsigned long long)f->stats.other_paths,
		 (unsigned long long)f->stats.timeouts,
		 (unsigned long long)f->stats.bad_status, (unsigned long long)ibs_engine_elapsed_ms(e));
	ibs_engine_free(e);
	replay_misses = ibs_replay_misses(t);
	ibs_transport_close(t);
	alarm(0);
	if (map) {
		ibs_namemap_apply(map, f);
		ibs_namemap_free(map);
	}
	*walk_rc = rc;
	if (rc == IBS_E_DEADLINE)
		log_error("the walk did not finish within --deadline %.3g s: the result is partial", c->deadline_s);
	else if (rc == IBS_E_TRANSPORT)
		log_error("the transport failed during the walk (did the device or the simulator go away?): "
			  "the result is partial");
	else if (rc && (rc != IBS_E_TIMEOUT || f->n_nodes)) /* else the walker said why: no local node */
		log_error("the walk failed: %s", ibs_strerror(rc));
	if (f->n_nodes == 0) {
		ibs_fabric_free(f);
		return EXIT_RUNTIME;
	}
	*out = f;
	return EXIT_OK;
}

void cli_end_on_epipe(int err)
{
	sigset_t set;

	if (err != EPIPE)
		return;
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
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
	cli_end_on_epipe(o.err);
	return rc ? EXIT_RUNTIME : EXIT_OK;
}

struct drawing_out {
	const char *data;
	size_t len;
};

static int write_buf(FILE *out, void *ctx)
{
	const struct drawing_out *b = ctx;

	fwrite(b->data, 1, b->len, out);
	return ferror(out) ? -1 : 0;
}

int cli_write_drawing(const struct cli_common *c, const struct ibs_fabric *f, const struct render_draw_opts *o,
		      bool svg)
{
	struct render_drawing d;
	struct drawing_out b;
	char *data = NULL, *err = NULL;
	int rc;

	/* Laid out before the output is opened: a layout failure leaves no half-written file. */
	render_drawing_build(&d, f, o);
	b.data = d.dot;
	b.len = d.dot_len;
	if (svg) {
		data = render_drawing_svg(&d, &b.len, &err);
		if (!data) {
			log_error("cannot draw the fabric as SVG: %s", err);
			free(err);
			render_drawing_free(&d);
			return EXIT_RUNTIME;
		}
		b.data = data;
	}
	rc = cli_write_output(c, write_buf, &b);
	free(data);
	render_drawing_free(&d);
	return rc;
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
