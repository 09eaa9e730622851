/* The one render entry of cmd/: a view of what a command computed, in one format, written to -o or stdout. */
#ifndef IBSCAN_CMD_RENDER_H
#define IBSCAN_CMD_RENDER_H

#include <stddef.h>

#include "options.h"
#include "../output/draw.h"

/* The formats; a command's --format values (struct cmd_desc's formats) are their names. */
enum cli_fmt {
	CLI_F_TEXT,
	CLI_F_JSON,
	CLI_F_PROM,    /* Prometheus text exposition */
	CLI_F_DOT,     /* the Graphviz drawing */
	CLI_F_SVG,     /* the drawing laid out */
	CLI_F_NETFILE, /* ibnetdiscover's format */
	CLI_F_SLURM,   /* Slurm's topology.conf */
	CLI_F_HTML,    /* the report */
	CLI_F_PCAP,    /* capture export (no --format value) */
	CLI_F_PLAN,    /* a cabling plan, CSV (docs/plan.md) */
	CLI_F_SLURM_BLOCK, /* Slurm's topology.conf for topology/block */
	CLI_F_SLURM_YAML,  /* Slurm's topology.yaml, the block topology */
};

/* The views: what is rendered. */
enum cli_view {
	CLI_V_TOPOLOGY,
	CLI_V_NODES,
	CLI_V_LINKS,
	CLI_V_SM,
	CLI_V_HEALTH,   /* f, run, fs */
	CLI_V_COUNTERS, /* f, run */
	CLI_V_DIFF,     /* diff, between the sources named a and b */
	CLI_V_ROUTE,    /* route */
	CLI_V_LFTS,     /* lfts, n */
	CLI_V_PATH,     /* path */
	CLI_V_LOCAL,    /* host */
	CLI_V_PING,     /* ping */
	CLI_V_CAPTURE,  /* cap, read from the file named a */
	CLI_V_REPORT,   /* report */
	CLI_V_PLAN_DIFF, /* fs of a plan (named a) against a source (named b) */
	CLI_V_RCHECK,   /* rcheck */
	CLI_V_RTHROUGH, /* rcheck with its through tallies, f, and the cable at node's port n */
	CLI_V_RJOB,     /* rcheck with its job tallies */
};

struct ibs_fabric;
struct ibs_run;
struct ibs_findings;
struct ibs_diff;
struct ibs_route;
struct ibs_lft;
struct ibs_path_record;
struct ibs_host;
struct ibs_ping_result;
struct ibs_capture;
struct report_in;
struct ibs_routecheck;
struct ibs_node;

/* A view of a command's result in one format; each view reads the fields its comment above names. */
struct cli_render {
	enum cli_view view;
	enum cli_fmt fmt;
	const struct ibs_fabric *f; /* the fabric views (topology ... counters) and drawings */
	const struct ibs_run *run;
	const struct ibs_findings *fs; /* health; drawn on the drawing when set */
	const struct ibs_routecheck *heat; /* drawings: the routes per cable (render_draw_opts.heat), or NULL */
	const char *a, *b;
	size_t n;
	const struct ibs_node *node;
	union {
		const struct ibs_diff *diff;
		const struct ibs_route *route;
		const struct ibs_lft *lfts;
		const struct ibs_path_record *path;
		const struct ibs_host *host;
		const struct ibs_ping_result *ping;
		const struct ibs_capture *cap;
		const struct report_in *report;
		const struct ibs_routecheck *rcheck;
	};
};

/*
 * --format: *fmt is the format c->format names among cmd->formats (the
 * first, the default, when not given), or a usage error naming the formats
 * (CLI_PARSED when fine).
 */
int cli_format(const struct cmd_desc *cmd, const struct cli_common *c, enum cli_fmt *fmt);
/* --panels as the drawing's (rail when not given), or a usage error (CLI_PARSED when fine). */
int cli_draw_panels(const struct cmd_desc *cmd, const struct cli_common *c, enum render_draw_panels *out);
/* cli_format of a command whose formats are text and json: *json set. */
int cli_text_or_json(const struct cmd_desc *cmd, const struct cli_common *c, bool *json);

/*
 * Write r to -o or stdout (cli_write_output): EXIT_OK, or EXIT_RUNTIME
 * after saying why. A drawing (dot, svg) is laid out before the output is
 * opened, so a layout failure leaves no half-written file.
 */
int cli_render(const struct cli_common *c, const struct cli_render *r);
/* What cli_render would write, in memory (*len bytes, the caller's); NULL when it could not be made (said). */
char *cli_render_mem(const struct cli_common *c, const struct cli_render *r, size_t *len);

#endif
