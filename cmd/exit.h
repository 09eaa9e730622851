/* The exit codes of every command but health (health exits with its verdict, 0-3). */
#ifndef IBSCAN_EXIT_H
#define IBSCAN_EXIT_H

enum {
	EXIT_OK = 0,
	EXIT_FINDINGS = 1,
	EXIT_USAGE = 2,
	EXIT_RUNTIME = 3,
};

#endif
