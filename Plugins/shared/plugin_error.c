/* plugin_error.c — writing a message into a host error buffer, for the shipped plugins. */
#include <stdarg.h>
#include <stdio.h>

#include "plugin_error.h"

void plugin_set_error(char *error, size_t error_size, const char *format, ...) {
    if (!error || error_size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, error_size, format, args);
    va_end(args);
}
