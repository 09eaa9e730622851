/*
 * A probe's two sides in one process over the fake verbs (fake_verbs.h),
 * for the tests of core/probe's files and of output/ping.c: a client and a
 * listener (in a thread) over a socket pair, a listener over loopback TCP,
 * the fake ports' RoCE GID tables, what a good pair's results say, and a
 * result rendered. Every call checks with cmocka's asserts.
 */
#ifndef IBSCAN_TEST_PROBE_PAIR_H
#define IBSCAN_TEST_PROBE_PAIR_H

#include <stdbool.h>
#include <jansson.h>

#include "fake_verbs.h"
#include "../../../core/probe/ping.h"
#include "../../../output/emit.h"

/* One side of a probe: its options, its probe, its socket, and what it ended with. */
struct side {
	struct ibs_ping_opts o;
	struct ibs_ping *p;
	int fd;
	enum ibs_err rc;
	bool accepted;
	struct ibs_ping_result res;
	enum ibs_ping_step step;
	char *err, *hint;
};

/* s cleared, then options for op (bandwidth if bw), iters of size bytes, a 5 s --timeout, no GID index. */
void side_opts(struct side *s, enum ibs_ping_op op, bool bw, unsigned iters, unsigned size);
/* Keep what failed (step, error, hint), then close s's probe. */
void side_finish(struct side *s);
/* Free what side_finish kept and the result. */
void side_free(struct side *s);
/* The listener side's thread: serves s->fd (then closes it) as ibs_ping_serve_fd. */
void *side_serve(void *arg);
/* A cmocka set-up: fv_reset. */
int side_setup(void **state);

/* Fail unless s holds want. */
void has_text(const char *s, const char *want);

/* A client and a listener over a socket pair, the listener in a thread; the listener's device is opened first. */
void run_pair(struct side *c, struct side *s);
/* run_pair; change(), if any, runs between the listener's open and the client's. */
void run_pair_then(struct side *c, struct side *s, void (*change)(void));
/* run_pair where the client's packets go nowhere: RETRY_EXC_ERR; both sides freed. */
void run_pair_lost(struct side *c, struct side *s);

/* Every fake port RoCE with an empty GID table. */
void roce_ports(void);
/* Port n (the n-th device opened): fe80::...:3c10+n and 192.168.10.5+n, each as RoCE v1 (0, 2) and v2 (1, 3). */
void roce_table(void);

/* A latency result whose figures are in order. */
void check_latency(const struct ibs_ping_result *r);
/* The two results of a good pair describe the same connection from both ends. */
void check_pair(const struct side *c, const struct side *s);

/* A listener over TCP for ping_listen_main: its probe, listening socket, --wait, and how it ended. */
struct ping_listener {
	struct ibs_ping *p;
	int lfd, wait_ms;
	enum ibs_err rc;
	struct ibs_ping_result res;
};
/* A thread that runs ibs_ping_serve on its struct ping_listener. */
void *ping_listen_main(void *arg);

/* r rendered by render_ping as text or JSON (the caller frees it). */
char *ping_render(const struct ibs_ping_result *r, enum emit_mode mode);
/* r rendered as JSON and parsed (json_decref it). */
json_t *ping_render_json(const struct ibs_ping_result *r);

#endif
