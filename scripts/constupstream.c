#define _GNU_SOURCE
/* A constant HTTP/1.1 upstream for scripts/bench-web.sh: answers every request head on a
   keep-alive connection with the same 302, so nginx-proxy-constant-upstream shows what
   proxy_pass itself allows (the ceiling of nginx -> noidr --http). */
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <string.h>
#include <stdlib.h>
#include <stdio.h>
#include <fcntl.h>
static const char R[] = "HTTP/1.1 302 Found\r\nlocation: https://example.org/obj/0000000\r\ncontent-length: 0\r\ndate: Tue, 24 Nov 2026 01:00:00 GMT\r\n\r\n";
int main(int argc, char **argv) {
    int port = atoi(argv[1]);
    int l = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0}; a.sin_family = AF_INET; a.sin_port = htons(port); a.sin_addr.s_addr = htonl(0x7f000001);
    if (bind(l, (void *)&a, sizeof a) || listen(l, 1024)) { perror("bind"); return 1; }
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = l};
    epoll_ctl(ep, EPOLL_CTL_ADD, l, &ev);
    static char buf[65536];
    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(ep, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == l) {
                int c;
                while ((c = accept4(l, 0, 0, SOCK_NONBLOCK)) >= 0) {
                    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    struct epoll_event e = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
                }
                continue;
            }
            ssize_t r = read(fd, buf, sizeof buf);
            if (r <= 0) { close(fd); continue; }
            /* count request heads in what arrived */
            int heads = 0;
            for (ssize_t j = 3; j < r; j++) if (buf[j] == '\n' && buf[j-1] == '\r' && buf[j-2] == '\n' && buf[j-3] == '\r') heads++;
            for (int h = 0; h < heads; h++) if (write(fd, R, sizeof R - 1) < 0) break;
        }
    }
}
