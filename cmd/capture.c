/*
 * `ibscan capture info FILE`, `ibscan capture export FILE -o OUT.pcap` and
 * `ibscan capture index FILE [-o IDX]`.
 */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/capture/index.h"
#include "../core/capture/format.h"
#include "../core/base/log.h"
#include "../core/base/text.h"
#include "../core/base/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The replay index of a capture, beside it (FILE.idx) unless -o says where.
 * The capture's identity is taken before and after reading it: a capture
 * being written meanwhile gets no index that would claim to match it.
 */
static int write_index(const struct cli_common *c, const char *path)
{
	struct ibs_capidx_src before, after;
	struct ibs_capture *cap;
	struct ibs_capidx *ix;
	char *out, *msg = NULL;
	int rc = EXIT_OK;

	if (!strcmp(path, "-"))
		return cli_usage_error(cmd_find("capture"), "index needs a capture file, not standard input");
	if (c->output && !strcmp(c->output, "-"))
		return cli_usage_error(cmd_find("capture"), "index writes a binary file: -o needs a file name");
	if (!ibs_capidx_src_of(path, &before)) {
		log_error("cannot read capture '%s': %s", path, strerror(errno));
		return EXIT_RUNTIME;
	}
	if (ibs_capture_load(path, &cap, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	if (!ibs_capidx_src_of(path, &after) || memcmp(&before, &after, sizeof(before))) {
		log_error("capture '%s' changed while it was read: no index written", path);
		ibs_capture_free(cap);
		return EXIT_RUNTIME;
	}
	if (ibs_capidx_build(cap, &after, &ix, &msg)) {
		log_error("%s: %s", path, msg);
		free(msg);
		ibs_capture_free(cap);
		return EXIT_RUNTIME;
	}
	out = c->output ? xstrdup(c->output) : xasprintf("%s%s", path, IBS_CAPIDX_SUFFIX);
	if (ibs_capidx_write(ix, out, &msg)) {
		if (msg)
			log_error("%s", msg);
		free(msg);
		rc = EXIT_RUNTIME;
	} else {
		log_info("%s: %zu attempts, %zu bytes", out, ibs_capidx_count(ix), ibs_capidx_size(ix));
	}
	free(out);
	ibs_capidx_free(ix);
	ibs_capture_free(cap);
	return rc;
}

const struct cli_opt capture_opts[] = {
	CLI_TEXT("subcommands:\n"
		 "  info FILE              local port, counts by class/attribute/method, outcomes,\n"
		 "                         nodes touched\n"
		 "  export FILE -o OUT     pcap (LINKTYPE_ERF, InfiniBand records) that\n"
		 "                         Wireshark/tshark decode\n"
		 "  index FILE [-o IDX]    write the replay index (default FILE.idx): --replay\n"
		 "                         FILE then maps it\n"
		 "options:\n"),
	CLI_SHARED("format", OPT_FORMAT, "F", "text (default) or json (info only)"),
	CLI_SHARED("json", OPT_JSON, NULL, "same as --format json"),
	CLI_OUTPUT_ROW,
	CLI_END,
};

int cmd_capture(int argc, char **argv)
{
	const struct cmd_desc *cmd = cmd_find("capture");
	struct cli_common c;
	struct ibs_capture *cap;
	struct cli_render r = { .view = CLI_V_CAPTURE };
	bool json;
	const char *sub;
	char *msg = NULL, *shown;
	int rc;

	rc = cli_parse(cmd, &c, argc, argv, NULL, NULL);
	if (rc != CLI_PARSED)
		return rc;
	if (optind >= argc)
		return cli_usage_error(cmd, "missing subcommand (info, export or index)");
	sub = argv[optind++];
	if (strcmp(sub, "info") && strcmp(sub, "export") && strcmp(sub, "index"))
		return cli_usage_error(cmd, "unknown subcommand '%s' (info, export or index)", sub);
	if (optind >= argc)
		return cli_usage_error(cmd, "missing capture file");
	if (optind + 1 < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	if (c.format && strcmp(sub, "info"))
		return cli_usage_error(cmd, "--format is for info only");
	rc = cli_text_or_json(cmd, &c, &json);
	if (rc != CLI_PARSED)
		return rc;
	if (!strcmp(sub, "export") && !c.output)
		return cli_usage_error(cmd, "export needs -o OUT.pcap");
	r.a = argv[optind];
	{
		/* The index goes beside the capture by default: that name may be the capture too (a symlink). */
		const struct cli_file in[] = { { "the capture", r.a }, { NULL, NULL } };
		struct cli_common oc = c;
		char *idx = NULL;
		if (!strcmp(sub, "index") && !c.output && strcmp(r.a, "-"))
			oc.output = idx = xasprintf("%s%s", r.a, IBS_CAPIDX_SUFFIX);
		rc = cli_check_outputs(&oc, in);
		free(idx);
		if (rc != CLI_PARSED)
			return rc;
	}
	if (!strcmp(sub, "index"))
		return write_index(&c, r.a);
	if (ibs_capture_load(r.a, &cap, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	r.fmt = strcmp(sub, "info") ? CLI_F_PCAP : json ? CLI_F_JSON : CLI_F_TEXT;
	r.cap = cap;
	/* info shows the file's name as given, cleaned as every string ibscan prints. */
	r.a = shown = ibs_text_clean(r.a, strlen(r.a));
	rc = cli_render(&c, &r);
	free(shown);
	ibs_capture_free(cap);
	return rc;
}
