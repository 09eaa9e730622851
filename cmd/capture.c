/* `ibscan capture info FILE` and `ibscan capture export FILE -o OUT.pcap`. */
#include "cli.h"
#include "cmds.h"
#include "../core/capture.h"
#include "../core/log.h"
#include "../output/pcapx.h"

#include <stdlib.h>
#include <string.h>

struct capjob {
	const char *path;
	const struct ibs_capture *c;
	bool json;
};

static int write_info(FILE *out, void *ctx)
{
	struct capjob *j = ctx;
	struct emit *e = emit_new_stream(j->json ? EMIT_JSON : EMIT_TEXT, out);
	int rc;

	render_capture_info(e, j->path, j->c);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

static int write_pcap(FILE *out, void *ctx)
{
	struct capjob *j = ctx;
	return render_pcap(out, j->c);
}

int cmd_capture(int argc, char **argv)
{
	static const struct option opts[] = { CLI_OUTPUT_OPTIONS, CLI_BASE_OPTIONS, { NULL, 0, NULL, 0 } };
	const struct cmd_desc *cmd = cmd_find("capture");
	struct cli_common c;
	struct ibs_capture *cap;
	struct capjob j;
	const char *sub;
	char *msg = NULL;
	int rc;

	rc = cli_parse(cmd, &c, argc, argv, ":o:hvq", opts, NULL, NULL);
	if (rc != CLI_PARSED)
		return rc;
	if (optind >= argc)
		return cli_usage_error(cmd, "missing subcommand (info or export)");
	sub = argv[optind++];
	if (strcmp(sub, "info") && strcmp(sub, "export"))
		return cli_usage_error(cmd, "unknown subcommand '%s' (info or export)", sub);
	if (optind >= argc)
		return cli_usage_error(cmd, "missing capture file");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	j.json = false;
	if (c.format) {
		if (!strcmp(sub, "export"))
			return cli_usage_error(cmd, "export writes pcap only; --format is for info");
		if (!strcmp(c.format, "json"))
			j.json = true;
		else if (strcmp(c.format, "text"))
			return cli_usage_error(cmd, "unknown format '%s' (text or json)", c.format);
	}
	if (!strcmp(sub, "export") && !c.output)
		return cli_usage_error(cmd, "export needs -o OUT.pcap");
	j.path = argv[optind];
	if (ibs_capture_load(j.path, &cap, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	j.c = cap;
	rc = cli_write_output(&c, !strcmp(sub, "info") ? write_info : write_pcap, &j);
	ibs_capture_free(cap);
	return rc;
}
