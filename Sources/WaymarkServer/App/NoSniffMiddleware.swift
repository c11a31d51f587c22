import Hummingbird

/// Adds `X-Content-Type-Options: nosniff` to every reply, errors included, so a browser never runs a JSON,
/// CSV or GPX reply as script or HTML because it looks like one (defence in depth; the dashboard has its
/// own, stricter headers).
struct NoSniffMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}
