/// The colours calendars get when nobody chose one, so a user's calendars look apart.
///
/// The first eight are the Okabe–Ito colours (Okabe and Ito, "Color Universal Design",
/// 2008), which stay distinguishable under the common colour-vision deficiencies, in an
/// order that keeps neighbours apart; yellow is darkened to read on white. The rest are
/// further, lighter or darker hues for users with many calendars.
public enum CalendarPalette {
    /// The palette, `#RRGGBB`, in the order new calendars take them.
    public static let colors: [String] = [
        "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#B8A000", "#000000",
        "#7B3294", "#1B7837", "#8C510A", "#C51B7D", "#4D4D4D", "#2166AC", "#B2182B", "#35978F",
    ]

    /// The palette colour used least among `taken` (the first such, in palette order):
    /// a new calendar's colour. Colours are compared without case and alpha.
    public static func next(after taken: [String?]) -> String {
        var uses = [Int](repeating: 0, count: colors.count)
        for color in taken {
            if let color, let index = index(of: color) { uses[index] += 1 }
        }
        let fewest = uses.min() ?? 0
        return colors[uses.firstIndex(of: fewest) ?? 0]
    }

    /// The colour to show for each calendar: its own, or for one without a colour, the
    /// palette colour used least by the calendars before it (in the order given) and
    /// by every calendar that has its own.
    public static func displayColors(of calendars: [EventCalendar]) -> [String: String] {
        var taken: [String?] = calendars.map(\.color)
        var shown: [String: String] = [:]
        for calendar in calendars {
            if let color = calendar.color, isColor(color) {
                shown[calendar.id] = color
            } else {
                let color = next(after: taken)
                taken.append(color)
                shown[calendar.id] = color
            }
        }
        return shown
    }

    /// Whether `text` is `#RRGGBB` or `#RRGGBBAA`.
    public static func isColor(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.first == UInt8(ascii: "#"), utf8.count == 7 || utf8.count == 9 else { return false }
        return utf8.dropFirst().allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }
    }

    static func index(of color: String) -> Int? {
        guard isColor(color) else { return nil }
        let rgb = color.prefix(7).uppercased()
        return colors.firstIndex(of: rgb)
    }
}
