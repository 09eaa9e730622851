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

#endif
