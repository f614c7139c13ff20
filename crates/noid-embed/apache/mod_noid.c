/* mod_noid: noid's resolver as mod_rewrite internal map functions, in the worker
 * processes of Apache httpd 2.4 (no prg: program, no pipe, no global mutex).
 *
 *     LoadModule noid_module /usr/lib/apache2/modules/mod_noid.so
 *     NoidMap egg /srv/noid/kt5 miss=null            # per server or virtual host
 *     RewriteMap noidegg int:noid_egg                # instead of "prg:noidr ... egg"
 *
 * "NoidMap PROTOCOL DBDIR [KEY=VALUE ...]": PROTOCOL noid (map function noid_get, the
 * "get ID ELEM" lines of noid-get.conf) or egg (map function noid_egg, the "ID.resolve"
 * lines of noid-resolve.conf); options in noid_embed.h. A virtual host without its own
 * NoidMap of a protocol uses the main server's. The map answers what noidr answers on
 * the same line; "NULL" is not found, as for prg:.
 *
 *     NoidResolve "^/+(?:ark|doi):"                  # noid-resolve.conf sets it
 *
 * "NoidResolve REGEX" (or Off): a request whose decoded path matches REGEX is asked of
 * the server's egg map before mod_rewrite runs (translate_name, first), with the egg
 * request line noid-resolve.conf would make. The module sends the answer itself only
 * when the rules would send it unchanged: a 301, 302, 303, 307 or 308 to an absolute
 * http(s) URL, or a 404 (noid_map_redirect_plain). It declines everything else (a miss,
 * 410, a page, an error, a target mod_rewrite would change) and subrequests, and the
 * rules that follow answer those as before. A redirect so costs one lookup and none of
 * mod_rewrite's conditions.
 *
 * This file is only the shim: everything else is the Rust library noid-embed (linked in
 * statically), which resolves with the same code as noidr. Maps are opened in each child
 * after fork (child_init) and closed when the child exits, so a graceful restart opens
 * them anew in the new children.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_regex.h"
#include "apr_optional.h"
#include "apr_shm.h"
#include "apr_strings.h"
#include "mod_rewrite.h"

#include "noid_embed.h"

module AP_MODULE_DECLARE_DATA noid_module;
APLOG_USE_MODULE(noid);

/* One NoidMap directive. */
typedef struct noid_conf {
    const char *protocol;
    const char *dbdir;
    const char **opts;
    int nopts;
    noid_map *map; /* opened in the child */
    void *region;  /* answers shared by the children (made by the parent), or NULL */
    size_t region_len;
    int index;     /* in all_maps' order, from 0: its word in shared_words */
    struct noid_conf *next;
} noid_conf;

/* A server's maps, by protocol. */
typedef struct {
    noid_conf *get;
    noid_conf *egg;
    int resolve_set;      /* NoidResolve given for this server (Off included) */
    ap_regex_t *resolve;  /* NoidResolve's pattern, NULL when off */
} noid_server_conf;

/* Every NoidMap of the configuration being read (allocated in pconf, so the list is
 * started anew by pre_config at each restart). */
static noid_conf *all_maps;

/* One word per map shared by every child (made by the parent in post_config, before the
 * children are forked): a store stalled in one child makes the others answer at once. */
static apr_uint64_t *shared_words;

/* Where the library's log lines go: the main server's error log. */
static server_rec *log_server;

static void log_line(int level, const char *msg, size_t len)
{
    int ap = level <= NOID_LOG_ERROR  ? APLOG_ERR
             : level == NOID_LOG_WARN ? APLOG_WARNING
             : level == NOID_LOG_INFO ? APLOG_INFO
                                      : APLOG_DEBUG;
    ap_log_error(APLOG_MARK, ap, 0, log_server, "%.*s", (int)len, msg);
}

/* The library's log level from the main server's LogLevel for this module. */
static int log_level(server_rec *s)
{
    int l = APLOG_MODULE_INDEX >= 0 ? ap_get_server_module_loglevel(s, APLOG_MODULE_INDEX)
                                    : s->log.level;
    return l >= APLOG_DEBUG ? NOID_LOG_DEBUG
           : l >= APLOG_INFO ? NOID_LOG_INFO
           : l >= APLOG_WARNING ? NOID_LOG_WARN
                                : NOID_LOG_ERROR;
}

static void *create_server_conf(apr_pool_t *p, server_rec *s)
{
    (void)s;
    return apr_pcalloc(p, sizeof(noid_server_conf));
}

static void *merge_server_conf(apr_pool_t *p, void *basev, void *addv)
{
    noid_server_conf *base = basev, *add = addv;
    noid_server_conf *c = apr_pcalloc(p, sizeof(*c));
    c->get = add->get ? add->get : base->get;
    c->egg = add->egg ? add->egg : base->egg;
    c->resolve_set = add->resolve_set || base->resolve_set;
    c->resolve = add->resolve_set ? add->resolve : base->resolve;
    return c;
}

/* NoidMap PROTOCOL DBDIR [KEY=VALUE ...]: checked now, opened in each child. */
static const char *set_map(cmd_parms *cmd, void *dummy, int argc, char *const argv[])
{
    (void)dummy;
    noid_server_conf *sc = ap_get_module_config(cmd->server->module_config, &noid_module);
    char err[512];
    if (argc < 2) {
        return "NoidMap: PROTOCOL (noid or egg) and DBDIR expected";
    }
    if (noid_map_check(argv[0], argv[1], (const char *const *)argv + 2, (size_t)(argc - 2),
                       err, sizeof err) != 0) {
        return apr_psprintf(cmd->pool, "NoidMap: %s", err);
    }
    noid_conf *c = apr_pcalloc(cmd->pool, sizeof(*c));
    c->protocol = apr_pstrdup(cmd->pool, argv[0]);
    c->dbdir = apr_pstrdup(cmd->pool, argv[1]);
    c->nopts = argc - 2;
    c->opts = apr_pcalloc(cmd->pool, sizeof(char *) * (size_t)(c->nopts + 1));
    for (int i = 0; i < c->nopts; i++) {
        c->opts[i] = apr_pstrdup(cmd->pool, argv[i + 2]);
    }
    noid_conf **slot = strcmp(c->protocol, "egg") == 0 ? &sc->egg : &sc->get;
    if (*slot) {
        return apr_psprintf(cmd->pool, "NoidMap: a second %s map for this server", c->protocol);
    }
    *slot = c;
    c->index = all_maps ? all_maps->index + 1 : 0;
    c->next = all_maps;
    all_maps = c;
    return NULL;
}

/* NoidResolve REGEX|Off: the decoded paths whose requests the module may answer itself. */
static const char *set_resolve(cmd_parms *cmd, void *dummy, const char *arg)
{
    (void)dummy;
    noid_server_conf *sc = ap_get_module_config(cmd->server->module_config, &noid_module);
    sc->resolve_set = 1;
    sc->resolve = NULL;
    if (ap_cstr_casecmp(arg, "off") == 0) {
        return NULL;
    }
    sc->resolve = ap_pregcomp(cmd->pool, arg, 0);
    if (sc->resolve == NULL) {
        return apr_psprintf(cmd->pool, "NoidResolve: cannot compile the pattern %s", arg);
    }
    return NULL;
}

/* NoidResolve: a redirect (or 404) sent before mod_rewrite's rules, when they would send
 * the same; DECLINED leaves the request to them (see the top of the file). */
static int resolve(request_rec *r)
{
    noid_server_conf *sc = ap_get_module_config(r->server->module_config, &noid_module);
    const char *scheme, *accept, *user_agent, *location;
    size_t loclen;
    int status;
    /* The rules ask only for an origin-form request-target (THE_REQUEST's "/+..."). */
    if (sc->resolve == NULL || r->main != NULL || r->prev != NULL || r->unparsed_uri == NULL
        || r->unparsed_uri[0] != '/' || r->uri == NULL) {
        return DECLINED;
    }
    if (sc->egg == NULL || sc->egg->map == NULL
        || ap_regexec(sc->resolve, r->uri, 0, NULL, 0) != 0) {
        return DECLINED;
    }
    scheme = ap_http_scheme(r);
    accept = apr_table_get(r->headers_in, "Accept");
    if (accept == NULL) {
        accept = "";
    }
    user_agent = apr_table_get(r->headers_in, "User-Agent");
    if (noid_map_redirect_plain(sc->egg->map, r->unparsed_uri, strlen(r->unparsed_uri), scheme,
                                strlen(scheme), accept, strlen(accept), user_agent,
                                user_agent == NULL ? 0 : strlen(user_agent), &status,
                                &location, &loclen) != NOID_FOUND) {
        return DECLINED;
    }
    if (status == HTTP_NOT_FOUND) {
        return HTTP_NOT_FOUND;
    }
    apr_table_setn(r->headers_out, "Location", apr_pstrmemdup(r->pool, location, loclen));
    /* The redirect's signposts ("signposting on"): an error response (a 3xx returned
     * here is one) keeps err_headers_out. */
    noid_map_link(&location, &loclen);
    if (loclen > 0) {
        apr_table_setn(r->err_headers_out, "Link", apr_pstrmemdup(r->pool, location, loclen));
    }
    return status;
}

/* The answer to `key` from this server's map of the protocol; NULL when not found. */
static char *lookup(request_rec *r, char *key, int egg)
{
    noid_server_conf *sc = ap_get_module_config(r->server->module_config, &noid_module);
    noid_conf *c = egg ? sc->egg : sc->get;
    const char *answer;
    size_t len;
    if (c == NULL || c->map == NULL) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "no NoidMap %s for this server (RewriteMap int:noid_%s)",
                      egg ? "egg" : "noid", egg ? "egg" : "get");
        return NULL;
    }
    if (noid_map_answer(c->map, key, strlen(key), &answer, &len) == NOID_NOT_FOUND) {
        return NULL;
    }
    return apr_pstrmemdup(r->pool, answer, len);
}

static char *map_get(request_rec *r, char *key)
{
    return lookup(r, key, 0);
}

static char *map_egg(request_rec *r, char *key)
{
    return lookup(r, key, 1);
}

/* After mod_rewrite's pre_config (which makes its table of map functions), before the
 * configuration's RewriteMap lines are read. */
static int pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp)
{
    (void)pconf;
    (void)ptemp;
    APR_OPTIONAL_FN_TYPE(ap_register_rewrite_mapfunc) *reg =
        APR_RETRIEVE_OPTIONAL_FN(ap_register_rewrite_mapfunc);
    all_maps = NULL;
    if (reg == NULL) {
        ap_log_perror(APLOG_MARK, APLOG_CRIT, 0, plog,
                      "mod_noid needs mod_rewrite (LoadModule rewrite_module ...)");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    reg("noid_get", map_get);
    reg("noid_egg", map_egg);
    return OK;
}

/* In the parent, at every (re)start: the shared word, in pconf's lifetime. */
static int post_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp, server_rec *s)
{
    apr_shm_t *shm;
    apr_status_t rv;
    (void)plog;
    (void)ptemp;
    shared_words = NULL;
    if (all_maps == NULL) {
        return OK;
    }
    rv = apr_shm_create(&shm, sizeof(apr_uint64_t) * (size_t)(all_maps->index + 1), NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s,
                     "mod_noid: no shared memory: a stalled store is noticed by each child alone");
        return OK;
    }
    shared_words = apr_shm_baseaddr_get(shm);
    memset(shared_words, 0, sizeof(apr_uint64_t) * (size_t)(all_maps->index + 1));
    /* Each map's answers, kept by the children for one another (shared-answers=). */
    for (noid_conf *c = all_maps; c; c = c->next) {
        size_t len = noid_map_region_bytes(c->protocol, c->dbdir, c->opts, (size_t)c->nopts);
        c->region = NULL;
        c->region_len = 0;
        if (len == 0) {
            continue;
        }
        rv = apr_shm_create(&shm, len, NULL, pconf);
        if (rv != APR_SUCCESS) {
            ap_log_error(APLOG_MARK, APLOG_WARNING, rv, s,
                         "mod_noid: no shared memory for NoidMap %s %s's answers: each child "
                         "keeps its own", c->protocol, c->dbdir);
            continue;
        }
        /* New anonymous shared memory is zeroed by the kernel: not written here, so that
         * its pages are taken only as answers fill them. */
        c->region = apr_shm_baseaddr_get(shm);
        c->region_len = len;
    }
    return OK;
}

static apr_status_t close_maps(void *data)
{
    (void)data;
    for (noid_conf *c = all_maps; c; c = c->next) {
        noid_map_close(c->map);
        c->map = NULL;
    }
    return APR_SUCCESS;
}

/* In each child, after fork: the maps' threads belong to this process. */
static void child_init(apr_pool_t *pchild, server_rec *s)
{
    char err[512];
    log_server = s;
    noid_embed_set_log(log_line, log_level(s));
    for (noid_conf *c = all_maps; c; c = c->next) {
        c->map = noid_map_open(c->protocol, c->dbdir, c->opts, (size_t)c->nopts,
                               shared_words ? (uint64_t *)&shared_words[c->index] : NULL,
                               c->region, c->region_len, err, sizeof err);
        if (c->map == NULL) {
            ap_log_error(APLOG_MARK, APLOG_ERR, 0, s, "NoidMap %s %s: %s", c->protocol,
                         c->dbdir, err);
        }
    }
    apr_pool_cleanup_register(pchild, NULL, close_maps, apr_pool_cleanup_null);
}

static void register_hooks(apr_pool_t *p)
{
    static const char *const after_rewrite[] = {"mod_rewrite.c", NULL};
    static const char *const before_rewrite[] = {"mod_rewrite.c", NULL};
    (void)p;
    ap_hook_pre_config(pre_config, after_rewrite, NULL, APR_HOOK_MIDDLE);
    ap_hook_translate_name(resolve, NULL, before_rewrite, APR_HOOK_FIRST);
    ap_hook_post_config(post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(child_init, NULL, NULL, APR_HOOK_MIDDLE);
}

static const command_rec noid_cmds[] = {
    AP_INIT_TAKE_ARGV("NoidMap", set_map, NULL, RSRC_CONF,
                      "NoidMap noid|egg DBDIR [KEY=VALUE ...]: a minter directory answered "
                      "by RewriteMap int:noid_get or int:noid_egg"),
    AP_INIT_TAKE1("NoidResolve", set_resolve, NULL, RSRC_CONF,
                  "NoidResolve REGEX|Off: requests whose path matches are answered from the "
                  "egg map before mod_rewrite when its rules would answer the same"),
    {NULL},
};

module AP_MODULE_DECLARE_DATA noid_module = {
    STANDARD20_MODULE_STUFF,
    NULL,               /* per-directory config */
    NULL,               /* merge per-directory */
    create_server_conf, /* per-server config */
    merge_server_conf,  /* merge per-server */
    noid_cmds,
    register_hooks,
    0, /* flags */
};
