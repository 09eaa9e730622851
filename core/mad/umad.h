/*
 * The libibumad calls of the umad transport as a table: the library itself
 * in ibscan, and in the unit tests a double that answers as libibumad and
 * the kernel do (the errno left behind a failed call, ENOSPC with the length
 * needed, ports with IsSMDisabled), so that what umad.c makes of each answer
 * is tested without a device.
 */
#ifndef IBSCAN_UMAD_H
#define IBSCAN_UMAD_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/umad.h>

#include "transport.h"

struct ibs_umad_calls {
	int (*init)(void);
	int (*done)(void);
	struct umad_device_node *(*get_ca_device_list)(void);
	void (*free_ca_device_list)(struct umad_device_node *head);
	int (*get_ca)(const char *ca_name, umad_ca_t *ca);
	int (*release_ca)(umad_ca_t *ca);
	int (*open_port)(const char *ca_name, int portnum);
	int (*close_port)(int fd);
	size_t (*size)(void);
	int (*register_agent)(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
			      long method_mask[16 / sizeof(long)]);
	int (*unregister_agent)(int fd, int agentid); /* may be NULL */
	int (*send)(int fd, int agentid, void *umad, int length, int timeout_ms, int retries);
	int (*recv)(int fd, void *umad, int *length, int timeout_ms);
	int (*poll)(int fd, int timeout_ms);
	/* Wait for either fd (a split SMI/GSI device): 0 or 1, the first ready, fd0 first; else -ETIMEDOUT or -errno. */
	int (*poll2)(int fd0, int fd1, int timeout_ms);
	void *(*get_mad)(void *umad);
	int (*set_addr)(void *umad, int dlid, int dqp, int sl, int qkey);
	int (*status)(void *umad);
};

/* poll2 of libibumad's fds, with poll(2). */
int ibs_umad_poll2(int fd0, int fd1, int timeout_ms);

/* libibumad itself. */
extern const struct ibs_umad_calls ibs_umad_libibumad;

/* ibs_umad_open through the given calls (ibs_umad_open uses ibs_umad_libibumad). */
enum ibs_err ibs_umad_open_with(const struct ibs_umad_calls *calls, const struct ibs_umad_opts *o,
				struct ibs_transport **out);

#endif
