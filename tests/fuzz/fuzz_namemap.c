/* libFuzzer target: the ib-node-name-map parser. */
#include <stdint.h>
#include <stdlib.h>

#include "../../fabric/namemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_namemap *m = NULL;
	char *msg = NULL;

	if (ibs_namemap_parse("fuzz", (const char *)data, size, &m, &msg) == IBS_OK) {
		ibs_namemap_get(m, 0x1);
		ibs_namemap_free(m);
	}
	free(msg);
	return 0;
}
