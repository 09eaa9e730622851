/* The scripted transport of fake_transport.h: answers queued by the test, delivered when due. */
#include "fake_transport.h"

uint64_t fake_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Queue a packet for delivery after delay_ms. */
void fake_push(struct fake *f, const uint8_t *mad, size_t len, int status, unsigned delay_ms)
{
	f->q = xgrow(f->q, &f->cap, f->n + 1, sizeof(*f->q));
	memset(&f->q[f->n], 0, sizeof(f->q[0]));
	memcpy(f->q[f->n].pkt.mad, mad, len > IBS_MAD_SIZE ? IBS_MAD_SIZE : len);
	f->q[f->n].pkt.len = len;
	f->q[f->n].pkt.status = status;
	f->q[f->n].due_ns = fake_now() + (uint64_t)delay_ms * 1000000ull;
	f->n++;
}

/* Turn a request into its response with the given status and attribute data (64 bytes). */
void fake_make_resp(const uint8_t *req, uint16_t status, const uint8_t *data, uint8_t *out)
{
	memcpy(out, req, IBS_MAD_SIZE);
	mad_set_field(out, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET_RESPONSE & 0x7f);
	mad_set_field(out, 0, IB_MAD_RESPONSE_F, 1);
	if (mad_get_field(out, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_DIRECT_CLASS) {
		mad_set_field(out, 0, IB_DRSMP_STATUS_F, status);
		mad_set_field(out, 0, IB_DRSMP_DIRECTION_F, 1);
	} else {
		mad_set_field(out, 0, IB_MAD_STATUS_F, status);
	}
	if (data)
		memcpy(out + IBS_SMP_DATA_OFFS, data, IBS_SMP_DATA_SIZE);
}

void fake_answer(struct fake *f, const uint8_t *req, uint16_t status, const uint8_t *data, unsigned delay_ms)
{
	uint8_t out[IBS_MAD_SIZE];
	fake_make_resp(req, status, data, out);
	fake_push(f, out, IBS_MAD_SIZE, 0, delay_ms);
}

void fake_answer_nodeinfo(struct fake *f, const uint8_t *req, unsigned type, unsigned n_ports, uint64_t guid,
			  unsigned local_port, uint32_t vendor_id)
{
	uint8_t data[IBS_MAD_SIZE - IBS_GMP_DATA_OFFS];
	uint32_t v = 1;

	memset(data, 0, sizeof(data));
	mad_encode_field(data, IB_NODE_BASE_VERS_F, &v);
	mad_encode_field(data, IB_NODE_CLASS_VERS_F, &v);
	v = n_ports;
	mad_encode_field(data, IB_NODE_NPORTS_F, &v);
	v = local_port;
	mad_encode_field(data, IB_NODE_LOCAL_PORT_F, &v);
	v = type;
	mad_encode_field(data, IB_NODE_TYPE_F, &v);
	mad_encode_field(data, IB_NODE_GUID_F, &guid);
	mad_encode_field(data, IB_NODE_PORT_GUID_F, &guid);
	mad_encode_field(data, IB_NODE_VENDORID_F, &vendor_id);
	fake_answer(f, req, 0, data, 0);
}

bool fake_paths_lid_then_dr(void *ctx, unsigned i, struct ibs_addr *out)
{
	uint8_t p = 10;

	(void)ctx;
	if (i == 0)
		ibs_addr_lid(out, 7, 0);
	else if (i == 1)
		ibs_addr_dr(out, &p, 1);
	else
		return false;
	return true;
}

static enum ibs_err fake_send(struct ibs_transport *t, const struct ibs_mad_req *req, const uint8_t *mad, int *cause)
{
	struct fake *f = (struct fake *)t;
	if (f->send_dead) {
		*cause = EIO;
		return IBS_E_TRANSPORT;
	}
	if (f->refuse && (*cause = f->refuse(f, req)) != 0) {
		f->refused++;
		return IBS_E_SEND;
	}
	f->sent++;
	f->inflight++;
	if (f->inflight > f->max_inflight_seen)
		f->max_inflight_seen = f->inflight;
	f->on_send(f, req, mad);
	return IBS_OK;
}

static enum ibs_err fake_recv(struct ibs_transport *t, struct ibs_packet *pkt, int ms)
{
	struct fake *f = (struct fake *)t;
	uint64_t end = fake_now() + (uint64_t)(ms > 0 ? ms : 0) * 1000000ull;

	if (f->dead)
		return IBS_E_TRANSPORT;
	for (;;) {
		uint64_t now = fake_now(), next = UINT64_MAX;
		size_t i, best = SIZE_MAX;
		size_t due = 0;
		for (i = 0; i < f->n; i++) {
			if (f->q[i].due_ns <= now && (best == SIZE_MAX || f->q[i].due_ns < f->q[best].due_ns))
				best = i;
			due += f->q[i].due_ns <= now;
			if (f->q[i].due_ns < next)
				next = f->q[i].due_ns;
		}
		if (f->shuffle && due > 1) {
			/* Any of the due packets, by a small LCG: answers overtake each other. */
			size_t k;
			f->shuffle = f->shuffle * 1103515245u + 12345u;
			k = (f->shuffle >> 16) % due;
			for (i = 0; i < f->n; i++)
				if (f->q[i].due_ns <= now && k-- == 0) {
					f->overtaken += i != best;
					best = i;
					break;
				}
		}
		if (best != SIZE_MAX) {
			*pkt = f->q[best].pkt;
			memmove(&f->q[best], &f->q[best + 1], (f->n - best - 1) * sizeof(*f->q));
			f->n--;
			if (f->inflight)
				f->inflight--;
			f->delivered++;
			return IBS_OK;
		}
		if (now >= end) {
			if (f->stall_ms && f->delivered) {
				struct timespec st = { (time_t)(f->stall_ms / 1000),
						       (long)(f->stall_ms % 1000) * 1000000L };
				f->stall_ms = 0;
				nanosleep(&st, NULL);
			}
			return IBS_E_AGAIN;
		}
		{
			uint64_t until = next < end ? next : end;
			struct timespec ts = { 0, (long)(until - now) };
			if (until - now >= 1000000000ull) {
				ts.tv_sec = (time_t)((until - now) / 1000000000ull);
				ts.tv_nsec = (long)((until - now) % 1000000000ull);
			}
			nanosleep(&ts, NULL);
		}
	}
}

static void fake_expire(struct ibs_transport *t, const struct ibs_mad_req *req, uint32_t tid)
{
	struct fake *f = (struct fake *)t;
	(void)req;
	(void)tid;
	if (f->inflight)
		f->inflight--;
}

static enum ibs_err fake_local(struct ibs_transport *t, struct ibs_local_port *out)
{
	*out = ((struct fake *)t)->local;
	return IBS_OK;
}

void fake_close(struct ibs_transport *t)
{
	struct fake *f = (struct fake *)t;
	free(f->q);
	f->q = NULL;
	f->n = f->cap = 0;
}

const struct ibs_transport_ops fake_ops = {
	.name = "fake",
	.send = fake_send,
	.recv = fake_recv,
	.expire = fake_expire,
	.local_port = fake_local,
	.close = fake_close,
};

void fake_init(struct fake *f, void (*on_send)(struct fake *, const struct ibs_mad_req *, const uint8_t *), void *ctx)
{
	memset(f, 0, sizeof(*f));
	f->t.ops = &fake_ops;
	f->t.priv = f;
	f->on_send = on_send;
	f->ctx = ctx;
	strcpy(f->local.ca, "fake0");
	f->local.port = 1;
}
