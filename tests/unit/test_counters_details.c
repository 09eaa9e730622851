/*
 * Unit tests of PortRcvErrorDetails and PortXmitDiscardDetails in the counter
 * sweep (fabric/walk/counters_details.c) over a scripted PMA: a clean fabric sends
 * no MAD more, a port whose PortRcvErrors or PortXmitDiscards moved has its
 * details read and decoded (and rendered in JSON, Prometheus and health), a
 * PMA that answers a bad status or nothing is asked once, not once per port,
 * with the summary counters still whole, and --interval asks only where the
 * summary rose between the readings. PortVLXmitWaitCounters likewise, for
 * a port whose PortXmitWait moved, and not where ClassPortInfo says the
 * PMA does not count PortXmitWait: decoded VL by VL, rendered in text,
 * JSON and Prometheus (vl label), and never a health finding.
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
#include "../../output/counters.h"
#include "../../output/emit.h"
#include "../../output/prom.h"
#include "../../fabric/load/state.h"

#include <jansson.h>

#define SW_GUID 0x200000ull
#define SW_LID 1
#define NPORTS 4

/* A switch's PMA at LID 1 (and its SMA, for the NodeInfo of --interval). */
struct dpma {
	uint32_t rcv_errors[NPORTS + 1], xmit_discards[NPORTS + 1], xmit_wait[NPORTS + 1];
	uint16_t capmask;    /* ClassPortInfo's CapabilityMask */
	uint16_t det_status; /* nonzero: the details are answered with this status */
	bool det_drop;       /* the details are never answered */
	unsigned rise_after; /* nonzero: after this many PortCounters answers, port 2's PortRcvErrors rises by 4 */
	uint32_t wait_rise;  /* with rise_after: port 1's PortXmitWait rises by this much then too */
	uint32_t rcv_rise;   /* with rise_after: port 2's PortRcvErrors rises by this much (0: 4) */
	uint32_t downed_rise; /* with rise_after: port 3's LinkDownedCounter rises by this much */
	uint32_t link_downed[NPORTS + 1];
	uint32_t vl3_add;    /* added to every port's PortVLXmitWait3 */
	uint32_t vl3_rise;   /* vl3_add rises by this much after NPORTS PortVLXmitWaitCounters answers */
	bool vl15_max;       /* every port's PortVLXmitWait15 is at 65535 (saturated) */
	uint8_t psc_tick;    /* PortSamplesControl's Tick */
	bool psc_drop;       /* PortSamplesControl is never answered, as ibsim drops it */
	uint32_t vendor_id;  /* NodeInfo's, for the NodeInfo of --interval */
	unsigned pc, det_gets[2], vl_gets, psc_gets, sets, other;
	unsigned vl_sets; /* Sets of PortVLXmitWaitCounters, each checked to clear every VL of a port 1-NPORTS */
};

static void dp_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct dpma *p = f->ctx;
	uint8_t data[IBS_MAD_SIZE - IBS_GMP_DATA_OFFS], out[IBS_MAD_SIZE];
	uint32_t port = mad[IBS_GMP_DATA_OFFS + 1], v;

	memset(data, 0, sizeof(data));
	if (req->mgmt_class == IBS_CLASS_SMI) {
		fake_answer_nodeinfo(f, mad, IB_NODE_SWITCH, NPORTS, SW_GUID, 0, p->vendor_id);
		return;
	}
	assert_int_equal(req->mgmt_class, IBS_CLASS_PMA);
	assert_int_equal(req->addr.lid, SW_LID);
	if (req->method == IBS_METHOD_SET) {
		p->sets++;
		if (req->attr_id == IBS_ATTR_PORT_VL_XMIT_WAIT) {
			uint32_t sel = 0, sel2 = 1;
			mad_decode_field((uint8_t *)mad + IBS_GMP_DATA_OFFS, IB_PC_COUNTER_SELECT_F, &sel);
			mad_decode_field((uint8_t *)mad + IBS_GMP_DATA_OFFS, IB_PC_COUNTER_SELECT2_F, &sel2);
			assert_int_equal(sel, 0xffff); /* one bit per VL */
			assert_int_equal(sel2, 0);
			assert_true(port >= 1 && port <= NPORTS);
			p->vl_sets++;
		}
		fake_answer(f, mad, 0, NULL, 0);
		return;
	}
	fake_make_resp(mad, 0, NULL, out);
	if (req->attr_id == IBS_ATTR_PORT_COUNTERS) {
		assert_true(port >= 1 && port <= NPORTS);
		mad_encode_field(data, IB_PC_PORT_SELECT_F, &port);
		v = p->rcv_errors[port];
		mad_encode_field(data, IB_PC_ERR_RCV_F, &v);
		v = p->xmit_discards[port];
		mad_encode_field(data, IB_PC_XMT_DISCARDS_F, &v);
		v = p->xmit_wait[port];
		mad_encode_field(data, IB_PC_XMT_WAIT_F, &v);
		v = p->link_downed[port];
		mad_encode_field(data, IB_PC_LINK_DOWNED_F, &v);
		if (p->rise_after && ++p->pc == p->rise_after) {
			p->rcv_errors[2] += p->rcv_rise ? p->rcv_rise : 4;
			p->link_downed[3] += p->downed_rise;
			p->xmit_wait[1] += p->wait_rise;
		}
	} else if (req->attr_id == IBS_ATTR_PORT_RCV_ERROR_DETAILS ||
		   req->attr_id == IBS_ATTR_PORT_XMIT_DISCARD_DETAILS) {
		bool rcv = req->attr_id == IBS_ATTR_PORT_RCV_ERROR_DETAILS;
		p->det_gets[!rcv]++;
		if (p->det_drop)
			return;
		if (p->det_status) {
			fake_answer(f, mad, p->det_status, NULL, 0);
			return;
		}
		mad_encode_field(data, IB_PC_PORT_SELECT_F, &port);
		/* Distinct per member and port: port * 1000 + the member's rank. */
		if (rcv) {
			enum MAD_FIELDS fl;
			for (fl = IB_PC_RCV_LOCAL_PHY_ERR_F; fl < IB_PC_RCV_ERR_LAST_F; fl++) {
				v = port * 1000 + (uint32_t)(fl - IB_PC_RCV_LOCAL_PHY_ERR_F) + 1;
				mad_encode_field(data, fl, &v);
			}
		} else {
			enum MAD_FIELDS fl;
			for (fl = IB_PC_XMT_INACT_DISC_F; fl < IB_PC_XMT_DISC_LAST_F; fl++) {
				v = port * 1000 + (uint32_t)(fl - IB_PC_XMT_INACT_DISC_F) + 1;
				mad_encode_field(data, fl, &v);
			}
		}
	} else if (req->attr_id == IBS_ATTR_PORT_VL_XMIT_WAIT) {
		enum MAD_FIELDS fl;
		p->vl_gets++;
		mad_encode_field(data, IB_PC_PORT_SELECT_F, &port);
		/* Distinct per VL and port: port * 100 + VL. */
		for (fl = IB_PC_PORT_VL_XMIT_WAIT0_F; fl <= IB_PC_PORT_VL_XMIT_WAIT15_F; fl++) {
			v = port * 100 + (uint32_t)(fl - IB_PC_PORT_VL_XMIT_WAIT0_F);
			if (fl == IB_PC_PORT_VL_XMIT_WAIT0_F + 3)
				v += p->vl3_add;
			if (fl == IB_PC_PORT_VL_XMIT_WAIT15_F && p->vl15_max)
				v = 0xffff;
			mad_encode_field(data, fl, &v);
		}
		if (p->vl_gets == NPORTS)
			p->vl3_add += p->vl3_rise;
	} else if (req->attr_id == IBS_ATTR_PORT_SAMPLES_CONTROL) {
		p->psc_gets++;
		assert_true(port >= 1 && port <= NPORTS); /* PortSelect names the port (qib refuses another) */
		if (p->psc_drop)
			return;
		data[0] = 0xff; /* OpCode, PortSelect, Tick, CounterWidth: bytes 0-3 (IBA 16.1.3.2) */
		data[1] = (uint8_t)port;
		data[2] = p->psc_tick;
		data[3] = 4;
	} else {
		/* ClassPortInfo: p->capmask, no extended width; PortCountersExtended not asked then */
		assert_int_equal(req->attr_id, IBS_ATTR_CLASS_PORT_INFO);
		v = p->capmask;
		mad_encode_field(data, IB_CPI_CAPMASK_F, &v);
		p->other++;
	}
	memcpy(out + IBS_GMP_DATA_OFFS, data, sizeof(data));
	fake_push(f, out, IBS_MAD_SIZE, 0, 0);
}

static struct ibs_fabric *one_switch(void)
{
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *n = fb_node(f, IBS_NODE_SWITCH, NPORTS, SW_GUID, SW_GUID);
	unsigned p;

	for (p = 0; p <= NPORTS; p++) {
		struct ibs_port *pt = fb_port(n, p, IBS_PORT_ACTIVE, IBS_PHYS_LINKUP, p ? 0 : SW_LID);
		pt->guid = SW_GUID;
		pt->pi.width_active = 2; /* 4x */
		pt->pi.speed_active = 1; /* SDR: a symbol time of 4 ns */
	}
	return f;
}

struct rig {
	struct fake fk;
	struct ibs_engine *e;
	struct ibs_run run;
	struct ibs_fabric *f;
	struct ibs_node *n;
};

static void rig_run(struct rig *r, struct dpma *p, const struct ibs_counter_opts *o, double interval_s)
{
	struct ibs_engine_opts eo = { .window = 8, .timeout_ms = 30, .retries = 1, .fixed_timeout = true };

	memset(&r->run, 0, sizeof(r->run));
	fake_init(&r->fk, dp_on_send, p);
	r->e = ibs_engine_new(&r->fk.t, &eo);
	r->f = one_switch();
	r->n = r->f->nodes[0];
	r->n->ni.vendor_id = p->vendor_id;
	if (interval_s > 0)
		assert_int_equal(ibs_read_counters_interval(r->e, r->f, &r->run, o, interval_s), IBS_OK);
	else
		assert_int_equal(ibs_read_counters(r->e, r->f, &r->run, o), IBS_OK);
}

static void rig_close(struct rig *r)
{
	ibs_engine_free(r->e);
	free(r->fk.q);
	ibs_run_free(&r->run);
	ibs_fabric_free(r->f);
}

static const struct ibs_port_counters *ctr(struct rig *r, unsigned p)
{
	assert_non_null(r->n->ports[p].ctr);
	assert_true(r->n->ports[p].ctr->ok);
	return r->n->ports[p].ctr;
}

/* A clean fabric: exactly the MADs it cost before (PortCounters per port, ClassPortInfo with -x). */
static void test_clean_costs_nothing(void **state)
{
	struct ibs_counter_opts plain = { 0 }, ext = { .extended = true };
	struct dpma p;
	struct rig r;
	unsigned k;

	(void)state;
	memset(&p, 0, sizeof(p));
	rig_run(&r, &p, &plain, 0);
	assert_int_equal(r.fk.sent, NPORTS);
	for (k = 1; k <= NPORTS; k++)
		assert_int_equal(ctr(&r, k)->det[IBS_DET_RCV].state, IBS_DET_NOT_ASKED);
	rig_close(&r);
	memset(&p, 0, sizeof(p));
	rig_run(&r, &p, &ext, 0);
	assert_int_equal(r.fk.sent, NPORTS + 1);
	assert_int_equal(p.det_gets[0] + p.det_gets[1], 0);
	rig_close(&r);
}

static json_t *port_json(json_t *doc, unsigned port)
{
	size_t i;
	json_t *p;

	json_array_foreach(json_object_get(doc, "ports_counters"), i, p)
		if (json_integer_value(json_object_get(p, "port")) == (json_int_t)port)
			return p;
	fail_msg("no port %u", port);
	return NULL;
}

/*
 * Port 2's PortRcvErrors and port 3's PortXmitDiscards moved: one request
 * each, decoded member by member, no other port asked, no Set; JSON,
 * Prometheus and health say the reasons.
 */
static void test_errors_read(void **state)
{
	struct ibs_counter_opts o = { .extended = true };
	struct dpma p;
	struct rig r;
	size_t i;
	struct emit *e = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	json_t *doc, *d;
	json_error_t err;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true };
	struct ibs_findings fs;
	bool said_rcv = false, said_xmit = false;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.rcv_errors[2] = 50;
	p.xmit_discards[3] = 500;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.det_gets[0], 1);
	assert_int_equal(p.det_gets[1], 1);
	assert_int_equal(p.sets, 0);
	assert_int_equal(r.fk.sent, 1 + NPORTS + 2);
	assert_int_equal(ctr(&r, 2)->det[IBS_DET_RCV].state, IBS_DET_OK);
	assert_int_equal(ctr(&r, 2)->det[IBS_DET_XMIT].state, IBS_DET_NOT_ASKED);
	assert_int_equal(ctr(&r, 3)->det[IBS_DET_XMIT].state, IBS_DET_OK);
	assert_int_equal(ctr(&r, 3)->det[IBS_DET_RCV].state, IBS_DET_NOT_ASKED);
	assert_int_equal(ctr(&r, 1)->det[IBS_DET_RCV].state, IBS_DET_NOT_ASKED);
	for (i = 0; i < ibs_n_detail_defs; i++) {
		const struct ibs_detail_def *dd = &ibs_detail_defs[i];
		if (dd->det == IBS_DET_VL_WAIT)
			continue; /* PortXmitWait did not move: test_vl_wait_read */
		unsigned port = dd->det == IBS_DET_RCV ? 2 : 3;
		uint64_t rank = dd->det == IBS_DET_RCV ? i + 1 : i - 5; /* the table: 6 rcv, then 4 xmit */
		assert_int_equal(ibs_detail_get(&ctr(&r, port)->d, dd), port * 1000 + rank);
	}
	assert_false(r.f->partial);

	r.run.counters_read = true;
	render_counters(e, r.f, &r.run, NULL);
	m = open_memstream(&buf, &len);
	assert_int_equal(emit_write(e, m), 0);
	fclose(m);
	emit_free(e);
	doc = json_loads(buf, 0, &err);
	if (!doc)
		fail_msg("%s: %s", err.text, buf);
	free(buf);
	d = json_object_get(port_json(doc, 2), "rcv_error_details");
	assert_true(json_is_null(json_object_get(d, "error")));
	assert_int_equal(json_integer_value(json_object_get(d, "PortLocalPhysicalErrors")), 2001);
	assert_int_equal(json_integer_value(json_object_get(d, "PortLoopingErrors")), 2006);
	assert_true(json_is_null(json_object_get(port_json(doc, 2), "xmit_discard_details")));
	d = json_object_get(port_json(doc, 3), "xmit_discard_details");
	assert_int_equal(json_integer_value(json_object_get(d, "PortSwHOQLifetimeLimitDiscards")), 3004);
	assert_true(json_is_null(json_object_get(port_json(doc, 1), "rcv_error_details")));
	json_decref(doc);

	buf = NULL;
	m = open_memstream(&buf, &len);
	assert_int_equal(render_counters_prom(m, r.f, &r.run, NULL), 0);
	fclose(m);
	assert_non_null(strstr(buf, "# TYPE ibscan_port_rcv_error_details_total counter\n"));
	assert_non_null(strstr(buf, "ibscan_port_rcv_error_details_total{guid=\"0x0000000000200000\",port=\"2\",name=\""));
	assert_non_null(strstr(buf, ",reason=\"vl_mapping\"} 2005\n"));
	assert_non_null(strstr(buf, ",reason=\"sw_hoq_lifetime_limit\"} 3004\n"));
	assert_null(strstr(buf, "port=\"1\",name=\"0x0000000000200000\",peer=\"\",reason="));
	free(buf);

	ibs_thresholds_default(&t);
	ibs_health_check(r.f, &r.run, &ho, &fs);
	for (i = 0; i < fs.n; i++) {
		said_rcv |= strstr(fs.v[i].message, "port 2: PortRcvErrors is 50 (threshold 10; PortRcvErrorDetails: "
						    "LocalPhysical 2001, MalformedPacket 2002, BufferOverrun 2003, "
						    "DLIDMapping 2004, VLMapping 2005, Looping 2006)") != NULL;
		said_xmit |= strstr(fs.v[i].message, "port 3: PortXmitDiscards is 500 (threshold 100; "
						     "PortXmitDiscardDetails: Inactive 3001, NeighborMTU 3002, "
						     "SwLifetimeLimit 3003, SwHOQLifetimeLimit 3004)") != NULL;
	}
	if (!said_rcv || !said_xmit)
		fail_msg("health does not name the reasons: %s", fs.n ? fs.v[0].message : "(no finding)");
	ibs_findings_free(&fs);
	rig_close(&r);
}

/*
 * A PMA without the details (a bad status) or that never answers them: one
 * request goes out for the first port that needs them, the other ports are
 * not asked, every port's summary counters stand, the fabric is not partial.
 */
static void failing_pma(uint16_t status, bool drop)
{
	struct ibs_counter_opts o = { .reset = false };
	struct dpma p;
	struct rig r;
	unsigned k, failed = 0, skipped = 0;
	char buf[256];

	memset(&p, 0, sizeof(p));
	for (k = 1; k <= NPORTS; k++)
		p.rcv_errors[k] = 20 + k;
	p.det_status = status;
	p.det_drop = drop;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.det_gets[0], drop ? 2 : 1); /* the one request; dropped, its retry too */
	assert_int_equal(p.det_gets[1], 0);
	for (k = 1; k <= NPORTS; k++) {
		const struct ibs_port_counters *c = ctr(&r, k);
		assert_int_equal(c->c.rcv_errors, 20 + k);
		assert_int_equal(c->det[IBS_DET_RCV].outcome, drop ? IBS_MAD_TIMEOUT : IBS_MAD_STATUS);
		assert_int_equal(c->det[IBS_DET_RCV].status, drop ? 0 : status);
		failed += c->det[IBS_DET_RCV].state == IBS_DET_FAILED;
		skipped += c->det[IBS_DET_RCV].state == IBS_DET_SKIPPED;
		assert_false(ibs_port_details_str(c, IBS_DET_RCV, buf, sizeof(buf)));
		assert_non_null(ibs_port_details_why(c, IBS_DET_RCV, buf, sizeof(buf)));
	}
	assert_int_equal(failed, 1);
	assert_int_equal(skipped, NPORTS - 1);
	assert_false(r.f->partial);
	rig_close(&r);
}

static void test_unsupported_asked_once(void **state)
{
	(void)state;
	failing_pma(0x000c, false); /* IBA 13.4.7: unsupported method/attribute combination */
}

static void test_timeout_asked_once(void **state)
{
	(void)state;
	failing_pma(0, true);
}

/* --interval: no details in the first reading; in the second, only port 2 (risen), not port 3 (unchanged). */
static void test_interval_only_risen(void **state)
{
	struct ibs_counter_opts o = { 0 };
	struct dpma p;
	struct rig r;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.rcv_errors[2] = 30;
	p.rcv_errors[3] = 30;
	p.rise_after = NPORTS; /* between the two readings */
	rig_run(&r, &p, &o, 0.01);
	assert_int_equal(p.det_gets[0], 1);
	assert_int_equal(ctr(&r, 2)->det[IBS_DET_RCV].state, IBS_DET_OK);
	assert_int_equal(ctr(&r, 2)->c.rcv_errors, 34);
	assert_int_equal(ctr(&r, 3)->det[IBS_DET_RCV].state, IBS_DET_NOT_ASKED);
	rig_close(&r);
}

/* The output of the counters view of r (fs: the findings it lists, or NULL) in mode m, as a string (free it). */
static char *rendered_fs(enum emit_mode m, struct rig *r, const struct ibs_findings *fs)
{
	struct emit *e = emit_new(m);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	r->run.counters_read = true;
	render_counters(e, r->f, &r->run, fs);
	assert_int_equal(emit_write(e, f), 0);
	fclose(f);
	emit_free(e);
	return buf;
}

static char *rendered(enum emit_mode m, struct rig *r)
{
	return rendered_fs(m, r, NULL);
}

/* The JSON document of the counters view (json_decref it). */
static json_t *rendered_json(struct rig *r)
{
	char *buf = rendered(EMIT_JSON, r);
	json_error_t err;
	json_t *doc = json_loads(buf, 0, &err);

	if (!doc)
		fail_msg("%s: %s", err.text, buf);
	free(buf);
	return doc;
}

/* The Prometheus exposition of the counters view (free it). */
static char *rendered_prom_fs(struct rig *r, const struct ibs_findings *fs)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_int_equal(render_counters_prom(m, r->f, &r->run, fs), 0);
	fclose(m);
	return buf;
}

static char *rendered_prom(struct rig *r)
{
	return rendered_prom_fs(r, NULL);
}

/*
 * counters --interval judges what rose between the two readings, as health
 * --state judges what rose since the last run: port 2's PortRcvErrors (30
 * before, above its threshold of 10 both times) rose by 50, a counters
 * finding "rose by"; port 3's LinkDownedCounter rose by 2, link.flapped;
 * port 4's 40 PortRcvErrors did not move, no finding. The counters view
 * lists them in text, JSON and Prometheus; without interval, the totals.
 */
static void test_interval_findings(void **state)
{
	struct ibs_counter_opts o = { 0 };
	struct dpma p;
	struct rig r;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true, .interval = true };
	struct ibs_findings fs;
	char *buf;
	json_t *doc, *v;
	size_t i;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.rcv_errors[2] = 30;
	p.rcv_errors[4] = 40;
	p.link_downed[3] = 7;
	p.rise_after = NPORTS; /* between the two readings */
	p.rcv_rise = 50;
	p.downed_rise = 2;
	rig_run(&r, &p, &o, 0.01);
	ibs_thresholds_default(&t);
	ibs_health_check(r.f, &r.run, &ho, &fs);
	assert_int_equal(fs.count[CK_COUNTERS], 1);
	assert_int_equal(fs.count[CK_LINK_FLAPPED], 1);
	for (i = 0; i < fs.n; i++) {
		const struct ibs_finding *x = &fs.v[i];
		if (x->check == &ibs_checks[CK_COUNTERS]) {
			assert_int_equal(x->port, 2);
			assert_int_equal(x->value, 50);
			if (!strstr(x->message, "port 2: PortRcvErrors rose by 50 in the ") ||
			    !strstr(x->message, " s between the two readings (threshold 10"))
				fail_msg("%s", x->message);
		} else if (x->check == &ibs_checks[CK_LINK_FLAPPED]) {
			assert_int_equal(x->port, 3);
			assert_int_equal(x->value, 2);
			if (!strstr(x->message, "port 3 went down 2 times in the ") ||
			    !strstr(x->message, " s between the two readings (LinkDownedCounter 7 to 9)"))
				fail_msg("%s", x->message);
		}
	}

	buf = rendered_fs(EMIT_TEXT, &r, &fs);
	assert_non_null(strstr(buf, "\nfindings:\nWARNING  link.flapped: "));
	assert_non_null(strstr(buf, "\nWARNING  counters: 0x0000000000200000 port 2: PortRcvErrors rose by 50 in the "));
	free(buf);
	buf = rendered_fs(EMIT_JSON, &r, &fs);
	doc = json_loads(buf, 0, NULL);
	assert_non_null(doc);
	free(buf);
	v = json_object_get(doc, "findings");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 0), "check")), "link.flapped");
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 1), "check")), "counters");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(v, 1), "value")), 50);
	assert_string_equal(json_string_value(json_object_get(json_array_get(v, 1), "counter")), "PortRcvErrors");
	json_decref(doc);
	buf = rendered_prom_fs(&r, &fs);
	assert_non_null(strstr(buf, "# TYPE ibscan_findings gauge\n"));
	assert_non_null(strstr(buf, "ibscan_findings{check=\"counters\"} 1\n"));
	assert_non_null(strstr(buf, "ibscan_findings{check=\"link.flapped\"} 1\n"));
	assert_non_null(strstr(buf, "ibscan_findings{check=\"counters.congested\"} 0\n"));
	assert_null(strstr(buf, "check=\"link.down\"")); /* only the checks judged from the readings */
	free(buf);
	ibs_findings_free(&fs);

	/* One reading's judgement: the totals (ports 2 and 4 above 10; 9 link downs below it). */
	ho.interval = false;
	ibs_health_check(r.f, &r.run, &ho, &fs);
	assert_int_equal(fs.count[CK_COUNTERS], 2);
	assert_int_equal(fs.count[CK_LINK_FLAPPED], 0);
	ibs_findings_free(&fs);
	rig_close(&r);
}

/*
 * Port 1's PortXmitWait moved: one PortVLXmitWaitCounters request, for it
 * alone, decoded VL by VL; text says which VLs waited after the counter,
 * JSON has every VL by libibmad's name, Prometheus one series per VL with a
 * vl label; health makes no finding of it (congestion is reported, not
 * judged: docs/checks.md).
 */
static void test_vl_wait_read(void **state)
{
	struct ibs_counter_opts o = { 0 };
	struct dpma p;
	struct rig r;
	unsigned vl;
	char *buf, want[64];
	json_t *doc, *d;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true };
	struct ibs_findings fs;
	size_t i;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.xmit_wait[1] = 5000;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.vl_gets, 1);
	assert_int_equal(p.det_gets[0] + p.det_gets[1] + p.sets, 0);
	assert_int_equal(r.fk.sent, NPORTS + 1);
	assert_int_equal(ctr(&r, 1)->det[IBS_DET_VL_WAIT].state, IBS_DET_OK);
	for (vl = 0; vl < IBS_N_VL; vl++)
		assert_int_equal(ctr(&r, 1)->d.vl_xmit_wait[vl], 100 + vl);
	for (i = 2; i <= NPORTS; i++)
		assert_int_equal(ctr(&r, (unsigned)i)->det[IBS_DET_VL_WAIT].state, IBS_DET_NOT_ASKED);
	assert_false(r.f->partial);

	buf = rendered(EMIT_TEXT, &r);
	assert_non_null(strstr(buf, " PortXmitWait=5000 (VL0 100, VL1 101, VL2 102, VL3 103, VL4 104, VL5 105, VL6 106, "
				    "VL7 107, VL8 108, VL9 109, VL10 110, VL11 111, VL12 112, VL13 113, VL14 114, VL15 115)"));
	free(buf);
	doc = rendered_json(&r);
	d = json_object_get(port_json(doc, 1), "vl_xmit_wait");
	assert_true(json_is_null(json_object_get(d, "error")));
	assert_int_equal(json_integer_value(json_object_get(d, "PortVLXmitWait0")), 100);
	assert_int_equal(json_integer_value(json_object_get(d, "PortVLXmitWait15")), 115);
	assert_true(json_is_null(json_object_get(port_json(doc, 2), "vl_xmit_wait")));
	assert_true(json_is_null(json_object_get(port_json(doc, 1), "rcv_error_details")));
	json_decref(doc);

	buf = rendered_prom(&r);
	assert_non_null(strstr(buf, "# TYPE ibscan_port_vl_xmit_wait_total counter\n"));
	for (vl = 0; vl < IBS_N_VL; vl++) {
		snprintf(want, sizeof(want), ",peer=\"\",vl=\"%u\"} %u\n", vl, 100 + vl);
		if (!strstr(buf, want))
			fail_msg("no VL%u series in\n%s", vl, buf);
	}
	assert_non_null(strstr(buf, "ibscan_port_vl_xmit_wait_total{guid=\"0x0000000000200000\",port=\"1\",name=\""));
	assert_null(strstr(buf, "ibscan_port_vl_xmit_wait_total{guid=\"0x0000000000200000\",port=\"2\""));
	assert_null(strstr(buf, "reason=\"0\""));
	free(buf);

	ibs_thresholds_default(&t);
	ibs_health_check(r.f, &r.run, &ho, &fs);
	for (i = 0; i < fs.n; i++)
		if (strstr(fs.v[i].message, "XmitWait") || strstr(fs.v[i].message, "VL"))
			fail_msg("congestion judged: %s", fs.v[i].message);
	ibs_findings_free(&fs);
	rig_close(&r);
}

/*
 * Where ClassPortInfo says the PMA does not count PortXmitWait
 * (CapabilityMask bit 12 clear), its PortXmitWait is no reading and the
 * VLs are not asked; with the bit, they are.
 */
static void test_vl_wait_needs_xmit_wait_bit(void **state)
{
	struct ibs_counter_opts o = { .extended = true };
	struct dpma p;
	struct rig r;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.xmit_wait[3] = 77;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.other, 1);
	assert_int_equal(p.vl_gets, 0);
	assert_int_equal(ctr(&r, 3)->det[IBS_DET_VL_WAIT].state, IBS_DET_NOT_ASKED);
	rig_close(&r);

	memset(&p, 0, sizeof(p));
	p.xmit_wait[3] = 77;
	p.capmask = IBS_PM_XMIT_WAIT_SUP;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.vl_gets, 1);
	assert_int_equal(ctr(&r, 3)->det[IBS_DET_VL_WAIT].state, IBS_DET_OK);
	assert_int_equal(ctr(&r, 3)->d.vl_xmit_wait[2], 302);
	rig_close(&r);
}

/*
 * The share of the time a port waited, over --interval. Port 1's
 * PortXmitWait rises by 1953125 between the readings, which are made 1 s
 * apart (the answers' times set after the run, so that the interval is
 * known exactly); its PMA says Tick 31 (32 symbol times, as NVIDIA
 * documents Switch-IB), the port runs 4xSDR (4 ns a symbol): 1953125 x
 * 128 ns / 1 s = 0.25. One PortSamplesControl, for port 1 alone (the
 * only one that rose), in the second reading only.
 */
static void congested_rig_o(struct rig *r, struct dpma *p, const struct ibs_counter_opts *o)
{
	struct ibs_port_counters *c;
	unsigned k;

	p->xmit_wait[1] = 1000;
	p->xmit_wait[2] = 400; /* waited once, not since: share 0, no request */
	p->rise_after = NPORTS;
	p->wait_rise = 1953125;
	rig_run(r, p, o, 0.01);
	for (k = 1; k <= NPORTS; k++) {
		c = r->n->ports[k].ctr;
		c->prev_t_ns = 5000000000ull;
		c->t_ns = 6000000000ull;
	}
}

static void congested_rig(struct rig *r, struct dpma *p)
{
	struct ibs_counter_opts o = { 0 };

	congested_rig_o(r, p, &o);
}

static void test_share_from_tick(void **state)
{
	struct dpma p;
	struct rig r;
	double tick_s, share;
	char why[192], *buf;
	json_t *doc, *d;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true };
	struct ibs_findings fs;
	size_t i, found = 0;
	char *msg = NULL;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.psc_tick = 31;
	congested_rig(&r, &p);
	assert_int_equal(p.psc_gets, 1);
	assert_int_equal(ctr(&r, 1)->det[IBS_DET_PSC].state, IBS_DET_OK);
	assert_int_equal(ctr(&r, 1)->d.psc_tick, 31);
	assert_int_equal(ctr(&r, 2)->det[IBS_DET_PSC].state, IBS_DET_NOT_ASKED);
	assert_true(ibs_port_xmit_wait_share(r.n, &r.n->ports[1], &tick_s, &share, why, sizeof(why)));
	assert_true(tick_s > 127.999e-9 && tick_s < 128.001e-9);
	assert_true(share > 0.249999 && share < 0.250001);
	assert_true(ibs_port_xmit_wait_share(r.n, &r.n->ports[2], &tick_s, &share, why, sizeof(why)));
	assert_true(share == 0.0 && tick_s == 0.0);

	buf = rendered(EMIT_TEXT, &r);
	/* Not an NVIDIA switch: the tick is the IBA's rule, an assumption, and said so. */
	assert_non_null(strstr(buf, ", PortXmitWait 1953125 ticks/s (tick 1.28e-07 s, assumed: the IBA's rule), waiting "
				    "0.25 of the time"));
	free(buf);
	doc = rendered_json(&r);
	d = json_object_get(port_json(doc, 1), "deltas");
	assert_true(json_real_value(json_object_get(d, "xmit_wait_share")) > 0.249999);
	assert_true(json_real_value(json_object_get(d, "xmit_wait_share")) < 0.250001);
	assert_true(json_real_value(json_object_get(d, "xmit_wait_tick_s")) > 127.999e-9);
	assert_true(json_is_true(json_object_get(d, "xmit_wait_tick_assumed")));
	d = json_object_get(port_json(doc, 2), "deltas");
	assert_true(json_number_value(json_object_get(d, "xmit_wait_share")) == 0.0);
	assert_true(json_is_null(json_object_get(d, "xmit_wait_tick_s")));
	json_decref(doc);

	buf = rendered_prom(&r);
	assert_non_null(strstr(buf, "# TYPE ibscan_port_xmit_wait_share gauge\n"));
	assert_non_null(strstr(buf, "ibscan_port_xmit_wait_share{guid=\"0x0000000000200000\",port=\"1\","));
	assert_non_null(strstr(buf, ",peer=\"\"} 0.25\n"));
	/* The share's basis: the tick, marked assumed (the IBA's rule), for port 1 alone (port 2 asked none). */
	assert_non_null(strstr(buf, "# TYPE ibscan_port_xmit_wait_tick_seconds gauge\n"));
	assert_non_null(strstr(buf, "ibscan_port_xmit_wait_tick_seconds{guid=\"0x0000000000200000\",port=\"1\","));
	assert_non_null(strstr(buf, ",peer=\"\",rule=\"assumed\"} 1.28e-07\n"));
	assert_null(strstr(buf, "ibscan_port_xmit_wait_tick_seconds{guid=\"0x0000000000200000\",port=\"2\","));
	free(buf);

	ibs_thresholds_default(&t);
	ibs_health_check(r.f, &r.run, &ho, &fs);
	for (i = 0; i < fs.n; i++)
		if (fs.v[i].check == &ibs_checks[CK_CONGESTED]) {
			found++;
			assert_int_equal(fs.v[i].port, 1);
			assert_int_equal(fs.v[i].value, 25);
			assert_int_equal(fs.v[i].threshold, 10);
			if (!strstr(fs.v[i].message, "port 1: waited 25.0% of the time with data to send "
								"(PortXmitWait rose by 1953125 ticks of 128 ns (assumed: the "
								"IBA's rule) in 1 s; "
								"threshold 10%)"))
				fail_msg("%s", fs.v[i].message);
		}
	assert_int_equal(found, 1);
	ibs_findings_free(&fs);
	/* Above the share it waited: no finding. */
	assert_int_equal(ibs_thresholds_set(&t, "counters.congested=25", &msg), IBS_OK);
	ibs_health_check(r.f, &r.run, &ho, &fs);
	assert_int_equal(fs.count[CK_CONGESTED], 0);
	ibs_findings_free(&fs);
	rig_close(&r);
}

/*
 * NVIDIA's Quantum switches say Tick 7 and count 8 bytes of the whole
 * port whatever its width (ibdiagnet manual): on a 4x port a tick is
 * 8 x 4 ns / 4 = 8 ns, so the same rise is 1953125 x 8 ns / 1 s.
 */
static void test_share_nvidia_per_port(void **state)
{
	struct dpma p;
	struct rig r;
	double tick_s, share;
	char why[192], *buf;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.psc_tick = 7;
	p.vendor_id = 0x02c9;
	congested_rig(&r, &p);
	assert_true(ibs_port_xmit_wait_share(r.n, &r.n->ports[1], &tick_s, &share, why, sizeof(why)));
	assert_true(tick_s > 7.999e-9 && tick_s < 8.001e-9);
	assert_true(share > 0.015624 && share < 0.015626);
	/* NVIDIA's manual documents the Quantum rule: not an assumption, and the text says none. */
	assert_true(ibs_xmit_wait_tick_documented(r.n, ctr(&r, 1)));
	buf = rendered(EMIT_TEXT, &r);
	assert_non_null(strstr(buf, " ticks/s (tick 8e-09 s), waiting "));
	free(buf);
	buf = rendered_prom(&r);
	assert_non_null(strstr(buf, ",peer=\"\",rule=\"documented\"} 8e-09\n"));
	assert_null(strstr(buf, "rule=\"assumed\""));
	free(buf);
	rig_close(&r);
	/* Another vendor's Tick 7 is 8 symbol times of a lane, as the IBA has it. */
	memset(&p, 0, sizeof(p));
	p.psc_tick = 7;
	congested_rig(&r, &p);
	assert_true(ibs_port_xmit_wait_share(r.n, &r.n->ports[1], &tick_s, &share, why, sizeof(why)));
	assert_true(share > 0.062499 && share < 0.062501);
	assert_false(ibs_xmit_wait_tick_documented(r.n, ctr(&r, 1)));
	rig_close(&r);
}

/*
 * Whether health's checks of r, with ho and thresholds t (reset to the
 * defaults, counters.congested 0), make a counters.congested finding
 * on port whose message holds needle.
 */
static bool congested_names(struct rig *r, struct ibs_health_opts *ho, struct ibs_thresholds *t, unsigned port,
			    const char *needle)
{
	struct ibs_findings fs;
	size_t i;
	bool named = false;

	ibs_thresholds_default(t);
	t->congested = 0;
	ho->thresholds = t;
	ibs_health_check(r->f, &r->run, ho, &fs);
	for (i = 0; i < fs.n; i++)
		if (fs.v[i].check == &ibs_checks[CK_CONGESTED] && fs.v[i].port == port)
			named |= strstr(fs.v[i].message, needle) != NULL;
	ibs_findings_free(&fs);
	return named;
}

/*
 * Per VL across runs, through the fake PMA as the exporter reads it: a
 * first sweep (PortXmitWait above 0: PortVLXmitWaitCounters and
 * PortSamplesControl read, Tick 31) kept as a state, a counters-only sweep
 * after port 1's PortXmitWait and VL3 rose by 39063, the state applied: VL3
 * waited 39063 ticks of 128 ns in the 1 s since (0.5%), VL0 none; health
 * names VL3 (threshold 0), Prometheus serves it with vl="3". (ibsim answers
 * PortVLXmitWaitCounters but drops PortSamplesControl: no sim test can.)
 */
static void test_vl_share_across_sweeps(void **state)
{
	struct ibs_counter_opts o = { .tick = true }, again = { .tick = true, .again = true };
	struct dpma p;
	struct rig r;
	struct ibs_state st;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true, .state = &st, .now = 1001 };
	uint64_t ticks;
	double share;
	size_t len;
	char *text, *msg = NULL, *buf;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.xmit_wait[1] = 5000;
	p.psc_tick = 31;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.vl_gets, 1);
	assert_int_equal(ctr(&r, 1)->det[IBS_DET_VL_WAIT].state, IBS_DET_OK);
	text = ibs_state_format(r.f, NULL, 1000, &len);
	assert_non_null(strstr(text, " vl=100,101,102,103,"));
	assert_int_equal(ibs_state_parse("s", text, len, &st, &msg), IBS_OK);
	free(text);

	p.xmit_wait[1] += 39063;
	p.vl3_add = 39063;
	assert_int_equal(ibs_read_counters(r.e, r.f, &r.run, &again), IBS_OK);
	assert_int_equal(p.vl_gets, 2);
	ibs_state_apply(&st, r.f, 1001);
	assert_true(ibs_xmit_wait_vl_share(r.n, &r.n->ports[1], ctr(&r, 1), ibs_port_counters_elapsed(ctr(&r, 1)), 3,
					   &ticks, &share));
	assert_int_equal(ticks, 39063);
	assert_true(share > 0.0049999 && share < 0.0050001);
	assert_true(ibs_xmit_wait_vl_share(r.n, &r.n->ports[1], ctr(&r, 1), 1.0, 0, &ticks, &share));
	assert_int_equal(ticks, 0);

	assert_true(congested_names(&r, &ho, &t, 1, "; by VL above it: VL3 0.5%)"));
	buf = NULL;
	{
		FILE *m = open_memstream(&buf, &len);
		assert_int_equal(render_health_prom(m, r.f, &r.run, NULL), 0);
		fclose(m);
	}
	assert_non_null(strstr(buf, "ibscan_port_vl_xmit_wait_share{guid=\"0x0000000000200000\",port=\"1\","));
	assert_non_null(strstr(buf, ",vl=\"3\"} 0.00500006\n"));
	free(buf);
	ibs_state_free(&st);
	rig_close(&r);
}

/*
 * The rig of --interval per VL: a PMA that says it counts PortXmitWait,
 * Tick 31, port 1's PortXmitWait risen by 1953125 and its VL3 by 39063 in
 * the 1 s between the readings (vl15_max: every VL15 at 65535).
 */
static void interval_vl_rig(struct rig *r, struct dpma *p, bool vl15_max)
{
	struct ibs_counter_opts o = { .extended = true };

	memset(p, 0, sizeof(*p));
	p->capmask = IBS_PM_XMIT_WAIT_SUP;
	p->psc_tick = 31;
	p->xmit_wait[1] = 1000;
	p->rise_after = NPORTS; /* between the two readings */
	p->wait_rise = 1953125;
	p->vl3_rise = 39063;
	p->vl15_max = vl15_max;
	congested_rig_o(r, p, &o);
}

/*
 * counters --interval, per VL: both readings ask PortVLXmitWaitCounters of
 * every port whose PMA's ClassPortInfo says it counts PortXmitWait (the
 * first cannot know which will rise); port 1's VL3 rises by 39063 ticks of
 * 128 ns in the 1 s between: 0.5% in the text, JSON, Prometheus and the
 * finding (threshold 0). A PMA that does not say so is asked none.
 */
static void test_interval_vl_share(void **state)
{
	struct ibs_counter_opts o = { .extended = true };
	struct dpma p;
	struct rig r;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true, .interval = true };
	uint64_t ticks;
	double share;
	char *buf;
	json_t *doc, *d;
	unsigned k;

	(void)state;
	interval_vl_rig(&r, &p, false);
	assert_int_equal(p.vl_gets, 2 * NPORTS);
	assert_true(ctr(&r, 1)->prev_vl_ok);
	assert_true(ibs_xmit_wait_vl_share(r.n, &r.n->ports[1], ctr(&r, 1), ibs_port_counters_elapsed(ctr(&r, 1)), 3,
					   &ticks, &share));
	assert_int_equal(ticks, 39063);
	assert_true(share > 0.0049999 && share < 0.0050001);

	buf = rendered(EMIT_TEXT, &r);
	if (!strstr(buf, ", waiting 0.25 of the time, by VL: VL3 0.005"))
		fail_msg("%s", buf);
	free(buf);
	doc = rendered_json(&r);
	d = json_object_get(json_object_get(port_json(doc, 1), "deltas"), "vl_xmit_wait_share");
	assert_true(json_is_object(d));
	assert_true(json_real_value(json_object_get(d, "PortVLXmitWait3")) > 0.0049999);
	assert_true(json_real_value(json_object_get(d, "PortVLXmitWait3")) < 0.0050001);
	assert_true(json_number_value(json_object_get(d, "PortVLXmitWait0")) == 0.0);
	/* Port 2 waited on no VL in between: every VL 0, no tick needed. */
	d = json_object_get(json_object_get(port_json(doc, 2), "deltas"), "vl_xmit_wait_share");
	for (k = 0; k < IBS_N_VL; k++) {
		char key[24];
		snprintf(key, sizeof(key), "PortVLXmitWait%u", k);
		assert_true(json_number_value(json_object_get(d, key)) == 0.0);
	}
	json_decref(doc);
	buf = rendered_prom(&r);
	assert_non_null(strstr(buf, ",vl=\"3\"} 0.00500006\n"));
	free(buf);

	assert_true(congested_names(&r, &ho, &t, 1, "; by VL above it: VL3 0.5%)"));
	rig_close(&r);

	/* ClassPortInfo does not say PortXmitWait is counted: no PortVLXmitWaitCounters in either reading. */
	memset(&p, 0, sizeof(p));
	p.psc_tick = 31;
	p.rise_after = NPORTS;
	p.vl3_rise = 39063;
	congested_rig_o(&r, &p, &o);
	assert_int_equal(p.vl_gets, 0);
	rig_close(&r);
}

/*
 * A VL counter at 65535 (16 bits, never wrapping) has no share, ever,
 * until cleared: said in the text, JSON, Prometheus and the finding,
 * rather than left out.
 */
static void test_interval_vl_saturated(void **state)
{
	struct dpma p;
	struct rig r;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true, .interval = true };
	uint64_t ticks;
	double share;
	char *buf;
	json_t *doc, *d;

	(void)state;
	interval_vl_rig(&r, &p, true);
	assert_false(ibs_xmit_wait_vl_share(r.n, &r.n->ports[1], ctr(&r, 1), 1.0, 15, &ticks, &share));
	assert_true(ibs_xmit_wait_vl_saturated(ctr(&r, 1), 15));
	assert_false(ibs_xmit_wait_vl_saturated(ctr(&r, 1), 3));

	buf = rendered(EMIT_TEXT, &r);
	if (!strstr(buf, ", by VL: VL3 0.005, VL15 is at 65535 (saturated: share unknown; clear with --reset-counters)"))
		fail_msg("%s", buf);
	free(buf);
	doc = rendered_json(&r);
	d = json_object_get(json_object_get(port_json(doc, 1), "deltas"), "vl_xmit_wait_share");
	assert_true(json_is_null(json_object_get(d, "PortVLXmitWait15")));
	assert_int_equal(json_array_size(json_object_get(d, "saturated")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(d, "saturated"), 0)), 15);
	json_decref(doc);
	buf = rendered_prom(&r);
	assert_non_null(strstr(buf, "# TYPE ibscan_port_vl_xmit_wait_saturated gauge\n"));
	assert_non_null(strstr(buf, "ibscan_port_vl_xmit_wait_saturated{guid=\"0x0000000000200000\",port=\"1\","));
	assert_non_null(strstr(buf, ",vl=\"15\"} 1\n"));
	assert_null(strstr(buf, ",vl=\"3\"} 1\n"));
	free(buf);
	assert_true(congested_names(&r, &ho, &t, 1,
				    "; by VL above it: VL3 0.5%; VL15 at 65535 (saturated: share unknown; clear with "
				    "--reset-counters))"));
	rig_close(&r);
}

/* --reset-counters clears the PortVLXmitWaitCounters it read (CounterSelect every VL), and only those. */
static void test_reset_clears_vl(void **state)
{
	struct ibs_counter_opts o = { .extended = true, .reset = true }, keep = { .extended = true };
	struct dpma p;
	struct rig r;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.capmask = IBS_PM_XMIT_WAIT_SUP;
	p.xmit_wait[3] = 77;
	rig_run(&r, &p, &o, 0);
	assert_int_equal(p.vl_gets, 1);
	assert_int_equal(p.vl_sets, 1);
	assert_int_equal(p.sets, NPORTS + 1); /* PortCounters of each port, and port 3's VLs */
	rig_close(&r);

	memset(&p, 0, sizeof(p));
	p.capmask = IBS_PM_XMIT_WAIT_SUP;
	p.xmit_wait[3] = 77;
	rig_run(&r, &p, &keep, 0);
	assert_int_equal(p.vl_gets, 1);
	assert_int_equal(p.sets, 0);
	rig_close(&r);
}

/*
 * PortSamplesControl not answered, as under ibsim (which drops it): no
 * tick is assumed, so no share and no counters.congested finding, and the
 * text says why; the rate of ticks stands. Asked once, its retry too.
 */
static void test_no_tick_no_share(void **state)
{
	struct dpma p;
	struct rig r;
	double tick_s, share;
	char why[192], *buf;
	json_t *doc, *d;
	struct ibs_thresholds t;
	struct ibs_health_opts ho = { .thresholds = &t, .counters = true };
	struct ibs_findings fs;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.psc_drop = true;
	congested_rig(&r, &p);
	assert_int_equal(p.psc_gets, 2);
	assert_int_equal(ctr(&r, 1)->det[IBS_DET_PSC].state, IBS_DET_FAILED);
	assert_false(r.f->partial);
	assert_false(ibs_port_xmit_wait_share(r.n, &r.n->ports[1], &tick_s, &share, why, sizeof(why)));
	assert_string_equal(why, "PortSamplesControl not answered: timeout");
	buf = rendered(EMIT_TEXT, &r);
	assert_non_null(strstr(buf, ", PortXmitWait 1953125 ticks/s (no share: PortSamplesControl not answered: timeout)"));
	free(buf);
	doc = rendered_json(&r);
	d = json_object_get(port_json(doc, 1), "deltas");
	assert_true(json_is_null(json_object_get(d, "xmit_wait_share")));
	assert_true(json_is_null(json_object_get(d, "xmit_wait_tick_s")));
	assert_true(json_number_value(json_object_get(d, "xmit_wait_ticks_per_s")) == 1953125.0);
	json_decref(doc);
	ibs_thresholds_default(&t);
	t.congested = 0;
	ibs_health_check(r.f, &r.run, &ho, &fs);
	assert_int_equal(fs.count[CK_CONGESTED], 0);
	ibs_findings_free(&fs);
	rig_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_costs_nothing),    cmocka_unit_test(test_errors_read),
		cmocka_unit_test(test_unsupported_asked_once), cmocka_unit_test(test_timeout_asked_once),
		cmocka_unit_test(test_interval_only_risen),    cmocka_unit_test(test_interval_findings),
		cmocka_unit_test(test_vl_wait_read),           cmocka_unit_test(test_vl_wait_needs_xmit_wait_bit),
		cmocka_unit_test(test_share_from_tick),        cmocka_unit_test(test_share_nvidia_per_port),
		cmocka_unit_test(test_no_tick_no_share),       cmocka_unit_test(test_interval_vl_share),
		cmocka_unit_test(test_interval_vl_saturated),  cmocka_unit_test(test_reset_clears_vl),
		cmocka_unit_test(test_vl_share_across_sweeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
