import HTTPTypes

/// The stylesheet, script and icon (`Resources/app.css`, `app.js`, `icon.svg`), embedded
/// in the binary by SwiftPM (no CDN, no build step) and served with an ETag.
enum StaticFiles {
    static let css = StaticDocument(
        bytes: PackageResources.app_css, contentType: "text/css; charset=utf-8", cacheControl: "public, max-age=3600")
    static let javascript = StaticDocument(
        bytes: PackageResources.app_js, contentType: "text/javascript; charset=utf-8",
        cacheControl: "public, max-age=3600")

    /// The pages' icon, also what browsers ask for as `/favicon.ico`.
    static let icon = StaticDocument(
        bytes: PackageResources.icon_svg, contentType: "image/svg+xml", cacheControl: "public, max-age=86400")

    static func response(to request: HTTPRequest) -> HTTPResponse {
        switch request.path {
        case "/static/app.css": css.response(to: request)
        case "/static/app.js": javascript.response(to: request)
        case "/static/icon.svg", "/favicon.ico": icon.response(to: request)
        default: .text(404, "404 Not Found\n")
        }
    }
}
