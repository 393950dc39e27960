import HTTPTypes

/// HTML written by hand: every piece of user text goes through `escape`.
enum HTML {
    /// Escapes text for element content and quoted attribute values.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else {
            return text
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// A query string from pairs, %-encoded.
    static func query(_ pairs: [(String, String)]) -> String {
        pairs.map { PercentEncoding.encode($0.0) + "=" + PercentEncoding.encode($0.1) }.joined(separator: "&")
    }

    /// A whole page: phone-width first, the stylesheet and the script (by nonce), the CSRF
    /// token for scripts, what a native shell said of itself (so CSS can hide web-only
    /// controls there), and `body`.
    static func page(
        title: String, nonce: String, csrf: String?, bridge: (platform: String, components: String)?, body: String
    ) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"\(bridge.map { " data-bridge-platform=\"\(escape($0.platform))\" data-bridge-components=\"\(escape($0.components))\"" } ?? "")>
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · Almanac</title>
        \(csrf.map { "<meta name=\"csrf-token\" content=\"\(escape($0))\">" } ?? "")
        <link rel="stylesheet" href="/static/app.css">
        <link rel="icon" href="/static/icon.svg" type="image/svg+xml">
        <script type="module" src="/static/app.js" nonce="\(nonce)"></script>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
