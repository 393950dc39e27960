import CLDAP
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sign-in against an LDAP directory (OpenLDAP, Active Directory) through OpenLDAP's
/// libldap: the user's entry is searched (as the service account, or anonymously), then
/// the directory is asked to bind as that entry with the password given. The password is
/// never compared here and no hash is read: the directory alone decides.
///
/// Every check opens its own connection (short timeouts, no referrals) and at most
/// ``Configuration/concurrentChecks`` run at once: a slow or absent directory answers
/// ``Verdict/unavailable(_:)`` quickly instead of holding request workers.
public final class LDAPDirectory: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// `ldap://host:port` or `ldaps://host:port`.
        public var url: String
        /// Where users are searched (the whole subtree).
        public var baseDN: String
        /// The search filter, with `%u` where the (escaped) user name goes: `(uid=%u)`.
        public var userFilter: String
        /// The service account the search binds as; anonymous when nil.
        public var bindDN: String?
        public var bindPassword: String?
        /// StartTLS on an `ldap://` connection before anything is sent.
        public var startTLS = false
        /// The CA certificates (PEM) the directory's certificate must chain to; the
        /// system's (`/etc/ldap/ldap.conf`) when nil.
        public var caFile: String?
        /// Seconds to connect, and for each operation.
        public var timeout = 5
        /// Checks that may wait on the directory at once: fewer than the server's request
        /// workers (`serve` uses half of them), so a directory that hangs holds some of
        /// them and never all. Beyond it a sign-in is answered unavailable at once.
        public var concurrentChecks = 2
        /// Whether a directory user without an Almanac account gets one at their first
        /// sign-in (`--ldap-create-users`); else an admin makes the accounts.
        public var createsUsers = false

        public init(url: String, baseDN: String, userFilter: String) {
            self.url = url
            self.baseDN = baseDN
            self.userFilter = userFilter
        }

        /// Why this configuration cannot work, for `serve` to refuse at start; nil when sound.
        public var problem: String? {
            let lowered = url.lowercased()
            guard lowered.hasPrefix("ldap://") || lowered.hasPrefix("ldaps://"), ldap_is_ldap_url(url) != 0 else {
                return "--ldap-url is ldap://host[:port] or ldaps://host[:port], not \(url)"
            }
            if startTLS, lowered.hasPrefix("ldaps://") {
                return "--ldap-starttls is for ldap:// URLs (ldaps:// is TLS from the start)"
            }
            guard !baseDN.isEmpty else {
                return "--ldap-base-dn names where users are, such as ou=people,dc=example,dc=org"
            }
            guard userFilter.hasPrefix("("), userFilter.hasSuffix(")"), userFilter.contains("%u") else {
                return "--ldap-user-filter is an LDAP filter with %u for the user name, such as (uid=%u)"
            }
            if (bindDN == nil) != (bindPassword == nil) {
                return "--ldap-bind-dn and --ldap-bind-password-file go together"
            }
            return nil
        }
    }

    /// A user's entry, as sign-in found it.
    public struct Entry: Sendable, Hashable {
        /// The entry's distinguished name (what the password was bound as).
        public var dn: String
        /// The `mail` values, in the directory's order.
        public var addresses: [String]
        /// `displayName`, else `cn`, if any.
        public var displayName: String?
    }

    public enum Verdict: Sendable, Hashable {
        /// The directory accepted the password for this entry.
        case verified(Entry)
        /// No such user, more than one entry matched, or the password is wrong.
        case refused
        /// The directory could not be asked (down, too slow, busy, misconfigured).
        case unavailable(String)
    }

    public let configuration: Configuration
    private let checks = Mutex(0)

    public init(_ configuration: Configuration) {
        self.configuration = configuration
    }

    /// The filter for `user`: the configured one with every `%u` replaced by the name,
    /// escaped as RFC 4515 §3 asks (`*`, `(`, `)`, `\` and NUL as `\XX`), so a name is
    /// always one value and never more filter.
    public func filter(for user: String) -> String {
        configuration.userFilter.replacing("%u", with: Self.escapedFilterValue(user))
    }

    /// `value` as an RFC 4515 assertion value (other characters stay UTF-8, as §3 allows).
    public static func escapedFilterValue(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\u{0}": escaped += "\\00"
            case "(": escaped += "\\28"
            case ")": escaped += "\\29"
            case "*": escaped += "\\2a"
            case "\\": escaped += "\\5c"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Asks the directory whether `password` is `user`'s. An empty password is refused
    /// without asking: to LDAP it would be an unauthenticated bind, which succeeds.
    public func verify(user: String, password: String) -> Verdict {
        guard !password.isEmpty, !user.isEmpty, !password.utf8.contains(0) else { return .refused }
        let admitted = checks.withLock { count -> Bool in
            guard count < configuration.concurrentChecks else { return false }
            count += 1
            return true
        }
        guard admitted else { return .unavailable("the directory is busy; try again shortly") }
        defer { checks.withLock { $0 -= 1 } }
        do throws(Failure) {
            let connection = try Connection(configuration)
            defer { connection.close() }
            if let dn = configuration.bindDN, let secret = configuration.bindPassword {
                switch connection.bind(dn: dn, password: secret) {
                case LDAP_SUCCESS: break
                case let code:
                    throw Failure("the directory refused the service account (\(Connection.describe(code)))")
                }
            }
            let entries = try connection.search(base: configuration.baseDN, filter: filter(for: user))
            guard entries.count == 1, let entry = entries.first else { return .refused }
            switch connection.bind(dn: entry.dn, password: password) {
            case LDAP_SUCCESS: return .verified(entry)
            case LDAP_INVALID_CREDENTIALS, LDAP_INAPPROPRIATE_AUTH, LDAP_UNWILLING_TO_PERFORM: return .refused
            case let code:
                throw Failure("the directory did not check the password (\(Connection.describe(code)))")
            }
        } catch {
            return .unavailable(error.message)
        }
    }

    /// Why the directory could not be asked, for the server's log.
    struct Failure: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    /// One connection to the directory, used by one thread and closed after one check.
    final class Connection {
        let handle: OpaquePointer

        init(_ configuration: Configuration) throws(Failure) {
            var made: OpaquePointer?
            let code = ldap_initialize(&made, configuration.url)
            guard code == LDAP_SUCCESS, let made else {
                throw Failure("the directory URL cannot be used (\(Self.describe(code)))")
            }
            handle = made
            _ = cldap_set_int(handle, LDAP_OPT_PROTOCOL_VERSION, LDAP_VERSION3)
            _ = cldap_set_timeout(handle, LDAP_OPT_NETWORK_TIMEOUT, Int32(configuration.timeout))
            _ = cldap_set_timeout(handle, LDAP_OPT_TIMEOUT, Int32(configuration.timeout))
            _ = cldap_no_referrals(handle)
            if let caFile = configuration.caFile {
                _ = cldap_set_string(handle, LDAP_OPT_X_TLS_CACERTFILE, caFile)
                _ = cldap_set_int(handle, LDAP_OPT_X_TLS_REQUIRE_CERT, LDAP_OPT_X_TLS_DEMAND)
                _ = cldap_new_tls_context(handle)
            }
            if configuration.startTLS {
                let code = ldap_start_tls_s(handle, nil, nil)
                guard code == LDAP_SUCCESS else {
                    close()
                    throw Failure("StartTLS with the directory failed (\(Self.describe(code)))")
                }
            }
        }

        func close() { ldap_unbind_ext_s(handle, nil, nil) }

        static func describe(_ code: Int32) -> String {
            String(cString: ldap_err2string(code))
        }

        /// A simple bind (RFC 4513 §5.1.3) as `dn`: the result code.
        func bind(dn: String, password: String) -> Int32 {
            var bytes = Array(password.utf8CString.dropLast())
            return bytes.withUnsafeMutableBufferPointer { buffer in
                var credentials = berval(bv_len: ber_len_t(buffer.count), bv_val: buffer.baseAddress)
                return ldap_sasl_bind_s(handle, dn, nil, &credentials, nil, nil, nil)
            }
        }

        /// The entries under `base` that match `filter` (at most two are asked for: more
        /// than one is already ambiguous).
        func search(base: String, filter: String) throws(Failure) -> [Entry] {
            var message: OpaquePointer?
            var attributes: [UnsafeMutablePointer<CChar>?] = [strdup("mail"), strdup("displayName"), strdup("cn"), nil]
            defer { for attribute in attributes { free(attribute) } }
            let code = ldap_search_ext_s(
                handle, base, LDAP_SCOPE_SUBTREE, filter, &attributes, 0, nil, nil, nil, 2, &message)
            defer { if let message { ldap_msgfree(message) } }
            guard code == LDAP_SUCCESS || code == LDAP_SIZELIMIT_EXCEEDED || code == LDAP_NO_SUCH_OBJECT else {
                throw Failure("the directory search failed (\(Self.describe(code)))")
            }
            if code == LDAP_SIZELIMIT_EXCEEDED { return [] }  // ambiguous: refused as no user
            var entries: [Entry] = []
            var current = ldap_first_entry(handle, message)
            while let entry = current {
                if let dn = ldap_get_dn(handle, entry) {
                    entries.append(
                        Entry(
                            dn: String(cString: dn), addresses: values("mail", of: entry),
                            displayName: values("displayName", of: entry).first ?? values("cn", of: entry).first))
                    ldap_memfree(dn)
                }
                current = ldap_next_entry(handle, entry)
            }
            return entries
        }

        func values(_ attribute: String, of entry: OpaquePointer) -> [String] {
            guard let list = ldap_get_values_len(handle, entry, attribute) else { return [] }
            defer { ldap_value_free_len(list) }
            var values: [String] = []
            var index = 0
            while let value = list[index], values.count < 100 {
                let bytes = UnsafeRawBufferPointer(start: value.pointee.bv_val, count: Int(value.pointee.bv_len))
                values.append(String(decoding: bytes, as: UTF8.self))
                index += 1
            }
            return values
        }
    }
}
