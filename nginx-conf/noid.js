// noid.js: resolve identifiers in nginx with njs 0.7.9 (Debian bookworm), through the
// resolver's HTTP mode (`noidr --http`, route GET /lookup/ID). Used by noid-njs.conf.
//
// /lookup/ID answers 200 with the target as the body and the HTTP status to send in
// X-Status (302 by default, 301/303/307/308 when stored, 410 for a withdrawn id, 200 or
// 300 for a metadata page whose Content-Type it also gives), or 404.
//
// njs 0.7.9 pitfalls, all met in testing:
// * Never write `await` inside call arguments: `r.return(302, (await x.text()).trim())`
//   is a SyntaxError ("await in arguments not supported") outside try{}, and inside
//   try{} it parses but the worker dies with SIGSEGV. Assign to a variable first.
// * r.subrequest(uri): the uri is used as an already-decoded path and proxy_pass
//   re-escapes "%", so a %-encoded id in the path is double-encoded. Put the id in
//   `args` and forward $arg_id.
// * Redirect with r.return(code, url). Setting r.headersOut['Location'] does not reach
//   nginx's Location handling before njs 0.8.0 (njs #648); copying a subrequest's
//   Location has oddities too (njs #879). That is why /lookup/ sends the target as the
//   body and not as a Location header.
// * ngx.fetch() opens a new connection per call (keep-alive only from njs 0.9.3) and
//   cannot reach unix sockets: a subrequest to an upstream with keepalive is ~15x faster.
// * No js_shared_dict_zone / js_periodic (0.8.x): no caching in njs here; noidr is fast.

// The identifier, exactly as noidr's /redirect/ route would see it: the path decoded
// once, then "?" and the query as received (a bare "?" or "??" is an inflection, which
// $args cannot show). $request_uri is raw: slashes not merged, "%2F" not decoded.
function identifier(r) {
    var uri = r.variables.request_uri;
    var q = uri.indexOf('?');
    var path = q < 0 ? uri : uri.substring(0, q);
    var query = q < 0 ? '' : uri.substring(q);
    // throws on malformed escapes or bytes that are not UTF-8: a miss
    return decodeURIComponent(path.replace(/^\/+/, '')) + query;
}

// An ARK whose name holds %7E or %2F is reached at its own URL (the ARK draft,
// draft-kunze-ark-43 3.1, 3.2): the path as sent, its %XX not decoded, asked when the
// decoded one found nothing, as noidr --http and the module do; null for any other path
// and for one holding %00, %0A or %0D (never a key).
function asSent(r) {
    var uri = r.variables.request_uri;
    var q = uri.indexOf('?');
    var path = (q < 0 ? uri : uri.substring(0, q)).replace(/^\/+/, '');
    if (!/^ark:/i.test(path) || path.indexOf('%') < 0 || /%0[0ad]/i.test(path)) {
        return null;
    }
    return path + (q < 0 ? '' : uri.substring(q));
}

async function resolve(r) {
    var id;
    try {
        id = identifier(r);
    } catch (e) {
        r.return(404, 'unknown identifier\n');
        return;
    }
    var reply = await r.subrequest('/_noid_lookup', { args: 'id=' + encodeURIComponent(id) });
    var status = reply.status;
    var sent = asSent(r);
    if (status === 404 && sent !== null) {
        reply = await r.subrequest('/_noid_lookup', { args: 'id=' + encodeURIComponent(sent) });
        status = reply.status;
    }
    if (status === 404) {
        r.headersOut['Content-Type'] = 'text/plain';
        r.return(404, 'unknown identifier\n');
        return;
    }
    if (status !== 200) {
        r.return(502, 'resolver unavailable\n');
        return;
    }
    var code = Number(reply.headersOut['X-Status']) || 302;
    var body = reply.responseText;
    // A redirect's FAIR Signposting links ("signposting on"), a tombstone's successor
    var link = reply.headersOut['Link'];
    if (link) {
        r.headersOut['Link'] = link;
    }
    if (code === 301 || code === 302 || code === 303 || code === 307 || code === 308) {
        // sets Location: without control characters but TAB, as noidr's own Location
        r.return(code, body.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, ''));
        return;
    }
    var type = reply.headersOut['Content-Type'];
    r.headersOut['Content-Type'] = type ? type : 'text/plain';
    var vary = reply.headersOut['Vary'];
    if (vary) {
        r.headersOut['Vary'] = vary;
    }
    if (code === 410 && body.charAt(body.length - 1) !== '\n') {
        body = body + '\n';  // a bare 410's text; a tombstone page ends with one
    }
    r.return(code, body);
}

export default { resolve };
