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
#include "../core/base/out.h"
#include "../fabric/model/model.h"
#include "../fabric/walk/run.h"
#include "../fabric/session.h"
#include "exit.h"
#include "options.h"

extern const struct cmd_desc ibs_commands[];
const struct cmd_desc *cmd_find(const char *name);

void cli_common_init(struct cli_common *c);
/*
 * Handle a shared option that the command's getopt table let through: 1
 * handled, 0 not a shared option, -1 usage error (reported).
 */
int cli_common_opt(const struct cmd_desc *cmd, struct cli_common *c, int opt, const char *arg);
/*
 * Parse the options of argv (argv[0] is the command): help, the shared
 * ones of cmd->opt_groups (and the CLI_SHARED rows of cmd->opts) into c,
 * the command's own rows (cmd->opts) into ctx as they say, those of kind
 * CLI_K_OWN through own() (1 handled, 0 not its, -1 a usage error it
 * reported; own may be NULL). Returns CLI_PARSED with optind at the first
 * argument, or the exit status to return at once.
 */
#define CLI_PARSED (-1)
int cli_parse(const struct cmd_desc *cmd, struct cli_common *c, int argc, char **argv,
	      int (*own)(int opt, const char *arg, void *ctx), void *ctx);
/* Report an unknown option or missing argument as getopt saw it; returns EXIT_USAGE. */
int cli_bad_option(const struct cmd_desc *cmd, char **argv, int opt);
int cli_print_help(const struct cmd_desc *cmd);
/*
 * One run of a command, from its options to its exit status: what the walk
 * helpers keep between the walks of the run (diff names one side from a
 * file and walks the other; health --baseline names the baseline, then
 * walks) and what the exit status depends on beyond the command's own
 * result. The command owns it (CLI_RUN_INIT in its run function), gives
 * it to every walk helper below, and returns cli_run_end(&r, rc). The
 * exporter keeps one for as long as it sweeps.
 */
struct cli_run {
	bool record_failed;  /* a walk's --record capture could not be written whole (said) */
	bool progress_on;    /* the walk under way shows its progress line (--progress, or a terminal) */
	bool progress_shown; /* and that line is on stderr, to be erased when the walk ends */
	char *names_said;    /* the node-name map's warnings said in this run, one a line; NULL: none yet */
};
#define CLI_RUN_INIT                      \
	{                                 \
		false, false, false, NULL \
	}
/* The run's exit status for the command's rc: EXIT_RUNTIME instead of EXIT_OK when --record failed; frees r's state. */
int cli_run_end(struct cli_run *r, int rc);

/*
 * Open the session the options describe (device, replay or cache, with the
 * recorder and the node-name map) and walk it, reading the counters too
 * when c->want_counters. EXIT_OK with *s set: the command may ask the
 * session more (routes, path records) before cli_walk_end. Otherwise the
 * exit status, after saying why.
 */
int cli_walk_begin(struct cli_run *r, const struct cli_common *c, struct ibs_session **s);
/*
 * End the session's run and close it: EXIT_OK with *out set (f->partial
 * may be true) and *run filled in (the caller frees both), or EXIT_RUNTIME
 * with nothing, after saying why. A run cut short still gives its fabric;
 * run->aborted says so.
 */
int cli_walk_end(struct cli_run *r, const struct cli_common *c, struct ibs_session *s, struct ibs_fabric **out,
		 struct ibs_run *run);
/* cli_walk_begin and cli_walk_end, for commands that ask nothing more. */
int cli_walk(struct cli_run *r, const struct cli_common *c, struct ibs_fabric **out, struct ibs_run *run);
/*
 * cli_walk, and with tables every switch's forwarding table read on the same session (health
 * and report --routing, topology --heat); *lfts and *n stay as given when none are read. With
 * check (and tables), the route check with ro (may be NULL) into *check when it returns 0
 * (ibs_routecheck_free): on the session, which reads the SL2VL and asks the SA the SLs it needs
 * (ibs_session_routecheck), or, when the walk or the tables failed, from what was read.
 */
int cli_walk_tables(struct cli_run *r, const struct cli_common *c, bool tables, struct ibs_fabric **out,
		    struct ibs_run *run, struct ibs_lft **lfts, size_t *n, const struct ibs_rc_opts *ro,
		    struct ibs_routecheck *check);

/*
 * Say why f is partial, in one line on stderr: the walk stopped early, so
 * many queries got no answer, or so many ports' PMA did not answer; and
 * where each node the walk could not reach lies (the port it is behind).
 */
void cli_report_partial(const struct cli_common *c, const struct ibs_fabric *f, const struct ibs_run *run);
/* Why no PMA counter was read, when no port had a LID to send a GMP to (said on stderr). */
void cli_say_no_lids(const struct ibs_run *run);

/* Name f's nodes from --node-name-map, if given (EXIT_RUNTIME, reported, when it cannot be read). */
int cli_name_nodes(struct cli_run *r, const struct cli_common *c, struct ibs_fabric *f);

/* --deadline in milliseconds, rounded up: a fraction of a millisecond must not become 0, "no deadline". */
unsigned cli_deadline_ms(const struct cli_common *c);

/*
 * Open the output (-o or stdout, see struct ibs_out) and write through fn;
 * EXIT_RUNTIME on write errors. A reader that went away (EPIPE) ends the
 * process quietly by SIGPIPE, as other filters end.
 */
int cli_write_output(const struct cli_common *c, int (*fn)(FILE *out, void *ctx), void *ctx);
/* An input file a command reads, and how the user named it ("--baseline"). */
struct cli_file {
	const char *what;
	const char *path;
};
/*
 * Refuse, before any work, an output (-o, --record) that is one of the
 * inputs (--replay and its index, --load-cache, --node-name-map, and more,
 * ended by { NULL }), or the other output: compared as files (device and
 * inode, symlinks followed), not as names; and standard input ('-') given
 * as two inputs, or as --load-cache. CLI_PARSED, or EXIT_USAGE after
 * saying which.
 */
int cli_check_outputs(const struct cli_common *c, const struct cli_file *more);

#endif
