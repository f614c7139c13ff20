# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_noid_global_optspecs
    string join \n f= v/version q/quiet lock-timeout= h/help
end

function __fish_noid_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_noid_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_noid_using_subcommand
    set -l cmd (__fish_noid_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c noid -n "__fish_noid_needs_command" -s f -d 'Minter directory (Dbdir); the database lives in Dbdir/NOID. Defaults to $NOID, then the part after \'_\' in the program name (noid_fk9 → fk9), then "."' -r -f -a "(__fish_complete_directories)"
complete -c noid -n "__fish_noid_needs_command" -l lock-timeout -d 'Seconds to wait for another noid process that holds the minter\'s write lock' -r
complete -c noid -n "__fish_noid_needs_command" -s v -l version -d 'Print the version and exit'
complete -c noid -n "__fish_noid_needs_command" -s q -l quiet -d 'No progress bars (import, export, check and bulk `noid -` draw them on standard error when it is a terminal)'
complete -c noid -n "__fish_noid_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_needs_command" -a "bind"
complete -c noid -n "__fish_noid_needs_command" -a "dbinfo"
complete -c noid -n "__fish_noid_needs_command" -a "dbcreate"
complete -c noid -n "__fish_noid_needs_command" -a "fetch"
complete -c noid -n "__fish_noid_needs_command" -a "get"
complete -c noid -n "__fish_noid_needs_command" -a "hello"
complete -c noid -n "__fish_noid_needs_command" -a "help"
complete -c noid -n "__fish_noid_needs_command" -a "hold"
complete -c noid -n "__fish_noid_needs_command" -a "mint"
complete -c noid -n "__fish_noid_needs_command" -a "note"
complete -c noid -n "__fish_noid_needs_command" -a "peppermint"
complete -c noid -n "__fish_noid_needs_command" -a "queue"
complete -c noid -n "__fish_noid_needs_command" -a "validate"
complete -c noid -n "__fish_noid_needs_command" -a "import"
complete -c noid -n "__fish_noid_needs_command" -a "export"
complete -c noid -n "__fish_noid_needs_command" -a "check"
complete -c noid -n "__fish_noid_needs_command" -a "lui"
complete -c noid -n "__fish_noid_needs_command" -a "standing"
complete -c noid -n "__fish_noid_needs_command" -a "prune-log" -d 'noid prune-log: drop old rows of a PostgreSQL minter\'s change log'
complete -c noid -n "__fish_noid_needs_command" -a "links" -d 'noid links: check every target of the minter\'s identifiers, report their health, and keep archived copies to fall back on'
complete -c noid -n "__fish_noid_needs_command" -a "explain" -d 'noid explain: resolve an identifier as noidr would, and say what each step decided'
complete -c noid -n "__fish_noid_needs_command" -a "rules" -d 'noid rules: test a rules file before it is deployed'
complete -c noid -n "__fish_noid_needs_command" -a "index" -d 'noid index: the search index over the minter\'s identifiers, in Dbdir/search-index'
complete -c noid -n "__fish_noid_needs_command" -a "search" -d 'noid search: find identifiers by their metadata, targets and state'
complete -c noid -n "__fish_noid_needs_command" -a "history" -d 'noid history: every logged write to an identifier, oldest first: when, who, which element, the old value and the new'
complete -c noid -n "__fish_noid_needs_command" -a "rewrite" -d 'noid rewrite: change the targets (or any element) that start with one prefix to start with another, for every identifier or those under a prefix; or undo such a change'
complete -c noid -n "__fish_noid_needs_command" -a "stats" -d 'noid stats: how often identifiers were resolved, per UTC day, as counted by noidr --counts (prg and --http): redirects by code, misses, inflections and other pages, with robots (by the COUNTER-Robots list of User-Agents) apart from people, and the most resolved and most asked missing identifiers'
complete -c noid -n "__fish_noid_needs_command" -a "compact" -d 'noid compact: rewrite an embedded minter\'s tables into one sorted level'
complete -c noid -n "__fish_noid_using_subcommand bind" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand dbinfo" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand dbcreate" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand fetch" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand get" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand hello" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand help" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand hold" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand mint" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand note" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand peppermint" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand queue" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand validate" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand import" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand export" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand check" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand lui" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand standing" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand prune-log" -l keep -d 'Keep the last N commits, drop the older ones (0 drops the whole log)' -r
complete -c noid -n "__fish_noid_using_subcommand prune-log" -l before -d 'Drop every commit numbered below SEQ (the number a follower reports as its applied change, noidr_follow_applied_seq)' -r
complete -c noid -n "__fish_noid_using_subcommand prune-log" -l forget-after -d 'Followers not heard of for SECS seconds (stopped, or taken away) no longer hold changes back' -r
complete -c noid -n "__fish_noid_using_subcommand prune-log" -l ignore-followers -d 'Drop what --keep or --before says even where a follower has not applied it yet (that follower copies the minter anew)'
complete -c noid -n "__fish_noid_using_subcommand prune-log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "check" -d 'Ask every target (or those under a prefix, or of the identifiers listed), record what was found, and print how many targets have each status. Where the archived-copy policy covers an identifier whose target turns broken, its most recent archived copy is looked up and kept'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "report" -d 'Write one row per checked target: id,target,status,http,checked,since,detail, location,failures (times in UTC, RFC 3339)'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "archive" -d 'Find the most recent archived copy of each Id\'s target through a Memento TimeGate now and keep it (:/links/a/ID), where the resolver\'s archived-copy rule finds it. With --under, every Id under PREFIX whose target is broken or marked'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "mark" -d 'Mark each Id\'s target as gone: the resolver falls back on its archived copy (where its rules file says archived-copy), whatever the checker says'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "unmark" -d 'Lift the mark of each Id'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "policy" -d 'Whether copies are fetched when the checker finds a target broken, for the Ids under PREFIX (none: the whole minter); off by default. With --save-on-bind, whether every target bound to those Ids is queued for an archive to save (noid links save --run tries the queue). Without on|off, list the prefixes where each is on'
complete -c noid -n "__fish_noid_using_subcommand links; and not __fish_seen_subcommand_from check report archive mark unmark policy save" -f -a "save" -d 'Queue each Id\'s target for an archive to save; with --run, try every request that is due (failures are tried again later, with a backoff), and say how each stands'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l under -d 'Only the identifiers that start with PREFIX (a shoulder, or any prefix)' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l ids -d 'Only the identifiers listed in FILE, one a line ("-": standard input)' -r -F
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l failures -d 'Failures in a row before a target is broken' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l span -d 'The least time from a target\'s first failure in a row to the one that makes it broken (e.g. 0s, 36h, 3days)' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l drift-bits -d 'Differing bits (of 64) of a page\'s text hash beyond which it has drifted' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l allow-net -d 'Let the checker reach a special-purpose address range (loopback, private, link-local …), refused by default: for targets on an intranet. Repeatable' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l contact -d 'A URL (or mailto:) where the operators of the sites checked can reach you; sent in the User-Agent. Defaults to $NOID_LINKS_CONTACT' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l ca-file -d 'A PEM file of CA certificates to trust beside the system\'s (a private CA)' -r -F
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l concurrency -d 'Requests in flight at once, over every host' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l per-host -d 'Requests in flight at once to one host' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l interval -d 'The least time between two requests to one host' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l timeout -d 'How long one request may take' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l max-redirects -d 'Redirects followed before a target fails' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l resolve -d 'Answer NAME with ADDR instead of asking DNS (the address guard still judges ADDR). Repeatable' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l timegate -d 'The Memento TimeGate asked for the archived copy of a target that turns broken, where the archived-copy policy covers its identifier (noid links policy)' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -l no-pages -d 'Send HEAD (or GET where HEAD is refused) only, never reading pages: soft404, parked pages and drift are then not told'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from report" -l status -d 'Only the targets with this status (ok redirected failing broken blocked soft404 parked drifted)' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from report" -l under -d 'Only the identifiers that start with PREFIX' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from report" -l format -d 'csv (a header line first) or json (an array of objects)' -r -f -a "csv\t''
json\t''"
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from report" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from archive" -l under -d 'Every Id under PREFIX whose target is broken (per the link checker) or marked' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from archive" -l timegate -d 'The TimeGate, the target\'s URL appended to it' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from archive" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from mark" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from unmark" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from policy" -l save-on-bind -d 'The save-on-bind policy rather than the fetching of copies'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from policy" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from save" -l endpoint -d 'Where saves are asked for, the target\'s URL appended to it' -r
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from save" -l run -d 'Try the requests that are due now'
complete -c noid -n "__fish_noid_using_subcommand links; and __fish_seen_subcommand_from save" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand explain" -l accept -d 'The request\'s Accept header (content negotiation)' -r
complete -c noid -n "__fish_noid_using_subcommand explain" -l proto -d 'The request\'s protocol, for rule targets written without one' -r
complete -c noid -n "__fish_noid_using_subcommand explain" -l rules -d 'The rules file noidr is given (noidr --rules)' -r -F
complete -c noid -n "__fish_noid_using_subcommand explain" -l registry -d 'The prefix registry noidr is given (noidr --registry)' -r -F
complete -c noid -n "__fish_noid_using_subcommand explain" -l format -d 'Output format' -r -f -a "text\t'Lines for people'
json\t'One JSON object'"
complete -c noid -n "__fish_noid_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand rules; and not __fish_seen_subcommand_from test" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand rules; and not __fish_seen_subcommand_from test" -f -a "test" -d 'Resolve every case of CASES with the rules of RULES on the minter\'s store (an empty store when the directory holds no minter) and print each case whose answer differs, as a diff (- expected, + got). Exit status 0 when every case answers as expected, 1 when any differs, 2 when a file cannot be read'
complete -c noid -n "__fish_noid_using_subcommand rules; and __fish_seen_subcommand_from test" -l registry -d 'The prefix registry noidr is given (noidr --registry)' -r -F
complete -c noid -n "__fish_noid_using_subcommand rules; and __fish_seen_subcommand_from test" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand index; and not __fish_seen_subcommand_from rebuild status" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand index; and not __fish_seen_subcommand_from rebuild status" -f -a "rebuild" -d 'Build the index anew from every identifier in the store'
complete -c noid -n "__fish_noid_using_subcommand index; and not __fish_seen_subcommand_from rebuild status" -f -a "status" -d 'Say how many identifiers the index holds and where it is (rebuilding it first if it cannot be trusted)'
complete -c noid -n "__fish_noid_using_subcommand index; and __fish_seen_subcommand_from rebuild" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand index; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c noid -n "__fish_noid_using_subcommand search" -l format -d 'What to write: a readable table of the first matches (table), or every match as CSV with a header row (csv), JSON lines (json) or ANVL records (anvl)' -r -f -a "table\t''
csv\t''
json\t''
anvl\t''"
complete -c noid -n "__fish_noid_using_subcommand search" -l limit -d 'Rows in the table' -r
complete -c noid -n "__fish_noid_using_subcommand search" -l sort -d 'The table\'s order: relevance, id, title, creator, date, target, updated or created; a - before it for descending (-updated: the latest first)' -r
complete -c noid -n "__fish_noid_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand history" -l format -d 'How to print the changes' -r -f -a "table\t'One line per change'
json\t'A JSON array of objects'
csv\t'CSV with a header row'"
complete -c noid -n "__fish_noid_using_subcommand history" -l log -d 'The binder\'s write log [default: Dbdir/write.log]' -r -F
complete -c noid -n "__fish_noid_using_subcommand history" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l from -d 'The prefix to replace (https://old.example.org/)' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l to -d 'What replaces it (https://new.example.org/)' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l element -d 'The element to change' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l under -d 'Only the identifiers starting with PREFIX, as stored (ark:/13030/f5); repeatable' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l query -d 'Only the identifiers matching QUERY, in the search language (noid search, docs/SEARCH.md): `host:old.example.org`, `under:ark:/13030/f5 -status:ok`' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l sample -d 'How many changes the preview shows' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l undo -d 'Put back what operation OPID changed' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l batch -d 'Identifiers changed per commit' -r
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l log -d 'The binder\'s write log [default: Dbdir/write.log]' -r -F
complete -c noid -n "__fish_noid_using_subcommand rewrite" -l dry-run -d 'Print how many would change and a sample; change nothing'
complete -c noid -n "__fish_noid_using_subcommand rewrite" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand stats" -l days -d 'How many days, up to and including today (UTC)' -r
complete -c noid -n "__fish_noid_using_subcommand stats" -l format -d 'How to print the counts' -r -f -a "text\t'Totals, then the lists'
csv\t'One row per day, identifier, kind and class, with a header row'
json\t'The totals, every day\'s counts and the lists'"
complete -c noid -n "__fish_noid_using_subcommand stats" -l top -d 'How many identifiers the most-resolved and most-asked-missing lists name' -r
complete -c noid -n "__fish_noid_using_subcommand stats" -l compact -d 'Fold the counts files of processes that have ended into one first'
complete -c noid -n "__fish_noid_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c noid -n "__fish_noid_using_subcommand compact" -l index -d 'How the tables hold their index and filters, from now on' -r -f -a "whole\t'One index block and one filter block per table'
pieces\t'Index and filters in 4 KB pieces, held in memory as the block cache allows'"
complete -c noid -n "__fish_noid_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
