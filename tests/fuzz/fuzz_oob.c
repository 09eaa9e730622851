/*
 * libFuzzer target: the link probe's out-of-band exchange, three ways over
 * one input. (1) One message decoded whole: what decodes re-encodes to the
 * same bytes. (2) A byte stream read message by message through the
 * incremental reader (ibs_oob_rx), in pieces of every size: the same
 * messages, the same verdicts and the same bytes consumed, whatever the
 * pieces. (3) What a peer sends a listener (ibs_ping_serve_fd over a socket,
 * the fake verbs below it): its state machine ends within its deadline, its
 * result agrees with its return code, and it leaves no queue pair or memory
 * registration behind.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../unit/lib/fake_verbs.h"
#include "../../core/base/clock.h"
#include "../../core/base/log.h"
#include "../../core/probe/oob.h"
#include "../../core/probe/ping.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LISTENER_MAX_INPUT 16384      /* fits a socket buffer: written before the listener runs */
#define LISTENER_MAX_SIZE (64u << 10) /* a hello asking for more only costs time to pin */

static void whole(const uint8_t *data, size_t size)
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
		return;
	}
	n = ibs_oob_encode(&m, buf);
	if (n > sizeof(buf) || ibs_oob_decode(buf, n, &again, &msg) != IBS_OK)
		abort();
	/* A received error text is cleaned; its escapes may make it longer than one message carries. */
	if (m.type == IBS_OOB_ERROR && !ibs_text_is_clean(m.text))
		abort();
	if (again.type != m.type || memcmp(&again.hello, &m.hello, sizeof(m.hello)) ||
	    (strlen(m.text) <= IBS_OOB_MAX_TEXT && strcmp(again.text, m.text)))
		abort();
	/* Hellos and empty messages have one encoding; error texts are sanitized, so compare those decoded. */
	if (m.type != IBS_OOB_ERROR && (n != size || memcmp(buf, data, n)))
		abort();
}

/* Piece sizes: 0 as much as the reader asks for, 1 a byte at a time, else a mix of 1 to 13. */
static size_t piece(unsigned how, unsigned i, size_t need)
{
	size_t n = how == 0 ? need : how == 1 ? 1 : (size_t)((i * 7 + how) % 13 + 1);

	return n < need ? n : need;
}

/* Read one message from data in pieces; *used: bytes taken. IBS_E_AGAIN: the input ended first. */
static enum ibs_err read_one(const uint8_t *data, size_t size, unsigned how, struct ibs_oob_msg *m, size_t *used)
{
	struct ibs_oob_rx rx;
	enum ibs_err rc = IBS_E_AGAIN;
	char *msg = NULL;
	unsigned i;

	ibs_oob_rx_init(&rx);
	*used = 0;
	memset(m, 0, sizeof(*m));
	for (i = 0; *used < size && ibs_oob_rx_need(&rx) > 0; i++) {
		size_t n = piece(how, i, ibs_oob_rx_need(&rx));
		if (n > size - *used)
			n = size - *used;
		rc = ibs_oob_rx_feed(&rx, data + *used, n, m, &msg);
		*used += n;
		if (rc != IBS_E_AGAIN)
			break;
	}
	if (rc != IBS_OK && rc != IBS_E_AGAIN && !msg)
		abort(); /* every refusal says why */
	if (rc == IBS_E_AGAIN && msg)
		abort();
	if (rc != IBS_E_AGAIN && ibs_oob_rx_need(&rx) != 0)
		abort(); /* whole or refused: nothing more is asked for */
	free(msg);
	return rc;
}

static void stream(const uint8_t *data, size_t size, struct ibs_oob_msg *first)
{
	size_t off = 0;
	unsigned k = 0;

	first->type = 0;
	while (off < size) {
		struct ibs_oob_msg m[3], d;
		enum ibs_err rc[3];
		size_t used[3];
		char *msg = NULL;
		unsigned how;
		for (how = 0; how < 3; how++)
			rc[how] = read_one(data + off, size - off, how, &m[how], &used[how]);
		for (how = 1; how < 3; how++) {
			if (rc[how] != rc[0])
				abort();
			/* Refused at the first byte that shows it: pieces may only run past it within one feed. */
			if (rc[0] == IBS_OK && used[how] != used[0])
				abort();
			if (rc[0] == IBS_OK && (m[how].type != m[0].type ||
						memcmp(&m[how].hello, &m[0].hello, sizeof(m[0].hello)) ||
						strcmp(m[how].text, m[0].text)))
				abort();
		}
		if (rc[0] != IBS_OK)
			return;
		/* The reader took exactly one message: the whole-message decoder agrees. */
		if (used[0] < IBS_OOB_HDR_LEN || ibs_oob_decode(data + off, used[0], &d, &msg) != IBS_OK ||
		    d.type != m[0].type || memcmp(&d.hello, &m[0].hello, sizeof(d.hello)) || strcmp(d.text, m[0].text))
			abort();
		if (k++ == 0)
			*first = m[0];
		off += used[0];
	}
}

/* The listener's side of a session with a peer that sends data and then stops sending. */
static void listener(const uint8_t *data, size_t size)
{
	static const unsigned session_ms = 200;
	struct ibs_ping_opts o;
	struct ibs_ping_result res;
	struct ibs_ping *p = NULL;
	enum ibs_err rc;
	bool accepted = false;
	uint64_t t0;
	unsigned i;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		abort();
	if (size && write(sv[0], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[0], SHUT_WR);
	fv_reset();
	memset(&o, 0, sizeof(o));
	o.gid_index = -1;
	o.timeout_ms = 5;
	o.session_ms = session_ms;
	if (ibs_ping_open(&fake_verbs, &o, &p) != IBS_OK)
		abort();
	t0 = ibs_mono_ns();
	rc = ibs_ping_serve_fd(p, sv[1], "fuzz", &res, &accepted);
	/* The session's deadline, plus the one second a listener gives itself to tell the peer why. */
	if ((ibs_mono_ns() - t0) / 1000000 > session_ms + 1000 + 2000)
		abort();
	if (rc == IBS_OK && (!accepted || !res.server))
		abort();
	if (rc != IBS_OK && !ibs_ping_error(p))
		abort(); /* a failure says why */
	ibs_ping_result_free(&res);
	ibs_ping_close(p);
	for (i = 0; i < FV_MAX_QPS; i++)
		if (fv.qps[i])
			abort();
	for (i = 0; i < FV_MAX_MRS; i++)
		if (fv.mrs[i])
			abort();
	if (fv.overrun)
		abort();
	close(sv[0]);
	close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool quiet;
	struct ibs_oob_msg first;

	if (!quiet) {
		log_set_level(LOG_QUIET);
		quiet = true;
	}
	whole(data, size);
	stream(data, size, &first);
	if (size <= LISTENER_MAX_INPUT &&
	    !(first.type == IBS_OOB_HELLO && first.hello.size > LISTENER_MAX_SIZE))
		listener(data, size);
	return 0;
}
