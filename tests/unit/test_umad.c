/*
 * Unit tests of the libibumad transport (core/mad/umad.c) over a double of
 * libibumad that answers as libibumad and the kernel do (fake_umad.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "lib/fake_umad.h"
#include "../../core/mad/engine.h"
#include "../../fabric/walk/route.h"

#include <infiniband/mad.h>

/* What ibscan said on stderr between stderr_begin() and stderr_end(). */
static char said[8192];
static int saved_fd = -1;
static FILE *said_file;

static void stderr_begin(void)
{
	fflush(stderr);
	said_file = tmpfile();
	assert_non_null(said_file);
	saved_fd = dup(STDERR_FILENO);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(said_file), STDERR_FILENO) >= 0);
}

static const char *stderr_end(void)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
	close(saved_fd);
	rewind(said_file);
	n = fread(said, 1, sizeof(said) - 1, said_file);
	said[n] = '\0';
	fclose(said_file);
	return said;
}

static void assert_said(const char *s, const char *what)
{
	if (!strstr(s, what))
		fail_msg("stderr lacks \"%s\":\n%s", what, s);
}

/* The CA and port ibscan is given (-C, -P), if any. */
static const char *want_ca;
static int want_port;

static enum ibs_err open_fake(struct ibs_transport **t)
{
	struct ibs_umad_opts o = { want_ca, want_port, 100 };

	return ibs_umad_open_with(&fumad_calls, &o, t);
}

/* Open the port chosen as set up in fumad, which must fail with want: what stderr said. */
static const char *open_fails(enum ibs_err want)
{
	struct ibs_transport *t = NULL;
	enum ibs_err rc;

	stderr_begin();
	rc = open_fake(&t);
	stderr_end();
	assert_int_equal(rc, want);
	assert_null(t);
	return said;
}

/* No read/write access to /dev/infiniband/umad0: libibumad says EIO, open() said EACCES. */
static void test_open_permission(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.open_errno = EACCES;
	s = open_fails(IBS_E_PERM);
	assert_said(s, "ibscan: error: cannot open the umad device of mlx5_0 port 1: permission denied");
	assert_said(s, "udev rule");
	/* libibumad's own code is not the cause. */
	assert_null(strstr(s, "Input/output error"));
}

/* No device node (ib_umad not loaded): open() said ENOENT, and the hint says what to load. */
static void test_open_no_node(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.open_errno = ENOENT;
	s = open_fails(IBS_E_TRANSPORT);
	assert_said(s, "cannot open the umad device of mlx5_0 port 1: No such file or directory");
	assert_said(s, "modprobe ib_umad");
	assert_null(strstr(s, "Input/output error"));
}

/* umad_register says EPERM for every failure; the ioctl's errno is the cause. */
static void test_register_cause(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.register_errno[IBS_CLASS_SMI_DR] = EPROTONOSUPPORT;
	s = open_fails(IBS_E_TRANSPORT);
	assert_said(s, "cannot register a MAD agent for SMI-DR (class 0x81) on mlx5_0 port 1: Protocol not supported");
	assert_null(strstr(s, "Operation not permitted"));
}

/* A request whose write() the kernel refuses: modifier 3 with EINVAL, or every one with EIO. */
static int write_errno;
static int refuse_mod3(const uint8_t *mad)
{
	return mad[23] == 3 ? write_errno : 0; /* AttributeModifier, low byte */
}

struct outcomes {
	unsigned ok, send_failed, aborted, other;
	int cause;
};

static void count(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r)
{
	struct outcomes *o = ctx;

	(void)req;
	if (r->outcome == IBS_MAD_OK)
		o->ok++;
	else if (r->outcome == IBS_MAD_SEND_FAILED)
		o->send_failed++, o->cause = r->cause;
	else if (r->outcome == IBS_MAD_ABORTED)
		o->aborted++;
	else
		o->other++;
}

/*
 * Eight PortInfo Gets through the engine and the umad transport over the
 * double, which answers each and refuses modifier 3's write() with errno refusal.
 */
static enum ibs_err walk_eight(struct outcomes *o, int refusal)
{
	struct ibs_engine_opts eo = { .window = 4, .timeout_ms = 200, .retries = 1, .deadline_ms = 5000 };
	struct ibs_transport *t = NULL;
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	enum ibs_err rc;
	uint32_t i;

	memset(o, 0, sizeof(*o));
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.on_send = fumad_echo;
	fumad.send_errno = refuse_mod3;
	write_errno = refusal;
	assert_int_equal(open_fake(&t), IBS_OK);
	e = ibs_engine_new(t, &eo);
	ibs_addr_dr(&a, NULL, 0);
	for (i = 0; i < 8; i++) {
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_PORT_INFO, i);
		ibs_engine_submit(e, &req, count, o);
	}
	stderr_begin();
	rc = ibs_engine_run(e);
	stderr_end();
	ibs_engine_free(e);
	ibs_transport_close(t);
	return rc;
}

/* umad_send says EIO for every failed write(); EINVAL in errno fails that MAD alone. */
static void test_send_refused_one(void **state)
{
	struct outcomes o;

	(void)state;
	assert_int_equal(walk_eight(&o, EINVAL), IBS_OK);
	assert_int_equal(o.ok, 7);
	assert_int_equal(o.send_failed, 1);
	assert_int_equal(o.cause, EINVAL);
	assert_int_equal(o.aborted, 0);
	assert_said(said, "cannot send SMI-DR Get PortInfo to 0: Invalid argument");
	/* ENOMEM is one MAD's trouble too. */
	assert_int_equal(walk_eight(&o, ENOMEM), IBS_OK);
	assert_int_equal(o.ok, 7);
	assert_int_equal(o.cause, ENOMEM);
}

/* EIO in errno after umad_send: the device is gone (Linux 5.11 and later), the run stops. */
static void test_send_device_gone(void **state)
{
	struct outcomes o;

	(void)state;
	assert_int_equal(walk_eight(&o, EIO), IBS_E_TRANSPORT);
	assert_int_equal(o.send_failed, 0);
	assert_true(o.aborted >= 1);
	assert_int_equal(o.ok + o.aborted, 8);
	assert_said(said, "cannot send on mlx5_0 port 1: Input/output error");
	/* Under the simulator the device is a socket to ibsim: a dead ibsim refuses the connection. */
	assert_int_equal(walk_eight(&o, ECONNREFUSED), IBS_E_TRANSPORT);
	assert_int_equal(o.send_failed, 0);
	assert_said(said, "cannot send on mlx5_0 port 1: Connection refused");
}

/* The first request gets an answer of 600 bytes (an RMPP answer, reassembled); the rest one MAD each. */
static void answer_first_long(const uint8_t *mad)
{
	uint8_t r[600];

	if (fumad.sends > 1) {
		fumad_echo(mad);
		return;
	}
	memset(r, 0xa5, sizeof(r));
	memcpy(r, mad, 256);
	r[3] |= 0x80;
	r[4] |= 0x80;
	fumad_queue(r, (int)sizeof(r), 0);
}

/*
 * ENOSPC from umad_recv: the kernel keeps the answer at the head of the
 * queue. Read with a one-MAD buffer again and again, the walk would spin until
 * its deadline; read whole, it is delivered and the rest follow.
 */
static void test_recv_enospc(void **state)
{
	struct ibs_engine_opts eo = { .window = 4, .timeout_ms = 200, .deadline_ms = 3000 };
	struct ibs_transport *t = NULL;
	struct outcomes o = { 0 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint32_t i;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.on_send = answer_first_long;
	assert_int_equal(open_fake(&t), IBS_OK);
	e = ibs_engine_new(t, &eo);
	ibs_addr_dr(&a, NULL, 0);
	for (i = 0; i < 8; i++) {
		ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_PORT_INFO, i);
		ibs_engine_submit(e, &req, count, &o);
	}
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(o.ok, 8);
	assert_int_equal(fumad.enospc, 1);
	assert_int_equal(fumad.qn, 0);
	assert_true(ibs_engine_elapsed_ms(e) < 1000);
	ibs_engine_free(e);
	ibs_transport_close(t);
}

/* An answer longer than ibscan reads stays at the head for good: a clear error, not a spin. */
static void test_recv_enospc_too_long(void **state)
{
	struct ibs_transport *t = NULL;
	struct ibs_packet pkt;
	uint8_t r[600] = { 1, 0x81, 1, 0x81 };

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	assert_int_equal(open_fake(&t), IBS_OK);
	fumad_queue(r, (int)sizeof(r), 0);
	fumad.q[0].claimed = 200 << 20;
	stderr_begin();
	assert_int_equal(ibs_transport_recv(t, &pkt, 0), IBS_E_TRANSPORT);
	stderr_end();
	assert_said(said, "the kernel holds an answer of 209715200 bytes ibscan cannot read");
	ibs_transport_close(t);
}

/* The first CA is the GSI half of a split SMI/GSI device (IsSMDisabled): the walk starts from the second. */
static void test_port_smi_disabled_skipped(void **state)
{
	struct ibs_transport *t = NULL;

	(void)state;
	fumad_reset();
	fumad_one_ca("gsi_0");
	fumad.ca[0].port[1].capmask = 0x400;
	fumad_one_ca("smi_0");
	assert_int_equal(open_fake(&t), IBS_OK);
	assert_string_equal(fumad.opened_ca, "smi_0");
	assert_int_equal(fumad.opened_port, 1);
	ibs_transport_close(t);
}

/*
 * A planarized device: two umad devices whose ports share a port GUID, the
 * GSI half with IsSMDisabled. SMPs go out on the SMI half, PMA and SA
 * requests on the GSI half (as libibmad sends them), and every answer is
 * read from the half it comes back on. A CA with IsSMDisabled and another
 * port GUID is no half of it.
 */
static void test_split_device_classes(void **state)
{
	struct ibs_engine_opts eo = { .window = 4, .timeout_ms = 200, .deadline_ms = 3000 };
	static const uint8_t classes[] = { IBS_CLASS_SMI_DR, IBS_CLASS_PMA, IBS_CLASS_SA, IBS_CLASS_SMI };
	struct ibs_transport *t = NULL;
	struct outcomes o = { 0 };
	struct ibs_engine *e;
	struct ibs_mad_req req;
	struct ibs_addr a;
	size_t i;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0"); /* the GSI half, listed first as sysfs may */
	fumad.ca[0].port[1].capmask = 0x400;
	fumad.ca[0].port[1].guid = 0x0002c903000000aaull;
	fumad_one_ca("mlx5_1");
	fumad.ca[1].port[1].guid = 0x0002c903000000aaull;
	fumad.on_send = fumad_echo;
	assert_int_equal(open_fake(&t), IBS_OK);
	assert_string_equal(fumad.opened_ca, "mlx5_1");
	assert_string_equal(fumad.also_opened_ca, "mlx5_0");
	assert_int_equal(fumad.also_opened_port, 1);
	e = ibs_engine_new(t, &eo);
	for (i = 0; i < sizeof(classes); i++) {
		if (classes[i] == IBS_CLASS_SMI_DR)
			ibs_addr_dr(&a, NULL, 0);
		else
			ibs_addr_lid(&a, 1, classes[i] == IBS_CLASS_SMI ? 0 : 1);
		ibs_req_get(&req, &a, classes[i], classes[i] == IBS_CLASS_PMA ? 0x12 : IBS_ATTR_NODE_INFO, 0);
		ibs_engine_submit(e, &req, count, &o);
	}
	assert_int_equal(ibs_engine_run(e), IBS_OK);
	assert_int_equal(o.ok, sizeof(classes));
	assert_int_equal(fumad.sent_on[IBS_CLASS_SMI_DR], 1101);
	assert_int_equal(fumad.sent_on[IBS_CLASS_SMI], 1101);
	assert_int_equal(fumad.sent_on[IBS_CLASS_PMA], 1100);
	assert_int_equal(fumad.sent_on[IBS_CLASS_SA], 1100);
	ibs_engine_free(e);
	ibs_transport_close(t);
	assert_int_equal(fumad.n_open, 0);

	/* Another port GUID: not its half; every class goes through the port walked from. */
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.ca[0].port[1].capmask = 0x400;
	fumad.ca[0].port[1].guid = 0x0002c903000000bbull;
	fumad_one_ca("mlx5_1");
	fumad.ca[1].port[1].guid = 0x0002c903000000aaull;
	assert_int_equal(open_fake(&t), IBS_OK);
	assert_string_equal(fumad.also_opened_ca, "");
	ibs_transport_close(t);
}

/* Only IsSMDisabled ports: no device, and the error says why the port was passed over. */
static void test_port_smi_disabled_only(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("gsi_0");
	fumad.ca[0].port[1].capmask = 0x400;
	s = open_fails(IBS_E_NODEV);
	assert_said(s, "1 port passed over for IsSMDisabled");
	assert_said(s, "-C and -P");
	assert_string_equal(fumad.opened_ca, "");
}

/*
 * A RoCE port (soft-RoCE rxe0 as the rdma tier boots it) has no subnet
 * management: refused at once, naming it as RoCE, never "no such
 * InfiniBand port"; asked for by name or found first.
 */
static void test_port_roce_refused(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("rxe0");
	fumad.ca[0].port[1].link_layer = "Ethernet";
	s = open_fails(IBS_E_NODEV);
	assert_said(s, "rxe0 port 1 is RoCE: no subnet management");
	assert_null(strstr(s, "no such InfiniBand port"));
	assert_null(strstr(s, "simulator"));
	want_ca = "rxe0";
	s = open_fails(IBS_E_NODEV);
	assert_said(s, "rxe0 port 1 is RoCE: no subnet management");
	want_port = 1;
	s = open_fails(IBS_E_NODEV);
	want_ca = NULL;
	want_port = 0;
	assert_said(s, "rxe0 port 1 is RoCE: no subnet management");
	assert_null(strstr(s, "no such InfiniBand port"));
}

/* Asked for by name, an IsSMDisabled port is still refused, with the reason. */
static void test_port_smi_disabled_asked(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("gsi_0");
	fumad.ca[0].port[1].capmask = 0x400;
	fumad_one_ca("smi_0");
	want_ca = "gsi_0";
	want_port = 1;
	s = open_fails(IBS_E_NODEV);
	want_ca = NULL;
	want_port = 0;
	assert_said(s, "cannot use CA 'gsi_0' port 1: IsSMDisabled is set");
}

/* As libibumad: an Active port is preferred over an earlier one that is down, on the same CA or the next. */
static void test_port_active_preferred(void **state)
{
	struct ibs_transport *t = NULL;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.ca[0].nports = 2;
	fumad.ca[0].port[1].state = 1; /* Down */
	fumad.ca[0].port[1].phys_state = 2; /* Polling */
	fumad.ca[0].port[2] = fumad.ca[0].port[1];
	fumad_one_ca("mlx5_1");
	assert_int_equal(open_fake(&t), IBS_OK);
	assert_string_equal(fumad.opened_ca, "mlx5_1");
	ibs_transport_close(t);
	fumad.ca[0].port[2].state = 4;
	assert_int_equal(open_fake(&t), IBS_OK);
	assert_string_equal(fumad.opened_ca, "mlx5_0");
	assert_int_equal(fumad.opened_port, 2);
	ibs_transport_close(t);
}

/* The SA is asked on the SL the SM set (PortInfo:MasterSMSL, sysfs sm_sl), as libibmad's sa_call does. */
static void test_sa_on_smsl(void **state)
{
	struct ibs_engine_opts eo = { .window = 4, .timeout_ms = 20 };
	struct ibs_transport *t = NULL;
	struct ibs_path_record pr;
	struct ibs_fabric *f;
	struct ibs_engine *e;
	enum ibs_outcome oc;
	uint16_t st;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.ca[0].port[1].sm_sl = 3;
	assert_int_equal(open_fake(&t), IBS_OK);
	f = ibs_fabric_new();
	ibs_transport_local_port(t, &f->local);
	assert_int_equal(f->local.sm_sl, 3);
	e = ibs_engine_new(t, &eo);
	ibs_query_path(e, f, 7, 9, &pr, &oc, &st); /* nobody answers: only what went out matters */
	assert_int_equal(fumad.last_sent[1], IBS_CLASS_SA);
	assert_int_equal(fumad.last_sl, 3);
	ibs_engine_free(e);
	ibs_fabric_free(f);
	ibs_transport_close(t);
}

/* Send req through t; the umad header it went out with is fumad.last_hdr, the MAD fumad.last_sent. */
static void send_one(struct ibs_transport *t, const struct ibs_mad_req *req, uint32_t tid)
{
	uint8_t mad[IBS_MAD_SIZE];
	int cause;

	assert_int_equal(ibs_mad_encode(req, tid, 0, mad), IBS_OK);
	assert_int_equal(ibs_transport_send(t, req, mad, &cause), IBS_OK);
	/* The kernel times out and returns each request; the engine alone retries (no retries on retries). */
	assert_int_equal(fumad.last_hdr.timeout_ms, 100);
	assert_int_equal(fumad.last_hdr.retries, 0);
	assert_int_equal(fumad.last_hdr.addr.pkey_index, 0);
	assert_int_equal(fumad.last_hdr.addr.grh_present, 0);
	assert_int_equal(fumad.last_sent[0], 1); /* BaseVersion */
	assert_true(mad_get_field64(fumad.last_sent, 0, IB_MAD_TRID_F) == tid);
}

/*
 * What each class goes out with, as libibmad's mad_rpc and the kernel want
 * it: a directed-route SMP to the permissive LID on QP0, a LID-routed one to
 * its LID on QP0, a GMP to QP1 with the well-known Q_Key 0x80010000 on
 * P_Key index 0; agents registered with class version 1 (2 for the SA) and
 * RMPP for the SA only.
 */
static void test_send_addressing(void **state)
{
	struct ibs_transport *t = NULL;
	struct ibs_mad_req req;
	struct ibs_addr a;
	uint8_t data[64] = { 0 };

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	assert_int_equal(open_fake(&t), IBS_OK);
	ibs_addr_dr(&a, (const uint8_t[]){ 1, 3 }, 2);
	ibs_req_get(&req, &a, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	send_one(t, &req, 0x11);
	assert_int_equal(be16toh(fumad.last_hdr.addr.lid), 0xffff);
	assert_int_equal(be32toh(fumad.last_hdr.addr.qpn), 0);
	assert_int_equal(fumad.last_sent[2], 1); /* ClassVersion */
	assert_int_equal(fumad.reg_version[IBS_CLASS_SMI_DR], 1);
	assert_int_equal(fumad.reg_rmpp[IBS_CLASS_SMI_DR], 0);

	ibs_addr_lid(&a, 7, 0);
	ibs_req_get(&req, &a, IBS_CLASS_SMI, IBS_ATTR_PORT_INFO, 3);
	send_one(t, &req, 0x12);
	assert_int_equal(be16toh(fumad.last_hdr.addr.lid), 7);
	assert_int_equal(be32toh(fumad.last_hdr.addr.qpn), 0);
	assert_int_equal(fumad.last_sent[1], IBS_CLASS_SMI);
	assert_int_equal(fumad.reg_version[IBS_CLASS_SMI], 1);

	ibs_addr_lid(&a, 9, 1);
	ibs_req_get(&req, &a, IBS_CLASS_PMA, IBS_ATTR_PORT_COUNTERS, 0);
	req.data = data;
	req.data_len = sizeof(data);
	send_one(t, &req, 0x13);
	assert_int_equal(be16toh(fumad.last_hdr.addr.lid), 9);
	assert_int_equal(be32toh(fumad.last_hdr.addr.qpn), 1);
	assert_true(be32toh(fumad.last_hdr.addr.qkey) == 0x80010000u);
	assert_int_equal(fumad.last_sent[2], 1);
	assert_int_equal(fumad.reg_version[IBS_CLASS_PMA], 1);
	assert_int_equal(fumad.reg_rmpp[IBS_CLASS_PMA], 0);

	ibs_addr_lid(&a, 1, 1);
	ibs_req_get(&req, &a, IBS_CLASS_SA, IBS_ATTR_SA_PATH_RECORD, 0);
	req.data = data;
	req.data_len = IBS_SA_PR_SIZE;
	send_one(t, &req, 0x14);
	assert_int_equal(be32toh(fumad.last_hdr.addr.qpn), 1);
	assert_true(be32toh(fumad.last_hdr.addr.qkey) == 0x80010000u);
	assert_int_equal(fumad.last_sent[2], 2);
	assert_int_equal(fumad.reg_version[IBS_CLASS_SA], 2);
	assert_int_equal(fumad.reg_rmpp[IBS_CLASS_SA], 1);
	ibs_transport_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_permission),
		cmocka_unit_test(test_open_no_node),
		cmocka_unit_test(test_register_cause),
		cmocka_unit_test(test_send_refused_one),
		cmocka_unit_test(test_send_device_gone),
		cmocka_unit_test(test_recv_enospc),
		cmocka_unit_test(test_recv_enospc_too_long),
		cmocka_unit_test(test_port_smi_disabled_skipped),
		cmocka_unit_test(test_split_device_classes),
		cmocka_unit_test(test_port_smi_disabled_only),
		cmocka_unit_test(test_port_smi_disabled_asked),
		cmocka_unit_test(test_port_roce_refused),
		cmocka_unit_test(test_port_active_preferred),
		cmocka_unit_test(test_sa_on_smsl),
		cmocka_unit_test(test_send_addressing),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	fumad_reset();
	return rc;
}
