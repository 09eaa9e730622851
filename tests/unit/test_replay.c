/* Unit tests of replay (core/capture/replay.c): strict and not, attempts in order, the memory it holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SANITIZE_ADDRESS__
/* AddressSanitizer's allocator (libasan's public interface; gcc ships no header for it). */
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

#include "lib/captures.h"
#include "../../core/capture/index.h"
#include "../../core/capture/replay.h"
#include "../../core/base/file.h"
#include "../../core/base/text.h"

static void test_replay_strict_and_missing(void **state)
{
	const char *cap = "ibscan-capture 1\ntool ibscan test\n"
			  "local ca=x port=1 node_guid=0x1 port_guid=0x1 system_image_guid=0x1 lid=1 sm_lid=1 lmc=0 state=4 node_type=1\n";
	char path[] = "/tmp/ibscan-test-capXXXXXX";
	int fd = mkstemp(path);
	struct ibs_transport *rp;
	static const struct ff_walk_opts o = { .eo = CAP_ENGINE, .wo = CAP_WALK };
	struct ibs_fabric *f;

	(void)state;
	assert_int_equal(write(fd, cap, strlen(cap)), (ssize_t)strlen(cap));
	close(fd);
	/* Not strict: the missing local NodeInfo is a dead target. */
	assert_int_equal(ibs_replay_open(path, false, &rp, NULL), IBS_OK);
	assert_int_equal(fb_walk_transport(rp, &o, &f, NULL), IBS_E_TIMEOUT);
	assert_int_equal(f->n_nodes, 0);
	ibs_fabric_free(f);
	ibs_transport_close(rp);
	/* Strict: an error naming the request ends the run. */
	assert_int_equal(ibs_replay_open(path, true, &rp, NULL), IBS_OK);
	assert_int_equal(fb_walk_transport(rp, &o, &f, NULL), IBS_E_TRANSPORT);
	ibs_fabric_free(f);
	ibs_transport_close(rp);
	unlink(path);
}

/* Repeated requests get the recorded attempts in order, then nothing. */
static void test_index_order(void **state)
{
	const char *cap = HDR REQ "< none\n" REQ "< resp 0181018100000000000000000000000000110000\n";
	char path[] = "/tmp/ibscan-test-capXXXXXX";
	int fd = mkstemp(path);
	struct ibs_transport *rp;
	struct ibs_mad_req req;
	struct ibs_packet pkt;
	struct ibs_addr root;
	uint8_t mad[IBS_MAD_SIZE] = { 0x01, 0x81, 0x01, 0x01 };
	int strict, cause;

	(void)state;
	assert_int_equal(write(fd, cap, strlen(cap)), (ssize_t)strlen(cap));
	close(fd);
	ibs_addr_dr(&root, NULL, 0);
	ibs_req_get(&req, &root, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, 0);
	mad[15] = 0x77; /* a TID: not part of the match, copied into the answer */
	for (strict = 0; strict <= 1; strict++) {
		assert_int_equal(ibs_replay_open(path, strict, &rp, NULL), IBS_OK);
		assert_int_equal(ibs_transport_send(rp, &req, mad, &cause), IBS_OK);
		assert_int_equal(ibs_transport_recv(rp, &pkt, 0), IBS_OK);
		assert_int_equal(pkt.status, 110); /* the first attempt got nothing */
		assert_int_equal(ibs_transport_send(rp, &req, mad, &cause), IBS_OK);
		assert_int_equal(ibs_transport_recv(rp, &pkt, 0), IBS_OK);
		assert_int_equal(pkt.status, 0);
		assert_int_equal(pkt.len, IBS_MAD_SIZE);
		assert_int_equal(pkt.mad[3], 0x81);
		assert_int_equal(pkt.mad[15], 0x77);
		assert_int_equal(pkt.mad[16], 0x00);
		assert_int_equal(pkt.mad[17], 0x11);
		assert_int_equal(ibs_transport_recv(rp, &pkt, 0), IBS_E_AGAIN);
		if (!strict) {
			assert_int_equal(ibs_transport_send(rp, &req, mad, &cause), IBS_OK);
			assert_int_equal(ibs_transport_recv(rp, &pkt, 0), IBS_OK);
			assert_int_equal(pkt.status, 110); /* all used: a dead target */
		} else {
			assert_int_equal(ibs_transport_send(rp, &req, mad, &cause), IBS_E_TRANSPORT);
		}
		/* Another request (a different modifier) was never recorded. */
		mad[0x14] = 1;
		if (!strict) {
			assert_int_equal(ibs_transport_send(rp, &req, mad, &cause), IBS_OK);
			assert_int_equal(ibs_transport_recv(rp, &pkt, 0), IBS_OK);
			assert_int_equal(pkt.status, 110);
		}
		mad[0x14] = 0;
		ibs_transport_close(rp);
	}
	unlink(path);
}

/* Resident kilobytes of the mappings of file in this process. */
static long mapped_kb(const char *file)
{
	char *buf, *msg = NULL, *line, *save = NULL;
	size_t len;
	long kb = 0;
	bool in = false;

	assert_int_equal(ibs_read_file("/proc/self/smaps", 1 << 24, &buf, &len, &msg), IBS_OK);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t ll = strlen(line), fl = strlen(file);
		if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' ') && strchr(line, ' '))
			in = ll >= fl && !strcmp(line + ll - fl, file);
		else if (in && !strncmp(line, "Rss:", 4))
			kb += strtol(line + 4, NULL, 10);
	}
	free(buf);
	return kb;
}

#ifndef __SANITIZE_ADDRESS__
/* Peak resident kilobytes since the last reset_peak() (VmHWM). */
static long peak_kb(void)
{
	char *buf, *msg = NULL, *at;
	size_t len;
	long kb;

	assert_int_equal(ibs_read_file("/proc/self/status", 1 << 20, &buf, &len, &msg), IBS_OK);
	at = strstr(buf, "VmHWM:");
	assert_non_null(at);
	kb = strtol(at + 6, NULL, 10);
	free(buf);
	return kb;
}

static void reset_peak(void)
{
	int fd = open("/proc/self/clear_refs", O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "5", 1), 1);
	close(fd);
}
#endif

/* Bytes allocated and not freed: by AddressSanitizer's allocator under it, else by glibc's. */
static size_t heap_bytes(void)
{
#ifdef __SANITIZE_ADDRESS__
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();
	return mi.uordblks + mi.hblkhd;
#endif
}

/*
 * Replay holds neither a capture's text nor its index: replaying 20,000
 * full answers (a 7 MB index, a 12 MB text) in an order other than the
 * recorded one keeps none of the index mapped at any time (it is read,
 * not mapped: a mapping read about randomly held megabytes of it). From
 * the text, the answers are laid out in temporary files, not in memory:
 * replay holds a few hundred kilobytes of heap (it held the 5 MB of
 * answers), and where no temporary file can be made it still replays, from
 * memory.
 */
static void test_replay_memory(void **state)
{
	enum { N = 20000 };
	char path[] = "/tmp/ibscan-test-capXXXXXX", *ipath;
	int fd = mkstemp(path), pass;
	FILE *f = fdopen(fd, "w");
	struct ibs_addr root;
	struct stat st;
	uint32_t i, k;
	long most = 0;

	(void)state;
	assert_non_null(f);
	fputs(HDR, f);
	for (i = 0; i < N; i++) {
		unsigned b;
		fprintf(f, "x SMI-DR Get NodeInfo mod=%u addr=dr:0\n> 01810101%032x%08x\n< resp 01810181", i, 0, i);
		for (b = 4; b < IBS_MAD_SIZE; b++)
			fprintf(f, "%02x", (b + i) & 0xff ? (b + i) & 0xff : 1);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
	ipath = xasprintf("%s%s", path, IBS_CAPIDX_SUFFIX);
	ibs_addr_dr(&root, NULL, 0);
	/* From the text, then through the index, then from the text with no temporary file to be had. */
	for (pass = 0; pass < 3; pass++) {
		struct ibs_transport *rp;
		size_t heap0 = heap_bytes(), held;
#ifndef __SANITIZE_ADDRESS__
		long base;
#endif
		int cause;

		if (pass == 1)
			cap_write_index(path, ipath);
		if (pass == 2) {
			unlink(ipath);
			setenv("TMPDIR", "/nonexistent/ibscan-test", 1);
		}
#ifndef __SANITIZE_ADDRESS__
		reset_peak();
		base = peak_kb();
#endif
		assert_int_equal(ibs_replay_open(path, true, &rp, NULL), IBS_OK);
		held = heap_bytes() - heap0;
		for (k = 0; k < N; k++) {
			uint8_t mad[IBS_MAD_SIZE] = { 0x01, 0x81, 0x01, 0x01 };
			struct ibs_mad_req req;
			struct ibs_packet pkt;
			/* 7919 is prime to N: every request once, far from the recorded order. */
			i = (uint32_t)((k * 7919u) % N);
			ibs_req_get(&req, &root, IBS_CLASS_SMI_DR, IBS_ATTR_NODE_INFO, i);
			mad[20] = (uint8_t)(i >> 24), mad[21] = (uint8_t)(i >> 16), mad[22] = (uint8_t)(i >> 8), mad[23] = (uint8_t)i;
			assert_int_equal(ibs_transport_send(rp, &req, mad, &cause), IBS_OK);
			assert_int_equal(ibs_transport_recv(rp, &pkt, 0), IBS_OK);
			assert_int_equal(pkt.len, IBS_MAD_SIZE);
			assert_int_equal(pkt.mad[255], (255 + i) & 0xff ? (255 + i) & 0xff : 1);
			if (pass == 1 && !(k % 1000) && mapped_kb(ipath) > most)
				most = mapped_kb(ipath);
		}
		assert_int_equal(stat(pass == 1 ? ipath : path, &st), 0);
		/*
		 * Through the index: nothing of it mapped at any time (read
		 * through a settled mapping in this order, 5 of its 6.6 MB were
		 * resident). From the text: the answers parsed and laid out,
		 * never the text besides (it was about twice the text's size).
		 * Under AddressSanitizer freed blocks stay resident in its
		 * quarantine: the peak is not measured there.
		 */
		if (pass == 1)
			assert_int_equal(most, 0);
		if (pass < 2)
			assert_true(held < 512 * 1024);
		else
			assert_true(held > (size_t)N * 200); /* the answers in memory: this pass took the other way */
#ifndef __SANITIZE_ADDRESS__
		assert_true((peak_kb() - base) * 1024 < st.st_size * 3 / 2);
#endif
		ibs_transport_close(rp);
	}
	unsetenv("TMPDIR");
	unlink(ipath);
	unlink(path);
	free(ipath);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_strict_and_missing),
		cmocka_unit_test(test_index_order),
		cmocka_unit_test(test_replay_memory),
	};
	return cmocka_run_group_tests_name("replay", tests, NULL, NULL);
}
