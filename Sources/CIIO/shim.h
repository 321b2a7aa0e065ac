#ifndef ORIENTD_CIIO_SHIM_H
#define ORIENTD_CIIO_SHIM_H
/* libiio (IIO devices, channels, buffers) and libudev (discovery, hotplug).
   libudev is linked; libiio is not: IIO.swift loads it with dlopen(3) when
   buffered capture first starts (it brings libxml2, ICU, avahi, D-Bus,
   libsystemd and libusb with it), through the pointer types below, which the
   compiler derives from iio.h itself so they cannot drift from it. */
#include <iio.h>
#include <libudev.h>

#define ORIENTD_LIBIIO_SONAME "libiio.so.0"

#define ORIENTD_IIO_FN(name) typedef __typeof__(name) *orientd_##name##_fn;
ORIENTD_IIO_FN(iio_library_get_version)
ORIENTD_IIO_FN(iio_create_local_context)
ORIENTD_IIO_FN(iio_context_destroy)
ORIENTD_IIO_FN(iio_context_find_device)
ORIENTD_IIO_FN(iio_device_find_channel)
ORIENTD_IIO_FN(iio_device_get_channels_count)
ORIENTD_IIO_FN(iio_device_get_channel)
ORIENTD_IIO_FN(iio_channel_get_id)
ORIENTD_IIO_FN(iio_channel_get_name)
ORIENTD_IIO_FN(iio_channel_is_output)
ORIENTD_IIO_FN(iio_device_get_name)
ORIENTD_IIO_FN(iio_device_get_trigger)
ORIENTD_IIO_FN(iio_device_set_trigger)
ORIENTD_IIO_FN(iio_device_is_trigger)
ORIENTD_IIO_FN(iio_device_create_buffer)
ORIENTD_IIO_FN(iio_channel_is_scan_element)
ORIENTD_IIO_FN(iio_channel_get_data_format)
ORIENTD_IIO_FN(iio_channel_enable)
ORIENTD_IIO_FN(iio_channel_disable)
ORIENTD_IIO_FN(iio_buffer_set_blocking_mode)
ORIENTD_IIO_FN(iio_buffer_get_poll_fd)
ORIENTD_IIO_FN(iio_buffer_refill)
ORIENTD_IIO_FN(iio_buffer_step)
ORIENTD_IIO_FN(iio_buffer_first)
ORIENTD_IIO_FN(iio_buffer_end)
ORIENTD_IIO_FN(iio_buffer_destroy)
#undef ORIENTD_IIO_FN
#endif
