/*
 * A double of the libibumad calls (core/mad/umad.h) that answers as
 * libibumad over the Linux umad driver does, read from rdma-core's
 * libibumad/umad.c and drivers/infiniband/core/user_mad.c:
 * - umad_open_port returns -EIO for every failed open() and leaves open()'s
 *   errno (EACCES without permission, ENOENT without the device node);
 * - umad_register returns -EPERM for every failed ioctl and leaves its errno
 *   (EINVAL, ENOMEM past 32 agents, EPIPE once the device is gone);
 * - umad_send returns -EIO for every failed write() and leaves its errno
 *   (EINVAL, ENOMEM for one MAD; EIO once the device is gone, since 5.11);
 * - umad_recv into a buffer too small for an RMPP answer returns -ENOSPC
 *   with the length needed, and the kernel keeps the answer at the head of
 *   the queue: every read with a small buffer fails the same way;
 * - the CAs and ports it lists carry the capability mask of sysfs, where
 *   IsSMDisabled (0x400) marks the GSI half of a split SMI/GSI device, and
 *   the two halves' ports share one port GUID;
 * - each opened port is its own fd (1100 + the CA's index), and an answer
 *   comes back on the fd its request went out on.
 * The state is global (the calls carry no context): fumad_reset() first.
 */
#ifndef IBSCAN_FAKE_UMAD_H
#define IBSCAN_FAKE_UMAD_H

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../../core/mad/umad.h"
#include "../../../core/base/xalloc.h"

#define FUMAD_MAX_CAS 4
#define FUMAD_MAX_PORTS 4

struct fumad_port {
	int state, phys_state;
	uint32_t capmask;
	uint64_t guid; /* the port GUID; 0: 0x0002c90300000000 + the port number */
	unsigned lid, sm_lid, sm_sl;
	const char *link_layer; /* NULL: "InfiniBand" */
};

struct fumad_ca {
	const char *name;
	int node_type; /* 1 CA, 2 switch */
	int nports;
	struct fumad_port port[FUMAD_MAX_PORTS + 1];
};

struct fumad_answer {
	uint8_t *bytes; /* the MAD, or several (an RMPP answer) */
	int len;
	int status;
	int claimed; /* nonzero: the length the kernel says (an answer never read whole) */
	int fd;      /* the fd it comes back on: the one its request went out on */
};

struct fumad {
	struct fumad_ca ca[FUMAD_MAX_CAS];
	int n_cas;
	int open_errno;          /* nonzero: open() fails with it */
	int register_errno[256]; /* by class: the ioctl fails with it */
	int registered[256];     /* agent id + 1 by class */
	int n_agents;
	int (*send_errno)(const uint8_t *mad); /* nonzero: write() fails with it */
	void (*on_send)(const uint8_t *mad);   /* after a send went out: queue its answers */
	unsigned sends, recvs, enospc;
	char opened_ca[UMAD_CA_NAME_LEN]; /* the port opened while none was open */
	int opened_port;
	char also_opened_ca[UMAD_CA_NAME_LEN]; /* one opened beside it (a split device's GSI half) */
	int also_opened_port;
	int n_open;       /* fds open now */
	int last_fd;      /* the fd of the last send */
	int sent_on[256]; /* by class: the fd its last MAD went out on */
	uint8_t last_sent[256];
	uint8_t last_sl;                     /* the SL the last MAD went out on */
	struct ib_user_mad last_hdr;         /* the umad header it went out with (address, timeout, retries) */
	int reg_version[256], reg_rmpp[256]; /* by class: the class version and RMPP version registered */
	struct fumad_answer *q;              /* answers, head first */
	size_t qn, qcap;
};

extern struct fumad fumad;

/* Back to nothing: no CAs, no answers queued, no faults (the state is global: call it first). */
void fumad_reset(void);

/* One CA with one active InfiniBand port 1 (LID 7, SM LID 1). */
void fumad_one_ca(const char *name);

/* Queue an answer of len bytes (len > 256: an RMPP answer, reassembled). */
void fumad_queue(const uint8_t *bytes, int len, int status);

/* The answer to a request: the request turned into a GetResp (DR: direction bit set), status 0. */
void fumad_echo(const uint8_t *mad);

/* The libibumad calls over the fake, for ibs_umad_open_with(). */
extern const struct ibs_umad_calls fumad_calls;

#endif
