import Testing
import WaymarkGeo

/// `catch GeoError.Code.<code>` matches a thrown `GeoError` of that code, and nothing else.
@Suite("GeoError code matching")
struct GeoErrorMatchingTests {
    @Test("a catch clause names the code")
    func catchByCode() {
        func caught(_ body: () throws -> Void) -> String {
            do { try body(); return "none" }
            catch GeoError.Code.invalidValue { return "invalidValue" }
            catch GeoError.Code.invalidCoordinate { return "invalidCoordinate" }
            catch { return "other" }
        }
        #expect(caught { _ = try Coordinate(latitude: 91, longitude: 0) } == "invalidCoordinate")
        #expect(caught { throw GeoError(.invalidValue, "x") } == "invalidValue")
        #expect(caught { throw CancellationError() } == "other")
        #expect(caught {} == "none")
    }
}
