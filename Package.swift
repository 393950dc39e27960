// swift-tools-version: 6.0
// Almanac: a calendar engine and server. See README.md and docs/.
import PackageDescription

let package = Package(
    name: "Almanac",
    // The server needs Synchronization's Mutex (macOS 15, iOS 18); on Linux any.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11)],
    products: [
        .library(name: "CivilTime", targets: ["CivilTime"]),
        .library(name: "ICalendar", targets: ["ICalendar"]),
        .library(name: "Recurrence", targets: ["Recurrence"]),
        .library(name: "CalendarStore", targets: ["CalendarStore"]),
        .library(name: "AlmanacClient", targets: ["AlmanacClient"]),
        .executable(name: "almanac", targets: ["almanac"]),
    ],
    targets: [
        // Core: integer civil dates and times (no Foundation Calendar).
        .target(name: "CivilTime"),
        // Core: JSON values that keep their members' order, read and written (jCal, the API,
        // webhooks and the CLI speak it).
        .target(name: "JSON"),
        // Core: RFC 5545 syntax, values, serialization and jCal.
        .target(name: "ICalendar", dependencies: ["CivilTime", "JSON"]),
        // Core: recurrence expansion, occurrence sets, TZID resolution, VTIMEZONE.
        .target(name: "Recurrence", dependencies: ["CivilTime", "ICalendar"]),
        // OpenSSL's libcrypto (Debian's libssl-dev).
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // Accounts: password hashing (PBKDF2 from libcrypto), Basic credentials, login
        // throttling, sign-in against an LDAP directory, JWS verification for OpenID Connect.
        .target(name: "Accounts", dependencies: ["COpenSSL", "CLDAP", "JSON"]),
        // OpenLDAP's libldap (Debian's libldap-dev), for LDAP sign-in.
        .systemLibrary(name: "CLDAP", pkgConfig: "ldap", providers: [.apt(["libldap-dev"])]),
        // The system SQLite (Debian's libsqlite3-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libpq, PostgreSQL's client library (Debian's libpq-dev).
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // Core: the EventKit-style event store on SQLite (embedded) or PostgreSQL (shared).
        .target(
            name: "CalendarStore",
            dependencies: ["CivilTime", "ICalendar", "JSON", "Recurrence", "Accounts", "CSQLite", "CLibPQ"]),
        // libmicrohttpd (Debian's libmicrohttpd-dev).
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // HTTP as plain values: request, response, headers, status, percent-encoding, the
        // router, documents with ETags. What every protocol layer speaks.
        .target(name: "HTTPTypes"),
        // Transport: HTTP/1.1 on libmicrohttpd, imported only by AlmanacServer and the CLI.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "HTTPTypes"]),
        // CalDAV and WebDAV: pure request to response over the store.
        .target(
            name: "CalDAV",
            dependencies: [
                "Accounts", "Availability", "CalendarStore", "HTTPTypes", "ICalendar", "Recurrence", "CivilTime",
                "Scheduling",
            ]),
        // Free slots and conflicts from busy time and booking rules (pure).
        .target(name: "Availability", dependencies: ["CivilTime", "ICalendar", "Recurrence"]),
        // Month, week and day layout shared by the web pages, the API and the terminal (pure).
        .target(name: "CalendarViews", dependencies: ["CivilTime", "Recurrence"]),
        // The store's values as Availability and CalendarViews take them (both stay pure).
        .target(name: "StoreAdapters", dependencies: ["CalendarStore", "Availability", "CalendarViews"]),
        // Bookings: the slot rules, the engine that checks them in the store's transaction, the
        // booker's tokens and the sweeper of expired holds.
        .target(
            name: "Bookings",
            dependencies: ["Availability", "CalendarStore", "StoreAdapters", "Accounts", "CivilTime", "ICalendar"]),
        // "Add to Calendar": bridge payload, Android intent, web links and .ics for an event (pure
        // values, and one function that reads an event's stored object).
        .target(
            name: "AddToCalendar", dependencies: ["CivilTime", "ICalendar", "JSON", "Recurrence", "CalendarStore"]),
        // The JSON API under /api/v1 (pure request → response over the store).
        .target(
            name: "JSONAPI",
            dependencies: [
                "Bookings",
                "Accounts", "CalendarStore", "HTTPTypes", "ICalendar", "JSON", "CivilTime", "Recurrence",
                "Availability", "AddToCalendar",
                "CalendarViews", "StoreAdapters", "Scheduling",
            ],
            resources: [.embedInCode("Resources/openapi.json")]),
        // The web calendar's pages (pure request → response over the store).
        .target(
            name: "WebCalendar",
            dependencies: [
                "Bookings",
                "CalendarStore", "CalendarViews", "AddToCalendar", "Availability", "StoreAdapters", "HTTPTypes",
                "Accounts", "ICalendar", "CivilTime", "Recurrence", "Scheduling",
            ],
            resources: [
                .embedInCode("Resources/app.css"), .embedInCode("Resources/app.js"), .embedInCode("Resources/icon.svg"),
            ]),
        // Subscription feeds: a calendar's read-only .ics at a secret URL.
        .target(name: "Feeds", dependencies: ["CalendarStore", "HTTPTypes"]),
        // libcurl (Debian's libcurl4-openssl-dev), the server's outbound HTTP client.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The server's own requests: where they may go (the IANA special-purpose registries,
        // the host's own addresses), the HTTP and SMTP clients on libcurl with short
        // timeouts, and a worker queue fair between owners. Knows nothing of calendars.
        .target(name: "Outbound", dependencies: ["CCurl", "HTTPTypes"]),
        // Webhook delivery from the store's outbox: signed, ordered per calendar, retried.
        .target(
            name: "Webhooks",
            dependencies: ["CalendarStore", "Accounts", "Outbound", "CivilTime", "HTTPTypes", "ICalendar", "JSON"]),
        // WebDAV-Push: Web Push messages (RFC 8030, encrypted per RFC 8291, signed with
        // VAPID per RFC 8292 on OpenSSL) to the subscriptions clients register on calendars.
        .target(name: "Push", dependencies: ["CalendarStore", "Accounts", "COpenSSL", "Outbound", "JSON"]),
        // Reminders: the alarm scheduler that fires every VALARM at its time from the store's
        // persistent queue (webhooks through the outbox, e-mail through Outbound).
        .target(
            name: "Reminders", dependencies: ["CalendarStore", "CivilTime", "HTTPTypes", "Outbound", "Scheduling"]),
        // Scheduling (RFC 6638, RFC 5546 iTIP): who organizes and attends an object, the
        // messages writes send, answers applied (values in, values out), and the agent
        // that delivers them between the store's users.
        .target(name: "Scheduling", dependencies: ["CivilTime", "ICalendar", "Recurrence", "CalendarStore"]),
        // Subscribed calendars: feeds fetched once for all their subscribers, on the
        // outbound client and rules, fairly between subscribers.
        .target(name: "Subscriptions", dependencies: ["CalendarStore", "ICalendar", "Outbound"]),
        // The server: store, authentication and routes wired onto the HTTP transport.
        .target(
            name: "AlmanacServer",
            dependencies: [
                "Bookings",
                "CalendarStore", "HTTPServer", "HTTPTypes", "Accounts", "CalDAV", "JSONAPI", "WebCalendar", "Feeds",
                "Recurrence", "Webhooks", "Subscriptions", "Scheduling", "Outbound", "JSON", "Reminders", "Push",
            ]),
        // The command-line interface as a library, so tests run it in process.
        .target(
            name: "AlmanacCLI",
            dependencies: [
                "Bookings",
                "CivilTime", "ICalendar", "JSON", "Recurrence", "CalendarStore", "Accounts", "AlmanacServer",
                "HTTPServer", "HTTPTypes",
                "Availability", "AddToCalendar",
                "CalendarViews", "StoreAdapters", "Webhooks", "Subscriptions", "Scheduling", "Outbound", "Reminders",
                "Push",
            ]),
        .executableTarget(name: "almanac", dependencies: ["AlmanacCLI"]),
        // The Swift client library for app developers: Foundation and FoundationNetworking
        // only (URLSession), so it builds for iOS, macOS and Linux; nothing of the server.
        .target(name: "AlmanacClient"),

        // Benchmarks (release builds; see Benchmarks/README.md).
        .target(name: "CMallocCounter", path: "Benchmarks/CMallocCounter"),
        .executableTarget(
            name: "AlmanacBenchmarks",
            dependencies: [
                "ICalendar", "JSON", "Recurrence", "CalendarStore", "CMallocCounter", "AlmanacTestSupport",
                "AlmanacServer",
                "Accounts", "HTTPServer", "HTTPTypes", "Webhooks", "CivilTime", "Outbound", "Reminders", "Push",
            ],
            path: "Benchmarks/AlmanacBenchmarks"
        ),

        // libFuzzer entry point for the byte parsers (FuzzTesting/run-fuzzer); a plain
        // build of it replays files through the same checks.
        .executableTarget(
            name: "FuzzICalendar",
            dependencies: ["CivilTime", "ICalendar"],
            path: "FuzzTesting/Sources/FuzzICalendar"
        ),

        // libFuzzer entry points for the outer layers' parsers: XML bodies, DAV paths,
        // percent and form decoding, the JSON API's requests, the CLI's times.
        .executableTarget(
            name: "FuzzServer",
            dependencies: ["CalDAV", "HTTPTypes", "JSONAPI", "CalendarStore", "AlmanacCLI"],
            path: "FuzzTesting/Sources/FuzzServer"
        ),

        // Shared test helpers: seeded randomness, the corpus generator, temporary directories.
        .target(
            name: "AlmanacTestSupport", dependencies: ["CivilTime", "ICalendar", "Recurrence"],
            path: "Tests/AlmanacTestSupport"),
        // The test harness: the real server (SQLite or PostgreSQL; in process or on a loopback
        // port) with DAV and API clients that return parsed values. Test targets only.
        .target(
            name: "AlmanacTesting",
            dependencies: [
                "AlmanacServer", "CalDAV", "CalendarStore", "Accounts", "HTTPServer", "HTTPTypes", "AlmanacTestSupport",
                "Webhooks", "Subscriptions", "Outbound", "Reminders", "Push",
            ],
            path: "Tests/AlmanacTesting"),
        // A child process for the store's crash test: writes and reports what was acknowledged.
        .executableTarget(name: "StoreCrashWorker", dependencies: ["CalendarStore"], path: "Tests/StoreCrashWorker"),

        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime", "AlmanacTestSupport"]),
        .testTarget(
            name: "ICalendarTests", dependencies: ["ICalendar", "JSON", "AlmanacTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "RecurrenceTests", dependencies: ["Recurrence", "AlmanacTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "CalendarStoreTests", dependencies: ["CalendarStore", "AlmanacTestSupport", "AlmanacTesting"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPTypes", "AlmanacTestSupport"]),
        .testTarget(name: "AccountsTests", dependencies: ["Accounts", "JSON", "AlmanacTestSupport"]),
        // The server as a whole: the mail budget and trust between users across its parts.
        .testTarget(
            name: "AlmanacServerTests",
            dependencies: [
                "AlmanacServer", "Accounts", "CalendarStore", "HTTPTypes", "Webhooks", "Subscriptions", "Outbound",
                "AlmanacTestSupport", "AlmanacTesting",
            ]),
        .testTarget(
            name: "BookingsTests",
            dependencies: [
                "Bookings", "AlmanacServer", "CalendarStore", "HTTPTypes", "Webhooks", "AlmanacTestSupport",
                "AlmanacTesting", "HTTPServer",
            ]),
        .testTarget(
            name: "JSONAPITests",
            dependencies: [
                "JSONAPI", "AlmanacServer", "CalendarStore", "HTTPTypes", "Accounts", "ICalendar", "JSON", "CivilTime",
                "Recurrence", "AlmanacTestSupport", "AlmanacTesting", "HTTPServer", "Reminders",
            ]),
        .testTarget(
            name: "WebCalendarTests",
            dependencies: [
                "WebCalendar", "AlmanacServer", "Bookings", "CalendarStore", "HTTPTypes", "Accounts", "ICalendar",
                "CivilTime", "Availability",
                "AlmanacTestSupport", "AlmanacTesting", "HTTPServer",
            ]),
        .testTarget(
            name: "WebhooksTests",
            dependencies: [
                "Webhooks", "AlmanacServer", "CalendarStore", "HTTPTypes", "ICalendar", "CivilTime", "Outbound",
                "AlmanacTestSupport", "AlmanacTesting", "HTTPServer",
            ]),
        .testTarget(
            name: "FeedsTests",
            dependencies: ["Feeds", "CalendarStore", "HTTPTypes", "ICalendar", "AlmanacTesting", "HTTPServer"]),
        .testTarget(
            name: "SubscriptionsTests",
            dependencies: [
                "Subscriptions", "CalendarStore", "HTTPTypes", "Outbound", "Webhooks", "AlmanacTesting", "HTTPServer",
            ]),
        .testTarget(
            name: "AvailabilityTests",
            dependencies: ["Availability", "CivilTime", "ICalendar", "Recurrence", "AlmanacTestSupport"]),
        .testTarget(name: "CalendarViewsTests", dependencies: ["CalendarViews", "CivilTime"]),
        .testTarget(
            name: "PushTests",
            dependencies: ["Push", "CalendarStore", "CivilTime", "AlmanacTesting", "HTTPTypes"]),
        .testTarget(
            name: "RemindersTests",
            dependencies: [
                "Reminders", "CalendarStore", "Webhooks", "ICalendar", "CivilTime", "JSON", "Scheduling",
                "AlmanacTestSupport", "AlmanacTesting",
            ]),
        .testTarget(name: "SchedulingTests", dependencies: ["Scheduling", "ICalendar", "CivilTime", "CalendarStore"]),
        .testTarget(
            name: "OutboundTests", dependencies: ["Outbound", "HTTPTypes", "AlmanacTestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "AddToCalendarTests",
            dependencies: ["AddToCalendar", "CalendarStore", "ICalendar", "JSON", "CivilTime", "AlmanacTestSupport"]),

        .testTarget(
            name: "CalDAVTests",
            dependencies: ["CalDAV", "CalendarStore", "HTTPTypes", "AlmanacTestSupport", "AlmanacTesting"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "AlmanacCLITests", dependencies: ["AlmanacCLI", "JSON", "AlmanacTestSupport", "AlmanacTesting"]),
        .testTarget(
            name: "AlmanacClientTests",
            dependencies: ["AlmanacClient", "Accounts", "AlmanacTesting", "AlmanacTestSupport", "Reminders"]),
    ],
    swiftLanguageModes: [.v6]
)
