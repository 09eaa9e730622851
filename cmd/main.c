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

#define OUTPUT_HELP                                                                                 \
	"  -o, --output FILE      write there as sort -o does: a file is replaced atomically (its mode\n" \
	"                         and owner kept); a device, FIFO or /dev/stdout is written as it is\n"

#define VIEW_HELP                                                                                \
	"      --format F         text (default) or json\n"                                           \
	"      --json             same as --format json\n" OUTPUT_HELP

/* The --format values of each command, its default first. */
static const char *const text_json[] = { "text", "json", NULL };
static const char *const topology_formats[] = { "text", "json", "dot", "svg", "netfile", "slurm", NULL };
static const char *const plugin_formats[] = { "text", "json", "prom", NULL };
static const char *const health_formats[] = { "text", "json", "prom", "dot", "svg", NULL };
/* report refuses --format and --json itself, with a word on where JSON is. */
static const char *const html_only[] = { "html", NULL };

const struct cmd_desc ibs_commands[] = {
	{ "topology", cmd_topology, "[options]",
	  "Walk the fabric and show every node, port and link.",
	  "options:\n"
	  "      --format F         text (default), json, netfile (ibnetdiscover format),\n"
	  "                         slurm (topology.conf for Slurm's topology/tree plugin),\n"
	  "                         dot (the Graphviz drawing) or svg (the drawing laid out)\n"
	  "      --json             same as --format json\n"
	  OUTPUT_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW, topology_formats, 0 },
	{ "nodes", cmd_nodes, "[options]", "Walk the fabric and list its nodes, one per line.",
	  "options:\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "links", cmd_links, "[options]", "Walk the fabric and list its links, one per line.",
	  "options:\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "sm", cmd_sm, "[options]", "Show the subnet manager(s): LID, GUID, priority and state.",
	  "options:\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "health", cmd_health, "[options]",
	  "Check fabric health for cron and monitoring (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).",
	  "options:\n"
	  "      --format F         text (default: status line, then findings), json, prom, dot or svg\n"
	  "                         (the drawing with every finding on it)\n"
	  "      --json             same as --format json\n"
	  OUTPUT_HELP
	  "      --baseline FILE    compare with a saved 'topology --json', an ibnetdiscover netfile or cache\n"
	  "      --thresholds FILE  counter thresholds, one Name=N per line\n"
	  "      --threshold N=V    one counter threshold (repeatable), e.g. SymbolErrorCounter=100\n"
	  "      --no-counters      do not read PMA error counters\n"
	  "      --reset-counters   clear the counters after reading them\n",
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW, health_formats, CMD_PLUGIN_EXIT },
	{ "counters", cmd_counters, "[options]",
	  "Read every port's PMA counters (errors, data in bytes, packets), optionally as rates.",
	  "options:\n"
	  "      --format F         text (default), json or prom\n"
	  "      --json             same as --format json\n"
	  OUTPUT_HELP
	  "      --interval S       read twice, S seconds apart: deltas and rates\n"
	  "      --reset-counters   clear the counters after reading them\n",
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, plugin_formats, 0 },
	{ "report", cmd_report, "[-o FILE.html] [options]",
	  "Walk the fabric and write one self-contained HTML page: summary, map, search, details, findings.",
	  "options:\n"
	  "  -o, --output FILE      write the page there (default: standard output), replaced atomically\n"
	  "      --no-counters      do not read PMA counters (no counter findings, no counters in the page)\n"
	  "      --thresholds FILE  counter thresholds, one Name=N per line (as health)\n"
	  "      --threshold N=V    one counter threshold (repeatable), e.g. SymbolErrorCounter=100\n",
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE | CLI_G_DRAW, html_only, 0 },
	{ "diff", cmd_diff, "A B [options]",
	  "Compare two topologies (ibscan JSON, ibnetdiscover netfile or cache, or 'live'); exit 1 when they differ.",
	  "options:\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "route", cmd_route, "SRC DST [options]",
	  "Trace the route from SRC to DST through the switches' forwarding tables (exit 1: a hole or a loop).",
	  "SRC and DST: a LID, a node or port GUID (0x...), or a node name.\n"
	  "options:\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "routes", cmd_routes, "--dump [options]", "Dump every switch's linear forwarding table.",
	  "options:\n"
	  "      --dump             read and print every switch's LFT\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "path", cmd_path, "SRC DST [options]",
	  "Ask the subnet administrator for the PathRecord from SRC to DST, as RDMA applications do.",
	  "SRC and DST: a LID, a node or port GUID (0x...), or a node name.\n"
	  "options:\n" VIEW_HELP,
	  CLI_G_FABRIC | CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "capture", cmd_capture, "info|export|index FILE [options]",
	  "Inspect a capture (info), convert it to pcap for Wireshark (export) or index it for fast replay (index).",
	  "subcommands:\n"
	  "  info FILE              local port, counts by class/attribute/method, outcomes, nodes touched\n"
	  "  export FILE -o OUT     pcap (LINKTYPE_ERF, InfiniBand records) that Wireshark/tshark decode\n"
	  "  index FILE [-o IDX]    write the replay index (default FILE.idx): --replay FILE then maps it\n"
	  "options:\n"
	  "      --format F         text (default) or json (info only)\n"
	  "      --json             same as --format json\n"
	  OUTPUT_HELP,
	  CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "local", cmd_local, "[--sysfs DIR] [options]",
	  "Show this host's RDMA devices, ports, GID tables (RoCE types) and IPoIB interfaces.",
	  "options:\n"
	  "      --sysfs DIR        read DIR laid out like /sys instead of /sys\n" VIEW_HELP,
	  CLI_G_OUTPUT | CLI_G_BASE, text_json, 0 },
	{ "ping", cmd_ping, "--listen [options] | HOST [options]",
	  "Probe RDMA between two hosts: RC ping-pong latency or bandwidth, with deadlines.",
	  "roles:\n"
	  "      --listen           wait for one probe (one peer at a time; silent or malformed peers are dropped)\n"
	  "  HOST                   probe the host running 'ibscan ping --listen'\n"
	  "options:\n"
	  "      --tcp-port N       TCP port of the out-of-band exchange (default 18515)\n"
	  "      --bind ADDR        listener: the address to listen on (default 0.0.0.0, every IPv4 address)\n"
	  "      --wait S           listener: give up when no probe completes within S seconds (default 600; 0: never)\n"
	  "  -C, --ca NAME          RDMA device (default: the first with an active port)\n"
	  "  -P, --port N           its port (default: its first active port)\n"
	  "      --gid-index N      GID to use (default: RoCE takes the setup connection's address, else RoCE v2\n"
	  "                         with an IPv4 address; InfiniBand uses LIDs)\n"
	  "      --sl N             service level, 0-15 (default 0; RoCE: the VLAN priority)\n"
	  "      --tclass N         GRH traffic class, 0-255 (default 0; RoCE v2: DSCP x 4, e.g. 104 for DSCP 26)\n"
	  "      --pkey-index N     P_Key table entry of the queue pair (default 0)\n"
	  "      --dlid LID         InfiniBand across subnets: the router's LID, addressed by GID through it\n"
	  "      --op OP            send (send/recv, default), write (RDMA write), read (RDMA read), atomic (fetch-and-add)\n"
	  "      --bw               a bandwidth run instead of latency round trips\n"
	  "      --iters N          operations (default 1000)\n"
	  "      --size BYTES       bytes per operation, K and M suffixes (default 64; --bw 64K; atomic: 8)\n"
	  "      --timeout MS       deadline of every wait: completions, TCP messages (default 5000)\n"
	  "      --deadline S       end the probe session within S seconds of its connection, whatever the\n"
	  "                         peer sends (default 300)\n" VIEW_HELP,
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
	for (c = ibs_commands; c->name; c++)
		fprintf(out, "  %-10s %s\n", c->name, c->summary);
	fprintf(out, "  %-10s %s\n", "help", "Show help for a command: ibscan help COMMAND.");
	fprintf(out, "\nexit status: 0 ok, 1 findings, 2 usage error, 3 runtime failure or partial result\n"
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
		return EXIT_RUNTIME;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct cmd_desc *c;
	const char *name;

	sig_ignore_sigpipe();
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
		if (argc < 3)
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
		fprintf(stderr, "ibscan: error: unknown command '%s'\n", name);
		if (s)
			fprintf(stderr, "ibscan: hint: did you mean '%s'?\n", s);
		else
			fprintf(stderr, "ibscan: hint: see 'ibscan --help'\n");
		return EXIT_USAGE;
	}
	return finish(c->fn(argc - 1, argv + 1));
}
