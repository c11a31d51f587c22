import Foundation
import WaymarkCLI

exit(await WaymarkCommand.run())
