/* The ABI target is its header (include/layoutd_plugin.h); this file only gives SwiftPM a
 * source to build and checks that the header compiles on its own. */
#include "layoutd_plugin.h"
