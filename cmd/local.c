/*
 * `ibscan local`: this host's RDMA devices, ports, GID tables and IPoIB
 * interfaces, read from sysfs; with --check, whether the host is ready for
 * GPU jobs (a monitoring-plugin verdict), with --nccl-env the NCCL settings.
 */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/file.h"
#include "../core/base/log.h"
#include "../host/hostcheck.h"
#include "../host/hostinfo.h"
#include "../output/emit.h"
#include "../output/hostcheck.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_SYSFS = OPT_CMD_BASE, OPT_CHECK, OPT_NCCL_ENV };

struct local_ctx {
	const char *sysfs;
	const char *profile; /* the shared --profile (struct cli_common's) */
	bool check, nccl_env;
};
#define AT(field) offsetof(struct local_ctx, field)

static int sysfs_opt(int opt, const char *arg, void *ctx)
{
	if (opt != OPT_SYSFS)
		return 0;
	if (!*arg) {
		cli_usage_error(cmd_find("local"), "--sysfs wants a directory");
		return -1;
	}
	((struct local_ctx *)ctx)->sysfs = arg;
	return 1;
}

const struct cli_opt local_opts[] = {
	CLI_TEXT("options:\n"),
	CLI_OWN("sysfs", OPT_SYSFS, "DIR", "read DIR laid out like /sys instead of /sys"),
	{ .name = "check", .id = OPT_CHECK, .kind = CLI_K_FLAG, .at = AT(check), .given_at = CLI_NOT_TRACKED,
	  .help = "is the host ready for GPU jobs: rails Active at their rate, one RoCE v2 GID index,\n"
		  "VF GUIDs, PCIe training, NUMA; exits 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN" },
	{ .name = "nccl-env", .id = OPT_NCCL_ENV, .kind = CLI_K_FLAG, .at = AT(nccl_env), .given_at = CLI_NOT_TRACKED,
	  .help = "print NCCL_IB_HCA, NCCL_IB_GID_INDEX, NCCL_SOCKET_IFNAME and UCX_NET_DEVICES\n"
		  "(for 'set -a; . FILE' or /etc/nccl.conf); exit 1 when the rails share no GID index" },
	CLI_SHARED("format", OPT_FORMAT, "F", "text (default) or json; with --check also prom"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_END,
};

struct check_out {
	enum cli_fmt fmt;
	const struct ibs_hostcheck *hc;
	const char *socket_ifname;
	const char *unknown; /* why the check could not run, or NULL */
};

static int write_check(FILE *out, void *ctx)
{
	const struct check_out *o = ctx;
	struct emit *e;
	int rc;

	if (o->unknown)
		return render_hostcheck_unknown(out, o->fmt == CLI_F_JSON ? 1 : o->fmt == CLI_F_PROM ? 2 : 0, o->unknown);
	if (o->fmt == CLI_F_PROM)
		return render_hostcheck_prom(out, o->hc);
	e = emit_new_stream(o->fmt == CLI_F_JSON ? EMIT_JSON : EMIT_TEXT, out);
	render_hostcheck(e, o->hc);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

static int write_env(FILE *out, void *ctx)
{
	const struct check_out *o = ctx;

	return render_nccl_env(out, o->hc, o->socket_ifname);
}

static enum ibs_err load_profile(const char *path, struct ibs_host_profile **p, char **msg)
{
	char *buf;
	size_t len;
	enum ibs_err err;

	if (!path) {
		*p = ibs_host_profile_new();
		return IBS_OK;
	}
	err = ibs_read_file(path, IBS_PROFILE_MAX_BYTES, &buf, &len, msg);
	if (err)
		return err;
	err = ibs_host_profile_parse(path, buf, len, p, msg);
	free(buf);
	return err;
}

/* --check and --nccl-env: the host against its profile. */
static int check_host(const struct cli_common *c, const struct local_ctx *lc, enum cli_fmt fmt, struct ibs_host *h,
		      const char *why)
{
	struct ibs_host_profile *p = NULL;
	struct check_out o = { .fmt = fmt, .unknown = why };
	struct ibs_hostcheck *hc = NULL;
	char *msg = NULL;
	int rc;

	if (!o.unknown && load_profile(lc->profile, &p, &msg)) {
		log_error("%s", msg);
		o.unknown = msg;
	}
	if (o.unknown) {
		/* The verdict goes where the output goes, so a file kept up to date never keeps the last one. */
		if (!lc->nccl_env)
			(void)cli_write_output(c, write_check, &o);
		free(msg);
		return EXIT_RUNTIME;
	}
	hc = ibs_hostcheck_run(h, p);
	o.hc = hc;
	o.socket_ifname = p->socket_ifname;
	if (lc->nccl_env) {
		if (!hc->n_rails) {
			log_error("no rail: %s", p->n_rails ? "no device the profile names" : "no device has an Active port");
			rc = EXIT_FINDINGS;
		} else if (hc->gid_refusal) {
			log_error("%s", hc->gid_refusal);
			log_hint("NCCL needs one index on every rail; the kernel fills each GID table in the order the netdev's "
				 "addresses came, so give each rail its IPv4 address the same way ('ibscan local' lists the tables)");
			rc = EXIT_FINDINGS;
		} else {
			rc = cli_write_output(c, write_env, &o);
		}
	} else {
		rc = cli_write_output(c, write_check, &o);
		if (rc == EXIT_OK)
			rc = (int)hc->verdict;
	}
	ibs_hostcheck_free(hc);
	ibs_host_profile_free(p);
	return rc;
}

static bool wants_check(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--check"))
			return true;
	return false;
}

/* --check speaks the monitoring-plugin language even about its own usage: 3 UNKNOWN. */
#define USAGE(rc) plugin_usage(rc, argc, argv)
static int plugin_usage(int rc, int argc, char **argv)
{
	return rc == EXIT_USAGE && wants_check(argc, argv) ? 3 : rc;
}

int cmd_local(int argc, char **argv)
{
	const struct cmd_desc *cmd = cmd_find("local");
	struct local_ctx lc = { .sysfs = "/sys" };
	struct cli_common c;
	struct ibs_host *h = NULL;
	struct cli_render r = { .view = CLI_V_LOCAL };
	enum cli_fmt fmt;
	enum ibs_err err;
	char *msg = NULL;
	int rc;

	rc = cli_parse(cmd, &c, argc, argv, sysfs_opt, &lc);
	if (rc != CLI_PARSED)
		return USAGE(rc);
	if (optind < argc)
		return USAGE(cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]));
	rc = cli_format(cmd, &c, &fmt);
	if (rc != CLI_PARSED)
		return USAGE(rc);
	lc.profile = c.profile;
	if (lc.check && lc.nccl_env)
		return USAGE(cli_usage_error(cmd, "--check and --nccl-env are two runs: give one"));
	if (lc.profile && !lc.check && !lc.nccl_env)
		return USAGE(cli_usage_error(cmd, "--profile goes with --check or --nccl-env"));
	if (fmt == CLI_F_PROM && !lc.check)
		return USAGE(cli_usage_error(cmd, "--format prom goes with --check"));
	if (lc.nccl_env && c.format)
		return USAGE(cli_usage_error(cmd, "--nccl-env writes NAME=value lines: no --format"));
	err = ibs_host_load(lc.sysfs, &h, &msg);
	if (err) {
		log_error("%s", msg);
		if (err == IBS_E_NODEV)
			log_hint("this host has no RDMA device or its driver is not loaded (e.g. 'modprobe mlx5_ib'); "
				 "in a VM or container the device must be passed through; --sysfs DIR reads another tree");
		if (lc.check)
			check_host(&c, &lc, fmt, NULL, msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	if (lc.check || lc.nccl_env) {
		rc = check_host(&c, &lc, fmt, h, NULL);
		ibs_host_free(h);
		return rc;
	}
	r.fmt = fmt;
	r.host = h;
	rc = cli_render(&c, &r);
	ibs_host_free(h);
	return rc;
}

