/* The probe's out-of-band hello the codec and socket tests send (oob_hello.h). */
#include "oob_hello.h"

#include <string.h>

#include "../../../core/probe/ping.h"
#include "../../../core/probe/verbs.h"

void oob_hello(struct ibs_oob_msg *m, enum ibs_oob_type type)
{
	struct ibs_oob_hello *h = &m->hello;

	memset(m, 0, sizeof(*m));
	m->type = type;
	h->op = IBS_OP_WRITE;
	h->bw = true;
	h->link_layer = IBS_LL_ETH;
	h->mtu = 5;
	h->iters = 1000;
	h->size = 4096;
	h->timeout_ms = 5000;
	h->lid = 0x1234;
	h->gid_index = 3;
	h->qpn = 0xabcdef;
	h->psn = 0x123456;
	h->rd_atomic = 16;
	h->gid_type = IBS_GID_ROCE_V2;
	h->gid[10] = h->gid[11] = 0xff;
	h->gid[12] = 192;
	h->gid[15] = 7;
	h->addr = 0x00007f0012345000ull;
	h->rkey = 0xdeadbeef;
	h->len = 4096;
	h->sl = 5;
	h->sl_set = true;
	h->tclass = 106;
	h->tclass_set = true;
}

size_t oob_encode_hello(uint8_t *buf)
{
	struct ibs_oob_msg m;

	oob_hello(&m, IBS_OOB_HELLO);
	return ibs_oob_encode(&m, buf);
}
