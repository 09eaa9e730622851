/*
 * libFuzzer target: the replay index reader. The checksum is recomputed over
 * each input first (ibs_capidx_seal), so that mutations reach the layout and
 * record checks instead of all stopping at the checksum; then every attempt
 * and every response byte the index points at is read, and lookups are made.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/capidx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t *buf = malloc(size + 8);
	struct ibs_capidx *ix = NULL;
	char *msg = NULL;
	size_t i;

	memcpy(buf, data, size);
	ibs_capidx_seal(buf, size);
	if (ibs_capidx_from_mem(buf, size, false, NULL, &ix, &msg) == IBS_OK) {
		unsigned sum = 0;
		for (i = 0; i < ibs_capidx_count(ix); i++) {
			const struct ibs_capidx_x *x = ibs_capidx_get(ix, (uint32_t)i);
			const uint8_t *r = ibs_capidx_resp(ix, x);
			for (size_t k = 0; k < x->resp_n; k++)
				sum += r[k];
			if (x->next != UINT32_MAX)
				sum += ibs_capidx_get(ix, x->next)->outcome;
		}
		for (i = 0; i + 8 <= size && i < 4096; i += 8) {
			uint64_t key;
			memcpy(&key, data + i, 8);
			uint32_t first = ibs_capidx_first(ix, key);
			if (first != UINT32_MAX)
				sum += ibs_capidx_get(ix, first)->outcome;
		}
		(void)ibs_capidx_header(ix)->local;
		if (sum == 0xdeadbeef)
			abort(); /* keeps the reads */
		ibs_capidx_free(ix);
	}
	free(msg);
	free(buf);
	return 0;
}
