/*
 * Test helper for bounds.py: run a command (output to /dev/null) and print
 * its exit code, peak RSS in KiB and CPU seconds (user + system). A child
 * forked from this small process starts with a small peak RSS, where one
 * spawned from Python would inherit Python's as its high-water mark.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status, code;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: rusage COMMAND [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("rusage: fork");
		return 2;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("rusage: wait4");
		return 2;
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	printf("%d %ld %.6f\n", code, ru.ru_maxrss,
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		       ru.ru_stime.tv_usec / 1e6);
	return 0;
}
