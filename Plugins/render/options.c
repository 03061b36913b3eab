/*
 * options.c — reading the host's read-only JSON value tree (layoutd_value): membership in a
 * list of strings (members by key come from plugin_member, PluginSupport).
 */
#include <string.h>

#include "layoutd_plugin.h"
#include "plugin_support.h"
#include "render.h"

/* 1 when string value `v` equals NUL-terminated `s`. */
static int value_is(const layoutd_value *v, const char *s)
{
    return v->type == LAYOUTD_VALUE_STRING && v->string != NULL && v->length == strlen(s) &&
           memcmp(v->string, s, v->length) == 0;
}

int rp_list_has(const layoutd_value *list, const char *const *defaults, const char *s)
{
    if (s == NULL) return 0;
    if (list != NULL && list->type == LAYOUTD_VALUE_STRING) return value_is(list, s);
    if (list != NULL && list->type == LAYOUTD_VALUE_ARRAY) {
        if (list->items == NULL) return 0;
        for (uint32_t i = 0; i < list->count; i++)
            if (value_is(&list->items[i], s)) return 1;
        return 0;
    }
    for (; defaults != NULL && *defaults != NULL; defaults++)
        if (strcmp(*defaults, s) == 0) return 1;
    return 0;
}
