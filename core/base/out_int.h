/* What out.c (opening, writing, committing) and out_fatal.c (last words) share; not for use outside them. */
#ifndef IBSCAN_OUT_INT_H
#define IBSCAN_OUT_INT_H

struct ibs_out;

enum out_kind {
	OUT_STDOUT,  /* fd 1 */
	OUT_DIRECT,  /* a device, FIFO, socket or /proc descriptor link, written in place */
	OUT_REPLACE, /* a temporary file renamed over the target */
	OUT_INPLACE, /* a temporary file copied into a hard-linked target */
};

/* What a fatal end puts in place (struct ibs_out's fatal). */
enum out_fatal_mode {
	OUT_FATAL_NONE,
	OUT_FATAL_TEXTS, /* texts[cause] */
	OUT_FATAL_KEEP,  /* fd up to mark */
};

#define OUT_TMP_PREFIX ".ibscan." /* short: a 255-byte name still has room beside it */

/* A short random name for a temporary file (*name owned); 0 or an errno. */
int out_temp_name(char **name);
/* Link the unnamed temporary file fd in dir at name: 0 or an errno (async-signal-safe). */
int out_link_at(int fd, const char *proc, int dir, const char *name);
/* Forget o's last words (before it is freed): a fatal end from now on leaves it alone. */
void out_fatal_forget(struct ibs_out *o);

#endif
