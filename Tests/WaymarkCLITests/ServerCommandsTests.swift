import Testing
@testable import WaymarkCLI
