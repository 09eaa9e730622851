/* Unit tests of the PMA counter sweep (fabric/walk/counters.c) over a scripted PMA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../core/mad/engine.h"
#include "../../fabric/walk/counters.h"
#include "../../fabric/walk/run.h"
#include "../../output/counters.h"
#include "../../output/prom.h"

#include <jansson.h>

/* A PMA with the IETF extended counters whose PortCountersExtended answers come 30 ms late. */
struct pma {
	uint16_t capmask;
	uint16_t redirect_from; /* nonzero: this LID redirects every request to LID 9 QP 0x20 */
	unsigned redirects, at_target;
	uint64_t ext_due_ns; /* when the last PortCountersExtended read is answered */
	unsigned gets, sets, sets_beside_read;
};

static void pma_on_send(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad)
{
	struct pma *p = f->ctx;
	uint8_t data[IBS_SMP_DATA_SIZE] = { 0 }, as_cpi[IBS_MAD_SIZE];

	if (req->mgmt_class != IBS_CLASS_PMA)
		return;
	if (p->redirect_from && req->addr.lid == p->redirect_from) {
		/* "redirect required", and where to: a ClassPortInfo (IBA 13.4.8.1). */
		p->redirects++;
		mad_set_field(data, 0, IB_CPI_REDIRECT_LID_F, 9);
		mad_set_field(data, 0, IB_CPI_REDIRECT_QP_F, 0x20);
		mad_set_field(data, 0, IB_CPI_REDIRECT_QKEY_F, 0x80010000u);
		/* Some agents answer as the ClassPortInfo they carry: the AttributeID follows. */
		memcpy(as_cpi, mad, IBS_MAD_SIZE);
		mad_set_field(as_cpi, 0, IB_MAD_ATTRID_F, IBS_ATTR_CLASS_PORT_INFO);
		fake_answer(f, p->redirects % 2 ? as_cpi : mad, IBS_MAD_STATUS_REDIRECT, data, 0);
		return;
	}
	if (req->addr.lid == 9) {
		assert_int_equal(req->addr.qp, 0x20);
		assert_int_equal(req->addr.qkey, 0x80010000u);
		p->at_target++;
	}
	if (req->method == IBS_METHOD_SET) {
		p->sets++;
		if (fake_now() < p->ext_due_ns)
			p->sets_beside_read++;
		fake_answer(f, mad, 0, NULL, 0);
		return;
	}
	p->gets++;
	if (req->attr_id == IBS_ATTR_CLASS_PORT_INFO) {
		data[2] = (uint8_t)(p->capmask >> 8);
		data[3] = (uint8_t)p->capmask;
		fake_answer(f, mad, 0, data, 0);
	} else if (req->attr_id == IBS_ATTR_PORT_COUNTERS_EXT) {
		p->ext_due_ns = fake_now() + 30 * 1000000ull;
		fake_answer(f, mad, 0, NULL, 30);
	} else if (req->attr_id == IBS_ATTR_PORT_COUNTERS) {
		mad_set_field(data, 0, IB_PC_XMT_WAIT_F, 1234);
		fake_answer(f, mad, 0, data, 0);
	} else {
		fake_answer(f, mad, 0, NULL, 0);
	}
}

/* One CA whose port 1 (LID 5) is linked. */
static struct ibs_fabric *one_ca(void)
{
	struct ibs_fabric *f = ibs_fabric_new();

	fb_port(fb_node(f, IBS_NODE_CA, 1, 0x100000, 0), 1, IBS_PORT_ACTIVE, IBS_PHYS_LINKUP, 5);
	return f;
}

/* Read the counters of one_ca() from the PMA p with options o: the fabric (free it). */
static struct ibs_fabric *read_one(struct pma *p, const struct ibs_counter_opts *o)
{
	struct ibs_engine_opts eo = { .window = 8, .timeout_ms = 1000 };
	struct ibs_fabric *f = one_ca();
	struct ibs_engine *e;
	struct fake fk;
	struct ibs_run run;

	memset(&run, 0, sizeof(run));
	fake_init(&fk, pma_on_send, p);
	e = ibs_engine_new(&fk.t, &eo);
	assert_int_equal(ibs_read_counters(e, f, &run, o), IBS_OK);
	assert_false(run.no_lids);
	assert_true(f->nodes[0]->ports[1].ctr->ok);
	ibs_engine_free(e);
	free(fk.q);
	return f;
}

/*
 * --reset-counters with extended counters: both resets go out, and neither
 * while the PortCountersExtended read they follow is still on the wire.
 */
static void test_reset_after_ext_read(void **state)
{
	struct pma p = { .capmask = IBS_PM_EXT_WIDTH_SUPPORTED };
	struct ibs_counter_opts o = { .reset = true, .extended = true };
	struct ibs_fabric *f;

	(void)state;
	f = read_one(&p, &o);
	assert_true(f->nodes[0]->ports[1].ctr->extended);
	assert_int_equal(p.gets, 3); /* ClassPortInfo, PortCounters, PortCountersExtended */
	assert_int_equal(p.sets, 2);
	assert_int_equal(p.sets_beside_read, 0);
	ibs_fabric_free(f);
}

/* Without the extended counters the PortCounters reset follows its read. */
static void test_reset_without_ext(void **state)
{
	struct pma p = { .capmask = 0 };
	struct ibs_counter_opts o = { .reset = true, .extended = true };
	struct ibs_fabric *f;

	(void)state;
	f = read_one(&p, &o);
	assert_false(f->nodes[0]->ports[1].ctr->extended);
	assert_int_equal(p.gets, 2);
	assert_int_equal(p.sets, 1);
	ibs_fabric_free(f);
}

/* A PMA that redirects (as libibmad follows): every request is asked again at the LID and QP it names. */
static void test_redirect_followed(void **state)
{
	struct pma p = { .capmask = IBS_PM_EXT_WIDTH_SUPPORTED, .redirect_from = 5 };
	struct ibs_counter_opts o = { .reset = true, .extended = true };
	struct ibs_fabric *f;

	(void)state;
	f = read_one(&p, &o);
	assert_true(f->nodes[0]->ports[1].ctr->extended);
	assert_int_equal(p.redirects, 5); /* ClassPortInfo, PortCounters, PortCountersExtended, two resets */
	assert_int_equal(p.at_target, 5); /* each asked again there */
	assert_int_equal(p.sets, 2);
	ibs_fabric_free(f);
}

/* A redirect to an agent that redirects again is not followed further: the read fails with that status. */
static void test_redirect_once(void **state)
{
	struct pma p = { .capmask = 0, .redirect_from = 9 };
	struct ibs_counter_opts o = { 0 };
	struct ibs_engine_opts eo = { .window = 8, .timeout_ms = 1000 };
	struct ibs_fabric *f = one_ca();
	struct ibs_engine *e;
	struct fake fk;
	struct ibs_run run;

	(void)state;
	memset(&run, 0, sizeof(run));
	f->nodes[0]->ports[1].pi.lid = 9; /* the target redirects to itself */
	fake_init(&fk, pma_on_send, &p);
	e = ibs_engine_new(&fk.t, &eo);
	assert_int_equal(ibs_read_counters(e, f, &run, &o), IBS_OK);
	assert_false(f->nodes[0]->ports[1].ctr->ok);
	assert_int_equal(f->nodes[0]->ports[1].ctr->outcome, IBS_MAD_STATUS);
	assert_int_equal(p.redirects, 2);
	ibs_engine_free(e);
	ibs_fabric_free(f);
	free(fk.q);
}

/* PortXmitWait is optional: read only where ClassPortInfo has PortCountersXmitWaitSupported (bit 12). */
static void test_xmit_wait_capability(void **state)
{
	struct pma with = { .capmask = IBS_PM_EXT_WIDTH_SUPPORTED | IBS_PM_XMIT_WAIT_SUP };
	struct pma without = { .capmask = IBS_PM_EXT_WIDTH_SUPPORTED };
	struct ibs_counter_opts o = { .extended = true };
	const struct ibs_counter_def *xw = ibs_counter_find("PortXmitWait");
	struct ibs_fabric *f;

	(void)state;
	f = read_one(&with, &o);
	assert_true(ibs_counter_known(f->nodes[0]->ports[1].ctr, xw));
	assert_int_equal(f->nodes[0]->ports[1].ctr->c.xmit_wait, 1234);
	ibs_fabric_free(f);
	f = read_one(&without, &o);
	assert_false(ibs_counter_known(f->nodes[0]->ports[1].ctr, xw));
	assert_int_equal(f->nodes[0]->ports[1].ctr->c.xmit_wait, 0);
	assert_true(ibs_counter_known(f->nodes[0]->ports[1].ctr, ibs_counter_find("SymbolErrorCounter")));
	ibs_fabric_free(f);
}

/* Port p of n with two readings, one second apart: prev, then now (their data counters extended or not). */
static struct ibs_port_counters *two_readings(struct ibs_node *n, unsigned p, bool prev_ext, bool now_ext)
{
	struct ibs_port_counters *c = xcalloc(1, sizeof(*c));

	n->ports[p].valid = true;
	n->ports[p].pi.lid = (uint16_t)(5 + p);
	n->ports[p].pi.phys_state = 5;
	n->ports[p].ctr = c;
	c->ok = c->have_prev = true;
	c->prev_extended = prev_ext;
	c->extended = now_ext;
	c->prev_t_ns = 1000000000ull;
	c->t_ns = 2000000000ull;
	return c;
}

/* The "deltas" object of port p in a counters JSON document. */
static json_t *deltas_of(json_t *doc, unsigned p)
{
	json_t *ports = json_object_get(doc, "ports_counters");

	assert_true(json_array_size(ports) >= p);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ports, p - 1), "port")), p);
	return json_object_get(json_array_get(ports, p - 1), "deltas");
}

/*
 * PortCounters do not wrap: they stop at their maximum (IBA 16.1.3.5), and
 * someone else (a PerfMgr, perfquery -R) may clear them between two
 * readings. A delta is known only when both readings are below the maximum,
 * the second is not below the first, and both data counters have the same
 * width: otherwise it is null, not 0 (a busy link shown idle) or the 2^64
 * wrap of a subtraction.
 */
static void test_deltas_saturate(void **state)
{
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_run run = { .counters_read = true, .interval_s = 1 };
	struct ibs_port_counters *c;
	struct ibs_node *n;
	struct emit *e = emit_new(EMIT_JSON);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	json_error_t err;
	json_t *doc, *d;

	(void)state;
	n = fb_node(f, IBS_NODE_CA, 4, 0x100000, 0);
	/* 1: SymbolErrorCounter (16 bits) stuck at its maximum; LinkDownedCounter counting. */
	c = two_readings(n, 1, true, true);
	c->prev.symbol_errors = c->c.symbol_errors = 0xffff;
	c->prev.link_downed = 3;
	c->c.link_downed = 5;
	c->prev.xmit_wait = 1000;
	c->c.xmit_wait = 3000; /* 2000 ticks over the port's 1 s */
	c->prev.xmit_data = 1000;
	c->c.xmit_data = 1250;
	/* 2: cleared by someone else between the readings. */
	c = two_readings(n, 2, true, true);
	c->prev.xmit_data = 1u << 30;
	c->c.xmit_data = 10;
	c->prev.rcv_errors = 7;
	c->c.rcv_errors = 0;
	c->prev.xmit_wait = 9000;
	c->c.xmit_wait = 10; /* cleared too: no rate */
	/* 3: 64-bit data counters first, 32-bit ones (PortCountersExtended lost) second. */
	c = two_readings(n, 3, true, false);
	c->prev.xmit_data = 1ull << 40;
	c->c.xmit_data = 0xffffffffu;
	/* 4: 32-bit data counters saturated both times (a busy link in seconds). */
	c = two_readings(n, 4, false, false);
	c->prev.xmit_data = c->c.xmit_data = 0xffffffffu;
	c->prev.rcv_data = 100;
	c->c.rcv_data = 0xffffffffu;
	render_counters(e, f, &run, NULL);
	assert_int_equal(emit_write(e, m), 0);
	fclose(m);
	emit_free(e);
	doc = json_loads(buf, 0, &err);
	if (!doc)
		fail_msg("%s: %s", err.text, buf);

	d = deltas_of(doc, 1);
	assert_true(json_is_null(json_object_get(d, "SymbolErrorCounter")));
	assert_int_equal(json_integer_value(json_object_get(d, "LinkDownedCounter")), 2);
	assert_int_equal(json_integer_value(json_object_get(d, "xmit_bytes")), 1000);
	/* PortXmitWait as ticks per second; the tick's length unknown, so no share. */
	assert_true(json_real_value(json_object_get(d, "xmit_wait_ticks_per_s")) == 2000.0);
	assert_true(json_is_null(json_object_get(d, "xmit_wait_tick_s")));
	assert_true(json_is_null(json_object_get(d, "xmit_wait_share")));
	d = deltas_of(doc, 2);
	assert_true(json_is_null(json_object_get(d, "xmit_wait_ticks_per_s")));
	assert_true(json_is_null(json_object_get(d, "xmit_bytes")));
	assert_true(json_is_null(json_object_get(d, "xmit_bytes_per_s")));
	assert_true(json_is_null(json_object_get(d, "PortRcvErrors")));
	assert_int_equal(json_integer_value(json_object_get(d, "rcv_bytes")), 0);
	d = deltas_of(doc, 3);
	assert_true(json_is_null(json_object_get(d, "xmit_bytes")));
	assert_true(json_is_null(json_object_get(d, "rcv_bytes")));
	d = deltas_of(doc, 4);
	assert_true(json_is_null(json_object_get(d, "xmit_bytes")));
	assert_true(json_is_null(json_object_get(d, "rcv_bytes")));
	assert_true(json_is_null(json_object_get(d, "rcv_bytes_per_s")));
	json_decref(doc);
	free(buf);
	/* The same in the Prometheus output: a gauge for the port with a rate, none for the cleared one. */
	buf = NULL;
	m = open_memstream(&buf, &len);
	assert_int_equal(render_counters_prom(m, f, &run, NULL), 0);
	fclose(m);
	assert_non_null(strstr(buf, "# TYPE ibscan_port_xmit_wait_ticks_per_second gauge\n"));
	assert_non_null(strstr(buf, "ibscan_port_xmit_wait_ticks_per_second{guid=\"0x0000000000100000\",port=\"1\","));
	assert_null(strstr(buf, "ibscan_port_xmit_wait_ticks_per_second{guid=\"0x0000000000100000\",port=\"2\","));
	{
		const char *l = strstr(buf, "ibscan_port_xmit_wait_ticks_per_second{guid=\"0x0000000000100000\",port=\"1\",");
		const char *nl = strchr(l, '\n');
		assert_true(nl - l > 5 && !strncmp(nl - 5, " 2000", 5));
	}
	free(buf);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_after_ext_read),
		cmocka_unit_test(test_reset_without_ext),
		cmocka_unit_test(test_redirect_followed),
		cmocka_unit_test(test_redirect_once),
		cmocka_unit_test(test_xmit_wait_capability),
		cmocka_unit_test(test_deltas_saturate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
