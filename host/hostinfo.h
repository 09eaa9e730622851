/*
 * This host's RDMA devices as sysfs shows them (what ibstat and show_gids
 * print): devices, ports, GID tables with RoCE types and netdevs, IPoIB
 * interfaces, PCI addresses and SR-IOV roles. sysfs is read as untrusted
 * input: regular files only, bounded reads, a missing or odd attribute is
 * unknown (NULL or -1), never an error.
 */
#ifndef IBSCAN_HOSTINFO_H
#define IBSCAN_HOSTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/base/err.h"
#include "../core/base/gid.h" /* the text of a GID, for whoever shows the host */
#include "sysfs.h"         /* the parsers of attribute text, for tests and fuzzing */

struct ibs_host_gid {
	unsigned index;
	uint8_t gid[16];
	char *type;   /* "IB/RoCE v1", "RoCE v2", or NULL */
	char *netdev; /* RoCE: the interface it belongs to, or NULL */
};

struct ibs_host_ipoib {
	char *name;
	char *operstate; /* "up", "down", ... or NULL */
};

struct ibs_host_port {
	unsigned num;
	int state_num;    /* IBA PortState, -1 unknown */
	char *state;      /* "ACTIVE", or NULL */
	char *phys_state; /* "LinkUp", or NULL */
	char *rate;       /* as sysfs says it: "100 Gb/sec (4X EDR)" */
	double rate_gbps; /* negative: unknown */
	char *width;      /* "4x", or NULL */
	char *speed;      /* "EDR", or NULL */
	int64_t lid, sm_lid, lmc; /* -1: unknown */
	char *link_layer; /* "InfiniBand" or "Ethernet", or NULL */
	struct ibs_host_gid *gids; /* non-zero entries, by index */
	size_t n_gids;
	struct ibs_host_ipoib *ipoib; /* IPoIB interfaces on this port, by name */
	size_t n_ipoib;
	int probe_gid; /* RoCE: the entry of gids `ibscan ping` would use, else -1 */
	bool has_port_guid; /* GID 0 is set: its low 64 bits are the port GUID */
	uint64_t port_guid;
	char *netdev; /* ibdev2netdev's: RoCE, the netdev of the lowest GID that has one; IB, the first IPoIB; or NULL */
};

enum ibs_sriov { IBS_SRIOV_NONE, IBS_SRIOV_PF, IBS_SRIOV_VF };

struct ibs_host_dev {
	char *name;
	bool has_node_guid, has_sys_guid;
	uint64_t node_guid, sys_image_guid;
	char *node_type; /* "CA" (from "1: CA"), or NULL */
	char *fw_ver, *board_id, *hca_type, *node_desc;
	char *pci;          /* "0000:3b:00.0", or NULL (no PCI device: rxe, siw) */
	int64_t vendor_id, device_id; /* PCI IDs, -1 unknown */
	enum ibs_sriov sriov;
	bool vf_by_id;      /* a VF known by its device ID (no physfn link: passed through into a VM) */
	char *physfn;       /* a VF's physical function, when the host shows it */
	int64_t sriov_totalvfs, sriov_numvfs; /* a PF's, -1 unknown */
	int64_t numa_node;  /* the PCI function's, -1 unknown (sysfs says -1 when the firmware gives none) */
	int64_t pcie_width, pcie_max_width; /* lanes (current_link_width, max_link_width), -1 unknown */
	double pcie_speed, pcie_max_speed;  /* GT/s (current_link_speed, max_link_speed), negative: unknown */
	struct ibs_host_port *ports;
	size_t n_ports;
};

/* The host owns every device, port, GID and string. */
struct ibs_host {
	struct ibs_host_dev *devs; /* by name */
	size_t n_devs;
	size_t n_numa_nodes; /* devices/system/node/nodeN directories: 0 unknown */
};

/*
 * Read sysfs under root (a directory laid out like /sys). IBS_E_NODEV when
 * root/class/infiniband holds no device; IBS_E_IO when root cannot be read.
 * *msg says why (owned by the caller).
 */
enum ibs_err ibs_host_load(const char *root, struct ibs_host **out, char **msg);
void ibs_host_free(struct ibs_host *h);

#endif
