/*
 * The capture text, written: the header and exchange lines, and the end
 * record (format_parse.c reads them back). Format: docs/capture-format.md.
 * Request bytes are stored with the TID zeroed so that identical requests
 * are identical text.
 */
#include "format.h"
#include "../base/file.h"
#include "../base/mapping.h"
#include "../base/log.h"
#include "../base/text.h"
#include "../base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- shared helpers ---- */

void ibs_capture_addr_fmt(const struct ibs_addr *a, char *buf, size_t len)
{
	size_t off;
	unsigned i;

	if (a->lid) {
		snprintf(buf, len, "lid:%u", a->lid);
		return;
	}
	off = (size_t)snprintf(buf, len, "dr:0");
	for (i = 1; i <= a->hops && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, ",%u", a->path[i]);
}

size_t ibs_capture_trimmed(const uint8_t *b, size_t len)
{
	uint64_t w;

	/* A word at a time: most of a short MAD is its zero tail. */
	while (len >= 8) {
		memcpy(&w, b + len - 8, 8);
		if (w)
			break;
		len -= 8;
	}
	while (len && !b[len - 1])
		len--;
	return len;
}

static void put_hex(FILE *f, const uint8_t *b, size_t len)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		fputc(hx[b[i] >> 4], f);
		fputc(hx[b[i] & 15], f);
	}
}

static void write_local(FILE *f, const struct ibs_local_port *lp)
{
	fprintf(f,
		"local ca=%s port=%d node_guid=0x%016" PRIx64 " port_guid=0x%016" PRIx64
		" system_image_guid=0x%016" PRIx64 " lid=%u sm_lid=%u lmc=%u state=%u node_type=%d sm_sl=%u\n",
		lp->ca[0] ? lp->ca : "-", lp->port, lp->node_guid, lp->port_guid, lp->system_image_guid, lp->lid,
		lp->sm_lid, lp->lmc, lp->state, lp->node_type, lp->sm_sl);
}

static void write_header(FILE *f, int version, const char *tool, const struct ibs_local_port *lp,
			 const struct ibs_capture_engine *eng)
{
	fprintf(f, "%s %d\n", IBS_CAPTURE_MAGIC, version);
	fprintf(f, "# format: docs/capture-format.md\n");
	if (tool)
		fprintf(f, "tool %s\n", tool);
	write_local(f, lp);
	if (eng && eng->present)
		fprintf(f, "engine window=%u timeout=%u retries=%u\n", eng->window, eng->timeout_ms, eng->retries);
}

void ibs_capture_write_header(FILE *f, const char *tool, const struct ibs_local_port *lp,
			      const struct ibs_capture_engine *eng)
{
	write_header(f, IBS_CAPTURE_VERSION, tool, lp, eng);
}

void ibs_capture_write_end(FILE *f)
{
	fputs("end\n", f);
}

void ibs_capture_write_exchange(FILE *f, const struct ibs_mad_req *req, const uint8_t *mad, const uint64_t *t_ns,
				enum ibs_cap_outcome oc, const struct ibs_packet *pkt)
{
	char as[IBS_CAPTURE_ADDR_MAX];
	uint8_t b[IBS_MAD_SIZE];

	ibs_capture_addr_fmt(&req->addr, as, sizeof(as));
	fprintf(f, "x %s %s %s mod=%" PRIu32 " addr=%s", ibs_class_name(req->mgmt_class), ibs_method_name(req->method),
		ibs_attr_name(req->mgmt_class, req->attr_id), req->attr_mod, as);
	if (t_ns)
		fprintf(f, " t=%" PRIu64, *t_ns);
	fputs("\n> ", f);
	memcpy(b, mad, sizeof(b));
	memset(b + IBS_MAD_TID_OFFS, 0, 8);
	put_hex(f, b, ibs_capture_trimmed(b, sizeof(b)));
	fputs("\n< ", f);
	if (oc == IBS_CAP_NONE) {
		fputs("none", f);
	} else {
		memcpy(b, pkt->mad, sizeof(b));
		memset(b + IBS_MAD_TID_OFFS, 0, 8);
		if (oc == IBS_CAP_ERROR)
			fprintf(f, "error %d ", pkt->status);
		else if (pkt->len != IBS_MAD_SIZE)
			fprintf(f, "resp len=%zu ", pkt->len);
		else
			fputs("resp ", f);
		put_hex(f, b, ibs_capture_trimmed(b, pkt->len));
	}
	fputc('\n', f);
}

char *ibs_capture_header_text(const struct ibs_capture *c, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		xalloc_die();
	write_header(f, c->version ? c->version : IBS_CAPTURE_VERSION, c->tool, &c->local, &c->engine);
	if (c->ended)
		ibs_capture_write_end(f);
	if (fclose(f) != 0)
		xalloc_die();
	return buf;
}
