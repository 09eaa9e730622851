/* `ibscan fleet FILE...`: many hosts' `local --json` merged into one cluster-wide verdict (monitoring-plugin exit codes). */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/file.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"
#include "../host/fleet.h"
#include "../host/hostcheck.h"
#include "../host/hostjson.h"
#include "../output/emit.h"
#include "../output/fleet.h"

#include <stdlib.h>
#include <string.h>

#define FLEET_MAX_HOSTS 100000

const struct cli_opt fleet_opts[] = {
	CLI_TEXT("  FILE...                each host's 'ibscan local' JSON (gpu07.json: gpu07)\n"
		 "                         exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN\noptions:\n"),
	CLI_SHARED("format", OPT_FORMAT, "F", "text (default) or json"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_END,
};

struct fleet_out {
	const struct ibs_fleet *f;
	bool json;
};

static int write_fleet(FILE *out, void *ctx)
{
	const struct fleet_out *o = ctx;
	struct emit *e = emit_new_stream(o->json ? EMIT_JSON : EMIT_TEXT, out);
	int rc;

	render_fleet(e, o->f);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

/* UNKNOWN, said where the output goes (so a file kept by cron never keeps the last verdict). */
static int unknown(const struct cmd_desc *cmd, const char *why)
{
	(void)cmd;
	printf("IBSCAN FLEET UNKNOWN - %s\n", why);
	return IBS_HC_UNKNOWN;
}

static struct ibs_host_profile *load_profile(const char *path, char **msg)
{
	struct ibs_host_profile *p = NULL;
	char *buf;
	size_t len;

	if (!path)
		return ibs_host_profile_new();
	if (ibs_read_file(path, IBS_PROFILE_MAX_BYTES, &buf, &len, msg))
		return NULL;
	if (ibs_host_profile_parse(path, buf, len, &p, msg))
		p = NULL;
	free(buf);
	return p;
}

int cmd_fleet(int argc, char **argv)
{
	const struct cmd_desc *cmd = cmd_find("fleet");
	struct cli_common c;
	struct ibs_host_profile *p;
	struct ibs_fleet *f;
	struct fleet_out o;
	char *msg = NULL;
	int rc, i;

	rc = cli_parse(cmd, &c, argc, argv, NULL, NULL);
	if (rc != CLI_PARSED)
		return rc == EXIT_USAGE ? unknown(cmd, "usage error (see 'ibscan help fleet')") : rc;
	rc = cli_text_or_json(cmd, &c, &o.json);
	if (rc != CLI_PARSED)
		return unknown(cmd, "usage error (see 'ibscan help fleet')");
	if (optind >= argc) {
		cli_usage_error(cmd, "fleet wants the hosts' 'ibscan local --json' files");
		return unknown(cmd, "usage error (see 'ibscan help fleet')");
	}
	if (argc - optind > FLEET_MAX_HOSTS) {
		cli_usage_error(cmd, "more than %d host files", FLEET_MAX_HOSTS);
		return unknown(cmd, "usage error (see 'ibscan help fleet')");
	}
	p = load_profile(c.profile, &msg);
	if (!p) {
		log_error("%s", msg);
		rc = unknown(cmd, msg);
		free(msg);
		return rc;
	}
	f = ibs_fleet_new();
	for (i = optind; i < argc; i++) {
		struct ibs_host *h = NULL;
		char *buf = NULL;
		size_t len;
		msg = NULL;
		if (!ibs_read_file(argv[i], IBS_HOSTJSON_MAX_BYTES, &buf, &len, &msg))
			ibs_host_parse_json(argv[i], buf, len, &h, &msg);
		if (!h)
			log_error("%s", msg);
		ibs_fleet_add(f, argv[i], h, h ? NULL : msg);
		free(buf);
		free(msg);
	}
	ibs_fleet_compare(f, p);
	o.f = f;
	rc = cli_write_output(&c, write_fleet, &o);
	if (rc == EXIT_OK)
		rc = (int)f->verdict;
	else
		rc = IBS_HC_UNKNOWN;
	ibs_fleet_free(f);
	ibs_host_profile_free(p);
	return rc;
}
