/* The shared options, one row each, and the getopt table, help and value parsing derived from the rows. */
#include "options.h"
#include "exit.h"
#include "../core/base/err.h"
#include "../core/base/log.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../core/mad/engine.h"
#include "../fabric/check/health.h"
#include "../output/draw.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AT(field) offsetof(struct cli_common, field)
#define UNTRACKED CLI_NOT_TRACKED

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

int cli_usage_error(const struct cmd_desc *cmd, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	/* Through log_error, which cleans what it prints: the message quotes the arguments as given. */
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	log_error("%s", msg);
	free(msg);
	if (cmd)
		log_hint("usage: ibscan %s %s (see 'ibscan help %s')", cmd->name, cmd->usage, cmd->name);
	else
		log_hint("see 'ibscan --help'");
	return EXIT_USAGE;
}

static void more_verbose(void)
{
	log_set_level(log_get_level() + 1);
}

static void errors_only(void)
{
	log_set_level(LOG_ERROR);
}

/*
 * Typed rows: long name, short letter or OPT_* id, argument name, the field
 * of struct cli_common it sets (and its "given" bool), the default, the
 * range and the help. The help's "(default D, LO-HI)", the range error
 * ("a number from LO to HI") and cli_common_init's defaults all come from
 * the row.
 */
#define ROW_STR(flags_, lname, oid, argname, field, text) \
	{ .flags = (flags_), .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_STR, .at = AT(field), .given_at = UNTRACKED }
#define ROW_FLAG(flags_, lname, oid, field, text) \
	{ .flags = (flags_), .name = (lname), .id = (oid), .help = (text), .kind = CLI_K_FLAG, .at = AT(field), .given_at = UNTRACKED }
#define ROW_UINT(flags_, lname, oid, argname, field, given, def_, lo_, hi_, text)                                      \
	{ .flags = (flags_), .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_UINT, .at = AT(field),     \
	  .given_at = AT(given), .lo = (lo_), .hi = (hi_), .has_def = true, .def = (def_) }
/* A number with a range but no fixed default (its default is said in the help's words). */
#define ROW_INT_NODEF(flags_, lname, oid, argname, field, given, lo_, hi_, want_, text)                               \
	{ .flags = (flags_), .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_INT, .at = AT(field),      \
	  .given_at = AT(given), .lo = (lo_), .hi = (hi_), .want = (want_) }
#define ROW_SECS(flags_, lname, oid, argname, field, given, def_, hi_, text)                                           \
	{ .flags = (flags_), .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_SECS, .at = AT(field),     \
	  .given_at = AT(given), .hi = (hi_), .has_def = true, .def = (def_) }
#define ROW_U64(flags_, lname, oid, argname, field, given, def_, want_, text)                                          \
	{ .flags = (flags_), .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_U64, .at = AT(field),      \
	  .given_at = AT(given), .want = (want_), .has_def = true, .def = (def_) }
#define ROW_END { .name = NULL }
#define LIVE CLI_F_LIVE
#define DEV (CLI_F_LIVE | CLI_F_DEVICE)
#define SENDS (CLI_F_LIVE | CLI_F_SENDS)

/* The source and the engine: every command that reads the fabric. In the order of the help. */
static const struct cli_opt fabric_opts[] = {
	ROW_STR(DEV, "ca", 'C', "NAME", ca, "CA to use (default: the first with an active IB port)"),
	ROW_INT_NODEF(DEV, "port", 'P', "N", port, port_set, 0, 254, "a port number",
		      "port of that CA (default: its first active port)"),
	ROW_UINT(SENDS, "window", OPT_WINDOW, "N", window, window_set, IBS_ENGINE_DEFAULT_WINDOW, 1, IBS_ENGINE_MAX_WINDOW,
		 "MADs in flight at most"),
	ROW_UINT(SENDS, "max-smps-per-switch", OPT_MAX_PER_NODE, "N", max_per_node, max_per_node_set,
		 IBS_ENGINE_DEFAULT_MAX_PER_NODE, 0, IBS_ENGINE_MAX_WINDOW,
		 "MADs in flight at any one node: SMPs that a switch serves (counted at every switch of a "
		 "directed route), and GMPs (PMA, SA) to the adapter or switch they go to; 0: no cap"),
	{ .flags = SENDS, .name = "timeout", .id = OPT_TIMEOUT, .arg = "MS", .kind = CLI_K_UINT, .at = AT(timeout_ms),
	  .given_at = AT(timeout_set), .lo = 1, .hi = 600000, .unit = "milliseconds", .has_def = true,
	  .def = IBS_ENGINE_DEFAULT_TIMEOUT_MS, .help = "per-MAD deadline in milliseconds: the cap of the adaptive one" },
	ROW_FLAG(SENDS, "fixed-timeout", OPT_FIXED_TIMEOUT, fixed_timeout, "every attempt waits --timeout (no adaptive timeout)"),
	ROW_UINT(SENDS, "retries", OPT_RETRIES, "N", retries, retries_set, IBS_ENGINE_DEFAULT_RETRIES, 0, 100,
		 "attempts after the first, along each path"),
	ROW_SECS(SENDS, "deadline", OPT_DEADLINE, "S", deadline_s, deadline_set, CLI_DEFAULT_DEADLINE_S, CLI_MAX_DEADLINE_S,
		 "deadline for the whole run in seconds"),
	ROW_U64(SENDS, "m-key", OPT_MKEY, "KEY", mkey, mkey_set, 0, "a 64-bit key (decimal, or hex with 0x)",
		"M_Key for every SMP, for a protected fabric"),
	ROW_STR(0, "node-name-map", OPT_NAMEMAP, "F", namemap, "name nodes from an ib-node-name-map file"),
	ROW_FLAG(LIVE, "gids", OPT_GIDS, gids, "read GUIDInfo: whole GID tables, alias GUIDs included"),
	ROW_STR(LIVE, "record", OPT_RECORD, "FILE", record, "record every MAD exchanged into a capture"),
	ROW_FLAG(LIVE, "record-times", OPT_RECORD_TIMES, record_times, "put timestamps in the capture"),
	ROW_STR(LIVE, "replay", OPT_REPLAY, "FILE", replay, "answer from a capture instead of a device"),
	ROW_FLAG(LIVE, "replay-strict", OPT_REPLAY_STRICT, replay_strict, "a request the capture lacks is an error, not a dead target"),
	ROW_STR(LIVE, "load-cache", OPT_LOAD_CACHE, "FILE", load_cache, "read an 'ibnetdiscover --cache' file instead of walking"),
	ROW_FLAG(LIVE, "progress", OPT_PROGRESS, progress, "show progress on stderr even when it is not a terminal"),
	ROW_END,
};

/* Where the result goes; the command's help says these (the formats differ). */
static const struct cli_opt output_opts[] = {
	ROW_STR(0, "output", 'o', "FILE", output, NULL),
	ROW_STR(0, "format", OPT_FORMAT, "F", format, NULL),
	{ .name = "json", .id = OPT_JSON, .kind = CLI_K_CONST, .at = AT(format), .given_at = UNTRACKED, .value = "json" },
	ROW_END,
};

/* Every command. */
#define ROW_CALL(lname, oid, fn_, text) \
	{ .name = (lname), .id = (oid), .help = (text), .kind = CLI_K_CALL, .given_at = UNTRACKED, .fn = (fn_) }
static const struct cli_opt base_opts[] = {
	ROW_CALL("verbose", 'v', more_verbose, "more diagnostics on stderr (repeat for more)"),
	ROW_CALL("quiet", 'q', errors_only, "errors only"),
	{ .name = "help", .id = 'h', .help = "this help", .kind = CLI_K_HELP, .given_at = UNTRACKED },
	ROW_END,
};

/* Commands that draw the fabric (topology and health --format dot or svg, report). */
static const struct cli_opt draw_opts[] = {
	ROW_UINT(0, "group-hosts", OPT_GROUP_HOSTS, "N", group_hosts, group_hosts_set, RENDER_DRAW_GROUP_DEFAULT, 2, 100000,
		 "drawings: a leaf's N or more healthy hosts at one rate are one node, named in hostlist form"),
	{ .name = "all-hosts", .id = OPT_ALL_HOSTS, .help = "drawings: draw every host on its own", .kind = CLI_K_ZERO,
	  .at = AT(group_hosts), .given_at = AT(group_hosts_set) },
	ROW_STR(0, "panels", OPT_PANELS, "KIND", panels,
		"drawings: a rail-optimized fabric as one panel per rail, per scalable unit (su), or none (default rail)"),
	ROW_END,
};

/* Commands that hold a host to what it should be (local --check and --nccl-env, fleet). */
static const struct cli_opt host_opts[] = {
	ROW_STR(0, "profile", OPT_PROFILE, "FILE", profile,
		"what a host should be (rails, storage, ports, min-rate, link-layer, gid-index, ...; docs/checks.md); "
		"default: what its own rails agree on"),
	ROW_END,
};

static const struct {
	unsigned group;
	const struct cli_opt *rows;
} groups_tab[] = {
	{ CLI_G_OUTPUT, output_opts },
	{ CLI_G_HOST, host_opts },
	{ CLI_G_DRAW, draw_opts },
	{ CLI_G_FABRIC, fabric_opts },
	{ CLI_G_BASE, base_opts },
};
#define N_GROUPS (sizeof(groups_tab) / sizeof(groups_tab[0]))

static bool takes_arg(const struct cli_opt *o)
{
	return o->kind == CLI_K_STR || o->kind == CLI_K_UINT || o->kind == CLI_K_INT || o->kind == CLI_K_SECS ||
	       o->kind == CLI_K_U64;
}

static void add_short(struct cli_getopt *g, size_t *n, int id, bool arg)
{
	if (id <= 0 || id >= 256)
		return;
	if (*n + 3 > sizeof(g->shortopts))
		BUG("more short options than cli_getopt holds"); /* the tables are fixed at build time */
	g->shortopts[(*n)++] = (char)id;
	if (arg)
		g->shortopts[(*n)++] = ':';
	g->shortopts[*n] = '\0';
}

static void add_long(struct cli_getopt *g, size_t *n, const char *name, int has_arg, int id)
{
	if (*n + 1 >= sizeof(g->v) / sizeof(g->v[0]))
		BUG("more long options than cli_getopt holds");
	g->v[*n].name = name;
	g->v[*n].has_arg = has_arg;
	g->v[*n].flag = NULL;
	g->v[*n].val = id;
	(*n)++;
	memset(&g->v[*n], 0, sizeof(g->v[*n]));
}

static bool has_long(const struct cli_getopt *g, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(g->v[i].name, name))
			return true;
	return false;
}

void cli_getopt_build(struct cli_getopt *g, unsigned groups, const struct cli_opt *own)
{
	size_t i, nl = 0, ns = 0;
	const struct cli_opt *o;

	memset(g, 0, sizeof(*g));
	add_short(g, &ns, ':', false);
	for (i = 0; i < N_GROUPS; i++) {
		if (!(groups & groups_tab[i].group))
			continue;
		for (o = groups_tab[i].rows; o->name; o++) {
			add_long(g, &nl, o->name, takes_arg(o) ? required_argument : no_argument, o->id);
			add_short(g, &ns, o->id, takes_arg(o));
		}
	}
	for (o = own; o && o->name; o++) {
		bool arg = o->arg != NULL;
		if (o->kind == CLI_K_TEXT || has_long(g, nl, o->name))
			continue;
		add_long(g, &nl, o->name, arg ? required_argument : no_argument, o->id);
		add_short(g, &ns, o->id, arg);
	}
}

/* The value of a numeric option, or a usage error naming what it wants (reported): true when good. */
static bool parse_value(const struct cmd_desc *cmd, const struct cli_opt *o, const char *arg, void *to)
{
	unsigned u;
	char *end;
	double d;

	switch (o->kind) {
	case CLI_K_UINT:
	case CLI_K_INT:
		if (!cli_parse_uint(arg, o->lo, o->hi, &u))
			break;
		if (o->kind == CLI_K_INT)
			*(int *)to = (int)u;
		else
			*(unsigned *)to = u;
		return true;
	case CLI_K_U64: {
		/* Decimal, or hex after 0x: never octal, so 0100 is one hundred (as said), not 64. */
		bool hex = arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
		unsigned long long v;
		errno = 0;
		v = strtoull(hex ? arg + 2 : arg, &end, hex ? 16 : 10);
		if (errno || *end || end == (hex ? arg + 2 : arg) || !isxdigit((unsigned char)(hex ? arg[2] : *arg)))
			break;
		*(uint64_t *)to = v;
		return true;
	}
	case CLI_K_SECS:
		errno = 0;
		d = strtod(arg, &end);
		if (errno || *end || end == arg || !(d > 0) || d > o->hi || isnan(d))
			break;
		*(double *)to = d;
		return true;
	default:
		return true;
	}
	if (o->want)
		cli_usage_error(cmd, "--%s wants %s, not '%s'", o->name, o->want, arg);
	else if (o->kind == CLI_K_SECS)
		cli_usage_error(cmd, "--%s wants seconds (more than 0, at most %u), not '%s'", o->name, o->hi, arg);
	else
		cli_usage_error(cmd, "--%s wants %s from %u to %u, not '%s'", o->name, o->unit ? o->unit : "a number", o->lo,
				o->hi, arg);
	return false;
}

/* Put arg where o says, at base (struct cli_common, or a command's ctx): 1 done, -1 a bad value (reported). */
static int apply_row(const struct cmd_desc *cmd, const struct cli_opt *o, char *base, const char *arg)
{
	char *to = base + o->at;

	switch (o->kind) {
	case CLI_K_STR:
		*(const char **)to = arg;
		break;
	case CLI_K_CONST:
		*(const char **)to = o->value;
		break;
	case CLI_K_FLAG:
		*(bool *)to = true;
		break;
	case CLI_K_CALL:
		o->fn();
		break;
	case CLI_K_ZERO:
		*(unsigned *)to = 0;
		break;
	default:
		if (!parse_value(cmd, o, arg, to))
			return -1;
	}
	if (o->given_at != CLI_NOT_TRACKED)
		*(bool *)(base + o->given_at) = true;
	return 1;
}

int cli_opt_apply(const struct cmd_desc *cmd, unsigned groups, struct cli_common *c, int id, const char *arg)
{
	size_t i;
	const struct cli_opt *o = NULL, *r;

	for (i = 0; i < N_GROUPS && !o; i++)
		for (r = groups_tab[i].rows; r->name && !o && (groups & groups_tab[i].group); r++)
			if (r->id == id)
				o = r;
	if (!o || o->kind == CLI_K_HELP)
		return 0;
	if (apply_row(cmd, o, (char *)c, arg) < 0)
		return -1;
	for (i = 0; i < c->n_given && c->given[i] != o; i++)
		;
	if (i == c->n_given && c->n_given < sizeof(c->given) / sizeof(c->given[0]))
		c->given[c->n_given++] = o;
	return 1;
}

const char *cli_given_with(const struct cli_common *c, unsigned flags)
{
	unsigned i;

	for (i = 0; i < c->n_given; i++)
		if (c->given[i]->flags & flags)
			return c->given[i]->name;
	return NULL;
}

char *cli_rows_with(unsigned flags)
{
	struct strbuf sb = STRBUF_INIT;
	const struct cli_opt *o;
	size_t i, n = 0;

	for (i = 0; i < N_GROUPS; i++)
		for (o = groups_tab[i].rows; o->name; o++)
			n += (o->flags & flags) == flags;
	for (i = 0; i < N_GROUPS; i++)
		for (o = groups_tab[i].rows; o->name; o++) {
			if ((o->flags & flags) != flags)
				continue;
			n--;
			if (sb.len)
				sb_addf(&sb, "%s", n ? ", " : " and ");
			if (o->id > 0 && o->id < 256)
				sb_addf(&sb, "-%c/--%s", o->id, o->name);
			else
				sb_addf(&sb, "--%s", o->name);
		}
	return sb_detach(&sb);
}

const struct cli_opt *cli_own_find(const struct cli_opt *own, int id)
{
	for (; own && own->name; own++)
		if (own->kind != CLI_K_TEXT && own->id == id)
			return own;
	return NULL;
}

int cli_own_apply(const struct cmd_desc *cmd, const struct cli_opt *o, void *ctx, const char *arg)
{
	return apply_row(cmd, o, ctx, arg);
}

/*
 * Text at column col of out, wrapped at word boundaries to end by column 80;
 * continuation lines start at column indent. A '\n' in text is a space (the
 * wrapping decides the lines). A word longer than the room is put whole on
 * its own line.
 */
void cli_help_wrap(FILE *out, const char *text, int col, int indent)
{
	const char *p = text;
	bool first = true; /* no word on this line yet */

	while (*p) {
		size_t len;

		if (*p == ' ' || *p == '\n') {
			p++;
			continue;
		}
		len = strcspn(p, " \n");
		if (!first && col + 1 + (int)len > CLI_HELP_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			first = true;
		}
		if (!first) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)len, p);
		col += (int)len;
		first = false;
		p += len;
	}
	fputc('\n', out);
}

/* One row's help line(s): the option and its argument, then the text at column 25. */
static void row_help(FILE *out, const struct cli_opt *o)
{
	char left[64];
	int n;

	if (o->kind == CLI_K_TEXT) {
		fputs(o->help, out);
		return;
	}
	if (o->id > 0 && o->id < 256)
		n = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->id, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	else
		n = snprintf(left, sizeof(left), "      --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	if (n > 23) {
		/* A long option and argument: the text starts on the next line. */
		fprintf(out, "%s\n%25s", left, "");
	} else {
		fprintf(out, "%-23s  ", left);
	}
	if (o->has_def) {
		/* The default and the range, from the row: said once, never out of step. */
		char *h;
		if (o->kind == CLI_K_UINT || o->kind == CLI_K_INT)
			h = xasprintf("%s (default %g, %u-%u)", o->help, o->def, o->lo, o->hi);
		else
			h = xasprintf("%s (default %g)", o->help, o->def);
		cli_help_wrap(out, h, 25, 25);
		free(h);
		return;
	}
	cli_help_wrap(out, o->help, 25, 25);
}

void cli_opts_defaults(struct cli_common *c)
{
	size_t i;
	const struct cli_opt *o;

	for (i = 0; i < N_GROUPS; i++)
		for (o = groups_tab[i].rows; o->name; o++) {
			char *to = (char *)c + o->at;
			if (!o->has_def)
				continue;
			switch (o->kind) {
			case CLI_K_UINT:
				*(unsigned *)to = (unsigned)o->def;
				break;
			case CLI_K_INT:
				*(int *)to = (int)o->def;
				break;
			case CLI_K_SECS:
				*(double *)to = o->def;
				break;
			case CLI_K_U64:
				*(uint64_t *)to = (uint64_t)o->def;
				break;
			default:
				BUG("--%s: a default for a row that takes no number", o->name);
			}
		}
}

void cli_opts_help(FILE *out, const struct cli_opt *own, unsigned groups)
{
	size_t i;
	const struct cli_opt *o;

	for (o = own; o && o->name; o++)
		if (o->help)
			row_help(out, o);
	for (i = 0; i < N_GROUPS; i++) {
		if (!(groups & groups_tab[i].group))
			continue;
		for (o = groups_tab[i].rows; o->name; o++)
			if (o->help)
				row_help(out, o);
	}
}

int cli_checks_opt(const struct cmd_desc *cmd, struct cli_checks *k, int opt, const char *arg)
{
	char *msg = NULL;

	switch (opt) {
	case OPT_THRESHOLDS:
		k->thresholds = arg;
		if (ibs_thresholds_load(arg, k->thr, &msg)) {
			log_error("%s", msg);
			free(msg);
			k->thr_bad = true;
		}
		return 1;
	case OPT_THRESHOLD:
		if (ibs_thresholds_set(k->thr, arg, &msg)) {
			cli_usage_error(cmd, "%s", msg);
			free(msg);
			return -1;
		}
		return 1;
	case OPT_NO_COUNTERS:
		k->counters = false;
		return 1;
	default:
		return 0;
	}
}
