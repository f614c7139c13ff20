/* ngx_http_noid_module: noid's resolver in nginx's worker processes (no subrequest, no
 * proxy hop): a directive that sends the redirect itself, or variables that `if` and
 * `return` use.
 *
 *     load_module /usr/lib/nginx/modules/ngx_http_noid_module.so;
 *     server {
 *         noid_map egg /srv/noid/kt5;          # per server or location; options as mod_noid's
 *         include /usr/share/noid/nginx-conf/noid-module-resolve.conf;  # noid_resolve on
 *         # or: include /usr/share/noid/nginx-conf/noid-module.conf;    # the variables
 *     }
 *
 * noid_resolve on: a handler of the rewrite phase (it runs before the location's own
 * `if`, `rewrite` and `return`, which answer what it declines) answers a redirect
 * (301, 302, 303, 307, 308; another 3xx as 302) with its Location, a stored 404 with
 * nginx's 404, a withdrawn identifier (410) and a page by an internal redirect to
 * /.noid-gone and /.noid-page (noid-module-pages.conf or noid-module-local.conf); it
 * declines a miss, an error (a store that failed or stalled past the deadline), a
 * location where it is off, and internal requests (its own fallbacks, subrequests).
 *
 * $noid_status: the code to answer (301, 302, 303, 307, 308, 404, 410), "page" for an
 * answer only `noidr --http` renders (?, ??, several targets), "" for a miss or an
 * error; $noid_target: the redirect's target. Both come from one lookup per request
 * (kept in the request's context), the egg request line made from the raw request
 * line exactly as noid-resolve.conf makes it in Apache, answered by the Rust library
 * noid-embed (linked in statically) with the code noidr runs. Maps are opened in each
 * worker process (init_process) and closed when it exits.
 */
#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>

#include "noid_embed.h"

/* One noid_map directive. */
typedef struct ngx_http_noid_map_s {
    ngx_str_t protocol;
    ngx_str_t dbdir;
    ngx_array_t *opts; /* of char *, NUL-terminated */
    noid_map *map;     /* opened in the worker */
} ngx_http_noid_map_t;

typedef struct {
    ngx_http_noid_map_t *map;
    ngx_flag_t resolve; /* noid_resolve */
} ngx_http_noid_loc_conf_t;

typedef struct {
    ngx_array_t maps; /* of ngx_http_noid_map_t *: every noid_map, to open */
    ngx_shm_zone_t *zone; /* the word shared by the workers (a stalled store) */
} ngx_http_noid_main_conf_t;

/* One request's answer. */
typedef struct {
    ngx_int_t code;   /* 3xx, 404, 410; NGX_HTTP_NOID_PAGE; 0: a miss or an error */
    ngx_str_t status; /* $noid_status */
    ngx_str_t target; /* $noid_target */
    ngx_str_t link;   /* $noid_link: the redirect's signposts ("signposting on"), or empty */
} ngx_http_noid_ctx_t;

/* ctx->code of an answer that is a page (?, ??, several targets). */
#define NGX_HTTP_NOID_PAGE 1

static ngx_int_t ngx_http_noid_add_variables(ngx_conf_t *cf);
static ngx_int_t ngx_http_noid_init(ngx_conf_t *cf);
static void *ngx_http_noid_create_main_conf(ngx_conf_t *cf);
static void *ngx_http_noid_create_loc_conf(ngx_conf_t *cf);
static char *ngx_http_noid_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child);
static char *ngx_http_noid_map(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);
static ngx_int_t ngx_http_noid_init_process(ngx_cycle_t *cycle);
static void ngx_http_noid_exit_process(ngx_cycle_t *cycle);

static ngx_command_t ngx_http_noid_commands[] = {
    {ngx_string("noid_map"), NGX_HTTP_SRV_CONF | NGX_HTTP_LOC_CONF | NGX_CONF_2MORE,
     ngx_http_noid_map, NGX_HTTP_LOC_CONF_OFFSET, 0, NULL},
    {ngx_string("noid_resolve"),
     NGX_HTTP_MAIN_CONF | NGX_HTTP_SRV_CONF | NGX_HTTP_LOC_CONF | NGX_CONF_FLAG,
     ngx_conf_set_flag_slot, NGX_HTTP_LOC_CONF_OFFSET,
     offsetof(ngx_http_noid_loc_conf_t, resolve), NULL},
    ngx_null_command,
};

static ngx_http_module_t ngx_http_noid_module_ctx = {
    ngx_http_noid_add_variables,    /* preconfiguration */
    ngx_http_noid_init,             /* postconfiguration */
    ngx_http_noid_create_main_conf, /* create main configuration */
    NULL,                           /* init main configuration */
    NULL,                           /* create server configuration */
    NULL,                           /* merge server configuration */
    ngx_http_noid_create_loc_conf,  /* create location configuration */
    ngx_http_noid_merge_loc_conf,   /* merge location configuration */
};

ngx_module_t ngx_http_noid_module = {
    NGX_MODULE_V1,
    &ngx_http_noid_module_ctx,   /* module context */
    ngx_http_noid_commands,      /* module directives */
    NGX_HTTP_MODULE,             /* module type */
    NULL,                        /* init master */
    NULL,                        /* init module */
    ngx_http_noid_init_process,  /* init process */
    NULL,                        /* init thread */
    NULL,                        /* exit thread */
    ngx_http_noid_exit_process,  /* exit process */
    NULL,                        /* exit master */
    NGX_MODULE_V1_PADDING,
};

/* The cycle whose error log receives the library's lines (the worker's). */
static ngx_log_t *noid_log;

static void ngx_http_noid_log(int level, const char *msg, size_t len)
{
    ngx_uint_t l = level <= NOID_LOG_ERROR  ? NGX_LOG_ERR
                   : level == NOID_LOG_WARN ? NGX_LOG_WARN
                   : level == NOID_LOG_INFO ? NGX_LOG_INFO
                                            : NGX_LOG_DEBUG;
    if (noid_log) {
        ngx_log_error(l, noid_log, 0, "%*s", len, msg);
    }
}

/* The request's answer: looked up at the first read of either variable. */
static ngx_http_noid_ctx_t *ngx_http_noid_answer(ngx_http_request_t *r)
{
    ngx_http_noid_ctx_t *ctx = ngx_http_get_module_ctx(r, ngx_http_noid_module);
    ngx_http_noid_loc_conf_t *lc;
    ngx_str_t scheme = ngx_string("http"), accept = ngx_null_string;
    ngx_list_part_t *part;
    ngx_table_elt_t *h, *ua;
    const char *loc;
    size_t loclen;
    int status = 0, found;
    ngx_uint_t i;

    if (ctx) {
        return ctx;
    }
    ctx = ngx_pcalloc(r->pool, sizeof(*ctx));
    if (ctx == NULL) {
        return NULL;
    }
    ngx_http_set_ctx(r, ctx, ngx_http_noid_module);
    lc = ngx_http_get_module_loc_conf(r, ngx_http_noid_module);
    if (lc->map == NULL || lc->map->map == NULL) {
        ngx_log_error(NGX_LOG_ERR, r->connection->log, 0,
                      "$noid_status read where no noid_map is configured or opened");
        return ctx;
    }
#if (NGX_HTTP_SSL)
    if (r->connection->ssl) {
        ngx_str_set(&scheme, "https");
    }
#endif
    for (part = &r->headers_in.headers.part; part; part = part->next) {
        h = part->elts;
        for (i = 0; i < part->nelts; i++) {
            if (h[i].key.len == 6 && ngx_strncasecmp(h[i].key.data, (u_char *)"accept", 6) == 0) {
                accept = h[i].value;
            }
        }
    }
    /* Only to class the asker for counts= (nginx keeps the header it parsed). */
    ua = r->headers_in.user_agent;
    found = noid_map_redirect(lc->map->map, (const char *)r->unparsed_uri.data,
                              r->unparsed_uri.len, (const char *)scheme.data, scheme.len,
                              (const char *)accept.data, accept.len,
                              ua == NULL ? NULL : (const char *)ua->value.data,
                              ua == NULL ? 0 : ua->value.len, &status, &loc, &loclen);
    if (found == NOID_ERROR) {
        ngx_log_error(NGX_LOG_INFO, r->connection->log, 0, "noid: %*s", loclen, loc);
        return ctx;
    }
    if (found != NOID_FOUND) {
        return ctx;
    }
    if (status == 0) {
        ctx->code = NGX_HTTP_NOID_PAGE;
        ngx_str_set(&ctx->status, "page");
        return ctx;
    }
    ctx->code = status;
    ctx->status.data = ngx_pnalloc(r->pool, NGX_INT_T_LEN);
    ctx->target.data = ngx_pnalloc(r->pool, loclen + 1);
    if (ctx->status.data == NULL || ctx->target.data == NULL) {
        return NULL;
    }
    ctx->status.len = ngx_sprintf(ctx->status.data, "%d", status) - ctx->status.data;
    ngx_memcpy(ctx->target.data, loc, loclen);
    ctx->target.len = loclen;
    noid_map_link(&loc, &loclen);
    if (loclen > 0) {
        ctx->link.data = ngx_pnalloc(r->pool, loclen);
        if (ctx->link.data == NULL) {
            return NULL;
        }
        ngx_memcpy(ctx->link.data, loc, loclen);
        ctx->link.len = loclen;
    }
    return ctx;
}

/* $noid_status (data 0), $noid_target (data 1) and $noid_link (data 2). */
static ngx_int_t ngx_http_noid_variable(ngx_http_request_t *r, ngx_http_variable_value_t *v,
                                        uintptr_t data)
{
    ngx_http_noid_ctx_t *ctx = ngx_http_noid_answer(r);
    ngx_str_t *s;
    if (ctx == NULL) {
        return NGX_ERROR;
    }
    s = data == 0 ? &ctx->status : data == 1 ? &ctx->target : &ctx->link;
    v->data = s->data;
    v->len = s->len;
    v->valid = 1;
    v->no_cacheable = 0;
    v->not_found = 0;
    return NGX_OK;
}

static ngx_int_t ngx_http_noid_add_variables(ngx_conf_t *cf)
{
    static ngx_str_t names[] = {ngx_string("noid_status"), ngx_string("noid_target"),
                                ngx_string("noid_link")};
    ngx_http_variable_t *v;
    uintptr_t i;
    for (i = 0; i < 3; i++) {
        v = ngx_http_add_variable(cf, &names[i], NGX_HTTP_VAR_NOHASH);
        if (v == NULL) {
            return NGX_ERROR;
        }
        v->get_handler = ngx_http_noid_variable;
        v->data = i;
    }
    return NGX_OK;
}

/* Hand the request to one of the fallback locations (their URI, with the request's own
 * arguments: the fallbacks proxy $request_uri, the raw request line). */
static ngx_int_t ngx_http_noid_fallback(ngx_http_request_t *r, ngx_str_t *uri)
{
    (void)ngx_http_internal_redirect(r, uri, &r->args);
    ngx_http_finalize_request(r, NGX_DONE);
    return NGX_DONE;
}

/* noid_resolve on: the request answered from its one lookup (see the top of the file). */
static ngx_int_t ngx_http_noid_handler(ngx_http_request_t *r)
{
    static ngx_str_t page = ngx_string("/.noid-page"), gone = ngx_string("/.noid-gone");
    ngx_http_noid_loc_conf_t *lc = ngx_http_get_module_loc_conf(r, ngx_http_noid_module);
    ngx_http_noid_ctx_t *ctx;
    ngx_int_t code;

    if (!lc->resolve || r->internal) {
        return NGX_DECLINED;
    }
    ctx = ngx_http_noid_answer(r);
    if (ctx == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }
    code = ctx->code;
    switch (code) {
    case 0:
        return NGX_DECLINED;
    case NGX_HTTP_NOID_PAGE:
        return ngx_http_noid_fallback(r, &page);
    case 410: /* Gone (no NGX_HTTP_GONE in nginx 1.22) */
        return ngx_http_noid_fallback(r, &gone);
    case NGX_HTTP_NOT_FOUND:
        return NGX_HTTP_NOT_FOUND;
    case NGX_HTTP_MOVED_PERMANENTLY:
    case NGX_HTTP_MOVED_TEMPORARILY:
    case NGX_HTTP_SEE_OTHER:
    case NGX_HTTP_TEMPORARY_REDIRECT:
    case NGX_HTTP_PERMANENT_REDIRECT:
        break;
    default:
        code = NGX_HTTP_MOVED_TEMPORARILY; /* any other 3xx, as noid-module.conf */
    }
    /* as ngx_http_send_response does for `return 3xx URL` */
    ngx_http_clear_location(r);
    r->headers_out.location = ngx_list_push(&r->headers_out.headers);
    if (r->headers_out.location == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }
    r->headers_out.location->hash = 1;
#if (nginx_version >= 1023000)
    r->headers_out.location->next = NULL;
#endif
    ngx_str_set(&r->headers_out.location->key, "Location");
    r->headers_out.location->value = ctx->target;
    if (ctx->link.len > 0) {
        ngx_table_elt_t *link = ngx_list_push(&r->headers_out.headers);
        if (link == NULL) {
            return NGX_HTTP_INTERNAL_SERVER_ERROR;
        }
        link->hash = 1;
#if (nginx_version >= 1023000)
        link->next = NULL;
#endif
        ngx_str_set(&link->key, "Link");
        link->value = ctx->link;
    }
    return code;
}

/* The handler joins the rewrite phase: registered after ngx_http_rewrite_module's (a
 * dynamic module comes after the static ones), it runs before it. */
static ngx_int_t ngx_http_noid_init(ngx_conf_t *cf)
{
    ngx_http_core_main_conf_t *cmcf = ngx_http_conf_get_module_main_conf(cf, ngx_http_core_module);
    ngx_http_handler_pt *h = ngx_array_push(&cmcf->phases[NGX_HTTP_REWRITE_PHASE].handlers);
    if (h == NULL) {
        return NGX_ERROR;
    }
    *h = ngx_http_noid_handler;
    return NGX_OK;
}

static void *ngx_http_noid_create_main_conf(ngx_conf_t *cf)
{
    ngx_http_noid_main_conf_t *mc = ngx_pcalloc(cf->pool, sizeof(*mc));
    if (mc == NULL
        || ngx_array_init(&mc->maps, cf->pool, 4, sizeof(ngx_http_noid_map_t *)) != NGX_OK) {
        return NULL;
    }
    return mc;
}

static void *ngx_http_noid_create_loc_conf(ngx_conf_t *cf)
{
    ngx_http_noid_loc_conf_t *lc = ngx_pcalloc(cf->pool, sizeof(*lc));
    if (lc == NULL) {
        return NULL;
    }
    lc->map = NGX_CONF_UNSET_PTR;
    lc->resolve = NGX_CONF_UNSET;
    return lc;
}

static char *ngx_http_noid_merge_loc_conf(ngx_conf_t *cf, void *parent, void *child)
{
    ngx_http_noid_loc_conf_t *prev = parent, *lc = child;
    ngx_conf_merge_ptr_value(lc->map, prev->map, NULL);
    ngx_conf_merge_value(lc->resolve, prev->resolve, 0);
    if (lc->resolve && lc->map == NULL) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0,
                           "noid_resolve on needs a noid_map in the same or an outer block");
        return NGX_CONF_ERROR;
    }
    return NGX_CONF_OK;
}

/* A NUL-terminated copy of s. */
static char *ngx_http_noid_cstr(ngx_pool_t *pool, ngx_str_t *s)
{
    char *c = ngx_pnalloc(pool, s->len + 1);
    if (c) {
        ngx_memcpy(c, s->data, s->len);
        c[s->len] = '\0';
    }
    return c;
}

/* Maps that get a shared word (a stall told to the other workers); more maps do without. */
#define NGX_HTTP_NOID_SHARED 64

/* The shared zone's words, one per map, allocated once (kept across reloads). */
static ngx_int_t ngx_http_noid_init_zone(ngx_shm_zone_t *zone, void *data)
{
    ngx_slab_pool_t *pool = (ngx_slab_pool_t *)zone->shm.addr;
    uint64_t *words;
    if (data) {
        zone->data = data;
        return NGX_OK;
    }
    words = ngx_slab_calloc(pool, sizeof(uint64_t) * NGX_HTTP_NOID_SHARED);
    if (words == NULL) {
        return NGX_ERROR;
    }
    zone->data = words;
    return NGX_OK;
}

/* noid_map PROTOCOL DBDIR [KEY=VALUE ...]: checked now, opened in each worker. */
static char *ngx_http_noid_map(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_noid_loc_conf_t *lc = conf;
    ngx_http_noid_main_conf_t *mc = ngx_http_conf_get_module_main_conf(cf, ngx_http_noid_module);
    ngx_str_t *args = cf->args->elts;
    ngx_http_noid_map_t *m, **slot;
    char err[512], **opt;
    ngx_uint_t i;
    (void)cmd;

    if (lc->map != NGX_CONF_UNSET_PTR) {
        return "is duplicate";
    }
    if (args[1].len != 3 || ngx_strncmp(args[1].data, "egg", 3) != 0) {
        return "speaks the egg protocol only: noid_map egg DBDIR [KEY=VALUE ...]";
    }
    m = ngx_pcalloc(cf->pool, sizeof(*m));
    if (m == NULL) {
        return NGX_CONF_ERROR;
    }
    m->protocol = args[1];
    m->dbdir = args[2];
    m->opts = ngx_array_create(cf->pool, cf->args->nelts, sizeof(char *));
    if (m->opts == NULL) {
        return NGX_CONF_ERROR;
    }
    for (i = 3; i < cf->args->nelts; i++) {
        opt = ngx_array_push(m->opts);
        if (opt == NULL || (*opt = ngx_http_noid_cstr(cf->pool, &args[i])) == NULL) {
            return NGX_CONF_ERROR;
        }
    }
    if (noid_map_check(ngx_http_noid_cstr(cf->pool, &m->protocol),
                       ngx_http_noid_cstr(cf->pool, &m->dbdir),
                       (const char *const *)m->opts->elts, m->opts->nelts, err,
                       sizeof err) != 0) {
        ngx_conf_log_error(NGX_LOG_EMERG, cf, 0, "noid_map: %s", err);
        return NGX_CONF_ERROR;
    }
    if (mc->zone == NULL) {
        ngx_str_t name = ngx_string("noid_stall");
        mc->zone = ngx_shared_memory_add(cf, &name, 8 * ngx_pagesize, &ngx_http_noid_module);
        if (mc->zone == NULL) {
            return NGX_CONF_ERROR;
        }
        mc->zone->init = ngx_http_noid_init_zone;
    }
    slot = ngx_array_push(&mc->maps);
    if (slot == NULL) {
        return NGX_CONF_ERROR;
    }
    *slot = m;
    lc->map = m;
    return NGX_CONF_OK;
}

/* The configuration's maps (the http block's main configuration), if any. */
static ngx_http_noid_main_conf_t *ngx_http_noid_main(ngx_cycle_t *cycle)
{
    ngx_http_conf_ctx_t *ctx = (ngx_http_conf_ctx_t *)ngx_get_conf(cycle->conf_ctx, ngx_http_module);
    if (ctx == NULL) {
        return NULL;
    }
    return ctx->main_conf[ngx_http_noid_module.ctx_index];
}

/* In each worker, after fork: the maps' threads belong to this process. */
static ngx_int_t ngx_http_noid_init_process(ngx_cycle_t *cycle)
{
    ngx_http_noid_main_conf_t *mc = ngx_http_noid_main(cycle);
    ngx_http_noid_map_t **maps;
    char err[512];
    ngx_uint_t i;

    if (mc == NULL || mc->maps.nelts == 0) {
        return NGX_OK;
    }
    noid_log = cycle->log;
    noid_embed_set_log(ngx_http_noid_log, cycle->log->log_level >= NGX_LOG_INFO ? NOID_LOG_INFO
                                                                               : NOID_LOG_WARN);
    maps = mc->maps.elts;
    for (i = 0; i < mc->maps.nelts; i++) {
        maps[i]->map = noid_map_open(ngx_http_noid_cstr(cycle->pool, &maps[i]->protocol),
                                     ngx_http_noid_cstr(cycle->pool, &maps[i]->dbdir),
                                     (const char *const *)maps[i]->opts->elts,
                                     maps[i]->opts->nelts,
                                     mc->zone && i < NGX_HTTP_NOID_SHARED
                                         ? (uint64_t *)mc->zone->data + i
                                         : NULL,
                                     NULL, 0, /* answers: each worker its own */
                                     err, sizeof err);
        if (maps[i]->map == NULL) {
            ngx_log_error(NGX_LOG_ERR, cycle->log, 0, "noid_map %V: %s", &maps[i]->dbdir, err);
        }
    }
    return NGX_OK;
}

static void ngx_http_noid_exit_process(ngx_cycle_t *cycle)
{
    ngx_http_noid_main_conf_t *mc = ngx_http_noid_main(cycle);
    ngx_http_noid_map_t **maps;
    ngx_uint_t i;
    if (mc == NULL) {
        return;
    }
    maps = mc->maps.elts;
    for (i = 0; i < mc->maps.nelts; i++) {
        noid_map_close(maps[i]->map);
        maps[i]->map = NULL;
    }
}
