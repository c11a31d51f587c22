import Testing
@testable import WaymarkServer
