/* What route.c, route_lft.c, route_sl2vl.c and route_sa.c share to read tables and ask one MAD; internal. */
#ifndef IBSCAN_ROUTE_INT_H
#define IBSCAN_ROUTE_INT_H

#include "../model/model.h"
#include "../../core/mad/engine.h"

/* One MAD's answer, for a synchronous ask (ibs_route_on_one is its callback). */
struct ibs_route_one {
	bool done;
	enum ibs_outcome outcome;
	uint16_t status;
	uint8_t mad[IBS_MAD_SIZE];
	size_t len;
};
void ibs_route_on_one(void *ctx, const struct ibs_mad_req *req, const struct ibs_mad_result *r);

/* The LID sw's tables are read at (own: ibs_fabric_lid_owners), or 0 for its directed route. */
uint16_t ibs_lft_lid(const struct ibs_fabric *f, const uint32_t *own, const struct ibs_node *sw);
/* A table read of sw (attribute attr, modifier mod): at lid, else along sw's directed route. */
void ibs_tbl_req(struct ibs_mad_req *req, const struct ibs_node *sw, uint16_t lid, uint16_t attr, uint32_t mod);
/* A table read by LID that failed is asked again along sw's directed route (cb, ctx as before): whether it was. */
bool ibs_again_by_dr(struct ibs_engine *e, const struct ibs_mad_req *req, const struct ibs_mad_result *r,
		     const struct ibs_node *sw, ibs_mad_cb cb, void *ctx);
/* The node every directed route starts at (the local one). */
const struct ibs_node *ibs_dr_root(const struct ibs_fabric *f);
/* One LFT block of a switch, synchronously: by LID, then by directed route if that fails. */
enum ibs_err ibs_lft_block(struct ibs_engine *e, const struct ibs_fabric *f, const uint32_t *own,
			   const struct ibs_node *sw, unsigned block, uint8_t ports[64], enum ibs_outcome *oc);

#endif
