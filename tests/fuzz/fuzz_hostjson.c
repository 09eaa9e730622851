/* libFuzzer target: a host view read back from `ibscan local --json` (ibscan fleet's input), then checked. */
#include <stdint.h>
#include <stdlib.h>

#include "../../host/hostcheck.h"
#include "../../host/hostjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_host *h = NULL;
	char *msg = NULL;

	if (ibs_host_parse_json("fuzz", (const char *)data, size, &h, &msg) == IBS_OK) {
		/* What fleet does with a host next: the check must hold on any document that parses. */
		struct ibs_host_profile *p = ibs_host_profile_new();
		ibs_hostcheck_free(ibs_hostcheck_run(h, p));
		ibs_host_profile_free(p);
	}
	ibs_host_free(h);
	free(msg);
	return 0;
}
