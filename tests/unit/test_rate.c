/*
 * Unit tests of the link-rate policy (fabric/rate.c) on PortInfo answers in
 * their wire layout, as real ports give them: what each end supports is not
 * what the simulator says (every width, every speed), so a link is judged
 * by what both ends support and enable together.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../core/mad/mad.h"
#include "../../fabric/names.h"
#include "../../fabric/rate.h"

#include <infiniband/mad.h>
#include <string.h>

/* Width codes (IBA 14.2.5.6) and LinkSpeedExt bits. */
enum { W1 = 1, W4 = 2, W8 = 4, W12 = 8, W2 = 16 };
enum { FDR = 1, EDR = 2, HDR = 4, NDR = 8 };

struct pi {
	unsigned wsup, wen, wact; /* LinkWidth* */
	unsigned xsup, xen, xact; /* LinkSpeedExt* (0 with no extended speeds) */
	unsigned ssup, sen, sact; /* LinkSpeed*: 0 means SDR|DDR|QDR, QDR active */
	bool xdr;                 /* LinkSpeedExt*2 say XDR, CapabilityMask2 bit 11 */
	bool fdr10;               /* Mellanox ExtendedPortInfo: FDR10 supported, enabled, active */
};

#define PI(ws, we, wa, xs, xe, xa, ...)                                                                          \
	((struct pi){ .wsup = (ws), .wen = (we), .wact = (wa), .xsup = (xs), .xen = (xe), .xact = (xa), __VA_ARGS__ })

/* A PortInfo answer (and ExtendedPortInfo) in wire layout, decoded into port p. */
static void put_portinfo(struct ibs_port *p, const struct pi *v, unsigned lid)
{
	uint8_t mad[IBS_MAD_SIZE], epi[IBS_MAD_SIZE], *d = mad + IBS_SMP_DATA_OFFS;

	memset(mad, 0, sizeof(mad));
	mad_set_field(d, 0, IB_PORT_LID_F, lid);
	mad_set_field(d, 0, IB_PORT_CAPMASK_F,
		      (v->xsup || v->xdr ? IBS_CAP_EXT_SPEEDS : 0) | (v->xdr ? IBS_CAP_HAS_CAP_MASK2 : 0));
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, v->wsup);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ENABLED_F, v->wen);
	mad_set_field(d, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, v->wact);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, v->ssup ? v->ssup : 7);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ENABLED_F, v->sen ? v->sen : 7);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_ACTIVE_F, v->sact ? v->sact : 4);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, v->xsup);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, v->xen);
	mad_set_field(d, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, v->xact);
	mad_set_field(d, 0, IB_PORT_STATE_F, 4);
	mad_set_field(d, 0, IB_PORT_PHYS_STATE_F, 5);
	if (v->xdr) {
		d[56] = (v->xact ? 0 : 1 << 5) | 1 << 3 | 1; /* Active2 XDR unless an ext speed is; Supported2, Enabled2 */
		d[60] = 0x08;				      /* CapabilityMask2 IsExtendedSpeeds2Supported */
	}
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &p->pi), IBS_OK);
	memset(epi, 0, sizeof(epi));
	if (v->fdr10) {
		epi[IBS_SMP_DATA_OFFS + 7] = epi[IBS_SMP_DATA_OFFS + 11] = epi[IBS_SMP_DATA_OFFS + 15] = 1;
		assert_int_equal(ibs_decode_mlnx_ext_portinfo(epi, sizeof(epi), &p->pi), IBS_OK);
	}
	p->valid = true;
}

/* Switch port 1 (v, with port 0 saying the switch has extended speeds) cabled to CA port 1 (c). */
static struct ibs_fabric *sw_ca(const struct pi *sw, const struct pi *ca, struct ibs_port **a, struct ibs_port **b)
{
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *s = fb_node(f, IBS_NODE_SWITCH, 2, 1, 0), *h = fb_node(f, IBS_NODE_CA, 1, 2, 0);
	struct pi p0 = { .wsup = W4, .wen = W4, .wact = W4, .xsup = sw->xsup, .xen = sw->xsup, .xdr = sw->xdr };

	put_portinfo(&s->ports[0], &p0, 1);
	put_portinfo(&s->ports[1], sw, 0);
	put_portinfo(&h->ports[1], ca, 2);
	assert_true(ibs_fabric_connect(s, 1, h, 1));
	ibs_fabric_fix_ext_speeds(f);
	*a = &s->ports[1];
	*b = &h->ports[1];
	return f;
}

/* Neither end degraded nor held down, seen from either end. */
static void assert_fine(struct ibs_fabric *f)
{
	struct ibs_node *s = f->nodes[0], *h = f->nodes[1];
	const char *why = NULL;

	assert_false(ibs_node_link_degraded(s, 1, h, 1, &why));
	assert_false(ibs_node_link_degraded(h, 1, s, 1, &why));
	assert_false(ibs_link_held_down(&s->ports[1], &h->ports[1], &why));
	assert_false(ibs_link_held_down(&h->ports[1], &s->ports[1], &why));
}

/* An EDR-only HCA (FDR|EDR) on an HDR switch port (FDR|EDR|HDR) runs 4xEDR: as it should. */
static void test_edr_hca_on_hdr_switch(void **state)
{
	struct pi sw = PI(W1 | W2 | W4, W1 | W2 | W4, W4, FDR | EDR | HDR, FDR | EDR | HDR, EDR);
	struct pi ca = PI(W1 | W4, W1 | W4, W4, FDR | EDR, FDR | EDR, EDR);
	struct ibs_port *a, *b;
	struct ibs_link_rate r;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	assert_true(ibs_link_best_rate(a, b, &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "EDR");
	assert_fine(f);
	ibs_fabric_free(f);
}

/* An HDR100 host (4x-capable ConnectX-6) on a split 2x port of an HDR switch runs 2xHDR: as it should. */
static void test_hdr100_on_split_port(void **state)
{
	struct pi sw = PI(W1 | W2, W1 | W2, W2, FDR | EDR | HDR, FDR | EDR | HDR, HDR);
	struct pi ca = PI(W1 | W2 | W4, W1 | W2 | W4, W2, FDR | EDR | HDR, FDR | EDR | HDR, HDR);
	struct ibs_port *a, *b;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	assert_fine(f);
	ibs_fabric_free(f);
}

/* NDR200: a 4x NDR HCA on a split 2x port of an NDR switch runs 2xNDR. */
static void test_ndr200(void **state)
{
	struct pi sw = PI(W1 | W2, W1 | W2, W2, FDR | EDR | HDR | NDR, FDR | EDR | HDR | NDR, NDR);
	struct pi ca = PI(W1 | W2 | W4, W1 | W2 | W4, W2, FDR | EDR | HDR | NDR, FDR | EDR | HDR | NDR, NDR);
	struct ibs_port *a, *b;
	struct ibs_link_rate r;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	ibs_port_active_rate(b, &r);
	assert_string_equal(ibs_width_str(r.width), "2x");
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "NDR");
	assert_fine(f);
	ibs_fabric_free(f);
}

/*
 * A SwitchX port that runs FDR10 (Mellanox ExtendedPortInfo) but has no
 * IBA extended speeds, facing an EDR HCA that has no FDR10: the only
 * speed both have is QDR, and the link runs 4xQDR.
 */
static void test_fdr10_against_edr(void **state)
{
	struct pi sw = PI(W1 | W4, W1 | W4, W4, 0, 0, 0, .fdr10 = true);
	struct pi ca = PI(W1 | W4, W1 | W4, W4, FDR | EDR, FDR | EDR, 0);
	struct ibs_port *a, *b;
	struct ibs_link_rate r;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	/* FDR10 is what the switch port alone supports, but not active here. */
	a->pi.mlnx_speed_active = 0;
	a->pi.speed_ext_active = 0;
	ibs_port_active_rate(a, &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "QDR");
	assert_true(ibs_link_best_rate(a, b, &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "QDR");
	assert_fine(f);
	ibs_fabric_free(f);
}

/* An XDR HCA on an NDR switch runs 4xNDR: as it should. */
static void test_xdr_hca_on_ndr_switch(void **state)
{
	struct pi sw = PI(W1 | W2 | W4, W1 | W2 | W4, W4, FDR | EDR | HDR | NDR, FDR | EDR | HDR | NDR, NDR);
	struct pi ca = PI(W1 | W2 | W4, W1 | W2 | W4, W4, FDR | EDR | HDR | NDR, FDR | EDR | HDR | NDR, NDR, .xdr = true);
	struct ibs_port *a, *b;
	struct ibs_link_rate r;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	assert_true(b->pi.speed_ext_supported & IBS_SPEED_EXT_XDR);
	ibs_port_active_rate(b, &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "NDR");
	assert_fine(f);
	ibs_fabric_free(f);
}

/* The true cases: trained below what both ends support and enable, from either end. */
static void test_really_degraded(void **state)
{
	struct pi sw = PI(W1 | W2 | W4, W1 | W2 | W4, W1, FDR | EDR | HDR, FDR | EDR | HDR, HDR);
	struct pi ca = PI(W1 | W2 | W4, W1 | W2 | W4, W1, FDR | EDR | HDR, FDR | EDR | HDR, HDR);
	struct ibs_port *a, *b;
	const char *why = NULL;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	/* Both ends 4x HDR, trained at 1x: a bad lane. */
	assert_true(ibs_node_link_degraded(f->nodes[0], 1, f->nodes[1], 1, &why));
	assert_string_equal(why, "width");
	assert_true(ibs_node_link_degraded(f->nodes[1], 1, f->nodes[0], 1, &why));
	assert_false(ibs_link_held_down(a, b, NULL));
	ibs_fabric_free(f);

	/* An EDR HCA on an HDR port trained at FDR. */
	sw.wact = ca.wact = W4;
	sw.xact = ca.xact = FDR;
	ca.xsup = ca.xen = FDR | EDR;
	f = sw_ca(&sw, &ca, &a, &b);
	assert_true(ibs_node_link_degraded(f->nodes[0], 1, f->nodes[1], 1, &why));
	assert_string_equal(why, "speed");
	assert_true(ibs_link_degraded(b, a, &why));
	ibs_fabric_free(f);

	/* FDR10 at both ends, enabled, but the link trained at QDR. */
	sw = PI(W1 | W4, W1 | W4, W4, 0, 0, 0, .fdr10 = true);
	ca = sw;
	f = sw_ca(&sw, &ca, &a, &b);
	a->pi.speed_ext_active = b->pi.speed_ext_active = 0;
	assert_true(ibs_node_link_degraded(f->nodes[0], 1, f->nodes[1], 1, &why));
	assert_string_equal(why, "speed");
	ibs_fabric_free(f);
}

/*
 * Held down by configuration: the switch port supports 4x but enables only
 * 1x, the HCA enables 4x; the link runs 1x as both ends allow, so it is not
 * degraded, and only the switch end holds it down. Then the same by speed:
 * the switch port's extended speeds disabled (LinkSpeedExtEnabled 30) facing
 * an EDR HCA.
 */
static void test_held_down(void **state)
{
	struct pi sw = PI(W1 | W4, W1, W1, FDR | EDR, FDR | EDR, EDR);
	struct pi ca = PI(W1 | W4, W1 | W4, W1, FDR | EDR, FDR | EDR, EDR);
	struct ibs_port *a, *b;
	const char *why = NULL;
	struct ibs_fabric *f = sw_ca(&sw, &ca, &a, &b);

	(void)state;
	assert_false(ibs_node_link_degraded(f->nodes[0], 1, f->nodes[1], 1, &why));
	assert_true(ibs_link_held_down(a, b, &why));
	assert_string_equal(why, "width");
	assert_false(ibs_link_held_down(b, a, &why));
	ibs_fabric_free(f);

	/* The HCA is the one narrowed: it, not the switch, is named. */
	sw.wen = W1 | W4;
	ca.wen = W1;
	f = sw_ca(&sw, &ca, &a, &b);
	assert_false(ibs_link_held_down(a, b, &why));
	assert_true(ibs_link_held_down(b, a, &why));
	ibs_fabric_free(f);

	/* Speed: the switch port has extended speeds disabled (30), runs 4xQDR. */
	sw.wen = ca.wen = W1 | W4;
	sw.wact = ca.wact = W4;
	sw.xen = 30;
	sw.xact = ca.xact = 0;
	f = sw_ca(&sw, &ca, &a, &b);
	assert_int_equal(a->pi.speed_ext_enabled, 0);
	assert_false(ibs_node_link_degraded(f->nodes[0], 1, f->nodes[1], 1, &why));
	assert_true(ibs_link_held_down(a, b, &why));
	assert_string_equal(why, "speed");
	assert_false(ibs_link_held_down(b, a, &why));
	ibs_fabric_free(f);

	/* Both 4x enabled of 12x supported (what the simulator says): nobody holds anything. */
	sw = PI(W1 | W2 | W4 | W8 | W12, W4, W4, FDR | EDR, FDR | EDR, EDR);
	ca = sw;
	f = sw_ca(&sw, &ca, &a, &b);
	assert_fine(f);
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edr_hca_on_hdr_switch), cmocka_unit_test(test_hdr100_on_split_port),
		cmocka_unit_test(test_ndr200),		      cmocka_unit_test(test_fdr10_against_edr),
		cmocka_unit_test(test_xdr_hca_on_ndr_switch), cmocka_unit_test(test_really_degraded),
		cmocka_unit_test(test_held_down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
