/* The Prometheus renderers of `ibscan health` and `ibscan counters`. */
#ifndef IBSCAN_OUT_PROM_H
#define IBSCAN_OUT_PROM_H

#include <stdbool.h>
#include <stdio.h>

#include "../fabric/check/health.h"
#include "../fabric/walk/run.h"

/*
 * Prometheus text exposition format; f and run may be NULL when the run
 * failed (ibscan_up 0). -1 on a write error.
 */
int render_health_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run, const struct ibs_findings *fs);
/* The counters, and ibscan_findings of the checks judged from them where fs is not NULL. */
int render_counters_prom(FILE *out, const struct ibs_fabric *f, const struct ibs_run *run,
			 const struct ibs_findings *fs);

/* How the exporter's sweeps went, as a scrape says it (cmd/exporter.c). */
struct prom_sweep_status {
	bool have_data;          /* a sweep has completed: its metrics follow */
	bool last_ok;            /* the latest sweep completed (else its data are the older sweep's) */
	bool full_walk;          /* the sweep served walked the fabric (else counters only) */
	double duration_s;       /* of the sweep served */
	double timestamp_s;      /* when it ended, Unix time */
	double age_s;            /* seconds since then, at the scrape */
	double last_duration_s;  /* of the latest sweep, served or not */
	unsigned long long sweeps, failures;
};
/*
 * The exporter's own metrics (ibscan_last_sweep_success, ibscan_sweep_*,
 * and ibscan_up 0 when no sweep has completed yet), as a string the caller
 * frees; *len its length.
 */
char *render_exporter_status(const struct prom_sweep_status *st, size_t *len);

#endif
