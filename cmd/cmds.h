/*
 * Every subcommand: int cmd_foo(argc, argv) returns the exit status (argv[0]
 * is the command name), and foo_opts, its own options and help (see options.h).
 */
#ifndef IBSCAN_CMDS_H
#define IBSCAN_CMDS_H

#include "options.h"

int cmd_topology(int argc, char **argv);
int cmd_nodes(int argc, char **argv);
int cmd_links(int argc, char **argv);
int cmd_sm(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_local(int argc, char **argv);
int cmd_ping(int argc, char **argv);
int cmd_health(int argc, char **argv);
int cmd_counters(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_route(int argc, char **argv);
int cmd_routes(int argc, char **argv);
int cmd_path(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_exporter(int argc, char **argv);

extern const struct cli_opt topology_opts[], view_opts[], health_opts[], counters_opts[], report_opts[],
	diff_opts[], route_opts[], routes_opts[], capture_opts[], local_opts[], ping_opts[], fleet_opts[], exporter_opts[];

#endif
