/* The HTML report: one self-contained page built from the JSON views' documents and the SVG map. */
#ifndef IBSCAN_REPORT_H
#define IBSCAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "draw.h"
#include "../fabric/check/health.h"
#include "../fabric/model/model.h"
#include "../fabric/walk/route.h"
#include "../fabric/check/routecheck.h"
#include "../fabric/walk/run.h"

#define IBS_REPORT_SCHEMA "ibscan.report/1"

struct report_in {
	const struct ibs_fabric *f;
	const struct ibs_run *run;
	const struct ibs_findings *fs;
	const char *source_kind; /* "live", "replay" or "cache" */
	const char *source;      /* "mlx5_0 port 1", or the file read */
	time_t when;             /* when it was taken */
	bool counters;           /* PMA counters were read */
	const char *svg;         /* the map (an SVG document), or NULL: the page says there is none */
	const struct render_drawing *drawing; /* which element of the map each node and port is, or NULL */
	const struct ibs_routecheck *routes;  /* report --routing: the route check, or NULL */
	const struct ibs_lft *lfts;           /* and the tables it read (a forwarding loop traced for the map) */
	size_t n_lfts;
};

/*
 * Write the page: summary, map with pan and zoom, search, node details and
 * findings. The data are the topology, health and counters JSON documents,
 * each in a <script type="application/json"> element, escaped so that no
 * string can end that element or be read as markup (one over 1 MiB
 * deflated and in base64, docs/json-schema.md). Every script and style
 * is inline and named by hash in the page's Content-Security-Policy, which
 * allows nothing else: no network, no other script. -1 on a write error.
 */
int render_report(FILE *out, const struct report_in *in);

/*
 * output/report_routes.c: the links of each credit loop and of each
 * forwarding loop (one per switch, its first LID traced through the
 * tables), as the page's ibs-routes document.
 */
struct emit *report_routes_doc(const struct report_in *in);

/*
 * output/report_svg.c: the map as the page inlines it, written to out: the SVG element on,
 * without the XML declaration, doctype and comments, and slimmed (each element's <title>,
 * the tooltips' anchors and the attributes every label shares left out: the page's style
 * sets those); the tooltips, by the id of the node, edge or cluster they were on, into
 * *tips (an object, the page's ibs-tips document; NULL when there is no map).
 */
void report_put_svg(FILE *out, const char *svg, struct emit **tips);

#endif
