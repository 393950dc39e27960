import CalDAV
import Testing

/// XML escaping against a reference written the plain way: entities for & < > " and
/// decimal character references for the bytes asked for (XML 1.0 §2.4, §2.11, §3.3.3).
@Suite struct XMLEscapeTests {
    static func reference(_ text: String, _ references: Set<UInt8>) -> String {
        // Byte-wise, so multibyte characters pass through whole.
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes += Array("&amp;".utf8)
            case UInt8(ascii: "<"): bytes += Array("&lt;".utf8)
            case UInt8(ascii: ">"): bytes += Array("&gt;".utf8)
            case UInt8(ascii: "\""): bytes += Array("&quot;".utf8)
            case _ where references.contains(byte): bytes += Array("&#\(byte);".utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func escapingMatchesThePlainReference() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "a", "Z", " ", "\r", "\n", "\t", "&", "<", ">", "\"", "'", "é", "会議", "\u{1}", "?", "@", "~", "\u{7F}",
        ]
        let sets: [Set<UInt8>] = [[], [0x0D], [0x09, 0x0A, 0x0D], [0x01, 0x3F, 0x40, 0x7E, 0x7F]]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...24, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let references = sets.randomElement(using: &generator)!
            #expect(
                XMLText.escape(text, references: references) == Self.reference(text, references),
                "\(text.debugDescription)")
        }
    }
}
