/*
 * Unit tests of where the PMA counter sweep (fabric/walk/counters.c) sends its
 * GMPs and what it makes of the answers: only to Active ports, ClassPortInfo
 * per PMA address, the 64-bit counters where the PMA has them, a LID that
 * moved between two readings, and PortRcvSwitchRelayErrors off by default.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../core/mad/engine.h"
#include "../../fabric/walk/counters.h"
#include "../../fabric/check/health.h"
#include "../../fabric/walk/run.h"

/*
 * A PMA (and an SMA for LID-routed NodeInfo) behind each LID 1..15:
 * node[lid] is the GUID of the node that LID leads to (0: nothing answers).
 */
struct pmafab {
	uint64_t node[16];
	uint16_t capmask;
	uint32_t capmask2;
	bool drop_cpi;            /* ClassPortInfo is never answered */
	unsigned to_lid[16];      /* GMPs sent to each LID */
	unsigned nodeinfo[16];    /* LID-routed NodeInfo SMPs to each LID */
	uint64_t xmit_data[16];   /* PortXmitData of what LID leads to */
	uint64_t xmit_wait;       /* 64-bit PortXmitWait in PortCountersExtended */
	unsigned swap_after;      /* nonzero: after this many PortCountersExtended answers, LIDs 5 and 6 swap */
	unsigned n_ext;
	bool swapped;
};

/* The SM gives LIDs 5 and 6 out the other way round; each node's traffic goes on counting. */
static void pf_swap(struct pmafab *p)
{
	uint64_t g = p->node[5], x = p->xmit_data[5];

	p->node[5] = p->node[6];
	p->node[6] = g;
	p->xmit_data[5] = p->xmit_data[6] + 100;
	p->xmit_data[6] = x + 10;
	p->xmit_data[7] += 10;
	p->swapped = true;
}

static void pf_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct pmafab *p = f->ctx;
	uint8_t data[IBS_MAD_SIZE - IBS_GMP_DATA_OFFS];
	uint8_t out[IBS_MAD_SIZE];
	unsigned lid = req->addr.lid;

	memset(data, 0, sizeof(data));
	assert_true(lid > 0 && lid < 16);
	if (!p->node[lid])
		return;
	if (req->mgmt_class == IBS_CLASS_SMI) {
		assert_int_equal(req->attr_id, IBS_ATTR_NODE_INFO);
		p->nodeinfo[lid]++;
		fake_answer_nodeinfo(f, mad, IB_NODE_CA, 1, p->node[lid], 1, 0);
		return;
	}
	assert_int_equal(req->mgmt_class, IBS_CLASS_PMA);
	p->to_lid[lid]++;
	fake_make_resp(mad, 0, NULL, out);
	if (req->attr_id == IBS_ATTR_CLASS_PORT_INFO) {
		uint32_t v = p->capmask;
		if (p->drop_cpi)
			return;
		mad_encode_field(data, IB_CPI_CAPMASK_F, &v);
		v = p->capmask2;
		mad_encode_field(data, IB_CPI_CAPMASK2_F, &v);
	} else if (req->attr_id == IBS_ATTR_PORT_COUNTERS) {
		uint32_t v = (uint32_t)p->xmit_data[lid];
		mad_encode_field(data, IB_PC_XMT_BYTES_F, &v);
		v = 0xffffffffu; /* saturated */
		mad_encode_field(data, IB_PC_XMT_WAIT_F, &v);
	} else if (req->attr_id == IBS_ATTR_PORT_COUNTERS_EXT) {
		uint64_t g = p->xmit_data[lid];
		mad_encode_field(data, IB_PC_EXT_XMT_BYTES_F, &g);
		g = p->xmit_wait;
		mad_encode_field(data, IB_PC_EXT_XMT_WAIT_F, &g);
		g = 70000; /* beyond 16 bits */
		mad_encode_field(data, IB_PC_EXT_ERR_SYM_F, &g);
	}
	memcpy(out + IBS_GMP_DATA_OFFS, data, sizeof(data));
	fake_push(f, out, IBS_MAD_SIZE, 0, 0);
	if (req->attr_id == IBS_ATTR_PORT_COUNTERS_EXT && p->swap_after && ++p->n_ext == p->swap_after)
		pf_swap(p);
}

/* A CA of n_ports ports, port p with LID lid[p] in state st[p] (LinkUp, cabled). */
static struct ibs_node *add_ca(struct ibs_fabric *f, uint64_t guid, unsigned n_ports, const uint16_t *lid,
			       const uint8_t *st)
{
	struct ibs_node *n = fb_node(f, IBS_NODE_CA, n_ports, guid, guid);
	unsigned p;

	for (p = 1; p <= n_ports; p++)
		fb_port(n, p, st[p], IBS_PHYS_LINKUP, lid[p])->guid = guid;
	return n;
}

struct rig {
	struct fake fk;
	struct ibs_engine *e;
	struct ibs_run run;
};

static void rig_open(struct rig *r, struct pmafab *p)
{
	struct ibs_engine_opts eo = { .window = 8, .timeout_ms = 100, .retries = 1 };

	memset(&r->run, 0, sizeof(r->run));
	fake_init(&r->fk, pf_on_send, p);
	r->e = ibs_engine_new(&r->fk.t, &eo);
}

static void rig_close(struct rig *r)
{
	ibs_engine_free(r->e);
	free(r->fk.q);
	ibs_run_free(&r->run);
}

/*
 * A dual-port CA with port 1 Armed and port 2 Active: no GMP goes to port
 * 1's LID (none reaches a port that is not Active, IBA 7.2), port 1 says
 * why rather than "timeout", port 2 is read, ClassPortInfo included.
 */
static void test_armed_port_not_asked(void **state)
{
	struct pmafab p = { .node = { [5] = 0x100, [6] = 0x100 } };
	struct ibs_counter_opts o = { .extended = true };
	const uint16_t lid[] = { 0, 5, 6 };
	const uint8_t st[] = { 0, 3, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *n = add_ca(f, 0x100, 2, lid, st);
	struct rig r;

	(void)state;
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_int_equal(p.to_lid[5], 0);
	assert_int_equal(p.to_lid[6], 2); /* ClassPortInfo, PortCounters */
	assert_true(n->ports[2].ctr->ok);
	assert_false(n->ports[1].ctr->ok);
	assert_int_equal(n->ports[1].ctr->not_read, IBS_CTR_NOT_ACTIVE);
	assert_int_not_equal(n->ports[1].ctr->outcome, IBS_MAD_TIMEOUT);
	assert_non_null(strstr(ibs_port_counters_why(n, &n->ports[1]), "Armed"));
	assert_false(f->partial);
	rig_close(&r);
	ibs_fabric_free(f);
}

/*
 * A remote CA's port is Active, the switch port its cable goes to Armed
 * (the SM's Set to Active failed there): every GMP to the CA leaves the
 * switch by that port, which passes only SMPs (IBA 7.2). No GMP goes to
 * the CA's LID, and it says which port holds it up; the switch's own
 * counters are read through its port 0. No partial: link.down names the
 * Armed end.
 */
static void test_peer_armed_not_asked(void **state)
{
	struct pmafab p = { .node = { [1] = 0x200, [5] = 0x100 } };
	struct ibs_counter_opts o = { 0 };
	const uint16_t lid[] = { 0, 5 };
	const uint8_t st[] = { 0, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *sw = fb_node(f, IBS_NODE_SWITCH, 3, 0x200, 0x200);
	struct ibs_node *n = add_ca(f, 0x100, 1, lid, st);
	const char *why;
	struct rig r;

	(void)state;
	fb_port(sw, 0, IBS_PORT_ACTIVE, IBS_PHYS_LINKUP, 1);
	fb_port(sw, 3, IBS_PORT_ARMED, IBS_PHYS_LINKUP, 0);
	assert_true(ibs_fabric_connect(sw, 3, n, 1));
	n->path.hops = 1; /* behind the switch, not the local node */
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_int_equal(p.to_lid[5], 0);
	assert_false(n->ports[1].ctr->ok);
	assert_int_equal(n->ports[1].ctr->not_read, IBS_CTR_PEER_NOT_ACTIVE);
	why = ibs_port_counters_why(n, &n->ports[1]);
	if (!strstr(why, "port 3") || !strstr(why, "Armed"))
		fail_msg("the reason names neither the switch port nor its state: %s", why);
	assert_true(sw->ports[3].ctr->ok); /* through port 0 */
	assert_false(f->partial);
	rig_close(&r);
	ibs_fabric_free(f);
}

/*
 * Two CAs hold LID 5 (the SM gave it twice, or one came from another
 * subnet): a PMA answer carries no GUID, so a GMP to LID 5 would bring
 * whichever one the forwarding tables lead to as the other's. Neither is
 * asked, each says why; the CA at LID 6 is read.
 */
static void test_shared_lid_not_asked(void **state)
{
	struct pmafab p = { .node = { [5] = 0x100, [6] = 0x300 } };
	struct ibs_counter_opts o = { 0 };
	const uint16_t five[] = { 0, 5 }, six[] = { 0, 6 };
	const uint8_t st[] = { 0, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *a = add_ca(f, 0x100, 1, five, st), *b = add_ca(f, 0x200, 1, five, st);
	struct ibs_node *c = add_ca(f, 0x300, 1, six, st);
	struct rig r;

	(void)state;
	a->path.hops = b->path.hops = c->path.hops = 1;
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_int_equal(p.to_lid[5], 0);
	assert_int_equal(a->ports[1].ctr->not_read, IBS_CTR_SHARED_LID);
	assert_int_equal(b->ports[1].ctr->not_read, IBS_CTR_SHARED_LID);
	assert_non_null(strstr(ibs_port_counters_why(b, &b->ports[1]), "LID 5"));
	assert_true(c->ports[1].ctr->ok);
	rig_close(&r);
	ibs_fabric_free(f);
}

/* A PMA that does not answer ClassPortInfo still has PortCounters read on each port: no port is marked for it. */
static void test_cpi_timeout_reads_ports(void **state)
{
	struct pmafab p = { .node = { [5] = 0x100, [6] = 0x100 }, .drop_cpi = true };
	struct ibs_counter_opts o = { .extended = true };
	const uint16_t lid[] = { 0, 5, 6 };
	const uint8_t st[] = { 0, 4, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *n = add_ca(f, 0x100, 2, lid, st);
	struct rig r;

	(void)state;
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_true(n->ports[1].ctr->ok);
	assert_true(n->ports[2].ctr->ok);
	assert_false(n->pma_cpi_ok);
	rig_close(&r);
	ibs_fabric_free(f);
}

/* A local port that is not Active sends no GMP at all, and says so. */
static void test_local_not_active(void **state)
{
	struct pmafab p = { .node = { [5] = 0x100 } };
	struct ibs_counter_opts o = { .extended = true };
	const uint16_t lid[] = { 0, 5 };
	const uint8_t st[] = { 0, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct rig r;

	(void)state;
	add_ca(f, 0x100, 1, lid, st);
	f->local.state = 3; /* Armed */
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_int_equal(r.fk.sent, 0);
	assert_true(r.run.no_lids);
	assert_int_equal(r.run.local_state, 3);
	rig_close(&r);
	ibs_fabric_free(f);
}

/*
 * CapabilityMask2 bit 1 (IsAdditionalPortCountersExtendedSupported): the
 * error counters and PortXmitWait come from PortCountersExtended, 64 bits
 * wide, as perfquery reads them; without it, PortCounters' saturated ones.
 */
static void test_64bit_error_counters(void **state)
{
	struct pmafab p = { .node = { [5] = 0x100 },
			    .capmask = IBS_PM_EXT_WIDTH_SUPPORTED | IBS_PM_XMIT_WAIT_SUP,
			    .capmask2 = IBS_PM2_ADDL_PORT_CTRS_EXT,
			    .xmit_wait = 0x123456789ull };
	struct ibs_counter_opts o = { .extended = true };
	const uint16_t lid[] = { 0, 5 };
	const uint8_t st[] = { 0, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *n = add_ca(f, 0x100, 1, lid, st);
	const struct ibs_counter_def *xw = ibs_counter_find("PortXmitWait");
	struct rig r;

	(void)state;
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_true(n->ports[1].ctr->ext_errors);
	assert_int_equal(n->ports[1].ctr->c.xmit_wait, 0x123456789ull);
	assert_int_equal(n->ports[1].ctr->c.symbol_errors, 70000);
	assert_int_equal(ibs_counter_bits(n->ports[1].ctr, xw), 64);
	rig_close(&r);
	ibs_fabric_free(f);

	p.capmask2 = 0;
	f = ibs_fabric_new();
	n = add_ca(f, 0x100, 1, lid, st);
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters(r.e, f, &r.run, &o), IBS_OK);
	assert_true(n->ports[1].ctr->extended);
	assert_false(n->ports[1].ctr->ext_errors);
	assert_int_equal(n->ports[1].ctr->c.xmit_wait, 0xffffffffu);
	assert_int_equal(ibs_counter_bits(n->ports[1].ctr, xw), 32);
	rig_close(&r);
	ibs_fabric_free(f);
}

/*
 * Two hosts whose LIDs the SM swapped between the two readings of
 * --interval: neither is given the other's traffic; both are reported
 * unread (their LID moved), the result partial. A host whose LID stayed is
 * read as before.
 */
static void test_interval_lid_moved(void **state)
{
	struct pmafab p = { .node = { [5] = 0x100, [6] = 0x200, [7] = 0x300 },
			    .xmit_data = { [5] = 1000, [6] = 50000, [7] = 10 },
			    .capmask = IBS_PM_EXT_WIDTH_SUPPORTED,
			    .swap_after = 3 };
	struct ibs_counter_opts o = { .extended = true };
	const uint16_t l5[] = { 0, 5 }, l6[] = { 0, 6 }, l7[] = { 0, 7 };
	const uint8_t st[] = { 0, 4 };
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *a = add_ca(f, 0x100, 1, l5, st), *b = add_ca(f, 0x200, 1, l6, st),
			*c = add_ca(f, 0x300, 1, l7, st);
	struct rig r;
	uint64_t w;

	(void)state;
	rig_open(&r, &p);
	assert_int_equal(ibs_read_counters_interval(r.e, f, &r.run, &o, 0.001), IBS_OK);
	assert_true(p.swapped);
	assert_false(a->ports[1].ctr->ok);
	assert_int_equal(a->ports[1].ctr->not_read, IBS_CTR_MOVED);
	assert_false(b->ports[1].ctr->ok);
	assert_int_equal(b->ports[1].ctr->not_read, IBS_CTR_MOVED);
	assert_false(ibs_port_data_delta(a->ports[1].ctr, true, &w));
	assert_false(ibs_port_data_delta(b->ports[1].ctr, true, &w));
	assert_non_null(strstr(ibs_port_counters_why(a, &a->ports[1]), "moved"));
	assert_true(c->ports[1].ctr->ok);
	assert_true(ibs_port_data_delta(c->ports[1].ctr, true, &w));
	assert_int_equal(w, 10);
	assert_true(f->partial);
	rig_close(&r);
	ibs_fabric_free(f);
}

/* PortRcvSwitchRelayErrors alone is no finding by default; a threshold set for it makes one. */
static void test_relay_errors_off_by_default(void **state)
{
	struct ibs_fabric *f = ibs_fabric_new();
	const uint16_t lid[] = { 0, 5 };
	const uint8_t st[] = { 0, 4 };
	struct ibs_node *n = add_ca(f, 0x100, 1, lid, st);
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true };
	struct ibs_run run = { .counters_read = true };
	struct ibs_findings fs;
	char *msg = NULL;
	size_t i, hits;

	(void)state;
	n->ports[1].ctr = xcalloc(1, sizeof(*n->ports[1].ctr));
	n->ports[1].ctr->ok = true;
	n->ports[1].ctr->c.rcv_switch_relay_errors = 5000;
	ibs_thresholds_default(&t);
	ibs_health_check(f, &run, &ho, &fs);
	for (i = hits = 0; i < fs.n; i++)
		hits += fs.v[i].counter && !strcmp(fs.v[i].counter->name, "PortRcvSwitchRelayErrors");
	assert_int_equal(hits, 0);
	ibs_findings_free(&fs);
	assert_int_equal(ibs_thresholds_set(&t, "PortRcvSwitchRelayErrors=100", &msg), IBS_OK);
	ibs_health_check(f, &run, &ho, &fs);
	for (i = hits = 0; i < fs.n; i++)
		hits += fs.v[i].counter && !strcmp(fs.v[i].counter->name, "PortRcvSwitchRelayErrors");
	assert_int_equal(hits, 1);
	ibs_findings_free(&fs);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_armed_port_not_asked),
		cmocka_unit_test(test_peer_armed_not_asked),
		cmocka_unit_test(test_shared_lid_not_asked),
		cmocka_unit_test(test_cpi_timeout_reads_ports),
		cmocka_unit_test(test_local_not_active),
		cmocka_unit_test(test_64bit_error_counters),
		cmocka_unit_test(test_interval_lid_moved),
		cmocka_unit_test(test_relay_errors_off_by_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
