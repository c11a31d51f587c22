import Foundation
import WaymarkEngine
import WaymarkSimulator

/// The simulated device as the engine sees it, counting how often the engine asked for the next
/// event: when it asks for event n + 1 it has handled the first n completely, so a test knows
/// when the engine is idle without reaching into it.
final class CountingDevice: Device {
    let simulated: SimulatedDevice
    let reader: Reader
    let events: AsyncStream<TimedDeviceEvent>

    init(_ simulated: SimulatedDevice) {
        self.simulated = simulated
        let reader = Reader(simulated.events)
        self.reader = reader
        events = AsyncStream(unfolding: { await reader.next() })
    }

    func perform(_ command: DeviceCommand) async { await simulated.perform(command) }

    func now() async -> Date { await simulated.now() }

    func infoPlist() async -> InfoPlistDeclarations? { await simulated.infoPlist() }

    func monitoredRegionIdentifiers() async -> Set<String>? { await simulated.monitoredRegionIdentifiers() }

    /// Reads the simulated device's stream for the engine and counts the reads.
    actor Reader {
        private var iterator: AsyncStream<TimedDeviceEvent>.Iterator
        /// How many times the engine asked for an event.
        private(set) var reads = 0

        init(_ stream: AsyncStream<TimedDeviceEvent>) { iterator = stream.makeAsyncIterator() }

        func next() async -> TimedDeviceEvent? {
            reads += 1
            var copy = iterator   // the iterator's storage is a reference: the copy reads the same stream
            let event = await copy.next(isolation: self)
            iterator = copy
            return event
        }
    }
}
