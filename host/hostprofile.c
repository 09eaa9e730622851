/* The profile of `ibscan local --check`: a small "key value..." file, read as untrusted input. */
#include "hostcheck.h"
#include "../core/base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ibs_host_profile *ibs_host_profile_new(void)
{
	struct ibs_host_profile *p = xcalloc(1, sizeof(*p));

	p->ports = -1;
	p->min_rate = -1;
	p->gid_index = -1;
	p->pcie = p->numa = true;
	return p;
}

static void free_names(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void ibs_host_profile_free(struct ibs_host_profile *p)
{
	if (!p)
		return;
	free_names(p->rails, p->n_rails);
	free_names(p->storage, p->n_storage);
	free_names(p->ignore, p->n_ignore);
	free(p->link_layer);
	free(p->firmware);
	free(p->socket_ifname);
	free(p);
}

/* A device pattern: printable, no white space, at most 64 bytes (IB device names are at most 63). */
static bool good_word(const char *w, size_t max)
{
	size_t n = strlen(w);

	if (!n || n > max)
		return false;
	for (; *w; w++)
		if (!isgraph((unsigned char)*w))
			return false;
	return true;
}

static bool parse_bool(const char *w, bool *out)
{
	if (!strcmp(w, "yes") || !strcmp(w, "true") || !strcmp(w, "on"))
		*out = true;
	else if (!strcmp(w, "no") || !strcmp(w, "false") || !strcmp(w, "off"))
		*out = false;
	else
		return false;
	return true;
}

/* One line's words, split in place (at most max). */
static size_t split(char *line, char **w, size_t max, bool *more)
{
	size_t n = 0;
	char *s = line;

	*more = false;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			break;
		if (n == max) {
			*more = true;
			break;
		}
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}


enum ibs_err ibs_host_profile_parse(const char *name, const char *buf, size_t len, struct ibs_host_profile **out,
				    char **msg)
{
	struct ibs_host_profile *p = ibs_host_profile_new();
	unsigned lineno = 0;
	size_t off = 0;
	char line[IBS_PROFILE_MAX_LINE + 1];
	bool seen[16] = { 0 };
	static const char *const keys[] = { "rails", "storage", "ignore", "ports", "min-rate", "link-layer",
					    "gid-index", "firmware", "socket-ifname", "pcie", "numa", NULL };

	*out = NULL;
	if (len > IBS_PROFILE_MAX_BYTES) {
		*msg = xasprintf("%s: more than %d bytes: not a profile", name, IBS_PROFILE_MAX_BYTES);
		ibs_host_profile_free(p);
		return IBS_E_INPUT;
	}
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off, nw, k, i;
		char *w[IBS_PROFILE_MAX_NAMES + 2];
		bool more;

		lineno++;
		if (n > IBS_PROFILE_MAX_LINE) {
			*msg = xasprintf("%s:%u: line longer than %d bytes", name, lineno, IBS_PROFILE_MAX_LINE);
			goto bad;
		}
		memcpy(line, buf + off, n);
		line[n] = '\0';
		off += n + 1;
		/* A CRLF file's \r ends the line; any other control byte (NUL included) or non-ASCII byte is refused. */
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		for (i = 0; i < n; i++)
			if (!isprint((unsigned char)line[i]) && line[i] != '\t') {
				*msg = xasprintf("%s:%u: a control or non-ASCII byte (0x%02x)", name, lineno,
						 (unsigned char)line[i]);
				goto bad;
			}
		nw = split(line, w, sizeof(w) / sizeof(w[0]), &more);
		if (!nw)
			continue;
		for (k = 0; keys[k] && strcmp(keys[k], w[0]); k++)
			;
		if (!keys[k]) {
			*msg = xasprintf("%s:%u: unknown key '%s' (rails, storage, ignore, ports, min-rate, link-layer, "
					 "gid-index, firmware, socket-ifname, pcie, numa)",
					 name, lineno, w[0]);
			goto bad;
		}
		if (seen[k]) {
			*msg = xasprintf("%s:%u: '%s' given twice", name, lineno, w[0]);
			goto bad;
		}
		seen[k] = true;
		if (nw < 2) {
			*msg = xasprintf("%s:%u: '%s' wants a value", name, lineno, w[0]);
			goto bad;
		}
		if (k <= 2) {
			char ***v = k == 0 ? &p->rails : k == 1 ? &p->storage : &p->ignore;
			size_t *nv = k == 0 ? &p->n_rails : k == 1 ? &p->n_storage : &p->n_ignore;
			if (more || nw - 1 > IBS_PROFILE_MAX_NAMES) {
				*msg = xasprintf("%s:%u: more than %d names", name, lineno, IBS_PROFILE_MAX_NAMES);
				goto bad;
			}
			*v = xcalloc(nw - 1, sizeof(**v));
			for (i = 1; i < nw; i++) {
				if (!good_word(w[i], 72)) {
					*msg = xasprintf("%s:%u: '%s' is not a device pattern (at most 72 printable bytes)",
							 name, lineno, w[i]);
					goto bad;
				}
				(*v)[(*nv)++] = xstrdup(w[i]);
			}
			continue;
		}
		if (nw > 2) {
			*msg = xasprintf("%s:%u: '%s' takes one value, not %zu", name, lineno, w[0], nw - 1);
			goto bad;
		}
		if (!strcmp(w[0], "ports") || !strcmp(w[0], "gid-index")) {
			char *end;
			long v;
			bool ports = w[0][0] == 'p';
			errno = 0;
			v = strtol(w[1], &end, 10);
			if (errno || *end || !isdigit((unsigned char)w[1][0]) || v < (ports ? 1 : 0) ||
			    v > (ports ? 1024 : 65535)) {
				*msg = xasprintf("%s:%u: %s wants a number from %d to %d, not '%s'", name, lineno, w[0],
						 ports ? 1 : 0, ports ? 1024 : 65535, w[1]);
				goto bad;
			}
			if (ports)
				p->ports = (int)v;
			else
				p->gid_index = (int)v;
		} else if (!strcmp(w[0], "min-rate")) {
			char *end;
			double v;
			errno = 0;
			v = strtod(w[1], &end);
			if (errno || *end || !isdigit((unsigned char)w[1][0]) || !(v > 0 && v <= 100000)) {
				*msg = xasprintf("%s:%u: min-rate wants Gb/s (more than 0, at most 100000), not '%s'", name,
						 lineno, w[1]);
				goto bad;
			}
			p->min_rate = v;
		} else if (!strcmp(w[0], "link-layer")) {
			if (strcmp(w[1], "InfiniBand") && strcmp(w[1], "Ethernet")) {
				*msg = xasprintf("%s:%u: link-layer is InfiniBand or Ethernet, not '%s'", name, lineno, w[1]);
				goto bad;
			}
			p->link_layer = xstrdup(w[1]);
		} else if (!strcmp(w[0], "pcie") || !strcmp(w[0], "numa")) {
			if (!parse_bool(w[1], w[0][0] == 'p' ? &p->pcie : &p->numa)) {
				*msg = xasprintf("%s:%u: %s is yes or no, not '%s'", name, lineno, w[0], w[1]);
				goto bad;
			}
		} else {
			if (!good_word(w[1], 256)) {
				*msg = xasprintf("%s:%u: %s is too long", name, lineno, w[0]);
				goto bad;
			}
			if (!strcmp(w[0], "firmware"))
				p->firmware = xstrdup(w[1]);
			else
				p->socket_ifname = xstrdup(w[1]);
		}
	}
	*out = p;
	return IBS_OK;
bad:
	ibs_host_profile_free(p);
	return IBS_E_INPUT;
}
