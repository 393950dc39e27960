import HTTPTypes

/// The OpenAPI 3.1 description of the JSON API, `Resources/openapi.json`, embedded in
/// the binary and served at `/api/v1/openapi.json`. A test checks that its paths and
/// methods are exactly the routes.
enum OpenAPIDocument {
    static let document = StaticDocument(
        bytes: PackageResources.openapi_json, contentType: "application/json", cacheControl: "public, max-age=300")
}
