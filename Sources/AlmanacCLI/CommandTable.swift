import Recurrence

/// Every command of `almanac`, with its options and their defaults: the one place the
/// help, the completion scripts and the option parsers read.
enum CommandTable {
    /// The top level, in the order `almanac --help` lists it.
    static let entries: [CommandEntry] = [
        .group(ics),
        .command(serve),
        .group(user),
        .group(calendar),
        .command(add), .command(list), .command(agenda), .command(cal), .command(remove),
        .command(importFile), .command(export),
        .group(feed),
        .command(alarms),
        .group(database),
        .group(token),
        .group(webhook),
        .group(hours),
        .command(free), .command(links),
        .command(subscribe),
        .group(imip),
        .command(completion),
    ]

    static func entry(named name: String) -> CommandEntry? { entries.first { $0.name == name } }

    /// Every command, subcommands included.
    static var allCommands: [CommandSpec] {
        entries.flatMap { entry -> [CommandSpec] in
            switch entry {
            case .command(let spec): [spec]
            case .group(let group): group.subcommands
            }
        }
    }

    // MARK: Shared options

    /// The options that choose the database.
    static let databaseOptions: [OptionSpec] = [
        .valued(
            "--data", "DIR", "the data directory holding almanac.sqlite",
            .value("$ALMANAC_DATA, else $XDG_DATA_HOME/almanac, else ~/.local/share/almanac"), kind: .directory),
        .valued(
            "--database", "URL", "another database: postgres://user@host/db or sqlite:PATH (not with --data)",
            .value("$ALMANAC_DATABASE, else almanac.sqlite in the data directory")),
    ]

    /// The options of every command on the store: the database and the user it acts for.
    static let storeOptions: [OptionSpec] =
        databaseOptions + [
            .valued("--user", "NAME", "the user to act for", .value("$ALMANAC_USER, else the only user, else $USER"))
        ]

    static let zoneOption = OptionSpec.valued(
        "--tz", "ZONE", "the IANA zone times are read and shown in (Europe/Berlin)",
        .value("the user's zone from the web calendar's settings, else $TZ, else /etc/localtime"))

    /// The filters of the commands that list what a range holds.
    static let onlyCalendarOption = OptionSpec.valued(
        "--calendar", "TITLE", "only this calendar", .value("every calendar"))
    static let onlyTitleOption = OptionSpec.valued(
        "--title", "TEXT", "only titles containing this (ignoring case)", .value("any title"))

    static let whenText = """
        WHEN is YYYY-MM-DD, "YYYY-MM-DD HH:MM" (in --tz, else the user's zone, else
        the local zone), a time ending in Z (UTC), today or tomorrow. Listings start
        with the zone their times are in.
        """

    // MARK: ics

    /// How the `ics` commands read: by default as the server stores (RFC 5545 with the
    /// documented repairs); these two change it, the same way for every command.
    static let readingOptions: [OptionSpec] = [
        .flag("--strict", "RFC 5545 alone: refuse the repairs the server accepts too"),
        .flag("--lenient", "accept what lenient mode recovers from, printing it as warnings"),
    ]

    static let ics = CommandGroup(
        name: "ics", summary: "tools for iCalendar files (no store needed)",
        subcommands: [
            CommandSpec(
                ["ics", "check"], operands: "FILE...", operandKind: .file, summary: "validate iCalendar files",
                options: readingOptions,
                example: "almanac ics check --lenient google-export.ics",
                details: """
                    Exit 0 when every file is valid, else 1. By default a file passes exactly
                    when a CalDAV PUT would store it: RFC 5545 with the server's documented
                    repairs, each printed as a warning. Each problem goes to stderr as
                    FILE:LINE:COLUMN: message [code]; docs/icalendar-diagnostics.md lists every
                    check, every repair, and what --strict and --lenient do.
                    """),
            CommandSpec(
                ["ics", "format"], operands: "FILE|-", operandKind: .file, summary: "print the canonical serialization",
                options: readingOptions + [
                    .flag("--repair", "print the file as read, with the repairs reading made (each a warning)")
                ],
                example: "almanac ics format - < invite.ics",
                details: """
                    CRLF, folded at 75 octets, upper-case names, minimal quoting; everything
                    else as it was: the same components, properties, parameters and values, a
                    bare VEVENT still bare, a line the grammar does not describe kept as it came.
                    Content changes only with --repair. '-' reads standard input.
                    """),
            CommandSpec(
                ["ics", "to-json"], operands: "FILE|-", operandKind: .file,
                summary: "convert iCalendar to jCal (RFC 7265)",
                options: readingOptions + [.flag("--compact", "one line instead of indented JSON")],
                example: "almanac ics to-json --compact team.ics"),
            CommandSpec(
                ["ics", "from-json"], operands: "FILE|-", operandKind: .file, summary: "convert jCal to iCalendar",
                example: "almanac ics to-json team.ics | almanac ics from-json -"),
            CommandSpec(
                ["ics", "expand"], operands: "FILE|-", operandKind: .file, summary: "list the instances in a window",
                options: [
                    .valued("--from", "DATE", "the window's start", .value("today, midnight in --tz")),
                    .valued("--to", "DATE", "the window's end (excluded)", .value("a year after today")),
                    .valued(
                        "--tz", "ZONE", "the viewer's zone: it places floating and all-day instances", .value("UTC")),
                    .valued(
                        "--format", "text|jsonl", "text, or jsonl (one JSON object per instance)", .value("text"),
                        kind: .choices(["text", "jsonl"])),
                    .valued(
                        "--max-instances", "N",
                        "the most instances listed per series (1 to 10000000); a series cut by it is named on stderr and the exit status is 1",
                        .value(String(ExpansionLimits.default.maxInstances))),
                    .flag("--strict", "RFC 5545 alone: refuse the repairs the server accepts too"),
                    .flag(
                        "--lenient",
                        "accept what lenient mode recovers from; an unknown TZID becomes UTC with a warning"),
                ],
                example: "almanac ics expand team.ics --from 2026-11-30 --to 2026-12-07 --format jsonl",
                details: """
                    Prints every instance of every VEVENT, VTODO and VJOURNAL that overlaps
                    [from, to), sorted by start. DATE is YYYY-MM-DD (midnight in --tz),
                    YYYY-MM-DDTHH:MM:SS (in --tz) or YYYY-MM-DDTHH:MM:SSZ. jsonl prints one
                    object per instance: uid, recurrenceId, start, end, allDay, tzid,
                    override, status, summary; start/end are RFC 3339 UTC for timed
                    instances, YYYY-MM-DD for all-day, local time for floating.
                    """),
        ],
        details:
            "check applies the server's policy by default (RFC 5545 with documented repairs); the other tools read strictly. docs/icalendar-diagnostics.md lists every check and what --strict and --lenient do."
    )

    // MARK: The server and its accounts

    static let serve = CommandSpec(
        ["serve"], summary: "run the calendar server (CalDAV, feeds, the JSON API, the web calendar)",
        options: [
            .valued(
                "--host", "ADDRESS", "an IPv4 or IPv6 address to listen on (put TLS in front with a reverse proxy)",
                .value("127.0.0.1")),
            .valued("--port", "N", "the port; 0 picks a free one", .value("8080")),
        ] + databaseOptions + [
            .valued(
                "--threads", "N",
                "transport threads, which hand requests to the workers; 0 serves each connection on its own thread",
                .value("one per core")),
            .valued(
                "--workers", "N", "threads that answer requests, shared fairly between client addresses",
                .value("two per core, at least 4")),
            .valued("--max-body", "BYTES", "the largest request body; larger gets 413", .value("16 MiB")),
            .valued("--timeout", "SECONDS", "how long an idle connection stays open", .value("60")),
            .valued("--max-connections", "N", "connections served at once", .value("1024")),
            .valued(
                "--max-connections-per-address", "N", "connections one client address may hold; 0 for no limit",
                .value("128; 0 with --trusted-proxy")),
            .valued(
                "--trusted-proxy", "ADDRESS[,ADDRESS...]", "reverse proxies whose X-Forwarded-For names the client",
                .value("$ALMANAC_TRUSTED_PROXIES, else none"),
                repeatable: true),
            .valued(
                "--quota-objects", "N", "events, to-dos and journals one user may hold; 0 for no limit; more gets 507",
                .value("100000")),
            .valued("--quota-bytes", "BYTES", "their bytes; 0 for no limit", .value("1 GiB")),
            .flag("--quiet", "no access log (otherwise one line per request on stderr)"),
            .valued(
                "--cors-origin", "ORIGIN", "a web origin (https://app.example.com) whose pages may call the JSON API",
                .value("none"), repeatable: true),
            .valued(
                "--api-rate-limit", "N",
                "JSON API requests a minute per token (and per user), unless the token has its own; 0 for none",
                .value("1200")),
            .flag(
                "--allow-private-webhooks",
                "deliver webhooks to loopback and private addresses too (never by default)"),
            .valued(
                "--webhook-workers", "N", "calendars whose webhooks are delivered at once; 0 delivers none", .value("4")
            ),
            .flag(
                "--allow-private-feeds",
                "fetch subscribed feeds from loopback and private addresses too (never by default)"),
            .valued("--feed-check", "SECONDS", "how often to look for subscribed feeds that are due", .value("30")),
            .valued(
                "--alarm-grace", "SECONDS",
                "after downtime, alarms missed by less than this fire at once (marked late); older ones are recorded as missed",
                .value("3600")),
            .flag("--no-alarms", "fire no alarms in this process (another process on the database does)"),
            .valued(
                "--base-url", "URL",
                "where people reach the server, for the links in reminder mails (and, https, the VAPID contact)",
                .value("http://HOST:PORT")),
            .flag("--no-push", "offer no WebDAV-Push: calendars advertise none and take no registrations"),
            .flag(
                "--allow-private-push",
                "send WebDAV-Push messages to loopback and private push services too (never by default)"),
            smtpOption, smtpFromOption,
            .valued(
                "--ldap-url", "URL",
                "sign users without a stored password in against this LDAP directory (ldap://HOST:PORT or ldaps://…)",
                .value("none")),
            .valued("--ldap-base-dn", "DN", "where the directory's users are searched (with --ldap-url)", .required),
            .valued(
                "--ldap-user-filter", "FILTER", "the search for a user, %u standing for their (escaped) name",
                .value("(uid=%u)")),
            .valued("--ldap-bind-dn", "DN", "the service account the search binds as", .value("anonymous")),
            .valued(
                "--ldap-bind-password-file", "PATH", "a file holding that account's password", .value("none"),
                kind: .file),
            .flag("--ldap-starttls", "StartTLS on an ldap:// URL before anything is sent"),
            .valued(
                "--ldap-ca-file", "PATH", "the CA certificates (PEM) the directory's certificate must chain to",
                .value("the system's"), kind: .file),
            .flag(
                "--ldap-create-users", "make an account at a directory user's first sign-in (else an admin makes it)"),
            .valued(
                "--oidc-issuer", "URL",
                "accept this OpenID Connect provider's access tokens on the API and offer its sign-in on the web",
                .value("none")),
            .valued("--oidc-client-id", "ID", "Almanac's client ID at the provider (with --oidc-issuer)", .required),
            .valued(
                "--oidc-client-secret-file", "PATH", "a file holding that client's secret (with --oidc-issuer)",
                .required, kind: .file),
            .valued(
                "--oidc-audience", "AUD", "what an API access token's aud must contain", .value("the client ID")),
            .valued(
                "--oidc-user-claim", "CLAIM", "the claim that names the Almanac user",
                .value("preferred_username"), kind: .choices(["preferred_username", "email", "sub"])),
            .valued(
                "--oidc-scope-prefix", "PREFIX", "what precedes read, add, read-write and admin in a token's scope",
                .value("almanac:")),
            .flag(
                "--oidc-create-users", "make an account at a provider user's first sign-in (else an admin makes it)"),
            .flag(
                "--allow-private-identity",
                "reach an OpenID Connect provider on loopback and private addresses too (never by default)"),
            .valued(
                "--visible-principals", "self|all",
                "whose CalDAV principals a user sees (listed, searched, read): their own, or every user's",
                .value("self"), kind: .choices(["self", "all"])),
        ],
        example: "almanac serve --host 0.0.0.0 --port 8080 --trusted-proxy 127.0.0.1",
        details: """
            Runs until SIGINT or SIGTERM; requests in progress finish first. On first
            start with no users, creates one and prints its password once.
            """)

    static let user = CommandGroup(
        name: "user", summary: "accounts that sign in to the server",
        subcommands: [
            CommandSpec(
                ["user", "add"], operands: "NAME", operandKind: .text, summary: "add an account",
                options: databaseOptions + [
                    .flag("--generate", "make up a password and print it once"),
                    .valued("--email", "ADDRESS", "an e-mail address of theirs", .value("none"), repeatable: true),
                    .flag("--admin", "make them an admin (they manage accounts)"),
                ],
                example: "almanac user add anna --generate --email anna@example.com"),
            CommandSpec(
                ["user", "role"], operands: "NAME admin|user", operandKind: .text,
                summary: "make a user an admin or a plain user", options: databaseOptions,
                example: "almanac user role anna admin"),
            CommandSpec(
                ["user", "disable"], operands: "NAME", operandKind: .text,
                summary: "stop a user signing in by any method (their web sessions end, their tokens stop)",
                options: databaseOptions, example: "almanac user disable bob"),
            CommandSpec(
                ["user", "enable"], operands: "NAME", operandKind: .text, summary: "let a disabled user sign in again",
                options: databaseOptions, example: "almanac user enable bob"),
            CommandSpec(
                ["user", "email"], operands: "NAME [ADDRESS…]", operandKind: .text,
                summary: "set a user's e-mail addresses (none: remove them); prints them",
                options: databaseOptions, example: "almanac user email anna anna@example.com a.berg@example.org"),
            CommandSpec(
                ["user", "passwd"], operands: "NAME", operandKind: .text,
                summary: "change a password; ends the user's web sessions",
                options: databaseOptions + [
                    .flag("--generate", "make up a password and print it once"),
                    .flag("--revoke-tokens", "also revoke the user's API tokens"),
                ],
                example: "almanac user passwd anna --revoke-tokens"),
            CommandSpec(
                ["user", "list"], summary: "list the accounts", options: databaseOptions, example: "almanac user list"),
            CommandSpec(
                ["user", "delete"], operands: "NAME", operandKind: .text,
                summary: "delete an account and everything that is theirs (events they organize are cancelled)",
                options: databaseOptions, example: "almanac user delete bob"),
        ],
        details: "The password comes from the first line of standard input, or a prompt (twice) on a terminal.")

    // MARK: The store

    static let calendar = CommandGroup(
        name: "calendar", summary: "manage calendars",
        subcommands: [
            CommandSpec(
                ["calendar", "list"], summary: "the calendars, with object counts, colour and zone",
                options: storeOptions, example: "almanac calendar list"),
            CommandSpec(
                ["calendar", "create"], operands: "TITLE", operandKind: .text, summary: "a new calendar",
                options: [
                    .valued("--color", "#RRGGBB", "its colour", .value("none")),
                    .valued("--tz", "ZONE", "its zone, which reads floating times", .value("none")),
                    .valued("--description", "TEXT", "what it is for", .value("none")),
                ] + storeOptions,
                example: "almanac calendar create Work --color '#336699' --tz Europe/Berlin"),
            CommandSpec(
                ["calendar", "delete"], operands: "TITLE", operandKind: .text,
                summary: "delete a calendar with everything in it",
                options: storeOptions, example: "almanac calendar delete Work"),
            CommandSpec(
                ["calendar", "show"], operands: "TITLE", operandKind: .text,
                summary: "identifier, zone, counts, CTag, sync token and shares",
                options: storeOptions, example: "almanac calendar show Work"),
            CommandSpec(
                ["calendar", "share"], operands: "TITLE", operandKind: .text,
                summary: "share a calendar with another user (at once; --invite to ask them first)",
                options: [
                    .valued("--with", "USER", "the user to share it with", .required),
                    .valued("--access", "read|read-write", "what they may do", .value("read")),
                    .flag("--invite", "send an invitation that they accept or decline"),
                    .valued("--summary", "TEXT", "a note for them", .value("none")),
                ] + storeOptions,
                example: "almanac calendar share Trainings --with ben --access read-write"),
            CommandSpec(
                ["calendar", "unshare"], operands: "TITLE", operandKind: .text,
                summary: "stop sharing a calendar with a user (it leaves their home)",
                options: [.valued("--with", "USER", "the user", .required)] + storeOptions,
                example: "almanac calendar unshare Trainings --with ben"),
        ],
        details: nil)

    static let add = CommandSpec(
        ["add"], summary: "add an event",
        options: [
            .valued("--calendar", "TITLE", "the calendar", .required),
            .flag("--create", "make the calendar when there is none of that title (the first one needs none)"),
            .valued("--title", "TEXT", "the event's title", .required),
            .valued("--start", "WHEN", "when it starts", .required),
            .valued(
                "--end", "WHEN", "when it ends (not with --duration)",
                .note("--end or --duration is required, unless --all-day")),
            .valued("--duration", "DURATION", "how long: 90m, 1h30m, 2d, 1w or PT90M", .note("one day with --all-day")),
            .flag("--all-day", "an all-day event"),
            zoneOption,
            .valued("--rrule", "RULE", "a recurrence rule (FREQ=WEEKLY;BYDAY=TU;COUNT=4)", .value("none")),
            .valued("--alarm", "DURATION", "an alarm relative to the start (-15m)", .value("none"), repeatable: true),
            .valued("--location", "TEXT", "where", .value("none")),
            .valued("--notes", "TEXT", "a description", .value("none")),
            .valued("--url", "URL", "a link", .value("none")),
        ] + storeOptions,
        example:
            "almanac add --calendar Trainings --title 'Leg day' --start '2026-12-01 18:00' --duration 90m --alarm -15m",
        details: whenText)

    static let list = CommandSpec(
        ["list"], summary: "occurrences in start order, with their identifiers",
        options: rangeOptions(days: "30 days") + [
            onlyCalendarOption,
            onlyTitleOption,
            zoneOption,
            .flag("--json", "a JSON array of objects instead of lines"),
        ] + storeOptions,
        example: "almanac list --from 2026-12-01 --to 2026-12-08 --calendar Work",
        details: whenText)

    static let agenda = CommandSpec(
        ["agenda"], summary: "the next days' events, by day",
        options: rangeOptions(days: "7 days") + [
            onlyCalendarOption,
            onlyTitleOption,
            zoneOption,
        ] + storeOptions,
        example: "almanac agenda --calendar Trainings",
        details: whenText)

    static let cal = CommandSpec(
        ["cal"], summary: "a month or week grid with event markers, then the period's agenda",
        options: [
            .valued("--month", "YYYY-MM", "the month to show (2026-11)", .value("the month of --date")),
            .valued("--week", "YYYY-Www", "an ISO week instead (2026-W48)", .value("none: a month")),
            .valued("--date", "WHEN", "a day in the month to show", .value("today")),
            .valued(
                "--first-weekday", "DAY", "the day weeks start on", .value("monday"),
                kind: .choices(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])),
            .valued("--calendar", "TITLE[,TITLE...]", "only these calendars", .value("every calendar")),
            zoneOption,
        ] + storeOptions,
        example: "almanac cal --month 2026-12 --first-weekday sunday",
        details: """
            A day with events is marked * (! when two busy events overlap); on a terminal
            it is bold in its calendar's colour and today is reversed (NO_COLOR turns colour off).
            """)

    static let remove = CommandSpec(
        ["remove"], summary: "remove occurrences in a range, or an event or some of its instances",
        options: [
            .valued("--calendar", "TITLE", "the calendar to remove from", .note("required unless --id")),
            .valued("--from", "WHEN", "the range's start", .note("required with --calendar")),
            .valued("--to", "WHEN", "the range's end", .note("required with --calendar")),
            .valued("--title", "TEXT", "only occurrences with this title (ignoring case)", .value("any title")),
            .valued(
                "--id", "ID", "an event, or an occurrence identifier from 'list' (EVENT/RECURRENCE-ID)", .value("none")),
            .valued("--occurrence", "WHEN", "with --id: only this instance", .value("the whole event")),
            .valued(
                "--span", "this|future", "with --occurrence: this instance, or it and every later one", .value("this"),
                kind: .choices(["this", "future"])),
            zoneOption,
        ] + storeOptions,
        example: "almanac remove --calendar Trainings --from 2026-12-01 --to 2026-12-09 --title 'leg day'",
        details: whenText)

    static let importFile = CommandSpec(
        ["import"], operands: "FILE|-", operandKind: .file,
        summary: "import a .ics file, one object per UID (again: replaces by UID)",
        options: [
            .valued(
                "--calendar", "TITLE", "the calendar to import into", .note("the name the file gives (X-WR-CALNAME)")),
            .flag("--create", "make the calendar when there is none of that title (the first one needs none)"),
        ]
            + storeOptions,
        example: "almanac import google-export.ics --calendar Work",
        details: "Each rejected object is reported as FILE:LINE: UID …: reason; exit 1 if anything was rejected.")

    static let export = CommandSpec(
        ["export"], operands: "[FILE]", operandKind: .file,
        summary: "write the calendar as one .ics file (standard output without FILE)",
        options: [.valued("--calendar", "TITLE", "the calendar to export", .required)] + storeOptions,
        example: "almanac export --calendar Work work.ics")

    static let feed = CommandGroup(
        name: "feed", summary: "the calendar's secret subscription URL",
        subcommands: [
            CommandSpec(
                ["feed", "create"], operands: "TITLE", operandKind: .text,
                summary: "print the feed's webcal:// and https:// URLs (made when missing)",
                options: [baseURL, busyFeed] + storeOptions,
                example: "almanac feed create Trainings --base-url https://calendar.example.com"),
            CommandSpec(
                ["feed", "rotate"], operands: "TITLE", operandKind: .text,
                summary: "a new URL; the old one stops working",
                options: [baseURL, busyFeed] + storeOptions, example: "almanac feed rotate Trainings"),
            CommandSpec(
                ["feed", "revoke"], operands: "TITLE", operandKind: .text,
                summary: "remove the feed; its URL answers 404",
                options: [busyFeed] + storeOptions, example: "almanac feed revoke Trainings"),
        ],
        details: "Each calendar has two feeds with tokens of their own: its events, and (--busy) only its busy time "
            + "as opaque blocks without titles, from a month back to a year ahead.")

    static let busyFeed = OptionSpec.flag("--busy", "the free-busy feed (busy blocks, no titles) instead")

    static let baseURL = OptionSpec.valued(
        "--base-url", "URL", "where the server is reached", .value("http://127.0.0.1:8080"))

    static let alarms = CommandSpec(
        ["alarms"], summary: "alarms that fire in a range, through recurrence",
        options: rangeOptions(days: "1 day") + [
            onlyCalendarOption,
            zoneOption,
            .flag("--json", "a JSON array of objects instead of lines"),
        ] + storeOptions,
        example: "almanac alarms --from today --to tomorrow --json",
        details: whenText)

    static let database = CommandGroup(
        name: "db", summary: "check, migrate, back up and copy the database",
        subcommands: [
            CommandSpec(
                ["db", "check"], summary: "the database's and the store's own checks, then counts; exit 1 when damaged",
                options: databaseOptions, example: "almanac db check"),
            CommandSpec(
                ["db", "migrate"], summary: "bring the schema up to date", options: databaseOptions,
                example: "almanac db migrate --database postgres://almanac@db/almanac"),
            CommandSpec(
                ["db", "backup"], operands: "FILE", operandKind: .file, summary: "an online copy of an SQLite database",
                options: databaseOptions,
                example: "almanac db backup /backup/almanac.sqlite"),
            CommandSpec(
                ["db", "copy"], summary: "copy everything to another, empty, database",
                options: [
                    .valued("--from", "DB", "the source: sqlite:PATH or postgres://…", .required),
                    .valued("--to", "DB", "the target (empty): sqlite:PATH or postgres://…", .required),
                ],
                example: "almanac db copy --from sqlite:almanac.sqlite --to postgres://almanac@db/almanac"),
        ],
        details: nil)

    // MARK: The app API

    static let token = CommandGroup(
        name: "token", summary: "personal API tokens (Authorization: Bearer) and app passwords (HTTP Basic)",
        subcommands: [
            CommandSpec(
                ["token", "create"], operands: "NAME", operandKind: .text, summary: "a new token, printed once",
                options: [
                    .valued(
                        "--scope", "read|read-write|add-only|admin", "what it may do (admin: an admin's only)",
                        .required, kind: .choices(["read", "read-write", "add-only", "admin"])),
                    .valued(
                        "--rate-limit", "N", "JSON API requests a minute it may send",
                        .value("the server's --api-rate-limit")),
                    .valued("--expires", "DURATION", "how long it works (30d, 12h; at most 366d)", .value("never")),
                    .valued(
                        "--calendar", "TITLE[,TITLE...]", "the only calendars it may see", .value("all"),
                        repeatable: true),
                    .flag(
                        "--app-password",
                        "an app password (HTTP Basic, for CalDAV clients) instead of a bearer token; read or read-write"
                    ),
                ] + storeOptions,
                example: "almanac token create 'class schedule' --scope read-write --rate-limit 120 --expires 90d"),
            CommandSpec(
                ["token", "list"], summary: "the user's tokens and app passwords, with when each was last used",
                options: storeOptions, example: "almanac token list"),
            CommandSpec(
                ["token", "revoke"], operands: "ID", operandKind: .text, summary: "revoke a token",
                options: storeOptions, example: "almanac token revoke Gk3v9aQz"),
        ],
        details: nil)

    static let webhook = CommandGroup(
        name: "webhook", summary: "signed HTTP notifications of every change to a user's calendars",
        subcommands: [
            CommandSpec(
                ["webhook", "add"], operands: "URL", operandKind: .text,
                summary: "a new subscription; prints its secret once",
                options: [
                    .valued(
                        "--events", "TYPE[,TYPE...]",
                        "event.created, event.updated, event.deleted, calendar.created, calendar.updated, calendar.deleted",
                        .value("all"), repeatable: true),
                    .valued(
                        "--calendar", "TITLE[,TITLE...]", "only these calendars' changes", .value("all"),
                        repeatable: true),
                    .valued("--description", "TEXT", "what it is for", .value("none")),
                    .flag("--allow-private", "allow a loopback or private address (as serve --allow-private-webhooks)"),
                ] + storeOptions,
                example:
                    "almanac webhook add https://bookings.example.com/hooks/almanac --events event.created,event.deleted"
            ),
            CommandSpec(
                ["webhook", "list"], summary: "the user's subscriptions, their state and what waits",
                options: storeOptions, example: "almanac webhook list"),
            CommandSpec(
                ["webhook", "remove"], operands: "ID", operandKind: .text, summary: "remove a subscription",
                options: storeOptions, example: "almanac webhook remove wh_3f9c0a528d1e4c7b9a0e5b2f"),
            CommandSpec(
                ["webhook", "test"], operands: "ID", operandKind: .text,
                summary: "send a signed ping now and show the answer",
                options: [.flag("--allow-private", "allow a loopback or private address")] + storeOptions,
                example: "almanac webhook test wh_3f9c0a528d1e4c7b9a0e5b2f"),
        ],
        details: nil)

    static let hours = CommandGroup(
        name: "hours", summary: "the user's bookable hours (their default availability schedule, RFC 7953)",
        subcommands: [
            CommandSpec(
                ["hours", "set"], operands: "HOURS", operandKind: .text, summary: "the weekly hours",
                options: [
                    .valued("--tz", "ZONE", "the zone the hours are in", .value("the schedule's, else $TZ")),
                    .valued("--title", "TEXT", "the schedule's name", .value("Working hours")),
                ] + storeOptions,
                example: "almanac hours set \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\" --tz Europe/Berlin"),
            CommandSpec(
                ["hours", "except"], operands: "DATE off|HOURS|weekly", operandKind: .text,
                summary: "other hours on a date, a day off, or the weekday's hours again", options: storeOptions,
                example: "almanac hours except 2026-12-24 off"),
            CommandSpec(
                ["hours", "show"], summary: "the hours and the dates that differ", options: storeOptions,
                example: "almanac hours show"),
        ],
        details: nil)

    static let free = CommandSpec(
        ["free"], summary: "free slots in a range",
        options: [
            .valued(
                "--calendar", "TITLE[,TITLE...]", "the calendars whose events are busy", .required, repeatable: true)
        ] + rangeOptions(days: "7 days") + [
            .valued("--duration", "DURATION", "the slot length (60m, 1h)", .value("60m")),
            .valued(
                "--working-hours", "HOURS", "when slots may be: \"Mon-Fri 09:00-17:00, Sat 10:00-14:00\"",
                .value("all day")),
            .valued(
                "--schedule", "default|ID", "follow a stored availability schedule (almanac hours) instead",
                .value("none")),
            .valued("--step", "DURATION", "between slot starts", .value("the slot length")),
            .valued("--buffer", "DURATION", "free time kept before and after every busy block", .value("0")),
            zoneOption,
            .flag("--include-past", "offer slots before now too (past times are never offered otherwise)"),
            .flag("--json", "one JSON object per slot (start, end in UTC)"),
        ] + storeOptions,
        example:
            "almanac free --calendar Trainings,Meetings --from 2026-12-01 --to 2026-12-08 --working-hours 'Mon-Fri 09:00-17:00'",
        details: whenText)

    static let subscribe = CommandSpec(
        ["subscribe"], operands: "URL", operandKind: .text,
        summary: "a read-only calendar filled from an .ics or webcal:// feed, which the server keeps fetching",
        options: [
            .valued("--title", "TEXT", "the calendar's title", .required),
            .valued(
                "--refresh", "DURATION", "poll at least this often (15m to 7d; never sooner than the feed asks)",
                .value("as the feed asks, else daily")),
            .flag("--allow-private", "allow a loopback or private address (as serve --allow-private-feeds)"),
        ] + storeOptions,
        example: "almanac subscribe https://example.com/school-holidays.ics --title 'School holidays'",
        details: """
            Fetches the feed once at once, to tell whether it works; `almanac serve` then
            fetches it for every subscriber (once per URL), honouring REFRESH-INTERVAL,
            ETag and Last-Modified, and backing off after errors. Delete the calendar to
            unsubscribe.
            """)

    static let smtpOption = OptionSpec.valued(
        "--smtp", "URL",
        "the relay iMIP invitations go out through: smtp://user:pass@host:587 (STARTTLS) or smtps://",
        .value("none: attendees outside the server are not reached"))

    static let smtpFromOption = OptionSpec.valued(
        "--smtp-from", "ADDRESS",
        "the server's own address: the envelope sender (MAIL FROM) and Sender: of its mail",
        .value("the sending user's own address"))

    static let imip = CommandGroup(
        name: "imip", summary: "invitations by e-mail (RFC 6047)",
        subcommands: [
            CommandSpec(
                ["imip", "receive"],
                summary: "take an answer, a proposal or a refresh that came by mail (one message on standard input)",
                options: [smtpOption, smtpFromOption] + databaseOptions,
                example: "almanac imip receive --smtp smtp://127.0.0.1:25 < reply.eml")
        ],
        details: """
            For an MTA pipe (a .forward or an alias `| almanac imip receive`): the message's
            text/calendar part is matched to the event by UID and checked against its From.
            A REPLY (from an invited attendee) is applied to the organizer's copy; a COUNTER
            (a proposed time) waits in the organizer's inbox for them to accept or decline
            (GET /api/v1/events/{id}/proposals, or the event page); a REFRESH is answered by
            mailing the current version, through --smtp; a DECLINECOUNTER (from an organizer
            outside the server) goes to the attendee's inbox. Exit 1 when it is refused.
            """)

    static let links = CommandSpec(
        ["links"], summary: "every \"Add to Calendar\" target of an event",
        options: [
            .valued("--id", "ID", "the event", .required),
            .valued("--occurrence", "RECURRENCE-ID", "one instance of a recurring event", .value("the whole event")),
            .valued("--tz", "ZONE", "the zone the links' times are given in", .value("the event's zone")),
        ] + storeOptions,
        example: "almanac links --id 4F0C… --occurrence 2026-12-08T17:00:00Z")

    static let completion = CommandSpec(
        ["completion"], operands: "bash|zsh|fish", operandKind: .choices(["bash", "zsh", "fish"]),
        summary: "print a shell completion script",
        example: "almanac completion fish > ~/.config/fish/completions/almanac.fish",
        details: """
            bash: add 'source <(almanac completion bash)' to ~/.bashrc.
            zsh:  almanac completion zsh > ~/.zfunc/_almanac (with ~/.zfunc on fpath before compinit).
            fish: almanac completion fish > ~/.config/fish/completions/almanac.fish
            """)

    /// `--from` and `--to` of the store's listings.
    static func rangeOptions(days: String) -> [OptionSpec] {
        [
            .valued("--from", "WHEN", "the range's start", .value("today, midnight")),
            .valued("--to", "WHEN", "the range's end (excluded)", .value("\(days) after --from")),
        ]
    }
}
