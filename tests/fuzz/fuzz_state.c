/* libFuzzer target: the health --state file parser, and the lookups on what it accepts. */
#include <stdint.h>
#include <stdlib.h>

#include "../../fabric/load/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_state st;
	char *msg = NULL;

	if (ibs_state_parse("fuzz", (const char *)data, size, &st, &msg) == IBS_OK) {
		size_t i;
		for (i = 0; i < st.n; i++)
			if (ibs_state_find(&st, st.v[i].guid, st.v[i].port) == NULL)
				abort(); /* every entry parsed must be found again */
		ibs_state_free(&st);
	}
	free(msg);
	return 0;
}
