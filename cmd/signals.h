/*
 * The signals ibscan handles, all from cmd/: the watchdog (SIGALRM), a
 * file cut short under its mapping (SIGBUS), SIGINT, SIGTERM and
 * SIGHUP (the outputs' last words first), and a reader that went away
 * (SIGPIPE, ignored so that writes see EPIPE; ibscan then ends by it).
 */
#ifndef IBSCAN_SIGNALS_H
#define IBSCAN_SIGNALS_H

/* At start: a closed pipe shows up as EPIPE where the write is checked. */
void sig_ignore_sigpipe(void);
/* When err is EPIPE: end by SIGPIPE, without a word (`ibscan ... | head -1`). */
void sig_end_on_epipe(int err);
/* End the run (exit 3, one line) if it has not finished deadline_s + 5 s from now. */
void sig_arm_watchdog(double deadline_s);
void sig_disarm_watchdog(void);
/*
 * At the end of main(): arm a 10 s alarm that ends the process with status
 * should the exit handlers or a library's destructor hang; returns status.
 */
int sig_guard_exit(int status);
/*
 * At start: SIGINT, SIGTERM and SIGHUP (unless ignored) and running out of
 * memory put the outputs' last words in place (ibs_out_fatal) before the
 * process ends as it would have; a SIGBUS (a file read through a mapping,
 * cut short under it) does too, then says which file and exits 3.
 */
void sig_catch_fatal(void);

#endif
