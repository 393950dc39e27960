import CalendarStore
import CivilTime
import Foundation
import ICalendar

/// iMIP (RFC 6047): iTIP messages as e-mail. A message to send is multipart/alternative
/// with a readable text part and the `text/calendar; method=…` part; a message received
/// is read for its sender and its calendar part. Values in, values out: sending is the
/// server's (``IMIPSender``).
public enum IMIP {
    /// A composed message: what the relay is given and who it goes to.
    public struct Outgoing: Sendable {
        public var data: [UInt8]
        public var sender: String
        public var recipients: [String]

        public init(data: [UInt8], sender: String, recipients: [String]) {
            self.data = data
            self.sender = sender
            self.recipients = recipients
        }
    }

    /// The message carrying `itip` (a VCALENDAR with METHOD) from `sender` to
    /// `recipients` (`mailto:` addresses or bare ones). Header values are encoded
    /// (RFC 2047) so nothing in a title can start a header line of its own.
    /// `title` names the event where the message itself carries no SUMMARY (a DECLINECOUNTER).
    public static func compose(
        _ itip: Component, from sender: String, name: String?, to recipients: [String], title: String? = nil, now: Int
    ) -> Outgoing? {
        guard let from = bare(sender) else { return nil }
        let to = recipients.compactMap(bare)
        guard !to.isEmpty, let method = itip.property("METHOD")?.value.uppercased() else { return nil }
        let event = itip.components.first { ITIP.scheduled.contains($0.name) }
        let title = event?.property("SUMMARY").map { $0.textValue() } ?? title ?? "(untitled)"
        let subject: String
        switch method {
        case "CANCEL": subject = "Cancelled: " + title
        case "REPLY":
            let answer = event?.properties(named: "ATTENDEE").first?[parameter: "PARTSTAT"]?.capitalized ?? "Answered"
            subject = "\(answer): \(title)"
        case "COUNTER": subject = "New time proposed: " + title
        case "DECLINECOUNTER": subject = "Proposal declined: " + title
        default: subject = "Invitation: " + title
        }
        return message(
            from: from, name: name, to: to, subject: subject,
            text: readable(method: method, title: title, event: event, from: from), itip: itip, now: now)
    }

    /// A message from `sender` (a bare address) to `recipients` (bare addresses): the
    /// `text` alone (text/plain), or with `itip` (a VCALENDAR with METHOD) as
    /// multipart/alternative of the text and the `text/calendar; method=…` part.
    public static func message(
        from sender: String, name: String?, to recipients: [String], subject: String, text: String, itip: Component?,
        now: Int
    ) -> Outgoing? {
        guard let from = bare(sender) else { return nil }
        let to = recipients.compactMap(bare)
        guard !to.isEmpty else { return nil }
        let boundary = "almanac-" + String(UInt64(bitPattern: Int64(now)) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
        var lines = [
            "From: " + mailbox(from, name: name),
            "To: " + to.map { "<\($0)>" }.joined(separator: ", "),
            "Subject: " + encodedWord(subject),
            "Date: " + CivilDateTime(secondsSinceEpoch: now).httpDate.replacingOccurrences(of: "GMT", with: "+0000"),
            "Message-ID: <\(boundary).\(from.split(separator: "@").first ?? "x")@\(from.split(separator: "@").last ?? "almanac")>",
            "MIME-Version: 1.0",
        ]
        let textPart = ["Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: base64", ""]
        let body = base64Lines(Array(text.utf8))
        guard let itip, let method = itip.property("METHOD")?.value.uppercased() else {
            lines += textPart + body + [""]
            return Outgoing(data: Array(lines.joined(separator: "\r\n").utf8), sender: from, recipients: to)
        }
        lines += ["Content-Type: multipart/alternative; boundary=\"\(boundary)\"", "", "--" + boundary]
        lines += textPart + body
        lines += [
            "--" + boundary,
            "Content-Type: text/calendar; charset=utf-8; method=\(method)",
            "Content-Transfer-Encoding: base64",
            "",
        ]
        lines += base64Lines(itip.serialized())
        lines += ["--" + boundary + "--", ""]
        return Outgoing(data: Array(lines.joined(separator: "\r\n").utf8), sender: from, recipients: to)
    }

    /// What a received message holds: its sender's address (of `From`, lowercased) and
    /// the bytes of its first `text/calendar` part (decoded), if any.
    public static func read(_ message: [UInt8]) -> (sender: String?, calendar: [UInt8]?) {
        let (headers, body) = split(message)
        let sender = headers["from"].flatMap(address(in:))
        return (sender, calendarPart(headers: headers, body: body, depth: 0))
    }

    // MARK: - Composing

    /// A bare address (`mailto:` dropped) if it is one.
    static func bare(_ address: String) -> String? { EmailAddress.normalized(address.trimmingSpaces) }

    /// A mailbox (RFC 5322 §3.4) of `address` with the display name `name`: the name as
    /// a quoted string (its `"` and `\\` escaped) when it is printable ASCII, else as
    /// RFC 2047 encoded words. Either way it is one display name: commas, angle brackets
    /// and quotes in it cannot make a second mailbox (`"IT Support <it@victim.example>,
    /// Helpdesk"` stays a name).
    static func mailbox(_ address: String, name: String?) -> String {
        let cleaned = name.map { name in
            String(name.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
                .trimmingSpaces
        }
        guard let cleaned, !cleaned.isEmpty else { return "<\(address)>" }
        // A long name is folded as encoded words too: one header line stays under 998 octets.
        guard cleaned.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), !cleaned.contains("=?"), cleaned.utf8.count <= 200
        else {
            return encodedWords(cleaned) + " <\(address)>"
        }
        var quoted = "\""
        for character in cleaned {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\" <\(address)>"
    }

    /// An unstructured header value (a Subject): `text` as is when it is printable ASCII
    /// (it cannot end the line) and short, else RFC 2047 encoded words (folded, so no
    /// header line passes 998 octets, RFC 5322 §2.1.1).
    static func encodedWord(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), !text.contains("=?"), text.utf8.count <= 200 {
            return text
        }
        return encodedWords(text)
    }

    /// `text` as RFC 2047 encoded words (UTF-8, base64), each at most 75 characters
    /// (§2) and cut between code points (never inside one's UTF-8; a character of many
    /// combining marks may span words, which keeps every line short), folded onto lines
    /// of their own.
    static func encodedWords(_ text: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append("=?UTF-8?B?" + Data(chunk).base64EncodedString() + "?=") }
        return words.joined(separator: "\r\n ")
    }

    static func base64Lines(_ bytes: [UInt8]) -> [String] {
        let encoded = Data(bytes).base64EncodedString()
        var lines: [String] = []
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    static func readable(method: String, title: String, event: Component?, from: String) -> String {
        var text: [String]
        switch method {
        case "CANCEL": text = ["\(from) cancelled \"\(title)\"."]
        case "REPLY": text = ["\(from) answered your invitation to \"\(title)\"."]
        case "COUNTER": text = ["\(from) proposes another time for \"\(title)\"."]
        case "DECLINECOUNTER": text = ["\(from) keeps \"\(title)\" at its time and declined your proposal."]
        default: text = ["\(from) invites you to \"\(title)\"."]
        }
        if let start = event?.property("DTSTART"), let value = try? start.dateTimeValue() {
            let when =
                value.isDate
                ? value.date.description
                : value.civil.description.replacingOccurrences(of: "T", with: " ")
                    + (value.form == .utc ? " UTC" : value.tzid.map { " (\($0))" } ?? "")
            text.append("When: " + when + (event?.property("RRULE") != nil ? ", repeating" : ""))
        }
        if let location = event?.property("LOCATION").map({ $0.textValue() }), !location.isEmpty {
            text.append("Where: " + location)
        }
        text.append("")
        text.append("The calendar part of this message adds it to your calendar and carries your answer back.")
        return text.joined(separator: "\r\n") + "\r\n"
    }

    // MARK: - Reading

    /// Headers (names lowercased, folded lines joined; the first of each) and the body.
    static func split(_ message: [UInt8]) -> (headers: [String: String], body: [UInt8]) {
        var headers: [String: String] = [:]
        var index = 0
        var current: (name: String, value: String)?
        func finish() {
            if let current, headers[current.name] == nil { headers[current.name] = current.value }
        }
        while index < message.count {
            var end = index
            while end < message.count && message[end] != UInt8(ascii: "\n") { end += 1 }
            var line = Array(message[index..<end])
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            index = end + 1
            if line.isEmpty { break }
            if line.first == UInt8(ascii: " ") || line.first == UInt8(ascii: "\t") {
                current?.value += " " + String(decoding: line, as: UTF8.self).trimmingSpaces
                continue
            }
            finish()
            let text = String(decoding: line, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else {
                current = nil
                continue
            }
            current = (text[..<colon].lowercased(), String(text[text.index(after: colon)...]).trimmingSpaces)
        }
        finish()
        return (headers, index < message.count ? Array(message[index...]) : [])
    }

    /// The address in a `From` value (`Name <a@b>` or a bare address), lowercased.
    static func address(in value: String) -> String? {
        if let open = value.lastIndex(of: "<"), let close = value.lastIndex(of: ">"), open < close {
            return bare(String(value[value.index(after: open)..<close]))
        }
        return bare(value)
    }

    /// A header value's main type (lowercased) and its parameters (names lowercased, quotes dropped).
    static func contentType(_ value: String?) -> (type: String, parameters: [String: String]) {
        let parts = (value ?? "text/plain").split(separator: ";").map { String($0).trimmingSpaces }
        var parameters: [String: String] = [:]
        for part in parts.dropFirst() {
            guard let equals = part.firstIndex(of: "=") else { continue }
            var value = String(part[part.index(after: equals)...]).trimmingSpaces
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            parameters[part[..<equals].lowercased().trimmingSpaces] = value
        }
        return ((parts.first ?? "text/plain").lowercased(), parameters)
    }

    static func calendarPart(headers: [String: String], body: [UInt8], depth: Int) -> [UInt8]? {
        let (type, parameters) = contentType(headers["content-type"])
        if type == "text/calendar" { return decoded(body, encoding: headers["content-transfer-encoding"]) }
        guard type.hasPrefix("multipart/"), depth < 8, let boundary = parameters["boundary"], !boundary.isEmpty else {
            return nil
        }
        for part in parts(of: body, boundary: boundary) {
            let (partHeaders, partBody) = split(part)
            if let found = calendarPart(headers: partHeaders, body: partBody, depth: depth + 1) { return found }
        }
        return nil
    }

    /// The parts of a multipart body between its `--boundary` lines.
    static func parts(of body: [UInt8], boundary: String) -> [[UInt8]] {
        let delimiter = "--" + boundary
        var parts: [[UInt8]] = []
        var current: [UInt8]?
        var index = 0
        while index < body.count {
            var end = index
            while end < body.count && body[end] != UInt8(ascii: "\n") { end += 1 }
            let line = body[index..<min(end + 1, body.count)]
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            index = end + 1
            if text == delimiter || text == delimiter + "--" {
                if let current { parts.append(current) }
                current = text == delimiter ? [] : nil
                if text != delimiter { break }
                continue
            }
            current?.append(contentsOf: line)
        }
        return parts
    }

    static func decoded(_ body: [UInt8], encoding: String?) -> [UInt8] {
        switch encoding?.lowercased().trimmingSpaces {
        case "base64":
            let text = String(decoding: body.filter { $0 > 0x20 }, as: UTF8.self)
            return Data(base64Encoded: text).map(Array.init) ?? []
        case "quoted-printable":
            var bytes: [UInt8] = []
            var index = 0
            func hex(_ byte: UInt8) -> UInt8? {
                switch byte {
                case 0x30...0x39: byte - 0x30
                case 0x41...0x46: byte - 0x37
                case 0x61...0x66: byte - 0x57
                default: nil
                }
            }
            while index < body.count {
                if body[index] == UInt8(ascii: "="), index + 1 < body.count {
                    if body[index + 1] == UInt8(ascii: "\n") {
                        index += 2
                        continue
                    }
                    if body[index + 1] == UInt8(ascii: "\r"), index + 2 < body.count,
                        body[index + 2] == UInt8(ascii: "\n")
                    {
                        index += 3
                        continue
                    }
                    if index + 2 < body.count, let high = hex(body[index + 1]), let low = hex(body[index + 2]) {
                        bytes.append(high << 4 | low)
                        index += 3
                        continue
                    }
                }
                bytes.append(body[index])
                index += 1
            }
            return bytes
        default:
            return body
        }
    }
}

/// How the server sends iMIP mail (`serve --smtp`).
public protocol IMIPSender: Sendable {
    /// Sends a composed message; nil when the relay took it, else why not.
    func send(_ message: IMIP.Outgoing) -> String?
    /// Queues a message for `owner` (the user whose work it is) to be sent off the
    /// request's thread, fairly between owners; false when it was not taken.
    @discardableResult
    func post(_ message: IMIP.Outgoing, for owner: String) -> Bool
}
