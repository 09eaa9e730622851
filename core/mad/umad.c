/*
 * libibumad transport: the only file in ibscan that talks to libibumad.
 * One fd, one agent per management class (registered on first use), every
 * send non-blocking; timeouts and retries belong to the engine, but each send
 * still carries timeout_ms > 0 because the kernel drops the response of a
 * request sent with 0 (it treats it as unsolicited).
 */
#include "transport.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/umad.h>

struct umad_priv {
	int fd;
	int agents[256]; /* by management class; -1 when not registered */
	int timeout_ms;
	void *sbuf, *rbuf;
	size_t usize;
	struct ibs_local_port local;
};

static int class_version(int mgmt_class)
{
	return mgmt_class == IBS_CLASS_SA ? 2 : 1;
}

static int agent_for(struct umad_priv *p, int mgmt_class)
{
	int id;

	if (p->agents[mgmt_class] >= 0)
		return p->agents[mgmt_class];
	/* SA gets RMPP so that the kernel reassembles multi-packet responses. */
	id = umad_register(p->fd, mgmt_class, class_version(mgmt_class),
			   mgmt_class == IBS_CLASS_SA ? 1 : 0, NULL);
	if (id < 0) {
		log_error("cannot register a MAD agent for class 0x%02x on %s port %d: %s",
			  mgmt_class, p->local.ca, p->local.port, strerror(-id));
		return -1;
	}
	p->agents[mgmt_class] = id;
	return id;
}

static enum ibs_err u_send(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct umad_priv *p = t->priv;
	int agent = agent_for(p, req->mgmt_class);
	int rc;

	if (agent < 0)
		return IBS_E_TRANSPORT;
	memset(p->sbuf, 0, p->usize + IBS_MAD_SIZE);
	if (req->mgmt_class == IBS_CLASS_SMI_DR)
		umad_set_addr(p->sbuf, 0xffff, 0, 0, 0);
	else if (req->mgmt_class == IBS_CLASS_SMI)
		umad_set_addr(p->sbuf, req->addr.lid, 0, 0, 0);
	else
		umad_set_addr(p->sbuf, req->addr.lid, req->addr.qp ? (int)req->addr.qp : 1,
			      req->addr.sl, req->addr.qkey ? (int)req->addr.qkey : (int)0x80010000);
	memcpy(umad_get_mad(p->sbuf), mad, IBS_MAD_SIZE);
	rc = umad_send(p->fd, agent, p->sbuf, IBS_MAD_SIZE, p->timeout_ms, 0);
	if (rc < 0) {
		log_debug("umad_send: %s", strerror(-rc));
		return IBS_E_TRANSPORT;
	}
	return IBS_OK;
}

static enum ibs_err u_recv(struct ibs_transport *t, struct ibs_packet *pkt, int timeout_ms)
{
	struct umad_priv *p = t->priv;
	int len = IBS_MAD_SIZE;
	int rc;

	/* The simulator's shim wraps poll() on the umad fd alone; that is all we poll. */
	rc = umad_poll(p->fd, timeout_ms);
	if (rc == -ETIMEDOUT)
		return IBS_E_AGAIN;
	if (rc < 0) {
		log_error("cannot poll %s port %d: %s", p->local.ca, p->local.port, strerror(-rc));
		return IBS_E_TRANSPORT;
	}
	rc = umad_recv(p->fd, p->rbuf, &len, 0);
	if (rc == -EWOULDBLOCK || rc == -EAGAIN || rc == -ETIMEDOUT)
		return IBS_E_AGAIN;
	if (rc == -ENOSPC) {
		/* An RMPP response larger than one MAD: keep the first MAD only. */
		log_debug("umad_recv: response of %d bytes truncated", len);
		return IBS_E_AGAIN;
	}
	if (rc < 0) {
		log_error("cannot receive on %s port %d: %s", p->local.ca, p->local.port, strerror(-rc));
		return IBS_E_TRANSPORT;
	}
	if (len < 0)
		len = 0;
	pkt->len = (size_t)len < IBS_MAD_SIZE ? (size_t)len : IBS_MAD_SIZE;
	memset(pkt->mad, 0, sizeof(pkt->mad));
	memcpy(pkt->mad, umad_get_mad(p->rbuf), pkt->len);
	pkt->status = umad_status(p->rbuf);
	return IBS_OK;
}

static enum ibs_err u_local(struct ibs_transport *t, struct ibs_local_port *out)
{
	struct umad_priv *p = t->priv;

	*out = p->local;
	return IBS_OK;
}

static void u_close(struct ibs_transport *t)
{
	struct umad_priv *p = t->priv;

	if (p->fd >= 0)
		umad_close_port(p->fd);
	umad_done();
	free(p->sbuf);
	free(p->rbuf);
	free(p);
	free(t);
}

static const struct ibs_transport_ops umad_ops = {
	.name = "umad",
	.send = u_send,
	.recv = u_recv,
	.local_port = u_local,
	.close = u_close,
};

static void no_device_hint(void)
{
	log_hint("replay a capture with --replay FILE (see fixtures/captures/), or run "
		 "under the simulator (ibsim + LD_PRELOAD=libumad2sim.so, see README)");
}

enum ibs_err ibs_umad_open(const struct ibs_umad_opts *o, struct ibs_transport **out)
{
	struct umad_priv *p;
	struct ibs_transport *t;
	umad_port_t up;
	umad_ca_t uca;
	char ca[UMAD_CA_NAME_LEN] = "";
	int rc, i;

	*out = NULL;
	if (umad_init() < 0) {
		log_error("no InfiniBand device found: cannot initialise libibumad");
		no_device_hint();
		return IBS_E_NODEV;
	}
	memset(&up, 0, sizeof(up));
	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	rc = umad_get_port(o->ca ? ca : NULL, o->port, &up);
	if (rc < 0) {
		if (o->ca || o->port)
			log_error("no InfiniBand device found: cannot use CA '%s' port %d: %s",
				  o->ca ? o->ca : "(first)", o->port, strerror(-rc));
		else
			log_error("no InfiniBand device found");
		no_device_hint();
		umad_done();
		return IBS_E_NODEV;
	}
	p = xcalloc(1, sizeof(*p));
	for (i = 0; i < 256; i++)
		p->agents[i] = -1;
	p->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 1000;
	snprintf(p->local.ca, sizeof(p->local.ca), "%s", up.ca_name);
	p->local.port = up.portnum;
	p->local.lid = (uint16_t)up.base_lid;
	p->local.sm_lid = (uint16_t)up.sm_lid;
	p->local.lmc = (uint8_t)up.lmc;
	p->local.state = (uint8_t)up.state;
	p->local.port_guid = be64toh(up.port_guid);
	if (umad_get_ca(up.ca_name, &uca) == 0) {
		p->local.node_guid = be64toh(uca.node_guid);
		p->local.system_image_guid = be64toh(uca.system_guid);
		p->local.node_type = (int)uca.node_type;
		umad_release_ca(&uca);
	}
	umad_release_port(&up);

	p->fd = umad_open_port(p->local.ca, p->local.port);
	if (p->fd < 0) {
		int e = -p->fd;
		if (e == EACCES || e == EPERM) {
			log_error("cannot open the umad device of %s port %d: permission denied",
				  p->local.ca, p->local.port);
			log_hint("ibscan needs read/write access to /dev/infiniband/umad*: run as root, "
				 "or install a udev rule such as KERNEL==\"umad*\", GROUP=\"rdma\", MODE=\"0660\" "
				 "and add yourself to that group (see README)");
			free(p);
			umad_done();
			return IBS_E_PERM;
		}
		log_error("cannot open %s port %d: %s", p->local.ca, p->local.port, strerror(e));
		free(p);
		umad_done();
		return IBS_E_TRANSPORT;
	}
	/* The umad header grows with the pkey-aware ABI, which open switches on. */
	p->usize = umad_size();
	p->sbuf = xcalloc(1, p->usize + IBS_MAD_SIZE);
	p->rbuf = xcalloc(1, p->usize + IBS_MAD_SIZE);
	t = xcalloc(1, sizeof(*t));
	t->ops = &umad_ops;
	t->priv = p;
	/* Register the DR SMI agent now so that a failure is reported before walking. */
	if (agent_for(p, IBS_CLASS_SMI_DR) < 0) {
		u_close(t);
		return IBS_E_TRANSPORT;
	}
	*out = t;
	return IBS_OK;
}
