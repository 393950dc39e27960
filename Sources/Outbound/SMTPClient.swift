import CCurl
import HTTPTypes

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sends mail through an SMTP relay with libcurl (`almanac serve --smtp`): the
/// server's iMIP invitations and answers (RFC 6047). `smtp://` upgrades with STARTTLS and
/// refuses a relay that cannot (a relay on loopback may answer in the clear);
/// `smtps://` is TLS from the start. Certificates are verified; 10 s to connect, 30 s
/// in all. Confined to one thread at a time (one libcurl handle).
public final class SMTPClient: @unchecked Sendable {
    /// The relay, read from `smtp[s]://[user[:password]@]host[:port]`.
    public struct Relay: Sendable, Equatable {
        public var url: String
        public var user: String?
        public var password: String?
        public var implicitTLS: Bool
        public var host: String
        /// The server's own address (`serve --smtp-from`): the envelope sender of all its
        /// mail, named in a `Sender:` header; nil: each message's own sender.
        public var envelopeSender: String?

        /// Reads a relay URL; nil for anything else (a path, a query, another scheme).
        public init?(_ text: String) {
            let lowered = text.lowercased()
            let scheme: String
            if lowered.hasPrefix("smtp://") {
                scheme = "smtp://"
            } else if lowered.hasPrefix("smtps://") {
                scheme = "smtps://"
            } else {
                return nil
            }
            implicitTLS = scheme == "smtps://"
            var rest = Substring(text.dropFirst(scheme.count))
            if rest.hasSuffix("/") { rest = rest.dropLast() }
            guard !rest.isEmpty, !rest.contains("/"), !rest.contains("?"), !rest.contains("#"),
                rest.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else { return nil }
            if let at = rest.lastIndex(of: "@") {
                let credentials = rest[..<at]
                rest = rest[rest.index(after: at)...]
                if let colon = credentials.firstIndex(of: ":") {
                    user = PercentEncoding.decode(credentials[..<colon])
                    password = PercentEncoding.decode(credentials[credentials.index(after: colon)...])
                } else {
                    user = PercentEncoding.decode(credentials)
                }
            }
            guard !rest.isEmpty else { return nil }
            let hostPart: Substring
            if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
                hostPart = rest[rest.index(after: rest.startIndex)..<close]
            } else {
                hostPart = rest.split(separator: ":", maxSplits: 1).first ?? rest
            }
            host = String(hostPart).lowercased()
            url = scheme + rest
        }

        /// Whether the relay is this machine (STARTTLS may then be missing).
        public var isLoopback: Bool { IPAddress.isLoopback(host: host) }

        /// The URL without its credentials, to show.
        public var description: String { url }
    }

    let relay: Relay
    private let handle: UnsafeMutableRawPointer
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    public init(relay: Relay) throws(OutboundRefusal) {
        guard Self.initialized, let handle = curl_easy_init() else {
            throw OutboundRefusal("libcurl could not be initialised")
        }
        self.relay = relay
        self.handle = handle
    }

    deinit { curl_easy_cleanup(handle) }

    private final class Upload {
        var bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    private static let read: ccurl_read_callback = { buffer, size, count, context in
        guard let buffer, let context else { return 0 }
        let upload = Unmanaged<Upload>.fromOpaque(context).takeUnretainedValue()
        let room = size * count
        let left = upload.bytes.count - upload.offset
        let length = min(room, left)
        guard length > 0 else { return 0 }
        upload.bytes.withUnsafeBufferPointer { source in
            buffer.withMemoryRebound(to: UInt8.self, capacity: length) { target in
                target.update(from: source.baseAddress! + upload.offset, count: length)
            }
        }
        upload.offset += length
        return length
    }

    /// Sends `message` (RFC 5322, CRLF lines) from `sender` to `recipients` (bare
    /// addresses); nil when the relay took it, else why not.
    public func send(_ message: [UInt8], from sender: String, to recipients: [String]) -> String? {
        guard !recipients.isEmpty else { return "no recipient" }
        let upload = Upload(message)
        let context = Unmanaged.passUnretained(upload).toOpaque()
        var list: UnsafeMutablePointer<curl_slist>?
        for recipient in recipients { list = curl_slist_append(list, "<\(recipient)>") }
        defer { curl_slist_free_all(list) }
        curl_easy_reset(handle)
        var code = CURLE_OK
        func set(_ result: CURLcode) { if code == CURLE_OK { code = result } }
        set(ccurl_setopt_string(handle, CURLOPT_URL, relay.url))
        set(ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"))
        set(ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        set(ccurl_setopt_string(handle, CURLOPT_PROXY, ""))
        set(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        set(ccurl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        set(ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, 10_000))
        set(ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, 30_000))
        if !relay.implicitTLS {
            let tls = relay.isLoopback ? CURLUSESSL_TRY : CURLUSESSL_ALL
            set(ccurl_setopt_long(handle, CURLOPT_USE_SSL, Int(tls.rawValue)))
        }
        if let user = relay.user { set(ccurl_setopt_string(handle, CURLOPT_USERNAME, user)) }
        if let password = relay.password { set(ccurl_setopt_string(handle, CURLOPT_PASSWORD, password)) }
        set(ccurl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>"))
        set(ccurl_setopt_pointer(handle, CURLOPT_MAIL_RCPT, UnsafeMutableRawPointer(list)))
        set(ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1))
        set(ccurl_setopt_read(handle, Self.read, context))
        guard code == CURLE_OK else { return "libcurl: " + String(cString: curl_easy_strerror(code)) }
        let result = curl_easy_perform(handle)
        guard result == CURLE_OK else {
            var status = 0
            _ = ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            return String(cString: curl_easy_strerror(result)) + (status > 0 ? " (the relay answered \(status))" : "")
        }
        return nil
    }
}
