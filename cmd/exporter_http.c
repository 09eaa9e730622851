/*
 * `ibscan exporter`'s HTTP side, on libmicrohttpd: /metrics (the latest
 * complete sweep, from memory), /healthz, bounded connections, idle time
 * and request size, and Prometheus exporter-toolkit's web config file
 * (tls_server_config cert_file/key_file, basic_auth_users with bcrypt
 * hashes checked by crypt(3)); whatever else that file asks is refused.
 */
#include "exporter.h"
#include "../core/base/file.h"
#include "../core/base/log.h"
#include "../core/base/xalloc.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <ctype.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#define WEB_CONFIG_MAX (64 * 1024)
#define PEM_MAX (1024 * 1024)
#define MAX_USERS 64
/* Bounds a request's line and headers (MHD answers 431/413 beyond). */
#define CONN_MEMORY (32 * 1024)

struct user {
	char *name, *hash;
	char *good;            /* the last password that matched (bcrypt is slow: once per password) */
};

struct exp_http {
	struct MHD_Daemon *d;
	struct exporter *x;
	struct user users[MAX_USERS];
	size_t n_users;
	pthread_mutex_t auth_mu;
	char *cert, *key;
};

/* A value of the web config, unquoted ('...' or "..."), trailing blanks cut. */
static char *yaml_value(char *v)
{
	size_t n;

	while (*v == ' ' || *v == '\t')
		v++;
	n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		v[--n] = '\0';
	if (n >= 2 && (v[0] == '\'' || v[0] == '"') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

/* A path in the web config, relative to the file's own folder (as exporter-toolkit reads it). */
static char *config_path(const char *cfg, const char *p)
{
	const char *slash = strrchr(cfg, '/');

	if (p[0] == '/' || !slash)
		return xstrdup(p);
	return xasprintf("%.*s/%s", (int)(slash - cfg), cfg, p);
}

/* Does crypt(3) take hash as a setting and give a hash of its form back? */
static bool crypt_takes(const char *hash)
{
	struct crypt_data *cd = xcalloc(1, sizeof(*cd));
	const char *r = crypt_r("ibscan-probe", hash, cd);
	/* A bcrypt hash is 60 characters whether hash was one or only its setting ($2y$NN$ and the salt). */
	bool ok = r && strlen(r) == 60 && !strncmp(r, hash, 7);

	free(cd);
	return ok;
}

/* Does this system's crypt(3) check bcrypt at all (a well-formed setting of cost 4)? */
static bool crypt_does_bcrypt(void)
{
	return crypt_takes("$2y$04$abcdefghijklmnopqrstuu") && crypt_takes("$2b$04$abcdefghijklmnopqrstuu");
}

static int load_pem(const char *cfg, const char *key, const char *v, char **out)
{
	char *path = config_path(cfg, v), *msg = NULL;
	size_t len;

	if (ibs_read_file(path, PEM_MAX, out, &len, &msg)) {
		log_error("%s: %s: %s", cfg, key, msg);
		free(msg);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/*
 * The web config file: a small YAML subset (top-level sections, indented
 * "key: value" lines, # comments), as exporter-toolkit's examples write it.
 */
static int web_config_load(struct exp_http *h, const char *path)
{
	char *buf = NULL, *msg = NULL, *line, *save = NULL;
	char section[32] = "";
	size_t len;
	unsigned lineno = 0;
	int rc = -1;

	if (ibs_read_file(path, WEB_CONFIG_MAX, &buf, &len, &msg)) {
		log_error("%s", msg);
		free(msg);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon, *k = line, *v;
		bool indented = line[0] == ' ' || line[0] == '\t';
		lineno++;
		while (*k == ' ' || *k == '\t')
			k++;
		if (*k == '#' || *k == '\0' || *k == '\r')
			continue;
		colon = strchr(k, ':');
		if (!colon) {
			log_error("%s:%u: expected 'key: value'", path, lineno);
			goto out;
		}
		*colon = '\0';
		v = yaml_value(colon + 1);
		if (!indented) {
			if (strcmp(k, "tls_server_config") && strcmp(k, "basic_auth_users") && strcmp(k, "http_server_config")) {
				log_error("%s:%u: '%s' is not a section of the web config file", path, lineno, k);
				goto out;
			}
			if (*v && strcmp(v, "{}")) {
				log_error("%s:%u: '%s' wants indented lines below it", path, lineno, k);
				goto out;
			}
			snprintf(section, sizeof(section), "%s", k);
			continue;
		}
		if (!strcmp(section, "basic_auth_users")) {
			if (h->n_users == MAX_USERS) {
				log_error("%s:%u: more than %d users", path, lineno, MAX_USERS);
				goto out;
			}
			if (strncmp(v, "$2", 2)) {
				log_error("%s:%u: the password of '%s' is not a bcrypt hash ($2y$...)", path, lineno, k);
				goto out;
			}
			if (!crypt_does_bcrypt()) {
				log_error("%s:%u: this system's crypt(3) cannot check bcrypt hashes: basic auth is not possible here",
					  path, lineno);
				goto out;
			}
			if (strlen(v) != 60 || !crypt_takes(v)) {
				log_error("%s:%u: the password of '%s' is not a well-formed bcrypt hash (60 characters, "
					  "$2y$NN$...)", path, lineno, k);
				goto out;
			}
			h->users[h->n_users].name = xstrdup(k);
			h->users[h->n_users].hash = xstrdup(v);
			h->n_users++;
		} else if (!strcmp(section, "tls_server_config") && !strcmp(k, "cert_file")) {
			if (h->cert || load_pem(path, k, v, &h->cert))
				goto out;
		} else if (!strcmp(section, "tls_server_config") && !strcmp(k, "key_file")) {
			if (h->key || load_pem(path, k, v, &h->key))
				goto out;
		} else if (!strcmp(section, "tls_server_config") && !strcmp(k, "min_version") &&
			   (!strcmp(v, "TLS12") || !strcmp(v, "TLS13"))) {
			; /* GnuTLS's defaults already refuse older */
		} else {
			log_error("%s:%u: '%s' in %s is not supported by ibscan (only tls_server_config cert_file, "
				  "key_file, and basic_auth_users)",
				  path, lineno, k, section[0] ? section : "the file");
			goto out;
		}
	}
	if (!h->cert != !h->key) {
		log_error("%s: TLS wants both cert_file and key_file", path);
		goto out;
	}
	if (h->cert && !MHD_is_feature_supported(MHD_FEATURE_TLS)) {
		log_error("%s: this libmicrohttpd was built without TLS: TLS is not possible here", path);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	return rc;
}

/* Constant-time string comparison (a timing side channel on passwords). */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < la && i < lb; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

static bool authorized(struct exp_http *h, struct MHD_Connection *conn)
{
	char *pass = NULL, *name;
	bool ok = false;
	size_t i;

	if (!h->n_users)
		return true;
	name = MHD_basic_auth_get_username_password(conn, &pass);
	if (!name || !pass)
		goto out;
	for (i = 0; i < h->n_users; i++) {
		struct user *u = &h->users[i];
		if (strcmp(u->name, name))
			continue;
		pthread_mutex_lock(&h->auth_mu);
		ok = u->good && same(u->good, pass);
		pthread_mutex_unlock(&h->auth_mu);
		if (!ok) {
			struct crypt_data *cd = xcalloc(1, sizeof(*cd));
			const char *r = crypt_r(pass, u->hash, cd);
			ok = r && same(r, u->hash);
			free(cd);
			if (ok) {
				pthread_mutex_lock(&h->auth_mu);
				free(u->good);
				u->good = xstrdup(pass);
				pthread_mutex_unlock(&h->auth_mu);
			}
		}
		break;
	}
out:
	if (name)
		MHD_free(name);
	if (pass)
		MHD_free(pass);
	return ok;
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result rc;

	MHD_add_response_header(r, "Content-Type", "text/plain; charset=utf-8");
	rc = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return rc;
}

/* What a /metrics response holds until MHD is done sending it. */
struct held {
	struct exporter *x;
	struct exp_doc *d;
	char *status;
	unsigned char *gz_head, trailer[8]; /* gzip: the status lines deflated, and the member's trailer */
};

static void release(void *cls)
{
	struct held *hd = cls;

	exp_doc_put(hd->x, hd->d);
	free(hd->status);
	free(hd->gz_head);
	free(hd);
}

/*
 * Whether an Accept-Encoding header value accepts gzip (RFC 9110 12.5.3):
 * a "gzip" or "x-gzip" coding whose q is not 0. Prometheus sends "gzip".
 */
static bool accepts_gzip(const char *v)
{
	while (v && *v) {
		size_t n;
		const char *q, *end;
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		n = strcspn(v, ";, \t");
		end = v + strcspn(v, ",");
		if ((n == 4 && !strncasecmp(v, "gzip", 4)) || (n == 6 && !strncasecmp(v, "x-gzip", 6))) {
			q = strstr(v, "q=");
			if (!q || q > end)
				return true;
			return strtod(q + 2, NULL) > 0;
		}
		v = end;
	}
	return false;
}

static enum MHD_Result metrics(struct exp_http *h, struct MHD_Connection *conn)
{
	struct held *hd = xcalloc(1, sizeof(*hd));
	struct prom_sweep_status st;
	struct MHD_IoVec iov[3];
	struct MHD_Response *r;
	size_t n, gn;
	unsigned niov = 2;
	bool gz;
	enum MHD_Result rc;

	hd->x = h->x;
	hd->d = exp_doc_get(h->x, &st);
	hd->status = render_exporter_status(&st, &n);
	iov[0].iov_base = hd->status;
	iov[0].iov_len = n;
	iov[1].iov_base = hd->d ? hd->d->body : "";
	iov[1].iov_len = hd->d ? hd->d->len : 0;
	/*
	 * gzip where asked: one member of the status lines, deflated now, and
	 * the sweep's page, deflated once when it was rendered (core/base/gzip.h).
	 */
	gz = accepts_gzip(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING)) &&
	     (!hd->d || hd->d->gz.data);
	if (gz)
		hd->gz_head = gz_head(hd->status, n, hd->d ? &hd->d->gz : NULL, &gn, hd->trailer);
	if (hd->gz_head) {
		iov[0].iov_base = hd->gz_head;
		iov[0].iov_len = gn;
		niov = 1;
		if (hd->d) {
			iov[1].iov_base = hd->d->gz.data;
			iov[1].iov_len = hd->d->gz.len;
			iov[2].iov_base = hd->trailer;
			iov[2].iov_len = sizeof(hd->trailer);
			niov = 3;
		}
	}
	r = MHD_create_response_from_iovec(iov, niov, release, hd);
	if (!r) {
		release(hd);
		return MHD_NO;
	}
	if (hd->gz_head)
		MHD_add_response_header(r, "Content-Encoding", "gzip");
	MHD_add_response_header(r, "Vary", "Accept-Encoding");
	MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	rc = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

static enum MHD_Result healthz(struct exp_http *h, struct MHD_Connection *conn)
{
	struct prom_sweep_status st;
	struct exp_doc *d = exp_doc_get(h->x, &st);
	char *text;
	enum MHD_Result rc;
	unsigned code = MHD_HTTP_OK;

	exp_doc_put(h->x, d);
	if (!st.have_data && !st.sweeps) {
		text = xstrdup("starting: the first sweep is under way\n");
		code = MHD_HTTP_SERVICE_UNAVAILABLE;
	} else if (st.last_ok) {
		text = xasprintf("ok: the latest sweep completed %.1f s ago\n", st.age_s);
	} else {
		pthread_mutex_lock(&h->x->mu);
		text = xasprintf("failing: the latest sweep failed (%s); %s\n",
				 h->x->last_error ? h->x->last_error : "see the log",
				 st.have_data ? "serving an older sweep" : "no sweep has completed");
		pthread_mutex_unlock(&h->x->mu);
		code = MHD_HTTP_SERVICE_UNAVAILABLE;
	}
	rc = reply(conn, code, text);
	free(text);
	return rc;
}

/* A marker for a request whose body is being thrown away (answered 413 at its end). */
static int body_seen;

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **req)
{
	struct exp_http *h = cls;
	static int started;

	(void)version;
	(void)upload;
	if (!*req) {
		*req = &started; /* the headers: wait for the end of the request */
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0; /* a scrape has no body: discarded, then refused */
		*req = &body_seen;
		return MHD_YES;
	}
	if (*req == &body_seen)
		return reply(conn, MHD_HTTP_CONTENT_TOO_LARGE, "requests here carry no body\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only\n");
	if (!authorized(h, conn)) {
		struct MHD_Response *r =
			MHD_create_response_from_buffer(13, (void *)"unauthorized\n", MHD_RESPMEM_PERSISTENT);
		enum MHD_Result rc = MHD_queue_basic_auth_fail_response(conn, "ibscan", r);
		MHD_destroy_response(r);
		return rc;
	}
	if (!strcmp(url, "/metrics"))
		return metrics(h, conn);
	if (!strcmp(url, "/healthz"))
		return healthz(h, conn);
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, "ibscan exporter: /metrics, /healthz\n");
	return reply(conn, MHD_HTTP_NOT_FOUND, "not found: /metrics, /healthz\n");
}

/* ADDR:PORT, [V6]:PORT or :PORT (every address) into ss. */
static int parse_listen(const char *s, struct sockaddr_storage *ss, bool *v6)
{
	char host[64];
	const char *colon, *port;
	struct addrinfo hints, *ai = NULL;
	char *end;
	unsigned long p;

	if (s[0] == '[') {
		const char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':' || (size_t)(rb - s - 1) >= sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(rb - s - 1), s + 1);
		port = rb + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon || (size_t)(colon - s) >= sizeof(host))
			goto bad;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - s), s);
		port = colon + 1;
	}
	p = strtoul(port, &end, 10);
	if (!*port || *end || p > 65535)
		goto bad;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host[0] ? host : NULL, port, &hints, &ai) || !ai)
		goto bad;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*v6 = ai->ai_family == AF_INET6;
	freeaddrinfo(ai);
	return 0;
bad:
	log_error("--listen wants ADDR:PORT, [IPV6]:PORT or :PORT (numeric), not '%s'", s);
	return -1;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[256];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_debug("http: %s", msg);
}

int exp_http_start(struct exporter *x, const struct exp_http_opts *o, struct exp_http **out)
{
	struct exp_http *h = xcalloc(1, sizeof(*h));
	struct sockaddr_storage ss;
	bool v6 = false;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	char addr[INET6_ADDRSTRLEN] = "?";

	*out = NULL;
	h->x = x;
	pthread_mutex_init(&h->auth_mu, NULL);
	if (parse_listen(o->listen, &ss, &v6) || (o->web_config && web_config_load(h, o->web_config))) {
		exp_http_stop(h);
		return -1;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	if (h->cert)
		flags |= MHD_USE_TLS;
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, o->max_conn, MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY, MHD_OPTION_THREAD_POOL_SIZE, 2u,
				MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, h->cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
				h->cert, MHD_OPTION_HTTPS_MEM_KEY, h->key, MHD_OPTION_END);
	if (!h->d) {
		log_error("cannot listen on '%s' (in use, or not an address of this host?)", o->listen);
		exp_http_stop(h);
		return -1;
	}
	info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	if (log_get_level() >= LOG_WARN)
		fprintf(stderr, "ibscan: exporter: listening on %s://%s%s%s:%u/metrics%s\n", h->cert ? "https" : "http",
			v6 ? "[" : "", addr, v6 ? "]" : "", info ? (unsigned)info->port : 0,
			h->n_users ? " (basic auth)" : "");
	*out = h;
	return 0;
}

void exp_http_stop(struct exp_http *h)
{
	size_t i;

	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	for (i = 0; i < h->n_users; i++) {
		free(h->users[i].name);
		free(h->users[i].hash);
		free(h->users[i].good);
	}
	free(h->cert);
	free(h->key);
	pthread_mutex_destroy(&h->auth_mu);
	free(h);
}
