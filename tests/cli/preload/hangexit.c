/*
 * Test preload: a library whose destructor never returns, as the
 * simulator's shim (libumad2sim) hangs joining its reader thread when a
 * walk stops early. The process must still end with its own status.
 */
#include <unistd.h>

__attribute__((destructor)) static void hang_at_exit(void)
{
	for (;;)
		pause();
}
