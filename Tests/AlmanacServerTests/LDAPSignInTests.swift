import Accounts
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Sign-in against a real OpenLDAP server (Debian's slapd, started by the test on a
/// loopback port with a throwaway database): over CalDAV and the web, with wrong and
/// hostile names and passwords, and with the directory gone.
@Suite(.serialized) struct LDAPSignInTests {
    static let people = [
        TestDirectory.Person(
            uid: "lena", password: "lena secret", mail: ["lena@example.org", "bob@example.org"], name: "Lena Berg"),
        TestDirectory.Person(uid: "mira", password: "mira secret", mail: ["mira@example.org"], name: "Mira Kovač"),
    ]

    static func configuration(_ directory: TestDirectory, createsUsers: Bool = true) -> LDAPDirectory.Configuration {
        var configuration = LDAPDirectory.Configuration(
            url: directory.url, baseDN: TestDirectory.people, userFilter: "(uid=%u)")
        configuration.bindDN = TestDirectory.readerDN
        configuration.bindPassword = TestDirectory.readerPassword
        configuration.createsUsers = createsUsers
        return configuration
    }

    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    static func propfind(_ server: TestServer, _ user: String, _ password: String) throws -> TestResponse {
        try server.send(
            "PROPFIND", "/dav/calendars/\(user)/", headers: ["Depth": "0"], authorization: basic(user, password))
    }

    /// The escaping RFC 4515 §4's examples show, for the characters that must be escaped
    /// (other bytes, UTF-8 included, may stay as they are, §3).
    @Test(arguments: [
        ("Parens R Us (for all your parenthetical needs)", #"Parens R Us \28for all your parenthetical needs\29"#),
        ("*", #"\2a"#),
        (#"C:\MyFile"#, #"C:\5cMyFile"#),
        ("\u{0}\u{0}\u{0}\u{4}", "\\00\\00\\00\u{4}"),
        ("Lučić", "Lučić"),
        ("*)(uid=*", #"\2a\29\28uid=\2a"#),
    ])
    func filterValuesAreEscaped(_ value: String, _ escaped: String) {
        #expect(LDAPDirectory.escapedFilterValue(value).lowercased() == escaped.lowercased())
    }

    /// A directory user signs in over CalDAV and on the web; the account is made at the
    /// first sign-in with the entry's name and the `mail` addresses no other user has.
    /// Wrong, empty and hostile passwords and names are refused, and a stored password
    /// still works for a user who has one.
    @Test func directoryUsersSignInOverCalDAVAndTheWeb() throws {
        let directory = try TestDirectory(people: Self.people)
        let server = try TestServer(
            .loopback, users: ["anna", "bob"], ldap: LDAPDirectory(Self.configuration(directory)))
        try server.backend.setAddresses(["bob@example.org"], forUser: "bob")

        #expect(try Self.propfind(server, "lena", "lena secret").status == 207)
        let lena = try server.backend.user(named: "lena")
        #expect(lena.displayName == "Lena Berg")
        #expect(lena.passwordHash == nil)
        #expect(try server.backend.addresses(ofUser: "lena") == ["lena@example.org"])
        #expect(try server.backend.addresses(ofUser: "bob") == ["bob@example.org"])

        #expect(try Self.propfind(server, "lena", "wrong").status == 401)
        #expect(try Self.propfind(server, "lena", "").status == 401)
        #expect(try Self.propfind(server, "mira", "lena secret").status == 401)
        #expect(try Self.propfind(server, "nobody", "lena secret").status == 401)
        #expect(
            try server.send("GET", "/api/v1/calendars", authorization: Self.basic("*)(uid=*", "lena secret")).status
                == 401)
        #expect(try server.backend.users().map(\.name) == ["anna", "bob", "lena"])
        // A user with a password stored here signs in with it, not through the directory.
        #expect(try Self.propfind(server, "anna", server.password(for: "anna")).status == 207)

        let form = "user=mira&password=mira%20secret"
        let login = try server.send(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Array(form.utf8))
        #expect(login.status == 303)
        #expect(login.headers["Set-Cookie"]?.hasPrefix("almanac_session=") == true)
        #expect(try server.backend.user(named: "mira").displayName == "Mira Kovač")
        let wrong = try server.send(
            "POST", "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: Array("user=mira&password=wrong".utf8))
        #expect(wrong.status != 303 && wrong.headers["Set-Cookie"] == nil)
    }

    /// The name is one filter value however it is spelled: `*` or `*)(uid=*` with a real
    /// user's password finds no entry (unescaped, either would match that user and bind).
    @Test func aNameCannotWidenTheFilter() throws {
        let directory = try TestDirectory(people: [Self.people[0]])
        let ldap = LDAPDirectory(Self.configuration(directory))
        guard case .verified(let entry) = ldap.verify(user: "lena", password: "lena secret") else {
            Issue.record("lena's own sign-in did not verify")
            return
        }
        #expect(entry.dn == "uid=lena," + TestDirectory.people)
        for name in ["*", "*)(uid=*", "l*", "lena)(|(uid=*"] {
            #expect(ldap.verify(user: name, password: "lena secret") == .refused, "\(name)")
        }
        #expect(ldap.verify(user: "lena", password: "") == .refused)
    }

    /// Without --ldap-create-users only accounts an admin made sign in through the directory.
    @Test func withoutCreatingUsersOnlyExistingAccountsSignIn() throws {
        let directory = try TestDirectory(people: Self.people)
        let server = try TestServer(
            .inProcess, users: ["anna"], ldap: LDAPDirectory(Self.configuration(directory, createsUsers: false)))
        #expect(try Self.propfind(server, "lena", "lena secret").status == 401)
        #expect(try server.backend.users().map(\.name) == ["anna"])
        try server.backend.createUser(named: "lena", displayName: nil, passwordHash: nil)
        #expect(try Self.propfind(server, "lena", "lena secret").status == 207)
        try server.backend.setDisabled(true, forUser: "lena")
        #expect(try Self.propfind(server, "lena", "lena secret").status == 401)
    }

    /// With the directory gone, passwords it verified recently keep working (a syncing
    /// client is not cut off), and everything else is 503 with Retry-After, not 401: the
    /// password may be right. A misconfigured service account is 503 too.
    @Test func theDirectoryGoingAway() throws {
        let directory = try TestDirectory(people: Self.people)
        let server = try TestServer(.inProcess, users: [], ldap: LDAPDirectory(Self.configuration(directory)))
        #expect(try Self.propfind(server, "lena", "lena secret").status == 207)
        directory.stop()
        #expect(try Self.propfind(server, "lena", "lena secret").status == 207)
        for (user, password) in [("mira", "mira secret"), ("lena", "another")] {
            let answer = try Self.propfind(server, user, password)
            #expect(answer.status == 503, "\(user)")
            #expect(answer.headers["Retry-After"] != nil)
        }
        try directory.start()
        var wrongAccount = Self.configuration(directory)
        wrongAccount.bindPassword = "not the reader's"
        let misconfigured = try TestServer(.inProcess, users: [], ldap: LDAPDirectory(wrongAccount))
        #expect(try Self.propfind(misconfigured, "mira", "mira secret").status == 503)
        #expect(try Self.propfind(server, "mira", "mira secret").status == 207)
    }

    /// A directory that takes connections and never answers (a tarpit) holds at most
    /// the configured number of request workers: with six sign-ins waiting on it, a
    /// token's request is answered while they all still wait (the directory's timeout
    /// is 30 s here), and the sign-ins beyond the bound are 503 at once.
    @Test func aHangingDirectoryHoldsOnlySomeWorkers() throws {
        let tarpit = try Tarpit()
        defer { tarpit.close() }
        var configuration = LDAPDirectory.Configuration(
            url: "ldap://127.0.0.1:\(tarpit.port)", baseDN: TestDirectory.people, userFilter: "(uid=%u)")
        configuration.timeout = 30
        configuration.concurrentChecks = 2
        configuration.createsUsers = true
        let server = try TestServer(.loopback, users: ["anna"], ldap: LDAPDirectory(configuration))
        let token = try server.createAPIToken(for: "anna", scope: .read)
        let finished = Atomic(0)
        let statuses = Mutex<[Int]>([])
        let group = DispatchGroup()
        for index in 0..<6 {
            DispatchQueue.global().async(group: group) {
                let status = (try? Self.propfind(server, "user\(index)", "a password").status) ?? 0
                statuses.withLock { $0.append(status) }
                finished.add(1, ordering: .sequentiallyConsistent)
            }
        }
        // The sign-ins beyond the bound answer 503 at once; wait for those four.
        for _ in 0..<600 where statuses.withLock({ $0.count }) < 4 { usleep(50_000) }
        #expect(statuses.withLock { $0 } == [503, 503, 503, 503])
        let answer = try server.send("GET", "/api/v1/calendars", authorization: "Bearer " + token)
        #expect(answer.status == 200)
        #expect(finished.load(ordering: .sequentiallyConsistent) == 4, "the two waiting on the directory still wait")
        tarpit.close()
        group.wait()
    }

    /// The failed-sign-in throttle counts directory sign-ins as it counts stored ones.
    @Test func theThrottleApplies() throws {
        let directory = try TestDirectory(people: Self.people)
        let server = try TestServer(.inProcess, users: [], ldap: LDAPDirectory(Self.configuration(directory)))
        var statuses: [Int] = []
        for _ in 0..<8 { statuses.append(try Self.propfind(server, "lena", "wrong").status) }
        #expect(statuses.prefix(5).allSatisfy { $0 == 401 })
        #expect(statuses.last == 429)
        #expect(try Self.propfind(server, "lena", "lena secret").status == 429)
    }
}
