// libcurl (Debian's libcurl4-openssl-dev) for the Outbound target: the outbound HTTP
// client that delivers webhooks and fetches subscribed feeds, and the SMTP client of iMIP. curl_easy_setopt and curl_easy_getinfo are variadic,
// which Swift cannot call, so each type of option has a typed wrapper here.
#ifndef ALMANAC_CCURL_SHIM_H
#define ALMANAC_CCURL_SHIM_H

#include <curl/curl.h>
#include <sys/socket.h>
#include <netinet/in.h>

/// curl_easy_setopt for an option that takes a long (timeouts, flags, protocols).
static inline CURLcode ccurl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for an option that takes a string (URL, body, proxy); libcurl copies it.
static inline CURLcode ccurl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for an option that takes a pointer (a header list, callback data).
static inline CURLcode ccurl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// The body to POST: `length` bytes, which libcurl copies (CURLOPT_COPYPOSTFIELDS after
/// CURLOPT_POSTFIELDSIZE_LARGE), so the caller's buffer need not outlive the call.
static inline CURLcode ccurl_setopt_body(CURL *handle, const char *bytes, curl_off_t length) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, length);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_COPYPOSTFIELDS, bytes);
}

/// The function that receives the response body (CURLOPT_WRITEFUNCTION).
typedef size_t (*ccurl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_write(CURL *handle, ccurl_write_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

/// The function that receives each response header line (CURLOPT_HEADERFUNCTION).
static inline CURLcode ccurl_setopt_header(CURL *handle, ccurl_write_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
}

/// The function that supplies the bytes to upload (CURLOPT_READFUNCTION): an SMTP message.
typedef size_t (*ccurl_read_callback)(char *buffer, size_t size, size_t count, void *context);
static inline CURLcode ccurl_setopt_read(CURL *handle, ccurl_read_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_READDATA, context);
}

/// The function asked before each connection with the address libcurl is about to
/// connect to (CURLOPT_OPENSOCKETFUNCTION); it returns a socket, or CURL_SOCKET_BAD to
/// refuse the address. The callback sees `address->addr` as a plain sockaddr.
typedef curl_socket_t (*ccurl_opensocket_callback)(void *context, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode ccurl_setopt_opensocket(CURL *handle, ccurl_opensocket_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, context);
}

/// The function libcurl calls while a transfer runs, at least once a second even when
/// nothing moves (CURLOPT_XFERINFOFUNCTION, with CURLOPT_NOPROGRESS off); a non-zero
/// return aborts the transfer (CURLE_ABORTED_BY_CALLBACK). Used to give up on a server
/// that accepted the connection but does not answer.
typedef int (*ccurl_progress_callback)(void *context, curl_off_t downloadTotal, curl_off_t downloaded,
                                       curl_off_t uploadTotal, curl_off_t uploaded);
static inline CURLcode ccurl_setopt_progress(CURL *handle, ccurl_progress_callback callback, void *context) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
    if (code != CURLE_OK) return code;
    code = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

/// curl_easy_getinfo for a long (CURLINFO_RESPONSE_CODE).
static inline CURLcode ccurl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// CURL_SOCKET_BAD, a macro.
static inline curl_socket_t ccurl_socket_bad(void) { return CURL_SOCKET_BAD; }

#endif
