// WaymarkApple: the live `Device` (``LiveDevice``) over CoreLocation, UserNotifications,
// CoreMotion and UIApplication. Everything is compiled only on platforms with those
// frameworks; on Linux this module is empty. It has not been exercised on a device.
