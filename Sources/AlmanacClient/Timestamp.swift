import Foundation

/// UTC timestamps as the API writes them (`2026-12-01T11:00:00Z`, deliveries with
/// milliseconds: `2026-12-02T05:00:00.123Z`), read and written with integer arithmetic
/// on the proleptic Gregorian calendar, so no formatter, locale or time zone is involved.
enum Timestamp {
    /// The instant `text` names: `YYYY-MM-DDTHH:MM:SS`, an optional fraction, then `Z`
    /// or an offset `±HH:MM`; nil for anything else.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        guard bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116, bytes[13] == 58, bytes[16] == 58,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if bytes[index] == 46 {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case 90, 122:
            guard index + 1 == bytes.count else { return nil }
        case 43, 45:
            guard index + 6 == bytes.count, bytes[index + 3] == 58, let hours = number((index + 1)..<(index + 3)),
                let minutes = number((index + 4)..<(index + 6)), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3_600 + minutes * 60) * (bytes[index] == 43 ? 1 : -1)
        default: return nil
        }
        let seconds = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds - offset) + fraction)
    }

    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`, whole seconds (a fraction is dropped, toward
    /// the past).
    static func format(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let within = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(within / 3_600, 2)):"
            + "\(pad(within / 60 % 60, 2)):\(pad(within % 60, 2))Z"
    }

    static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension JSONDecoder {
    /// A decoder for the API's answers: dates as ``Timestamp`` reads them.
    static func almanac() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not a UTC timestamp (2026-12-01T11:00:00Z): \(text)")
            }
            return date
        }
        return decoder
    }
}

extension JSONEncoder {
    /// An encoder for request bodies: dates as `2026-12-01T11:00:00Z`.
    static func almanac() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.format(date))
        }
        return encoder
    }
}
