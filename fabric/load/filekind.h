/*
 * What a file given to ibscan looks like, so that one given to the wrong
 * option is refused with what it is and which option reads it: the saved
 * topologies (ibscan JSON, ibnetdiscover's topology file and cache), ibscan
 * captures, and the outputs of other infiniband-diags tools that people
 * save next to them (`ibnetdiscover -p`, `-l`, iblinkinfo).
 */
#ifndef IBSCAN_FILEKIND_H
#define IBSCAN_FILEKIND_H

#include <stdbool.h>
#include <stddef.h>

/* The first bytes of a cache file (libibnetdisc writes its magic 0x8FE7832B in host order). */
#define IBS_CACHE_MAGIC_LE "\x2b\x83\xe7\x8f"
#define IBS_CACHE_MAGIC_BE "\x8f\xe7\x83\x2b"

enum ibs_file_kind {
	IBS_FK_UNKNOWN,
	IBS_FK_CACHE,         /* ibnetdiscover --cache */
	IBS_FK_JSON_TOPOLOGY, /* ibscan topology --json */
	IBS_FK_JSON_OTHER,    /* another ibscan JSON document (health, counters, ...) */
	IBS_FK_NETFILE,       /* ibnetdiscover's topology file, plain or -g/-f */
	IBS_FK_PORTS,         /* ibnetdiscover -p */
	IBS_FK_NODELIST,      /* ibnetdiscover -l/-H/-S/-R */
	IBS_FK_LINKINFO,      /* iblinkinfo */
	IBS_FK_CAPTURE,       /* an ibscan capture */
};

/* The kind of buf[0..n), from its first bytes and its first meaningful lines. */
enum ibs_file_kind ibs_file_kind_of(const char *buf, size_t n);
/* The kind of the regular file at path, from its first 64 KiB; UNKNOWN when it cannot be read. */
enum ibs_file_kind ibs_file_kind_path(const char *path);
/*
 * "'PATH' is KIND, not WANTED: what reads it" (or what to save instead), one line for an error (caller
 * frees); NULL for IBS_FK_UNKNOWN.
 */
char *ibs_file_kind_msg(const char *path, enum ibs_file_kind k, const char *wanted);

/*
 * A line that infiniband-diags wrote on stderr, found in a topology saved
 * with 2>&1: libibmad's and libibumad's "ibwarn: [pid] ...", "ibpanic:",
 * "ibdebug:", a tool's "NAME: iberror: ...", and libibnetdisc's
 * "FILE.c:LINE; ..." (IBND_ERROR: "src/query_smp.c:195; umad (DR path ...)
 * bad status 110; Connection timed out").
 */
bool ibs_is_diags_line(const char *line);

#endif
