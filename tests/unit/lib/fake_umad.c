/* The libibumad double that fake_umad.h describes: one global state, as the calls carry no context. */
#include "fake_umad.h"

struct fumad fumad;

void fumad_reset(void)
{
	size_t i;

	for (i = 0; i < fumad.qn; i++)
		free(fumad.q[i].bytes);
	free(fumad.q);
	memset(&fumad, 0, sizeof(fumad));
}

/* One CA with one active InfiniBand port 1 (LID 7, SM LID 1). */
void fumad_one_ca(const char *name)
{
	struct fumad_ca *c = &fumad.ca[fumad.n_cas++];

	memset(c, 0, sizeof(*c));
	c->name = name;
	c->node_type = 1;
	c->nports = 1;
	c->port[1].state = 4;
	c->port[1].phys_state = 5;
	c->port[1].lid = 7;
	c->port[1].sm_lid = 1;
}

/* Queue an answer of len bytes (len > 256: an RMPP answer, reassembled). */
void fumad_queue(const uint8_t *bytes, int len, int status)
{
	struct fumad_answer *a;

	fumad.q = xgrow(fumad.q, &fumad.qcap, fumad.qn + 1, sizeof(*fumad.q));
	a = &fumad.q[fumad.qn++];
	memset(a, 0, sizeof(*a));
	a->bytes = xmalloc((size_t)len);
	memcpy(a->bytes, bytes, (size_t)len);
	a->len = len;
	a->status = status;
	a->fd = fumad.last_fd ? fumad.last_fd : 1100; /* before any send: the first CA's fd */
}

/* The answer to a request: the request turned into a GetResp (DR: direction bit set), status 0. */
void fumad_echo(const uint8_t *mad)
{
	uint8_t r[256];

	memcpy(r, mad, sizeof(r));
	r[3] |= 0x80;
	if (r[1] == 0x81)
		r[4] |= 0x80;
	fumad_queue(r, (int)sizeof(r), 0);
}

static int fumad_init(void)
{
	return 0;
}

static int fumad_done(void)
{
	return 0;
}

static const struct fumad_ca *fumad_find(const char *name)
{
	int i;

	for (i = 0; i < fumad.n_cas; i++)
		if (!name || !strcmp(fumad.ca[i].name, name))
			return &fumad.ca[i];
	return NULL;
}

static void fumad_fill_port(const struct fumad_ca *c, int p, umad_port_t *out)
{
	const struct fumad_port *fp = &c->port[p];

	memset(out, 0, sizeof(*out));
	snprintf(out->ca_name, sizeof(out->ca_name), "%s", c->name);
	out->portnum = p;
	out->base_lid = fp->lid;
	out->sm_lid = fp->sm_lid;
	out->sm_sl = fp->sm_sl;
	out->state = (unsigned)fp->state;
	out->phys_state = (unsigned)fp->phys_state;
	out->capmask = htobe32(fp->capmask);
	out->port_guid = htobe64(fp->guid ? fp->guid : 0x0002c90300000000ull + (uint64_t)p);
	snprintf(out->link_layer, sizeof(out->link_layer), "%s", fp->link_layer ? fp->link_layer : "InfiniBand");
}

/* umad_get_ca_device_list: the CAs in the order sysfs lists them. */
static struct umad_device_node *fumad_get_ca_device_list(void)
{
	struct umad_device_node *head = NULL, **tail = &head;
	int i;

	for (i = 0; i < fumad.n_cas; i++) {
		*tail = xcalloc(1, sizeof(**tail));
		(*tail)->ca_name = fumad.ca[i].name;
		tail = &(*tail)->next;
	}
	return head;
}

static void fumad_free_ca_device_list(struct umad_device_node *head)
{
	while (head) {
		struct umad_device_node *n = head->next;
		free(head);
		head = n;
	}
}

static int fumad_get_ca(const char *ca_name, umad_ca_t *ca)
{
	const struct fumad_ca *c = fumad_find(ca_name);
	int p;

	if (!c)
		return -ENODEV;
	memset(ca, 0, sizeof(*ca));
	snprintf(ca->ca_name, sizeof(ca->ca_name), "%s", c->name);
	ca->node_type = (unsigned)c->node_type;
	ca->numports = c->nports;
	ca->node_guid = htobe64(0x0002c90300000000ull);
	ca->system_guid = htobe64(0x0002c90300000000ull);
	for (p = c->node_type == 2 ? 0 : 1; p <= c->nports; p++) {
		ca->ports[p] = xmalloc(sizeof(umad_port_t));
		fumad_fill_port(c, p, ca->ports[p]);
	}
	return 0;
}

static int fumad_release_ca(umad_ca_t *ca)
{
	int p;

	for (p = 0; p < UMAD_CA_MAX_PORTS; p++) {
		free(ca->ports[p]);
		ca->ports[p] = NULL;
	}
	return 0;
}

static int fumad_open_port(const char *ca_name, int portnum)
{
	const struct fumad_ca *c = fumad_find(ca_name);

	if (fumad.n_open) {
		snprintf(fumad.also_opened_ca, sizeof(fumad.also_opened_ca), "%s", ca_name ? ca_name : "");
		fumad.also_opened_port = portnum;
	} else {
		snprintf(fumad.opened_ca, sizeof(fumad.opened_ca), "%s", ca_name ? ca_name : "");
		fumad.opened_port = portnum;
	}
	if (fumad.open_errno) {
		errno = fumad.open_errno; /* open() */
		return -EIO;
	}
	fumad.n_open++;
	return 1100 + (c ? (int)(c - fumad.ca) : 0);
}

static int fumad_close_port(int fd)
{
	(void)fd;
	fumad.n_open--;
	return 0;
}

static size_t fumad_size(void)
{
	return sizeof(struct ib_user_mad);
}

static int fumad_register(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
			  long method_mask[16 / sizeof(long)])
{
	(void)fd;
	(void)method_mask;
	fumad.reg_version[mgmt_class & 0xff] = mgmt_version;
	fumad.reg_rmpp[mgmt_class & 0xff] = rmpp_version;
	if (fumad.register_errno[mgmt_class & 0xff]) {
		errno = fumad.register_errno[mgmt_class & 0xff]; /* ioctl() */
		return -EPERM;
	}
	fumad.registered[mgmt_class & 0xff] = ++fumad.n_agents;
	return fumad.n_agents - 1;
}

static int fumad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	struct ib_user_mad *m = umad;
	int e;

	errno = 0;
	fumad.last_fd = fd;
	fumad.sent_on[m->data[1]] = fd;
	m->agent_id = (uint32_t)agentid;
	m->timeout_ms = (uint32_t)timeout_ms;
	m->retries = (uint32_t)retries;
	memcpy(fumad.last_sent, m->data, length < 256 ? (size_t)length : 256);
	fumad.last_sl = m->addr.sl;
	fumad.last_hdr = *m;
	e = fumad.send_errno ? fumad.send_errno(m->data) : 0;
	if (e) {
		errno = e; /* write() */
		return -EIO;
	}
	fumad.sends++;
	if (fumad.on_send)
		fumad.on_send(m->data);
	return 0;
}

/* As umad_recv(fd, buf, &len, 0) on the kernel's read(): see the top of this file. */
static int fumad_recv(int fd, void *umad, int *length, int timeout_ms)
{
	struct ib_user_mad *m = umad;
	struct fumad_answer *a;
	size_t k;

	(void)timeout_ms;
	errno = 0;
	fumad.recvs++;
	for (k = 0; k < fumad.qn && fumad.q[k].fd != fd; k++)
		;
	if (k == fumad.qn) {
		errno = EAGAIN;
		return -EAGAIN;
	}
	a = &fumad.q[k];
	memset(m, 0, sizeof(*m));
	m->status = a->status;
	m->length = (uint32_t)(sizeof(struct ib_user_mad) + (size_t)a->len);
	if (a->len > *length || a->claimed > *length) {
		/* The first segment and the header come back; the answer stays queued. */
		memcpy(m->data, a->bytes, (size_t)(*length < 256 ? *length : 256));
		*length = a->claimed ? a->claimed : a->len;
		fumad.enospc++;
		errno = ENOSPC;
		return -ENOSPC;
	}
	memcpy(m->data, a->bytes, (size_t)a->len);
	*length = a->len;
	free(a->bytes);
	memmove(fumad.q + k, fumad.q + k + 1, (fumad.qn - k - 1) * sizeof(*fumad.q));
	fumad.qn--;
	return 0;
}

/* Whether an answer waits on fd. */
static int fumad_ready(int fd)
{
	size_t k;

	for (k = 0; k < fumad.qn; k++)
		if (fumad.q[k].fd == fd)
			return 1;
	return 0;
}

static int fumad_poll(int fd, int timeout_ms)
{
	(void)timeout_ms;
	return fumad_ready(fd) ? 0 : -ETIMEDOUT;
}

static int fumad_poll2(int fd0, int fd1, int timeout_ms)
{
	(void)timeout_ms;
	if (fumad_ready(fd0))
		return 0;
	return fumad_ready(fd1) ? 1 : -ETIMEDOUT;
}

static void *fumad_get_mad(void *umad)
{
	return ((struct ib_user_mad *)umad)->data;
}

static int fumad_set_addr(void *umad, int dlid, int dqp, int sl, int qkey)
{
	struct ib_user_mad *m = umad;

	m->addr.lid = htobe16((uint16_t)dlid);
	m->addr.qpn = htobe32((uint32_t)dqp);
	m->addr.sl = (uint8_t)sl;
	m->addr.qkey = htobe32((uint32_t)qkey);
	return 0;
}

static int fumad_status(void *umad)
{
	return ((struct ib_user_mad *)umad)->status;
}

const struct ibs_umad_calls fumad_calls = {
	.init = fumad_init,
	.done = fumad_done,
	.get_ca_device_list = fumad_get_ca_device_list,
	.free_ca_device_list = fumad_free_ca_device_list,
	.get_ca = fumad_get_ca,
	.release_ca = fumad_release_ca,
	.open_port = fumad_open_port,
	.close_port = fumad_close_port,
	.size = fumad_size,
	.register_agent = fumad_register,
	.send = fumad_send,
	.recv = fumad_recv,
	.poll = fumad_poll,
	.poll2 = fumad_poll2,
	.get_mad = fumad_get_mad,
	.set_addr = fumad_set_addr,
	.status = fumad_status,
};
