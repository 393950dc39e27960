// libmicrohttpd (Debian's libmicrohttpd-dev) for the HTTPServer target.
// MHD_start_daemon, MHD_get_daemon_info and MHD_get_connection_info are
// variadic, which Swift cannot call; these wrappers give them fixed signatures.
#ifndef ALMANAC_CMICROHTTPD_SHIM_H
#define ALMANAC_CMICROHTTPD_SHIM_H

#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// Keeps a URL as it came (no %-decoding): the HTTP layer decodes paths itself,
/// so CalDAV hrefs round-trip exactly.
static inline size_t cmhd_keep_escaped(void *context, struct MHD_Connection *connection, char *text) {
    (void)context; (void)connection;
    return strlen(text);
}

/// Starts a daemon bound to `host` (an IPv4 or IPv6 literal) and `port` (0 for any free
/// one), with its own listening thread and either a thread per connection (`threads` 0)
/// or a pool of `threads` threads polling their connections with epoll (connections may
/// be suspended while a request is answered elsewhere), an idle timeout,
/// a connection limit overall and one per client address (0: none), and a callback when
/// each request completes. NULL on failure.
static inline struct MHD_Daemon *cmhd_start(
    const char *host, uint16_t port, unsigned int threads, unsigned int timeoutSeconds, unsigned int connectionLimit,
    unsigned int perAddressLimit,
    MHD_AccessHandlerCallback handler, void *handlerContext, MHD_RequestCompletedCallback completed, void *completedContext)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    const struct sockaddr *address;
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_ITC | MHD_USE_AUTO;
    // A pool suspends a connection while a worker answers it (MHD_suspend_connection);
    // a thread per connection answers on that thread.
    if (threads == 0) flags |= MHD_USE_THREAD_PER_CONNECTION;
    else flags |= MHD_ALLOW_SUSPEND_RESUME;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (inet_pton(AF_INET, host, &v4.sin_addr) == 1) {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        address = (const struct sockaddr *)&v4;
    } else if (inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        address = (const struct sockaddr *)&v6;
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    // Function pointers go in `value` and their contexts in `ptr_value` (MHD_OPTION_ARRAY).
    struct MHD_OptionItem options[] = {
        {MHD_OPTION_SOCK_ADDR, 0, (void *)address},
        {MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds, NULL},
        {MHD_OPTION_CONNECTION_LIMIT, connectionLimit, NULL},
        {MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit, NULL},
        {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completedContext},
        {MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)cmhd_keep_escaped, NULL},
        // A thread per connection takes no pool option (MHD warns at any size): the list ends here.
        {threads == 0 ? MHD_OPTION_END : MHD_OPTION_THREAD_POOL_SIZE, threads, NULL},
        {MHD_OPTION_END, 0, NULL},
    };
    return MHD_start_daemon(
        flags, port, NULL, NULL, handler, handlerContext, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The port a daemon listens on (useful after starting on port 0).
static inline uint16_t cmhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

/// Whether the client closed its side of the connection: a peek that finds the end of
/// the stream (data waiting, or nothing yet, means it is still there).
static inline int cmhd_client_gone(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!info) return 0;
    char byte;
    ssize_t got = recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got == 0;
}

/// The client's address as text (IPv4 or IPv6) into `buffer`; an empty string if unknown.
static inline void cmhd_client_address(struct MHD_Connection *connection, char *buffer, socklen_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    buffer[0] = 0;
    if (!info || !info->client_addr) return;
    if (info->client_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, buffer, size);
    } else if (info->client_addr->sa_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)info->client_addr)->sin6_addr, buffer, size);
    }
}

#endif
