/*
 * LD_PRELOAD layer for the bench: puts a model of a real fabric (hop latency,
 * switches that serve MADs one at a time and drop past a queue limit, the
 * kernel's MAD timeouts) between any libibumad program and the simulator's
 * shim. Not part of ibscan. Load it before the shim:
 *
 *   LD_PRELOAD="build/rel/fabricmodel.so:/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so"
 *
 * libumad2sim wraps open, close, read, write, ioctl and poll on its umad fds
 * (numbered from 1024; 2048 and up are issm fds) and answers every request at
 * once through ibsim. This layer wraps write, read and poll on those fds only:
 * a request is passed to the shim at once (ibsim computes the answer) and is
 * also run through the model (tools/bench/fmodel.c); its answer is held until the
 * model releases it, then read() and poll() see it. A request the model drops
 * gets no answer; as the kernel does, it is sent again after its timeout_ms
 * (retries times) and then answered with status 110 (ETIMEDOUT), a MAD header
 * only. The shim ignores timeouts; this layer keeps them, so that a dropped
 * MAD costs each tool what it would cost on hardware.
 *
 * Options (environment; the figures and their sources are in
 * docs/performance.md, "A fabric model"):
 *   FABRICMODEL_TOPO       the ibsim topology file of the simulated fabric (required)
 *   FABRICMODEL_HOP_US     per link, microseconds (default 0.25, an estimate)
 *   FABRICMODEL_SWITCH_US  a switch serving one MAD (default 20, an estimate)
 *   FABRICMODEL_CA_US      a channel adapter serving one MAD (default 5, an estimate)
 *   FABRICMODEL_QUEUE      MADs that may wait at a node behind the one in
 *                          service; more are dropped ("none": never; default 8)
 *   FABRICMODEL_LOSS       per cent of MADs lost on the way to their destination
 *                          (default 0; a fixed pseudo-random sequence, counted as dropped)
 *   FABRICMODEL_REPORT     append one line of counts per run to this file at exit
 *   FABRICMODEL_LABEL      a word copied into that line
 *   SIM_HOST               the node the tool runs on, as for the shim (default:
 *                          the first node of the file, where ibsim attaches it)
 *
 * LIDs: a LID-routed MAD's destination is found from the LIDs ibsim starts
 * with (the topology file's "lid N" annotations) and from every PortInfo
 * answer to a directed-route Get that passes through here (the tool has to
 * learn a LID before it can use it, so the layer learns it first). LIDs of no
 * known node are counted ("unresolved") and not modelled.
 *
 * The layer assumes one thread sends and waits (as libibumad tools do); its
 * state is locked, but a send from another thread while one waits in poll()
 * is modelled as arriving when that wait ends.
 */
#define _GNU_SOURCE
#include "fmodel.h"

#include <dlfcn.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define HDR_MAX 128 /* room for umad_size() (56 or 64) and the 24-byte MAD header */

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_write)(int, const void *, size_t);
static int (*next_poll)(struct pollfd *, nfds_t, int);

/* One request in flight (or whose answers are still to come), by class and TID. */
struct entry {
	uint64_t key;   /* 0: empty slot */
	int32_t req;    /* model request, -1: none */
	int fd;
	bool answered;  /* the model answered it; the shim has not yet */
	bool portinfo;  /* a directed-route Get(PortInfo): learn the LID it answers */
	unsigned stale; /* shim answers still to come for requests already ended */
	uint8_t *resp;
	size_t resp_len;
	size_t hdr_len;
	uint8_t hdr[HDR_MAX]; /* what the kernel returns on a timeout */
};

struct ready {
	int fd;
	uint8_t *buf;
	size_t len;
	uint64_t due; /* when the model released it (or the shim delivered it, if later) */
};

static struct {
	pthread_mutex_t lock;
	int state; /* 0: not yet, 1: on, -1: failed */
	struct fm_topo *topo;
	struct fm_model *m;
	struct fm_params p;
	size_t hs; /* umad_size() */
	struct entry *tab;
	size_t tabcap, tabn;
	struct ready *rq;
	size_t rqcap, rqhead, rqlen;
	unsigned waiting_shim; /* answered by the model, not yet by the shim */
	uint8_t *spare[256];   /* answer buffers to reuse */
	size_t nspare;
	/* poll() calls on a umad fd, and the waits in them: on the shim (for an
	 * answer it owes), and until the model's next answer. */
	unsigned long polls, shim_waits, model_waits;
	/* How late answers reach the tool after they were due (the layer's own
	 * delay: a wake-up's latency, or a tool busy elsewhere). */
	uint64_t late_sum, late_max, late_n;
	uint8_t *rbuf;
} g = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool is_umad(int fd)
{
	return fd >= 1024 && fd < 2048;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fputs("fabricmodel: out of memory\n", stderr);
		abort();
	}
	return p;
}

/* A layer that cannot model must not let a run pass for a modelled one. exit(),
 * not _exit(): the shim's exit handler frees the tool's ibsim client slot. */
__attribute__((noreturn, format(printf, 1, 2))) static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fabricmodel: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(125);
}

__attribute__((constructor)) static void resolve(void)
{
	next_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	next_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	next_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
}

static uint64_t env_us(const char *name, double def)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (!v || !*v)
		return (uint64_t)(def * 1000.0 + 0.5);
	d = strtod(v, &end);
	if (*end || d < 0 || d > 1e9)
		die("%s wants microseconds (a number >= 0), not '%s'", name, v);
	return (uint64_t)(d * 1000.0 + 0.5);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;

	if (!f)
		die("cannot open '%s': %s", path, strerror(errno));
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			buf = realloc(buf, cap);
			if (!buf)
				die("cannot read '%s': %s", path, strerror(ENOMEM));
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	if (ferror(f))
		die("cannot read '%s': %s", path, strerror(errno));
	fclose(f);
	*len = n;
	return buf;
}

/* Where a MAD field lies, learnt once from libibmad's own tables (set all its
 * bits in a zeroed MAD and look), then read with a load and a shift: per MAD,
 * libibmad's getters would cost more than the rest of the layer. Every field
 * that is one run of bits within 8 bytes, checked against mad_get_field (the
 * TID is the only 64-bit one); any other goes through libibmad. */
struct fast_field {
	uint8_t first, shift;
	bool slow; /* not one run of bits: through libibmad */
	uint64_t mask;
};
static struct fast_field fields[IB_FIELD_LAST_];

static uint64_t be64_at(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return be64toh(v);
}

static uint64_t lib_field(const uint8_t *buf, enum MAD_FIELDS f)
{
	void *b = (void *)(uintptr_t)buf; /* libibmad's getters only read */

	return f == IB_MAD_TRID_F ? mad_get_field64(b, 0, f) : mad_get_field(b, 0, f);
}

static uint64_t field(const uint8_t *buf, enum MAD_FIELDS f)
{
	const struct fast_field *ff = &fields[f];

	if (ff->slow)
		return lib_field(buf, f);
	return be64_at(buf + ff->first) >> ff->shift & ff->mask;
}

static void learn_field(enum MAD_FIELDS f)
{
	uint8_t z[IB_MAD_SIZE] = { 0 };
	unsigned first = 0, last = 0, i;
	uint64_t v;

	if (f == IB_MAD_TRID_F)
		mad_set_field64(z, 0, f, ~0ull);
	else
		mad_set_field(z, 0, f, ~0u);
	while (first < IB_MAD_SIZE - 1 && !z[first])
		first++;
	for (i = first; i < IB_MAD_SIZE; i++)
		if (z[i])
			last = i;
	if (first > IB_MAD_SIZE - 8)
		first = IB_MAD_SIZE - 8;
	v = be64_at(z + first);
	fields[f].slow = true;
	if (!v || last >= first + 8)
		return;
	fields[f].first = (uint8_t)first;
	fields[f].shift = (uint8_t)__builtin_ctzll(v);
	fields[f].mask = v >> fields[f].shift;
	if (fields[f].mask & (fields[f].mask + 1))
		return;
	fields[f].slow = false;
	for (i = 0; i < IB_MAD_SIZE; i++)
		z[i] = (uint8_t)(i * 37u + 11u);
	if (field(z, f) != lib_field(z, f))
		fields[f].slow = true;
}

static void learn_fields(void)
{
	static const enum MAD_FIELDS used[] = { IB_MAD_MGMTCLASS_F, IB_MAD_METHOD_F, IB_MAD_RESPONSE_F,
						IB_MAD_TRID_F,	    IB_MAD_ATTRID_F, IB_MAD_ATTRMOD_F,
						IB_DRSMP_HOPCNT_F,  IB_DRSMP_STATUS_F, IB_PORT_LID_F,
						IB_PORT_LMC_F };
	size_t i;

	for (i = 0; i < sizeof(used) / sizeof(used[0]); i++)
		learn_field(used[i]);
}

static void init_locked(void)
{
	const char *path, *host, *q;
	char err[256], *text;
	size_t len;
	int local;

	if (g.state)
		return;
	g.state = -1;
	path = getenv("FABRICMODEL_TOPO");
	host = getenv("SIM_HOST");
	if (!path || !*path)
		die("FABRICMODEL_TOPO is not set: the layer needs the simulated fabric's topology file");
	g.p.hop_ns = env_us("FABRICMODEL_HOP_US", 0.25);
	g.p.switch_ns = env_us("FABRICMODEL_SWITCH_US", 20);
	g.p.ca_ns = env_us("FABRICMODEL_CA_US", 5);
	q = getenv("FABRICMODEL_LOSS");
	if (q && *q) {
		char *end;
		double pc = strtod(q, &end);

		if (*end || !(pc >= 0 && pc <= 100))
			die("FABRICMODEL_LOSS wants a per cent from 0 to 100, not '%s'", q);
		g.p.loss_ppm = (uint32_t)(pc * 10000.0 + 0.5);
	}
	q = getenv("FABRICMODEL_QUEUE");
	if (!q || !*q)
		g.p.queue = 8;
	else if (!strcmp(q, "none"))
		g.p.queue = FM_NO_LIMIT;
	else {
		char *end;
		long v = strtol(q, &end, 10);

		if (*end || v < 0 || v > 1000000)
			die("FABRICMODEL_QUEUE wants a count or 'none', not '%s'", q);
		g.p.queue = (int)v;
	}
	text = read_file(path, &len);
	g.topo = fm_topo_parse(text, len, err, sizeof(err));
	free(text);
	if (!g.topo)
		die("cannot parse '%s': %s", path, err);
	local = host && *host ? fm_topo_find(g.topo, host) : 0;
	if (local < 0)
		die("SIM_HOST '%s' is no node of '%s'", host, path);
	g.m = fm_new(g.topo, local, &g.p);
	g.hs = umad_size();
	learn_fields();
	g.rbuf = xmalloc(g.hs + IB_MAD_SIZE);
	/* Release times are microseconds apart: sleep to the microsecond, not
	 * the default 50 us timer slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	__atomic_store_n(&g.state, 1, __ATOMIC_RELEASE);
}

/* ---- requests by key ---- */

static size_t slot_of(uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (g.tabcap - 1);
}

static struct entry *lookup(uint64_t key)
{
	size_t i;

	if (!g.tabcap)
		return NULL;
	for (i = slot_of(key); g.tab[i].key; i = (i + 1) & (g.tabcap - 1))
		if (g.tab[i].key == key)
			return &g.tab[i];
	return NULL;
}

static struct entry *insert(uint64_t key)
{
	size_t i;

	if (2 * (g.tabn + 1) > g.tabcap) {
		struct entry *old = g.tab;
		size_t oldcap = g.tabcap, j;

		g.tabcap = oldcap ? 2 * oldcap : 256;
		g.tab = calloc(g.tabcap, sizeof(*g.tab));
		if (!g.tab)
			die("out of memory");
		for (j = 0; j < oldcap; j++)
			if (old[j].key) {
				for (i = slot_of(old[j].key); g.tab[i].key; i = (i + 1) & (g.tabcap - 1))
					;
				g.tab[i] = old[j];
			}
		free(old);
	}
	for (i = slot_of(key); g.tab[i].key; i = (i + 1) & (g.tabcap - 1))
		;
	g.tab[i].key = key;
	g.tab[i].req = -1;
	g.tab[i].answered = false;
	g.tab[i].stale = 0;
	g.tab[i].resp = NULL;
	g.tabn++;
	return &g.tab[i];
}

/* Forget e once nothing more is due for it (backward-shift deletion). */
static void maybe_remove(struct entry *e)
{
	size_t i = (size_t)(e - g.tab), j, home;

	if (e->req >= 0 || e->stale || e->resp)
		return;
	g.tab[i].key = 0;
	g.tabn--;
	for (j = (i + 1) & (g.tabcap - 1); g.tab[j].key; j = (j + 1) & (g.tabcap - 1)) {
		home = slot_of(g.tab[j].key);
		if (((j - home) & (g.tabcap - 1)) >= ((j - i) & (g.tabcap - 1))) {
			g.tab[i] = g.tab[j];
			g.tab[j].key = 0;
			i = j;
		}
	}
}

static void ready_push(int fd, uint8_t *buf, size_t len, uint64_t due)
{
	if (g.rqlen == g.rqcap) {
		size_t cap = g.rqcap ? 2 * g.rqcap : 64, i;
		struct ready *d = xmalloc(cap * sizeof(*d));

		for (i = 0; i < g.rqlen; i++)
			d[i] = g.rq[(g.rqhead + i) % g.rqcap];
		free(g.rq);
		g.rq = d;
		g.rqcap = cap;
		g.rqhead = 0;
	}
	g.rq[(g.rqhead + g.rqlen++) % g.rqcap] = (struct ready){ fd, buf, len, due };
}

/* The first answer ready for fd, or none. */
static bool ready_pop(int fd, struct ready *out)
{
	size_t i;

	for (i = 0; i < g.rqlen; i++) {
		struct ready *r = &g.rq[(g.rqhead + i) % g.rqcap];

		if (r->fd != fd)
			continue;
		*out = *r;
		for (; i > 0; i--)
			g.rq[(g.rqhead + i) % g.rqcap] = g.rq[(g.rqhead + i - 1) % g.rqcap];
		g.rqhead = (g.rqhead + 1) % g.rqcap;
		g.rqlen--;
		return true;
	}
	return false;
}

static bool ready_has(int fd)
{
	size_t i;

	for (i = 0; i < g.rqlen; i++)
		if (g.rq[(g.rqhead + i) % g.rqcap].fd == fd)
			return true;
	return false;
}

static uint64_t key_of(const uint8_t *mad)
{
	return (field(mad, IB_MAD_MGMTCLASS_F) + 1) << 32 | (field(mad, IB_MAD_TRID_F) & 0xffffffffu);
}

/* Answers are held in buffers of one MAD (umad_size() + 256 bytes), reused. */
static uint8_t *copy(const void *p, size_t n)
{
	uint8_t *d;

	if (n > g.hs + IB_MAD_SIZE)
		n = g.hs + IB_MAD_SIZE;
	if (g.nspare)
		d = g.spare[--g.nspare];
	else
		d = xmalloc(g.hs + IB_MAD_SIZE);
	memcpy(d, p, n);
	return d;
}

static void release(uint8_t *buf)
{
	if (g.nspare == sizeof(g.spare) / sizeof(g.spare[0]))
		free(buf);
	else
		g.spare[g.nspare++] = buf;
}

/* A PortInfo answer tells which node holds a LID (port 0 of a switch, any CA port). */
static void learn(const struct entry *e, const uint8_t *buf, size_t len)
{
	const ib_user_mad_t *u = (const void *)buf;
	const uint8_t *mad = buf + g.hs, *pi = mad + IB_SMP_DATA_OFFS;
	int node = fm_req_dest(g.m, e->req);
	uint64_t lid;

	if (len < g.hs + IB_MAD_SIZE || u->status || field(mad, IB_DRSMP_STATUS_F) || node < 0)
		return;
	if (fm_topo_is_switch(g.topo, node) && field(mad, IB_MAD_ATTRMOD_F) != 0)
		return;
	lid = field(pi, IB_PORT_LID_F);
	if (lid)
		fm_learn_lid(g.m, (uint16_t)lid, (unsigned)field(pi, IB_PORT_LMC_F), node);
}

static void finish(struct entry *e)
{
	fm_req_put(g.m, e->req);
	e->req = -1;
	e->answered = false;
	maybe_remove(e);
}

/* An answer from the shim (at now): hold it until the model releases its request. */
static void from_shim(int fd, const uint8_t *buf, size_t len, uint64_t now)
{
	struct entry *e = len >= g.hs + 24 ? lookup(key_of(buf + g.hs)) : NULL;

	if (e && e->stale) {
		e->stale--;
		maybe_remove(e);
		return;
	}
	if (!e || e->req < 0 || e->resp) {
		ready_push(fd, copy(buf, len), len, now); /* not ours to delay */
		return;
	}
	if (e->portinfo)
		learn(e, buf, len);
	if (e->answered) {
		g.waiting_shim--;
		ready_push(fd, copy(buf, len), len, now);
		finish(e);
		return;
	}
	e->resp = copy(buf, len);
	e->resp_len = len;
}

static void pump(int fd)
{
	uint64_t now = 0;
	ssize_t n;

	while ((n = next_read(fd, g.rbuf, g.hs + IB_MAD_SIZE)) > 0) {
		if (!now)
			now = now_ns();
		from_shim(fd, g.rbuf, (size_t)n, now);
	}
}

/* Requests the model has ended by now: their answers become readable. */
static void collect(uint64_t now)
{
	enum fm_outcome out;
	uint64_t key;
	int req;

	fm_advance(g.m, now);
	while (fm_pop_done(g.m, now, &req, &key, &out)) {
		struct entry *e = lookup(key);

		if (!e || e->req != req) {
			fm_req_put(g.m, req);
			continue;
		}
		if (out == FM_TIMED_OUT) {
			ib_user_mad_t *u = (void *)copy(e->hdr, e->hdr_len);

			u->status = ETIMEDOUT;
			ready_push(e->fd, (uint8_t *)u, e->hdr_len, fm_req_done_at(g.m, req));
			if (e->resp) {
				release(e->resp);
				e->resp = NULL;
			} else {
				e->stale++;
			}
			finish(e);
		} else if (e->resp) {
			ready_push(e->fd, e->resp, e->resp_len, fm_req_done_at(g.m, req));
			e->resp = NULL;
			finish(e);
		} else {
			e->answered = true;
			g.waiting_shim++;
		}
	}
}

static void model_send(int fd, const void *buf, size_t count, uint64_t now)
{
	const ib_user_mad_t *u = buf;
	const uint8_t *mad = (const uint8_t *)buf + g.hs;
	unsigned cls = (unsigned)field(mad, IB_MAD_MGMTCLASS_F);
	uint16_t dlid = be16toh(u->addr.lid);
	struct fm_route r;
	enum fm_kind kind;
	struct entry *e;
	uint64_t key = key_of(mad);

	if (cls == IB_SMI_DIRECT_CLASS && dlid == 0xffff) {
		uint8_t path[FM_MAX_HOPS];

		mad_get_array((void *)(uintptr_t)mad, 0, IB_DRSMP_PATH_F, path);
		fm_route_dr(g.m, path, (int)field(mad, IB_DRSMP_HOPCNT_F), &r);
		kind = FM_DR_SMP;
	} else {
		/* ibsim routes a directed-route SMP with a LID by the LID alone */
		fm_route_lid(g.m, dlid, &r);
		kind = cls == IB_SMI_CLASS || cls == IB_SMI_DIRECT_CLASS ? FM_LID_SMP : FM_GMP;
	}
	e = lookup(key);
	if (!e)
		e = insert(key);
	else if (e->req >= 0) {
		/* The same TID while one is in flight (the kernel would refuse it):
		 * the older one's answer, if still to come, is not this one's. */
		if (e->answered)
			g.waiting_shim--;
		if (e->resp)
			release(e->resp);
		else
			e->stale++;
		e->resp = NULL;
		fm_req_put(g.m, e->req);
	}
	e->fd = fd;
	e->answered = false;
	e->portinfo = kind == FM_DR_SMP && field(mad, IB_MAD_METHOD_F) == IB_MAD_METHOD_GET &&
		      field(mad, IB_MAD_ATTRID_F) == IB_ATTR_PORT_INFO;
	e->hdr_len = g.hs + 24;
	memcpy(e->hdr, buf, e->hdr_len);
	(void)count;
	fm_advance(g.m, now);
	e->req = fm_send(g.m, now, kind, &r, (uint64_t)u->timeout_ms * 1000000u, u->retries, key);
}

/* ---- the wrapped calls ---- */

ssize_t write(int fd, const void *buf, size_t count)
{
	uint64_t now;
	ssize_t n;

	if (!is_umad(fd))
		return next_write(fd, buf, count);
	if (__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != 1) {
		pthread_mutex_lock(&g.lock);
		init_locked();
		pthread_mutex_unlock(&g.lock);
	}
	now = now_ns();
	n = next_write(fd, buf, count);
	/* Requests only: a response the tool sends (or a short write) is the shim's business. */
	if (n != (ssize_t)count || count < g.hs + IB_MAD_SIZE ||
	    field((const uint8_t *)buf + g.hs, IB_MAD_RESPONSE_F))
		return n;
	pthread_mutex_lock(&g.lock);
	model_send(fd, buf, count, now);
	pthread_mutex_unlock(&g.lock);
	return n;
}

/* An answer reaches the tool: how late after it was due. */
static void late(uint64_t due)
{
	uint64_t now = now_ns(), d = now > due ? now - due : 0;

	g.late_sum += d;
	g.late_n++;
	if (d > g.late_max)
		g.late_max = d;
}

ssize_t read(int fd, void *buf, size_t count)
{
	struct ready r;
	bool got;

	if (!is_umad(fd))
		return next_read(fd, buf, count);
	pthread_mutex_lock(&g.lock);
	init_locked();
	/* After a poll() that saw an answer, that answer is first in line: take
	 * it without asking the shim and the model again. */
	got = ready_pop(fd, &r);
	if (!got) {
		pump(fd);
		collect(now_ns());
		got = ready_pop(fd, &r);
	}
	if (got) {
		late(r.due);
		if (r.len > count)
			r.len = count;
		memcpy(buf, r.buf, r.len);
		release(r.buf);
	}
	pthread_mutex_unlock(&g.lock);
	if (!got)
		return -EWOULDBLOCK; /* as the shim does; libibumad expects it */
	return (ssize_t)r.len;
}

/* glibc declares poll()'s fds write-only (access attribute); fd and events are read. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
int poll(struct pollfd *pfds, nfds_t nfds, int timeout)
{
	uint64_t now, deadline, next, wake;
	nfds_t i;
	int fd;
	bool shim;

	/* Like the shim: the first umad fd in the set is the one waited on. */
	for (i = 0; i < nfds && !is_umad(pfds[i].fd); i++)
		;
	if (i == nfds)
		return next_poll(pfds, nfds, timeout);
	fd = pfds[i].fd;
	pfds[i].revents = 0;
	g.polls++;
	now = now_ns();
	deadline = timeout < 0 ? FM_NEVER : now + (uint64_t)timeout * 1000000u;
	for (;;) {
		pthread_mutex_lock(&g.lock);
		init_locked();
		pump(fd);
		now = now_ns();
		collect(now);
		if (ready_has(fd)) {
			pthread_mutex_unlock(&g.lock);
			pfds[i].revents = POLLIN;
			return 1;
		}
		if (now >= deadline) {
			pthread_mutex_unlock(&g.lock);
			return 0;
		}
		/* While the shim owes an answer that is already due, wait for it (or
		 * for the model's next event); else run the model to its next
		 * answer, which nothing can precede while this thread sleeps. */
		shim = g.waiting_shim > 0;
		next = shim ? fm_next_time(g.m) : fm_run_until_done(g.m, deadline);
		pthread_mutex_unlock(&g.lock);
		wake = next < deadline ? next : deadline;
		if (shim || next == FM_NEVER) {
			struct pollfd p = { fd, POLLIN, 0 };
			uint64_t ms = wake == FM_NEVER ? 0 : (wake - now + 999999) / 1000000;

			if (ms > 86400000)
				ms = 86400000;
			/* The shim's poll wakes as soon as an answer arrives. */
			g.shim_waits++;
			if (next_poll(&p, 1, wake == FM_NEVER ? -1 : (int)ms) < 0)
				return -1;
		} else {
			struct timespec ts = { (time_t)(wake / 1000000000u), (long)(wake % 1000000000u) };

			g.model_waits++;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
}

#pragma GCC diagnostic pop

/* ---- the report ---- */

static void put_name(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == ' ' || *s == ',' || *s == ':' || *s == '=' ? '_' : *s, f);
}

/* " KEY=k:n,..." : how many switches had at most k at once (k = max_busy, or max_out). */
static void put_hist(FILE *f, const char *key, unsigned max, bool out)
{
	unsigned *hist = calloc((size_t)max + 1, sizeof(*hist)), k;
	struct fm_node_stats ns;
	int n, sep = 0;

	fprintf(f, " %s=", key);
	for (n = 0; hist && n < fm_topo_count(g.topo); n++) {
		fm_node_stats(g.m, n, &ns);
		k = out ? ns.max_out : ns.max_busy;
		if (fm_topo_is_switch(g.topo, n) && k)
			hist[k]++;
	}
	for (k = 1; hist && k <= max; k++)
		if (hist[k])
			fprintf(f, "%s%u:%u", sep++ ? "," : "", k, hist[k]);
	fprintf(f, "%s", sep ? "" : "-");
	free(hist);
}

/* One line per run: what was sent, dropped, and the most any switch had at once. */
__attribute__((destructor)) static void report(void)
{
	const char *path = getenv("FABRICMODEL_REPORT"), *label = getenv("FABRICMODEL_LABEL");
	struct fm_stats s;
	struct fm_node_stats ns;
	int n, sep = 0;
	FILE *f;

	if (g.state != 1 || !path || !*path)
		return;
	pthread_mutex_lock(&g.lock);
	fm_stats(g.m, &s);
	f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "fabricmodel: error: cannot open '%s': %s\n", path, strerror(errno));
		pthread_mutex_unlock(&g.lock);
		return;
	}
	fprintf(f, "fabricmodel tool=%s label=", program_invocation_short_name);
	put_name(f, label && *label ? label : "-");
	fprintf(f, " hop_us=%g switch_us=%g ca_us=%g queue=", g.p.hop_ns / 1e3, g.p.switch_ns / 1e3,
		g.p.ca_ns / 1e3);
	if (g.p.queue == FM_NO_LIMIT)
		fprintf(f, "none");
	else
		fprintf(f, "%d", g.p.queue);
	fprintf(f,
		" sent=%llu dr_smp=%llu lid_smp=%llu gmp=%llu resent=%llu dropped=%llu timed_out=%llu"
		" unresolved=%llu max=%u max_at=",
		(unsigned long long)(s.sent[FM_DR_SMP] + s.sent[FM_LID_SMP] + s.sent[FM_GMP]),
		(unsigned long long)s.sent[FM_DR_SMP], (unsigned long long)s.sent[FM_LID_SMP],
		(unsigned long long)s.sent[FM_GMP], (unsigned long long)s.resent, (unsigned long long)s.dropped,
		(unsigned long long)s.timed_out, (unsigned long long)s.unresolved, s.max_busy);
	put_name(f, s.max_node >= 0 ? fm_topo_id(g.topo, s.max_node) : "-");
	fprintf(f, " out_max=%u out_max_at=", s.max_out);
	put_name(f, s.max_out_node >= 0 ? fm_topo_id(g.topo, s.max_out_node) : "-");
	fprintf(f, " dropped_at=");
	for (n = 0; n < fm_topo_count(g.topo); n++) {
		fm_node_stats(g.m, n, &ns);
		if (!ns.dropped)
			continue;
		fprintf(f, "%s", sep++ ? "," : "");
		put_name(f, fm_topo_id(g.topo, n));
		fprintf(f, ":%llu", (unsigned long long)ns.dropped);
	}
	fprintf(f, "%s", sep ? "" : "-");
	put_hist(f, "max_hist", s.max_busy, false);
	put_hist(f, "out_hist", s.max_out, true);
	fprintf(f, " polls=%lu shim_waits=%lu model_waits=%lu late_us_mean=%.1f late_us_max=%.1f", g.polls,
		g.shim_waits, g.model_waits, g.late_n ? (double)g.late_sum / (double)g.late_n / 1e3 : 0.0,
		(double)g.late_max / 1e3);
	fputc('\n', f);
	if (fclose(f))
		fprintf(stderr, "fabricmodel: error: cannot write '%s': %s\n", path, strerror(errno));
	pthread_mutex_unlock(&g.lock);
}
