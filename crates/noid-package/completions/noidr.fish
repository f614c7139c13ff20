complete -c noidr -s f -l db -d 'Minter directory (the one holding NOID/). Default: the part of the program name after its first "_" (noidr_fk9 → fk9), else ".". Relative to the current directory, which Apache sets to the program\'s own directory' -r -f -a "(__fish_complete_directories)"
complete -c noidr -l protocol -d 'Line protocol: "noid" (`get ID ELEM` → value or NULL, as the noid manual\'s resolver) or "egg" (N2T/EggNog `ID.resolve [HEADERS]` → `redirNNN TARGET`)' -r -f -a "noid\t'Perl Noid\'s resolver mode: read-only noid commands, `get ID ELEM`'
egg\t'EggNog\'s rrm protocol: `ID.resolve [HEADERS]`'"
complete -c noidr -l http -d 'Serve HTTP on ADDR (host:port, or a unix socket path) instead of the stdin/stdout line protocol; for nginx and Apache mod_proxy' -r
complete -c noidr -l http-threads -d 'Worker threads of the HTTP server' -r
complete -c noidr -l http-header-timeout -d 'Seconds an HTTP client has to send a whole request head, counted from the connection (or from the previous answer on a kept-alive one): slow or idle clients are dropped after it. Longer than nginx\'s upstream keep-alive (60 s), so nginx closes its idle connections first' -r
complete -c noidr -l http-max-connections -d 'HTTP connections served at once; more wait in the kernel\'s accept queue' -r
complete -c noidr -l rules -d 'Redirect-rules file (schemes, NAANs, shoulders, global resolver); default: the built-in table (doi:, hdl:). An empty file disables all rules' -r -F
complete -c noidr -l egg-miss -d 'What the egg protocol answers for an unknown id: "null" (NULL, Apache\'s not-found) or "eggnog" (`redir302 ` with an empty target, as EggNog)' -r -f -a "null\t'`NULL`'
eggnog\t'`redir302 ` (empty target)'"
complete -c noidr -l secondary-dir -d 'Writable directory for RocksDB\'s secondary-instance files (its info log). Default: a fresh directory under /tmp, removed at exit' -r -f -a "(__fish_complete_directories)"
complete -c noidr -l cache-mb -d 'RocksDB block cache, in MiB (give at least the size of the data for best speed)' -r
complete -c noidr -l log-level -d 'Log level: off, error, warn (default), info, debug, trace' -r
complete -c noidr -s v -l verbose -d 'More log output on stderr (Apache\'s ErrorLog): -v info, -vv debug, -vvv trace'
complete -c noidr -s q -l quiet -d 'Less log output: errors only'
complete -c noidr -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noidr -s V -l version -d 'Print version'
