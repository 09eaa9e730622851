/* Where a MAD goes: LID and directed-route addresses, and their text ("lid 5", "0,1,3"). */
#include "addr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

void ibs_addr_dr(struct ibs_addr *a, const uint8_t *ports, unsigned hops)
{
	memset(a, 0, sizeof(*a));
	if (hops > IBS_DR_MAX_HOPS)
		hops = IBS_DR_MAX_HOPS;
	a->hops = (uint8_t)hops;
	if (hops)
		memcpy(a->path + 1, ports, hops);
}

void ibs_addr_lid(struct ibs_addr *a, uint16_t lid, uint32_t qp)
{
	memset(a, 0, sizeof(*a));
	a->lid = lid;
	a->qp = qp;
	if (qp)
		a->qkey = IB_DEFAULT_QP1_QKEY;
}

bool ibs_addr_dr_extend(struct ibs_addr *out, const struct ibs_addr *in, uint8_t port)
{
	if (in->lid || in->hops >= IBS_DR_MAX_HOPS)
		return false;
	if (out != in)
		*out = *in;
	out->hops++;
	out->path[out->hops] = port;
	return true;
}

char *ibs_addr_str(const struct ibs_addr *a, char *buf, size_t len)
{
	size_t off = 0;
	unsigned i;

	if (!len)
		return buf;
	if (a->lid) {
		snprintf(buf, len, "lid %u", a->lid);
		return buf;
	}
	/* Every node's path is printed: by hand, not by snprintf per hop. */
	buf[off++] = '0';
	for (i = 1; i <= a->hops && off + 5 <= len; i++) {
		unsigned v = a->path[i];
		buf[off++] = ',';
		if (v >= 100)
			buf[off++] = (char)('0' + v / 100);
		if (v >= 10)
			buf[off++] = (char)('0' + v / 10 % 10);
		buf[off++] = (char)('0' + v % 10);
	}
	buf[off < len ? off : len - 1] = '\0';
	return buf;
}

enum ibs_err ibs_addr_parse(struct ibs_addr *a, const char *s)
{
	char *end;
	unsigned long v;

	memset(a, 0, sizeof(*a));
	if (!strncmp(s, "lid ", 4)) {
		errno = 0;
		v = strtoul(s + 4, &end, 10);
		if (errno || end == s + 4 || *end || v == 0 || v > 0xffff)
			return IBS_E_INPUT;
		a->lid = (uint16_t)v;
		return IBS_OK;
	}
	if (s[0] != '0' || (s[1] != '\0' && s[1] != ','))
		return IBS_E_INPUT;
	s++;
	while (*s == ',') {
		s++;
		if (!isdigit((unsigned char)*s))
			return IBS_E_INPUT;
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || v > 255 || a->hops >= IBS_DR_MAX_HOPS)
			return IBS_E_INPUT;
		a->path[++a->hops] = (uint8_t)v;
		s = end;
	}
	return *s ? IBS_E_INPUT : IBS_OK;
}
