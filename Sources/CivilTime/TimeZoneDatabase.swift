import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Loads IANA time zones from the system's zoneinfo directory and keeps each
/// one it has parsed.
///
/// Lookups are safe from any thread: the cache sits behind a `Mutex`, and a
/// zone is read and parsed outside the lock (two threads asking for a new
/// zone at once may both parse it; the first to finish is kept). Only zones
/// that were found are cached, so unknown names cannot grow memory.
public enum TimeZoneDatabase {
    /// The zoneinfo directory: `$TZDIR` when set and not empty (as glibc and
    /// Python's `zoneinfo` read it), otherwise `/usr/share/zoneinfo`.
    public static var directory: String {
        if let value = getenv("TZDIR"), value.pointee != 0 { return String(cString: value) }
        return "/usr/share/zoneinfo"
    }

    /// The rules of the IANA zone `identifier` (such as `Europe/Berlin`, or a
    /// link such as `Asia/Calcutta`), or `nil` when there is no such zone.
    ///
    /// Names are checked before the file system is touched: a name that is
    /// empty, starts with `/`, contains `..`, or has a character outside
    /// `A–Z a–z 0–9 _ + - /` is rejected, so a TZID from a stranger's file
    /// cannot reach outside the directory. `UTC` and `Etc/UTC` resolve even
    /// where no zoneinfo is installed. The returned rules keep the name as
    /// asked (`Asia/Calcutta` stays `Asia/Calcutta`).
    public static func zone(named identifier: String) -> ZoneRules? {
        guard isAcceptable(identifier) else { return nil }
        let path = directory + "/" + identifier
        if let cached = cache.withLock({ $0[path] }) { return cached }
        guard let bytes = readFile(atPath: path), let rules = try? TZif.parse(bytes, identifier: identifier) else {
            return identifier == "UTC" || identifier == "Etc/UTC" ? .utc : nil
        }
        return cache.withLock { cache in
            if let existing = cache[path] { return existing }
            cache[path] = rules
            return rules
        }
    }

    /// Every zone name the system's database knows (zones and their links, from its
    /// `tzdata.zi`), sorted; empty where that file is missing.
    public static let names: [String] = {
        guard let bytes = readFile(atPath: directory + "/tzdata.zi") else { return [] }
        var found: Set<String> = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.first == "Z", fields.count > 1 { found.insert(String(fields[1])) }
            if fields.first == "L", fields.count > 2 { found.insert(String(fields[2])) }
        }
        return found.filter(isAcceptable).sorted()
    }()

    /// The zone a person means by `text`: its exact name, else the one name that
    /// matches ignoring case, else the one zone whose city it names (`berlin`,
    /// `New York`: Europe/Berlin, America/New_York); nil when none or several do.
    public static func name(matching text: String) -> String? {
        let typed = text.trimmingSpaces()
        if zone(named: typed) != nil { return typed }
        let wanted = typed.lowercased().replacingSpaces()
        let exact = names.filter { $0.lowercased() == wanted }
        if exact.count == 1 { return exact[0] }
        let cities = names.filter { name in
            name.contains("/") && name.split(separator: "/").last.map { $0.lowercased() == wanted } == true
        }
        return cities.count == 1 ? cities[0] : nil
    }

    /// The system's zone name from the target of `/etc/localtime` (a link into the
    /// zoneinfo directory, as Debian and most Linux systems set it), or nil.
    public static func localZoneName(link: String = "/etc/localtime") -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(link, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let range = target.firstRange(of: "zoneinfo/") else { return nil }
        var name = String(target[range.upperBound...])
        for prefix in ["posix/", "right/"] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
        return zone(named: name) != nil ? name : nil
    }

    /// Parsed zones by file path (the directory can change with `$TZDIR`).
    private static let cache = Mutex<[String: ZoneRules]>([:])

    /// The largest file read; real TZif files are under 4 KiB.
    private static let maximumFileSize = 1 << 20

    /// Whether `identifier` may be looked up on disk.
    static func isAcceptable(_ identifier: String) -> Bool {
        let utf8 = identifier.utf8
        guard !utf8.isEmpty, utf8.count <= 255, utf8.first != UInt8(ascii: "/") else { return false }
        var previous: UInt8 = 0
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"),
                UInt8(ascii: "/"):
                break
            case UInt8(ascii: ".") where previous == UInt8(ascii: "."):
                return false  // "..": explicit, although "." is already refused below
            default:
                return false
            }
            previous = byte
        }
        return true
    }

    /// The contents of a regular file, or `nil` when it cannot be read or is too large.
    private static func readFile(atPath path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            Int(status.st_size) <= maximumFileSize
        else { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maximumFileSize { return nil }
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// Spaces as the zone database writes them, `_`.
    fileprivate func replacingSpaces() -> String { String(map { $0 == " " ? "_" : $0 }) }
}
