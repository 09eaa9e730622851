/* The probe object: open the device and port, choose the GID, allocate the PD; hold one run at a time; close. */
#include "probe.h"
#include "../base/clock.h"
#include "../base/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *port_state_name(unsigned s)
{
	static const char *const names[] = {
		[IBS_VPORT_NOP] = "NOP",       [IBS_VPORT_DOWN] = "DOWN",
		[IBS_VPORT_INIT] = "INIT",     [IBS_VPORT_ARMED] = "ARMED",
		[IBS_VPORT_ACTIVE] = "ACTIVE", [IBS_VPORT_ACTIVE_DEFER] = "ACTIVE_DEFER",
	};
	return s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

const struct ibs_vdev_info *ibs_ping_device(const struct ibs_ping *p)
{
	return &p->info;
}

enum ibs_err ibs_ping_open(const struct ibs_verbs_ops *ops, const struct ibs_ping_opts *o, struct ibs_ping **out)
{
	struct ibs_ping *p = xcalloc(1, sizeof(*p));
	char *msg = NULL;
	enum ibs_err rc;
	int e;

	*out = p;
	p->ops = ops;
	p->o = *o;
	if (!p->o.size)
		p->o.size = p->o.op == IBS_OP_ATOMIC ? IBS_PING_ATOMIC_SIZE
			    : p->o.bw		     ? IBS_PING_DEFAULT_BW_SIZE
						     : IBS_PING_DEFAULT_SIZE;
	p->ca = o->ca ? xstrdup(o->ca) : NULL;
	p->o.ca = p->ca;
	p->r.fd = -1;
	e = ops->open(o->ca, o->port, &p->dev, &p->info, &msg);
	if (e) {
		switch (e) {
		case ENODEV:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV,
				       xstrdup("this host has no RDMA device, or its driver is not loaded: 'ibscan local' "
					       "shows what the kernel offers (ls /sys/class/infiniband)"),
				       "no RDMA device found%s%s%s", msg ? " (" : "", msg ? msg : "", msg ? ")" : "");
			break;
		case ENOENT:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV, xstrdup("'ibscan local' lists the RDMA devices"),
				       "no RDMA device named '%s'", o->ca ? o->ca : "?");
			break;
		case ENXIO:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV, xstrdup("-P picks the port; 'ibscan local' lists them"),
				       "%s", msg ? msg : "no such port");
			break;
		case EACCES:
		case EPERM:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_PERM,
				       xstrdup("the probe needs read/write access to /dev/infiniband/uverbs*: run as root, "
					       "or give a group access with a udev rule (see README)"),
				       "%s", msg ? msg : strerror(e));
			break;
		default:
			rc = ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV, NULL, "cannot open the RDMA device: %s",
				       msg ? msg : strerror(e));
			break;
		}
		free(msg);
		return rc;
	}
	free(msg);
	if (p->info.state != IBS_VPORT_ACTIVE)
		return ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV,
				 xstrdup("the link is down, or (InfiniBand) no subnet manager has brought the port up: "
					 "'ibscan local' shows every port's state; -C and -P pick another"),
				 "%s port %u is not active (state %s)", p->info.name, p->info.port,
				 port_state_name(p->info.state));
	if (p->info.iwarp)
		return ping_fail(p, IBS_STEP_OPEN, IBS_E_NODEV,
				 xstrdup("the probe speaks the InfiniBand transport (InfiniBand or RoCE); iWARP runs RDMA "
					 "over TCP and needs rdma_cm: -C picks another device ('ibscan local' lists them)"),
				 "%s is an iWARP device", p->info.name);
	rc = ping_read_gids(p);
	if (rc)
		return rc;
	e = ops->alloc_pd(p->dev, &p->pd);
	if (e)
		return ping_fail(p, IBS_STEP_PD, IBS_E_TRANSPORT, NULL, "cannot allocate a protection domain on %s: %s",
				 p->info.name, strerror(e));
	return IBS_OK;
}

void ping_run_free(struct ibs_ping *p)
{
	struct ping_run *r = &p->r;

	if (r->qp)
		p->ops->destroy_qp(r->qp);
	if (r->cq)
		p->ops->destroy_cq(r->cq);
	if (r->mr)
		p->ops->dereg_mr(r->mr);
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

void ibs_ping_close(struct ibs_ping *p)
{
	if (!p)
		return;
	ping_run_free(p);
	if (p->pd)
		p->ops->dealloc_pd(p->pd);
	if (p->dev)
		p->ops->close(p->dev);
	free(p->ca);
	free(p->gids);
	free(p->gid_choice);
	free(p->err);
	free(p->hint);
	free(p);
}

void ping_run_init(struct ibs_ping *p, int fd, const char *peer)
{
	ping_run_free(p);
	p->r.fd = fd;
	p->r.peer = peer;
	p->r.timeout_ms = p->o.timeout_ms ? p->o.timeout_ms : IBS_PING_DEFAULT_TIMEOUT_MS;
	p->r.session_ms = p->o.session_ms ? p->o.session_ms : IBS_PING_DEFAULT_SESSION_MS;
	p->r.session_end = ibs_mono_ns() + (uint64_t)p->r.session_ms * 1000000ull;
	p->r.sl = p->o.sl;
	p->r.sl_set = p->o.sl_set;
	p->r.tclass = p->o.tclass;
	p->r.tclass_set = p->o.tclass_set;
}
