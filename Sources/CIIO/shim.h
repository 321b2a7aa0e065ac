#ifndef ORIENTD_CIIO_SHIM_H
#define ORIENTD_CIIO_SHIM_H
/* libiio (IIO devices, channels, buffers) and libudev (discovery, hotplug). */
#include <iio.h>
#include <libudev.h>
#endif
