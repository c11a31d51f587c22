import Foundation
import HTTPTypes
import Hummingbird

/// Runs the whole of a heavy request on the low-priority ``BackgroundExecutor``: its handler, its error reply and the
/// writing of its reply body.
///
/// A request is heavy when its body is larger than ``ServerConfiguration/heavyDecodeThresholdBytes`` (or has no
/// declared length), or when it reads a device's history (positions, gaps, device events, rides, an export, fence
/// events). Their CPU work — the error reply listing 500 rejected points, a page of 8 MiB of device events — would
/// otherwise run on the cooperative threads that serve every request, where a phone's one-point upload waits for a
/// thread behind them. On the background threads, at `nice` 10, the kernel runs the small requests first. On by
/// default; `WAYMARK_HEAVY_BACKGROUND=off` in the environment turns it off (to measure without it).
struct BackgroundLaneMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Off when the environment variable `WAYMARK_HEAVY_BACKGROUND` is `off`.
    static var enabled: Bool { ProcessInfo.processInfo.environment["WAYMARK_HEAVY_BACKGROUND"] != "off" }
    let thresholdBytes: Int

    func isHeavy(_ request: Request) -> Bool {
        if request.method == .get {
            let path = request.uri.path
            return path.hasSuffix("/device-events") || path.hasSuffix("/rides") || path.hasSuffix("/positions")
                || path.hasSuffix("/export") || path.hasSuffix("/gaps") || path == "/api/events"
        }
        if let length = request.headers[.contentLength].flatMap(Int.init) { return length > thresholdBytes }
        return request.headers[.transferEncoding] != nil
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard isHeavy(request) else { return try await next(request, context) }
        var response = try await withTaskExecutorPreference(BackgroundExecutor.shared) {
            do {
                return try await next(request, context)
            } catch let error as any HTTPResponseError {
                return try error.response(from: request, context: context)   // encoded here, not on the shared threads
            }
        }
        let original = response.body
        response.body = ResponseBody(contentLength: original.contentLength) { writer in
            try await withTaskExecutorPreference(BackgroundExecutor.shared) { try await original.write(writer) }
        }
        return response
    }
}
