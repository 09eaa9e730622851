/* A probe's two sides run in one process over the fake verbs, and its result rendered: see probe_pair.h. */
#include "probe_pair.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../../core/base/xalloc.h"
#include "../../../core/probe/tcp.h"
#include "../../../output/ping.h"

void side_opts(struct side *s, enum ibs_ping_op op, bool bw, unsigned iters, unsigned size)
{
	memset(s, 0, sizeof(*s));
	s->o.gid_index = -1;
	s->o.op = op;
	s->o.bw = bw;
	s->o.iters = iters;
	s->o.size = size;
	s->o.timeout_ms = 5000;
	s->fd = -1;
}

/* Keep what failed, then close. */
void side_finish(struct side *s)
{
	if (s->p) {
		s->step = ibs_ping_failed_step(s->p);
		s->err = ibs_ping_error(s->p) ? xstrdup(ibs_ping_error(s->p)) : NULL;
		s->hint = ibs_ping_hint(s->p) ? xstrdup(ibs_ping_hint(s->p)) : NULL;
	}
	ibs_ping_close(s->p);
	s->p = NULL;
}

void side_free(struct side *s)
{
	ibs_ping_result_free(&s->res);
	free(s->err);
	free(s->hint);
}

void has_text(const char *s, const char *want)
{
	if (!s || !strstr(s, want))
		fail_msg("'%s' lacks '%s'", s ? s : "(null)", want);
}

void *side_serve(void *arg)
{
	struct side *s = arg;

	s->rc = ibs_ping_serve_fd(s->p, s->fd, "client", &s->res, &s->accepted);
	close(s->fd);
	return NULL;
}

void run_pair(struct side *c, struct side *s)
{
	run_pair_then(c, s, NULL);
}

int side_setup(void **state)
{
	(void)state;
	fv_reset();
	return 0;
}

/* A client and a listener over a socket pair; change(), if any, runs between the listener's open and its peer. */
void run_pair_then(struct side *c, struct side *s, void (*change)(void))
{
	pthread_t th;
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	s->fd = sv[1];
	c->fd = sv[0];
	s->rc = ibs_ping_open(&fake_verbs, &s->o, &s->p);
	assert_int_equal(s->rc, IBS_OK);
	if (change)
		change();
	c->rc = ibs_ping_open(&fake_verbs, &c->o, &c->p);
	assert_int_equal(pthread_create(&th, NULL, side_serve, s), 0);
	if (c->rc == IBS_OK)
		c->rc = ibs_ping_client_fd(c->p, c->fd, "listener", &c->res);
	side_finish(c);
	close(c->fd);
	pthread_join(th, NULL);
	side_finish(s);
	assert_false(fv.overrun);
}

/* Every port RoCE with an empty GID table. */
void roce_ports(void)
{
	unsigned i;

	for (i = 0; i < FV_PORTS; i++) {
		fv.port[i].ll = IBS_LL_ETH;
		memset(fv.port[i].gids, 0, sizeof(fv.port[i].gids));
	}
}

/* Port n (the n-th device opened): fe80::...:3c10+n and 192.168.10.5+n, each as RoCE v1 and v2. */
void roce_table(void)
{
	uint8_t ll[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x0e, 0x42, 0xa1, 0xff, 0xfe, 0x5b, 0x3c, 0x10 };
	uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 10, 5 };
	unsigned i;

	roce_ports();
	for (i = 0; i < FV_PORTS; i++) {
		ll[15] = (uint8_t)(0x10 + i);
		v4[15] = (uint8_t)(5 + i);
		fv_set_gid(i, 0, ll, IBS_GID_IB_ROCE_V1);
		fv_set_gid(i, 1, ll, IBS_GID_ROCE_V2);
		fv_set_gid(i, 2, v4, IBS_GID_IB_ROCE_V1);
		fv_set_gid(i, 3, v4, IBS_GID_ROCE_V2);
		/* 4 and up stay empty, as unused entries of a real table do. */
	}
}

void check_latency(const struct ibs_ping_result *r)
{
	assert_true(r->measured);
	assert_true(r->has_latency);
	assert_true(r->lat_min_us >= 0);
	assert_true(r->lat_min_us <= r->lat_median_us);
	assert_true(r->lat_median_us <= r->lat_p99_us);
	assert_true(r->lat_p99_us <= r->lat_max_us);
	assert_true(r->lat_mean_us >= r->lat_min_us && r->lat_mean_us <= r->lat_max_us);
	assert_true(r->elapsed_s > 0);
	assert_true(r->msg_rate > 0);
}

/* The two results describe the same connection from both ends. */
void check_pair(const struct side *c, const struct side *s)
{
	assert_int_equal(c->rc, IBS_OK);
	assert_int_equal(s->rc, IBS_OK);
	assert_true(s->accepted);
	assert_false(c->res.server);
	assert_true(s->res.server);
	assert_false(s->res.measured);
	assert_int_equal(c->res.local.qpn, s->res.remote.qpn);
	assert_int_equal(c->res.remote.qpn, s->res.local.qpn);
	assert_int_equal(c->res.local.psn, s->res.remote.psn);
	assert_int_equal(c->res.remote.rkey, s->res.mr.rkey);
	assert_int_equal(c->res.mtu, 5);
	assert_true(c->res.mr.bytes >= 2 * c->res.size);
	assert_true(c->res.mr.reg_us >= 0);
	assert_int_equal(c->res.op, s->res.op);
	assert_int_equal(c->res.iters, s->res.iters);
}

/* The client's packets go nowhere: RETRY_EXC_ERR (the listener hears why at its timeout). */
void run_pair_lost(struct side *c, struct side *s)
{
	s->o.timeout_ms = 500;
	run_pair(c, s);
	assert_int_equal(c->rc, IBS_E_STATUS);
	has_text(c->err, "completed with status RETRY_EXC_ERR");
	side_free(c);
	side_free(s);
}

void *ping_listen_main(void *arg)
{
	struct ping_listener *l = arg;

	l->rc = ibs_ping_serve(l->p, l->lfd, l->wait_ms, &l->res);
	return NULL;
}

/* A result rendered as text or JSON (owned by the caller). */
char *ping_render(const struct ibs_ping_result *r, enum emit_mode mode)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct emit *e = emit_new(mode);

	render_ping(e, r);
	assert_int_equal(emit_write(e, m), 0);
	emit_free(e);
	fclose(m);
	return buf;
}

json_t *ping_render_json(const struct ibs_ping_result *r)
{
	char *buf = ping_render(r, EMIT_JSON);
	json_error_t jerr;
	json_t *j = json_loads(buf, 0, &jerr);

	if (!j)
		fail_msg("not JSON: %s: %s", jerr.text, buf);
	free(buf);
	return j;
}
