/*
 * What `ibscan exporter`'s two halves share: the sweeps (cmd/exporter.c)
 * publish each complete sweep's metrics as one document, and the HTTP
 * server (cmd/exporter_http.c) serves the latest from memory. A document is
 * immutable once published and reference-counted: a scrape holds the one it
 * took while the next sweep replaces it, so a scrape never waits on the
 * fabric and never sees half a sweep.
 */
#ifndef IBSCAN_CMD_EXPORTER_H
#define IBSCAN_CMD_EXPORTER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "../core/base/gzip.h"
#include "../output/prom.h"

/* One complete sweep's metrics (immutable; freed with its last reference). */
struct exp_doc {
	char *body;
	size_t len;
	/*
	 * body deflated once, when the sweep is rendered (gz.data NULL where
	 * zlib failed: served uncompressed), for the scrapes that accept gzip.
	 */
	struct gz_tail gz;
	unsigned refs; /* under struct exporter's mu */
	bool full_walk;
	double duration_s;
	double end_unix;   /* when the sweep ended, Unix time */
	double end_mono;   /* the same, CLOCK_MONOTONIC seconds (for its age) */
};

struct exporter {
	pthread_mutex_t mu;
	pthread_cond_t wake;        /* the sweeper's wait between sweeps: stop, reload */
	struct exp_doc *doc;        /* the latest complete sweep, or NULL (none yet) */
	bool last_ok;               /* the latest sweep completed */
	double last_duration_s;
	char *last_error;           /* why the latest sweep failed, or NULL */
	unsigned long long sweeps, failures;
	bool stop, reload;          /* asked by the signal thread */
	bool sweeping;              /* a sweep is under way */
};

/* Take a reference to the latest document (NULL: none yet) and the status a scrape reports with it. */
struct exp_doc *exp_doc_get(struct exporter *x, struct prom_sweep_status *st);
void exp_doc_put(struct exporter *x, struct exp_doc *d);

struct exp_http_opts {
	const char *listen;        /* ADDR:PORT, [V6ADDR]:PORT or :PORT */
	unsigned max_conn;         /* connections at once */
	unsigned timeout_s;        /* a connection idle this long is closed */
	const char *web_config;    /* exporter-toolkit web config file, or NULL */
};
struct exp_http;

/*
 * Parse the web config file (TLS, basic auth) and start serving /metrics
 * and /healthz from x in MHD's own thread. 0, or -1 (said).
 */
int exp_http_start(struct exporter *x, const struct exp_http_opts *o, struct exp_http **out);
void exp_http_stop(struct exp_http *h);

#endif
