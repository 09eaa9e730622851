/*
 * The command table and what commands share: option parsing for fabric
 * access (device or replay, engine settings, outputs) and exit codes.
 * Only cmd/ chooses exit codes.
 */
#ifndef IBSCAN_CLI_H
#define IBSCAN_CLI_H

#include <getopt.h>
#include <stdbool.h>

#include "../core/mad/engine.h"
#include "../core/base/file.h"
#include "../fabric/model.h"

/* Exit codes (one table for every command but health). */
enum {
	EXIT_OK = 0,
	EXIT_FINDINGS = 1,
	EXIT_USAGE = 2,
	EXIT_RUNTIME = 3,
};

struct cmd_desc {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;   /* after "ibscan NAME " */
	const char *summary; /* one line */
	const char *help;    /* options, one per line */
};

extern const struct cmd_desc ibs_commands[];
const struct cmd_desc *cmd_find(const char *name);

/* Options shared by every command that reads the fabric. */
struct cli_common {
	const char *ca;
	int port;
	unsigned window, timeout_ms, retries;
	bool window_set, timeout_set, retries_set, deadline_set; /* given on the command line */
	double deadline_s;
	const char *namemap;
	const char *output;
	const char *format;
	bool progress;
	const char *record;
	bool record_times;
	const char *replay;
	bool replay_strict;
	const char *load_cache;
	bool gids;
	/*
	 * IBS_LACK_* bits of what the command cannot do without: a source
	 * that lacks one is refused before the walk (--gids adds GUIDInfo).
	 */
	unsigned needs;
	/* Set by commands that read PMA counters after the walk (unless the source has none). */
	bool want_counters;
	bool reset_counters;
	bool ext_counters;  /* 64-bit data counters too */
	/* Run after the walk with the same engine (routes, path records). */
	enum ibs_err (*after_walk)(struct ibs_engine *e, struct ibs_fabric *f, void *ctx);
	void *after_ctx;
	double interval_s;
	/* Drawings (--format dot, svg): group a leaf's hosts from this many on, 0 never. */
	unsigned group_hosts;
};

/* getopt ids for long-only options. */
enum {
	OPT_WINDOW = 1000,
	OPT_TIMEOUT,
	OPT_RETRIES,
	OPT_DEADLINE,
	OPT_NAMEMAP,
	OPT_FORMAT,
	OPT_JSON,
	OPT_PROGRESS,
	OPT_RECORD,
	OPT_RECORD_TIMES,
	OPT_REPLAY,
	OPT_REPLAY_STRICT,
	OPT_GIDS,
	OPT_LOAD_CACHE,
	OPT_HELP,
	OPT_GROUP_HOSTS,
	OPT_ALL_HOSTS,
	OPT_CMD_BASE = 1100, /* commands' own options start here */
};

#define CLI_FABRIC_OPTIONS                                                        \
	{ "ca", required_argument, NULL, 'C' }, { "port", required_argument, NULL, 'P' }, \
	{ "window", required_argument, NULL, OPT_WINDOW },                        \
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },                      \
	{ "retries", required_argument, NULL, OPT_RETRIES },                      \
	{ "deadline", required_argument, NULL, OPT_DEADLINE },                    \
	{ "node-name-map", required_argument, NULL, OPT_NAMEMAP },                \
	{ "progress", no_argument, NULL, OPT_PROGRESS },                          \
	{ "record", required_argument, NULL, OPT_RECORD },                        \
	{ "record-times", no_argument, NULL, OPT_RECORD_TIMES },                  \
	{ "replay", required_argument, NULL, OPT_REPLAY },                        \
	{ "replay-strict", no_argument, NULL, OPT_REPLAY_STRICT },                \
	{ "gids", no_argument, NULL, OPT_GIDS },                                  \
	{ "load-cache", required_argument, NULL, OPT_LOAD_CACHE }

#define CLI_OUTPUT_OPTIONS                                                        \
	{ "output", required_argument, NULL, 'o' }, { "format", required_argument, NULL, OPT_FORMAT }, \
	{ "json", no_argument, NULL, OPT_JSON }

/* Options of commands that draw the fabric (--format dot, svg). */
#define CLI_DRAW_OPTIONS                                                          \
	{ "group-hosts", required_argument, NULL, OPT_GROUP_HOSTS },              \
	{ "all-hosts", no_argument, NULL, OPT_ALL_HOSTS }

#define CLI_DRAW_HELP                                                                            \
	"      --group-hosts N    drawings: a leaf's N or more healthy hosts at one rate are one\n"    \
	"                         node, named in hostlist form (default 4)\n"                        \
	"      --all-hosts        drawings: draw every host on its own\n"

#define CLI_BASE_OPTIONS                                                          \
	{ "help", no_argument, NULL, 'h' }, { "verbose", no_argument, NULL, 'v' },       \
	{ "quiet", no_argument, NULL, 'q' }

#define CLI_FABRIC_HELP                                                                          \
	"  -C, --ca NAME          CA to use (default: the first with an active IB port)\n"           \
	"  -P, --port N           port of that CA (default: its first active port)\n"               \
	"      --window N         MADs in flight at most (default 32, 1-1024)\n"                    \
	"      --timeout MS       per-MAD deadline in milliseconds (default 500)\n"                 \
	"      --retries N        attempts after the first, along each path (default 2)\n"          \
	"      --deadline S       deadline for the whole run in seconds (default 300)\n"            \
	"      --node-name-map F  name nodes from an ib-node-name-map file\n"                       \
	"      --gids             read GUIDInfo: whole GID tables, alias GUIDs included\n"         \
	"      --record FILE      record every MAD exchanged into a capture\n"                      \
	"      --record-times     put timestamps in the capture\n"                                  \
	"      --replay FILE      answer from a capture instead of a device\n"                      \
	"      --replay-strict    a request the capture lacks is an error, not a dead target\n"      \
	"      --load-cache FILE  read an 'ibnetdiscover --cache' file instead of walking\n"         \
	"      --progress         show progress on stderr even when it is not a terminal\n"

#define CLI_BASE_HELP                                                                            \
	"  -v, --verbose          more diagnostics on stderr (repeat for more)\n"                   \
	"  -q, --quiet            errors only\n"                                                    \
	"  -h, --help             this help\n"

void cli_common_init(struct cli_common *c);
/* Handle a shared option: 1 handled, 0 not a shared option, -1 usage error (reported). */
int cli_common_opt(const struct cmd_desc *cmd, struct cli_common *c, int opt, const char *arg);
/*
 * Parse the options of argv (argv[0] is the command): help, the shared
 * ones into c, the command's own through own() (1 handled, 0 not its, -1
 * a usage error it reported; own may be NULL). Returns CLI_PARSED with
 * optind at the first argument, or the exit status to return at once.
 */
#define CLI_PARSED (-1)
int cli_parse(const struct cmd_desc *cmd, struct cli_common *c, int argc, char **argv, const char *shortopts,
	      const struct option *opts, int (*own)(int opt, const char *arg, void *ctx), void *ctx);
/* Report an unknown option or missing argument as getopt saw it; returns EXIT_USAGE. */
int cli_bad_option(const struct cmd_desc *cmd, char **argv, int opt);
int cli_usage_error(const struct cmd_desc *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_print_help(const struct cmd_desc *cmd);
/* --format of a command that writes text or JSON: *json set, or a usage error (CLI_PARSED when fine). */
int cli_text_or_json(const struct cmd_desc *cmd, const struct cli_common *c, bool *json);
struct render_draw_opts;
/*
 * Write the drawing of f (o's findings on it): DOT, or SVG laid out by
 * libgvc when svg is set (EXIT_RUNTIME, reported, when Graphviz fails).
 */
int cli_write_drawing(const struct cli_common *c, const struct ibs_fabric *f, const struct render_draw_opts *o,
		      bool svg);
/* Parse an unsigned within [lo, hi]. */
bool cli_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);

/*
 * Walk the fabric (device or replay), with recording and the node-name map
 * applied. Returns EXIT_OK with *out set (f->partial may be true), or
 * EXIT_RUNTIME with nothing, after reporting why. When the walk was cut short
 * *out is still set and *walk_rc says why.
 */
int cli_walk(const struct cli_common *c, struct ibs_fabric **out, enum ibs_err *walk_rc);

/*
 * Say why f is partial, in one line on stderr: the walk stopped early, so
 * many queries got no answer, or so many ports' PMA did not answer; and
 * where each node the walk could not reach lies (the port it is behind).
 */
void cli_report_partial(const struct ibs_fabric *f);

/* Name f's nodes from --node-name-map, if given (EXIT_RUNTIME, reported, when it cannot be read). */
int cli_name_nodes(const struct cli_common *c, struct ibs_fabric *f);

/* The first option given that reads the fabric (--replay, -C, ...), or NULL: for commands that may not walk. */
const char *cli_source_option(const struct cli_common *c);

/*
 * Open the output (-o or stdout, see struct ibs_out) and write through fn;
 * EXIT_RUNTIME on write errors. A reader that went away (EPIPE) ends the
 * process quietly by SIGPIPE, as other filters end.
 */
int cli_write_output(const struct cli_common *c, int (*fn)(FILE *out, void *ctx), void *ctx);
/* When err is EPIPE: end by SIGPIPE, without a word (`ibscan ... | head -1`). */
void cli_end_on_epipe(int err);

/* An input file a command reads, and how the user named it ("--baseline"). */
struct cli_file {
	const char *what;
	const char *path;
};
/*
 * Refuse, before any work, an output (-o, --record) that is one of the
 * inputs (--replay and its index, --load-cache, --node-name-map, and more,
 * ended by { NULL }), or the other output: compared as files (device and
 * inode, symlinks followed), not as names. CLI_PARSED, or EXIT_USAGE after
 * saying which.
 */
int cli_check_outputs(const struct cli_common *c, const struct cli_file *more);

#endif
