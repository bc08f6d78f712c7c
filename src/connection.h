/* connection.h -- a client's transport: a plain socket or TLS.
 *
 * The pattern of Redis's connection.h, cut to what casq's clients need: a
 * connection owns the socket and is reached through a small table of
 * functions (read, writev, close...), so networking.c reads and writes the
 * same way whatever the transport. The client's libevent events stay in
 * networking.c; a TLS connection only reports, through flags, when a read
 * must wait for the socket to be writable or a write for it to be readable
 * (OpenSSL may need to send or receive records of its own), and
 * networking.c arms the events accordingly.
 *
 * Return conventions are those of read(2)/writev(2): > 0 bytes, 0 end of
 * stream (read), -1 with errno EAGAIN "try again when the socket is ready"
 * or another errno for a failure, whose text connLastError() gives. */
#ifndef CASQ_CONNECTION_H
#define CASQ_CONNECTION_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

typedef enum connState {
    CONN_STATE_ACCEPTING, /* TLS handshake not finished */
    CONN_STATE_CONNECTED,
    CONN_STATE_ERROR,
} connState;

/* A TLS read that needs the socket writable, or a write that needs it
 * readable (a key update, a renegotiation the peer started). */
#define CONN_FLAG_READ_WANTS_WRITE (1 << 0)
#define CONN_FLAG_WRITE_WANTS_READ (1 << 1)
/* The handshake waits for the socket to become writable (else readable). */
#define CONN_FLAG_HANDSHAKE_WANTS_WRITE (1 << 2)

/* connHandshake() results */
#define CONN_HANDSHAKE_DONE 0
#define CONN_HANDSHAKE_AGAIN 1
#define CONN_HANDSHAKE_FAILED 2

typedef struct connection connection;

typedef struct connectionType {
    const char *name; /* "tcp", "unix", "tls" */
    /* Drives the accept-side handshake; NULL when there is none. */
    int (*handshake)(connection *conn);
    ssize_t (*read)(connection *conn, void *buf, size_t len);
    ssize_t (*writev)(connection *conn, const struct iovec *iov, int iovcnt);
    /* Bytes already taken off the socket but not yet given to read(): the
     * socket will not signal them, so the caller must read again. */
    int (*has_pending_data)(connection *conn);
    const char *(*last_error)(connection *conn);
    /* Closes the socket and frees the connection. */
    void (*close)(connection *conn);
} connectionType;

struct connection {
    const connectionType *type;
    int fd;
    connState state;
    int flags;      /* CONN_FLAG_* */
    int last_errno; /* of the last failed socket call, 0 if none */
};

connection *connCreateSocket(int fd, int is_unix);
/* TLS (tls.c), its handshake not started; in CONN_STATE_ERROR when no TLS
 * context is configured or OpenSSL cannot set it up (the caller closes it). */
connection *connCreateAcceptedTLS(int fd, int auth_clients);

static inline int connHandshake(connection *conn) {
    return conn->type->handshake ? conn->type->handshake(conn) : CONN_HANDSHAKE_DONE;
}
static inline ssize_t connRead(connection *conn, void *buf, size_t len) { return conn->type->read(conn, buf, len); }
static inline ssize_t connWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    return conn->type->writev(conn, iov, iovcnt);
}
static inline int connHasPendingData(connection *conn) {
    return conn->type->has_pending_data ? conn->type->has_pending_data(conn) : 0;
}
static inline const char *connLastError(connection *conn) { return conn->type->last_error(conn); }
static inline void connClose(connection *conn) { conn->type->close(conn); }

/* ------------------------------------------------------------------------
 * TLS (tls.c)
 * --------------------------------------------------------------------- */
#define TLS_CLIENT_AUTH_NO 0
#define TLS_CLIENT_AUTH_YES 1
#define TLS_CLIENT_AUTH_OPTIONAL 2

/* Builds the server's TLS context from the tls-* settings and, if that
 * works, puts it in place of the previous one (new connections use it;
 * established ones keep theirs). Returns C_OK, or C_ERR having logged why
 * and changed nothing. */
int tlsConfigure(void);
/* Frees the context (at exit). */
void tlsCleanup(void);

#endif
