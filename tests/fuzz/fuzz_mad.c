/*
 * libFuzzer target: every MAD attribute decoder on arbitrary bytes of any
 * length (the first byte picks the length, so short responses are covered).
 */
#include <stdint.h>
#include <string.h>

#include "../../core/mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[IBS_MAD_SIZE + 1];
	struct ibs_mad_hdr h;
	struct ibs_nodeinfo ni;
	struct ibs_portinfo pi;
	struct ibs_switchinfo si;
	struct ibs_sminfo sm;
	uint64_t g[IBS_GUIDINFO_PER_BLOCK];
	char desc[IBS_NODE_DESC_LEN + 1];
	struct ibs_addr a;
	char s[300];
	size_t len;

	if (size < 1)
		return 0;
	len = data[0];
	len = len > size - 1 ? size - 1 : len;
	if (size - 1 > IBS_MAD_SIZE)
		len = IBS_MAD_SIZE;
	memset(mad, 0, sizeof(mad));
	memcpy(mad, data + 1, len);
	/* Decoders must never read past len: hand them exactly len bytes of a heap-like copy. */
	ibs_mad_decode_hdr(mad, len, &h);
	ibs_mad_status(&h);
	ibs_decode_nodeinfo(mad, len, &ni);
	ibs_decode_portinfo(mad, len, &pi);
	ibs_decode_switchinfo(mad, len, &si);
	ibs_decode_sminfo(mad, len, &sm);
	ibs_decode_guidinfo(mad, len, g);
	ibs_decode_nodedesc(mad, len, desc);
	{
		struct ibs_pma_counters pc;
		uint16_t cm;
		ibs_decode_pma_capmask(mad, len, &cm);
		ibs_decode_port_counters(mad, len, &pc);
		ibs_decode_port_counters_ext(mad, len, &pc);
	}
	/* Address strings as found in captures. */
	if (size > 1 && size < sizeof(s)) {
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		if (ibs_addr_parse(&a, s) == IBS_OK)
			ibs_addr_str(&a, s, sizeof(s));
	}
	return 0;
}
