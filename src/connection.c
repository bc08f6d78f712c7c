/* connection.c -- the plain socket connection type (TCP and Unix sockets).
 *
 * Reads and writes go straight to the socket; there is no handshake and
 * nothing is ever buffered here. The TLS type lives in tls.c. */
#include "connection.h"
#include "server.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static ssize_t connSocketRead(connection *conn, void *buf, size_t len) {
    ssize_t n = read(conn->fd, buf, len);
    if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) conn->last_errno = errno;
    return n;
}

static ssize_t connSocketWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    ssize_t n = writev(conn->fd, iov, iovcnt);
    if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) conn->last_errno = errno;
    return n;
}

static const char *connSocketLastError(connection *conn) {
    return conn->last_errno ? strerror(conn->last_errno) : "connection closed";
}

static void connSocketClose(connection *conn) {
    if (conn->fd != -1) close(conn->fd);
    zfree(conn);
}

static const connectionType CT_Socket = {
    .name = "tcp",
    .read = connSocketRead,
    .writev = connSocketWritev,
    .last_error = connSocketLastError,
    .close = connSocketClose,
};

static const connectionType CT_Unix = {
    .name = "unix",
    .read = connSocketRead,
    .writev = connSocketWritev,
    .last_error = connSocketLastError,
    .close = connSocketClose,
};

connection *connCreateSocket(int fd, int is_unix) {
    connection *conn = zcalloc(sizeof(*conn));
    conn->type = is_unix ? &CT_Unix : &CT_Socket;
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTED;
    return conn;
}
