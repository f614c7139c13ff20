/* noid_embed.h: the noid resolver inside a web server's worker process (crate noid-embed).
 *
 * A map answers one key of noidr's line protocols (noid "get ID ELEM", egg
 * "ID.resolve HEADERS") with the line noidr would answer, from a minter directory that
 * it follows as noidr does (a write is seen at the next lookup). Open maps in each worker
 * process after fork (Apache: child_init; nginx: init_process): a map has threads.
 * Every function catches Rust panics: none crosses into the server.
 */
#ifndef NOID_EMBED_H
#define NOID_EMBED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct noid_map noid_map;

/* Log levels passed to the log function. */
#define NOID_LOG_ERROR 1
#define NOID_LOG_WARN 2
#define NOID_LOG_INFO 3
#define NOID_LOG_DEBUG 4
#define NOID_LOG_TRACE 5

/* What noid_map_answer found. */
#define NOID_FOUND 1      /* a value */
#define NOID_NOT_FOUND 0  /* "NULL", or a key holding a newline (as mod_rewrite's prg:) */
#define NOID_ERROR (-1)   /* an "error: ..." line: store unreadable, deadline, panic */

/* Where log lines go (the server's error log): level, message (not NUL-terminated),
 * its length. May be called from any thread, also the map's own. */
typedef void (*noid_log_fn)(int level, const char *msg, size_t len);

/* Route the library's log lines to `log` up to `max_level` (replacing an earlier
 * function; NULL: no logging). */
void noid_embed_set_log(noid_log_fn log, int max_level);

/* Check a map's configuration without opening anything: protocol "noid" or "egg", the
 * minter directory, `nopts` words KEY=VALUE (miss=, rules=, registry=, deadline=,
 * cache-mb=, thread-cache=, answer-cache=, shared-answers=, secondary-dir=). 0 when
 * good; else -1 and a NUL-terminated message in err (at most errlen bytes). */
int noid_map_check(const char *protocol, const char *dbdir, const char *const *opts,
                   size_t nopts, char *err, size_t errlen);

/* Open a map (as noid_map_check, then the deadline's watchdog started; the store is
 * opened by the first lookup, under the deadline, and followed from then on). `shared`: NULL, or 8 bytes of memory shared by all the server's worker
 * processes (made by the parent before fork, zeroed, mapped while the map is open),
 * through which a store stalled in one process makes the others answer errors at once.
 * `region`: NULL, or region_len bytes of such memory (8-aligned, zeroed, used by nothing
 * else; noid_map_region_bytes says how many), where the processes keep answers for one
 * another. NULL with a message in err when the configuration is bad; a store that
 * cannot be opened yet is not an error (lookups answer errors until it can). */
noid_map *noid_map_open(const char *protocol, const char *dbdir, const char *const *opts,
                        size_t nopts, uint64_t *shared, void *region, size_t region_len,
                        char *err, size_t errlen);

/* Bytes of shared memory a map of this configuration keeps answers in for all the
 * server's worker processes (its shared-answers= option; 0: none, or a bad
 * configuration). The parent maps them before fork and passes them to noid_map_open. */
size_t noid_map_region_bytes(const char *protocol, const char *dbdir,
                             const char *const *opts, size_t nopts);

/* Answer `key` (keylen bytes, one request line without its newline). Sets *answer and
 * *len to the answer line without its newline, valid until this thread's next call of
 * noid_map_answer; returns NOID_FOUND, NOID_NOT_FOUND (the answer is "NULL") or
 * NOID_ERROR. */
int noid_map_answer(noid_map *map, const char *key, size_t keylen, const char **answer,
                    size_t *len);

/* Answer an HTTP request from an egg map (the nginx module): the request line made as
 * noid-resolve.conf makes it in Apache from the raw request-target (path and query as
 * received), the scheme and the Accept header; the User-Agent header (NULL without one)
 * only classes the asker for the map's counts= (a robot or a person). NOID_FOUND: *status is the code to
 * answer (3xx with Location *location, without control characters but TAB: no header
 * injection; 404 or 410), or 0 for a page that only
 * `noidr --http` renders (?, ??, several targets); NOID_NOT_FOUND: a miss;
 * NOID_ERROR: *location is the error line. *location stays valid until this thread's
 * next lookup. */
int noid_map_redirect(noid_map *map, const char *target, size_t tlen, const char *scheme,
                      size_t slen, const char *accept, size_t alen, const char *user_agent,
                      size_t ualen, int *status, const char **location, size_t *loclen);

/* As noid_map_redirect, for a web server whose own rules answer everything else
 * (mod_noid's NoidResolve, before noid-resolve.conf's rules): NOID_FOUND only when the
 * rules would send the answer unchanged, *status 301, 302, 303, 307 or 308 with an
 * absolute http(s) Location of visible ASCII not ending in "?", or 404; NOID_NOT_FOUND
 * for anything else (a miss, 410, a page, an error, a target the rules would change). */
int noid_map_redirect_plain(noid_map *map, const char *target, size_t tlen,
                            const char *scheme, size_t slen, const char *accept,
                            size_t alen, const char *user_agent, size_t ualen, int *status,
                            const char **location, size_t *loclen);

/* The Link header's value (FAIR Signposting, "signposting on" in the rules file) of
 * this thread's last noid_map_redirect or noid_map_redirect_plain that found a
 * signposted redirect: *len 0 when it has none. *link stays valid until this thread's
 * next lookup. Visible ASCII and spaces only (its URLs are %-encoded). */
void noid_map_link(const char **link, size_t *len);

/* Close a map: its threads end, its secondaries' directories are removed. */
void noid_map_close(noid_map *map);

#ifdef __cplusplus
}
#endif

#endif
