/* The unit tests' fabric builders (fabrics.h): by hand, and walked from an in-process fabric. */
#include "fabrics.h"

struct ibs_node *fb_node(struct ibs_fabric *f, uint8_t type, unsigned n_ports, uint64_t guid, uint64_t port_guid)
{
	struct ibs_nodeinfo ni = {
		.node_type = type, .num_ports = (uint8_t)n_ports, .node_guid = guid, .port_guid = port_guid
	};
	struct ibs_addr a;

	ibs_addr_dr(&a, NULL, 0);
	return ibs_fabric_add_node(f, &ni, &a);
}

struct ibs_port *fb_port(struct ibs_node *n, unsigned p, uint8_t state, uint8_t phys, uint16_t lid)
{
	struct ibs_port *pt = &n->ports[p];

	pt->valid = true;
	pt->pi.state = state;
	pt->pi.phys_state = phys;
	pt->pi.lid = lid;
	return pt;
}

void ff_2sw4ca(struct ff *ff)
{
	int s1, s2, i;

	memset(ff, 0, sizeof(*ff));
	s1 = ff_add(ff, IB_NODE_SWITCH, 8, 0x200000, "Switch1");
	s2 = ff_add(ff, IB_NODE_SWITCH, 8, 0x200001, "Switch2");
	ff_link(ff, s1, 3, s2, 3);
	for (i = 0; i < 4; i++)
		ff_link(ff, i < 2 ? s1 : s2, 1 + i % 2, ff_add(ff, IB_NODE_CA, 1, 0x100000 + 4 * (uint64_t)i, "hca"), 1);
}

void ff_2sw2ca(struct ff *ff)
{
	int s1, s2;

	memset(ff, 0, sizeof(*ff));
	s1 = ff_add(ff, IB_NODE_SWITCH, 8, 0x200000, "Switch1");
	s2 = ff_add(ff, IB_NODE_SWITCH, 8, 0xf452140300200001ull, "Switch \"2\"");
	ff_link(ff, s1, 3, s2, 3);
	ff_link(ff, s1, 1, ff_add(ff, IB_NODE_CA, 1, 0x100000, "node01 mlx5_0"), 1);
	ff_link(ff, s2, 1, ff_add(ff, IB_NODE_CA, 1, 0x100010, "node02 mlx5_0"), 1);
}

/* One walk on engine e into fab: *run filled (NULL: freed here). */
static enum ibs_err walk_on(struct ibs_engine *e, const struct ibs_walk_opts *wo, struct ibs_fabric *fab,
			    struct ibs_run *run)
{
	struct ibs_run own = { 0 };
	enum ibs_err rc;

	if (!run)
		run = &own;
	memset(run, 0, sizeof(*run));
	rc = ibs_walk(e, fab, run, wo);
	ibs_run_free(&own);
	return rc;
}

enum ibs_err ff_walk_live(struct ff *ff, const struct ff_walk_opts *o, struct ibs_fabric **fab, struct ibs_run *run,
			  struct ff_live *live)
{
	struct fake *f = &live->fk;
	enum ibs_err rc;

	*fab = ibs_fabric_new();
	fake_init(f, o->on_send ? o->on_send : ff_on_send, ff);
	f->shuffle = ff->shuffle;
	if (o->sm_lid) {
		f->local.sm_lid = o->sm_lid;
		if (o->active) {
			f->local.state = IBS_PORT_ACTIVE;
			f->local.lid = (uint16_t)ff->n[ff->root].lid;
		}
		(*fab)->local = f->local;
	}
	live->eng = ibs_engine_new(&f->t, &o->eo);
	rc = walk_on(live->eng, &o->wo, *fab, run);
	ff->overtaken = f->overtaken;
	return rc;
}

void ff_live_close(struct ff_live *live)
{
	ibs_engine_free(live->eng);
	live->eng = NULL;
	fake_close(&live->fk.t);
}

enum ibs_err ff_walk_with(struct ff *ff, const struct ff_walk_opts *o, struct ibs_fabric **fab, struct ibs_run *run)
{
	struct ff_live live;
	enum ibs_err rc = ff_walk_live(ff, o, fab, run, &live);

	ff_live_close(&live);
	return rc;
}

enum ibs_err fb_walk_transport(struct ibs_transport *t, const struct ff_walk_opts *o, struct ibs_fabric **fab,
			       struct ibs_run *run)
{
	struct ibs_engine *e = ibs_engine_new(t, &o->eo);
	enum ibs_err rc;

	*fab = ibs_fabric_new();
	if (o->local_port)
		ibs_transport_local_port(t, &(*fab)->local);
	rc = walk_on(e, &o->wo, *fab, run);
	ibs_engine_free(e);
	return rc;
}

struct ibs_fabric *ff_walk(struct ff *ff, struct ibs_run *run)
{
	static const struct ff_walk_opts o = FF_WALK_DEFAULT;
	struct ibs_fabric *fab;

	if (ff_walk_with(ff, &o, &fab, run) != IBS_OK) {
		ibs_fabric_free(fab);
		return NULL;
	}
	return fab;
}
