/* libFuzzer target: the host profile of `ibscan local --check --profile`. */
#include <stdint.h>
#include <stdlib.h>

#include "../../host/hostcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_host_profile *p = NULL;
	char *msg = NULL;

	ibs_host_profile_parse("fuzz", (const char *)data, size, &p, &msg);
	ibs_host_profile_free(p);
	free(msg);
	return 0;
}
