import Accounts
import AlmanacServer
import CalendarStore
import HTTPServer
import HTTPTypes
import Outbound
import Push
import Reminders
import Subscriptions
import Webhooks

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `almanac serve`: the calendar server on the store's database, until
/// SIGINT or SIGTERM (requests in progress finish first).
enum ServeCommand {
    /// The relay `--smtp` names, if any, with the envelope sender `--smtp-from` names.
    static func relay(_ options: Options) throws(CommandFailure) -> SMTPClient.Relay? {
        guard let smtp = options["--smtp"] else {
            if options["--smtp-from"] != nil { throw .usage("--smtp-from goes with --smtp") }
            return nil
        }
        guard var parsed = SMTPClient.Relay(smtp) else {
            throw .usage("--smtp is smtp://[user[:password]@]host[:port] (STARTTLS) or smtps://…")
        }
        if let from = options["--smtp-from"] {
            guard let address = EmailAddress.normalized(from) else {
                throw .usage("--smtp-from is an e-mail address (calendar@example.com), not \(from)")
            }
            parsed.envelopeSender = address
        }
        return parsed
    }

    /// The LDAP directory `--ldap-url` and its options name, if any.
    static func directory(_ options: Options, workers: Int, io: CommandIO) throws(CommandFailure) -> LDAPDirectory? {
        let others = [
            "--ldap-base-dn", "--ldap-user-filter", "--ldap-bind-dn", "--ldap-bind-password-file", "--ldap-starttls",
            "--ldap-ca-file", "--ldap-create-users",
        ]
        guard let url = options["--ldap-url"] else {
            if let stray = others.first(where: { options[$0] != nil || options.has($0) }) {
                throw .usage("\(stray) goes with --ldap-url")
            }
            return nil
        }
        guard let base = options["--ldap-base-dn"] else { throw .usage("--ldap-url needs --ldap-base-dn") }
        var configuration = LDAPDirectory.Configuration(
            url: url, baseDN: base, userFilter: options["--ldap-user-filter"] ?? "(uid=%u)")
        configuration.bindDN = options["--ldap-bind-dn"]
        if let path = options["--ldap-bind-password-file"] {
            let text = String(decoding: try io.read(path: path), as: UTF8.self)
            // The file's first line: an editor's final line break is not part of the password.
            let password = text.split(separator: "\n", omittingEmptySubsequences: false)[0]
            guard !password.isEmpty else { throw .usage("--ldap-bind-password-file \(path) holds no password") }
            configuration.bindPassword = String(password)
        }
        configuration.startTLS = options.has("--ldap-starttls")
        configuration.caFile = options["--ldap-ca-file"]
        configuration.createsUsers = options.has("--ldap-create-users")
        configuration.concurrentChecks = max(1, workers / 2)
        if let problem = configuration.problem { throw .usage(problem) }
        return LDAPDirectory(configuration)
    }

    /// The OpenID Connect provider `--oidc-issuer` and its options name, if any.
    static func identity(_ options: Options, workers: Int, io: CommandIO) throws(CommandFailure)
        -> OpenIDProvider.Configuration?
    {
        let others = [
            "--oidc-client-id", "--oidc-client-secret-file", "--oidc-audience", "--oidc-user-claim",
            "--oidc-scope-prefix", "--oidc-create-users", "--allow-private-identity",
        ]
        guard let issuer = options["--oidc-issuer"] else {
            if let stray = others.first(where: { options[$0] != nil || options.has($0) }) {
                throw .usage("\(stray) goes with --oidc-issuer")
            }
            return nil
        }
        guard let client = options["--oidc-client-id"], let path = options["--oidc-client-secret-file"] else {
            throw .usage("--oidc-issuer needs --oidc-client-id and --oidc-client-secret-file")
        }
        let text = String(decoding: try io.read(path: path), as: UTF8.self)
        // The file's first line: an editor's final line break is not part of the secret.
        let secret = String(text.split(separator: "\n", omittingEmptySubsequences: false)[0])
        var configuration = OpenIDProvider.Configuration(issuer: issuer, clientID: client, clientSecret: secret)
        configuration.audience = options["--oidc-audience"]
        if let claim = options["--oidc-user-claim"] {
            guard let parsed = OpenIDProvider.UserClaim(rawValue: claim) else {
                throw .usage("--oidc-user-claim is preferred_username, email or sub, not \(claim)")
            }
            configuration.userClaim = parsed
        }
        if let prefix = options["--oidc-scope-prefix"] { configuration.scopePrefix = prefix }
        configuration.createsUsers = options.has("--oidc-create-users")
        configuration.concurrentChecks = max(1, workers / 2)
        if let problem = configuration.problem { throw .usage(problem) }
        return configuration
    }

    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        let options = try Options(arguments, for: CommandTable.serve)
        let origins = options.all("--cors-origin")
        for origin in origins
        where !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) || origin.dropFirst(8).contains("/") {
            throw .usage("--cors-origin is a scheme and host such as https://app.example.com, not \(origin)")
        }
        guard options.operands.isEmpty else { throw .usage("'serve' takes no operands (see 'almanac serve --help')") }
        func number(_ name: String, _ fallback: Int, range: ClosedRange<Int>) throws(CommandFailure) -> Int {
            guard let text = options[name] else { return fallback }
            guard let value = Int(text), range.contains(value) else {
                throw .usage("\(name) must be a number in \(range)")
            }
            return value
        }
        // Proxies by address literal: the option (repeatable, comma-separated), else the environment.
        let proxyText =
            options.all("--trusted-proxy").isEmpty
            ? (io.environment["ALMANAC_TRUSTED_PROXIES"].map { [$0] } ?? []) : options.all("--trusted-proxy")
        let proxies = Set(
            proxyText.flatMap { $0.split(separator: ",") }.map { String($0.filter { !$0.isWhitespace }) }.filter {
                !$0.isEmpty
            })
        for proxy in proxies where !ServeCommand.isAddressLiteral(proxy) {
            throw .usage("--trusted-proxy takes IPv4 or IPv6 addresses (such as 127.0.0.1), not \(proxy)")
        }
        let defaults = ServerConfiguration(trustedProxies: proxies)
        let configuration = ServerConfiguration(
            host: options["--host"] ?? "127.0.0.1", port: UInt16(try number("--port", 8080, range: 0...65_535)),
            threads: try number("--threads", defaults.threads, range: 0...256),
            workers: try number("--workers", defaults.workers, range: 1...1_024),
            maxBodySize: try number("--max-body", defaults.maxBodySize, range: 1_024...(1 << 30)),
            connectionTimeout: try number("--timeout", 60, range: 1...3_600),
            connectionLimit: try number("--max-connections", defaults.connectionLimit, range: 1...65_536),
            connectionsPerAddress: try number(
                "--max-connections-per-address", defaults.connectionsPerAddress, range: 0...65_536),
            trustedProxies: proxies,
            accessLog: !options.has("--quiet"))
        let visibility = options["--visible-principals"] ?? PrincipalVisibility.onlySelf.rawValue
        guard let visiblePrincipals = PrincipalVisibility(rawValue: visibility) else {
            throw .usage("--visible-principals is self or all, not \(visibility)")
        }
        let rateLimit = try number("--api-rate-limit", AlmanacServer.defaultAPIRateLimit, range: 0...1_000_000)
        let webhookWorkers = try number("--webhook-workers", 4, range: 0...64)
        let feedCheck = try number("--feed-check", 30, range: 1...3_600)
        var alarms: AlarmScheduler.Configuration?
        if !options.has("--no-alarms") {
            alarms = AlarmScheduler.Configuration()
            alarms?.grace = try number("--alarm-grace", 3_600, range: 0...(30 * 86_400))
            if let base = options["--base-url"] {
                guard base.hasPrefix("https://") || base.hasPrefix("http://") else {
                    throw .usage(
                        "--base-url is where people reach the server (https://calendar.example.com), not \(base)")
                }
                alarms?.baseURL = base
            }
        } else if options["--alarm-grace"] != nil {
            throw .usage("--alarm-grace goes without --no-alarms")
        }
        var push: PushDispatcher.Configuration?
        if !options.has("--no-push") {
            push = PushDispatcher.Configuration()
            push?.http.policy.allowsPrivateAddresses = options.has("--allow-private-push")
            // RFC 8292 §2.1: the contact is a mailto: or https: URL.
            if let base = options["--base-url"], base.hasPrefix("https://") { push?.subject = base }
        } else if options.has("--allow-private-push") {
            throw .usage("--allow-private-push goes without --no-push")
        }
        var webhooks: WebhookDispatcher.Configuration?
        if webhookWorkers > 0 {
            webhooks = WebhookDispatcher.Configuration()
            webhooks?.workers = webhookWorkers
        }
        let quotaObjects = try number("--quota-objects", 100_000, range: 0...Int(Int32.max))
        let quotaBytes = try number("--quota-bytes", 1 << 30, range: 0...(1 << 50))
        let directory = try directory(options, workers: configuration.workers, io: io)
        let identity = try identity(options, workers: configuration.workers, io: io)
        let backend = try StoreContext.openBackend(options, io: io)
        backend.quota = StoreQuota(
            maxObjects: quotaObjects == 0 ? nil : quotaObjects, maxBytes: quotaBytes == 0 ? nil : quotaBytes)

        var name = io.environment["USER"] ?? "admin"
        if name.isEmpty || name == "root" { name = "admin" }
        if let created = try StoreContext.run({ () throws(StoreError) in
            try AlmanacServer.ensureFirstUser(in: backend, name: name)
        }) {
            io.write(
                "Created user \(created.user) with password \(created.password)\n(shown once; change it with 'almanac user passwd \(created.user)')\n"
            )
        }
        let users = try StoreContext.run { () throws(StoreError) in try backend.users() }
        for user in users where user.passwordHash == nil && directory == nil && identity == nil {
            io.writeError(
                "almanac: user \(user.name) has no password and cannot sign in; set one with 'almanac user passwd \(user.name)'"
            )
        }

        // Block the signals before the server's threads start, so they inherit the mask
        // and only this thread receives them (in sigwait below).
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        let relay = try relay(options)
        var feeds = SubscriptionRefresher.Configuration(
            policy: OutboundPolicy(
                allowsPrivateAddresses: options.has("--allow-private-feeds"), permission: "--allow-private-feeds"))
        feeds.interval = Double(feedCheck)
        let server = AlmanacServer(
            backend: backend, configuration: configuration, allowedOrigins: origins,
            visiblePrincipals: visiblePrincipals, apiRateLimit: rateLimit, webhooks: webhooks,
            outbound: OutboundPolicy(allowsPrivateAddresses: options.has("--allow-private-webhooks")),
            subscriptions: feeds, alarms: alarms, push: push, smtp: relay, directory: directory, identity: identity,
            identityPolicy: OutboundPolicy(
                allowsPrivateAddresses: options.has("--allow-private-identity"), permission: "--allow-private-identity")
        )
        do {
            try server.start()
        } catch {
            throw CommandFailure(status: 1, error.description)
        }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let base = "http://\(host):\(server.port)"
        io.write(
            "Almanac is serving \(backend.location) on \(base)/\nCalDAV: \(base)/dav/ (add this URL in your calendar app)\n"
                + "Feeds: \(base)/feeds/<token>.ics (see 'almanac feed create')\nAPI: \(base)/api/v1/ (described at \(base)/api/v1/openapi.json)\n"
        )
        var received: Int32 = 0
        sigwait(&signals, &received)
        io.write("Stopping (\(received == SIGINT ? "SIGINT" : "SIGTERM")); letting requests in progress finish\n")
        server.stop(gracePeriod: 10, abandoning: true)
        io.write("Stopped\n")
        // Every write is durable and every answer sent: end here, without `exit`'s
        // destructors. libdispatch's pool threads cannot be joined, and C++ static
        // destructors (ICU's, inside Foundation) running beside one of them can abort
        // the process (seen once in CI as a SIGABRT after a clean stop).
        _exit(0)
    }

    /// Whether `text` is an IPv4 or IPv6 address literal.
    static func isAddressLiteral(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
