/*
 * `health --state FILE`: reading, comparing and writing the last run's
 * counter readings. The file is untrusted input (bounded, parsed line by
 * line, errors name file:line) and must be this user's own and writable by
 * no one else: a reading another user planted would silence real errors.
 */
#include "state.h"
#include "../walk/counters.h"
#include "../../core/base/strbuf.h"
#include "../../core/base/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Version 2 adds an optional "vl=V0,...,V15" after a port's counters (its
 * PortVLXmitWaitCounters); version 1 files (no VL counters) are read as they are.
 */
#define MAGIC "ibscan-state 2"
#define MAGIC_V1 "ibscan-state 1"

void ibs_state_free(struct ibs_state *st)
{
	free(st->v);
	free(st->by_lid);
	memset(st, 0, sizeof(*st));
}

static int guid_cmp(const void *a, const void *b)
{
	const struct ibs_state_port *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

static const struct ibs_state *lid_sort_st; /* qsort has no context argument */

static int lid_cmp(const void *a, const void *b)
{
	const struct ibs_state_port *x = &lid_sort_st->v[*(const size_t *)a], *y = &lid_sort_st->v[*(const size_t *)b];

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

/* One unsigned decimal (or 0x hex for the GUID) field; advances *s past it and its blanks. */
static bool field(const char **s, const char *end, int base, uint64_t max, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	unsigned digits = 0;

	if (base == 16) {
		if (end - p < 2 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
			return false;
		p += 2;
	}
	for (; p < end; p++) {
		unsigned d;
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (d > max || x > (max - d) / (unsigned)base)
			return false;
		x = x * (unsigned)base + d;
		digits++;
	}
	if (!digits || (p < end && *p != ' '))
		return false;
	while (p < end && *p == ' ')
		p++;
	*s = p;
	*v = x;
	return true;
}

/* "vl=V0,...,V15" (each 0-65535) into e; advances *s to the end of the line. */
static bool vl_field(const char **s, const char *end, struct ibs_state_port *e)
{
	const char *p = *s;
	unsigned vl;

	if (end - p < 3 || memcmp(p, "vl=", 3))
		return false;
	p += 3;
	for (vl = 0; vl < IBS_N_VL; vl++) {
		unsigned x = 0, digits = 0;
		if (vl && (p == end || *p++ != ','))
			return false;
		for (; p < end && *p >= '0' && *p <= '9' && digits < 6; p++, digits++)
			x = x * 10 + (unsigned)(*p - '0');
		if (!digits || x > 0xffff)
			return false;
		e->vl[vl] = (uint16_t)x;
	}
	if (p != end)
		return false;
	e->has_vl = true;
	*s = p;
	return true;
}

enum ibs_err ibs_state_parse(const char *name, const char *buf, size_t len, struct ibs_state *st, char **msg)
{
	const struct ibs_counter_def *cols[32];
	size_t ncols = 0, cap = 0, line = 0, i;
	const char *p = buf, *end = buf + len;
	bool keys = false;

	memset(st, 0, sizeof(*st));
	st->present = true;
	if (memchr(buf, '\0', len)) {
		*msg = xasprintf("'%s' is not an ibscan state file (it holds NUL bytes)", name);
		return IBS_E_INPUT;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end, *s = p;
		line++;
		p = nl ? nl + 1 : end;
		if (line == 1) {
			if ((size_t)(le - s) != strlen(MAGIC) ||
			    (memcmp(s, MAGIC, strlen(MAGIC)) && memcmp(s, MAGIC_V1, strlen(MAGIC_V1)))) {
				*msg = xasprintf("%s:1: not an ibscan state file (want '" MAGIC "' or '" MAGIC_V1 "')", name);
				goto bad;
			}
			continue;
		}
		if (le == s || *s == '#')
			continue;
		if (!keys) {
			/* "keys NAME...": which counter each column holds, so that the list can grow. */
			if (le - s < 5 || memcmp(s, "keys ", 5)) {
				*msg = xasprintf("%s:%zu: want the 'keys' line first", name, line);
				goto bad;
			}
			s += 5;
			while (s < le) {
				const char *w = s;
				char k[64];
				while (s < le && *s != ' ')
					s++;
				if ((size_t)(s - w) >= sizeof(k) || ncols == sizeof(cols) / sizeof(cols[0])) {
					*msg = xasprintf("%s:%zu: too many or too long keys", name, line);
					goto bad;
				}
				memcpy(k, w, (size_t)(s - w));
				k[s - w] = '\0';
				cols[ncols] = ibs_counter_find(k);
				if (!cols[ncols]) {
					*msg = xasprintf("%s:%zu: unknown counter '%s'", name, line, k);
					goto bad;
				}
				ncols++;
				while (s < le && *s == ' ')
					s++;
			}
			keys = true;
			continue;
		}
		{
			struct ibs_state_port e;
			uint64_t v[4];
			memset(&e, 0, sizeof(e));
			if (!field(&s, le, 16, UINT64_MAX, &e.guid) || !field(&s, le, 10, 255, &v[0]) ||
			    !field(&s, le, 10, 65535, &v[1]) || !field(&s, le, 10, INT64_MAX, &v[2]) ||
			    !field(&s, le, 10, 1, &v[3]))
				goto bad_line;
			e.port = (uint8_t)v[0];
			e.lid = (uint16_t)v[1];
			e.t = (int64_t)v[2];
			e.ext_errors = v[3];
			for (i = 0; i < ncols; i++) {
				uint64_t x;
				if (!field(&s, le, 10, UINT64_MAX, &x))
					goto bad_line;
				*(uint64_t *)((char *)&e.c + cols[i]->offset) = x;
			}
			if (s != le && !vl_field(&s, le, &e))
				goto bad_line;
			if (s != le)
				goto bad_line;
			if (st->n == IBS_STATE_MAX_PORTS) {
				*msg = xasprintf("%s:%zu: more than %u ports", name, line, IBS_STATE_MAX_PORTS);
				goto bad;
			}
			st->v = xgrow(st->v, &cap, st->n + 1, sizeof(*st->v));
			st->v[st->n++] = e;
		}
	}
	if (!line) {
		*msg = xasprintf("'%s' is empty, not an ibscan state file", name);
		goto bad;
	}
	if (st->n)
		qsort(st->v, st->n, sizeof(*st->v), guid_cmp);
	for (i = 1; i < st->n; i++)
		if (!guid_cmp(&st->v[i - 1], &st->v[i])) {
			*msg = xasprintf("'%s' holds node 0x%016" PRIx64 " port %u twice", name, st->v[i].guid,
					 st->v[i].port);
			goto bad;
		}
	st->by_lid = xcalloc(st->n ? st->n : 1, sizeof(*st->by_lid));
	for (i = 0; i < st->n; i++)
		st->by_lid[i] = i;
	lid_sort_st = st;
	qsort(st->by_lid, st->n, sizeof(*st->by_lid), lid_cmp);
	return IBS_OK;
bad_line:
	*msg = xasprintf("%s:%zu: want 'GUID PORT LID TIME EXT', %zu counter values and optionally "
			 "'vl=' and %u VL values", name, line, ncols, IBS_N_VL);
bad:
	ibs_state_free(st);
	return IBS_E_INPUT;
}

enum ibs_err ibs_state_load(const char *path, struct ibs_state *st, char **msg)
{
	struct stat sb;
	char *buf;
	size_t n = 0;
	enum ibs_err rc;
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	memset(st, 0, sizeof(*st));
	if (fd < 0 && errno == ENOENT)
		return IBS_OK; /* the first run */
	if (fd < 0) {
		*msg = xasprintf("cannot open state file '%s': %s", path, strerror(errno));
		return IBS_E_IO;
	}
	/* Judged on the file opened, not on the name: no swap between the look and the read. */
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		*msg = xasprintf("state file '%s' is not a regular file", path);
		close(fd);
		return IBS_E_INPUT;
	}
	if (sb.st_uid != geteuid()) {
		*msg = xasprintf("state file '%s' belongs to uid %u, not to this user (uid %u): refused, its readings "
				 "could hide errors",
				 path, (unsigned)sb.st_uid, (unsigned)geteuid());
		close(fd);
		return IBS_E_INPUT;
	}
	if (sb.st_mode & (S_IWGRP | S_IWOTH)) {
		*msg = xasprintf("state file '%s' may be written by its group or others (mode %04o): refused, its "
				 "readings could hide errors (chmod go-w)",
				 path, (unsigned)(sb.st_mode & 07777));
		close(fd);
		return IBS_E_INPUT;
	}
	if ((uintmax_t)sb.st_size > IBS_STATE_MAX_BYTES) {
		*msg = xasprintf("state file '%s' is larger than the limit of %u bytes", path, IBS_STATE_MAX_BYTES);
		close(fd);
		return IBS_E_INPUT;
	}
	buf = xmalloc((size_t)sb.st_size + 1);
	for (;;) {
		ssize_t r = read(fd, buf + n, (size_t)sb.st_size + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			*msg = xasprintf("cannot read state file '%s': %s", path, strerror(errno));
			free(buf);
			close(fd);
			return IBS_E_IO;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > (size_t)sb.st_size) {
			*msg = xasprintf("state file '%s' grew while it was read", path);
			free(buf);
			close(fd);
			return IBS_E_INPUT;
		}
	}
	close(fd);
	rc = ibs_state_parse(path, buf, n, st, msg);
	free(buf);
	return rc;
}

const struct ibs_state_port *ibs_state_find(const struct ibs_state *st, uint64_t guid, uint8_t port)
{
	struct ibs_state_port k;

	if (!st || !st->n)
		return NULL;
	k.guid = guid;
	k.port = port;
	return bsearch(&k, st->v, st->n, sizeof(*st->v), guid_cmp);
}

static const struct ibs_state_port *find_lid(const struct ibs_state *st, uint16_t lid, uint8_t port)
{
	size_t lo = 0, hi = st->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ibs_state_port *e = &st->v[st->by_lid[mid]];
		if (e->lid == lid && e->port == port)
			return e;
		if (e->lid < lid || (e->lid == lid && e->port < port))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

bool ibs_state_compare(const struct ibs_state *st, const struct ibs_node *n, const struct ibs_port *p, int64_t now,
		       struct ibs_port_counters *prev, double *since, char **note)
{
	const struct ibs_state_port *e;
	uint16_t lid;
	size_t k;

	*note = NULL;
	if (!st || !st->present || !p->ctr || !p->ctr->ok)
		return false;
	lid = ibs_port_pma_lid(n, p);
	e = ibs_state_find(st, n->ni.node_guid, p->num);
	if (!e) {
		const struct ibs_state_port *o = lid ? find_lid(st, lid, p->num) : NULL;
		if (o)
			*note = xasprintf("%s port %u: LID %u port %u was node 0x%016" PRIx64 "'s at the last run: "
					  "no earlier reading of this port, judged on its totals",
					  ibs_node_name(n), p->num, lid, p->num, o->guid);
		else
			*note = xasprintf("%s port %u: no earlier reading: judged on its totals", ibs_node_name(n),
					  p->num);
		return false;
	}
	if (e->lid != lid) {
		*note = xasprintf("%s port %u: its LID moved from %u to %u since the last run: not compared, "
				  "judged on its totals",
				  ibs_node_name(n), p->num, e->lid, lid);
		return false;
	}
	if (e->ext_errors != p->ctr->ext_errors) {
		*note = xasprintf("%s port %u: its counters were read %s-bit at the last run and %s-bit now: not "
				  "compared, judged on its totals",
				  ibs_node_name(n), p->num, e->ext_errors ? "64" : "16/32", p->ctr->ext_errors ? "64" : "16/32");
		return false;
	}
	if (e->t > now) {
		*note = xasprintf("%s port %u: its earlier reading is dated %" PRId64 " s after now (the clock "
				  "moved back?): not compared, judged on its totals",
				  ibs_node_name(n), p->num, e->t - now);
		return false;
	}
	for (k = 0; k < ibs_n_counter_defs; k++) {
		const struct ibs_counter_def *d = &ibs_counter_defs[k];
		uint64_t was = ibs_counter_get(&e->c, d), is = ibs_counter_get(&p->ctr->c, d);
		if (ibs_counter_known(p->ctr, d) && is < was) {
			*note = xasprintf("%s port %u: %s went down from %" PRIu64 " to %" PRIu64 " since the last "
					  "run (cleared by someone): judged on its count since then",
					  ibs_node_name(n), p->num, d->name, was, is);
			return false;
		}
	}
	*prev = *p->ctr;
	prev->have_prev = true;
	prev->prev = e->c;
	prev->prev_vl_ok = e->has_vl;
	for (k = 0; k < IBS_N_VL; k++)
		prev->prev_vl[k] = e->vl[k];
	prev->prev_ext_errors = e->ext_errors;
	prev->prev_extended = p->ctr->extended;
	*since = (double)(now - e->t);
	return true;
}

void ibs_state_apply(const struct ibs_state *st, struct ibs_fabric *f, int64_t now)
{
	size_t i;

	for (i = 0; i < f->n_nodes; i++) {
		struct ibs_node *n = f->nodes[i];
		struct ibs_port *pt;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			struct ibs_port_counters prev, *c = pt->ctr;
			double since;
			char *note = NULL;
			uint64_t dt;
			if (!c)
				continue;
			c->have_prev = false;
			c->prev_vl_ok = false;
			if (!ibs_state_compare(st, n, pt, now, &prev, &since, &note)) {
				free(note);
				continue;
			}
			dt = (uint64_t)(since * 1e9);
			if (c->t_ns <= dt)
				continue;
			c->have_prev = true;
			c->prev = prev.prev;
			c->prev_ext_errors = prev.prev_ext_errors;
			/* No data counters in the state: a width that differs makes ibs_port_data_delta say unknown. */
			c->prev_extended = !c->extended;
			c->prev_t_ns = c->t_ns - dt;
			c->prev_vl_ok = prev.prev_vl_ok;
			memcpy(c->prev_vl, prev.prev_vl, sizeof(c->prev_vl));
		}
	}
}

/* One port's line; vl: its PortVLXmitWaitCounters, or NULL where they were not read. */
static void add_line(struct strbuf *sb, uint64_t guid, unsigned port, unsigned lid, int64_t t, bool ext,
		     const struct ibs_pma_counters *c, const uint64_t *vl)
{
	size_t k;

	sb_addf(sb, "0x%016" PRIx64 " %u %u %" PRId64 " %d", guid, port, lid, t, ext ? 1 : 0);
	for (k = 0; k < ibs_n_counter_defs; k++)
		sb_addf(sb, " %" PRIu64, ibs_counter_get(c, &ibs_counter_defs[k]));
	for (k = 0; vl && k < IBS_N_VL; k++)
		sb_addf(sb, "%s%" PRIu64, k ? "," : " vl=", vl[k] > 0xffff ? 0xffff : vl[k]);
	sb_addc(sb, '\n');
}

char *ibs_state_format(const struct ibs_fabric *f, const struct ibs_state *old, int64_t now, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	struct ibs_state seen;
	size_t i, k, cap = 0, written = 0;
	char *s;

	memset(&seen, 0, sizeof(seen));
	sb_adds(&sb, MAGIC "\n# written by 'ibscan health --state': node GUID, port, LID, time (s), 64-bit error "
		     "counters, then the counters named by 'keys', then vl= PortVLXmitWait0-15 where read\nkeys");
	for (k = 0; k < ibs_n_counter_defs; k++)
		sb_addf(&sb, " %s", ibs_counter_defs[k].key);
	sb_addc(&sb, '\n');
	for (i = 0; i < f->n_nodes; i++) {
		const struct ibs_node *n = f->nodes[i];
		const struct ibs_port *pt;
		for (pt = ibs_node_ports_from(n, 1); pt < ibs_node_ports_end(n); pt++) {
			struct ibs_state_port e;
			if (!pt->ctr || !pt->ctr->ok || written == IBS_STATE_MAX_PORTS)
				continue;
			/* A duplicate GUID's second node: the first one's reading only (a key is one port). */
			if (seen.n && ibs_state_find(&seen, n->ni.node_guid, pt->num))
				continue;
			add_line(&sb, n->ni.node_guid, pt->num, ibs_port_pma_lid(n, pt), now, pt->ctr->ext_errors,
				 &pt->ctr->c,
				 pt->ctr->det[IBS_DET_VL_WAIT].state == IBS_DET_OK ? pt->ctr->d.vl_xmit_wait : NULL);
			written++;
			memset(&e, 0, sizeof(e));
			e.guid = n->ni.node_guid;
			e.port = pt->num;
			/* Kept sorted for the lookups: nodes come sorted by GUID, ports by number (duplicates aside). */
			seen.v = xgrow(seen.v, &cap, seen.n + 1, sizeof(*seen.v));
			for (k = seen.n; k > 0 && guid_cmp(&seen.v[k - 1], &e) > 0; k--)
				seen.v[k] = seen.v[k - 1];
			seen.v[k] = e;
			seen.n++;
		}
	}
	/* What was not read now keeps its earlier reading, while there is room. */
	for (i = 0; old && i < old->n && written < IBS_STATE_MAX_PORTS; i++) {
		const struct ibs_state_port *e = &old->v[i];
		uint64_t vl[IBS_N_VL];
		if (ibs_state_find(&seen, e->guid, e->port))
			continue;
		for (k = 0; k < IBS_N_VL; k++)
			vl[k] = e->vl[k];
		add_line(&sb, e->guid, e->port, e->lid, e->t, e->ext_errors, &e->c, e->has_vl ? vl : NULL);
		written++;
	}
	free(seen.v);
	*len = sb.len;
	s = sb_detach(&sb);
	return s ? s : xstrdup("");
}
