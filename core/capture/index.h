/*
 * Replay index: the answers of a capture laid out for lookup by request, in
 * one flat little-endian image (layout in docs/capture-format.md). Replay
 * builds the image in memory from the text capture; `ibscan capture index`
 * writes it beside the capture (FILE.idx) so that later replays map it
 * instead of parsing megabytes of hex. The image names the capture it was
 * made from (size, modification time, inode, a hash of a sample of its
 * bytes): a changed capture makes it stale, and replay then reads the text
 * again. Its checksum covers all of it, the header included.
 */
#ifndef IBSCAN_CAPTURE_INDEX_H
#define IBSCAN_CAPTURE_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define IBS_CAPIDX_VERSION 3
#define IBS_CAPIDX_SUFFIX ".idx"
#define IBS_CAPIDX_MAX_BYTES ((size_t)4 << 30)

/* Which capture file an index belongs to, and who owns it. */
struct ibs_capidx_src {
	uint64_t size, ino;
	int64_t mtime_s, mtime_ns;
	uint64_t sample; /* a hash of the capture's bytes: all of a small one, 64 blocks of 4 KiB of a larger one */
	uint32_t uid;    /* the capture's owner: an index may be theirs or the caller's */
};

/* One recorded attempt, as replay needs it. */
struct ibs_capidx_x {
	uint64_t key;       /* of the request (ibs_capidx_key) */
	uint64_t resp_off;  /* into the response bytes */
	uint32_t next;      /* the next attempt of the same request, or UINT32_MAX */
	uint32_t prev;      /* the attempt before, of the same request, or UINT32_MAX */
	uint16_t status;    /* umad status for IBS_CAP_ERROR */
	uint16_t resp_len;  /* 0..256 */
	uint8_t outcome;    /* enum ibs_cap_outcome */
	uint8_t pad;
	uint16_t resp_n;    /* bytes stored at resp_off; the rest of resp_len is zeros */
};

struct ibs_capidx;

/* The key replay matches on: the address and the request with its TID zeroed. */
uint64_t ibs_capidx_key(const struct ibs_addr *a, const uint8_t mad[IBS_MAD_SIZE]);

/*
 * The capture's identity: size, inode, modification time, owner (fstat),
 * and a hash of a sample of its bytes (read with pread, a capture of up to
 * 256 KiB whole); false (errno set) when it cannot be read.
 */
bool ibs_capidx_src_of(const char *cap_path, struct ibs_capidx_src *src);

/*
 * Lay out the answers of c (src may be NULL: an index for memory only). The
 * image is checked like one read from a file; failing that is a bug in
 * ibscan, reported with *msg saying so.
 */
enum ibs_err ibs_capidx_build(const struct ibs_capture *c, const struct ibs_capidx_src *src, struct ibs_capidx **out,
			      char **msg);
/*
 * Lay out the answers of the capture at cap_path straight into two unlinked
 * temporary files in $TMPDIR (else /tmp), reading the text once, holding
 * neither it nor its answers: only the table of requests while it is built.
 * Replay then reads them as it reads an index file. A capture that does not
 * parse is its error (*msg "file:line: reason"); temporary files that cannot
 * be made or written are IBS_E_IO with *tmp_failed set (then lay the
 * capture out in memory instead).
 */
enum ibs_err ibs_capidx_build_tmp(const char *cap_path, struct ibs_capidx **out, bool *tmp_failed, char **msg);
/*
 * Write the image to path (struct ibs_out: atomically; writable by its
 * owner only, as replay wants it); errors are logged there, *msg stays NULL.
 */
enum ibs_err ibs_capidx_write(const struct ibs_capidx *ix, const char *path, char **msg);
/*
 * Check an image of len bytes at buf, which must stay valid until the index
 * is freed (own: free(buf) then). src, if not NULL, must match the capture the
 * image was made from, else IBS_E_NOTFOUND ("stale"). Any inconsistency is
 * IBS_E_INPUT with *msg saying what.
 */
enum ibs_err ibs_capidx_from_mem(const void *buf, size_t len, bool own, const struct ibs_capidx_src *src,
				 struct ibs_capidx **out, char **msg);
/* Recompute the checksum of an image of len bytes (for tools and fuzzing that edit one). */
void ibs_capidx_seal(void *buf, size_t len);
/*
 * Map and check the index file at path (errors as above; IBS_E_IO when it
 * cannot be read). An index is believed only from this user or the
 * capture's owner (src->uid), and only when neither its group nor others
 * may write it: any other is IBS_E_NOTFOUND, *msg saying why, before any of
 * it is read.
 */
enum ibs_err ibs_capidx_open(const char *path, const struct ibs_capidx_src *src, struct ibs_capidx **out,
			     char **msg);
void ibs_capidx_free(struct ibs_capidx *ix);

/* The capture's header: tool, local port and engine settings (no exchanges). */
const struct ibs_capture *ibs_capidx_header(const struct ibs_capidx *ix);
size_t ibs_capidx_count(const struct ibs_capidx *ix);
size_t ibs_capidx_size(const struct ibs_capidx *ix);
/*
 * A mapped index can change under us after it passed its checks (another
 * program writing into the file): what replay reads from it is copied out
 * and checked again as it is read. These return IBS_E_INPUT, with *msg
 * saying what, when what they read no longer makes sense.
 */
/* *first: the first recorded attempt of the request with this key, or UINT32_MAX. */
enum ibs_err ibs_capidx_first(const struct ibs_capidx *ix, uint64_t key, uint32_t *first, char **msg);
/* Attempt i (below ibs_capidx_count), copied into *x. */
enum ibs_err ibs_capidx_get(const struct ibs_capidx *ix, uint32_t i, struct ibs_capidx_x *x, char **msg);
/* Copy the x->resp_n stored response bytes of an attempt that ibs_capidx_get returned into out. */
enum ibs_err ibs_capidx_resp(const struct ibs_capidx *ix, const struct ibs_capidx_x *x, uint8_t out[IBS_MAD_SIZE],
			     char **msg);

#endif
