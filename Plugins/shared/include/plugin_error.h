/*
 * plugin_error.h — the shipped plugins' helper for the host's error buffers (part of the PluginSupport
 * target, compiled into each plugin that uses it; libc only).
 */
#ifndef PLUGIN_ERROR_H
#define PLUGIN_ERROR_H

#include <stddef.h>

/** Writes a printf-style message into `error` (always terminated, never past `error_size`;
 * nothing when `error` is NULL or `error_size` is 0). */
void plugin_set_error(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4), visibility("hidden")));

#endif
