/* The link probe's out-of-band messages: their codec, and the reader that takes one in pieces as TCP delivers it. */
#include "oob.h"
#include "ping.h"
#include "../base/text.h"
#include "../base/xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {
	[IBS_OOB_HELLO] = "hello",
	[IBS_OOB_HELLO_REPLY] = "hello reply",
	[IBS_OOB_KEEPALIVE] = "keepalive",
	[IBS_OOB_DONE] = "done",
	[IBS_OOB_ERROR] = "error",
};

const char *ibs_oob_type_name(unsigned type)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	return "unknown";
}

/* ---- codec ---- */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

size_t ibs_oob_encode(const struct ibs_oob_msg *m, uint8_t *buf)
{
	uint8_t *p = buf + IBS_OOB_HDR_LEN;
	const struct ibs_oob_hello *h = &m->hello;
	size_t plen = 0;

	switch (m->type) {
	case IBS_OOB_HELLO:
	case IBS_OOB_HELLO_REPLY:
		memset(p, 0, IBS_OOB_HELLO_LEN);
		p[0] = h->op;
		p[1] = (uint8_t)((h->bw ? 1 : 0) | (h->sl_set ? 2 : 0) | (h->tclass_set ? 4 : 0));
		p[2] = h->link_layer;
		p[3] = h->mtu;
		put32(p + 4, h->iters);
		put32(p + 8, h->size);
		put32(p + 12, h->timeout_ms);
		put16(p + 16, h->lid);
		put16(p + 18, h->gid_index);
		put32(p + 20, h->qpn);
		put32(p + 24, h->psn);
		p[28] = h->rd_atomic;
		p[29] = h->gid_type;
		p[30] = h->sl;
		p[31] = h->tclass;
		memcpy(p + 32, h->gid, 16);
		put64(p + 48, h->addr);
		put32(p + 56, h->rkey);
		put32(p + 60, h->len);
		plen = IBS_OOB_HELLO_LEN;
		break;
	case IBS_OOB_ERROR:
		plen = strnlen(m->text, IBS_OOB_MAX_TEXT);
		if (plen == 0) {
			p[0] = '?';
			plen = 1;
		} else {
			memcpy(p, m->text, plen);
		}
		break;
	case IBS_OOB_KEEPALIVE:
	case IBS_OOB_DONE:
	default:
		break;
	}
	put32(buf, IBS_OOB_MAGIC);
	put16(buf + 4, (uint16_t)(m->version ? m->version : IBS_OOB_VERSION));
	put16(buf + 6, (uint16_t)m->type);
	put32(buf + 8, (uint32_t)plen);
	return IBS_OOB_HDR_LEN + plen;
}

static enum ibs_err bad(char **msg, char *m)
{
	*msg = m;
	return IBS_E_MALFORMED;
}

/* Does what arrived so far start like a message? (A stranger is named as such, not as a timeout.) */
static bool magic_prefix_ok(const uint8_t *b, size_t n)
{
	uint8_t m[4];

	put32(m, IBS_OOB_MAGIC);
	return memcmp(b, m, n < 4 ? n : 4) == 0;
}

static char *bad_magic_msg(const uint8_t *b, size_t n)
{
	char hex[16] = "";
	size_t i, k = n < 4 ? n : 4;

	for (i = 0; i < k; i++)
		snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", b[i]);
	return xasprintf("not an ibscan probe: the peer's first bytes are 0x%s, not \"IBSP\" "
			 "(is another program using that TCP port?)",
			 hex);
}

enum ibs_err ibs_oob_check_header(const uint8_t *hdr, size_t len, unsigned *type, uint32_t *plen, char **msg)
{
	unsigned version;
	uint32_t n;

	if (len < IBS_OOB_HDR_LEN)
		return bad(msg, xasprintf("truncated message: %zu bytes, a header has %d", len, IBS_OOB_HDR_LEN));
	if (!magic_prefix_ok(hdr, 4))
		return bad(msg, bad_magic_msg(hdr, 4));
	version = get16(hdr + 4);
	if (version != IBS_OOB_VERSION)
		return bad(msg, xasprintf("the peer speaks probe protocol version %u, this ibscan speaks version %d "
					  "(run the same ibscan version on both hosts)",
					  version, IBS_OOB_VERSION));
	*type = get16(hdr + 6);
	n = get32(hdr + 8);
	if (n > IBS_OOB_MAX_PAYLOAD)
		return bad(msg, xasprintf("oversized message: the peer announces %" PRIu32 " bytes (at most %d)", n,
					  IBS_OOB_MAX_PAYLOAD));
	switch (*type) {
	case IBS_OOB_HELLO:
	case IBS_OOB_HELLO_REPLY:
		if (n != IBS_OOB_HELLO_LEN)
			goto badlen;
		break;
	case IBS_OOB_KEEPALIVE:
	case IBS_OOB_DONE:
		if (n != 0)
			goto badlen;
		break;
	case IBS_OOB_ERROR:
		if (n < 1 || n > IBS_OOB_MAX_TEXT)
			goto badlen;
		break;
	default:
		return bad(msg, xasprintf("unknown message type %u", *type));
	}
	*plen = n;
	return IBS_OK;
badlen:
	return bad(msg, xasprintf("malformed %s message: %" PRIu32 " bytes of payload", ibs_oob_type_name(*type), n));
}

static enum ibs_err decode_hello(const uint8_t *p, struct ibs_oob_hello *h, char **msg)
{
	const char *what = NULL;
	uint64_t v = 0;

	h->op = p[0];
	h->bw = p[1] & 1;
	h->sl_set = p[1] & 2;
	h->tclass_set = p[1] & 4;
	h->link_layer = p[2];
	h->mtu = p[3];
	h->iters = get32(p + 4);
	h->size = get32(p + 8);
	h->timeout_ms = get32(p + 12);
	h->lid = get16(p + 16);
	h->gid_index = get16(p + 18);
	h->qpn = get32(p + 20);
	h->psn = get32(p + 24);
	h->rd_atomic = p[28];
	h->gid_type = p[29];
	h->sl = p[30];
	h->tclass = p[31];
	memcpy(h->gid, p + 32, 16);
	h->addr = get64(p + 48);
	h->rkey = get32(p + 56);
	h->len = get32(p + 60);
	if (h->op >= IBS_OP__COUNT)
		what = "operation", v = h->op;
	else if (p[1] & ~7u)
		what = "flags", v = p[1];
	else if (h->link_layer < 1 || h->link_layer > 2)
		what = "link layer", v = h->link_layer;
	else if (h->mtu < 1 || h->mtu > 5)
		what = "path MTU", v = h->mtu;
	else if (h->iters < 1 || h->iters > IBS_PING_MAX_ITERS)
		what = "iterations", v = h->iters;
	else if (h->size < 1 || h->size > IBS_PING_MAX_SIZE)
		what = "size", v = h->size;
	else if (h->timeout_ms < 1 || h->timeout_ms > IBS_PING_MAX_TIMEOUT_MS)
		what = "timeout", v = h->timeout_ms;
	else if (h->qpn < 2 || h->qpn > 0xffffff)
		what = "QPN", v = h->qpn; /* 0 and 1 are the management QPs */
	else if (h->psn > 0xffffff)
		what = "PSN", v = h->psn;
	else if (h->gid_type > 2)
		what = "GID type", v = h->gid_type;
	else if (h->sl > 15)
		what = "service level", v = h->sl;
	else if (h->len < 8 || h->len < h->size)
		what = "buffer length", v = h->len;
	if (what)
		return bad(msg, xasprintf("malformed hello: %s %" PRIu64 " out of range", what, v));
	return IBS_OK;
}

enum ibs_err ibs_oob_decode(const uint8_t *buf, size_t len, struct ibs_oob_msg *m, char **msg)
{
	const uint8_t *p = buf + IBS_OOB_HDR_LEN;
	enum ibs_err rc;
	unsigned type;
	uint32_t plen;

	memset(m, 0, sizeof(*m));
	if (len >= IBS_OOB_HDR_LEN && magic_prefix_ok(buf, 4))
		m->version = get16(buf + 4);
	rc = ibs_oob_check_header(buf, len, &type, &plen, msg);
	if (rc)
		return rc;
	if (len < IBS_OOB_HDR_LEN + (size_t)plen)
		return bad(msg, xasprintf("truncated %s message: %zu of %zu bytes", ibs_oob_type_name(type), len,
					  IBS_OOB_HDR_LEN + (size_t)plen));
	if (len > IBS_OOB_HDR_LEN + (size_t)plen)
		return bad(msg, xasprintf("%zu stray bytes after a %s message", len - IBS_OOB_HDR_LEN - plen,
					  ibs_oob_type_name(type)));
	m->type = (enum ibs_oob_type)type;
	switch (type) {
	case IBS_OOB_HELLO:
	case IBS_OOB_HELLO_REPLY:
		return decode_hello(p, &m->hello, msg);
	case IBS_OOB_ERROR:
		/* Shown to the operator: cleaned like every string ibscan takes in. */
		ibs_text_clean_buf(m->text, sizeof(m->text), (const char *)p, plen);
		return IBS_OK;
	default:
		return IBS_OK;
	}
}

void ibs_oob_rx_init(struct ibs_oob_rx *rx)
{
	rx->got = 0;
	rx->want = IBS_OOB_HDR_LEN;
}

size_t ibs_oob_rx_need(const struct ibs_oob_rx *rx)
{
	return rx->want - rx->got;
}

enum ibs_err ibs_oob_rx_feed(struct ibs_oob_rx *rx, const uint8_t *p, size_t n, struct ibs_oob_msg *m, char **msg)
{
	unsigned type;
	uint32_t plen;
	enum ibs_err rc;

	if (n > rx->want - rx->got) {
		*msg = xasprintf("%zu bytes fed where the message needs %zu", n, rx->want - rx->got);
		rx->want = rx->got; /* spent */
		return IBS_E_INVAL;
	}
	memcpy(rx->buf + rx->got, p, n);
	rx->got += n;
	/* A stranger is named as one from its first bytes, even if it then goes quiet or hangs up. */
	if (!magic_prefix_ok(rx->buf, rx->got)) {
		rx->want = rx->got;
		return bad(msg, bad_magic_msg(rx->buf, rx->got));
	}
	if (rx->got < rx->want)
		return IBS_E_AGAIN;
	if (rx->want == IBS_OOB_HDR_LEN) {
		/* The header is checked before reading on: an oversized length is refused, not waited for. */
		rc = ibs_oob_check_header(rx->buf, rx->got, &type, &plen, msg);
		if (rc) {
			m->version = get16(rx->buf + 4); /* the magic is ours: so is the version's place */
			rx->want = rx->got;
			return rc;
		}
		rx->want = IBS_OOB_HDR_LEN + plen;
		if (plen)
			return IBS_E_AGAIN;
	}
	return ibs_oob_decode(rx->buf, rx->got, m, msg);
}
