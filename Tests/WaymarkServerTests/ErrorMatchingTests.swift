import Testing
import WaymarkServer

@Suite("ServerError code matching")
struct ServerErrorMatchingTests {
    @Test("a catch clause names the code; another code or type does not match")
    func catchByCode() {
        var caught = "none"
        do { throw ServerError(.malformedBody, "the body is empty; expected JSON") }
        catch ServerError.Code.badRequest { caught = "badRequest" }
        catch ServerError.Code.malformedBody { caught = "malformedBody" }
        catch { caught = "other" }
        #expect(caught == "malformedBody")
        #expect(!(ServerError.Code.malformedBody ~= CancellationError()))
    }
}
