/* The probe's TCP connection to its peer, every wait under a deadline, and whole out-of-band messages over it. */
#ifndef IBSCAN_TCP_H
#define IBSCAN_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"
#include "oob.h"

/*
 * TCP. Errors: IBS_E_TIMEOUT when a deadline passed, IBS_E_MALFORMED for a
 * peer that broke the protocol, IBS_E_TRANSPORT for a socket error or a
 * closed connection; *msg says which (owned by the caller).
 */
/*
 * Listen on addr and port (0: any; *bound says which). addr NULL: every IPv4
 * and IPv6 address (one IPv6 socket with IPV6_V6ONLY off, whatever
 * net.ipv6.bindv6only says), or every IPv4 address on a host without IPv6.
 */
enum ibs_err ibs_tcp_listen(const char *addr, unsigned port, int *fd, unsigned *bound, char **msg);
/* What a listening socket hears, for people: ":: (every IPv4 and IPv6 address)", "10.0.0.1"... Owned by the caller. */
char *ibs_tcp_listen_where(int lfd);
/* Wait up to timeout_ms (negative: forever) for a connection; *peer is "addr:port". */
enum ibs_err ibs_tcp_accept(int lfd, int timeout_ms, int *fd, char **peer, char **msg);
/* Resolve and connect within timeout_ms (name resolution included). */
enum ibs_err ibs_tcp_connect(const char *host, unsigned port, int timeout_ms, int *fd, char **msg);
/*
 * The local end of a connected TCP socket, as RoCE names it: its address as
 * a GID (an IPv4 address IPv4-mapped, ::ffff:a.b.c.d), the address as text,
 * and the interface that holds it (ifname: "" when none does, e.g. a
 * socket pair). False when the socket has no IP address.
 */
bool ibs_tcp_local_end(int fd, uint8_t gid[16], char *text, size_t text_len, char *ifname, size_t if_len);
/*
 * Close a connection so that the peer reads what was sent last (an error
 * message, say): stop sending, read and drop what the peer still sends
 * until it closes or linger_ms pass, then close. A plain close() with the
 * peer's keepalives unread sends a reset, and a reset can discard that last
 * message from the peer's receive queue before it is read.
 */
void ibs_tcp_close(int fd, int linger_ms);
/* Send or receive one whole message within timeout_ms. */
enum ibs_err ibs_oob_send(int fd, const struct ibs_oob_msg *m, int timeout_ms, char **msg);
enum ibs_err ibs_oob_recv(int fd, int timeout_ms, struct ibs_oob_msg *m, char **msg);

#endif
