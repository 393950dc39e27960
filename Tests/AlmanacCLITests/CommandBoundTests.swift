import AlmanacCLI
import AlmanacTestSupport
import CalendarStore
import Testing

/// Numbers and dates past their documented bounds are usage errors (exit 2), never traps.
extension StoreCommandTests {
    @Test(arguments: [
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "9223372036854775807m"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "9223372036854775807m1m"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "1m1m"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "999999999w"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--duration", "P999999999W"],
        ["add", "--title", "x", "--start", "0000-12-01 09:00", "--duration", "1h"],
        ["add", "--title", "x", "--start", "2026-12-01 09:00", "--alarm", "-9223372036854775807m"],
        ["free", "--from", "2026-12-01", "--to", "2026-12-02", "--duration", "1m", "--buffer", "1281023894007608h"],
        ["free", "--from", "0000-01-01", "--to", "2026-12-02", "--duration", "1h"],
        ["cal", "--month", "9223372036854775807-01"],
        ["cal", "--month", "+999-01"],
        ["cal", "--month", "0000-01"],
        ["cal", "--week", "9223372036854775807-W01"],
        ["cal", "--week", "2025-W53"],
        ["list", "--from", "2026-12-01", "--to", "10000-01-01"],
        ["list", "--from", "2026-12-01Z", "--to", "2026-12-02"],
        ["list", "--from", "2026-12-01 9:00", "--to", "2026-12-02"],
        ["list", "--from", "2026-12-01 24:00", "--to", "2026-12-02"],
    ])
    func outOfRangeInputIsAUsageError(_ arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 2, "\(arguments): \(io.errors)")
    }

    @Test(arguments: [
        ["cal", "--month", "0001-01"], ["cal", "--month", "9999-12"], ["cal", "--week", "2026-W53"],
        ["cal", "--week", "9999-W52"],
    ])
    func theEdgesOfTheSupportedYearsWork(_ arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 0, "\(arguments): \(io.errors)")
    }
}

extension ServerCommandTests {
    @Test(arguments: [
        ["serve", "--trusted-proxy", "proxy.example"], ["serve", "--trusted-proxy", "10.0.0.1,not-an-address"],
        ["serve", "--max-connections", "0"],
        ["serve", "--max-connections-per-address", "-1"], ["serve", "--max-connections", "9223372036854775807"],
        ["serve", "--port", "65536"], ["serve", "--visible-principals", "everyone"],
    ])
    func serveOptionsOutOfRangeAreUsageErrors(_ arguments: [String]) {
        let (status, io) = run(arguments)
        #expect(status == 2, "\(arguments): \(io.errors)")
    }

    @Test func changingAPasswordEndsWebSessionsAndCanRevokeTokens() throws {
        #expect(run(["user", "add", "anna"], input: "first password\n").0 == 0)
        let backend = try DatabaseBackend(directory: directory.path)
        try backend.appState.createSession(
            SignInSession(user: "anna", csrfToken: "c", expires: Int.max / 2), secretHash: "s1")
        try backend.appState.createAccessToken(
            AccessToken(id: "t1", user: "anna", name: "phone", scope: .read, created: 0), secretHash: "h1")
        let (status, io) = run(["user", "passwd", "anna"], input: "second password\n")
        #expect(status == 0 && io.text == "Changed the password of anna; ended 1 web session\n")
        #expect(
            try backend.appState.session(secretHash: "s1") == nil
                && (try backend.appState.accessToken(secretHash: "h1")) != nil)
        let (revoked, revokedIO) = run(["user", "passwd", "anna", "--revoke-tokens"], input: "third password\n")
        #expect(
            revoked == 0
                && revokedIO.text == "Changed the password of anna; ended 0 web sessions and revoked 1 API token\n")
        #expect(try backend.appState.accessToken(secretHash: "h1") == nil)
    }

    /// Roles and disabling from the command line: the listing says who is an admin and
    /// who is disabled; disabling ends the user's web sessions.
    @Test func rolesAndDisablingFromTheCommandLine() throws {
        let (added, addedIO) = run(["user", "add", "anna", "--admin"], input: "first password\n")
        #expect(added == 0 && addedIO.text == "Added user anna (admin)\n")
        #expect(run(["user", "add", "bob"], input: "other password\n").0 == 0)
        let backend = try DatabaseBackend(directory: directory.path)
        #expect(try backend.user(named: "anna").role == .admin && backend.user(named: "bob").role == .user)
        try backend.appState.createSession(
            SignInSession(user: "bob", csrfToken: "c", expires: Int.max / 2), secretHash: "s1")
        let (disabled, disabledIO) = run(["user", "disable", "bob"])
        #expect(disabled == 0 && disabledIO.text.hasPrefix("Disabled bob"))
        #expect(try backend.user(named: "bob").isDisabled && backend.appState.session(secretHash: "s1") == nil)
        #expect(run(["user", "list"]).1.text == "anna  (admin)\nbob  (disabled)\n")
        #expect(run(["user", "enable", "bob"]).0 == 0)
        #expect(try !backend.user(named: "bob").isDisabled)
        #expect(run(["user", "role", "bob", "admin"]).0 == 0)
        #expect(try backend.user(named: "bob").role == .admin)
        #expect(run(["user", "role", "bob", "owner"]).0 == 2, "an unknown role is a usage error")
        #expect(run(["user", "disable", "nobody"]).0 == 1)
    }
}
