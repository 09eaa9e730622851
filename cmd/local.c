/* `ibscan local`: this host's RDMA devices, ports, GID tables and IPoIB interfaces, read from sysfs. */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"
#include "../fabric/hostinfo.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_SYSFS = OPT_CMD_BASE };

static int sysfs_opt(int opt, const char *arg, void *ctx)
{
	if (opt != OPT_SYSFS)
		return 0;
	if (!*arg) {
		cli_usage_error(cmd_find("local"), "--sysfs wants a directory");
		return -1;
	}
	*(const char **)ctx = arg;
	return 1;
}

const struct cli_opt local_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_OWN("sysfs", OPT_SYSFS, "DIR", "read DIR laid out like /sys instead of /sys"),
	CLI_VIEW_ROWS,
	CLI_END,
};

int cmd_local(int argc, char **argv)
{
	const struct cmd_desc *cmd = cmd_find("local");
	const char *sysfs = "/sys";
	struct cli_common c;
	struct ibs_host *h;
	struct cli_render r = { .view = CLI_V_LOCAL };
	bool json;
	enum ibs_err err;
	char *msg = NULL;
	int rc;

	rc = cli_parse(cmd, &c, argc, argv, sysfs_opt, &sysfs);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	rc = cli_text_or_json(cmd, &c, &json);
	if (rc != CLI_PARSED)
		return rc;
	err = ibs_host_load(sysfs, &h, &msg);
	if (err) {
		log_error("%s", msg);
		if (err == IBS_E_NODEV)
			log_hint("this host has no RDMA device or its driver is not loaded (e.g. 'modprobe mlx5_ib'); "
				 "in a VM or container the device must be passed through; --sysfs DIR reads another tree");
		free(msg);
		return EXIT_RUNTIME;
	}
	r.fmt = json ? CLI_F_JSON : CLI_F_TEXT;
	r.host = h;
	rc = cli_render(&c, &r);
	ibs_host_free(h);
	return rc;
}
