# shellcheck shell=bash
# FAIR Signposting on every full resolver (sourced by run.sh, which runs them all with
# "signposting on" in their rules): the Link header of a bound identifier's redirect, of
# its several targets' page (each an item), none on a miss, and its linksets (RFC 9264)
# by content negotiation. The expected values are written by hand from signposting.org's
# and RFC 9264's examples for ark:/13030/cite (a dataset, how "(:mtype data) time
# series", one target) and ark:/13030/multi (no how, two targets), cited at N2T (the
# rules have no cite-as line). Uses run.sh's helpers (req, ok, bad) and RESOLVERS.

SP_CITE='https://n2t.net/ark:/13030/cite'
SP_MULTI='https://n2t.net/ark:/13030/multi'

# sp_links URL TYPE [ITEMS]: the Link header's value for the identifier cited as URL.
sp_links() {
    printf '<%s>; rel="cite-as", <%s>; rel="describedby"; type="application/ld+json", <%s>; rel="describedby"; type="application/vnd.citationstyles.csl+json", <https://schema.org/%s>; rel="type", %s<%s>; rel="linkset"; type="application/linkset", <%s>; rel="linkset"; type="application/linkset+json"' \
        "$1" "$1" "$1" "$2" "${3:-}" "$1" "$1"
}

# sp_expect NAME PORT PATH STATUS LINK [curl args...]: the status and the Link header.
sp_expect() {
    local name=$1 port=$2 path=$3 status=$4 want=$5 link
    shift 5
    req "$port" "$path" "$@"
    link=$(sed -n 's/^[Ll]ink: //p' "$WORK/h" | tr -d '\r')
    if [ "$STATUS" = "$status" ] && [ "$link" = "$want" ]; then
        ok "$name $path -> $STATUS with its signposts"
    else
        bad "$name $path: want $status and Link [$want]; got $STATUS [$link] $(head -c 200 "$WORK/b" 2>/dev/null | tr '\n' '|')"
    fi
}

signposting_checks() {
    local r name port pre
    local a="; anchor=\"$SP_CITE\""
    local want_text="<$SP_CITE>; rel=\"cite-as\"$a,
<$SP_CITE>; rel=\"describedby\"; type=\"application/ld+json\"$a,
<$SP_CITE>; rel=\"describedby\"; type=\"application/vnd.citationstyles.csl+json\"$a,
<https://schema.org/Dataset>; rel=\"type\"$a"
    local want_json="{\"linkset\":[{\"anchor\":\"$SP_MULTI\",\"cite-as\":[{\"href\":\"$SP_MULTI\"}],
 \"describedby\":[{\"href\":\"$SP_MULTI\",\"type\":\"application/ld+json\"},
                {\"href\":\"$SP_MULTI\",\"type\":\"application/vnd.citationstyles.csl+json\"}],
 \"type\":[{\"href\":\"https://schema.org/CreativeWork\"}],
 \"item\":[{\"href\":\"https://example.org/m1\"},{\"href\":\"https://example.org/m2\"}]}]}"
    for r in $RESOLVERS; do
        name=${r%%:*} port=${r##*:}
        pre=""
        [ "$name" = noidr-http ] && pre=/redirect
        sp_expect "$name signposting" "$port" "$pre/ark:/13030/cite" 302 "$(sp_links "$SP_CITE" Dataset)"
        sp_expect "$name signposting, several targets" "$port" "$pre/ark:/13030/multi" 300 \
            "$(sp_links "$SP_MULTI" CreativeWork '<https://example.org/m1>; rel="item", <https://example.org/m2>; rel="item", ')"
        sp_expect "$name signposting, a miss" "$port" "$pre/ark:/13030/no-such-id" 404 ""
        req "$port" "$pre/ark:/13030/multi" -H "Accept: application/linkset+json"
        if [ "$STATUS" = 200 ] && [ "$CTYPE" = application/linkset+json ] &&
            /usr/bin/python3 -c 'import json,sys; sys.exit(json.loads(sys.argv[1]) != json.loads(sys.argv[2]))' "$BODY" "$want_json"; then
            ok "$name linkset+json of ark:/13030/multi"
        else
            bad "$name linkset+json: got $STATUS [$CTYPE] $(head -c 300 "$WORK/b" | tr '\n' '|')"
        fi
        req "$port" "$pre/ark:/13030/cite" -H "Accept: application/linkset"
        if [ "$STATUS" = 200 ] && [ "$CTYPE" = application/linkset ] && [ "$BODY" = "$want_text" ]; then
            ok "$name linkset of ark:/13030/cite"
        else
            bad "$name linkset: got $STATUS [$CTYPE] $(head -c 300 "$WORK/b" | tr '\n' '|')"
        fi
    done
}
