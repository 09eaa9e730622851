/*
 * Unit tests of the libibumad transport (core/mad/umad.c) over a double of
 * libibumad that answers as libibumad and the kernel do (fake_umad.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_umad.h"

/* What ibscan said on stderr between stderr_begin() and stderr_end(). */
static char said[8192];
static int saved_fd = -1;
static FILE *said_file;

static void stderr_begin(void)
{
	fflush(stderr);
	said_file = tmpfile();
	assert_non_null(said_file);
	saved_fd = dup(STDERR_FILENO);
	assert_true(saved_fd >= 0);
	assert_true(dup2(fileno(said_file), STDERR_FILENO) >= 0);
}

static const char *stderr_end(void)
{
	size_t n;

	fflush(stderr);
	assert_true(dup2(saved_fd, STDERR_FILENO) >= 0);
	close(saved_fd);
	rewind(said_file);
	n = fread(said, 1, sizeof(said) - 1, said_file);
	said[n] = '\0';
	fclose(said_file);
	return said;
}

static void assert_said(const char *s, const char *what)
{
	if (!strstr(s, what))
		fail_msg("stderr lacks \"%s\":\n%s", what, s);
}

static enum ibs_err open_fake(struct ibs_transport **t)
{
	struct ibs_umad_opts o = { NULL, 0, 100 };

	return ibs_umad_open_with(&fumad_calls, &o, t);
}

/* Open one CA's port 1 as set up in fumad, which must fail with want: what stderr said. */
static const char *open_fails(enum ibs_err want)
{
	struct ibs_transport *t = NULL;
	enum ibs_err rc;

	stderr_begin();
	rc = open_fake(&t);
	stderr_end();
	assert_int_equal(rc, want);
	assert_null(t);
	return said;
}

/* No read/write access to /dev/infiniband/umad0: libibumad says EIO, open() said EACCES. */
static void test_open_permission(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.open_errno = EACCES;
	s = open_fails(IBS_E_PERM);
	assert_said(s, "ibscan: error: cannot open the umad device of mlx5_0 port 1: permission denied");
	assert_said(s, "udev rule");
	/* libibumad's own code is not the cause. */
	assert_null(strstr(s, "Input/output error"));
}

/* No device node (ib_umad not loaded): open() said ENOENT, and the hint says what to load. */
static void test_open_no_node(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.open_errno = ENOENT;
	s = open_fails(IBS_E_TRANSPORT);
	assert_said(s, "cannot open the umad device of mlx5_0 port 1: No such file or directory");
	assert_said(s, "modprobe ib_umad");
	assert_null(strstr(s, "Input/output error"));
}

/* umad_register says EPERM for every failure; the ioctl's errno is the cause. */
static void test_register_cause(void **state)
{
	const char *s;

	(void)state;
	fumad_reset();
	fumad_one_ca("mlx5_0");
	fumad.register_errno[IBS_CLASS_SMI_DR] = EPROTONOSUPPORT;
	s = open_fails(IBS_E_TRANSPORT);
	assert_said(s, "cannot register a MAD agent for SMI-DR (class 0x81) on mlx5_0 port 1: Protocol not supported");
	assert_null(strstr(s, "Operation not permitted"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_permission),
		cmocka_unit_test(test_open_no_node),
		cmocka_unit_test(test_register_cause),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	fumad_reset();
	return rc;
}
