#ifndef ORIENTD_CIIO_SHIM_H
#define ORIENTD_CIIO_SHIM_H
/* libudev (discovery, hotplug), linked. The module keeps its name from when
   it also declared libiio's functions: buffered capture now reads sysfs and
   /dev/iio:deviceN itself (IIOBuffer.swift), and nothing of libiio is used. */
#include <libudev.h>
#endif
