/* Empty: CBench only exports <sys/epoll.h> to Swift (see include/cbench.h). */
#include "cbench.h"
