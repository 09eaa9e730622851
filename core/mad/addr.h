/* Where a MAD goes: a LID, or a directed-route path of up to 63 hops (IBA 14.2.2), and its text. */
#ifndef IBSCAN_ADDR_H
#define IBSCAN_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"

#define IBS_DR_MAX_HOPS 63

/* Where a MAD goes: a LID, or (lid == 0) a directed-route path. */
struct ibs_addr {
	uint16_t lid;
	uint8_t hops;                    /* directed route: number of hops */
	uint8_t path[IBS_DR_MAX_HOPS + 1]; /* path[1..hops]; path[0] is 0 */
	uint32_t qp;
	uint32_t qkey;
	uint8_t sl;
};

void ibs_addr_dr(struct ibs_addr *a, const uint8_t *ports, unsigned hops);
void ibs_addr_lid(struct ibs_addr *a, uint16_t lid, uint32_t qp);
/* Extend a DR path by one hop; false when the path would exceed 63 hops. */
bool ibs_addr_dr_extend(struct ibs_addr *out, const struct ibs_addr *in, uint8_t port);
/* "0,1,3" for DR (the leading 0 is the local node, as ibnetdiscover writes), "lid 5" otherwise. */
char *ibs_addr_str(const struct ibs_addr *a, char *buf, size_t len);
/* Parse what ibs_addr_str wrote. */
enum ibs_err ibs_addr_parse(struct ibs_addr *a, const char *s);

#endif
