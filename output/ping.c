/* `ibscan ping`: a link probe's result (either side), one render function per object for text and JSON. */
#include "ping.h"
#include "../core/base/round.h"

#include <inttypes.h>
#include <stdio.h>

static uint64_t mtu_bytes(unsigned mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128u << mtu : 0;
}

/*
 * Measured figures, rounded here so that text and JSON show the same digits
 * (docs/json-schema.md, ibscan.ping/1): times to 1 ns, the clock's
 * resolution; rates to 4 significant digits, fewer when the elapsed time
 * has fewer digits of nanoseconds to divide by.
 */
static double us_ns(double us)
{
	return ibs_round_dec(us, 3);
}

static double rate(double v, double elapsed_s)
{
	double ns = elapsed_s * 1e9;

	return ibs_round_sig(v, ns >= 1000 ? 4 : ns >= 100 ? 3 : ns >= 10 ? 2 : 1);
}

static void render_end(struct emit *e, const char *key, const char *label, const struct ibs_ping_end *n)
{
	char gid[48], hex[24];

	ibs_gid_str(n->gid, gid, sizeof(gid));
	emit_obj_open(e, key);
	emit_text(e, "  %-7s", label);
	emit_str(e, "link_layer", " %s", n->link_layer == IBS_LL_ETH ? "Ethernet" : "InfiniBand");
	emit_uint(e, "lid", ", LID %" PRIu64, n->lid);
	emit_uint(e, "qpn", ", QPN 0x%06" PRIx64, n->qpn);
	emit_uint(e, "psn", ", PSN 0x%06" PRIx64, n->psn);
	emit_uint(e, "gid_index", ", GID[%" PRIu64 "]", (uint64_t)(n->gid_index > 0 ? n->gid_index : 0));
	emit_str(e, "gid", " %s", gid);
	emit_str(e, "gid_type", " (%s)", ibs_gid_type_name(n->gid_type));
	emit_uint(e, "mtu", ", MTU %" PRIu64 "\n", mtu_bytes(n->mtu));
	emit_obj_open(e, "buffer");
	snprintf(hex, sizeof(hex), "0x%016" PRIx64, n->addr);
	emit_str(e, "addr", NULL, hex);
	snprintf(hex, sizeof(hex), "0x%08" PRIx32, n->rkey);
	emit_str(e, "rkey", NULL, hex);
	emit_uint(e, "bytes", NULL, n->len);
	emit_obj_close(e);
	emit_obj_close(e);
}

static void render_memory(struct emit *e, const struct ibs_ping_result *r)
{
	char key[16];

	emit_obj_open(e, "memory");
	emit_uint(e, "bytes", "  memory: %" PRIu64 " bytes registered", r->mr.bytes);
	emit_double(e, "register_us", " in %.3f us", us_ns(r->mr.reg_us));
	snprintf(key, sizeof(key), "0x%08" PRIx32, r->mr.lkey);
	emit_str(e, "lkey", ", lkey %s", key);
	snprintf(key, sizeof(key), "0x%08" PRIx32, r->mr.rkey);
	emit_str(e, "rkey", ", rkey %s\n", key);
	emit_obj_close(e);
}

static void render_latency(struct emit *e, const struct ibs_ping_result *r)
{
	if (!r->has_latency) {
		emit_null(e, "latency_us", NULL);
		return;
	}
	emit_obj_open(e, "latency_us");
	emit_str(e, "kind", "  latency in us (%s):", r->half_rtt ? "half_round_trip" : "round_trip");
	emit_double(e, "min", " min %.3f", us_ns(r->lat_min_us));
	emit_double(e, "median", ", median %.3f", us_ns(r->lat_median_us));
	emit_double(e, "p99", ", p99 %.3f", us_ns(r->lat_p99_us));
	emit_double(e, "max", ", max %.3f", us_ns(r->lat_max_us));
	emit_double(e, "mean", ", mean %.3f\n", us_ns(r->lat_mean_us));
	emit_obj_close(e);
}

/* How the figures were measured, in perftest's terms: an operator compares them with ib_*_lat and ib_*_bw. */
static void render_method(struct emit *e, const struct ibs_ping_result *r)
{
	emit_obj_open(e, "method");
	emit_uint(e, "inline_bytes",
		  r->inline_len ? "  method: inline (%" PRIu64 " bytes in the work request)"
				: "  method: from the registered buffer",
		  r->inline_len);
	emit_uint(e, "in_flight", ", %" PRIu64 " in flight", r->in_flight);
	emit_uint(e, "signal_every",
		  r->signal_every > 1 ? ", one completion per %" PRIu64 " work requests" : ", every work request signaled",
		  r->signal_every);
	emit_text(e, " (as perftest)\n");
	emit_obj_close(e);
}

void render_ping(struct emit *e, const struct ibs_ping_result *r)
{
	const char *what = r->bw ? "bandwidth" : "latency";

	emit_obj_open(e, NULL);
	emit_str(e, "schema", NULL, IBS_PING_SCHEMA);
	emit_str(e, "role", NULL, r->server ? "listener" : "client");
	emit_text(e, r->server ? "served " : "probe of ");
	emit_str(e, "peer", "%s:", r->peer);
	emit_str(e, "op", " %s", ibs_ping_op_name(r->op));
	emit_bool(e, "bandwidth", NULL, r->bw);
	emit_text(e, " %s", what);
	emit_uint(e, "iterations", ", %" PRIu64, r->iters);
	emit_uint(e, "size", " x %" PRIu64 " bytes", r->size);
	emit_str(e, "device", ", from %s", r->device);
	emit_uint(e, "port", " port %" PRIu64 "\n", r->port);
	emit_str(e, "addressing", "  addressed by %s", r->use_grh ? "GID" : "LID");
	emit_str(e, "gid_choice", r->use_grh ? " (%s)" : NULL, r->gid_choice);
	emit_str(e, "gid_netdev", NULL, r->gid_netdev);
	emit_str(e, "setup_address", NULL, r->setup_addr);
	emit_uint(e, "sl", r->sl ? ", SL %" PRIu64 : NULL, r->sl);
	emit_uint(e, "pkey_index", r->pkey_index ? ", P_Key index %" PRIu64 : NULL, r->pkey_index);
	emit_uint(e, "traffic_class", r->tclass ? ", traffic class %" PRIu64 : NULL, r->tclass);
	if (r->dlid)
		emit_uint(e, "dlid", ", to the router's LID %" PRIu64, r->dlid);
	else
		emit_null(e, "dlid", NULL);
	emit_uint(e, "path_mtu", ", path MTU %" PRIu64 "\n", mtu_bytes(r->mtu));
	render_end(e, "local", "local:", &r->local);
	render_end(e, "remote", "remote:", &r->remote);
	render_memory(e, r);
	emit_uint(e, "dropped_peers", r->dropped ? "  %" PRIu64 " peer(s) dropped before this one (malformed or silent)\n" : NULL,
		  r->dropped);
	render_method(e, r);
	render_latency(e, r);
	if (!r->measured) {
		emit_null(e, "elapsed_s", NULL);
		emit_null(e, "messages_per_s", NULL);
		emit_null(e, "gbit_per_s", NULL);
		emit_null(e, "bytes", NULL);
		emit_text(e, "  ok (the client reports the measurements)\n");
		emit_obj_close(e);
		return;
	}
	emit_text(e, "  %u operations", r->iters);
	emit_double(e, "elapsed_s", " in %.9f s", ibs_round_dec(r->elapsed_s, 9));
	emit_double(e, "messages_per_s", ": %.0f per second", rate(r->msg_rate, r->elapsed_s));
	emit_double(e, "gbit_per_s", ", %.4g Gb/s", rate(r->gbit_s, r->elapsed_s));
	emit_uint(e, "bytes", " of payload (%" PRIu64 " bytes)\n", r->bytes);
	emit_obj_close(e);
}
