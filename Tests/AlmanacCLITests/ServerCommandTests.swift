import Accounts
import AlmanacCLI
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import Testing

/// `almanac user …` in process, and `almanac serve` as a real process on a loopback port.
@Suite struct ServerCommandTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func run(_ arguments: [String], input: String = "", terminal secrets: [String]? = nil) -> (Int32, CapturedIO) {
        let io = CapturedIO(standardInput: Array(input.utf8))
        io.environment["ALMANAC_DATA"] = directory.path
        if let secrets {
            io.isInputTerminal = true
            io.secrets = secrets
        }
        return (Almanac.run(arguments, io: io), io)
    }

    func storedHash(_ user: String) throws -> PasswordHash {
        let stored = try #require(try DatabaseBackend(directory: directory.path).user(named: user).passwordHash)
        return try #require(PasswordHash(stored))
    }

    @Test func userCommandsManageAccounts() throws {
        #expect(run(["user", "add", "anna"], input: "correct horse\n").0 == 0)
        #expect(try storedHash("anna").verify("correct horse"))
        // A terminal is asked twice; a mismatch changes nothing.
        let (mismatch, mismatchIO) = run(["user", "passwd", "anna"], terminal: ["first pass", "second pass"])
        #expect(mismatch == 1 && mismatchIO.errors.first?.contains("differ") == true)
        #expect(try storedHash("anna").verify("correct horse"))
        #expect(run(["user", "passwd", "anna"], terminal: ["new password", "new password"]).0 == 0)
        #expect(try storedHash("anna").verify("new password"))
        // Too short, and an existing name, are refused.
        #expect(run(["user", "add", "bob"], input: "short\n").0 == 1)
        #expect(run(["user", "add", "anna"], input: "long enough\n").0 == 1)
        let (generated, io) = run(["user", "add", "bob", "--generate"])
        #expect(generated == 0)
        let password = try #require(io.text.split(separator: "\n").first { $0.hasPrefix("Password: ") }?.dropFirst(10))
        #expect(try storedHash("bob").verify(String(password)))
        #expect(run(["user", "list"]).1.text == "anna\nbob\n")
        #expect(run(["user", "delete", "bob"]).0 == 0)
        #expect(run(["user", "list"]).1.text == "anna\n")
        #expect(run(["user", "delete", "bob"]).0 == 1)
        // `remove`, its older name, still works.
        #expect(run(["user", "add", "cara", "--generate"]).0 == 0 && run(["user", "remove", "cara"]).0 == 0)
    }

    /// The first start creates a user and prints its password; the server asks for it,
    /// throttles guessing, and stops cleanly on SIGTERM.
    /// `serve --ldap-…` as a process: options that cannot work are refused before it
    /// starts, and a directory user (Debian's slapd, on a loopback port) signs in over
    /// CalDAV with the service account's password read from a file.
    @Test func serveSignsInThroughLDAP() throws {
        for (options, message) in [
            (["--ldap-url", "ldap://127.0.0.1:1"], "--ldap-base-dn"),
            (["--ldap-base-dn", "dc=example,dc=org"], "goes with --ldap-url"),
            (["--ldap-url", "http://127.0.0.1:1", "--ldap-base-dn", "dc=x"], "ldap://"),
            (["--ldap-url", "ldap://127.0.0.1:1", "--ldap-base-dn", "dc=x", "--ldap-user-filter", "uid=%u"], "%u"),
            (["--ldap-url", "ldaps://127.0.0.1:1", "--ldap-base-dn", "dc=x", "--ldap-starttls"], "ldap:// URLs"),
            (["--ldap-url", "ldap://127.0.0.1:1", "--ldap-base-dn", "dc=x", "--ldap-bind-dn", "cn=r"], "go together"),
        ] {
            let (status, io) = run(["serve", "--port", "0"] + options)
            #expect(status == 2, "\(options)")
            #expect(io.errors.joined().contains(message), "\(options): \(io.errors)")
        }

        let ldap = try TestDirectory(people: [
            TestDirectory.Person(uid: "lena", password: "lena secret", mail: ["lena@example.org"], name: "Lena Berg")
        ])
        let passwordFile = directory.path + "/reader-password"
        try (TestDirectory.readerPassword + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let server = try ServerProcess(
            data: directory.path,
            arguments: [
                "--ldap-url", ldap.url, "--ldap-base-dn", TestDirectory.people, "--ldap-bind-dn",
                TestDirectory.readerDN,
                "--ldap-bind-password-file", passwordFile, "--ldap-create-users",
            ])
        func propfind(_ password: String) throws -> String {
            try RawHTTP.exchange(
                port: server.port,
                "PROPFIND /dav/calendars/lena/ HTTP/1.1\r\nHost: x\r\nDepth: 0\r\nAuthorization: "
                    + BasicCredentials(user: "lena", password: password).authorization + "\r\nConnection: close\r\n\r\n"
            )
        }
        #expect(try propfind("lena secret").hasPrefix("HTTP/1.1 207"))
        #expect(try propfind("wrong").hasPrefix("HTTP/1.1 401"))
        server.process.terminate()
        server.process.waitUntilExit()
        #expect(run(["user", "list"]).1.text.contains("lena  (no password here: signs in only through LDAP)"))
    }

    @Test func serveAuthenticatesAndStopsOnSIGTERM() throws {
        let server = try ServerProcess(data: directory.path)
        let port = server.port
        let password = server.password

        func request(_ authorization: String?) throws -> String {
            try RawHTTP.exchange(
                port: port,
                "GET /dav/ HTTP/1.1\r\nHost: x\r\n" + (authorization.map { "Authorization: \($0)\r\n" } ?? "")
                    + "Connection: close\r\n\r\n")
        }
        let anonymous = try request(nil)
        #expect(anonymous.hasPrefix("HTTP/1.1 401"))
        #expect(anonymous.contains("WWW-Authenticate: Basic realm=\"Almanac\""))
        #expect(
            !(try request(BasicCredentials(user: "anna", password: String(password)).authorization)).hasPrefix(
                "HTTP/1.1 401"))
        // Five wrong guesses are answered 401; the next is throttled.
        for _ in 0..<5 {
            #expect(
                try request(BasicCredentials(user: "anna", password: "guess").authorization).hasPrefix("HTTP/1.1 401"))
        }
        let throttled = try request(BasicCredentials(user: "anna", password: "guess").authorization)
        #expect(throttled.hasPrefix("HTTP/1.1 429"))
        #expect(throttled.contains("Retry-After: "))
        let redirect = try RawHTTP.exchange(
            port: port, "GET /.well-known/caldav HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(redirect.hasPrefix("HTTP/1.1 301") && redirect.contains("Location: /dav/"))

        server.process.terminate()
        server.process.waitUntilExit()
        #expect(server.process.terminationStatus == 0)
        #expect(String(decoding: server.output.readDataToEndOfFile(), as: UTF8.self).hasSuffix("Stopped\n"))
    }
}
