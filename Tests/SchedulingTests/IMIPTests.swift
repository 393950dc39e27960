import Foundation
import ICalendar
import Testing

@testable import Scheduling

/// iMIP messages (RFC 6047): what is sent reads back, header values cannot start lines
/// of their own, and received messages are read in the shapes mail programs send.
@Suite struct IMIPTests {
    static func request(title: String) throws -> Component {
        let text = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//T//EN", "METHOD:REQUEST", "BEGIN:VEVENT", "UID:u1",
            "DTSTAMP:20261101T000000Z", "DTSTART:20261208T140000Z", "SUMMARY:\(title)", "LOCATION:Room 2",
            "ORGANIZER:mailto:rita@example.com", "ATTENDEE:mailto:guest@elsewhere.example", "END:VEVENT",
            "END:VCALENDAR", "",
        ].joined(separator: "\r\n")
        return try #require(try ICalendarParser.parse(Array(text.utf8)).components.first)
    }

    @Test func aComposedMessageReadsBack() throws {
        let itip = try Self.request(title: "Design review")
        let outgoing = try #require(
            IMIP.compose(
                itip, from: "mailto:Rita@Example.com", name: "Rita", to: ["mailto:guest@elsewhere.example"],
                now: 1_796_212_800))
        #expect(outgoing.sender == "rita@example.com" && outgoing.recipients == ["guest@elsewhere.example"])
        let text = String(decoding: outgoing.data, as: UTF8.self)
        #expect(text.contains("Subject: Invitation: Design review\r\n"))
        #expect(text.contains("Content-Type: text/calendar; charset=utf-8; method=REQUEST"))
        #expect(!text.split(separator: "\r\n").contains { $0.utf8.count > 998 }, "no line past RFC 5322's limit")
        let read = IMIP.read(outgoing.data)
        #expect(read.sender == "rita@example.com")
        #expect(read.calendar == itip.serialized())
    }

    @Test func aTitleCannotAddHeaders() throws {
        let itip = try Self.request(title: "Hi\\nBcc: everyone@example.com")
        let outgoing = try #require(
            IMIP.compose(itip, from: "rita@example.com", name: "Rita\r\nX: y", to: ["a@b.c"], now: 0))
        let headers = String(decoding: outgoing.data, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
        #expect(!headers.contains("\r\nBcc:") && !headers.contains("\r\nX: y"), "\(headers)")
        #expect(headers.contains("Subject: =?UTF-8?B?"))
        #expect(IMIP.compose(itip, from: "not an address", name: nil, to: ["a@b.c"], now: 0) == nil)
        #expect(IMIP.compose(itip, from: "rita@example.com", name: nil, to: ["<a@b.c>"], now: 0) == nil)
    }

    /// A display name never adds a mailbox or a header: ASCII is one quoted string with
    /// its quotes and backslashes escaped, anything else RFC 2047 encoded words of at
    /// most 75 characters, and control characters become spaces.
    @Test(arguments: [
        ("IT Support <it@victim.example>, Helpdesk", "\"IT Support <it@victim.example>, Helpdesk\" <rita@example.com>"),
        ("a\"b\\c", "\"a\\\"b\\\\c\" <rita@example.com>"),
        ("Rita\r\nBcc: x@y.example", "\"Rita  Bcc: x@y.example\" <rita@example.com>"),
        ("", "<rita@example.com>"),
    ])
    func displayNamesAreOneName(_ name: String, _ expected: String) {
        #expect(IMIP.mailbox("rita@example.com", name: name) == expected)
    }

    @Test func longOrNonASCIINamesAreEncodedWords() {
        let name = String(repeating: "Zoë Ärger, ", count: 12)
        let mailbox = IMIP.mailbox("rita@example.com", name: name)
        let words = mailbox.components(separatedBy: "\r\n ").flatMap { $0.split(separator: " ") }.dropLast()
        #expect(words.count > 2)
        #expect(words.allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 }, "\(words)")
        let decoded = words.map { word -> String in
            let base64 = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            return String(decoding: Data(base64Encoded: String(base64)) ?? Data(), as: UTF8.self)
        }.joined()
        #expect(decoded == name.trimmingCharacters(in: .whitespaces))
        #expect(mailbox.hasSuffix(" <rita@example.com>"))
    }

    /// However a name or subject is made (one letter with 600 combining marks, a long
    /// ASCII name), no header line passes 998 octets (RFC 5322 §2.1.1), and the words
    /// decode to the text.
    @Test(arguments: [
        "Z" + String(repeating: "\u{0301}", count: 600), String(repeating: "Rita Example ", count: 100),
    ])
    func everyHeaderLineIsShort(_ name: String) {
        for (header, text) in [
            (IMIP.mailbox("rita@example.com", name: name), name.trimmingCharacters(in: .whitespaces)),
            (IMIP.encodedWord(name), name),
        ] {
            let lines = header.components(separatedBy: "\r\n")
            #expect(lines.allSatisfy { $0.utf8.count <= 998 }, "\(lines.map(\.utf8.count))")
            let words = lines.flatMap { $0.split(separator: " ") }.filter { $0.hasPrefix("=?UTF-8?B?") }
            #expect(words.allSatisfy { $0.count <= 75 })
            let decoded = words.map { word -> String in
                let base64 = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
                return String(decoding: Data(base64Encoded: String(base64)) ?? Data(), as: UTF8.self)
            }.joined()
            #expect(decoded == text)
        }
    }

    @Test func receivedMessagesInTheShapesMailProgramsSend() throws {
        let calendar = "BEGIN:VCALENDAR\r\nMETHOD:REPLY\r\nEND:VCALENDAR\r\n"
        let encoded = Data(calendar.utf8).base64EncodedString()
        let nested = [
            "From: \"Guest, G.\" <Guest@Elsewhere.example>", "Subject: Re", "MIME-Version: 1.0",
            "Content-Type: multipart/mixed;", " boundary=\"outer\"", "", "--outer",
            "Content-Type: multipart/alternative; boundary=inner", "", "--inner", "Content-Type: text/plain", "", "hi",
            "--inner", "Content-Type: text/calendar; method=REPLY", "Content-Transfer-Encoding: base64", "", encoded,
            "--inner--", "--outer--", "",
        ].joined(separator: "\r\n")
        let read = IMIP.read(Array(nested.utf8))
        #expect(read.sender == "guest@elsewhere.example")
        #expect(read.calendar == Array(calendar.utf8))
        // Quoted-printable, bare LF lines, no multipart.
        let qp =
            "From: guest@elsewhere.example\nContent-Type: text/calendar\nContent-Transfer-Encoding: quoted-printable\n\nBEGIN:VCAL=\nENDAR\nSUMMARY:caf=C3=A9\n"
        #expect(
            IMIP.read(Array(qp.utf8)).calendar.map { String(decoding: $0, as: UTF8.self) }
                == "BEGIN:VCALENDAR\nSUMMARY:café\n")
        // Nothing to read.
        #expect(IMIP.read(Array("Subject: x\r\n\r\nbody".utf8)).sender == nil)
        #expect(IMIP.read(Array("From: a@b.c\r\nContent-Type: text/plain\r\n\r\nbody".utf8)).calendar == nil)
        #expect(IMIP.read([]).calendar == nil)
    }
}
