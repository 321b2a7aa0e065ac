#ifndef ORIENTD_CIIO_SHIM_H
#define ORIENTD_CIIO_SHIM_H
/* libudev (discovery, hotplug), linked. No libiio: buffered capture reads
   sysfs and /dev/iio:deviceN itself (IIOBuffer.swift). The one libiio
   function left is its version, which `orientd --version` reports when
   libiio is installed, looked up with dlopen(3)/dlsym(3) (IIO.swift,
   LibIIO); its type is declared here by hand, as iio.h declares it, so
   the build needs no libiio headers. */
#include <libudev.h>

#define ORIENTD_LIBIIO_SONAME "libiio.so.0"

/* iio.h: void iio_library_get_version(unsigned int *major,
   unsigned int *minor, char git_tag[8]); */
typedef void (*orientd_iio_library_get_version_fn)(unsigned int *major, unsigned int *minor, char git_tag[8]);
#endif
