// Tests for WaymarkSimulator.
