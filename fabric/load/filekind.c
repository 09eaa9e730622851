/* What a file given to ibscan looks like (a saved topology, a capture, another tool's output), for errors that name it. */
#include "filekind.h"
#include "../../core/base/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNIFF_BYTES ((size_t)64 << 10)
#define SNIFF_LINES 64

static bool starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* "0x" and 16 hex digits, then a blank: how infiniband-diags print a GUID in columns. */
static bool guid16(const char *s)
{
	int i;

	if (s[0] != '0' || s[1] != 'x')
		return false;
	for (i = 2; i < 18; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return s[18] == ' ' || s[18] == '\t';
}

/* Past blanks, then past digits (at least one): NULL when there are none. */
static const char *past_number(const char *s)
{
	const char *d;

	while (*s == ' ' || *s == '\t')
		s++;
	for (d = s; isdigit((unsigned char)*d); d++)
		;
	return d == s ? NULL : d;
}

bool ibs_is_diags_line(const char *s)
{
	const char *p;

	if (starts(s, "ibwarn: ") || starts(s, "ibpanic: ") || starts(s, "ibdebug: ") || starts(s, "iberror: "))
		return true;
	/* A tool's own error: "ibnetdiscover: iberror: failed: discover failed". */
	p = strstr(s, ": iberror: ");
	if (p && !memchr(s, ' ', (size_t)(p - s)))
		return true;
	/* IBND_ERROR: "FILE.c:LINE; " with no blank in FILE. */
	for (p = s; *p && *p != ' ' && *p != '\t' && *p != ';'; p++)
		if (p > s && !strncmp(p, ".c:", 3)) {
			size_t k = strspn(p + 3, "0123456789");
			return k && p[3 + k] == ';' && p[4 + k] == ' ';
		}
	return false;
}

/* The kind one meaningful line says the file is, or UNKNOWN when it says nothing. */
static enum ibs_file_kind line_kind(const char *s)
{
	const char *p;

	/* ibnetdiscover -p: "SW     1 19 0x0002c90300e10001 4x EDR - SW ..." */
	if ((starts(s, "SW ") || starts(s, "CA ") || starts(s, "RT ")) && (p = past_number(s + 3)) &&
	    (p = past_number(p)) && (*p == ' ' || *p == '\t')) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (guid16(p))
			return IBS_FK_PORTS;
	}
	/* ibnetdiscover -l: "Switch	 : 0x0002c90300e10001 ports 36 devid ..." */
	if (starts(s, "Switch") || starts(s, "Ca") || starts(s, "Router")) {
		p = s + strcspn(s, " \t:");
		while (*p == ' ' || *p == '\t')
			p++;
		if (p[0] == ':' && p[1] == ' ' && guid16(p + 2))
			return IBS_FK_NODELIST;
	}
	/* iblinkinfo: "Switch: 0x0002c90300e10001 MF0;leaf01:MSB7800/U1:", "CA: node0001 mlx5_0:", port lines "==(". */
	if (starts(s, "Switch: ") || starts(s, "CA: ") || starts(s, "Router: ") || strstr(s, "]==(") || strstr(s, "] ==("))
		return IBS_FK_LINKINFO;
	if (starts(s, "vendid=") || starts(s, "devid=") || starts(s, "sysimgguid=") || starts(s, "switchguid=") ||
	    starts(s, "caguid=") || starts(s, "rtguid=") || starts(s, "Chassis ") || starts(s, "Non-Chassis Nodes"))
		return IBS_FK_NETFILE;
	if ((starts(s, "Switch") || starts(s, "Ca") || starts(s, "Hca") || starts(s, "Rt")) && strchr(s, '"'))
		return IBS_FK_NETFILE;
	return IBS_FK_UNKNOWN;
}

enum ibs_file_kind ibs_file_kind_of(const char *buf, size_t n)
{
	size_t pos = 0, lines = 0;
	char line[512];

	if (n >= 4 && (!memcmp(buf, IBS_CACHE_MAGIC_LE, 4) || !memcmp(buf, IBS_CACHE_MAGIC_BE, 4)))
		return IBS_FK_CACHE;
	while (pos < n && isspace((unsigned char)buf[pos]))
		pos++;
	if (pos < n && buf[pos] == '{') {
		/* ibscan writes "schema" first; look no further than the first few hundred bytes. */
		size_t m = n - pos < 512 ? n - pos : 512;
		memcpy(line, buf + pos, m);
		line[m < sizeof(line) ? m : sizeof(line) - 1] = '\0';
		if (strstr(line, "\"schema\": \"ibscan.topology/") || strstr(line, "\"schema\":\"ibscan.topology/"))
			return IBS_FK_JSON_TOPOLOGY;
		return strstr(line, "\"ibscan.") ? IBS_FK_JSON_OTHER : IBS_FK_UNKNOWN;
	}
	pos = 0;
	while (pos < n && lines < SNIFF_LINES) {
		const char *s = buf + pos, *nl = memchr(s, '\n', n - pos), *p;
		size_t ll = nl ? (size_t)(nl - s) : n - pos;
		enum ibs_file_kind k;

		pos += ll + (nl ? 1 : 0);
		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, s, ll);
		line[ll] = '\0';
		if (memchr(line, '\0', ll))
			return IBS_FK_UNKNOWN;
		if (lines == 0 && starts(line, "ibscan-capture "))
			return IBS_FK_CAPTURE;
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		if (!*p || *p == '#' || ibs_is_diags_line(p))
			continue;
		lines++;
		k = line_kind(line);
		if (k != IBS_FK_UNKNOWN)
			return k;
	}
	return IBS_FK_UNKNOWN;
}

enum ibs_file_kind ibs_file_kind_path(const char *path)
{
	struct stat st;
	char *buf;
	ssize_t got;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	enum ibs_file_kind k = IBS_FK_UNKNOWN;

	if (fd < 0)
		return IBS_FK_UNKNOWN;
	/* Only a regular file: reading a FIFO here would take what its real reader needs. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return IBS_FK_UNKNOWN;
	}
	buf = xmalloc(SNIFF_BYTES);
	while (n < SNIFF_BYTES && ((got = read(fd, buf + n, SNIFF_BYTES - n)) > 0 || (got < 0 && errno == EINTR)))
		if (got > 0)
			n += (size_t)got;
	close(fd);
	k = ibs_file_kind_of(buf, n);
	free(buf);
	return k;
}

/* What to save instead of a tool's output that no option reads. */
#define UNREAD                                                                                                 \
	"; ibscan reads no such output: save plain ibnetdiscover output for diff and health --baseline, or " \
	"ibnetdiscover --cache FILE for --load-cache"

static const struct {
	const char *what, *reader;
} kinds[] = {
	[IBS_FK_CACHE] = { "an ibnetdiscover cache (ibnetdiscover --cache)",
			   ": --load-cache reads it, and so do diff and health --baseline" },
	[IBS_FK_JSON_TOPOLOGY] = { "ibscan topology JSON", ": diff and health --baseline read it" },
	[IBS_FK_JSON_OTHER] = { "ibscan JSON of another kind than a topology",
				": diff and health --baseline read the output of ibscan topology --json" },
	[IBS_FK_NETFILE] = { "an ibnetdiscover topology file", ": diff and health --baseline read it" },
	[IBS_FK_PORTS] = { "ibnetdiscover -p output (a list of ports)", UNREAD },
	[IBS_FK_NODELIST] = { "ibnetdiscover -l output (a list of nodes, without cables)", UNREAD },
	[IBS_FK_LINKINFO] = { "iblinkinfo output", UNREAD },
	[IBS_FK_CAPTURE] = { "an ibscan capture", ": --replay reads it" },
};

char *ibs_file_kind_msg(const char *path, enum ibs_file_kind k, const char *wanted)
{
	if (k == IBS_FK_UNKNOWN || (size_t)k >= sizeof(kinds) / sizeof(kinds[0]) || !kinds[k].what)
		return NULL;
	return xasprintf("'%s' is %s, not %s%s", path, kinds[k].what, wanted, kinds[k].reader);
}
