/* The one render entry of cmd/: view x format -> the renderer of output/, written through cli_write_output. */
#include "render.h"
#include "cli.h"
#include "../core/base/log.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../output/counters.h"
#include "../output/diff.h"
#include "../output/draw.h"
#include "../output/health.h"
#include "../output/hostinfo.h"
#include "../output/capinfo.h"
#include "../output/pcap.h"
#include "../output/ping.h"
#include "../output/prom.h"
#include "../output/netfile.h"
#include "../output/plan.h"
#include "../output/slurm.h"
#include "../output/topo.h"
#include "../output/report.h"
#include "../output/route.h"
#include "../output/routecheck.h"
#include "../output/svg.h"

#include <stdlib.h>
#include <string.h>

/* The names of enum cli_fmt, as --format takes them. */
static const char *const fmt_names[] = { "text", "json", "prom", "dot", "svg", "netfile", "slurm", "html", "pcap", "plan", "slurm-block", "slurm-yaml" };

int cli_format(const struct cmd_desc *cmd, const struct cli_common *c, enum cli_fmt *fmt)
{
	struct strbuf sb = STRBUF_INIT;
	const char *name = cmd->formats[0];
	size_t i, n;
	int rc = CLI_PARSED;

	for (n = 0; cmd->formats[n]; n++)
		if (c->format && !strcmp(c->format, cmd->formats[n]))
			name = cmd->formats[n];
	if (c->format && strcmp(c->format, name)) {
		for (i = 0; i < n; i++)
			sb_addf(&sb, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", cmd->formats[i]);
		rc = cli_usage_error(cmd, "unknown format '%s' (%s)", c->format, sb_str(&sb));
		sb_free(&sb);
	}
	*fmt = CLI_F_TEXT;
	for (i = 0; i < sizeof(fmt_names) / sizeof(fmt_names[0]); i++)
		if (!strcmp(name, fmt_names[i]))
			*fmt = (enum cli_fmt)i;
	/* The drawing options change a drawing only: with another format they would do nothing. */
	if (rc == CLI_PARSED && c->group_hosts_set && *fmt != CLI_F_DOT && *fmt != CLI_F_SVG && *fmt != CLI_F_HTML)
		rc = cli_usage_error(cmd, "--group-hosts and --all-hosts go with --format dot or svg, not %s", name);
	if (rc == CLI_PARSED && c->panels && *fmt != CLI_F_DOT && *fmt != CLI_F_SVG && *fmt != CLI_F_HTML)
		rc = cli_usage_error(cmd, "--panels goes with --format dot or svg, not %s", name);
	if (rc == CLI_PARSED) {
		enum render_draw_panels p;
		rc = cli_draw_panels(cmd, c, &p);
	}
	return rc;
}

int cli_draw_panels(const struct cmd_desc *cmd, const struct cli_common *c, enum render_draw_panels *out)
{
	*out = RENDER_PANELS_RAIL;
	if (c->panels && !render_draw_panels_parse(c->panels, out))
		return cli_usage_error(cmd, "--panels wants rail, su or none, not '%s'", c->panels);
	return CLI_PARSED;
}

int cli_text_or_json(const struct cmd_desc *cmd, const struct cli_common *c, bool *json)
{
	enum cli_fmt fmt;
	int rc = cli_format(cmd, c, &fmt);

	*json = fmt == CLI_F_JSON;
	return rc;
}

/* The views rendered through struct emit (text and JSON). */
static void emit_view(struct emit *e, const struct cli_render *r)
{
	switch (r->view) {
	case CLI_V_TOPOLOGY:
		render_topology(e, r->f, r->run);
		break;
	case CLI_V_NODES:
		render_nodes(e, r->f, r->run);
		break;
	case CLI_V_LINKS:
		render_links(e, r->f, r->run);
		break;
	case CLI_V_SM:
		render_sm(e, r->f, r->run);
		break;
	case CLI_V_HEALTH:
		render_health(e, r->f, r->fs);
		break;
	case CLI_V_COUNTERS:
		render_counters(e, r->f, r->run, r->fs);
		break;
	case CLI_V_DIFF:
		render_diff(e, r->a, r->b, r->diff);
		break;
	case CLI_V_ROUTE:
		render_route(e, r->route);
		break;
	case CLI_V_LFTS:
		render_lfts(e, r->lfts, r->n);
		break;
	case CLI_V_PATH:
		render_path_record(e, r->path);
		break;
	case CLI_V_LOCAL:
		render_local(e, r->host);
		break;
	case CLI_V_PING:
		render_ping(e, r->ping);
		break;
	case CLI_V_CAPTURE:
		render_capture_info(e, r->a, r->cap);
		break;
	case CLI_V_REPORT:
		break;
	case CLI_V_PLAN_DIFF:
		render_plan_diff(e, r->a, r->b, r->fs);
		break;
	case CLI_V_RCHECK:
		render_routecheck(e, r->rcheck);
		break;
	case CLI_V_RTHROUGH:
		render_route_through(e, r->f, r->rcheck, r->node, (uint8_t)r->n);
		break;
	case CLI_V_RJOB:
		render_route_job(e, r->rcheck);
		break;
	}
}

/* Every format but the drawings: 0, or -1 when a write failed. */
static int write_view(FILE *out, void *ctx)
{
	const struct cli_render *r = ctx;
	struct emit *e;
	int rc;

	switch (r->fmt) {
	case CLI_F_NETFILE:
		return render_netfile(out, r->f);
	case CLI_F_SLURM:
		return render_slurm(out, r->f);
	case CLI_F_PLAN:
		return render_plan(out, r->f);
	case CLI_F_SLURM_BLOCK:
	case CLI_F_SLURM_YAML:
		return render_slurm_block(out, r->f, r->fmt == CLI_F_SLURM_YAML);
	case CLI_F_PROM:
		return r->view == CLI_V_COUNTERS ? render_counters_prom(out, r->f, r->run, r->fs)
						 : render_health_prom(out, r->f, r->run, r->fs);
	case CLI_F_HTML:
		return render_report(out, r->report);
	case CLI_F_PCAP:
		return render_pcap(out, r->cap);
	default:
		break;
	}
	e = emit_new_stream(r->fmt == CLI_F_JSON ? EMIT_JSON : EMIT_TEXT, out);
	emit_view(e, r);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

struct drawing_out {
	const char *data;
	size_t len;
};

static int write_buf(FILE *out, void *ctx)
{
	const struct drawing_out *b = ctx;

	fwrite(b->data, 1, b->len, out);
	return ferror(out) ? -1 : 0;
}

/*
 * The drawing of r->f (r->fs's findings on it): DOT, or SVG laid out by
 * libgvc; without a fabric, health's status line alone. Into *b (its bytes
 * in *d or *svg, both the caller's to free); 0, or -1 when said.
 */
static int drawing(const struct cli_common *c, const struct cli_render *r, struct render_drawing *d,
		   struct drawing_out *b, char **svg)
{
	struct render_draw_opts o = { .fs = r->fs, .group_min = c->group_hosts, .heat = r->heat };
	char *err = NULL;

	if (c->panels)
		render_draw_panels_parse(c->panels, &o.panels); /* cli_format said whether it is one */
	*svg = NULL;
	if (r->f) {
		render_drawing_build(d, r->f, &o);
	} else {
		char *line = render_health_status_line(NULL, r->fs), *perf = strstr(line, " |");
		if (perf)
			*perf = '\0'; /* the performance data are for plugins, not pictures */
		render_drawing_status(d, line);
		if (r->fmt == CLI_F_SVG)
			*svg = render_status_svg(line, &b->len);
		free(line);
	}
	b->data = d->dot;
	b->len = *svg ? b->len : d->dot_len;
	if (*svg) {
		b->data = *svg;
	} else if (r->fmt == CLI_F_SVG) {
		*svg = render_drawing_svg(d, &b->len, &err);
		if (!*svg) {
			log_error("cannot draw the fabric as SVG: %s", err);
			free(err);
			render_drawing_free(d);
			return -1;
		}
		b->data = *svg;
	}
	return 0;
}

static int write_drawing(const struct cli_common *c, const struct cli_render *r)
{
	struct render_drawing d;
	struct drawing_out b;
	char *svg;
	int rc;

	/* Laid out before the output is opened: a layout failure leaves no half-written file. */
	if (drawing(c, r, &d, &b, &svg))
		return EXIT_RUNTIME;
	rc = cli_write_output(c, write_buf, &b);
	free(svg);
	render_drawing_free(&d);
	return rc;
}

int cli_render(const struct cli_common *c, const struct cli_render *r)
{
	if (r->fmt == CLI_F_DOT || r->fmt == CLI_F_SVG)
		return write_drawing(c, r);
	return cli_write_output(c, write_view, (void *)r);
}

char *cli_render_mem(const struct cli_common *c, const struct cli_render *r, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *fp = open_memstream(&buf, &n);
	int rc;

	if (!fp)
		xalloc_die();
	if (r->fmt == CLI_F_DOT || r->fmt == CLI_F_SVG) {
		struct render_drawing d;
		struct drawing_out b;
		char *svg;
		rc = drawing(c, r, &d, &b, &svg);
		if (!rc) {
			rc = write_buf(fp, &b);
			free(svg);
			render_drawing_free(&d);
		}
	} else {
		rc = write_view(fp, (void *)r);
	}
	if (fclose(fp) != 0)
		xalloc_die(); /* a memory stream fails only for want of memory */
	if (rc) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}
