import AlmanacTestSupport
import Foundation

/// Debian's OpenLDAP server (`slapd`) on a loopback port with a throwaway database, for
/// LDAP sign-in tests: started by the test, stopped when the value goes away (or by
/// ``stop()``), its files removed with it. `make test` installs `slapd`.
///
/// The directory is `dc=example,dc=org` with people under `ou=people` and a service
/// account `cn=reader` (password ``readerPassword``), the only one allowed to search:
/// anonymous clients may only bind, so a sign-in that searches without the service
/// account fails as a misconfigured server would.
public final class TestDirectory: @unchecked Sendable {
    public struct Person: Sendable {
        public var uid: String
        public var password: String
        public var mail: [String]
        public var name: String

        public init(uid: String, password: String, mail: [String] = [], name: String) {
            self.uid = uid
            self.password = password
            self.mail = mail
            self.name = name
        }
    }

    public static let base = "dc=example,dc=org"
    public static let people = "ou=people,dc=example,dc=org"
    public static let readerDN = "cn=reader,dc=example,dc=org"
    public static let readerPassword = "reader secret"

    let files: TemporaryDirectory
    private var process: Process?
    /// The port slapd listens on, on 127.0.0.1.
    public private(set) var port: UInt16 = 0
    public var url: String { "ldap://127.0.0.1:\(port)" }

    public init(people: [Person]) throws {
        for tool in ["/usr/sbin/slapd", "/usr/sbin/slapadd", "/usr/sbin/slappasswd"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            throw TestServerError("\(tool) is missing: install Debian's slapd (make test-deps does)")
        }
        files = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: files.path + "/db", withIntermediateDirectories: true)
        let configuration = """
            include /etc/ldap/schema/core.schema
            include /etc/ldap/schema/cosine.schema
            include /etc/ldap/schema/inetorgperson.schema
            pidfile \(files.path)/slapd.pid
            modulepath /usr/lib/ldap
            moduleload back_mdb
            database mdb
            maxsize 10485760
            suffix "\(Self.base)"
            rootdn "cn=admin,\(Self.base)"
            rootpw "admin secret"
            directory \(files.path)/db
            access to attrs=userPassword by anonymous auth by self write by * none
            access to * by dn.exact="\(Self.readerDN)" read by self read by anonymous auth by * none

            """
        try configuration.write(toFile: files.path + "/slapd.conf", atomically: true, encoding: .utf8)
        var entries = """
            dn: \(Self.base)
            objectClass: dcObject
            objectClass: organization
            o: Example
            dc: example

            dn: \(Self.people)
            objectClass: organizationalUnit
            ou: people

            dn: \(Self.readerDN)
            objectClass: organizationalRole
            objectClass: simpleSecurityObject
            cn: reader
            userPassword: \(try Self.hash(Self.readerPassword))

            """
        for person in people {
            entries += """

                dn: uid=\(person.uid),\(Self.people)
                objectClass: inetOrgPerson
                uid: \(person.uid)
                cn: \(person.name)
                sn: \(person.name.split(separator: " ").last.map(String.init) ?? person.name)
                userPassword: \(try Self.hash(person.password))

                """
            for address in person.mail { entries += "mail: \(address)\n" }
            entries += "\n"
        }
        try entries.write(toFile: files.path + "/data.ldif", atomically: true, encoding: .utf8)
        _ = try Self.run("/usr/sbin/slapadd", ["-f", files.path + "/slapd.conf", "-l", files.path + "/data.ldif"])
        try start()
    }

    deinit { stop() }

    /// A salted SHA-1 hash as slapd stores passwords (`{SSHA}…`), from slappasswd.
    static func hash(_ password: String) throws -> String {
        try run("/usr/sbin/slappasswd", ["-s", password]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw TestServerError("\(tool) \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    /// Starts slapd on a free loopback port (again: on the port it had, so clients
    /// configured with ``url`` find it), and waits until it takes connections.
    public func start() throws {
        stop()
        for attempt in 0..<5 {
            if port == 0 || attempt > 0 { port = try Self.freePort() }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/slapd")
            // -d keeps slapd in the foreground (a child this test can stop); 0 logs nothing.
            process.arguments = ["-f", files.path + "/slapd.conf", "-h", "ldap://127.0.0.1:\(port)/", "-d", "0"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            for _ in 0..<200 where process.isRunning {
                if Self.accepts(port) {
                    self.process = process
                    return
                }
                usleep(25_000)
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        throw TestServerError("slapd did not start on a loopback port")
    }

    /// Stops slapd (the directory goes away; its data stays for ``start()``).
    public func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning {
            // SIGKILL: a child spawned from a test thread inherits a signal mask that
            // blocks SIGTERM, so slapd would never see it. The database is a throwaway
            // (and LMDB is crash-safe for a restart).
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw TestServerError("no free loopback port") }
        return UInt16(bigEndian: address.sin_port)
    }

    static func accepts(_ port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
