/* tls.c -- TLS for client connections, with OpenSSL (Debian's libssl).
 *
 * As in Redis: a listener on tls-port beside the plain one (port 0 makes
 * the server TLS-only), the server's certificate and key from
 * tls-cert-file / tls-key-file, client certificates checked against
 * tls-ca-cert-file / tls-ca-cert-dir as tls-auth-clients says (yes: a
 * certificate is required; optional: checked if given; no: not asked for),
 * the protocol versions of tls-protocols (default TLSv1.2 and TLSv1.3), and
 * tls-ciphers / tls-ciphersuites / tls-prefer-server-ciphers.
 *
 * A TLS connection is a connection (connection.h) whose read and write use
 * SSL_read/SSL_write on the client's non-blocking socket, driven by the
 * client's ordinary libevent events. The handshake runs first, from the
 * same events, before any command is read; a failed handshake (a plain-text
 * client on the TLS port, a missing or untrusted client certificate, a
 * protocol nobody agreed on) closes that connection only.
 *
 * CONFIG SET of a tls-* file or setting rebuilds the context: if the new one
 * loads, new connections use it and established ones keep theirs (OpenSSL
 * counts references); if not, nothing changes and CONFIG SET fails. */
#include "connection.h"
#include "server.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#define TLS_PROTO_TLSv1 (1 << 0)
#define TLS_PROTO_TLSv1_1 (1 << 1)
#define TLS_PROTO_TLSv1_2 (1 << 2)
#define TLS_PROTO_TLSv1_3 (1 << 3)
#define TLS_PROTO_DEFAULT (TLS_PROTO_TLSv1_2 | TLS_PROTO_TLSv1_3)

/* One TLS record's worth: small writes are gathered into one record. */
#define TLS_WRITE_CHUNK (16 * 1024)

static SSL_CTX *tls_ctx;

/* ========================================================================
 * The server context
 * ===================================================================== */

/* tls-protocols: space-separated versions; empty means the default.
 * Returns the TLS_PROTO_* mask, or -1 (logged). */
static int parseProtocols(const char *str) {
    if (!str || !*str) return TLS_PROTO_DEFAULT;
    int count = 0, protocols = 0;
    sds *tokens = sdssplitargs(str, &count);
    if (!tokens) {
        serverLog(LL_WARNING, "Invalid tls-protocols configuration string");
        return -1;
    }
    for (int i = 0; i < count; i++) {
        if (!strcasecmp(tokens[i], "tlsv1")) protocols |= TLS_PROTO_TLSv1;
        else if (!strcasecmp(tokens[i], "tlsv1.1")) protocols |= TLS_PROTO_TLSv1_1;
        else if (!strcasecmp(tokens[i], "tlsv1.2")) protocols |= TLS_PROTO_TLSv1_2;
        else if (!strcasecmp(tokens[i], "tlsv1.3")) protocols |= TLS_PROTO_TLSv1_3;
        else {
            serverLog(LL_WARNING, "Invalid tls-protocols specified. "
                                  "Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
            protocols = -1;
            break;
        }
    }
    sdsfreesplitres(tokens, count);
    if (protocols == 0) {
        serverLog(LL_WARNING, "Invalid tls-protocols configuration string");
        return -1;
    }
    return protocols;
}

/* The key file's passphrase (tls-key-file-pass), when OpenSSL asks. */
static int tlsPasswordCallback(char *buf, int size, int rwflag, void *u) {
    (void)rwflag;
    const char *pass = u;
    if (!pass) return -1;
    size_t len = strlen(pass);
    if (len > (size_t)size) return -1;
    memcpy(buf, pass, len);
    return (int)len;
}

/* The oldest queued OpenSSL error as text (and the queue emptied). */
static const char *opensslErrorText(char *buf, size_t len) {
    unsigned long e = ERR_get_error();
    if (!e) snprintf(buf, len, "unknown error");
    else ERR_error_string_n(e, buf, len);
    ERR_clear_error();
    return buf;
}

static SSL_CTX *createServerContext(int protocols) {
    const serverConfig *cfg = &server.cfg;
    char errbuf[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        serverLog(LL_WARNING, "Failed to create the TLS context: %s", opensslErrorText(errbuf, sizeof(errbuf)));
        return NULL;
    }
    uint64_t opts = SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION | SSL_OP_SINGLE_DH_USE;
    if (!(protocols & TLS_PROTO_TLSv1)) opts |= SSL_OP_NO_TLSv1;
    if (!(protocols & TLS_PROTO_TLSv1_1)) opts |= SSL_OP_NO_TLSv1_1;
    if (!(protocols & TLS_PROTO_TLSv1_2)) opts |= SSL_OP_NO_TLSv1_2;
    if (!(protocols & TLS_PROTO_TLSv1_3)) opts |= SSL_OP_NO_TLSv1_3;
#ifdef SSL_OP_NO_CLIENT_RENEGOTIATION
    /* A client may not start a renegotiation (CPU cost, and it would make
     * writes wait for reads). */
    opts |= SSL_OP_NO_CLIENT_RENEGOTIATION;
#endif
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
    /* Most clients just close the socket; that is an end, not an error. */
    opts |= SSL_OP_IGNORE_UNEXPECTED_EOF;
#endif
    if (cfg->tls_prefer_server_ciphers) opts |= SSL_OP_CIPHER_SERVER_PREFERENCE;
    SSL_CTX_set_options(ctx, opts);
    /* Writes may be partial, and a retried write may come from a buffer
     * that moved (the reply blocks grow between attempts). */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_dh_auto(ctx, 1);
    /* Needed for session resumption when client certificates are verified. */
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"casq", 4);
    SSL_CTX_set_default_passwd_cb(ctx, tlsPasswordCallback);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, cfg->tls_key_file_pass);

    if (SSL_CTX_use_certificate_chain_file(ctx, cfg->tls_cert_file) <= 0) {
        serverLog(LL_WARNING, "Failed to load certificate: %s: %s", cfg->tls_cert_file,
                  opensslErrorText(errbuf, sizeof(errbuf)));
        goto error;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, cfg->tls_key_file, SSL_FILETYPE_PEM) <= 0) {
        serverLog(LL_WARNING, "Failed to load private key: %s: %s", cfg->tls_key_file,
                  opensslErrorText(errbuf, sizeof(errbuf)));
        goto error;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        serverLog(LL_WARNING, "Private key does not match the certificate: %s: %s", cfg->tls_key_file,
                  opensslErrorText(errbuf, sizeof(errbuf)));
        goto error;
    }
    if ((cfg->tls_ca_cert_file || cfg->tls_ca_cert_dir) &&
        SSL_CTX_load_verify_locations(ctx, cfg->tls_ca_cert_file, cfg->tls_ca_cert_dir) <= 0) {
        serverLog(LL_WARNING, "Failed to configure CA certificate(s) file/directory: %s",
                  opensslErrorText(errbuf, sizeof(errbuf)));
        goto error;
    }
    if (cfg->tls_ciphers && !SSL_CTX_set_cipher_list(ctx, cfg->tls_ciphers)) {
        serverLog(LL_WARNING, "Failed to configure ciphers: %s", cfg->tls_ciphers);
        goto error;
    }
    if (cfg->tls_ciphersuites && !SSL_CTX_set_ciphersuites(ctx, cfg->tls_ciphersuites)) {
        serverLog(LL_WARNING, "Failed to configure ciphersuites: %s", cfg->tls_ciphersuites);
        goto error;
    }
    ERR_clear_error();
    return ctx;

error:
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return NULL;
}

int tlsConfigure(void) {
    const serverConfig *cfg = &server.cfg;
    if (!cfg->tls_cert_file) {
        serverLog(LL_WARNING, "No tls-cert-file configured!");
        return C_ERR;
    }
    if (!cfg->tls_key_file) {
        serverLog(LL_WARNING, "No tls-key-file configured!");
        return C_ERR;
    }
    if (cfg->tls_auth_clients != TLS_CLIENT_AUTH_NO && !cfg->tls_ca_cert_file && !cfg->tls_ca_cert_dir) {
        serverLog(LL_WARNING,
                  "Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-auth-clients is enabled!");
        return C_ERR;
    }
    int protocols = parseProtocols(cfg->tls_protocols);
    if (protocols == -1) return C_ERR;
    SSL_CTX *ctx = createServerContext(protocols);
    if (!ctx) return C_ERR;
    SSL_CTX_free(tls_ctx); /* connections made with it keep a reference */
    tls_ctx = ctx;
    return C_OK;
}

void tlsCleanup(void) {
    SSL_CTX_free(tls_ctx);
    tls_ctx = NULL;
}

/* ========================================================================
 * The TLS connection type
 * ===================================================================== */

typedef struct tlsConnection {
    connection c;
    SSL *ssl;
    char error[256]; /* why the last operation failed */
} tlsConnection;

/* Notes why an SSL call failed (SSL_get_error's `ssl_err`). */
static void tlsSetError(tlsConnection *tc, int ssl_err) {
    if (ssl_err == SSL_ERROR_SYSCALL) {
        int saved = errno;
        unsigned long e = ERR_peek_error();
        if (e) opensslErrorText(tc->error, sizeof(tc->error));
        else snprintf(tc->error, sizeof(tc->error), "%s", saved ? strerror(saved) : "connection closed by peer");
        tc->c.last_errno = saved;
    } else if (ssl_err == SSL_ERROR_ZERO_RETURN) {
        snprintf(tc->error, sizeof(tc->error), "connection closed");
    } else {
        opensslErrorText(tc->error, sizeof(tc->error));
    }
    ERR_clear_error();
}

static int tlsHandshake(connection *conn) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (conn->state == CONN_STATE_CONNECTED) return CONN_HANDSHAKE_DONE;
    if (conn->state != CONN_STATE_ACCEPTING) return CONN_HANDSHAKE_FAILED;
    ERR_clear_error();
    errno = 0;
    int ret = SSL_accept(tc->ssl);
    if (ret == 1) {
        conn->state = CONN_STATE_CONNECTED;
        conn->flags &= ~CONN_FLAG_HANDSHAKE_WANTS_WRITE;
        return CONN_HANDSHAKE_DONE;
    }
    int e = SSL_get_error(tc->ssl, ret);
    if (e == SSL_ERROR_WANT_READ) {
        conn->flags &= ~CONN_FLAG_HANDSHAKE_WANTS_WRITE;
        return CONN_HANDSHAKE_AGAIN;
    }
    if (e == SSL_ERROR_WANT_WRITE) {
        conn->flags |= CONN_FLAG_HANDSHAKE_WANTS_WRITE;
        return CONN_HANDSHAKE_AGAIN;
    }
    tlsSetError(tc, e);
    conn->state = CONN_STATE_ERROR;
    return CONN_HANDSHAKE_FAILED;
}

/* An SSL_read/SSL_write that returned `ret` <= 0: EAGAIN for "later" (with
 * `want_flag` set when OpenSSL needs the other direction), 0 for a clean
 * end of stream when reading, else a failure (the connection is then dead:
 * no close_notify is sent on it). */
static ssize_t tlsHandleIoResult(tlsConnection *tc, int ret, int reading) {
    int e = SSL_get_error(tc->ssl, ret);
    switch (e) {
    case SSL_ERROR_WANT_READ:
        if (!reading) tc->c.flags |= CONN_FLAG_WRITE_WANTS_READ;
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_WANT_WRITE:
        if (reading) tc->c.flags |= CONN_FLAG_READ_WANTS_WRITE;
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        if (reading) return 0;
        tlsSetError(tc, e);
        errno = EPIPE;
        return -1;
    default:
        if (e == SSL_ERROR_SYSCALL && errno == 0 && !ERR_peek_error() && reading) {
            /* The peer closed the socket without a close_notify. */
            tc->c.state = CONN_STATE_ERROR;
            return 0;
        }
        tlsSetError(tc, e);
        tc->c.state = CONN_STATE_ERROR;
        errno = EIO;
        return -1;
    }
}

static ssize_t tlsRead(connection *conn, void *buf, size_t len) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED) {
        errno = ENOTCONN;
        return -1;
    }
    ERR_clear_error();
    errno = 0;
    int n = SSL_read(tc->ssl, buf, len > INT_MAX ? INT_MAX : (int)len);
    if (n > 0) return n;
    return tlsHandleIoResult(tc, n, 1);
}

/* Writes as much of iov as the socket takes, one record at a time: a run
 * of small buffers is gathered into one record, a buffer of a record or
 * more goes out directly. A retried write (after EAGAIN) starts at the same
 * byte with at least as many bytes, which is what OpenSSL requires. */
static ssize_t tlsWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED) {
        errno = ENOTCONN;
        return -1;
    }
    char gather[TLS_WRITE_CHUNK];
    size_t written = 0, off = 0; /* off: into iov[i] */
    int i = 0;
    while (i < iovcnt) {
        if (off == iov[i].iov_len) {
            i++;
            off = 0;
            continue;
        }
        const char *p;
        size_t len;
        if (iov[i].iov_len - off >= TLS_WRITE_CHUNK || i == iovcnt - 1) {
            p = (const char *)iov[i].iov_base + off;
            len = iov[i].iov_len - off;
        } else {
            len = 0;
            for (int j = i; j < iovcnt && len < TLS_WRITE_CHUNK; j++) {
                size_t from = j == i ? off : 0;
                size_t take = iov[j].iov_len - from;
                if (take > TLS_WRITE_CHUNK - len) take = TLS_WRITE_CHUNK - len;
                memcpy(gather + len, (const char *)iov[j].iov_base + from, take);
                len += take;
            }
            p = gather;
        }
        ERR_clear_error();
        errno = 0;
        int w = SSL_write(tc->ssl, p, len > INT_MAX ? INT_MAX : (int)len);
        if (w <= 0) {
            ssize_t r = tlsHandleIoResult(tc, w, 0);
            return written ? (ssize_t)written : r;
        }
        written += (size_t)w;
        /* Advance over what went out. */
        size_t left = (size_t)w;
        while (left) {
            size_t avail = iov[i].iov_len - off;
            if (left < avail) {
                off += left;
                left = 0;
            } else {
                left -= avail;
                i++;
                off = 0;
            }
        }
    }
    return (ssize_t)written;
}

static int tlsHasPendingData(connection *conn) {
    tlsConnection *tc = (tlsConnection *)conn;
    return conn->state == CONN_STATE_CONNECTED && SSL_pending(tc->ssl) > 0;
}

static const char *tlsLastError(connection *conn) {
    tlsConnection *tc = (tlsConnection *)conn;
    return tc->error[0] ? tc->error : "connection closed";
}

static void tlsClose(connection *conn) {
    tlsConnection *tc = (tlsConnection *)conn;
    if (tc->ssl) {
        /* Best effort close_notify; never after a fatal error. */
        if (conn->state == CONN_STATE_CONNECTED) SSL_shutdown(tc->ssl);
        SSL_free(tc->ssl);
    }
    ERR_clear_error();
    if (conn->fd != -1) close(conn->fd);
    zfree(tc);
}

static const connectionType CT_TLS = {
    .name = "tls",
    .handshake = tlsHandshake,
    .read = tlsRead,
    .writev = tlsWritev,
    .has_pending_data = tlsHasPendingData,
    .last_error = tlsLastError,
    .close = tlsClose,
};

/* A connection on an accepted socket, its handshake not started. On
 * failure to set up (out of memory in OpenSSL) the connection is returned
 * in CONN_STATE_ERROR, so that the caller closes it like any other. */
connection *connCreateAcceptedTLS(int fd, int auth_clients) {
    tlsConnection *tc = zcalloc(sizeof(*tc));
    tc->c.type = &CT_TLS;
    tc->c.fd = fd;
    tc->c.state = CONN_STATE_ACCEPTING;
    tc->ssl = tls_ctx ? SSL_new(tls_ctx) : NULL;
    if (!tc->ssl) {
        if (tls_ctx) opensslErrorText(tc->error, sizeof(tc->error));
        else snprintf(tc->error, sizeof(tc->error), "TLS is not configured");
        tc->c.state = CONN_STATE_ERROR;
        return &tc->c;
    }
    switch (auth_clients) {
    case TLS_CLIENT_AUTH_NO: SSL_set_verify(tc->ssl, SSL_VERIFY_NONE, NULL); break;
    case TLS_CLIENT_AUTH_OPTIONAL: SSL_set_verify(tc->ssl, SSL_VERIFY_PEER, NULL); break;
    default: SSL_set_verify(tc->ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL); break;
    }
    SSL_set_fd(tc->ssl, fd);
    SSL_set_accept_state(tc->ssl);
    return &tc->c;
}
