import Foundation

/// A webhook subscription: every fence event is POSTed to ``url``, signed with ``secret``.
///
/// ```swift
/// let hook = Webhook(id: "w_1", url: URL(string: "https://example.com/hook")!, secret: "s3cret", createdAt: .now)
/// try await store.insertWebhook(hook)
/// ```
///
/// A `Sendable` value type.
public struct Webhook: Hashable, Sendable {
    /// Stable identifier.
    public var id: String
    /// Where events are POSTed (http or https).
    public var url: URL
    /// The HMAC-SHA256 key of the `X-Waymark-Signature` header.
    public var secret: String
    /// When the subscription was made.
    public var createdAt: Date

    /// Makes a subscription.
    public init(id: String, url: URL, secret: String, createdAt: Date) {
        self.id = id
        self.url = url
        self.secret = secret
        self.createdAt = createdAt
    }

    /// `{"id","url","created"}`: the API shape (the secret is shown only when created). A password in
    /// the URL (possible only in subscriptions made before such URLs were refused) is shown as `***`.
    var jsonObject: [String: Any] {
        ["id": id, "url": redactedURL, "created": TimestampParser.format(createdAt)]
    }

    /// The URL with any password replaced by `***`.
    var redactedURL: String {
        guard url.password != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.password = "***"
        return components.string ?? "(a URL with a password)"
    }
}
