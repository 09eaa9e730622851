/* libFuzzer target: the thresholds file parser. */
#include <stdint.h>
#include <stdlib.h>

#include "../../fabric/check/health.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_thresholds t;
	char *msg = NULL;

	ibs_thresholds_default(&t);
	ibs_thresholds_parse("fuzz", (const char *)data, size, &t, &msg);
	free(msg);
	return 0;
}
