/*
 * The capture text, read: a capture parsed into packed exchanges (mapped,
 * or scanned through a sink), every line checked and errors named by
 * file:line (format.c writes it). Format: docs/capture-format.md.
 */
#include "format.h"
#include "../base/file.h"
#include "../base/mapping.h"
#include "../base/log.h"
#include "../base/text.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static bool addr_parse(const char *s, struct ibs_addr *a)
{
	char tmp[300];

	if (!strncmp(s, "lid:", 4)) {
		snprintf(tmp, sizeof(tmp), "lid %s", s + 4);
		return ibs_addr_parse(a, tmp) == IBS_OK;
	}
	if (!strncmp(s, "dr:", 3))
		return ibs_addr_parse(a, s + 3) == IBS_OK;
	return false;
}

/* Hex digit values plus one; 0 for anything else. */
static const unsigned char hexv1[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Parse hex into out (at most IBS_MAD_SIZE bytes); false when malformed. */
static bool get_hex(const char *s, size_t n, uint8_t *out, size_t *len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;
	unsigned ok = 1;

	if (n % 2 || n / 2 > IBS_MAD_SIZE)
		return false;
	for (i = 0; i < n / 2; i++) {
		unsigned hi = hexv1[p[2 * i]], lo = hexv1[p[2 * i + 1]];
		ok &= (hi != 0) & (lo != 0);
		out[i] = (uint8_t)(((hi - 1) << 4) | ((lo - 1) & 15));
	}
	*len = n / 2;
	return ok;
}

bool ibs_capture_cut_short(const struct ibs_capture *c)
{
	return c->version >= 2 && !c->ended;
}

/* ---- packed exchanges ---- */

/* What each packed exchange starts with; its path, request and response bytes follow. */
struct packed {
	uint64_t time_ns;
	uint32_t line;
	int32_t status;
	uint16_t lid, resp_len; /* resp_len as the exchange has it; resp_n bytes of it are stored */
	uint16_t req_n, resp_n;
	uint8_t outcome, hops;
};

static void pack(struct ibs_capture *c, const struct ibs_cap_exchange *x)
{
	struct packed h = {
		.time_ns = x->time_ns,
		.line = x->line,
		.status = x->status,
		.lid = x->addr.lid,
		.resp_len = (uint16_t)x->resp_len,
		.req_n = (uint16_t)ibs_capture_trimmed(x->req, x->req_len),
		.resp_n = (uint16_t)ibs_capture_trimmed(x->resp, x->resp_len),
		.outcome = (uint8_t)x->outcome,
		.hops = x->addr.lid ? 0 : x->addr.hops,
	};
	size_t need = sizeof(h) + h.hops + h.req_n + h.resp_n;
	uint8_t *p;

	c->packed = xgrow(c->packed, &c->packed_cap, c->packed_len + need, 1);
	p = c->packed + c->packed_len;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, x->addr.path + 1, h.hops);
	p += h.hops;
	memcpy(p, x->req, h.req_n);
	p += h.req_n;
	memcpy(p, x->resp, h.resp_n);
	c->packed_len += need;
	c->n++;
}

bool ibs_capture_next(const struct ibs_capture *c, size_t *pos, struct ibs_cap_exchange *x)
{
	struct packed h;
	const uint8_t *p;

	if (*pos + sizeof(h) > c->packed_len)
		return false;
	p = c->packed + *pos;
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	memset(x, 0, sizeof(*x));
	x->line = h.line;
	x->time_ns = h.time_ns;
	x->status = h.status;
	x->outcome = (enum ibs_cap_outcome)h.outcome;
	if (h.lid)
		ibs_addr_lid(&x->addr, h.lid, 0);
	else
		ibs_addr_dr(&x->addr, p, h.hops);
	p += h.hops;
	memcpy(x->req, p, h.req_n);
	x->req_len = IBS_MAD_SIZE;
	p += h.req_n;
	memcpy(x->resp, p, h.resp_n);
	x->resp_len = h.resp_len;
	*pos += sizeof(h) + h.hops + h.req_n + h.resp_n;
	return true;
}

/* ---- parser ---- */

static enum ibs_err perr(char **msg, const char *name, unsigned line, const char *why)
{
	*msg = xasprintf("%s:%u: %s", name, line, why);
	return IBS_E_INPUT;
}

/* key=value from a "local" line. */
static const char *kv(const char *line, const char *key, char *val, size_t vlen)
{
	size_t kl = strlen(key);
	const char *p = line;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ' ') && p[kl] == '=') {
			size_t i = 0;
			p += kl + 1;
			while (p[i] && p[i] != ' ' && i + 1 < vlen) {
				val[i] = p[i];
				i++;
			}
			val[i] = '\0';
			return val;
		}
		p += kl;
	}
	return NULL;
}

static bool kv_u64(const char *line, const char *key, uint64_t max, uint64_t *out)
{
	char v[64], *end;
	unsigned long long x;

	if (!kv(line, key, v, sizeof(v)) || !v[0])
		return false;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || *end || x > max || v[0] == '-')
		return false;
	*out = x;
	return true;
}

static bool kv_guid(const char *line, const char *key, uint64_t *out)
{
	char v[64];

	return kv(line, key, v, sizeof(v)) && ibs_guid_parse_all(v, out);
}

static enum ibs_err parse_local(const char *name, unsigned ln, const char *line, struct ibs_local_port *lp,
				char **msg)
{
	uint64_t v;
	char ca[sizeof(lp->ca)];

	memset(lp, 0, sizeof(*lp));
	if (!kv(line, "ca", ca, sizeof(ca)))
		return perr(msg, name, ln, "local: missing ca=");
	ibs_text_clean_buf(lp->ca, sizeof(lp->ca), ca, strlen(ca));
#define NEED(key, max, field)                                                   \
	do {                                                                    \
		if (!kv_u64(line, key, max, &v))                                \
			return perr(msg, name, ln, "local: missing or bad " key "="); \
		lp->field = (__typeof__(lp->field))v;                           \
	} while (0)
	NEED("port", 255, port);
#define NEED_GUID(key, field)                                                                    \
	do {                                                                                     \
		if (!kv_guid(line, key, &lp->field))                                             \
			return perr(msg, name, ln, "local: missing or bad " key "= (want " IBS_GUID_WANT ")"); \
	} while (0)
	NEED_GUID("node_guid", node_guid);
	NEED_GUID("port_guid", port_guid);
	NEED_GUID("system_image_guid", system_image_guid);
#undef NEED_GUID
	NEED("lid", 0xffff, lid);
	NEED("sm_lid", 0xffff, sm_lid);
	NEED("lmc", 7, lmc);
	NEED("state", 255, state);
	NEED("node_type", 255, node_type);
#undef NEED
	/* Optional: captures before it was recorded reached the SA on SL 0. */
	if (kv_u64(line, "sm_sl", 15, &v))
		lp->sm_sl = (uint8_t)v;
	return IBS_OK;
}

/* How much of a mapped capture is read before its pages are let go of (a power of two). */
#define SETTLE_BYTES ((size_t)1 << 20)

/* A mapped capture's pages read so far: dropped, read again from the page cache if touched. */
static void let_go(const char *buf, size_t len, bool mapped)
{
	if (mapped)
		(void)madvise((void *)buf, len, MADV_DONTNEED);
}

/* The first NUL byte in buf, or NULL; a mapped buf is let go of as it is read. */
static const char *find_nul(const char *buf, size_t len, bool mapped)
{
	size_t off;

	for (off = 0; off < len; off += SETTLE_BYTES) {
		const char *z = memchr(buf + off, '\0', len - off < SETTLE_BYTES ? len - off : SETTLE_BYTES);
		if (z)
			return z;
		let_go(buf, len, mapped);
	}
	return NULL;
}

/*
 * mapped: buf is a private mapping of the file (page aligned), let go of
 * every SETTLE_BYTES read. Each exchange goes to sink, or without one is
 * packed into the capture.
 */
static enum ibs_err parse(const char *name, const char *buf, size_t len, bool mapped, ibs_cap_sink sink, void *ctx,
			  struct ibs_capture **out, char **msg)
{
	struct ibs_capture *c = xcalloc(1, sizeof(*c));
	size_t pos = 0;
	unsigned ln = 0;
	int state = 0; /* 0 header, 1 want x, 2 want >, 3 want <, 4 after the end record */
	bool have_local = false;
	struct ibs_cap_exchange cur, *x = &cur; /* packed when its outcome line is read */
	enum ibs_err rc = IBS_OK;
	char line[IBS_CAPTURE_MAX_LINE + 1];
	size_t settled = 0;
	const char *z = find_nul(buf, len, mapped);

	*out = NULL;
	*msg = NULL;
	if (z) {
		rc = perr(msg, name, ibs_text_line_of(buf, z), "NUL byte: this is not a capture (binary file?)");
		goto fail;
	}
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - s) : len - pos;

		ln++;
		pos += ll + (nl ? 1 : 0);
		if (pos - settled >= SETTLE_BYTES) {
			let_go(buf, len, mapped);
			settled = pos;
		}
		if (ll > IBS_CAPTURE_MAX_LINE) {
			rc = perr(msg, name, ln, "line too long");
			goto fail;
		}
		memcpy(line, s, ll);
		line[ll] = '\0';
		if (ll && line[ll - 1] == '\r')
			line[--ll] = '\0';
		/*
		 * A capture that writes an end record and lacks it was cut short:
		 * its last line, unterminated, may be cut in the middle of its hex
		 * (a shorter MAD that would parse): left out, as an exchange left
		 * incomplete at the end is. ibs_capture_cut_short says so.
		 */
		if (!nl && ln > 1 && c->version >= 2 && !c->ended && strcmp(line, "end"))
			break;
		if (ln == 1) {
			int ver;
			char tail;
			if (sscanf(line, IBS_CAPTURE_MAGIC " %d%c", &ver, &tail) != 1) {
				rc = perr(msg, name, ln, "not an ibscan capture (no 'ibscan-capture N' header)");
				goto fail;
			}
			if (ver < IBS_CAPTURE_MIN_VERSION || ver > IBS_CAPTURE_VERSION) {
				*msg = xasprintf("%s:%u: capture format version %d is not supported (this ibscan reads "
						 "versions %d to %d)",
						 name, ln, ver, IBS_CAPTURE_MIN_VERSION, IBS_CAPTURE_VERSION);
				rc = IBS_E_INPUT;
				goto fail;
			}
			c->version = ver;
			continue;
		}
		if (!ll || line[0] == '#')
			continue;
		if (state == 4) {
			rc = perr(msg, name, ln, "a record after the end record");
			goto fail;
		}
		if (c->version >= 2 && !strcmp(line, "end")) {
			if (state != 1) {
				rc = perr(msg, name, ln, state ? "the last exchange is incomplete before the end record"
							       : "the end record before the 'local' line");
				goto fail;
			}
			c->ended = true;
			state = 4;
			continue;
		}
		if (state <= 1 && !strncmp(line, "tool ", 5)) {
			char tool[IBS_CAPTURE_TOOL_MAX];
			/* Cleaning may make it 4 times longer: cut (whole characters and escapes), so the
			 * header written again from it (an index, an export) is a capture this parser reads. */
			ibs_text_clean_buf(tool, sizeof(tool), line + 5, ll - 5);
			free(c->tool);
			c->tool = xstrdup(tool);
			continue;
		}
		if (state <= 1 && !strncmp(line, "engine ", 7)) {
			uint64_t w, t, r;
			if (!kv_u64(line + 7, "window", 1024, &w) || !kv_u64(line + 7, "timeout", 600000, &t) ||
			    !kv_u64(line + 7, "retries", 100, &r) || w < 1 || t < 1) {
				rc = perr(msg, name, ln, "engine: want window=1..1024 timeout=1..600000 retries=0..100");
				goto fail;
			}
			c->engine.present = true;
			c->engine.window = (unsigned)w;
			c->engine.timeout_ms = (unsigned)t;
			c->engine.retries = (unsigned)r;
			continue;
		}
		if (state <= 1 && !strncmp(line, "local ", 6)) {
			rc = parse_local(name, ln, line + 6, &c->local, msg);
			if (rc)
				goto fail;
			have_local = true;
			state = 1;
			continue;
		}
		if (line[0] == 'x' && line[1] == ' ') {
			char as[IBS_CAPTURE_ADDR_MAX];
			const char *t;
			if (state == 0 && !have_local) {
				rc = perr(msg, name, ln, "exchange before the 'local' line");
				goto fail;
			}
			if (state == 2 || state == 3) {
				rc = perr(msg, name, ln, "the previous exchange is incomplete");
				goto fail;
			}
			memset(x, 0, sizeof(*x));
			x->line = ln;
			if (!kv(line, "addr", as, sizeof(as)) || !addr_parse(as, &x->addr)) {
				rc = perr(msg, name, ln, "missing or bad addr= (dr:0,1,... or lid:N)");
				goto fail;
			}
			if ((t = strstr(line, " t="))) {
				uint64_t v;
				if (!kv_u64(line, "t", UINT64_MAX, &v)) {
					rc = perr(msg, name, ln, "bad t=");
					goto fail;
				}
				x->time_ns = v;
			}
			state = 2;
			continue;
		}
		if (line[0] == '>' && line[1] == ' ') {
			struct ibs_mad_hdr h;
			if (state != 2) {
				rc = perr(msg, name, ln, "request line without an 'x' line before it");
				goto fail;
			}
			/* Trailing zeros are left out: a request always stands for 256 bytes. */
			if (!get_hex(line + 2, ll - 2, x->req, &x->req_len) || x->req_len < 2 ||
			    (x->req_len = IBS_MAD_SIZE, ibs_mad_decode_hdr(x->req, x->req_len, &h) != IBS_OK)) {
				rc = perr(msg, name, ln, "bad request bytes (hex of a MAD, at most 256 bytes)");
				goto fail;
			}
			if ((h.mgmt_class == IBS_CLASS_SMI_DR) != (x->addr.lid == 0)) {
				rc = perr(msg, name, ln, "directed-route requests need a dr: address, others a lid:");
				goto fail;
			}
			state = 3;
			continue;
		}
		if (line[0] == '<' && line[1] == ' ') {
			const char *p = line + 2;
			if (state != 3) {
				rc = perr(msg, name, ln, "outcome line without a request line before it");
				goto fail;
			}
			if (!strcmp(p, "none")) {
				x->outcome = IBS_CAP_NONE;
			} else if (!strncmp(p, "resp ", 5)) {
				size_t want = IBS_MAD_SIZE;
				x->outcome = IBS_CAP_RESP;
				p += 5;
				if (!strncmp(p, "len=", 4)) {
					char *end;
					unsigned long v;
					errno = 0;
					v = strtoul(p + 4, &end, 10);
					if (errno || end == p + 4 || *end != ' ' || v > IBS_MAD_SIZE) {
						rc = perr(msg, name, ln, "bad len= (0 to 256)");
						goto fail;
					}
					want = v;
					p = end + 1;
				}
				if (!get_hex(p, strlen(p), x->resp, &x->resp_len) || x->resp_len > want) {
					rc = perr(msg, name, ln, "bad response bytes (hex of a MAD, at most 256 bytes)");
					goto fail;
				}
				x->resp_len = want;
			} else if (!strncmp(p, "error ", 6)) {
				char *end;
				long st;
				errno = 0;
				st = strtol(p + 6, &end, 10);
				if (errno || end == p + 6 || st <= 0 || st > 4095 || (*end && *end != ' ')) {
					rc = perr(msg, name, ln, "bad error status");
					goto fail;
				}
				x->outcome = IBS_CAP_ERROR;
				x->status = (int)st;
				if (*end == ' ' && !get_hex(end + 1, strlen(end + 1), x->resp, &x->resp_len)) {
					rc = perr(msg, name, ln, "bad bytes after the error status");
					goto fail;
				}
			} else {
				rc = perr(msg, name, ln, "outcome must be 'resp HEX', 'error N [HEX]' or 'none'");
				goto fail;
			}
			if (!sink) {
				pack(c, x);
			} else if ((rc = sink(ctx, x, msg)) != IBS_OK) {
				goto fail;
			} else {
				c->n++;
			}
			state = 1;
			continue;
		}
		rc = perr(msg, name, ln, "unrecognised line");
		goto fail;
	}
	if (ln == 0) {
		rc = perr(msg, name, 1, "empty file: not an ibscan capture");
		goto fail;
	}
	if (!have_local) {
		rc = perr(msg, name, ln, "no 'local' line: truncated capture?");
		goto fail;
	}
	if ((state == 2 || state == 3) && c->version < 2) {
		rc = perr(msg, name, ln, "truncated: the last exchange is incomplete");
		goto fail;
	}
	/* Cut short (no end record in a version that writes one): the exchanges it holds whole, and it says so. */
	*out = c;
	return IBS_OK;
fail:
	ibs_capture_free(c);
	return rc;
}

enum ibs_err ibs_capture_parse(const char *name, const char *buf, size_t len, struct ibs_capture **out,
			       char **msg)
{
	return parse(name, buf, len, false, NULL, NULL, out, msg);
}

/*
 * A regular file is mapped and parsed in place, never held whole: replay of
 * a large capture would otherwise hold its text (tens of megabytes) beside
 * the answers parsed from it. Anything else, or a file that cannot be mapped,
 * is read (ibs_read_file names what is wrong with it).
 */
static enum ibs_err load(const char *path, ibs_cap_sink sink, void *ctx, struct ibs_capture **out, char **msg)
{
	char *buf;
	size_t n;
	enum ibs_err rc;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : -1;

	*out = NULL;
	*msg = NULL;
	if (fd >= 0) {
		struct stat st;
		void *m = MAP_FAILED;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
		    (uintmax_t)st.st_size <= IBS_CAPTURE_MAX_BYTES)
			m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		close(fd);
		if (m != MAP_FAILED) {
			/* Cut short in place meanwhile, its mapping raises SIGBUS: cmd/ then names it. */
			ibs_mapping_begin(path, "the capture was cut short while it was read (changed in place?); run again");
			rc = parse(path, m, (size_t)st.st_size, true, sink, ctx, out, msg);
			ibs_mapping_end();
			munmap(m, (size_t)st.st_size);
			return rc;
		}
	}
	rc = ibs_read_file(path, IBS_CAPTURE_MAX_BYTES, &buf, &n, msg);
	if (rc)
		return rc;
	rc = parse(path, buf, n, false, sink, ctx, out, msg);
	free(buf);
	return rc;
}

enum ibs_err ibs_capture_load(const char *path, struct ibs_capture **out, char **msg)
{
	return load(path, NULL, NULL, out, msg);
}

enum ibs_err ibs_capture_scan(const char *path, ibs_cap_sink sink, void *ctx, struct ibs_capture **out, char **msg)
{
	return load(path, sink, ctx, out, msg);
}

void ibs_capture_free(struct ibs_capture *c)
{
	if (!c)
		return;
	free(c->tool);
	free(c->packed);
	free(c);
}
