/*
 * The verbs operations the link probe needs, as a table of function pointers:
 * libibverbs behind it on real hosts (verbs_ibv.c), an in-process fake in the
 * unit tests. The types are ibscan's own, so neither the probe engine nor the
 * fake depends on libibverbs' structures or on RDMA hardware.
 */
#ifndef IBSCAN_VERBS_H
#define IBSCAN_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/gid.h"

/* Handles: each backend defines these; the engine only passes them back. */
struct ibs_vdev;
struct ibs_vpd;
struct ibs_vmr;
struct ibs_vcq;
struct ibs_vqp;

enum ibs_link_layer { IBS_LL_UNKNOWN = 0, IBS_LL_IB = 1, IBS_LL_ETH = 2 };

/*
 * A port's state as verbs reports it (libibverbs' enum ibv_port_state: IBA
 * PortState, plus ACTIVE_DEFER). The probe sees no core/mad, so it names
 * these itself.
 */
enum ibs_vport_state {
	IBS_VPORT_NOP = 0,
	IBS_VPORT_DOWN = 1,
	IBS_VPORT_INIT = 2,
	IBS_VPORT_ARMED = 3,
	IBS_VPORT_ACTIVE = 4,
	IBS_VPORT_ACTIVE_DEFER = 5,
};

#define IBS_NETDEV_LEN 16 /* a network interface's name and its NUL (IFNAMSIZ) */

/* The device and port that open() chose. name is owned by the backend until close(). */
struct ibs_vdev_info {
	const char *name;
	unsigned port;
	enum ibs_link_layer link_layer;
	unsigned state;      /* an enum ibs_vport_state */
	uint16_t lid;
	unsigned active_mtu; /* 1..5: 256..4096 bytes */
	unsigned gid_tbl_len;
	unsigned pkey_tbl_len; /* P_Key table entries (0: unknown) */
	unsigned max_qp_wr;
	unsigned max_cqe;
	unsigned max_rd_atom;      /* RDMA read/atomic responder resources per QP */
	unsigned max_init_rd_atom; /* and initiator depth */
	bool atomics;              /* fetch-and-add supported */
	bool iwarp;                /* an iWARP device (its link layer reads Ethernet): not InfiniBand transport */
};

/* Memory access rights (the same bits as IBV_ACCESS_*). */
enum {
	IBS_ACCESS_LOCAL_WRITE = 1,
	IBS_ACCESS_REMOTE_WRITE = 2,
	IBS_ACCESS_REMOTE_READ = 4,
	IBS_ACCESS_REMOTE_ATOMIC = 8,
};

struct ibs_qp_caps {
	unsigned max_send_wr, max_recv_wr;
	/* Bytes a send or write may carry inline (in the work request, not read by DMA): asked for, then got. */
	unsigned max_inline;
};

enum ibs_qp_target { IBS_QPS_INIT, IBS_QPS_RTR, IBS_QPS_RTS };

/* What an RC QP needs on its way to RTS: the local port, the peer's address, both PSNs. */
struct ibs_qp_conn {
	unsigned port;
	unsigned access;     /* remote access rights granted at INIT */
	unsigned pkey_index; /* INIT: the P_Key table entry */
	uint32_t remote_qpn, remote_psn, local_psn;
	uint16_t remote_lid;
	bool use_grh; /* RoCE always; InfiniBand only with --gid-index */
	uint8_t remote_gid[16];
	unsigned sgid_index;
	uint8_t hop_limit;
	uint8_t sl, traffic_class;
	unsigned mtu; /* 1..5 */
	unsigned max_dest_rd_atomic, max_rd_atomic;
	uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
};

enum ibs_wr_opcode { IBS_WR_SEND, IBS_WR_RDMA_WRITE, IBS_WR_RDMA_READ, IBS_WR_FETCH_ADD };

struct ibs_send_wr {
	uint64_t wr_id;
	enum ibs_wr_opcode opcode;
	void *addr; /* local buffer: source, or destination of a read or atomic */
	uint32_t length;
	uint32_t lkey;
	uint64_t remote_addr;
	uint32_t rkey;
	uint64_t add; /* fetch-and-add operand */
	bool signaled;
	bool inline_data; /* send or write: the data goes in the work request (up to the QP's max_inline) */
};

/* Completion status: the numbering of enum ibv_wc_status (0 is success). */
enum {
	IBS_WC_SUCCESS = 0,
	IBS_WC_LOC_LEN_ERR = 1,
	IBS_WC_LOC_PROT_ERR = 4,
	IBS_WC_WR_FLUSH_ERR = 5,
	IBS_WC_REM_INV_REQ_ERR = 9,
	IBS_WC_REM_ACCESS_ERR = 10,
	IBS_WC_REM_OP_ERR = 11,
	IBS_WC_RETRY_EXC_ERR = 12,
	IBS_WC_RNR_RETRY_EXC_ERR = 13,
	IBS_WC_STATUS__COUNT = 22,
};

struct ibs_wc {
	uint64_t wr_id;
	unsigned status;
	bool is_recv;
	uint32_t byte_len;
	uint32_t vendor_err;
};

/*
 * Every operation returns 0 or a positive errno value, except poll_cq. The
 * engine names the failing step; backends add detail through *msg (open only).
 */
struct ibs_verbs_ops {
	const char *name;
	/*
	 * Open device ca (NULL: the first with an active port, else the first)
	 * and its port (0: the first active one, else port 1). ENODEV: no
	 * device at all; ENOENT: no such device; ENXIO: no such port.
	 */
	int (*open)(const char *ca, unsigned port, struct ibs_vdev **dev, struct ibs_vdev_info *info, char **msg);
	void (*close)(struct ibs_vdev *dev);
	/* One GID table entry of the open port; an error for an empty or unreadable one. */
	int (*query_gid)(struct ibs_vdev *dev, unsigned index, uint8_t gid[16], enum ibs_gid_type *type);
	/*
	 * The network interface of a RoCE GID table entry, NUL-terminated;
	 * ENODATA where the backend cannot tell (the probe then reads sysfs).
	 */
	int (*gid_netdev)(struct ibs_vdev *dev, unsigned index, char name[IBS_NETDEV_LEN]);
	int (*alloc_pd)(struct ibs_vdev *dev, struct ibs_vpd **pd);
	void (*dealloc_pd)(struct ibs_vpd *pd);
	int (*reg_mr)(struct ibs_vpd *pd, void *addr, size_t len, unsigned access, struct ibs_vmr **mr, uint32_t *lkey,
		      uint32_t *rkey);
	void (*dereg_mr)(struct ibs_vmr *mr);
	int (*create_cq)(struct ibs_vdev *dev, unsigned cqe, struct ibs_vcq **cq);
	void (*destroy_cq)(struct ibs_vcq *cq);
	/* An RC QP whose send and receive completions both go to cq. */
	/* caps->max_inline: in, what the QP should carry inline; out, what it does (EINVAL: too much for the device). */
	int (*create_qp)(struct ibs_vpd *pd, struct ibs_vcq *cq, struct ibs_qp_caps *caps, struct ibs_vqp **qp,
			 uint32_t *qpn);
	void (*destroy_qp)(struct ibs_vqp *qp);
	int (*modify_qp)(struct ibs_vqp *qp, enum ibs_qp_target to, const struct ibs_qp_conn *c);
	int (*post_send)(struct ibs_vqp *qp, const struct ibs_send_wr *wr);
	int (*post_recv)(struct ibs_vqp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey);
	/* Up to n completions into wc: how many (0: none yet), or a negative errno. */
	int (*poll_cq)(struct ibs_vcq *cq, int n, struct ibs_wc *wc);
};

/* libibverbs, loaded at run time (see verbs_ibv.c). */
extern const struct ibs_verbs_ops ibs_verbs_ibv;

#endif
