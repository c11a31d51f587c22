import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import WaymarkServer

/// The OpenAPI document (`GET /openapi.json`) and the router agree: every route is documented and every
/// documented operation is a route.
@Suite("OpenAPI document")
struct OpenAPIParityTests {
    @Test("every route of the router is in the document, and every operation of the document is a route")
    func parity() async throws {
        try await StoreKind.sqlite.withStore { store in
            let router = TrackingServer.makeRouter(configuration: ServerConfiguration(adminTokenDigest: TokenHasher.digest("x")),
                                                   store: store)
            let routes = Set(router.routes.map { route -> String in
                let path = route.path.description.split(separator: "/").map { part -> String in
                    part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
                }.joined(separator: "/")
                return "\(route.method.rawValue) /\(path)"
            })
            let documented = Set(OpenAPIDocument.operations.map { "\($0.method) \($0.path)" })
            #expect(routes.count > 25, "\(routes)")
            #expect(routes.subtracting(documented).isEmpty, "routes missing from the document: \(routes.subtracting(documented).sorted())")
            #expect(documented.subtracting(routes).isEmpty, "documented operations with no route: \(documented.subtracting(routes).sorted())")
        }
    }

    @Test("the server serves the document; it is OpenAPI 3.1 and every reference resolves")
    func served() async throws {
        try await TestServer.run(.sqlite) { server in
            let response = try await server.send(.get, "/openapi.json")
            #expect(response.status == .ok && response.headers[.contentType] == "application/json")
            let document = try response.json()
            #expect(document["openapi"] as? String == "3.1.0")
            let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
            var references: Set<String> = []
            func collect(_ value: Any) {
                if let object = value as? [String: Any] {
                    if let ref = object["$ref"] as? String { references.insert(ref) }
                    object.values.forEach(collect)
                } else if let array = value as? [Any] {
                    array.forEach(collect)
                }
            }
            collect(document)
            #expect(!references.isEmpty)
            for ref in references {
                let name = ref.replacingOccurrences(of: "#/components/schemas/", with: "")
                #expect(schemas[name] != nil, "\(ref) does not resolve")
            }
        }
    }
}
