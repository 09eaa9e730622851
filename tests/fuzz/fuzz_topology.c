/* libFuzzer target: the saved-topology loaders (ibscan JSON and ibnetdiscover netfiles; descriptions come out clean) and the diff. */
#include <stdint.h>
#include <stdlib.h>

#include "../../core/base/text.h"
#include "../../fabric/check/diff.h"
#include "../../fabric/load/load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_fabric *f = NULL;
	char *msg = NULL;
	enum ibs_err rc;

	if (size && data[0] == '{')
		rc = ibs_fabric_parse_json("fuzz", (const char *)data, size, &f, &msg);
	else
		rc = ibs_fabric_parse_netfile("fuzz", (const char *)data, size, &f, &msg);
	if (rc == IBS_OK) {
		struct ibs_diff d;
		size_t i;
		/* Descriptions are cleaned where they enter. */
		for (i = 0; i < f->n_nodes; i++)
			if (f->nodes[i]->desc && !ibs_text_is_clean(f->nodes[i]->desc))
				abort();
		ibs_diff_fabrics(f, f, &d);
		ibs_diff_free(&d);
		ibs_fabric_free(f);
	}
	free(msg);
	return 0;
}
