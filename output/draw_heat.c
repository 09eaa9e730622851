/*
 * The heat map on the drawing: each cable coloured by the host-to-host
 * routes that cross it, from a route check whose job is every CA
 * (fabric/check/routecheck.h: routes leaving each switch port, and entering it
 * from the CA cabled there). Its tooltip gives both ways and their sum
 * (the routes `routes --through` finds crossing it); its colour is its
 * busier way's count (a cable is full duplex: each way is a channel of its own); a merged
 * edge takes its busiest cable's. The scale runs linearly from no route
 * to the busiest cable of the fabric, light green to dark blue (the
 * ColorBrewer YlGnBu ramp without its palest steps: its lightness falls
 * steadily, so it reads on white, in grey and to colour-blind eyes), and
 * the edge grows wider with it as well. Not yellow to red: red and orange
 * mark problems on the drawing (a cable not Active, degraded, a finding:
 * draw_int.h), and a hot cable must not read as a broken one; every
 * colour of this ramp lies more than 25 (CIE76) from each of those.
 */
#include "draw.h"
#include "draw_int.h"
#include "../core/base/strbuf.h"
#include "../core/base/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const unsigned char ramp[][3] = {
	{ 0xa1, 0xda, 0xb4 }, { 0x7f, 0xcd, 0xbb }, { 0x41, 0xb6, 0xc4 }, { 0x1d, 0x91, 0xc0 },
	{ 0x22, 0x5e, 0xa8 }, { 0x25, 0x34, 0x94 }, { 0x08, 0x1d, 0x58 },
};
#define RAMP_N (sizeof(ramp) / sizeof(ramp[0]))

/* Routes leaving node n by port p toward its cable's other end. */
static uint64_t out_of(const struct draw *d, const struct ibs_node *n, unsigned p)
{
	const struct ibs_routecheck *rc = d->o->heat;
	const struct ibs_port *pp;
	size_t k;

	if (n->ni.node_type == IBS_NODE_SWITCH) {
		k = d->heat_sw[n->index];
		if (!k || !rc->sw[k - 1].job || p >= rc->sw[k - 1].n_ports)
			return 0;
		return rc->sw[k - 1].job[p];
	}
	/* A CA's routes out: counted at the switch port its cable enters by. */
	pp = ibs_node_port(n, p);
	if (!pp || !pp->peer || pp->peer->ni.node_type != IBS_NODE_SWITCH)
		return 0;
	k = d->heat_sw[pp->peer->index];
	if (!k || !rc->sw[k - 1].job_in || pp->peer_port >= rc->sw[k - 1].n_ports)
		return 0;
	return rc->sw[k - 1].job_in[pp->peer_port];
}

void draw_heat_cable(const struct draw *d, const struct dlink *l, uint64_t *up, uint64_t *down)
{
	uint64_t ab = out_of(d, l->a, l->pa), ba = out_of(d, l->b, l->pb);
	bool a_upper = draw_endpoint(d, l->a->index) == l->u;

	*up = a_upper ? ba : ab;
	*down = a_upper ? ab : ba;
}

void draw_heat_init(struct draw *d)
{
	const struct ibs_routecheck *rc = d->o->heat;
	size_t i;

	d->heat_sw = xcalloc(d->f->n_nodes + 1, sizeof(*d->heat_sw));
	for (i = 0; i < rc->n_sw; i++)
		if (rc->sw[i].node->index < d->f->n_nodes && d->f->nodes[rc->sw[i].node->index] == rc->sw[i].node)
			d->heat_sw[rc->sw[i].node->index] = i + 1;
	/* From 0, not from the least used cable: 4 and 5 routes are much the same, and look it. */
	d->heat_min = d->heat_max = 0;
	for (i = 0; i < d->n_links; i++) {
		uint64_t up, down, v;
		draw_heat_cable(d, &d->links[i], &up, &down);
		v = up > down ? up : down;
		if (v > d->heat_max)
			d->heat_max = v;
	}
}

void draw_heat_free(struct draw *d)
{
	free(d->heat_sw);
	d->heat_sw = NULL;
}

static double frac(const struct draw *d, uint64_t v)
{
	if (d->heat_max <= d->heat_min)
		return v ? 1 : 0;
	if (v <= d->heat_min)
		return 0;
	return (double)(v - d->heat_min) / (double)(d->heat_max - d->heat_min);
}

/* The colour at x of the scale (0 to 1). */
static const char *ramp_at(double x, char *buf)
{
	size_t i;
	double t;
	unsigned c[3], k;

	x *= (double)(RAMP_N - 1);
	i = (size_t)x;
	if (i >= RAMP_N - 1)
		i = RAMP_N - 2;
	t = x - (double)i;
	for (k = 0; k < 3; k++)
		c[k] = (unsigned)((double)ramp[i][k] + t * ((double)ramp[i + 1][k] - (double)ramp[i][k]) + 0.5);
	snprintf(buf, 8, "#%02x%02x%02x", c[0] & 0xff, c[1] & 0xff, c[2] & 0xff);
	return buf;
}

const char *draw_heat_color(const struct draw *d, uint64_t v, char *buf)
{
	return ramp_at(frac(d, v), buf);
}

double draw_heat_pen(const struct draw *d, uint64_t v)
{
	return 1.5 + 3.5 * frac(d, v);
}

void draw_heat_counts(const struct draw *d, struct strbuf *sb, const struct dlink *l)
{
	uint64_t up, down;

	draw_heat_cable(d, l, &up, &down);
	sb_addf(sb, "routes: %" PRIu64 " (up %" PRIu64 ", down %" PRIu64 ")", up + down, up, down);
}

void draw_heat_legend(const struct draw *d, struct strbuf *sb)
{
	size_t i;
	char buf[8];

	sb_adds(sb, "<tr><td>cable colour and width: the host-to-host routes<br/>its busier way carries "
		    "(tooltip: both ways)</td></tr>"
		    "<tr><td><table border=\"0\" cellborder=\"0\" cellspacing=\"0\" cellpadding=\"2\"><tr>");
	sb_addf(sb, "<td align=\"right\">%" PRIu64 "</td>", d->heat_min);
	for (i = 0; i < RAMP_N; i++)
		sb_addf(sb, "<td bgcolor=\"%s\" width=\"16\"> </td>", ramp_at((double)i / (double)(RAMP_N - 1), buf));
	sb_addf(sb, "<td align=\"left\">%" PRIu64 "</td></tr></table></td></tr>", d->heat_max);
}
