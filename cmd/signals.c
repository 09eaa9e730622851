/*
 * The signals ibscan handles: the watchdog (SIGALRM), SIGBUS on a mapped
 * file cut short, SIGINT/SIGTERM/SIGHUP (the outputs' last words), SIGPIPE.
 */
#include "signals.h"
#include "exit.h"
#include "../core/base/mapping.h"
#include "../core/base/out.h"
#include "../core/base/xalloc.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sig_ignore_sigpipe(void)
{
	/*
	 * A closed pipe shows up as EPIPE where the write is checked: on the
	 * output, ibscan then ends by SIGPIPE as filters do (sig_end_on_epipe);
	 * on the ping socket it is an error like any other.
	 */
	signal(SIGPIPE, SIG_IGN);
}

/* End the process by sig, as its default action does (async-signal-safe). */
static _Noreturn void die_by(int sig)
{
	sigset_t set;

	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	_exit(128 + sig);
}

void sig_end_on_epipe(int err)
{
	if (err == EPIPE)
		die_by(SIGPIPE);
}

/*
 * Last-resort watchdog: the engine keeps every wait under --deadline, but a
 * device library can block before the engine runs (the simulator's shim
 * retries forever when no simulator listens), and so can opening an input
 * file (a FIFO with no writer). SIGALRM ends the run then.
 */
/* Say m on stderr, then end at once with status (async-signal-safe). */
static void say_and_exit(const char *m, size_t n, int status)
{
	if (write(STDERR_FILENO, m, n) < 0)
		_exit(status);
	_exit(status);
}

/* Arm SIGALRM to run fn in seconds. */
static void alarm_in(unsigned seconds, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

static void watchdog(int sig)
{
	static const char m[] = "ibscan: error: no progress within --deadline plus 5 s grace "
				"(is the device, the simulator or an input file answering?): stopped\n";
	(void)sig;
	ibs_out_fatal(IBS_FATAL_WATCHDOG);
	say_and_exit(m, sizeof(m) - 1, EXIT_RUNTIME);
}

/* Set once the exit guard is armed: the watchdog no longer touches the alarm (see sig_guard_exit). */
static volatile sig_atomic_t guard_armed;

void sig_arm_watchdog(double deadline_s)
{
	if (!guard_armed)
		alarm_in((unsigned)ceil(deadline_s) + 5, watchdog);
}

void sig_disarm_watchdog(void)
{
	if (!guard_armed)
		alarm(0);
}

/*
 * Exit guard: once main() has its status, what is left is the C library's
 * exit handlers and the libraries' destructors. Those can hang: the
 * simulator's shim (libumad2sim) joins a reader thread that waits on a lock
 * it never gets when a walk stops early (seen 2 in 25 runs of --deadline
 * 0.01 on fattree3). The output is already written and flushed: end with
 * the same status if they have not finished in 10 s (time enough for
 * LeakSanitizer's check in the sanitizer build).
 */
static volatile sig_atomic_t exit_status;

static void exit_guard(int sig)
{
	static const char m[] = "ibscan: warning: a library did not finish exiting within 10 s: "
				"ended without it\n";
	(void)sig;
	say_and_exit(m, sizeof(m) - 1, exit_status);
}

int sig_guard_exit(int status)
{
	/*
	 * Another thread may still be walking (the exporter's sweeper, stopped
	 * by SIGTERM mid-sweep): its walk's end must not disarm the guard.
	 */
	guard_armed = 1;
	exit_status = status;
	alarm_in(10, exit_guard);
	return status;
}

/*
 * A file read through a mapping (a capture, a replay index) and cut short
 * in place meanwhile (cp over it) raises SIGBUS at the next read of a lost
 * page: say which file (core/base/mapping.h), and exit 3, rather than die
 * without a word; the outputs' last words go in place first.
 */
static void on_sigbus(int sig)
{
	static const char any[] = "ibscan: error: a file being read was cut short under it (SIGBUS); run again\n";
	size_t len = sizeof(any) - 1;
	const char *m = ibs_mapping_said(&len);

	(void)sig;
	ibs_out_fatal(IBS_FATAL_BUS);
	if (write(STDERR_FILENO, m ? m : any, len) < 0)
		_exit(EXIT_RUNTIME);
	_exit(EXIT_RUNTIME);
}

/*
 * SIGINT, SIGTERM, SIGHUP: the outputs' last words go in place (health's
 * -o says UNKNOWN, a capture being recorded is kept as far as it got), then
 * the signal ends the process as it would have (the shell sees 130, 143).
 */
static void on_fatal(int sig)
{
	ibs_out_fatal(sig == SIGINT ? IBS_FATAL_SIGINT : sig == SIGHUP ? IBS_FATAL_SIGHUP : IBS_FATAL_SIGTERM);
	die_by(sig);
}

static void oom_last_words(void)
{
	ibs_out_fatal(IBS_FATAL_OOM);
}

void sig_catch_fatal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sigfillset(&sa.sa_mask); /* one at a time: the last words are put in place once */
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		/* A signal ignored when we started (nohup, a shell's background job) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	xalloc_on_die(oom_last_words);
}
