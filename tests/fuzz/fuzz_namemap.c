/* libFuzzer target: the ib-node-name-map parser (clean names, one per GUID, warnings with the file name). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/base/text.h"

#include "../../fabric/load/namemap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_namemap *m = NULL;
	char *msg = NULL;

	if (ibs_namemap_parse("fuzz", (const char *)data, size, &m, &msg) == IBS_OK) {
		const char *const *w;
		size_t i, n = ibs_namemap_warnings(m, &w);
		uint64_t g, prev = 0;
		/* Names are cleaned, warnings name the file, and no GUID is named twice. */
		for (i = 0; i < n; i++)
			if (strncmp(w[i], "fuzz:", 5))
				abort();
		for (i = 0; i < ibs_namemap_count(m); i++) {
			const char *name = ibs_namemap_entry(m, i, &g);
			if (!ibs_text_is_clean(name) || ibs_namemap_get(m, g) != name || (i && g <= prev))
				abort();
			prev = g;
		}
		ibs_namemap_get(m, 0x1);
		ibs_namemap_free(m);
	}
	free(msg);
	return 0;
}
