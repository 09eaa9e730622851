/*
 * Thresholds for health: counters (the defaults in ibs_counter_defs) and
 * the routing checks (route.imbalance, route.not_updown) and
 * counters.congested (a percentage of the time); one "Name=N"
 * from the command line, or a file of them.
 */
#include "health.h"
#include "../../core/base/file.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ibs_thresholds_default(struct ibs_thresholds *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < ibs_n_counter_defs; i++)
		t->t[i] = ibs_counter_defs[i].threshold;
	t->route_imbalance = IBS_ROUTE_IMBALANCE_DEFAULT;
	t->route_not_updown = 0;
	t->congested = IBS_CONGESTED_DEFAULT;
}

enum ibs_err ibs_thresholds_set(struct ibs_thresholds *t, const char *spec, char **msg)
{
	const char *eq = strchr(spec, '=');
	char name[64], *end;
	const struct ibs_counter_def *d;
	unsigned long long v;

	if (!eq || (size_t)(eq - spec) >= sizeof(name)) {
		*msg = xasprintf("threshold '%s': want Name=N (e.g. SymbolErrorCounter=100)", spec);
		return IBS_E_INPUT;
	}
	memcpy(name, spec, (size_t)(eq - spec));
	name[eq - spec] = '\0';
	while (*name && isspace((unsigned char)name[strlen(name) - 1]))
		name[strlen(name) - 1] = '\0';
	d = ibs_counter_find(name);
	if (!d && strcmp(name, "route.imbalance") && strcmp(name, "route.not_updown") && strcmp(name, "counters.congested")) {
		*msg = xasprintf("threshold '%s': unknown counter '%s'", spec, name);
		return IBS_E_INPUT;
	}
	eq++;
	while (isspace((unsigned char)*eq))
		eq++;
	errno = 0;
	v = strtoull(eq, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || end == eq || *end || *eq == '-') {
		*msg = xasprintf("threshold '%s': want a whole number", spec);
		return IBS_E_INPUT;
	}
	if (!d)
		*(!strcmp(name, "route.imbalance")    ? &t->route_imbalance
		  : !strcmp(name, "counters.congested") ? &t->congested
							: &t->route_not_updown) = v;
	else
		t->t[d - ibs_counter_defs] = v;
	return IBS_OK;
}

enum ibs_err ibs_thresholds_parse(const char *name, const char *buf, size_t len, struct ibs_thresholds *t,
				  char **msg)
{
	size_t pos = 0;
	unsigned ln = 0;

	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;
		char line[256], *p, *e;
		char *m = NULL;

		ln++;
		pos += ll + (nl ? 1 : 0);
		if (ll >= sizeof(line)) {
			*msg = xasprintf("%s:%u: line too long", name, ln);
			return IBS_E_INPUT;
		}
		memcpy(line, s, ll);
		line[ll] = '\0';
		if (memchr(s, '\0', ll)) {
			*msg = xasprintf("%s:%u: NUL byte (binary file?)", name, ln);
			return IBS_E_INPUT;
		}
		if ((e = strchr(line, '#')))
			*e = '\0';
		for (p = line; isspace((unsigned char)*p); p++)
			;
		if (!*p)
			continue;
		if (ibs_thresholds_set(t, p, &m)) {
			*msg = xasprintf("%s:%u: %s", name, ln, m);
			free(m);
			return IBS_E_INPUT;
		}
	}
	return IBS_OK;
}

enum ibs_err ibs_thresholds_load(const char *path, struct ibs_thresholds *t, char **msg)
{
	char *buf;
	size_t n;
	enum ibs_err rc = ibs_read_file(path, 1 << 20, &buf, &n, msg);

	if (rc)
		return rc;
	rc = ibs_thresholds_parse(path, buf, n, t, msg);
	free(buf);
	return rc;
}

