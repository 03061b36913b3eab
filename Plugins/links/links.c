/* placeholder: being written */
#include "layoutd_plugin.h"
LAYOUTD_PLUGIN_EXPORT const layoutd_plugin *layoutd_plugin_entry(uint32_t v) { (void)v; return 0; }
