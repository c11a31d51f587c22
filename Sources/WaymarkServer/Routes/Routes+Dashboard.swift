import Foundation
import Hummingbird

extension Routes {
    func addDashboardRoute(to router: Router<TrackingServer.Context>) {
        router.get("/dashboard") { _, _ in Self.dashboard() }
    }

    /// The dashboard page (see ``DashboardPage``).
    static func dashboard() -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: DashboardPage.html)))
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
