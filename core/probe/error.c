/* The probe's failures: the steps and completion statuses they are named by, and the one that is recorded. */
#include "probe.h"
#include "../base/log.h"
#include "../base/xalloc.h"

#include <stdarg.h>
#include <stdlib.h>

static const char *const step_names[] = {
	[IBS_STEP_NONE] = "none",	  [IBS_STEP_OPEN] = "open", [IBS_STEP_GID] = "GID",
	[IBS_STEP_PD] = "PD",		  [IBS_STEP_MR] = "MR",	    [IBS_STEP_CQ] = "CQ",
	[IBS_STEP_QP] = "QP",		  [IBS_STEP_INIT] = "INIT", [IBS_STEP_CONNECT] = "connect",
	[IBS_STEP_EXCHANGE] = "exchange", [IBS_STEP_RTR] = "RTR",   [IBS_STEP_RTS] = "RTS",
	[IBS_STEP_RUN] = "run",		  [IBS_STEP_FINISH] = "finish",
};

const char *ibs_ping_step_name(enum ibs_ping_step s)
{
	return (unsigned)s < sizeof(step_names) / sizeof(step_names[0]) ? step_names[s] : "?";
}

static const struct {
	const char *name, *text, *hint;
} wc_status[IBS_WC_STATUS__COUNT] = {
	{ "SUCCESS", "success", NULL },
	{ "LOC_LEN_ERR", "local length error", "a message was longer than the receive buffer" },
	{ "LOC_QP_OP_ERR", "local QP operation error", NULL },
	{ "LOC_EEC_OP_ERR", "local EE context operation error", NULL },
	{ "LOC_PROT_ERR", "local protection error", "a local buffer lies outside its memory registration" },
	{ "WR_FLUSH_ERR", "work request flushed", "the queue pair had already failed: the first error says why" },
	{ "MW_BIND_ERR", "memory window bind error", NULL },
	{ "BAD_RESP_ERR", "bad response", NULL },
	{ "LOC_ACCESS_ERR", "local access error", NULL },
	{ "REM_INV_REQ_ERR", "remote invalid request",
	  "the peer cannot do this operation (atomics unsupported, or a message larger than its buffer)" },
	{ "REM_ACCESS_ERR", "remote access error", "the peer rejected the rkey or the address range" },
	{ "REM_OP_ERR", "remote operation error", "the peer's queue pair could not complete the request" },
	{ "RETRY_EXC_ERR", "transport retry counter exceeded",
	  "the peer did not acknowledge: a wrong GID or LID, GIDs of different RoCE types, an MTU the path does "
	  "not carry, or the peer's queue pair is gone; on RoCE try --gid-index N (ibscan local lists them)" },
	{ "RNR_RETRY_EXC_ERR", "RNR retry counter exceeded", "the peer posted no receive buffer in time" },
	{ "LOC_RDD_VIOL_ERR", "local RDD violation", NULL },
	{ "REM_INV_RD_REQ_ERR", "remote invalid RD request", NULL },
	{ "REM_ABORT_ERR", "operation aborted", NULL },
	{ "INV_EECN_ERR", "invalid EE context number", NULL },
	{ "INV_EEC_STATE_ERR", "invalid EE context state", NULL },
	{ "FATAL_ERR", "fatal error", "the device reported a fatal error: see the kernel log (dmesg)" },
	{ "RESP_TIMEOUT_ERR", "response timeout", NULL },
	{ "GENERAL_ERR", "general error", NULL },
};

const char *ibs_wc_status_name(unsigned status)
{
	return status < IBS_WC_STATUS__COUNT ? wc_status[status].name : "UNKNOWN";
}

const char *ping_wc_text(unsigned status, const char **hint)
{
	*hint = status < IBS_WC_STATUS__COUNT ? wc_status[status].hint : NULL;
	return status < IBS_WC_STATUS__COUNT ? wc_status[status].text : "unknown status";
}

/* Keep what failed (msg and hint owned; hint may be NULL) for the result. */
void ping_set_error(struct ibs_ping *p, enum ibs_ping_step step, char *msg, char *hint)
{
	free(p->err);
	free(p->hint);
	p->step = step;
	p->err = msg;
	p->hint = hint;
}

/* Record and report a failure: the step, what failed and why, and a hint (owned, may be NULL). */
enum ibs_err __attribute__((format(printf, 5, 6)))
ping_fail(struct ibs_ping *p, enum ibs_ping_step step, enum ibs_err rc, char *hint, const char *fmt, ...)
{
	va_list ap;
	char *m;

	va_start(ap, fmt);
	m = xvasprintf(fmt, ap);
	va_end(ap);
	ping_set_error(p, step, m, hint);
	log_error("%s", m);
	if (hint)
		log_hint("%s", hint);
	return rc;
}

enum ibs_ping_step ibs_ping_failed_step(const struct ibs_ping *p)
{
	return p->step;
}

const char *ibs_ping_error(const struct ibs_ping *p)
{
	return p->err;
}

const char *ibs_ping_hint(const struct ibs_ping *p)
{
	return p->hint;
}
