/*
 * exclusions.c — walks the URLs and emails of a text in step with a detector, so that
 * mentions, hashtags and phone numbers are not reported inside them
 * ("https://medium.com/@user", "https://a.com/#top", "12345678@qq.com").
 *
 * Each scanner runs forward once over the whole text in total (the next span is looked
 * for only after the position has passed the current one), so the walk adds linear time.
 */
#include "links.h"

void lk_exclusions_init(lk_exclusions *x, const unsigned char *s, size_t n) {
    x->s = s;
    x->n = n;
    x->url = (lk_span){0, 0};
    x->email = (lk_span){0, 0};
    x->url_done = false;
    x->email_done = false;
}

/** Moves `*span` to the first span of its kind that ends after `pos`. */
static void advance(lk_exclusions *x, size_t pos, lk_span *span, bool *done, bool is_url) {
    while (!*done && span->end <= pos) {
        size_t from = span->end;
        bool www;
        bool found = is_url ? lk_next_url(x->s, x->n, from, span, &www)
                            : lk_next_email(x->s, x->n, from, span);
        if (!found) *done = true;
    }
}

size_t lk_exclusions_skip(lk_exclusions *x, size_t pos) {
    advance(x, pos, &x->url, &x->url_done, true);
    if (!x->url_done && x->url.start <= pos && pos < x->url.end) return x->url.end;
    advance(x, pos, &x->email, &x->email_done, false);
    if (!x->email_done && x->email.start <= pos && pos < x->email.end) return x->email.end;
    return pos;
}
