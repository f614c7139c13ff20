complete -c noidr -s f -l db -d 'Minter directory (the one holding NOID/). Default: the part of the program name after its first "_" (noidr_fk9 → fk9), else ".". Relative to the current directory, which Apache sets to the program\'s own directory' -r -f -a "(__fish_complete_directories)"
complete -c noidr -l follow -d 'Follow a minter held by PostgreSQL (postgres://user@host/dbname): keep a local copy of it in the --cache directory, bootstrapped from a snapshot and then updated from its change log, and answer from that copy. Needs --minter and --cache. See SCALING.md' -r
complete -c noidr -l minter -d 'The followed minter\'s name in the --follow database' -r
complete -c noidr -l cache -d 'Directory of the local copy that --follow keeps (an embedded minter directory, made at the first start)' -r -f -a "(__fish_complete_directories)"
complete -c noidr -l poll -d 'Seconds between looks at the --follow change log when no commit was notified: the bound on how old an answer can be' -r
complete -c noidr -l verify -d 'Seconds between checksum comparisons of the --follow copy with the minter (every key on both sides; a copy that differs is made anew). The copy is also compared whenever the server is on a new timeline (after a failover). 0: never' -r
complete -c noidr -l protocol -d 'Line protocol: "noid" (`get ID ELEM` → value or NULL, as the noid manual\'s resolver) or "egg" (N2T/EggNog `ID.resolve [HEADERS]` → `redirNNN TARGET`)' -r -f -a "noid\t'Perl Noid\'s resolver mode: read-only noid commands, `get ID ELEM`'
egg\t'EggNog\'s rrm protocol: `ID.resolve [HEADERS]`'"
complete -c noidr -l http -d 'Serve HTTP on ADDR (host:port, or a unix socket path) instead of the stdin/stdout line protocol; for nginx and Apache mod_proxy. Port 0 lets the system pick a free port; the address bound is logged once it listens ("noidr: HTTP on ADDR", with --log-level info)' -r
complete -c noidr -l http-threads -d 'Worker threads of the HTTP server' -r
complete -c noidr -l http-header-timeout -d 'Seconds an HTTP client has to send a whole request head, counted from the connection (or from the previous answer on a kept-alive one): slow or idle clients are dropped after it. Longer than nginx\'s upstream keep-alive (60 s), so nginx closes its idle connections first' -r
complete -c noidr -l http-max-connections -d 'HTTP connections served at once; more wait in the kernel\'s accept queue' -r
complete -c noidr -l http-max-per-client -d 'HTTP connections served at once from one client address; more are answered 503 and closed at once, so that one client cannot take every connection. Connections over a unix socket are not counted; behind a front server on TCP, every connection comes from its address: raise this to --http-max-connections there' -r
complete -c noidr -l lookup-deadline -d 'Seconds the store has to answer a request: a request it has not answered by then (a hung disk, a network file system gone away) is answered with the protocol\'s error line (HTTP: 503), and so is every request after it until the stalled lookup returns; then noidr resolves again. Under Apache this keeps one stalled lookup from stalling the whole server (every prg: lookup waits for the one before it). 0 turns the deadline off' -r
complete -c noidr -l counts-interval -d 'Seconds between two writes of the counts: a crash loses at most this much' -r
complete -c noidr -l rules -d 'Redirect-rules file (schemes, NAANs, shoulders, global resolver); default: the built-in table (doi:, hdl:). An empty file disables all rules' -r -F
complete -c noidr -l registry -d 'Prefix registry file: ANVL records for schemes (pdb:), NAANs and prefixes (ark:/99999, doi:10.5072) and shoulders, with their names, who runs them and their providers (URL patterns with $id). A truncated identifier answers its record, `*/ID` lists ID\'s target at every provider, and ID redirects to the first provider that is up. Format: RESOLUTION.md, "The prefix registry"' -r -F
complete -c noidr -l write-registry -d 'Write the --registry file in its canonical form (records sorted, elements in order; comments are not kept) to FILE, "-" for stdout, and exit' -r -F
complete -c noidr -l probe-interval -d 'Probe the registry\'s providers every SECS seconds: a HEAD of each `probe:` URL (http:// or https://), up when it answers a status below 400. Redirects and the line protocols then go to the first provider that is up. 0 (the default): no probes, all count as up' -r
complete -c noidr -l probe-timeout -d 'Seconds a probe waits to connect and for the answer before counting the provider down' -r
complete -c noidr -l probe-ca -d 'Also trust the CA certificates in FILE (PEM) when probing https:// URLs, for providers under a private CA. The system\'s CA store (/etc/ssl/certs) is always trusted; a provider whose certificate does not verify, or names another host, is down (and logged)' -r -F
complete -c noidr -l egg-miss -d 'What the egg protocol answers for an unknown id: "null" (NULL, Apache\'s not-found) or "eggnog" (`redir302 ` with an empty target, as EggNog)' -r -f -a "null\t'`NULL`'
eggnog\t'`redir302 ` (empty target)'"
complete -c noidr -l secondary-dir -d 'Writable directory for RocksDB\'s secondary-instance files (its info log). Default: a fresh directory under /tmp, removed at exit' -r -f -a "(__fish_complete_directories)"
complete -c noidr -l cache-mb -d 'RocksDB block cache, in MiB (give at least the size of the data for best speed)' -r
complete -c noidr -l log-level -d 'Log level: off, error, warn (default), info, debug, trace' -r
complete -c noidr -l counts -d 'Count resolutions per identifier and UTC day (redirects by code, misses, inflections, pages; robots apart from people by their User-Agent) in DBDIR/counts/, written every --counts-interval seconds; read them with `noid -f DBDIR stats`. No address and no User-Agent is stored. See COUNTS.md'
complete -c noidr -l check-registry -d 'Check the --registry file and exit: status 0 and a summary on stdout when it is good, status 2 and the bad line on stderr when it is not'
complete -c noidr -s v -l verbose -d 'More log output on stderr (Apache\'s ErrorLog): -v info, -vv debug, -vvv trace'
complete -c noidr -s q -l quiet -d 'Less log output: errors only'
complete -c noidr -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noidr -s V -l version -d 'Print version'
