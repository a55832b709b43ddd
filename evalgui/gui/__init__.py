"""The Qt application. Only this package imports Qt; it reaches the engines through its worker."""
