import Accounts
import CalendarStore
import Scheduling

/// `almanac user add|passwd|email|role|disable|enable|list|delete`: the accounts that
/// sign in to the server (`remove` is an older name of `delete`).
enum UserCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard var subcommand = arguments.first else {
            throw .usage("'user' needs add, passwd, email, role, disable, enable, list or delete")
        }
        if subcommand == "remove" { subcommand = "delete" }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.user.spec(subcommand))
        func name() throws(CommandFailure) -> String {
            guard options.operands.count == 1 else { throw .usage("'user \(subcommand)' takes one NAME") }
            return options.operands[0]
        }
        switch subcommand {
        case "list":
            guard options.operands.isEmpty else { throw .usage("'user list' takes no operands") }
            let backend = try StoreContext.openBackend(options, io: io)
            let users = try StoreContext.run { () throws(StoreError) in try backend.users() }
            io.write(
                users.map { user in
                    var notes: [String] = []
                    if user.role == .admin { notes.append("admin") }
                    if user.isDisabled { notes.append("disabled") }
                    if user.passwordHash == nil { notes.append("no password here: signs in only through LDAP") }
                    return user.name + (notes.isEmpty ? "" : "  (" + notes.joined(separator: "; ") + ")") + "\n"
                }.joined())
        case "add":
            let user = try name()
            let addresses = options.all("--email")
            // Addresses are checked before the account is made, so a bad one adds nothing.
            if let bad = addresses.first(where: { EmailAddress.normalized($0) == nil }) {
                throw CommandFailure(status: 1, "\(bad) is not an e-mail address; nothing added")
            }
            let (password, generated) = try readPassword(options, io: io)
            let backend = try StoreContext.openBackend(options, io: io)
            try StoreContext.run { () throws(StoreError) in
                for address in addresses {
                    if let other = try backend.user(withAddress: address) {
                        throw StoreError(.alreadyExists, "\(address) is \(other.name)'s address; nothing added")
                    }
                }
                try backend.createUser(
                    named: user, displayName: nil, passwordHash: PasswordHash(password: password).description)
                if options.has("--admin") { try backend.setRole(.admin, forUser: user) }
                guard !addresses.isEmpty else { return }
                do throws(StoreError) {
                    try backend.setAddresses(addresses, forUser: user)
                } catch {
                    // Taken meanwhile by another process: the account goes again.
                    try? backend.removeUser(named: user)
                    throw error
                }
            }
            io.write("Added user \(user)\(options.has("--admin") ? " (admin)" : "")\n")
            if generated {
                io.write("Password: \(password)\n(shown once; change it with 'almanac user passwd \(user)')\n")
            }
        case "passwd":
            let user = try name()
            let backend = try StoreContext.openBackend(options, io: io)
            _ = try StoreContext.run { () throws(StoreError) in try backend.user(named: user) }
            let (password, generated) = try readPassword(options, io: io)
            let ended = try StoreContext.run { () throws(StoreError) in
                try backend.setPasswordHash(
                    PasswordHash(password: password).description, forUser: user,
                    revokingTokens: options.has("--revoke-tokens"))
            }
            func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
            io.write("Changed the password of \(user); ended \(count(ended.sessions, "web session"))")
            io.write(options.has("--revoke-tokens") ? " and revoked \(count(ended.tokens, "API token"))\n" : "\n")
            if generated { io.write("Password: \(password)\n(shown once)\n") }
        case "email":
            guard let user = options.operands.first else { throw .usage("'user email' takes a NAME and its addresses") }
            let backend = try StoreContext.openBackend(options, io: io)
            let addresses = try StoreContext.run { () throws(StoreError) -> [String] in
                try backend.setAddresses(Array(options.operands.dropFirst()), forUser: user)
                return try backend.addresses(ofUser: user)
            }
            io.write(
                addresses.isEmpty
                    ? "\(user) has no e-mail address\n" : "\(user): " + addresses.joined(separator: ", ") + "\n")
        case "role":
            guard options.operands.count == 2, let role = User.Role(rawValue: options.operands[1]) else {
                throw .usage("'user role' takes a NAME and admin or user")
            }
            let backend = try StoreContext.openBackend(options, io: io)
            try StoreContext.run { () throws(StoreError) in try backend.setRole(role, forUser: options.operands[0]) }
            io.write("\(options.operands[0]) is \(role == .admin ? "an admin" : "a plain user") now\n")
        case "disable", "enable":
            let user = try name()
            let backend = try StoreContext.openBackend(options, io: io)
            try StoreContext.run { () throws(StoreError) in
                try backend.setDisabled(subcommand == "disable", forUser: user)
            }
            io.write(
                subcommand == "disable"
                    ? "Disabled \(user): no sign-in or token of theirs works, their web sessions ended\n"
                    : "Enabled \(user)\n")
        case "delete":
            let user = try name()
            let backend = try StoreContext.openBackend(options, io: io)
            // As the API's DELETE does: disabled first, scheduling withdrawn (attendees'
            // copies cancelled, organizers told of the decline), then every row in one go.
            try StoreContext.run { () throws(StoreError) in try backend.setDisabled(true, forUser: user) }
            let now = io.now
            let withdrawn = SchedulingAgent(backend: backend, mail: nil, now: { now }).withdrawAll(of: user)
            try StoreContext.run { () throws(StoreError) in try backend.removeUser(named: user) }
            io.write(
                "Deleted user \(user) with their calendars, bookings, webhooks and tokens"
                    + (withdrawn > 0 ? "; withdrew \(withdrawn) scheduled event\(withdrawn == 1 ? "" : "s")" : "")
                    + "\n")
        default:
            throw .usage(
                "unknown subcommand 'user \(subcommand)' (add, passwd, email, role, disable, enable, list, delete)")
        }
        return 0
    }

    /// `--generate` makes one; a terminal is prompted twice; otherwise the first line
    /// of standard input is the password.
    static func readPassword(_ options: Options, io: CommandIO) throws(CommandFailure) -> (String, generated: Bool) {
        if options.has("--generate") { return (PasswordGenerator.generate(), true) }
        let password: String
        if io.isInputTerminal {
            guard let first = io.readSecret(prompt: "Password: "), let second = io.readSecret(prompt: "Again: ") else {
                throw CommandFailure(status: 1, "no password given")
            }
            guard first == second else { throw CommandFailure(status: 1, "the passwords differ; nothing changed") }
            password = first
        } else {
            let input = String(decoding: try io.read(path: "-"), as: UTF8.self)
            password = String(input.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
                .trimmingSuffix("\r")
        }
        guard password.count >= 8 else {
            throw CommandFailure(status: 1, "a password has at least 8 characters; nothing changed")
        }
        return (password, false)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
