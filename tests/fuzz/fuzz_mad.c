/*
 * libFuzzer target: every MAD attribute decoder on arbitrary bytes of any
 * length (the first byte picks the length, so short responses are covered).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mad/mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Each decoder gets its own heap copy of exactly len bytes, so that
 * AddressSanitizer sees a read past len (a stack buffer of 257 zeros would
 * hide it), and a decoder that wrote into its input could not affect the next.
 */
static uint8_t *exact(const uint8_t *p, size_t len)
{
	uint8_t *c = malloc(len ? len : 1);

	if (!c)
		abort();
	memcpy(c, p, len);
	return c;
}

#define DECODE(call)                                   \
	do {                                           \
		uint8_t *mad = exact(data + 1, len);   \
		call;                                  \
		free(mad);                             \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_mad_hdr h;
	struct ibs_nodeinfo ni;
	struct ibs_portinfo pi;
	struct ibs_switchinfo si;
	struct ibs_sminfo sm;
	struct ibs_pma_counters pc;
	uint16_t cm;
	uint32_t cm2;
	struct ibs_path_record pr;
	uint64_t g[IBS_GUIDINFO_PER_BLOCK];
	uint8_t lft[64];
	char desc[IBS_NODE_DESC_TEXT + 1];
	struct ibs_addr a;
	char s[300];
	size_t len;

	if (size < 1)
		return 0;
	/* The first byte picks the length (a short response); longer inputs are whole MADs. */
	len = data[0];
	len = len > size - 1 ? size - 1 : len;
	if (size - 1 > IBS_MAD_SIZE)
		len = IBS_MAD_SIZE;
	DECODE(if (ibs_mad_decode_hdr(mad, len, &h) == IBS_OK) ibs_mad_status(&h));
	DECODE(ibs_decode_nodeinfo(mad, len, &ni));
	DECODE(ibs_decode_portinfo(mad, len, &pi));
	DECODE(ibs_decode_mlnx_ext_portinfo(mad, len, &pi));
	DECODE(ibs_decode_switchinfo(mad, len, &si));
	DECODE(ibs_decode_sminfo(mad, len, &sm));
	DECODE(ibs_decode_guidinfo(mad, len, g));
	DECODE(ibs_decode_lft_block(mad, len, lft));
	/* A NodeDescription comes out cleaned (core/base/text.h). */
	DECODE(if (ibs_decode_nodedesc(mad, len, desc) == IBS_OK && !ibs_text_is_clean(desc)) abort());
	DECODE(ibs_decode_pma_capmask(mad, len, &cm, &cm2));
	/* A redirect names a unicast LID and a QP other than 0, or nothing. */
	DECODE(if (ibs_decode_redirect(mad, len, &a) == IBS_OK && (!a.lid || a.lid >= 0xc000 || !a.qp)) abort());
	DECODE(ibs_decode_port_counters(mad, len, &pc));
	DECODE(ibs_decode_port_counters_ext(mad, len, &pc));
	DECODE(ibs_decode_port_counters_ext_errors(mad, len, &pc));
	DECODE(ibs_decode_path_record(mad, len, &pr));
	/* Address strings as found in captures. */
	if (size > 1 && size < sizeof(s)) {
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		if (ibs_addr_parse(&a, s) == IBS_OK)
			ibs_addr_str(&a, s, sizeof(s));
	}
	return 0;
}
