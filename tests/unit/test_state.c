/* Unit tests of health --state: two readings, what changed between them, and the state file's parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fabrics.h"
#include "../../core/base/xalloc.h"
#include "../../fabric/check/health.h"
#include "../../fabric/load/state.h"
#include "../../output/prom.h"

/* A CA with four ports, each read (ctr ok) at LID 10 + port. */
static struct ibs_fabric *fabric_guid(uint64_t guid)
{
	struct ibs_fabric *f = ibs_fabric_new();
	struct ibs_node *n = fb_node(f, IBS_NODE_CA, 4, guid, 0);
	unsigned p;

	for (p = 1; p <= 4; p++) {
		struct ibs_port *pt = fb_port(n, p, IBS_PORT_ACTIVE, IBS_PHYS_LINKUP, (uint16_t)(10 + p));
		pt->ctr = xcalloc(1, sizeof(struct ibs_port_counters));
		pt->ctr->ok = true;
	}
	return f;
}

static struct ibs_fabric *fabric(void)
{
	return fabric_guid(0x100000);
}

static struct ibs_pma_counters *ctr(struct ibs_fabric *f, unsigned p)
{
	return &f->nodes[0]->ports[p].ctr->c;
}

static size_t count(const struct ibs_findings *fs, const char *id)
{
	size_t i, n = 0;

	for (i = 0; i < fs->n; i++)
		n += !strcmp(fs->v[i].check->id, id);
	return n;
}

static const struct ibs_finding *find(const struct ibs_findings *fs, const char *id, unsigned port)
{
	size_t i;

	for (i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].check->id, id) && fs->v[i].port == port)
			return &fs->v[i];
	return NULL;
}

static bool has_note(const struct ibs_findings *fs, const char *part)
{
	size_t i;

	for (i = 0; i < fs->n_notes; i++)
		if (strstr(fs->notes[i], part))
			return true;
	return false;
}

static void check(const struct ibs_fabric *f, const struct ibs_state *st, int64_t now, struct ibs_findings *fs)
{
	static struct ibs_thresholds t;
	struct ibs_run run = { .counters_read = true };
	struct ibs_health_opts o = { .thresholds = &t, .counters = true, .state = st, .now = now };

	ibs_thresholds_default(&t);
	ibs_health_check(f, &run, &o, fs);
}

/* The state written after a first reading at time t, read back. */
static void save(const struct ibs_fabric *f, int64_t t, struct ibs_state *st)
{
	size_t len;
	char *text = ibs_state_format(f, NULL, t, &len), *msg = NULL;

	assert_int_equal(ibs_state_parse("s", text, len, st, &msg), IBS_OK);
	assert_true(st->present);
	free(text);
}

/*
 * Two readings ten minutes apart: LinkDowned rose by 2 on port 1 (a flap,
 * not a counters finding), PortRcvErrors rose by 50 on port 2, port 3 is
 * at a lifetime total far above its threshold but clean since: quiet.
 */
static void test_two_readings(void **state)
{
	struct ibs_fabric *f = fabric();
	struct ibs_state st;
	struct ibs_findings fs;
	const struct ibs_finding *x;

	(void)state;
	ctr(f, 1)->link_downed = 40;
	ctr(f, 2)->rcv_errors = 700;
	ctr(f, 3)->symbol_errors = 5000;
	/* Without a state, the totals alarm. */
	check(f, NULL, 1000, &fs);
	assert_int_equal(count(&fs, "counters"), 3);
	assert_int_equal(count(&fs, "link.flapped"), 0);
	assert_false(fs.state_used);
	ibs_findings_free(&fs);
	save(f, 1000, &st);
	ctr(f, 1)->link_downed = 42;
	ctr(f, 2)->rcv_errors = 750;
	check(f, &st, 1600, &fs);
	assert_true(fs.state_used);
	assert_int_equal(fs.n_notes, 0);
	assert_int_equal(count(&fs, "link.flapped"), 1);
	x = find(&fs, "link.flapped", 1);
	assert_non_null(x);
	assert_int_equal(x->severity, IBS_SEV_WARNING);
	assert_int_equal(x->value, 2);
	assert_non_null(strstr(x->message, "went down 2 times since the last run (600 s ago"));
	assert_int_equal(count(&fs, "counters"), 1);
	x = find(&fs, "counters", 2);
	assert_non_null(x);
	assert_int_equal(x->value, 50);
	assert_string_equal(x->counter->name, "PortRcvErrors");
	assert_null(find(&fs, "counters", 3)); /* clean since the last run */
	ibs_findings_free(&fs);
	/* A rise at or below the threshold is quiet; nothing changed is OK. */
	ctr(f, 1)->link_downed = 40;
	ctr(f, 2)->rcv_errors = 710;
	check(f, &st, 1600, &fs);
	assert_int_equal(count(&fs, "counters") + count(&fs, "link.flapped"), 0);
	ibs_findings_free(&fs);
	ibs_state_free(&st);
	ibs_fabric_free(f);
}

/*
 * counters.congested since the last run: port 4 (4xSDR, its PMA said Tick
 * 31: 128 ns a tick) waited 1171875000 ticks in the 600 s since, a share
 * of 0.25; port 3 waited as much, but its PortSamplesControl did not
 * answer (as under ibsim): no tick assumed, no finding.
 */
static void test_congested_since(void **state)
{
	struct ibs_fabric *f = fabric();
	struct ibs_state st;
	struct ibs_findings fs;
	const struct ibs_finding *x;
	unsigned p;

	(void)state;
	for (p = 3; p <= 4; p++) {
		struct ibs_port *pt = &f->nodes[0]->ports[p];
		pt->pi.width_active = 2;
		pt->pi.speed_active = 1;
		pt->ctr->c.xmit_wait = 1000;
		pt->ctr->det[IBS_DET_PSC].state = p == 4 ? IBS_DET_OK : IBS_DET_FAILED;
		pt->ctr->det[IBS_DET_PSC].outcome = IBS_MAD_TIMEOUT;
		pt->ctr->d.psc_tick = 31;
	}
	save(f, 1000, &st);
	ctr(f, 3)->xmit_wait = ctr(f, 4)->xmit_wait = 1000 + 1171875000u;
	check(f, &st, 1600, &fs);
	assert_int_equal(count(&fs, "counters.congested"), 1);
	x = find(&fs, "counters.congested", 4);
	assert_non_null(x);
	assert_int_equal(x->value, 25);
	assert_int_equal(x->threshold, 10);
	assert_string_equal(x->counter->name, "PortXmitWait");
	assert_non_null(strstr(x->message, "waited 25.0% of the time with data to send (PortXmitWait rose by 1171875000 "
					   "ticks of 128 ns (assumed: the IBA's rule) in 600 s since the last run; "
					   "threshold 10%)"));
	ibs_findings_free(&fs);
	/* The lifetime total alone (no state) makes no share. */
	check(f, NULL, 1600, &fs);
	assert_int_equal(count(&fs, "counters.congested"), 0);
	ibs_findings_free(&fs);
	ibs_state_free(&st);
	ibs_fabric_free(f);
}

/* Port p read with PortVLXmitWaitCounters vl[0..15] (4xSDR, Tick 31: 128 ns a tick). */
static void vl_reading(struct ibs_fabric *f, unsigned p, const uint64_t *vl)
{
	struct ibs_port *pt = &f->nodes[0]->ports[p];

	pt->pi.width_active = 2;
	pt->pi.speed_active = 1;
	pt->ctr->det[IBS_DET_PSC].state = IBS_DET_OK;
	pt->ctr->d.psc_tick = 31;
	pt->ctr->det[IBS_DET_VL_WAIT].state = IBS_DET_OK;
	memcpy(pt->ctr->d.vl_xmit_wait, vl, sizeof(pt->ctr->d.vl_xmit_wait));
}

/*
 * Per VL since the last run: the state keeps each port's
 * PortVLXmitWaitCounters (vl=), so the next run makes each VL's share of
 * the time. Port 4's VL3 rose by 39063 ticks of 128 ns in 1 s (0.5%), its
 * VL5 by 0, its PortXmitWait by as much as VL3: one counters.congested
 * finding (threshold 0) naming VL3 alone; port 3's VL3 was at 65535 (a
 * 16-bit counter stopped at its maximum): no VL share, the port's stands.
 * The exporter's path (ibs_state_apply) serves ibscan_port_vl_xmit_wait_share
 * with a vl label; a version 1 file (no vl=) is read, with no VL share.
 */
static void test_congested_vl_since(void **state)
{
	struct ibs_fabric *f = fabric();
	struct ibs_state st;
	struct ibs_findings fs;
	const struct ibs_finding *x;
	static struct ibs_thresholds t;
	struct ibs_run run = { .counters_read = true };
	struct ibs_health_opts o = { .thresholds = &t, .counters = true, .state = &st, .now = 1001 };
	uint64_t vl[IBS_N_VL] = { 0 }, ticks;
	double share;
	size_t len;
	char *text, *msg = NULL, *prom = NULL;
	FILE *m;

	(void)state;
	ibs_thresholds_default(&t);
	t.congested = 0;
	vl[3] = 1000;
	vl[5] = 7;
	vl_reading(f, 4, vl);
	vl[3] = 65535;
	vl_reading(f, 3, vl);
	ctr(f, 3)->xmit_wait = ctr(f, 4)->xmit_wait = 5000;
	text = ibs_state_format(f, NULL, 1000, &len);
	assert_non_null(strstr(text, "ibscan-state 2\n"));
	assert_non_null(strstr(text, " vl=0,0,0,1000,0,7,0,0,0,0,0,0,0,0,0,0\n"));
	assert_int_equal(ibs_state_parse("s", text, len, &st, &msg), IBS_OK);
	free(text);
	assert_true(ibs_state_find(&st, 0x100000, 4)->has_vl);
	assert_int_equal(ibs_state_find(&st, 0x100000, 4)->vl[3], 1000);
	assert_false(ibs_state_find(&st, 0x100000, 1)->has_vl); /* not read there */

	vl[3] = 1000 + 39063;
	vl_reading(f, 4, vl);
	vl_reading(f, 3, vl);
	ctr(f, 3)->xmit_wait = ctr(f, 4)->xmit_wait = 5000 + 39063;
	ibs_health_check(f, &run, &o, &fs);
	assert_int_equal(count(&fs, "counters.congested"), 2);
	x = find(&fs, "counters.congested", 4);
	assert_non_null(x);
	if (!strstr(x->message, "port 4: waited 0.5% of the time with data to send (PortXmitWait rose by 39063 ticks "
				"of 128 ns (assumed: the IBA's rule) in 1 s since the last run; threshold 0%; by VL "
				"above it: VL3 0.5%)"))
		fail_msg("%s", x->message);
	x = find(&fs, "counters.congested", 3);
	assert_non_null(x);
	assert_null(strstr(x->message, "by VL")); /* VL3 was at 65535: no share, and said so */
	if (!strstr(x->message, "; VL3 at 65535 (saturated: share unknown; clear with --reset-counters))"))
		fail_msg("%s", x->message);
	assert_int_equal(fs.n_notes, 1);
	if (!strstr(fs.notes[0], "PortVLXmitWaitCounters at 65535 (saturated, 16 bits) on 1 port ("))
		fail_msg("%s", fs.notes[0]);
	ibs_findings_free(&fs);

	/* The exporter: the state applied to the fabric, the Prometheus gauge per VL. */
	f->nodes[0]->ports[4].ctr->t_ns = f->nodes[0]->ports[3].ctr->t_ns = 5000000000ull;
	ibs_state_apply(&st, f, 1001);
	assert_true(ibs_xmit_wait_vl_share(f->nodes[0], &f->nodes[0]->ports[4], f->nodes[0]->ports[4].ctr, 1.0, 3,
					   &ticks, &share));
	assert_int_equal(ticks, 39063);
	assert_true(share > 0.0049999 && share < 0.0050001);
	assert_false(ibs_xmit_wait_vl_share(f->nodes[0], &f->nodes[0]->ports[3], f->nodes[0]->ports[3].ctr, 1.0, 3,
					    &ticks, &share));
	m = open_memstream(&prom, &len);
	run.counters_read = true;
	assert_int_equal(render_health_prom(m, f, &run, NULL), 0);
	fclose(m);
	assert_non_null(strstr(prom, "# TYPE ibscan_port_vl_xmit_wait_share gauge\n"));
	assert_non_null(strstr(prom, "ibscan_port_vl_xmit_wait_share{guid=\"0x0000000000100000\",port=\"4\",name=\""));
	assert_non_null(strstr(prom, ",vl=\"3\"} 0.00500006\n"));
	assert_non_null(strstr(prom, ",vl=\"5\"} 0\n"));
	/* port 3's VL3 (at 65535 before) has no share; its other VLs rose by 0 */
	assert_null(strstr(prom, "ibscan_port_vl_xmit_wait_share{guid=\"0x0000000000100000\",port=\"3\",name=\"0x0000000000100000\","
				 "peer=\"\",vl=\"3\"}"));
	assert_non_null(strstr(prom, "ibscan_port_vl_xmit_wait_share{guid=\"0x0000000000100000\",port=\"3\",name=\"0x0000000000100000\","
				     "peer=\"\",vl=\"4\"} 0\n"));
	free(prom);
	ibs_state_free(&st);

	/* A version 1 file: read, no VL counters, so no VL share. */
	{
		const char v1[] = "ibscan-state 1\nkeys xmit_wait\n0x0000000000100000 4 14 1000 0 5000\n";
		assert_int_equal(ibs_state_parse("s", v1, sizeof(v1) - 1, &st, &msg), IBS_OK);
		assert_false(st.v[0].has_vl);
		ibs_state_apply(&st, f, 1001);
		assert_false(ibs_xmit_wait_vl_share(f->nodes[0], &f->nodes[0]->ports[4], f->nodes[0]->ports[4].ctr, 1.0,
						    3, &ticks, &share));
		ibs_state_free(&st);
	}
	ibs_fabric_free(f);
}

/* What cannot be compared is said, never a delta: first run, a reset, a LID moved, another node's LID. */
static void test_no_false_delta(void **state)
{
	struct ibs_fabric *f = fabric();
	struct ibs_state st, none = { 0 };
	struct ibs_findings fs;
	const struct ibs_finding *x;

	(void)state;
	check(f, &none, 1000, &fs);
	assert_int_equal(fs.n_notes, 1);
	assert_true(has_note(&fs, "the first run"));
	ibs_findings_free(&fs);

	ctr(f, 1)->symbol_errors = 6000;
	save(f, 1000, &st);
	/* Port 1 cleared since (6000 -> 5000): judged on 5000, its count since the reset, not a delta. */
	ctr(f, 1)->symbol_errors = 5000;
	/* Port 2's LID moved. */
	f->nodes[0]->ports[2].pi.lid = 99;
	check(f, &st, 1600, &fs);
	assert_true(has_note(&fs, "SymbolErrorCounter went down from 6000 to 5000"));
	assert_true(has_note(&fs, "its LID moved from 12 to 99"));
	assert_int_equal(fs.n_notes, 2);
	x = find(&fs, "counters", 1);
	assert_non_null(x);
	assert_int_equal(x->value, 5000);
	assert_int_equal(count(&fs, "link.flapped"), 0);
	ibs_findings_free(&fs);
	ibs_state_free(&st);

	/* Another node now answers at these LIDs: its first reading, and the old owner named. */
	f->nodes[0]->ports[2].pi.lid = 12;
	save(f, 1000, &st);
	ibs_fabric_free(f);
	f = fabric_guid(0x100004);
	ctr(f, 1)->symbol_errors = 5000;
	check(f, &st, 1600, &fs);
	assert_int_equal(fs.n_notes, 4);
	assert_true(has_note(&fs, "LID 13 port 3 was node 0x0000000000100000's at the last run"));
	assert_int_equal(count(&fs, "counters"), 1); /* port 1's total, 5000 */
	ibs_findings_free(&fs);
	ibs_state_free(&st);
	ibs_fabric_free(f);
}

/*
 * The exporter's sweeps: the last sweep's readings become each port's
 * first one (ibs_state_apply), so the share and the rate are over the time
 * since; a port whose LID moved, or a counter cleared, gets none.
 */
static void test_apply(void **state)
{
	struct ibs_fabric *f = fabric();
	struct ibs_state st;
	struct ibs_port *p4 = &f->nodes[0]->ports[4];
	double tick_s, share, tps;
	char why[192];
	unsigned p;

	(void)state;
	for (p = 1; p <= 4; p++) {
		struct ibs_port *pt = &f->nodes[0]->ports[p];
		pt->pi.width_active = 2;
		pt->pi.speed_active = 1;
		pt->ctr->c.xmit_wait = 1000;
		pt->ctr->det[IBS_DET_PSC].state = IBS_DET_OK;
		pt->ctr->d.psc_tick = 31;
		pt->ctr->t_ns = 5000000000000ull;
	}
	save(f, 1000, &st);
	/* 600 s later: port 4 waited a quarter of the time, port 1 was cleared, port 2's LID moved. */
	for (p = 1; p <= 4; p++)
		f->nodes[0]->ports[p].ctr->t_ns += 600000000000ull;
	ctr(f, 4)->xmit_wait = 1000 + 1171875000u;
	ctr(f, 1)->xmit_wait = 10;
	f->nodes[0]->ports[2].pi.lid = 99;
	ibs_state_apply(&st, f, 1600);
	assert_true(ibs_port_xmit_wait_share(f->nodes[0], p4, &tick_s, &share, why, sizeof(why)));
	assert_true(share > 0.2499 && share < 0.2501);
	assert_true(ibs_port_xmit_wait_rate(p4->ctr, &tps));
	assert_true(tps > 1953124 && tps < 1953126);
	assert_true(ibs_port_xmit_wait_share(f->nodes[0], &f->nodes[0]->ports[3], &tick_s, &share, why, sizeof(why)));
	assert_true(share == 0);
	assert_false(f->nodes[0]->ports[1].ctr->have_prev);
	assert_false(f->nodes[0]->ports[2].ctr->have_prev);
	/* The state holds no data counters: no data delta is made of it. */
	{
		uint64_t w;
		assert_false(ibs_port_data_delta(p4->ctr, true, &w));
	}
	/* With no earlier readings at all, none. */
	ibs_state_free(&st);
	ibs_state_apply(&st, f, 1600);
	assert_false(p4->ctr->have_prev);
	ibs_fabric_free(f);
}

/* A port not read this run keeps its earlier reading: its flap shows when it is back. */
static void test_carry_over(void **state)
{
	struct ibs_fabric *f = fabric();
	struct ibs_state st, st2;
	struct ibs_findings fs;
	size_t len;
	char *text, *msg = NULL;

	(void)state;
	ctr(f, 4)->link_downed = 1;
	save(f, 1000, &st);
	f->nodes[0]->ports[4].ctr->ok = false; /* down at the second run */
	text = ibs_state_format(f, &st, 1600, &len);
	assert_int_equal(ibs_state_parse("s", text, len, &st2, &msg), IBS_OK);
	free(text);
	assert_int_equal(st2.n, 4);
	assert_int_equal(ibs_state_find(&st2, 0x100000, 4)->t, 1000);
	assert_int_equal(ibs_state_find(&st2, 0x100000, 1)->t, 1600);
	f->nodes[0]->ports[4].ctr->ok = true;
	ctr(f, 4)->link_downed = 2;
	check(f, &st2, 2200, &fs);
	assert_int_equal(count(&fs, "link.flapped"), 1);
	assert_non_null(strstr(find(&fs, "link.flapped", 4)->message, "1200 s ago"));
	ibs_findings_free(&fs);
	ibs_state_free(&st);
	ibs_state_free(&st2);
	ibs_fabric_free(f);
}

static void refused(const char *text, const char *want)
{
	struct ibs_state st;
	char *msg = NULL;

	if (ibs_state_parse("s", text, strlen(text), &st, &msg) != IBS_E_INPUT)
		fail_msg("accepted: %s", text);
	assert_non_null(msg);
	if (!strstr(msg, want))
		fail_msg("'%s' lacks '%s'", msg, want);
	free(msg);
	assert_null(st.v);
}

static void test_parse_errors(void **state)
{
	(void)state;
	refused("", "is empty");
	refused("ibscan-state 3\n", "s:1: not an ibscan state file");
	refused("ibscan-state 2\nkeys link_downed\n0x1 1 1 1 0 5 vl=1,2\n", "s:3: want 'GUID PORT LID TIME EXT', 1");
	refused("ibscan-state 2\nkeys link_downed\n0x1 1 1 1 0 5 vl=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,65536\n", "s:3:");
	refused("ibscan-state 2\nkeys link_downed\n0x1 1 1 1 0 5 vl=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n", "s:3:");
	refused("ibscan-state 2\nkeys link_downed\n0x1 1 1 1 0 5 vl=0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0 7\n", "s:3:");
	refused("ibscan-state 1\n0x1 1 1 1 0\n", "s:2: want the 'keys' line first");
	refused("ibscan-state 1\nkeys bogus\n", "s:2: unknown counter 'bogus'");
	refused("ibscan-state 1\nkeys link_downed\n0x1 1 1 1 0\n", "s:3: want 'GUID PORT LID TIME EXT', 1 counter values");
	refused("ibscan-state 1\nkeys link_downed\n0x1 1 1 1 0 5 6\n", "s:3:");
	refused("ibscan-state 1\nkeys link_downed\n0x1 256 1 1 0 5\n", "s:3:");
	refused("ibscan-state 1\nkeys link_downed\n0x1 1 1 1 2 5\n", "s:3:");
	refused("ibscan-state 1\nkeys link_downed\n1 1 1 1 0 5\n", "s:3:");
	refused("ibscan-state 1\nkeys link_downed\n0x1 1 1 1 0 99999999999999999999\n", "s:3:");
	refused("ibscan-state 1\nkeys link_downed\n0x1 1 1 1 0 5\n0x1 1 2 1 0 5\n", "holds node 0x0000000000000001 port 1 twice");
	{
		struct ibs_state st;
		char *msg = NULL;
		const char ok[] = "ibscan-state 1\n# comment\nkeys link_downed rcv_errors\n\n0x0A 2 7 100 1 3 4\n";
		assert_int_equal(ibs_state_parse("s", ok, sizeof(ok) - 1, &st, &msg), IBS_OK);
		assert_int_equal(st.n, 1);
		assert_int_equal(st.v[0].guid, 0xa);
		assert_int_equal(st.v[0].lid, 7);
		assert_true(st.v[0].ext_errors);
		assert_int_equal(st.v[0].c.link_downed, 3);
		assert_int_equal(st.v[0].c.rcv_errors, 4);
		ibs_state_free(&st);
	}
}

/* A file its group or others may write is refused; a missing one is the first run. */
static void test_load_modes(void **state)
{
	char path[] = "/tmp/ibscan-state-XXXXXX";
	int fd = mkstemp(path);
	struct ibs_state st;
	char *msg = NULL;
	const char text[] = "ibscan-state 1\nkeys link_downed\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	assert_int_equal(ibs_state_load(path, &st, &msg), IBS_OK);
	assert_true(st.present);
	ibs_state_free(&st);
	chmod(path, 0620);
	assert_int_equal(ibs_state_load(path, &st, &msg), IBS_E_INPUT);
	assert_non_null(strstr(msg, "may be written by its group or others (mode 0620)"));
	free(msg);
	chmod(path, 0602);
	assert_int_equal(ibs_state_load(path, &st, &msg), IBS_E_INPUT);
	free(msg);
	unlink(path);
	assert_int_equal(ibs_state_load(path, &st, &msg), IBS_OK);
	assert_false(st.present);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_readings),   cmocka_unit_test(test_congested_since),
		cmocka_unit_test(test_no_false_delta), cmocka_unit_test(test_carry_over),
		cmocka_unit_test(test_apply),          cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_load_modes),     cmocka_unit_test(test_congested_vl_since),
	};
	return cmocka_run_group_tests_name("state", tests, NULL, NULL);
}
