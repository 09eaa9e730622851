/*
 * The fabrics the unit tests build, two ways: by hand, an ibs_fabric's
 * nodes and ports set as a walk would set them (fb_*), and by walking an
 * in-process fabric (fake_fabric.h) through the fake transport (ff_walk*),
 * or any other transport (fb_walk_transport).
 */
#ifndef IBSCAN_TEST_FABRICS_H
#define IBSCAN_TEST_FABRICS_H

#include "fake_fabric.h"
#include "../../../fabric/model/model.h"
#include "../../../fabric/walk/run.h"

/* A node added to f at the empty directed route: its type, ports, node GUID and NodeInfo's port GUID (0: none). */
struct ibs_node *fb_node(struct ibs_fabric *f, uint8_t type, unsigned n_ports, uint64_t guid, uint64_t port_guid);

/* Port p of n as its PortInfo was read: valid, PortState state, PortPhysicalState phys, LID lid. */
struct ibs_port *fb_port(struct ibs_node *n, unsigned p, uint8_t state, uint8_t phys, uint16_t lid);

/*
 * Two 8-port switches, Switch1 (0x200000) and Switch2 (0x200001), cabled
 * port 3 to port 3, and four one-port CAs "hca" (0x100000 + 4i), on ports
 * 1 and 2 of Switch1, then of Switch2: nodes 0 and 1 the switches, 2 to 5
 * the CAs. ff is cleared first.
 */
void ff_2sw4ca(struct ff *ff);

/*
 * The renderers' fabric: Switch1 (0x200000) and `Switch "2"`
 * (0xf452140300200001: a GUID above 2^63, a name with quotes), 8 ports
 * each, cabled port 3 to port 3; a CA on port 1 of each, "node01 mlx5_0"
 * (0x100000) on Switch1 and "node02 mlx5_0" (0x100010) on Switch2. ff is
 * cleared first.
 */
void ff_2sw2ca(struct ff *ff);

/* How ff_walk_with walks: FF_WALK_DEFAULT is ff_walk's. */
struct ff_walk_opts {
	struct ibs_engine_opts eo;
	struct ibs_walk_opts wo;
	/* The fake's on_send (NULL: ff_on_send), for a test that counts or changes what is asked. */
	void (*on_send)(struct fake *f, const struct ibs_mad_req *req, const uint8_t *mad);
	/* Nonzero: the local port names this SM LID, and the fabric's local port is the fake's. */
	uint16_t sm_lid;
	/* With sm_lid: the local port is Active at the root's LID (the walk routes by LID once LIDs are known). */
	bool active;
	/* fb_walk_transport: the fabric's local port is the transport's (as a recording or a replay has it). */
	bool local_port;
};

/* Window 8, 100 ms, 1 retry, 10 s; GUIDInfo and SMInfo read. */
#define FF_WALK_DEFAULT                                                                       \
	{                                                                                     \
		.eo = { .window = 8, .timeout_ms = 100, .retries = 1, .deadline_ms = 10000 }, \
		.wo = { .gids = true, .sm = true },                                           \
	}

/*
 * Walk ff through a fake transport (with ff->shuffle; ff->overtaken set
 * after) with o into a new fabric *fab, whatever the walk's result (the
 * caller frees it), and *run (ibs_run_free it; NULL: freed here). Returns
 * what the walk returned.
 */
enum ibs_err ff_walk_with(struct ff *ff, const struct ff_walk_opts *o, struct ibs_fabric **fab, struct ibs_run *run);

/* ff walked with FF_WALK_DEFAULT into a new fabric and *run (ibs_run_free it); NULL if the walk failed. */
struct ibs_fabric *ff_walk(struct ff *ff, struct ibs_run *run);

/* A walk of an ff whose fake and engine stay open for what the test asks next (routes, tables). */
struct ff_live {
	struct fake fk;
	struct ibs_engine *eng;
};
/* ff_walk_with, the fake and the engine kept in *live (which must not move) until ff_live_close. */
enum ibs_err ff_walk_live(struct ff *ff, const struct ff_walk_opts *o, struct ibs_fabric **fab, struct ibs_run *run,
			  struct ff_live *live);
void ff_live_close(struct ff_live *live);

/*
 * Walk any transport t (a recorder around a fake, a replay) with o's
 * engine and walk options (on_send, sm_lid and active are the fake's:
 * unused) into a new fabric *fab, whatever the walk's result (the caller
 * frees it), and *run (ibs_run_free it; NULL: freed here). Returns what
 * the walk returned; the engine is freed, t stays open.
 */
enum ibs_err fb_walk_transport(struct ibs_transport *t, const struct ff_walk_opts *o, struct ibs_fabric **fab,
			       struct ibs_run *run);

#endif
