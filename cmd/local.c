/* `ibscan local`: this host's RDMA devices, ports, GID tables and IPoIB interfaces, read from sysfs. */
#include "cli.h"
#include "cmds.h"
#include "../core/base/log.h"
#include "../output/hostinfo.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_SYSFS = OPT_CMD_BASE };

struct local_job {
	const struct ibs_host *h;
	bool json;
};

static int write_local(FILE *out, void *ctx)
{
	struct local_job *j = ctx;
	struct emit *e = emit_new(j->json ? EMIT_JSON : EMIT_TEXT);
	int rc;

	render_local(e, j->h);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

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
	struct local_job j;
	enum ibs_err err;
	char *msg = NULL;
	int rc;

	rc = cli_parse(cmd, &c, argc, argv, sysfs_opt, &sysfs);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	rc = cli_text_or_json(cmd, &c, &j.json);
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
	j.h = h;
	rc = cli_write_output(&c, write_local, &j);
	ibs_host_free(h);
	return rc;
}
