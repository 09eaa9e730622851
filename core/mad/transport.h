/*
 * The MAD transport: a small ops table so that the libibumad backend, the
 * replay backend and the recording wrapper are interchangeable under the
 * engine. A transport moves whole 256-byte MADs; it does not match, retry or
 * time out anything (the engine does).
 */
#ifndef IBSCAN_TRANSPORT_H
#define IBSCAN_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/err.h"
#include "mad.h"

/* What we know about the local port we send from. */
struct ibs_local_port {
	char ca[64];
	int port;
	uint64_t node_guid;
	uint64_t port_guid;
	uint64_t system_image_guid;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t sm_sl;  /* PortInfo:MasterSMSL, the SL to reach the SM (and the SA) on */
	uint8_t lmc;
	uint8_t state;
	int node_type; /* IBS_NODE_* or 0 when unknown */
};

/* A received packet. */
struct ibs_packet {
	uint8_t mad[IBS_MAD_SIZE];
	size_t len;         /* bytes of mad that are valid */
	int status;         /* umad status: 0, or an errno such as ETIMEDOUT (110) */
};

struct ibs_transport;

struct ibs_transport_ops {
	const char *name;
	/*
	 * Send one MAD; must not block. IBS_E_SEND when this one MAD could not
	 * be sent (*cause: the errno, or 0), IBS_E_TRANSPORT when nothing more
	 * can be (the device is gone).
	 */
	enum ibs_err (*send)(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad, int *cause);
	/* Receive one packet, waiting at most timeout_ms (0: poll). IBS_E_AGAIN when none. */
	enum ibs_err (*recv)(struct ibs_transport *t, struct ibs_packet *pkt, int timeout_ms);
	/* The engine gave up on the request with this TID (deadline); optional. */
	void (*expire)(struct ibs_transport *t, const struct ibs_mad_req *req, uint32_t tid);
	enum ibs_err (*local_port)(struct ibs_transport *t, struct ibs_local_port *out);
	void (*close)(struct ibs_transport *t);
};

struct ibs_transport {
	const struct ibs_transport_ops *ops;
	void *priv;
};

/* Options to open a device. */
struct ibs_umad_opts {
	const char *ca;  /* NULL: first CA with an active IB port */
	int port;        /* 0: first active port */
	int timeout_ms;  /* carried on each send, so the kernel times out too */
};

/* libibumad backend (core/mad/umad.c, the only file that talks to libibumad). */
enum ibs_err ibs_umad_open(const struct ibs_umad_opts *o, struct ibs_transport **out);

static inline enum ibs_err ibs_transport_send(struct ibs_transport *t, const struct ibs_mad_req *r,
					      const uint8_t *mad, int *cause)
{
	*cause = 0;
	return t->ops->send(t, r, mad, cause);
}

static inline enum ibs_err ibs_transport_recv(struct ibs_transport *t, struct ibs_packet *p, int ms)
{
	return t->ops->recv(t, p, ms);
}

void ibs_transport_close(struct ibs_transport *t);
enum ibs_err ibs_transport_local_port(struct ibs_transport *t, struct ibs_local_port *out);

#endif
