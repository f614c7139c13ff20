/* The benchmarks' reference RewriteMap prg: answers every request line with a constant
 * of the same length as noidr's answer, so that scripts/bench-web.sh and
 * scripts/bench-web-costs.sh measure Apache's prg: mechanism against one program. */
#include <unistd.h>
int main(void) {
    static const char a[] = "redir302 https://example.org/obj/0000000\n";
    char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == '\n' && write(1, a, sizeof a - 1) < 0) return 1;
    return 0;
}
