/*
 * What the capture tests share (test_recorder, test_replay,
 * test_format_parse, test_index_read): how they walk, a recorded walk of
 * the bundled fake fabric, an index written beside a capture, and the
 * pieces of capture text they write by hand.
 */
#ifndef IBSCAN_TEST_CAPTURES_H
#define IBSCAN_TEST_CAPTURES_H

#include "fabrics.h"

/* How the capture tests walk: window 8, 50 ms, 1 retry, 10 s; GUIDInfo and SMInfo read. */
#define CAP_ENGINE                                                                \
	{                                                                         \
		.window = 8, .timeout_ms = 50, .retries = 1, .deadline_ms = 10000 \
	}
#define CAP_WALK                         \
	{                                \
		.gids = true, .sm = true \
	}

/* A version 1 header and local line, a NodeInfo request at the empty route, and a version 2 header. */
#define HDR "ibscan-capture 1\nlocal ca=x port=1 node_guid=0x1 port_guid=0x1 system_image_guid=0x1 lid=1 sm_lid=1 lmc=0 state=4 node_type=1\n"
#define MADHEX "01810101" "0000000000000000000000000000000000000000"
#define REQ "x SMI-DR Get NodeInfo mod=0 addr=dr:0\n> " MADHEX "\n"
#define HDR2 "ibscan-capture 2\nlocal ca=x port=1 node_guid=0x1 port_guid=0x1 system_image_guid=0x1 lid=1 sm_lid=1 lmc=0 state=4 node_type=1\n"

/* t walked with CAP_ENGINE and CAP_WALK (the local port t's), as JSON. */
char *cap_walk_json(struct ibs_transport *t);

/*
 * Record a walk of ff_2sw4ca (a dead CA, so timeouts are recorded too,
 * and a bad SwitchInfo status) into path; returns the live JSON.
 */
char *cap_record(const char *path);

/* Build the index of the capture at path from its text and write it to ipath. */
void cap_write_index(const char *path, const char *ipath);

#endif
