import AlmanacCLI
import AlmanacTestSupport
import Foundation
import Testing

/// `--help` on every command, `almanac help`, and the completion scripts run by the
/// real shells.
@Suite struct HelpAndCompletionTests {
    /// Every command line the dispatcher (Almanac.run) and the group commands accept,
    /// with the options each parser accepted before the options moved into one table:
    /// each must stay documented.
    static let commands: [(path: [String], options: [String])] = {
        let store = ["--data", "--database", "--user"]
        let database = ["--data", "--database"]
        return [
            (["ics", "check"], ["--strict", "--lenient"]),
            (["ics", "format"], ["--strict", "--lenient", "--repair"]),
            (["ics", "to-json"], ["--strict", "--lenient", "--compact"]),
            (["ics", "from-json"], []),
            (["ics", "expand"], ["--from", "--to", "--tz", "--format", "--max-instances", "--strict", "--lenient"]),
            (
                ["serve"],
                [
                    "--host", "--port", "--data", "--database", "--threads", "--workers", "--max-body", "--timeout",
                    "--cors-origin",
                    "--max-connections",
                    "--max-connections-per-address", "--trusted-proxy", "--quota-objects", "--quota-bytes", "--quiet",
                    "--visible-principals", "--api-rate-limit", "--allow-private-webhooks", "--webhook-workers",
                    "--allow-private-feeds", "--feed-check", "--alarm-grace", "--no-alarms", "--base-url", "--no-push",
                    "--allow-private-push", "--smtp",
                    "--smtp-from",
                    "--ldap-url", "--ldap-base-dn",
                    "--ldap-user-filter", "--ldap-bind-dn", "--ldap-bind-password-file", "--ldap-starttls",
                    "--ldap-ca-file", "--ldap-create-users", "--oidc-issuer", "--oidc-client-id",
                    "--oidc-client-secret-file", "--oidc-audience", "--oidc-user-claim", "--oidc-scope-prefix",
                    "--oidc-create-users", "--allow-private-identity",
                ]
            ),
            (["user", "add"], database + ["--generate", "--email", "--admin"]),
            (["user", "role"], database),
            (["user", "disable"], database),
            (["user", "enable"], database),
            (["user", "email"], database),
            (["user", "passwd"], database + ["--generate", "--revoke-tokens"]),
            (["user", "list"], database),
            (["user", "delete"], database),
            (["calendar", "list"], store),
            (["calendar", "create"], store + ["--color", "--tz", "--description"]),
            (["calendar", "delete"], store),
            (["calendar", "show"], store),
            (["calendar", "share"], store + ["--with", "--access", "--invite", "--summary"]),
            (["calendar", "unshare"], store + ["--with"]),
            (
                ["add"],
                store + [
                    "--calendar", "--title", "--start", "--end", "--duration", "--tz", "--rrule", "--alarm",
                    "--location", "--notes", "--url", "--all-day", "--create",
                ]
            ),
            (["list"], store + ["--from", "--to", "--calendar", "--title", "--tz", "--json"]),
            (["agenda"], store + ["--from", "--to", "--calendar", "--title", "--tz"]),
            (["cal"], store + ["--month", "--week", "--date", "--first-weekday", "--calendar", "--tz"]),
            (
                ["remove"],
                store + ["--calendar", "--from", "--to", "--title", "--id", "--occurrence", "--span", "--tz"]
            ),
            (["import"], store + ["--calendar", "--create"]),
            (["export"], store + ["--calendar"]),
            (["feed", "create"], store + ["--base-url", "--busy"]),
            (["feed", "rotate"], store + ["--base-url", "--busy"]),
            (["feed", "revoke"], store + ["--busy"]),
            (["alarms"], store + ["--from", "--to", "--calendar", "--tz", "--json"]),
            (["db", "check"], database),
            (["db", "migrate"], database),
            (["db", "backup"], database),
            (["db", "copy"], ["--from", "--to"]),
            (["token", "create"], store + ["--scope", "--rate-limit", "--expires", "--calendar", "--app-password"]),
            (["token", "list"], store),
            (["token", "revoke"], store),
            (["webhook", "add"], store + ["--events", "--calendar", "--description", "--allow-private"]),
            (["webhook", "list"], store),
            (["webhook", "remove"], store),
            (["webhook", "test"], store + ["--allow-private"]),
            (["hours", "set"], store + ["--tz", "--title"]),
            (["hours", "except"], store),
            (["hours", "show"], store),
            (
                ["free"],
                store + [
                    "--calendar", "--from", "--to", "--duration", "--working-hours", "--schedule", "--step", "--buffer",
                    "--tz", "--json", "--include-past",
                ]
            ),
            (["links"], store + ["--id", "--occurrence", "--tz"]),
            (["subscribe"], store + ["--title", "--refresh", "--allow-private"]),
            (["imip", "receive"], database + ["--smtp", "--smtp-from"]),
            (["completion"], []),
        ]
    }()

    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func run(_ arguments: [String]) -> (Int32, CapturedIO) {
        let io = CapturedIO()
        io.environment["ALMANAC_DATA"] = directory.path
        return (Almanac.run(arguments, io: io), io)
    }

    @Test func everyCommandAnswersHelpWithItsOptionsAndAnExample() {
        for (path, options) in Self.commands {
            for flag in ["--help", "-h"] {
                let (status, io) = run(path + [flag])
                let name = path.joined(separator: " ")
                #expect(status == 0 && io.errors.isEmpty, "\(name) \(flag): \(io.errors)")
                #expect(io.text.hasPrefix("Usage: almanac \(name)"), "\(name) \(flag): \(io.text.prefix(80))")
                #expect(io.text.contains("Example:\n  almanac \(path[0])"), "\(name) \(flag) has no example")
                // Every option on a line of its own, as `  --name`.
                let documented = Set(
                    io.text.split(separator: "\n").compactMap { line in
                        line.hasPrefix("  --") ? String(line.dropFirst(2).prefix { $0 != " " }) : nil
                    })
                for option in options {
                    #expect(documented.contains(option), "\(name) --help does not document \(option)")
                }
                #expect(
                    Set(options).union(["--help"]) == documented.union(["--help"]),
                    "\(name) documents \(documented.subtracting(options))")
                // `almanac help …` prints the same.
                if flag == "--help" { #expect(run(["help"] + path).1.text == io.text, "almanac help \(name)") }
            }
        }
    }

    @Test func helpShowsEachOptionsDefault() {
        // The defaults, read from the commands' code.
        let expected: [(command: [String], option: String, fallback: String)] = [
            (["ics", "expand"], "--tz ZONE", "(default: UTC)"),
            (["ics", "expand"], "--format text|jsonl", "(default: text)"),
            (["ics", "expand"], "--max-instances N", "(default: 100000)"),
            (["list"], "--to WHEN", "(default: 30 days after --from)"),
            (["agenda"], "--to WHEN", "(default: 7 days after --from)"),
            (["alarms"], "--to WHEN", "(default: 1 day after --from)"),
            (["free"], "--to WHEN", "(default: 7 days after --from)"),
            (["free"], "--duration DURATION", "(default: 60m)"),
            (["free"], "--buffer DURATION", "(default: 0)"),
            (["cal"], "--first-weekday DAY", "(default: monday)"),
            (["remove"], "--span this|future", "(default: this)"),
            (["serve"], "--port N", "(default: 8080)"),
            (["serve"], "--host ADDRESS", "(default: 127.0.0.1)"),
            (["serve"], "--timeout SECONDS", "(default: 60)"),
            (["serve"], "--visible-principals self|all", "(default: self)"),
            (["feed", "create"], "--base-url URL", "(default: http://127.0.0.1:8080)"),
            (["add"], "--calendar TITLE", "(required)"),
            (["token", "create"], "--scope read|read-write|add-only|admin", "(required)"),
        ]
        for (command, option, fallback) in expected {
            let text = run(command + ["--help"]).1.text
            // The option's entry: its line and the indented lines after it.
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            guard let first = lines.firstIndex(where: { $0 == "  \(option)" || $0.hasPrefix("  \(option) ") }) else {
                Issue.record("\(command) --help has no \(option)")
                continue
            }
            let entry = ([lines[first]] + lines[(first + 1)...].prefix { $0.hasPrefix("      ") }).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            #expect(entry.joined(separator: " ").contains(fallback), "\(command) \(option): \(entry)")
        }
    }

    @Test func helpWinsOverOtherMistakes() {
        for arguments in [
            ["add", "--help"], ["add", "--title", "x", "--bogus", "-h"], ["ics", "expand", "--help", "a.ics", "b.ics"],
            ["list", "--from", "--help"],
            ["free", "--duration", "soon", "--help"], ["token", "create", "--help"], ["db", "copy", "-h"],
        ] {
            let (status, io) = run(arguments)
            #expect(status == 0 && io.errors.isEmpty, "\(arguments): \(io.errors)")
            #expect(io.text.hasPrefix("Usage: almanac \(arguments[0])"), "\(arguments)")
        }
        // A group's help, for the group alone or an unknown subcommand.
        for arguments in [
            ["calendar", "--help"], ["calendar", "bogus", "--help"], ["help", "calendar"], ["calendar", "help"],
        ] {
            let (status, io) = run(arguments)
            #expect(status == 0 && io.text.hasPrefix("Usage: almanac calendar <subcommand>"), "\(arguments)")
            for subcommand in ["list", "create", "delete", "show"] {
                #expect(io.text.contains("\n  \(subcommand)"), "\(arguments)")
            }
        }
        // After `--`, --help is an operand (a file named --help).
        let (status, io) = run(["ics", "check", "--", "--help"])
        #expect(status == 1 && io.errors == ["almanac: --help: No such file or directory"])
        // Help about a command that does not exist is a usage error.
        #expect(run(["help", "bogus"]).0 == 2)
    }

    @Test func unknownOptionsPointAtTheCommandsHelp() {
        let (status, io) = run(["list", "--bogus"])
        #expect(status == 2)
        #expect(io.errors == ["almanac: unknown option '--bogus' for 'list' (see 'almanac list --help')"])
    }

    @Test func completionNeedsAKnownShell() {
        for arguments in [["completion"], ["completion", "tcsh"], ["completion", "bash", "zsh"]] {
            let (status, io) = run(arguments)
            #expect(status == 2 && io.text.isEmpty && !io.errors.isEmpty, "\(arguments)")
        }
    }

    // MARK: The scripts in the real shells

    /// The script for `shell`, written to a file the shell can source.
    func script(_ shell: String) throws -> String {
        let (status, io) = run(["completion", shell])
        try #require(status == 0, "\(io.errors)")
        let path = directory.path + "/almanac.\(shell)"
        try Data(io.output).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `program` with `arguments`; its standard output.
    func output(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// What bash's completion function offers for the words typed so far (the last one
    /// is the word being completed; "" right after a space).
    func bash(_ script: String, _ words: [String]) throws -> [String] {
        let program = """
            source "$1"; shift
            COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            _almanac almanac "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        return try output("/bin/bash", ["-c", program, "bash", script] + words).split(separator: "\n").map(String.init)
    }

    /// The commands `almanac --help` lists and the dispatcher runs.
    static let topLevel = Set(commands.map(\.path[0]))

    @Test func bashCompletesCommandsOptionsAndValues() throws {
        let script = try script("bash")
        #expect(Set(try bash(script, ["almanac", ""])) == Self.topLevel.union(["help", "--help", "--version"]))
        #expect(try bash(script, ["almanac", "li"]) == ["list", "links"])
        #expect(try bash(script, ["almanac", "calendar", "cr"]) == ["create"])
        #expect(try bash(script, ["almanac", "list", "--j"]) == ["--json"])
        #expect(try bash(script, ["almanac", "free", "--calendar", "Work", "--inc"]) == ["--include-past"])
        #expect(try bash(script, ["almanac", "ics", "expand", "x.ics", "--format", ""]) == ["text", "jsonl"])
        #expect(try bash(script, ["almanac", "cal", "--first-weekday", "s"]) == ["saturday", "sunday"])
        #expect(try bash(script, ["almanac", "completion", ""]) == ["bash", "zsh", "fish"])
        #expect(try bash(script, ["almanac", "help", "ca"]) == ["calendar", "cal"])
        // Free text gets nothing; a file operand gets files.
        #expect(try bash(script, ["almanac", "add", "--title", ""]).isEmpty)
        #expect(try bash(script, ["almanac", "ics", "check", directory.path + "/almanac.b"]) == [script])
        // Every option of every command, as its help documents it.
        for (path, options) in Self.commands {
            let offered = Set(try bash(script, ["almanac"] + path + ["--"]))
            #expect(offered == Set(options + ["--help"]), "\(path)")
        }
    }

    static let zshPath = "/usr/bin/zsh"
    static let fishPath = "/usr/bin/fish"

    /// Drives an interactive zsh in a pseudo-terminal (zsh/zpty): types the words and a
    /// Tab bound to list-choices, and returns the listing.
    func zsh(_ script: String, _ line: String) throws -> String {
        let driver = """
            zmodload zsh/zpty
            zpty z TERM=dumb zsh -f -i
            zpty -w z "PS1=''; autoload -U compinit; compinit -u -D; source ${(q)1}; LISTMAX=10000; bindkey '^I' list-choices; print -r -- ready-'marker'"
            zpty -r -m z line '*ready-marker*'
            zpty -r -m z line '*2004h*'
            zpty -w -n z "$2"$'\\t'$'\\C-u'"print -r -- end-'marker'"$'\\n'
            zpty -r -m z out '*end-marker*'
            print -r -- "${out//$'\\r'/}"
            zpty -d z
            """
        let path = directory.path + "/driver.zsh"
        try driver.write(toFile: path, atomically: true, encoding: .utf8)
        // A driver that never sees its marker would wait for ever: timeout ends it.
        return try output("/usr/bin/timeout", ["60", Self.zshPath, "-f", path, script, line])
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: zshPath),
            "zsh is not installed (scripts/install-deps installs it)"))
    func zshCompletesCommandsOptionsAndValues() throws {
        let script = try script("zsh")
        func words(_ line: String) throws -> Set<String> {
            // The listing's first column; the lines that echo what was typed start with almanac.
            let first = try zsh(script, line).split(separator: "\n").compactMap {
                $0.split(separator: " ").first.map(String.init)
            }
            return Set(first).subtracting(["almanac", "end-marker"])
        }
        #expect(try words("almanac li") == ["list", "links"])
        #expect(try words("almanac calendar ") == ["list", "create", "delete", "show", "share", "unshare"])
        #expect(try words("almanac ics expand --f") == ["--format", "--from"])
        #expect(try words("almanac list --j") == ["--json"])
        #expect(try zsh(script, "almanac ics expand x.ics --format ").contains("jsonl  text"))
        #expect(try zsh(script, "almanac completion ").contains("bash  fish  zsh"))
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: fishPath),
            "fish is not installed (scripts/install-deps installs it)"))
    func fishCompletesCommandsOptionsAndValues() throws {
        let script = try script("fish")
        func words(_ line: String) throws -> Set<String> {
            let listing = try output(
                Self.fishPath, ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line])
            return Set(listing.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) })
        }
        #expect(try words("almanac li") == ["list", "links"])
        #expect(try words("almanac calendar ") == ["list", "create", "delete", "show", "share", "unshare"])
        #expect(try words("almanac ics expand --f") == ["--format", "--from"])
        #expect(try words("almanac ics expand x.ics --format ") == ["text", "jsonl"])
        #expect(try words("almanac completion ") == ["bash", "zsh", "fish"])
        #expect(try words("almanac free --inc") == ["--include-past"])
        #expect(try words("almanac add --title ").isEmpty)
    }
}
