import ArgumentParser
import WaymarkCLI

await WaymarkCommand.main()
