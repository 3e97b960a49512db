"""The device-independent op layer."""
