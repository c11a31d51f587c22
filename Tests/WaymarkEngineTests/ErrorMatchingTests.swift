import Testing
import WaymarkEngine

@Suite("EngineError code matching")
struct EngineErrorMatchingTests {
    @Test("`catch EngineError.Code.stopped` matches only that code of that type")
    func catchByCode() {
        #expect(EngineError.Code.stopped ~= EngineError(.stopped, "the device stream ended"))
        #expect(!(EngineError.Code.stopped ~= CancellationError()))
        var caught = false
        do { throw EngineError(.stopped, "x") } catch EngineError.Code.stopped { caught = true } catch {}
        #expect(caught)
    }
}
