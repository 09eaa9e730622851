/*
 * libFuzzer target: the replay index reader. The checksum is recomputed over
 * each input first (ibs_capidx_seal), so that mutations reach the layout and
 * record checks instead of all stopping at the checksum; then every attempt
 * and every response byte the index points at is read, and lookups are made.
 * Then the image is changed in place after it passed its checks, as another
 * program writing into a mapped index would, and read again the way replay
 * reads it: what no longer makes sense must be refused, never read past.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/capture/index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every attempt, its response bytes and its chain; lookups of keys taken from data. */
static unsigned read_all(const struct ibs_capidx *ix, const uint8_t *data, size_t size, bool must_pass)
{
	unsigned sum = 0;
	size_t i;

	for (i = 0; i < ibs_capidx_count(ix); i++) {
		struct ibs_capidx_x x;
		char *msg = NULL;
		uint32_t k = (uint32_t)i;
		/* Chains only go forward: this ends within the count. */
		while (k != UINT32_MAX && ibs_capidx_get(ix, k, &x, &msg) == IBS_OK) {
			uint8_t r[IBS_MAD_SIZE];
			if (ibs_capidx_resp(ix, &x, r, &msg) != IBS_OK)
				break;
			for (size_t b = 0; b < x.resp_n; b++)
				sum += r[b];
			sum += x.outcome;
			k = x.next;
		}
		if (k != UINT32_MAX && must_pass)
			abort(); /* an unchanged index that passed its checks reads back whole */
		free(msg);
	}
	for (i = 0; i + 8 <= size && i < 4096; i += 8) {
		uint64_t key;
		uint32_t first;
		char *msg = NULL;
		memcpy(&key, data + i, 8);
		if (ibs_capidx_first(ix, key, &first, &msg) == IBS_OK) {
			if (first != UINT32_MAX && first >= ibs_capidx_count(ix))
				abort();
		} else if (must_pass) {
			abort();
		}
		free(msg);
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t *buf = malloc(size + 8);
	struct ibs_capidx *ix = NULL;
	char *msg = NULL;

	memcpy(buf, data, size);
	ibs_capidx_seal(buf, size);
	if (ibs_capidx_from_mem(buf, size, false, NULL, &ix, &msg) == IBS_OK) {
		unsigned sum = read_all(ix, data, size, true);
		size_t k, n = size ? data[0] % 64 : 0;
		/* Changed in place after the checks: up to 63 bytes anywhere, header included. */
		for (k = 1; k <= n && k < size; k++)
			((uint8_t *)buf)[(k * 2654435761u + data[k]) % size] ^= data[k] | 1;
		sum += read_all(ix, data, size, false);
		(void)ibs_capidx_header(ix)->local;
		if (sum == 0xdeadbeef)
			abort(); /* keeps the reads */
		ibs_capidx_free(ix);
	}
	free(msg);
	free(buf);
	return 0;
}
