/*
 * The capture format: ibscan's own line-oriented record of every MAD
 * exchange (docs/capture-format.md), written line by line for the recorder
 * and parsed into a compact in-memory capture for the index, replay,
 * statistics and pcap export. A capture owns its exchanges; read them in
 * order with ibs_capture_next().
 */
#ifndef IBSCAN_CAPTURE_FORMAT_H
#define IBSCAN_CAPTURE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../mad/transport.h"

#define IBS_CAPTURE_MAGIC "ibscan-capture"
#define IBS_CAPTURE_VERSION 2     /* what the recorder writes: a capture that ends with an `end` record */
#define IBS_CAPTURE_MIN_VERSION 1 /* the oldest read: no `end` record, so whether it is whole cannot be told */
#define IBS_CAPTURE_MAX_BYTES ((size_t)1 << 30)
#define IBS_CAPTURE_MAX_LINE 2048
/* A tool name, cleaned, is cut to fewer bytes than this: its line, written again, stays well within a line. */
#define IBS_CAPTURE_TOOL_MAX 256
/* An address as a capture writes it ("lid:N", "dr:0,P1,...,P63"), with its NUL, fits in this. */
#define IBS_CAPTURE_ADDR_MAX 300

enum ibs_cap_outcome {
	IBS_CAP_RESP,  /* a response was delivered (umad status 0) */
	IBS_CAP_ERROR, /* the transport gave the request back with a non-zero status */
	IBS_CAP_NONE,  /* nothing came back before the engine gave up */
};

struct ibs_cap_exchange {
	unsigned line;            /* where the record starts */
	struct ibs_addr addr;
	uint8_t req[IBS_MAD_SIZE];
	size_t req_len;
	enum ibs_cap_outcome outcome;
	int status;               /* umad status for IBS_CAP_ERROR */
	uint8_t resp[IBS_MAD_SIZE];
	size_t resp_len;
	uint64_t time_ns;         /* with --record-times, else 0 */
};

/* Engine settings of the recorded run; replay uses them unless told otherwise. */
struct ibs_capture_engine {
	bool present;
	unsigned window, timeout_ms, retries;
};

struct ibs_capture {
	int version;              /* of the format, from its first line */
	bool ended;               /* its `end` record was read: the recording finished (version 2) */
	char *tool;               /* "ibscan 0.1.0" */
	struct ibs_capture_engine engine;
	struct ibs_local_port local;
	size_t n;                 /* exchanges */
	/*
	 * The exchanges, packed without their trailing zero bytes (a capture
	 * held this way costs about what its text does): read them in order
	 * with ibs_capture_next().
	 */
	uint8_t *packed;
	size_t packed_len, packed_cap;
};

/* Parse a capture; on error *msg says "file:line: reason". */
enum ibs_err ibs_capture_parse(const char *name, const char *buf, size_t len, struct ibs_capture **out,
			       char **msg);
enum ibs_err ibs_capture_load(const char *path, struct ibs_capture **out, char **msg);
/* Given each exchange as it is read; an error ends the parse with it (the sink sets *msg). */
typedef enum ibs_err (*ibs_cap_sink)(void *ctx, const struct ibs_cap_exchange *x, char **msg);
/*
 * ibs_capture_load, but each exchange goes to sink, not into the capture:
 * *out holds the header, n counts the exchanges, none is kept.
 */
enum ibs_err ibs_capture_scan(const char *path, ibs_cap_sink sink, void *ctx, struct ibs_capture **out, char **msg);
void ibs_capture_free(struct ibs_capture *c);
/* len, less the zero bytes at the end of b: what a capture stores of a MAD. */
size_t ibs_capture_trimmed(const uint8_t *b, size_t len);
/* The exchange at *pos (start with 0) into *x, moving *pos on; false after the last. */
bool ibs_capture_next(const struct ibs_capture *c, size_t *pos, struct ibs_cap_exchange *x);
/* a as a capture writes it: "lid:N", or "dr:0" and the ports of the path. */
void ibs_capture_addr_fmt(const struct ibs_addr *a, char *buf, size_t len);
/* Write the header lines (magic, tool if not NULL, local, engine if present). */
void ibs_capture_write_header(FILE *f, const char *tool, const struct ibs_local_port *lp,
			      const struct ibs_capture_engine *eng);
/*
 * Write one exchange: the request req (encoded as mad) sent to its address,
 * t_ns after the start (NULL: not recorded), and its outcome; pkt is what
 * came back (unused for IBS_CAP_NONE). TIDs are written as zero.
 */
void ibs_capture_write_exchange(FILE *f, const struct ibs_mad_req *req, const uint8_t *mad, const uint64_t *t_ns,
				enum ibs_cap_outcome oc, const struct ibs_packet *pkt);
/* The last record of a whole capture: the recorder finished (docs/capture-format.md). */
void ibs_capture_write_end(FILE *f);
/*
 * The header lines of c (magic with c's version, tool, local, engine) as a
 * capture with no exchanges, and its end record if c has one: an index's
 * copy says what c says about being whole.
 */
char *ibs_capture_header_text(const struct ibs_capture *c, size_t *len);
/* Whether c is a capture whose recording was cut short: of a version that ends with a record, and without it. */
bool ibs_capture_cut_short(const struct ibs_capture *c);

#endif
