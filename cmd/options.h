/*
 * Options declared once: each shared option is one row of a table (long
 * name, short name, argument name, help text, where its value goes, its
 * range), and the getopt table, the help lines and the parsing of its value
 * all come from that row.
 *
 * To add a shared option: add a field to struct cli_common (below), an
 * OPT_* id when it has no short name, and one row to its group's table in
 * options.c (ROW_* macros), in the place its help line goes. A numeric
 * row carries its default (a named constant of the layer that owns it) and
 * its range: cli_common_init sets the default from it, the help says
 * "(default D, LO-HI)" from it, a bad value is told the range from it, and
 * tests/cli/t_docdefaults.sh checks the README and the man page against it. `ibscan help CMD` then lists
 * it for every command of that group, and tests/cli/t_man.sh and
 * t_completion.sh (which read `ibscan help CMD`) ask for it in the man page
 * and the completion.
 *
 * A command's own options are rows of the same kind, in a table in the
 * command's own file (struct cmd_desc's opts), in the order of its help:
 * the text of its help (CLI_TEXT rows), its options, and its own help of
 * the shared options whose words differ by command (-o, --format, --json;
 * CLI_SHARED rows). `ibscan help CMD` prints those rows, then the help of
 * its groups of shared options.
 */
#ifndef IBSCAN_OPTIONS_H
#define IBSCAN_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

struct cli_opt;
struct cmd_desc {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;   /* after "ibscan NAME " */
	const char *summary; /* one line */
	const struct cli_opt *opts; /* its own options and help, in the command's file (cmds.h); ended by CLI_END */
	unsigned opt_groups; /* CLI_G_*: the shared options it takes (below) */
	const char *const *formats; /* --format values it accepts, the default first; NULL-ended */
	unsigned flags;      /* CMD_* */
};
/* struct cmd_desc's flags. Whether it reads the fabric: opt_groups & CLI_G_FABRIC. */
enum {
	CMD_PLUGIN_EXIT = 1 << 0, /* exits as a monitoring plugin: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN, even on usage errors */
};

struct ibs_out;
struct ibs_fabric;

/* The shared options' values (and what the command adds to them before the walk). */
struct cli_common {
	const char *ca;
	int port;
	unsigned window, timeout_ms, retries;
	unsigned max_per_node; /* --max-smps-per-switch: the engine's per-node cap (ibs_engine_opts.max_per_node) */
	bool fixed_timeout;      /* --fixed-timeout */
	bool port_set, window_set, timeout_set, retries_set, deadline_set, mkey_set, max_per_node_set; /* given */
	double deadline_s;
	uint64_t mkey;  /* --m-key: the M_Key every SMP carries */
	const char *namemap;
	const char *output;
	struct ibs_out *out; /* -o opened already (health: before the walk, with its last words), or NULL */
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
	bool want_tick;     /* PortSamplesControl where PortXmitWait is above 0 (health --state's share) */
	double interval_s;
	/* Not an option: a fabric walked before whose counters to read again (the exporter); the walk takes it. */
	struct ibs_fabric *walked;
	/* Drawings (--format dot, svg; the report's map): group a leaf's hosts from this many on, 0 never. */
	unsigned group_hosts;
	bool group_hosts_set; /* --group-hosts or --all-hosts given: drawings only */
	const char *panels;   /* --panels rail|su|none (render_draw_panels_parse); NULL: rail */
	const char *profile;  /* --profile: what a host should be (local --check and --nccl-env, fleet) */
	/* The shared rows given, in the order given (a row once). */
	const struct cli_opt *given[32];
	unsigned n_given;
};

/* The run's deadline (the watchdog's, cmd/signals.c) when --deadline is not given. */
#define CLI_DEFAULT_DEADLINE_S 300
#define CLI_MAX_DEADLINE_S 86400

/* getopt ids for long-only options. */
enum {
	OPT_WINDOW = 1000,
	OPT_TIMEOUT,
	OPT_MAX_PER_NODE,
	OPT_FIXED_TIMEOUT,
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
	OPT_MKEY,
	OPT_HELP,
	OPT_GROUP_HOSTS,
	OPT_ALL_HOSTS,
	OPT_PANELS,
	OPT_PROFILE,
	OPT_THRESHOLDS, /* the checks options (struct cli_checks) */
	OPT_THRESHOLD,
	OPT_NO_COUNTERS,
	OPT_CMD_BASE = 1100, /* commands' own options start here */
};

/*
 * The checks options, one group with one parser: health and report take
 * all three (and counters refuses them, naming health); the exporter
 * declares --thresholds and --threshold with the same rows and rereads the
 * file on SIGHUP itself. Each command gives its help (NULL: hidden).
 */
struct ibs_thresholds;
struct cli_checks {
	struct ibs_thresholds *thr; /* the command's, set to the defaults first */
	const char *thresholds;     /* --thresholds FILE (an input: never written over) */
	bool counters;              /* false with --no-counters */
	bool thr_bad;               /* the file was refused (said): the command decides what that means */
};
#define CLI_THRESHOLDS_ROW(text) CLI_OWN("thresholds", OPT_THRESHOLDS, "FILE", text)
#define CLI_THRESHOLD_ROW(text) CLI_OWN("threshold", OPT_THRESHOLD, "N=V", text)
#define CLI_THRESHOLD_HELP "one counter threshold (repeatable), e.g. SymbolErrorCounter=100"
#define CLI_NO_COUNTERS_ROW(text) CLI_OWN("no-counters", OPT_NO_COUNTERS, NULL, text)
/* health's and counters' --reset-counters (each command's own id: OPT_RESET). */
#define CLI_RESET_ROW CLI_OWN("reset-counters", OPT_RESET, NULL, "clear the counters after reading them")
/* One of the checks options: 1 taken, 0 not one of them, -1 a usage error (said). */
int cli_checks_opt(const struct cmd_desc *cmd, struct cli_checks *k, int opt, const char *arg);

/* Say a usage error on stderr, with the command's usage as a hint; returns EXIT_USAGE. */
int cli_usage_error(const struct cmd_desc *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse an unsigned within [lo, hi]. */
bool cli_parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out);

/* The groups of shared options a command takes (struct cmd_desc's opt_groups). */
enum {
	CLI_G_FABRIC = 1 << 0, /* the source and the engine: -C, -P, --window, --replay, ... */
	CLI_G_OUTPUT = 1 << 1, /* -o, --format, --json (their help is the command's: formats differ) */
	CLI_G_BASE = 1 << 2,   /* -v, -q, -h */
	CLI_G_DRAW = 1 << 3,   /* drawings: --group-hosts, --all-hosts */
	CLI_G_HOST = 1 << 4,   /* a host's expected state: --profile (local, fleet) */
};

/* Where an option's value goes. */
enum cli_opt_kind {
	CLI_K_STR,    /* the argument, as given */
	CLI_K_CONST,  /* no argument: the row's value string */
	CLI_K_FLAG,   /* no argument: true */
	CLI_K_UINT,   /* an unsigned in [lo, hi] */
	CLI_K_INT,    /* an unsigned in [lo, hi], stored in an int */
	CLI_K_SECS,   /* seconds: more than 0, at most hi */
	CLI_K_U64,    /* a 64-bit unsigned, decimal or 0x hex */
	CLI_K_CALL,   /* no argument: call fn */
	CLI_K_ZERO,   /* no argument: the unsigned set to 0 */
	CLI_K_HELP,   /* -h: the command's help */
	/* Only in a command's own table: */
	CLI_K_TEXT,   /* no option: help is printed as it is */
	CLI_K_SHARED, /* the shared option of this id, with this help */
	CLI_K_OWN,    /* the command's own() handler takes it (cli_parse) */
};

struct cli_opt {
	const char *name;       /* long name, without "--" */
	int id;                 /* getopt id: the short option letter, or an OPT_* */
	const char *arg;        /* argument name in the help ("N", "FILE"), NULL: none */
	const char *help;       /* help text; "\n" goes on under the text column; NULL: not listed */
	enum cli_opt_kind kind;
	size_t at;              /* offsetof(struct cli_common, the field); own rows: into the command's ctx */
	size_t given_at;        /* offsetof its "given on the command line" bool, or CLI_NOT_TRACKED */
	unsigned lo, hi;        /* range of UINT, INT; hi of SECS */
	const char *want;       /* what a bad value is told it wants: "a number from 1 to 100" */
	const char *value;      /* CONST */
	void (*fn)(void);       /* CALL */
	unsigned flags;         /* CLI_F_*: what the option is about, for the checks between options */
	const char *unit;       /* UINT: what the number counts, for the range error ("milliseconds"); NULL: "a number" */
	bool has_def;           /* def is the default, set by cli_common_init and said in the help */
	double def;             /* UINT, INT, SECS, U64: the default (a named constant of the layer that owns it) */
};
#define CLI_NOT_TRACKED ((size_t)-1)
/* struct cli_opt's flags: what a shared option is about. */
enum {
	CLI_F_LIVE = 1 << 0,   /* reading the fabric (diff refuses it when neither side is live) */
	CLI_F_DEVICE = 1 << 1, /* the local device: nothing to say to a replay or a cache */
	CLI_F_SENDS = 1 << 2,  /* how MADs are sent: nothing to say to a cache */
};
/*
 * The shared options given on the command line with a row of these flags:
 * the first one's "--name" (NULL: none given).
 */
const char *cli_given_with(const struct cli_common *c, unsigned flags);
/* "-C/--ca and -P/--port": every shared row with these flags, for a message (the caller frees). */
char *cli_rows_with(unsigned flags);

/* Rows of a command's own table. */
#define CLI_END { .name = NULL }
#define CLI_TEXT(text) { .name = "", .help = (text), .kind = CLI_K_TEXT, .given_at = CLI_NOT_TRACKED }
#define CLI_SHARED(lname, oid, argname, text) \
	{ .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_SHARED, .given_at = CLI_NOT_TRACKED }
#define CLI_OWN(lname, oid, argname, text) \
	{ .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_OWN, .given_at = CLI_NOT_TRACKED }
/* -o's help, and the three output rows of a command whose formats are text and json. */
#define CLI_OUTPUT_ROW                                                                                 \
	CLI_SHARED("output", 'o', "FILE",                                                           \
		   "write there as sort -o does: a file is replaced atomically (its mode\n"          \
		   "and owner kept); a device, FIFO or /dev/stdout is written as it is")
#define CLI_VIEW_ROWS                                                       \
	CLI_SHARED("format", OPT_FORMAT, "F", "text (default) or json"),  \
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"), CLI_OUTPUT_ROW

/* The getopt tables of one command: its groups' options, then its own. */
struct cli_getopt {
	struct option v[64];
	char shortopts[64];
};
/*
 * Fill g from the groups' rows and the command's own rows (ended by
 * CLI_END, or NULL): the getopt_long table and the short options string
 * (":" first, so a missing value is told apart).
 */
void cli_getopt_build(struct cli_getopt *g, unsigned groups, const struct cli_opt *own);

/* The row of id in a command's own table (NULL: none, or no table). */
const struct cli_opt *cli_own_find(const struct cli_opt *own, int id);
/*
 * Apply an own row of kind STR, FLAG, UINT or INT to the command's ctx: 1
 * done, -1 a bad value (a usage error, reported).
 */
int cli_own_apply(const struct cmd_desc *cmd, const struct cli_opt *o, void *ctx, const char *arg);

/*
 * Apply a shared option to c: 1 done, 0 not a shared option of the groups,
 * -1 a bad value (a usage error, reported). -h is the caller's.
 */
int cli_opt_apply(const struct cmd_desc *cmd, unsigned groups, struct cli_common *c, int id, const char *arg);

/* The help lines of a command's own rows, then of its groups' options, as `ibscan help CMD` prints them. */
void cli_opts_help(FILE *out, const struct cli_opt *own, unsigned groups);
/* Every shared option's default (its row's) into c. */
void cli_opts_defaults(struct cli_common *c);
/* Help is wrapped to end by this column. */
#define CLI_HELP_WIDTH 80
void cli_help_wrap(FILE *out, const char *text, int col, int indent);

#endif
