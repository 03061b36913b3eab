/* plugin_support.c — helpers the shipped plugins share: see include/plugin_support.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plugin_support.h"

void plugin_set_error(char *error, size_t error_size, const char *format, ...) {
    if (!error || error_size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, error_size, format, args);
    va_end(args);
}

const layoutd_value *plugin_member(const layoutd_value *object, const char *key) {
    if (object == NULL || object->type != LAYOUTD_VALUE_OBJECT || object->members == NULL) return NULL;
    size_t key_length = strlen(key);
    const layoutd_value *found = NULL;
    for (uint32_t i = 0; i < object->count; i++) {
        const layoutd_member *m = &object->members[i];
        if (m->key != NULL && m->key_length == key_length && memcmp(m->key, key, key_length) == 0) found = &m->value;
    }
    return found;
}
