/* `ibscan route SRC DST`, `ibscan routes --dump|--check|--through|--nodes` and `ibscan path SRC DST`. */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"
#include "../fabric/walk/route.h"
#include "../fabric/check/routecheck.h"
#include "../fabric/check/hostlist.h"
#include "../fabric/model/names.h"
#include "../core/base/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum { OPT_DUMP = OPT_CMD_BASE, OPT_CHECK, OPT_THROUGH, OPT_NODES };

enum kind { K_ROUTE, K_ROUTES, K_PATH };

struct rjob {
	enum kind kind;
	const char *src, *dst;
	bool json;
	int status;            /* exit status decided after the walk */
	struct ibs_route route;
	bool have_route;
	struct ibs_lft *lfts;
	size_t n_lfts;
	struct ibs_path_record pr;
	bool have_pr;
	bool dump;             /* routes --dump */
	bool check;            /* routes --check */
	const char *through;   /* routes --through NODE[:PORT] */
	const char *nodes;     /* routes --nodes HOSTLIST */
	struct ibs_routecheck rc;
	bool have_rc;
	const struct ibs_node *thr_node;
	uint8_t thr_port;
	bool *job;
	const char *replay;    /* the capture replayed, if any */
};

/* A replay answers only what its capture recorded: say so beside a query that got no answer. */
static const char *replay_note(const struct rjob *j)
{
	return j->replay ? " (a replay answers only what the capture recorded)" : "";
}

/*
 * The query, on the session that walked: what it needs of the fabric, and
 * the exit status it decides. A failure that stops the run (deadline,
 * transport) is the session's: cli_walk_end says so.
 */
static void query(struct ibs_session *s, struct rjob *j)
{
	struct ibs_fabric *f = ibs_session_fabric(s);
	const struct ibs_node *sn, *dn;
	uint8_t sp, dp;
	uint16_t sl, dl;
	char *msg = NULL;
	enum ibs_err rc;
	enum ibs_outcome oc;
	uint16_t st;

	if (j->kind == K_ROUTES) {
		/* --check: on the session, which reads the SL2VL it needs. */
		if (ibs_session_read_lfts(s, &j->lfts, &j->n_lfts) == IBS_OK && j->check) {
			ibs_session_routecheck(s, j->lfts, j->n_lfts, NULL, &j->rc);
			j->have_rc = true;
		}
		return;
	}
	if (ibs_fabric_resolve(f, j->src, &sn, &sp, &sl, &msg) ||
	    (free(msg), msg = NULL, ibs_fabric_resolve(f, j->dst, &dn, &dp, &dl, &msg))) {
		/* Not found in a partial walk may be in the part that did not answer. */
		log_error("%s%s", msg, f->partial ? "; the walk is partial: it may be behind what did not answer" : "");
		free(msg);
		j->status = f->partial ? EXIT_RUNTIME : EXIT_USAGE;
		return;
	}
	if (j->kind == K_ROUTE) {
		rc = ibs_session_trace_route(s, sn, sp, dl, &j->route);
		if (rc == IBS_OK) {
			j->have_route = true;
			j->status = j->route.result == IBS_ROUTE_OK ? EXIT_OK : EXIT_FINDINGS;
			if (j->route.result == IBS_ROUTE_UNREAD)
				j->status = EXIT_RUNTIME;
		}
		return;
	}
	if (!f->local.sm_lid) {
		log_error("no subnet administrator to ask: the local port has SM LID 0");
		log_hint("no subnet manager has configured this port yet: is one running? ('ibscan sm', sminfo)");
		j->status = EXIT_RUNTIME;
		return;
	}
	rc = ibs_session_query_path(s, sl, dl, &j->pr, &oc, &st);
	if (rc == IBS_OK) {
		j->have_pr = true;
	} else if (rc != IBS_E_DEADLINE && rc != IBS_E_TRANSPORT) {
		if (oc == IBS_MAD_STATUS)
			log_error("the SA refused the PathRecord query from LID %u to LID %u: status 0x%04x (%s)", sl, dl,
				  st, ibs_mad_status_str(st));
		else
			log_error("the SA at LID %u did not answer the PathRecord query (%s)%s", f->local.sm_lid,
				  ibs_outcome_str(oc), replay_note(j));
		j->status = EXIT_RUNTIME;
	}
}

/* The route, the tables or the path record, as asked. */
static int render(const struct cli_common *c, const struct rjob *j, const struct ibs_fabric *f)
{
	struct cli_render r = { .fmt = j->json ? CLI_F_JSON : CLI_F_TEXT, .n = j->n_lfts };

	if (j->kind == K_ROUTE)
		r.view = CLI_V_ROUTE, r.route = &j->route;
	else if (j->kind == K_ROUTES && j->check)
		r.view = CLI_V_RCHECK, r.rcheck = &j->rc;
	else if (j->kind == K_ROUTES && j->through)
		r.view = CLI_V_RTHROUGH, r.rcheck = &j->rc, r.f = f, r.node = j->thr_node, r.n = j->thr_port;
	else if (j->kind == K_ROUTES && j->nodes)
		r.view = CLI_V_RJOB, r.rcheck = &j->rc;
	else if (j->kind == K_ROUTES)
		r.view = CLI_V_LFTS, r.lfts = j->lfts;
	else
		r.view = CLI_V_PATH, r.path = &j->pr;
	return cli_render(c, &r);
}

/* The exit status once the answer is out, with one line on stderr for anything short of it. */
static int verdict(const struct cli_common *c, const struct rjob *j, const struct ibs_fabric *f,
		   const struct ibs_run *run)
{
	size_t i, bad = 0;

	for (i = 0; i < j->n_lfts; i++)
		bad += !j->lfts[i].ok;
	if (j->through || j->nodes) {
		if (bad)
			log_error("the forwarding tables of %zu of %zu switches could not be read completely", bad, j->n_lfts);
		if (f->partial)
			cli_report_partial(c, f, run);
		return bad || f->partial ? EXIT_RUNTIME : EXIT_OK;
	}
	if (j->check) {
		/* The monitoring-plugin verdict; a walk or a table short of the fabric is UNKNOWN unless already CRITICAL. */
		enum ibs_rc_status st = ibs_routecheck_status(&j->rc);
		if (bad)
			log_error("the forwarding tables of %zu of %zu switches could not be read completely", bad, j->n_lfts);
		if (f->partial) {
			cli_report_partial(c, f, run);
			if (st != IBS_RC_CRITICAL)
				st = IBS_RC_UNKNOWN;
		}
		return (int)st;
	}
	if (bad) {
		log_error("the forwarding tables of %zu of %zu switches could not be read completely (marked in the output)",
			  bad, j->n_lfts);
		return EXIT_RUNTIME;
	}
	if (j->have_route && j->route.result == IBS_ROUTE_UNREAD) {
		log_error("%s%s", j->route.why, replay_note(j));
		return EXIT_RUNTIME;
	}
	if (f->partial) {
		cli_report_partial(c, f, run);
		return EXIT_RUNTIME;
	}
	return j->status;
}

/* route and path. */
const struct cli_opt route_opts[] = {
	CLI_TEXT("SRC and DST: a LID, a node or port GUID (0x...), or a node name.\noptions:\n"),
	CLI_VIEW_ROWS,
	CLI_END,
};

const struct cli_opt routes_opts[] = {
	CLI_TEXT("options:\n"),
	{ .name = "dump", .id = OPT_DUMP, .help = "read and print every switch's LFT", .kind = CLI_K_FLAG,
	  .at = offsetof(struct rjob, dump), .given_at = CLI_NOT_TRACKED },
	{ .name = "through", .id = OPT_THROUGH, .arg = "NODE[:PORT]",
	  .help = "the CAs whose routes to or from any CA cross this cable", .kind = CLI_K_STR,
	  .at = offsetof(struct rjob, through), .given_at = CLI_NOT_TRACKED },
	{ .name = "nodes", .id = OPT_NODES, .arg = "HOSTLIST",
	  .help = "the links the routes among these hosts share, most first (Slurm hostlist)", .kind = CLI_K_STR,
	  .at = offsetof(struct rjob, nodes), .given_at = CLI_NOT_TRACKED },
	{ .name = "check", .id = OPT_CHECK,
	  .help = "check every route: reachability, loops, credit loops, balance (exit 0-3 as health)",
	  .kind = CLI_K_FLAG, .at = offsetof(struct rjob, check), .given_at = CLI_NOT_TRACKED },
	CLI_VIEW_ROWS,
	CLI_END,
};

/* --through's cable: NODE (a CA's port) or NODE:PORT; names may hold ':', so the whole spec is tried first. */
static int through_cable(const struct ibs_fabric *f, struct rjob *j)
{
	const char *spec = j->through, *colon = strrchr(spec, ':');
	const struct ibs_node *n;
	const struct ibs_port *p;
	uint16_t lid;
	uint8_t port;
	char *msg = NULL, *head;
	unsigned pn = 0;
	bool with_port = false;

	if (ibs_fabric_resolve(f, spec, &n, &port, &lid, &msg) != IBS_OK && colon && cli_parse_uint(colon + 1, 0, 254, &pn)) {
		free(msg);
		msg = NULL;
		head = xstrndup(spec, (size_t)(colon - spec));
		if (ibs_fabric_resolve(f, head, &n, &port, &lid, &msg) == IBS_OK) {
			port = (uint8_t)pn;
			with_port = true;
		}
		free(head);
	}
	if (msg) {
		log_error("--through: %s", msg);
		free(msg);
		return EXIT_USAGE;
	}
	if (n->ni.node_type == IBS_NODE_SWITCH && !with_port) {
		log_error("--through: '%s' is a switch: say which cable, as NAME:PORT", spec);
		return EXIT_USAGE;
	}
	p = ibs_node_port(n, port);
	if (!p || !p->peer) {
		log_error("--through: %s port %u has no cable", ibs_node_name(n), port);
		return EXIT_USAGE;
	}
	j->thr_node = n;
	j->thr_port = port;
	return EXIT_OK;
}

/* --nodes: every CA of each host the hostlist names (a name, or the first word of a CA's description). */
static int job_cas(const struct ibs_fabric *f, struct rjob *j)
{
	char **names, *msg = NULL;
	size_t n, i, k;
	int rc = EXIT_OK;

	if (ibs_hostlist_expand(j->nodes, &names, &n, &msg) != IBS_OK) {
		log_error("--nodes: %s", msg);
		free(msg);
		return EXIT_USAGE;
	}
	j->job = xcalloc(f->n_nodes + 1, sizeof(*j->job));
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]), hits = 0;
		for (k = 0; k < f->n_nodes; k++) {
			const struct ibs_node *c = f->nodes[k];
			const char *nm = ibs_node_name(c);
			if (c->ni.node_type == IBS_NODE_SWITCH)
				continue;
			if (!strcmp(nm, names[i]) || (!strncmp(nm, names[i], len) && nm[len] == ' ')) {
				j->job[k] = true;
				hits++;
			}
		}
		if (!hits && rc == EXIT_OK) {
			log_error("--nodes: no CA of a host '%s' in the fabric", names[i]);
			rc = f->partial ? EXIT_RUNTIME : EXIT_USAGE;
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

/* routes --check, --through, --nodes: the analysis of the tables read. */
static int analyse(const struct ibs_fabric *f, struct rjob *j)
{
	struct ibs_rc_opts o = { .through = NULL, .through_port = 0, .job = NULL, .vls = NULL };
	int rc;

	if (j->through && (rc = through_cable(f, j)) != EXIT_OK)
		return rc;
	if (j->nodes && (rc = job_cas(f, j)) != EXIT_OK)
		return rc;
	o.through = j->thr_node;
	o.through_port = j->thr_port;
	o.job = j->job;
	if (!j->have_rc)
		ibs_routecheck_opts(f, j->lfts, j->n_lfts, &o, &j->rc);
	j->have_rc = true;
	return EXIT_OK;
}

static int run(int argc, char **argv, enum kind kind)
{
	const struct cmd_desc *cmd = cmd_find(argv[0]);
	struct cli_common c;
	struct ibs_session *s;
	struct ibs_fabric *f;
	struct ibs_run run;
	struct rjob j;
	struct cli_run cr = CLI_RUN_INIT;
	int rc;

	memset(&j, 0, sizeof(j));
	j.kind = kind;
	rc = cli_parse(cmd, &c, argc, argv, NULL, &j);
	if (rc != CLI_PARSED)
		return rc;
	if (kind == K_ROUTES) {
		if (j.dump + j.check + !!j.through + !!j.nodes != 1)
			return cli_usage_error(cmd, "say what to do with the routes: one of --dump, --check, --through, --nodes");
		if (optind < argc)
			return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	} else {
		if (argc - optind != 2)
			return cli_usage_error(cmd, "want a source and a destination (LID, GUID or name)");
		j.src = argv[optind];
		j.dst = argv[optind + 1];
	}
	rc = cli_text_or_json(cmd, &c, &j.json);
	if (rc == CLI_PARSED)
		rc = cli_check_outputs(&c, NULL);
	if (rc != CLI_PARSED)
		return rc;
	c.needs = kind == K_PATH ? IBS_LACK_SA : IBS_LACK_LFT;
	j.replay = c.replay;
	rc = cli_walk_begin(&cr, &c, &s);
	if (rc)
		return cli_run_end(&cr, rc);
	if (ibs_session_status(s) == IBS_OK && ibs_session_fabric(s)->n_nodes)
		query(s, &j);
	rc = cli_walk_end(&cr, &c, s, &f, &run);
	if (!rc && !run.aborted && kind == K_ROUTES && !j.dump && (rc = analyse(f, &j)) != EXIT_OK) {
		ibs_fabric_free(f);
		ibs_run_free(&run);
	}
	if (rc) {
		ibs_routecheck_free(&j.rc);
		free(j.job);
		ibs_route_free(&j.route);
		ibs_lfts_free(j.lfts, j.n_lfts);
		return cli_run_end(&cr, rc);
	}
	if (run.aborted)
		rc = EXIT_RUNTIME; /* cli_walk said why */
	else if (!j.have_route && !j.have_pr && kind != K_ROUTES)
		rc = j.status ? j.status : EXIT_RUNTIME; /* after() said why */
	else if ((rc = render(&c, &j, f)) == EXIT_OK)
		rc = verdict(&c, &j, f, &run);
	ibs_route_free(&j.route);
	ibs_routecheck_free(&j.rc);
	free(j.job);
	ibs_lfts_free(j.lfts, j.n_lfts);
	ibs_fabric_free(f);
	ibs_run_free(&run);
	return cli_run_end(&cr, rc);
}

int cmd_route(int argc, char **argv)
{
	return run(argc, argv, K_ROUTE);
}

int cmd_routes(int argc, char **argv)
{
	return run(argc, argv, K_ROUTES);
}

int cmd_path(int argc, char **argv)
{
	return run(argc, argv, K_PATH);
}
