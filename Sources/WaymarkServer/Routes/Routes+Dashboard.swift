import Foundation
import HTTPTypes
import Hummingbird

extension Routes {
    func addDashboardRoute(to router: Router<TrackingServer.Context>) {
        router.get("/dashboard") { _, _ in dashboard() }
        for (name, asset) in DashboardAssets.files {
            router.get(RouterPath(DashboardAssets.pathPrefix + name)) { _, _ in Self.dashboardAsset(asset) }
        }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.json)))
        }
    }

    /// The dashboard page (see ``DashboardPage``) with the configured basemap. Its headers: its type, no
    /// caching without revalidation, and defence in depth for the page that holds the admin token:
    /// ``DashboardPage/contentSecurityPolicy(tiles:)`` (images from the tile host only), no framing (also for
    /// browsers without `frame-ancestors`), no MIME sniffing and no `Referer` sent from it.
    func dashboard() -> Response {
        let tiles = configuration.tileURLTemplate
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .cacheControl: "no-cache",
            .contentSecurityPolicy: DashboardPage.contentSecurityPolicy(tiles: tiles),
            HTTPField.Name("X-Frame-Options")!: "DENY",
            .xContentTypeOptions: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "no-referrer",
        ]
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: DashboardPage.page(tiles: tiles, attribution: configuration.tileAttribution))))
    }

    /// A file of the dashboard's map library (``DashboardAssets``): public like the page, the same bytes
    /// for as long as the path names the same library version, so cached for a year without revalidation.
    static func dashboardAsset(_ asset: DashboardAssets.Asset) -> Response {
        Response(status: .ok,
                 headers: [.contentType: asset.contentType, .cacheControl: "public, max-age=31536000, immutable"],
                 body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// Whether a `GET /` is a browser asking for the dashboard rather than an OsmAnd upload: no device id,
    /// token or position in the query.
    static func wantsDashboard(_ request: Request) -> Bool {
        guard request.method == .get else { return false }
        let fields = FormFields(request.uri.query ?? "")
        return fields.first("id", "deviceid") == nil && fields.first("lat", "location") == nil
            && request.uri.queryParameters["token"] == nil && request.headers[.authorization] == nil
    }
}
