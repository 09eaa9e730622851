/* Output files written as `sort -o` and `curl -o` do: replaced atomically, never through a planted link. */
#ifndef IBSCAN_OUT_H
#define IBSCAN_OUT_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "err.h"

/* How a run can end before its outputs are in place (ibs_out_fatal). */
enum ibs_fatal {
	IBS_FATAL_SIGINT,
	IBS_FATAL_SIGTERM,
	IBS_FATAL_SIGHUP,
	IBS_FATAL_WATCHDOG, /* no progress within --deadline and its grace (SIGALRM) */
	IBS_FATAL_BUS,      /* a file read through a mapping was cut short (SIGBUS) */
	IBS_FATAL_OOM,      /* out of memory */
	IBS_N_FATAL
};

/*
 * An output destination, written as `sort -o` and `curl -o` do:
 * - NULL or "-": standard output.
 * - The path is walked one component at a time from a directory descriptor
 *   (core/base/path.h): a symlink is followed (a chain, relative or
 *   dangling, on the way or at the end) only where the kernel's
 *   fs.protected_symlinks rule would follow it, whatever that sysctl says:
 *   in a sticky world-writable directory (/tmp), only a link of this user
 *   or of the directory's owner. Another is refused, naming the link and
 *   the rule; so is a regular file or FIFO there of another user
 *   (fs.protected_regular, fs.protected_fifos).
 * - A path that exists and is not a regular file (a character or block
 *   device, a FIFO, a socket) is opened and written in place: /dev/null
 *   stays a device and a FIFO's reader gets the data. So is a link in /proc,
 *   which names an open file rather than a place: one of this process's
 *   own descriptors (/dev/stdout, /dev/fd/N, /proc/self/fd/N) is written
 *   through as it is (its offset, its O_APPEND, as the shell set it up);
 *   another process's is opened for appending.
 * - A regular file (or a new one) is replaced atomically: the data goes to
 *   an unnamed file (O_TMPFILE; else a short hidden name) in the target's
 *   own directory, fsynced, then renamed over it in that directory
 *   (renameat on the directory's descriptor), so a reader sees the old
 *   file or the new one, never half of one, and a failure leaves the old
 *   file as it was. The new file keeps the old one's permission bits and,
 *   where the process may (root, or the owner in the group), its owner and
 *   group; when the group cannot be kept its permission bits are dropped
 *   rather than given to another group. A file the process may not write
 *   is refused, even where its directory would let it be renamed over.
 * - A regular file with other hard links is rewritten in place once all
 *   of the output exists (space reserved first), so every name sees it.
 * Every message names the path as given and the reason; none names a
 * temporary file. The struct must not move while open (fp refers to it).
 */
struct ibs_out {
	FILE *fp;
	int err; /* the first write error (an errno), still set after commit */
	/* private */
	int kind;
	char *path; /* as given, for messages */
	int dir;    /* the target's directory (O_PATH), or -1 */
	char *name; /* the target's name in dir */
	char *tmp;  /* a named temporary file in dir, when O_TMPFILE was not supported */
	int fd;     /* what fp writes to */
	int dst;    /* a hard-linked file rewritten in place, else -1 */
	off_t written; /* bytes written to fd */
	/* Last words (out_fatal.c), read by ibs_out_fatal in a signal handler: set before o is registered. */
	int fatal;                   /* what a fatal end puts in place: nothing, texts[cause], or fd up to mark */
	volatile sig_atomic_t state; /* 0 being written; 1 complete, being put in place; 2 done */
	char *texts[IBS_N_FATAL];
	size_t text_len[IBS_N_FATAL];
	off_t mark;      /* the bytes of fd that are whole (ibs_out_mark) */
	char *fatal_tmp; /* the name an unnamed temporary file is put in place by (linked, then renamed) */
	char proc[32];   /* "/proc/self/fd/N" of fd, to link it by */
};

/* Open for writing; a failure is logged (naming path and why). */
enum ibs_err ibs_out_open(struct ibs_out *o, const char *path);
/*
 * Flush, check, and put the file in place; on error it is logged (except
 * EPIPE: the caller ends quietly, as filters do; o->err says so) and the old
 * file, if any, is left as it was.
 */
enum ibs_err ibs_out_commit(struct ibs_out *o);
/* Give up: nothing is written in place of an existing file. */
void ibs_out_abort(struct ibs_out *o);
/*
 * Take the permission bits bits (S_IWGRP | S_IWOTH, say) from the file that
 * will replace the target (not from a device, nor from a hard-linked file
 * rewritten in place, which keep their own). 0 or an errno.
 */
int ibs_out_restrict(struct ibs_out *o, mode_t bits);

/*
 * Last words: whatever ends the run before o is committed (a signal, the
 * watchdog, out of memory: ibs_out_fatal), o's destination then says
 * texts[cause] (lens[cause] bytes, copied), in place of what o was being
 * given and of what the destination held: health's UNKNOWN, so that no
 * file keeps the last run's verdict. A device, FIFO or standard output is
 * given it only where nothing was written to it yet.
 */
void ibs_out_last_words(struct ibs_out *o, char *const texts[IBS_N_FATAL], const size_t lens[IBS_N_FATAL]);
/*
 * Whatever ends the run before o is committed, o's destination gets what
 * o held at its last ibs_out_mark: a capture cut short, in whole records.
 */
void ibs_out_keep_on_fatal(struct ibs_out *o);
/* Flush o: what it was given so far is whole (for ibs_out_keep_on_fatal). 0, or -1 (o->err says why). */
int ibs_out_mark(struct ibs_out *o);
/*
 * The run ends now, by cause: put every output's last words in place
 * (async-signal-safe: for signal handlers and the out-of-memory exit). An
 * output being committed is put in place as it is, complete.
 */
void ibs_out_fatal(enum ibs_fatal cause);

/*
 * Whether a and b are one file: the same device and inode, symlinks
 * followed as the kernel follows them for reading; for paths that do not
 * exist yet, the same name in the same directory. Used to refuse an output
 * that would overwrite an input.
 */
bool ibs_same_file(const char *a, const char *b);

#endif
