/* The signals ibscan handles: the watchdog (SIGALRM), SIGBUS on a replay index cut short, SIGPIPE. */
#include "signals.h"
#include "exit.h"
#include "../core/capture/index.h"
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

void sig_end_on_epipe(int err)
{
	sigset_t set;

	if (err != EPIPE)
		return;
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

/*
 * Last-resort watchdog: the engine keeps every wait under --deadline, but a
 * device library can block before the engine runs (the simulator's shim
 * retries forever when no simulator listens), and so can opening an input
 * file (a FIFO with no writer). SIGALRM ends the run then.
 */
static void watchdog(int sig)
{
	static const char m[] = "ibscan: error: no progress within --deadline plus 5 s grace "
				"(is the device, the simulator or an input file answering?): stopped\n";
	(void)sig;
	if (write(STDERR_FILENO, m, sizeof(m) - 1) < 0)
		_exit(EXIT_RUNTIME);
	_exit(EXIT_RUNTIME);
}

void sig_arm_watchdog(double deadline_s)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = watchdog;
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)ceil(deadline_s) + 5);
}

void sig_disarm_watchdog(void)
{
	alarm(0);
}

/*
 * Replay maps FILE.idx (core/capture/index.c). If someone cuts that file short in
 * place meanwhile (cp over it), reading a lost page raises SIGBUS: say so
 * and exit 3 rather than die without a word.
 */
static char *sigbus_msg;
static size_t sigbus_len;

static void on_sigbus(int sig)
{
	(void)sig;
	if (write(STDERR_FILENO, sigbus_msg, sigbus_len) < 0)
		_exit(EXIT_RUNTIME);
	_exit(EXIT_RUNTIME);
}

void sig_catch_sigbus(const char *capture)
{
	struct sigaction sa;

	/* Built now: a signal handler may only write what exists already. */
	free(sigbus_msg);
	sigbus_msg = xasprintf("ibscan: error: %s%s: the replay index was cut short while in use "
			       "(replaced in place?); run again\n",
			       capture, IBS_CAPIDX_SUFFIX);
	sigbus_len = strlen(sigbus_msg);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
}
