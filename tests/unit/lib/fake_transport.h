/*
 * A test double for the transport: a scripted transport whose answers the
 * test decides request by request (delay, drop, duplicate, bad status).
 * The in-process fabric that answers as SMAs do is fake_fabric.h.
 */
#ifndef IBSCAN_FAKE_TRANSPORT_H
#define IBSCAN_FAKE_TRANSPORT_H

#include <errno.h>
#include <infiniband/mad.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../../core/mad/transport.h"
#include "../../../core/base/xalloc.h"
#include "../../../fabric/walk/walk.h"

struct fake_pkt {
	struct ibs_packet pkt;
	uint64_t due_ns;
};

struct fake {
	struct ibs_transport t;
	/* Decide what happens to a request; push answers with fake_answer(). */
	void (*on_send)(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad);
	void *ctx;
	struct fake_pkt *q;
	size_t n, cap;
	unsigned sent, max_inflight_seen, inflight;
	bool dead; /* recv fails: the device went away */
	/* Optional: an errno for a request the kernel refuses to send (IBS_E_SEND), or 0 to send it. */
	int (*refuse)(struct fake *f, const struct ibs_mad_req *req);
	bool send_dead; /* every send fails: the device went away (IBS_E_TRANSPORT) */
	unsigned refused;
	unsigned shuffle;   /* nonzero: deliver the packets that are due in an order drawn from this seed */
	unsigned overtaken; /* deliveries that overtook an earlier packet (with shuffle) */
	struct ibs_local_port local;
	/* Nonzero: the host stalls this long once, just after a poll found nothing (once a packet was delivered). */
	unsigned stall_ms;
	unsigned delivered;
};

/* The monotonic clock, in ns. */
uint64_t fake_now(void);

/* Queue a packet for delivery after delay_ms. */
void fake_push(struct fake *f, const uint8_t *mad, size_t len, int status, unsigned delay_ms);

/* Turn a request into its response with the given status and attribute data (64 bytes). */
void fake_make_resp(const uint8_t *req, uint16_t status, const uint8_t *data, uint8_t *out);

/* Answer req (fake_make_resp) after delay_ms. */
void fake_answer(struct fake *f, const uint8_t *req, uint16_t status, const uint8_t *data, unsigned delay_ms);

/*
 * Answer a NodeInfo request as a node of this type (IB_NODE_*) and port
 * count whose node and port GUID are guid, asked through port local_port,
 * made by vendor_id (0 leaves either out), at once: a PMA fake's answer to
 * the NodeInfo by LID that confirms whom a LID leads to (and whose
 * VendorID says how to read PortSamplesControl's Tick).
 */
void fake_answer_nodeinfo(struct fake *f, const uint8_t *req, unsigned type, unsigned n_ports, uint64_t guid,
			  unsigned local_port, uint32_t vendor_id);

/* An engine's paths (ibs_engine_set_paths) for a request to LID 7: that LID first, then the directed route 10. */
bool fake_paths_lid_then_dr(void *ctx, unsigned i, struct ibs_addr *out);

/* A fake whose on_send decides each request's fate (ctx is the test's); local port fake0/1. */
void fake_init(struct fake *f, void (*on_send)(struct fake *, const struct ibs_mad_req *, const uint8_t *), void *ctx);

/* What a test's f still queues is freed; also the transport's close. */
void fake_close(struct ibs_transport *t);

#endif
