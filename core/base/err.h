/* Error codes shared by every layer, with a strerror in the style of curl's CURLcode. */
#ifndef IBSCAN_ERR_H
#define IBSCAN_ERR_H

enum ibs_err {
	IBS_OK = 0,
	IBS_E_AGAIN,      /* nothing yet (non-blocking receive) */
	IBS_E_NODEV,      /* no InfiniBand device */
	IBS_E_PERM,       /* permission denied on the umad device */
	IBS_E_TRANSPORT,  /* send/receive failed: the device is gone or unusable */
	IBS_E_SEND,       /* the kernel refused to send one MAD (that request fails, the run goes on) */
	IBS_E_TIMEOUT,    /* a MAD got no answer within its deadline and retries */
	IBS_E_DEADLINE,   /* the global deadline expired */
	IBS_E_STATUS,     /* a MAD came back with a non-zero status */
	IBS_E_MALFORMED,  /* a response that cannot be decoded */
	IBS_E_INPUT,      /* a bad input file */
	IBS_E_IO,         /* a file could not be read or written */
	IBS_E_INVAL,      /* an invalid argument */
	IBS_E_NOTFOUND,   /* a lookup found nothing */
	IBS_E_PARTIAL,    /* a result is incomplete */
	IBS_E__COUNT
};

const char *ibs_strerror(enum ibs_err e);

/*
 * A programmer error (an invariant the code itself broke, never bad input):
 * say where on stderr and abort, as git's BUG() does. Layers below cmd/
 * never exit; this is how they stop when continuing would be wrong.
 */
#define BUG(...) ibs_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void ibs_bug(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
