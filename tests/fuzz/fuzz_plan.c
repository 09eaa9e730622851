/* libFuzzer target: the cabling plan CSV reader (fabric/check/plan.c). */
#include <stdint.h>
#include <stdlib.h>

#include "../../fabric/check/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_plan *p = NULL;
	char *msg = NULL;

	if (ibs_plan_parse("fuzz", (const char *)data, size, &p, &msg) == IBS_OK)
		ibs_plan_free(p);
	free(msg);
	return 0;
}
