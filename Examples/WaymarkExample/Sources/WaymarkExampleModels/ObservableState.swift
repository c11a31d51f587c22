import Observation

/// Storage for one observed `State` value: what each view model keeps instead of the
/// `@Observable` macro.
///
/// The macro from this machine's Swift 6.3 toolchain expands to code that the iOS 17.4 SDK's
/// `Observation` module rejects, so the view models conform to `Observable` by hand: one
/// `state` property whose getter calls `access` and whose setter calls `withMutation`. SwiftUI
/// tracks it exactly as it tracks a macro-generated property.
///
/// ```swift
/// public private(set) var state: State {
///     get { observed.read(self, \.state) }
///     set { observed.write(self, \.state, newValue) }
/// }
/// ```
///
/// Main-actor isolated, like the view models that own it.
@MainActor
struct ObservedValue<Value> {
    private let registrar = ObservationRegistrar()
    private var value: Value

    /// Stores the initial value.
    init(_ value: Value) { self.value = value }

    /// Reads the value and records the access for observation.
    func read<Subject: Observable>(_ subject: Subject, _ keyPath: KeyPath<Subject, Value>) -> Value {
        registrar.access(subject, keyPath: keyPath)
        return value
    }

    /// Replaces the value and notifies observers.
    mutating func write<Subject: Observable>(_ subject: Subject, _ keyPath: KeyPath<Subject, Value>, _ newValue: Value) {
        registrar.willSet(subject, keyPath: keyPath)
        value = newValue
        registrar.didSet(subject, keyPath: keyPath)
    }
}
