/*
 * Export a capture as pcap with LINKTYPE_ERF (197) records of ERF type 21
 * (InfiniBand), which Wireshark and tshark decode (as they do ibdump's).
 * Each MAD is wrapped in the headers it had on the wire: LRH (IBA 7.7),
 * BTH (9.2, UD SEND only), DETH (9.3), the 256-byte MAD, ICRC and VCRC
 * (zero: Wireshark does not check them).
 */
#include "pcap.h"

#include <string.h>

#define LINKTYPE_ERF 197
#define ERF_TYPE_INFINIBAND 21
#define IB_PKT_LEN (8 + 12 + 8 + IBS_MAD_SIZE + 4) /* LRH..ICRC */
#define IB_CAP_LEN (IB_PKT_LEN + 2)                /* + VCRC */
#define ERF_HDR_LEN 16

static void be16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One packet: from src to dst, carrying mad. */
static int write_packet(FILE *out, uint64_t t_ns, const uint8_t *mad, size_t mad_len, bool smp, uint16_t dlid,
			uint16_t slid)
{
	uint8_t rec[16 + ERF_HDR_LEN + IB_CAP_LEN];
	uint8_t *erf = rec + 16, *ib = erf + ERF_HDR_LEN;
	uint64_t secs = t_ns / 1000000000ull, frac_ns = t_ns % 1000000000ull;
	uint64_t erf_ts = (secs << 32) | ((frac_ns << 32) / 1000000000ull);
	unsigned qp = smp ? 0 : 1;
	int i;

	memset(rec, 0, sizeof(rec));
	/* pcap record header (little-endian, as the file header says). */
	le32(rec, (uint32_t)secs);
	le32(rec + 4, (uint32_t)(frac_ns / 1000));
	le32(rec + 8, ERF_HDR_LEN + IB_CAP_LEN);
	le32(rec + 12, ERF_HDR_LEN + IB_CAP_LEN);
	/* ERF header: little-endian timestamp, then type, flags, rlen, lctr, wlen (big-endian). */
	for (i = 0; i < 8; i++)
		erf[i] = (uint8_t)(erf_ts >> (8 * i));
	erf[8] = ERF_TYPE_INFINIBAND;
	erf[9] = 0x04; /* varying record length */
	be16(erf + 10, ERF_HDR_LEN + IB_CAP_LEN);
	be16(erf + 12, 0);
	be16(erf + 14, IB_CAP_LEN);
	/* LRH: VL15 for SMPs (IBA 14.2.1), LNH = 2 (IBA local: BTH next). */
	ib[0] = (uint8_t)((smp ? 15 : 0) << 4);
	ib[1] = 0x02;
	be16(ib + 2, dlid);
	be16(ib + 4, IB_PKT_LEN / 4);
	be16(ib + 6, slid);
	/* BTH: UD SEND only, default P_Key, DestQP 0 (SMI) or 1 (GSI). */
	ib[8] = 0x64;
	ib[9] = 0;
	be16(ib + 10, 0xffff);
	be32(ib + 12, qp);
	be32(ib + 16, 0);
	/* DETH: Q_Key 0 for QP0, 0x80010000 for QP1; source QP the same. */
	be32(ib + 20, smp ? 0 : 0x80010000u);
	be32(ib + 24, qp);
	memcpy(ib + 28, mad, mad_len > IBS_MAD_SIZE ? IBS_MAD_SIZE : mad_len);
	return fwrite(rec, sizeof(rec), 1, out) == 1 ? 0 : -1;
}

int render_pcap(FILE *out, const struct ibs_capture *c)
{
	uint8_t gh[24];
	struct ibs_cap_exchange one, *x = &one;
	size_t i, pos = 0;

	memset(gh, 0, sizeof(gh));
	le32(gh, 0xa1b2c3d4u);
	gh[4] = 2; /* version 2.4 */
	gh[6] = 4;
	le32(gh + 16, 65535);
	le32(gh + 20, LINKTYPE_ERF);
	if (fwrite(gh, sizeof(gh), 1, out) != 1)
		return -1;
	for (i = 0; ibs_capture_next(c, &pos, x); i++) {
		bool smp = x->addr.lid == 0 || (x->req_len > 1 && x->req[1] == IBS_CLASS_SMI);
		/* Without --record-times, one microsecond per packet keeps the order visible. */
		uint64_t t = x->time_ns ? x->time_ns : (uint64_t)i * 2000;
		uint16_t dlid = x->addr.lid ? x->addr.lid : 0xffff;
		uint16_t slid = x->addr.lid ? (c->local.lid ? c->local.lid : 0xffff) : 0xffff;

		if (write_packet(out, t, x->req, x->req_len, smp, dlid, slid))
			return -1;
		if (x->outcome == IBS_CAP_RESP &&
		    write_packet(out, t + 1000, x->resp, x->resp_len, smp, slid, dlid))
			return -1;
	}
	return ferror(out) ? -1 : 0;
}
