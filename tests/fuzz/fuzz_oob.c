/* libFuzzer target: the link probe's out-of-band message decoder; what decodes must re-encode to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/oob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibs_oob_msg m, again;
	uint8_t buf[IBS_OOB_MAX_MSG];
	unsigned type;
	uint32_t plen;
	char *msg = NULL;
	size_t n;

	if (ibs_oob_check_header(data, size, &type, &plen, &msg) == IBS_OK && plen > IBS_OOB_MAX_PAYLOAD)
		abort();
	free(msg);
	msg = NULL;
	if (ibs_oob_decode(data, size, &m, &msg) != IBS_OK) {
		if (!msg)
			abort(); /* every refusal says why */
		free(msg);
		return 0;
	}
	n = ibs_oob_encode(&m, buf);
	if (n > sizeof(buf) || ibs_oob_decode(buf, n, &again, &msg) != IBS_OK)
		abort();
	if (again.type != m.type || memcmp(&again.hello, &m.hello, sizeof(m.hello)) || strcmp(again.text, m.text))
		abort();
	/* Hellos and empty messages have one encoding; error texts are sanitized, so compare those decoded. */
	if (m.type != IBS_OOB_ERROR && (n != size || memcmp(buf, data, n)))
		abort();
	return 0;
}
