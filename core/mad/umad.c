/*
 * libibumad transport: the only file in ibscan that talks to libibumad, and
 * only through the table of calls in umad.h (the library, or a test's
 * double). One fd, one agent per management class (registered on first use),
 * every send non-blocking; two fds on a planarized (split SMI/GSI) device,
 * SMPs on the SMI half and every other class on its GSI half, as libibmad
 * sends them (see find_gsi_half); timeouts and retries belong to the engine, but
 * each send still carries timeout_ms > 0 because the kernel drops the
 * response of a request sent with 0 (it treats it as unsolicited).
 *
 * libibumad flattens the kernel's errors: umad_open_port says -EIO whatever
 * open() said, umad_register -EPERM whatever the ioctl said, umad_send -EIO
 * whatever write() said. Each leaves the real cause in errno (rdma-core's
 * libibumad/umad.c), and that cause is what ibscan reports.
 */
#include "umad.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct ibs_umad_calls ibs_umad_libibumad = {
	.init = umad_init,
	.done = umad_done,
	.get_ca_device_list = umad_get_ca_device_list,
	.free_ca_device_list = umad_free_ca_device_list,
	.get_ca = umad_get_ca,
	.release_ca = umad_release_ca,
	.open_port = umad_open_port,
	.close_port = umad_close_port,
	.size = umad_size,
	.register_agent = umad_register,
	.unregister_agent = umad_unregister,
	.send = umad_send,
	.recv = umad_recv,
	.poll = umad_poll,
	.poll2 = ibs_umad_poll2,
	.get_mad = umad_get_mad,
	.set_addr = umad_set_addr,
	.status = umad_status,
};

/* One opened umad port: its fd and the agents registered on it. */
struct umad_dev {
	int fd;
	char ca[sizeof(((struct ibs_local_port *)0)->ca)];
	int port;
	int agents[256]; /* by management class; -1 when not registered */
	int agent_err[256]; /* by class: why its registration failed (errno), 0 when it did not */
};

struct umad_priv {
	const struct ibs_umad_calls *u;
	struct umad_dev smi; /* the port walked from: every class, or SMPs only when split */
	struct umad_dev gsi; /* a split device's GSI half (gsi.fd >= 0): every class but SMPs */
	int next_poll;       /* split: the half polled first next time (neither starves) */
	int timeout_ms;
	void *sbuf, *rbuf;
	size_t usize;
	struct ibs_local_port local;
};

static int class_version(int mgmt_class)
{
	return mgmt_class == IBS_CLASS_SA ? 2 : 1;
}

/*
 * The errno a failed libibumad call left, or what it returned when errno
 * says nothing. Set errno to 0 before the call: libibumad does not always.
 */
static int cause_of(int rc)
{
	return errno ? errno : -rc;
}

/*
 * The errors after which nothing more can be sent: the device is gone. Since
 * Linux 5.11 a write or read on a umad fd whose device was removed says EIO
 * (EINVAL before), a registration EPIPE; a closed fd EBADF. Under the
 * simulator the device is libumad2sim's socket to ibsim: a dead ibsim says
 * ECONNREFUSED, then ENOTCONN. The rest (EINVAL, ENOMEM, EFAULT, ...) concern
 * one request.
 */
static bool device_gone(int e)
{
	return e == EIO || e == ENODEV || e == ENXIO || e == EBADF || e == EPIPE || e == ECONNREFUSED ||
	       e == ENOTCONN || e == ECONNRESET;
}

/* The half of the device a class goes through. */
static struct umad_dev *dev_for(struct umad_priv *p, int mgmt_class)
{
	if (p->gsi.fd >= 0 && mgmt_class != IBS_CLASS_SMI && mgmt_class != IBS_CLASS_SMI_DR)
		return &p->gsi;
	return &p->smi;
}

/* The agent for a class, or -1 with the errno its registration failed with in d->agent_err. */
static int agent_for(struct umad_priv *p, struct umad_dev *d, int mgmt_class)
{
	int id, e;

	if (d->agents[mgmt_class] >= 0)
		return d->agents[mgmt_class];
	if (d->agent_err[mgmt_class])
		return -1; /* said once already */
	/* SA gets RMPP so that the kernel reassembles multi-packet responses. */
	errno = 0;
	id = p->u->register_agent(d->fd, mgmt_class, class_version(mgmt_class), mgmt_class == IBS_CLASS_SA ? 1 : 0,
				  NULL);
	if (id < 0) {
		e = cause_of(id);
		log_error("cannot register a MAD agent for %s (class 0x%02x) on %s port %d: %s",
			  ibs_class_name((uint8_t)mgmt_class), mgmt_class, d->ca, d->port, strerror(e));
		if (e == EPROTONOSUPPORT || e == EINVAL)
			log_hint("the port may not carry this class: a RoCE port has no subnet management (QP0), "
				 "and a port with IsSMDisabled leaves SMPs to another device");
		d->agent_err[mgmt_class] = e ? e : EPERM;
		return -1;
	}
	d->agents[mgmt_class] = id;
	return id;
}

static enum ibs_err u_send(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad, int *cause)
{
	struct umad_priv *p = t->priv;
	struct umad_dev *d = dev_for(p, req->mgmt_class);
	int agent = agent_for(p, d, req->mgmt_class);
	int rc;

	if (agent < 0) {
		*cause = d->agent_err[req->mgmt_class];
		return device_gone(*cause) ? IBS_E_TRANSPORT : IBS_E_SEND;
	}
	memset(p->sbuf, 0, p->usize + IBS_MAD_SIZE);
	if (req->mgmt_class == IBS_CLASS_SMI_DR)
		p->u->set_addr(p->sbuf, 0xffff, 0, 0, 0);
	else if (req->mgmt_class == IBS_CLASS_SMI)
		p->u->set_addr(p->sbuf, req->addr.lid, 0, 0, 0);
	else
		p->u->set_addr(p->sbuf, req->addr.lid, req->addr.qp ? (int)req->addr.qp : 1, req->addr.sl,
			       req->addr.qkey ? (int)req->addr.qkey : (int)0x80010000);
	memcpy(p->u->get_mad(p->sbuf), mad, IBS_MAD_SIZE);
	errno = 0;
	rc = p->u->send(d->fd, agent, p->sbuf, IBS_MAD_SIZE, p->timeout_ms, 0);
	if (rc < 0) {
		/* umad_send says EIO whatever write() said: errno is the cause. */
		*cause = cause_of(rc);
		if (device_gone(*cause)) {
			log_error("cannot send on %s port %d: %s", d->ca, d->port, strerror(*cause));
			return IBS_E_TRANSPORT;
		}
		return IBS_E_SEND;
	}
	return IBS_OK;
}

/* The first MAD (at most) of the len bytes received in buf, for the engine. */
static void deliver(struct umad_priv *p, void *buf, int len, struct ibs_packet *pkt)
{
	if (len < 0)
		len = 0;
	pkt->len = (size_t)len < IBS_MAD_SIZE ? (size_t)len : IBS_MAD_SIZE;
	memset(pkt->mad, 0, sizeof(pkt->mad));
	memcpy(pkt->mad, p->u->get_mad(buf), pkt->len);
	pkt->status = p->u->status(buf);
}

/* The longest answer read whole (an RMPP reassembly of 64 MiB is far past any Get's). */
#define MAX_ANSWER (64 << 20)

/*
 * umad_recv said ENOSPC: an answer longer than one MAD (RMPP, reassembled by
 * the kernel), `need` bytes. The kernel put it back at the head of the queue,
 * so every later read with a one-MAD buffer fails the same way: read it
 * whole, with a buffer of the length it asks for, and deliver its first MAD
 * (the header the engine matches, and the first record: all a Get asks for).
 */
static enum ibs_err recv_whole(struct umad_priv *p, const struct umad_dev *d, struct ibs_packet *pkt, int need)
{
	int tries, len, rc = -ENOSPC;
	void *buf;

	for (tries = 0; tries < 3 && rc == -ENOSPC; tries++) {
		if (need <= IBS_MAD_SIZE || need > MAX_ANSWER) {
			log_error("cannot receive on %s port %d: the kernel holds an answer of %d bytes ibscan cannot read",
				  d->ca, d->port, need);
			return IBS_E_TRANSPORT;
		}
		buf = xmalloc(p->usize + (size_t)need);
		len = need;
		rc = p->u->recv(d->fd, buf, &len, 0);
		if (rc >= 0) {
			log_debug("an answer of %d bytes (RMPP): its first MAD is used", len);
			deliver(p, buf, len, pkt);
		}
		free(buf);
		need = len; /* ENOSPC again: longer than it said (another answer took the head) */
	}
	if (rc >= 0)
		return IBS_OK;
	if (rc == -EWOULDBLOCK || rc == -EAGAIN)
		return IBS_E_AGAIN;
	log_error("cannot receive on %s port %d: %s", d->ca, d->port, strerror(-rc));
	return IBS_E_TRANSPORT;
}

/* The half with an answer waiting (split), or the one fd: 0 if one is ready, else -ETIMEDOUT or -errno. */
static int poll_devs(struct umad_priv *p, int timeout_ms, const struct umad_dev **ready)
{
	int rc;

	*ready = &p->smi;
	if (p->gsi.fd < 0)
		return p->u->poll(p->smi.fd, timeout_ms);
	rc = p->next_poll ? p->u->poll2(p->gsi.fd, p->smi.fd, timeout_ms)
			  : p->u->poll2(p->smi.fd, p->gsi.fd, timeout_ms);
	if (rc < 0)
		return rc;
	*ready = (rc == 0) == (p->next_poll == 0) ? &p->smi : &p->gsi;
	p->next_poll = !p->next_poll;
	return 0;
}

static enum ibs_err u_recv(struct ibs_transport *t, struct ibs_packet *pkt, int timeout_ms)
{
	struct umad_priv *p = t->priv;
	const struct umad_dev *d;
	int len = IBS_MAD_SIZE;
	int rc;

	/*
	 * The simulator's shim wraps poll() on the umad fd alone, and that is
	 * all we poll on an unsplit device; a split one is never simulated.
	 */
	rc = poll_devs(p, timeout_ms, &d);
	if (rc == -ETIMEDOUT)
		return IBS_E_AGAIN;
	if (rc < 0) {
		log_error("cannot poll %s port %d: %s", d->ca, d->port, strerror(-rc));
		return IBS_E_TRANSPORT;
	}
	rc = p->u->recv(d->fd, p->rbuf, &len, 0);
	if (rc == -EWOULDBLOCK || rc == -EAGAIN || rc == -ETIMEDOUT)
		return IBS_E_AGAIN;
	if (rc == -ENOSPC)
		return recv_whole(p, d, pkt, len);
	if (rc < 0) {
		log_error("cannot receive on %s port %d: %s", d->ca, d->port, strerror(-rc));
		return IBS_E_TRANSPORT;
	}
	deliver(p, p->rbuf, len, pkt);
	return IBS_OK;
}

static enum ibs_err u_local(struct ibs_transport *t, struct ibs_local_port *out)
{
	struct umad_priv *p = t->priv;

	*out = p->local;
	return IBS_OK;
}

/* Unregister d's agents and close it (when open). */
static void close_dev(struct umad_priv *p, struct umad_dev *d)
{
	size_t i;

	if (d->fd < 0)
		return;
	for (i = 0; p->u->unregister_agent && i < 256; i++)
		if (d->agents[i] >= 0)
			p->u->unregister_agent(d->fd, d->agents[i]);
	p->u->close_port(d->fd);
	d->fd = -1;
}

static void u_close(struct ibs_transport *t)
{
	struct umad_priv *p = t->priv;

	/*
	 * The kernel drops a closed fd's agents, but umad2sim keeps them until
	 * unregistered: a long-running process (the exporter) opening a port
	 * per sweep would run out of them after some sweeps.
	 */
	close_dev(p, &p->smi);
	close_dev(p, &p->gsi);
	p->u->done();
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

/* Say why the umad device of the chosen port did not open (e: what open() said), and how to fix it. */
static enum ibs_err open_failed(const struct ibs_local_port *lp, int e)
{
	if (e == EACCES || e == EPERM) {
		log_error("cannot open the umad device of %s port %d: permission denied", lp->ca, lp->port);
		log_hint("ibscan needs read/write access to /dev/infiniband/umad*: run as root, "
			 "or install a udev rule such as KERNEL==\"umad*\", GROUP=\"rdma\", MODE=\"0660\" "
			 "and add yourself to that group (see README: that group can reconfigure the fabric)");
		return IBS_E_PERM;
	}
	log_error("cannot open the umad device of %s port %d: %s", lp->ca, lp->port, strerror(e));
	if (e == ENOENT || e == ENXIO || e == ENODEV)
		log_hint("is the ib_umad kernel module loaded (modprobe ib_umad), and did udev create "
			 "/dev/infiniband/umad*?");
	return IBS_E_TRANSPORT;
}

enum ibs_err ibs_umad_open(const struct ibs_umad_opts *o, struct ibs_transport **out)
{
	return ibs_umad_open_with(&ibs_umad_libibumad, o, out);
}

/*
 * How fit a port is to walk from, ranked as libibumad ranks them when it
 * chooses one (resolve_ca_port): 3 Active, 2 LinkUp, 1 not Disabled, 0 not
 * usable: missing, not InfiniBand, or with IsSMDisabled set. Such a port is
 * the GSI half of a split SMI/GSI device; its SMPs go through the other half,
 * and libibumad's umad_open_smi_port (rdma-core 53) skips it the same way.
 */
static int port_rank(const umad_port_t *pt)
{
	if (!pt || (strcmp(pt->link_layer, "InfiniBand") && strcmp(pt->link_layer, "IB")))
		return 0;
	if (be32toh(pt->capmask) & IBS_CAP_IS_SM_DISABLED)
		return 0;
	if (pt->state == IBS_PORT_ACTIVE)
		return 3;
	return pt->phys_state == IBS_PHYS_LINKUP ? 2 : pt->phys_state != IBS_PHYS_DISABLED;
}

static bool is_roce(const umad_port_t *pt)
{
	return pt && !strcmp(pt->link_layer, "Ethernet");
}

/*
 * The best port of ca (port 0 of a switch), or -1; *skipped counts the ports
 * passed over for IsSMDisabled, *roce is the first RoCE port passed over (0: none).
 */
static int best_port(const umad_ca_t *ca, int want, unsigned *skipped, int *roce)
{
	int p, best = -1, rank = 0;

	if (ca->node_type == IBS_NODE_SWITCH)
		return port_rank(ca->ports[0]) ? 0 : -1;
	for (p = want ? want : 1; p <= (want ? want : ca->numports) && p < UMAD_CA_MAX_PORTS; p++) {
		int r = port_rank(ca->ports[p]);
		if (ca->ports[p] && (be32toh(ca->ports[p]->capmask) & IBS_CAP_IS_SM_DISABLED))
			(*skipped)++;
		if (is_roce(ca->ports[p]) && !*roce)
			*roce = p;
		if (r > rank) {
			rank = r;
			best = p;
		}
		if (r == 3)
			break;
	}
	return best;
}

/*
 * Choose the CA and port as libibumad's umad_get_port does (the given ones,
 * or the first CA with an Active port, else the first with a usable one),
 * passing over ports with IsSMDisabled. *ca is filled (release it) and the
 * port returned; or -1, said why.
 */
static int choose_port(const struct ibs_umad_calls *u, const struct ibs_umad_opts *o, umad_ca_t *ca)
{
	struct umad_device_node *list = o->ca ? NULL : u->get_ca_device_list(), *n;
	unsigned skipped = 0;
	int found = -1, port, roce = 0;
	char roce_ca[UMAD_CA_NAME_LEN] = "";

	for (n = list; o->ca || n; n = n->next) {
		const char *name = o->ca ? o->ca : n->ca_name;
		umad_ca_t c;
		if (u->get_ca(name, &c) < 0) {
			if (o->ca)
				break;
			continue;
		}
		int r = 0;
		port = best_port(&c, o->port, &skipped, &r);
		if (r && !roce_ca[0]) {
			snprintf(roce_ca, sizeof(roce_ca), "%s", name);
			roce = r;
		}
		if (port >= 0 && (found < 0 || (c.ports[port]->state == IBS_PORT_ACTIVE && ca->ports[found]->state != IBS_PORT_ACTIVE))) {
			if (found >= 0)
				u->release_ca(ca);
			*ca = c;
			found = port;
		} else {
			u->release_ca(&c);
		}
		if (o->ca || (found >= 0 && ca->ports[found]->state == IBS_PORT_ACTIVE))
			break;
	}
	if (list)
		u->free_ca_device_list(list);
	if (found >= 0)
		return found;
	if (roce_ca[0] && !skipped) {
		/* RoCE has no subnet manager and answers no SMP: say so, at once, whatever was asked. */
		log_error("%s%s port %d is RoCE: no subnet management (no SMPs, no LIDs)",
			  o->ca ? "" : "no InfiniBand device found: ", roce_ca, roce);
		log_hint("'ibscan local' shows RoCE ports and their GIDs, 'ibscan ping' probes RDMA over them");
		return -1;
	}
	if (o->ca || o->port)
		log_error("no InfiniBand device found: cannot use CA '%s' port %d: %s", o->ca ? o->ca : "(first)",
			  o->port, skipped ? "IsSMDisabled is set: the GSI half of a split SMI/GSI device, whose "
					     "SMPs go through its other half" : "no such InfiniBand port");
	else if (skipped)
		log_error("no InfiniBand device found: %u port%s passed over for IsSMDisabled (the GSI half of a "
			  "split SMI/GSI device), and no other", skipped, skipped == 1 ? "" : "s");
	else
		log_error("no InfiniBand device found");
	if (skipped)
		log_hint("give the SMI device's port with -C and -P ('ibscan local' lists the ports)");
	else
		no_device_hint();
	return -1;
}

/*
 * A planarized device (ConnectX-8 and later) is a pair of umad devices
 * whose ports share one port GUID: the SMI half sends SMPs and has
 * IsSMDisabled clear; the GSI half (IsSMDisabled set) carries every other
 * class (SA, PMA, ...), which the SMI half does not. rdma-core 50 pairs
 * them by port GUID (umad_get_smi_gsi_pairs); Debian 12's libibumad 44 has
 * no such call, so the pair is found here the same way, from what
 * umad_get_ca reads off sysfs. Sets gsi->ca and gsi->port and returns true
 * when the port walked from has a GSI half.
 */
static bool find_gsi_half(const struct ibs_umad_calls *u, const struct ibs_local_port *lp,
			  struct umad_dev *gsi)
{
	struct umad_device_node *list = u->get_ca_device_list(), *n;
	bool found = false;

	for (n = list; n && !found; n = n->next) {
		umad_ca_t c;
		int q;
		if (!strcmp(n->ca_name, lp->ca) || u->get_ca(n->ca_name, &c) < 0)
			continue;
		for (q = 1; q <= c.numports && q < UMAD_CA_MAX_PORTS && !found; q++) {
			const umad_port_t *pt = c.ports[q];
			if (pt && be64toh(pt->port_guid) == lp->port_guid &&
			    (be32toh(pt->capmask) & IBS_CAP_IS_SM_DISABLED)) {
				snprintf(gsi->ca, sizeof(gsi->ca), "%s", c.ca_name);
				gsi->port = q;
				found = true;
			}
		}
		u->release_ca(&c);
	}
	if (list)
		u->free_ca_device_list(list);
	return found;
}

/* Open d->ca port d->port into d->fd, or say why not. */
static enum ibs_err open_dev(const struct ibs_umad_calls *u, const struct ibs_local_port *lp, struct umad_dev *d)
{
	errno = 0;
	d->fd = u->open_port(d->ca, d->port);
	if (d->fd >= 0)
		return IBS_OK;
	{
		struct ibs_local_port named = *lp;
		snprintf(named.ca, sizeof(named.ca), "%s", d->ca);
		named.port = d->port;
		/* -EIO is every failed open(): its errno says why. Other codes are libibumad's own. */
		return open_failed(&named, d->fd == -EIO ? cause_of(d->fd) : -d->fd);
	}
}

/* The libibumad calls have no poll of two fds: poll(2) them (a split device is never simulated). */
int ibs_umad_poll2(int fd0, int fd1, int timeout_ms)
{
	struct pollfd pf[2] = { { .fd = fd0, .events = POLLIN }, { .fd = fd1, .events = POLLIN } };
	int rc = poll(pf, 2, timeout_ms);

	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -ETIMEDOUT;
	if (pf[0].revents & (POLLERR | POLLNVAL))
		return -EIO;
	if (pf[1].revents & (POLLERR | POLLNVAL))
		return -EIO;
	return (pf[0].revents & POLLIN) ? 0 : 1;
}

enum ibs_err ibs_umad_open_with(const struct ibs_umad_calls *u, const struct ibs_umad_opts *o,
				struct ibs_transport **out)
{
	struct umad_priv *p;
	struct ibs_transport *t;
	const umad_port_t *up;
	umad_ca_t uca;
	enum ibs_err err;
	int port, i;

	*out = NULL;
	if (u->init() < 0) {
		log_error("no InfiniBand device found: cannot initialise libibumad");
		no_device_hint();
		return IBS_E_NODEV;
	}
	port = choose_port(u, o, &uca);
	if (port < 0) {
		u->done();
		return IBS_E_NODEV;
	}
	up = uca.ports[port];
	p = xcalloc(1, sizeof(*p));
	p->u = u;
	for (i = 0; i < 256; i++)
		p->smi.agents[i] = p->gsi.agents[i] = -1;
	p->smi.fd = p->gsi.fd = -1;
	p->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 1000;
	snprintf(p->local.ca, sizeof(p->local.ca), "%s", uca.ca_name);
	p->local.port = port;
	p->local.lid = (uint16_t)up->base_lid;
	p->local.sm_lid = (uint16_t)up->sm_lid;
	p->local.sm_sl = (uint8_t)(up->sm_sl & 15);
	p->local.lmc = (uint8_t)up->lmc;
	p->local.state = (uint8_t)up->state;
	p->local.port_guid = be64toh(up->port_guid);
	p->local.node_guid = be64toh(uca.node_guid);
	p->local.system_image_guid = be64toh(uca.system_guid);
	p->local.node_type = (int)uca.node_type;
	u->release_ca(&uca);
	snprintf(p->smi.ca, sizeof(p->smi.ca), "%s", p->local.ca);
	p->smi.port = port;

	err = open_dev(u, &p->local, &p->smi);
	if (err == IBS_OK && find_gsi_half(u, &p->local, &p->gsi)) {
		log_info("%s port %d is the SMI half of a split device: every class but SMPs goes through %s port %d",
			 p->smi.ca, p->smi.port, p->gsi.ca, p->gsi.port);
		err = open_dev(u, &p->local, &p->gsi);
		if (err != IBS_OK)
			u->close_port(p->smi.fd);
	}
	if (err != IBS_OK) {
		free(p);
		u->done();
		return err;
	}
	/* The umad header grows with the pkey-aware ABI, which open switches on. */
	p->usize = u->size();
	p->sbuf = xcalloc(1, p->usize + IBS_MAD_SIZE);
	p->rbuf = xcalloc(1, p->usize + IBS_MAD_SIZE);
	t = xcalloc(1, sizeof(*t));
	t->ops = &umad_ops;
	t->priv = p;
	/* Register the DR SMI agent now so that a failure is reported before walking. */
	if (agent_for(p, &p->smi, IBS_CLASS_SMI_DR) < 0) {
		u_close(t);
		return IBS_E_TRANSPORT;
	}
	*out = t;
	return IBS_OK;
}
