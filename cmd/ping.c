/* `ibscan ping`: an RC ping-pong or bandwidth probe between two hosts over libibverbs. */
#include "cli.h"
#include "cmds.h"
#include "render.h"
#include "../core/base/log.h"
#include "../core/probe/oob.h"
#include "../core/probe/tcp.h"
#include "../core/probe/ping.h"

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
	struct ibs_ping_opts o;
	const char *bind_addr;
	unsigned tcp_port, wait_s;
	bool listen, size_set, wait_set;
};

static int ping_opt(int opt, const char *arg, void *ctx)
{
	static const char *const op_names[] = { "send", "write", "read", "atomic" };
	struct ping_args *a = ctx;
	const struct cmd_desc *cmd = a->cmd;
	int i;

	switch (opt) {
	case OPT_OP:
		for (i = 0; i < IBS_OP__COUNT; i++)
			if (!strcmp(arg, op_names[i]))
				break;
		if (i == IBS_OP__COUNT)
			return cli_usage_error(cmd, "unknown --op '%s' (send, write, read or atomic)", arg), -1;
		a->o.op = (enum ibs_ping_op)i;
		return 1;
	case OPT_ITERS:
		if (!cli_parse_uint(arg, 1, IBS_PING_MAX_ITERS, &a->o.iters))
			return cli_usage_error(cmd, "--iters wants a number from 1 to %u, not '%s'", IBS_PING_MAX_ITERS,
					       arg), -1;
		return 1;
	case OPT_SIZE:
		if (!parse_size(arg, &a->o.size))
			return cli_usage_error(cmd, "--size wants bytes from 1 to 16M (K and M suffixes), not '%s'", arg),
			       -1;
		a->size_set = true;
		return 1;
	}
	return 0;
}

#define AT(field) offsetof(struct ping_args, field)
/* An unsigned option of ping in [lo, hi], stored at field. */
#define UROW(lname, oid, argname, text, kind_, field, given, lo_, hi_, want_)                                    \
	{ .name = (lname), .id = (oid), .arg = (argname), .help = (text), .kind = (kind_), .at = AT(field),        \
	  .given_at = (given), .lo = (lo_), .hi = (hi_), .want = (want_) }

/* -C, -P, --timeout and --deadline are the shared ones, with ping's own help and defaults. */
const struct cli_opt ping_opts[] = {
	CLI_TEXT("roles:\n"),
	{ .name = "listen", .id = OPT_LISTEN, .help = "wait for one probe (one peer at a time; silent or malformed peers are dropped)",
	  .kind = CLI_K_FLAG, .at = AT(listen), .given_at = CLI_NOT_TRACKED },
	CLI_TEXT("  HOST                   probe the host running 'ibscan ping --listen'\noptions:\n"),
	UROW("tcp-port", OPT_TCP_PORT, "N", "TCP port of the out-of-band exchange (default 18515)", CLI_K_UINT,
	     tcp_port, CLI_NOT_TRACKED, 1, 65535, "a port number from 1 to 65535"),
	{ .name = "bind", .id = OPT_BIND, .arg = "ADDR",
	  .help = "listener: the address to listen on (default every IPv4 and IPv6 address)", .kind = CLI_K_STR,
	  .at = AT(bind_addr), .given_at = CLI_NOT_TRACKED },
	UROW("wait", OPT_WAIT, "S", "listener: give up when no probe completes within S seconds (default 600; 0: never)",
	     CLI_K_UINT, wait_s, AT(wait_set), 0, 86400, "seconds from 0 (forever) to 86400"),
	CLI_SHARED("ca", 'C', "NAME", "RDMA device (default: the first with an active port)"),
	CLI_SHARED("port", 'P', "N", "its port (default: its first active port)"),
	UROW("gid-index", OPT_GID_INDEX, "N",
	     "GID to use (default: RoCE takes the setup connection's address, else RoCE v2\n"
	     "with an IPv4 address; InfiniBand uses LIDs)",
	     CLI_K_INT, o.gid_index, CLI_NOT_TRACKED, 0, 65535, "a GID table index"),
	UROW("sl", OPT_SL, "N",
	     "service level, 0-15 (default 0, or the peer's; RoCE: the VLAN priority);\n"
	     "the listener answers in the client's",
	     CLI_K_UINT, o.sl, AT(o.sl_set), 0, 15, "a service level from 0 to 15"),
	UROW("tclass", OPT_TCLASS, "N",
	     "GRH traffic class, 0-255 (default 0, or the peer's; RoCE v2: DSCP x 4,\n"
	     "e.g. 104 for DSCP 26); the listener answers in the client's",
	     CLI_K_UINT, o.tclass, AT(o.tclass_set), 0, 255, "a traffic class from 0 to 255 (DSCP x 4)"),
	UROW("pkey-index", OPT_PKEY_INDEX, "N", "P_Key table entry of the queue pair (default 0)", CLI_K_UINT,
	     o.pkey_index, CLI_NOT_TRACKED, 0, 65535, "a P_Key table index"),
	UROW("dlid", OPT_DLID, "LID", "InfiniBand across subnets: the router's LID, addressed by GID through it",
	     CLI_K_UINT, o.dlid, CLI_NOT_TRACKED, 1, 0xbfff, "a unicast LID from 1 to 49151"),
	CLI_OWN("op", OPT_OP, "OP",
		"send (send/recv, default), write (RDMA write), read (RDMA read), atomic (fetch-and-add)"),
	{ .name = "bw", .id = OPT_BW, .help = "a bandwidth run instead of latency round trips", .kind = CLI_K_FLAG,
	  .at = AT(o.bw), .given_at = CLI_NOT_TRACKED },
	CLI_OWN("iters", OPT_ITERS, "N", "operations (default 1000)"),
	CLI_OWN("size", OPT_SIZE, "BYTES", "bytes per operation, K and M suffixes (default 64; --bw 64K; atomic: 8)"),
	CLI_SHARED("timeout", OPT_TIMEOUT, "MS", "deadline of every wait: completions, TCP messages (default 5000)"),
	CLI_SHARED("deadline", OPT_DEADLINE, "S",
		   "end the probe session within S seconds of its connection, whatever the\n"
		   "peer sends (default 300)"),
	CLI_VIEW_ROWS,
	CLI_END,
};

int cmd_ping(int argc, char **argv)
{
	/* -C, -P, --timeout and --deadline are the shared ones, with ping's own help and defaults. */
	const struct cmd_desc *cmd = cmd_find("ping");
	struct ibs_ping_result res;
	struct ibs_ping *p = NULL;
	struct cli_common c;
	struct cli_render r = { .view = CLI_V_PING };
	bool json;
	struct ping_args a;
	const char *host = NULL;
	enum ibs_err err;
	int rc, lfd = -1;
	char *msg = NULL;

	memset(&a, 0, sizeof(a));
	a.o.gid_index = -1;
	a.o.op = IBS_OP_SEND;
	a.o.iters = IBS_PING_DEFAULT_ITERS;
	a.o.size = 0; /* the library's default: 64, 64 KiB with --bw */
	a.cmd = cmd;
	a.tcp_port = IBS_OOB_DEFAULT_PORT;
	a.wait_s = DEFAULT_WAIT_S;
	rc = cli_parse(cmd, &c, argc, argv, ping_opt, &a);
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
	if (a.o.op == IBS_OP_ATOMIC) {
		if (a.size_set && a.o.size != IBS_PING_ATOMIC_SIZE)
			return cli_usage_error(cmd, "--op atomic moves 8 bytes: --size must be 8 or left out");
		a.o.size = IBS_PING_ATOMIC_SIZE;
	}
	rc = cli_text_or_json(cmd, &c, &json);
	if (rc != CLI_PARSED)
		return rc;
	a.o.ca = c.ca;
	a.o.port = (unsigned)c.port;
	a.o.timeout_ms = c.timeout_ms;
	a.o.session_ms = cli_deadline_ms(&c);

	/* The device first: without one there is nothing to probe, whatever the peer does. */
	err = ibs_ping_open(&ibs_verbs_ibv, &a.o, &p);
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
		if (log_get_level() >= LOG_WARN) {
			char *where = ibs_tcp_listen_where(lfd);
			fprintf(stderr, "ibscan: listening on %s port %u%s with %s port %u; waiting %s for a probe\n",
				where, bound, a.bind_addr ? "" : " (--bind ADDR limits it)", d->name, d->port,
				a.wait_s ? "up to --wait seconds" : "without limit");
			free(where);
		}
		err = ibs_ping_serve(p, lfd, a.wait_s ? (int)(a.wait_s * 1000) : -1, &res);
		close(lfd);
	} else {
		err = ibs_ping_client(p, host, a.tcp_port, &res);
	}
	ibs_ping_close(p);
	if (err)
		return EXIT_RUNTIME;
	r.fmt = json ? CLI_F_JSON : CLI_F_TEXT;
	r.ping = &res;
	rc = cli_render(&c, &r);
	ibs_ping_result_free(&res);
	return rc;
}
