extension WindowsZones {
    /// The IANA zone for a Windows zone name, or `nil` when the name is not one.
    ///
    /// Matching ignores ASCII case, whitespace at the ends, double quotes, and
    /// treats a run of inner whitespace as one space. When the name is not in the table as written, the
    /// variants real calendar files contain are tried, in this order:
    ///
    /// - a trailing number Outlook appends to tell two definitions apart:
    ///   `Eastern Standard Time 1` is `Eastern Standard Time`;
    /// - the daylight name of a zone: `W. Europe Daylight Time` is
    ///   `W. Europe Standard Time`;
    /// - a name without "Standard": `Pacific Time` is `Pacific Standard Time`.
    ///
    /// Windows display names such as `(UTC+01:00) Amsterdam, Berlin, …` are
    /// not recognized.
    public static func ianaIdentifier(forWindowsName name: String) -> String? {
        var key = normalized(name)
        if let zone = byLowercasedName[key] { return zone }
        // "Eastern Standard Time 1": drop a trailing number.
        if let space = key.lastIndex(of: " "), key[key.index(after: space)...].allSatisfy(\.isASCIIDigit),
            key.index(after: space) != key.endIndex
        {
            key = String(key[..<space])
            if let zone = byLowercasedName[key] { return zone }
        }
        // "W. Europe Daylight Time": the zone's standard name.
        if key.contains(" daylight time"),
            let zone = byLowercasedName[key.replacing(" daylight time", with: " standard time")]
        {
            return zone
        }
        // "Pacific Time": the name with "Standard" restored.
        if let range = key.firstRange(of: " time"), !key[..<range.lowerBound].hasSuffix(" standard") {
            var standard = key
            standard.replaceSubrange(range, with: " standard time")
            if let zone = byLowercasedName[standard] { return zone }
        }
        return nil
    }

    /// ``all`` keyed by the lower-cased Windows name.
    private static let byLowercasedName: [String: String] = Dictionary(
        uniqueKeysWithValues: all.map { (normalized($0.key), $0.value) })

    /// Lower-cased ASCII without double quotes or whitespace at the ends, inner whitespace runs made one space.
    private static func normalized(_ name: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        var pendingSpace = false
        for byte in name.utf8 {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x22:
                pendingSpace = byte != 0x22 || pendingSpace
            default:
                if pendingSpace && !bytes.isEmpty { bytes.append(0x20) }
                pendingSpace = false
                bytes.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Character {
    /// Whether this is one of the ASCII digits 0–9.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
