/* The fabric side of a command: the session its options describe, walked, and what to say about the result. */
#include "cli.h"
#include "signals.h"
#include "../core/base/log.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"
#include "../fabric/load/namemap.h"
#include "../fabric/model/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Options that the chosen source would silently ignore: a usage error (reported). */
static bool options_conflict(const struct cli_common *c)
{
	const char *src = c->replay ? "--replay" : "--load-cache";
	char *rows;

	if ((c->replay != NULL) + (c->record != NULL) + (c->load_cache != NULL) > 1) {
		log_error("--replay, --record and --load-cache cannot be used together");
		return true;
	}
	/* Given, whatever its value: -P 0 (the first active port) reads a device as much as -P 1 does. */
	if ((c->replay || c->load_cache) && cli_given_with(c, CLI_F_DEVICE)) {
		rows = cli_rows_with(CLI_F_DEVICE);
		log_error("%s reads no device: %s do not apply", src, rows);
		free(rows);
		return true;
	}
	if (c->load_cache && cli_given_with(c, CLI_F_SENDS)) {
		rows = cli_rows_with(CLI_F_SENDS);
		log_error("--load-cache sends no MADs: %s do not apply", rows);
		free(rows);
		return true;
	}
	if (c->replay_strict && !c->replay) {
		log_error("--replay-strict goes with --replay");
		return true;
	}
	if (c->record_times && !c->record) {
		log_error("--record-times goes with --record");
		return true;
	}
	return false;
}

/*
 * "; not discovered: the node behind port P of 'NAME' (GUID), ..." for every
 * node a partial walk could not reach (they are named by where they are:
 * nothing of theirs answered), or "".
 */
static char *missing_nodes(const struct ibs_fabric *f)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < f->n_errors; i++) {
		const struct ibs_walk_error *er = &f->errors[i];
		if (ibs_walk_error_hides_neighbour(er))
			sb_addf(&sb, "%s the node behind port %u of '%s' (%s)", sb.len ? "," : "; not discovered:",
				er->port, ibs_node_name(er->node), er->node->guid_name);
	}
	return sb_detach(&sb);
}

/*
 * A port whose M_Key protection refuses the key ibscan sent drops the SMP
 * without an answer (IBA 14.2.4.1, as the kernel's own SMAs do; it may send
 * the SM a Bad M_Key trap): to ibscan the fabric ends there in timeouts.
 * Name the first port behind which SMPs went unanswered.
 */
static void mkey_hint(const struct ibs_fabric *f, bool mkey_given)
{
	const struct ibs_walk_error *sminfo = NULL;
	size_t i;

	for (i = 0; i < f->n_errors; i++) {
		const struct ibs_walk_error *er = &f->errors[i];
		if (er->outcome != IBS_MAD_TIMEOUT || !er->node ||
		    (er->mgmt_class != IBS_CLASS_SMI_DR && er->mgmt_class != IBS_CLASS_SMI))
			continue;
		/*
		 * SMInfo is answered by a running SM, not by the port's agent: a
		 * port that answered the walk's other SMPs and not SMInfo has no
		 * SM running any more, whatever its M_Key.
		 */
		if (er->attr_id == IBS_ATTR_SM_INFO) {
			sminfo = sminfo ? sminfo : er;
			continue;
		}
		log_hint("SMPs %s port %u of '%s' (%s) got no answer: a port protected by an M_Key drops SMPs "
			 "whose M_Key does not match, silently; %s",
			 er->unreachable ? "through" : "to", er->port, ibs_node_name(er->node), er->node->guid_name,
			 mkey_given ? "check the --m-key given" : "if the fabric uses M_Keys, give --m-key KEY");
		return;
	}
	if (sminfo)
		log_hint("the subnet manager at port %u of '%s' (%s), which the ports name as theirs, did not answer "
			 "SMInfo: it has stopped or hangs (the subnet keeps its last routes, but nothing brings new "
			 "ports up); 'sminfo' asks the same",
			 sminfo->port, ibs_node_name(sminfo->node), sminfo->node->guid_name);
}

void cli_say_no_lids(const struct ibs_run *run)
{
	if (run->no_lids && run->local_state)
		log_error("PMA counters could not be read: the local port is %s, not Active (no GMP leaves it)",
			  ibs_port_state_str(run->local_state));
	else if (run->no_lids)
		log_error("PMA counters could not be read: no port has a LID (is a subnet manager running?)");
}

void cli_report_partial(const struct cli_common *c, const struct ibs_fabric *f, const struct ibs_run *run)
{
	size_t i, ports = 0, silent = 0;
	unsigned p;
	char *why, *missing = missing_nodes(f);

	for (i = 0; i < f->n_nodes; i++)
		for (p = 0; p <= f->nodes[i]->ni.num_ports; p++) {
			const struct ibs_port_counters *pc = f->nodes[i]->ports[p].ctr;
			ports += pc != NULL;
			silent += pc && !pc->ok;
		}
	if (run->aborted)
		why = xasprintf("the walk stopped early (%s)", run->abort_reason);
	else if (f->n_errors)
		why = xasprintf("%zu quer%s got no valid answer (listed in the output)", f->n_errors,
				f->n_errors == 1 ? "y" : "ies");
	else if (silent)
		why = xasprintf("the PMA of %zu of %zu ports did not answer (listed in the output)", silent, ports);
	else
		why = xstrdup("part of the fabric did not answer");
	/* Stopped early (--deadline, a signal, a strict replay): that is the cause, not what the capture lacks. */
	if (run->replay_misses && !run->aborted)
		log_error("the result is partial: %s; the capture held no answer for %zu of the requests (recorded by "
			  "another command, or with other options?)%s",
			  why, run->replay_misses, missing);
	else
		log_error("the result is partial: %s%s", why, missing);
	if (!run->replay_misses)
		mkey_hint(f, c->mkey_set && !c->replay); /* --m-key given for a live walk */
	free(why);
	free(missing);
}

/*
 * What the map got wrong without being refused (a GUID named twice), said
 * once a run for as long as the map says the same: diff and health
 * --baseline name two fabrics with one map, and the exporter reads it at
 * every sweep (an edited map's new warnings are said at the sweep that
 * reads it).
 */
static void say_namemap_warnings(struct cli_run *r, const struct ibs_namemap *map)
{
	struct strbuf sb = STRBUF_INIT;
	const char *const *warns;
	size_t i, n = ibs_namemap_warnings(map, &warns);

	for (i = 0; i < n; i++)
		sb_addf(&sb, "%s\n", warns[i]);
	if (r->names_said && !strcmp(r->names_said, sb_str(&sb))) {
		sb_free(&sb);
		return;
	}
	for (i = 0; i < n; i++)
		log_warn("%s", warns[i]);
	free(r->names_said);
	r->names_said = sb_detach(&sb);
}

/* --node-name-map, if given: EXIT_OK with *map set (or NULL), or EXIT_RUNTIME (reported). */
static int load_namemap(struct cli_run *r, const struct cli_common *c, struct ibs_namemap **map)
{
	char *msg = NULL;

	*map = NULL;
	if (c->namemap && ibs_namemap_load(c->namemap, map, &msg)) {
		log_error("%s", msg);
		free(msg);
		return EXIT_RUNTIME;
	}
	say_namemap_warnings(r, *map);
	return EXIT_OK;
}

int cli_name_nodes(struct cli_run *r, const struct cli_common *c, struct ibs_fabric *f)
{
	struct ibs_namemap *map;

	if (load_namemap(r, c, &map))
		return EXIT_RUNTIME;
	if (map) {
		ibs_namemap_apply(map, f);
		ibs_namemap_free(map);
	}
	return EXIT_OK;
}

/* The progress line of the walk under way, the run's (struct cli_run). */
static void show_progress(void *ctx, const struct ibs_fabric *f, const struct ibs_engine_stats *s)
{
	struct cli_run *r = ctx;

	/* Only walks longer than a second deserve a progress line. */
	if (!r->progress_on || s->elapsed_ms < 1000)
		return;
	fprintf(stderr, "\ribscan: walking: %zu nodes, %llu MADs sent, %llu timeouts ", f->n_nodes,
		(unsigned long long)s->sent, (unsigned long long)s->timeouts);
	r->progress_shown = true;
}

int cli_walk_begin(struct cli_run *r, const struct cli_common *c, struct ibs_session **out)
{
	struct ibs_session_opts so;
	struct ibs_walk_opts wo;
	enum ibs_err rc;

	*out = NULL;
	/* c->walked is the session's to free from here, even when none opens. */
	if (options_conflict(c)) {
		ibs_fabric_free(c->walked);
		return EXIT_USAGE;
	}
	memset(&so, 0, sizeof(so));
	if (load_namemap(r, c, &so.names)) {
		ibs_fabric_free(c->walked);
		return EXIT_RUNTIME;
	}
	so.src.ca = c->ca;
	so.src.mkey = c->mkey;
	so.src.port = c->port;
	so.src.replay = c->replay;
	so.src.replay_strict = c->replay_strict;
	so.src.cache = c->load_cache;
	so.src.record = c->record;
	so.src.record_times = c->record_times;
	so.engine.window = c->window;
	so.engine.timeout_ms = c->timeout_ms;
	so.engine.retries = c->retries;
	so.engine.max_per_node = c->max_per_node;
	so.engine.fixed_timeout = c->fixed_timeout;
	so.engine.deadline_ms = cli_deadline_ms(c);
	so.window_set = c->window_set;
	so.timeout_set = c->timeout_set;
	so.retries_set = c->retries_set;
	so.walked = c->walked;
	so.needs = c->needs | (c->gids ? IBS_LACK_GUIDINFO : 0) | (c->reset_counters ? IBS_LACK_PMA : 0);
	sig_arm_watchdog(c->deadline_s); /* the walk's own deadline, from now */
	rc = ibs_session_open(&so, out);
	if (rc) {
		sig_disarm_watchdog();
		/* A cache asked for what it cannot hold is a usage error; a capture that lacks it is not. */
		return rc == IBS_E_INVAL && c->load_cache ? EXIT_USAGE : EXIT_RUNTIME;
	}
	memset(&wo, 0, sizeof(wo));
	wo.gids = c->gids;
	wo.sm = true;
	r->progress_on = c->progress || isatty(STDERR_FILENO);
	r->progress_shown = false;
	wo.progress = show_progress;
	wo.progress_ctx = r;
	rc = ibs_session_walk(*out, &wo);
	if (rc == IBS_OK && c->want_counters) {
		struct ibs_counter_opts co = { .reset = c->reset_counters, .extended = c->ext_counters, .tick = c->want_tick };
		ibs_session_read_counters(*out, &co, c->interval_s);
	}
	return EXIT_OK;
}

int cli_run_end(struct cli_run *r, int rc)
{
	free(r->names_said);
	r->names_said = NULL;
	/* --record's capture could not be written whole: a run that otherwise went well exits 3. */
	return rc == EXIT_OK && r->record_failed ? EXIT_RUNTIME : rc;
}

int cli_walk_end(struct cli_run *r, const struct cli_common *c, struct ibs_session *s, struct ibs_fabric **out,
		 struct ibs_run *run)
{
	struct ibs_fabric *f;
	enum ibs_err rc;

	if (r->progress_shown)
		fputs("\r\033[K", stderr);
	r->progress_shown = false;
	rc = ibs_session_end(s);
	ibs_session_take(s, &f, run);
	ibs_session_close(s);
	*out = f;
	r->record_failed |= run->record_failed;
	sig_disarm_watchdog();
	if (c->load_cache)
		return EXIT_OK;
	if (rc == IBS_E_DEADLINE)
		log_error("the walk did not finish within --deadline %.3g s: the result is partial", c->deadline_s);
	else if (rc == IBS_E_TRANSPORT && c->replay)
		; /* a replay stops only where the capture fails it (--replay-strict, its index): it said why */
	else if (rc == IBS_E_TRANSPORT)
		log_error("the transport failed during the walk (did the device or the simulator go away?): "
			  "the result is partial");
	else if (rc && (rc != IBS_E_TIMEOUT || f->n_nodes)) /* else the walker said why: no local node */
		log_error("the walk failed: %s", ibs_strerror(rc));
	if (f->n_nodes == 0) {
		ibs_fabric_free(f);
		ibs_run_free(run);
		*out = NULL;
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

int cli_walk(struct cli_run *r, const struct cli_common *c, struct ibs_fabric **out, struct ibs_run *run)
{
	struct ibs_session *s;
	int rc = cli_walk_begin(r, c, &s);

	*out = NULL;
	memset(run, 0, sizeof(*run));
	return rc ? rc : cli_walk_end(r, c, s, out, run);
}

int cli_walk_tables(struct cli_run *r, const struct cli_common *c, bool tables, struct ibs_fabric **out,
		    struct ibs_run *run, struct ibs_lft **lfts, size_t *n, const struct ibs_rc_opts *ro,
		    struct ibs_routecheck *check)
{
	struct ibs_session *s;
	bool checked = false;
	int rc;

	if (!tables)
		return cli_walk(r, c, out, run);
	*out = NULL;
	memset(run, 0, sizeof(*run));
	rc = cli_walk_begin(r, c, &s);
	if (rc)
		return rc;
	if (ibs_session_status(s) == IBS_OK && ibs_session_fabric(s)->n_nodes &&
	    ibs_session_read_lfts(s, lfts, n) == IBS_OK && check) {
		/* On the session, as routes --check: the SL2VL and the SA's SLs it needs. */
		ibs_session_routecheck(s, *lfts, *n, ro, check);
		checked = true;
	}
	rc = cli_walk_end(r, c, s, out, run);
	if (rc) {
		if (checked)
			ibs_routecheck_free(check);
		return rc;
	}
	if (check && !checked)
		ibs_routecheck_opts(*out, *lfts, *n, ro, check); /* what the tables read say, nothing more asked */
	return 0;
}
