/* `ibscan ping`: an RC ping-pong or bandwidth probe between two hosts over libibverbs. */
#include "cli.h"
#include "cmds.h"
#include "../core/base/log.h"
#include "../core/probe/oob.h"
#include "../core/probe/tcp.h"
#include "../core/probe/ping.h"
#include "../output/ping.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum {
	OPT_LISTEN = OPT_CMD_BASE,
	OPT_BIND,
	OPT_TCP_PORT,
	OPT_GID_INDEX,
	OPT_OP,
	OPT_BW,
	OPT_ITERS,
	OPT_SIZE,
	OPT_WAIT,
	OPT_SL,
	OPT_PKEY_INDEX,
	OPT_TCLASS,
	OPT_DLID,
};

#define DEFAULT_WAIT_S 600

struct ping_job {
	const struct ibs_ping_result *r;
	bool json;
};

static int write_ping(FILE *out, void *ctx)
{
	struct ping_job *j = ctx;
	struct emit *e = emit_new(j->json ? EMIT_JSON : EMIT_TEXT);
	int rc;

	render_ping(e, j->r);
	rc = emit_write(e, out);
	emit_free(e);
	return rc;
}

/* A size in bytes, with an optional K or M (binary) suffix. */
static bool parse_size(const char *s, unsigned *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end == 'k' || *end == 'K')
		shift = 10, end++;
	else if (*end == 'm' || *end == 'M')
		shift = 20, end++;
	if (*end || v == 0 || v > (IBS_PING_MAX_SIZE >> shift))
		return false;
	*out = (unsigned)(v << shift);
	return true;
}

/* What ping's own options set. */
struct ping_args {
	const struct cmd_desc *cmd;
	struct ibs_ping_opts *o;
	const char *bind_addr;
	unsigned tcp_port, wait_s;
	bool listen, size_set, wait_set;
};

static int ping_opt(int opt, const char *arg, void *ctx)
{
	static const char *const op_names[] = { "send", "write", "read", "atomic" };
	struct ping_args *a = ctx;
	const struct cmd_desc *cmd = a->cmd;
	unsigned u;
	int i;

	switch (opt) {
	case OPT_LISTEN:
		a->listen = true;
		return 1;
	case OPT_BIND:
		a->bind_addr = arg;
		return 1;
	case OPT_TCP_PORT:
		if (!cli_parse_uint(arg, 1, 65535, &a->tcp_port))
			return cli_usage_error(cmd, "--tcp-port wants a port number from 1 to 65535, not '%s'", arg), -1;
		return 1;
	case OPT_GID_INDEX:
		if (!cli_parse_uint(arg, 0, 65535, &u))
			return cli_usage_error(cmd, "--gid-index wants a GID table index, not '%s'", arg), -1;
		a->o->gid_index = (int)u;
		return 1;
	case OPT_SL:
		if (!cli_parse_uint(arg, 0, 15, &a->o->sl))
			return cli_usage_error(cmd, "--sl wants a service level from 0 to 15, not '%s'", arg), -1;
		return 1;
	case OPT_PKEY_INDEX:
		if (!cli_parse_uint(arg, 0, 65535, &a->o->pkey_index))
			return cli_usage_error(cmd, "--pkey-index wants a P_Key table index, not '%s'", arg), -1;
		return 1;
	case OPT_TCLASS:
		if (!cli_parse_uint(arg, 0, 255, &a->o->tclass))
			return cli_usage_error(cmd, "--tclass wants a traffic class from 0 to 255 (DSCP x 4), not '%s'", arg),
			       -1;
		return 1;
	case OPT_DLID:
		if (!cli_parse_uint(arg, 1, 0xbfff, &a->o->dlid))
			return cli_usage_error(cmd, "--dlid wants a unicast LID from 1 to 49151, not '%s'", arg), -1;
		return 1;
	case OPT_OP:
		for (i = 0; i < IBS_OP__COUNT; i++)
			if (!strcmp(arg, op_names[i]))
				break;
		if (i == IBS_OP__COUNT)
			return cli_usage_error(cmd, "unknown --op '%s' (send, write, read or atomic)", arg), -1;
		a->o->op = (enum ibs_ping_op)i;
		return 1;
	case OPT_BW:
		a->o->bw = true;
		return 1;
	case OPT_ITERS:
		if (!cli_parse_uint(arg, 1, IBS_PING_MAX_ITERS, &a->o->iters))
			return cli_usage_error(cmd, "--iters wants a number from 1 to %u, not '%s'", IBS_PING_MAX_ITERS,
					       arg), -1;
		return 1;
	case OPT_SIZE:
		if (!parse_size(arg, &a->o->size))
			return cli_usage_error(cmd, "--size wants bytes from 1 to 16M (K and M suffixes), not '%s'", arg),
			       -1;
		a->size_set = true;
		return 1;
	case OPT_WAIT:
		if (!cli_parse_uint(arg, 0, 86400, &a->wait_s))
			return cli_usage_error(cmd, "--wait wants seconds from 0 (forever) to 86400, not '%s'", arg), -1;
		a->wait_set = true;
		return 1;
	}
	return 0;
}

int cmd_ping(int argc, char **argv)
{
	/* -C, -P, --timeout and --deadline are the shared ones, with ping's own help and defaults. */
	static const struct option opts[] = {
		{ "listen", no_argument, NULL, OPT_LISTEN },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "tcp-port", required_argument, NULL, OPT_TCP_PORT },
		{ "ca", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "gid-index", required_argument, NULL, OPT_GID_INDEX },
		{ "op", required_argument, NULL, OPT_OP },
		{ "bw", no_argument, NULL, OPT_BW },
		{ "iters", required_argument, NULL, OPT_ITERS },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "deadline", required_argument, NULL, OPT_DEADLINE },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "sl", required_argument, NULL, OPT_SL },
		{ "pkey-index", required_argument, NULL, OPT_PKEY_INDEX },
		{ "tclass", required_argument, NULL, OPT_TCLASS },
		{ "dlid", required_argument, NULL, OPT_DLID },
		{ NULL, 0, NULL, 0 },
	};
	const struct cmd_desc *cmd = cmd_find("ping");
	struct ibs_ping_opts o;
	struct ibs_ping_result res;
	struct ibs_ping *p = NULL;
	struct cli_common c;
	struct ping_job j;
	struct ping_args a;
	const char *host = NULL;
	enum ibs_err err;
	int rc, lfd = -1;
	char *msg = NULL;

	memset(&o, 0, sizeof(o));
	o.gid_index = -1;
	o.op = IBS_OP_SEND;
	o.iters = IBS_PING_DEFAULT_ITERS;
	o.size = 0; /* the library's default: 64, 64 KiB with --bw */
	memset(&a, 0, sizeof(a));
	a.cmd = cmd;
	a.o = &o;
	a.tcp_port = IBS_OOB_DEFAULT_PORT;
	a.wait_s = DEFAULT_WAIT_S;
	rc = cli_parse(cmd, &c, argc, argv, opts, ping_opt, &a);
	if (rc != CLI_PARSED)
		return rc;
	if (!c.timeout_set)
		c.timeout_ms = IBS_PING_DEFAULT_TIMEOUT_MS;
	if (optind < argc)
		host = argv[optind++];
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (a.listen && host)
		return cli_usage_error(cmd, "--listen takes no HOST: the client names the listener");
	if (!a.listen && !host)
		return cli_usage_error(cmd, "missing HOST (the host running 'ibscan ping --listen'), or --listen");
	if (!a.listen && (a.bind_addr || a.wait_set))
		return cli_usage_error(cmd, "%s is for the listener (--listen)", a.bind_addr ? "--bind" : "--wait");
	if (o.op == IBS_OP_ATOMIC) {
		if (a.size_set && o.size != IBS_PING_ATOMIC_SIZE)
			return cli_usage_error(cmd, "--op atomic moves 8 bytes: --size must be 8 or left out");
		o.size = IBS_PING_ATOMIC_SIZE;
	}
	rc = cli_text_or_json(cmd, &c, &j.json);
	if (rc != CLI_PARSED)
		return rc;
	o.ca = c.ca;
	o.port = (unsigned)c.port;
	o.timeout_ms = c.timeout_ms;
	o.session_ms = (unsigned)(c.deadline_s * 1000.0);

	/* The device first: without one there is nothing to probe, whatever the peer does. */
	err = ibs_ping_open(&ibs_verbs_ibv, &o, &p);
	if (err) {
		ibs_ping_close(p);
		return EXIT_RUNTIME;
	}
	if (a.listen) {
		unsigned bound = a.tcp_port;
		const struct ibs_vdev_info *d = ibs_ping_device(p);
		err = ibs_tcp_listen(a.bind_addr, a.tcp_port, &lfd, &bound, &msg);
		if (err) {
			log_error("%s", msg);
			log_hint("another program may hold that port: pick another with --tcp-port on both hosts");
			free(msg);
			ibs_ping_close(p);
			return EXIT_RUNTIME;
		}
		if (log_get_level() >= LOG_WARN)
			fprintf(stderr, "ibscan: listening on %s port %u%s with %s port %u; waiting %s for a probe\n",
				a.bind_addr ? a.bind_addr : "0.0.0.0", bound,
				a.bind_addr ? "" : " (every IPv4 address: --bind ADDR limits it)", d->name, d->port,
				a.wait_s ? "up to --wait seconds" : "without limit");
		err = ibs_ping_serve(p, lfd, a.wait_s ? (int)(a.wait_s * 1000) : -1, &res);
		close(lfd);
	} else {
		err = ibs_ping_client(p, host, a.tcp_port, &res);
	}
	ibs_ping_close(p);
	if (err)
		return EXIT_RUNTIME;
	j.r = &res;
	rc = cli_write_output(&c, write_ping, &j);
	ibs_ping_result_free(&res);
	return rc;
}
