/*
 * Unit tests of the link-rate policy (fabric/model/rate.c) on PortInfo answers in
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
#include "../../fabric/model/names.h"
#include "../../fabric/model/rate.h"
#include "../../fabric/walk/speeds.h"

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

/*
 * A PortInfo answer in its wire layout (IBA 14.2.5.6, offsets within the
 * attribute): an NDR-capable 4x port whose extended speeds are switched off
 * (LinkSpeedExtEnabled 30), trained at QDR.
 */
static void portinfo_ext_disabled(uint8_t *mad)
{
	uint8_t *d = mad + IBS_SMP_DATA_OFFS;

	memset(mad, 0, IBS_MAD_SIZE);
	d[17] = 7;    /* LID 7 */
	d[22] = 0x40; /* CapabilityMask bit 14: IsExtendedSpeedsSupported */
	d[28] = 1;    /* LocalPortNum */
	d[29] = 2;    /* LinkWidthEnabled 4x */
	d[30] = 3;    /* LinkWidthSupported 1x, 4x */
	d[31] = 2;    /* LinkWidthActive 4x */
	d[32] = 0x74; /* LinkSpeedSupported SDR|DDR|QDR, PortState Active */
	d[33] = 0x50; /* PortPhysicalState LinkUp */
	d[35] = 0x47; /* LinkSpeedActive QDR, LinkSpeedEnabled SDR|DDR|QDR */
	d[62] = 0x0f; /* LinkSpeedExtActive none, LinkSpeedExtSupported FDR|EDR|HDR|NDR */
	d[63] = 30;   /* LinkSpeedExtEnabled 30: extended speeds disabled */
}

/*
 * LinkSpeedExtEnabled 30 is not a set of speeds but "extended link speeds
 * disabled" (libibmad prints it so; libibnetdisc reads it as 0): read as
 * bits it would say EDR, HDR and NDR are enabled, and a link that both ends
 * keep at QDR on purpose would be reported degraded.
 */
static void test_ext_speeds_disabled(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	struct ibs_port a, b;
	const char *why = NULL;

	(void)state;
	portinfo_ext_disabled(mad);
	memset(&a, 0, sizeof(a));
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a.pi), IBS_OK);
	assert_int_equal(a.pi.lid, 7);
	assert_int_equal(a.pi.cap_mask, IBS_CAP_EXT_SPEEDS);
	assert_int_equal(a.pi.state, 4);
	assert_int_equal(a.pi.speed_active, 4);
	assert_int_equal(a.pi.speed_ext_supported, 0x0f);
	assert_int_equal(a.pi.speed_ext_active, 0);
	assert_int_equal(a.pi.speed_ext_enabled, 0);
	a.valid = true;
	b = a;
	assert_false(ibs_link_degraded(&a, &b, &why));
	/* The same port with its extended speeds enabled (a set of bits) is degraded at QDR. */
	mad[IBS_SMP_DATA_OFFS + 63] = 0x0f;
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a.pi), IBS_OK);
	assert_int_equal(a.pi.speed_ext_enabled, 0x0f);
	b = a;
	assert_true(ibs_link_degraded(&a, &b, &why));
	assert_string_equal(why, "speed");
}

/*
 * A CA port running XDR (IBA 14.2.5.6 as libibmad's tables lay it out):
 * CapabilityMask IsExtendedSpeedsSupported and IsCapabilityMask2Supported,
 * CapabilityMask2 IsExtendedSpeeds2Supported (0x0800), and in byte 56 of the
 * attribute LinkSpeedExtActive2, LinkSpeedExtSupported2 and
 * LinkSpeedExtEnabled2 set to XDR; LinkSpeedExt* still say NDR is supported
 * and enabled, none active.
 */
static void portinfo_xdr(uint8_t *mad, bool cap2)
{
	uint8_t *d = mad + IBS_SMP_DATA_OFFS;

	portinfo_ext_disabled(mad);
	d[22] = 0xc0;                /* CapabilityMask bits 14, 15 */
	d[56] = 1 << 5 | 1 << 3 | 1; /* LinkSpeedExtActive2, Supported2, Enabled2: XDR */
	d[60] = cap2 ? 0x08 : 0;     /* CapabilityMask2 0x0800 */
	d[63] = 0x0f;                /* LinkSpeedExtEnabled FDR..NDR */
}

/* An XDR link reads as XDR, at XDR's lane rate, and not degraded; without CapabilityMask2's bit, as before. */
static void test_xdr_link(void **state)
{
	uint8_t mad[IBS_MAD_SIZE];
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *a, *b;
	struct ibs_link_rate r;
	unsigned speed, ext;
	const char *why = NULL;

	(void)state;
	portinfo_xdr(mad, true);
	a = fb_node(f, IBS_NODE_CA, 1, 1, 0);
	b = fb_node(f, IBS_NODE_CA, 1, 2, 0);
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a->ports[1].pi), IBS_OK);
	assert_int_equal(a->ports[1].pi.cap_mask2, 0x0800);
	a->ports[1].valid = true;
	b->ports[1] = a->ports[1];
	assert_true(ibs_fabric_connect(a, 1, b, 1));
	ibs_fabric_fix_ext_speeds(f);
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "XDR");
	assert_int_equal(ibs_speed_mbps(r.speed, r.speed_ext), 212500);
	assert_false(ibs_node_link_degraded(a, 1, b, 1, &why));
	assert_true(ibs_link_best_rate(&a->ports[1], &b->ports[1], &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "XDR");
	assert_true(ibs_speed_code("XDR", &speed, &ext));
	assert_int_equal(ext, r.speed_ext);
	assert_false(ibs_speed_code("?", &speed, &ext));
	ibs_fabric_free(f);

	/* Without IsExtendedSpeeds2Supported byte 56 means nothing: NDR supported, none active. */
	f = ibs_fabric_new();
	portinfo_xdr(mad, false);
	a = fb_node(f, IBS_NODE_CA, 1, 1, 0);
	assert_int_equal(ibs_decode_portinfo(mad, sizeof(mad), &a->ports[1].pi), IBS_OK);
	a->ports[1].valid = true;
	ibs_fabric_fix_ext_speeds(f);
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "QDR");
	assert_true(ibs_link_best_rate(&a->ports[1], &a->ports[1], &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "NDR");
	ibs_fabric_free(f);
}

/* Two CA ports cabled together, both with PortInfo pi and ExtendedPortInfo epi, speeds settled. */
static struct ibs_fabric *fdr10_pair(const uint8_t *pi, const uint8_t *epi, struct ibs_node **a, struct ibs_node **b)
{
	struct ibs_fabric *f = ibs_fabric_new();

	*a = fb_node(f, IBS_NODE_CA, 1, 1, 0);
	*b = fb_node(f, IBS_NODE_CA, 1, 2, 0);
	assert_int_equal(ibs_decode_portinfo(pi, IBS_MAD_SIZE, &(*a)->ports[1].pi), IBS_OK);
	assert_int_equal(ibs_decode_mlnx_ext_portinfo(epi, IBS_MAD_SIZE, &(*a)->ports[1].pi), IBS_OK);
	(*a)->ports[1].valid = true;
	(*b)->ports[1] = (*a)->ports[1];
	assert_true(ibs_fabric_connect(*a, 1, *b, 1));
	ibs_fabric_fix_ext_speeds(f);
	return f;
}

/*
 * FDR10: PortInfo says 4x QDR and no extended speeds; Mellanox
 * ExtendedPortInfo (bytes 7, 11, 15 of its data: LinkSpeedSupported, Enabled,
 * Active, bit 0 FDR10) says what the link really runs.
 */
static void test_fdr10_link(void **state)
{
	uint8_t pi[IBS_MAD_SIZE], epi[IBS_MAD_SIZE];
	uint8_t *d = epi + IBS_SMP_DATA_OFFS, *p = pi + IBS_SMP_DATA_OFFS;
	struct ibs_portinfo short_pi;
	struct ibs_fabric *f;
	struct ibs_node *a, *b;
	struct ibs_link_rate r;
	unsigned speed, ext;
	const char *why = NULL;

	(void)state;
	memset(pi, 0, sizeof(pi));
	mad_set_field(p, 0, IB_PORT_LINK_WIDTH_ENABLED_F, 3);
	mad_set_field(p, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F, 3);
	mad_set_field(p, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, 2);
	mad_set_field(p, 0, IB_PORT_LINK_SPEED_SUPPORTED_F, 7);
	mad_set_field(p, 0, IB_PORT_LINK_SPEED_ENABLED_F, 7);
	mad_set_field(p, 0, IB_PORT_LINK_SPEED_ACTIVE_F, 4);
	mad_set_field(p, 0, IB_PORT_STATE_F, 4);
	mad_set_field(p, 0, IB_PORT_PHYS_STATE_F, 5);
	memset(epi, 0, sizeof(epi));
	d[7] = d[11] = d[15] = 1;
	/* An answer too short for byte 15 is malformed. */
	assert_int_equal(ibs_decode_mlnx_ext_portinfo(epi, IBS_SMP_DATA_OFFS + 15, &short_pi), IBS_E_MALFORMED);

	f = fdr10_pair(pi, epi, &a, &b);
	assert_int_equal(a->ports[1].pi.mlnx_speed_supported, 1);
	assert_int_equal(a->ports[1].pi.mlnx_speed_enabled, 1);
	assert_int_equal(a->ports[1].pi.mlnx_speed_active, 1);
	assert_int_equal(a->ports[1].pi.speed_active, 4); /* PortInfo's own word is kept */
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "FDR10");
	assert_int_equal(ibs_speed_mbps(r.speed, r.speed_ext), 10312);
	assert_false(ibs_node_link_degraded(a, 1, b, 1, &why));
	assert_true(ibs_link_best_rate(&a->ports[1], &b->ports[1], &r));
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "FDR10");
	assert_true(ibs_speed_code("FDR10", &speed, &ext));
	assert_int_equal(ext, IBS_SPEED_EXT_FDR10);
	assert_int_equal(speed, 4);
	ibs_fabric_free(f);

	/* FDR10 enabled at both ends but not active: the link runs QDR, below what both ends can. */
	d[15] = 0;
	f = fdr10_pair(pi, epi, &a, &b);
	ibs_port_active_rate(&a->ports[1], &r);
	assert_string_equal(ibs_speed_str(r.speed, r.speed_ext), "QDR");
	assert_true(ibs_node_link_degraded(a, 1, b, 1, &why));
	assert_string_equal(why, "speed");
	ibs_fabric_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edr_hca_on_hdr_switch),
		cmocka_unit_test(test_hdr100_on_split_port),
		cmocka_unit_test(test_ndr200),
		cmocka_unit_test(test_fdr10_against_edr),
		cmocka_unit_test(test_xdr_hca_on_ndr_switch),
		cmocka_unit_test(test_really_degraded),
		cmocka_unit_test(test_held_down),
		cmocka_unit_test(test_ext_speeds_disabled),
		cmocka_unit_test(test_xdr_link),
		cmocka_unit_test(test_fdr10_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
