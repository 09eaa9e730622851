/*
 * What index.c (build), index_read.c (check, read) and index_tmp.c (an index built from
 * a capture's text into temporary files) share; not for use outside them.
 */
#ifndef IBSCAN_CAPTURE_INDEX_INT_H
#define IBSCAN_CAPTURE_INDEX_INT_H

#include "format.h"

struct ibs_capidx_x;

#define MAGIC "IBSCIDX"
#define ENDIAN_MARK 0x01020304u
/* How much of a mapped index is read before its pages are let go of (a power of two). */
#define SETTLE_BYTES_MASK (((size_t)1 << 20) - 1)

struct hdr {
	char magic[8];
	uint32_t version, endian;
	uint64_t file_size, checksum;
	uint64_t cap_size, cap_ino;
	int64_t cap_mtime_s, cap_mtime_ns;
	uint64_t cap_sample; /* the hash of a sample of the capture's bytes (ibs_capidx_src_of) */
	uint64_t n_x, slots;
	uint64_t text_off, text_len, x_off, tab_off, resp_off, resp_len;
};

struct slot {
	uint64_t key;
	uint32_t first; /* UINT32_MAX: free */
	uint32_t count;
};

/*
 * A window of an index file, read ahead: replay asks in about the order it
 * recorded, so what it reads of the attempts and of the responses lies a
 * little ahead of what it read before. A read outside the window but not
 * far ahead of it moves the window there; any other is read by itself.
 */
#define WINDOW_X_BYTES ((size_t)16 << 10)
#define WINDOW_RESP_BYTES ((size_t)32 << 10)
struct window {
	int fd;       /* the file read */
	uint64_t end; /* of what may be read of it */
	uint64_t off; /* of the bytes held */
	size_t n, cap;
	unsigned missed; /* reads in a row it did not hold */
	uint8_t *b;
};

struct ibs_capidx {
	const uint8_t *buf;       /* the image, while in memory or mapped; NULL when read from files */
	size_t len;
	bool own, mapped;
	/*
	 * Read from files: the index file after its checks (both windows on
	 * it), or the two unlinked temporary files ibs_capidx_build_tmp wrote
	 * (attempts and table in one, responses in the other).
	 */
	struct window *wx, *wr;   /* read-ahead of the attempts and of the response bytes */
	struct ibs_capture *head;
	struct hdr h;             /* a copy, taken before it was checked */
	const struct ibs_capidx_x *x;
	const struct slot *tab;
	const uint8_t *resp;
};

/* n rounded up to 8. */
static inline size_t capidx_pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The response bytes an index stores: up to the last non-zero one. */
static inline size_t capidx_stored(const struct ibs_cap_exchange *e)
{
	return ibs_capture_trimmed(e->resp, e->resp_len);
}

/* *msg = the reason (printf); IBS_E_INPUT. */
enum ibs_err capidx_bad(char **msg, const char *why, ...) __attribute__((format(printf, 2, 3)));
/* From now on ix is read from files (it owns xfd and rfd), through two read-ahead windows. */
void capidx_read_files(struct ibs_capidx *ix, int xfd, uint64_t xend, int rfd, uint64_t rend);

/* The whole image's checksum: the header with its checksum field as zero, then the rest (ix: pages let go of). */
uint64_t capidx_image_checksum(const struct ibs_capidx *ix, const struct hdr *h, const uint8_t *body, size_t n);
/* Let go of the unmodified pages of a mapped index read so far. */
void capidx_settle(const struct ibs_capidx *ix);

#endif
