/* ibscan's entry point: global options, the command table, help and version. */
#include "cli.h"
#include "cmds.h"
#include "signals.h"
#include "../core/base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#ifndef IBSCAN_VERSION
#define IBSCAN_VERSION "0.0.0"
#endif

/* The --format values of each command, its default first. */
static const char *const text_json[] = { "text", "json", NULL };
static const char *const topology_formats[] = { "text", "json", "dot", "svg", "netfile", "slurm", "slurm-block", "slurm-yaml", "plan", NULL };
static const char *const plugin_formats[] = { "text", "json", "prom", NULL };
static const char *const health_formats[] = { "text", "json", "prom", "dot", "svg", NULL };
/* report refuses --format and --json itself, with a word on where JSON is. */
static const char *const html_only[] = { "html", NULL };
static const char *const prom_only[] = { "prom", NULL };

const struct cmd_desc ibs_commands[] = {
	{ "topology", cmd_topology, "[options]", "Walk the fabric and show every node, port and link.", topology_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW, topology_formats, 0 },
	{ "nodes", cmd_nodes, "[options]", "Walk the fabric and list its nodes, one per line.", view_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "links", cmd_links, "[options]", "Walk the fabric and list its links, one per line.", view_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "sm", cmd_sm, "[options]", "Show the subnet manager(s): LID, GUID, priority and state.", view_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "health", cmd_health, "[options]",
	  "Check fabric health for cron and monitoring (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).", health_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW, health_formats, CMD_PLUGIN_EXIT },
	{ "counters", cmd_counters, "[options]",
	  "Read every port's PMA counters (errors, data in bytes, packets), optionally as rates.", counters_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, plugin_formats, 0 },
	{ "report", cmd_report, "[-o FILE.html] [options]",
	  "Walk the fabric and write one self-contained HTML page: summary, map, search, details, findings.",
	  report_opts, CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW, html_only, 0 },
	{ "exporter", cmd_exporter, "[--listen ADDR:PORT] [options]",
	  "Serve the fabric's health and counters to Prometheus over HTTP, swept in the background.", exporter_opts,
	  CLI_G_FABRIC | CLI_G_BASE, prom_only, 0 },
	{ "diff", cmd_diff, "A B [options]",
	  "Compare two topologies (ibscan JSON, ibnetdiscover netfile or cache, or 'live'), or a cabling plan "
	  "(A.csv) with B by names; exit 1 when they differ.",
	  diff_opts, CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "route", cmd_route, "SRC DST [options]",
	  "Trace the route from SRC to DST through the switches' forwarding tables (exit 1: a hole or a loop).",
	  route_opts, CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "routes", cmd_routes, "--dump|--check|--through NODE[:PORT]|--nodes HOSTLIST [options]", "Dump, check or trace the routes of every switch's linear forwarding table.", routes_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "path", cmd_path, "SRC DST [options]",
	  "Ask the subnet administrator for the PathRecord from SRC to DST, as RDMA applications do.", route_opts,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "capture", cmd_capture, "info|export|index FILE [options]",
	  "Inspect a capture (info), convert it to pcap for Wireshark (export) or index it for fast replay (index).",
	  capture_opts, CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "local", cmd_local, "[--sysfs DIR] [--check | --nccl-env] [--profile FILE] [options]",
	  "Show this host's RDMA devices, ports, GID tables (RoCE types) and IPoIB interfaces; check it is ready for GPU jobs.",
	  local_opts, CLI_G_OUTPUT | CLI_G_HOST | CLI_G_BASE, plugin_formats, 0 },
	{ "fleet", cmd_fleet, "FILE... [--profile FILE] [options]",
	  "Merge many hosts' 'local --json' and list the hosts that differ from the majority (exit 0-3 as health).",
	  fleet_opts, CLI_G_OUTPUT | CLI_G_HOST | CLI_G_BASE, text_json, CMD_PLUGIN_EXIT },
	{ "ping", cmd_ping, "--listen [options] | HOST [options]",
	  "Probe RDMA between two hosts: RC ping-pong latency or bandwidth, with deadlines.", ping_opts,
	  CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL, 0 },
};

const struct cmd_desc *cmd_find(const char *name)
{
	const struct cmd_desc *c;

	for (c = ibs_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

static int usage(FILE *out)
{
	const struct cmd_desc *c;

	fprintf(out, "usage: ibscan [--version] [--help] COMMAND [options]\n\n"
		     "Inspect an InfiniBand fabric: discovery, health, counters, captures.\n\ncommands:\n");
	for (c = ibs_commands; c->name; c++) {
		fprintf(out, "  %-10s ", c->name);
		cli_help_wrap(out, c->summary, 13, 13);
	}
	fprintf(out, "  %-10s %s\n", "help", "Show help for a command: ibscan help COMMAND.");
	fprintf(out, "\nexit status: 0 ok, 1 findings, 2 usage error, 3 runtime failure or partial\n"
		     "result "
		     "(ibscan health: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN)\n");
	return 0;
}

/* The closest command by prefix, for a hint only: ibscan never guesses. */
static const char *suggest(const char *name)
{
	const struct cmd_desc *c;
	size_t n = strlen(name);

	for (c = ibs_commands; c->name; c++)
		if (n >= 2 && !strncmp(c->name, name, n))
			return c->name;
	return NULL;
}

static int finish(int rc)
{
	/* A full disk or a closed pipe on stdout must not look like success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		sig_end_on_epipe(errno);
		/* Said already when the command itself saw the write fail. */
		if (rc != EXIT_RUNTIME && rc != 3)
			fprintf(stderr, "ibscan: error: cannot write to standard output\n");
		return sig_guard_exit(EXIT_RUNTIME);
	}
	return sig_guard_exit(rc);
}

int main(int argc, char **argv)
{
	const struct cmd_desc *c;
	const char *name;

	sig_ignore_sigpipe();
	sig_catch_fatal();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		return finish(usage(stdout));
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("ibscan %s\n", IBSCAN_VERSION);
		return finish(EXIT_OK);
	}
	if (!strcmp(name, "help")) {
		/* help is listed as a command: 'ibscan help help' is the list again, not an unknown command. */
		if (argc < 3 || !strcmp(argv[2], "help"))
			return finish(usage(stdout));
		c = cmd_find(argv[2]);
		if (!c)
			return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
		return finish(cli_print_help(c));
	}
	if (name[0] == '-')
		return cli_usage_error(NULL, "unknown option '%s' (options go after the command)", name);
	c = cmd_find(name);
	if (!c) {
		const char *s = suggest(name);
		log_error("unknown command '%s'", name);
		if (s)
			log_hint("did you mean '%s'?", s);
		else
			log_hint("see 'ibscan --help'");
		return EXIT_USAGE;
	}
	return finish(c->fn(argc - 1, argv + 1));
}
