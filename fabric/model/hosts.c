/* The servers behind the fabric's CAs: which CAs are one host (system image GUID, host name) and the host's name. */
#include "hosts.h"
#include "levels.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
 * NodeDescriptions that name no host. A CA's description is "HOSTNAME
 * DEVICE" only where rdma-ndd (rdma-core, rdma-ndd(8)) or the driver set it
 * from the host name; otherwise it is the adapter firmware's default, or the
 * host name was itself a default when it was written. Matched on the first
 * word (case-insensitively), or on the end of the description.
 */
enum dmatch { D_MT, D_END, D_WORD };
static const struct {
	enum dmatch how;
	const char *text;
	const char *why; /* and where the form is seen */
} defaults[] = {
	/* "MT4129 ConnectX7   Mellanox Technologies" (69 adapters of a published DGX SuperPOD
	 * topology), "MT23108 InfiniHost Mellanox Technologies" (the example of ibnetdiscover(8)). */
	{ D_MT, "MT<digits>", "the adapter firmware's default: rdma-ndd is not running" },
	/* Any firmware default of the vendor: "ConnectX-6 Mellanox Technologies", "SwitchIB Mellanox Technologies". */
	{ D_END, "Mellanox Technologies", "a Mellanox/NVIDIA firmware default" },
	/* rdma-ndd ran before the host had a name. */
	{ D_WORD, "localhost", "the host name before one is set" },
	{ D_WORD, "localhost.localdomain", "the host name before one is set, as the Red Hat, Rocky and Alma installers leave it" },
	{ D_WORD, "(none)", "the Linux kernel's host name before one is set, UTS_NODENAME" },
	/* A distribution's default host name, never changed. */
	{ D_WORD, "ubuntu", "Ubuntu's default host name, of its cloud images and installer" },
	{ D_WORD, "debian", "Debian's default host name, of its installer and cloud images" },
	{ D_WORD, "fedora", "Fedora's fallback host name, systemd's FallbackHostname" },
};

const char *ibs_desc_default(const char *desc)
{
	size_t len, w, i, k;
	const char *s = desc ? desc : "";

	while (isspace((unsigned char)*s))
		s++;
	len = strlen(s);
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (!len)
		return "empty";
	for (w = 0; w < len && !isspace((unsigned char)s[w]); w++)
		;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		const char *t = defaults[i].text;
		size_t tl = strlen(t);
		switch (defaults[i].how) {
		case D_MT:
			for (k = 2; k < w && isdigit((unsigned char)s[k]); k++)
				;
			if (w > 2 && k == w && (s[0] == 'M' || s[0] == 'm') && (s[1] == 'T' || s[1] == 't'))
				return defaults[i].why;
			break;
		case D_END:
			if (len >= tl && !strncasecmp(s + len - tl, t, tl))
				return defaults[i].why;
			break;
		case D_WORD:
			if (w == tl && !strncasecmp(s, t, tl))
				return defaults[i].why;
			break;
		}
	}
	/* A first word with no letter or digit ("--- mlx5_0") names nothing either. */
	for (k = 0; k < w; k++)
		if (isalnum((unsigned char)s[k]))
			return NULL;
	return "no letter or digit in its first word";
}

/* The first word of s, or NULL when it has none. */
static char *first_word(const char *s)
{
	size_t len;

	while (isspace((unsigned char)*s))
		s++;
	for (len = 0; s[len] && !isspace((unsigned char)s[len]); len++)
		;
	return len ? xstrndup(s, len) : NULL;
}

/* The host name CA n gives itself, or NULL. */
static char *host_word(const struct ibs_node *n)
{
	if (n->name && n->name[0])
		return first_word(n->name);
	if (n->desc && !ibs_desc_default(n->desc))
		return first_word(n->desc);
	return NULL;
}

bool ibs_ca_names_host(const struct ibs_node *n)
{
	char *w = host_word(n);
	bool r = w != NULL;

	free(w);
	return r;
}

static bool is_host_ca(const struct ibs_node *n)
{
	return n->ni.node_type == IBS_NODE_CA && !ibs_is_aggregation_node(n);
}

static size_t uf_find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void uf_union(size_t *parent, size_t a, size_t b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a != b)
		parent[a > b ? a : b] = a < b ? a : b;
}

/* For sorting CAs by one key: the system image GUID or the host word. */
struct cakey {
	size_t i;
	uint64_t sysimg;
	const char *word;
};

static int by_sysimg(const void *pa, const void *pb)
{
	const struct cakey *a = pa, *b = pb;

	if (a->sysimg != b->sysimg)
		return a->sysimg < b->sysimg ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static int by_word(const void *pa, const void *pb)
{
	const struct cakey *a = pa, *b = pb;
	int c;

	if (!a->word || !b->word)
		return a->word ? -1 : b->word ? 1 : (a->i < b->i ? -1 : a->i > b->i);
	c = strcmp(a->word, b->word);
	return c ? c : (a->i < b->i ? -1 : a->i > b->i);
}

struct sorted {
	struct ibs_host h;
	size_t old;
};

static int sorted_cmp(const void *pa, const void *pb)
{
	const struct sorted *a = pa, *b = pb;
	int c = strcmp(a->h.name, b->h.name);

	return c ? c : (a->h.sysimg < b->h.sysimg ? -1 : a->h.sysimg > b->h.sysimg);
}

void ibs_fabric_hosts(const struct ibs_fabric *f, struct ibs_hosts *out)
{
	size_t n = f->n_nodes, nca = 0, i, *parent, *root_host;
	struct cakey *k = xcalloc(n ? n : 1, sizeof(*k));
	char **word = xcalloc(n ? n : 1, sizeof(*word));

	memset(out, 0, sizeof(*out));
	out->n_nodes = n;
	out->host_of = xcalloc(n ? n : 1, sizeof(*out->host_of));
	parent = xcalloc(n ? n : 1, sizeof(*parent));
	root_host = xcalloc(n ? n : 1, sizeof(*root_host));
	for (i = 0; i < n; i++) {
		const struct ibs_node *nd = f->nodes[i];
		parent[i] = i;
		if (!is_host_ca(nd))
			continue;
		word[i] = host_word(nd);
		k[nca++] = (struct cakey){ i, nd->ni.system_image_guid, word[i] };
	}
	/* One server: the same system image GUID (never 0, which says nothing), or the same host name. */
	qsort(k, nca, sizeof(*k), by_sysimg);
	for (i = 1; i < nca; i++)
		if (k[i].sysimg && k[i].sysimg == k[i - 1].sysimg)
			uf_union(parent, k[i].i, k[i - 1].i);
	qsort(k, nca, sizeof(*k), by_word);
	for (i = 1; i < nca; i++)
		if (k[i].word && k[i - 1].word && !strcmp(k[i].word, k[i - 1].word))
			uf_union(parent, k[i].i, k[i - 1].i);
	/* Each root is a host: the lowest name among its CAs, the lowest system image GUID. */
	out->v = xcalloc(nca ? nca : 1, sizeof(*out->v));
	for (i = 0; i < nca; i++) {
		size_t c = k[i].i, r = uf_find(parent, c);
		const struct ibs_node *nd = f->nodes[c];
		uint64_t g = nd->ni.system_image_guid ? nd->ni.system_image_guid : nd->ni.node_guid;
		struct ibs_host *h;
		if (!root_host[r]) {
			out->v[out->n] = (struct ibs_host){ NULL, false, g, 0 };
			root_host[r] = ++out->n;
		}
		h = &out->v[root_host[r] - 1];
		h->n_cas++;
		if (g < h->sysimg)
			h->sysimg = g;
		/* k is sorted by word: the first named CA of a host has its lowest name. */
		if (word[c] && !h->name) {
			h->name = word[c];
			word[c] = NULL;
			h->named = true;
		}
	}
	for (i = 0; i < out->n; i++)
		if (!out->v[i].name)
			out->v[i].name = xasprintf("host-%016" PRIx64, out->v[i].sysimg);
	/* Sorted by name; host_of follows the move. */
	{
		struct sorted *o = xcalloc(out->n ? out->n : 1, sizeof(*o));
		size_t *new_of_old = xcalloc(out->n ? out->n : 1, sizeof(*new_of_old));
		for (i = 0; i < out->n; i++)
			o[i] = (struct sorted){ out->v[i], i };
		qsort(o, out->n, sizeof(*o), sorted_cmp);
		for (i = 0; i < out->n; i++) {
			out->v[i] = o[i].h;
			new_of_old[o[i].old] = i;
		}
		for (i = 0; i < nca; i++) {
			size_t c = k[i].i;
			out->host_of[c] = new_of_old[root_host[uf_find(parent, c)] - 1] + 1;
		}
		free(new_of_old);
		free(o);
	}
	for (i = 0; i < n; i++)
		free(word[i]);
	free(word);
	free(k);
	free(parent);
	free(root_host);
}

const struct ibs_host *ibs_host_of(const struct ibs_hosts *h, const struct ibs_node *n)
{
	if (!h || n->index >= h->n_nodes || !h->host_of[n->index])
		return NULL;
	return &h->v[h->host_of[n->index] - 1];
}

void ibs_hosts_free(struct ibs_hosts *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		free(h->v[i].name);
	free(h->v);
	free(h->host_of);
	memset(h, 0, sizeof(*h));
}
