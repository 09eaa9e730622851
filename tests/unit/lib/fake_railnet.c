/* The rail-optimized fabrics of fake_railnet.h, written as ibnetdiscover text and loaded. */
#include "fake_railnet.h"

uint64_t rn_leaf_guid(unsigned l)
{
	return 0x1000 + l;
}
uint64_t rn_spine_guid(unsigned s)
{
	return 0x2000 + s;
}
/* Server h (0-based across units), device r. */
uint64_t rn_ca_guid(unsigned h, unsigned r)
{
	return 0x100000 + h * 16 + r;
}

void rn_init(struct railnet *n, unsigned su, unsigned srv, unsigned rails, unsigned spines, unsigned par)
{
	unsigned u, r, p, s, k;

	memset(n, 0, sizeof(*n));
	n->su = su, n->srv = srv, n->rails = rails, n->spines = spines, n->par = par;
	for (u = 0; u < su; u++)
		for (r = 0; r < rails; r++) {
			unsigned l = u * rails + r;
			snprintf(n->leafname[l], sizeof(n->leafname[l]), "su%u-r%u", u + 1, r);
			for (p = 1; p <= srv; p++)
				n->port[l][p] = (struct rn_end){ rn_ca_guid(u * srv + p - 1, r), 1 };
			for (s = 0; s < spines; s++)
				for (k = 0; k < par; k++)
					n->port[l][RN_LEAF_UP + s * par + k] =
						(struct rn_end){ rn_spine_guid(s), 1 + l * par + k };
		}
}

/* Swap what leaf ports (la, pa) and (lb, pb) are cabled to. */
void rn_swap(struct railnet *n, unsigned la, unsigned pa, unsigned lb, unsigned pb)
{
	struct rn_end t = n->port[la][pa];
	n->port[la][pa] = n->port[lb][pb];
	n->port[lb][pb] = t;
}

/* The fabric as ibnetdiscover text (caller frees). */
char *rn_text(const struct railnet *n)
{
	size_t cap = 1 << 20, len = 0;
	char *b = malloc(cap);
	unsigned l, p, h, r, s;

#define RN_PUT(...) (len += (size_t)snprintf(b + len, cap - len, __VA_ARGS__))
	for (l = 0; l < n->su * n->rails; l++) {
		RN_PUT("switchguid=0x%" PRIx64 "\nSwitch\t%u \"S-%016" PRIx64 "\"\t\t# \"%s\" base port 0 lid %u lmc 0\n",
		       rn_leaf_guid(l), RN_PORTS, rn_leaf_guid(l), n->leafname[l], l + 1);
		for (p = 1; p <= RN_PORTS; p++) {
			const struct rn_end *e = &n->port[l][p];
			if (!e->guid)
				continue;
			RN_PUT("[%u]\t\"%s-%016" PRIx64 "\"[%u]\t\t# \"x\" lid 0 %s\n", p,
			       e->guid >= 0x100000 ? "H" : "S", e->guid, e->port,
			       n->slow_port == p && n->slow_leaf == l ? "4xQDR" : "4xEDR");
		}
		RN_PUT("\n");
	}
	for (s = 0; s < n->spines; s++)
		RN_PUT("switchguid=0x%" PRIx64 "\nSwitch\t%u \"S-%016" PRIx64
		       "\"\t\t# \"spine%u\" base port 0 lid %u lmc 0\n\n",
		       rn_spine_guid(s), RN_PORTS, rn_spine_guid(s), s + 1, 100 + s);
	for (h = 0; h < n->su * n->srv; h++)
		for (r = 0; r < n->rails; r++)
			if (n->default_desc)
				RN_PUT("caguid=0x%" PRIx64 "\nCa\t1 \"H-%016" PRIx64
				       "\"\t\t# \"MT4129 ConnectX7   Mellanox Technologies\"\n\n",
				       rn_ca_guid(h, r), rn_ca_guid(h, r));
			else
				RN_PUT("caguid=0x%" PRIx64 "\nCa\t1 \"H-%016" PRIx64 "\"\t\t# \"dgx%03u mlx5_%u\"\n\n",
				       rn_ca_guid(h, r), rn_ca_guid(h, r), h + 1, r);
	if (n->spine_host_port)
		RN_PUT("caguid=0x999999\nCa\t1 \"H-0000000000999999\"\t\t# \"dgx999 mlx5_0\"\n"
		       "[1](999999)\t\"S-%016" PRIx64 "\"[%u]\t\t# \"spine1\" lid 100 4xEDR\n\n",
		       rn_spine_guid(0), n->spine_host_port);
#undef RN_PUT
	return b;
}

struct ibs_fabric *rn_fabric(const struct railnet *n)
{
	char *t = rn_text(n), *msg = NULL;
	struct ibs_fabric *f = NULL;

	if (ibs_fabric_parse_netfile("rail.net", t, strlen(t), &f, &msg) != IBS_OK) {
		fprintf(stderr, "rail.net: %s\n", msg ? msg : "?");
		abort();
	}
	free(t);
	free(msg);
	return f;
}
