/* libFuzzer target: the capture parser (its strings come out clean), and the replay index built on it. */
#include <stdint.h>
#include <stdlib.h>

#include "../../core/capture/index.h"
#include "../../core/capture/format.h"
#include "../../core/capture/stats.h"
#include "../../core/base/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_capture *c = NULL;
	char *msg = NULL;

	if (ibs_capture_parse("fuzz", (const char *)data, size, &c, &msg) == IBS_OK) {
		struct ibs_capture_stats st;
		/* Header strings are cleaned where they enter. */
		if ((c->tool && !ibs_text_is_clean(c->tool)) || !ibs_text_is_clean(c->local.ca))
			abort();
		ibs_capture_stats(c, &st);
		ibs_capture_stats_free(&st);
		/* The builder checks what it built: any capture that parses must index. */
		struct ibs_capidx *ix = NULL;
		char *imsg = NULL;
		if (ibs_capidx_build(c, NULL, &ix, &imsg) != IBS_OK)
			abort();
		ibs_capidx_free(ix);
		ibs_capture_free(c);
	}
	free(msg);
	return 0;
}
