/*
 * `ibscan exporter`: a long-running Prometheus exporter. One thread sweeps
 * the fabric at --interval (a full walk every --walk-every sweeps, the
 * counters of the fabric walked last in between), one sweep at a time, and
 * publishes each complete sweep as one document; libmicrohttpd's threads
 * serve the latest from memory (cmd/exporter_http.c); the main thread
 * waits for signals: SIGTERM or SIGINT end it cleanly, SIGHUP reloads the
 * thresholds (the node-name map is read at every sweep) and sweeps now.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include "cli.h"
#include "cmds.h"
#include "exporter.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"
#include "../fabric/check/health.h"
#include "../fabric/load/state.h"
#include "../output/prom.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
	OPT_LISTEN = OPT_CMD_BASE,
	OPT_EINTERVAL,
	OPT_WALK_EVERY,
	OPT_WEB_CONFIG,
	OPT_MAX_CONN,
	OPT_CONN_TIMEOUT,
	/* --thresholds and --threshold: the checks rows (options.h); the file is reread on SIGHUP here. */
};

#define EXP_DEFAULT_LISTEN "127.0.0.1:9684"
#define EXP_DEFAULT_INTERVAL 60
#define EXP_DEFAULT_WALK_EVERY 10
#define EXP_DEFAULT_MAX_CONN 64
#define EXP_DEFAULT_CONN_TIMEOUT 10
#define EXP_MAX_SPECS 64

struct exp_args {
	const char *listen, *web_config, *thresholds;
	double interval_s;
	unsigned walk_every, max_conn, conn_timeout_s;
	const char *specs[EXP_MAX_SPECS]; /* --threshold, in order (reapplied on SIGHUP) */
	unsigned n_specs;
};

#define AT(field) offsetof(struct exp_args, field)
#define UROW(lname, oid, argname, text, field, lo_, hi_, want_)                                                    \
	{ .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = CLI_K_UINT, .at = AT(field),       \
	  .given_at = CLI_NOT_TRACKED, .lo = (lo_), .hi = (hi_), .want = (want_) }

const struct cli_opt exporter_opts[] = {
	CLI_TEXT("options:\n"),
	{ .name = "listen", .id = OPT_LISTEN, .arg = "ADDR:PORT",
	  .help = "where to serve /metrics and /healthz (default " EXP_DEFAULT_LISTEN ";\n"
		  ":PORT is every address; port 0 picks a free one, said on stderr)",
	  .kind = CLI_K_STR, .at = AT(listen), .given_at = CLI_NOT_TRACKED },
	CLI_OWN("interval", OPT_EINTERVAL, "S", "seconds from the start of one sweep to the next (default 60,\n0.05 to 86400)"),
	UROW("walk-every", OPT_WALK_EVERY, "N",
	     "walk the whole fabric every N sweeps, read only the counters between\n(default 10, 1-10000; 1: walk every sweep)",
	     walk_every, 1, 10000, "a number from 1 to 10000"),
	{ .name = "web-config", .id = OPT_WEB_CONFIG, .arg = "FILE",
	  .help = "Prometheus exporter-toolkit web config: TLS (cert_file, key_file),\nbasic_auth_users (bcrypt)",
	  .kind = CLI_K_STR, .at = AT(web_config), .given_at = CLI_NOT_TRACKED },
	UROW("max-connections", OPT_MAX_CONN, "N", "HTTP connections at once (default 64, 1-10000)", max_conn, 1, 10000,
	     "a number from 1 to 10000"),
	UROW("connection-timeout", OPT_CONN_TIMEOUT, "S", "close a connection idle this long (default 10, 1-3600)",
	     conn_timeout_s, 1, 3600, "seconds from 1 to 3600"),
	CLI_THRESHOLDS_ROW("counter thresholds, one Name=N per line (reread on SIGHUP)"),
	CLI_THRESHOLD_ROW(CLI_THRESHOLD_HELP),
	CLI_END,
};

static int exp_opt(int opt, const char *arg, void *ctx)
{
	struct exp_args *a = ctx;
	struct ibs_thresholds t;
	char *msg = NULL;

	switch (opt) {
	case OPT_EINTERVAL: {
		char *end;
		double v = strtod(arg, &end);
		if (end == arg || *end || !(v >= 0.05 && v <= 86400)) {
			cli_usage_error(cmd_find("exporter"), "--interval wants seconds from 0.05 to 86400, not '%s'", arg);
			return -1;
		}
		a->interval_s = v;
		return 1;
	}
	case OPT_THRESHOLDS:
		a->thresholds = arg;
		return 1;
	case OPT_THRESHOLD:
		ibs_thresholds_default(&t);
		if (ibs_thresholds_set(&t, arg, &msg)) {
			cli_usage_error(cmd_find("exporter"), "%s", msg);
			free(msg);
			return -1;
		}
		if (a->n_specs == EXP_MAX_SPECS) {
			cli_usage_error(cmd_find("exporter"), "more than %d --threshold", EXP_MAX_SPECS);
			return -1;
		}
		a->specs[a->n_specs++] = arg;
		return 1;
	}
	return 0;
}

/* The thresholds: defaults, the file, then each --threshold. 0, or -1 (said; *t untouched). */
static int load_thresholds(const struct exp_args *a, struct ibs_thresholds *t)
{
	struct ibs_thresholds n;
	char *msg = NULL;
	unsigned i;

	ibs_thresholds_default(&n);
	if (a->thresholds && ibs_thresholds_load(a->thresholds, &n, &msg)) {
		log_error("%s", msg);
		free(msg);
		return -1;
	}
	for (i = 0; i < a->n_specs; i++)
		if (ibs_thresholds_set(&n, a->specs[i], &msg)) {
			log_error("%s", msg);
			free(msg);
			return -1;
		}
	*t = n;
	return 0;
}

static double now_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void doc_free(struct exp_doc *d)
{
	if (d) {
		free(d->body);
		gz_tail_free(&d->gz);
		free(d);
	}
}

struct exp_doc *exp_doc_get(struct exporter *x, struct prom_sweep_status *st)
{
	struct exp_doc *d;

	pthread_mutex_lock(&x->mu);
	d = x->doc;
	if (d)
		d->refs++;
	memset(st, 0, sizeof(*st));
	st->have_data = d != NULL;
	st->last_ok = x->last_ok;
	st->last_duration_s = x->last_duration_s;
	st->sweeps = x->sweeps;
	st->failures = x->failures;
	if (d) {
		st->full_walk = d->full_walk;
		st->duration_s = d->duration_s;
		st->timestamp_s = d->end_unix;
		st->age_s = now_s(CLOCK_MONOTONIC) - d->end_mono;
	}
	pthread_mutex_unlock(&x->mu);
	return d;
}

void exp_doc_put(struct exporter *x, struct exp_doc *d)
{
	bool last;

	if (!d)
		return;
	pthread_mutex_lock(&x->mu);
	last = --d->refs == 0;
	pthread_mutex_unlock(&x->mu);
	if (last)
		doc_free(d);
}

/* The sweeping thread's own state (only it touches these). */
struct sweeper {
	struct exporter *x;
	struct exp_args *a;
	struct cli_common c;
	struct cli_run run; /* the exporter's one run: every sweep's walk */
	struct ibs_thresholds thr;
	struct ibs_fabric *walked; /* the fabric the last full walk found, for the counters-only sweeps */
	/*
	 * The last complete sweep's readings (bounded as health --state's file
	 * is), so that each sweep is judged, and XmitWait made a share, on what
	 * changed since: health --state's comparison, kept in memory.
	 */
	struct ibs_state last;
	unsigned since_walk;       /* counters-only sweeps since it */
};

/* The metrics of a complete sweep, or NULL when it cannot be rendered (said). */
static struct exp_doc *render_doc(const struct ibs_fabric *f, const struct ibs_run *run,
				  const struct ibs_findings *fs)
{
	struct exp_doc *d = xcalloc(1, sizeof(*d));
	FILE *m = open_memstream(&d->body, &d->len);

	if (!m || render_health_prom(m, f, run, fs) || fclose(m)) {
		log_error("cannot render the metrics: %s", strerror(errno));
		doc_free(d);
		return NULL;
	}
	/* Once per sweep, here in the sweeping thread: a scrape that asks gzip only deflates its status lines. */
	if (gz_tail_make(d->body, d->len, &d->gz))
		log_warn("cannot compress the metrics (zlib): serving them uncompressed");
	return d;
}

/* This sweep's readings become the ones the next sweep is compared with. */
static void keep_last(struct sweeper *s, const struct ibs_fabric *f, int64_t now)
{
	size_t len;
	char *msg = NULL, *text = ibs_state_format(f, &s->last, now, &len);
	struct ibs_state next;

	if (ibs_state_parse("the last sweep's readings", text, len, &next, &msg) == IBS_OK) {
		ibs_state_free(&s->last);
		s->last = next;
	} else {
		log_error("%s", msg);
		free(msg);
	}
	free(text);
}

/* One sweep: walk (or read the counters of the fabric walked last), check, render, publish. */
static void sweep(struct sweeper *s)
{
	struct exporter *x = s->x;
	struct ibs_fabric *f = NULL;
	struct ibs_run run;
	struct ibs_findings fs;
	struct ibs_health_opts ho;
	struct exp_doc *d = NULL, *old = NULL;
	bool full = !s->walked || s->since_walk + 1 >= s->a->walk_every || s->c.replay || s->c.load_cache;
	double t0 = now_s(CLOCK_MONOTONIC), dt;
	char *why = NULL;
	int rc;

	pthread_mutex_lock(&x->mu);
	x->sweeps++;
	x->sweeping = true;
	pthread_mutex_unlock(&x->mu);
	if (full) {
		ibs_fabric_free(s->walked);
		s->c.walked = NULL;
	} else {
		s->c.walked = s->walked; /* the session takes it over */
	}
	s->walked = NULL;
	rc = cli_walk(&s->run, &s->c, &f, &run);
	s->c.walked = NULL;
	if (rc != EXIT_OK || !f) {
		why = xstrdup("the fabric could not be read");
	} else if (run.aborted) {
		why = xasprintf("the sweep stopped early: %s", run.abort_reason ? run.abort_reason : "?");
	} else {
		memset(&ho, 0, sizeof(ho));
		ho.thresholds = &s->thr;
		ho.counters = true;
		ho.now = (int64_t)time(NULL);
		ho.state = &s->last;
		ibs_state_apply(&s->last, f, ho.now);
		ibs_health_check(f, &run, &ho, &fs);
		d = render_doc(f, &run, &fs);
		ibs_findings_free(&fs);
		if (!d)
			why = xstrdup("the metrics could not be rendered");
		else if (run.counters_read)
			keep_last(s, f, ho.now);
	}
	dt = now_s(CLOCK_MONOTONIC) - t0;
	if (d) {
		d->refs = 1;
		d->full_walk = full;
		d->duration_s = dt;
		d->end_unix = now_s(CLOCK_REALTIME);
		d->end_mono = now_s(CLOCK_MONOTONIC);
		/* A counters-only sweep that finds ports silent may be seeing a changed fabric: walk next. */
		s->since_walk = full ? 0 : s->since_walk + 1;
		if (f->partial)
			s->since_walk = s->a->walk_every;
		s->walked = f;
		f = NULL;
	} else {
		log_error("sweep %llu failed: %s; serving the previous sweep's metrics", x->sweeps, why);
	}
	ibs_fabric_free(f);
	if (rc == EXIT_OK)
		ibs_run_free(&run);
	pthread_mutex_lock(&x->mu);
	x->sweeping = false;
	x->last_ok = d != NULL;
	x->last_duration_s = dt;
	if (d) {
		old = x->doc;
		x->doc = d;
		free(x->last_error);
		x->last_error = NULL;
	} else {
		x->failures++;
		free(x->last_error);
		x->last_error = why;
		why = NULL;
	}
	pthread_mutex_unlock(&x->mu);
	exp_doc_put(x, old);
	free(why);
}

static void *sweeper_main(void *arg)
{
	struct sweeper *s = arg;
	struct exporter *x = s->x;

	for (;;) {
		double next = now_s(CLOCK_MONOTONIC) + s->a->interval_s;
		struct timespec ts;
		bool reload;

		sweep(s);
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
		pthread_mutex_lock(&x->mu);
		while (!x->stop && !x->reload)
			if (pthread_cond_timedwait(&x->wake, &x->mu, &ts) == ETIMEDOUT)
				break;
		reload = x->reload;
		x->reload = false;
		if (x->stop) {
			pthread_mutex_unlock(&x->mu);
			break;
		}
		pthread_mutex_unlock(&x->mu);
		if (reload && load_thresholds(s->a, &s->thr) == 0) {
			log_warn("SIGHUP: thresholds reloaded; sweeping now (the node-name map is read at every sweep)");
			s->since_walk = s->a->walk_every; /* names and all: walk */
			/* As a restart would: the next sweep is judged on its totals, by the new thresholds. */
			ibs_state_free(&s->last);
		}
	}
	ibs_fabric_free(s->walked);
	s->walked = NULL;
	ibs_state_free(&s->last);
	cli_run_end(&s->run, EXIT_OK);
	return NULL;
}

static int serve(struct sweeper *s, const struct exp_http_opts *ho)
{
	struct exporter *x = s->x;
	struct exp_http *h;
	pthread_t th;
	sigset_t set;
	struct timespec until;
	int sig = 0;

	/* Every thread started from here blocks these: the main thread takes them with sigwait. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (exp_http_start(x, ho, &h))
		return EXIT_RUNTIME;
	if (pthread_create(&th, NULL, sweeper_main, s)) {
		log_error("cannot start the sweeping thread");
		exp_http_stop(h);
		return EXIT_RUNTIME;
	}
	for (;;) {
		if (sigwait(&set, &sig))
			continue;
		if (sig != SIGHUP)
			break;
		pthread_mutex_lock(&x->mu);
		x->reload = true;
		pthread_cond_signal(&x->wake);
		pthread_mutex_unlock(&x->mu);
	}
	pthread_mutex_lock(&x->mu);
	x->stop = true;
	pthread_cond_signal(&x->wake);
	pthread_mutex_unlock(&x->mu);
	exp_http_stop(h);
	/* A sweep under way ends by its own deadline; do not wait for it past a few seconds. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 3;
	if (pthread_timedjoin_np(th, NULL, &until)) {
		log_warn("%s: stopped during a sweep", sig == SIGTERM ? "SIGTERM" : "SIGINT");
		return EXIT_OK;
	}
	if (log_get_level() >= LOG_WARN)
		fprintf(stderr, "ibscan: exporter: %s: stopped\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	return EXIT_OK;
}

int cmd_exporter(int argc, char **argv)
{
	const struct cmd_desc *cmd = cmd_find(argv[0]);
	/* Static: a sweep still under way at SIGTERM may outlive this function until the process exits. */
	static struct exp_args a;
	static struct exporter x;
	static struct sweeper s;
	struct exp_http_opts ho;
	pthread_condattr_t ca;
	int rc;

	memset(&a, 0, sizeof(a));
	a.listen = EXP_DEFAULT_LISTEN;
	a.interval_s = EXP_DEFAULT_INTERVAL;
	a.walk_every = EXP_DEFAULT_WALK_EVERY;
	a.max_conn = EXP_DEFAULT_MAX_CONN;
	a.conn_timeout_s = EXP_DEFAULT_CONN_TIMEOUT;
	memset(&s, 0, sizeof(s));
	rc = cli_parse(cmd, &s.c, argc, argv, exp_opt, &a);
	if (rc != CLI_PARSED)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (s.c.record)
		return cli_usage_error(cmd, "--record writes one run's capture: not for the exporter's sweeps");
	if (load_thresholds(&a, &s.thr))
		return EXIT_RUNTIME;
	s.c.want_counters = true;
	s.c.ext_counters = true;
	s.c.want_tick = true; /* PortXmitWait's rise since the last sweep as a share of the time */
	memset(&x, 0, sizeof(x));
	pthread_mutex_init(&x.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the wait between sweeps ignores clock steps */
	pthread_cond_init(&x.wake, &ca);
	pthread_condattr_destroy(&ca);
	s.x = &x;
	s.a = &a;
	ho.listen = a.listen;
	ho.max_conn = a.max_conn;
	ho.timeout_s = a.conn_timeout_s;
	ho.web_config = a.web_config;
	rc = serve(&s, &ho);
	if (!x.sweeping) {
		doc_free(x.doc);
		free(x.last_error);
	}
	return rc;
}
