/* libFuzzer target: the rails spec file reader (fabric/check/rails.c). */
#include <stdint.h>
#include <stdlib.h>

#include "../../fabric/check/rails.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_rails *r = NULL;
	char *msg = NULL;

	if (ibs_rails_parse_text("fuzz", (const char *)data, size, &r, &msg) == IBS_OK) {
		ibs_rails_has(r, "mlx5_3");
		ibs_rails_free(r);
	}
	free(msg);
	return 0;
}
