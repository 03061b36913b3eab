/*
 * plugin_support.h — small helpers the shipped plugins share (the PluginSupport target,
 * compiled into each plugin that uses it; libc only, no layoutd code): error messages for the
 * host's buffers and reading the host's option trees.
 */
#ifndef PLUGIN_SUPPORT_H
#define PLUGIN_SUPPORT_H

#include <stddef.h>

#include "layoutd_plugin.h"

/** Writes a printf-style message into `error` (always terminated, never past `error_size`;
 * nothing when `error` is NULL or `error_size` is 0). */
void plugin_set_error(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4), visibility("hidden")));

/** The member `key` of `object` (the last one when repeated, as JSON parsers keep it), or
 * NULL when `object` is NULL, not an object, or has no such member. */
const layoutd_value *plugin_member(const layoutd_value *object, const char *key)
    __attribute__((visibility("hidden")));

#endif
