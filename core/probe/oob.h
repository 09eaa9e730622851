/*
 * The link probe's out-of-band messages (sent over TCP by tcp.h): a small,
 * versioned, length-checked binary message (codec), and an incremental
 * reader. Everything a peer sends is untrusted: the header is checked
 * before any payload is read, and each message type has one exact length.
 *
 * Wire format, big-endian:
 *   header (12 bytes): magic "IBSP" (0x49425350), version (u16, 2),
 *                      type (u16), payload length (u32)
 *   HELLO, HELLO_REPLY (64 bytes):
 *      0 op (u8)       1 flags (u8: bit 0 bandwidth run, bit 1 SL given, bit 2 traffic class given)
 *      2 link layer (u8: 1 InfiniBand, 2 Ethernet)   3 path MTU (u8: 1..5)
 *      4 iterations (u32)   8 size (u32)   12 timeout in ms (u32)
 *     16 LID (u16)    18 GID index (u16)   20 QPN (u32)   24 PSN (u32)
 *     28 RDMA read/atomic depth (u8)   29 GID type (u8)   30 SL (u8: 0..15)   31 traffic class (u8)
 *     32 GID (16)     48 buffer address (u64)   56 rkey (u32)   60 buffer length (u32)
 *   KEEPALIVE, DONE: empty
 *   ERROR: 1..256 bytes of text
 *
 * Version 1 had bytes 30-31 zero and flag bits 1-2 clear: the SL and
 * traffic class did not travel, each side marked its own packets. A
 * listener refuses a version 1 hello with an ERROR framed as version 1,
 * which such a client reads and shows.
 */
#ifndef IBSCAN_OOB_H
#define IBSCAN_OOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/err.h"
#include "../base/text.h"

#define IBS_OOB_MAGIC 0x49425350u /* "IBSP" */
#define IBS_OOB_VERSION 2
#define IBS_OOB_HDR_LEN 12
#define IBS_OOB_HELLO_LEN 64
#define IBS_OOB_MAX_TEXT 256
/* An ERROR text as received: cleaned (core/base/text.h), so escapes may make it longer. */
#define IBS_OOB_TEXT_SHOWN (IBS_OOB_MAX_TEXT * IBS_TEXT_GROWTH)
#define IBS_OOB_MAX_PAYLOAD 256 /* the longest message type */
#define IBS_OOB_MAX_MSG (IBS_OOB_HDR_LEN + IBS_OOB_MAX_PAYLOAD)
#define IBS_OOB_DEFAULT_PORT 18515

enum ibs_oob_type {
	IBS_OOB_HELLO = 1,       /* client -> listener: the test and the client's QP */
	IBS_OOB_HELLO_REPLY = 2, /* listener -> client: the listener's QP, ready */
	IBS_OOB_KEEPALIVE = 3,   /* client -> listener while the listener has nothing to do */
	IBS_OOB_DONE = 4,        /* both ways: the run is over */
	IBS_OOB_ERROR = 5,       /* both ways: this side failed, and why */
};

struct ibs_oob_hello {
	uint8_t op;         /* enum ibs_ping_op (ping.h) */
	bool bw;
	uint8_t link_layer; /* enum ibs_link_layer */
	uint8_t mtu;
	uint32_t iters, size, timeout_ms;
	uint16_t lid;
	uint16_t gid_index;
	uint32_t qpn, psn;
	uint8_t rd_atomic;
	uint8_t gid_type; /* enum ibs_gid_type */
	uint8_t sl, tclass;   /* HELLO: what the client asks for; HELLO_REPLY: what both ends use */
	bool sl_set, tclass_set; /* given explicitly (--sl, --tclass), not defaulted */
	uint8_t gid[16];
	uint64_t addr;
	uint32_t rkey, len;
};

struct ibs_oob_msg {
	/*
	 * Sending: the header's version, 0 for IBS_OOB_VERSION (an ERROR to a
	 * peer of an older one). Received: the peer's, also when it is refused
	 * (0 when no header arrived).
	 */
	unsigned version;
	enum ibs_oob_type type;
	struct ibs_oob_hello hello;          /* HELLO, HELLO_REPLY */
	char text[IBS_OOB_TEXT_SHOWN + 1];   /* ERROR: NUL-terminated; cleaned when received */
};

const char *ibs_oob_type_name(unsigned type);

/* Encode into buf (at least IBS_OOB_MAX_MSG bytes); returns the length. */
size_t ibs_oob_encode(const struct ibs_oob_msg *m, uint8_t *buf);
/* Check a header: magic, version, known type, the exact length for that type. */
enum ibs_err ibs_oob_check_header(const uint8_t *hdr, size_t len, unsigned *type, uint32_t *plen, char **msg);
/* Decode a whole message (header and payload) from len bytes; every field is validated. */
enum ibs_err ibs_oob_decode(const uint8_t *buf, size_t len, struct ibs_oob_msg *m, char **msg);

/*
 * One message read in pieces, as TCP delivers it: the header first, checked
 * before any payload is waited for, then exactly the payload its type
 * allows. It never asks for a byte past the message's end, so the next
 * message's bytes stay in the socket.
 */
struct ibs_oob_rx {
	uint8_t buf[IBS_OOB_MAX_MSG];
	size_t got;  /* bytes so far */
	size_t want; /* the header's length, then the whole message's */
};

void ibs_oob_rx_init(struct ibs_oob_rx *rx);
/* Bytes the message still needs (0 once it is whole, or refused). */
size_t ibs_oob_rx_need(const struct ibs_oob_rx *rx);
/*
 * Take n bytes (at most ibs_oob_rx_need): IBS_E_AGAIN while the message is
 * incomplete, IBS_OK with *m once it is whole, or an error with *msg as
 * soon as the bytes show one (a stranger's first byte, a bad header).
 */
enum ibs_err ibs_oob_rx_feed(struct ibs_oob_rx *rx, const uint8_t *p, size_t n, struct ibs_oob_msg *m, char **msg);

#endif
